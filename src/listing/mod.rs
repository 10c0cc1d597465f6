//! The listing window: a directory read as a window of entries, one a line behind the gutter `N|`, with the
//! census (every entry counted by kind, on every page) and the cursor that continues.
//!
//! Each page walks the whole listing ([`crate::tree::walk`]) to count it, and renders only the window's lines: the
//! memory follows the window and one directory's names per level, never the rendered listing. The rooms: `line`
//! words one entry, `hint` words the census and the cursor.

use crate::config::{Budget, Config};
use crate::error::{ErrorKind, ReadError};
use crate::guards::CredentialPolicy;
use crate::ignore_files::IgnoreFiles;
use crate::prose::path_in_prose;
use crate::sandbox::{FileKind, FileSystem, Resolved};
use crate::tokens::estimate_tokens;
use crate::tree::{walk, Step, TreeEntry, WalkSummary};

mod hint;
mod line;

/// Which window of a listing to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListingRequest {
    /// The first entry, 1-based (default 1; 0 reads as 1).
    pub offset: Option<u64>,
    /// Entries at most (default and cap: `max_lines` of the config; 0 is refused).
    pub limit: Option<u64>,
    /// Levels listed: 1 (the default) lists the directory's own entries, 2 their children too, and so on.
    pub depth: Option<u32>,
}

/// Entries of a listing by kind. `files + directories + links + other` is the listing's total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EntryCounts {
    /// Regular files.
    pub files: u64,
    /// Directories.
    pub directories: u64,
    /// Symbolic links (never followed).
    pub links: u64,
    /// Named pipes, sockets, devices and entries of a type the host does not name.
    pub other: u64,
    /// Of all the above, the entries a guard refuses (a credential rule or an ignore file's rule).
    pub not_readable: u64,
}

/// One window of a directory's listing.
#[derive(Debug, Clone, PartialEq)]
pub struct ListingWindow {
    /// The directory's absolute guest path.
    pub path: String,
    /// Levels listed (1: the directory's own entries).
    pub depth: u32,
    /// Entries in the whole listing at this depth.
    pub total_entries: u64,
    /// The whole listing's entries by kind.
    pub counts: EntryCounts,
    /// The first entry shown, 1-based.
    pub offset: u64,
    /// Entries shown.
    pub entries_returned: u64,
    /// The next entry to read, or `None` when the window reaches the end.
    pub next_offset: Option<u64>,
    /// Why the window stopped before the end: `"limit"` or `"budget"`; empty at the end.
    pub truncated_by: Vec<&'static str>,
    /// The entries' lines, each `N|...\n`.
    pub content: String,
    /// The census and the cursor in words.
    pub hint: String,
    /// What the walk could not list (names not UTF-8, directories not listable, the cap on entries).
    pub warnings: Vec<String>,
    /// What the page's lines cost of the budget.
    pub budget: crate::config::BudgetReport,
}

/// Lists the directory `resolved` (resolved and guarded by the caller) as a window of entries.
///
/// Errors (`invalid-request`): `limit` 0, `depth` 0, an `offset` past the last entry (the message names the
/// total). `not-a-file` when `resolved` is not a directory; the file system's error when it cannot be listed.
pub fn list_window<F: FileSystem + ?Sized>(
    fs: &mut F,
    config: &Config,
    policy: &CredentialPolicy,
    ignore: &mut IgnoreFiles,
    resolved: &Resolved,
    request: &ListingRequest,
) -> Result<ListingWindow, ReadError> {
    let shape = Shape::of(config, resolved, request)?;
    let mut pager = Pager::new(&shape);
    let summary = walk(
        fs,
        policy,
        ignore,
        resolved,
        shape.depth,
        &mut |fs, entry| {
            pager.visit(fs, entry);
            Step::Descend
        },
    );
    if let Some((_, error)) = summary.unlistable.iter().find(|(path, _)| path.is_empty()) {
        return Err(error
            .clone()
            .into_read_error(&path_in_prose(&resolved.path))
            .at_path(&resolved.path));
    }
    let total = pager.total;
    if shape.offset > total && !(total == 0 && shape.offset == 1) {
        return Err(ReadError::invalid(format!(
            "offset {} is past the end of the listing of {}: it has {} at depth {}. Use an offset from 1 to {}.",
            shape.offset,
            path_in_prose(&resolved.path),
            crate::prose::plural(total, "entry", "entries"),
            shape.depth,
            total.max(1)
        ))
        .at_path(&resolved.path));
    }
    let truncated_by = match (pager.next_offset, pager.stopped_by) {
        (Some(_), Some(reason)) => vec![reason],
        _ => Vec::new(),
    };
    let mut window = ListingWindow {
        path: resolved.path.clone(),
        depth: shape.depth,
        total_entries: total,
        counts: pager.counts,
        offset: shape.offset,
        entries_returned: pager.entries_returned,
        next_offset: pager.next_offset,
        truncated_by,
        content: pager.content,
        hint: String::new(),
        warnings: warnings(&resolved.path, &summary),
        budget: crate::config::BudgetReport::of(&config.budget, config.budget.limit(), pager.used),
    };
    window.hint = hint::hint(&window, pager.directories_at_depth, &config.budget);
    Ok(window)
}

/// A request checked and filled with its defaults.
struct Shape {
    offset: u64,
    limit: u64,
    depth: u32,
    budget: Budget,
}

impl Shape {
    /// The request's window, or why it asks for none.
    fn of(
        config: &Config,
        resolved: &Resolved,
        request: &ListingRequest,
    ) -> Result<Shape, ReadError> {
        if resolved.stat.kind != FileKind::Directory {
            return Err(ReadError::new(
                ErrorKind::NotAFile,
                format!(
                    "{} is {}, not a directory, so it has no listing; read it as a file.",
                    path_in_prose(&resolved.path),
                    resolved.stat.kind.describe()
                ),
            )
            .at_path(&resolved.path));
        }
        let limit = match request.limit {
            Some(0) => return Err(ReadError::invalid(
                "limit 0 asks for no entries; give a limit of at least 1, or leave it out for the default.",
            )),
            Some(limit) => limit.min(config.max_lines),
            None => config.max_lines,
        };
        let depth = match request.depth {
            Some(0) => return Err(ReadError::invalid(
                "depth 0 lists nothing; depth 1 lists the directory's own entries, 2 their contents too.",
            )),
            Some(depth) => depth,
            None => 1,
        };
        Ok(Shape {
            offset: request.offset.unwrap_or(1).max(1),
            limit: limit.max(1),
            depth,
            budget: config.budget,
        })
    }
}

/// The census and the window as the walk goes: every entry counted, the window's lines rendered.
struct Pager {
    offset: u64,
    limit: u64,
    budget: Budget,
    /// Entries visited so far (the number of the last one).
    total: u64,
    counts: EntryCounts,
    /// Directories at the listing's last level that a deeper listing would walk into.
    directories_at_depth: u64,
    depth: u32,
    content: String,
    entries_returned: u64,
    /// The content's cost in the budget's unit.
    used: u64,
    next_offset: Option<u64>,
    stopped_by: Option<&'static str>,
}

impl Pager {
    fn new(shape: &Shape) -> Pager {
        Pager {
            offset: shape.offset,
            limit: shape.limit,
            budget: shape.budget,
            total: 0,
            counts: EntryCounts::default(),
            directories_at_depth: 0,
            depth: shape.depth,
            content: String::new(),
            entries_returned: 0,
            used: 0,
            next_offset: None,
            stopped_by: None,
        }
    }

    /// Counts `entry` and, while the window is open and the entry is at or past the offset, renders it.
    fn visit<F: FileSystem + ?Sized>(&mut self, fs: &mut F, entry: &TreeEntry) {
        self.total = self.total.saturating_add(1);
        self.count(entry);
        if self.total < self.offset || self.next_offset.is_some() {
            return;
        }
        if self.entries_returned >= self.limit {
            self.close(Some("limit"));
            return;
        }
        let mut line = line::entry_line(fs, entry, self.total);
        line.push('\n');
        let cost = match self.budget {
            Budget::Characters(_) => line.chars().count() as u64,
            Budget::Tokens { .. } => estimate_tokens(&line),
        };
        let used = self.used.saturating_add(cost);
        // At least one entry always, whatever it costs.
        if self.entries_returned > 0 && used > self.budget.limit() {
            self.close(Some("budget"));
            return;
        }
        self.used = used;
        self.content.push_str(&line);
        self.entries_returned = self.entries_returned.saturating_add(1);
    }

    /// The window ends before the entry just counted: it is the next one to read.
    fn close(&mut self, reason: Option<&'static str>) {
        self.next_offset = Some(self.total);
        self.stopped_by = reason;
    }

    fn count(&mut self, entry: &TreeEntry) {
        let counts = &mut self.counts;
        let slot = match entry.stat.kind {
            FileKind::Regular => &mut counts.files,
            FileKind::Directory => &mut counts.directories,
            FileKind::Symlink => &mut counts.links,
            _ => &mut counts.other,
        };
        *slot = slot.saturating_add(1);
        if entry.refusal.is_some() {
            counts.not_readable = counts.not_readable.saturating_add(1);
        } else if entry.stat.kind == FileKind::Directory && entry.depth >= self.depth {
            self.directories_at_depth = self.directories_at_depth.saturating_add(1);
        }
    }
}

/// Entries the warning about unlistable directories names at most.
const UNLISTABLE_NAMED: usize = 3;

/// The warnings of a walk under `path`: names not UTF-8, entries that vanished, directories that could not be
/// listed, the cap on entries.
fn warnings(path: &str, summary: &WalkSummary) -> Vec<String> {
    use crate::prose::plural;
    let path = path_in_prose(path);
    let mut warnings = Vec::new();
    if summary.not_utf8 > 0 {
        let verb = if summary.not_utf8 == 1 { "is" } else { "are" };
        warnings.push(format!(
            "{} under {path} {verb} not valid UTF-8: not listed or counted, as no request can name them.",
            plural(summary.not_utf8, "name", "names")
        ));
    }
    if summary.vanished > 0 {
        warnings.push(format!(
            "{} under {path} could not be stat'ed (removed while listing, or not permitted): not listed or counted.",
            plural(summary.vanished, "entry", "entries")
        ));
    }
    let unlistable: Vec<String> = summary
        .unlistable
        .iter()
        .filter(|(directory, _)| !directory.is_empty())
        .map(|(directory, error)| {
            format!(
                "{}/ ({})",
                path_in_prose(directory),
                line::fs_error_words(error)
            )
        })
        .collect();
    if !unlistable.is_empty() {
        let named = unlistable.get(..UNLISTABLE_NAMED).unwrap_or(&unlistable);
        let more = unlistable.len().saturating_sub(named.len());
        let rest = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        warnings.push(format!(
            "{} under {path} could not be listed, so their contents are not counted: {}{rest}.",
            plural(unlistable.len() as u64, "directory", "directories"),
            named.join(", ")
        ));
    }
    if summary.stopped {
        warnings.push(format!(
            "The walk stopped at {} entries, its cap: the census counts those only. List a subdirectory, or a smaller depth.",
            crate::prose::grouped(crate::tree::MAX_WALK_ENTRIES)
        ));
    }
    warnings
}

#[cfg(test)]
mod tests;
