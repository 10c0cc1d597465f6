// WASI imports: read-only grants, no environment, stdout kept off the host's stdout, exit as a trap. The grants'
// normalization, the granted directories each session opens (race-free through beneath.js where the platform
// allows it, else preview2-shim's descriptors with a check after each open), and the import object every instance
// shares.

import { lstatSync, realpathSync, statSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';

import { WASIShim } from '@bytecodealliance/preview2-shim/instantiation';
import * as shimCli from '@bytecodealliance/preview2-shim/cli';
import * as shimFilesystem from '@bytecodealliance/preview2-shim/filesystem';

import { Grant, MUTATIONS, isRaceFree, types as beneathTypes } from './beneath.js';
import { HostError } from './errors.js';
import { isObject, typeName } from './protocol.js';

/** @typedef {import('./index.js').Grants} Grants */

// ---------------------------------------------------------------------------------------------------------------
// The fallback where no race-free resolution exists (no /proc/self/fd: macOS, Windows): preview2-shim's
// descriptors, which resolve a path by name with lstat and then open the whole host path (Node has no openat), so
// a directory swapped for a link during the call is followed. What can be checked after an open is checked: the
// path asked for must be the opened file's real path (no link on the way: the component resolves links itself)
// and name the same file (inode) as the descriptor.

const { Descriptor } = shimFilesystem.types;
const base = Descriptor.prototype;

/** The real host path each fallback descriptor was opened at (checked). */
const opened = new WeakMap();

/**
 * `descriptor`, just opened at `path` beneath `parent`, kept when a fresh look at that path finds the same file
 * there with no link on the way (so inside the grant); else closed and refused.
 *
 * @param {object} descriptor The shim's descriptor the open returned.
 * @param {object} parent The descriptor it was opened through.
 * @param {string} path The relative path given to `open-at`.
 * @param {object} proto The prototype it gets when kept (read-only or writable, as `parent`'s grant).
 * @returns {object} `descriptor`, with the prototype `proto`.
 * @throws {string} `not-permitted` when the path now goes through a link, or to another file than was opened.
 */
export function checkOpened(descriptor, parent, path, proto) {
  const asked = join(opened.get(parent), path).replace(/(.)[\\/]+$/, '$1');
  if (!namesOpened(asked, descriptor)) {
    descriptor[Symbol.dispose]();
    throw 'not-permitted';
  }
  opened.set(descriptor, asked);
  return Object.setPrototypeOf(descriptor, proto);
}

/** Whether the host path `asked` is a real path (no link on it) of the file `descriptor` is open on. */
function namesOpened(asked, descriptor) {
  try {
    return realpathSync(asked) === asked && lstatSync(asked, { bigint: true }).ino === descriptor.metadataHash().lower;
  } catch {
    return false;
  }
}

/**
 * The prototype of granted descriptors in the fallback: the shim's Descriptor made to behave like a wasmtime
 * read-only preopen. Instances keep the shim's class (the bindings check `instanceof Descriptor`) and its private
 * state; descriptors opened through one get this prototype too, once {@link checkOpened} has kept them.
 *
 * - Every way to change the file system is refused with `not-permitted`, as wasmtime refuses it for a read-only
 *   preopen.
 * - An absolute link target is not revealed to the component (`not-permitted`), as wasmtime does: it would show
 *   host paths. The host resolves absolute links itself before a read (links.js, the rule every host shares).
 */
const readOnlyDescriptor = Object.create(base, {
  openAt: {
    value(pathFlags, path, openFlags, descriptorFlags) {
      if (openFlags.create || openFlags.truncate || descriptorFlags.write || descriptorFlags.mutateDirectory) {
        throw 'not-permitted';
      }
      return checkOpened(base.openAt.call(this, pathFlags, path, openFlags, descriptorFlags), this, path, readOnlyDescriptor);
    },
  },
  readlinkAt: {
    value(path) {
      const target = base.readlinkAt.call(this, path);
      if (target.startsWith('/')) throw 'not-permitted';
      return target;
    },
  },
});
for (const method of [...MUTATIONS, 'write']) {
  Object.defineProperty(readOnlyDescriptor, method, {
    value() {
      throw 'not-permitted';
    },
  });
}

/**
 * The prototype of a grant's own descriptor (a preopen) in the fallback. preview2-shim 0.26 cannot list or stat a
 * preopen itself (`read-directory` fails with `bad-descriptor`, `stat` with `invalid`), so the component would
 * miss the "similar names" of a path not found at the top of a grant; both go through the directory opened as `.`.
 */
const preopenDescriptor = Object.create(readOnlyDescriptor, {
  readDirectory: {
    value() {
      const self = this.openAt({ symlinkFollow: false }, '.', { directory: true }, { read: true });
      try {
        return self.readDirectory();
      } finally {
        self[Symbol.dispose]();
      }
    },
  },
  stat: {
    value() {
      return this.statAt({ symlinkFollow: false }, '.');
    },
  },
});

/**
 * The prototype of a capture's spill directory in the fallback, granted read-write (and of what is opened through
 * it): the shim's Descriptor, so the component can create its spill file exclusively and write it, with each open
 * checked ({@link checkOpened}) and an absolute link target hidden, as in a read-only grant.
 */
const writableDescriptor = Object.create(base, {
  openAt: {
    value(pathFlags, path, openFlags, descriptorFlags) {
      return checkOpened(base.openAt.call(this, pathFlags, path, openFlags, descriptorFlags), this, path, writableDescriptor);
    },
  },
  readlinkAt: { value: readOnlyDescriptor.readlinkAt },
});

/** The prototype of a writable grant's own descriptor in the fallback: {@link writableDescriptor} with the preopen fixes. */
const writablePreopenDescriptor = Object.create(writableDescriptor, {
  readDirectory: { value: preopenDescriptor.readDirectory },
  stat: { value: preopenDescriptor.stat },
});

/** The fallback's preopen of the real host directory `host`. */
function shimPreopen(host, writable) {
  const descriptor = shimFilesystem._createPreopenDescriptor(host);
  opened.set(descriptor, host);
  return Object.setPrototypeOf(descriptor, writable ? writablePreopenDescriptor : preopenDescriptor);
}

/** What the fallback warns once per process, when its first session starts. */
const RACY_WARNING =
  'read-window: no /proc/self/fd here to resolve names inside a directory held open (it is Linux only), so the ' +
  'JavaScript host resolves paths through the grants by host path (preview2-shim): a directory swapped for a ' +
  'link by another process while a call runs can make a stat, a link read or a directory listing see outside a ' +
  'grant, or an open touch a file outside before the check after it refuses the file (hosts/js/README.md, "The ' +
  'sandbox under races")';

let warned = false;

// ---------------------------------------------------------------------------------------------------------------
// The grants of a session

/**
 * The granted directories of one session, opened: the `wasi:filesystem` imports of its instances.
 *
 * @typedef {object} OpenedGrants
 * @property {object | undefined} types The `wasi:filesystem/types` import (undefined: preview2-shim's).
 * @property {[object, string][]} preopens Each grant's descriptor and guest path, for `get-directories`.
 * @property {() => void} close Closes the granted directories (race-free only; the fallback holds none open).
 */

/**
 * Opens the grants of a session: on Linux each directory is opened now and held until `close()` (beneath.js),
 * elsewhere preview2-shim's descriptors with a check after each open, and a warning ({@link RACY_WARNING}) on
 * stderr through `process.emitWarning` the first time in the process.
 *
 * @param {[string, string][]} pairs Guest path and real host directory ({@link normalizeGrants}).
 * @param {Set<string>} writable The host directories granted read-write (a capture's spill directory).
 * @param {{raceFree?: boolean}} [options] `raceFree: false` takes the fallback on any platform (for tests).
 * @returns {OpenedGrants}
 * @throws {HostError} kind `start`: a directory could not be opened.
 */
export function openGrants(pairs, writable, { raceFree = isRaceFree() } = {}) {
  if (!raceFree) return shimGrants(pairs, writable);
  const grants = [];
  try {
    for (const [guest, host] of pairs) grants.push([openGrant(host, writable.has(host)), guest]);
  } catch (error) {
    for (const [grant] of grants) grant.close();
    throw error;
  }
  const preopens = grants.map(([grant, guest]) => [grant.preopen(), guest]);
  return { types: beneathTypes, preopens, close: () => grants.forEach(([grant]) => grant.close()) };
}

/** The fallback's {@link OpenedGrants}: preview2-shim's descriptors, checked; the warning the first time. */
function shimGrants(pairs, writable) {
  if (!warned) process.emitWarning(RACY_WARNING, { code: 'READ_WINDOW_RACY_FILESYSTEM' });
  warned = true;
  const preopens = pairs.map(([guest, host]) => [shimPreopen(host, writable.has(host)), guest]);
  return { types: undefined, preopens, close() {} };
}

/** A {@link Grant} of `host`, or a HostError that names it. */
function openGrant(host, writable) {
  try {
    return new Grant(host, writable);
  } catch (error) {
    throw new HostError('start', `could not grant ${host}: ${error.message}`, { cause: error });
  }
}

/**
 * Normalizes {@link Grants} to `[guest, host][]` with real, existing host directories. A pair granted at its real
 * path whose given path differs (a root given through a link) carries that absolute path as a non-enumerable
 * `given` property ({@link ontoGuest} in links.js).
 */
export function normalizeGrants(grants) {
  let pairs;
  if (typeof grants === 'string') {
    pairs = [[null, grants]];
  } else if (Array.isArray(grants)) {
    pairs = grants.map((host) => [null, host]);
  } else if (isObject(grants)) {
    pairs = Object.entries(grants);
  } else {
    throw new HostError('start', `grants must be a directory, a list of directories or {guest: host}, not ${typeName(grants)}`);
  }
  if (pairs.length === 0) throw new HostError('start', 'no directory is granted: give at least one');
  return pairs.map(([guest, host]) => {
    if (typeof host !== 'string' || host === '') {
      throw new HostError('start', `a granted directory must be a non-empty string, not ${typeName(host)}`);
    }
    let real;
    try {
      real = realpathSync(host);
    } catch (error) {
      throw new HostError('start', `could not grant ${host}: ${error.message}`, { cause: error });
    }
    if (!statSync(real).isDirectory()) throw new HostError('start', `could not grant ${host}: not a directory`);
    const at = guest ?? real;
    if (typeof at !== 'string' || !at.startsWith('/')) {
      throw new HostError('start', `the guest path of ${host} must be absolute (like /workspace), not ${JSON.stringify(at)}`);
    }
    const pair = [at, real];
    // A root given through a link (README, "Absolute links"): its absolute given path, for `ontoGuest`.
    const given = resolvePath(host);
    if (guest === null && given !== real) Object.defineProperty(pair, 'given', { value: given, enumerable: false });
    return pair;
  });
}

/** Throws from `wasi:cli/exit`: a guest that exits must not end the host process. */
export class GuestExit extends Error {}

/** The import object every instance shares: WASI from preview2-shim, sandboxed. */
export function baseImports() {
  const imports = new WASIShim({
    sandbox: { env: {}, args: ['read-window'], enableNetwork: false },
  }).getImportObject();
  // The guest's stdout would land in the host's stdout (a protocol stream, for MCP servers over stdio): it goes
  // to stderr, where the guest's panic messages go too.
  imports['wasi:cli/stdout'] = { getStdout: () => shimCli.stderr.getStderr() };
  imports['wasi:cli/exit'] = {
    exit(status) {
      throw new GuestExit(`the component called exit (${status?.tag ?? 'ok'})`);
    },
    exitWithCode(code) {
      throw new GuestExit(`the component called exit (${code})`);
    },
  };
  return imports;
}
