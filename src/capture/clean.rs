//! The terminal-noise remover of the capture window: ANSI escape sequences removed (CSI, string sequences, the
//! two-byte and intermediate ones), carriage-return and erase-line redraws collapsed to the line's final state,
//! line breaks counted; whole lines (or pieces of a line too long to hold) go on to the head and tail.

use super::head_tail::{byte_at, count_newlines, HeadTail};

/// The longest OSC sequence (`ESC ]` ... `BEL`) removed, in characters; a longer one is taken as text, so a stray
/// `ESC ]` cannot swallow the output.
const MAX_OSC_CHARS: usize = 4_096;

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

/// Removes terminal noise from decoded text and hands whole lines (or pieces of a line too long to hold) to the
/// head and tail.
#[derive(Debug)]
pub(super) struct Cleaner {
    /// Where the escape-sequence remover is.
    escape: Escape,
    /// A `\r` was read and is not resolved yet: a line break when `\n` follows, a redraw when text does.
    pub(super) pending_cr: bool,
    /// The unfinished line, held back so a redraw can still clear it.
    pub(super) line: String,
    /// Characters in `line`.
    line_chars: usize,
    /// Characters of one line held back for a redraw at most; past it the line is passed on in pieces.
    hold: usize,
    /// Redraws collapsed: carriage returns followed by text, erase-line and cursor-to-column-1 sequences that
    /// cleared a line.
    pub(super) redraws: u64,
    /// Line breaks that were `\n` alone.
    pub(super) lf: u64,
    /// Line breaks that were `\r\n`.
    pub(super) crlf: u64,
    /// Escape sequences removed.
    pub(super) escapes: u64,
    /// The parameter bytes of the CSI sequence being read (at most [`MAX_CSI_PARAMS`] kept).
    csi: String,
}

/// Parameter bytes of a CSI sequence kept to tell a redraw (`ESC [ 2 K`, `ESC [ 1 G`) from other sequences.
const MAX_CSI_PARAMS: usize = 16;

impl Cleaner {
    /// A cleaner in plain text that holds at most `hold` characters of an unfinished line for a redraw.
    pub(super) fn new(hold: usize) -> Self {
        Cleaner {
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
        }
    }

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

    pub(super) fn flush(&mut self, out: &mut HeadTail) -> bool {
        let overflowed = out.append(&self.line);
        self.line.clear();
        self.line_chars = 0;
        overflowed
    }

    /// Cleans one piece of decoded text; true when the output overflowed the window during it.
    pub(super) fn feed(&mut self, piece: &str, out: &mut HeadTail) -> bool {
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
