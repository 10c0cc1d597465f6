// The JavaScript host of the read-window component: a pipe over its `protocol` interface (docs/protocol.md), which
// parses every request and shapes every answer. The host loads the component (jco's bindings, transpile.mjs),
// grants directories (grants.js, beneath.js), resolves absolute links before a request (links.js: WASI cannot) and
// restarts a session after a trap. Each session has an instance of its own (preview2-shim's preopens are global).

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { GuestExit, HostError, attempt } from './errors.js';
import { isRaceFree } from './beneath.js';
import { baseImports, normalizeGrants, openGrants } from './grants.js';
import { toJson } from './json.js';
import { linkedRequest } from './links.js';

export { HostError };

/**
 * Whether this host's race-free `wasi:filesystem` holds here (Linux with `/proc/self/fd`, probed once per process);
 * elsewhere sessions fall back to preview2-shim's file system, checked after each open (README, "The sandbox under
 * races"). @returns {boolean}
 */
export { isRaceFree };

/** The directory `npm run transpile` writes the transpiled component to. */
export const GENERATED_DIR = fileURLToPath(new URL('./generated/', import.meta.url));

const PROTOCOL = 'read-window:reader/protocol@0.3.0';

/**
 * The directories a session may read, read-only: a host directory (seen at its real absolute path), a list of
 * them, or `{guestPath: hostDir}` (`{"/workspace": "./repo"}`). The first is the default working directory.
 * @typedef {string | string[] | Record<string, string>} Grants
 */

/** Per reader, an instance with no directories that words its host-error answers (made at the first one). */
const spares = new WeakMap();

/** The loaded component: its bindings and compiled core modules, instantiated anew for every session. */
export class ReadWindow {
  #instantiate;
  #modules;
  #imports = baseImports();

  /** @private Use {@link ReadWindow.load}. */
  constructor(instantiate, modules) {
    [this.#instantiate, this.#modules] = [instantiate, modules];
  }

  /**
   * Loads the transpiled component from `dir` (default {@link GENERATED_DIR}) and compiles its core modules.
   * @returns {Promise<ReadWindow>} @throws {HostError} kind `start`: the transpile is missing or does not load.
   */
  static async load({ dir = GENERATED_DIR } = {}) {
    const entry = join(dir, 'read_window.js');
    try {
      const { instantiate } = await import(pathToFileURL(entry).href);
      const names = readdirSync(dir).filter((name) => /^read_window\.core\d*\.wasm$/.test(name));
      const modules = await Promise.all(names.map((name) => WebAssembly.compile(readFileSync(join(dir, name)))));
      return new ReadWindow(instantiate, new Map(names.map((name, i) => [name, modules[i]])));
    } catch (error) {
      const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes(entry);
      const why = missing ? `is missing (${entry}): run \`npm run transpile\` in hosts/js` : `does not load: ${error.message}`;
      throw new HostError('start', `the transpiled component ${why}`, { cause: error });
    }
  }

  /**
   * Starts a session over `grants`: an instance of the component of its own and a protocol session in it.
   * @param {Grants} grants @param {object | string} [config] A config object (docs/protocol.md, "Config") or its
   *   JSON text; the component answers a malformed one with `invalid_request` errors.
   * @param {{writable?: Grants}} [options] `writable`: directories granted read-write for a capture's spill file.
   * @returns {Session} @throws {HostError} kind `start`: a grant is not a directory, or the instance did not start.
   */
  session(grants, config, { writable } = {}) {
    const extra = writable === undefined ? [] : normalizeGrants(writable);
    const pairs = [...normalizeGrants(grants), ...extra];
    return new Session(this, pairs, new Set(extra.map(([, host]) => host)), configText(config));
  }

  /** A `read_once` ({@link Session#readOnce}) in a session of its own, closed after. @throws {HostError} `start`. */
  readOnce(grants, config, pathOrRequest, options) {
    const session = this.session(grants, config);
    try {
      return session.readOnce(pathOrRequest, options);
    } finally {
      session.close();
    }
  }

  /**
   * The component's answer to one request in a session of no directories, closed after: for the ops that read no
   * file (`tools`, `config`, `mcp_server`, `mcp_roots`). @param {object | string} request As {@link Session#request}.
   * @param {object | string} [config] As {@link ReadWindow#session}. @returns {object} The answer, parsed.
   * @throws {HostError} kind `start`: the instance did not start.
   */
  request(request, config) {
    const { protocol } = this._instantiate({ preopens: [] });
    let session;
    try {
      session = new protocol.Session(configText(config), []);
    } catch (error) {
      throw new HostError('start', `the session constructor failed: ${describe(error)}`, { cause: error });
    }
    try {
      return JSON.parse(session.answer(typeof request === 'string' ? request : toJson(request)));
    } finally {
      session[Symbol.dispose]?.();
    }
  }

  /**
   * The component's `host-error` answer (JSON text) to the request `text` that the host could not run: `cause`
   * `start` or `trap`, the request's `id` first, an MCP result when the request asked for one.
   * @param {string} text @param {"start" | "trap"} cause @param {string} message @param {boolean} [restarted]
   * @returns {string}
   */
  hostError(text, cause, message, restarted = false) {
    if (!spares.has(this)) spares.set(this, this._instantiate({ preopens: [] }).protocol);
    return spares.get(this).hostError(text, cause, message, restarted);
  }

  /** @internal An instance whose only file system is {@link openGrants}'s. @returns {{protocol, preopens}} */
  _instantiate({ preopens, types }) {
    const imports = { ...this.#imports, 'wasi:filesystem/preopens': { getDirectories: () => preopens.slice() } };
    if (types !== undefined) imports['wasi:filesystem/types'] = types;
    // jco 1.35's bindings probe `WebAssembly.promising` (JSPI) five times per instance; where it is missing (Node
    // 20), V8 takes about 4 ms to word each probe's TypeError. A stand-in that throws is cheap.
    const stubbed = !('promising' in WebAssembly);
    if (stubbed) WebAssembly.promising = () => {
      throw new TypeError('WebAssembly.promising is not available');
    };
    try {
      return { protocol: this.#instantiate((name) => this.#modules.get(name), imports)[PROTOCOL], preopens };
    } catch (error) {
      throw new HostError('start', `could not instantiate the read-window component: ${describe(error)}`, { cause: error });
    } finally {
      if (stubbed) delete WebAssembly.promising;
    }
  }
}

/** A config as the session constructor takes it: JSON text, empty for none. */
function configText(config) {
  return typeof config === 'string' ? config : config === undefined || config === null ? '' : toJson(config);
}

/** The ops after which a session's config may have changed (a restart starts with `config()`). */
const CHANGES_CONFIG = /configure|mcp_server/;

function describe(error) {
  return error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
}

/** A read's request from `(path, {offset, ...})` or `({path, offset, ...})`, its fields untouched. */
/** An answer with an image's base64 `data` decoded into a `Uint8Array`; any other answer as it is. */
function withImageBytes(answer) {
  if (typeof answer.data === 'string') {
    const bytes = Buffer.from(answer.data, 'base64');
    answer.data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  }
  return answer;
}

function readRequest(op, pathOrRequest, options) {
  const fields = typeof pathOrRequest === 'object' && pathOrRequest !== null ? pathOrRequest : { path: pathOrRequest };
  return { ...fields, ...options, op };
}

/**
 * A reading session: an instance of the component and a protocol session in it; sessions share nothing. Every
 * method returns the component's answer (docs/protocol.md, "Answers"), parsed; a read error, a malformed argument
 * and a host failure (a trap: the session restarts with its config, its state lost) have `status: "error"`.
 */
export class Session {
  #reader;
  #grants;
  #writable;
  #config;
  #live = null;
  #opened = null;
  #restarts = 0;

  /** @private Use {@link ReadWindow#session}. `writable`: the host directories granted read-write. */
  constructor(reader, grants, writable, config) {
    [this.#reader, this.#grants, this.#writable, this.#config] = [reader, grants, writable, config];
    try {
      this.#live = this.#start();
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** A fresh instance and protocol session, over the grants opened at the first start (or after `close()`). */
  #start() {
    this.#opened ??= openGrants(this.#grants, this.#writable);
    const { protocol } = this.#reader._instantiate(this.#opened);
    const writableRoots = this.#grants.filter(([, host]) => this.#writable.has(host)).map(([guest]) => guest);
    try {
      return new protocol.Session(this.#config, writableRoots);
    } catch (error) {
      throw new HostError('start', `the session constructor failed: ${describe(error)}`, { cause: error });
    }
  }

  /** `f(session)` for `request`; a failure is the component's `host-error` answer (after a restart for a trap). */
  #call(request, f) {
    let live;
    try {
      live = this.#live ??= this.#start();
    } catch (error) {
      return this.#hostError(request, 'start', error.message, false);
    }
    try {
      const answer = f(live);
      if (CHANGES_CONFIG.test(request)) this.#config = live.config(); // what a restart starts with
      return answer;
    } catch (error) {
      this.#live = null;
      this.#restarts += 1;
      const what = error instanceof GuestExit ? error.message : `the read-window component trapped: ${describe(error)}`;
      let after = 'the session was restarted: its state (dedup memory, loop counts, not-found cache, line indexes) '
        + 'is lost and later calls start fresh';
      try {
        this.#live = this.#start();
      } catch (restart) {
        after = `restarting the session failed too (${restart.message}); the next call tries again, and the session's state is lost`;
      }
      return this.#hostError(request, 'trap', `${what}; ${after}`, this.#live !== null);
    }
  }

  /** The component's `host-error` answer ({@link ReadWindow#hostError}). */
  #hostError(request, cause, message, restarted) {
    return this.#reader.hostError(request, cause, message, restarted);
  }

  /**
   * The component's answer (JSON text) to a request of the protocol (JSON text), the path of a `read`, `read_once`
   * or `check_write` through the absolute links first (links.js). @param {string} text @returns {string}
   */
  answer(text) {
    if (typeof text !== 'string') throw new TypeError(`answer() takes the request as JSON text, not ${typeof text}`);
    const dir = attempt(() => JSON.parse(this.#config).working_directory); // else the first grant
    const linked = linkedRequest(this.#grants, typeof dir === 'string' ? dir : undefined, text);
    return this.#call(linked, (session) => session.answer(linked));
  }

  /** {@link Session#answer}, parsed, for a request object (a BigInt as an integer) or its text. @returns {object} */
  request(request) { return JSON.parse(this.answer(typeof request === 'string' ? request : toJson(request))); }
  /**
   * A `read` of `(path, {offset, limit, column, tail, extract, fresh, region, depth, content})` or
   * `({path, ...})`: a window, stub or error; an image's window carries its picture in `data` as a `Uint8Array`; a
   * directory's answer is its listing (`listing: true`, `total_entries`, `entries` by kind, `next_offset`).
   */
  read(pathOrRequest, options) { return withImageBytes(this.request(readRequest('read', pathOrRequest, options))); }
  /** A `read_once`: a window with the session's config and none of its memory; as {@link Session#read}. */
  readOnce(pathOrRequest, options) {
    return withImageBytes(this.request(readRequest('read_once', pathOrRequest, options)));
  }
  /**
   * A `read_many` of `(paths, {limit, fresh})`: each file's answer in `files` (an image's `data` a `Uint8Array`)
   * and the files the budget had no room for in `left_out`.
   */
  readMany(paths, options) {
    const answer = this.request({ ...options, op: 'read_many', paths });
    for (const file of answer.files ?? []) withImageBytes(file);
    return answer;
  }
  /**
   * A `search` of `(pattern, {path, regex, case_sensitive, context, offset, limit})`: a page of matches with the
   * census (`total_matches`, `files_with_matches`, `files_searched`, `skipped`, `next_offset`).
   */
  search(pattern, options) { return this.request({ ...options, op: 'search', pattern }); }
  /** `other_tool`: the host ran another tool (the loop tripwire starts over). */
  otherTool() { return this.request({ op: 'other_tool' }); }
  /** `reset_dedup`: the model's context was compacted (the next read of any window returns content). */
  resetDedup() { return this.request({ op: 'reset_dedup' }); }
  /** `wrote`: the host wrote or patched `path`. */
  wrote(path) { return this.request({ op: 'wrote', path }); }
  /** `check_write`: whether `text` the model wants written to `path` echoes this component's output. */
  checkWrite(path, text) { return this.request({ op: 'check_write', path, text }); }
  /** `report_tokens`: the real token count of the window `offset`/`lines` of `path`. */
  reportTokens(path, offset, lines, tokens) { return this.request({ op: 'report_tokens', path, offset, lines, tokens }); }
  /** `token_refusal`: an engine refused the window `offset`/`limit` of `path` with `message`. */
  tokenRefusal(path, offset, limit, message) { return this.request({ op: 'token_refusal', path, offset, limit, message }); }
  /** `stats`: the session's counters and its peak linear memory. */
  stats() { return this.request({ op: 'stats' }); }
  /** `capture_begin` with `fields` (`window_chars`, `head_share`, `spill_dir`, `spill_cap_chars`). */
  captureBegin(fields) { return this.request({ ...fields, op: 'capture_begin' }); }
  /** `capture_end` with the command's `exitStatus` (and `{content}`, as a read's): the capture's window. */
  captureEnd(exitStatus, options) {
    return this.request({ ...options, op: 'capture_end', exit_status: exitStatus });
  }
  /** A chunk of the command's output: bytes through `push-output`, anything else as a `capture_chunk`'s `text`. */
  captureChunk(chunk) {
    if (!(chunk instanceof Uint8Array)) return this.request({ op: 'capture_chunk', text: chunk });
    return JSON.parse(this.#call('', (session) => session.pushOutput(chunk)));
  }

  /** How many times the session was restarted after a trap. @returns {number} */
  restarts() { return this.#restarts; }
  /** Drops the session's instance and closes its directories; a later call starts afresh, its state lost. */
  close() {
    this.#live?.[Symbol.dispose]?.();
    this.#live = null;
    this.#opened?.close();
    this.#opened = null;
  }

  /** {@link Session#close}. */
  [Symbol.dispose]() { this.close(); }
}
