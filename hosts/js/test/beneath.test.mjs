// The host's own `wasi:filesystem` (beneath.js): names resolved one at a time inside directories held open, so a
// link swapped into a path cannot lead out of a grant; and the fallback's check after an open (grants.js).
// Called directly, as the component calls them; the race itself is test/race.test.mjs.
//
//   npm test

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import * as shimFilesystem from '@bytecodealliance/preview2-shim/filesystem';

import { Descriptor, DirectoryEntryStream, Grant, errorCode, isRaceFree, types } from '../beneath.js';
import { GENERATED_DIR } from '../index.js';
import { checkOpened, openGrants } from '../grants.js';

const skip = isRaceFree() ? false : 'no /proc/self/fd here: the fallback is tested below';
const NO_FOLLOW = { symlinkFollow: false };
const READ = { read: true };

let temp;
let grant;
let outside;

before(() => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), 'read-window-js-beneath-')));
  grant = join(temp, 'grant');
  outside = join(temp, 'outside');
  for (const dir of [join(grant, 'd'), join(grant, 'spill'), outside]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(grant, 'd', 'file'), 'inside\n');
  writeFileSync(join(outside, 'file'), 'OUTSIDE\n');
  symlinkSync('../outside', join(grant, 'up'));
  symlinkSync(outside, join(grant, 'abs'));
  symlinkSync('d', join(grant, 'rel'));
  symlinkSync('loop', join(grant, 'loop'));
});

after(() => rmSync(temp, { recursive: true, force: true }));

/** The WASI error code `f` throws. */
function codeOf(f) {
  try {
    f();
  } catch (code) {
    return code;
  }
  return 'no error';
}

/** The text of the file `descriptor` is open on. */
function text(descriptor) {
  const [bytes] = descriptor.read(4096n, 0n);
  return new TextDecoder().decode(bytes);
}

/** The names `descriptor` lists, and the error codes met on the way. */
function listing(descriptor) {
  const stream = descriptor.readDirectory();
  const names = [];
  for (;;) {
    try {
      const entry = stream.readDirectoryEntry();
      if (entry === undefined) break;
      names.push(entry.name);
    } catch (code) {
      names.push(`!${code}`);
    }
  }
  stream[Symbol.dispose]();
  return names.sort();
}

describe('race-free descriptors', { skip }, () => {
  let held;
  let root;
  before(() => {
    held = new Grant(grant, false);
    root = held.preopen();
  });
  after(() => held.close());

  test('a file inside reads; links with a relative target inside are followed, as in wasmtime', () => {
    assert.equal(text(root.openAt(NO_FOLLOW, 'd/file', {}, READ)), 'inside\n');
    assert.equal(text(root.openAt(NO_FOLLOW, 'rel/file', {}, READ)), 'inside\n');
    assert.equal(text(root.openAt(NO_FOLLOW, 'd/../d/./file', {}, READ)), 'inside\n');
    assert.equal(text(root.openAt({ symlinkFollow: true }, 'rel/file', {}, READ)), 'inside\n');
  });

  test('no path leads out: .., absolute paths and links out of the grant are not-permitted', () => {
    for (const path of ['..', 'd/../../outside/file', '/etc/hostname', 'up/file', 'abs/file']) {
      assert.equal(codeOf(() => root.openAt(NO_FOLLOW, path, {}, READ)), 'not-permitted', path);
      assert.equal(codeOf(() => root.statAt(NO_FOLLOW, path)), 'not-permitted', path);
    }
    assert.equal(codeOf(() => root.openAt({ symlinkFollow: true }, 'up', { directory: true }, READ)), 'not-permitted');
    assert.equal(codeOf(() => root.openAt(NO_FOLLOW, 'loop/file', {}, READ)), 'loop');
  });

  test('the last name is a link: not followed unless asked; its stat is the link; only a relative target is read', () => {
    assert.equal(codeOf(() => root.openAt(NO_FOLLOW, 'rel', { directory: true }, READ)), 'not-directory');
    assert.equal(root.statAt(NO_FOLLOW, 'rel').type, 'symbolic-link');
    assert.equal(root.statAt({ symlinkFollow: true }, 'rel').type, 'directory');
    assert.equal(root.statAt(NO_FOLLOW, 'rel/').type, 'directory');
    assert.equal(root.readlinkAt('rel'), 'd');
    assert.equal(root.readlinkAt('up'), '../outside');
    assert.equal(codeOf(() => root.readlinkAt('abs')), 'not-permitted');
    assert.equal(codeOf(() => root.readlinkAt('d')), 'invalid');
    assert.equal(codeOf(() => root.statAt(NO_FOLLOW, 'd/file/')), 'not-directory');
    assert.equal(codeOf(() => root.statAt(NO_FOLLOW, 'missing/file')), 'no-entry');
  });

  test('the stat record has preview2-shim\'s shape and values', () => {
    const shim = shimFilesystem._createPreopenDescriptor(grant);
    assert.deepEqual(root.statAt(NO_FOLLOW, 'd/file'), shim.statAt(NO_FOLLOW, 'd/file'));
    const file = root.openAt(NO_FOLLOW, 'd/file', {}, READ);
    assert.deepEqual(file.stat(), shim.statAt(NO_FOLLOW, 'd/file'));
    assert.equal(root.stat().type, 'directory');
    file[Symbol.dispose]();
  });

  test('a read-only grant refuses every change', () => {
    const refused = (f) => assert.equal(codeOf(f), 'not-permitted');
    refused(() => root.openAt(NO_FOLLOW, 'new.txt', { create: true, exclusive: true }, { write: true }));
    refused(() => root.openAt(NO_FOLLOW, 'd/file', {}, { read: true, write: true }));
    refused(() => root.openAt(NO_FOLLOW, 'd/file', { truncate: true }, READ));
    refused(() => root.createDirectoryAt('made'));
    refused(() => root.unlinkFileAt('d/file'));
    refused(() => root.openAt(NO_FOLLOW, 'd/file', {}, READ).write(new Uint8Array([1]), 0n));
    assert.equal(existsSync(join(grant, 'new.txt')), false);
    assert.equal(readFileSync(join(grant, 'd', 'file'), 'utf8'), 'inside\n');
  });

  test('a writable grant creates a new file exclusively, never through a link, and writes it', () => {
    const spill = new Grant(join(grant, 'spill'), true);
    const dir = spill.preopen();
    const created = dir.openAt(NO_FOLLOW, 'out.log', { create: true, exclusive: true }, { write: true });
    assert.equal(created.write(new TextEncoder().encode('spilled'), 0n), 7n);
    created[Symbol.dispose]();
    assert.equal(readFileSync(join(grant, 'spill', 'out.log'), 'utf8'), 'spilled');
    assert.equal(codeOf(() => dir.openAt(NO_FOLLOW, 'out.log', { create: true, exclusive: true }, { write: true })), 'exist');
    assert.equal(codeOf(() => dir.openAt(NO_FOLLOW, 'other.log', { create: true }, { write: true })), 'not-permitted');
    symlinkSync(join(outside, 'planted'), join(grant, 'spill', 'planted'));
    assert.equal(codeOf(() => dir.openAt(NO_FOLLOW, 'planted', { create: true, exclusive: true }, { write: true })), 'exist');
    assert.equal(existsSync(join(outside, 'planted')), false);
    spill.close();
  });

  test('a directory lists from its descriptor; a name that is not UTF-8 is refused alone', () => {
    const dir = join(grant, 'listed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'plain'), '');
    writeFileSync(Buffer.from([...Buffer.from(`${dir}/caf`), 0xe9]), '');
    assert.deepEqual(listing(root.openAt(NO_FOLLOW, 'listed', { directory: true }, READ)), ['!illegal-byte-sequence', 'plain']);
    assert.deepEqual(listing(root), ['abs', 'd', 'listed', 'loop', 'rel', 'spill', 'up']);
  });

  test('a FIFO opens without blocking', { skip: spawnSync('mkfifo', ['--version']).error ? 'no mkfifo' : false }, () => {
    const fifo = join(grant, 'fifo');
    spawnSync('mkfifo', [fifo]);
    const opened = root.openAt(NO_FOLLOW, 'fifo', {}, READ);
    assert.equal(opened.stat().type, 'fifo');
    opened[Symbol.dispose]();
    rmSync(fifo);
  });

  test('the grant is held open: its path swapped for a link later changes nothing', () => {
    const moved = join(temp, 'moved');
    const own = new Grant(grant, false);
    renameSync(grant, moved);
    symlinkSync(outside, grant);
    try {
      assert.equal(text(own.preopen().openAt(NO_FOLLOW, 'd/file', {}, READ)), 'inside\n');
      assert.equal(codeOf(() => own.preopen().openAt(NO_FOLLOW, 'file', {}, READ)), 'no-entry');
    } finally {
      rmSync(grant);
      renameSync(moved, grant);
      own.close();
    }
  });
});

describe('the component\'s imports', () => {
  test('every wasi:filesystem/types function the transpiled component imports is implemented here', () => {
    const camel = (name) => name.replace(/-(\w)/g, (_, letter) => letter.toUpperCase());
    const classes = { descriptor: Descriptor, 'directory-entry-stream': DirectoryEntryStream };
    const core = new WebAssembly.Module(readFileSync(join(GENERATED_DIR, 'read_window.core.wasm')));
    const missing = [];
    for (const { module, name } of WebAssembly.Module.imports(core)) {
      if (!module.startsWith('wasi:filesystem/types@') || name.startsWith('[resource-drop]')) continue;
      const method = /^\[method\]([\w-]+)\.([\w-]+)$/.exec(name);
      const implemented = method ? classes[method[1]]?.prototype[camel(method[2])] : types[camel(name)];
      if (typeof implemented !== 'function') missing.push(name);
    }
    assert.deepEqual(missing, []);
  });
});

describe('errors', () => {
  test('Node error codes become WASI error codes; other errors are not file system errors', () => {
    assert.equal(errorCode({ code: 'ENOENT', errno: -2 }), 'no-entry');
    assert.equal(errorCode({ code: 'ELOOP', errno: -40 }), 'loop');
    assert.equal(errorCode({ code: 'ESTALE', errno: -116 }), 'io');
    const bug = new TypeError('not a file system error');
    assert.throws(() => errorCode(bug), (error) => error === bug);
  });
});

describe('the fallback (preview2-shim, checked after each open)', () => {
  test('an open is kept when its path names the same file inside, else refused', () => {
    const grants = openGrants([['/g', grant]], new Set(), { raceFree: false });
    const [[root]] = grants.preopens;
    const file = root.openAt(NO_FOLLOW, 'd/file', {}, READ);
    assert.equal(text(file), 'inside\n');
    // As if a swap had led the open to another file than its path names when looked at again, or outside.
    const shimOpen = shimFilesystem.types.Descriptor.prototype.openAt;
    const proto = Object.getPrototypeOf(file);
    assert.equal(codeOf(() => checkOpened(shimOpen.call(root, NO_FOLLOW, 'd/file', {}, READ), root, 'rel', proto)), 'not-permitted');
    assert.equal(codeOf(() => checkOpened(shimOpen.call(root, NO_FOLLOW, 'd/file', {}, READ), root, 'up/file', proto)), 'not-permitted');
  });
});
