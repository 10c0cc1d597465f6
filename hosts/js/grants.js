// WASI imports: read-only grants, no environment, stdout kept off the host's stdout, exit as a trap. The granted
// descriptors and preopens, the grants' normalization, and the import object every instance shares.

import { realpathSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';

import { WASIShim } from '@bytecodealliance/preview2-shim/instantiation';
import * as shimCli from '@bytecodealliance/preview2-shim/cli';
import * as shimFilesystem from '@bytecodealliance/preview2-shim/filesystem';

import { HostError } from './errors.js';
import { isObject, typeName } from './protocol.js';

/** @typedef {import('./index.js').Grants} Grants */

const { Descriptor } = shimFilesystem.types;
const base = Descriptor.prototype;

/**
 * The prototype of granted descriptors: the shim's Descriptor made to behave like a wasmtime read-only preopen.
 * Instances keep the shim's class (the bindings check `instanceof Descriptor`) and its private state; descriptors
 * opened through one get this prototype too.
 *
 * - Every way to change the file system is refused with `not-permitted`, as wasmtime refuses it for a read-only
 *   preopen (the component imports none of them but `open-at`; this holds if it ever does).
 * - An absolute link target is not revealed to the component (`not-permitted`), as wasmtime does: it would show
 *   host paths. The host resolves absolute links itself before a read (links.js, the rule every host shares).
 */
const readOnlyDescriptor = Object.create(base, {
  openAt: {
    value(pathFlags, path, openFlags, descriptorFlags) {
      if (openFlags.create || openFlags.truncate || descriptorFlags.write || descriptorFlags.mutateDirectory) {
        throw 'not-permitted';
      }
      return Object.setPrototypeOf(base.openAt.call(this, pathFlags, path, openFlags, descriptorFlags), readOnlyDescriptor);
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
for (const method of [
  'writeViaStream',
  'appendViaStream',
  'write',
  'setSize',
  'setTimes',
  'setTimesAt',
  'createDirectoryAt',
  'linkAt',
  'removeDirectoryAt',
  'renameAt',
  'symlinkAt',
  'unlinkFileAt',
]) {
  Object.defineProperty(readOnlyDescriptor, method, {
    value() {
      throw 'not-permitted';
    },
  });
}

/**
 * The prototype of a grant's own descriptor (a preopen). preview2-shim 0.26 cannot list or stat a preopen itself
 * (`read-directory` fails with `bad-descriptor`, `stat` with `invalid`), so the component would miss the
 * "similar names" of a path not found at the top of a grant; both go through the directory opened as `.`.
 */
export const preopenDescriptor = Object.create(readOnlyDescriptor, {
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
 * The prototype of a capture's spill directory, granted read-write (and of what is opened through it): the shim's
 * Descriptor as it is, so the component can create its spill file exclusively and write it, but an absolute link
 * target stays hidden, as in a read-only grant.
 */
const writableDescriptor = Object.create(base, {
  openAt: {
    value(pathFlags, path, openFlags, descriptorFlags) {
      return Object.setPrototypeOf(base.openAt.call(this, pathFlags, path, openFlags, descriptorFlags), writableDescriptor);
    },
  },
  readlinkAt: { value: readOnlyDescriptor.readlinkAt },
});

/** The prototype of a writable grant's own descriptor: {@link writableDescriptor} with the preopen fixes. */
export const writablePreopenDescriptor = Object.create(writableDescriptor, {
  readDirectory: { value: preopenDescriptor.readDirectory },
  stat: { value: preopenDescriptor.stat },
});

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
