#!/usr/bin/env node
// Runs scenario files (tests/scenarios/README.md) through the JavaScript host:
//
//   node hosts/js/scenarios.mjs tests/scenarios [more files or directories...]
//   node node_modules/read-window/scenarios.mjs tests/scenarios      (the installed npm package)
//
// Prints `PASS name` or `FAIL name: why` for every scenario, then `N passed, M failed`; exits 0 only when every
// scenario passed (1 when one failed, 2 when the runner cannot run: a missing install or transpile, a bad path).
//
// Each scenario runs in a fresh temporary directory: its `files` in `scenario/`, granted read-only at the guest
// path /scenario (also the working directory), its `outside` files in `outside/`, not granted. Named sessions
// (`"session"` on a step, default "main") start at their first step with the scenario's config (as JSON text).
// Each step's request (the step without `expect` and `session`) goes to the component as it is, through
// `session.answer` (`read_once` included); only `write_file` and `remove_file` are the runner's own. Scenario files
// and answers are read by `parseJson`, so an integer beyond 2^53 (an `id` of 18446744073709551615) stays exact.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import iconv from 'iconv-lite';

import { toJson as showJson } from './json.js';
import { normalize } from './links.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The guest path the scenario's directory is granted at, on every host. */
export const GUEST_ROOT = '/scenario';
/** The session a step without a `session` key runs in. */
export const DEFAULT_SESSION = 'main';

const SCENARIO_KEYS = ['name', 'description', 'files', 'outside', 'config', 'spill', 'steps'];
const STEP_KEYS = ['expect', 'session'];

/** A failure of one step or of the scenario file: its message is the runner's `why`. */
class Failure extends Error {}

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `JSON.parse`, with an integer beyond 2^53 (a u64 such as 18446744073709551615) read as a BigInt, not rounded:
 * each such literal outside strings is swapped for a tag, parsed, then the tags for BigInts. The text is walked by
 * hand: V8's regular expressions overflow the stack on a string of a few million characters.
 * @param {string} text @returns {unknown} @throws {SyntaxError}
 */
export function parseJson(text) {
  const plain = JSON.parse(text); // valid JSON (or the SyntaxError), so the walk below ends
  const [big, parts, number] = [new Map(), [], /-?\d+(\.\d+)?([eE][+-]?\d+)?/y];
  let copied = 0;
  for (let at = 0; at < text.length; at += 1) {
    if (text[at] === '"') {
      for (at += 1; text[at] !== '"'; ) at += text[at] === '\\' ? 2 : 1;
    } else if (text[at] === '-' || (text[at] >= '0' && text[at] <= '9')) {
      number.lastIndex = at;
      const [token, fraction, exponent] = number.exec(text);
      if (fraction === undefined && exponent === undefined && !Number.isSafeInteger(Number(token))) {
        const tag = `\u0000bigint${big.size}`;
        big.set(tag, BigInt(token));
        parts.push(text.slice(copied, at), JSON.stringify(tag));
        copied = at + token.length;
      }
      at += token.length - 1;
    }
  }
  if (big.size === 0) return plain;
  parts.push(text.slice(copied));
  return JSON.parse(parts.join(''), (_key, value) => (big.has(value) ? big.get(value) : value));
}

// ---------------------------------------------------------------------------------------------------------------
// Files

/**
 * The scenario files under `paths`: each file as given, each directory searched recursively for `*.json` (through
 * links too), sorted by path components, bytewise.
 * @param {string[]} paths
 * @returns {string[]}
 */
export function collectFiles(paths) {
  const key = (path) => Buffer.from(path.replaceAll('/', '\0')); // `\0` sorts a name before any longer one
  return paths.flatMap((path) =>
    statSync(path).isDirectory() ? walk(path).sort((a, b) => Buffer.compare(key(a), key(b))) : [path]);
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory() || (entry.isSymbolicLink() && statSync(path).isDirectory())) return walk(path);
    return entry.name.endsWith('.json') ? [path] : [];
  });
}

/** `name` (relative, `/`-separated, no `..`) under `dir`. */
function fixturePath(dir, name) {
  if (typeof name !== 'string') throw new Failure('`path` must be a string');
  const parts = name.split('/');
  if (name === '' || name.startsWith('/') || parts.includes('..')) {
    throw new Failure(`fixture path ${showJson(name)} must be relative to the scenario's directory, without \`..\``);
  }
  return join(dir, ...parts.filter((part) => part !== '' && part !== '.'));
}

function writeFiles(dir, files, key, scenarioDir) {
  if (files === undefined || files === null) return;
  if (!isObject(files)) throw new Failure(`\`${key}\` must be an object of path: content`);
  for (const [name, content] of Object.entries(files)) {
    let path;
    try {
      path = fixturePath(dir, name);
      writeOne(path, content, scenarioDir);
    } catch (error) {
      throw new Failure(path === undefined ? `${key}: ${error.message}` : `${key}: ${name}: ${error.message}`);
    }
  }
}

/** The keys that say what a file object is. */
const FILE_KINDS = ['base64', 'repeat', 'numbered', 'concat', 'encode', 'symlink', 'symlink_absolute', 'dir', 'fifo'];

/** A field of a file object: `fallback` when absent (undefined: required), else `valid(value)` or `why`. */
function field(spec, key, valid, why, fallback) {
  const value = Object.hasOwn(spec, key) ? spec[key] : fallback;
  if (!valid(value)) throw new Failure(why);
  return value;
}
const count = (spec, key, fallback) =>
  field(spec, key, (n) => Number.isSafeInteger(n) && n >= 0, `\`${key}\` must be a non-negative integer`, fallback);
const string = (spec, key, why = `\`${key}\` must be a string`, fallback = undefined) =>
  field(spec, key, (text) => typeof text === 'string', why, fallback);

/**
 * The bytes of a file value: text (UTF-8), `{base64}`, `{repeat, count}`, `{numbered, count, from, width, suffix}`
 * (lines: prefix, the number zero-padded to `width`, suffix), `{concat: [value, ...]}` or `{encode: value,
 * encoding: label}` (the UTF-8 text of `value` encoded by iconv-lite in the WHATWG encoding `label`; iconv-lite has
 * no ISO-2022-JP, so a scenario gives such a file as base64).
 */
function fileBytes(content) {
  if (typeof content === 'string') return Buffer.from(content, 'utf8');
  if (!isObject(content)) throw new Failure('a file is a string or an object');
  const has = (key) => Object.hasOwn(content, key);
  if (has('base64')) {
    const text = string(content, 'base64');
    if (!/^[A-Za-z0-9+/=\s]*$/.test(text)) throw new Failure(`${showJson(text)} is not base64`);
    return Buffer.from(text.replace(/[\s=]/g, ''), 'base64');
  }
  if (has('repeat')) return Buffer.from(string(content, 'repeat').repeat(count(content, 'count')), 'utf8');
  if (has('numbered')) {
    const why = '`numbered` and `suffix` must be strings';
    const [prefix, suffix] = [string(content, 'numbered', why), string(content, 'suffix', why, '')];
    const [from, width] = [count(content, 'from', 1), count(content, 'width', 0)];
    const line = (i) => `${prefix}${String(from + i).padStart(width, '0')}${suffix}\n`;
    return Buffer.from(Array.from({ length: count(content, 'count') }, (_, i) => line(i)).join(''), 'utf8');
  }
  if (has('encode')) {
    const label = string(content, 'encoding', '`encode` needs an `encoding` (a WHATWG label such as "windows-1251")');
    if (!iconv.encodingExists(label)) {
      throw new Failure(`\`encoding\` ${showJson(label)} is not an encoding iconv-lite knows`);
    }
    const text = new TextDecoder('utf-8', { fatal: true }).decode(fileBytes(content.encode));
    const bytes = iconv.encode(text, label);
    if (iconv.decode(bytes, label) !== text) throw new Failure(`${label} cannot encode the text to \`encode\``);
    return bytes;
  }
  if (has('concat')) {
    if (!Array.isArray(content.concat)) throw new Failure('`concat` must be a list of file values');
    return Buffer.concat(content.concat.map(fileBytes));
  }
  throw new Failure(`a file object needs one of the keys ${FILE_KINDS.join(', ')}`);
}

/**
 * Writes one fixture (a file value, or a symlink, dir or fifo), replacing what was there. A `symlink_absolute`
 * link's target is the absolute host path of a path relative to `scenarioDir`, the scenario's directory.
 */
function writeOne(path, content, scenarioDir) {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { recursive: true, force: true });
  const has = (key) => isObject(content) && Object.hasOwn(content, key);
  if (has('symlink')) {
    symlinkSync(string(content, 'symlink'), path);
  } else if (has('symlink_absolute')) {
    const why = "`symlink_absolute` must be a string (a path relative to the scenario's directory)";
    symlinkSync(normalize(`./${string(content, 'symlink_absolute', why)}`, realpathSync(scenarioDir)), path);
  } else if (has('dir')) {
    mkdirSync(path);
  } else if (has('fifo')) {
    // Node has no mkfifo: the system command makes the named pipe.
    const made = spawnSync('mkfifo', [path], { encoding: 'utf8' });
    if (made.error) throw new Failure(`cannot run mkfifo: ${made.error.message}`);
    if (made.status !== 0) throw new Failure(`mkfifo ${path} failed: ${made.stderr.trim() || `exit ${made.status}`}`);
  } else {
    writeFileSync(path, fileBytes(content));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

/**
 * Matches `actual` against `expected` by the rules of the scenario format; `place` is the JSON path so far.
 * @param {unknown} expected
 * @param {unknown} actual `undefined` when the key is missing.
 * @param {string} [place]
 * @throws {Failure} Where and how they differ.
 */
export function matchValue(expected, actual, place = '') {
  const fail = (why) => {
    throw new Failure(`at ${place === '' ? '/' : place}: ${why}`);
  };
  const show = (value) => (value === undefined ? 'no key' : showJson(value));
  if (isObject(expected) && Object.hasOwn(expected, '$absent')) {
    const absent = expected.$absent;
    if (absent === true && actual !== undefined) fail(`expected no key, got ${show(actual)}`);
    if (absent !== true && (absent !== false || actual === undefined)) fail('expected a key, found none');
  } else if (isObject(expected) && Object.hasOwn(expected, '$contains')) {
    const needles = [expected.$contains].flat();
    const wanted = `expected a string containing ${showJson(expected.$contains)}`;
    if (typeof actual !== 'string') fail(`${wanted}, got ${show(actual)}`);
    for (const needle of needles) {
      if (typeof needle !== 'string') fail('`$contains` takes strings');
      if (!actual.includes(needle)) fail(`expected a string containing ${showJson(needle)}, got ${showJson(actual)}`);
    }
  } else if (isObject(expected)) {
    if (!isObject(actual)) fail(`expected an object, got ${show(actual)}`);
    for (const [key, value] of Object.entries(expected)) {
      matchValue(value, Object.hasOwn(actual, key) ? actual[key] : undefined, `${place}/${key}`);
    }
  } else if (actual === undefined) {
    fail(`expected ${showJson(expected)}, found no key`);
  } else if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) {
      fail(`expected a list of ${expected.length} items, got ${actual.length} items: ${showJson(actual)}`);
    }
    expected.forEach((item, index) => matchValue(item, actual[index], `${place}/${index}`));
  } else if (!deepEqual(expected, actual)) {
    fail(`expected ${showJson(expected)}, got ${showJson(actual)}`);
  }
}

const isNumber = (x) => typeof x === 'number' || typeof x === 'bigint';
const integral = (x) => typeof x === 'bigint' || Number.isInteger(x);

/** Equal JSON values; numbers by value, as serde_json compares them: integers exactly (BigInt or Number). */
function deepEqual(a, b) {
  if (a === b) return true;
  if (isNumber(a) && isNumber(b)) return integral(a) && integral(b) ? BigInt(a) === BigInt(b) : Number(a) === Number(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
}

// ---------------------------------------------------------------------------------------------------------------
// Running

/**
 * Runs one scenario given as parsed JSON.
 * @param {import('./index.js').ReadWindow} reader
 * @param {unknown} scenario
 * @throws {Failure} Why it failed.
 */
export function runScenario(reader, scenario) {
  if (!isObject(scenario)) throw new Failure('a scenario must be a JSON object');
  const extra = Object.keys(scenario).find((key) => !SCENARIO_KEYS.includes(key));
  if (extra !== undefined) {
    throw new Failure(`unknown scenario key \`${extra}\`; the keys are ${SCENARIO_KEYS.join(', ')}`);
  }
  const config = scenario.config === undefined || scenario.config === null ? '' : showJson(scenario.config);
  if (!Array.isArray(scenario.steps)) throw new Failure('`steps` must be a list of steps');

  const temp = mkdtempSync(join(tmpdir(), 'read-window-scenario-'));
  const sessions = new Map();
  try {
    const root = join(temp, 'scenario');
    mkdirSync(root);
    mkdirSync(join(temp, 'outside'));
    writeFiles(root, scenario.files, 'files', root);
    writeFiles(join(temp, 'outside'), scenario.outside, 'outside', root);
    const grants = { [GUEST_ROOT]: root };
    // `spill`: a directory of the scenario made and granted read-write, for the capture ops' spill files.
    const options = {};
    if (scenario.spill !== undefined && scenario.spill !== null) {
      if (typeof scenario.spill !== 'string') throw new Failure('`spill` must be a directory name (a string)');
      const dir = join(root, scenario.spill);
      mkdirSync(dir, { recursive: true });
      options.writable = { [`${GUEST_ROOT}/${scenario.spill.replace(/^\/+|\/+$/g, '')}`]: dir };
    }
    const session = (name) => {
      if (!sessions.has(name)) {
        try {
          sessions.set(name, reader.session(grants, config, options));
        } catch (error) {
          throw new Failure(`session \`${name}\` did not start: ${error.message}`);
        }
      }
      return sessions.get(name);
    };
    scenario.steps.forEach((step, index) => {
      try {
        runStep(step, { root, session });
      } catch (error) {
        if (!(error instanceof Failure)) throw error;
        throw new Failure(`step ${index + 1} (${describeStep(step)}): ${error.message}`);
      }
    });
  } finally {
    for (const open of sessions.values()) open.close();
    rmSync(temp, { recursive: true, force: true });
  }
}

function describeStep(step) {
  const op = isObject(step) && typeof step.op === 'string' ? step.op : 'read';
  return isObject(step) && typeof step.path === 'string' ? `${op} ${step.path}` : op;
}

function runStep(step, context) {
  if (!isObject(step)) throw new Failure('a step must be a JSON object');
  const request = Object.fromEntries(Object.entries(step).filter(([key]) => !STEP_KEYS.includes(key)));
  const name = step.session ?? DEFAULT_SESSION;
  if (typeof name !== 'string') throw new Failure('`session` must be a string');
  const answer = answerStep(request, name, context);
  if (answer?.error?.kind === 'host_error') throw new Failure(`host failure: ${showJson(answer)}`);
  if (!Object.hasOwn(step, 'expect')) return;
  try {
    matchValue(step.expect, answer);
  } catch (error) {
    throw new Failure(`${error.message}; the answer was ${showJson(answer)}`);
  }
}

/** The answer to a step (the runner's own `write_file` or `remove_file`, else the component's), its `id` first. */
function answerStep(request, name, { root, session }) {
  const id = Object.hasOwn(request, 'id') ? { id: request.id } : {};
  const op = request.op ?? 'read';
  if (op !== 'write_file' && op !== 'remove_file') {
    const answer = parseJson(session(name).answer(showJson(request)));
    return isObject(answer) ? { ...id, ...answer } : answer;
  }
  const allowed = op === 'write_file' ? ['op', 'id', 'path', 'content'] : ['op', 'id', 'path'];
  const extra = Object.keys(request).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw new Failure(`unknown field \`${extra}\`; the fields are ${allowed.join(', ')}`);
  const path = fixturePath(root, request.path);
  if (op === 'write_file') {
    if (!Object.hasOwn(request, 'content')) throw new Failure('`content` is missing');
    writeOne(path, request.content, root);
  } else {
    try {
      unlinkSync(path);
    } catch (error) {
      throw new Failure(`cannot remove ${path}: ${error.message}`);
    }
  }
  return { ...id, status: 'ok' };
}

/**
 * Runs one scenario file.
 * @returns {{name: string, why: string | null}}
 */
export function runFile(reader, file) {
  let scenario;
  let stage = 'cannot read the scenario file';
  try {
    const text = readFileSync(file, 'utf8');
    stage = 'the scenario file is not valid JSON';
    scenario = parseJson(text);
  } catch (error) {
    return { name: file, why: `${stage}: ${error.message}` };
  }
  const name = isObject(scenario) && typeof scenario.name === 'string' ? scenario.name : file;
  try {
    runScenario(reader, scenario);
    return { name, why: null };
  } catch (error) {
    return { name, why: error instanceof Failure ? error.message : `the runner failed: ${error?.stack ?? error}` };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Command line

/**
 * Says on stderr when `$READ_WINDOW_WASM` (else the Rust build's component, in a source checkout) is not the wasm
 * `generated/` was transpiled from (`generated/source.json`): the scenarios would run another component.
 */
function warnIfStale(generated) {
  const wasm = process.env.READ_WINDOW_WASM
    || resolve(here, '../../target/component-build/wasm32-wasip2/component/read_window.wasm');
  try {
    const source = JSON.parse(readFileSync(join(generated, 'source.json'), 'utf8'));
    if (!existsSync(wasm)) return;
    if (createHash('sha256').update(readFileSync(wasm)).digest('hex') !== source.sha256) {
      console.error(`note: ${wasm} is not the component generated/ was transpiled from; these scenarios run the ` +
        'transpiled one (run `npm run transpile` in hosts/js)');
    }
  } catch {
    // No record: nothing to compare.
  }
}

/** Says `message` on stderr and exits 2: the runner cannot run. */
function stop(message) {
  console.error(message);
  process.exit(2);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length === 0 || args.some((arg) => arg === '-h' || arg === '--help')) {
    stop('usage: node hosts/js/scenarios.mjs PATH... (scenario files or directories of them)');
  }
  try {
    import.meta.resolve('@bytecodealliance/preview2-shim');
  } catch {
    stop('read-window JS host: its dependencies are not installed: run `npm ci` in hosts/js');
  }
  const generated = join(here, 'generated');
  if (!existsSync(join(generated, 'read_window.js'))) {
    stop('read-window JS host: the transpiled component is missing: run `npm run transpile` in hosts/js');
  }
  warnIfStale(generated);
  let files;
  try {
    files = collectFiles(args.map((arg) => resolve(arg)));
  } catch (error) {
    stop(`scenarios: ${error.message}`);
  }
  // Imported only now, so that a missing install is the message above.
  const { ReadWindow } = await import(pathToFileURL(join(here, 'index.js')).href);
  const reader = await ReadWindow.load({ dir: generated });
  let failed = 0;
  for (const file of files) {
    const { name, why } = runFile(reader, file);
    failed += why === null ? 0 : 1;
    console.log(why === null ? `PASS ${name}` : `FAIL ${name}: ${why}`);
  }
  console.log(`${files.length - failed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
