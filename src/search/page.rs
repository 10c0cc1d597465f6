//! The page of a search: the matches from `offset`, at most `limit`, under the budget, each with its context
//! lines; a long line is cut around its match and names the read that shows the rest. Matches before or after the
//! page are only counted by the run.

use std::collections::VecDeque;

use crate::config::{Budget, Config};
use crate::prose::{grouped, MARKER_PREFIX};
use crate::tokens::estimate_tokens;

/// What a finished page holds.
pub(super) struct FinishedPage {
    /// The first match of the page, 1-based.
    pub(super) offset: u64,
    /// Matches shown.
    pub(super) returned: u64,
    /// The match after the page, when there is one.
    pub(super) next_offset: Option<u64>,
    /// The page's lines.
    pub(super) content: String,
    /// The budget, not the limit, ended the page.
    pub(super) stopped_by_budget: bool,
}

/// A line kept for the context before a match: its number, its text as shown, and whether it may be shown.
struct Kept {
    number: u64,
    shown: String,
    searchable: bool,
}

/// The page being filled.
pub(super) struct Page {
    offset: u64,
    limit: u64,
    context_lines: usize,
    max_line_chars: usize,
    /// Invisible characters are shown in their visible form, as in a window (the config's `escape_invisible`).
    escape_invisible: bool,
    budget: Budget,
    used: u64,
    returned: u64,
    /// No more matches are shown: the limit or the budget was reached.
    full: bool,
    stopped_by_budget: bool,
    content: String,
    /// The last lines of the current file, for the context before the next match shown.
    before: VecDeque<Kept>,
    /// Lines of context still to show after the last match shown.
    after_left: usize,
    /// The last line shown in the current file.
    last_shown: Option<u64>,
    /// A line of another file was shown before the current file's first: a `--` comes first.
    shown_before_file: bool,
}

impl Page {
    /// A page from match `offset`, at most `limit` matches, `context_lines` around each, under `config`'s budget
    /// and line length.
    pub(super) fn new(offset: u64, limit: u64, context_lines: u32, config: &Config) -> Page {
        Page {
            offset,
            limit,
            context_lines: context_lines as usize,
            max_line_chars: usize::try_from(config.max_line_chars)
                .unwrap_or(usize::MAX)
                .max(1),
            escape_invisible: config.escape_invisible,
            budget: config.budget,
            used: 0,
            returned: 0,
            full: false,
            stopped_by_budget: false,
            content: String::new(),
            before: VecDeque::new(),
            after_left: 0,
            last_shown: None,
            shown_before_file: false,
        }
    }

    /// A new file begins: no context carries over.
    pub(super) fn begin_file(&mut self) {
        self.before.clear();
        self.after_left = 0;
        self.shown_before_file |= self.last_shown.is_some();
        self.last_shown = None;
    }

    /// A line that does not match: shown as context after the last match shown, else kept for the context before
    /// the next.
    pub(super) fn other_line(&mut self, display: &str, number: u64, text: &str, searchable: bool) {
        if self.after_left > 0 {
            self.after_left -= 1;
            if searchable {
                let line = format!(
                    "{display}-{number}|{}\n",
                    context_excerpt(text, self.max_line_chars, self.escape_invisible)
                );
                if !self.append(number, &line) {
                    self.after_left = 0;
                }
            } else {
                self.after_left = 0;
            }
            return;
        }
        if self.context_lines == 0 || self.full {
            return;
        }
        if self.before.len() == self.context_lines {
            self.before.pop_front();
        }
        self.before.push_back(Kept {
            number,
            shown: context_excerpt(text, self.max_line_chars, self.escape_invisible),
            searchable,
        });
    }

    /// Match number `match_number`, line `number` of `display`, its matches starting at the bytes `found`:
    /// shown when it is on the page.
    pub(super) fn matching_line(
        &mut self,
        match_number: u64,
        display: &str,
        number: u64,
        text: &str,
        found: &[usize],
    ) {
        self.after_left = 0;
        if match_number < self.offset || self.full {
            self.other_line_kept(number, text);
            return;
        }
        let mut block = String::new();
        let mut first_line = number;
        for kept in self.before.iter().filter(|kept| kept.searchable) {
            if self.last_shown.is_some_and(|last| kept.number <= last) {
                continue;
            }
            first_line = first_line.min(kept.number);
            block.push_str(&format!("{display}-{}|{}\n", kept.number, kept.shown));
        }
        block.push_str(&format!(
            "{display}:{number}|{}\n",
            match_excerpt(
                text,
                number,
                found,
                self.max_line_chars,
                self.escape_invisible
            )
        ));
        let separated = self.separator(first_line) + &block;
        let cost = self.cost(&separated);
        if self.returned > 0 && self.used.saturating_add(cost) > self.budget.limit() {
            self.full = true;
            self.stopped_by_budget = true;
            return;
        }
        self.used = self.used.saturating_add(cost);
        self.content.push_str(&separated);
        self.returned += 1;
        self.last_shown = Some(number);
        self.before.clear();
        self.after_left = self.context_lines;
        if self.returned == self.limit {
            self.full = true;
        }
    }

    /// A matching line not on the page, kept as context like any other line (it is shown as context only before
    /// a match on the page, which comes after it).
    fn other_line_kept(&mut self, number: u64, text: &str) {
        if self.context_lines == 0 || self.full {
            return;
        }
        if self.before.len() == self.context_lines {
            self.before.pop_front();
        }
        self.before.push_back(Kept {
            number,
            shown: context_excerpt(text, self.max_line_chars, self.escape_invisible),
            searchable: true,
        });
    }

    /// `--\n` when the block starting at line `first_line` does not follow the last line shown.
    fn separator(&self, first_line: u64) -> String {
        let follows = self.last_shown.is_some_and(|last| last + 1 == first_line);
        let anything_shown = self.last_shown.is_some() || self.shown_before_file;
        if anything_shown && !follows && self.context_lines > 0 {
            "--\n".to_owned()
        } else {
            String::new()
        }
    }

    /// Adds the context line `line` (line `number`) when the budget has room; false when it has none.
    fn append(&mut self, number: u64, line: &str) -> bool {
        let cost = self.cost(line);
        if self.used.saturating_add(cost) > self.budget.limit() {
            return false;
        }
        self.used = self.used.saturating_add(cost);
        self.content.push_str(line);
        self.last_shown = Some(number);
        true
    }

    /// What `text` costs of the budget, in its unit.
    fn cost(&self, text: &str) -> u64 {
        match self.budget {
            Budget::Characters(_) => text.chars().count() as u64,
            Budget::Tokens { .. } => estimate_tokens(text),
        }
    }

    /// The page, for a search that found `total_matches` in all.
    pub(super) fn finish(self, total_matches: u64) -> FinishedPage {
        let after = self.offset.saturating_add(self.returned);
        FinishedPage {
            offset: self.offset,
            returned: self.returned,
            next_offset: (after <= total_matches).then_some(after),
            content: self.content,
            stopped_by_budget: self.stopped_by_budget,
        }
    }
}

/// The byte index of character `column` of `text` (its length past the end).
fn byte_at(text: &str, column: usize) -> usize {
    text.char_indices()
        .nth(column)
        .map_or(text.len(), |(index, _)| index)
}

/// The bytes `from..to` of the line `text` as a search shows them: with each invisible character of the line (as a
/// window finds them, `crate::invisible::scan`) in its visible form when `escape`, so hidden text cannot reach the
/// model through a search any more than through a read. Columns stay those of the line.
fn shown_part(text: &str, from: usize, to: usize, escape: bool) -> String {
    let part = text.get(from..to).unwrap_or_default();
    if !escape {
        return part.to_owned();
    }
    crate::invisible::shown_range(text, from, to, crate::invisible::scan("", text, true))
}

/// A context line as shown: whole, or its first `max_chars` characters and a marker naming the read of the rest;
/// invisible characters in their visible form when `escape` ([`shown_part`]).
fn context_excerpt(text: &str, max_chars: usize, escape: bool) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return shown_part(text, 0, text.len(), escape);
    }
    let cut = byte_at(text, max_chars);
    format!(
        "{} {MARKER_PREFIX}line cut at {} of {} characters]",
        shown_part(text, 0, cut, escape),
        grouped(max_chars as u64),
        grouped(total as u64)
    )
}

/// A matching line as shown: whole, or `max_chars` characters around its first match with a marker naming the
/// columns shown and the read that shows the line from there; a note when the line holds several matches;
/// invisible characters in their visible form when `escape` ([`shown_part`]).
fn match_excerpt(
    text: &str,
    number: u64,
    found: &[usize],
    max_chars: usize,
    escape: bool,
) -> String {
    let total = text.chars().count();
    let several = match found.len() {
        0 | 1 => String::new(),
        count => format!(
            " {MARKER_PREFIX}{} matches in this line]",
            grouped(count as u64)
        ),
    };
    if total <= max_chars {
        return format!("{}{several}", shown_part(text, 0, text.len(), escape));
    }
    let first = found.first().copied().unwrap_or(0);
    let match_column = text.get(..first).map_or(0, |before| before.chars().count());
    let start = match_column.saturating_sub(max_chars / 4);
    let start = start.min(total.saturating_sub(max_chars));
    let end = start.saturating_add(max_chars).min(total);
    let (from, to) = (byte_at(text, start), byte_at(text, end));
    format!(
        "{} {MARKER_PREFIX}line {number} has {} characters; this shows columns {}-{} around the match (0-based); \
         read from there with offset={number} column={start} limit=1]{several}",
        shown_part(text, from, to, escape),
        grouped(total as u64),
        grouped(start as u64),
        grouped(end.saturating_sub(1) as u64),
    )
}
