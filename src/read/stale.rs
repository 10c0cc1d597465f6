//! Stale edits: text for a file that changed since this session last read or wrote it is refused (`stale`), so an
//! edit built on an old read cannot undo what changed (an outside edit, a formatter, another agent).

use super::announced::BaseWrite;
use super::changes::version_change;
use super::*;

/// The largest file read whole to compare with the texts an accepted `check_write` announced.
const MAX_ANNOUNCED_FILE_BYTES: u64 = 64 * 1024 * 1024;

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
                if view == View::Bytes && self.holds_announced(fs, resolved) {
                    // The write an accepted check_write announced: the new base, no outside change.
                    self.edit_bases.store(&resolved.path, view, seen.version);
                    self.writes
                        .written
                        .insert(resolved.path.clone(), BaseWrite::Announced);
                    continue;
                }
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
        let since = match self.writes.written.get(&resolved.path) {
            Some(BaseWrite::Reported) => "the host last reported writing it",
            Some(BaseWrite::Announced) => {
                "it was written with the text check_write last accepted for it"
            }
            None => "this session last read it",
        };
        Some(
            ReadError::new(
                ErrorKind::Stale,
                format!(
                    "{shown} changed since {since}:{body} The text for it was built on what the file held before the change, so writing it may undo the change. Read {shown} again (at least the lines you change) and build the edit on what it holds now."
                ),
            )
            .at_path(path),
        )
    }

    /// After an accepted `check_write` of `text` to the file `resolved` (a file this session read): the write
    /// that follows is expected, so a file that then holds `text` (encoded as the file was read: the whole of it,
    /// or an edit's text inside it) is the new base of the next edit, not an outside change. A model over MCP
    /// writes with a tool of its own and no `wrote` follows.
    pub(super) fn announce_write(&mut self, resolved: &str, text: &str) {
        if self.edit_bases.views(resolved).is_empty()
            || text.len() as u64 > MAX_ANNOUNCED_FILE_BYTES
        {
            return;
        }
        let bytes = match self.legacy.encoding_of(resolved) {
            Some((TextEncoding::Legacy(encoding), _)) => encoding.encode(text).0.into_owned(),
            _ => text.as_bytes().to_vec(),
        };
        self.writes.announce(resolved, bytes);
    }

    /// Whether the file `resolved` holds what a text an accepted `check_write` announced for it makes of it (read
    /// whole when it may).
    fn holds_announced<F: FileSystem + ?Sized>(&mut self, fs: &mut F, resolved: &Resolved) -> bool {
        let size = resolved.stat.size;
        if size > MAX_ANNOUNCED_FILE_BYTES || !self.writes.may_hold(&resolved.path, size) {
            return false;
        }
        let Ok(mut file) = fs.open(resolved.root, &resolved.relative) else {
            return false;
        };
        let Ok(bytes) = read_whole(&mut file, size) else {
            return false;
        };
        self.writes.matches(&resolved.path, &bytes)
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
            self.writes
                .written
                .insert(resolved.path.clone(), BaseWrite::Reported);
        }
        self.writes.forget(&resolved.path);
    }

    /// A read of `resolved` is the new base: it is no longer a reported write's.
    pub(super) fn note_read_base(&mut self, resolved: &str) {
        self.writes.written.remove(resolved);
    }
}
