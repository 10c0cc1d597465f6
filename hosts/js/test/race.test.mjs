// The sandbox under races (issue 23): reads and captures of one session while another process swaps directories
// and files of the grants for links out of them, with renameat2(RENAME_EXCHANGE) every 0.3 ms. No answer may show
// what lies outside (the canary's text, the names of the outside directory), nor the credentials the built-in
// rules refuse, and no spill file may be created outside the writable grant. The fixture and the swapper are
// tests/race/race.py, shared by every host.
//
//   npm test                                   (needs python3, `npm ci` and `npm run transpile` first)
//   RACE_READS=2000 RACE_CAPTURES=100 node --test test/race.test.mjs     (a quick run)

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';

import { ReadWindow } from '../index.js';

const RACE_PY = fileURLToPath(new URL('../../../tests/race/race.py', import.meta.url));
const READS = Number(process.env.RACE_READS ?? 20_000);
const CAPTURES = Number(process.env.RACE_CAPTURES ?? 1_000);

const python = spawnSync('python3', ['--version']);
const skip = python.error ? `python3 is missing (${python.error.code}): the race fixture and swapper need it` : false;

const temp = realpathSync(mkdtempSync(join(tmpdir(), 'read-window-js-race-')));
after(() => rmSync(temp, { recursive: true, force: true }));

/** The plan of `race.py setup` for a tree under `dir`. */
function setup(dir) {
  const made = spawnSync('python3', [RACE_PY, 'setup', dir], { encoding: 'utf8' });
  assert.equal(made.status, 0, `race.py setup failed: ${made.stderr}`);
  return JSON.parse(made.stdout);
}

/** Starts `race.py swap` on `dir`: `stop()` closes its input and resolves to the swaps it made. */
function startSwapper(dir) {
  const child = spawn('python3', [RACE_PY, 'swap', dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out).swaps) : reject(new Error(`race.py swap exited ${code}`))));
  });
  return {
    stop() {
      child.stdin.end();
      return exited;
    },
    kill: () => child.kill(),
  };
}

/** Resolves once the first pair of the plan is seen exchanged (a link at the directory's name), or rejects. */
async function swapping(plan) {
  const [path] = plan.pairs[0];
  for (let waited = 0; waited < 10_000; waited += 5) {
    if (lstatSync(path).isSymbolicLink()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`race.py swap never exchanged ${path}`);
}

/** What a tally counts an answer as: its error kind, else its status (`ok`, `unchanged`). */
const kindOf = (answer) => (answer.status === 'error' ? answer.error.kind : answer.status);

/** `count` of `key` in the tally `counts` plus one. */
const bump = (counts, key) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** The forbidden strings `answer` holds, anywhere in its JSON. */
const leaks = (plan, answer) => plan.forbidden.filter((text) => JSON.stringify(answer).includes(text));

test('no answer leaves the grants while another process swaps links into them', { skip, timeout: 120_000 }, async (t) => {
  const plan = setup(temp);
  const reader = await ReadWindow.load();
  const session = reader.session(plan.grants, plan.config, { writable: plan.writable_grants });
  const [canary, secret, outsideName] = plan.forbidden;
  const leaked = new Map(plan.forbidden.map((text) => [text, 0]));
  const tally = new Map();
  const spills = new Map();
  const badSpillPaths = [];
  const started = Date.now();
  const swapper = startSwapper(temp);
  let reads = 0;
  let captures = 0;
  try {
    await swapping(plan);
    while (reads < READS || captures < CAPTURES) {
      if (reads < READS) {
        const answer = session.request(plan.reads[reads % plan.reads.length]);
        for (const text of leaks(plan, answer)) bump(leaked, text);
        bump(tally, kindOf(answer));
        reads += 1;
      }
      if (captures < CAPTURES && captures * READS <= reads * CAPTURES) {
        const steps = plan.captures[captures % plan.captures.length];
        const answers = steps.map((step) => session.request(step));
        for (const answer of answers) for (const text of leaks(plan, answer)) bump(leaked, text);
        const end = answers.at(-1);
        bump(spills, end.spill_path === undefined ? `spill_error` : 'spilled');
        if (end.spill_path !== undefined && !end.spill_path.startsWith('/spill/')) badSpillPaths.push(end.spill_path);
        captures += 1;
      }
    }
  } catch (error) {
    swapper.kill();
    throw error;
  }
  const swaps = await swapper.stop();
  const outsideSpills = readdirSync(plan.outside_spill);
  const list = (counts) => [...counts].map(([key, n]) => `${key} ${n}`).join(', ');
  t.diagnostic(
    `race (js): ${reads} reads, ${captures} captures, ${leaked.get(canary) + leaked.get(outsideName)} canaries, ` +
      `${leaked.get(secret)} secrets, ${outsideSpills.length} outside spills, ${swaps} swaps; answers: ${list(tally)}; ` +
      `captures: ${list(spills)}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  assert.ok(swaps > 0, 'the swapper made no swap');
  assert.deepEqual(Object.fromEntries(leaked), Object.fromEntries(plan.forbidden.map((text) => [text, 0])));
  assert.deepEqual(outsideSpills, [], 'a spill file was created outside the writable grant');
  assert.deepEqual(badSpillPaths, [], 'a spill path lies outside /spill');
});
