//! The WASI edge: the sandbox's file system over `wasi:filesystem` preopens, and the monotonic clock. The only
//! module that calls WASI.

use wasi::filesystem::preopens::get_directories;
use wasi::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags,
};

use crate::error::FsError;
use crate::sandbox::{normalize, FileKind, FileStat, FileSystem};
use crate::source::ByteSource;

/// The preopened directories the host granted, with their normalized guest paths.
pub struct WasiFileSystem {
    descriptors: Vec<Descriptor>,
    roots: Vec<String>,
}

impl WasiFileSystem {
    /// The host's preopens. A relative guest path (such as `.`) is taken as relative to `/`.
    pub fn from_preopens() -> Self {
        let (descriptors, roots) = get_directories()
            .into_iter()
            .map(|(descriptor, guest)| (descriptor, normalize(&guest, "/")))
            .unzip();
        WasiFileSystem { descriptors, roots }
    }

    fn descriptor(&self, root: usize) -> Result<&Descriptor, FsError> {
        self.descriptors.get(root).ok_or(FsError::NotFound)
    }
}

/// Milliseconds of the monotonic clock.
pub fn now_ms() -> u64 {
    wasi::clocks::monotonic_clock::now() / 1_000_000
}

fn fs_error(code: ErrorCode) -> FsError {
    match code {
        ErrorCode::NoEntry => FsError::NotFound,
        ErrorCode::Access | ErrorCode::NotPermitted => FsError::PermissionDenied,
        ErrorCode::NotDirectory => FsError::NotADirectory,
        other => FsError::Other(format!(
            "{} ({})",
            other.message().trim_end_matches('.'),
            other.name()
        )),
    }
}

/// A file opened through WASI, read by position.
pub struct WasiFile {
    descriptor: Descriptor,
}

impl ByteSource for WasiFile {
    fn read_at(&mut self, offset: u64, length: usize, buffer: &mut Vec<u8>) -> Result<(), FsError> {
        let (bytes, _end_of_stream) = self
            .descriptor
            .read(length as u64, offset)
            .map_err(fs_error)?;
        *buffer = bytes;
        Ok(())
    }
}

impl FileSystem for WasiFileSystem {
    type File = WasiFile;

    fn roots(&self) -> &[String] {
        &self.roots
    }

    fn stat(&mut self, root: usize, relative: &str) -> Result<FileStat, FsError> {
        let descriptor = self.descriptor(root)?;
        let stat = if relative.is_empty() {
            descriptor.stat()
        } else {
            descriptor.stat_at(PathFlags::empty(), relative)
        }
        .map_err(fs_error)?;
        let kind = match stat.type_ {
            DescriptorType::RegularFile => FileKind::Regular,
            DescriptorType::Directory => FileKind::Directory,
            DescriptorType::SymbolicLink => FileKind::Symlink,
            DescriptorType::Fifo => FileKind::Fifo,
            DescriptorType::Socket => FileKind::Socket,
            DescriptorType::CharacterDevice => FileKind::CharacterDevice,
            DescriptorType::BlockDevice => FileKind::BlockDevice,
            DescriptorType::Unknown => FileKind::Unknown,
        };
        let modified_ns = stat
            .data_modification_timestamp
            .map(|time| u128::from(time.seconds) * 1_000_000_000 + u128::from(time.nanoseconds));
        Ok(FileStat {
            kind,
            size: stat.size,
            modified_ns,
        })
    }

    fn read_link(&mut self, root: usize, relative: &str) -> Result<String, FsError> {
        self.descriptor(root)?
            .readlink_at(relative)
            .map_err(fs_error)
    }

    fn open(&mut self, root: usize, relative: &str) -> Result<WasiFile, FsError> {
        let descriptor = self
            .descriptor(root)?
            .open_at(
                PathFlags::empty(),
                relative,
                OpenFlags::empty(),
                DescriptorFlags::READ,
            )
            .map_err(fs_error)?;
        Ok(WasiFile { descriptor })
    }

    fn list_directory(
        &mut self,
        root: usize,
        relative: &str,
        max: usize,
    ) -> Result<crate::sandbox::DirectoryListing, FsError> {
        let base = self.descriptor(root)?;
        let opened;
        let directory = if relative.is_empty() {
            base
        } else {
            opened = base
                .open_at(
                    PathFlags::empty(),
                    relative,
                    OpenFlags::DIRECTORY,
                    DescriptorFlags::READ,
                )
                .map_err(fs_error)?;
            &opened
        };
        let stream = directory.read_directory().map_err(fs_error)?;
        let mut listing = crate::sandbox::DirectoryListing::default();
        while listing.len() < max {
            match stream.read_directory_entry() {
                Ok(Some(entry)) => listing.names.push(entry.name),
                Ok(None) => break,
                // A name that is not valid UTF-8 fails alone; the stream goes on with the next entry.
                Err(ErrorCode::IllegalByteSequence) => listing.not_utf8 += 1,
                Err(error) => return Err(fs_error(error)),
            }
        }
        Ok(listing)
    }
}

/// A spill file opened through WASI for writing, appended to by position.
pub struct WasiSpillFile {
    descriptor: Descriptor,
    offset: u64,
}

impl crate::spill::SpillWriter for WasiSpillFile {
    fn append(&mut self, mut bytes: &[u8]) -> Result<(), FsError> {
        while !bytes.is_empty() {
            let written = self
                .descriptor
                .write(bytes, self.offset)
                .map_err(fs_error)?;
            if written == 0 {
                return Err(FsError::Other("the file system wrote nothing".to_string()));
            }
            self.offset += written;
            bytes = bytes
                .get(usize::try_from(written).unwrap_or(bytes.len())..)
                .unwrap_or(&[]);
        }
        Ok(())
    }
}

impl crate::spill::SpillFs for WasiFileSystem {
    type Writer = WasiSpillFile;

    fn create_new(
        &mut self,
        root: usize,
        relative: &str,
    ) -> Result<Option<WasiSpillFile>, FsError> {
        // CREATE | EXCLUSIVE without SYMLINK_FOLLOW: a link at the name, dangling or not, is never followed.
        match self.descriptor(root)?.open_at(
            PathFlags::empty(),
            relative,
            OpenFlags::CREATE | OpenFlags::EXCLUSIVE,
            DescriptorFlags::WRITE,
        ) {
            Ok(descriptor) => Ok(Some(WasiSpillFile {
                descriptor,
                offset: 0,
            })),
            Err(ErrorCode::Exist) => Ok(None),
            Err(ErrorCode::ReadOnly) => Err(FsError::PermissionDenied),
            Err(code) => Err(fs_error(code)),
        }
    }
}
