// The capture ops through the JavaScript host (issue 14): a command's output as head, marker and tail, spilled to
// a file in the one directory granted read-write; bytes go through the component's push-output.
//
//   npm test        (needs `npm ci` and `npm run transpile` first)

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ReadWindow } from '../index.js';

let reader;
let root;
let spill;

before(async () => {
  reader = await ReadWindow.load();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'read-window-js-capture-')));
  spill = join(root, 'spill');
  mkdirSync(spill);
});

after(() => rmSync(root, { recursive: true, force: true }));

test('an overflowing output is spilled and read back at the marker lines', () => {
  const session = reader.session([root], {}, { writable: [spill] });
  assert.deepEqual(session.captureBegin({ window_chars: 200, spill_dir: spill }), { status: 'ok' });
  let raw = '';
  for (let n = 1; n <= 100; n++) {
    const line = `line ${String(n).padStart(4, '0')}\n`;
    raw += line;
    assert.equal(session.captureChunk(line).status, 'ok');
  }
  // "é" split across two chunks.
  session.captureChunk(new Uint8Array([0x65, 0x6e, 0x64, 0x0a, 0xc3]));
  session.captureChunk(new Uint8Array([0xa9]));
  const end = session.captureEnd(2, { content: true });
  const path = join(spill, 'capture-1.log');
  assert.equal(end.spill_path, path);
  assert.deepEqual([end.omitted_first_line, end.omitted_last_line, end.omitted_chars], [9, 89, 810]);
  assert.equal(end.exit_status, 2);
  assert.ok(end.content.endsWith('line 0100\nend\né'));
  assert.ok(end.content.includes(`they are lines 9-89 of the spill ${path}]\n`));
  assert.equal(readFileSync(path, 'utf8'), `${raw}end\né`);
  assert.equal(session.read(path, { offset: 9, limit: 1, content: true }).content, '9|line 0009\n');
});

test('without a spill_dir the one writable directory takes the spill', () => {
  const own = join(root, 'own');
  mkdirSync(own);
  const session = reader.session([root], {}, { writable: [own] });
  session.captureBegin({ window_chars: 200 });
  let raw = '';
  for (let n = 1; n <= 100; n++) raw += `line ${String(n).padStart(4, '0')}\n`;
  session.captureChunk(raw);
  const end = session.captureEnd();
  assert.equal(end.spill_path, join(own, 'capture-1.log'));
  assert.equal(end.omitted_first_line, 9);
});

test('a link planted at the spill name is not followed', () => {
  const dir = join(root, 'linked');
  mkdirSync(dir);
  const victim = join(root, 'victim.txt');
  writeFileSync(victim, 'precious');
  symlinkSync(victim, join(dir, 'capture-1.log'));
  const session = reader.session([root], {}, { writable: [dir] });
  session.captureBegin({ window_chars: 200, spill_dir: dir });
  session.captureChunk('data\n'.repeat(1000));
  const end = session.captureEnd();
  assert.equal(end.spill_path, join(dir, 'capture-2.log'));
  assert.equal(readFileSync(victim, 'utf8'), 'precious');
});

test('a read-only spill directory keeps the window and says why', () => {
  const session = reader.session([root]);
  session.captureBegin({ window_chars: 200, spill_dir: spill });
  session.captureChunk('row\n'.repeat(1000));
  const end = session.captureEnd(undefined, { content: true });
  assert.equal(
    end.spill_error,
    `the spill directory ${spill} is not writable (permission denied; the host must grant it read-write)`,
  );
  assert.equal(end.spill_path, undefined);
  assert.ok(end.content.startsWith('row\n') && end.content.endsWith('row\n'));
});

test('bad input is an invalid request', () => {
  const session = reader.session([root]);
  assert.equal(session.captureChunk('x').error.message, 'no capture is open; send capture_begin first.');
  assert.equal(session.captureBegin({ window: 5 }).error.kind, 'invalid_request');
  assert.equal(session.captureBegin({ head_share: 'half' }).error.kind, 'invalid_request');
  session.captureBegin();
  assert.equal(session.captureEnd('one').error.message, '`exit_status` must be a 32-bit integer, not "one"');
  assert.equal(session.captureChunk(3).error.kind, 'invalid_request');
});
