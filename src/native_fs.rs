//! The sandbox's file system over the host's directories, for native tests, fuzzing and benchmarks (never in the
//! component): each root is a host directory mounted at a guest path, like a WASI preopen, and opened beneath as
//! the component opens beneath its preopens ([`crate::beneath`]), with `openat` and no link followed.

use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use crate::beneath::{Beneath, Directory, StoreCapable, StoreOver, WritableDirectory};
use crate::error::FsError;
use crate::sandbox::{DirectoryListing, FileKind, FileStat};
use crate::source::ByteSource;

/// Host directories mounted at guest paths, opened beneath.
pub type NativeFileSystem = Beneath<NativeDirectory>;

impl Beneath<NativeDirectory> {
    /// Mounts each `(host directory, guest path)`. A directory that cannot be opened is mounted as missing: every
    /// path under it is `not-found`.
    pub fn mount(mounts: &[(PathBuf, String)]) -> Self {
        Beneath::new(
            mounts
                .iter()
                .map(|(host, guest)| {
                    let directory = NativeDirectory {
                        fd: rustix::fs::open(
                            host.as_path(),
                            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
                            Mode::empty(),
                        )
                        .ok(),
                    };
                    (directory, crate::sandbox::normalize(guest, "/"))
                })
                .collect(),
        )
    }
}

/// An open host directory; `None` for a mount that could not be opened.
#[derive(Debug)]
pub struct NativeDirectory {
    fd: Option<OwnedFd>,
}

impl NativeDirectory {
    fn fd(&self) -> Result<&OwnedFd, FsError> {
        self.fd.as_ref().ok_or(FsError::NotFound)
    }

    /// Opens `name` in this directory, never following a link at it.
    fn open_raw(
        &self,
        name: &str,
        flags: OFlags,
        mode: Mode,
    ) -> Result<rustix::io::Result<OwnedFd>, FsError> {
        Ok(rustix::fs::openat(
            self.fd()?,
            name,
            flags | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            mode,
        ))
    }

    /// [`Self::open_raw`] with its error mapped: `ELOOP` (a link at the name) is [`FsError::Changed`].
    fn open_at(&self, name: &str, flags: OFlags) -> Result<OwnedFd, FsError> {
        self.open_raw(name, flags, Mode::empty())?
            .map_err(|errno| match errno {
                rustix::io::Errno::LOOP => FsError::Changed,
                other => errno_error(other),
            })
    }
}

fn errno_error(errno: rustix::io::Errno) -> FsError {
    fs_error(std::io::Error::from(errno))
}

fn fs_error(error: std::io::Error) -> FsError {
    match error.kind() {
        std::io::ErrorKind::NotFound => FsError::NotFound,
        std::io::ErrorKind::PermissionDenied => FsError::PermissionDenied,
        std::io::ErrorKind::NotADirectory => FsError::NotADirectory,
        _ => FsError::Other(error.to_string()),
    }
}

/// Device and inode as one number, as WASI's `metadata-hash` tells entries apart.
fn identity(stat: &rustix::fs::Stat) -> u128 {
    (u128::from(stat.st_dev) << 64) | u128::from(stat.st_ino)
}

fn file_stat(stat: &rustix::fs::Stat) -> FileStat {
    let kind = match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => FileKind::Regular,
        FileType::Directory => FileKind::Directory,
        FileType::Symlink => FileKind::Symlink,
        FileType::Fifo => FileKind::Fifo,
        FileType::Socket => FileKind::Socket,
        FileType::CharacterDevice => FileKind::CharacterDevice,
        FileType::BlockDevice => FileKind::BlockDevice,
        FileType::Unknown => FileKind::Unknown,
    };
    // `st_mtime_nsec` is unsigned on some targets and signed on others.
    #[allow(clippy::unnecessary_fallible_conversions)]
    let nanoseconds = u128::try_from(stat.st_mtime_nsec).unwrap_or(0);
    let modified_ns = u128::try_from(stat.st_mtime)
        .ok()
        .map(|seconds| seconds * 1_000_000_000 + nanoseconds);
    FileStat {
        kind,
        size: u64::try_from(stat.st_size).unwrap_or(0),
        modified_ns,
    }
}

impl Directory for NativeDirectory {
    type File = NativeFile;

    fn stat_self(&self) -> Result<FileStat, FsError> {
        rustix::fs::fstat(self.fd()?)
            .map(|stat| file_stat(&stat))
            .map_err(errno_error)
    }

    fn stat_at(&self, name: &str) -> Result<FileStat, FsError> {
        rustix::fs::statat(self.fd()?, name, AtFlags::SYMLINK_NOFOLLOW)
            .map(|stat| file_stat(&stat))
            .map_err(errno_error)
    }

    fn identity(&self) -> Result<u128, FsError> {
        rustix::fs::fstat(self.fd()?)
            .map(|stat| identity(&stat))
            .map_err(errno_error)
    }

    fn identity_at(&self, name: &str) -> Result<u128, FsError> {
        rustix::fs::statat(self.fd()?, name, AtFlags::SYMLINK_NOFOLLOW)
            .map(|stat| identity(&stat))
            .map_err(errno_error)
    }

    fn read_link_at(&self, name: &str) -> Result<String, FsError> {
        // `EINVAL`: the entry is not a link (any more).
        let target =
            rustix::fs::readlinkat(self.fd()?, name, Vec::new()).map_err(|errno| match errno {
                rustix::io::Errno::INVAL => FsError::Changed,
                other => errno_error(other),
            })?;
        target
            .into_string()
            .map_err(|_| FsError::Other("the link's target is not valid UTF-8".to_string()))
    }

    fn open_directory_at(&self, name: &str) -> Result<NativeDirectory, FsError> {
        let fd = self.open_at(name, OFlags::DIRECTORY | OFlags::RDONLY)?;
        Ok(NativeDirectory { fd: Some(fd) })
    }

    fn open_file_at(&self, name: &str) -> Result<NativeFile, FsError> {
        let fd = self.open_at(name, OFlags::RDONLY)?;
        Ok(NativeFile {
            file: File::from(fd),
        })
    }

    fn can_hold_store(&self) -> bool {
        self.fd.is_some()
    }

    fn into_store(self) -> Option<Box<dyn crate::document::StoreDirectory>> {
        Some(Box::new(StoreOver(self)))
    }

    fn list(&self, max: usize) -> Result<DirectoryListing, FsError> {
        // `Dir` reads through a descriptor of its own (it opens `.` beneath this one).
        let entries = rustix::fs::Dir::read_from(self.fd()?).map_err(errno_error)?;
        let mut listing = DirectoryListing::default();
        for entry in entries.flatten() {
            if listing.len() >= max {
                break;
            }
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            match std::str::from_utf8(name) {
                Ok(name) => listing.names.push(name.to_string()),
                Err(_) => listing.not_utf8 += 1,
            }
        }
        Ok(listing)
    }
}

impl StoreCapable for NativeDirectory {
    fn rename_at(&self, from: &str, to: &str) -> Result<(), FsError> {
        rustix::fs::renameat(self.fd()?, from, self.fd()?, to).map_err(errno_error)
    }

    fn remove_at(&self, name: &str) -> Result<(), FsError> {
        rustix::fs::unlinkat(self.fd()?, name, AtFlags::empty()).map_err(errno_error)
    }

    fn touch_at(&self, name: &str) -> Result<(), FsError> {
        let now = rustix::fs::Timestamps {
            last_access: rustix::fs::Timespec {
                tv_sec: 0,
                tv_nsec: rustix::fs::UTIME_OMIT,
            },
            last_modification: rustix::fs::Timespec {
                tv_sec: 0,
                tv_nsec: rustix::fs::UTIME_NOW,
            },
        };
        rustix::fs::utimensat(self.fd()?, name, &now, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(errno_error)
    }
}

impl WritableDirectory for NativeDirectory {
    type Writer = NativeSpillFile;

    fn create_new_at(&self, name: &str) -> Result<Option<NativeSpillFile>, FsError> {
        // O_CREAT | O_EXCL with O_NOFOLLOW: a link at the name, dangling or not, is never followed.
        let flags = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY;
        match self.open_raw(name, flags, Mode::from_raw_mode(0o644))? {
            Ok(fd) => Ok(Some(NativeSpillFile {
                file: File::from(fd),
            })),
            Err(rustix::io::Errno::EXIST) => Ok(None),
            Err(errno) => Err(errno_error(errno)),
        }
    }
}

/// A host file read by position.
#[derive(Debug)]
pub struct NativeFile {
    file: File,
}

impl ByteSource for NativeFile {
    fn read_at(&mut self, offset: u64, length: usize, buffer: &mut Vec<u8>) -> Result<(), FsError> {
        buffer.resize(length, 0);
        let read = self.file.read_at(buffer, offset).map_err(fs_error)?;
        buffer.truncate(read);
        Ok(())
    }
}

/// A host file the spill appends to.
#[derive(Debug)]
pub struct NativeSpillFile {
    file: File,
}

impl crate::sandbox::SpillWriter for NativeSpillFile {
    fn append(&mut self, bytes: &[u8]) -> Result<(), FsError> {
        use std::io::Write;
        self.file.write_all(bytes).map_err(fs_error)
    }
}
