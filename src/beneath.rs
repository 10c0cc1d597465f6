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
mod tests;
