#!/usr/bin/env node
// `read-window-mcp`: the read-window component as an MCP (Model Context Protocol) server on stdin and stdout, over
// the official TypeScript SDK's low-level `Server` and its stdio transport. One connection (one process) is one
// read-window session: dedup stubs, the loop tripwire, the misses and the line indexes last as long as the client
// stays connected.
//
//   npx read-window-mcp --root /path/to/project [--root DIR ...] [--max-tokens N ...]
//
// Everything the server says is the component's (docs/protocol.md, "MCP servers"): `mcp_server` gives the name,
// version, instructions and the tools (read_file, list_directory, read_files, search, check_write) and sets the MCP default budget; `mcp_roots`
// says which directories a connection reads (the --root options, else the client's roots, else the current
// directory, never `/` or the home directory); a `tools/call` goes to `tool_call` with `"reply":"mcp"` as the
// client sent it, and the component's CallToolResult comes back as it is. This file only moves messages, asks the
// client for its roots and grants what the component names.
//
// It refuses to start where the JavaScript host's race-free file system does not hold (hosts/js/README.md, "The
// sandbox under races": Linux with /proc only), since an MCP server reads for a model that anyone's files may steer.

import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

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

/** A usage error: the message goes to stderr, exit status 2. */
class UsageError extends Error {}

/**
 * The command line read by the component's `options` op, so that the options, their checks and their words are
 * the component's, as on every host: the roots (as given), the config (the `--config` file's JSON under the
 * options) with `--cwd` made canonical, `help`, `version` and the usage text.
 * @param {ReadWindow} reader @param {string[]} argv
 * @returns {{roots: string[], config: object, help: boolean, version: boolean, usage: string}}
 * @throws {UsageError} an option the component refuses, a config file that cannot be read, a `--cwd` that is not.
 */
function parseOptions(reader, argv) {
  const ask = (extra) => reader.request({ op: 'options', program: 'read-window-mcp', args: argv, ...extra });
  let answer = ask({});
  if (answer.status === 'ok' && !answer.config_complete) {
    let text;
    try {
      text = readFileSync(answer.config_file, 'utf8');
    } catch (error) {
      throw new UsageError(`--config ${answer.config_file}: ${error.message}\n${answer.usage}`);
    }
    answer = ask({ config_file_text: text });
  }
  if (answer.status !== 'ok') throw new UsageError(`${answer.error.message}\n${answer.usage}`);
  const config = answer.config;
  if (answer.cwd !== null) config.working_directory = canonical(answer.cwd, '--cwd');
  return { roots: answer.roots, config, help: answer.help, version: answer.version, usage: answer.usage };
}

/** Why the `--root` directory `root` cannot be granted (no such directory, not a directory), or null. */
function rootProblem(root) {
  if (!existsSync(root)) return `--root ${root}: no such directory`;
  return statSync(root).isDirectory() ? null : `--root ${root}: not a directory`;
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
  let options;
  try {
    options = parseOptions(reader, process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(error.message);
    process.exit(2);
  }
  if (options.help) return console.log(options.usage);
  const problems = options.roots.map(rootProblem).filter((problem) => problem !== null);
  if (problems.length > 0) {
    log(problems.join('; '));
    process.exit(2);
  }
  const served = reader.request({ op: 'mcp_server' }, options.config);
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
