//! The head and the rolling tail of the capture window: the cleaned output kept whole while it fits, then its first
//! characters and its last ones in segments (memory bounded by the window), and where the tail starts (a line's
//! start, an error line just before it).

use std::collections::VecDeque;

use super::CaptureConfig;

/// Characters one segment of the rolling tail holds before a new one is started.
const SEGMENT_CHARS: usize = 4_096;

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
pub(super) fn byte_at(text: &str, count: usize) -> usize {
    text.char_indices()
        .nth(count)
        .map_or(text.len(), |(index, _)| index)
}

/// Line breaks (`\n`) in `text`.
pub(super) fn count_newlines(text: &str) -> u64 {
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
pub(super) struct HeadTail {
    /// Characters of the window: head and tail together.
    pub(super) window: usize,
    /// Characters of the window given to the head.
    head_cap: usize,
    /// The tail's capacity plus the reach for an error line before it, plus one character of context.
    pub(super) keep: usize,
    /// The whole cleaned output while it fits the window; its head once it overflowed.
    pub(super) all: String,
    /// Characters in `all`.
    all_chars: usize,
    /// The output overflowed the window: from then on only the head and the rolling tail are kept.
    pub(super) overflowed: bool,
    /// The rolling tail, filled once the output overflowed.
    ring: Ring,
    /// Characters of the cleaned output so far.
    pub(super) total_chars: u64,
    /// Line breaks (`\n`) of the cleaned output so far.
    pub(super) newlines: u64,
    /// The cleaned output so far ends with a line break.
    pub(super) ends_in_newline: bool,
}

impl HeadTail {
    pub(super) fn new(config: &CaptureConfig) -> Self {
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
    pub(super) fn append(&mut self, text: &str) -> bool {
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

    /// The rolling tail's text, indexed: one character of context, the reach for an error line, the tail.
    pub(super) fn ring_chars(&self) -> RingChars {
        RingChars::new(self.ring.text(self.keep))
    }

    /// The head of an overflowed output beside a tail of `tail_chars` characters, and its characters: what the
    /// window has left of the head's share, cut back to a line's end when that costs at most half of it.
    pub(super) fn head(&self, tail_chars: usize) -> (&str, usize) {
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

/// The rolling tail's text with its characters indexed (a character index is 0-based, in characters), to choose
/// where the tail starts.
pub(super) struct RingChars {
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
    pub(super) fn len(&self) -> usize {
        self.chars.len()
    }

    /// The byte offset of character `index` (the text's length in bytes past its end).
    fn byte_of(&self, index: usize) -> usize {
        self.chars
            .get(index)
            .map_or(self.text.len(), |(byte, _)| *byte)
    }

    /// Whether character `index` is a line break (false past the end).
    pub(super) fn is_newline(&self, index: usize) -> bool {
        self.chars.get(index).is_some_and(|(_, c)| *c == '\n')
    }

    /// The index of the first line break at or after `index`, when there is one.
    fn next_newline(&self, index: usize) -> Option<usize> {
        (index..self.len()).find(|&at| self.is_newline(at))
    }

    /// The text from character `index` on (empty past the end).
    pub(super) fn text_from(&self, index: usize) -> &str {
        self.text.get(self.byte_of(index)..).unwrap_or("")
    }

    /// The character index the tail starts at, for a tail of `tail_cap` characters out of a ring that keeps
    /// `keep`: the last `tail_cap` characters, moved to a line's start when that is cheap, and back to the start
    /// of an error line just before them.
    pub(super) fn tail_start(&self, tail_cap: usize, keep: usize) -> usize {
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
pub(super) fn lines_in(text: &str) -> u64 {
    count_newlines(text) + u64::from(!text.is_empty() && !text.ends_with('\n'))
}
