//! What a session returned, for the checks that need it:
//!
//! - **Returned gutter lines** ([`ReturnedLines`]): a hash of every `N|line` line of content this session
//!   returned, for `check-write`, which refuses text holding two or more of them in a row (a window pasted back,
//!   whatever text is around it) and accepts numbered data that never came from a read. At most
//!   [`MAX_RETURNED_LINES`] hashes are kept (the oldest are forgotten first): about 1.5 MiB.
//! - **Lines shown in part** ([`partial`]): the pieces of lines a read clamped, cut or started inside, so
//!   `check-write` refuses text that holds one as a whole line.
//! - **Lossy reads**: the paths whose windows had invalid bytes replaced by U+FFFD, so `check-write` refuses that
//!   damaged decode going back into the file (at most [`MAX_LOSSY_PATHS`] paths).
//! - **Invisible reads**: the paths whose windows showed invisible characters as visible forms `⟪U+XXXX⟫`, so
//!   `check-write` refuses text for them that holds such a form (at most [`MAX_LOSSY_PATHS`] paths).
//! - **File versions** ([`FileVersions`]): per path and [`View`], the content print of what this session's
//!   previous read of that view saw, so a read that finds it changed carries a change notice; a document's
//!   extracted text and its own bytes are two views, each compared with itself only (at most [`MAX_VERSIONS`]
//!   views, each with at most [`LINE_PRINT_LINES`](crate::index::LINE_PRINT_LINES) line prints: 2 MiB at most).
//!
//! Everything here is pure: the reader supplies the prints (from the line index) and the content.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::index::LineIndex;
use crate::prose::{line_count, MARKER_PREFIX};
use crate::session::View;
use crate::window::prints::compared_print;

pub mod partial;

/// Hashes of returned gutter lines kept at most.
pub const MAX_RETURNED_LINES: usize = 65_536;
/// Paths whose reads replaced invalid bytes kept at most.
pub const MAX_LOSSY_PATHS: usize = 1_024;
/// Views of files (a path and a [`View`]) whose previous version is kept at most, for change notices.
pub const MAX_VERSIONS: usize = 128;
/// Characters of a text line quoted in a `check-write` refusal at most.
const QUOTE_CHARS: usize = 60;

/// The print of a gutter line as it is compared ([`compared_print`]), or `None` when `line` has no gutter (ASCII
/// digits, then `|`).
///
/// Only what a paste changes around the gutter line is normalised: spaces and tabs before the gutter (a window
/// pasted with indentation) and whitespace at the end of the line (trailing spaces trimmed by an editor, a
/// carriage return of CRLF text). The text between them, its own indentation included, is compared exactly.
///
/// The number is the run of digits at the start: it must be followed by the line's first `|` (which the trim at
/// the end cannot reach, so the number is checked before it).
fn gutter_line_hash(line: &str) -> Option<u64> {
    // A line as a window returned it starts with its digits: the trim, which steps through characters, is left out.
    let line = match line.as_bytes().first() {
        Some(first) if first.is_ascii_digit() => line,
        _ => line.trim_start_matches([' ', '\t']),
    };
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || line.as_bytes().get(digits) != Some(&b'|') {
        return None;
    }
    Some(compared_print(line))
}

/// The gutter lines inside `line` behind a prefix that ends in `:` or `-` (a search result's `path:N|line`, its
/// context's `path-N|line`): each `N|...` that follows such a character, first to last.
fn prefixed_gutters(line: &str) -> impl Iterator<Item = &str> {
    line.char_indices()
        .filter(|&(_, character)| character == ':' || character == '-')
        .filter_map(move |(at, _)| line.get(at + 1..))
        .filter(|rest| {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            digits > 0 && rest.as_bytes().get(digits) == Some(&b'|')
        })
}

/// The prints of the gutter lines of `content` as [`ReturnedLines::remember`] takes them from a window, found
/// again from the text: what the tests compare the prints a window took with.
#[cfg(test)]
pub(crate) fn compared_prints_of(content: &str) -> Vec<u64> {
    content.split('\n').filter_map(gutter_line_hash).collect()
}

/// A run of lines of a text that this session returned with their gutters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EchoedRun {
    /// The first line of the run in the text, 1-based.
    pub first: u64,
    /// The last line of the run in the text, 1-based.
    pub last: u64,
    /// The run's first line, quoted (at most 60 characters).
    pub quote: String,
}

/// Paths remembered in the order first noted, the oldest forgotten beyond [`MAX_LOSSY_PATHS`].
#[derive(Debug, Default)]
struct RecentPaths {
    paths: HashSet<String>,
    order: VecDeque<String>,
}

impl RecentPaths {
    /// Remembers `path`, forgetting the oldest beyond [`MAX_LOSSY_PATHS`].
    fn note(&mut self, path: &str) {
        if self.paths.insert(path.to_string()) {
            self.order.push_back(path.to_string());
        }
        while self.order.len() > MAX_LOSSY_PATHS {
            if let Some(old) = self.order.pop_front() {
                self.paths.remove(&old);
            }
        }
    }

    fn contains(&self, path: &str) -> bool {
        self.paths.contains(path)
    }
}

/// The hashes of the `N|line` lines a session returned, the pieces of lines it showed in part, the paths whose
/// reads replaced invalid bytes, and the paths whose reads showed invisible characters as visible forms.
#[derive(Debug, Default)]
pub struct ReturnedLines {
    hashes: HashSet<u64, rustc_hash::FxBuildHasher>,
    order: VecDeque<u64>,
    /// The pieces of lines shown in part.
    pub partial: partial::PartialLines,
    lossy: RecentPaths,
    invisible: RecentPaths,
}

impl ReturnedLines {
    /// Nothing returned yet.
    pub fn new() -> Self {
        ReturnedLines::default()
    }

    /// Remembers the gutter lines a window returned, by the prints it took of them as it wrote them
    /// ([`LinePrints::compared`](crate::window::prints::LinePrints)), forgetting the oldest beyond
    /// `MAX_RETURNED_LINES`.
    pub fn remember(&mut self, prints: &[u64]) {
        for &hash in prints {
            if self.hashes.insert(hash) {
                self.order.push_back(hash);
            }
        }
        while self.order.len() > MAX_RETURNED_LINES {
            if let Some(old) = self.order.pop_front() {
                self.hashes.remove(&old);
            }
        }
    }

    /// Remembers the gutter lines of text the session returned outside a window: a listing's entries (`N|name`)
    /// and search results (`path:N|line`, context `path-N|line`, remembered as their `N|line`).
    pub fn remember_text(&mut self, content: &str) {
        let prints: Vec<u64> = content
            .split('\n')
            .filter_map(|line| {
                gutter_line_hash(line).or_else(|| {
                    prefixed_gutters(line)
                        .next()
                        .map(crate::window::prints::compared_print)
                })
            })
            .collect();
        self.remember(&prints);
    }

    #[cfg(test)]
    /// Hashes kept.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// The first run of two or more consecutive lines of `text` that are gutter lines this session returned
    /// (compared with the indentation before the gutter and the whitespace at the end of the line ignored).
    /// Text with no line feed is split on its carriage returns, as the reader splits such a file.
    pub fn echoed_run(&self, text: &str) -> Option<EchoedRun> {
        let separator = if text.contains('\n') { '\n' } else { '\r' };
        let mut run: Option<(u64, &str)> = None;
        let mut number = 0u64;
        for line in text.split(separator) {
            number += 1;
            let returned = self.is_returned(line);
            match (returned, run) {
                (true, None) => run = Some((number, line)),
                (true, Some((first, quote))) => {
                    if number > first {
                        // Two in a row: extend the run to its end before answering.
                        let mut last = number;
                        for next in text
                            .split(separator)
                            .skip(usize::try_from(number).unwrap_or(usize::MAX))
                        {
                            if self.is_returned(next) {
                                last += 1;
                            } else {
                                break;
                            }
                        }
                        return Some(EchoedRun {
                            first,
                            last,
                            quote: quote
                                .trim_start_matches([' ', '\t'])
                                .trim_end()
                                .chars()
                                .take(QUOTE_CHARS)
                                .collect(),
                        });
                    }
                }
                (false, _) => run = None,
            }
        }
        None
    }

    /// Whether `line` is a gutter line this session returned, alone or behind a search result's path.
    fn is_returned(&self, line: &str) -> bool {
        let returned = |hash: u64| self.hashes.contains(&hash);
        gutter_line_hash(line).is_some_and(returned)
            || prefixed_gutters(line)
                .any(|rest| returned(crate::window::prints::compared_print(rest)))
    }

    /// Remembers that a read of `path` (resolved) replaced invalid bytes with U+FFFD.
    pub fn remember_lossy(&mut self, path: &str) {
        self.lossy.note(path);
    }

    /// Whether a read of `path` (resolved) in this session replaced invalid bytes.
    pub fn is_lossy(&self, path: &str) -> bool {
        self.lossy.contains(path)
    }

    /// Remembers that a read of `path` (resolved) showed invisible characters as their visible forms.
    pub fn remember_invisible(&mut self, path: &str) {
        self.invisible.note(path);
    }

    /// Whether a read of `path` (resolved) in this session showed invisible characters as visible forms.
    pub fn showed_invisible(&self, path: &str) -> bool {
        self.invisible.contains(path)
    }
}

/// The 1-based line of `text` where U+FFFD first appears.
pub fn replacement_line(text: &str) -> Option<u64> {
    text.split('\n')
        .position(|line| line.contains('\u{FFFD}'))
        .map(|index| index as u64 + 1)
}

/// What a session knew of a file at its previous read: the content print of the whole file and of its first
/// lines, its size and line count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileVersion {
    /// Bytes.
    pub size: u64,
    /// The content print of the whole file.
    pub print: u64,
    /// Lines.
    pub total_lines: u64,
    /// The file ended with a line feed (or was empty).
    pub ends_with_line_feed: bool,
    /// The prints of the first lines (see [`LineIndex::line_prints`]).
    pub line_prints: Vec<u64>,
}

impl FileVersion {
    /// The version an up-to-date index describes.
    pub fn of(index: &LineIndex) -> Self {
        FileVersion {
            size: index.scanned_bytes(),
            print: index.content_print(),
            total_lines: index.total_lines(),
            ends_with_line_feed: index.ends_with_line_feed(),
            line_prints: index.line_prints().to_vec(),
        }
    }

    /// The print of the bytes through the end of `line` (1-based), when it is known: the first lines have one,
    /// and the last line's is the whole file's.
    fn line_print(&self, line: u64) -> Option<u64> {
        let index = usize::try_from(line.checked_sub(1)?).ok()?;
        match self.line_prints.get(index) {
            Some(print) => Some(*print),
            None if line == self.total_lines => Some(self.print),
            None => None,
        }
    }
}

/// How a file differs from its version at this session's previous read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Same content.
    Unchanged,
    /// Lines were added after line `after` (the old last line, which ended with a line feed); lines
    /// `1..=after` are unchanged. `total` is the new line count.
    Appended {
        /// The old line count.
        after: u64,
        /// The new line count.
        total: u64,
    },
    /// The old last line `line` had no line ending and was extended (lines may have been added after it); lines
    /// before it are unchanged.
    LastLineGrew {
        /// The old last line.
        line: u64,
        /// The new line count.
        total: u64,
    },
    /// Lines after `total` were removed; lines `1..=total` are unchanged.
    Removed {
        /// The new line count.
        total: u64,
        /// The old line count.
        was: u64,
    },
    /// Line `line` is the first that differs; lines before it are unchanged.
    FirstChanged {
        /// The first changed line, 1-based.
        line: u64,
        /// The new line count.
        total: u64,
    },
    /// Lines `1..=through` are unchanged; where after them it changed is not known (past the line prints).
    ChangedAfter {
        /// The last line known unchanged.
        through: u64,
    },
    /// The content changed; where is not known.
    Changed,
}

impl Change {
    /// The lines (1..=N, 1-based) the change leaves as they were, so a window of them read earlier is still
    /// current: `None` when nothing changed, `Some(0)` when every earlier window is stale. Windows that reach past
    /// N are stale (their lines, or the file's line count they state, changed).
    pub fn unchanged_through(self) -> Option<u64> {
        match self {
            Change::Unchanged => None,
            Change::Appended { after, .. } => Some(after),
            Change::LastLineGrew { line, .. } | Change::FirstChanged { line, .. } => {
                Some(line.saturating_sub(1))
            }
            Change::Removed { total, .. } => Some(total),
            Change::ChangedAfter { through } => Some(through),
            Change::Changed => Some(0),
        }
    }
}

/// Compares `new` with `old`. `old_prefix` is the content print of the first `old.size` bytes of the new file,
/// when it is known (the file grew): equal to `old.print`, the old part is unchanged.
pub fn compare(old: &FileVersion, new: &FileVersion, old_prefix: Option<u64>) -> Change {
    if old.print == new.print && old.size == new.size {
        return Change::Unchanged;
    }
    let grew_in_place = new.size > old.size && old_prefix == Some(old.print);
    let common = old.total_lines.min(new.total_lines);
    let mut line = 1;
    while line <= common {
        match (old.line_print(line), new.line_print(line)) {
            (Some(before), Some(now)) if before != now => {
                // The old last line, open (no line feed), with the old bytes still first: it grew.
                if grew_in_place && line == old.total_lines && !old.ends_with_line_feed {
                    return Change::LastLineGrew {
                        line,
                        total: new.total_lines,
                    };
                }
                return Change::FirstChanged {
                    line,
                    total: new.total_lines,
                };
            }
            (Some(_), Some(_)) => line += 1,
            _ => break,
        }
    }
    if line > common {
        // Every line both versions have is the same.
        return if new.total_lines > old.total_lines {
            Change::Appended {
                after: old.total_lines,
                total: new.total_lines,
            }
        } else if new.total_lines < old.total_lines {
            Change::Removed {
                total: new.total_lines,
                was: old.total_lines,
            }
        } else {
            Change::Changed
        };
    }
    if grew_in_place {
        return if old.ends_with_line_feed {
            Change::Appended {
                after: old.total_lines,
                total: new.total_lines,
            }
        } else {
            Change::LastLineGrew {
                line: old.total_lines,
                total: new.total_lines,
            }
        };
    }
    match line.checked_sub(1) {
        Some(through) if through > 0 => Change::ChangedAfter { through },
        _ => Change::Changed,
    }
}

/// "line A was" or "lines A-B were".
fn were(first: u64, last: u64) -> String {
    if first >= last {
        format!("line {first} was")
    } else {
        format!("lines {first}-{last} were")
    }
}

/// The notice a read carries when `path` changed since this session's previous read of it; `None` when it did not.
pub fn change_notice(path: &str, change: Change) -> Option<String> {
    let path = crate::prose::path_in_prose(path);
    let head = format!("{MARKER_PREFIX}file changed] {path} changed since your previous read of it in this session:");
    Some(head + &change_body(change)?)
}

/// What changed, in words, as the sentence after "... changed since ...:" (it starts with a space); `None` when
/// nothing did.
pub fn change_body(change: Change) -> Option<String> {
    let body = match change {
        Change::Unchanged => return None,
        Change::Appended { after: 0, total } => format!(
            " it was empty and now has {total} {}.",
            if total == 1 { "line" } else { "lines" }
        ),
        Change::Appended { after, total } => format!(
            " {} added after line {after}. {} unchanged, so what you read of {} is still current.",
            were(after.saturating_add(1), total),
            if after == 1 { "Line 1 is".to_string() } else { format!("Lines 1-{after} are") },
            if after == 1 { "it" } else { "them" }
        ),
        Change::LastLineGrew { line, total } => {
            let added = if total > line {
                format!(" and {} added after it", were(line.saturating_add(1), total))
            } else {
                String::new()
            };
            let unchanged = match line {
                0 | 1 => String::new(),
                2 => " Line 1 is unchanged;".to_string(),
                _ => format!(" Lines 1-{} are unchanged;", line.saturating_sub(1)),
            };
            let window = if unchanged.is_empty() { " A window" } else { " a window" };
            format!(
                " its last line, {line}, had no line ending and was extended{added}.{unchanged}{window} of it that shows line {line} is stale."
            )
        }
        Change::Removed { total: 0, .. } => " it is now empty; every window of it you read earlier is stale.".to_string(),
        Change::Removed { total, was } => format!(
            " {} removed; it now has {total} {}, and they are unchanged.",
            were(total.saturating_add(1), was),
            if total == 1 { "line" } else { "lines" }
        ),
        Change::FirstChanged { line: 1, total } => format!(
            " the change starts at line 1 (it now has {}), so every window of it you read earlier is stale: their line numbers and content may no longer match the file.",
            line_count(total)
        ),
        Change::FirstChanged { line, total } => format!(
            " the first changed line is {line} (it now has {}); {} unchanged. Windows of it you read earlier are stale from line {line} on: their line numbers and content may no longer match the file.",
            line_count(total),
            if line == 2 { "line 1 is".to_string() } else { format!("lines 1-{} are", line.saturating_sub(1)) }
        ),
        Change::ChangedAfter { through } => format!(
            " lines 1-{through} are unchanged and the change is after line {through}. Windows of it after line {through} you read earlier may be stale: read again what you rely on."
        ),
        Change::Changed => " its content differs. Windows of it you read earlier may be stale: read again what you rely on.".to_string(),
    };
    Some(body)
}

/// The version of each view of each file at this session's previous read of it. A document's extracted text and
/// its own bytes are kept apart: a read of one view is compared with the previous read of the same view, so a
/// switch of view is no change.
#[derive(Debug, Default)]
pub struct FileVersions {
    versions: HashMap<(String, View), FileVersion>,
    order: VecDeque<(String, View)>,
}

impl FileVersions {
    /// No file read yet.
    pub fn new() -> Self {
        FileVersions::default()
    }

    /// The version of `path` (resolved) in `view` at this session's previous read of that view.
    pub fn previous(&self, path: &str, view: View) -> Option<&FileVersion> {
        self.versions.get(&(path.to_string(), view))
    }

    /// The views of `path` (resolved) with a version kept, the file's bytes first.
    pub fn views(&self, path: &str) -> Vec<View> {
        [View::Bytes, View::Extracted]
            .into_iter()
            .filter(|view| self.previous(path, *view).is_some())
            .collect()
    }

    /// Keeps `version` as the latest of `path` in `view`, forgetting the least recently read beyond
    /// `MAX_VERSIONS`.
    pub fn store(&mut self, path: &str, view: View, version: FileVersion) {
        let key = (path.to_string(), view);
        if self.versions.insert(key.clone(), version).is_some() {
            self.order.retain(|existing| *existing != key);
        }
        self.order.push_back(key);
        while self.order.len() > MAX_VERSIONS {
            if let Some(old) = self.order.pop_front() {
                self.versions.remove(&old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    mod fast_paths {
        use super::super::*;
        use proptest::prelude::*;

        /// The gutter check as it was written first: trim both ends, split at the first `|`, digits before it.
        fn gutter_line_hash_reference(line: &str) -> Option<u64> {
            let line = line.trim_start_matches([' ', '\t']).trim_end();
            let (number, _) = line.split_once('|')?;
            if number.is_empty() || !number.bytes().all(|byte| byte.is_ascii_digit()) {
                return None;
            }
            Some(crate::window::prints::bytes_print(line.as_bytes()))
        }

        fn pieces() -> impl Strategy<Value = String> {
            proptest::collection::vec(
                prop::sample::select(vec![
                    "1", "42", "|", " ", "\t", "\n", "x", "é", "\u{3000}", "\r", "a|b", "",
                    "\u{b}", "\u{c}", "\u{85}", "\u{a0}", "\u{1c}", "0",
                ]),
                0..24,
            )
            .prop_map(|pieces| pieces.concat())
        }

        proptest! {
            #[test]
            fn the_gutter_check_agrees_with_its_reference(line in pieces()) {
                prop_assert_eq!(gutter_line_hash(&line), gutter_line_hash_reference(&line));
            }
        }
    }
    use crate::decode::TextEncoding;
    use crate::index::LINE_PRINT_LINES;
    use crate::scan::Scanner;
    use crate::source::MemorySource;

    fn version(text: &str) -> FileVersion {
        let mut source = MemorySource::new(text.as_bytes().to_vec());
        let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
        let mut index = LineIndex::new(TextEncoding::Utf8, 0);
        index.extend(&mut scanner).unwrap();
        FileVersion::of(&index)
    }

    #[test]
    fn returned_runs_are_found_anywhere_and_other_numbered_text_passes() {
        let mut returned = ReturnedLines::new();
        returned.remember(&compared_prints_of("12|def foo():\n13|    return 1\n14|\n"));
        assert_eq!(
            returned.echoed_run("# header\n12|def foo():\n13|    return 1\n"),
            Some(EchoedRun {
                first: 2,
                last: 3,
                quote: "12|def foo():".to_string()
            })
        );
        assert_eq!(
            returned
                .echoed_run(
                    "12|def foo():\r\n13|    return 1\r\n14|\r\n\r\nShowing lines 12-14.\r\n"
                )
                .map(|run| (run.first, run.last)),
            Some((1, 3))
        );
        // One returned line alone, numbered data never returned, and the lines without their gutters pass.
        assert_eq!(returned.echoed_run("x\n12|def foo():\ny\n"), None);
        assert_eq!(returned.echoed_run("1|Alice|30\n2|Bob|25\n"), None);
        assert_eq!(returned.echoed_run("def foo():\n    return 1\n"), None);
        assert_eq!(
            returned
                .echoed_run("13|    return 1\n12|def foo():\n")
                .map(|run| run.first),
            Some(1)
        );
    }

    #[test]
    fn indentation_before_the_gutter_and_trailing_whitespace_are_ignored() {
        let mut returned = ReturnedLines::new();
        returned.remember(&compared_prints_of(
            "7|    let a = 1;  \n8|    let b = 2;\n",
        ));
        assert_eq!(
            returned.echoed_run("fn f() {\n    7|    let a = 1;\n\t8|    let b = 2;   \n}\n"),
            Some(EchoedRun {
                first: 2,
                last: 3,
                quote: "7|    let a = 1;".to_string()
            })
        );
        // The text after the gutter is compared exactly: changed indentation there is an edit, not an echo.
        assert_eq!(
            returned.echoed_run("7|  let a = 1;\n8|  let b = 2;\n"),
            None
        );
    }

    #[test]
    fn returned_lines_are_bounded() {
        let mut returned = ReturnedLines::new();
        let content: String = (1..=MAX_RETURNED_LINES as u64 + 10)
            .map(|n| format!("{n}|x\n"))
            .collect();
        returned.remember(&compared_prints_of(&content));
        assert_eq!(returned.len(), MAX_RETURNED_LINES);
        assert_eq!(returned.echoed_run("1|x\n2|x\n"), None);
        assert!(returned.echoed_run("100|x\n101|x\n").is_some());
    }

    #[test]
    fn the_replacement_character_is_located_by_line() {
        assert_eq!(replacement_line("ok\ncaf\u{FFFD}\n"), Some(2));
        assert_eq!(replacement_line("ok\n"), None);
    }

    #[test]
    fn changes_are_classified() {
        let old = version("a\nb\nc\n");
        assert_eq!(
            compare(&old, &version("a\nb\nc\n"), None),
            Change::Unchanged
        );
        assert_eq!(
            compare(&old, &version("a\nb\nc\nd\ne\n"), None),
            Change::Appended { after: 3, total: 5 }
        );
        assert_eq!(
            compare(&old, &version("new\na\nb\nc\n"), None),
            Change::FirstChanged { line: 1, total: 4 }
        );
        assert_eq!(
            compare(&old, &version("a\nB\nc\n"), None),
            Change::FirstChanged { line: 2, total: 3 }
        );
        assert_eq!(
            compare(&old, &version("a\n"), None),
            Change::Removed { total: 1, was: 3 }
        );
        assert_eq!(
            compare(&version("a\nb"), &version("a\nbc\nd\n"), None),
            Change::FirstChanged { line: 2, total: 3 }
        );
        let open = version("a\nb");
        assert_eq!(
            compare(&open, &version("a\nbc\nd\n"), Some(open.print)),
            Change::LastLineGrew { line: 2, total: 3 }
        );
        assert_eq!(
            compare(&version(""), &version("a\n"), None),
            Change::Appended { after: 0, total: 1 }
        );
        // Past the line prints: the prefix print decides.
        let many: String = (0..LINE_PRINT_LINES + 5)
            .map(|n| format!("{n}\n"))
            .collect();
        let old = version(&many);
        let grown = version(&(many.clone() + "more\n"));
        assert_eq!(
            compare(&old, &grown, Some(old.print)),
            Change::Appended {
                after: old.total_lines,
                total: old.total_lines + 1
            }
        );
        assert_eq!(
            compare(&old, &grown, None),
            Change::ChangedAfter {
                through: LINE_PRINT_LINES as u64
            }
        );
        let open = version(many.trim_end());
        let longer = version(&(many.trim_end().to_string() + "7\nnext\n"));
        assert_eq!(
            compare(&open, &longer, Some(open.print)),
            Change::LastLineGrew {
                line: open.total_lines,
                total: open.total_lines + 1
            }
        );
    }

    #[test]
    fn notices_say_what_changed_in_plain_words() {
        let notice = |change| change_notice("/w/a.txt", change).unwrap();
        assert_eq!(change_notice("/w/a.txt", Change::Unchanged), None);
        assert_eq!(
            notice(Change::Appended { after: 3, total: 5 }),
            "[read-window: file changed] /w/a.txt changed since your previous read of it in this session: lines 4-5 were added after line 3. Lines 1-3 are unchanged, so what you read of them is still current."
        );
        assert_eq!(
            notice(Change::FirstChanged { line: 4, total: 9 }),
            "[read-window: file changed] /w/a.txt changed since your previous read of it in this session: the first changed line is 4 (it now has 9 lines); lines 1-3 are unchanged. Windows of it you read earlier are stale from line 4 on: their line numbers and content may no longer match the file."
        );
        assert_eq!(
            notice(Change::LastLineGrew { line: 3, total: 4 }),
            "[read-window: file changed] /w/a.txt changed since your previous read of it in this session: its last line, 3, had no line ending and was extended and line 4 was added after it. Lines 1-2 are unchanged; a window of it that shows line 3 is stale."
        );
        assert_eq!(
            notice(Change::Removed { total: 2, was: 5 }),
            "[read-window: file changed] /w/a.txt changed since your previous read of it in this session: lines 3-5 were removed; it now has 2 lines, and they are unchanged."
        );
    }

    #[test]
    fn the_versions_of_two_views_of_a_file_are_kept_apart() {
        let mut versions = FileVersions::new();
        let (text, json) = (
            version("# [cell 1] code\nx = 1\n"),
            version("{\n \"cells\": []\n}\n"),
        );
        versions.store("/w/nb.ipynb", View::Extracted, text.clone());
        versions.store("/w/nb.ipynb", View::Bytes, json.clone());
        assert_eq!(
            versions.previous("/w/nb.ipynb", View::Extracted),
            Some(&text)
        );
        assert_eq!(versions.previous("/w/nb.ipynb", View::Bytes), Some(&json));
        assert_eq!(versions.previous("/w/other.ipynb", View::Bytes), None);
        // The bound counts views: the oldest view is forgotten first.
        for n in 0..MAX_VERSIONS - 1 {
            versions.store(&format!("/w/{n}.txt"), View::Bytes, json.clone());
        }
        assert_eq!(versions.previous("/w/nb.ipynb", View::Extracted), None);
        assert_eq!(versions.previous("/w/nb.ipynb", View::Bytes), Some(&json));
    }
}
