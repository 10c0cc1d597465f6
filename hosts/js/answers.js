// Answers: the JSON shape of json.rs (`host-test/src/json.rs`), key for key and in its order. Plain objects built
// from the bindings' records: u64 values become Numbers, enum cases snake_case.

/** @typedef {import('./index.js').WindowAnswer} WindowAnswer */
/** @typedef {import('./index.js').StubAnswer} StubAnswer */
/** @typedef {import('./index.js').ErrorAnswer} ErrorAnswer */

const num = (value) => (value === undefined || value === null ? null : Number(value));
const snake = (name) => name.replaceAll('-', '_');

/** @returns {WindowAnswer} */
export function windowAnswer(r) {
  const budget = { unit: r.budget.unit, limit: Number(r.budget.limit), used: Number(r.budget.used) };
  if (r.budget.cap !== undefined && r.budget.cap !== null) budget.cap = Number(r.budget.cap);
  const answer = {
    status: 'ok',
    content_returned: true,
    content: r.content,
    path: r.path,
    start_line: Number(r.startLine),
    start_column: Number(r.startColumn),
    end_line: Number(r.endLine),
    lines_returned: Number(r.linesReturned),
    total_lines: Number(r.totalLines),
    truncated: r.truncated,
    truncated_by: r.truncatedBy.map(snake),
    next_offset: num(r.nextOffset),
    next_column: num(r.nextColumn),
    clamped_lines: r.clampedLines.map((line) => ({
      line: Number(line.line),
      shown_chars: Number(line.shownChars),
      total_chars: Number(line.totalChars),
      next_column: Number(line.nextColumn),
    })),
    hint: r.hint,
    file_size: Number(r.fileSize),
    encoding: {
      encoding: r.encoding.encoding.tag === 'legacy' ? r.encoding.encoding.val : r.encoding.encoding.tag,
      bom: r.encoding.bom,
      origin: r.encoding.origin,
      line_endings: r.encoding.lineEndings,
      replaced_invalid: Number(r.encoding.replacedInvalid),
    },
    budget,
  };
  if (r.warnings.length > 0) answer.warnings = [...r.warnings];
  if (r.document !== undefined && r.document !== null) answer.document = documentAnswer(r.document);
  answer.text = r.text;
  return answer;
}

/** A `document-facts` as json.rs renders it: `name` only when present, `pages`/`empty_pages` for PDFs only. */
export function documentAnswer(d) {
  const parts = d.parts.map((part) => {
    const value = {
      kind: part.kind,
      number: Number(part.number),
      first_line: Number(part.firstLine),
      characters: Number(part.characters),
    };
    if (part.name !== undefined && part.name !== null) value.name = part.name;
    return value;
  });
  const answer = { format: d.format, parts };
  if (d.pages !== undefined && d.pages !== null) {
    answer.pages = Number(d.pages);
    answer.empty_pages = d.emptyPages.map((range) => [Number(range.first), Number(range.last)]);
  }
  return answer;
}

/** @returns {StubAnswer} */
export function stubAnswer(stub) {
  return {
    status: 'unchanged',
    content_returned: false,
    dedup: true,
    path: stub.path,
    start_line: Number(stub.startLine),
    end_line: Number(stub.endLine),
    total_lines: Number(stub.totalLines),
    next_offset: num(stub.nextOffset),
    next_column: num(stub.nextColumn),
    message: stub.message,
    text: stub.message,
  };
}

/** @returns {ErrorAnswer} */
export function errorAnswer(error) {
  const inner = { kind: snake(error.kind), message: error.message };
  if (error.alreadyRead !== undefined && error.alreadyRead !== null) inner.already_read = Number(error.alreadyRead);
  if (error.path !== undefined && error.path !== null) inner.path = error.path;
  inner.suggestions = [...(error.suggestions ?? [])];
  if (error.totalLines !== undefined && error.totalLines !== null) inner.total_lines = Number(error.totalLines);
  return { status: 'error', content_returned: false, text: error.message, error: inner };
}

/** A finished capture in the JSON shape of `host-test/src/capture.rs`. */
export function captureAnswer(r) {
  const answer = {
    status: 'ok',
    content: r.content,
    total_chars: Number(r.totalChars),
    total_lines: Number(r.totalLines),
    total_bytes: Number(r.totalBytes),
    omitted_chars: Number(r.omittedChars),
    omitted_lines: Number(r.omittedLines),
  };
  if (r.omittedFirstLine != null && r.omittedLastLine != null) {
    answer.omitted_first_line = Number(r.omittedFirstLine);
    answer.omitted_last_line = Number(r.omittedLastLine);
  }
  if (r.spillPath != null) answer.spill_path = r.spillPath;
  answer.spill_capped = r.spillCapped;
  if (r.spillError != null) answer.spill_error = r.spillError;
  answer.exit_status = r.exitStatus ?? null;
  answer.hint = r.hint;
  answer.collapsed_redraws = Number(r.collapsedRedraws);
  answer.encoding = {
    encoding: r.encoding.encoding.tag === 'legacy' ? r.encoding.encoding.val : r.encoding.encoding.tag,
    bom: r.encoding.bom,
    origin: r.encoding.origin,
    line_endings: r.encoding.lineEndings,
    replaced_invalid: Number(r.encoding.replacedInvalid),
  };
  if (r.warnings.length > 0) answer.warnings = [...r.warnings];
  answer.text = r.text;
  return answer;
}

export const NOTE = Object.freeze({ status: 'ok' });
