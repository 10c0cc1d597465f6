//! The directories a session may read ([`Grants`]), and the rewriting of requested paths between the paths a
//! host was given and the guest paths the component sees.

use std::io;
use std::path::{Path, PathBuf};

/// One granted directory: a host directory and the guest path the component sees it at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub(crate) host: PathBuf,
    pub(crate) guest: String,
    pub(crate) writable: bool,
    given: Option<String>,
}

impl Grant {
    /// The host directory (canonical, absolute).
    pub fn host(&self) -> &Path {
        &self.host
    }

    /// The guest path the directory is preopened at.
    pub fn guest(&self) -> &str {
        &self.guest
    }

    /// True for a directory granted read-write (a capture's spill directory, see [`Grants::writable_dir`]).
    pub fn writable(&self) -> bool {
        self.writable
    }

    /// The absolute path the directory was given by, when it differs from its canonical path (a root given
    /// through a link, `/var/run` for `/run`) and the grant is at its canonical path ([`Grants::dir`]); `None`
    /// otherwise. Requested paths under it are rewritten onto the guest path ([`Grants::onto_guest`]).
    pub fn given(&self) -> Option<&str> {
        self.given.as_deref()
    }
}

/// The directories a session may read, each preopened **read-only** (`FsPerms::ReadOnly`: no file or
/// directory can be created, written, renamed or removed through it). The component sees nothing else.
///
/// Build with [`Grants::dir`] (guest path = the directory's canonical absolute path, so guest and host paths
/// agree) or [`Grants::dir_at`] (a guest path of your choosing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grants {
    dirs: Vec<Grant>,
}

impl Grants {
    /// No directories.
    pub fn new() -> Self {
        Grants::default()
    }

    /// Grants `host` at its canonical absolute path.
    ///
    /// Errors (`io::Error`, the message naming the path): the directory does not exist or cannot be resolved,
    /// is not a directory, or its canonical path is not UTF-8 (guest paths are strings).
    pub fn dir(self, host: impl AsRef<Path>) -> io::Result<Self> {
        let given = std::path::absolute(host.as_ref())
            .ok()
            .and_then(|path| {
                path.to_str()
                    .map(|path| path.trim_end_matches('/').to_owned())
            })
            .filter(|path| !path.is_empty());
        let canonical = canonical_dir(host.as_ref())?;
        let guest = canonical
            .to_str()
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{}: the path is not UTF-8, so it cannot be a guest path",
                        canonical.display()
                    ),
                )
            })?
            .to_owned();
        let given = given.filter(|given| *given != guest);
        let mut grants = self.push(canonical, guest);
        if let Some(last) = grants.dirs.last_mut() {
            last.given = given;
        }
        Ok(grants)
    }

    /// Grants `host` at the guest path `guest` (it should be absolute, e.g. `/workspace`).
    ///
    /// Errors (`io::Error`, the message naming the path): the directory does not exist or cannot be resolved,
    /// or is not a directory; `guest` is empty.
    pub fn dir_at(self, host: impl AsRef<Path>, guest: impl Into<String>) -> io::Result<Self> {
        let canonical = canonical_dir(host.as_ref())?;
        let guest = guest.into();
        if guest.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: the guest path is empty", canonical.display()),
            ));
        }
        Ok(self.push(canonical, guest))
    }

    /// Grants `host` **read-write** at its canonical absolute path: the one directory a capture may create its
    /// spill file in (`FsPerms::ReadWrite`). Every other grant stays read-only; a writable directory inside a
    /// read-only one is a preopen of its own, and the component maps a path onto the longest matching guest path,
    /// so only paths under it are writable.
    ///
    /// Errors: as [`Grants::dir`].
    pub fn writable_dir(self, host: impl AsRef<Path>) -> io::Result<Self> {
        let mut grants = self.dir(host)?;
        if let Some(last) = grants.dirs.last_mut() {
            last.writable = true;
        }
        Ok(grants)
    }

    /// Grants `host` read-write at the guest path `guest`; see [`Grants::writable_dir`].
    ///
    /// Errors: as [`Grants::dir_at`].
    pub fn writable_dir_at(
        self,
        host: impl AsRef<Path>,
        guest: impl Into<String>,
    ) -> io::Result<Self> {
        let mut grants = self.dir_at(host, guest)?;
        if let Some(last) = grants.dirs.last_mut() {
            last.writable = true;
        }
        Ok(grants)
    }

    fn push(mut self, host: PathBuf, guest: String) -> Self {
        self.dirs.push(Grant {
            host,
            guest,
            writable: false,
            given: None,
        });
        self
    }

    /// The granted directories, in the order they were added (the first is the component's default working
    /// directory).
    pub fn dirs(&self) -> &[Grant] {
        &self.dirs
    }

    /// True when nothing is granted.
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// `path` rewritten onto the guest path of the grant it names by the path the root was given by: a root
    /// given as `/tmp/x/linkroot` (a link to `/tmp/x/L`) is preopened at `/tmp/x/L`, so `/tmp/x/linkroot/a.txt`
    /// becomes `/tmp/x/L/a.txt`. `None` when `path` is relative or under no grant's given path ([`Grant::given`];
    /// the longest given path wins, matched whole components at a time).
    pub fn onto_guest(&self, path: &str) -> Option<String> {
        if !path.starts_with('/') {
            return None;
        }
        self.dirs
            .iter()
            .filter_map(|grant| {
                let given = grant.given.as_deref()?;
                let rest = path.strip_prefix(given)?;
                (rest.is_empty() || rest.starts_with('/')).then_some((grant, given.len(), rest))
            })
            .max_by_key(|(_, length, _)| *length)
            .map(|(grant, _, rest)| {
                let path = format!("{}{rest}", grant.guest.trim_end_matches('/'));
                if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                }
            })
    }

    /// The guest path of the host directory `host_dir` when it lies under a grant (the longest matching grant
    /// wins), else the first grant's guest path; `None` when nothing is granted. `host_dir` should be
    /// canonical. Meant for `Config::working_directory`.
    pub fn working_directory_for(&self, host_dir: &Path) -> Option<String> {
        let under = self
            .dirs
            .iter()
            .filter_map(|grant| {
                host_dir
                    .strip_prefix(&grant.host)
                    .ok()
                    .map(|rest| (grant, rest))
            })
            .max_by_key(|(grant, _)| grant.host.as_os_str().len())
            .and_then(|(grant, rest)| {
                let rest = rest.to_str()?;
                if rest.is_empty() {
                    Some(grant.guest.clone())
                } else {
                    Some(format!("{}/{}", grant.guest.trim_end_matches('/'), rest))
                }
            });
        under.or_else(|| self.dirs.first().map(|grant| grant.guest.clone()))
    }
}

fn canonical_dir(path: &Path) -> io::Result<PathBuf> {
    let canonical = path
        .canonicalize()
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    if !canonical.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a directory", path.display()),
        ));
    }
    Ok(canonical)
}
