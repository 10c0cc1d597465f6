//! The lines a session showed only in part (clamped, cut by the budget, or read from a column inside them), kept
//! by the print of the piece shown, so `check-write` refuses text that holds a piece as a whole line: written
//! back, it would cut the line in the file for good, and nothing else in the text says so once the marker is
//! gone. At most [`MAX_PARTIAL_LINES`] pieces are kept (the oldest are forgotten first).

use std::collections::{HashMap, VecDeque};

use crate::window::prints::compared_print;
use crate::window::PartialLine;

/// Pieces of lines kept at most.
pub const MAX_PARTIAL_LINES: usize = 4_096;

/// A piece of a line a read showed, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownPiece {
    /// The file read (resolved).
    pub path: String,
    /// The line and the piece of it shown.
    pub line: PartialLine,
}

/// A line of a text that is a piece of a line a read showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PieceInText {
    /// The line of the text, 1-based.
    pub text_line: u64,
    /// The piece it equals.
    pub piece: ShownPiece,
}

/// The pieces of lines a session showed, by print.
#[derive(Debug, Default)]
pub struct PartialLines {
    pieces: HashMap<u64, ShownPiece, rustc_hash::FxBuildHasher>,
    order: VecDeque<u64>,
}

impl PartialLines {
    /// Remembers the pieces of lines of `path` (resolved) a window showed.
    pub fn remember(&mut self, path: &str, lines: &[PartialLine]) {
        for line in lines {
            let piece = ShownPiece {
                path: path.to_owned(),
                line: *line,
            };
            if self.pieces.insert(line.print, piece).is_none() {
                self.order.push_back(line.print);
            }
        }
        while self.order.len() > MAX_PARTIAL_LINES {
            if let Some(old) = self.order.pop_front() {
                self.pieces.remove(&old);
            }
        }
    }

    /// Forgets the pieces of `path` (resolved) past line `unchanged_through` (0: all of them): it changed, or was
    /// written, and those lines may be whole now; the lines a change notice calls unchanged keep theirs.
    pub fn forget(&mut self, path: &str, unchanged_through: u64) {
        let stale = |piece: &ShownPiece| piece.path == path && piece.line.line > unchanged_through;
        if self.pieces.values().any(stale) {
            self.pieces.retain(|_, piece| !stale(piece));
            let pieces = &self.pieces;
            self.order.retain(|print| pieces.contains_key(print));
        }
    }

    /// The first line of `text` that is a piece shown of a longer line of `path` (resolved), as it was shown or
    /// behind its `N|` gutter (compared as a gutter line is: whitespace at the end left out), where the text cuts
    /// the file's line: a line break after a piece that does not end its line, or before one that does not start
    /// it. A piece at the very end of the text (or, one that ends its line, at the start) may be an edit's anchor,
    /// the rest of the line staying in the file, and passes. Text with no line feed is split on its carriage
    /// returns, as the reader splits such a file.
    pub fn first_in(&self, text: &str, path: &str) -> Option<PieceInText> {
        if self.pieces.is_empty() || !self.pieces.values().any(|piece| piece.path == path) {
            return None;
        }
        let separator = if text.contains('\n') { '\n' } else { '\r' };
        let lines = text.split(separator).count();
        text.split(separator)
            .zip(1u64..)
            .find_map(|(line, text_line)| {
                let (broken_before, broken_after) = (text_line > 1, text_line < lines as u64);
                let cuts = |piece: &&ShownPiece| {
                    let shown = piece.line;
                    let starts = shown.from_column == 0;
                    let ends =
                        shown.from_column.saturating_add(shown.shown_chars) >= shown.total_chars;
                    piece.path == path && ((broken_after && !ends) || (broken_before && !starts))
                };
                let piece = self
                    .piece(line)
                    .filter(cuts)
                    .or_else(|| self.piece(without_gutter(line)?).filter(cuts))?;
                Some(PieceInText {
                    text_line,
                    piece: piece.clone(),
                })
            })
    }

    fn piece(&self, line: &str) -> Option<&ShownPiece> {
        self.pieces.get(&compared_print(line))
    }
}

/// `line` without a leading `N|` gutter (and the spaces or tabs before it); `None` when it has none.
fn without_gutter(line: &str) -> Option<&str> {
    let line = line.trim_start_matches([' ', '\t']);
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    line.get(digits..)?.strip_prefix('|')
}
