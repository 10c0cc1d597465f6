// Tests of the JavaScript layer: grants and isolation, argument conversion, the answer shapes, errors.
// The component's behaviour is tested by the scenario files (node scenarios.mjs ../../tests/scenarios).
//
//   npm test        (needs `npm ci` and `npm run transpile` first)

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { openGrants } from '../grants.js';
import { HostError, InvalidRequestError, ReadWindow, parseConfig, parseRequest } from '../index.js';
import { resolveAbsoluteLinks } from '../links.js';

let reader;
let temp;
let one;
let two;

before(async () => {
  reader = await ReadWindow.load();
  temp = mkdtempSync(join(tmpdir(), 'read-window-js-test-'));
  one = join(temp, 'one');
  two = join(temp, 'two');
  for (const [dir, text] of [
    [one, 'from one\n'],
    [two, 'from two\n'],
  ]) {
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.txt'), text);
  }
  writeFileSync(join(one, 'lines.txt'), Array.from({ length: 100 }, (_, i) => `line ${i + 1}\n`).join(''));
  symlinkSync('/etc/hostname', join(one, 'abs-link'));
});

after(() => rmSync(temp, { recursive: true, force: true }));

describe('grants', () => {
  test('sessions granted different directories at the same guest path see only their own', () => {
    const first = reader.session({ '/scenario': one }, { dedup: false });
    const second = reader.session({ '/scenario': two }, { dedup: false });
    // Interleaved, with a stateless read over a third grant in between: nothing leaks between them.
    assert.equal(first.read('a.txt').content, '1|from one\n');
    assert.equal(second.read('/scenario/a.txt').content, '1|from two\n');
    assert.equal(reader.readOnce({ '/scenario': two }, null, 'a.txt').content, '1|from two\n');
    assert.equal(first.read('/scenario/a.txt').content, '1|from one\n');
    assert.equal(second.read('a.txt').content, '1|from two\n');
    first.close();
    second.close();
  });

  test('a directory granted by its host path is seen at its real path; other directories are outside', () => {
    const session = reader.session(one);
    const answer = session.read(join(one, 'a.txt'));
    assert.equal(answer.status, 'ok');
    assert.equal(answer.path, join(one, 'a.txt'));
    assert.equal(session.read(join(two, 'a.txt')).error.kind, 'outside_sandbox');
  });

  test('a root given through a link reads its own absolute paths', () => {
    const link = join(temp, 'one-link');
    symlinkSync(one, link);
    const session = reader.session(link);
    const answer = session.read(join(link, 'a.txt'));
    assert.equal(answer.status, 'ok');
    assert.equal(answer.path, join(one, 'a.txt'));
    assert.equal(answer.content, '1|from one\n');
    assert.equal(reader.readOnce([link], null, join(link, 'a.txt')).path, join(one, 'a.txt'));
    // A name that only begins like the link is not under it.
    assert.equal(session.read(`${link}x/a.txt`).error.kind, 'outside_sandbox');
    session.close();
  });

  test('several grants: the first is the working directory', () => {
    const session = reader.session({ '/w1': one, '/w2': two });
    assert.equal(session.read('a.txt').path, '/w1/a.txt');
    assert.equal(session.read('/w2/a.txt').content, '1|from two\n');
    const listed = reader.session([two, one]);
    assert.equal(listed.read('a.txt').content, '1|from two\n');
  });

  test('granted descriptors are read-only and hide absolute link targets', () => {
    const { preopens } = reader._instantiate(openGrants([['/g', one]], new Set()));
    const [[root, guest]] = preopens;
    assert.equal(guest, '/g');
    const refused = (f) => assert.throws(f, (code) => code === 'not-permitted');
    refused(() => root.openAt({ symlinkFollow: false }, 'new.txt', { create: true }, { read: true, write: true }));
    refused(() => root.openAt({ symlinkFollow: false }, 'a.txt', {}, { read: true, write: true }));
    refused(() => root.openAt({ symlinkFollow: false }, 'a.txt', { truncate: true }, { read: true }));
    refused(() => root.createDirectoryAt('made'));
    refused(() => root.unlinkFileAt('a.txt'));
    refused(() => root.readlinkAt('abs-link'));
    assert.equal(existsSync(join(one, 'new.txt')), false);
    assert.equal(existsSync(join(one, 'made')), false);
    assert.equal(existsSync(join(one, 'a.txt')), true);
    // Opened descriptors are read-only too; the preopen itself can be listed.
    const file = root.openAt({ symlinkFollow: false }, 'a.txt', {}, { read: true });
    refused(() => file.write(new Uint8Array([1]), 0n));
    const stream = root.readDirectory();
    const names = [];
    for (let entry = stream.readDirectoryEntry(); entry; entry = stream.readDirectoryEntry()) names.push(entry.name);
    assert.deepEqual(names.sort(), ['a.txt', 'abs-link', 'lines.txt']);
  });

  test('a grant that is not a directory fails to start', () => {
    assert.throws(() => reader.session(join(temp, 'missing')), (e) => e instanceof HostError && e.kind === 'start');
    assert.throws(() => reader.session(join(one, 'a.txt')), /not a directory/);
    assert.throws(() => reader.session({ relative: one }), /must be absolute/);
    assert.throws(() => reader.session([]), /no directory is granted/);
  });
});

describe('answers', () => {
  test('a window has the keys of json.rs in its order', () => {
    const answer = reader.session(one).read('lines.txt', { offset: 40, limit: 21 });
    assert.deepEqual(Object.keys(answer), [
      'status',
      'content_returned',
      'content',
      'path',
      'start_line',
      'start_column',
      'end_line',
      'lines_returned',
      'total_lines',
      'truncated',
      'truncated_by',
      'next_offset',
      'next_column',
      'clamped_lines',
      'hint',
      'file_size',
      'encoding',
      'budget',
      'text',
    ]);
    assert.equal(answer.text, `${answer.content}\n${answer.hint}`);
    assert.equal(answer.start_line, 40);
    assert.equal(answer.end_line, 60);
    assert.equal(answer.next_offset, 61);
    assert.equal(answer.next_column, null);
    assert.deepEqual(answer.truncated_by, ['limit']);
    assert.deepEqual(answer.budget, { unit: 'characters', limit: 100000, used: answer.content.length });
    assert.equal(typeof answer.file_size, 'number');
  });

  test('read(path, options) and read({path, ...options}) are the same request', () => {
    const a = reader.session(one).read('lines.txt', { offset: 5n, limit: 2 });
    const b = reader.session(one).read({ path: 'lines.txt', offset: 5, limit: 2n });
    assert.deepEqual(a, b);
    assert.equal(a.content, '5|line 5\n6|line 6\n');
  });

  test('a stub, an error with already_read, a retry window, stats', () => {
    const session = reader.session(one, { budget: { tokens: { cap: 1000 } } });
    assert.equal(session.read('a.txt').budget.cap, 1000);
    const stub = session.read('a.txt');
    assert.equal(stub.status, 'unchanged');
    assert.equal('content' in stub, false);
    assert.deepEqual(Object.keys(stub), [
      'status', 'content_returned', 'dedup', 'path', 'start_line', 'end_line', 'total_lines', 'next_offset',
      'next_column', 'message', 'text',
    ]);
    assert.equal(stub.text, stub.message);
    assert.equal(stub.total_lines, 1);
    assert.equal(stub.next_offset, null);
    const blocked = session.read('a.txt');
    assert.equal(blocked.error.kind, 'loop_blocked');
    assert.equal(blocked.error.already_read, 3);
    assert.equal(blocked.text, blocked.error.message);
    assert.equal(blocked.error.path, join(one, 'a.txt'));
    assert.deepEqual(blocked.error.suggestions, []);
    assert.deepEqual(session.otherTool(), { status: 'ok' });
    const retry = session.tokenRefusal('lines.txt', 1, 100, '(30000 tokens) exceeds maximum allowed tokens (25000)');
    assert.deepEqual(Object.keys(retry), ['status', 'offset', 'limit', 'refused_tokens', 'cap_tokens', 'hint']);
    assert.equal(retry.refused_tokens, 30000);
    assert.equal(session.tokenRefusal('lines.txt', 1, 100, 'nonsense').status, 'error');
    const window = session.read('lines.txt', { limit: 10 });
    assert.deepEqual(session.reportTokens('lines.txt', window.start_line, window.lines_returned, 40), { status: 'ok' });
    assert.equal(session.reportTokens('lines.txt', 2, 10, 40).error.kind, 'invalid_request');
    assert.equal(session.checkWrite('a.txt', stub.message).error.kind, 'echoed_output');
    assert.deepEqual(session.checkWrite('a.txt', 'plain text\n'), { status: 'ok' });
    assert.deepEqual(session.wrote('a.txt'), { status: 'ok' });
    assert.deepEqual(session.resetDedup(), { status: 'ok' });
    const stats = session.stats();
    assert.deepEqual(Object.keys(stats), ['status', 'positioned_reads', 'indexed_files', 'index_bytes', 'peak_memory_bytes']);
    assert.ok(stats.peak_memory_bytes >= 65536);
  });

  test('readOnce keeps no memory: no stubs, no tripwire', () => {
    for (let i = 0; i < 5; i += 1) assert.equal(reader.readOnce(one, {}, 'a.txt').status, 'ok');
    const session = reader.session(one);
    for (let i = 0; i < 5; i += 1) assert.equal(session.readOnce('a.txt').status, 'ok');
    assert.equal(session.read('a.txt').status, 'ok', 'the session itself has not seen a.txt');
  });

  test('answer() echoes the id first and answers malformed requests', () => {
    const session = reader.session(one);
    assert.deepEqual(Object.keys(session.answer({ id: 'q', op: 'stats' })).slice(0, 2), ['id', 'status']);
    assert.equal(session.answer({ op: 'fly', id: 1 }).error.kind, 'invalid_request');
    assert.equal(session.answer([1]).error.message, 'the request must be a JSON object with an `op` field, not an array');
  });

  test('close() drops the session; the next call starts a fresh one', () => {
    const session = reader.session(one);
    session.read('a.txt');
    assert.equal(session.read('a.txt').status, 'unchanged');
    session.close();
    assert.equal(session.read('a.txt').status, 'ok');
  });
});

describe('host failures', () => {
  test('a call that traps throws HostError and restarts the session with its state lost', () => {
    // A host import that throws a JS Error (not a WASI error code) unwinds through the guest: a trap.
    const armed = { on: false };
    const trapping = Object.create(reader);
    trapping._instantiate = (pairs) => {
      const instance = reader._instantiate(pairs);
      for (const [descriptor] of instance.preopens) {
        const statAt = descriptor.statAt;
        descriptor.statAt = function (...args) {
          if (armed.on) throw new Error('injected host failure');
          return statAt.apply(this, args);
        };
      }
      return instance;
    };
    const session = trapping.session(one);
    assert.equal(session.read('a.txt').status, 'ok');
    assert.equal(session.read('a.txt').status, 'unchanged');
    armed.on = true;
    assert.throws(
      () => session.read('lines.txt'),
      (e) => e instanceof HostError && e.kind === 'trap' && e.sessionRestarted && /injected host failure/.test(e.message),
    );
    armed.on = false;
    assert.equal(session.restarts(), 1);
    assert.equal(session.read('a.txt').status, 'ok', 'the dedup memory went with the old instance');
    armed.on = true;
    const answer = session.answer({ path: 'lines.txt' });
    assert.equal(answer.error.kind, 'host_error');
    assert.equal(answer.error.cause, 'trap');
    assert.equal(answer.error.session_restarted, true);
    armed.on = false;
    assert.equal(session.read('lines.txt').status, 'ok');
  });
});

describe('requests and config', () => {
  test('malformed read arguments are invalid_request answers naming the field', () => {
    const session = reader.session(one);
    const message = (answer) => {
      assert.equal(answer.error.kind, 'invalid_request');
      return answer.error.message;
    };
    assert.match(message(session.read('a.txt', { offset: -1 })), /`offset` must not be negative/);
    assert.match(message(session.read('a.txt', { limit: 1.5 })), /`limit` must be an integer/);
    assert.equal(
      message(session.read('a.txt', { column: 'x3' })),
      '`column` must be a character position from 0 inside the first line, as a JSON number; got the string "x3"',
    );
    assert.equal(
      message(session.read('a.txt', { limit: true })),
      '`limit` must be a count of lines from 1 (larger values are clamped to max-lines), as a JSON number, not a boolean',
    );
    assert.match(message(session.read('a.txt', { tail: 2 ** 32 })), /`tail` must be a count of last lines from 1 to 4294967295/);
    assert.match(message(session.read('a.txt', { column: 2n ** 64n })), /beyond the largest supported value/);
    assert.match(message(session.read('a.txt', { ofset: 3 })), /unknown field `ofset`/);
    assert.match(message(session.read(42)), /`path` must be a string, not a number/);
    assert.match(message(session.read({ offset: 1 })), /`path` is missing/);
    assert.match(message(session.wrote(null)), /`path` is missing: the `wrote` op/);
    assert.match(message(session.reportTokens('a.txt', 1, 2)), /`tokens` is missing/);
    assert.equal(session.read('a.txt', { limit: 0 }).error.kind, 'invalid_request', 'the component refuses limit 0');
  });

  test('optional numbers are taken the way models send them', () => {
    const session = reader.session(one);
    const plain = session.read('lines.txt', { offset: '', limit: null, column: ' ' });
    assert.equal(plain.start_line, 1);
    assert.equal(plain.warnings, undefined);
    const noted = session.read('lines.txt', { offset: '40', limit: '1' });
    assert.equal(noted.content, '40|line 40\n');
    assert.deepEqual(noted.warnings, [
      '`offset` was the string "40"; it was read as the number 40. Send numbers as JSON numbers.',
      '`limit` was the string "1"; it was read as the number 1. Send numbers as JSON numbers.',
    ]);
    const tail = reader.readOnce(one, undefined, 'lines.txt', { tail: '1' });
    assert.equal(tail.content, '100|line 100\n');
    assert.equal(tail.next_offset, null);
  });

  test('parseRequest follows the session protocol', () => {
    assert.deepEqual(parseRequest({ path: 'a', offset: 5, limit: 1e3, column: null }), {
      op: 'read',
      path: 'a',
      offset: 5n,
      limit: 1000n,
      column: undefined,
      tail: undefined,
      extract: undefined,
      notes: [],
    });
    assert.deepEqual(parseRequest({ path: 'nb.ipynb', extract: 'false' }), {
      op: 'read',
      path: 'nb.ipynb',
      offset: undefined,
      limit: undefined,
      column: undefined,
      tail: undefined,
      extract: false,
      notes: ['`extract` was the string "false"; it was read as the boolean false. Send booleans as JSON true or false.'],
    });
    assert.throws(
      () => parseRequest({ path: 'a', extract: 'no' }),
      /`extract` must be true or false, as a JSON boolean, not the string "no"/,
    );
    assert.deepEqual(parseRequest({ op: 'stats', id: 7 }), { op: 'stats', id: 7 });
    assert.throws(() => parseRequest({ op: 'stats', path: 'a' }), /unknown field `path` for op `stats`; its fields are: none/);
    assert.throws(() => parseRequest({ op: 3 }), InvalidRequestError);
  });

  test('config: snake_case fields, budgets, absent fields left to the component', () => {
    assert.deepEqual(parseConfig(undefined), {});
    const record = parseConfig({ max_lines: 10, budget: { characters: 500 }, not_found_ttl_ms: 0, deny_patterns: ['**/x'] });
    assert.equal(record.maxLines, 10);
    assert.deepEqual(record.budget, { tag: 'characters', val: 500 });
    assert.equal(record.notFoundTtlMs, 0n);
    assert.deepEqual(record.denyPatterns, ['**/x']);
    assert.equal(record.dedup, undefined);
    assert.deepEqual(parseConfig({ budget: { tokens: {} } }).budget, { tag: 'tokens', val: { cap: undefined, headroom: undefined } });
    assert.throws(() => parseConfig({ max_line: 3 }), /unknown config field `max_line`/);
    assert.throws(() => parseConfig({ max_lines: 2 ** 32 }), /beyond the largest supported value 4294967295/);
    assert.throws(() => parseConfig({ budget: { characters: 1, tokens: {} } }), /exactly one key/);
    assert.throws(() => reader.session(one, { dedup: 'yes' }), InvalidRequestError);
  });

  test('a config value the component refuses is replaced by its default with a warning', () => {
    const answer = reader.session(one, { max_lines: 0 }).read('a.txt');
    assert.equal(answer.status, 'ok');
    assert.equal(answer.warnings.length, 1);
  });
});

describe('absolute links', () => {
  test('the walk lists the path asked for and every link it followed, relative or absolute, in order', () => {
    const dir = join(temp, 'walked');
    mkdirSync(join(dir, 'real'), { recursive: true });
    writeFileSync(join(dir, 'real', 'x.txt'), 'x\n');
    symlinkSync(join(dir, 'real'), join(dir, 'abs'));
    symlinkSync('abs', join(dir, 'rel'));
    const pairs = [['/w', dir]];
    assert.deepEqual(resolveAbsoluteLinks(pairs, undefined, 'rel/./x.txt'), {
      path: '/w/real/x.txt',
      askedVia: ['/w/rel/x.txt', '/w/rel', '/w/abs'],
    });
    assert.deepEqual(resolveAbsoluteLinks(pairs, undefined, '/w/real/x.txt'), { path: '/w/real/x.txt', askedVia: undefined });
    assert.deepEqual(resolveAbsoluteLinks(pairs, undefined, 'rel/'), { path: '/w/real/', askedVia: ['/w/rel', '/w/rel', '/w/abs'] });
  });

  test('a credential name asked through an absolute link is refused, as the file itself', () => {
    const dir = join(temp, 'dotenv');
    mkdirSync(dir);
    writeFileSync(join(dir, 'settings.txt'), 'TOKEN=plain\n');
    symlinkSync(join(dir, 'settings.txt'), join(dir, '.env'));
    const session = reader.session({ '/p': dir }, { dedup: false });
    assert.equal(session.read('settings.txt').status, 'ok');
    const answer = session.read('.env');
    assert.equal(answer.status, 'error');
    assert.equal(answer.error.kind, 'credential');
  });
});

describe('loading', () => {
  test('a missing transpile says which command to run', async () => {
    await assert.rejects(ReadWindow.load({ dir: join(temp, 'nothing') }), (e) => {
      assert.ok(e instanceof HostError);
      assert.equal(e.kind, 'start');
      assert.match(e.message, /npm run transpile/);
      return true;
    });
  });

  test('HostError renders the host_error shape', () => {
    const error = new HostError('trap', 'boom', { sessionRestarted: true });
    assert.deepEqual(error.toJSON(), {
      status: 'error',
      content_returned: false,
      text: 'boom',
      error: { kind: 'host_error', cause: 'trap', message: 'boom', session_restarted: true },
    });
  });
});
