#!/usr/bin/env node
// Per-read latency of the JavaScript host: lines 40-60 of a 100-line source file (the small read of
// docs/benchmarks.md), median over many calls; then a 2,000-line page (200 kB) with its window once (in `text`) and
// with `content: true` (twice, as every answer was before issue 30), a twentieth as many reads.
//
//   node hosts/js/bench.mjs [--runs N]      (default 2001 warm reads; a tenth as many for the fresh-instance rows)
//
// Dedup is off so repeats return content, and the loop tripwire's thresholds are out of reach: consecutive reads
// alternate between offset 40 and 41, a cycle of two the tripwire would block (as the Rust and Python benches do).
// Every answer, warm-up included, must be a 21-line window, or the bench stops with the answer and exits 1. Each
// timing covers the whole call: the request as JSON, the absolute-link walk, the component, and the answer parsed.

import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

import { ReadWindow } from './index.js';

function sampleSource() {
  // The file of host/src/bin/read-window-bench/ `write_source`: 100 lines, 9.6 kB.
  const lines = ['//! A generated sample source file for read-window-bench.', '', 'use std::collections::HashMap;', ''];
  for (let n = 0; lines.length < 99; n += 1) {
    if (n % 12 === 0) lines.push(`pub fn step_${n}(table: &mut HashMap<String, u64>, input: &[u8]) -> u64 {`);
    else if (n % 12 === 11) lines.push('}');
    else {
      lines.push(
        `    let value_${n} = input.iter().map(|b| u64::from(*b) * ${n}).sum::<u64>(); table.insert("k${n}".into(), value_${n});`,
      );
    }
  }
  lines.push('// end of sample');
  return `${lines.join('\n')}\n`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Throws unless `answer` is the 21-line window of read `i` (offset 40 or 41). */
function check(answer, i) {
  if (answer.status !== 'ok' || answer.lines_returned !== 21 || answer.start_line !== 40 + (i % 2)) {
    throw new Error(`read ${i}: not the expected window: ${JSON.stringify(answer).slice(0, 400)}`);
  }
}

/** The median of `runs` reads of the 2,000-line page at `path`, asking for `content` on its own or not. */
function timePage(session, path, runs, content) {
  const micros = [];
  for (let i = 0; i < runs + 5; i += 1) {
    const start = process.hrtime.bigint();
    const answer = session.read(path, { limit: 2000, content });
    const took = Number(process.hrtime.bigint() - start) / 1000;
    if (answer.status !== 'ok' || answer.lines_returned !== 2000 || (answer.content !== undefined) !== content) {
      throw new Error(`page read ${i}: not the expected window: ${JSON.stringify(answer).slice(0, 400)}`);
    }
    if (i >= 5) micros.push(took);
  }
  return { median: median(micros), runs };
}

function time(runs, call) {
  for (let i = 0; i < 20; i += 1) check(call(i), i);
  const micros = [];
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    const answer = call(i);
    micros.push(Number(process.hrtime.bigint() - start) / 1000);
    check(answer, i);
  }
  return { median: median(micros), runs };
}

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt === -1 ? 2001 : Number(args[runsAt + 1]);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: node bench.mjs [--runs N]');
  process.exit(2);
}
const fewer = Math.max(1, Math.floor(runs / 10));

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'read-window-js-bench-')));
try {
  const source = sampleSource();
  writeFileSync(join(dir, 'sample.rs'), source);
  const path = join(dir, 'sample.rs');
  // u32 thresholds: the tripwire warns at the largest value but one and blocks at the largest; a budget the
  // 2,000-line page fits in.
  const config = { dedup: false, loop_warn_at: 4294967294, loop_block_at: 4294967295, budget: { characters: 1_000_000 } };
  const at = (i) => ({ offset: 40 + (i % 2), limit: 21 });

  const loadStart = process.hrtime.bigint();
  const reader = await ReadWindow.load();
  const loadMs = Number(process.hrtime.bigint() - loadStart) / 1e6;

  const session = reader.session(dir, config);
  const pageLines = Array.from({ length: 2000 }, (_, n) => `${String(n + 1).padStart(8, '0')} ${'x'.repeat(90)}\n`);
  writeFileSync(join(dir, 'page.log'), pageLines.join(''));
  const pagePath = join(dir, 'page.log');
  const pageRuns = Math.max(1, Math.floor(runs / 20));
  const rows = [
    ['warm session, `session.read`', time(runs, (i) => session.read(path, at(i)))],
    ['stateless, `session.readOnce` (the warm instance)', time(runs, (i) => session.readOnce(path, at(i)))],
    ['stateless, `reader.readOnce` (a new instance per call)', time(fewer, (i) => reader.readOnce(dir, config, path, at(i)))],
    [
      'a new session per request',
      time(fewer, (i) => {
        const fresh = reader.session(dir, config);
        const answer = fresh.read(path, at(i));
        fresh.close();
        return answer;
      }),
    ],
    ['a 2,000-line page (200 kB), the window once (in `text`)', timePage(session, pagePath, pageRuns, false)],
    ['the same page, `content: true` (the window twice, as before issue 30)', timePage(session, pagePath, pageRuns, true)],
  ];
  console.log(`read-window JS host: lines 40-60 of a 100-line file (${source.length} bytes)`);
  console.log(`Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}); component loaded in ${loadMs.toFixed(1)} ms`);
  console.log(`peak linear memory of the warm session: ${session.stats().peak_memory_bytes} bytes\n`);
  console.log('| Method | Median | Runs |');
  console.log('|---|---:|---:|');
  for (const [label, { median: micros, runs: count }] of rows) {
    console.log(`| ${label} | ${micros >= 1000 ? `${(micros / 1000).toFixed(2)} ms` : `${micros.toFixed(1)} µs`} | ${count} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
