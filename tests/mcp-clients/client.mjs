// Drives `read-window mcp` with the official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json; `npm ci` in this folder installs it).
//
// Usage: node client.mjs path/to/read-window          (starts `read-window [args] mcp`)
//        node client.mjs --command read-window-mcp   (starts `read-window-mcp [args]`: a whole server command,
//                                                      found on PATH or given as a path)
//
// It writes its own fixture files into a temporary directory, starts the server over stdio through the SDK's
// StdioClientTransport and checks: the two tools and their schemas; the SDK's output-schema validation being live
// (callTool validates every result's structuredContent, error results too, against the tool's outputSchema once
// listTools ran); a window (one text block, the structured fields without the body); the unchanged stub and
// `fresh`; a clamped line and its continuation; a missing file; `check_write`; `arguments` sent as a string of JSON;
// the roots a client offers when the server has no --root (started in $HOME), a new session over new roots after
// `notifications/roots/list_changed`, and the error without roots; the serialized size of a large reply; the token
// budget under Claude Code's cap. One `PASS name` or `FAIL name: why` line per check, then
// `N passed, M failed`; exit status 1 when any check failed, after at most 60 seconds.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const counts = { passed: 0, failed: 0 };
const WINDOW = '1|one\n2|two\n\n';
const FORBIDDEN = ['content', 'text', 'hint', 'message', 'warnings'];
const TIMEOUT = { timeout: 20000 };

function report(name, problems) {
  counts[problems.length ? 'failed' : 'passed'] += 1;
  console.log(problems.length ? `FAIL ${name}: ${problems.join('; ')}` : `PASS ${name}`);
}

const show = (value) => (value === undefined ? '<absent>' : JSON.stringify(value));

/** The fields of structuredContent `sc` that differ from `expected`. */
function fields(sc, expected) {
  if (sc === null || typeof sc !== 'object') return [`structuredContent is ${show(sc)}`];
  return Object.entries(expected)
    .filter(([key, value]) => JSON.stringify(sc[key]) !== JSON.stringify(value))
    .map(([key, value]) => `${key} is ${show(sc[key])}, not ${show(value)}`);
}

const noError = (result) => (result.isError ? ['isError is true'] : []);
const anError = (result) => (result.isError ? [] : ['isError is not true']);

/** `total` characters (code points): ASCII words, CJK and emoji lines around one minified JSON line of 150,000. */
function mixedText(total = 200000) {
  const records = [];
  let length = 1;
  while (length < 150000) {
    records.push(JSON.stringify({ id: records.length, name: `item-${records.length}`, tags: ['a', 'b'], ok: true }));
    length += records.at(-1).length + 1;
  }
  const body = `[${records.join(',')}]`;
  const block = 'the quick brown fox reads a bounded window of lines\n窗口读取文件的时候每一行都有行号\n' + '📄🔍🚀🧪✅'.repeat(6) + '\n';
  const size = [...block].length;
  const room = total - body.length - 1;
  const count = Math.floor(room / size);
  const half = Math.floor(count / 2);
  const pad = '.'.repeat(room - size * count - 1) + '\n';
  return block.repeat(half) + body + '\n' + block.repeat(count - half) + pad;
}

function makeFixtures(root) {
  writeFileSync(join(root, 'five.txt'), 'one\ntwo\nthree\nfour\nfive\n');
  writeFileSync(join(root, 'long.txt'), 'x'.repeat(5000) + '\nend\n');
  const big = Array.from({ length: 3000 }, (_, i) => `${String(i).padStart(6, '0')} ${'a'.repeat(73)}\n`);
  writeFileSync(join(root, 'big.txt'), big.join(''));
  writeFileSync(join(root, 'mixed.txt'), mixedText());
  writeFileSync(join(root, 'screen.png'), bandedPng(3000, 2000));
  for (let i = 0; i < 250; i += 1) {
    mkdirSync(join(root, 'tree', `d${i % 5}`), { recursive: true });
    writeFileSync(join(root, 'tree', `d${i % 5}`, `f${String(i).padStart(3, '0')}.txt`), `line one\nneedle ${i}\n`);
  }
}

/** The server to start: `{command, subcommand}`, `subcommand` the arguments after the check's (`['mcp']` for the
 * `read-window` CLI, none for a whole server command). Set by the command line. */
const server = { command: '', subcommand: [] };

/** A Client connected to the server (`read-window ARGS mcp`, or `COMMAND ARGS`) in `cwd`, its tools listed (which
 * arms the SDK's output-schema validation). With `roots` (a list of file:// URIs, which the check may change later)
 * the client offers the roots capability. */
async function connect(args, cwd, { env, roots } = {}) {
  const capabilities = roots ? { roots: { listChanged: true } } : {};
  const client = new Client({ name: 'read-window-test', version: '0' }, { capabilities });
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((uri) => ({ uri })) }));
  const transport = new StdioClientTransport({
    command: server.command, args: [...args, ...server.subcommand], cwd, env, stderr: 'pipe',
  });
  client.stderrText = '';
  transport.stderr.on('data', (chunk) => { client.stderrText += chunk; });
  try {
    await client.connect(transport, TIMEOUT);
    await client.listTools(undefined, TIMEOUT);
  } catch (error) {
    await client.close();
    const tail = client.stderrText.trim().split('\n').slice(-2).join(' | ');
    throw new Error(`${error.message}${tail ? ` (server stderr: ${tail})` : ''}`);
  }
  return client;
}

const call = (client, name, args) => client.callTool({ name, arguments: args }, undefined, TIMEOUT);

/** The text of the result's one text block (an Error names what came instead). */
function onlyText(result) {
  const kinds = result.content.map((block) => block.type);
  if (show(kinds) !== show(['text'])) throw new Error(`content blocks are ${show(kinds)}, not one text block`);
  return result.content[0].text;
}

/** list_directory, search and read_files: each page carries the census, and its cursor pages on. */
async function checkCensus(client) {
  let result = await call(client, 'list_directory', { path: 'tree', depth: 2, limit: 100 });
  let problems = [...noError(result), ...fields(result.structuredContent,
    { total_entries: 255, entries_returned: 100, next_offset: 101 })];
  const listed = onlyText(result);
  if (!listed.startsWith('1|d0/\n2|d0/f000.txt  18 bytes\n')) problems.push(`the listing starts ${show(listed.slice(0, 60))}`);
  result = await call(client, 'list_directory', { path: 'tree', depth: 2, offset: 201, limit: 100 });
  problems.push(...fields(result.structuredContent, { entries_returned: 55, next_offset: null }));
  report('list_directory depth=2: 255 entries in all on every page, offset=201 ends the listing', problems);

  result = await call(client, 'search', { pattern: 'needle', path: 'tree', limit: 100 });
  problems = [...noError(result), ...fields(result.structuredContent, { total_matches: 250, files_with_matches: 250,
    files_searched: 250, matches_returned: 100, next_offset: 101, complete: true })];
  const seen = new Set();
  for (let offset = 1; offset !== null && offset !== undefined;) {
    const page = await call(client, 'search', { pattern: 'needle', path: 'tree', offset, limit: 100 });
    for (const line of onlyText(page).split('\n')) {
      const place = line.split('|')[0];
      if (line.includes('|') && place.includes(':')) seen.add(place);
    }
    offset = page.structuredContent?.next_offset;
  }
  if (seen.size !== 250) problems.push(`the cursor reached ${seen.size} matches, not 250`);
  const none = onlyText(await call(client, 'search', { pattern: '(a+)+$', regex: true, path: 'tree' }));
  if (!none.startsWith('No matches')) problems.push(`a pathological regex: ${show(none.slice(0, 80))}`);
  report('search: 250 matches on the first page\'s census, every match once by its cursor, a linear regex', problems);

  result = await call(client, 'read_files', { paths: ['five.txt', 'tree/d0/*.txt'] });
  const sc = result.structuredContent ?? {};
  problems = noError(result);
  // The lists end at their allowance; `files_total` and `left_out_total` count them then.
  const read = sc.files_total ?? (sc.files ?? []).length;
  const total = read + (sc.left_out_total ?? (sc.left_out ?? []).length);
  if (total !== 51) problems.push(`${total} files read or left out, not 51`);
  if ((result.content[0]?.text ?? '').split('==> ').length - 1 !== read) problems.push('not one ==> path <== line a file read');
  if (!result.content[0]?.text?.startsWith('==> ')) problems.push('the text does not start with a ==> path <== line');
  report('read_files: a path and a pattern, 51 files read or named in left_out', problems);
}

async function checkTools(client) {
  const { tools } = await client.listTools(undefined, TIMEOUT);
  const names = tools.map((tool) => tool.name).sort();
  const expected = ['check_write', 'list_directory', 'read_file', 'read_files', 'search'];
  const problems = show(names) === show(expected) ? [] : [`tools are ${show(names)}`];
  for (const tool of tools) {
    const absent = ['inputSchema', 'outputSchema'].filter((key) => !tool[key]);
    problems.push(...absent.map((key) => `${tool.name} has no ${key}`));
  }
  const props = tools.find((tool) => tool.name === 'read_file')?.inputSchema?.properties ?? {};
  const missing = ['path', 'offset', 'limit', 'column', 'tail', 'extract', 'fresh', 'region'].filter((key) => !(key in props));
  if (missing.length) problems.push(`read_file's inputSchema lacks ${show(missing)}`);
  if (props.fresh?.type !== 'boolean') problems.push(`fresh is ${show(props.fresh)}, not a boolean`);
  // The characters a reply carries at most under the default budget, declared for Claude Code.
  const meta = tools.find((tool) => tool.name === 'read_file')?._meta ?? {};
  if (meta['anthropic/maxResultSizeChars'] !== 304384) problems.push(`read_file's _meta is ${show(meta)}`);
  report('tools/list: read_file, list_directory, read_files, search and check_write with their schemas', problems);
}

async function checkValidationIsLive(client) {
  // getToolOutputValidator is private in the SDK's types: callTool uses it, and it exists once listTools ran.
  const validate = client.getToolOutputValidator('read_file');
  const problems = [];
  if (typeof validate !== 'function') problems.push('the client holds no output-schema validator for read_file');
  else if (validate({ status: 0, content_returned: 'no' }).valid) problems.push('it accepted a bad structuredContent');
  report('typescript SDK validates structuredContent against the outputSchema', problems);
}

/** CRC-32 (IEEE) of `bytes`, for PNG chunks. */
function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A `width` x `height` grey PNG of bands 100 rows high. */
function bandedPng(width, height) {
  const chunk = (kind, data) => {
    const body = Buffer.concat([Buffer.from(kind, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const rows = [];
  for (let y = 0; y < height; y += 1) rows.push(Buffer.from([0]), Buffer.alloc(width, Math.floor(y / 100) % 2 ? 40 : 220));
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

async function checkImage(client) {
  let result = await call(client, 'read_file', { path: 'screen.png' });
  const kinds = result.content.map((block) => block.type);
  let problems = [...noError(result), ...(JSON.stringify(kinds) === '["text","image"]' ? [] : [`content blocks are ${show(kinds)}`])];
  if (kinds.length === 2) {
    const sentence = 'shown at 0.44 scale (1,313 x 875); 3 x 3 regions of 1,000 x 667 show it at full resolution, '
      + 'the first is region=0,0,1000,667';
    if (!result.content[0].text.includes(sentence)) problems.push(`text is ${show(result.content[0].text)}`);
    if (result.content[1].mimeType !== 'image/png') problems.push(`mimeType is ${show(result.content[1].mimeType)}`);
    const data = Buffer.from(result.content[1].data, 'base64');
    const size = [data.readUInt32BE(16), data.readUInt32BE(20)];
    if (JSON.stringify(size) !== '[1313,875]') problems.push(`the picture is ${size.join(' x ')}`);
  }
  const sc = result.structuredContent ?? {};
  if ('data' in sc) problems.push('structuredContent repeats the data');
  problems.push(...fields(sc.image, { width: 1313, height: 875, original_width: 3000, frames: 1 }));
  report('read_file of a 3000 x 2000 PNG: its hint, then an image block of 1313 x 875', problems);

  result = await call(client, 'read_file', { path: 'screen.png', region: { x: 0, y: 0, width: 1000, height: 667 } });
  problems = [...noError(result), ...fields(result.structuredContent?.image, { width: 1000, height: 667, scale: 1 })];
  report('read_file with region=0,0,1000,667: that part at full resolution', problems);
}

async function checkWindowStubFresh(client, root) {
  const path = join(root, 'five.txt');
  const hint = `Showing lines 1-2 of 5 in ${path} (the limit of 2 lines). Use offset=3 to continue.`;
  let result = await call(client, 'read_file', { path: 'five.txt', limit: 2 });
  let text = onlyText(result);
  const sc = result.structuredContent;
  let problems = [...noError(result), ...(text === WINDOW + hint ? [] : [`text is ${show(text)}`])];
  problems.push(...fields(sc, { status: 'ok', content_returned: true, start_line: 1, end_line: 2, total_lines: 5,
    next_offset: 3, next_column: null, path }));
  problems.push(...FORBIDDEN.filter((key) => key in (sc ?? {})).map((key) => `structuredContent has ${show(key)}`));
  report('read_file: one text block (window, blank line, hint); structuredContent without the body', problems);

  result = await call(client, 'read_file', { path: 'five.txt', limit: 2 });
  text = onlyText(result);
  const start = `[read-window: unchanged] Lines 1-2 of 5 in ${path} have not changed since you read them earlier`
    + ' in this session';
  problems = text.startsWith(start) ? [] : [`text is ${show(text)}`];
  const lacking = ['fresh=true', 'Use offset=3 to continue.'].filter((s) => !text.includes(s));
  problems.push(...lacking.map((s) => `text lacks ${show(s)}`));
  problems.push(...fields(result.structuredContent, { status: 'unchanged', next_offset: 3 }));
  report('read_file again: the unchanged stub', problems);

  result = await call(client, 'read_file', { path: 'five.txt', limit: 2, fresh: true });
  text = onlyText(result);
  problems = text.startsWith(WINDOW + hint) ? [] : [`text is ${show(text)}`];
  problems.push(...fields(result.structuredContent, { status: 'ok' }));
  report('read_file fresh=true: the window again', problems);
}

const xCount = (line) => line.split('x').length - 1;

async function checkClamped(client) {
  const result = await call(client, 'read_file', { path: 'long.txt' });
  let first = onlyText(result).split('\n')[0];
  const problems = [];
  if (!first.startsWith('1|' + 'x'.repeat(2000)) || first[2002] === 'x') {
    problems.push(`line 1 starts ${show(first.slice(0, 12))} and has ${xCount(first)} x`);
  }
  const marker = ' [read-window: line 1 clamped, 3000 more characters; read them with offset=1 column=2000 limit=1]';
  if (first.slice(2002) !== marker) problems.push(`the marker is ${show(first.slice(2002))}, not ${show(marker)}`);
  const clamped = result.structuredContent?.clamped_lines;
  const want = [{ line: 1, shown_chars: 2000, total_chars: 5000, next_column: 2000 }];
  if (show(clamped) !== show(want)) problems.push(`clamped_lines is ${show(clamped)}`);
  report('read_file: a clamped line and its marker naming offset=1 column=2000 limit=1', problems);

  const rest = await call(client, 'read_file', { path: 'long.txt', offset: 1, column: 2000, limit: 1 });
  first = onlyText(rest).split('\n')[0];
  const ok = first.startsWith('1|x') && xCount(first) === 3000;
  report('read_file offset=1 column=2000 limit=1: the rest of the line, 3000 x',
    ok ? [] : [`line 1 starts ${show(first.slice(0, 12))} and has ${xCount(first)} x`]);
}

async function checkErrors(client) {
  let result = await call(client, 'read_file', { path: 'missing.txt' });
  const text = onlyText(result);
  const sc = result.structuredContent ?? {};
  const problems = [...anError(result), ...(text.includes('does not exist') ? [] : [`text is ${show(text)}`])];
  problems.push(...fields(sc, { status: 'error' }), ...fields(sc.error, { kind: 'not_found' }));
  report('read_file missing.txt: an error result, not_found', problems);

  result = await call(client, 'check_write', { path: 'five.txt', text: '1|one\n2|two\n' });
  report('check_write of pasted read_file output: echoed_output',
    [...anError(result), ...fields(result.structuredContent?.error, { kind: 'echoed_output' })]);

  result = await call(client, 'check_write', { path: 'five.txt', text: 'plain text\n' });
  const ok = onlyText(result);
  report('check_write of plain text: ok', [...noError(result), ...(ok === 'ok' ? [] : [`text is ${show(ok)}`])]);
}

async function checkStringArguments(client, root) {
  // Some clients send `arguments` as a string of JSON; the SDK's callTool cannot, so the request goes raw.
  const params = { name: 'read_file', arguments: JSON.stringify({ path: 'five.txt', limit: 1 }) };
  const result = await client.request({ method: 'tools/call', params }, CallToolResultSchema, TIMEOUT);
  const text = onlyText(result);
  const problems = [...noError(result), ...(text.startsWith('1|one\n\n') ? [] : [`text is ${show(text)}`])];
  problems.push(...fields(result.structuredContent, { status: 'ok', start_line: 1, end_line: 1,
    next_offset: 2, path: join(root, 'five.txt') }));
  report('read_file with arguments as a string of JSON: read as that object', problems);
}

async function checkSize(client) {
  const result = await call(client, 'read_file', { path: 'big.txt' });
  const text = Buffer.byteLength(onlyText(result));
  const reply = Buffer.byteLength(JSON.stringify(result));
  const allowed = 1.1 * text + 2048;
  console.log(`  size: reply ${reply} bytes, text ${text} bytes, allowed ${allowed.toFixed(0)}`);
  report('read_file of 3000 lines: the reply is at most 1.1 x its text + 2048 bytes',
    reply <= allowed ? [] : [`the reply is ${reply} bytes, over ${allowed.toFixed(0)}`]);
}

async function checkBudget(client) {
  const result = await call(client, 'read_file', { path: 'mixed.txt' });
  const text = onlyText(result);
  const budget = result.structuredContent?.budget ?? {};
  console.log(`  budget: ${show(budget)}; text ${[...text].length} characters, ${Buffer.byteLength(text)} bytes`);
  const problems = budget.unit === 'tokens' ? [] : [`budget.unit is ${show(budget.unit)}`];
  if (!(Number.isInteger(budget.cap) && budget.cap <= 25000)) problems.push(`budget.cap is ${show(budget.cap)}`);
  if (!(Number.isInteger(budget.used) && Number.isInteger(budget.limit) && budget.used <= budget.limit)) {
    problems.push(`budget.used is ${show(budget.used)}, budget.limit ${show(budget.limit)}`);
  }
  report("read_file of 200,000 mixed characters: a token budget under Claude Code's 25,000 cap", problems);
}

/** HOME set to `home`, the compiled-component cache kept where it was (compiling takes seconds). */
function homeEnv(home) {
  return { HOME: home, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || join(homedir(), '.cache') };
}

/** A home directory (with h.txt) and a project directory (with p.txt) outside it. */
function homes(work) {
  const [home, proj] = [join(work, 'home'), join(work, 'proj')];
  for (const [folder, name] of [[home, 'h.txt'], [proj, 'p.txt']]) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, name), `${name}\n`);
  }
  return [home, proj];
}

async function checkRoots(work) {
  const [home, proj] = homes(work);
  const roots = [pathToFileURL(proj).href];
  const client = await connect([], home, { env: homeEnv(home), roots });
  try {
    let result = await call(client, 'read_file', { path: join(proj, 'p.txt') });
    report("roots: no --root, started in $HOME, reads a file under the client's root",
      [...noError(result), ...fields(result.structuredContent, { status: 'ok' })]);

    const other = join(work, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'o.txt'), 'o.txt\n');
    roots.splice(0, 1, pathToFileURL(other).href);
    await client.sendRootsListChanged();
    result = await call(client, 'read_file', { path: join(other, 'o.txt') });
    const problems = [...noError(result), ...fields(result.structuredContent, { status: 'ok', start_line: 1 })];
    result = await call(client, 'read_file', { path: join(proj, 'p.txt') });
    problems.push(...anError(result), ...fields(result.structuredContent?.error, { kind: 'outside_sandbox' }));
    report('roots/list_changed: the next call reads the new root, and the old one is outside', problems);
  } finally {
    await client.close();
  }
}

async function checkNoRoots(work) {
  const [home] = homes(work);
  const client = await connect([], home, { env: homeEnv(home) });
  try {
    const result = await call(client, 'read_file', { path: join(home, 'h.txt') });
    const text = onlyText(result);
    report('no roots, no --root, started in $HOME: the first read_file is an error naming --root',
      [...anError(result), ...(text.includes('--root') ? [] : [`text is ${show(text)}`])]);
  } finally {
    await client.close();
  }
}

/** Runs one check; an exception (the SDK's validation errors among them) becomes a FAIL line. */
async function guarded(name, check, ...args) {
  try {
    await check(...args);
  } catch (error) {
    report(name, [`${error.name}: ${error.message}`]);
  }
}

/** The checks on one session of `read-window --root ROOT mcp`. */
async function withRoot(root) {
  const client = await connect(['--root', root], root);
  try {
    await guarded('tools/list', checkTools, client);
    await guarded('output-schema validation', checkValidationIsLive, client);
    await guarded('window, stub, fresh', checkWindowStubFresh, client, root);
    await guarded('clamped line', checkClamped, client);
    await guarded('errors and check_write', checkErrors, client);
    await guarded('string arguments', checkStringArguments, client, root);
    await guarded('image', checkImage, client);
    await guarded('census', checkCensus, client);
    await guarded('size', checkSize, client);
    await guarded('budget', checkBudget, client);
  } finally {
    await client.close();
  }
}

async function main() {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'read-window-mcp-js-')));
  try {
    const root = join(work, 'root');
    mkdirSync(root);
    makeFixtures(root);
    await guarded('a session with --root', withRoot, root);
    await guarded('roots', checkRoots, work);
    await guarded('no roots', checkNoRoots, work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args.length === 2 && args[0] === '--command') {
  // A name without a slash is looked up on PATH by the spawn; a path is taken from here.
  Object.assign(server, { command: args[1].includes('/') ? resolve(args[1]) : args[1], subcommand: [] });
} else if (args.length === 1 && !args[0].startsWith('-')) {
  Object.assign(server, { command: resolve(args[0]), subcommand: ['mcp'] });
} else {
  console.error('usage: node client.mjs path/to/read-window | node client.mjs --command read-window-mcp');
  process.exit(2);
}
setTimeout(() => {
  console.log('FAIL client.mjs: no end after 60 seconds');
  process.exit(1);
}, 60000).unref();
await main();
console.log(`${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed ? 1 : 0);
