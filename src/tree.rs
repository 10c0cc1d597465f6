//! The directory walk: a sorted pre-order walk of a directory under the grants, the guards applied to every entry.
//!
//! Each directory's entries are visited in the byte order of their UTF-8 names, a directory's entry right before
//! its children. Links are never followed (they are visited as links). A directory a guard refuses (a credential
//! rule, an ignore rule) is visited with its refusal and never descended. Memory: one directory's names per level
//! of the walk, never the whole tree; the walk visits at most [`MAX_WALK_ENTRIES`] entries.

use crate::error::FsError;
use crate::guards::CredentialPolicy;
use crate::ignore_files::{IgnoreFiles, Verdict};
use crate::sandbox::{find_root, normalize, FileKind, FileStat, FileSystem, Resolved};

/// Entries one walk visits at most; past it the walk stops and says so (`WalkSummary::stopped`).
pub(crate) const MAX_WALK_ENTRIES: u64 = 1_000_000;

/// One entry the walk visits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TreeEntry {
    /// The path relative to the walk's start, `/`-joined, no trailing `/`.
    pub(crate) path: String,
    /// The absolute guest path.
    pub(crate) absolute: String,
    /// The preopen it lies in.
    pub(crate) root: usize,
    /// The path relative to that preopen.
    pub(crate) relative: String,
    /// The stat of the entry itself (links not followed).
    pub(crate) stat: FileStat,
    /// 1 for a child of the start, 2 for a grandchild, and so on.
    pub(crate) depth: u32,
    /// Why a guard refuses the entry, if one does (a refused directory is not descended).
    pub(crate) refusal: Option<Refusal>,
}

/// Why a guard refuses an entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Refusal {
    /// A credential rule matches it: the guard's message.
    Credential(String),
    /// An ignore file's rule ignores it: the rule and where it is.
    Ignored(Verdict),
}

/// What the visitor wants after an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Walk into the entry (acted on only for a directory no guard refuses, above the walk's depth).
    Descend,
    /// Do not walk into it; go on with the next entry.
    Skip,
    /// End the walk.
    Stop,
}

/// What a walk met besides its entries.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct WalkSummary {
    /// Names skipped because they are not valid UTF-8 (no request can name them), over every directory listed.
    pub(crate) not_utf8: u64,
    /// Directories that could not be listed: their path relative to the start (`""` for the start) and why.
    pub(crate) unlistable: Vec<(String, FsError)>,
    /// Names listed whose stat failed (removed since the listing, or not permitted): not visited.
    pub(crate) vanished: u64,
    /// True when the walk ended before every entry: [`MAX_WALK_ENTRIES`] reached, or the visitor's `Stop`.
    pub(crate) stopped: bool,
}

/// Walks the directory `start` (resolved and guarded by the caller) down to `max_depth` levels (1: its children
/// only), calling `visit` on each entry in sorted pre-order. The visitor gets the file system, to open or stat
/// more (a link's target).
pub(crate) fn walk<F: FileSystem + ?Sized>(
    fs: &mut F,
    policy: &CredentialPolicy,
    ignore: &mut IgnoreFiles,
    start: &Resolved,
    max_depth: u32,
    visit: &mut dyn FnMut(&mut F, &TreeEntry) -> Step,
) -> WalkSummary {
    walk_capped(
        fs,
        policy,
        ignore,
        start,
        max_depth,
        MAX_WALK_ENTRIES,
        visit,
    )
}

/// One directory being walked: its names left, in order, and where it is.
struct Level {
    names: std::vec::IntoIter<String>,
    /// The directory's path relative to the start (`""` for the start).
    path: String,
    /// The preopen it lies in and its path relative to it.
    root: usize,
    relative: String,
    /// The depth of its entries.
    depth: u32,
}

/// [`walk`] with the cap on entries given (tests use a small one).
pub(crate) fn walk_capped<F: FileSystem + ?Sized>(
    fs: &mut F,
    policy: &CredentialPolicy,
    ignore: &mut IgnoreFiles,
    start: &Resolved,
    max_depth: u32,
    max_entries: u64,
    visit: &mut dyn FnMut(&mut F, &TreeEntry) -> Step,
) -> WalkSummary {
    let mut summary = WalkSummary::default();
    let roots = fs.roots().to_vec();
    let mut visited: u64 = 0;
    let mut stack: Vec<Level> = Vec::new();
    if max_depth > 0 {
        let first = open_level(fs, start.root, &start.relative, String::new(), 1);
        push_level(&mut stack, &mut summary, first);
    }
    while let Some(level) = stack.last_mut() {
        let Some(name) = level.names.next() else {
            stack.pop();
            continue;
        };
        if name.is_empty() || name == "." || name == ".." || name.contains('/') {
            continue;
        }
        let path = join(&level.path, &name);
        let depth = level.depth;
        let base = roots.get(level.root).cloned().unwrap_or_default();
        let absolute = normalize(&join(&level.relative, &name), &base);
        if visited >= max_entries {
            summary.stopped = true;
            break;
        }
        let Some(entry) = entry_at(fs, policy, ignore, &roots, path, absolute, depth) else {
            summary.vanished = summary.vanished.saturating_add(1);
            continue;
        };
        visited = visited.saturating_add(1);
        match visit(fs, &entry) {
            Step::Stop => {
                summary.stopped = true;
                break;
            }
            Step::Skip => {}
            Step::Descend => {
                if entry.stat.kind == FileKind::Directory
                    && entry.refusal.is_none()
                    && entry.depth < max_depth
                {
                    let next = open_level(
                        fs,
                        entry.root,
                        &entry.relative,
                        entry.path,
                        depth.saturating_add(1),
                    );
                    push_level(&mut stack, &mut summary, next);
                }
            }
        }
    }
    summary
}

/// Adds a listed directory to the walk, or its failure to the summary.
fn push_level(
    stack: &mut Vec<Level>,
    summary: &mut WalkSummary,
    opened: Result<(Level, u64), (String, FsError)>,
) {
    match opened {
        Ok((level, not_utf8)) => {
            summary.not_utf8 = summary.not_utf8.saturating_add(not_utf8);
            stack.push(level);
        }
        Err(failure) => summary.unlistable.push(failure),
    }
}

/// Lists the directory `relative` under preopen `root` (`path` under the start), at most
/// [`MAX_WALK_ENTRIES`] + 1 names (the whole cap, not what is left of it: the names kept must be the first in
/// sorted order), sorted by byte order: the level and how many names were not UTF-8.
fn open_level<F: FileSystem + ?Sized>(
    fs: &mut F,
    root: usize,
    relative: &str,
    path: String,
    depth: u32,
) -> Result<(Level, u64), (String, FsError)> {
    let max = usize::try_from(MAX_WALK_ENTRIES.saturating_add(1)).unwrap_or(usize::MAX);
    match fs.list_directory(root, relative, max) {
        Ok(listing) => {
            let not_utf8 = listing.not_utf8 as u64;
            let mut names = listing.names;
            names.sort_unstable();
            Ok((
                Level {
                    names: names.into_iter(),
                    path,
                    root,
                    relative: relative.to_string(),
                    depth,
                },
                not_utf8,
            ))
        }
        Err(error) => Err((path, error)),
    }
}

/// The entry at `absolute` (`path` under the start) with its stat and the guards' verdict; `None` when it cannot
/// be stat'ed. The preopen is the one holding the path (a preopen nested in another is walked as itself).
fn entry_at<F: FileSystem + ?Sized>(
    fs: &mut F,
    policy: &CredentialPolicy,
    ignore: &mut IgnoreFiles,
    roots: &[String],
    path: String,
    absolute: String,
    depth: u32,
) -> Option<TreeEntry> {
    let (root, relative) = find_root(roots, &absolute)?;
    let stat = fs.stat(root, &relative).ok()?;
    let refusal = match policy.check(&absolute) {
        Err(refused) => Some(Refusal::Credential(refused.message)),
        Ok(()) => ignore
            .verdict(fs, &absolute, stat.kind == FileKind::Directory)
            .map(Refusal::Ignored),
    };
    Some(TreeEntry {
        path,
        absolute,
        root,
        relative,
        stat,
        depth,
        refusal,
    })
}

/// `parent` and `name` joined by `/` (`name` alone when `parent` is empty).
fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    }
}

#[cfg(test)]
mod tests;
