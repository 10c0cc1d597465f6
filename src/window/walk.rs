//! The walk over a window's lines: from the request's cursor, each line is read into a sink and placed whole,
//! clamped, or cut by the budget, until the limit, the budget or the end of the file stops it.

use std::ops::{Div, Rem};

use super::cut::best_cut;
use super::meter::Meter;
use super::sink::{LineSink, LOOKAHEAD_CHARS, PROJECT_FROM_BYTES};
use super::{
    budget_marker, clamp_marker, decimal_digits, ClampedLine, PartialLine, Truncation, Window,
    WindowRequest, WindowSettings, MIN_PARTIAL_CHARS, REPLACED_AT_KEPT,
};
use crate::config::Budget;
use crate::decode::Decoder;
use crate::error::{ErrorKind, FsError, ReadError};
use crate::index::{LineIndex, LongLineRecorder};
use crate::invisible::LineInvisibles;
use crate::scan::{LineEnd, Scanner};
use crate::source::ByteSource;

mod plain;
#[cfg(test)]
pub(super) use plain::PLAIN_LINES_SHOWN;

/// Reads the window `request` of the file indexed by `index` through `scanner`.
///
/// `decoder_encoding` comes from the index. Errors: an offset past the last line, or a column past the end of the
/// first line, is `invalid-request`; a failed read is `io` (described by `FsError`, turned into a `ReadError` with
/// `path`).
pub fn read_window<S: ByteSource>(
    scanner: &mut Scanner<S>,
    index: &mut LineIndex,
    request: &WindowRequest,
    settings: &WindowSettings,
    path: &str,
) -> Result<Window, ReadError> {
    walk_window(scanner, index, request, settings, path, true)
}

/// [`read_window`]; `fast` allows the plain-line fast path (see [`WindowWalk::place_plain_lines`]). Without it
/// every line takes the general path: what the fast path must answer byte for byte (the tests compare them).
pub(super) fn walk_window<S: ByteSource>(
    scanner: &mut Scanner<S>,
    index: &mut LineIndex,
    request: &WindowRequest,
    settings: &WindowSettings,
    path: &str,
    fast: bool,
) -> Result<Window, ReadError> {
    let shown = crate::prose::path_in_prose(path);
    let path: &str = &shown;
    let window = empty_window(index.total_lines(), request, settings);
    if window.total_lines == 0 || request.offset > window.total_lines {
        return empty_or_past_end(window, request, path);
    }
    seek_to_offset(scanner, index, request.offset, path)?;
    let meter = Meter::of(settings);
    let plain_lines = fast && index.encoding().lines_decode_alone() && meter.prices_plain_lines();
    let mut walk = WindowWalk {
        decoder: Decoder::new(index.encoding()),
        scanner,
        index,
        settings,
        meter,
        path,
        window,
        line: request.offset,
        column: request.column,
        spare: String::new(),
        decoded: String::new(),
        plain_lines,
    };
    walk.run(request.limit)?;
    let mut window = walk.window;
    if let Budget::Tokens { .. } = settings.budget {
        window.estimated_tokens = Some(window.budget_used);
    }
    Ok(window)
}

/// A window with nothing in it yet, starting at the request's cursor.
fn empty_window(total_lines: u64, request: &WindowRequest, settings: &WindowSettings) -> Window {
    Window {
        content: String::new(),
        start_line: request.offset,
        start_column: request.column,
        end_line: 0,
        lines_returned: 0,
        total_lines,
        truncated_by: Vec::new(),
        next_offset: None,
        next_column: None,
        clamped_lines: Vec::new(),
        budget_limit: settings.budget.limit(),
        budget_used: 0,
        estimated_tokens: None,
        replaced_invalid: 0,
        replaced_at: Vec::new(),
        invisible: crate::invisible::InvisibleReport {
            escaped: settings.escape_invisible,
            ..Default::default()
        },
        prints: Default::default(),
        partial_lines: Vec::new(),
    }
}

/// The answer for an empty file or an offset past the last line: the empty window of an empty file read from its
/// start, else `invalid-request` naming the lines there are.
fn empty_or_past_end(
    mut window: Window,
    request: &WindowRequest,
    path: &str,
) -> Result<Window, ReadError> {
    let total_lines = window.total_lines;
    if total_lines == 0 {
        if request.offset == 1 && request.column == 0 {
            window.start_line = 1;
            return Ok(window);
        }
        return Err(ReadError::invalid(format!(
            "offset {} is past the end of {path}: the file is empty (0 lines).",
            request.offset
        ))
        .with_total_lines(0));
    }
    Err(ReadError::invalid(format!(
        "offset {} is past the end of {path}, which has {}. Use an offset from 1 to {total_lines}.",
        request.offset,
        crate::prose::line_count(total_lines)
    ))
    .with_total_lines(total_lines))
}

/// Moves `scanner` to the start of line `offset`: to the index's nearest checkpoint, then over the lines between.
/// Errors: `io` for a failed read, or when the file has fewer lines than its index says (it changed).
fn seek_to_offset<S: ByteSource>(
    scanner: &mut Scanner<S>,
    index: &LineIndex,
    offset: u64,
    path: &str,
) -> Result<(), ReadError> {
    let (checkpoint_line, checkpoint_offset) = index.locate(offset);
    scanner.seek(checkpoint_offset);
    let skipped = scanner
        .skip_lines(offset - checkpoint_line)
        .map_err(|error: FsError| error.into_read_error(path))?;
    if skipped < offset - checkpoint_line {
        return Err(ReadError::new(
            ErrorKind::Io,
            format!("{path} changed while it was being read (it has fewer lines than its index says). Read it again."),
        ));
    }
    Ok(())
}

/// The room a line has: where it is clamped, and the budget left for it.
#[derive(Debug, Clone, Copy)]
struct LineRoom {
    /// Characters shown before the clamp (unbounded for a continuation, which starts inside its line).
    max_line_chars: u64,
    /// The budget left, in its unit.
    remaining_units: u64,
}

/// What the index learned of a long line read before, from the column checkpoint at or below the cursor.
#[derive(Debug, Clone, Copy)]
struct KnownLine {
    /// Characters in the line.
    total_chars: u64,
    /// The byte offset where the next line starts.
    next_line_offset: u64,
    /// The checkpoint's character count and byte offset.
    base_chars: u64,
    base_byte: u64,
}

/// One line as read: what its sink kept and counted, and the invalid sequences its decoding replaced.
struct ReadLine {
    sink: LineSink,
    replaced: Replacements,
}

/// The invalid sequences one line's decoding replaced with U+FFFD.
#[derive(Default)]
struct Replacements {
    /// How many.
    count: u64,
    /// The 0-based columns (in characters) of the first [`REPLACED_AT_KEPT`], where the decoder marks them
    /// (UTF-8).
    columns: Vec<u64>,
}

/// What a line's text holds that the window reports: the replaced sequences and the invisible characters.
struct Marks {
    replaced: Replacements,
    /// The invisible characters kept to escape (none when they are shown as they are).
    invisibles: LineInvisibles,
    /// The line's text just before the window's start column (see `LineSink::before`), and whether the kept
    /// text runs to the end of the line: the context of invisible characters shown as they are.
    before: String,
    complete: bool,
    /// Bytes of the kept text.
    kept_len: usize,
}

impl Replacements {
    /// Notes a marked replacement at `column`.
    fn mark(&mut self, column: u64) {
        if self.columns.len() < REPLACED_AT_KEPT {
            self.columns.push(column);
        }
    }
}

/// Whether the walk goes on to the next line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placed {
    /// The line was shown whole or clamped: read the next.
    Next,
    /// The window is full: its cursor is set.
    Stop,
}

/// The walk's state: the window so far and the cursor of the next line to read.
struct WindowWalk<'a, S: ByteSource> {
    scanner: &'a mut Scanner<S>,
    index: &'a mut LineIndex,
    settings: &'a WindowSettings,
    meter: Meter,
    /// The path as prose names it.
    path: &'a str,
    window: Window,
    /// The decoder of lines read from their start (a long line read again from a checkpoint has its own).
    decoder: Decoder,
    line: u64,
    column: u64,
    /// The kept text of a line shown whole, cleared and handed to the next line's sink: one allocation a window,
    /// not one a line.
    spare: String,
    /// A stretch of the block decoded by the fast path (not UTF-8): one allocation a window.
    decoded: String,
    /// Text whose lines decode alone, under a meter that prices a plain line itself: its plain lines may take the
    /// fast path (`place_plain_lines`).
    plain_lines: bool,
}

impl<S: ByteSource> WindowWalk<'_, S> {
    /// Reads and places lines until the limit, the budget or the end of the file.
    fn run(&mut self, limit: u64) -> Result<(), ReadError> {
        while self.line <= self.window.total_lines {
            if self.window.lines_returned >= limit {
                self.window.mark(Truncation::Limit);
                self.window.next_offset = Some(self.line);
                return Ok(());
            }
            if self.plain_lines && self.column == 0 && self.place_plain_lines(limit)? {
                continue;
            }
            let remaining_units = self
                .window
                .budget_limit
                .saturating_sub(self.window.budget_used);
            // A window that starts inside a line (a cursor with a column) is a continuation: its first line shows
            // as much as the budget allows. Every other line is clamped at max-line-length, which protects the
            // lines after it.
            let max_line_chars = if self.column > 0 {
                u64::MAX
            } else {
                self.settings.max_line_chars
            };
            let room = LineRoom {
                max_line_chars,
                remaining_units,
            };
            let keep = max_line_chars
                .min(self.meter.chars_bound(remaining_units))
                .saturating_add(LOOKAHEAD_CHARS);
            let line_start = self.scanner.position();
            let known = self.index.long_line(self.line).map(|long| {
                let (base_chars, base_byte) = long
                    .checkpoint_at_or_below(self.column)
                    .unwrap_or((0, line_start));
                KnownLine {
                    total_chars: long.total_chars,
                    next_line_offset: long.next_line_offset,
                    base_chars,
                    base_byte,
                }
            });
            let read = match known {
                Some(known) => self.read_known_long_line(known, keep, remaining_units)?,
                None => self.read_new_line(keep, remaining_units)?,
            };
            if self.place(read, room)? == Placed::Stop {
                return Ok(());
            }
        }
        Ok(())
    }

    /// A long line read before: start at its column checkpoint, stop once the window has its characters, and take
    /// the length and the next line's start from what was learned.
    fn read_known_long_line(
        &mut self,
        long: KnownLine,
        keep: u64,
        remaining_units: u64,
    ) -> Result<ReadLine, ReadError> {
        let path = self.path;
        let column = self.column;
        if column > long.total_chars {
            return Err(column_past_end(column, self.line, long.total_chars, path));
        }
        let (base_chars, base_byte) = (long.base_chars, long.base_byte);
        self.scanner.seek(base_byte);
        let mut sink = LineSink::new(
            column - base_chars,
            keep,
            self.meter
                .token_stop(remaining_units, self.settings.escape_invisible),
        );
        sink.total_chars = base_chars;
        sink.chars_left = Some(long.total_chars - column);
        let mut line_decoder = Decoder::new(self.index.encoding());
        let mut replaced = Replacements::default();
        let end = self
            .scanner
            .read_line_until(&mut |bytes| {
                line_decoder.feed_marking(bytes, &mut |piece, replacement| {
                    if replacement {
                        replaced.mark(sink.total_chars);
                    }
                    sink.push(piece)
                });
                sink.skip > 0 || sink.kept_chars < sink.keep_chars
            })
            .map_err(|error| error.into_read_error(path))?;
        if end != LineEnd::Stopped {
            line_decoder.finish_marking(&mut |piece, replacement| {
                if replacement {
                    replaced.mark(sink.total_chars);
                }
                sink.push(piece)
            });
            sink.finish(end == LineEnd::LineFeed);
        }
        sink.total_chars = long.total_chars;
        self.scanner.seek(long.next_line_offset);
        replaced.count = line_decoder.replaced();
        Ok(ReadLine { sink, replaced })
    }

    /// A line read from its start, recording the column checkpoints of a long one in the index.
    fn read_new_line(&mut self, keep: u64, remaining_units: u64) -> Result<ReadLine, ReadError> {
        let path = self.path;
        let line_start = self.scanner.position();
        let stop = self
            .meter
            .token_stop(remaining_units, self.settings.escape_invisible);
        let mut sink = LineSink::new(self.column, keep, stop);
        sink.kept = std::mem::take(&mut self.spare);
        let mut recorder = LongLineRecorder::new(line_start);
        let mut consumed = 0u64;
        let decoder = &mut self.decoder;
        let replaced_before = decoder.replaced();
        let mut replaced = Replacements::default();
        let ended_by_line_feed = self
            .scanner
            .read_line(&mut |bytes| {
                decoder.feed_marking(bytes, &mut |piece, replacement| {
                    if replacement {
                        replaced.mark(sink.total_chars);
                    }
                    sink.push(piece)
                });
                consumed += bytes.len() as u64;
                if decoder.at_boundary() && !sink.pending_cr {
                    recorder.offer(sink.total_chars, line_start + consumed);
                }
            })
            .map_err(|error| error.into_read_error(path))?;
        decoder.finish_marking(&mut |piece, replacement| {
            if replacement {
                replaced.mark(sink.total_chars);
            }
            sink.push(piece)
        });
        sink.finish(ended_by_line_feed);
        if sink.skip > 0 {
            return Err(column_past_end(
                self.column,
                self.line,
                sink.total_chars,
                path,
            ));
        }
        replaced.count = decoder.replaced() - replaced_before;
        let next_line_start = self.scanner.position();
        if let Some(long_line) =
            recorder.finish(sink.total_chars, line_start + consumed, next_line_start)
        {
            self.index.remember_long_line(self.line, long_line);
        }
        Ok(ReadLine { sink, replaced })
    }

    /// Places a line read: whole when it fits, clamped when it is longer than the clamp and the clamped line
    /// fits, else cut by the budget (which ends the window).
    fn place(&mut self, read: ReadLine, room: LineRoom) -> Result<Placed, ReadError> {
        let ReadLine { mut sink, replaced } = read;
        let rest_chars = sink.total_chars - self.column;
        let complete = sink.kept_chars == rest_chars;
        let escape = self.settings.escape_invisible;
        // Each visible form costs at least 8 characters or a token: no more than `remaining_units` can be shown.
        let cap = usize::try_from(room.remaining_units)
            .unwrap_or(usize::MAX)
            .saturating_add(1);
        let invisibles = LineInvisibles::find(&sink.before, &sink.kept, complete, escape, cap);
        let marks = Marks {
            replaced,
            invisibles,
            before: std::mem::take(&mut sink.before),
            complete,
            kept_len: sink.kept.len(),
        };
        if rest_chars <= room.max_line_chars {
            if complete {
                let estimate = sink
                    .token_stop
                    .as_ref()
                    .and_then(|stop| stop.estimate_of_kept());
                let cost = self.meter.line_cost_known(
                    self.line,
                    &sink.kept,
                    rest_chars,
                    &marks.invisibles,
                    estimate,
                );
                if self.window.budget_used + cost <= self.window.budget_limit {
                    self.show(&sink.kept, "", cost, &marks, sink.total_chars);
                    self.spare = std::mem::take(&mut sink.kept);
                    self.spare.clear();
                    return Ok(Placed::Next);
                }
            }
        } else if sink
            .over_budget_at()
            .is_none_or(|over_at| over_at > room.max_line_chars)
            && self.show_clamped(&sink, complete, room.max_line_chars, &marks)
        {
            return Ok(Placed::Next);
        }
        self.cut_by_budget(&sink, complete, room, &marks)?;
        Ok(Placed::Stop)
    }

    /// Shows the line clamped at a grapheme boundary at or below the clamp, when the clamped line fits the budget
    /// (in token mode the sink may have stopped keeping before the clamp: then it cannot fit). False when it does
    /// not fit: then the budget cuts it.
    fn show_clamped(
        &mut self,
        sink: &LineSink,
        complete: bool,
        max_line_chars: u64,
        marks: &Marks,
    ) -> bool {
        let (line, column) = (self.line, self.column);
        let rest_chars = sink.total_chars - column;
        let invisibles = &marks.invisibles;
        let (byte, shown) = best_cut(
            &sink.kept,
            complete,
            max_line_chars,
            &|_: &str, _: u64| true,
            &|byte| invisibles.floor(byte),
        );
        let shown_text = sink.kept.get(..byte).unwrap_or_default();
        let next = column + shown;
        let marker = clamp_marker(line, rest_chars - shown, next);
        let cost = self
            .meter
            .line_cost(line, shown_text, shown, &marker, invisibles);
        if shown == 0 || self.window.budget_used + cost > self.window.budget_limit {
            return false;
        }
        self.show(shown_text, &marker, cost, marks, sink.total_chars);
        self.window.clamped_lines.push(ClampedLine {
            line,
            shown_chars: shown,
            total_chars: sink.total_chars,
            next_column: next,
        });
        self.window.mark(Truncation::LineLength);
        true
    }

    /// The line does not fit the budget. Later lines wait for the next window (the cursor names this line); the
    /// first line is cut inside, with a column cursor. Errors: `invalid-request` when not one character of the
    /// first line fits.
    fn cut_by_budget(
        &mut self,
        sink: &LineSink,
        complete: bool,
        room: LineRoom,
        marks: &Marks,
    ) -> Result<(), ReadError> {
        let (line, column) = (self.line, self.column);
        if self.window.lines_returned > 0 {
            self.window.mark(Truncation::Budget);
            self.window.next_offset = Some(line);
            self.window.next_column = (column > 0).then_some(column);
            return Ok(());
        }
        let meter = self.meter;
        let invisibles = &marks.invisibles;
        // A window that starts inside this line reads the rest of it alone.
        let alone = column > 0;
        let marker_reserve = budget_marker(line, sink.total_chars, sink.total_chars, alone);
        let fits = |prefix: &str, chars: u64| {
            meter.line_cost(line, prefix, chars, &marker_reserve, invisibles)
                <= room.remaining_units
        };
        let max_shown = room.max_line_chars.min(meter.text_chars_within(
            line,
            &marker_reserve,
            room.remaining_units,
        ));
        let (byte, shown) = best_cut(&sink.kept, complete, max_shown, &fits, &|byte| {
            invisibles.floor(byte)
        });
        if shown == 0 {
            return Err(ReadError::invalid(format!(
                "the budget of {} is too small to show any of line {line} of {}; raise the budget.",
                self.window.budget_limit, self.path
            )));
        }
        let next = column + shown;
        let marker = budget_marker(line, sink.total_chars - column - shown, next, alone);
        let shown_text = sink.kept.get(..byte).unwrap_or_default();
        let cost = meter.line_cost(line, shown_text, shown, &marker, invisibles);
        self.show(shown_text, &marker, cost, marks, sink.total_chars);
        self.window.mark(Truncation::Budget);
        self.window.mark(Truncation::MidLine);
        self.window.next_offset = Some(line);
        self.window.next_column = Some(next);
        Ok(())
    }

    /// Appends the current line (`text`, as the window shows it, then `marker`) to the window at `cost`, and
    /// moves to the next line. `total_chars` is the whole line's: a piece of it (a marker follows, or the line
    /// was started inside) is noted as a [`PartialLine`].
    fn show(&mut self, text: &str, marker: &str, cost: u64, marks: &Marks, total_chars: u64) {
        let Marks {
            replaced,
            invisibles,
            ..
        } = marks;
        let shown = invisibles.shown(text);
        push_line(&mut self.window, self.line, &shown, marker);
        if !marker.is_empty() || self.column > 0 {
            let shown_chars = text.chars().count() as u64;
            if shown_chars >= MIN_PARTIAL_CHARS {
                // The piece as shown, and as the file holds it when invisible characters were shown in visible
                // forms (a model writes the real characters back).
                let forms = [Some(shown.as_ref()), (shown != text).then_some(text)];
                for form in forms.into_iter().flatten() {
                    self.window.partial_lines.push(PartialLine {
                        line: self.line,
                        from_column: self.column,
                        shown_chars,
                        total_chars,
                        print: super::prints::compared_print(form),
                    });
                }
            }
        }
        self.note_invisible(text, marks);
        self.window.budget_used += cost;
        self.window.replaced_invalid += replaced.count;
        for &column in &replaced.columns {
            if self.window.replaced_at.len() < REPLACED_AT_KEPT {
                self.window.replaced_at.push((self.line, column));
            }
        }
        self.window.lines_returned += 1;
        self.window.end_line = self.line;
        self.line += 1;
        self.column = 0;
    }
}

impl<S: ByteSource> WindowWalk<'_, S> {
    /// Reports the invisible characters of `text`, the part of the current line shown: those kept to escape, or,
    /// when they are shown as they are, each one found in `text` as it is found (none is kept).
    fn note_invisible(&mut self, text: &str, marks: &Marks) {
        let (line, column) = (self.line, self.column);
        let report = &mut self.window.invisible;
        if marks.invisibles.is_escaped() {
            let kept = marks.invisibles.before(text.len());
            report.note(line, column, text, &mut kept.iter().copied());
        } else {
            // `text` is the whole rest of the line only when nothing of it was cut.
            let complete = marks.complete && text.len() == marks.kept_len;
            let mut found = crate::invisible::scan(&marks.before, text, complete);
            report.note(line, column, text, &mut found);
        }
    }
}

fn column_past_end(column: u64, line: u64, line_chars: u64, path: &str) -> ReadError {
    let path = crate::prose::path_in_prose(path);
    ReadError::invalid(format!(
        "column {column} is past the end of line {line} of {path}, which has {line_chars} characters. Use a column from 0 to {line_chars}."
    ))
}
/// Appends `N|text marker\n` to the window's content (before its cost is added to `budget_used`), and notes the
/// line's prints while its bytes are in cache ([`LinePrints`](super::prints::LinePrints)).
///
/// The content grows without the waste of plain doubling: the first line gets exactly what it needs (so a window
/// of one long line holds no spare capacity); later, once the content holds [`PROJECT_FROM_BYTES`], its capacity
/// doubles but never past the goal projected from the budget left (`budget_limit - budget_used`) at the bytes a
/// unit of budget has cost so far, with 2% to spare. A window that stops early (its limit, the end of the file)
/// holds at most twice its content, as with doubling.
fn push_line(window: &mut Window, line: u64, text: &str, marker: &str) {
    let limit_units = window.budget_limit;
    let gutter = usize::try_from(decimal_digits(line)).unwrap_or(20) + 1;
    let content = &mut window.content;
    let needed = content
        .len()
        .saturating_add(gutter + text.len() + marker.len() + 1);
    let capacity = content.capacity();
    if needed > capacity {
        let doubled = capacity.saturating_mul(2);
        let used = window.budget_used;
        let goal = if used > 0 && content.len() >= PROJECT_FROM_BYTES {
            let bytes_per_unit = content.len() as f64 / used as f64;
            // A float beyond usize saturates in the cast; the goal is only a capacity hint.
            content
                .len()
                .saturating_add(
                    (limit_units.saturating_sub(used) as f64 * bytes_per_unit * 1.02) as usize,
                )
                .saturating_add(64)
        } else {
            doubled
        };
        let target = if goal < needed {
            doubled
        } else {
            doubled.min(goal)
        };
        content.reserve_exact(target.max(needed) - content.len());
    }
    let start = content.len();
    push_gutter(content, line);
    content.push_str(text);
    if !marker.is_empty() {
        content.push_str(marker);
    }
    window.prints.note(content.get(start..).unwrap_or_default());
    content.push('\n');
}
/// Writes the decimal digits of `number` into `bytes` before index `end`, the last digit first; returns the index
/// of the first (`end` less the digits, or 0 when `bytes` runs out first).
fn write_digits<T>(bytes: &mut [u8], end: usize, mut number: T) -> usize
where
    T: Copy + PartialEq + From<u8> + Div<Output = T> + Rem<Output = T>,
    u8: TryFrom<T>,
{
    let (zero, ten) = (T::from(0), T::from(10));
    let mut at = end;
    while let Some(before) = at.checked_sub(1) {
        at = before;
        if let Some(digit) = bytes.get_mut(at) {
            *digit = b'0' + u8::try_from(number % ten).unwrap_or(0);
        }
        number = number / ten;
        if number == zero {
            break;
        }
    }
    at
}

/// Appends the gutter `N|` of line `line` to `content`: the digits as `format!("{line}|")` writes them, without
/// the formatting machinery (a page writes 2,000 of them), in one copy.
pub(super) fn push_gutter(content: &mut String, line: u64) {
    // 20 digits hold any u64, then the bar.
    let mut gutter = [b'|'; 21];
    let bar = gutter.len() - 1;
    // Divided as a u32 when it fits: wasm32 has no 64-bit multiply-high, so a u64 divided by 10 compiles to a
    // hardware division there (tens of cycles a digit), and a u32 to a multiplication.
    let at = match u32::try_from(line) {
        Ok(line) => write_digits(&mut gutter, bar, line),
        Err(_) => write_digits(&mut gutter, bar, line),
    };
    // ASCII digits and a bar: always UTF-8.
    if let Some(text) = gutter
        .get(at..)
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
    {
        content.push_str(text);
    }
}
