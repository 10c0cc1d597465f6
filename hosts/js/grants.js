// A session's grants: normalized, opened (race-free through beneath.js where the platform allows it, else
// preview2-shim's descriptors checked after each open), and the WASI imports every instance shares: no
// environment, stdout kept off the host's stdout, exit as a trap.

import { lstatSync, realpathSync, statSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';

import { WASIShim } from '@bytecodealliance/preview2-shim/instantiation';
import * as shimCli from '@bytecodealliance/preview2-shim/cli';
import * as shimFilesystem from '@bytecodealliance/preview2-shim/filesystem';

import { Grant, MUTATIONS, checkOpenFlags, isRaceFree, refuse, relativeTarget, types } from './beneath.js';
import { GuestExit, HostError, attempt } from './errors.js';

// The fallback without /proc/self/fd (macOS, Windows): preview2-shim checks a path by name with lstat, then opens
// the whole host path, so a directory swapped for a link meanwhile is followed; each open is checked after it.

const base = shimFilesystem.types.Descriptor.prototype;
/** The real host path each fallback descriptor was opened at (checked). */
const opened = new WeakMap();

/**
 * `descriptor`, just opened at `path` beneath `parent`, given the prototype `proto` when that path, looked at again,
 * is the same inode with no link on the way (the component resolves links itself); else closed, and `not-permitted`.
 * @returns {object}
 */
export function checkOpened(descriptor, parent, path, proto) {
  const asked = join(opened.get(parent), path).replace(/(.)[\\/]+$/, '$1');
  const inode = () => lstatSync(asked, { bigint: true }).ino;
  if (!attempt(() => realpathSync(asked) === asked && inode() === descriptor.metadataHash().lower)) {
    descriptor[Symbol.dispose]();
    refuse();
  }
  opened.set(descriptor, asked);
  return Object.setPrototypeOf(descriptor, proto);
}

/**
 * A fallback preopen's prototype: `own` over a prototype of the shim's Descriptor (the bindings check `instanceof`
 * it) with beneath.js's rules, whose opens are checked and have that prototype.
 */
function checkedPrototype(writable, own) {
  const proto = Object.create(base, {
    openAt: {
      value(pathFlags, path, openFlags, descriptorFlags) {
        checkOpenFlags(writable, openFlags, descriptorFlags);
        return checkOpened(base.openAt.call(this, pathFlags, path, openFlags, descriptorFlags), this, path, proto);
      },
    },
    readlinkAt: { value(path) { return relativeTarget(base.readlinkAt.call(this, path)); } },
  });
  for (const method of writable ? MUTATIONS : [...MUTATIONS, 'write']) Object.defineProperty(proto, method, { value: refuse });
  return Object.create(proto, own);
}

// A grant's own descriptor: preview2-shim 0.26 can neither list nor stat a preopen, so the component would miss the
// similar names of a path not found at the top of a grant; both go through `.`.
const preopens = [false, true].map((writable) => checkedPrototype(writable, {
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
  stat: { value() { return this.statAt({ symlinkFollow: false }, '.'); } },
}));

/** What the fallback warns once per process, when its first session starts. */
const RACY_WARNING =
  'read-window: no /proc/self/fd here to resolve names inside a directory held open (it is Linux only), so the ' +
  'JavaScript host resolves paths through the grants by host path (preview2-shim): a directory swapped for a ' +
  'link by another process while a call runs can make a stat, a link read or a directory listing see outside a ' +
  'grant, or an open touch a file outside before the check after it refuses the file (hosts/js/README.md, "The ' +
  'sandbox under races")';
let warned = false;

/**
 * Opens a session's grants ({@link normalizeGrants}'s pairs; `writableHosts`: the host directories granted
 * read-write) for its instances' `wasi:filesystem`: on Linux each directory now, held until `close()` (beneath.js);
 * elsewhere, or with `raceFree: false`, preview2-shim's, checked, with a warning (`READ_WINDOW_RACY_FILESYSTEM`) once.
 * @returns {{types?: object, preopens: [object, string][], close: () => void}} `types` undefined: preview2-shim's.
 * @throws {HostError} kind `start`: a directory could not be opened.
 */
export function openGrants(pairs, writableHosts, { raceFree = isRaceFree() } = {}) {
  if (!raceFree) {
    if (!warned) process.emitWarning(RACY_WARNING, { code: 'READ_WINDOW_RACY_FILESYSTEM' });
    warned = true;
    const shimPreopens = pairs.map(([guest, host]) => {
      const descriptor = shimFilesystem._createPreopenDescriptor(host);
      opened.set(descriptor, host);
      return [Object.setPrototypeOf(descriptor, preopens[writableHosts.has(host) ? 1 : 0]), guest];
    });
    return { types: undefined, preopens: shimPreopens, close() {} };
  }
  const grants = [];
  const close = () => grants.forEach(([grant]) => grant.close());
  for (const [guest, host] of pairs) {
    try {
      grants.push([new Grant(host, writableHosts.has(host)), guest]);
    } catch (error) {
      close();
      throw new HostError('start', `could not grant ${host}: ${error.message}`, { cause: error });
    }
  }
  return { types, preopens: grants.map(([grant, guest]) => [grant.preopen(), guest]), close };
}

/**
 * Grants as `[guest, host][]` with real, existing host directories; a root given through a link (granted at its
 * real path) carries the absolute path it was given by as a non-enumerable `given` (links.js `ontoGuest`).
 * @param {import('./index.js').Grants} grants @returns {[string, string][]}
 * @throws {HostError} kind `start`: no grant, a grant that is not a directory, a guest path that is not absolute.
 */
export function normalizeGrants(grants) {
  const list = typeof grants === 'string' ? [grants] : grants;
  const pairs = Array.isArray(list) ? list.map((host) => [null, host]) : Object.entries(list ?? {});
  if (pairs.length === 0) throw new HostError('start', 'no directory is granted: give at least one');
  return pairs.map(([guest, host]) => {
    if (typeof host !== 'string' || host === '') {
      throw new HostError('start', `a granted directory must be a non-empty string, not ${JSON.stringify(host)}`);
    }
    let real;
    try {
      real = realpathSync(host);
      if (!statSync(real).isDirectory()) throw new Error('not a directory');
    } catch (error) {
      throw new HostError('start', `could not grant ${host}: ${error.message}`, { cause: error });
    }
    const at = guest ?? real;
    if (!at.startsWith('/')) {
      throw new HostError('start', `the guest path of ${host} must be absolute (like /workspace), not ${JSON.stringify(at)}`);
    }
    const pair = [at, real];
    const given = resolvePath(host);
    if (guest === null && given !== real) Object.defineProperty(pair, 'given', { value: given, enumerable: false });
    return pair;
  });
}

/** The import object every instance shares: WASI from preview2-shim, sandboxed. */
export function baseImports() {
  const imports = new WASIShim({ sandbox: { env: {}, args: ['read-window'], enableNetwork: false } }).getImportObject();
  // The guest's stdout would land in the host's stdout (a protocol stream, for MCP servers over stdio): stderr.
  imports['wasi:cli/stdout'] = { getStdout: () => shimCli.stderr.getStderr() };
  const exit = (status) => {
    throw new GuestExit(`the component called exit (${status?.tag ?? status ?? 'ok'})`);
  };
  imports['wasi:cli/exit'] = { exit, exitWithCode: exit };
  return imports;
}
