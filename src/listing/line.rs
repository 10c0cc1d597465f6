//! One entry of a listing as its line: `N|name`, the size of a file, a link's target, a special file's type, and
//! the mark of an entry the guards refuse.

use std::fmt::Write as _;

use crate::error::{ErrorKind, FsError};
use crate::prose::{path_in_prose, plural};
use crate::sandbox::{resolve, FileKind, FileSystem, ResolveError};
use crate::tree::{Refusal, TreeEntry};

/// The line of `entry`, numbered `number` (1-based in the whole listing), without its newline:
/// `12|README.md  3,133 bytes`, `3|src/`, `7|current -> releases/v2`, `9|pipe  (a FIFO (named pipe): not
/// readable)`, `5|.env  52 bytes  (not readable: credential file)`. Reads a link's target (never follows it for
/// the walk; resolves it to tell whether it stays inside the grants).
pub(super) fn entry_line<F: FileSystem + ?Sized>(
    fs: &mut F,
    entry: &TreeEntry,
    number: u64,
) -> String {
    let mut line = format!("{number}|{}", path_in_prose(&entry.path));
    match entry.stat.kind {
        FileKind::Directory => line.push('/'),
        FileKind::Regular => {
            let _ = write!(line, "  {}", plural(entry.stat.size, "byte", "bytes"));
        }
        FileKind::Symlink if entry.refusal.is_none() => {
            let _ = write!(line, " -> {}", link_target(fs, entry));
        }
        FileKind::Symlink => {}
        kind if entry.refusal.is_none() => {
            let _ = write!(line, "  ({}: not readable)", kind_words(kind));
        }
        _ => {}
    }
    match &entry.refusal {
        None => {}
        Some(Refusal::Credential(_)) if entry.stat.kind == FileKind::Directory => {
            line.push_str("  (not listed: credential directory)")
        }
        Some(Refusal::Credential(_)) => line.push_str("  (not readable: credential file)"),
        Some(Refusal::Ignored(verdict)) => {
            let file = verdict
                .ignore_file
                .rsplit('/')
                .next()
                .unwrap_or(verdict.ignore_file.as_str());
            let what = if entry.stat.kind == FileKind::Directory {
                "not listed"
            } else {
                "not readable"
            };
            let _ = write!(line, "  (ignored by {}: {what})", path_in_prose(file));
        }
    }
    line
}

/// A special file's type in words for its line: `named pipe`, `socket`, `character device`.
fn kind_words(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Fifo => "named pipe",
        FileKind::Socket => "socket",
        FileKind::CharacterDevice => "character device",
        FileKind::BlockDevice => "block device",
        _ => "special file",
    }
}

/// What a link's line shows after `->`: its target as stored when it resolves inside the grants, else why not
/// (`(outside the granted directories)`, `missing.txt  (a broken link)`).
fn link_target<F: FileSystem + ?Sized>(fs: &mut F, entry: &TreeEntry) -> String {
    let stored = match fs.read_link(entry.root, &entry.relative) {
        Ok(target) => target,
        Err(FsError::PermissionDenied) => return "(outside the granted directories)".to_string(),
        Err(error) => return format!("(a link that cannot be read: {})", fs_error_words(&error)),
    };
    match resolve(fs, &entry.absolute, &entry.absolute) {
        Ok(_) => path_in_prose(&stored).into_owned(),
        Err(ResolveError::NotFound(_)) => format!("{}  (a broken link)", path_in_prose(&stored)),
        Err(ResolveError::Other(error)) => match error.kind {
            ErrorKind::OutsideSandbox => "(outside the granted directories)".to_string(),
            ErrorKind::NotFound => format!("{}  (a broken link)", path_in_prose(&stored)),
            _ => format!(
                "{}  (a link that cannot be followed)",
                path_in_prose(&stored)
            ),
        },
    }
}

/// A file-system failure in a few words, for a line or a warning: `permission denied`, `not found`.
pub(super) fn fs_error_words(error: &FsError) -> String {
    match error {
        FsError::NotFound => "not found".to_string(),
        FsError::PermissionDenied => "permission denied".to_string(),
        FsError::NotADirectory => "not a directory".to_string(),
        FsError::Changed => "it changed while being read".to_string(),
        FsError::Other(detail) => detail.clone(),
    }
}
