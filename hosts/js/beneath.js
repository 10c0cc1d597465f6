// `wasi:filesystem` beneath the granted directories, race-free on Linux: every name the component asks for is
// resolved inside a directory the host holds open, one name at a time, never through a host path.
//
// Node has no openat(), but Linux gives one: `/proc/self/fd/N/name` makes the kernel follow the magic link
// `/proc/self/fd/N` to the directory object N was opened on (not to a path), then resolve the single final `name`
// in it. Each name is opened that way with O_NOFOLLOW; a link met on the way is read here and followed only when
// its target is relative, and `..` only pops back to a directory held open on the way, so neither `..`, nor an
// absolute target, nor a directory swapped for a link by another process (renameat2 RENAME_EXCHANGE) can lead
// outside the grant: that is `not-permitted`, as in wasmtime. A grant's own directory is opened when its session
// starts and held until the session closes, so swapping the grant's path later changes nothing.
//
// The classes here are the component's `wasi:filesystem/types` import (jco's bindings check `instanceof` against
// the classes of the import object) and the preopens its `wasi:filesystem/preopens` hands out (grants.js). Every
// call is a synchronous Node fs call on a file descriptor; errors are thrown as WASI `error-code` names.

import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdtempSync,
  openSync,
  opendirSync,
  readSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** Links followed in one resolution at most (Linux's `MAXSYMLINKS`). */
const MAX_SYMLINKS = 40;

/** How a directory on the way is opened: never through a link at its name. */
const STEP_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** The path that names the directory (or file) open at `fd` itself, by the kernel's magic link. */
const self = (fd) => `/proc/self/fd/${fd}`;

/** The path that names `name` (a single name) inside the directory open at `fd`: openat(fd, name). */
const at = (fd, name) => `${self(fd)}/${name}`;

/** Node error codes and the WASI `error-code` each becomes (preview2-shim's table). */
const ERROR_CODES = {
  EACCES: 'access',
  EAGAIN: 'would-block',
  EWOULDBLOCK: 'would-block',
  EALREADY: 'already',
  EBADF: 'bad-descriptor',
  EBUSY: 'busy',
  EDEADLK: 'deadlock',
  EDQUOT: 'quota',
  EEXIST: 'exist',
  EFBIG: 'file-too-large',
  EILSEQ: 'illegal-byte-sequence',
  EINPROGRESS: 'in-progress',
  EINTR: 'interrupted',
  EINVAL: 'invalid',
  EIO: 'io',
  EISDIR: 'is-directory',
  ELOOP: 'loop',
  EMLINK: 'too-many-links',
  EMSGSIZE: 'message-size',
  ENAMETOOLONG: 'name-too-long',
  ENODEV: 'no-device',
  ENOENT: 'no-entry',
  ENOLCK: 'no-lock',
  ENOMEM: 'insufficient-memory',
  ENOSPC: 'insufficient-space',
  ENOTDIR: 'not-directory',
  ENOTEMPTY: 'not-empty',
  ENOTRECOVERABLE: 'not-recoverable',
  ENOTSUP: 'unsupported',
  ENOTTY: 'no-tty',
  ENXIO: 'no-such-device',
  EOVERFLOW: 'overflow',
  EPERM: 'not-permitted',
  EPIPE: 'pipe',
  EROFS: 'read-only',
  ESPIPE: 'invalid-seek',
  ETXTBSY: 'text-file-busy',
  EXDEV: 'cross-device',
  // A name with a NUL byte: Node refuses it before any system call.
  ERR_INVALID_ARG_VALUE: 'invalid',
};

/**
 * The WASI `error-code` for an error a Node fs call threw: its code in preview2-shim's table, `io` for another
 * system error. Anything else (a bug here, not the file system) is thrown on, and the call traps.
 *
 * @param {unknown} error
 * @returns {string}
 * @throws {unknown} `error` itself when it is not a file system error.
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

/** The WASI `descriptor-type` of Node Stats or a Dirent. */
function typeOf(entry) {
  if (entry.isFile()) return 'regular-file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symbolic-link';
  if (entry.isFIFO()) return 'fifo';
  if (entry.isSocket()) return 'socket';
  if (entry.isCharacterDevice()) return 'character-device';
  if (entry.isBlockDevice()) return 'block-device';
  return 'unknown';
}

/** A WASI `datetime` from nanoseconds since the epoch (a BigInt). */
function datetime(ns) {
  return { seconds: ns / 1_000_000_000n, nanoseconds: Number(ns % 1_000_000_000n) };
}

/** The WASI `descriptor-stat` record of BigInt Node Stats, in preview2-shim's shape. */
function statRecord(stats) {
  return {
    type: typeOf(stats),
    linkCount: stats.nlink,
    size: stats.size,
    dataAccessTimestamp: datetime(stats.atimeNs),
    dataModificationTimestamp: datetime(stats.mtimeNs),
    statusChangeTimestamp: datetime(stats.ctimeNs),
  };
}

/** The names of a relative path: no empty names and no `.`; `..` kept (the walk resolves it). */
function namesOf(path) {
  return path.split('/').filter((name) => name !== '' && name !== '.');
}

/** Closes the directories a walk opened (all of `stack` but its first, the descriptor walked from). */
function release(stack) {
  for (const fd of stack.slice(1)) closeSync(fd);
}

/**
 * Takes one name of a walk inside the directory open at `fd`: `{fd}`, the directory opened at it (never through
 * a link), `{target}` when the name is a link (its target), or `{}` when it is neither (a file, say).
 *
 * @param {number} fd
 * @param {string} name A single name (no `/`, not `.` or `..`).
 * @returns {{fd?: number, target?: string}}
 * @throws {string} The WASI error code of a missing name, a refused open, and so on.
 */
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
 * Resolves the relative `path` beneath the directory open at `base`, one name at a time through directories held
 * open: `..` goes back to the directory before (never above `base`), a link on the way is followed when its
 * target is relative, and the last name too when `followLast` (or the path ends in `/`). The caller acts on
 * `name` inside `stack`'s last directory (`.` when the path ends at a directory) and then calls `release(stack)`.
 *
 * @param {number} base The descriptor walked from; it stays open.
 * @param {string} path A relative path, as the component gives it.
 * @param {boolean} followLast Whether a link at the last name is followed.
 * @returns {{stack: number[], name: string}} `stack`: `base`, then each directory still open on the way.
 * @throws {string} `not-permitted` for an absolute path, an absolute link target or `..` above `base`; `loop`
 *   past 40 links; `not-directory` when a name on the way is a file; the WASI error code of a failed call.
 */
function walk(base, path, followLast) {
  if (path.startsWith('/')) throw 'not-permitted';
  const directoryOnly = path.endsWith('/');
  const stack = [base];
  let pending = namesOf(path);
  let links = 0;
  try {
    while (pending.length > 0) {
      const name = pending.shift();
      if (name === '..') {
        if (stack.length === 1) throw 'not-permitted';
        closeSync(stack.pop());
        continue;
      }
      const last = pending.length === 0;
      if (last && !followLast && !directoryOnly) return { stack, name };
      const taken = step(stack.at(-1), name);
      if (taken.fd !== undefined) {
        stack.push(taken.fd);
      } else if (taken.target !== undefined) {
        if (taken.target.startsWith('/')) throw 'not-permitted';
        if (++links > MAX_SYMLINKS) throw 'loop';
        pending = [...namesOf(taken.target), ...pending];
      } else if (last && !directoryOnly) {
        return { stack, name };
      } else {
        throw 'not-directory';
      }
    }
    return { stack, name: '.' };
  } catch (code) {
    release(stack);
    throw code;
  }
}

/** Runs `f(fd, name)` on what `path` names beneath `base` ({@link walk}), then closes the directories walked. */
function beneath(base, path, followLast, f) {
  const { stack, name } = walk(base, path, followLast);
  try {
    return fs(() => f(stack.at(-1), name));
  } finally {
    release(stack);
  }
}

/** Closes descriptors the component never dropped (an instance abandoned after a trap) when they are collected. */
const collector = new FinalizationRegistry((close) => {
  try {
    close();
  } catch {
    // A finalizer must not throw; the descriptor was already closed.
  }
});

/** What closes `fd` for {@link collector} (made out here, so it holds the number and not its descriptor). */
const closingFd = (fd) => () => closeSync(fd);

/** What closes `dir` for {@link collector}. */
const closingDir = (dir) => () => dir.closeSync();

/** Every way `wasi:filesystem` offers to change the file system but creating a new file and writing it. */
export const MUTATIONS = [
  'writeViaStream',
  'appendViaStream',
  'setSize',
  'setTimes',
  'setTimesAt',
  'createDirectoryAt',
  'linkAt',
  'removeDirectoryAt',
  'renameAt',
  'symlinkAt',
  'unlinkFileAt',
];

/** Makes a Descriptor (the class's constructor is not for callers): set by the class's static block. */
let makeDescriptor;

/**
 * A `wasi:filesystem` descriptor backed by a file descriptor of this process: a granted directory, or a file or
 * directory opened beneath one. Paths are resolved by {@link walk}. A descriptor of a read-only grant (and what
 * is opened through it) refuses every change with `not-permitted`; one of a writable grant (a capture's spill
 * directory) may also create a new file (`create` with `exclusive`, never through a link) and write to it.
 * Absolute link targets are never revealed (`readlinkAt` throws `not-permitted`), as in wasmtime.
 */
export class Descriptor {
  #fd;
  #writable;
  #canWrite;
  #owned;

  static {
    makeDescriptor = (fd, { writable, canWrite = false, owned = true }) => {
      const descriptor = new Descriptor();
      descriptor.#fd = fd;
      descriptor.#writable = writable;
      descriptor.#canWrite = canWrite;
      descriptor.#owned = owned;
      if (owned) collector.register(descriptor, closingFd(fd), descriptor);
      return descriptor;
    };
  }

  /**
   * Opens `path` beneath this directory (the WASI `open-at`): the last name through a link only with
   * `symlinkFollow`; files without blocking (a FIFO put in a file's place cannot hang the call).
   *
   * @param {{symlinkFollow?: boolean}} pathFlags
   * @param {string} path A relative path.
   * @param {{create?: boolean, directory?: boolean, exclusive?: boolean, truncate?: boolean}} openFlags
   * @param {{read?: boolean, write?: boolean, mutateDirectory?: boolean, fileIntegritySync?: boolean,
   *   dataIntegritySync?: boolean, requestedWriteSync?: boolean}} descriptorFlags
   * @returns {Descriptor}
   * @throws {string} `not-permitted` for a change this grant does not allow; `unsupported` for the sync flags;
   *   the walk's and the open's WASI error codes.
   */
  openAt(pathFlags, path, openFlags, descriptorFlags) {
    const flags = this.#openFlags(openFlags, descriptorFlags);
    const fd = beneath(this.#fd, path, Boolean(pathFlags.symlinkFollow), (dir, name) =>
      openSync(at(dir, name), flags),
    );
    return makeDescriptor(fd, { writable: this.#writable, canWrite: Boolean(descriptorFlags.write) });
  }

  /** The open(2) flags of an `open-at`, or the WASI error code of what this descriptor may not open. */
  #openFlags(openFlags, descriptorFlags) {
    if (descriptorFlags.fileIntegritySync || descriptorFlags.dataIntegritySync || descriptorFlags.requestedWriteSync) {
      throw 'unsupported';
    }
    const creates = Boolean(openFlags.create || descriptorFlags.write);
    if (openFlags.truncate || descriptorFlags.mutateDirectory) throw 'not-permitted';
    if (creates && !(this.#writable && openFlags.create && openFlags.exclusive)) throw 'not-permitted';
    let flags = O_NOFOLLOW | O_NONBLOCK;
    if (openFlags.create) flags |= O_CREAT | O_EXCL;
    if (openFlags.directory) flags |= O_DIRECTORY;
    if (descriptorFlags.write) flags |= descriptorFlags.read ? O_RDWR : O_WRONLY;
    return flags;
  }

  /**
   * The WASI `stat` of this descriptor (fstat).
   * @returns {object} `{type, linkCount, size, dataAccessTimestamp, dataModificationTimestamp,
   *   statusChangeTimestamp}`: size in bytes, times as `{seconds, nanoseconds}` since the epoch.
   * @throws {string} The WASI error code.
   */
  stat() {
    return statRecord(fs(() => fstatSync(this.#fd, { bigint: true })));
  }

  /**
   * The WASI `stat-at`: the stat of `path` beneath this directory (of the link itself unless `symlinkFollow`).
   * @param {{symlinkFollow?: boolean}} pathFlags
   * @param {string} path A relative path.
   * @returns {object} The record of {@link Descriptor#stat}.
   * @throws {string} The walk's and lstat's WASI error codes.
   */
  statAt(pathFlags, path) {
    return statRecord(
      beneath(this.#fd, path, Boolean(pathFlags.symlinkFollow), (dir, name) => lstatSync(at(dir, name), { bigint: true })),
    );
  }

  /**
   * The WASI `readlink-at`: the target of the link at `path` beneath this directory, when it is relative.
   * @param {string} path A relative path.
   * @returns {string}
   * @throws {string} `not-permitted` for an absolute target (a host path, never shown); `invalid` when `path` is
   *   not a link; the walk's WASI error codes.
   */
  readlinkAt(path) {
    const target = beneath(this.#fd, path, false, (dir, name) => readlinkSync(at(dir, name)));
    if (target.startsWith('/')) throw 'not-permitted';
    return target;
  }

  /**
   * The WASI `read`: up to `length` bytes from byte `offset` (pread).
   * @param {bigint | number} length Bytes at most.
   * @param {bigint | number} offset Bytes from the start.
   * @returns {[Uint8Array, boolean]} The bytes, and whether the end was reached (nothing read).
   * @throws {string} `is-directory` for a directory, another WASI error code.
   */
  read(length, offset) {
    const buffer = new Uint8Array(Number(length));
    const count = fs(() => readSync(this.#fd, buffer, 0, buffer.length, BigInt(offset)));
    return [buffer.subarray(0, count), count === 0];
  }

  /**
   * The WASI `write`: `buffer` at byte `offset` (pwrite), on a file this descriptor created for writing.
   * @param {Uint8Array} buffer
   * @param {bigint | number} offset Bytes from the start.
   * @returns {bigint} Bytes written.
   * @throws {string} `not-permitted` when it was not opened for writing; another WASI error code.
   */
  write(buffer, offset) {
    if (!this.#canWrite) throw 'not-permitted';
    return BigInt(fs(() => writeSync(this.#fd, buffer, 0, buffer.byteLength, BigInt(offset))));
  }

  /**
   * The WASI `read-directory`: a stream of this directory's entries (`.` and `..` left out), read from the
   * directory object itself.
   * @returns {DirectoryEntryStream}
   * @throws {string} `not-directory` for a file, another WASI error code.
   */
  readDirectory() {
    return makeStream(fs(() => opendirSync(self(this.#fd), { encoding: 'buffer' })));
  }

  /** Closes the file descriptor (a granted directory's stays open: its grant closes it). */
  [Symbol.dispose]() {
    if (!this.#owned || this.#fd === -1) return;
    collector.unregister(this);
    closeSync(this.#fd);
    this.#fd = -1;
  }
}

for (const method of MUTATIONS) {
  Object.defineProperty(Descriptor.prototype, method, {
    value() {
      throw 'not-permitted';
    },
  });
}

/** Makes a DirectoryEntryStream: set by the class's static block. */
let makeStream;

/** Decodes a name strictly: one that is not UTF-8 is refused, as wasmtime does. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A `wasi:filesystem` directory-entry stream over a Node `Dir` opened by {@link Descriptor#readDirectory}. */
export class DirectoryEntryStream {
  #dir;

  static {
    makeStream = (dir) => {
      const stream = new DirectoryEntryStream();
      stream.#dir = dir;
      collector.register(stream, closingDir(dir), stream);
      return stream;
    };
  }

  /**
   * The next entry: `{type, name}`, or undefined at the end.
   * @returns {{type: string, name: string} | undefined}
   * @throws {string} `illegal-byte-sequence` for a name that is not UTF-8 (the stream goes on with the next);
   *   another WASI error code.
   */
  readDirectoryEntry() {
    const entry = fs(() => this.#dir.readSync());
    if (entry === null) return undefined;
    let name;
    try {
      name = utf8.decode(entry.name);
    } catch {
      throw 'illegal-byte-sequence';
    }
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

/**
 * A granted host directory, held open from {@link openGrant} until {@link Grant#close}: its preopen descriptor
 * resolves every path inside the directory it was opened on, whatever becomes of its host path.
 */
export class Grant {
  #fd;
  #writable;

  /**
   * Opens `hostDir` (its last name never through a link).
   * @param {string} hostDir An absolute host path of a directory.
   * @param {boolean} writable Whether new files may be created in it and written (a capture's spill directory).
   * @throws {Error} Node's error when it cannot be opened as a directory.
   */
  constructor(hostDir, writable) {
    this.#fd = openSync(hostDir, STEP_FLAGS);
    this.#writable = writable;
  }

  /**
   * A preopen descriptor of the directory (the grant keeps the file descriptor; dropping it closes nothing).
   * @returns {Descriptor}
   */
  preopen() {
    return makeDescriptor(this.#fd, { writable: this.#writable, owned: false });
  }

  /** Closes the directory; descriptors opened through it stay valid until they are dropped. */
  close() {
    if (this.#fd === -1) return;
    closeSync(this.#fd);
    this.#fd = -1;
  }
}

let raceFree;

/**
 * Whether this process can resolve names inside a held directory as {@link Descriptor} does: Linux with `/proc`
 * mounted, whose `/proc/self/fd/N` follows the descriptor's directory object, not a path. Tested once (and
 * remembered) by renaming a fresh temporary directory after opening it: the name through the descriptor must
 * still reach it.
 *
 * @returns {boolean}
 */
export function isRaceFree() {
  raceFree ??= process.platform === 'linux' && probe();
  return raceFree;
}

/** The test of {@link isRaceFree}: true when `/proc/self/fd/N` followed a renamed directory. */
function probe() {
  let before;
  try {
    before = mkdtempSync(join(tmpdir(), 'read-window-probe-'));
  } catch {
    return false;
  }
  const after = `${before}-moved`;
  let fd = -1;
  try {
    fd = openSync(before, STEP_FLAGS);
    renameSync(before, after);
    return lstatSync(at(fd, '.'), { bigint: true }).ino === fstatSync(fd, { bigint: true }).ino;
  } catch {
    return false;
  } finally {
    if (fd !== -1) closeSync(fd);
    for (const path of [before, after]) {
      try {
        rmdirSync(path);
      } catch {
        // Not there (renamed, or never made).
      }
    }
  }
}
