//! Opening beneath: every path the sandbox touches is opened one name at a time, each name relative to the
//! directory handle before it and never through a link, so what was checked is what is opened.
//!
//! [`crate::sandbox::resolve`] walks a path by name and splices each link it meets, so the path it hands on (a
//! [`crate::sandbox::Resolved`]'s `relative`) names no link. [`Beneath`] opens such a path the same way the walk
//! saw it: from the preopen's handle, each directory with `open_directory_at` (no link followed), then the last
//! name relative to the last directory. When another process swaps a directory or file of the path for a link
//! between the check and the open (a `rename` inside the grant), the open fails with [`FsError::Changed`]
//! instead of following the link; [`crate::read`] then walks the path again, a bounded number of times
//! ([`MAX_WALK_TRIES`]), so the credential rules see the link and no byte is read from a name that was not
//! checked.
//!
//! Directories opened by a walk are kept open for the walks after it: a walk of `a/b/c` opens `a` and `a/b` once,
//! and the file is opened through the very `a/b` the walk checked. A later walk uses a kept directory only after
//! asking, once per walk, that the entry at its name in its (checked) parent is still that directory
//! ([`Directory::identity_at`] against [`Directory::identity`], neither following a link); any other entry there
//! (a link, another directory, none) drops it and the name is opened again. So a directory moved out of the grant
//! while it was kept is never read through, and a path deep in a tree costs one stat per directory on the way
//! instead of an open, a stat and a close. A kept directory no walk used in the last [`KEPT_FOR_WALKS`] is closed,
//! so a session does not keep a mount point busy long after it read there.

use crate::document::{DocumentStore, StoreDirectory, StoredFile};
use crate::error::FsError;
use crate::sandbox::{DirectoryListing, FileKind, FileStat, FileSystem};
use crate::source::ByteSource;

/// Tries of one read whose path changes while it is walked, the first included: a swap in the middle of each
/// try ends the read with [`FsError::Changed`]'s `io` error.
pub const MAX_WALK_TRIES: u32 = 4;

/// Runs `attempt` again while a try ends in an error and a name of the path changed during it
/// ([`FileSystem::changes`]: a swap between a walk's check and the open). At most [`MAX_WALK_TRIES`] tries; the
/// last one's answer stands. Reads and spill creation both go through it.
pub fn retried_on_change<F: FileSystem + ?Sized, T, E>(
    fs: &mut F,
    mut attempt: impl FnMut(&mut F) -> Result<T, E>,
) -> Result<T, E> {
    let mut tries = 1;
    loop {
        let before = fs.changes();
        let outcome = attempt(fs);
        if outcome.is_ok() || fs.changes() == before || tries >= MAX_WALK_TRIES {
            return outcome;
        }
        tries += 1;
    }
}

/// Directories kept open at most, each a file descriptor of the host while kept (a host running many sessions
/// counts them); past it, those kept are closed (a walk opens them again).
pub const MAX_WALKED_DIRECTORIES: usize = 32;

/// Walks a kept directory may go unused before it is closed: a session does not hold a directory (a mount point
/// among them, which a kept handle keeps busy) long after it stopped reading there.
pub const KEPT_FOR_WALKS: u64 = 16;

/// An open directory of the host's file system. Each operation names one entry in it (a name without `/`) and
/// never follows a link at that name.
pub trait Directory: Sized {
    /// An open regular file.
    type File: ByteSource;
    /// The stat of the directory itself.
    fn stat_self(&self) -> Result<FileStat, FsError>;
    /// The stat of the entry `name`, of the link itself when it is one.
    fn stat_at(&self, name: &str) -> Result<FileStat, FsError>;
    /// What tells this directory apart from every other entry of the file system while both exist (WASI's
    /// `metadata-hash`: device and inode).
    fn identity(&self) -> Result<u128, FsError>;
    /// [`Self::identity`] of the entry `name`, of the link itself when it is one (`metadata-hash-at`).
    fn identity_at(&self, name: &str) -> Result<u128, FsError>;
    /// The target of the link `name`, as stored. When the entry is no longer a link, [`FsError::Changed`]:
    /// callers only read names they saw as links.
    fn read_link_at(&self, name: &str) -> Result<String, FsError>;
    /// Opens the directory `name`. A link at the name (or another entry that is not a directory) fails with
    /// [`FsError::Changed`]: callers only open names they saw as directories.
    fn open_directory_at(&self, name: &str) -> Result<Self, FsError>;
    /// Opens the regular file `name` for reading. A link at the name fails with [`FsError::Changed`].
    fn open_file_at(&self, name: &str) -> Result<Self::File, FsError>;
    /// Up to `max` entries of this directory (see [`FileSystem::list_directory`]).
    fn list(&self, max: usize) -> Result<DirectoryListing, FsError>;
    /// Whether this directory can hold the document store (a native mount that opened; every WASI preopen, whose
    /// grant a protocol session checks against the host's read-write list). One that cannot stays a root.
    fn can_hold_store(&self) -> bool {
        false
    }
    /// This directory as the document store's (`document_cache_dir`); `None` for a directory that cannot be one.
    fn into_store(self) -> Option<Box<dyn StoreDirectory>> {
        None
    }
}

/// A directory the spill can create files in.
pub trait WritableDirectory: Directory {
    /// An open spill file.
    type Writer: crate::sandbox::SpillWriter;
    /// Creates the regular file `name` exclusively, for writing, never following a link at the name; `Ok(None)`
    /// when the name is taken.
    fn create_new_at(&self, name: &str) -> Result<Option<Self::Writer>, FsError>;
}

/// Bytes the document store reads of an entry at a time.
const STORE_READ_BYTES: usize = 64 * 1024;

/// A writable directory the document store can keep its entries in: it also renames, removes and touches.
pub trait StoreCapable: WritableDirectory {
    /// Renames the entry `from` to `to` in this directory, replacing a file at `to`, following no link.
    fn rename_at(&self, from: &str, to: &str) -> Result<(), FsError>;
    /// Removes the file `name` (a link is removed, not followed).
    fn remove_at(&self, name: &str) -> Result<(), FsError>;
    /// Sets the modification time of the file `name` to now, following no link.
    fn touch_at(&self, name: &str) -> Result<(), FsError>;
}

/// The document store's view of a [`StoreCapable`] directory.
pub struct StoreOver<D>(pub D);

impl<D: StoreCapable> StoreDirectory for StoreOver<D> {
    fn read_file(&self, name: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, FsError> {
        let stat = match self.0.stat_at(name) {
            Ok(stat) => stat,
            Err(FsError::NotFound) => return Ok(None),
            Err(error) => return Err(error),
        };
        if stat.kind != crate::sandbox::FileKind::Regular || stat.size > max_bytes {
            return Ok(None);
        }
        let mut file = self.0.open_file_at(name)?;
        let mut bytes = Vec::with_capacity(usize::try_from(stat.size).unwrap_or(0));
        let mut chunk = Vec::new();
        loop {
            file.read_at(bytes.len() as u64, STORE_READ_BYTES, &mut chunk)?;
            if chunk.is_empty() {
                break;
            }
            bytes.extend_from_slice(&chunk);
            if bytes.len() as u64 > max_bytes {
                return Ok(None);
            }
        }
        Ok(Some(bytes))
    }

    fn write_new(&self, name: &str, bytes: &[u8]) -> Result<bool, FsError> {
        use crate::sandbox::SpillWriter;
        match self.0.create_new_at(name)? {
            Some(mut writer) => writer.append(bytes).map(|()| true),
            None => Ok(false),
        }
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.0.rename_at(from, to)
    }

    fn remove(&self, name: &str) -> Result<(), FsError> {
        self.0.remove_at(name)
    }

    fn touch(&self, name: &str) -> Result<(), FsError> {
        self.0.touch_at(name)
    }

    fn files(&self, max: usize) -> Result<Vec<StoredFile>, FsError> {
        let listing = self.0.list(max)?;
        Ok(listing
            .names
            .into_iter()
            .filter_map(|name| {
                let stat = self.0.stat_at(&name).ok()?;
                (stat.kind == crate::sandbox::FileKind::Regular).then(|| StoredFile {
                    name,
                    size: stat.size,
                    modified_ns: stat.modified_ns.unwrap_or(0),
                })
            })
            .collect())
    }
}

/// `path` relative to the directory `root` (both normalized guest paths), when it lies strictly under it.
fn relative_under(root: &str, path: &str) -> Option<String> {
    let rest = if root == "/" {
        path.strip_prefix('/')
    } else {
        path.strip_prefix(root)?.strip_prefix('/')
    };
    rest.filter(|rest| !rest.is_empty()).map(str::to_owned)
}

/// A directory opened by a walk, kept for the walks after it.
struct Walked<D> {
    root: usize,
    /// Its path relative to the preopen (non-empty: a preopen's own handle is not kept here).
    relative: String,
    directory: D,
    /// Its [`Directory::identity`], asked the first time a later walk checks it.
    identity: Option<u128>,
    /// Whether the current walk opened it or found it still at its name.
    checked: bool,
    /// The number of the last walk that opened it or found it still there ([`Beneath`]'s `walks`).
    used_in_walk: u64,
}

/// Where a directory handle lives: a preopen, or a directory of the current walk.
#[derive(Clone, Copy)]
enum Handle {
    Preopen(usize),
    Walked(usize),
}

/// The sandbox's [`FileSystem`] over preopened directory handles, opening beneath them (see the module doc).
pub struct Beneath<D> {
    roots: Vec<String>,
    preopens: Vec<D>,
    walked: Vec<Walked<D>>,
    /// Walks begun so far.
    walks: u64,
    changes: u64,
    /// The document store, over a preopen taken from `roots` ([`FileSystem::attach_document_store`]).
    store: Option<DocumentStore>,
    /// For each root that holds the store's directory, its path relative to that root: the directory is hidden
    /// there (missing to `stat`, `open` and `read_link`, and left out of its parent's listing).
    hidden: Vec<Option<String>>,
}

impl<D: Directory> Beneath<D> {
    /// The preopens, each a directory handle and its normalized guest path.
    pub fn new(preopens: Vec<(D, String)>) -> Self {
        let (preopens, roots) = preopens.into_iter().unzip();
        Beneath {
            roots,
            preopens,
            walked: Vec::new(),
            walks: 0,
            changes: 0,
            store: None,
            hidden: Vec::new(),
        }
    }

    /// Whether `relative` under preopen `root` is the store's directory or inside it.
    fn hides(&self, root: usize, relative: &str) -> bool {
        match self.hidden.get(root) {
            Some(Some(store)) => {
                relative == store
                    || relative
                        .strip_prefix(store.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            }
            _ => false,
        }
    }

    /// `Err(NotFound)` when `relative` under `root` is hidden ([`Self::hides`]).
    fn visible(&self, root: usize, relative: &str) -> Result<(), FsError> {
        if self.hides(root, relative) {
            return Err(FsError::NotFound);
        }
        Ok(())
    }

    fn get(&self, handle: Handle) -> Result<&D, FsError> {
        match handle {
            Handle::Preopen(root) => self.preopens.get(root),
            Handle::Walked(index) => self.walked.get(index).map(|walked| &walked.directory),
        }
        .ok_or(FsError::NotFound)
    }

    /// The handle of the directory `relative` (link-free) under preopen `root`: for each directory on the way, the
    /// one kept when it is still at its name ([`Self::still_there`]), else opened now and kept.
    fn directory(&mut self, root: usize, relative: &str) -> Result<Handle, FsError> {
        if root >= self.preopens.len() {
            return Err(FsError::NotFound);
        }
        let mut handle = Handle::Preopen(root);
        // `relative` is normalized: names joined by single `/`, no `.` or `..`.
        let mut end = 0;
        for name in relative.split('/').filter(|name| !name.is_empty()) {
            end = if end == 0 {
                name.len()
            } else {
                end + 1 + name.len()
            };
            let prefix = relative.get(..end).unwrap_or(relative);
            let stale = match self.find(root, prefix) {
                Some(index) if self.still_there(handle, index, name) => {
                    handle = Handle::Walked(index);
                    continue;
                }
                // Kept, but another entry holds the name now (or none): the name is opened again.
                found => found,
            };
            let opened = match self.get(handle)?.open_directory_at(name) {
                Ok(opened) => opened,
                Err(error) => {
                    // The kept directory goes (`handle` is not used again).
                    if let Some(index) = stale {
                        self.walked.remove(index);
                    }
                    return Err(match error {
                        FsError::Changed | FsError::NotADirectory => {
                            self.changes += 1;
                            FsError::Changed
                        }
                        other => other,
                    });
                }
            };
            let walked = Walked {
                root,
                relative: prefix.to_string(),
                directory: opened,
                identity: None,
                checked: true,
                used_in_walk: self.walks,
            };
            handle = match stale.map(|index| (index, self.walked.get_mut(index))) {
                Some((index, Some(slot))) => {
                    *slot = walked;
                    Handle::Walked(index)
                }
                _ => self.keep(walked),
            };
        }
        Ok(handle)
    }

    /// Keeps a directory a walk opened, after dropping every kept one when [`MAX_WALKED_DIRECTORIES`] are kept (the
    /// handle the walk opened it through is not needed again).
    fn keep(&mut self, walked: Walked<D>) -> Handle {
        if self.walked.len() >= MAX_WALKED_DIRECTORIES {
            self.walked.clear();
        }
        self.walked.push(walked);
        Handle::Walked(self.walked.len() - 1)
    }

    /// Whether the kept directory `walked[index]` is still the entry `name` of the directory `parent` (checked by
    /// this walk): yes when this walk already found it so; else asked now, and remembered for the rest of the walk.
    /// An error of either side is a no: the name is opened again, which reports it.
    fn still_there(&mut self, parent: Handle, index: usize, name: &str) -> bool {
        let Some(kept) = self.walked.get(index) else {
            return false;
        };
        if kept.checked {
            return true;
        }
        let identity = match kept.identity {
            Some(identity) => Ok(identity),
            None => kept.directory.identity(),
        };
        let Ok(identity) = identity else {
            return false;
        };
        let at_name = self.get(parent).and_then(|parent| parent.identity_at(name));
        let Some(kept) = self.walked.get_mut(index) else {
            return false;
        };
        kept.identity = Some(identity);
        kept.checked = at_name == Ok(identity);
        kept.used_in_walk = self.walks;
        kept.checked
    }

    fn find(&self, root: usize, relative: &str) -> Option<usize> {
        self.walked
            .iter()
            .position(|walked| walked.root == root && walked.relative == relative)
    }

    /// The handle of the directory holding `relative`, and the last name.
    fn parent<'a>(&mut self, root: usize, relative: &'a str) -> Result<(Handle, &'a str), FsError> {
        let (directory, name) = relative.rsplit_once('/').unwrap_or(("", relative));
        Ok((self.directory(root, directory)?, name))
    }

    /// Counts a change the last name reported, and passes the result on.
    fn counted<T>(&mut self, result: Result<T, FsError>) -> Result<T, FsError> {
        if matches!(result, Err(FsError::Changed)) {
            self.changes += 1;
        }
        result
    }
}

impl<D: Directory> FileSystem for Beneath<D> {
    type File = D::File;

    fn roots(&self) -> &[String] {
        &self.roots
    }

    fn kind_on_the_way(&mut self, root: usize, relative: &str) -> Result<FileKind, FsError> {
        self.visible(root, relative)?;
        if self.find(root, relative).is_some() {
            let (directory, name) = relative.rsplit_once('/').unwrap_or(("", relative));
            let parent = self.directory(root, directory)?;
            // Found again: opening the parent may have dropped what was kept.
            if let Some(index) = self.find(root, relative) {
                if self.still_there(parent, index, name) {
                    return Ok(FileKind::Directory);
                }
            }
        }
        self.stat(root, relative).map(|stat| stat.kind)
    }

    fn begin_walk(&mut self) {
        self.walks += 1;
        let walks = self.walks;
        self.walked
            .retain(|walked| walks.saturating_sub(walked.used_in_walk) <= KEPT_FOR_WALKS);
        for walked in &mut self.walked {
            walked.checked = false;
        }
    }

    fn changes(&self) -> u64 {
        self.changes
    }

    fn stat(&mut self, root: usize, relative: &str) -> Result<FileStat, FsError> {
        self.visible(root, relative)?;
        if relative.is_empty() {
            return self.get(Handle::Preopen(root))?.stat_self();
        }
        let (handle, name) = self.parent(root, relative)?;
        self.get(handle)?.stat_at(name)
    }

    fn read_link(&mut self, root: usize, relative: &str) -> Result<String, FsError> {
        self.visible(root, relative)?;
        let (handle, name) = self.parent(root, relative)?;
        let target = self.get(handle)?.read_link_at(name);
        self.counted(target)
    }

    fn open(&mut self, root: usize, relative: &str) -> Result<D::File, FsError> {
        self.visible(root, relative)?;
        let (handle, name) = self.parent(root, relative)?;
        let opened = self.get(handle)?.open_file_at(name);
        self.counted(opened)
    }

    fn list_directory(
        &mut self,
        root: usize,
        relative: &str,
        max: usize,
    ) -> Result<DirectoryListing, FsError> {
        self.visible(root, relative)?;
        let handle = self.directory(root, relative)?;
        let mut listing = self.get(handle)?.list(max)?;
        if let Some(Some(store)) = self.hidden.get(root) {
            let inside = if relative.is_empty() {
                Some(store.as_str())
            } else {
                store
                    .strip_prefix(relative)
                    .and_then(|rest| rest.strip_prefix('/'))
            };
            if let Some(name) = inside.filter(|name| !name.contains('/')) {
                listing.names.retain(|listed| listed != name);
            }
        }
        Ok(listing)
    }

    fn attach_document_store(&mut self, guest: &str) -> Result<(), String> {
        let guest = crate::sandbox::normalize(guest, "/");
        let at = self.roots.iter().position(|root| *root == guest).ok_or_else(|| {
            format!("document_cache_dir {guest:?} is not a directory the host granted, so no document cache is kept")
        })?;
        if !self.preopens.get(at).is_some_and(Directory::can_hold_store) {
            return Err(format!(
                "document_cache_dir {guest:?} is not a directory the host granted read-write, so no document cache is kept"
            ));
        }
        self.walked.clear();
        self.roots.remove(at);
        let directory = self.preopens.remove(at);
        match directory.into_store() {
            Some(directory) => {
                self.hidden = self
                    .roots
                    .iter()
                    .map(|root| relative_under(root, &guest))
                    .collect();
                self.store = Some(DocumentStore::new(directory, guest));
                Ok(())
            }
            None => Err(format!(
                "document_cache_dir {guest:?} cannot hold a document cache here, so none is kept"
            )),
        }
    }

    fn document_store(&mut self) -> Option<&mut DocumentStore> {
        self.store.as_mut()
    }
}

impl<D: WritableDirectory> crate::sandbox::SpillFs for Beneath<D> {
    type Writer = D::Writer;

    fn create_new(&mut self, root: usize, relative: &str) -> Result<Option<D::Writer>, FsError> {
        let (handle, name) = self.parent(root, relative)?;
        let created = self.get(handle)?.create_new_at(name);
        self.counted(created)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::config::ConfigInput;
    use crate::error::ErrorKind;
    use crate::native_fs::NativeFileSystem;
    use crate::read::{read_once_window, ReadRequest};

    /// The native file system, with `swap` run before the file-system calls numbered in `swap_before` (counted
    /// from 1 over stats and opens): another process renaming entries between the walk's checks and the open.
    struct Swapping {
        inner: NativeFileSystem,
        calls: usize,
        swap_before: Vec<usize>,
        swap: Box<dyn FnMut()>,
    }

    impl Swapping {
        fn tick(&mut self) {
            self.calls += 1;
            if self.swap_before.contains(&self.calls) {
                (self.swap)();
            }
        }
    }

    impl FileSystem for Swapping {
        type File = <NativeFileSystem as FileSystem>::File;
        fn roots(&self) -> &[String] {
            self.inner.roots()
        }
        fn begin_walk(&mut self) {
            self.inner.begin_walk();
        }
        fn changes(&self) -> u64 {
            self.inner.changes()
        }
        fn stat(&mut self, root: usize, relative: &str) -> Result<FileStat, FsError> {
            self.tick();
            self.inner.stat(root, relative)
        }
        fn read_link(&mut self, root: usize, relative: &str) -> Result<String, FsError> {
            self.inner.read_link(root, relative)
        }
        fn open(&mut self, root: usize, relative: &str) -> Result<Self::File, FsError> {
            self.tick();
            self.inner.open(root, relative)
        }
        fn list_directory(
            &mut self,
            root: usize,
            relative: &str,
            max: usize,
        ) -> Result<DirectoryListing, FsError> {
            self.inner.list_directory(root, relative, max)
        }
    }

    impl crate::sandbox::SpillFs for Swapping {
        type Writer = <NativeFileSystem as crate::sandbox::SpillFs>::Writer;
        fn create_new(
            &mut self,
            root: usize,
            relative: &str,
        ) -> Result<Option<Self::Writer>, FsError> {
            self.tick();
            self.inner.create_new(root, relative)
        }
    }

    /// `grant/` (mounted at `/w`) and `outside/` in a new directory: `c/credentials` a plain file, `.aws/credentials`
    /// the secret, `f.txt` a plain file, and a link beside each entry the test swaps in (`.swap-c` to `.aws`,
    /// `.swap-f.txt` to the outside canary).
    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let grant = dir.path().join("grant");
        std::fs::create_dir_all(grant.join("c")).unwrap();
        std::fs::create_dir_all(grant.join(".aws")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(grant.join("c/credentials"), "plain notes\n").unwrap();
        std::fs::write(
            grant.join(".aws/credentials"),
            "aws_secret_access_key = SECRET\n",
        )
        .unwrap();
        std::fs::write(grant.join("f.txt"), "inside\n").unwrap();
        std::fs::write(dir.path().join("outside/canary.txt"), "CANARY\n").unwrap();
        std::os::unix::fs::symlink(".aws", grant.join(".swap-c")).unwrap();
        std::os::unix::fs::symlink("../outside/canary.txt", grant.join(".swap-f.txt")).unwrap();
        (dir, grant)
    }

    fn exchange(grant: &Path, name: &str) -> impl FnMut() {
        let (a, b) = (grant.join(name), grant.join(format!(".swap-{name}")));
        move || {
            rustix::fs::renameat_with(
                rustix::fs::CWD,
                &a,
                rustix::fs::CWD,
                &b,
                rustix::fs::RenameFlags::EXCHANGE,
            )
            .unwrap()
        }
    }

    fn swapping(grant: &Path, name: &str, swap_before: Vec<usize>) -> Swapping {
        Swapping {
            inner: NativeFileSystem::mount(&[(grant.to_path_buf(), "/w".to_string())]),
            calls: 0,
            swap_before,
            swap: Box::new(exchange(grant, name)),
        }
    }

    fn read(fs: &mut Swapping, path: &str) -> Result<String, crate::error::ReadError> {
        let request = ReadRequest {
            path: path.to_string(),
            ..ReadRequest::default()
        };
        read_once_window(ConfigInput::default(), fs, &request).map(|result| result.window.content)
    }

    #[test]
    fn a_directory_swapped_for_a_link_to_a_credential_store_after_its_check_is_refused_on_the_next_try(
    ) {
        let (_dir, grant) = tree();
        // Call 1 stats `c` (a directory); the swap comes before call 2, which opens `c` to stat `credentials`.
        let mut fs = swapping(&grant, "c", vec![2]);
        let error = read(&mut fs, "/w/c/credentials").unwrap_err();
        assert_eq!(error.kind, ErrorKind::Credential, "{}", error.message);
        assert!(
            error.message.contains("AWS credentials"),
            "{}",
            error.message
        );
        assert_eq!(fs.changes(), 1);
    }

    #[test]
    fn a_file_swapped_for_a_link_out_between_its_stat_and_its_open_is_never_read() {
        let (_dir, grant) = tree();
        // Call 1 stats `f.txt` (a file), call 2 opens it: the link is in place by then.
        let mut fs = swapping(&grant, "f.txt", vec![2]);
        let error = read(&mut fs, "/w/f.txt").unwrap_err();
        assert_eq!(error.kind, ErrorKind::OutsideSandbox, "{}", error.message);
        assert!(
            error.message.starts_with(
                "/w/f.txt goes through the link /w/f.txt, which points to ../outside/canary.txt"
            ),
            "{}",
            error.message
        );
        assert_eq!(fs.changes(), 1);
    }

    #[test]
    fn a_path_that_changes_on_every_try_is_refused_without_a_byte_read() {
        let (_dir, grant) = tree();
        // Each try stats `f.txt`, then opens it; the swap before every open makes it a link, and the swap before
        // the next try's stat makes it the file again.
        let calls: Vec<usize> = (1..=2 * MAX_WALK_TRIES as usize)
            .filter(|n| *n > 1)
            .collect();
        let mut fs = swapping(&grant, "f.txt", calls);
        let error = read(&mut fs, "/w/f.txt").unwrap_err();
        assert_eq!(error.kind, ErrorKind::Io);
        assert!(
            error
                .message
                .starts_with("/w/f.txt changed while read-window opened it"),
            "{}",
            error.message
        );
        assert_eq!(fs.changes(), u64::from(MAX_WALK_TRIES));
    }

    #[test]
    fn the_file_opened_is_the_one_under_the_directory_the_walk_checked() {
        let (_dir, grant) = tree();
        // The swap after the walk opened `c` (calls 1 and 2) and before the file's open (call 3): the file is
        // opened through the `c` that was checked, never through the link now at its name.
        let mut fs = swapping(&grant, "c", vec![3]);
        assert_eq!(
            read(&mut fs, "/w/c/credentials").unwrap(),
            "1|plain notes\n"
        );
        assert_eq!(fs.changes(), 0);
    }

    #[test]
    fn a_spill_directory_swapped_for_a_link_out_before_the_spill_is_created_is_refused_on_the_next_try(
    ) {
        let (dir, grant) = tree();
        std::fs::create_dir(grant.join("s")).unwrap();
        std::os::unix::fs::symlink("../outside", grant.join(".swap-s")).unwrap();
        // Call 1 stats `s` (a directory); the swap comes before call 2, which opens `s` to create the spill file.
        let mut fs = swapping(&grant, "s", vec![2]);
        let mut capture = crate::spill::Capture::new(crate::capture::CaptureInput {
            window_chars: Some(200),
            spill_dir: Some("/w/s".into()),
            ..crate::capture::CaptureInput::default()
        });
        capture.push(&mut fs, "y\n".repeat(300).as_bytes()).unwrap();
        let result = capture.finish(&mut fs, None).unwrap();
        assert_eq!(
            result.spill_error.as_deref(),
            Some(
                "/w/s goes through the link /w/s, which points to ../outside: outside the directories \
                 read-window may read (/w)"
            )
        );
        assert_eq!(fs.changes(), 1);
        assert_eq!(
            std::fs::read_dir(dir.path().join("outside"))
                .unwrap()
                .count(),
            1
        );
    }

    #[test]
    fn the_host_paths_before_a_rewrite_are_checked_by_the_credential_rules() {
        let (_dir, grant) = tree();
        let mut fs = NativeFileSystem::mount(&[(grant, "/w".to_string())]);
        let request = ReadRequest {
            path: "/w/f.txt".to_string(),
            asked_via: vec!["/w/.env".to_string()],
            ..ReadRequest::default()
        };
        let error = read_once_window(ConfigInput::default(), &mut fs, &request).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Credential);
        assert!(
            error.message.starts_with("/w/.env holds"),
            "{}",
            error.message
        );
        assert_eq!(error.path.as_deref(), Some("/w/.env"));
    }

    #[test]
    fn every_link_on_the_way_is_checked_by_the_credential_rules() {
        let (_dir, grant) = tree();
        // `note` -> `.env` -> `f.txt`: the file reached and the name asked for are plain; the link between is not.
        std::os::unix::fs::symlink("f.txt", grant.join(".env")).unwrap();
        std::os::unix::fs::symlink(".env", grant.join("note")).unwrap();
        let mut fs = NativeFileSystem::mount(&[(grant, "/w".to_string())]);
        let request = ReadRequest {
            path: "/w/note".to_string(),
            ..ReadRequest::default()
        };
        let error = read_once_window(ConfigInput::default(), &mut fs, &request).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Credential);
        assert!(error.message.contains("/w/.env"), "{}", error.message);
    }

    /// A native directory that counts the directories opened beneath it (in every handle opened from it).
    struct Counting {
        inner: crate::native_fs::NativeDirectory,
        opened: std::rc::Rc<std::cell::Cell<usize>>,
    }

    impl Directory for Counting {
        type File = <crate::native_fs::NativeDirectory as Directory>::File;
        fn stat_self(&self) -> Result<FileStat, FsError> {
            self.inner.stat_self()
        }
        fn stat_at(&self, name: &str) -> Result<FileStat, FsError> {
            self.inner.stat_at(name)
        }
        fn identity(&self) -> Result<u128, FsError> {
            self.inner.identity()
        }
        fn identity_at(&self, name: &str) -> Result<u128, FsError> {
            self.inner.identity_at(name)
        }
        fn read_link_at(&self, name: &str) -> Result<String, FsError> {
            self.inner.read_link_at(name)
        }
        fn open_directory_at(&self, name: &str) -> Result<Self, FsError> {
            self.opened.set(self.opened.get() + 1);
            Ok(Counting {
                inner: self.inner.open_directory_at(name)?,
                opened: self.opened.clone(),
            })
        }
        fn open_file_at(&self, name: &str) -> Result<Self::File, FsError> {
            self.inner.open_file_at(name)
        }
        fn list(&self, max: usize) -> Result<DirectoryListing, FsError> {
            self.inner.list(max)
        }
    }

    /// `grant` mounted at `/w` over [`Counting`], and its count of directories opened.
    fn counting(grant: &Path) -> (Beneath<Counting>, std::rc::Rc<std::cell::Cell<usize>>) {
        let native = NativeFileSystem::mount(&[(grant.to_path_buf(), "/w".to_string())]);
        let opened = std::rc::Rc::new(std::cell::Cell::new(0));
        let preopens = native
            .preopens
            .into_iter()
            .map(|inner| {
                let opened = opened.clone();
                (Counting { inner, opened }, "/w".to_string())
            })
            .collect();
        (Beneath::new(preopens), opened)
    }

    fn read_in<F: FileSystem>(fs: &mut F, path: &str) -> Result<String, crate::error::ReadError> {
        let request = ReadRequest {
            path: path.to_string(),
            ..ReadRequest::default()
        };
        read_once_window(ConfigInput::default(), fs, &request).map(|result| result.window.content)
    }

    #[test]
    fn the_directories_on_a_path_are_opened_once_and_again_only_when_another_entry_takes_a_name() {
        let (dir, grant) = tree();
        std::fs::create_dir_all(grant.join("a/b/c")).unwrap();
        std::fs::write(grant.join("a/b/c/f.txt"), "first\n").unwrap();
        let (mut fs, opened) = counting(&grant);
        for _ in 0..3 {
            assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|first\n");
        }
        assert_eq!(opened.get(), 3);
        // `a/b` moved out of the grant while kept, and a new `a/b/c/f.txt` made: the kept `a/b` (now outside)
        // and `a/b/c` under it are never read through; the new ones are opened.
        std::fs::rename(grant.join("a/b"), dir.path().join("outside/b")).unwrap();
        std::fs::create_dir_all(grant.join("a/b/c")).unwrap();
        std::fs::write(grant.join("a/b/c/f.txt"), "second\n").unwrap();
        assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|second\n");
        assert_eq!(opened.get(), 5);
        // Removed: not found; made again: the kept handles (of removed directories) are not used.
        std::fs::remove_dir_all(grant.join("a")).unwrap();
        let error = read_in(&mut fs, "/w/a/b/c/f.txt").unwrap_err();
        assert_eq!(error.kind, ErrorKind::NotFound, "{}", error.message);
        std::fs::create_dir_all(grant.join("a/b/c")).unwrap();
        std::fs::write(grant.join("a/b/c/f.txt"), "third\n").unwrap();
        assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|third\n");
        assert_eq!(opened.get(), 8);
        // Kept while one of the last 16 walks used it; closed at the start of a walk when none did.
        for _ in 1..KEPT_FOR_WALKS {
            assert_eq!(read_in(&mut fs, "/w/f.txt").unwrap(), "1|inside\n");
        }
        assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|third\n");
        assert_eq!(opened.get(), 8);
        for _ in 0..KEPT_FOR_WALKS {
            assert_eq!(read_in(&mut fs, "/w/f.txt").unwrap(), "1|inside\n");
        }
        assert_eq!(fs.walked.len(), 3);
        assert_eq!(read_in(&mut fs, "/w/f.txt").unwrap(), "1|inside\n");
        assert!(fs.walked.is_empty());
        assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|third\n");
        assert_eq!(opened.get(), 11);
        // A directory swapped for a link while kept: the walk sees the link, as if nothing was kept.
        std::fs::create_dir_all(grant.join("c/d")).unwrap();
        std::fs::write(grant.join("c/d/g.txt"), "kept\n").unwrap();
        assert_eq!(read_in(&mut fs, "/w/c/d/g.txt").unwrap(), "1|kept\n");
        exchange(&grant, "c")();
        let error = read_in(&mut fs, "/w/c/credentials").unwrap_err();
        assert_eq!(error.kind, ErrorKind::Credential, "{}", error.message);
    }

    #[test]
    fn names_with_invisible_characters_are_quoted_in_refusals() {
        let (_dir, grant) = tree();
        std::fs::write(grant.join("a\u{200b}b.bin"), b"\0\x01binary").unwrap();
        std::os::unix::fs::symlink("../outside/canary.txt", grant.join("l\u{200b}k")).unwrap();
        let mut fs = NativeFileSystem::mount(&[(grant, "/w".to_string())]);
        let binary = read_in(&mut fs, "/w/a\u{200b}b.bin").unwrap_err();
        assert_eq!(binary.kind, ErrorKind::Binary);
        assert!(
            binary.message.starts_with(
                "\"/w/a\\u{200b}b.bin\" is binary data (it contains NUL bytes), detected from its content"
            ),
            "{}",
            binary.message
        );
        let outside = read_in(&mut fs, "/w/l\u{200b}k").unwrap_err();
        assert_eq!(outside.kind, ErrorKind::OutsideSandbox);
        assert!(
            outside.message.starts_with(
                "\"/w/l\\u{200b}k\" goes through the link \"/w/l\\u{200b}k\", which points to ../outside/canary.txt: \
                 outside the directories read-window may read (/w)."
            ),
            "{}",
            outside.message
        );
    }

    #[test]
    fn no_more_directories_are_kept_than_the_cap() {
        let (_dir, grant) = tree();
        // Three directories a path, 40 paths: more than the cap within the walks a directory is kept for.
        let count = 40;
        for n in 0..count {
            std::fs::create_dir_all(grant.join(format!("d{n}/x/y"))).unwrap();
            std::fs::write(grant.join(format!("d{n}/x/y/f.txt")), format!("{n}\n")).unwrap();
        }
        let mut fs = NativeFileSystem::mount(&[(grant, "/w".to_string())]);
        let mut most = 0;
        for n in (0..count).chain(0..count) {
            let path = format!("/w/d{n}/x/y/f.txt");
            assert_eq!(read_in(&mut fs, &path).unwrap(), format!("1|{n}\n"));
            most = most.max(fs.walked.len());
        }
        // Without the cap the last 17 walks' 51 would be kept; with it, three a walk reach within two of it before
        // the cap closes them all.
        assert!(
            (MAX_WALKED_DIRECTORIES - 2..=MAX_WALKED_DIRECTORIES).contains(&most),
            "{most}"
        );
    }
}
