// Compiled by test/types.test.mjs with `tsc --noEmit --strict`: the README's example against index.d.ts. It is
// type-checked, never run. The `@ts-expect-error` lines fail the check if the types accept what they must refuse.

import { GENERATED_DIR, HostError, ReadWindow, Session, isRaceFree } from '../../index.js';
import type { Config, ReadAnswer, StatsAnswer, WindowAnswer } from '../../index.js';

export async function example(): Promise<string> {
  const reader: ReadWindow = await ReadWindow.load({ dir: GENERATED_DIR });
  const config: Config = { budget: { characters: 20_000 }, max_lines: 200 };
  const session: Session = reader.session('.', config);
  const window: ReadAnswer = session.read('Cargo.toml', { limit: 20 });
  let shown = window.text;
  if (window.status === 'error') shown += `${window.error.kind} ${window.error.suggestions?.join(', ')}`;
  if (window.status === 'ok' && window.image !== undefined) shown += ` ${window.image.width} x ${window.image.height}`;
  if (window.status === 'ok' && window.image === undefined && window.listing === undefined && window.next_offset !== null) {
    const next: WindowAnswer | ReadAnswer = session.read({ path: 'Cargo.toml', offset: window.next_offset, limit: '20' });
    shown += next.text;
    const raw = session.read('Cargo.toml', { offset: window.next_offset, content: true });
    if (raw.status === 'ok' && raw.image === undefined && raw.listing === undefined) shown += raw.content ?? '';
    for (const clamped of window.clamped_lines) session.read('Cargo.toml', { offset: clamped.line, column: clamped.next_column, limit: 1 });
  }
  const stats: StatsAnswer = session.stats();
  const tools = session.request({ op: 'tools', format: 'openai' }).tools;
  const line: string = session.answer('{"id":1,"path":"Cargo.toml","limit":"5"}');
  const served = reader.request({ op: 'mcp_server' }, config);
  const failed: string = reader.hostError(line, 'start', 'no directory');
  session.close();
  try {
    reader.session([], null, { writable: { '/spill': './spill' } });
  } catch (error) {
    if (error instanceof HostError) shown += error.kind;
  }
  // @ts-expect-error a grant is a path, a list or a record of them
  reader.session(42);
  // @ts-expect-error a budget is characters or tokens
  reader.session('.', { budget: { lines: 3 } });
  // @ts-expect-error answer() takes JSON text
  session.answer({ op: 'stats' });
  return `${shown}${stats.peak_memory_bytes}${String(tools)}${served.status}${failed}${isRaceFree()}`;
}
