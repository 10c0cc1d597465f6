// The component's `wasi:filesystem/types` on Linux, race-free: each name is resolved inside a directory held open,
// one at a time, as `/proc/self/fd/N/name` (an openat: the kernel follows N to its directory object, not a path)
// with O_NOFOLLOW. Only relative link targets are followed, and `..` only pops back to a directory held on the way,
// so nothing swapped in (renameat2 RENAME_EXCHANGE) leads out of a grant. Errors are thrown as WASI `error-code`s.

import { closeSync, constants, fstatSync, lstatSync, mkdtempSync, openSync, opendirSync, readSync } from 'node:fs';
import { readlinkSync, renameSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { attempt } from './errors.js';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** Links followed in one resolution at most (Linux's `MAXSYMLINKS`, as the component). */
export const MAX_SYMLINKS = 40;
/** How a directory on the way is opened: never through a link at its name. */
const STEP_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
/** `/proc/self/fd/N`: what is open at `fd`; `at(fd, name)`: the single `name` inside it (openat). */
const self = (fd) => `/proc/self/fd/${fd}`;
const at = (fd, name) => `${self(fd)}/${name}`;

/** Node error codes and the WASI `error-code` each becomes (preview2-shim's table). */
const ERROR_CODES = {
  EACCES: 'access', EAGAIN: 'would-block', EWOULDBLOCK: 'would-block', EALREADY: 'already', EBADF: 'bad-descriptor',
  EBUSY: 'busy', EDEADLK: 'deadlock', EDQUOT: 'quota', EEXIST: 'exist', EFBIG: 'file-too-large',
  EILSEQ: 'illegal-byte-sequence', EINPROGRESS: 'in-progress', EINTR: 'interrupted', EINVAL: 'invalid', EIO: 'io',
  EISDIR: 'is-directory', ELOOP: 'loop', EMLINK: 'too-many-links', EMSGSIZE: 'message-size',
  ENAMETOOLONG: 'name-too-long', ENODEV: 'no-device', ENOENT: 'no-entry', ENOLCK: 'no-lock',
  ENOMEM: 'insufficient-memory', ENOSPC: 'insufficient-space', ENOTDIR: 'not-directory', ENOTEMPTY: 'not-empty',
  ENOTRECOVERABLE: 'not-recoverable', ENOTSUP: 'unsupported', ENOTTY: 'no-tty', ENXIO: 'no-such-device',
  EOVERFLOW: 'overflow', EPERM: 'not-permitted', EPIPE: 'pipe', EROFS: 'read-only', ESPIPE: 'invalid-seek',
  ETXTBSY: 'text-file-busy', EXDEV: 'cross-device',
  ERR_INVALID_ARG_VALUE: 'invalid', // a name with a NUL byte: Node refuses it before any system call
};

/**
 * The WASI `error-code` of an error a Node fs call threw (`io` for a system error not in the table); anything else,
 * a bug here and not the file system, is thrown on (the call traps). @param {unknown} error @returns {string}
 */
export function errorCode(error) {
  const code = ERROR_CODES[error?.code];
  if (code !== undefined) return code;
  if (typeof error?.errno === 'number') return 'io';
  throw error;
}

/** Runs `f`; a Node fs error becomes its WASI `error-code` (thrown). */
function fs(f) {
  try {
    return f();
  } catch (error) {
    throw typeof error === 'string' ? error : errorCode(error);
  }
}

const TYPES = [['isFile', 'regular-file'], ['isDirectory', 'directory'], ['isSymbolicLink', 'symbolic-link'],
  ['isFIFO', 'fifo'], ['isSocket', 'socket'], ['isCharacterDevice', 'character-device'], ['isBlockDevice', 'block-device']];
/** The WASI `descriptor-type` of Node Stats or a Dirent. */
const typeOf = (entry) => TYPES.find(([is]) => entry[is]())?.[1] ?? 'unknown';

/** The WASI `descriptor-stat` record of BigInt Node Stats, in preview2-shim's shape. */
function statRecord(stats) {
  const datetime = (ns) => ({ seconds: ns / 1_000_000_000n, nanoseconds: Number(ns % 1_000_000_000n) });
  return { type: typeOf(stats), linkCount: stats.nlink, size: stats.size, dataAccessTimestamp: datetime(stats.atimeNs),
    dataModificationTimestamp: datetime(stats.mtimeNs), statusChangeTimestamp: datetime(stats.ctimeNs) };
}

/** The WASI `metadata-hash-value` of BigInt Node Stats: the inode and the device. */
const identity = (stats) => ({ lower: stats.ino, upper: stats.dev });

/** The names of a relative path: no empty names and no `.`; `..` kept (the walk resolves it). */
const namesOf = (path) => path.split('/').filter((name) => name !== '' && name !== '.');

/** One name of a walk in the directory open at `fd`: `{fd}` of the directory there, `{target}` of a link, or `{}`. */
function step(fd, name) {
  try {
    return { fd: openSync(at(fd, name), STEP_FLAGS) };
  } catch (error) {
    if (error.code !== 'ENOTDIR' && error.code !== 'ELOOP') throw errorCode(error);
  }
  try {
    return { target: readlinkSync(at(fd, name)) };
  } catch (error) {
    if (error.code === 'EINVAL') return {};
    throw errorCode(error);
  }
}

/**
 * `f(fd, name)` on what the relative `path` names beneath the directory open at `base`, walked a name at a time
 * through directories held open (closed after): `..` goes back to the one before, never above `base`; a link is
 * followed when its target is relative (the last name only when `followLast` or the path ends in `/`). Throws
 * `not-permitted` for an absolute path or target or `..` above `base`, `loop` past 40 links, `not-directory` for a
 * file on the way, and `f`'s error code.
 */
function beneath(base, path, followLast, f) {
  if (path.startsWith('/')) refuse();
  const directoryOnly = path.endsWith('/');
  const stack = [base];
  let pending = namesOf(path);
  let name = '.';
  let links = 0;
  try {
    while (pending.length > 0) {
      const next = pending.shift();
      if (next === '..') {
        if (stack.length === 1) refuse();
        closeSync(stack.pop());
        continue;
      }
      const last = pending.length === 0;
      const taken = last && !followLast && !directoryOnly ? {} : step(stack.at(-1), next);
      if (taken.fd !== undefined) {
        stack.push(taken.fd);
      } else if (taken.target !== undefined) {
        if (taken.target.startsWith('/')) refuse();
        if (++links > MAX_SYMLINKS) throw 'loop';
        pending = [...namesOf(taken.target), ...pending];
      } else if (last && !directoryOnly) {
        name = next;
      } else {
        throw 'not-directory';
      }
    }
    return fs(() => f(stack.at(-1), name));
  } finally {
    stack.slice(1).forEach((fd) => closeSync(fd));
  }
}

/** Closes what the component never dropped (an instance abandoned after a trap) once it is collected. */
const collector = new FinalizationRegistry(attempt);

/** Every way `wasi:filesystem` offers to change the file system but creating a new file and writing it. */
export const MUTATIONS = ['writeViaStream', 'appendViaStream', 'setSize', 'setTimes', 'setTimesAt',
  'createDirectoryAt', 'linkAt', 'removeDirectoryAt', 'renameAt', 'symlinkAt', 'unlinkFileAt'];

/** What every change a grant does not allow gets, as in wasmtime. */
export const refuse = () => {
  throw 'not-permitted';
};

/**
 * Throws what a WASI `open-at` with these flags gets beneath a grant (this host's and the fallback's): `unsupported`
 * for the sync flags, `not-permitted` for any change but a new file (`create` with `exclusive`) in a `writable` one.
 */
export function checkOpenFlags(writable, openFlags, descriptorFlags) {
  if (descriptorFlags.fileIntegritySync || descriptorFlags.dataIntegritySync || descriptorFlags.requestedWriteSync) {
    throw 'unsupported';
  }
  if (openFlags.truncate || descriptorFlags.mutateDirectory) throw 'not-permitted';
  if ((openFlags.create || descriptorFlags.write) && !(writable && openFlags.create && openFlags.exclusive)) refuse();
}

/** A link's `target` when relative; an absolute one would show a host path: `not-permitted`, as in wasmtime. */
export const relativeTarget = (target) => (target.startsWith('/') ? refuse() : target);

/**
 * A `wasi:filesystem` descriptor over a file descriptor of this process: a granted directory, or what was opened
 * beneath one (paths resolved by {@link beneath}). Every change is `not-permitted`, but in a writable grant (a spill
 * directory) creating a new file ({@link checkOpenFlags}) and writing it.
 */
export class Descriptor {
  #fd;
  #writable;
  #canWrite;
  #owned;

  /** @internal `owned`: closed on dispose (a grant's own directory is not). */
  constructor(fd, { writable, canWrite = false, owned = true }) {
    [this.#fd, this.#writable, this.#canWrite, this.#owned] = [fd, writable, canWrite, owned];
    if (owned) collector.register(this, closeSync.bind(null, fd), this);
  }

  /**
   * The WASI `open-at` beneath this directory: the last name through a link only with `symlinkFollow`, a file
   * without blocking (a FIFO put in its place cannot hang the call). Throws as {@link checkOpenFlags} and the walk.
   * @returns {Descriptor}
   */
  openAt(pathFlags, path, openFlags, descriptorFlags) {
    checkOpenFlags(this.#writable, openFlags, descriptorFlags);
    let flags = O_NOFOLLOW | O_NONBLOCK;
    if (openFlags.create) flags |= O_CREAT | O_EXCL;
    if (openFlags.directory) flags |= O_DIRECTORY;
    if (descriptorFlags.write) flags |= descriptorFlags.read ? O_RDWR : O_WRONLY;
    const fd = beneath(this.#fd, path, Boolean(pathFlags.symlinkFollow), (dir, name) => openSync(at(dir, name), flags));
    return new Descriptor(fd, { writable: this.#writable, canWrite: Boolean(descriptorFlags.write) });
  }

  /** The WASI `stat` of this descriptor (fstat). */
  stat() { return statRecord(fs(() => fstatSync(this.#fd, { bigint: true }))); }
  /** The WASI `stat-at` of `path` beneath this directory (of a link itself unless `symlinkFollow`). */
  statAt(pathFlags, path) {
    const follow = Boolean(pathFlags.symlinkFollow);
    return statRecord(beneath(this.#fd, path, follow, (dir, name) => lstatSync(at(dir, name), { bigint: true })));
  }

  /** The WASI `metadata-hash` of this descriptor: its device and inode, as wasmtime's (what tells entries apart). */
  metadataHash() { return identity(fs(() => fstatSync(this.#fd, { bigint: true }))); }
  /** The WASI `metadata-hash-at` of `path` beneath this directory (of a link itself unless `symlinkFollow`). */
  metadataHashAt(pathFlags, path) {
    const follow = Boolean(pathFlags.symlinkFollow);
    return identity(beneath(this.#fd, path, follow, (dir, name) => lstatSync(at(dir, name), { bigint: true })));
  }

  /** The WASI `readlink-at` beneath this directory ({@link relativeTarget}). */
  readlinkAt(path) { return relativeTarget(beneath(this.#fd, path, false, (dir, name) => readlinkSync(at(dir, name)))); }
  /** The WASI `read`: up to `length` bytes from byte `offset` (pread), and whether the end was reached. */
  read(length, offset) {
    const buffer = new Uint8Array(Number(length));
    const count = fs(() => readSync(this.#fd, buffer, 0, buffer.length, BigInt(offset)));
    return [buffer.subarray(0, count), count === 0];
  }

  /** The WASI `write` at byte `offset` (pwrite), of a file opened for writing (else `not-permitted`). */
  write(buffer, offset) {
    if (!this.#canWrite) refuse();
    return BigInt(fs(() => writeSync(this.#fd, buffer, 0, buffer.byteLength, BigInt(offset))));
  }

  /** The WASI `read-directory`: a stream of the entries of the directory object itself. */
  readDirectory() { return new DirectoryEntryStream(fs(() => opendirSync(self(this.#fd), { encoding: 'buffer' }))); }
  /** Closes the file descriptor (a granted directory's stays open: its grant closes it). */
  [Symbol.dispose]() {
    if (!this.#owned || this.#fd === -1) return;
    collector.unregister(this);
    closeSync(this.#fd);
    this.#fd = -1;
  }
}
for (const method of MUTATIONS) Object.defineProperty(Descriptor.prototype, method, { value: refuse });

/** Decodes a name strictly: one that is not UTF-8 is refused, as wasmtime does. */
const utf8 = new TextDecoder('utf-8', { fatal: true });
/** A `wasi:filesystem` directory-entry stream over a Node `Dir` opened by {@link Descriptor#readDirectory}. */
export class DirectoryEntryStream {
  #dir;

  /** @internal */
  constructor(dir) {
    this.#dir = dir;
    collector.register(this, dir.closeSync.bind(dir), this);
  }

  /** The next entry, `{type, name}`, or undefined; `illegal-byte-sequence` for a name not UTF-8 (then the next). */
  readDirectoryEntry() {
    const entry = fs(() => this.#dir.readSync());
    if (entry === null) return undefined;
    const name = attempt(() => utf8.decode(entry.name));
    if (name === undefined) throw 'illegal-byte-sequence';
    return { type: typeOf(entry), name };
  }

  /** Closes the directory. */
  [Symbol.dispose]() {
    if (this.#dir === null) return;
    collector.unregister(this);
    this.#dir.closeSync();
    this.#dir = null;
  }
}

/** The `wasi:filesystem/types` import of this file system (the component imports no `filesystem-error-code`). */
export const types = { Descriptor, DirectoryEntryStream };

/** A granted directory held open: whatever becomes of its host path, its preopen resolves paths inside it. */
export class Grant {
  #fd;
  #writable;

  /** Opens the absolute `hostDir` (never through a link at its name); `writable`: a spill directory. Throws Node's. */
  constructor(hostDir, writable) {
    this.#fd = openSync(hostDir, STEP_FLAGS);
    this.#writable = writable;
  }

  /** A preopen descriptor of the directory (the grant keeps the file descriptor). @returns {Descriptor} */
  preopen() { return new Descriptor(this.#fd, { writable: this.#writable, owned: false }); }
  /** Closes the directory; descriptors opened through it stay valid until they are dropped. */
  close() {
    if (this.#fd !== -1) closeSync(this.#fd);
    this.#fd = -1;
  }
}

let raceFree;
/**
 * Whether {@link Descriptor}'s resolution holds here (Linux, whose `/proc/self/fd/N` follows the directory object,
 * not a path): tested once, a fresh directory renamed after it was opened must be reached through N. @returns {boolean}
 */
export const isRaceFree = () => (raceFree ??= process.platform === 'linux' && probe());

function probe() {
  let dir;
  let fd = -1;
  try {
    dir = mkdtempSync(join(tmpdir(), 'read-window-probe-'));
    fd = openSync(dir, STEP_FLAGS);
    renameSync(dir, `${dir}-moved`);
    return lstatSync(at(fd, '.'), { bigint: true }).ino === fstatSync(fd, { bigint: true }).ino;
  } catch {
    return false;
  } finally {
    if (fd !== -1) closeSync(fd);
    // rmdir: only an empty directory, never what another process put in its place.
    for (const path of dir === undefined ? [] : [dir, `${dir}-moved`]) attempt(() => rmdirSync(path));
  }
}
