/// <reference lib="esnext.disposable" />
// Types of the read-window JavaScript host (index.js). The requests and answers are those of the component's session
// protocol (docs/protocol.md in the repository): every answer is the component's JSON, parsed, so the types below
// name the fields a caller reads and leave room for fields a newer component adds.

/** Where a window's cursor stands: a Number, a BigInt for a u64 beyond 2^53, or what a model sent (`"40"`). */
export type Position = number | bigint | string;

/**
 * The directories a session may read, read-only: a host directory (seen at its real absolute path), a list of
 * them, or `{guestPath: hostDir}` (`{"/workspace": "./repo"}`). The first is the default working directory.
 */
export type Grants = string | string[] | Record<string, string>;

/** The budget of one window: characters of formatted content, or estimated tokens (`headroom`: 0.5 to 1). */
export type Budget = { characters: number } | { tokens: { cap?: number; headroom?: number } };

/** A session's config (docs/protocol.md, "Config"); every field optional, out-of-range values fall back with a warning. */
export interface Config {
  max_lines?: number;
  max_line_length?: number;
  budget?: Budget;
  working_directory?: string;
  dedup?: boolean;
  loop_warn_at?: number;
  loop_block_at?: number;
  not_found_ttl_ms?: number;
  deny_patterns?: string[];
  allow_patterns?: string[];
  /** Names of ignore files whose rules refuse paths as `ignored`, as git applies them (`[".gitignore"]`). */
  ignore_files?: string[];
  /** Show tag, bidi and zero-width characters as `⟪U+XXXX⟫` (default true); false leaves them raw, still reported. */
  escape_invisible?: boolean;
  /** Read PNG, JPEG, GIF, WebP and BMP files as images (default true); false refuses them as `binary`. */
  images?: boolean;
}

/** A rectangle of an image in original pixels: an image's cursor. */
export interface PixelRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where a read starts and how much it takes: lines 1-based, columns 0-based, `tail` the last N lines. */
export interface ReadOptions {
  offset?: Position;
  limit?: Position;
  column?: Position;
  tail?: Position;
  /** false: a document's own bytes (a notebook as its JSON) instead of its extracted text. */
  extract?: boolean;
  /** true: the content even when this session returned the window unchanged before (never a stub). */
  fresh?: boolean;
  /** For an image: the part to show, in original pixels (default the whole image). */
  region?: PixelRegion;
  /** For a directory: the levels its listing shows (default 1). */
  depth?: Position;
  /** true: the window on its own as `content` too (it is always in `text`). */
  content?: boolean;
  id?: unknown;
}

/** A read request as one object. */
export interface ReadRequest extends ReadOptions {
  path: string;
}

/** Every answer: `status`, the request's `id` first when it had one, and the fields of its op. */
export interface Answer {
  id?: unknown;
  status: 'ok' | 'unchanged' | 'error';
  [field: string]: unknown;
}

/** A line cut at `max_line_length`: its rest is read with `{offset: line, column: next_column, limit: 1}`. */
export interface ClampedLine {
  line: number;
  shown_chars: number;
  total_chars: number;
  next_column: number;
}

/** How the file's bytes were decoded. */
export interface Encoding {
  encoding: string;
  bom: boolean;
  origin: 'declared' | 'detected';
  line_endings: 'none' | 'lf' | 'crlf' | 'mixed' | 'cr';
  replaced_invalid: number;
}

/** A window: `text`, what the model should see (its lines with the `N|` gutter, then the hint), the cursor to
 * continue, and `content`, the lines alone, when the read asked for it. */
export interface WindowAnswer extends Answer {
  status: 'ok';
  content_returned: true;
  content?: string;
  path: string;
  start_line: number;
  start_column: number;
  end_line: number;
  lines_returned: number;
  total_lines: number;
  truncated: boolean;
  truncated_by: Array<'limit' | 'budget' | 'line_length' | 'mid_line'>;
  next_offset: number | null;
  next_column: number | null;
  clamped_lines: ClampedLine[];
  hint: string;
  file_size: number;
  encoding: Encoding;
  budget: { unit: 'characters' | 'tokens'; limit: number; used: number; cap?: number };
  warnings?: string[];
  document?: Record<string, unknown>;
  /** Absent: a window of lines is no image (`window.image === undefined` tells it from an {@link ImageAnswer}). */
  image?: undefined;
  /** Absent: a window of lines is no listing (`window.listing === undefined` tells it from a {@link ListingAnswer}). */
  listing?: undefined;
  text: string;
}

/** A window of an image: the picture in `data` (decoded from the protocol's base64), `hint` and `text`. */
export interface ImageAnswer extends Answer {
  status: 'ok';
  content_returned: true;
  path: string;
  image: {
    mime_type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
    width: number;
    height: number;
    original_width: number;
    original_height: number;
    scale: number;
    region: PixelRegion;
    frames: number;
  };
  data: Uint8Array;
  hint: string;
  file_size: number;
  warnings?: string[];
  listing?: undefined;
  text: string;
}

/** A page of a directory's listing (a read of a directory): one `N|name` line an entry and the census. */
export interface ListingAnswer extends Answer {
  status: 'ok';
  content_returned: true;
  content?: string;
  path: string;
  listing: true;
  depth: number;
  /** Entries in the whole listing at this depth, exact on every page. */
  total_entries: number;
  entries: { files: number; directories: number; links: number; other: number; not_readable: number };
  offset: number;
  entries_returned: number;
  next_offset: number | null;
  truncated: boolean;
  truncated_by: Array<'limit' | 'budget'>;
  hint: string;
  budget: { unit: 'characters' | 'tokens'; limit: number; used: number; cap?: number };
  warnings?: string[];
  image?: undefined;
  text: string;
}

/** A file's answer inside a `read_many`: its `content` and `text` only when the call asked for `content`. */
export type ManyFileAnswer<T> = T extends unknown
  ? Omit<T, 'content' | 'text'> & { requested: string; content?: string; text?: string }
  : never;

/** The answer to a `read_many`: each file's answer in order (its window in the answer's `text`) and the files the
 * budget left out. */
export interface ReadManyAnswer extends Answer {
  status: 'ok';
  files: Array<ManyFileAnswer<ReadAnswer>>;
  left_out: Array<{ path: string; arguments: { path: string } }>;
  budget: { unit: 'characters' | 'tokens'; limit: number; used: number; cap?: number };
  hint: string;
  warnings?: string[];
  text: string;
}

/** A page of a search's matches (`path:N|line`) and the census of the whole search. */
export interface SearchAnswer extends Answer {
  status: 'ok';
  content?: string;
  path: string;
  pattern: string;
  total_matches: number;
  files_with_matches: number;
  files_searched: number;
  skipped: { binary: number; credential: number; ignored: number; too_large: number; unreadable: number };
  /** false: the time limit stopped the search, and the counts cover the files searched before it. */
  complete: boolean;
  stopped_before: string | null;
  offset: number;
  matches_returned: number;
  next_offset: number | null;
  hint: string;
  warnings?: string[];
  text: string;
}

/** How a search matches: `regex` for a regular expression, case, context lines, and the page. */
export interface SearchOptions {
  path?: string;
  regex?: boolean;
  case_sensitive?: boolean;
  context?: Position;
  offset?: Position;
  limit?: Position;
  /** true: the page's lines on their own as `content` too (they are always in `text`). */
  content?: boolean;
  id?: unknown;
}

/** A repeated read of an unchanged window: no content, a `message` naming the call that continues. */
export interface StubAnswer extends Answer {
  status: 'unchanged';
  content_returned: false;
  dedup: true;
  path: string;
  start_line: number;
  end_line: number;
  total_lines: number;
  next_offset: number | null;
  next_column: number | null;
  /** For an image: the region the earlier result showed. */
  region?: PixelRegion;
  message: string;
  text: string;
}

/** What went wrong: a read error's `kind` (`not_found`, `outside_sandbox`, `invalid_request`, ...) or `host_error`. */
export interface ErrorInfo {
  kind: string;
  message: string;
  path?: string;
  suggestions?: string[];
  already_read?: unknown;
  total_lines?: number;
  /** `host_error` only: why the host could not run the request. */
  cause?: 'trap' | 'start' | 'deadline' | 'memory_limit';
  /** `host_error` only: whether the session was restarted (its state lost). */
  session_restarted?: boolean;
}

/** A refusal, a malformed request or a host failure. */
export interface ErrorAnswer extends Answer {
  status: 'error';
  content_returned?: false;
  error: ErrorInfo;
  text: string;
}

/** The answer to a `read` or `read_once` (a directory's is a {@link ListingAnswer}). */
export type ReadAnswer = WindowAnswer | ImageAnswer | ListingAnswer | StubAnswer | ErrorAnswer;

/** The `stats` answer. */
export interface StatsAnswer extends Answer {
  status: 'ok';
  positioned_reads: number;
  indexed_files: number;
  index_bytes: number;
  peak_memory_bytes: number;
}

/** The fields of `capture_begin`. */
export interface CaptureOptions {
  window_chars?: number;
  head_share?: number;
  spill_dir?: string;
  spill_cap_chars?: number;
}

/** The host's own failure: the component did not load or a session did not start. */
export class HostError extends Error {
  constructor(kind: 'start', message: string, options?: { cause?: unknown });
  readonly name: 'HostError';
  readonly kind: 'start';
}

/** The directory `npm run transpile` writes the transpiled component to (the package's `generated/`). */
export const GENERATED_DIR: string;

/** Whether this host's race-free `wasi:filesystem` holds here (Linux with /proc); elsewhere preview2-shim's, checked. */
export function isRaceFree(): boolean;

/** The loaded component: its compiled core modules, instantiated anew for every session. */
export class ReadWindow {
  private constructor();
  /** Loads the transpiled component from `dir` (default {@link GENERATED_DIR}). @throws {HostError} `start`. */
  static load(options?: { dir?: string }): Promise<ReadWindow>;
  /** A session over `grants` (read-only; `writable`: read-write for a capture's spill). @throws {HostError} `start`. */
  session(grants: Grants, config?: Config | string | null, options?: { writable?: Grants }): Session;
  /** A `read_once` in a session of its own, closed after. @throws {HostError} `start`. */
  readOnce(grants: Grants, config: Config | string | null | undefined, path: string, options?: ReadOptions): ReadAnswer;
  readOnce(grants: Grants, config: Config | string | null | undefined, request: ReadRequest): ReadAnswer;
  /** One request in a session of no directories (`tools`, `config`, `mcp_server`, `mcp_roots`). @throws {HostError} */
  request(request: object | string, config?: Config | string | null): Answer;
  /** The component's `host-error` answer (JSON text) to the request `text` that the host could not run. */
  hostError(text: string, cause: 'start' | 'trap', message: string, restarted?: boolean): string;
}

/** A reading session: an instance of the component of its own; every method returns the component's answer. */
export class Session {
  private constructor();
  /** Any request (an object is sent as JSON, a BigInt as an integer); the answer parsed. */
  request(request: object | string): Answer;
  /** Any request as JSON text; the answer as JSON text. @throws {TypeError} when `text` is not a string. */
  answer(text: string): string;
  /** `read`: a window, a stub or an error. */
  read(path: string, options?: ReadOptions): ReadAnswer;
  read(request: ReadRequest): ReadAnswer;
  /** `read_once`: the session's config, none of its memory. */
  readOnce(path: string, options?: ReadOptions): ReadAnswer;
  readOnce(request: ReadRequest): ReadAnswer;
  /** `read_many`: several files (paths or glob patterns) in order under one budget. */
  readMany(paths: string[], options?: { limit?: Position; fresh?: boolean; content?: boolean; id?: unknown }): ReadManyAnswer | ErrorAnswer;
  /** `search`: a page of the pattern's matches and the census. */
  search(pattern: string, options?: SearchOptions): SearchAnswer | ErrorAnswer;
  /** `other_tool`: the host ran another tool (the loop tripwire starts over). */
  otherTool(): Answer;
  /** `reset_dedup`: the model's context was compacted. */
  resetDedup(): Answer;
  /** `wrote`: the host wrote or patched `path`. */
  wrote(path: string): Answer;
  /** `check_write`: `ok`, or an `echoed_output`, `stale` or `binary_document` error. */
  checkWrite(path: string, text: string): Answer | ErrorAnswer;
  /** `report_tokens`: the real token count of a window. */
  reportTokens(path: string, offset: Position, lines: Position, tokens: Position): Answer;
  /** `token_refusal`: an engine refused a window; the answer is a smaller one to retry. */
  tokenRefusal(path: string, offset: Position, limit: Position, message: string): Answer;
  /** `stats`: the session's counters and its peak linear memory. */
  stats(): StatsAnswer;
  /** `capture_begin`. */
  captureBegin(fields?: CaptureOptions): Answer;
  /** A chunk of a command's output: bytes, or text. */
  captureChunk(chunk: Uint8Array | string): Answer;
  /** `capture_end`: the capture's window (`text`, `spill_path`, `omitted_first_line`, ...; `content` with
   * `{content: true}`). */
  captureEnd(exitStatus?: number | null, options?: { content?: boolean }): Answer;
  /** How many times the session was restarted after a trap. */
  restarts(): number;
  /** Drops the instance and closes the directories; a later call starts afresh. */
  close(): void;
  [Symbol.dispose](): void;
}
