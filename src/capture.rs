//! The capture window: a command's output stream, pushed as bytes in chunks of any size, becomes a *head*, one
//! *marker* line and a rolling *tail*, in memory bounded by the window whatever the stream's length.
//!
//! This module is pure (no I/O): decoding (UTF-8 with invalid sequences replaced and counted, a character or a
//! `\r\n` split across chunks handled), terminal noise (ANSI escape sequences removed, carriage-return redraws
//! collapsed to the line's final state), the head and the tail, the counts, the marker and the hint. The spill of
//! the raw stream to a file is the job of [`crate::spill`], which tells [`StreamWindow::finish`] how it went.
//!
//! Units: characters are Unicode scalar values of the cleaned text (a line break counts as one character), lines
//! are 1-based and split on `\n` exactly as the reader splits a file (a last line without a line break counts),
//! bytes are bytes of the raw stream. Noise removal never adds or removes a line break, so a line number of the
//! window is the same line number in the spill.

use std::collections::VecDeque;

use crate::config::CONFIG_WARNING_PREFIX;
use crate::decode::{Decoder, TextEncoding};
use crate::prose::{grouped, line_span, plural};

/// The default window: 50,000 characters of head and tail together.
pub const DEFAULT_WINDOW_CHARS: u64 = 50_000;
/// The smallest window a config may ask for, in characters.
pub const MIN_WINDOW_CHARS: u64 = 200;
/// The largest window a config may ask for, in characters (about 40 MiB of linear memory at most).
pub const MAX_WINDOW_CHARS: u64 = 10_000_000;
/// The default share of the window given to the head (the rest is the tail).
pub const DEFAULT_HEAD_SHARE: f64 = 0.4;
/// The largest head share: the tail always keeps at least a tenth of the window.
pub const MAX_HEAD_SHARE: f64 = 0.9;
/// The default cap on the spill file, in characters of the raw stream.
pub const DEFAULT_SPILL_CAP_CHARS: u64 = 5_000_000;
/// The smallest spill cap a config may ask for, in characters.
pub const MIN_SPILL_CAP_CHARS: u64 = 1_000;
/// Lines one read returns at most by default: the limit the hint names for reading the omitted lines.
pub const READ_LIMIT_LINES: u64 = 2_000;
/// The longest OSC sequence (`ESC ]` ... `BEL`) removed, in characters; a longer one is taken as text, so a stray
/// `ESC ]` cannot swallow the output.
const MAX_OSC_CHARS: usize = 4_096;
/// Characters one segment of the rolling tail holds before a new one is started.
const SEGMENT_CHARS: usize = 4_096;

/// A capture's settings, validated. Build it with [`CaptureConfig::from_input`].
#[derive(Debug, Clone, PartialEq)]
pub struct CaptureConfig {
    /// Characters of head, marker-free, plus tail at most; from [`MIN_WINDOW_CHARS`] to [`MAX_WINDOW_CHARS`].
    pub window_chars: u64,
    /// The head's share of the window, from 0 to [`MAX_HEAD_SHARE`].
    pub head_share: f64,
    /// The guest directory the spill file is created in; `None` when the host gave none (nothing can be spilled).
    pub spill_dir: Option<String>,
    /// Characters of the raw stream the spill file keeps at most; from [`MIN_SPILL_CAP_CHARS`] on.
    pub spill_cap_chars: u64,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        CaptureConfig {
            window_chars: DEFAULT_WINDOW_CHARS,
            head_share: DEFAULT_HEAD_SHARE,
            spill_dir: None,
            spill_cap_chars: DEFAULT_SPILL_CAP_CHARS,
        }
    }
}

/// A capture's settings as the host gave them: every field optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaptureInput {
    /// See [`CaptureConfig::window_chars`].
    pub window_chars: Option<u64>,
    /// See [`CaptureConfig::head_share`].
    pub head_share: Option<f64>,
    /// See [`CaptureConfig::spill_dir`].
    pub spill_dir: Option<String>,
    /// See [`CaptureConfig::spill_cap_chars`].
    pub spill_cap_chars: Option<u64>,
}

impl CaptureConfig {
    /// Validates `input`: a value out of its range is replaced by its default and named in a warning
    /// (`config window-chars 5 is invalid (from 200 to 10000000); using the default 50000.`), as for reads.
    pub fn from_input(input: CaptureInput) -> (CaptureConfig, Vec<String>) {
        let mut warnings = Vec::new();
        let mut config = CaptureConfig {
            spill_dir: input.spill_dir.filter(|dir| !dir.trim().is_empty()),
            ..CaptureConfig::default()
        };
        if let Some(chars) = input.window_chars {
            if (MIN_WINDOW_CHARS..=MAX_WINDOW_CHARS).contains(&chars) {
                config.window_chars = chars;
            } else {
                warnings.push(format!(
                    "{CONFIG_WARNING_PREFIX}window-chars {chars} is invalid (from {MIN_WINDOW_CHARS} to \
                     {MAX_WINDOW_CHARS}); using the default {DEFAULT_WINDOW_CHARS}."
                ));
            }
        }
        if let Some(share) = input.head_share {
            if (0.0..=MAX_HEAD_SHARE).contains(&share) {
                config.head_share = share;
            } else {
                warnings.push(format!(
                    "{CONFIG_WARNING_PREFIX}head-share {share} is invalid (from 0 to {MAX_HEAD_SHARE}); using the \
                     default {DEFAULT_HEAD_SHARE}."
                ));
            }
        }
        if let Some(cap) = input.spill_cap_chars {
            if cap >= MIN_SPILL_CAP_CHARS {
                config.spill_cap_chars = cap;
            } else {
                warnings.push(format!(
                    "{CONFIG_WARNING_PREFIX}spill-cap-chars {cap} is invalid (at least {MIN_SPILL_CAP_CHARS}); \
                     using the default {DEFAULT_SPILL_CAP_CHARS}."
                ));
            }
        }
        (config, warnings)
    }

    /// Characters of the window given to the head (rounded down).
    pub fn head_chars(&self) -> usize {
        let window = self.window_chars as f64;
        usize::try_from((window * self.head_share).floor() as u64).unwrap_or(0)
    }

    /// Characters of the window given to the tail: the window less the head.
    pub fn tail_chars(&self) -> usize {
        usize::try_from(self.window_chars)
            .unwrap_or(usize::MAX)
            .saturating_sub(self.head_chars())
    }
}

/// What became of the spill, as [`crate::spill`] reports it to [`StreamWindow::finish`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpillReport {
    /// The guest path of the spill file, when one was created.
    pub path: Option<String>,
    /// Why the spill failed or was never made, when it did (the omitted text it does not hold is gone).
    pub error: Option<String>,
    /// The spill stopped at its cap in characters.
    pub capped: bool,
    /// Line breaks (`\n`) the spill file holds: its lines 1 to this are complete.
    pub newlines_held: u64,
    /// The spill file ends inside a line (its last line, `newlines_held + 1`, is a fragment cut at the cap or at a
    /// failed write); false when it ends with a line break or is empty.
    pub cut_line: bool,
    /// The cap, in characters, for the marker.
    pub cap_chars: u64,
}

/// The finished window of a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureSummary {
    /// The window: the whole cleaned output when it fit, else the head, the marker line and the tail.
    pub content: String,
    /// Characters of the cleaned output (line breaks included).
    pub total_chars: u64,
    /// Lines of the output (a last line without a line break counts; an empty output has 0).
    pub total_lines: u64,
    /// Bytes of the raw stream.
    pub total_bytes: u64,
    /// Characters of the cleaned output that are not in `content` (0 when it fit).
    pub omitted_chars: u64,
    /// Lines with at least one omitted character: `omitted_last - omitted_first + 1`, 0 when none.
    pub omitted_lines: u64,
    /// The first and the last line (1-based) with an omitted character; `None` when nothing was omitted.
    pub omitted_range: Option<(u64, u64)>,
    /// Carriage-return redraws collapsed to the line's final state (`\r` followed by text, not by `\n`).
    pub collapsed_redraws: u64,
    /// Invalid UTF-8 sequences replaced by U+FFFD.
    pub replaced_invalid: u64,
    /// Line breaks that were `\n` alone and that were `\r\n`.
    pub lf_count: u64,
    /// See `lf_count`.
    pub crlf_count: u64,
    /// Line breaks that were a lone `\r`: set when the stream had no `\n` at all and was split on `\r` (a
    /// CR-separated output, see [`crate::spill`]); 0 otherwise.
    pub cr_count: u64,
    /// A sentence for the model: what is shown, what is omitted and where it is, the exit status.
    pub hint: String,
}

impl CaptureSummary {
    /// The line endings the output used: `none`, `lf`, `crlf`, `mixed`, or `cr` (only CRs that were not redraws).
    pub fn line_endings(&self) -> crate::index::LineEndings {
        use crate::index::LineEndings;
        match (self.lf_count, self.crlf_count) {
            (0, 0) if self.cr_count > 0 => LineEndings::Cr,
            (0, 0) => LineEndings::None,
            (_, 0) => LineEndings::Lf,
            (0, _) => LineEndings::Crlf,
            _ => LineEndings::Mixed,
        }
    }
}

/// The state of the escape-sequence remover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    /// Plain text.
    None,
    /// After `ESC`.
    Start,
    /// Inside `ESC [` ... final byte.
    Csi,
    /// Inside a string sequence: OSC (`ESC ]`), DCS (`ESC P`), SOS (`ESC X`), PM (`ESC ^`) or APC (`ESC _`), up to
    /// `BEL` or `ESC \`; the characters removed so far.
    Osc(usize),
    /// After `ESC` inside an OSC sequence.
    OscEsc,
    /// After `ESC` and an intermediate byte (`ESC ( B`).
    Intermediate,
}

/// The rolling tail: the last characters of the stream in segments, so memory stays near its capacity.
#[derive(Debug, Default)]
struct Ring {
    segments: VecDeque<(String, usize)>,
    chars: usize,
}

impl Ring {
    /// Appends `text` (`chars` characters) and drops the front segments the last `keep` characters do not need.
    /// A text longer than `keep` is kept whole until the next push drops it (cutting it here would cost a scan
    /// of its characters on every chunk of a long stream); memory stays under `keep` plus one pushed text plus one
    /// segment.
    fn push(&mut self, text: &str, chars: usize, keep: usize) {
        match self.segments.back_mut() {
            Some((segment, count)) if *count < SEGMENT_CHARS => {
                segment.push_str(text);
                *count += chars;
            }
            _ => self.segments.push_back((text.to_string(), chars)),
        }
        self.chars += chars;
        while let Some((_, front)) = self.segments.front() {
            if self.chars - front >= keep {
                self.chars -= front;
                self.segments.pop_front();
            } else {
                break;
            }
        }
    }

    /// The last `keep` characters (fewer when the ring holds fewer).
    fn text(&self, keep: usize) -> String {
        let mut all = String::new();
        for (segment, _) in &self.segments {
            all.push_str(segment);
        }
        if self.chars > keep {
            last_chars(&all, keep).to_string()
        } else {
            all
        }
    }
}

/// The last `count` characters of `text`.
fn last_chars(text: &str, count: usize) -> &str {
    if count == 0 {
        return "";
    }
    match text.char_indices().rev().nth(count - 1) {
        Some((index, _)) => text.get(index..).unwrap_or(text),
        None => text,
    }
}

/// The byte index of character `count` of `text` (its length when it has fewer).
fn byte_at(text: &str, count: usize) -> usize {
    text.char_indices()
        .nth(count)
        .map_or(text.len(), |(index, _)| index)
}

/// Line breaks (`\n`) in `text`.
fn count_newlines(text: &str) -> u64 {
    memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64
}

/// Whether a line looks like an error report: it names an error, a failure, a panic, a fatal condition, an
/// exception or a traceback (any case).
pub fn looks_like_error(line: &str) -> bool {
    const WORDS: [&str; 7] = [
        "error",
        "fatal",
        "panic",
        "traceback",
        "exception",
        "failed",
        "failure",
    ];
    let lower = line.to_ascii_lowercase();
    WORDS.iter().any(|word| lower.contains(word))
}

/// The head and tail of the cleaned output: everything while it fits the window, then the first `head` characters
/// and a rolling tail.
#[derive(Debug)]
struct HeadTail {
    window: usize,
    head_cap: usize,
    /// The tail's capacity plus the reach for an error line before it, plus one character of context.
    keep: usize,
    all: String,
    all_chars: usize,
    overflowed: bool,
    ring: Ring,
    total_chars: u64,
    newlines: u64,
    ends_in_newline: bool,
}

impl HeadTail {
    fn new(config: &CaptureConfig) -> Self {
        let head_cap = config.head_chars();
        let tail_cap = config.tail_chars();
        HeadTail {
            window: usize::try_from(config.window_chars).unwrap_or(usize::MAX),
            head_cap,
            keep: tail_cap + head_cap / 2 + 1,
            all: String::new(),
            all_chars: 0,
            overflowed: false,
            ring: Ring::default(),
            total_chars: 0,
            newlines: 0,
            ends_in_newline: false,
        }
    }

    /// Appends cleaned text; true when this text made the output overflow the window.
    fn append(&mut self, text: &str) -> bool {
        if text.is_empty() {
            return false;
        }
        let chars = text.chars().count();
        self.total_chars += chars as u64;
        self.newlines += count_newlines(text);
        self.ends_in_newline = text.ends_with('\n');
        if self.overflowed {
            self.ring.push(text, chars, self.keep);
            return false;
        }
        if self.all_chars + chars <= self.window {
            self.all.push_str(text);
            self.all_chars += chars;
            return false;
        }
        self.overflowed = true;
        // The head is the first characters of everything so far, this text included.
        self.all.push_str(text);
        let everything = self.all_chars + chars;
        let split = byte_at(&self.all, self.head_cap);
        let rest = self.all.split_off(split);
        self.all_chars = everything.min(self.head_cap);
        self.all.shrink_to_fit();
        self.ring
            .push(&rest, everything.saturating_sub(self.head_cap), self.keep);
        true
    }

    /// The head of an overflowed output beside a tail of `tail_chars` characters, and its characters: what the
    /// window has left of the head's share, cut back to a line's end when that costs at most half of it.
    fn head(&self, tail_chars: usize) -> (&str, usize) {
        let head_limit = self.head_cap.min(self.window.saturating_sub(tail_chars));
        let mut head_chars = head_limit.min(self.all_chars);
        let mut head = self.all.get(..byte_at(&self.all, head_chars)).unwrap_or("");
        if !head.ends_with('\n') {
            if let Some(newline) = head.rfind('\n') {
                let cut_chars = head
                    .get(newline + 1..)
                    .map_or(0, |rest| rest.chars().count());
                if cut_chars <= head_chars / 2 {
                    head = head.get(..newline + 1).unwrap_or(head);
                    head_chars -= cut_chars;
                }
            }
        }
        (head, head_chars)
    }
}

/// Removes terminal noise from decoded text and hands whole lines (or pieces of a line too long to hold) to the
/// head and tail.
#[derive(Debug)]
struct Cleaner {
    escape: Escape,
    pending_cr: bool,
    line: String,
    line_chars: usize,
    /// Characters of one line held back for a redraw at most; past it the line is passed on in pieces.
    hold: usize,
    redraws: u64,
    lf: u64,
    crlf: u64,
    /// Escape sequences removed.
    escapes: u64,
    /// The parameter bytes of the CSI sequence being read (at most [`MAX_CSI_PARAMS`] kept).
    csi: String,
}

/// Parameter bytes of a CSI sequence kept to tell a redraw (`ESC [ 2 K`, `ESC [ 1 G`) from other sequences.
const MAX_CSI_PARAMS: usize = 16;

impl Cleaner {
    /// A CSI sequence ended with `final_byte`: erase-line (`ESC [ 2 K`) and cursor-to-column-1 (`ESC [ G`,
    /// `ESC [ 1 G`, `ESC [ 0 G`) redraw the line, as npm-style spinners do, so the unfinished line is cleared (a
    /// redraw, counted when it cleared something). Other sequences (colours, `ESC [ K` after the cursor, cursor
    /// up) are only removed.
    fn csi_end(&mut self, final_byte: u8) {
        let params = self.csi.as_str();
        let redraw = match final_byte {
            b'K' => params == "2",
            b'G' => matches!(params, "" | "0" | "1"),
            _ => false,
        };
        if redraw && !self.pending_cr && !self.line.is_empty() {
            // After a `\r` the redraw is already pending (counted once, when text follows).
            self.redraws += 1;
            self.line.clear();
            self.line_chars = 0;
        }
    }

    fn text(&mut self, run: &str, out: &mut HeadTail) {
        if run.is_empty() {
            return;
        }
        if self.pending_cr {
            self.pending_cr = false;
            self.redraws += 1;
            self.line.clear();
            self.line_chars = 0;
        }
        self.line.push_str(run);
        self.line_chars += run.chars().count();
        // A line longer than the hold is passed on in pieces of exactly `hold` characters, so where it is cut
        // (and what a later redraw can still clear) does not depend on how the stream was chunked.
        while self.line_chars > self.hold {
            let split = byte_at(&self.line, self.hold);
            let rest = self.line.split_off(split);
            out.append(&self.line);
            self.line = rest;
            self.line_chars -= self.hold;
        }
    }

    /// Cleans a run of text with no `ESC` or `\r` in it: the lines it completes go on in one piece (the fast path
    /// of plain output), the unfinished last line is held.
    fn lines(&mut self, run: &str, out: &mut HeadTail) {
        let Some(last) = memchr::memrchr(b'\n', run.as_bytes()) else {
            self.text(run, out);
            return;
        };
        let (complete, rest) = run.split_at(last + 1);
        let newlines = count_newlines(complete);
        if self.pending_cr {
            // `\r\n`: a line break, not a redraw.
            self.pending_cr = false;
            if complete.starts_with('\n') {
                self.crlf += 1;
                self.lf += newlines - 1;
            } else {
                self.redraws += 1;
                self.line.clear();
                self.line_chars = 0;
                self.lf += newlines;
            }
        } else {
            self.lf += newlines;
        }
        if self.line.is_empty() {
            out.append(complete);
        } else {
            self.line.push_str(complete);
            self.flush(out);
        }
        self.text(rest, out);
    }

    fn flush(&mut self, out: &mut HeadTail) -> bool {
        let overflowed = out.append(&self.line);
        self.line.clear();
        self.line_chars = 0;
        overflowed
    }

    /// Cleans one piece of decoded text; true when the output overflowed the window during it.
    fn feed(&mut self, piece: &str, out: &mut HeadTail) -> bool {
        let before = out.overflowed;
        let bytes = piece.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let Some(&byte) = bytes.get(at) else { break };
            at += match self.escape {
                Escape::None => self.plain(piece, at, out),
                Escape::Start => self.after_esc(byte),
                Escape::Csi => self.in_csi(byte),
                Escape::Intermediate => self.in_intermediate(byte),
                Escape::Osc(removed) => self.in_string(bytes.get(at..).unwrap_or(&[]), removed),
                Escape::OscEsc => self.after_string_esc(byte),
            };
        }
        !before && out.overflowed
    }

    /// Plain text at byte `at` of `piece`: the run up to the next `ESC` or `\r` is cleaned, and that byte starts a
    /// sequence or a pending carriage return. Returns the bytes consumed (the run and that byte; one past the
    /// piece's end when the run reaches it).
    fn plain(&mut self, piece: &str, at: usize, out: &mut HeadTail) -> usize {
        let bytes = piece.as_bytes();
        let end = memchr::memchr2(0x1b, b'\r', bytes.get(at..).unwrap_or(&[]))
            .map_or(bytes.len(), |found| at + found);
        if let Some(run) = piece.get(at..end) {
            self.lines(run, out);
        }
        match bytes.get(end) {
            Some(0x1b) => self.escape = Escape::Start,
            Some(b'\r') => self.pending_cr = true,
            _ => {}
        }
        end + 1 - at
    }

    /// `byte` after an `ESC`: it opens a CSI, a string sequence or an intermediate, or ends a two-byte sequence.
    /// Returns the bytes consumed: 1, or 0 when `byte` is not part of a sequence (the `ESC` alone is dropped and
    /// `byte` is text).
    fn after_esc(&mut self, byte: u8) -> usize {
        match byte {
            b'[' => {
                self.escape = Escape::Csi;
                self.csi.clear();
            }
            b']' | b'P' | b'X' | b'^' | b'_' => self.escape = Escape::Osc(0),
            0x20..=0x2f => self.escape = Escape::Intermediate,
            0x30..=0x7e => {
                self.escape = Escape::None;
                self.escapes += 1;
            }
            0x1b => {}
            // Not a sequence: the ESC alone is dropped and the character is text.
            _ => {
                self.escape = Escape::None;
                return 0;
            }
        }
        1
    }

    /// `byte` inside a CSI sequence: a final byte ends it (see [`Cleaner::csi_end`]), a parameter or intermediate
    /// byte is kept (the first [`MAX_CSI_PARAMS`]). Returns the bytes consumed: 1, or 0 when `byte` cannot be in a
    /// CSI sequence (the sequence is dropped and `byte` is text).
    fn in_csi(&mut self, byte: u8) -> usize {
        match byte {
            0x40..=0x7e => {
                self.escape = Escape::None;
                self.escapes += 1;
                self.csi_end(byte);
            }
            0x20..=0x3f => {
                if self.csi.len() < MAX_CSI_PARAMS {
                    self.csi.push(char::from(byte));
                }
            }
            _ => {
                self.escape = Escape::None;
                return 0;
            }
        }
        1
    }

    /// `byte` after `ESC` and an intermediate byte: more intermediates, then a final byte that ends the sequence.
    /// Returns the bytes consumed: 1, or 0 when `byte` is neither (it is text).
    fn in_intermediate(&mut self, byte: u8) -> usize {
        match byte {
            0x20..=0x2f => 1,
            0x30..=0x7e => {
                self.escape = Escape::None;
                1
            }
            _ => {
                self.escape = Escape::None;
                0
            }
        }
    }

    /// The bytes `rest` inside a string sequence that has removed `removed` characters so far: it ends at `BEL`,
    /// waits for `\` after an `ESC`, and gives up at a line break or past [`MAX_OSC_CHARS`] (what follows is text
    /// again). Returns the bytes consumed (the line break that ends a runaway sequence is not).
    fn in_string(&mut self, rest: &[u8], removed: usize) -> usize {
        match memchr::memchr3(0x07, 0x1b, b'\n', rest) {
            Some(found) => {
                let (next, skip) = match rest.get(found) {
                    Some(0x07) => {
                        self.escapes += 1;
                        (Escape::None, 1)
                    }
                    Some(0x1b) => (Escape::OscEsc, 1),
                    // A line break ends a runaway OSC: it is text again.
                    _ => (Escape::None, 0),
                };
                self.escape = next;
                found + skip
            }
            None => {
                let removed = removed + rest.len();
                self.escape = if removed > MAX_OSC_CHARS {
                    Escape::None
                } else {
                    Escape::Osc(removed)
                };
                rest.len()
            }
        }
    }

    /// `byte` after an `ESC` inside a string sequence: the sequence ends (with its `ESC \` terminator when `byte`
    /// is `\`). Returns the bytes consumed: 1 for the `\`, else 0 (`byte` is read afresh).
    fn after_string_esc(&mut self, byte: u8) -> usize {
        self.escapes += 1;
        self.escape = Escape::None;
        usize::from(byte == b'\\')
    }
}

/// The pure capture window: push raw chunks, then [`finish`](StreamWindow::finish).
#[derive(Debug)]
pub struct StreamWindow {
    config: CaptureConfig,
    decoder: Decoder,
    cleaner: Cleaner,
    out: HeadTail,
    total_bytes: u64,
    /// The stream was a CR-separated output fed with its `\r` as `\n` (see [`StreamWindow::split_on_cr`]).
    cr_split: bool,
}

impl StreamWindow {
    /// An empty capture window for `config`.
    pub fn new(config: CaptureConfig) -> Self {
        let out = HeadTail::new(&config);
        let hold = out.window;
        StreamWindow {
            decoder: Decoder::new(TextEncoding::Utf8),
            cleaner: Cleaner {
                escape: Escape::None,
                pending_cr: false,
                line: String::new(),
                line_chars: 0,
                hold,
                redraws: 0,
                lf: 0,
                crlf: 0,
                escapes: 0,
                csi: String::new(),
            },
            out,
            total_bytes: 0,
            cr_split: false,
            config,
        }
    }

    /// The config in force.
    pub fn config(&self) -> &CaptureConfig {
        &self.config
    }

    /// Whether the cleaned output has overflowed the window (from then on only the head and the tail are kept).
    pub fn overflowed(&self) -> bool {
        self.out.overflowed
    }

    /// Bytes pushed so far.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Redraws collapsed so far (carriage returns followed by text, erase-line and cursor-to-column-1 sequences
    /// that cleared a line).
    pub fn collapsed_redraws(&self) -> u64 {
        self.cleaner.redraws
    }

    /// Marks this window as a CR-separated output whose `\r` the caller turned into `\n` before pushing: the line
    /// breaks are reported as lone `\r` (`cr_count`) and the hint says the output was split on them.
    pub fn split_on_cr(&mut self) {
        self.cr_split = true;
    }

    /// Line breaks (`\n` and `\r\n`) seen so far.
    pub fn line_feeds(&self) -> u64 {
        self.cleaner.lf + self.cleaner.crlf
    }

    /// Decodes and cleans one chunk of the raw stream (any size, split anywhere). Returns true when this chunk
    /// made the output overflow the window: the caller starts the spill then.
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        self.total_bytes += chunk.len() as u64;
        let StreamWindow {
            decoder,
            cleaner,
            out,
            ..
        } = self;
        let mut overflowed = false;
        decoder.feed(chunk, &mut |piece: &str| {
            overflowed |= cleaner.feed(piece, out);
        });
        overflowed
    }

    /// Ends the stream: an open UTF-8 sequence becomes U+FFFD, a line without a final line break is kept, a
    /// trailing `\r` or an unfinished escape sequence is dropped. Returns true when this made the output overflow.
    fn end_stream(&mut self) -> bool {
        let StreamWindow {
            decoder,
            cleaner,
            out,
            ..
        } = self;
        let mut overflowed = false;
        decoder.finish(&mut |piece: &str| {
            overflowed |= cleaner.feed(piece, out);
        });
        cleaner.pending_cr = false;
        if !cleaner.line.is_empty() {
            overflowed |= cleaner.flush(out);
        }
        overflowed
    }

    /// Ends the stream without a spill decision yet: returns true when the last bytes made the output overflow
    /// (the caller then starts the spill before calling [`StreamWindow::finish`]).
    pub fn close(&mut self) -> bool {
        self.end_stream()
    }

    /// The finished result of a binary output (`kind` as [`crate::sniff`] names it): no text window, one line
    /// saying it is binary, its size in bytes and where the raw bytes are, for a binary tool (`file`, `xxd`) and not
    /// the reader. The character and line counts are 0: the output is not text.
    pub fn finish_binary(
        &self,
        kind: &str,
        spill: &SpillReport,
        exit_status: Option<i32>,
    ) -> CaptureSummary {
        let size = plural(self.total_bytes, "byte", "bytes");
        let (line, kept) = match (&spill.path, &spill.error) {
            (Some(path), None) => {
                let capped = if spill.capped {
                    format!(" (its start: the spill {})", cap_words(spill.cap_chars))
                } else {
                    String::new()
                };
                (
                    format!("it is in the spill {path}{capped}, for a binary tool (file, xxd), not the reader"),
                    format!(
                        " The raw bytes are in {path}{capped}: inspect them with a binary tool (`file {path}`, \
                         `xxd {path} | head`), not with the reader."
                    ),
                )
            }
            (_, Some(error)) => (
                format!("the spill failed ({error}), so the bytes are gone"),
                format!(
                    " The raw bytes were not kept: {}.",
                    spill_failed_words(error)
                ),
            ),
            (None, None) => (
                format!("{NO_SPILL}, so the bytes are gone"),
                format!(" The raw bytes were not kept: {NO_SPILL}."),
            ),
        };
        CaptureSummary {
            content: format!("[read-window: the output is binary ({kind}), {size}; {line}]\n"),
            total_chars: 0,
            total_lines: 0,
            total_bytes: self.total_bytes,
            omitted_chars: 0,
            omitted_lines: 0,
            omitted_range: None,
            collapsed_redraws: 0,
            replaced_invalid: self.decoder.replaced(),
            lf_count: 0,
            crlf_count: 0,
            cr_count: 0,
            hint: format!(
                "The output is binary ({kind}), {size}, so no text window is shown.{kept}{}",
                exit_sentence(exit_status)
            ),
        }
    }

    /// The finished window, with the spill's outcome for the marker and the hint, and the command's exit status.
    /// Call [`StreamWindow::close`] first.
    pub fn finish(&self, spill: &SpillReport, exit_status: Option<i32>) -> CaptureSummary {
        let mut summary = self.counts();
        let out = &self.out;
        if !out.overflowed {
            summary.content = out.all.clone();
            summary.hint = whole_hint(&summary, spill, exit_status);
            return summary;
        }
        let ring = RingChars::new(out.ring.text(out.keep));
        let start = ring.tail_start(self.config.tail_chars(), out.keep);
        let tail = ring.text_from(start);
        let tail_chars = ring.len() - start;
        let tail_starts_line = start > 0 && ring.is_newline(start - 1);
        let (head, head_chars) = out.head(tail_chars);
        let first_omitted = count_newlines(head) + 1;
        let tail_start_line = out.newlines - count_newlines(tail) + 1;
        let last_omitted = if tail_starts_line {
            tail_start_line - 1
        } else {
            tail_start_line
        };
        let last_omitted = last_omitted.max(first_omitted);
        summary.omitted_chars = out.total_chars - (head_chars + tail_chars) as u64;
        summary.omitted_range = Some((first_omitted, last_omitted));
        summary.omitted_lines = last_omitted - first_omitted + 1;
        let marker = marker_line(&summary, spill, first_omitted, last_omitted);
        summary.content = window_content(head, &marker, tail);
        summary.hint = overflow_hint(
            &summary,
            spill,
            exit_status,
            (lines_in(head), tail_start_line),
            (first_omitted, last_omitted),
            self.omitted_column(head),
        );
        summary
    }

    /// The summary's counts (characters, lines, bytes, redraws, replacements, line breaks), with no content, no
    /// omission and no hint yet. A CR-split window reports its line breaks as lone `\r` (`cr_count`).
    fn counts(&self) -> CaptureSummary {
        let out = &self.out;
        let mut summary = CaptureSummary {
            content: String::new(),
            total_chars: out.total_chars,
            total_lines: out.newlines + u64::from(out.total_chars > 0 && !out.ends_in_newline),
            total_bytes: self.total_bytes,
            omitted_chars: 0,
            omitted_lines: 0,
            omitted_range: None,
            collapsed_redraws: self.cleaner.redraws,
            replaced_invalid: self.decoder.replaced(),
            lf_count: self.cleaner.lf,
            crlf_count: self.cleaner.crlf,
            cr_count: 0,
            hint: String::new(),
        };
        if self.cr_split {
            summary.cr_count = summary.lf_count;
            summary.lf_count = 0;
        }
        summary
    }

    /// Where the omitted text starts inside its first line when the head ends inside that line: the column the
    /// reader continues at (0-based, in characters). `None` when the head is empty or ends with a line break, and
    /// when an escape sequence or a redraw was removed (the spill keeps the raw bytes, so the column would be off).
    fn omitted_column(&self, head: &str) -> Option<u64> {
        if head.is_empty() || head.ends_with('\n') {
            None
        } else if self.cleaner.escapes == 0 && self.cleaner.redraws == 0 {
            let line_start = head.rfind('\n').map_or(0, |newline| newline + 1);
            head.get(line_start..)
                .map(|part| part.chars().count() as u64)
        } else {
            None
        }
    }
}

/// The rolling tail's text with its characters indexed (a character index is 0-based, in characters), to choose
/// where the tail starts.
struct RingChars {
    /// The ring's text: one character of context, the reach for an error line, the tail.
    text: String,
    /// The byte offset and the character of each character of `text`.
    chars: Vec<(usize, char)>,
}

impl RingChars {
    /// Indexes `text`.
    fn new(text: String) -> Self {
        let chars = text.char_indices().collect();
        RingChars { text, chars }
    }

    /// Characters of the text.
    fn len(&self) -> usize {
        self.chars.len()
    }

    /// The byte offset of character `index` (the text's length in bytes past its end).
    fn byte_of(&self, index: usize) -> usize {
        self.chars
            .get(index)
            .map_or(self.text.len(), |(byte, _)| *byte)
    }

    /// Whether character `index` is a line break (false past the end).
    fn is_newline(&self, index: usize) -> bool {
        self.chars.get(index).is_some_and(|(_, c)| *c == '\n')
    }

    /// The index of the first line break at or after `index`, when there is one.
    fn next_newline(&self, index: usize) -> Option<usize> {
        (index..self.len()).find(|&at| self.is_newline(at))
    }

    /// The text from character `index` on (empty past the end).
    fn text_from(&self, index: usize) -> &str {
        self.text.get(self.byte_of(index)..).unwrap_or("")
    }

    /// The character index the tail starts at, for a tail of `tail_cap` characters out of a ring that keeps
    /// `keep`: the last `tail_cap` characters, moved to a line's start when that is cheap, and back to the start
    /// of an error line just before them.
    fn tail_start(&self, tail_cap: usize, keep: usize) -> usize {
        // The ring's first character is context only when the ring is full (it may be the head's last one).
        let first_usable = usize::from(self.len() >= keep);
        let start = self.len().saturating_sub(tail_cap).max(first_usable);
        let start = self.line_start_after(start, tail_cap);
        self.error_line_before(start).unwrap_or(start)
    }

    /// `start` moved on to the next line's start when that costs at most half of `tail_cap` (characters) and
    /// leaves the last line in the tail; `start` itself when it already starts a line or that costs more.
    fn line_start_after(&self, start: usize, tail_cap: usize) -> usize {
        if start == 0 || self.is_newline(start - 1) {
            return start;
        }
        match self.next_newline(start) {
            Some(found) if found + 1 < self.len() && found + 1 - start <= tail_cap / 2 => found + 1,
            _ => start,
        }
    }

    /// The start of the last error-looking line that ends before the tail at `start` but starts inside the ring
    /// (after one of its line breaks), when the tail itself has no such line: the tail goes back to it (the head
    /// gives up as much).
    fn error_line_before(&self, start: usize) -> Option<usize> {
        if self.text_from(start).split('\n').any(looks_like_error) {
            return None;
        }
        (0..start)
            .rev()
            .filter(|&index| self.is_newline(index) && index + 1 < start)
            .map(|index| index + 1)
            .find(|&line_start| {
                let line_end = self.next_newline(line_start).unwrap_or(self.len());
                let line = self
                    .text
                    .get(self.byte_of(line_start)..self.byte_of(line_end))
                    .unwrap_or("");
                looks_like_error(line)
            })
    }
}

/// Lines of `text`: its line breaks, plus one for a last line without one (0 for an empty text).
fn lines_in(text: &str) -> u64 {
    count_newlines(text) + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The overflowed window: the head (ended with a line break when it ends inside a line), the marker line, the
/// tail.
fn window_content(head: &str, marker: &str, tail: &str) -> String {
    let mut content = String::with_capacity(head.len() + marker.len() + tail.len() + 2);
    content.push_str(head);
    if !head.is_empty() && !head.ends_with('\n') {
        content.push('\n');
    }
    content.push_str(marker);
    content.push('\n');
    content.push_str(tail);
    content
}

/// The lines of the omitted range the spill holds, or why it holds none.
enum SpillCover {
    /// The spill holds lines up to `.0` of the range (all of it, or up to its cap).
    Holds(String, u64),
    /// Nothing of the range is on disk.
    Gone(String),
}

/// What the spill holds of the omitted lines `first` to `last` (1-based): the lines it holds them up to, or why
/// they are gone.
fn spill_cover(spill: &SpillReport, last: u64, first: u64) -> SpillCover {
    let why = spill.error.clone();
    match (&spill.path, why) {
        (Some(path), None) if !spill.capped => SpillCover::Holds(path.clone(), last),
        (Some(path), error) => {
            // A capped or failed spill holds its complete lines, and the fragment after them when it ends inside
            // a line.
            let held = spill.newlines_held + u64::from(spill.cut_line);
            if held >= first {
                SpillCover::Holds(path.clone(), held.min(last))
            } else {
                SpillCover::Gone(match error {
                    Some(error) => format!("the spill {path} failed ({error}) before line {first}"),
                    None => format!(
                        "the spill {path} {} before line {first}",
                        cap_words(spill.cap_chars)
                    ),
                })
            }
        }
        (None, Some(error)) => SpillCover::Gone(spill_failed_words(&error)),
        (None, None) => SpillCover::Gone(NO_SPILL.to_string()),
    }
}

/// The marker line that stands for the omitted lines `first` to `last` (1-based) in the window, without its line
/// break: what is omitted and where the spill holds it, or that it is gone.
fn marker_line(summary: &CaptureSummary, spill: &SpillReport, first: u64, last: u64) -> String {
    // Line numbers are plain (`offset=19970` takes them as they are); counts are grouped.
    let lines = line_span(first, last);
    let omitted = format!(
        "[read-window: {} in {} omitted ({lines} of {})",
        plural(summary.omitted_chars, "character", "characters"),
        plural(summary.omitted_lines, "line", "lines"),
        summary.total_lines
    );
    match spill_cover(spill, last, first) {
        SpillCover::Holds(path, held) if held >= last => {
            format!("{omitted}; they are {lines} of the spill {path}]")
        }
        SpillCover::Holds(path, held) => format!(
            "{omitted}; the spill {path} holds them up to line {held}{} ({}); lines after it are gone]",
            cut_words(spill, held),
            spill_stop(spill)
        ),
        SpillCover::Gone(why) => format!("{omitted}; {why}, so they are gone]"),
    }
}

/// `, whose end is cut off` when the spill's last line `held` is a fragment (the spill stays a byte-prefix of the
/// stream, so the cut is said here, not marked in the file).
fn cut_words(spill: &SpillReport, held: u64) -> &'static str {
    if spill.cut_line && held == spill.newlines_held + 1 {
        " (cut short: the spill ends inside it)"
    } else {
        ""
    }
}

/// Why a spill holds only the start of the omitted lines: `it failed: ...` or `it stopped at its cap of ...`.
fn spill_stop(spill: &SpillReport) -> String {
    match &spill.error {
        Some(error) => format!("it failed: {error}"),
        None => format!("it {}", cap_words(spill.cap_chars)),
    }
}

/// The words for a spill that was never started (its report has neither a path nor an error).
const NO_SPILL: &str = "no spill was made";

/// `the spill failed: {error}`: why the text a failed spill does not hold is gone.
fn spill_failed_words(error: &str) -> String {
    format!("the spill failed: {error}")
}

/// `stopped at its cap of {cap_chars} characters` (grouped), for a spill that reached its cap.
fn cap_words(cap_chars: u64) -> String {
    format!("stopped at its cap of {} characters", grouped(cap_chars))
}

/// `{count} {one or many} collapsed to the line's final state`: the redraws collapsed, `one` and `many` naming
/// them with their verb (`carriage-return redraw was`).
fn collapsed_words(count: u64, one: &str, many: &str) -> String {
    format!(
        "{} collapsed to the line's final state",
        plural(count, one, many)
    )
}

/// The name of POSIX signal `number` (Linux numbering for the common ones), when it has a well-known one.
pub fn signal_name(number: i32) -> Option<&'static str> {
    Some(match number {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => return None,
    })
}

/// The exit status in words: a status from 129 to 159 is how shells report a death by signal `status - 128`
/// (`exit status 137: killed by signal 9 (SIGKILL)`).
fn exit_sentence(exit_status: Option<i32>) -> String {
    match exit_status {
        Some(0) => " The command exited with status 0.".to_string(),
        Some(status @ 129..=159) => {
            let signal = status - 128;
            let name = signal_name(signal).map_or(String::new(), |name| format!(" ({name})"));
            format!(" The command failed: exit status {status}, killed by signal {signal}{name}.")
        }
        Some(status) => format!(" The command failed: exit status {status}."),
        None => String::new(),
    }
}

/// The sentences on the noise removed or reinterpreted (lone carriage returns as line breaks, redraws collapsed,
/// invalid bytes replaced), each with a leading space; empty when there was none.
fn noise_sentence(summary: &CaptureSummary) -> String {
    let mut out = String::new();
    if summary.cr_count > 0 {
        out.push_str(&format!(
            " The output has no line feed: its {} split it into lines, as the reader splits a CR-only file.",
            plural(summary.cr_count, "carriage return", "carriage returns")
        ));
    }
    if summary.collapsed_redraws > 0 {
        out.push_str(&format!(
            " {}.",
            collapsed_words(
                summary.collapsed_redraws,
                "carriage-return redraw was",
                "carriage-return redraws were"
            )
        ));
    }
    if summary.replaced_invalid > 0 {
        out.push_str(&format!(
            " {} replaced by U+FFFD.",
            plural(
                summary.replaced_invalid,
                "invalid byte sequence was",
                "invalid byte sequences were"
            )
        ));
    }
    out
}

/// The hint of an output that fit the window. When redraws were collapsed, the window is not the whole output: the
/// hint says so and where the raw stream (every redraw) is, instead of "the whole output".
fn whole_hint(summary: &CaptureSummary, spill: &SpillReport, exit_status: Option<i32>) -> String {
    let size = format!(
        "{} ({})",
        plural(summary.total_lines, "line", "lines"),
        plural(summary.total_chars, "character", "characters")
    );
    let mut hint = if summary.collapsed_redraws > 0 {
        let mut hint = format!(
            "The output after redraws were collapsed: {size}; {}.",
            collapsed_words(
                summary.collapsed_redraws,
                "carriage-return or erase-line redraw was",
                "carriage-return or erase-line redraws were"
            )
        );
        match (&spill.path, &spill.error) {
            (Some(path), None) => hint.push_str(&format!(
                " The raw output, every redraw included, is in {path} (offset=1)."
            )),
            (_, Some(error)) => hint.push_str(&format!(
                " The raw output with the redraws was not kept: {}.",
                spill_failed_words(error)
            )),
            (None, None) => hint.push_str(" The raw output with the redraws was not kept."),
        }
        if summary.total_lines <= 1 && summary.lf_count + summary.crlf_count == 0 {
            hint.push_str(
                " The output has no line feed at all: if its carriage returns separate records, the reader \
                 splits the raw output on them.",
            );
        }
        hint
    } else {
        let mut hint = format!("The whole output: {size}.");
        if let Some(path) = &spill.path {
            hint.push_str(&format!(" The raw output is also in {path}."));
        }
        hint
    };
    let mut noise = summary.clone();
    noise.collapsed_redraws = 0;
    hint.push_str(&noise_sentence(&noise));
    hint.push_str(&exit_sentence(exit_status));
    hint
}

/// The hint of an overflowed output. `column` is where the omitted text starts inside line `first` when the head
/// ends inside that line (the reader's `column`, 0-based characters); the hint's call then continues there.
fn overflow_hint(
    summary: &CaptureSummary,
    spill: &SpillReport,
    exit_status: Option<i32>,
    (head_last, tail_first): (u64, u64),
    (first, last): (u64, u64),
    column: Option<u64>,
) -> String {
    let total = summary.total_lines;
    let head = if head_last == 0 {
        String::new()
    } else {
        format!("{} (head) and ", line_span(1, head_last))
    };
    let mut hint = format!(
        "Output of {} ({}): showing {head}{} (tail, the end of the output); {} in {} are omitted.",
        plural(total, "line", "lines"),
        plural(summary.total_chars, "character", "characters"),
        line_span(tail_first, total),
        plural(summary.omitted_chars, "character", "characters"),
        line_span(first, last),
    );
    let read_to = match spill_cover(spill, last, first) {
        SpillCover::Holds(path, held) => Some((path, held)),
        SpillCover::Gone(why) => {
            hint.push_str(&format!(" They are gone: {why}."));
            None
        }
    };
    if let Some((path, held)) = read_to {
        let lines = held - first + 1;
        let limit = lines.min(READ_LIMIT_LINES);
        let column = column.map_or(String::new(), |column| format!(" column={column}"));
        hint.push_str(&format!(
            " Read them from the spill, not by running the command again: path={path} offset={first}{column} \
             limit={limit}"
        ));
        if lines > limit {
            hint.push_str(", then page on with the cursor");
        }
        hint.push('.');
        if held < last {
            hint.push_str(&format!(
                " The spill holds them only up to line {held}{} ({}).",
                cut_words(spill, held),
                spill_stop(spill)
            ));
        }
    }
    hint.push_str(&noise_sentence(summary));
    hint.push_str(&exit_sentence(exit_status));
    hint
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn config(window: u64) -> CaptureConfig {
        CaptureConfig {
            window_chars: window,
            ..CaptureConfig::default()
        }
    }

    fn run(config: CaptureConfig, chunks: &[&[u8]], spill: &SpillReport) -> CaptureSummary {
        let mut window = StreamWindow::new(config);
        for chunk in chunks {
            window.push(chunk);
        }
        window.close();
        window.finish(spill, None)
    }

    fn spilled(path: &str) -> SpillReport {
        SpillReport {
            path: Some(path.to_string()),
            cap_chars: DEFAULT_SPILL_CAP_CHARS,
            ..SpillReport::default()
        }
    }

    #[test]
    fn output_under_the_window_is_shown_whole() {
        let summary = run(config(200), &[b"one\ntwo\nthree"], &SpillReport::default());
        assert_eq!(summary.content, "one\ntwo\nthree");
        assert_eq!(
            (
                summary.total_chars,
                summary.total_lines,
                summary.total_bytes
            ),
            (13, 3, 13)
        );
        assert_eq!(summary.omitted_chars, 0);
        assert_eq!(summary.omitted_range, None);
        assert_eq!(summary.hint, "The whole output: 3 lines (13 characters).");
    }

    #[test]
    fn overflow_keeps_head_marker_and_tail_on_line_boundaries() {
        // 100 lines of 10 characters ("line NNNN\n"), window 200: head 80 characters, tail 120.
        let text: String = (1..=100).map(|n| format!("line {n:04}\n")).collect();
        let summary = run(
            config(200),
            &[text.as_bytes()],
            &spilled("/spill/capture-1.log"),
        );
        let head: String = (1..=8).map(|n| format!("line {n:04}\n")).collect();
        let tail: String = (89..=100).map(|n| format!("line {n:04}\n")).collect();
        let marker = "[read-window: 800 characters in 80 lines omitted (lines 9-88 of 100); they are lines 9-88 of \
                      the spill /spill/capture-1.log]\n";
        assert_eq!(summary.content, format!("{head}{marker}{tail}"));
        assert_eq!(summary.omitted_chars, 800);
        assert_eq!(summary.omitted_lines, 80);
        assert_eq!(summary.omitted_range, Some((9, 88)));
        assert_eq!(
            summary.hint,
            "Output of 100 lines (1,000 characters): showing lines 1-8 (head) and lines 89-100 (tail, the end of \
             the output); 800 characters in lines 9-88 are omitted. Read them from the spill, not by running the \
             command again: path=/spill/capture-1.log offset=9 limit=80."
        );
    }

    #[test]
    fn an_error_line_just_before_the_tail_is_pulled_into_it() {
        let mut text: String = (1..=80).map(|n| format!("line {n:04}\n")).collect();
        text.push_str("error: E0308\n");
        text.extend((82..=93).map(|n| format!("line {n:04}\n")));
        let summary = run(config(200), &[text.as_bytes()], &spilled("/s/c.log"));
        let head: String = (1..=6).map(|n| format!("line {n:04}\n")).collect();
        let mut tail = "error: E0308\n".to_string();
        tail.extend((82..=93).map(|n| format!("line {n:04}\n")));
        let marker = "[read-window: 740 characters in 74 lines omitted (lines 7-80 of 93); they are lines 7-80 of \
                      the spill /s/c.log]\n";
        assert_eq!(summary.content, format!("{head}{marker}{tail}"));
        assert_eq!(summary.omitted_range, Some((7, 80)));
    }

    #[test]
    fn a_progress_bar_collapses_to_its_final_state() {
        let mut bar = Vec::new();
        for n in 1..=10_000 {
            bar.extend_from_slice(format!("\rprogress {n}%").as_bytes());
        }
        bar.extend_from_slice(b"\ndone\n");
        let summary = run(config(50_000), &[&bar], &SpillReport::default());
        assert_eq!(summary.content, "progress 10000%\ndone\n");
        assert_eq!(summary.collapsed_redraws, 10_000);
        assert_eq!(summary.total_lines, 2);
    }

    #[test]
    fn ansi_colours_and_titles_are_removed() {
        let input = b"\x1b[1;31merror\x1b[0m: bad\n\x1b]0;title\x07ok \x1b(Bdone\r\n";
        let summary = run(config(200), &[input], &SpillReport::default());
        assert_eq!(summary.content, "error: bad\nok done\n");
        assert_eq!((summary.lf_count, summary.crlf_count), (1, 1));
    }

    #[test]
    fn invalid_utf8_is_replaced_and_counted() {
        let summary = run(config(200), &[b"a\xffb\n"], &SpillReport::default());
        assert_eq!(summary.content, "a\u{fffd}b\n");
        assert_eq!(summary.replaced_invalid, 1);
    }

    #[test]
    fn invalid_config_values_fall_back_with_warnings() {
        let (config, warnings) = CaptureConfig::from_input(CaptureInput {
            window_chars: Some(5),
            head_share: Some(1.5),
            spill_dir: Some(" ".into()),
            spill_cap_chars: Some(10),
        });
        assert_eq!(config, CaptureConfig::default());
        assert_eq!(warnings.len(), 3);
        assert_eq!(
            warnings[0],
            "config window-chars 5 is invalid (from 200 to 10000000); using the default 50000."
        );
    }

    #[test]
    fn a_failed_spill_says_the_middle_is_gone() {
        let text: String = (1..=100).map(|n| format!("line {n:04}\n")).collect();
        let spill = SpillReport {
            error: Some("permission denied".into()),
            ..SpillReport::default()
        };
        let summary = run(config(200), &[text.as_bytes()], &spill);
        assert!(summary.content.contains(
            "[read-window: 800 characters in 80 lines omitted (lines 9-88 of 100); the spill failed: permission \
             denied, so they are gone]"
        ));
        assert!(summary
            .hint
            .contains("They are gone: the spill failed: permission denied."));
    }

    #[test]
    fn a_line_longer_than_the_window_gives_the_head_its_start() {
        let text = format!("{}\nerror: late\n", "x".repeat(1_000));
        let summary = run(config(200), &[text.as_bytes()], &spilled("/s/c.log"));
        assert_eq!(
            summary.content,
            format!(
                "{}\n[read-window: 813 characters in 1 line omitted (line 1 of 2); they are line 1 of the spill \
                 /s/c.log]\n{}\nerror: late\n",
                "x".repeat(80),
                "x".repeat(107)
            )
        );
    }

    #[test]
    fn erase_line_spinners_collapse_and_string_sequences_are_removed_whole() {
        let input = b"\x1b[2K\x1b[1G- a\x1b[2K\x1b[1G\\ b\x1b[2K\x1b[Gdone\n\
                      x\x1bPq#0;2;0;0;0#0~~@@vv\x1b\\y\x1b_apc\x1b\\z\x1b]8;;http://e\x07!\n";
        let summary = run(config(200), &[input], &SpillReport::default());
        assert_eq!(summary.content, "done\nxyz!\n");
        assert_eq!(summary.collapsed_redraws, 2);
    }

    #[test]
    fn a_single_line_over_the_window_gives_the_column_of_its_omitted_middle() {
        let summary = run(config(200), &[&[b'x'; 1_000]], &spilled("/s/c.log"));
        assert_eq!(summary.omitted_range, Some((1, 1)));
        assert_eq!(
            summary.hint,
            "Output of 1 line (1,000 characters): showing line 1 (head) and line 1 (tail, the end of the output); \
             800 characters in line 1 are omitted. Read them from the spill, not by running the command again: \
             path=/s/c.log offset=1 column=80 limit=1."
        );
    }

    #[test]
    fn an_exit_status_over_128_names_the_signal() {
        let mut window = StreamWindow::new(config(200));
        window.push(b"x\n");
        window.close();
        let summary = window.finish(&SpillReport::default(), Some(137));
        assert_eq!(
            summary.hint,
            "The whole output: 1 line (2 characters). The command failed: exit status 137, killed by signal 9 \
             (SIGKILL)."
        );
    }

    fn stream() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\x1b[31m".to_vec()),
            Just(b"\x1b]0;t\x07".to_vec()),
            Just("é€😀".as_bytes().to_vec()),
            Just(b"\xff\xc3".to_vec()),
            Just(b"error: x\n".to_vec()),
            "[a-z ]{0,40}".prop_map(String::into_bytes),
            "[a-z]{150,450}".prop_map(String::into_bytes),
        ];
        proptest::collection::vec(piece, 0..120).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_result(
            bytes in stream(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
            window in 200u64..400,
        ) {
            let spill = spilled("/s/capture-1.log");
            let whole = run(config(window), &[&bytes], &spill);
            let mut points: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
            points.sort_unstable();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut from = 0;
            for point in points {
                chunks.push(&bytes[from..point]);
                from = point;
            }
            chunks.push(&bytes[from..]);
            let split = run(config(window), &chunks, &spill);
            prop_assert_eq!(&whole, &split);
            // The window never exceeds its size (the marker line aside), and the counts add up.
            let marker_chars = whole.content.lines().find(|line| line.starts_with("[read-window: "))
                .map_or(0, |line| line.chars().count() + 1 + usize::from(whole.omitted_range.is_some()));
            prop_assert!(whole.content.chars().count() <= window as usize + marker_chars);
            if whole.omitted_range.is_none() {
                prop_assert_eq!(whole.content.chars().count() as u64, whole.total_chars);
            }
            // The last line is always in the window.
            let cleaned_last = whole.content.trim_end_matches('\n').rsplit('\n').next().unwrap_or("");
            prop_assert!(!cleaned_last.starts_with("[read-window: ") || whole.total_chars == 0);
        }
    }
}
