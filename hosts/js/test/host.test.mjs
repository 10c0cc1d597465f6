// Tests of the JavaScript layer: grants and isolation, requests piped to the component's protocol (arguments
// untouched, answers as the component gives them), the absolute links, restarts after a trap, loading. The
// component's behaviour is tested by the scenario files (node scenarios.mjs ../../tests/scenarios).
//
//   npm test        (needs `npm ci` and `npm run transpile` first)

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { openGrants } from '../grants.js';
import { HostError, ReadWindow } from '../index.js';
import { resolveAbsoluteLinks } from '../links.js';

/** A 3 x 2 RGB PNG. */
const TINY_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR42mP4z8DAAMFwFgA72AX7NhGY6gAAAABJRU5ErkJggg==';

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
    assert.equal(first.read('a.txt', { content: true }).content, '1|from one\n');
    assert.equal(second.read('/scenario/a.txt', { content: true }).content, '1|from two\n');
    assert.equal(reader.readOnce({ '/scenario': two }, null, 'a.txt', { content: true }).content, '1|from two\n');
    assert.equal(first.read('/scenario/a.txt', { content: true }).content, '1|from one\n');
    assert.equal(second.read('a.txt', { content: true }).content, '1|from two\n');
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
    const answer = session.read(join(link, 'a.txt'), { content: true });
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
    assert.equal(session.read('/w2/a.txt', { content: true }).content, '1|from two\n');
    const listed = reader.session([two, one]);
    assert.equal(listed.read('a.txt', { content: true }).content, '1|from two\n');
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
    const answer = reader.session(one).read('lines.txt', { offset: 40, limit: 21, content: true });
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
    // Not asked for, the window is in `text` alone.
    const once = reader.session(one).read('lines.txt', { offset: 40, limit: 21 });
    assert.equal(once.content, undefined);
    assert.equal(once.text, answer.text);
  });

  test('read(path, options) and read({path, ...options}) are the same request', () => {
    const a = reader.session(one).read('lines.txt', { offset: 5n, limit: 2 });
    const b = reader.session(one).read({ path: 'lines.txt', offset: 5, limit: 2n });
    assert.deepEqual(a, b);
    assert.equal(a.text.split('\n\n')[0], '5|line 5\n6|line 6');
  });

  test('an image is a Uint8Array of its picture; a region shows a part', () => {
    const png = Buffer.from(TINY_PNG, 'base64');
    writeFileSync(join(one, 'dot.png'), png);
    const session = reader.session(one);
    const answer = session.read('dot.png');
    assert.ok(answer.data instanceof Uint8Array);
    assert.deepEqual(Buffer.from(answer.data), png);
    assert.equal(answer.image.mime_type, 'image/png');
    assert.deepEqual([answer.image.width, answer.image.height], [3, 2]);
    const part = session.readOnce('dot.png', { region: { x: 1, y: 0, width: 2, height: 2 } });
    assert.deepEqual(part.image.region, { x: 1, y: 0, width: 2, height: 2 });
    assert.deepEqual([...part.data.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    // The raw protocol answer keeps the base64 text.
    assert.equal(session.request({ op: 'read_once', path: 'dot.png' }).data, TINY_PNG);
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
    // The way back after compaction: fresh returns the content the stub stands for (the read the stub answered).
    const fresh = session.read('a.txt', { fresh: true });
    assert.equal(fresh.status, 'ok');
    assert.equal(fresh.content_returned, true);
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
    assert.deepEqual(Object.keys(stats), ['status', 'positioned_reads', 'indexed_files', 'index_bytes', 'documents_extracted', 'documents_from_store', 'peak_memory_bytes']);
    assert.ok(stats.peak_memory_bytes >= 65536);
  });

  test('readOnce keeps no memory: no stubs, no tripwire', () => {
    for (let i = 0; i < 5; i += 1) assert.equal(reader.readOnce(one, {}, 'a.txt').status, 'ok');
    const session = reader.session(one);
    for (let i = 0; i < 5; i += 1) assert.equal(session.readOnce('a.txt').status, 'ok');
    assert.equal(session.read('a.txt').status, 'ok', 'the session itself has not seen a.txt');
  });

  test('request() echoes the id first and answers malformed requests; answer() is text in, text out', () => {
    const session = reader.session(one);
    assert.deepEqual(Object.keys(session.request({ id: 'q', op: 'stats' })).slice(0, 2), ['id', 'status']);
    // The component's message word for word; the ops it adds after `tools` (while it grows) are left open.
    assert.match(
      session.request({ op: 'fly', id: 1 }).error.message,
      new RegExp(
        '^unknown `op` "fly": expected one of read, read_once, other_tool, reset_dedup, wrote, check_write, ' +
          'report_tokens, token_refusal, stats, config, configure, tools, (\\w+, )*capture_begin, capture_chunk, capture_end$',
      ),
    );
    assert.equal(session.request([1]).error.message, 'the request must be a JSON object with an `op` field, not an array');
    const text = session.answer('{"id":3,"op":"other_tool"}');
    assert.equal(text, '{"id":3,"status":"ok"}');
    assert.equal(session.request('{"op":"stats"').error.kind, 'invalid_request', 'malformed JSON is answered too');
    assert.throws(() => session.answer({ op: 'stats' }), TypeError);
  });

  test('an op only the component knows reaches JavaScript', () => {
    const answer = reader.session(one).request({ op: 'tools', format: 'openai', id: 7 });
    assert.equal(answer.id, 7);
    assert.equal(answer.status, 'ok');
    assert.equal(answer.tools[0].function.name, 'read_file');
    assert.deepEqual(answer.tools.map((tool) => tool.function.name),
      ['read_file', 'list_directory', 'read_files', 'search', 'check_write']);
    assert.equal(answer.tools[0].function.parameters.properties.limit.maximum, 2000);
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
  test('a call that traps is a host_error answer, and the session restarts with its config and none of its state', () => {
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
    assert.deepEqual(session.request({ op: 'configure', max_lines: 5 }), { status: 'ok' });
    assert.equal(session.read('a.txt').status, 'ok');
    assert.equal(session.read('a.txt').status, 'unchanged');
    armed.on = true;
    const failed = session.read('lines.txt');
    assert.equal(failed.status, 'error');
    assert.equal(failed.error.kind, 'host_error');
    assert.equal(failed.error.cause, 'trap');
    assert.equal(failed.error.session_restarted, true);
    assert.match(failed.error.message, /injected host failure.*the session was restarted/);
    armed.on = false;
    assert.equal(session.restarts(), 1);
    assert.equal(session.read('a.txt').status, 'ok', 'the dedup memory went with the old instance');
    assert.equal(session.request({ op: 'config' }).config.max_lines, 5, 'the restart kept the configured config');
    assert.equal(session.read('lines.txt').lines_returned, 5);
    armed.on = true;
    const answer = session.request({ id: 'x', path: 'lines.txt' });
    assert.deepEqual(Object.keys(answer).slice(0, 2), ['id', 'status']);
    assert.equal(answer.id, 'x');
    assert.equal(answer.error.kind, 'host_error');
    armed.on = false;
    assert.equal(session.read('lines.txt', { offset: 6 }).status, 'ok');
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
    const noted = session.read('lines.txt', { offset: '40', limit: '1', content: true });
    assert.equal(noted.content, '40|line 40\n');
    assert.deepEqual(noted.warnings, [
      '`offset` was the string "40"; it was read as the number 40. Send numbers as JSON numbers.',
      '`limit` was the string "1"; it was read as the number 1. Send numbers as JSON numbers.',
    ]);
    const tail = reader.readOnce(one, undefined, 'lines.txt', { tail: '1', content: true });
    assert.equal(tail.content, '100|line 100\n');
    assert.equal(tail.next_offset, null);
  });

  test('requests reach the component as given, and its checks answer them', () => {
    const session = reader.session(one, { dedup: false });
    const noted = session.request({ path: 'a.txt', extract: 'false' });
    assert.deepEqual(noted.warnings, [
      '`extract` was the string "false"; it was read as the boolean false. Send booleans as JSON true or false.',
    ]);
    assert.equal(
      session.request({ path: 'a', extract: 'no' }).error.message,
      '`extract` must be true or false, as a JSON boolean, not the string "no"',
    );
    assert.deepEqual(session.request({ op: 'stats', id: 7 }).id, 7);
    assert.equal(session.request({ op: 'stats', path: 'a' }).error.message, 'unknown field `path` for op `stats`; its fields are: none');
    assert.equal(session.request({ op: 3 }).error.message, '`op` must be a string, not a number');
  });

  test('config: the constructor takes it as JSON (an object or its text); the component checks it', () => {
    const config = { max_lines: 10, budget: { characters: 500 }, not_found_ttl_ms: 0, deny_patterns: ['**/x'] };
    for (const given of [config, JSON.stringify(config)]) {
      const shown = reader.session(one, given).request({ op: 'config' }).config;
      assert.equal(shown.max_lines, 10);
      assert.deepEqual(shown.budget, { characters: 500 });
      assert.equal(shown.not_found_ttl_ms, 0);
      assert.deepEqual(shown.deny_patterns, ['**/x']);
    }
    const refused = (given) => {
      const answer = reader.session(one, given).read('a.txt');
      assert.equal(answer.error.kind, 'invalid_request');
      return answer.error.message;
    };
    const prefix = 'the host started this session with a config it could not use, so it answers no request: ';
    assert.equal(
      refused({ max_line: 3 }),
      `${prefix}unknown config field \`max_line\`; the fields are: max_lines, max_line_length, budget, ` +
        'working_directory, dedup, loop_warn_at, loop_block_at, not_found_ttl_ms, deny_patterns, allow_patterns, ' +
        'ignore_files, escape_invisible, images, document_cache_dir',
    );
    assert.equal(refused({ max_lines: 2 ** 32 }), `${prefix}\`max_lines\` is beyond the largest supported value 4294967295 (got 4294967296)`);
    assert.equal(refused({ dedup: 'yes' }), `${prefix}\`dedup\` must be a boolean, not a string`);
    assert.match(refused('{"max_lines": '), /the config is not valid JSON/);
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

  test('a request crossing an absolute link is rewritten before the component; a link out of every grant is refused', () => {
    const dir = join(temp, 'linked');
    mkdirSync(join(dir, 'real'), { recursive: true });
    writeFileSync(join(dir, 'real', 'x.txt'), 'x\n');
    symlinkSync(join(dir, 'real'), join(dir, 'abs'));
    symlinkSync(join(two, 'a.txt'), join(dir, 'out'));
    const session = reader.session({ '/w': dir }, { working_directory: '/w/real' });
    assert.equal(session.read('../abs/x.txt').path, '/w/real/x.txt');
    assert.equal(session.readOnce('/w/abs/x.txt', { content: true }).content, '1|x\n');
    assert.deepEqual(session.checkWrite('/w/abs/x.txt', 'fine\n'), { status: 'ok' });
    const outside = session.request({ id: 9, op: 'check_write', path: '/w/out', text: 'y' });
    assert.deepEqual(Object.keys(outside).slice(0, 2), ['id', 'status']);
    assert.equal(outside.error.kind, 'outside_sandbox');
    assert.equal(outside.error.path, '/w/out');
    assert.equal(session.read('/w/out').error.kind, 'outside_sandbox');
    assert.equal(
      session.read('/w/out').text,
      `/w/out goes through the link /w/out, which points to ${join(two, 'a.txt')}: outside the directories ` +
        'read-window may read (/w). Read the file under a granted directory instead.',
    );
    // A tool call's path is walked too.
    const called = session.request({ op: 'tool_call', name: 'read_file', arguments: { path: '/w/abs/x.txt' } });
    assert.equal(called.path, '/w/real/x.txt');
    // A request that already carries `asked_via` goes to the component as it is.
    assert.equal(session.request({ path: '/w/out', asked_via: ['/w/out'] }).error.kind, 'outside_sandbox');
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
});
