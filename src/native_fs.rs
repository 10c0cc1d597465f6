//! The sandbox's file system over `std::fs`, for native tests, fuzzing and benchmarks (never in the component).
//!
//! Each root is a host directory mounted at a guest path, like a WASI preopen.

use std::fs::File;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt};
use std::path::PathBuf;

use crate::error::FsError;
use crate::sandbox::{FileKind, FileStat, FileSystem};
use crate::source::ByteSource;

/// Host directories mounted at guest paths.
#[derive(Debug, Clone)]
pub struct NativeFileSystem {
    roots: Vec<String>,
    directories: Vec<PathBuf>,
}

impl NativeFileSystem {
    /// Mounts each `(host directory, guest path)`.
    pub fn new(mounts: &[(PathBuf, String)]) -> Self {
        NativeFileSystem {
            roots: mounts
                .iter()
                .map(|(_, guest)| crate::sandbox::normalize(guest, "/"))
                .collect(),
            directories: mounts.iter().map(|(host, _)| host.clone()).collect(),
        }
    }

    fn host_path(&self, root: usize, relative: &str) -> Result<PathBuf, FsError> {
        let base = self.directories.get(root).ok_or(FsError::NotFound)?;
        Ok(if relative.is_empty() {
            base.clone()
        } else {
            base.join(relative)
        })
    }
}

fn fs_error(error: std::io::Error) -> FsError {
    match error.kind() {
        std::io::ErrorKind::NotFound => FsError::NotFound,
        std::io::ErrorKind::PermissionDenied => FsError::PermissionDenied,
        std::io::ErrorKind::NotADirectory => FsError::NotADirectory,
        _ => FsError::Other(error.to_string()),
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

impl FileSystem for NativeFileSystem {
    type File = NativeFile;

    fn roots(&self) -> &[String] {
        &self.roots
    }

    fn stat(&mut self, root: usize, relative: &str) -> Result<FileStat, FsError> {
        let metadata =
            std::fs::symlink_metadata(self.host_path(root, relative)?).map_err(fs_error)?;
        let file_type = metadata.file_type();
        let kind = if file_type.is_symlink() {
            FileKind::Symlink
        } else if file_type.is_dir() {
            FileKind::Directory
        } else if file_type.is_file() {
            FileKind::Regular
        } else if file_type.is_fifo() {
            FileKind::Fifo
        } else if file_type.is_socket() {
            FileKind::Socket
        } else if file_type.is_char_device() {
            FileKind::CharacterDevice
        } else if file_type.is_block_device() {
            FileKind::BlockDevice
        } else {
            FileKind::Unknown
        };
        let modified_ns = u128::try_from(metadata.mtime()).ok().map(|seconds| {
            seconds * 1_000_000_000 + u128::try_from(metadata.mtime_nsec()).unwrap_or(0)
        });
        Ok(FileStat {
            kind,
            size: metadata.len(),
            modified_ns,
        })
    }

    fn read_link(&mut self, root: usize, relative: &str) -> Result<String, FsError> {
        let target = std::fs::read_link(self.host_path(root, relative)?).map_err(fs_error)?;
        target
            .into_os_string()
            .into_string()
            .map_err(|_| FsError::Other("the link's target is not valid UTF-8".to_string()))
    }

    fn open(&mut self, root: usize, relative: &str) -> Result<NativeFile, FsError> {
        let file = File::open(self.host_path(root, relative)?).map_err(fs_error)?;
        Ok(NativeFile { file })
    }

    fn list_directory(
        &mut self,
        root: usize,
        relative: &str,
        max: usize,
    ) -> Result<crate::sandbox::DirectoryListing, FsError> {
        let entries = std::fs::read_dir(self.host_path(root, relative)?).map_err(fs_error)?;
        let mut listing = crate::sandbox::DirectoryListing::default();
        for entry in entries.take(max).flatten() {
            match entry.file_name().into_string() {
                Ok(name) => listing.names.push(name),
                Err(_) => listing.not_utf8 += 1,
            }
        }
        Ok(listing)
    }
}

/// A host file the spill appends to.
#[derive(Debug)]
pub struct NativeSpillFile {
    file: File,
}

impl crate::spill::SpillWriter for NativeSpillFile {
    fn append(&mut self, bytes: &[u8]) -> Result<(), FsError> {
        use std::io::Write;
        self.file.write_all(bytes).map_err(fs_error)
    }
}

impl crate::spill::SpillFs for NativeFileSystem {
    type Writer = NativeSpillFile;

    fn create_new(
        &mut self,
        root: usize,
        relative: &str,
    ) -> Result<Option<NativeSpillFile>, FsError> {
        // `create_new` is O_CREAT | O_EXCL: a link at the name, dangling or not, is never followed.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.host_path(root, relative)?)
        {
            Ok(file) => Ok(Some(NativeSpillFile { file })),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(None),
            Err(error) => Err(fs_error(error)),
        }
    }
}
