//! Search with a census: one call's matcher, its page of matching lines and the exact counts of the whole search.
//!
//! The reader feeds [`SearchRun`] every line of every file it searches (`src/read/census.rs` opens, decodes and
//! guards them as a read does) and tells it what it skipped; the run counts every match and renders only the page
//! (from match `offset`, at most `limit`, under the budget), so memory follows the page. Matching is the `regex`
//! crate's, linear in the text, so no pattern can hang it. docs/behaviour/listings.md has the rules.

use regex::{Regex, RegexBuilder};

use crate::config::Config;
use crate::error::ReadError;

mod hint;
mod page;
#[cfg(test)]
mod tests;

use page::Page;

/// Matches a page shows when the request gives no `limit`.
pub const DEFAULT_MATCH_LIMIT: u64 = 100;

/// The compiled size a pattern may reach, in bytes: a larger one is refused rather than built.
const MAX_PATTERN_BYTES: usize = 8 << 20;

/// A search as a host sends it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchRequest {
    /// Literal text, or a regular expression (`regex` crate syntax) when `regex`.
    pub pattern: String,
    /// A file or a directory: absolute, or relative to the working directory.
    pub path: String,
    /// Whether `pattern` is a regular expression.
    pub regex: bool,
    /// Whether case must match; `None`: only when the pattern has an uppercase letter.
    pub case_sensitive: Option<bool>,
    /// Lines shown before and after each match.
    pub context_lines: u32,
    /// The first match shown, 1-based; `None` and 0 mean 1.
    pub offset: Option<u64>,
    /// Matches shown at most; `None` for [`DEFAULT_MATCH_LIMIT`].
    pub limit: Option<u64>,
}

/// Files a search did not search, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkippedCounts {
    /// Binary files (images included).
    pub binary: u64,
    /// Files and directories the credential rules refuse.
    pub credential: u64,
    /// Paths under the ignore rules (an ignored directory once: it is not walked).
    pub ignored: u64,
    /// Files over the size a search reads, documents over the extraction caps.
    pub too_large: u64,
    /// Links (never followed), special files, and files that could not be read.
    pub unreadable: u64,
}

impl SkippedCounts {
    /// All the files skipped.
    pub fn total(&self) -> u64 {
        self.binary + self.credential + self.ignored + self.too_large + self.unreadable
    }
}

/// Why a file was not searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipKind {
    /// Binary (or an image).
    Binary,
    /// Refused by the credential rules.
    Credential,
    /// Under the ignore rules.
    Ignored,
    /// Over the size a search reads.
    TooLarge,
    /// A link, a special file, or a file that could not be read.
    Unreadable,
}

/// A page of a search's matches and the census of the whole search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    /// The absolute guest path searched.
    pub path: String,
    /// The pattern as asked.
    pub pattern: String,
    /// Matching lines in all the files searched.
    pub total_matches: u64,
    /// Files with at least one matching line.
    pub files_with_matches: u64,
    /// Files searched.
    pub files_searched: u64,
    /// Files not searched, by kind.
    pub skipped: SkippedCounts,
    /// False when the time limit stopped the search.
    pub complete: bool,
    /// When stopped: the first file not searched whole (as the content names files).
    pub stopped_before: Option<String>,
    /// The first match of the page, 1-based.
    pub offset: u64,
    /// Matches on the page.
    pub matches_returned: u64,
    /// The match after the page, when there is one.
    pub next_offset: Option<u64>,
    /// `path:N|line` for a match, `path-N|line` for context, `--` between groups.
    pub content: String,
    /// The census and the call that continues.
    pub hint: String,
    /// Notes for the model (lines longer than a search reads, private keys not searched).
    pub warnings: Vec<String>,
}

/// One search call: the matcher, the page being filled and the counts.
pub struct SearchRun {
    matcher: Regex,
    pattern: String,
    page: Page,
    total_matches: u64,
    files_with_matches: u64,
    files_searched: u64,
    skipped: SkippedCounts,
    stopped_before: Option<String>,
    /// The file being searched: its name as the content shows it, and whether it matched yet.
    file: Option<(String, bool)>,
    warnings: Vec<String>,
}

/// Whether `pattern` holds an uppercase letter to match (smart case: only then does case matter). In a regular
/// expression only literals and class items count, as ripgrep's smart case counts them: `\D`, `\p{Lu}` and
/// `(?P<Name>x)` hold no letter to match.
fn has_uppercase(pattern: &str, regex: bool) -> bool {
    if !regex {
        return pattern.chars().any(char::is_uppercase);
    }
    match regex_syntax::ast::parse::Parser::new().parse(pattern) {
        Ok(ast) => regex_syntax::ast::visit(&ast, UppercaseLiteral).is_err(),
        // Refused when it is compiled, with the parser's message.
        Err(_) => false,
    }
}

/// A walk of a pattern's syntax that stops (`Err`) at the first uppercase literal or class item.
struct UppercaseLiteral;

impl regex_syntax::ast::Visitor for UppercaseLiteral {
    type Output = ();
    type Err = ();

    fn finish(self) -> Result<(), ()> {
        Ok(())
    }

    fn visit_pre(&mut self, ast: &regex_syntax::ast::Ast) -> Result<(), ()> {
        match ast {
            regex_syntax::ast::Ast::Literal(literal) if literal.c.is_uppercase() => Err(()),
            _ => Ok(()),
        }
    }

    fn visit_class_set_item_pre(
        &mut self,
        item: &regex_syntax::ast::ClassSetItem,
    ) -> Result<(), ()> {
        use regex_syntax::ast::ClassSetItem;
        match item {
            ClassSetItem::Literal(literal) if literal.c.is_uppercase() => Err(()),
            ClassSetItem::Range(range)
                if range.start.c.is_uppercase() || range.end.c.is_uppercase() =>
            {
                Err(())
            }
            _ => Ok(()),
        }
    }
}

impl SearchRun {
    /// A run of `request` under `config` (its budget and line length shape the page).
    ///
    /// Errors (`invalid_request`): an empty pattern, an invalid regular expression (the parser's message, which
    /// points at the fault), a pattern that compiles past [`MAX_PATTERN_BYTES`].
    pub fn new(request: &SearchRequest, config: &Config) -> Result<SearchRun, ReadError> {
        if request.pattern.is_empty() {
            return Err(ReadError::invalid(
                "`pattern` is empty: give the text to find (or a regular expression with regex=true).",
            ));
        }
        let source = if request.regex {
            request.pattern.clone()
        } else {
            regex::escape(&request.pattern)
        };
        let sensitive = request
            .case_sensitive
            .unwrap_or_else(|| has_uppercase(&request.pattern, request.regex));
        let matcher = RegexBuilder::new(&source)
            .case_insensitive(!sensitive)
            .size_limit(MAX_PATTERN_BYTES)
            .build()
            .map_err(|error| pattern_error(&request.pattern, error))?;
        let offset = request.offset.unwrap_or(1).max(1);
        let limit = request.limit.unwrap_or(DEFAULT_MATCH_LIMIT).max(1);
        Ok(SearchRun {
            matcher,
            pattern: request.pattern.clone(),
            page: Page::new(offset, limit, request.context_lines, config),
            total_matches: 0,
            files_with_matches: 0,
            files_searched: 0,
            skipped: SkippedCounts::default(),
            stopped_before: None,
            file: None,
            warnings: Vec::new(),
        })
    }

    /// A file's search begins: `display` is its name (relative to the searched directory, or the path as asked for
    /// a one-file search), which the content shows as prose shows a path (`path_in_prose`).
    pub fn begin_file(&mut self, display: &str) {
        // As a listing shows it: quoted and escaped when it holds a control or an invisible character.
        let display = crate::prose::path_in_prose(display).into_owned();
        self.file = Some((display, false));
        self.page.begin_file();
    }

    /// Line `number` (1-based) of the file begun: counted when it matches, shown when its match is on the page
    /// (or as context around one). `searchable` false: a line of a private key, never matched nor shown.
    pub fn line(&mut self, number: u64, text: &str, searchable: bool) {
        let Some((display, matched)) = self.file.as_mut() else {
            return;
        };
        let found = if searchable {
            self.matcher
                .find_iter(text)
                .map(|found| found.start())
                .collect::<Vec<_>>()
        } else {
            Vec::new()
        };
        if found.is_empty() {
            self.page.other_line(display, number, text, searchable);
            return;
        }
        self.total_matches += 1;
        if !*matched {
            *matched = true;
            self.files_with_matches += 1;
        }
        self.page
            .matching_line(self.total_matches, display, number, text, &found);
    }

    /// The file begun was searched to its end (or as far as `stopped_at`, a line, when the time limit stopped
    /// it there).
    pub fn end_file(&mut self, stopped_at: Option<u64>) {
        if let Some((display, _)) = self.file.take() {
            self.files_searched += 1;
            if let Some(line) = stopped_at {
                self.stopped_before = Some(format!("{display}:{line}"));
            }
        }
    }

    /// A file (or an ignored or refused directory) the search did not search.
    pub fn skip(&mut self, kind: SkipKind) {
        let counts = &mut self.skipped;
        let count = match kind {
            SkipKind::Binary => &mut counts.binary,
            SkipKind::Credential => &mut counts.credential,
            SkipKind::Ignored => &mut counts.ignored,
            SkipKind::TooLarge => &mut counts.too_large,
            SkipKind::Unreadable => &mut counts.unreadable,
        };
        *count += 1;
    }

    /// The time limit passed before the file `next` (as the content would name it) was searched.
    pub fn out_of_time(&mut self, next: &str) {
        if self.stopped_before.is_none() {
            self.stopped_before = Some(next.to_owned());
        }
    }

    /// Whether the time limit stopped the search.
    pub fn stopped(&self) -> bool {
        self.stopped_before.is_some()
    }

    /// A note for the model, added to the answer's warnings once.
    pub fn warn(&mut self, warning: String) {
        if !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }

    /// The result: the page and the census, for the search of `scope` (its absolute path).
    pub fn finish(self, scope: &str) -> SearchResult {
        let page = self.page.finish(self.total_matches);
        let complete = self.stopped_before.is_none();
        let mut result = SearchResult {
            path: scope.to_owned(),
            pattern: self.pattern,
            total_matches: self.total_matches,
            files_with_matches: self.files_with_matches,
            files_searched: self.files_searched,
            skipped: self.skipped,
            complete,
            stopped_before: self.stopped_before,
            offset: page.offset,
            matches_returned: page.returned,
            next_offset: page.next_offset,
            content: page.content,
            hint: String::new(),
            warnings: self.warnings,
        };
        result.hint = hint::search_hint(&result, page.stopped_by_budget);
        result
    }
}

/// The refusal of a pattern the regex crate would not build.
fn pattern_error(pattern: &str, error: regex::Error) -> ReadError {
    match error {
        regex::Error::CompiledTooBig(limit) => ReadError::invalid(format!(
            "the regular expression {pattern:?} is too large to search with (over {limit} bytes compiled): use a \
             shorter pattern."
        )),
        other => ReadError::invalid(format!(
            "{pattern:?} is not a valid regular expression: {other}. Escape special characters with a backslash, \
             or leave regex out to search for the text itself."
        )),
    }
}
