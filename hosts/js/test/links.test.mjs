// Tests of the requests the absolute-link walk rewrites (links.js): the component sees every other byte as sent, a
// line that gives a key twice goes unchanged (the component refuses it, as on every host), and the scenario runner
// reads answers with integers beyond 2^53 exactly.
//
//   npm test        (needs `npm ci` and `npm run transpile` first)

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ReadWindow } from '../index.js';
import { linkedRequest } from '../links.js';
import { parseJson, runScenario } from '../scenarios.mjs';

const U64_MAX = '18446744073709551615';

let reader;
let temp;
let dir;
let pairs;

before(async () => {
  reader = await ReadWindow.load();
  temp = mkdtempSync(join(tmpdir(), 'read-window-js-links-'));
  dir = join(temp, 'w');
  mkdirSync(join(dir, 'real'), { recursive: true });
  writeFileSync(join(dir, 'real', 'x.txt'), 'x\n');
  symlinkSync(join(dir, 'real'), join(dir, 'abs'));
  writeFileSync(join(temp, 'secret.txt'), 'secret\n');
  symlinkSync(join(temp, 'secret.txt'), join(dir, 'out'));
  pairs = [['/w', dir]];
});

after(() => rmSync(temp, { recursive: true, force: true }));

/** The answer text to `line` in a fresh session over `/w` (no dedup, so each answer is a window). */
const answer = (line) => reader.session({ '/w': dir }, { dedup: false }).answer(line);

/** The component's refusal of a request that is not strict JSON. */
function invalid(message, id) {
  const error = { kind: 'invalid_request', message: `the request is not valid JSON: ${message}`, suggestions: [] };
  return { ...id, status: 'error', content_returned: false, text: error.message, error };
}

describe('a key given twice', () => {
  const cases = [
    ['{"op":"read","path":"/w/abs/x.txt","path":"/w/abs/x.txt"}', 'the key `path` is given twice at line 1 column 41'],
    ['{"op":"read","path":"/w/abs/x.txt","p\\u0061th":"/w/abs/x.txt"}', 'the key `path` is given twice at line 1 column 46'],
    ['{"op":"read","op":"read","path":"/w/abs/x.txt"}', 'the key `op` is given twice at line 1 column 17'],
    [
      '{"op":"tool_call","name":"read_file","arguments":{"path":"/w/abs/x.txt","path":"/w/abs/x.txt"}}',
      'the key `path` is given twice at line 1 column 78',
    ],
    [
      '{"op":"tool_call","name":"read_file","arguments":{"path":"/w/abs/x.txt"},"arguments":{"path":"/w/abs/x.txt"}}',
      'the key `arguments` is given twice at line 1 column 84',
    ],
    ['{"id":{"a":1,"a":2},"op":"read","path":"/w/abs/x.txt"}', 'the key `a` is given twice at line 1 column 16', { id: { a: 2 } }],
  ];

  test('a line through an absolute link that gives a key twice, at any depth, goes to the component as sent', () => {
    for (const [line, message, id] of cases) {
      assert.equal(linkedRequest(pairs, undefined, line), line);
      assert.deepEqual(JSON.parse(answer(line)), invalid(message, id), line);
    }
  });

  test('the same lines with each key once are rewritten and read through the link', () => {
    const once = [
      '{"op":"read","path":"/w/abs/x.txt"}',
      '{"op":"tool_call","name":"read_file","arguments":{"path":"/w/abs/x.txt"}}',
      '{"id":{"a":1,"b":2},"op":"read","path":"/w/abs/x.txt"}',
    ];
    for (const line of once) {
      const read = JSON.parse(answer(line));
      assert.equal(read.status, 'ok', line);
      assert.equal(read.path, '/w/real/x.txt');
      assert.ok(read.text.startsWith('1|x\n\n'), line);
    }
  });
});

describe('numbers through a rewritten request', () => {
  test('an id and an offset of u64::MAX reach the component digit for digit, and the id is echoed so', () => {
    const line = `{"id":${U64_MAX},"offset":${U64_MAX},"op":"read","path":"/w/abs/x.txt"}`;
    assert.equal(
      linkedRequest(pairs, undefined, line),
      `{"id":${U64_MAX},"offset":${U64_MAX},"op":"read","path":"/w/real/x.txt","asked_via":["/w/abs/x.txt","/w/abs"]}`,
    );
    const text = answer(line);
    assert.ok(text.startsWith(`{"id":${U64_MAX},"status":"error",`), text);
    const message = `offset ${U64_MAX} is past the end of /w/real/x.txt, which has 1 line. Use an offset from 1 to 1.`;
    assert.deepEqual(parseJson(text), {
      id: BigInt(U64_MAX),
      status: 'error',
      content_returned: false,
      text: message,
      error: { kind: 'invalid_request', message, path: '/w/real/x.txt', suggestions: [], total_lines: 1 },
    });
  });

  test('the rest of a rewritten line is kept byte for byte: spacing, `1.0`, `-0`, a number out of range', () => {
    const call = `{ "id" : 1.0 , "op":"tool_call", "name":"read_file", "arguments": { "offset": -0, "path" : "/w/abs/x.txt" } }`;
    assert.equal(
      linkedRequest(pairs, undefined, call),
      `{ "id" : 1.0 , "op":"tool_call", "name":"read_file", "arguments": { "offset": -0, "path" : "/w/real/x.txt" } ` +
        ',"asked_via":["/w/abs/x.txt","/w/abs"]}',
    );
    assert.ok(answer(call).startsWith('{"id":1.0,"status":"ok",'));
    // Refused as the component refuses it without the link (the number comes before the path: the same column).
    const huge = '{"offset":1e400,"op":"read","path":"/w/abs/x.txt"}';
    assert.deepEqual(JSON.parse(answer(huge)), invalid('number out of range at line 1 column 15'));
    assert.equal(answer(huge), answer('{"offset":1e400,"op":"read","path":"/w/real/x.txt"}'));
  });

  test('a link out of every grant adds the link_refusal and keeps the id exact', () => {
    const line = `{"id":${U64_MAX},"op":"check_write","path":"/w/out","text":"y"}`;
    const target = join(temp, 'secret.txt');
    assert.equal(
      linkedRequest(pairs, undefined, line),
      `{"id":${U64_MAX},"op":"check_write","path":"/w/out","text":"y","link_refusal":{"outside":{"link":"/w/out","target":${JSON.stringify(target)}}}}`,
    );
    const refused = parseJson(answer(line));
    assert.equal(refused.id, BigInt(U64_MAX));
    assert.equal(refused.error.kind, 'outside_sandbox');
  });

  test('a request of millions of escaped characters through a link is still rewritten', () => {
    const line = JSON.stringify({ op: 'check_write', path: '/w/abs/x.txt', text: 'a"\\b\n'.repeat(4_000_000) });
    assert.equal(linkedRequest(pairs, undefined, line), line.replace('/w/abs/x.txt', '/w/real/x.txt'));
  });
});

describe('the scenario runner', () => {
  test('parseJson reads an integer beyond 2^53 as a BigInt and leaves strings, decimals and safe integers', () => {
    assert.deepEqual(parseJson(`{"id":${U64_MAX},"a":[-${U64_MAX},"${U64_MAX}",1.5,9007199254740991,1e400]}`), {
      id: BigInt(U64_MAX),
      a: [-BigInt(U64_MAX), U64_MAX, 1.5, 9007199254740991, Infinity],
    });
    const long = parseJson(`{"t":${JSON.stringify('a"\\'.repeat(3_000_000))},"n":${U64_MAX}}`);
    assert.equal(long.n, BigInt(U64_MAX));
    assert.throws(() => parseJson('{"a":'), SyntaxError);
  });

  test('an id of u64::MAX through an absolute link is matched exactly', () => {
    const scenario = (id) => ({
      name: 'u64_id_through_a_link',
      files: { 'real/a.txt': 'alpha\n', abs: { symlink_absolute: 'real' } },
      steps: [{ op: 'read', path: 'abs/a.txt', id: BigInt(U64_MAX), expect: { id, status: 'ok', path: '/scenario/real/a.txt' } }],
    });
    runScenario(reader, scenario(BigInt(U64_MAX)));
    assert.throws(() => runScenario(reader, scenario(BigInt(U64_MAX) - 1n)), /at \/id: expected 18446744073709551614, got 18446744073709551615/);
  });
});
