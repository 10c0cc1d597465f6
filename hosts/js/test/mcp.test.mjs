// Tests of `read-window-mcp` (mcp.mjs) that tests/mcp-clients/client.mjs does not make: what the server says at
// `initialize`, the command-line options reaching the session's config, a --root and client roots that cannot be
// granted, a tool the component does not have, the usage errors, and the refusal to start without the race-free
// file system.
// Each test starts the server through the official SDK's client over stdio (the SDK is a dependency).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = fileURLToPath(new URL('../mcp.mjs', import.meta.url));
let dir;

before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'read-window-mcp-test-')));
  writeFileSync(join(dir, 'ten.txt'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(''));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** `f(client)` with a client connected to `read-window-mcp ARGS`, closed after; with `roots` (directories) the
 * client offers them as its roots. */
async function connected(args, f, roots) {
  const client = new Client({ name: 'read-window-mcp-test', version: '0' }, { capabilities: roots ? { roots: {} } : {} });
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((root) => ({ uri: pathToFileURL(root).href })) }));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, ...args], stderr: 'pipe' }));
  try {
    return await f(client);
  } finally {
    await client.close();
  }
}

/** The server run to its end with `args` and no client: `{status, stderr}`. */
function run(args) {
  const done = spawnSync(process.execPath, [server, ...args], { input: '', encoding: 'utf8' });
  return { status: done.status, stderr: done.stderr };
}

test('initialize names the component\'s server, version and instructions', async () => {
  await connected(['--root', dir], async (client) => {
    assert.deepEqual(client.getServerVersion(), { name: 'read-window', version: '0.3.0' });
    assert.match(client.getInstructions(), /^read-window reads text files for you in bounded windows with line numbers/);
    assert.deepEqual(client.getServerCapabilities(), { tools: {} });
  });
});

test('the config options reach the session: --max-lines 3 reads lines 1-3 of 10', async () => {
  await connected(['--root', dir, '--max-lines', '3', '--no-dedup'], async (client) => {
    for (let i = 0; i < 2; i += 1) {
      const result = await client.callTool({ name: 'read_file', arguments: { path: 'ten.txt' } });
      assert.equal(result.content[0].text.split('\n\n')[0], '1|line 1\n2|line 2\n3|line 3');
      assert.equal(result.structuredContent.next_offset, 4);
    }
  });
});

test('a --root that is not a directory stops the server at start, exit 2', () => {
  for (const [root, why] of [[join(dir, 'missing'), 'no such directory'], [join(dir, 'ten.txt'), 'not a directory']]) {
    const done = run(['--root', root]);
    assert.equal(done.status, 2);
    assert.equal(done.stderr, `read-window-mcp: --root ${root}: ${why}\n`);
  }
});

test('a tool the component does not have is its refusal, naming the tools', async () => {
  await connected(['--root', dir], async (client) => {
    const result = await client.request(
      { method: 'tools/call', params: { name: 'write_file', arguments: {} } },
      CallToolResultSchema,
    );
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /write_file/);
    assert.match(result.content[0].text, /read_file/);
  });
});

test('a client root that is not a directory is skipped; with none left, every call names it and why', async () => {
  const [missing, ten] = [join(dir, 'gone'), join(dir, 'ten.txt')];
  await connected([], async (client) => {
    const result = await client.callTool({ name: 'read_file', arguments: { path: ten, limit: 1 } });
    assert.equal(result.structuredContent.status, 'ok');
    assert.equal(result.content[0].text.split('\n')[0], '1|line 1');
  }, [missing, dir]);
  await connected([], async (client) => {
    const result = await client.callTool({ name: 'read_file', arguments: { path: ten } });
    assert.equal(result.structuredContent.error.cause, 'start');
    assert.match(result.content[0].text, new RegExp(`none of the roots the client offers could be granted: "${pathToFileURL(missing).href}" \\(ENOENT`));
  }, [missing]);
});

test('usage errors exit 2: an unknown option, two budgets, a config or a value the component refuses', () => {
  const unknown = run(['--bogus']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^read-window-mcp: unknown option "--bogus"\nusage: read-window-mcp \[--root DIR\]\.\.\. \[options\]/);
  const budgets = run(['--max-chars', '5000', '--max-tokens', '9000']);
  assert.equal(budgets.status, 2);
  assert.match(budgets.stderr, /--max-chars sets a budget of characters/);
  const config = join(dir, 'config.json');
  writeFileSync(config, '{"max_lines": 5, "colour": "blue"}');
  const refused = run(['--config', config]);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /colour/);
  const range = run(['--max-lines', '0']);
  assert.equal(range.status, 2);
  assert.match(range.stderr, /^read-window-mcp: --max-lines 0 is out of range: from 1 to 1000000\./);
});

test('without /proc (a mount namespace with /proc unmounted) the server refuses to start, saying why', (t) => {
  const probe = spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']);
  if (probe.status !== 0) return t.skip('unshare --mount is not allowed here (it needs root)');
  const script = `umount -l /proc && exec "${process.execPath}" "${server}" --root "${dir}"`;
  const refused = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], { encoding: 'utf8' });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /^read-window-mcp: refusing to start: .*\/proc\/self\/fd not usable.*read-window mcp --root DIR/s);
});
