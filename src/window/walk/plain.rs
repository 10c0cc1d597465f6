//! The walk's fast path for plain lines: whole lines of text with nothing to escape or report, shown straight from
//! the scanner's block (UTF-8) or from the block's stretch decoded at once (every other encoding whose lines decode
//! alone), without the line sink, the decoder's per-unit work and the scans for invisible characters.

use super::{push_line, WindowWalk};
use crate::decode::{decode_clean, TextEncoding};
use crate::error::ReadError;
use crate::index::LONG_LINE_BYTES;
use crate::invisible::InvisibleKind;
use crate::source::ByteSource;
use crate::window::meter::Meter;
use crate::window::Window;

impl<S: ByteSource> WindowWalk<'_, S> {
    /// The fast path of the common lines: from the scanner's position, each line of text with nothing to escape
    /// or report (see [`plain_chars`]), read from its start and ended by a line feed inside the scanner's block,
    /// within the clamp, the limit and the budget. Each is shown as the general path shows it (one carriage
    /// return before the line feed dropped), without the sink's copy and the scans for invisible characters. The
    /// block is taken a stretch of at most [`PLAIN_STRETCH_BYTES`] at a time, checked as UTF-8 or decoded once
    /// ([`stretch_lines`]). Stops at the first line that is not such a line, which the general path then reads.
    /// True when it showed a line.
    pub(super) fn place_plain_lines(&mut self, limit: u64) -> Result<bool, ReadError> {
        let path = self.path;
        let encoding = self.index.encoding();
        let available = self
            .scanner
            .fill()
            .map_err(|error| error.into_read_error(path))?;
        let mut shown = PlainLines {
            window: &mut self.window,
            line: self.line,
            limit,
            max_line_chars: self.settings.max_line_chars,
            meter: self.meter,
        };
        let mut consumed = 0usize;
        let mut stretch_bytes = PLAIN_STRETCH_FIRST_BYTES;
        loop {
            let rest = available.get(consumed..).unwrap_or_default();
            if encoding != TextEncoding::Utf8
                && first_line_past_clamp(encoding, rest, shown.max_line_chars)
            {
                // Clamped, so not plain: the general path's, with no stretch decoded for nothing.
                break;
            }
            let stretch = rest.get(..stretch_bytes).unwrap_or(rest);
            let Some(text) = stretch_lines(encoding, stretch, &mut self.decoded) else {
                // A line longer than the stretch: a longer one, up to the longest.
                if stretch.len() < rest.len() && stretch_bytes < PLAIN_STRETCH_BYTES {
                    stretch_bytes *= 2;
                    continue;
                }
                break;
            };
            let first_line = shown.line;
            let (taken, went_on) = shown.place(text);
            consumed += match encoding {
                TextEncoding::Utf8 => taken,
                _ => bytes_of_lines(encoding, stretch, shown.line - first_line),
            };
            if !went_on || taken == 0 {
                break;
            }
            stretch_bytes = (stretch_bytes * 2).min(PLAIN_STRETCH_BYTES);
        }
        self.line = shown.line;
        self.scanner.advance(consumed);
        Ok(consumed > 0)
    }
}

/// The whole lines at the start of `stretch` (bytes of `encoding` from a line's start) as text, each ended by its
/// line feed, up to the first invalid sequence: UTF-8 checked in place, any other encoding decoded into
/// `decoded`. The text may end inside a line when an invalid sequence cut it short (its lines are then not
/// plain). `None` when the stretch holds no line feed and no invalid sequence: a longer stretch may hold a line.
fn stretch_lines<'t>(
    encoding: TextEncoding,
    stretch: &'t [u8],
    decoded: &'t mut String,
) -> Option<&'t str> {
    if encoding == TextEncoding::Utf8 {
        let last_feed = memchr::memrchr(b'\n', stretch)?;
        // Whole lines only, and only those that are valid UTF-8: the line with an invalid byte is the general
        // path's (it shows U+FFFD and reports it).
        let whole = stretch.get(..=last_feed).unwrap_or_default();
        return Some(match std::str::from_utf8(whole) {
            Ok(text) => text,
            Err(error) => whole
                .get(..error.valid_up_to())
                .and_then(|valid| std::str::from_utf8(valid).ok())
                .unwrap_or_default(),
        });
    }
    decoded.clear();
    let clean = decode_clean(encoding, stretch, decoded);
    match memchr::memrchr(b'\n', decoded.as_bytes()) {
        Some(last_feed) => decoded.get(..=last_feed),
        None if clean => None,
        None => Some(""),
    }
}

/// Whether the first line of `bytes` (of `encoding`, from a line's start) is surely longer than `max_line_chars`:
/// its bytes up to its line feed (or the end of `bytes`) are more than four a character, the most any encoding
/// spends on one (a UTF-16 surrogate pair, a UTF-32 unit, a four-byte gb18030 sequence).
fn first_line_past_clamp(encoding: TextEncoding, bytes: &[u8], max_line_chars: u64) -> bool {
    let limit = usize::try_from(max_line_chars.saturating_mul(4)).unwrap_or(usize::MAX);
    let searched = bytes
        .get(..limit.saturating_add(encoding.unit_bytes()))
        .unwrap_or(bytes);
    encoding
        .find_line_feed(searched, 0)
        .unwrap_or(searched.len())
        > limit
}

/// Bytes of `stretch` (of `encoding`, from a line's start) that its first `lines` lines take, each with its line
/// feed: where the walk goes on after the fast path showed them from decoded text. In any encoding whose lines
/// decode alone, a line feed of the text is one of the bytes.
fn bytes_of_lines(encoding: TextEncoding, stretch: &[u8], lines: u64) -> usize {
    let unit = encoding.unit_bytes();
    let mut end = 0usize;
    for _ in 0..lines {
        match encoding.find_line_feed(stretch, end) {
            Some(feed) => end = feed + unit,
            None => break,
        }
    }
    end
}

/// Bytes of the block the plain-line fast path checks or decodes at a time, at most. A stretch starts at
/// [`PLAIN_STRETCH_FIRST_BYTES`] and doubles while its lines are all plain, so the bytes checked and not shown
/// (past a line the general path must read) are never more than those shown and a first stretch: a file whose
/// every other line is not plain costs no more than the general path.
const PLAIN_STRETCH_BYTES: usize = 16 * 1024;
/// See [`PLAIN_STRETCH_BYTES`].
const PLAIN_STRETCH_FIRST_BYTES: usize = 128;

#[cfg(test)]
thread_local! {
    /// Lines the plain-line fast path has shown on this thread: the tests read it to know which path a line took.
    pub(in crate::window) static PLAIN_LINES_SHOWN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The lines the plain-line fast path shows into a window (see [`WindowWalk::place_plain_lines`]).
struct PlainLines<'w> {
    window: &'w mut Window,
    /// The next line's number.
    line: u64,
    limit: u64,
    max_line_chars: u64,
    meter: Meter,
}

impl PlainLines<'_> {
    /// Shows the lines of `text` (whole lines, each ended by its line feed) from its start while each is plain and
    /// fits: the bytes of `text` taken, and whether every line of it was (the next stretch may go on).
    fn place(&mut self, text: &str) -> (usize, bool) {
        // ASCII text has a character a byte and no invisible character.
        let ascii = all_ascii(text.as_bytes());
        let window = &mut *self.window;
        let mut at = 0usize;
        while at < text.len() {
            if window.lines_returned >= self.limit {
                return (at, false);
            }
            let rest = text.get(at..).unwrap_or_default();
            let Some(end) = memchr::memchr(b'\n', rest.as_bytes()) else {
                return (at, false);
            };
            let line = rest.get(..end).unwrap_or_default();
            let shown = line.strip_suffix('\r').unwrap_or(line);
            // A line past LONG_LINE_BYTES is remembered in the index by the general path.
            if shown.len() as u64 > self.max_line_chars.saturating_mul(4)
                || line.len() as u64 > LONG_LINE_BYTES
            {
                return (at, false);
            }
            let chars = if ascii {
                Some(shown.len() as u64)
            } else {
                plain_chars(shown)
            };
            let Some(chars) = chars.filter(|&chars| chars <= self.max_line_chars) else {
                return (at, false);
            };
            // Priced once the line is known to be shown whole (in token mode the estimate is the costly part).
            let cost = self.meter.plain_line_cost(self.line, shown, chars);
            if window.budget_used + cost > window.budget_limit {
                return (at, false);
            }
            push_line(window, self.line, shown, "");
            #[cfg(test)]
            PLAIN_LINES_SHOWN.with(|count| count.set(count.get() + 1));
            window.budget_used += cost;
            window.lines_returned += 1;
            window.end_line = self.line;
            self.line += 1;
            at += end + 1;
        }
        (at, true)
    }
}

/// Whether every byte of `bytes` is ASCII: an OR of every byte with no early exit, 64 bytes at a time into four
/// accumulators, which the compiler vectorizes (`is_ascii` goes a word at a time). A function of its own, so the
/// accumulators stay in registers (inside `place`, Cranelift spilled the one of the loop it had to the stack each
/// round).
#[inline(never)]
fn all_ascii(bytes: &[u8]) -> bool {
    let mut lanes = [0u8; 64];
    let mut chunks = bytes.chunks_exact(lanes.len());
    for chunk in &mut chunks {
        for (lane, &byte) in lanes.iter_mut().zip(chunk) {
            *lane |= byte;
        }
    }
    let rest = chunks
        .remainder()
        .iter()
        .fold(0u8, |bits, &byte| bits | byte);
    lanes.iter().fold(rest, |bits, &lane| bits | lane) < 0x80
}

/// The characters of `text` when it holds no invisible character ([`InvisibleKind::of`], the characters a window
/// reports and escapes); `None` for any other text, which the general path reads.
fn plain_chars(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    // One pass with no branch, which the compiler vectorizes: the continuation bytes (a character is a byte that
    // is not one) and whether any byte may start an invisible character.
    let (continuation, suspect) = bytes
        .iter()
        .fold((0usize, false), |(count, suspect), &byte| {
            (
                count + usize::from(byte & 0xC0 == 0x80),
                suspect | InvisibleKind::may_start(byte),
            )
        });
    // Then each character that starts with such a byte (common punctuation does: U+2014 is E2 80 94), found by
    // memchr a vector at a time.
    let invisible_at = |at: usize| {
        text.get(at..)
            .and_then(|rest| rest.chars().next())
            .and_then(InvisibleKind::of)
            .is_some()
    };
    let [first, second, third, fourth] = InvisibleKind::LEAD_BYTES;
    if suspect
        && memchr::memchr3_iter(first, second, third, bytes)
            .chain(memchr::memchr_iter(fourth, bytes))
            .any(invisible_at)
    {
        return None;
    }
    Some((bytes.len() - continuation) as u64)
}
