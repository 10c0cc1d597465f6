//! Stale edits: text for a file that changed since this session last read or wrote it is refused (`stale`), so an
//! edit built on an old read cannot undo what changed (an outside edit, a formatter, another agent).

use super::changes::version_change;
use super::*;

impl Reader {
    /// The version of each view of `resolved` kept as an edit base, brought to what the file holds now: `None`
    /// when no view of it is kept (a file this session never read), else the first view whose content differs
    /// with what changed in it. A view that cannot be opened or extracted now is not compared (the write itself
    /// reports what is wrong with the file).
    fn changed_edit_base<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        resolved: &Resolved,
        requested: &str,
    ) -> Option<Change> {
        for view in self.edit_bases.views(&resolved.path) {
            let Ok(mut opened) =
                self.open_with_kept_index(fs, resolved, requested, view == View::Extracted)
            else {
                continue;
            };
            let seen = version_change(&self.edit_bases, &resolved.path, &mut opened);
            let opened_view = opened.view();
            self.memory
                .store_file(&resolved.path, opened_view, opened.index);
            if opened_view != view {
                continue;
            }
            if let Some(change) = seen.change.filter(|change| *change != Change::Unchanged) {
                return Some(change);
            }
        }
        None
    }

    /// `Stale`: `path` (resolved as a read resolves it) is a file this session read, and its content changed
    /// since this session's last read of it, or its last `wrote` of it: the message names what changed.
    pub(super) fn stale_text<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        path: &str,
        absolute: &str,
    ) -> Option<ReadError> {
        let resolved = crate::sandbox::resolve(fs, path, absolute).ok()?;
        if resolved.stat.kind != FileKind::Regular {
            return None;
        }
        let change = self.changed_edit_base(fs, &resolved, path)?;
        let body = change_body(change)?;
        let shown = crate::prose::path_in_prose(path);
        Some(
            ReadError::new(
                ErrorKind::Stale,
                format!(
                    "{shown} changed since this session last read it (or was told it was written):{body} The text for it was built on what you read before the change, and writing it would undo the change. Read {shown} again (at least the lines you change) and build the edit on what it holds now."
                ),
            )
            .at_path(path),
        )
    }

    /// Keeps what the file at `path` holds now as the base of the next edit of it, in each view this session read
    /// (after the host wrote it: a write is no outside change).
    pub(super) fn note_written_base<F: FileSystem + ?Sized>(&mut self, fs: &mut F, path: &str) {
        let absolute = normalize(path, &working_directory(&self.config, fs));
        let Ok(resolved) = crate::sandbox::resolve(fs, path, &absolute) else {
            return;
        };
        for view in self.edit_bases.views(&resolved.path) {
            let Ok(mut opened) =
                self.open_with_kept_index(fs, &resolved, path, view == View::Extracted)
            else {
                continue;
            };
            let seen = version_change(&self.edit_bases, &resolved.path, &mut opened);
            self.edit_bases
                .store(&resolved.path, seen.view, seen.version);
            self.memory
                .store_file(&resolved.path, seen.view, opened.index);
        }
    }
}
