// The package's TypeScript types (index.d.ts): every export of index.js is declared, and test/types/usage.ts (the
// README's example, with calls the types must refuse) compiles under `tsc --strict`.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as host from '../index.js';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

test('every export of index.js has a declaration in index.d.ts, and nothing more is declared', () => {
  const declared = [...readFileSync(here('../index.d.ts'), 'utf8').matchAll(/^export (?:class|const|function) (\w+)/gm)]
    .map(([, name]) => name);
  assert.deepEqual(declared.sort(), Object.keys(host).sort());
});

test('test/types/usage.ts compiles against index.d.ts with tsc --strict', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', here('types/usage.ts')],
  { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc failed:\n${run.stdout}${run.stderr}`);
});
