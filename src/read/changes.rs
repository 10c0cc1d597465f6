//! What a read learned of a file against the previous read of it in this session, and recording the version.

use super::*;

/// Files up to this size whose index was rebuilt are read again from the start to tell an append from a rewrite
/// (past the line prints); larger ones are told by their kept index, or not at all.
pub(super) const PREFIX_RECHECK_BYTES: u64 = 1024 * 1024;

/// What a read learned of a view of a file against this session's previous read of that view.
pub(super) struct VersionChange {
    /// The view the read windowed (a document's extracted text, or the file's bytes).
    pub(super) view: View,
    /// The version the read saw.
    pub(super) version: FileVersion,
    /// The change against the previous read (`None` on the first read).
    pub(super) change: Option<Change>,
    /// The change notice (`None` on the first read or when the content is the same).
    pub(super) notice: Option<String>,
    /// With a notice: the lines (1..=N) it leaves as they were
    /// ([`crate::returned::Change::unchanged_through`]).
    pub(super) unchanged_through: Option<u64>,
    /// The line count at the previous read (`None` on the first read).
    pub(super) previous_lines: Option<u64>,
}

/// The version of the view of the file `opened` describes, and the change against the version of `path` in that
/// view at this session's previous read of it (a read of the other view is no previous read: a switch between a
/// document's text and its bytes is no change).
pub(super) fn version_change<File: ByteSource>(
    versions: &FileVersions,
    path: &str,
    opened: &mut Opened<File>,
) -> VersionChange {
    let view = opened.view();
    let new = FileVersion::of(&opened.index);
    let Some(old) = versions.previous(path, view) else {
        return VersionChange {
            view,
            version: new,
            change: None,
            notice: None,
            unchanged_through: None,
            previous_lines: None,
        };
    };
    // The print of the old part of a grown file: from the kept index when it was extended from the old end, else
    // read again when it is small.
    let old_prefix = if new.size > old.size && new.print != old.print {
        match opened.index.grown_from() {
            Some((end, print)) if end == old.size => Some(print),
            _ if old.size <= PREFIX_RECHECK_BYTES => print_prefix(
                &mut opened.scanner,
                opened.index.encoding(),
                opened.index.data_start(),
                opened.index.splits_on_cr(),
                old.size,
            )
            .ok(),
            _ => None,
        }
    } else {
        None
    };
    let change = compare(old, &new, old_prefix);
    let previous_lines = Some(old.total_lines);
    let notice = change_notice(path, change);
    VersionChange {
        view,
        version: new,
        change: Some(change),
        unchanged_through: notice.as_ref().and(change.unchanged_through()),
        notice,
        previous_lines,
    }
}

/// A window refused as past the end (`invalid-request` with the file's line count) of a file that changed since
/// this session's previous read of it: the error names the change instead of blaming the request. An `offset` past
/// the end of a file that shrank says so first ("offset 729 is past the end of del.txt: the file shrank from 728
/// lines to 1 line since your previous read of it in this session. Use an offset from 1 to 1, and read again what
/// you rely on."); any such error then carries the change notice. It stays `invalid-request` (the request cannot
/// be served as asked), with `total-lines` the new count. Other errors, and files that did not change, are left
/// as they are.
pub(super) fn changed_error(
    error: ReadError,
    seen: &VersionChange,
    offset: u64,
    path: &str,
) -> ReadError {
    let path = crate::prose::path_in_prose(path);
    let (Some(notice), Some(total)) = (&seen.notice, error.total_lines) else {
        return error;
    };
    if error.kind != ErrorKind::InvalidRequest {
        return error;
    }
    let message = match seen.previous_lines {
        Some(was) if offset > total && total < was => {
            let what_now = if total == 0 {
                "It is empty now: there is nothing left to read.".to_string()
            } else {
                format!("Use an offset from 1 to {total}, and read again what you rely on.")
            };
            format!(
                "offset {offset} is past the end of {path}: the file shrank from {} to {} since your previous read of it in this session. {what_now} {notice}",
                line_count(was),
                line_count(total)
            )
        }
        _ => format!("{} {notice}", error.message),
    };
    ReadError { message, ..error }
}

impl Reader {
    /// What a read leaves in the session besides dedup and the tripwire: the version of the view it read (with
    /// the change notice on the result, or appended to a stub's message), and the gutter lines, lossy reads and reads
    /// that showed invisible characters as visible forms it returned. A failed or blocked read leaves nothing.
    pub(super) fn after_read(
        &mut self,
        path: &str,
        change: Option<VersionChange>,
        mut outcome: Result<ReadOutcome, ReadError>,
    ) -> Result<ReadOutcome, ReadError> {
        let Ok(answer) = &mut outcome else {
            return outcome;
        };
        if let Some(seen) = change {
            if let Some(unchanged_through) = seen.unchanged_through {
                // Its lines shown in part past those the notice calls unchanged may be whole now, or gone.
                self.returned.partial.forget(path, unchanged_through);
            }
            self.edit_bases.store(path, seen.view, seen.version.clone());
            self.note_read_base(path);
            self.versions.store(path, seen.view, seen.version);
            if let Some(notice) = seen.notice {
                match answer {
                    ReadOutcome::Window(result) => result.warnings.push(notice),
                    ReadOutcome::Image(result) => result.warnings.push(notice),
                    ReadOutcome::Listing(listing) => listing.warnings.push(notice),
                    ReadOutcome::Unchanged(stub) => {
                        stub.message.push(' ');
                        stub.message.push_str(&notice);
                    }
                }
            }
        }
        if let ReadOutcome::Window(result) = answer {
            self.legacy
                .note(path, result.encoding.encoding, result.encoding.runner_up);
            self.returned.remember(&result.window.prints.compared);
            if !result.window.partial_lines.is_empty() {
                self.returned
                    .partial
                    .remember(path, &result.window.partial_lines);
            }
            if result.window.replaced_invalid > 0 {
                self.returned.remember_lossy(path);
            }
            if result.window.invisible.escaped && result.window.invisible.total() > 0 {
                self.returned.remember_invisible(path);
            }
        }
        outcome
    }
}
