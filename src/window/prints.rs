//! Prints of the lines a window writes, taken as each line is written, while its bytes are in cache: the session
//! memory needs one a line (the returned lines `check-write` compares against, [`crate::returned`]) and one for
//! the whole content (dedup's "unchanged" decision), and hashing them from the finished page read it twice more
//! (a quarter of a 2,000-line page's time).
//!
//! The hash is rustc-hash's word-at-a-time byte hash: a session-local value, never stored or compared across
//! processes.

use std::hash::Hasher;

/// The prints of a window's lines, in the order written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinePrints {
    /// Each line's print as `check-write` compares a line ([`compared_print`]).
    pub compared: Vec<u64>,
    /// Every line's exact print ([`bytes_print`] of the line as written), folded in order: the same content folds
    /// to the same value, and content that differs anywhere, even in whitespace at a line's end, to another.
    pub content: u64,
}

impl LinePrints {
    /// Notes one line as the window wrote it: its gutter, its text and any marker, without the line feed.
    pub fn note(&mut self, line: &str) {
        let exact = bytes_print(line.as_bytes());
        let compared = if ends_compared_as_written(line) {
            exact
        } else {
            compared_print(line)
        };
        self.compared.push(compared);
        // Not commutative (the rotation), so lines in another order fold to another value.
        self.content = (self.content.rotate_left(23) ^ exact).wrapping_mul(FOLD_MULTIPLIER);
    }
}

/// An odd 64-bit constant (the golden ratio's): multiplying by it spreads each bit of the fold over the higher ones.
const FOLD_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// The hash of `bytes`.
pub fn bytes_print(bytes: &[u8]) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

/// The print of a gutter line as `check-write` compares it: whitespace at its end (trailing spaces an editor
/// trimmed, a carriage return of CRLF text) left out. `line` starts at its gutter.
pub fn compared_print(line: &str) -> u64 {
    if ends_compared_as_written(line) {
        bytes_print(line.as_bytes())
    } else {
        bytes_print(line.trim_end().as_bytes())
    }
}

/// Whether `line` ends with a character that is not whitespace, so the trim at the end, which steps through
/// characters, has nothing to take (the common line; an empty one has nothing either).
fn ends_compared_as_written(line: &str) -> bool {
    match line.as_bytes().last() {
        Some(&last) => last.is_ascii() && !char::from(last).is_whitespace(),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_ending_in_whitespace_is_compared_trimmed_and_folded_exactly() {
        let mut spaced = LinePrints::default();
        spaced.note("7|    let a = 1;  ");
        let mut trimmed = LinePrints::default();
        trimmed.note("7|    let a = 1;");
        assert_eq!(spaced.compared, trimmed.compared);
        assert_eq!(spaced.compared, vec![compared_print("7|    let a = 1;\r")]);
        assert_ne!(spaced.content, trimmed.content);
    }

    #[test]
    fn the_fold_depends_on_the_order_of_the_lines() {
        let [mut ab, mut ba] = [LinePrints::default(), LinePrints::default()];
        ab.note("1|a");
        ab.note("2|b");
        ba.note("2|b");
        ba.note("1|a");
        assert_ne!(ab.content, ba.content);
        assert_eq!(ab.compared, vec![bytes_print(b"1|a"), bytes_print(b"2|b")]);
    }
}
