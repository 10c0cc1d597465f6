#!/usr/bin/env node
// Transpiles the read-window component into `generated/` with jco, for `index.js` to load.
//
//   npm run transpile                      # the wasm found as below
//   npm run transpile -- path/to/read_window.wasm
//   node transpile.mjs --check             # npm's prepack: fails unless generated/ holds a transpile of the wasm
//
// The wasm: the path given, else $READ_WINDOW_WASM, else the one `cargo build -p read-window-host` produced
// (../../target/component-build/wasm32-wasip2/component/read_window.wasm from this directory).
//
// The output is jco's `--instantiation sync` form: a module exporting `instantiate(getCoreModule, imports)`, so
// the host instantiates the component once per session with that session's own WASI imports (its own preopens).
// `generated/package.json` marks the directory as ES modules; `generated/source.json` records the wasm it came from
// by its size and SHA-256 (no path: the directory ships in the npm package) and jco's version. The directory is
// replaced whole, and only when jco succeeded.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Where the transpiled component goes. */
export const GENERATED_DIR = join(here, 'generated');

/** The component the Rust build produces, relative to this directory. */
export const DEFAULT_WASM = resolve(here, '../../target/component-build/wasm32-wasip2/component/read_window.wasm');

/**
 * The component to transpile: `explicit` when given, else `$READ_WINDOW_WASM`, else {@link DEFAULT_WASM}.
 *
 * @param {string | undefined} explicit A path given on the command line.
 * @returns {string} An absolute path to an existing file.
 * @throws {Error} When the chosen path is not a file; the message names the three ways to give one.
 */
export function findWasm(explicit) {
  const env = process.env.READ_WINDOW_WASM;
  const [path, source] = explicit
    ? [resolve(explicit), 'the path given']
    : env
      ? [resolve(env), 'READ_WINDOW_WASM']
      : [DEFAULT_WASM, 'the Rust build output'];
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new Error(
      `the read-window component was not found at ${path} (${source}). Give it one of three ways: ` +
        '`npm run transpile -- path/to/read_window.wasm`, the READ_WINDOW_WASM environment variable, or build it ' +
        'where it is looked for by default: `cargo build -p read-window-host` in the repository root ' +
        `(it writes ${DEFAULT_WASM}).`,
    );
  }
  return path;
}

/** The directory of the installed package `name` (its exports hide package.json), or null. */
function packageRoot(name) {
  let dir;
  try {
    dir = dirname(createRequire(import.meta.url).resolve(name));
  } catch {
    return null;
  }
  for (; dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === name) return dir;
  }
  return null;
}

/** What `generated/source.json` records: `{bytes, sha256, jco}`, or null when there is no transpile. */
export function readSource(dir = GENERATED_DIR) {
  if (!existsSync(join(dir, 'read_window.js')) || !existsSync(join(dir, 'source.json'))) return null;
  return JSON.parse(readFileSync(join(dir, 'source.json'), 'utf8'));
}

/** The SHA-256 of a file, hex. */
export function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * `--check` (npm's `prepack`): exits 1 with a message when `generated/` holds no transpile, or one of another wasm
 * than the one {@link findWasm} finds (when it finds one); else says what will ship.
 */
function check() {
  const source = readSource();
  if (source === null) {
    console.error('transpile --check: generated/ holds no transpiled component: run `npm run transpile` in hosts/js ' +
      'before `npm pack` or `npm publish` (the package ships generated/)');
    process.exit(1);
  }
  let wasm = null;
  try {
    wasm = findWasm(undefined);
  } catch {
    // No wasm to compare with: the transpile ships as it is.
  }
  if (wasm !== null && sha256(wasm) !== source.sha256) {
    console.error(`transpile --check: generated/ was transpiled from another component than ${wasm}: run ` +
      '`npm run transpile` again');
    process.exit(1);
  }
  console.log(`transpile --check: generated/ holds the component of ${source.bytes} bytes, SHA-256 ${source.sha256}`);
}

function main() {
  const args = process.argv.slice(2);
  if (args.length === 1 && args[0] === '--check') return check();
  if (args.length > 1 || args.some((arg) => arg.startsWith('-'))) {
    console.error('usage: node transpile.mjs [path/to/read_window.wasm] | --check');
    process.exit(2);
  }
  let wasm;
  try {
    wasm = findWasm(args[0]);
  } catch (error) {
    console.error(`transpile: ${error.message}`);
    process.exit(1);
  }

  const jcoRoot = packageRoot('@bytecodealliance/jco');
  if (!jcoRoot) {
    console.error('transpile: jco is not installed: run `npm ci` in hosts/js first');
    process.exit(1);
  }
  const jco = JSON.parse(readFileSync(join(jcoRoot, 'package.json'), 'utf8'));
  const jcoBin = join(jcoRoot, jco.bin.jco);

  const staging = `${GENERATED_DIR}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const run = spawnSync(
    process.execPath,
    [jcoBin, 'transpile', wasm, '--out-dir', staging, '--name', 'read_window', '--instantiation', 'sync', '--quiet'],
    { stdio: 'inherit' },
  );
  if (run.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    console.error(`transpile: jco transpile ${wasm} failed (${run.error?.message ?? `exit ${run.status}`})`);
    process.exit(1);
  }
  const bytes = readFileSync(wasm);
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ type: 'module' }, null, 2)}\n`);
  const source = {
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    jco: jco.version,
  };
  writeFileSync(join(staging, 'source.json'), `${JSON.stringify(source, null, 2)}\n`);
  rmSync(GENERATED_DIR, { recursive: true, force: true });
  mkdirSync(dirname(GENERATED_DIR), { recursive: true });
  renameSync(staging, GENERATED_DIR);
  console.log(`transpiled ${wasm} (${bytes.length} bytes) with jco ${jco.version} into ${GENERATED_DIR}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main();
}
