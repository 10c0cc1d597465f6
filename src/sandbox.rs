//! The sandbox: guest paths mapped onto the preopened directories, `..` and links resolved inside them.
//!
//! A path is made absolute (relative paths against the working directory), normalized lexically, and mapped onto
//! the preopen with the longest matching guest path; a path under no preopen is refused before any I/O. Then the
//! path is walked one component at a time without following links; a link is read and its target spliced in (an
//! absolute target is a guest path; a relative one is resolved against the link's directory), and the walk starts
//! over, so a link that leaves every preopen is refused by name, like a plain path. The path it hands on names no
//! link, and the file system opens it one name at a time without following any ([`crate::beneath`]).

use crate::error::{ErrorKind, FsError, ReadError};
use crate::prose::path_in_prose;
use crate::source::ByteSource;

/// Links followed in one resolution at most (Linux's `MAXSYMLINKS`).
pub const MAX_LINK_HOPS: u32 = 40;
/// Bytes of a path at most (Linux's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4_096;
/// Bytes of one name (a path component) at most (`NAME_MAX` of Linux, macOS and Windows file systems).
pub const MAX_NAME_BYTES: usize = 255;

/// The type of a directory entry, from a stat that does not follow links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file: the only kind that is opened.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// A named pipe: opening it blocks until a writer comes.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character device.
    CharacterDevice,
    /// A block device.
    BlockDevice,
    /// A type the file system does not name.
    Unknown,
}

impl FileKind {
    /// The type in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Regular => "a regular file",
            FileKind::Directory => "a directory",
            FileKind::Symlink => "a symbolic link",
            FileKind::Fifo => "a FIFO (named pipe)",
            FileKind::Socket => "a socket",
            FileKind::CharacterDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Unknown => "a special file whose type the host does not name (a FIFO or a socket: wasmtime reports both as unknown)",
        }
    }
}

/// What a stat tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// The entry's type.
    pub kind: FileKind,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch, when known.
    pub modified_ns: Option<u128>,
}

/// The file system as the sandbox sees it: preopens by index, paths relative to them.
///
/// The component implements it over `wasi:filesystem`; native tests over `std::fs`. A relative path is `""` for
/// the preopen itself, else components joined by `/` with no `.` or `..`.
pub trait FileSystem {
    /// An open regular file.
    type File: ByteSource;
    /// The guest paths of the preopens, normalized (absolute, no trailing `/` but for `/` itself).
    fn roots(&self) -> &[String];
    /// Stats `relative` under preopen `root` without following a final link.
    fn stat(&mut self, root: usize, relative: &str) -> Result<FileStat, FsError>;
    /// The target of the link `relative` under preopen `root`, as stored.
    fn read_link(&mut self, root: usize, relative: &str) -> Result<String, FsError>;
    /// Opens the regular file `relative` under preopen `root` for reading, not following links.
    fn open(&mut self, root: usize, relative: &str) -> Result<Self::File, FsError>;
    /// Up to `max` entries of the directory `relative` under preopen `root`: their names, and how many names
    /// were skipped because they are not valid UTF-8 (they count towards `max`).
    fn list_directory(
        &mut self,
        root: usize,
        relative: &str,
        max: usize,
    ) -> Result<DirectoryListing, FsError>;
    /// The kind of `relative` under preopen `root`, a name on the way to the one a walk resolves (so only its
    /// kind counts): [`FileSystem::stat`]'s, unless the implementation can tell it more cheaply (`beneath`: a
    /// directory it keeps open and finds still at the name).
    fn kind_on_the_way(&mut self, root: usize, relative: &str) -> Result<FileKind, FsError> {
        self.stat(root, relative).map(|stat| stat.kind)
    }
    /// A new walk starts: directories an implementation keeps open are checked again before they are used
    /// (`beneath`). `resolve` calls it first.
    fn begin_walk(&mut self) {}
    /// How many times so far a name changed between its check and its open ([`FsError::Changed`]): a read whose
    /// try raised it is tried again (`beneath::MAX_WALK_TRIES`).
    fn changes(&self) -> u64 {
        0
    }
    /// Takes the preopen at the guest path `guest` away from [`FileSystem::roots`] and keeps extracted documents
    /// in it ([`crate::document::DocumentStore`]); a preopen above it hides it too (missing, and left out of its
    /// parent's listing). Errors (a sentence for the config's warnings): no preopen is at `guest`, or this file
    /// system keeps no store.
    fn attach_document_store(&mut self, guest: &str) -> Result<(), String> {
        Err(format!(
            "document_cache_dir {guest:?}: this file system keeps no document cache"
        ))
    }
    /// The document store attached by [`FileSystem::attach_document_store`], if any.
    fn document_store(&mut self) -> Option<&mut crate::document::DocumentStore> {
        None
    }
}

/// Entries of a directory as [`FileSystem::list_directory`] lists them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirectoryListing {
    /// The names that are valid UTF-8, in the order listed.
    pub names: Vec<String>,
    /// Entries skipped because their name is not valid UTF-8 (no request can name them).
    pub not_utf8: usize,
}

impl DirectoryListing {
    /// Entries listed: names plus the names skipped.
    pub fn len(&self) -> usize {
        self.names.len() + self.not_utf8
    }

    /// True when the directory listed no entries at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `" (1 name here is not valid UTF-8)"` / `" (N names here are not valid UTF-8)"`; empty when none is.
    pub fn not_utf8_note(&self) -> String {
        match self.not_utf8 {
            0 => String::new(),
            1 => " (1 name here is not valid UTF-8)".to_string(),
            count => format!(" ({count} names here are not valid UTF-8)"),
        }
    }
}

/// Checks a requested path for what can never be a file name.
///
/// Errors (`invalid-request`, naming the rule): an empty path or one of whitespace only (the rule for whitespace:
/// a path that is nothing but whitespace is taken as no path at all, since a model sending `" "` meant none; a
/// name of whitespace is still readable when the path says where it is, as `./ ` or `dir/ `); a NUL byte; more
/// than [`MAX_PATH_BYTES`] bytes; a name (a component between `/`) of more than [`MAX_NAME_BYTES`] bytes.
pub fn validate_path(path: &str) -> Result<(), ReadError> {
    if path.is_empty() {
        return Err(ReadError::invalid(
            "path is empty; give the path of a file to read.",
        ));
    }
    if path.trim().is_empty() {
        return Err(ReadError::invalid(
            "path is only whitespace, which is read as no path; give the path of a file to read (a file whose name is only spaces is read as `./ `, with the directory before it).",
        ));
    }
    if path.contains('\0') {
        return Err(ReadError::invalid(
            "path contains a NUL byte, which no file name can hold.",
        ));
    }
    if path.len() > MAX_PATH_BYTES {
        return Err(ReadError::invalid(format!(
            "path is {} bytes long; paths are at most {MAX_PATH_BYTES} bytes.",
            path.len()
        )));
    }
    if let Some(name) = path.split('/').find(|name| name.len() > MAX_NAME_BYTES) {
        let start: String = name.chars().take(24).collect();
        return Err(ReadError::invalid(format!(
            "path holds a name of {} bytes (`{start}...`); a file or directory name is at most {MAX_NAME_BYTES} bytes, so no such file can exist. Check the path.",
            name.len()
        )));
    }
    Ok(())
}

/// Whether `requested` ends as a directory does (`dir/`, `dir/.`): POSIX resolves such a path only when its last
/// component is a directory, so `file.txt/` names nothing.
pub fn names_a_directory(requested: &str) -> bool {
    requested.ends_with('/') || requested.ends_with("/.") || requested == "."
}

/// `path` made absolute against `base` (an absolute guest path) and normalized: no empty or `.` components, `..`
/// removes the previous component (and stays at `/`).
pub fn normalize(path: &str, base: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let joined_base = if path.starts_with('/') { "" } else { base };
    for part in joined_base.split('/').chain(path.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        "/".to_string()
    } else {
        let mut out = String::with_capacity(path.len() + base.len());
        for part in parts {
            out.push('/');
            out.push_str(part);
        }
        out
    }
}

/// The preopen with the longest guest path containing `path`, and the path relative to it.
pub fn find_root(roots: &[String], path: &str) -> Option<(usize, String)> {
    let mut best: Option<(usize, usize)> = None;
    for (index, root) in roots.iter().enumerate() {
        let relative = if root == "/" {
            Some(path.trim_start_matches('/'))
        } else if path == root {
            Some("")
        } else {
            path.strip_prefix(root.as_str())
                .and_then(|rest| rest.strip_prefix('/'))
        };
        if relative.is_some() && best.is_none_or(|(_, length)| root.len() > length) {
            best = Some((index, root.len()));
        }
    }
    let (index, _) = best?;
    let root = roots.get(index)?;
    let relative = if root == "/" {
        path.trim_start_matches('/').to_string()
    } else {
        path.get(root.len()..)
            .unwrap_or_default()
            .trim_start_matches('/')
            .to_string()
    };
    Some((index, relative))
}

/// The granted roots in words, for messages.
pub fn describe_roots(roots: &[String]) -> String {
    if roots.is_empty() {
        "none: the host granted no directory".to_string()
    } else {
        roots.join(", ")
    }
}

/// `requested` as messages name it: with the absolute guest path it resolved to when that differs
/// (`data/x.txt (resolved to /project/data/x.txt)`), so a relative path resolved against the working directory (the
/// first preopen by default) shows where it was looked for.
pub fn described(requested: &str, absolute: &str) -> String {
    let (requested, absolute) = (path_in_prose(requested), path_in_prose(absolute));
    if requested == absolute {
        requested.to_string()
    } else {
        format!("{requested} (resolved to {absolute})")
    }
}

/// The error for a path under no preopen.
pub fn outside_error(requested: &str, absolute: &str, roots: &[String]) -> ReadError {
    let (requested, absolute) = (path_in_prose(requested), path_in_prose(absolute));
    let (requested, absolute) = (&*requested, &*absolute);
    ReadError::new(
        ErrorKind::OutsideSandbox,
        format!(
            "{} outside the directories read-window may read ({}). Read a file under one of them.",
            if requested == absolute {
                format!("{absolute} is")
            } else {
                format!("{requested} resolves to {absolute}, which is")
            },
            describe_roots(roots)
        ),
    )
}

/// The refusal of `requested`, whose walk went through the link `link` to `target`, which lies outside every
/// preopen (`roots`, their guest paths): `outside-sandbox`. Hosts that resolve absolute links say it the same way.
pub fn outside_link_error(
    requested: &str,
    link: &str,
    target: &str,
    roots: &[String],
) -> ReadError {
    let (requested, link, target) = (
        path_in_prose(requested),
        path_in_prose(link),
        path_in_prose(target),
    );
    ReadError::new(
        ErrorKind::OutsideSandbox,
        format!(
            "{requested} goes through the link {link}, which points to {target}: outside the directories read-window may read ({}). Read the file under a granted directory instead.",
            describe_roots(roots)
        ),
    )
}

/// The refusal of `requested`, whose links go round more than [`MAX_LINK_HOPS`] times: `not-found`.
pub fn link_loop_error(requested: &str) -> ReadError {
    ReadError::new(
        ErrorKind::NotFound,
        format!(
            "{} goes through more than {MAX_LINK_HOPS} links (a link loop?); read the target directly.",
            path_in_prose(requested)
        ),
    )
}

/// A path resolved inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The absolute guest path after every link.
    pub path: String,
    /// The preopen it lies in.
    pub root: usize,
    /// The path relative to that preopen.
    pub relative: String,
    /// The stat of the final entry (not a link).
    pub stat: FileStat,
    /// The absolute guest path of each link followed on the way, in order (the credential rules see each).
    pub links: Vec<String>,
}

/// The component of a path that does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The absolute guest path of the first component that does not exist, after the links before it.
    pub path: String,
    /// The last link the path went through before it, and its target as stored, if any.
    pub via_link: Option<(String, String)>,
}

/// Why a resolution failed before it could name a file.
#[derive(Debug)]
pub enum ResolveError {
    /// A component of the path is missing: the caller words the error (naming it, with similar names) and counts
    /// it.
    NotFound(Missing),
    /// Any other refusal or failure.
    Other(ReadError),
}

/// Resolves the absolute, normalized guest path `absolute` (asked for as `requested`) inside the preopens,
/// following links. Refuses links that lead outside every preopen (`outside-sandbox`) and link loops.
pub fn resolve<F: FileSystem + ?Sized>(
    fs: &mut F,
    requested: &str,
    absolute: &str,
) -> Result<Resolved, ResolveError> {
    fs.begin_walk();
    let mut walk = LinkWalk {
        requested,
        current: absolute.to_string(),
        hops: 0,
        last_link: None,
        links: Vec::new(),
        target_path: None,
    };
    loop {
        if let Some(resolved) = walk.pass(fs)? {
            return Ok(resolved);
        }
    }
}

/// A resolution in progress: the path it walks now and the links it followed to get there.
struct LinkWalk<'r> {
    /// The path as asked for (for the errors' wording).
    requested: &'r str,
    /// The absolute guest path being walked: the request with every link so far spliced in.
    current: String,
    /// Links followed so far.
    hops: u32,
    /// The last link followed and its target as written.
    last_link: Option<(String, String)>,
    /// The absolute guest path of each link followed, in order.
    links: Vec<String>,
    /// The absolute guest path the last link points to.
    target_path: Option<String>,
}

/// Where one pass walks: the preopen holding the current path.
struct Preopen {
    /// The preopens' guest paths (for the errors' wording).
    roots: Vec<String>,
    /// The index of the preopen holding the path, and its guest path.
    root: usize,
    root_path: String,
}

impl LinkWalk<'_> {
    /// Walks the current path one name at a time from its preopen: the entry it names, or `None` when a link sent
    /// the walk to start over with the link spliced in.
    fn pass<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
    ) -> Result<Option<Resolved>, ResolveError> {
        let roots = fs.roots().to_vec();
        let Some((root, relative)) = find_root(&roots, &self.current) else {
            return Err(ResolveError::Other(match &self.last_link {
                Some((link, target)) => outside_link_error(self.requested, link, target, &roots),
                None => outside_error(self.requested, &self.current, &roots),
            }));
        };
        let root_path = roots.get(root).cloned().unwrap_or_default();
        let preopen = Preopen {
            roots,
            root,
            root_path,
        };
        let components: Vec<&str> = relative
            .split('/')
            .filter(|part| !part.is_empty())
            .collect();
        let mut prefix = String::with_capacity(relative.len());
        let mut last_stat = None;
        for (position, component) in components.iter().enumerate() {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(component);
            let is_last = position + 1 == components.len();
            let kind = if is_last {
                fs.stat(root, &prefix).map(|stat| {
                    last_stat = Some(stat);
                    stat.kind
                })
            } else {
                fs.kind_on_the_way(root, &prefix)
            }
            .map_err(|error| self.stat_error(error, &prefix, &preopen))?;
            match kind {
                FileKind::Symlink => {
                    self.follow_link(fs, &preopen, &components, position, &prefix)?;
                    return Ok(None);
                }
                FileKind::Directory => {}
                _ if !is_last || names_a_directory(self.requested) => {
                    return Err(self.file_on_the_way(&prefix, &preopen, kind, is_last));
                }
                _ => {}
            }
        }
        // Every name walked (or none: the path is the preopen itself).
        let stat = match last_stat {
            Some(stat) => stat,
            None => fs.stat(root, "").map_err(|error| {
                ResolveError::Other(
                    error.into_read_error(&described(self.requested, &self.current)),
                )
            })?,
        };
        Ok(Some(Resolved {
            path: self.current.clone(),
            root,
            relative: prefix,
            stat,
            links: std::mem::take(&mut self.links),
        }))
    }

    /// The error of a failed `stat` of `prefix`: a missing name is `NotFound` (the caller words it), or a dangling
    /// link when the name missing is the last link's target or a directory on the way to it.
    fn stat_error(&self, error: FsError, prefix: &str, preopen: &Preopen) -> ResolveError {
        if !matches!(error, FsError::NotFound | FsError::NotADirectory) {
            return ResolveError::Other(
                error.into_read_error(&described(self.requested, &self.current)),
            );
        }
        let missing = normalize(prefix, &preopen.root_path);
        // A link whose target (or a directory on the way to it) is missing is a dangling link, not a typo to
        // suggest names for; a name missing under a link's existing target is an ordinary miss.
        if let (Some((link, target)), Some(target_path)) = (&self.last_link, &self.target_path) {
            if is_same_or_ancestor(&missing, target_path) {
                let what = if &missing == target_path {
                    "that does not exist".to_string()
                } else {
                    format!(
                        "{}, on the way to it, does not exist",
                        path_in_prose(&missing)
                    )
                };
                return ResolveError::Other(ReadError::new(
                    ErrorKind::NotFound,
                    format!(
                        "{} goes through the link {}, which points to {}; {what} (a dangling link).",
                        path_in_prose(self.requested),
                        path_in_prose(link),
                        path_in_prose(target)
                    ),
                ));
            }
        }
        ResolveError::NotFound(Missing {
            path: missing,
            via_link: self.last_link.clone(),
        })
    }

    /// Follows the link at `prefix` (the name at `position` of `components`): splices its target into the current
    /// path. Errors: a link loop (more than [`MAX_LINK_HOPS`] links), an absolute target the host hides
    /// (`outside-sandbox`), a failed read of the link.
    fn follow_link<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        preopen: &Preopen,
        components: &[&str],
        position: usize,
        prefix: &str,
    ) -> Result<(), ResolveError> {
        self.hops += 1;
        if self.hops > MAX_LINK_HOPS {
            return Err(ResolveError::Other(link_loop_error(self.requested)));
        }
        let link_path = normalize(prefix, &preopen.root_path);
        let target = match fs.read_link(preopen.root, prefix) {
            Ok(target) => target,
            // wasmtime refuses to reveal an absolute target (it would leak host paths) and never follows one: such
            // a link leads outside the sandbox as far as the component can tell.
            Err(FsError::PermissionDenied) => {
                return Err(ResolveError::Other(ReadError::new(
                    ErrorKind::OutsideSandbox,
                    format!(
                        "{} goes through the link {link_path}, whose target is an absolute path the host does not let the component follow; it is treated as outside the directories read-window may read ({}). Read the target by its path under a granted directory.",
                        self.requested,
                        describe_roots(&preopen.roots)
                    ),
                )));
            }
            Err(error) => return Err(ResolveError::Other(error.into_read_error(self.requested))),
        };
        let parent_components = components.get(..position).unwrap_or_default().join("/");
        let link_directory = normalize(&parent_components, &preopen.root_path);
        let rest = components.get(position + 1..).unwrap_or_default().join("/");
        let target_path = normalize(&target, &link_directory);
        self.current = if rest.is_empty() {
            target_path.clone()
        } else {
            normalize(&rest, &target_path)
        };
        self.links.push(link_path.clone());
        self.last_link = Some((link_path, target));
        self.target_path = Some(target_path);
        Ok(())
    }

    /// The error of a path that goes on past a file (`prefix`, of kind `kind`), or ends with `/` on one.
    fn file_on_the_way(
        &self,
        prefix: &str,
        preopen: &Preopen,
        kind: FileKind,
        is_last: bool,
    ) -> ResolveError {
        let file = normalize(prefix, &preopen.root_path);
        let ending = if is_last {
            " (the path ends with `/`, which only a directory can)"
        } else {
            ""
        };
        ResolveError::Other(ReadError::new(
            ErrorKind::NotFound,
            format!(
                "{} does not exist: a component of the path is a file: {file} is {}, not a directory{ending}. Read {file} itself, or check the path.",
                described(self.requested, &self.current),
                kind.describe()
            ),
        ))
    }
}

/// Whether `path` is `other` or a directory above it (both absolute and normalized).
fn is_same_or_ancestor(path: &str, other: &str) -> bool {
    path == other
        || path == "/"
        || other
            .strip_prefix(path)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A file the spill appends to.
pub trait SpillWriter {
    /// Appends all of `bytes` to the file. Errors: the file system's (a full disk, a revoked permission).
    fn append(&mut self, bytes: &[u8]) -> Result<(), FsError>;
}

/// A file system the spill can create files in: the sandbox's [`FileSystem`] plus an exclusive create.
pub trait SpillFs: FileSystem {
    /// An open spill file.
    type Writer: SpillWriter;
    /// Creates the regular file `relative` under preopen `root` for writing, exclusively and without following a
    /// link at its name. `Ok(None)` when the name is taken (a file, a directory or a link, dangling or not).
    /// Errors: the directory is missing, is not writable (a read-only preopen), or the file system refused.
    fn create_new(&mut self, root: usize, relative: &str) -> Result<Option<Self::Writer>, FsError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_dots_against_the_base() {
        assert_eq!(normalize("a/./b/../c", "/project"), "/project/a/c");
        assert_eq!(normalize("/x//y/", "/ignored"), "/x/y");
        assert_eq!(normalize("../../..", "/a"), "/");
        assert_eq!(normalize("/dev/../dev/zero", "/"), "/dev/zero");
    }

    #[test]
    fn the_longest_root_wins() {
        let roots = vec![
            "/project".to_string(),
            "/project/sub".to_string(),
            "/".to_string(),
        ];
        assert_eq!(
            find_root(&roots, "/project/sub/a.txt"),
            Some((1, "a.txt".to_string()))
        );
        assert_eq!(
            find_root(&roots, "/project/subway"),
            Some((0, "subway".to_string()))
        );
        assert_eq!(
            find_root(&roots, "/etc/passwd"),
            Some((2, "etc/passwd".to_string()))
        );
        assert_eq!(find_root(&roots[..2], "/etc"), None);
        assert_eq!(find_root(&roots[..1], "/project"), Some((0, String::new())));
    }

    #[test]
    fn messages_name_the_resolved_path_when_it_differs() {
        assert_eq!(
            described("data/x.txt", "/project/data/x.txt"),
            "data/x.txt (resolved to /project/data/x.txt)"
        );
        assert_eq!(described("/p/a", "/p/a"), "/p/a");
        let roots = vec!["/project".to_string()];
        let error = outside_error("../etc/passwd", "/etc/passwd", &roots);
        assert!(error
            .message
            .starts_with("../etc/passwd resolves to /etc/passwd, which is outside"));
        let direct = outside_error("/etc/passwd", "/etc/passwd", &roots);
        assert!(direct
            .message
            .starts_with("/etc/passwd is outside the directories"));
    }

    #[test]
    fn a_name_over_255_bytes_is_an_invalid_request() {
        let long = format!("dir/{}.txt", "n".repeat(300));
        let error = validate_path(&long).unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidRequest);
        assert_eq!(
            error.message,
            "path holds a name of 304 bytes (`nnnnnnnnnnnnnnnnnnnnnnnn...`); a file or directory name is at most 255 bytes, so no such file can exist. Check the path."
        );
        assert!(validate_path(&"n".repeat(255)).is_ok());
    }

    #[test]
    fn whitespace_only_paths_are_no_path_but_whitespace_names_are_names() {
        for path in [" ", "\t", "  \n"] {
            let error = validate_path(path).unwrap_err();
            assert_eq!(error.kind, ErrorKind::InvalidRequest);
            assert!(
                error.message.starts_with("path is only whitespace"),
                "{path:?}"
            );
        }
        assert!(validate_path("./ ").is_ok());
        assert!(validate_path("dir/ ").is_ok());
    }

    #[test]
    fn a_trailing_slash_asks_for_a_directory() {
        assert!(names_a_directory("ok.txt/"));
        assert!(names_a_directory("ok.txt/."));
        assert!(!names_a_directory("ok.txt"));
        assert!(!names_a_directory("./ok.txt"));
        assert!(is_same_or_ancestor("/a", "/a/b"));
        assert!(!is_same_or_ancestor("/a/b", "/a/bc"));
    }

    #[test]
    fn bad_paths_are_refused() {
        assert!(validate_path("").is_err());
        assert!(validate_path("a\0b").is_err());
        assert!(validate_path(&"a".repeat(5_000)).is_err());
        assert!(validate_path("ok.txt").is_ok());
    }
}
