// The JavaScript host of the read-window component: a thin layer over jco's transpiled bindings.
//
// - Load once: `ReadWindow.load()` imports the transpiled component (`npm run transpile` writes `generated/`) and
//   compiles its core modules.
// - An instance per session: each `Session` (and each stateless `readOnce`) instantiates the component with WASI
//   imports of its own, whose only filesystem access is its grants, preopened read-only (on Linux resolved
//   race-free beneath directories opened when the session starts: beneath.js). preview2-shim's default
//   preopens are process-global (`_setPreopens`) and the component takes them when a session starts, so sessions
//   sharing them would see whichever grants were set last; own imports per instance keep sessions apart, and give
//   each its own linear memory. Instantiating costs a millisecond or two once the core modules are compiled.
// - Answers are plain objects in the JSON shape of the Rust host (`host-test/src/json.rs`), key for key: u64
//   values become Numbers, enum cases snake_case. Read errors are answers (`status: "error"`); only host failures
//   throw (`HostError`). A call that traps restarts the session (its state is lost) and throws.
//
// The modules: `protocol.js` parses requests and configs, `answers.js` shapes answers, `errors.js` holds the error
// classes, `grants.js` the grants and WASI imports (`beneath.js` the race-free file system), `links.js` the
// absolute links; this one the loaded component and its sessions, and the package's exports.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { NOTE, captureAnswer, errorAnswer, stubAnswer, windowAnswer } from './answers.js';
import { HostError, InvalidRequestError } from './errors.js';
import { GuestExit, baseImports, normalizeGrants, openGrants } from './grants.js';
import { ontoGuest, resolveAbsoluteLinks } from './links.js';
import { isObject, parseConfig, parseRequest, readArguments, readRequest } from './protocol.js';

export { HostError, InvalidRequestError, parseConfig, parseRequest };

/** The directory `npm run transpile` writes the transpiled component to. */
export const GENERATED_DIR = fileURLToPath(new URL('./generated/', import.meta.url));

const EXPORT_NAME = 'read-window:reader/reader@0.3.0';

const STATE_LOST =
  'its state (dedup memory, loop counts, not-found cache, line indexes) is lost and later calls start fresh';

// ---------------------------------------------------------------------------------------------------------------
// Types (JSDoc)

/**
 * Settings of a session or a stateless read: the WIT `config` record with snake_case names, every field optional
 * (absent or null: the component's default).
 *
 * @typedef {object} Config
 * @property {number} [max_lines] Lines per window at most (default 2,000).
 * @property {number} [max_line_length] Characters shown of one line before it is clamped (default 2,000).
 * @property {{characters: number} | {tokens: {cap?: number, headroom?: number}}} [budget] The cap on a window's
 *   formatted content: characters, or estimated tokens (`cap` default 25,000, `headroom` default 0.9). Default
 *   100,000 characters.
 * @property {string} [working_directory] The guest path relative paths resolve against (default: the first grant).
 * @property {boolean} [dedup] Answer an unchanged repeat of a window with a stub (default true).
 * @property {number} [loop_warn_at] The consecutive identical read that carries a warning (default 3).
 * @property {number} [loop_block_at] The consecutive identical read that is refused (default 4).
 * @property {number | bigint} [not_found_ttl_ms] How long a miss counts towards the next one, in ms (default
 *   60,000): a missing path is checked on every read; this bounds the count of misses the message and the
 *   tripwire use (0: no count).
 * @property {string[]} [deny_patterns] Globs of credential files to refuse, added to the defaults.
 * @property {string[]} [allow_patterns] Globs excepted from the credential deny-list.
 */

/**
 * The directories a session may read, each granted read-only. A string: one host directory, seen by the component
 * at its real absolute path. An array of strings: several such. An object: guest path → host directory (e.g.
 * `{"/workspace": "./repo"}`). The first grant is the default working directory.
 *
 * @typedef {string | string[] | Record<string, string>} Grants
 */

/**
 * Where a window starts and how long it is. Lines are 1-based, columns 0-based in characters (Unicode scalar
 * values). Each is a non-negative integer (Number or BigInt); absent or null: the default.
 *
 * @typedef {object} ReadOptions
 * @property {number | bigint} [offset] The first line (default 1; 0 is read as 1).
 * @property {number | bigint} [limit] Lines at most (default and maximum `max_lines`; 0 is an invalid request).
 * @property {number | bigint} [column] Where to start inside the first line (default 0).
 * @property {number | bigint} [tail] Read the last N lines instead (not with offset or column).
 * @property {boolean} [extract] Whether a document is read as its extracted text (default true); false reads the
 *   file's own bytes (a notebook as its JSON).
 */

/**
 * A window: `{status: "ok", content_returned: true, content, path, start_line, start_column, end_line,
 * lines_returned, total_lines, truncated, truncated_by, next_offset, next_column, clamped_lines, hint, file_size,
 * encoding: {encoding, bom, line_endings, replaced_invalid}, budget: {unit, limit, used, cap?}, warnings?}`.
 * `content` is `N|text` lines, each ending in `\n`. `truncated_by` holds `"limit" | "budget" | "line_length" |
 * "mid_line"`; `next_offset` (1-based line) and `next_column` (0-based characters) are null when nothing is left;
 * `clamped_lines` items are `{line, shown_chars, total_chars, next_column}`; `file_size` is in bytes; `budget`
 * numbers are in its `unit` (`"characters" | "tokens"`), `cap` only in token mode; `warnings` only when not empty.
 * `text` is exactly what a model should see: the content, a blank line, the hint, then the warnings meant for the
 * model (built by the component, the same in every host). A document read as its extracted text adds
 * `document: {format, parts: [{kind, number, name?, first_line, characters}], pages?, empty_pages?}` (`pages` and
 * `empty_pages`, a list of `[first, last]`, for PDFs only).
 *
 * @typedef {object} WindowAnswer
 */

/**
 * A dedup stub (the window is unchanged since this session returned it): `{status: "unchanged",
 * content_returned: false, dedup: true, path, start_line, end_line, total_lines, next_offset, next_column,
 * message, text}`, with no `content` key and `text` equal to `message`. `next_offset`/`next_column` are the cursor of the window it stands for (null
 * when nothing after it is left), so paging goes on through a stub; `message` ends with the call that continues.
 *
 * @typedef {object} StubAnswer
 */

/**
 * A failed request: `{status: "error", content_returned: false, text, error: {kind, message, already_read?, path?,
 * suggestions, total_lines?}}`, `kind` one of `not_found`, `not_a_file`, `outside_sandbox`, `permission_denied`,
 * `invalid_request`, `io`, `special_file`, `device`, `credential`, `binary`, `loop_blocked`, `echoed_output`;
 * `text` is the message; `already_read` only for `loop_blocked`; `path` the absolute guest path tried, when one
 * was formed; `suggestions` the similar names offered (a list, often empty); `total_lines` the file's line count
 * for an offset past the end.
 *
 * @typedef {object} ErrorAnswer
 */

/** A note taken or a check passed: `{status: "ok"}`. @typedef {{status: "ok"}} NoteAnswer */

/**
 * The window that fits after an engine refused one for its token count: `{status: "ok", offset, limit,
 * refused_tokens, cap_tokens, hint}`.
 *
 * @typedef {object} RetryAnswer
 */

/**
 * Session counters: `{status: "ok", positioned_reads, indexed_files, index_bytes, peak_memory_bytes}`
 * (`peak_memory_bytes`: the largest linear memory of the session's instances, in bytes).
 *
 * @typedef {object} StatsAnswer
 */

/**
 * A parsed request of the session protocol ({@link parseRequest}).
 *
 * @typedef {import('./protocol.js').Request} Request
 */

// ---------------------------------------------------------------------------------------------------------------
// The loaded component

/**
 * The loaded component: the transpiled bindings and compiled core modules. Load it once per process
 * ({@link ReadWindow.load}); every session instantiates it anew with its own grants.
 */
export class ReadWindow {
  #instantiate;
  #modules;
  #imports;

  /** @private Use {@link ReadWindow.load}. */
  constructor(instantiate, modules) {
    this.#instantiate = instantiate;
    this.#modules = modules;
    this.#imports = baseImports();
  }

  /**
   * Loads the transpiled component and compiles its core modules.
   *
   * @param {{dir?: string}} [options] `dir`: the transpiled output (default {@link GENERATED_DIR}).
   * @returns {Promise<ReadWindow>}
   * @throws {HostError} kind `start`: the transpiled output is missing (run `npm run transpile` in hosts/js) or
   *   does not load.
   */
  static async load({ dir = GENERATED_DIR } = {}) {
    const entry = join(dir, 'read_window.js');
    let bindings;
    try {
      bindings = await import(pathToFileURL(entry).href);
    } catch (error) {
      const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes(entry);
      throw new HostError(
        'start',
        missing
          ? `the transpiled component is missing (${entry}): run \`npm run transpile\` in hosts/js`
          : `could not load the transpiled component ${entry}: ${error.message}`,
        { cause: error },
      );
    }
    const modules = new Map();
    for (const name of ['read_window.core.wasm', 'read_window.core2.wasm', 'read_window.core3.wasm']) {
      try {
        modules.set(name, await WebAssembly.compile(readFileSync(join(dir, name))));
      } catch (error) {
        throw new HostError('start', `could not compile ${join(dir, name)}: ${error.message}`, { cause: error });
      }
    }
    return new ReadWindow(bindings.instantiate, modules);
  }

  /**
   * Starts a session over `grants` with `config`: an instance of its own and the component's `session` resource.
   *
   * @param {Grants} grants The directories the session may read (read-only).
   * @param {Config} [config] Absent fields take the component's defaults; invalid values are replaced by defaults
   *   and reported once as a warning on the first window.
   * @returns {Session}
   * @throws {HostError} kind `start`: a grant is not a directory, or instantiation or the constructor failed.
   * @throws {InvalidRequestError} The config has an unknown field or a value its WIT type cannot hold.
   */
  session(grants, config = {}, options = {}) {
    const writable = options.writable === undefined ? [] : normalizeGrants(options.writable);
    return new Session(this, [...normalizeGrants(grants), ...writable], parseConfig(config), new Set(writable.map(([, host]) => host)));
  }

  /**
   * Reads one window with no session memory, in an instance of its own that is dropped afterwards.
   *
   * @param {Grants} grants
   * @param {Config | null | undefined} config
   * @param {string | ({path: string} & ReadOptions)} pathOrRequest A guest path (absolute, or relative to the
   *   working directory), or a request object with `path`.
   * @param {ReadOptions} [options]
   * @returns {WindowAnswer | ErrorAnswer}
   * @throws {HostError} The instance could not start (`start`) or the call trapped (`trap`).
   * @throws {InvalidRequestError} The config is malformed (a malformed request is an error answer).
   */
  readOnce(grants, config, pathOrRequest, options) {
    const record = parseConfig(config);
    const pairs = normalizeGrants(grants);
    let request;
    try {
      request = parseRequest(readArguments(pathOrRequest, options));
    } catch (error) {
      if (error instanceof InvalidRequestError) return error.answer;
      throw error;
    }
    const linked = throughLinks(pairs, record, request);
    if (linked.answer) return linked.answer;
    const opened = openGrants(pairs, new Set());
    try {
      const instance = this._instantiate(opened);
      return withNotes(windowAnswer(instance.reader.readOnce(record, readRequest(linked.request))), request.notes);
    } catch (error) {
      if (isComponentError(error)) return errorAnswer(error.payload);
      if (error instanceof HostError) throw error;
      throw trapError(error);
    } finally {
      opened.close();
    }
  }

  /**
   * An instance of the component whose only filesystem is `grants`, with its core memories and the preopens it
   * was given.
   *
   * @param {import('./grants.js').OpenedGrants} grants The session's granted directories ({@link openGrants}).
   * @returns {{reader: any, memories: WebAssembly.Memory[], preopens: [object, string][]}}
   * @throws {HostError} kind `start`: the instantiation failed.
   * @internal
   */
  _instantiate(grants) {
    const { preopens } = grants;
    const imports = {
      ...this.#imports,
      ...(grants.types === undefined ? {} : { 'wasi:filesystem/types': grants.types }),
      'wasi:filesystem/preopens': { getDirectories: () => preopens.slice() },
    };
    const memories = [];
    const instantiateCore = (module, importObject) => {
      const instance = new WebAssembly.Instance(module, importObject);
      if (instance.exports.memory instanceof WebAssembly.Memory) memories.push(instance.exports.memory);
      return instance;
    };
    // jco 1.35's bindings probe `WebAssembly.promising` (JSPI) five times per instantiation in try/catch. Where it
    // is missing (Node 20), V8 builds each TypeError's message by re-parsing the 8,000-line instantiation function,
    // about 4 ms apiece. A stand-in that throws takes the same catch path, cheaply; it is removed right after.
    const stubbed = !('promising' in WebAssembly);
    if (stubbed) {
      WebAssembly.promising = () => {
        throw new TypeError('WebAssembly.promising is not available');
      };
    }
    try {
      const root = this.#instantiate((name) => this.#modules.get(name), imports, instantiateCore);
      return { reader: root[EXPORT_NAME], memories, preopens };
    } catch (error) {
      throw new HostError('start', `could not instantiate the read-window component: ${describe(error)}`, { cause: error });
    } finally {
      if (stubbed) delete WebAssembly.promising;
    }
  }
}

/**
 * `request` with its path through the host's rule for absolute links (README, "Absolute links"; WASI cannot
 * follow them; a path under a root given through a link is first rewritten onto its guest path, `ontoGuest`):
 * `{request}` to hand the component (with `askedVia`, the path asked for and the links crossed, when its path
 * was resolved), or `{answer}` (`outside_sandbox`) for a link out of every grant.
 */
function throughLinks(pairs, record, request) {
  const asked = ontoGuest(pairs, request.path);
  const resolved = resolveAbsoluteLinks(pairs, record.workingDirectory ?? undefined, asked);
  if ('answer' in resolved) return { answer: withNotes(resolved.answer, request.notes) };
  if (resolved.askedVia !== undefined) return { request: { ...request, path: resolved.path, askedVia: resolved.askedVia } };
  return { request: resolved.path === request.path ? request : { ...request, path: resolved.path } };
}

/**
 * `answer` with `notes` (how a read's arguments were read) added to its `warnings` and, a line each, to the end of
 * its `text` (json.rs `with_notes`).
 */
function withNotes(answer, notes) {
  if (notes && notes.length > 0) {
    answer.warnings = [...(answer.warnings ?? []), ...notes];
    if (typeof answer.text === 'string') answer.text += notes.map((note) => `\n${note}`).join('');
  }
  return answer;
}

function isComponentError(error) {
  return error instanceof Error && Object.hasOwn(error, 'payload') && error.constructor?.name === 'ComponentError';
}

function describe(error) {
  if (error instanceof Error) return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
  return String(error);
}

/** A trap (or a guest exit) as a HostError; `after` says what became of the session. */
function trapError(error, after, restarted = false) {
  const what = error instanceof GuestExit ? error.message : `the read-window component trapped: ${describe(error)}`;
  return new HostError('trap', after ? `${what}; ${after}` : what, { sessionRestarted: restarted, cause: error });
}

// ---------------------------------------------------------------------------------------------------------------
// Sessions

/**
 * A reading session: one instance of the component and one `session` resource in it. It remembers what it
 * returned (dedup stubs, the loop tripwire, the count of misses) and each file's line index; sessions share
 * nothing. Start one with {@link ReadWindow#session}.
 *
 * Every method answers a plain object in the Rust host's JSON shape. Read errors and malformed arguments are
 * error answers; a host failure throws {@link HostError} (after a trap the session is restarted, its state lost).
 */
export class Session {
  #reader;
  #grants;
  #config;
  #live;
  #peakBefore = 0;
  #restarts = 0;

  #writable;
  #opened = null;

  /** @private Use {@link ReadWindow#session}. */
  constructor(reader, grants, config, writable = new Set()) {
    this.#reader = reader;
    this.#grants = grants;
    this.#config = config;
    this.#writable = writable;
    try {
      this.#live = this.#start();
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** A fresh instance and session resource, over the grants opened at the first start (or after `close()`). */
  #start() {
    this.#opened ??= openGrants(this.#grants, this.#writable);
    const instance = this.#reader._instantiate(this.#opened);
    try {
      return { ...instance, session: new instance.reader.Session(this.#config) };
    } catch (error) {
      throw new HostError('start', `the session constructor failed: ${describe(error)}`, { cause: error });
    }
  }

  /** Runs `f(live)`; after a trap, restarts the instance and throws. */
  #call(f) {
    if (this.#live === null) this.#live = this.#start();
    const live = this.#live;
    try {
      return f(live);
    } catch (error) {
      if (isComponentError(error)) throw error;
      this.#peakBefore = Math.max(this.#peakBefore, peakOf(live));
      this.#live = null;
      this.#restarts += 1;
      try {
        this.#live = this.#start();
      } catch (restart) {
        throw trapError(error, `restarting the session failed too (${restart.message}); the next call tries again, and the session's state is lost`);
      }
      throw trapError(error, `the session was restarted: ${STATE_LOST}`, true);
    }
  }

  /** Runs a fallible method of the resource: its error payload becomes an error answer. */
  #fallible(f, ok) {
    try {
      return ok(this.#call(f));
    } catch (error) {
      if (isComponentError(error)) return errorAnswer(error.payload);
      throw error;
    }
  }

  /**
   * Begins capturing a command's output in this session's instance (the component's `capture` resource), so reads
   * of its spill can be interleaved; a capture still open is dropped. Grant the spill directory with
   * `reader.session(grants, config, {writable: [dir]})`; without `spill_dir`, the spill goes to the session's
   * writable directory when it has exactly one (as the Rust host does).
   *
   * @param {{window_chars?: number, head_share?: number, spill_dir?: string, spill_cap_chars?: number}} [config]
   *   Characters of head and tail (default 50,000), the head's share (0 to 0.9, default 0.4), the guest directory
   *   of the spill file, the spill's cap in characters (default 5,000,000).
   * @returns {NoteAnswer | ErrorAnswer} `invalid_request` for an unknown field or a value of the wrong type.
   * @throws {HostError}
   */
  captureBegin(config = {}) {
    const writableGuests = this.#grants.filter(([, host]) => this.#writable.has(host)).map(([guest]) => guest);
    if ((config === null || config === undefined || isObject(config)) && writableGuests.length === 1) {
      if (config?.spill_dir === undefined || config?.spill_dir === null) {
        config = { ...(config ?? {}), spill_dir: writableGuests[0] };
      }
    }
    let record;
    try {
      record = captureConfig(config);
    } catch (error) {
      if (error instanceof InvalidRequestError) return error.answer;
      throw error;
    }
    this.#call((live) => {
      live.capture?.[Symbol.dispose]?.();
      live.capture = new live.reader.Capture(record);
    });
    return { ...NOTE };
  }

  /**
   * Pushes a chunk of the command's raw output (a Uint8Array, or a string sent as UTF-8; split anywhere).
   * @param {Uint8Array | string} chunk
   * @returns {NoteAnswer | ErrorAnswer} `invalid_request` when no capture is open.
   * @throws {HostError}
   */
  captureChunk(chunk) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    if (!(bytes instanceof Uint8Array)) return new InvalidRequestError(`a chunk must be bytes or a string, not ${typeof chunk}`).answer;
    if (!this.#live?.capture) return new InvalidRequestError(NO_CAPTURE).answer;
    return this.#fallible((live) => live.capture.push(bytes), () => ({ ...NOTE }));
  }

  /**
   * Ends the open capture with the command's exit status and returns its window (the JSON shape of
   * `host-test/src/capture.rs`); the capture is closed.
   * @param {number | null} [exitStatus]
   * @returns {object} The capture answer, or an error answer.
   * @throws {HostError}
   */
  captureEnd(exitStatus = null) {
    if (exitStatus !== null && exitStatus !== undefined && !(Number.isInteger(exitStatus) && exitStatus >= -(2 ** 31) && exitStatus < 2 ** 31)) {
      return new InvalidRequestError(`\`exit_status\` must be a 32-bit integer, not ${JSON.stringify(exitStatus)}`).answer;
    }
    if (!this.#live?.capture) return new InvalidRequestError(NO_CAPTURE).answer;
    return this.#fallible(
      (live) => {
        try {
          return live.capture.finish(exitStatus ?? undefined);
        } finally {
          live.capture[Symbol.dispose]?.();
          live.capture = null;
        }
      },
      captureAnswer,
    );
  }

  /**
   * Reads a window: its content, a stub when this session already returned it unchanged (dedup), or an error.
   *
   * @param {string | ({path: string} & ReadOptions)} pathOrRequest A guest path (absolute, or relative to the
   *   working directory), or `{path, offset?, limit?, column?, tail?, extract?}`.
   * @param {ReadOptions} [options] With a path: `{offset?, limit?, column?, tail?, extract?}`.
   * @returns {WindowAnswer | StubAnswer | ErrorAnswer}
   * @throws {HostError}
   */
  read(pathOrRequest, options) {
    return this.#answerOrInvalid(() => this.#run(parseRequest(readArguments(pathOrRequest, options))));
  }

  /**
   * Reads one window with no session memory (the component's `read-once`) in this session's instance, with the
   * session's config or `config`; the session's own state is not touched.
   *
   * @param {string | ({path: string} & ReadOptions)} pathOrRequest
   * @param {ReadOptions} [options]
   * @param {Config} [config] Default: the session's config.
   * @returns {WindowAnswer | ErrorAnswer}
   * @throws {HostError}
   * @throws {InvalidRequestError} `config` is malformed.
   */
  readOnce(pathOrRequest, options, config) {
    const record = config === undefined ? this.#config : parseConfig(config);
    return this.#answerOrInvalid(() => {
      const request = parseRequest(readArguments(pathOrRequest, options));
      const linked = throughLinks(this.#grants, record, request);
      if (linked.answer) return linked.answer;
      return this.#fallible(
        (live) => live.reader.readOnce(record, readRequest(linked.request)),
        (result) => withNotes(windowAnswer(result), request.notes),
      );
    });
  }

  /**
   * The host ran a tool other than a read: the tripwire starts over (identical reads, cycles, the count of misses
   * of each missing path); the dedup memory stays.
   * @returns {NoteAnswer}
   * @throws {HostError}
   */
  otherTool() {
    return this.#run({ op: 'other_tool' });
  }

  /**
   * The host compacted the model's context: the next read of any window returns full content, and the count of
   * misses of each missing path starts over.
   * @returns {NoteAnswer}
   * @throws {HostError}
   */
  resetDedup() {
    return this.#run({ op: 'reset_dedup' });
  }

  /**
   * The host wrote or patched `path` (a guest path): its dedup entries, count of misses and line index are
   * forgotten.
   * @param {string} path
   * @returns {NoteAnswer | ErrorAnswer}
   * @throws {HostError}
   */
  wrote(path) {
    return this.answer({ op: 'wrote', path }, { throwHostErrors: true });
  }

  /**
   * Checks text the model wants written to `path`: an `echoed_output` error when it contains a stub, a block
   * message or a marker this component produced, or a window pasted back with its `N|` gutters.
   * @param {string} path
   * @param {string} text
   * @returns {NoteAnswer | ErrorAnswer}
   * @throws {HostError}
   */
  checkWrite(path, text) {
    return this.answer({ op: 'check_write', path, text }, { throwHostErrors: true });
  }

  /**
   * Reports the real token count of a window the model received (`offset`, `lines` from the window: its
   * `start_line` and `lines_returned`), so later windows of that file are estimated at the learned density.
   * @param {string} path
   * @param {number | bigint} offset The window's first line (1-based).
   * @param {number | bigint} lines The window's line count.
   * @param {number | bigint} tokens The tokens it really took.
   * @returns {NoteAnswer | ErrorAnswer}
   * @throws {HostError}
   */
  reportTokens(path, offset, lines, tokens) {
    return this.answer({ op: 'report_tokens', path, offset, lines, tokens }, { throwHostErrors: true });
  }

  /**
   * Hands the session an engine's refusal `message` (like "(N tokens) exceeds maximum allowed tokens (M)") for
   * the window `offset`/`limit` of `path`; answers the window that fits.
   * @param {string} path
   * @param {number | bigint} offset The refused window's first line (1-based).
   * @param {number | bigint} limit The refused window's limit in lines.
   * @param {string} message
   * @returns {RetryAnswer | ErrorAnswer}
   * @throws {HostError}
   */
  tokenRefusal(path, offset, limit, message) {
    return this.answer({ op: 'token_refusal', path, offset, limit, message }, { throwHostErrors: true });
  }

  /**
   * The session's counters: positioned reads, indexed files and index bytes (since the last restart), and the
   * peak linear memory over the session's life.
   * @returns {StatsAnswer}
   * @throws {HostError}
   */
  stats() {
    return this.#run({ op: 'stats' });
  }

  /**
   * The largest linear memory, in bytes, of this session's instances (restarts included).
   * @returns {number}
   */
  peakMemoryBytes() {
    return Math.max(this.#peakBefore, this.#live ? peakOf(this.#live) : 0);
  }

  /** How many times the session was restarted after a trap. @returns {number} */
  restarts() {
    return this.#restarts;
  }

  /**
   * Answers one request of the session protocol (see {@link parseRequest}), with its `id` (when it has one) as
   * the first key. Never throws by default: a malformed request is an `invalid_request` answer, a host failure a
   * `host_error` answer ({@link HostError#toJSON}).
   *
   * @param {unknown} value The request object, e.g. `{op: "read", path: "a.txt", limit: 20}`.
   * @param {{throwHostErrors?: boolean}} [options] Throw {@link HostError} instead of answering it.
   * @returns {object} The answer.
   */
  answer(value, { throwHostErrors = false } = {}) {
    const id = isObject(value) && Object.hasOwn(value, 'id') ? { id: value.id } : {};
    let answer;
    try {
      answer = this.#answerOrInvalid(() => this.#run(parseRequest(value)));
    } catch (error) {
      if (throwHostErrors || !(error instanceof HostError)) throw error;
      answer = error.toJSON();
    }
    return { ...id, ...answer };
  }

  /**
   * Drops the session resource and its instance, and closes the granted directories. Later calls start a fresh
   * session (state lost), with the grants opened anew by their host paths.
   */
  close() {
    const live = this.#live;
    this.#live = null;
    if (live) {
      this.#peakBefore = Math.max(this.#peakBefore, peakOf(live));
      live.session[Symbol.dispose]?.();
    }
    this.#opened?.close();
    this.#opened = null;
  }

  [Symbol.dispose]() {
    this.close();
  }

  #answerOrInvalid(f) {
    try {
      return f();
    } catch (error) {
      if (error instanceof InvalidRequestError) return error.answer;
      throw error;
    }
  }

  /** Runs a parsed request; the answer has no `id`. */
  #run(request) {
    switch (request.op) {
      case 'capture_begin':
        return this.captureBegin(request.config);
      case 'capture_chunk':
        return this.captureChunk(request.bytes);
      case 'capture_end':
        return this.captureEnd(request.exitStatus);
      case 'read': {
        const linked = throughLinks(this.#grants, this.#config, request);
        if (linked.answer) return linked.answer;
        return this.#fallible(
          (live) => live.session.read(readRequest(linked.request)),
          (outcome) =>
            withNotes(outcome.tag === 'window' ? windowAnswer(outcome.val) : stubAnswer(outcome.val), request.notes),
        );
      }
      case 'other_tool':
        this.#call((live) => live.session.noteOtherTool());
        return { ...NOTE };
      case 'reset_dedup':
        this.#call((live) => live.session.resetDedup());
        return { ...NOTE };
      case 'wrote':
        this.#call((live) => live.session.wrote(request.path));
        return { ...NOTE };
      case 'check_write': {
        // The path goes through the absolute links on its way as a read's does; out of every grant, outside_sandbox.
        const linked = throughLinks(this.#grants, this.#config, { path: request.path, notes: [] });
        if (linked.answer) return linked.answer;
        const path = linked.request.path;
        return this.#fallible((live) => live.session.checkWrite(path, request.text), () => ({ ...NOTE }));
      }
      case 'report_tokens':
        return this.#fallible(
          (live) => live.session.reportTokens(request.path, request.offset, request.lines, request.tokens),
          () => ({ ...NOTE }),
        );
      case 'token_refusal':
        return this.#fallible(
          (live) => live.session.tokenRefusal(request.path, request.offset, request.limit, request.message),
          (retry) => ({
            status: 'ok',
            offset: Number(retry.offset),
            limit: Number(retry.limit),
            refused_tokens: Number(retry.refusedTokens),
            cap_tokens: Number(retry.capTokens),
            hint: retry.hint,
          }),
        );
      case 'stats': {
        const stats = this.#call((live) => live.session.stats());
        return {
          status: 'ok',
          positioned_reads: Number(stats.positionedReads),
          indexed_files: Number(stats.indexedFiles),
          index_bytes: Number(stats.indexBytes),
          peak_memory_bytes: this.peakMemoryBytes(),
        };
      }
      default:
        throw new InvalidRequestError(`unknown \`op\` ${JSON.stringify(request.op)}`);
    }
  }
}

/** The error of a capture op with no capture open. */
const NO_CAPTURE = 'no capture is open; send capture_begin first.';

/** The fields of `capture_begin`: the WIT `capture-config` record in snake_case. */
const CAPTURE_CONFIG_FIELDS = ['window_chars', 'head_share', 'spill_dir', 'spill_cap_chars'];

/** The WIT `capture-config` record for a config object with snake_case fields; InvalidRequestError names the field. */
function captureConfig(config) {
  if (config === null || config === undefined) config = {};
  if (!isObject(config)) throw new InvalidRequestError('the capture config must be a JSON object');
  for (const key of Object.keys(config)) {
    if (!CAPTURE_CONFIG_FIELDS.includes(key)) {
      throw new InvalidRequestError(`unknown field \`${key}\` for op \`capture_begin\`; its fields are: ${CAPTURE_CONFIG_FIELDS.join(', ')}`);
    }
  }
  const integer = (field, max) => {
    const value = config[field];
    if (value === undefined || value === null) return undefined;
    if (!Number.isInteger(value) || value < 0 || value > max) {
      throw new InvalidRequestError(`\`${field}\` must be a non-negative integer, not ${JSON.stringify(value)}`);
    }
    return value;
  };
  const share = config.head_share;
  if (share !== undefined && share !== null && typeof share !== 'number') {
    throw new InvalidRequestError(`\`head_share\` must be a number from 0 to 0.9, not ${JSON.stringify(share)}`);
  }
  const dir = config.spill_dir;
  if (dir !== undefined && dir !== null && typeof dir !== 'string') {
    throw new InvalidRequestError(`\`spill_dir\` must be a guest path (a string), not ${JSON.stringify(dir)}`);
  }
  const cap = integer('spill_cap_chars', Number.MAX_SAFE_INTEGER);
  return {
    windowChars: integer('window_chars', 4294967295),
    headShare: share ?? undefined,
    spillDir: dir ?? undefined,
    spillCapChars: cap === undefined ? undefined : BigInt(cap),
  };
}

function peakOf(live) {
  return live.memories.reduce((peak, memory) => Math.max(peak, memory.buffer.byteLength), 0);
}
