//! The window: the lines of one read, each behind its gutter `N|`, clamped at `max_line_chars` on a grapheme
//! boundary, the whole held under the budget; and the cursor that continues.
//!
//! The window streams: each line is decoded piece by piece; only the characters that can be shown (the clamp plus a
//! few characters of look-ahead to find a grapheme boundary) are kept, the rest of a long line is only counted.
//!
//! The rooms: `walk` reads the lines and places each (whole, clamped, or cut by the budget), `sink` receives
//! one line's decoded text, `cut` finds where a line may be cut (grapheme boundaries), `meter` prices a line in
//! the budget's unit, `prints` hashes each line as it is written.

use crate::config::Budget;
use crate::prose::MARKER_PREFIX;

mod cut;
mod meter;
pub mod prints;
mod sink;
mod walk;

pub use walk::read_window;

/// Which window to read, after normalization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WindowRequest {
    /// The first line, 1-based, at least 1.
    pub offset: u64,
    /// Characters (Unicode scalar values) to skip in the first line, 0-based.
    pub column: u64,
    /// Lines at most, at least 1.
    pub limit: u64,
}

/// The settings that shape a window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowSettings {
    /// Characters of a line shown before it is clamped.
    pub max_line_chars: u64,
    /// The budget of the formatted content.
    pub budget: Budget,
    /// Token mode: a multiplier on the estimate learned from the host's real counts (1.0 when nothing is known).
    pub density: f64,
    /// Show each invisible character (tag, bidi control, zero-width) as its visible form `⟪U+XXXX⟫`; they are
    /// reported either way.
    pub escape_invisible: bool,
}

/// Why a window holds less than the request covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Truncation {
    /// Stopped at `limit` lines with lines left.
    Limit,
    /// Stopped because the next line did not fit the budget.
    Budget,
    /// At least one line was clamped.
    LineLength,
    /// The window ends inside a line.
    MidLine,
}

impl Truncation {
    /// The snake_case name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Truncation::Limit => "limit",
            Truncation::Budget => "budget",
            Truncation::LineLength => "line_length",
            Truncation::MidLine => "mid_line",
        }
    }
}

/// A line cut at the clamp; its rest is read with `offset = line`, `column = next_column`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClampedLine {
    /// The line, 1-based.
    pub line: u64,
    /// Characters shown.
    pub shown_chars: u64,
    /// Characters in the whole line.
    pub total_chars: u64,
    /// The column (0-based) where the unshown rest begins.
    pub next_column: u64,
}

/// A line a window showed only part of (clamped, cut by the budget, or started inside): check-write refuses text
/// that holds the piece as a whole line, which would cut the line in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartialLine {
    /// The line, 1-based.
    pub line: u64,
    /// The column (0-based characters) the piece starts at.
    pub from_column: u64,
    /// Characters of the piece.
    pub shown_chars: u64,
    /// Characters in the whole line.
    pub total_chars: u64,
    /// The piece's print as check-write compares a line ([`prints::compared_print`] of the piece as shown).
    pub print: u64,
}

/// Pieces shorter than this many characters are not kept as [`PartialLine`]s: a line of the text that equals a
/// short piece is as likely a line of its own.
pub const MIN_PARTIAL_CHARS: u64 = 32;

/// One window of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// The formatted lines, each `N|text\n`; a cut line ends in a marker before its `\n`.
    pub content: String,
    /// The first line shown, 1-based.
    pub start_line: u64,
    /// The column the first line starts at, 0-based characters.
    pub start_column: u64,
    /// The last line shown (whole or in part); 0 when nothing was shown.
    pub end_line: u64,
    /// Lines shown (a line cut by the budget counts).
    pub lines_returned: u64,
    /// Lines in the file.
    pub total_lines: u64,
    /// Every reason something was left out, in the order first met.
    pub truncated_by: Vec<Truncation>,
    /// The next line to read, when anything after the window is left.
    pub next_offset: Option<u64>,
    /// The column inside `next_offset` when the window ends inside a line.
    pub next_column: Option<u64>,
    /// The lines cut at the clamp.
    pub clamped_lines: Vec<ClampedLine>,
    /// The budget's limit, in its unit.
    pub budget_limit: u64,
    /// What the content costs, in the budget's unit.
    pub budget_used: u64,
    /// Estimated tokens of the content (computed in token mode only).
    pub estimated_tokens: Option<u64>,
    /// Invalid sequences replaced by U+FFFD in the content's lines.
    pub replaced_invalid: u64,
    /// Where the first [`REPLACED_AT_KEPT`] of them are, as (1-based line, 0-based column in characters): UTF-8
    /// replacements only (the decoder marks no others).
    pub replaced_at: Vec<(u64, u64)>,
    /// The invisible characters in the content's lines (see [`crate::invisible`]): how many of each kind, where
    /// the first are (columns in the file's characters), and whether the content shows them as visible forms.
    pub invisible: crate::invisible::InvisibleReport,
    /// The prints of the content's lines, taken as each was written (for the session memory).
    pub prints: prints::LinePrints,
    /// The lines shown only in part, at least [`MIN_PARTIAL_CHARS`] of them.
    pub partial_lines: Vec<PartialLine>,
}

/// How many replacement positions a window keeps for its hint.
pub const REPLACED_AT_KEPT: usize = 3;

impl Window {
    /// True exactly when something from the requested position to the end of the file is not in the content.
    pub fn truncated(&self) -> bool {
        !self.truncated_by.is_empty()
    }

    fn mark(&mut self, reason: Truncation) {
        if !self.truncated_by.contains(&reason) {
            self.truncated_by.push(reason);
        }
    }
}

/// The marker that ends a line cut at the clamp: the call that reads the rest of that line alone (`limit=1`: the
/// lines after it are in the window already).
pub fn clamp_marker(line: u64, remaining_chars: u64, next_column: u64) -> String {
    format!(
        " {MARKER_PREFIX}line {line} clamped, {remaining_chars} more characters; read them with offset={line} column={next_column} limit=1]"
    )
}

/// The marker that ends a line cut by the budget; `alone` (the window started inside this line: the rest of a
/// clamped line is being read) continues with `limit=1`, as the hint does.
pub fn budget_marker(line: u64, remaining_chars: u64, next_column: u64, alone: bool) -> String {
    let limit = if alone { " limit=1" } else { "" };
    format!(
        " {MARKER_PREFIX}budget reached in line {line}, {remaining_chars} more characters; continue with offset={line} column={next_column}{limit}]"
    )
}
/// Digits in the decimal form of `number`.
pub fn decimal_digits(number: u64) -> u64 {
    u64::from(number.checked_ilog10().unwrap_or(0)) + 1
}

#[cfg(test)]
mod tests;
