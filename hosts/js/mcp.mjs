#!/usr/bin/env node
// `read-window-mcp`: the read-window component as an MCP (Model Context Protocol) server on stdin and stdout, over
// the official TypeScript SDK's low-level `Server` and its stdio transport. One connection (one process) is one
// read-window session: dedup stubs, the loop tripwire, the misses and the line indexes last as long as the client
// stays connected.
//
//   npx read-window-mcp --root /path/to/project [--root DIR ...] [--max-tokens N ...]
//
// Everything the server says is the component's (docs/protocol.md, "MCP servers"): `mcp_server` gives the name,
// version, instructions and the two tools (read_file, check_write) and sets the MCP default budget; `mcp_roots`
// says which directories a connection reads (the --root options, else the client's roots, else the current
// directory, never `/` or the home directory); a `tools/call` goes to `tool_call` with `"reply":"mcp"` as the
// client sent it, and the component's CallToolResult comes back as it is. This file only moves messages, asks the
// client for its roots and grants what the component names.
//
// It refuses to start where the JavaScript host's race-free file system does not hold (hosts/js/README.md, "The
// sandbox under races": Linux with /proc only), since an MCP server reads for a model that anyone's files may steer.

import { readFileSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  ErrorCode, ListToolsRequestSchema, McpError, RootsListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { normalizeGrants } from './grants.js';
import { HostError, ReadWindow, isRaceFree } from './index.js';
import { toJson } from './json.js';

/** How long the server waits for the client's answer to `roots/list`, in milliseconds (as the Rust server). */
const ROOTS_TIMEOUT_MS = 10_000;

/** The command-line options: `--root` and one option per config field the Rust `read-window mcp` takes. */
const OPTIONS = {
  root: { type: 'string', multiple: true, default: [] },
  config: { type: 'string' },
  'max-lines': { type: 'string' },
  'max-line-length': { type: 'string' },
  'max-chars': { type: 'string' },
  'max-tokens': { type: 'string' },
  'token-headroom': { type: 'string' },
  cwd: { type: 'string' },
  'no-dedup': { type: 'boolean' },
  'loop-warn-at': { type: 'string' },
  'loop-block-at': { type: 'string' },
  'not-found-ttl-ms': { type: 'string' },
  deny: { type: 'string', multiple: true },
  allow: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
};

const USAGE = `usage: read-window-mcp [--root DIR]... [options]

Serves MCP on stdin and stdout: the tools read_file and check_write, one session per connection.
The directories are the --root options (read-only); without any, the roots the client offers (file:// URIs);
with neither, the current directory, but never / or the home directory.

  --root DIR              a directory the model may read (repeatable)
  --config FILE           a JSON config file (docs/protocol.md, "Config"); the options below override its fields
  --max-lines N           lines per window at most
  --max-line-length N     characters shown of one line before it is clamped
  --max-chars N           a budget of N characters per window (not with --max-tokens)
  --max-tokens N          a budget of N estimated tokens per window (default in MCP: 20000)
  --token-headroom F      the share of the token cap a window aims at
  --cwd DIR               the directory relative paths resolve against (default: the first root)
  --no-dedup              never answer a repeated window with an "unchanged" stub
  --loop-warn-at N, --loop-block-at N, --not-found-ttl-ms MS, --deny GLOB..., --allow GLOB...
  -h, --help, -V, --version`;

/** A usage error: the message goes to stderr, exit status 2. */
class UsageError extends Error {}

/** An option's value as the config takes it: a JSON number when the text is one, else the text (the component
 * refuses a wrong type, naming the field). */
const value = (text) => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text);

/**
 * The roots and the config the command line gives: `{roots: string[], config: object}`, the options' fields over
 * the `--config` file's. @param {string[]} argv @returns {{roots: string[], config: object, help?: true,
 * version?: true}} @throws {UsageError} an unknown option, a file that is not JSON, --max-chars with a token option.
 */
function parseOptions(argv) {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(`${error.message}\n${USAGE}`);
  }
  if (values.help || values.version) return { roots: [], config: {}, help: values.help, version: values.version };
  const config = values.config === undefined ? {} : configFile(values.config);
  const tokens = values['max-tokens'] !== undefined || values['token-headroom'] !== undefined;
  if (values['max-chars'] !== undefined && tokens) {
    throw new UsageError('--max-chars sets a budget of characters: give it or --max-tokens/--token-headroom, not both');
  }
  const number = (option) => (values[option] === undefined ? undefined : value(values[option])); // undefined: unset
  if (values['max-chars'] !== undefined) config.budget = { characters: number('max-chars') };
  if (tokens) config.budget = { tokens: { cap: number('max-tokens'), headroom: number('token-headroom') } };
  const fields = {
    max_lines: 'max-lines', max_line_length: 'max-line-length', loop_warn_at: 'loop-warn-at',
    loop_block_at: 'loop-block-at', not_found_ttl_ms: 'not-found-ttl-ms',
  };
  for (const [field, option] of Object.entries(fields)) if (values[option] !== undefined) config[field] = number(option);
  if (values['no-dedup']) config.dedup = false;
  if (values.deny) config.deny_patterns = values.deny;
  if (values.allow) config.allow_patterns = values.allow;
  if (values.cwd !== undefined) config.working_directory = canonical(values.cwd, '--cwd');
  return { roots: values.root, config };
}

/** A `--config` file's config object. @throws {UsageError} */
function configFile(path) {
  let config;
  try {
    config = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--config ${path}: ${error.message} (this server reads JSON config files)`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new UsageError(`--config ${path}: a config file holds a JSON object`);
  }
  return config;
}

/** `path` made absolute and canonical (host and guest paths agree). @throws {UsageError} */
function canonical(path, option) {
  try {
    return realpathSync(resolve(path));
  } catch (error) {
    throw new UsageError(`${option} ${path}: ${error.message}`);
  }
}

/** A line on stderr (stdout is the protocol stream). */
const log = (message) => console.error(`read-window-mcp: ${message}`);

/**
 * One MCP connection's read-window state: the session over the directories `mcp_roots` named (started at the
 * first tool call, replaced when the client's roots change), or why none may read.
 */
class Connection {
  #reader;
  #server;
  #options;
  /** The live session and the roots it was granted, or the refusal every call is answered with. */
  #state = null;
  #rootsChanged = false;
  /** Tool calls run one after the other (a session is not shared between calls in flight). */
  #queue = Promise.resolve();

  /**
   * @param {ReadWindow} reader @param {Server} server The SDK server (the client's capabilities, `roots/list`).
   * @param {{roots: string[], config: object}} options From {@link parseOptions}.
   */
  constructor(reader, server, options) {
    [this.#reader, this.#server, this.#options] = [reader, server, options];
  }

  /** The client said its roots changed (`notifications/roots/list_changed`): the next call asks again. */
  rootsChanged() { this.#rootsChanged = true; }

  /**
   * Answers a `tools/call` (its params as the client sent them: `name`, `arguments` an object or a string) with the
   * component's CallToolResult. @param {object} params @returns {Promise<object>}
   */
  call(params) {
    const { name, arguments: args } = params ?? {};
    const line = toJson({ op: 'tool_call', name, ...(args === undefined ? {} : { arguments: args }), reply: 'mcp' });
    const answer = this.#queue.then(() => this.#answer(line));
    this.#queue = answer.catch(() => {});
    return answer;
  }

  /** Closes the session. */
  close() {
    this.#state?.session?.close();
    this.#state = null;
  }

  async #answer(line) {
    if (this.#state === null || this.#rootsChanged) {
      this.#rootsChanged = false;
      await this.#choose();
    }
    const { session, refusal } = this.#state;
    return JSON.parse(session ? session.answer(line) : this.#reader.hostError(line, 'start', refusal));
  }

  /** Asks the component which directories to read; a session over them unless the current one already is. */
  async #choose() {
    const answer = await this.#roots();
    if (answer.refusal !== undefined) {
      log(answer.refusal);
      this.close();
      this.#state = { refusal: answer.refusal };
      return;
    }
    const key = JSON.stringify(answer.roots);
    if (this.#state?.key === key) return;
    if (this.#state?.session) log(`the roots changed; a new session starts over ${answer.roots.join(', ')}`);
    this.close();
    try {
      // Relative paths start where the component says: the current directory under a root, else the first root.
      const config = { working_directory: answer.working_directory ?? undefined, ...this.#options.config };
      if (config.working_directory === undefined) delete config.working_directory;
      const session = this.#reader.session(answer.roots, config);
      const served = session.request({ op: 'mcp_server' });
      if (served.status !== 'ok') throw new HostError('start', served.text);
      this.#state = { session, key };
      log(`reading ${answer.roots.join(', ')} (read-only, from ${answer.from})`);
    } catch (error) {
      if (!(error instanceof HostError)) throw error;
      log(error.message);
      this.#state = { refusal: error.message };
    }
  }

  /**
   * The component's `mcp_roots` answer, `{roots, from, refused, working_directory, refusal?}`, asked again with the client roots that
   * cannot be granted (`ungrantable`) until it names none.
   */
  async #roots() {
    const request = { op: 'mcp_roots', roots: this.#options.roots, cwd: realpathSync(process.cwd()) };
    const home = process.env.HOME ? attemptRealpath(process.env.HOME) : undefined;
    if (home !== undefined) request.home = home;
    const listed = await this.#clientRoots();
    if (listed !== undefined) request.client_roots = listed;
    let answer = this.#ask(request);
    const ungrantable = [];
    // Each round names the client roots this host cannot grant; the component drops them (or refuses) in the next.
    for (let more; answer.from === 'client' && (more = answer.roots.flatMap(whyNot)).length > 0;) {
      ungrantable.push(...more);
      answer = this.#ask({ ...request, ungrantable });
    }
    for (const { root, reason } of answer.refused ?? []) log(`skipping the root ${root}: ${reason}`);
    return answer;
  }

  /** `mcp_roots` answered; an error answer becomes a refusal in its words. */
  #ask(request) {
    const answer = this.#reader.request(request, this.#options.config);
    return answer.status === 'ok' ? answer : { roots: [], refused: [], refusal: answer.text };
  }

  /** The URIs the client lists in `roots/list`, or undefined when it has no roots capability or did not answer. */
  async #clientRoots() {
    if (!this.#server.getClientCapabilities()?.roots) return undefined;
    try {
      const { roots } = await this.#server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS });
      return roots.map((root) => root.uri);
    } catch (error) {
      log(`roots/list failed (${error.message}); taking it as no roots offered`);
      return undefined;
    }
  }
}

/** `[{root, reason}]` when `root` cannot be granted (not a directory, missing), else `[]`. */
function whyNot(root) {
  try {
    normalizeGrants([root]);
    return [];
  } catch (error) {
    return [{ root, reason: error.cause?.message ?? error.message }];
  }
}

function attemptRealpath(path) {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** What the server says where it cannot guarantee its sandbox. */
const NO_SANDBOX = 'refusing to start: the JavaScript host keeps a model inside the granted directories only where ' +
  'it can resolve every name inside a directory held open (Linux, with /proc mounted; hosts/js/README.md, "The ' +
  `sandbox under races"), and it cannot here (platform ${process.platform}, /proc/self/fd not usable). Serve MCP ` +
  'with the Rust server instead (`read-window mcp --root DIR`).';

/**
 * Runs the server until the client closes stdin. Exit status: 0 at the end of the connection, 1 when the component
 * does not load or the sandbox does not hold here, 2 for a usage error (an option, or a config or value the
 * component refuses).
 */
async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(error.message);
    process.exit(2);
  }
  if (options.help) return console.log(USAGE);
  if (!isRaceFree()) {
    log(NO_SANDBOX);
    process.exit(1);
  }
  let reader;
  try {
    reader = await ReadWindow.load();
  } catch (error) {
    log(error.message);
    process.exit(1);
  }
  // The constructor takes a value out of its range as the default, with a warning only in the first read's
  // `warnings`, which an MCP reply does not show; `configure` refuses it, naming the field and its range. Checked
  // in a session of its own, the working directory aside (it must lie under a root, not known before a client).
  const { working_directory: _, ...fields } = options.config;
  const checked = reader.request({ ...fields, op: 'configure' });
  const served = checked.status === 'ok' ? reader.request({ op: 'mcp_server' }, options.config) : checked;
  if (served.status !== 'ok') {
    log(served.text ?? JSON.stringify(served));
    process.exit(2);
  }
  if (options.version) return console.log(`read-window-mcp ${served.version}`);
  const server = new Server(
    { name: served.name, version: served.version },
    { capabilities: { tools: {} }, instructions: served.instructions },
  );
  const connection = new Connection(reader, server, options);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: served.tools }));
  // tools/call goes through the fallback handler, which gets the request as it came: a handler registered for it
  // would run after the SDK's schema check, which refuses `arguments` given as a string of JSON (some clients send
  // them so; the component reads them) and would check the result the component already shaped.
  server.fallbackRequestHandler = async (request) => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
    return connection.call(request.params);
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => connection.rootsChanged());
  server.onclose = () => connection.close();
  process.stdin.on('end', () => server.close());
  await server.connect(new StdioServerTransport());
}

await main();
