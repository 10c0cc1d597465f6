//! The WASI edge: the sandbox's file system over `wasi:filesystem` preopens, and the monotonic clock. The only
//! module that calls WASI.

use wasi::filesystem::preopens::get_directories;
use wasi::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorStat, DescriptorType, ErrorCode, MetadataHashValue,
    NewTimestamp, OpenFlags, PathFlags,
};

use crate::beneath::{Beneath, Directory, StoreCapable, StoreOver, WritableDirectory};
use crate::error::FsError;
use crate::sandbox::{normalize, DirectoryListing, FileKind, FileStat};
use crate::source::ByteSource;

/// The preopened directories the host granted, opened beneath ([`crate::beneath`]).
pub type WasiFileSystem = Beneath<WasiDirectory>;

/// The host's preopens, with their normalized guest paths. A relative guest path (such as `.`) is taken as
/// relative to `/`.
pub fn from_preopens() -> WasiFileSystem {
    Beneath::new(
        get_directories()
            .into_iter()
            .map(|(descriptor, guest)| (WasiDirectory { descriptor }, normalize(&guest, "/")))
            .collect(),
    )
}

/// A directory descriptor: a preopen, or a directory opened beneath one.
pub struct WasiDirectory {
    descriptor: Descriptor,
}

/// Milliseconds of the monotonic clock.
pub fn now_ms() -> u64 {
    wasi::clocks::monotonic_clock::now() / 1_000_000
}

/// A `metadata-hash` as one number.
fn identity(hash: MetadataHashValue) -> u128 {
    (u128::from(hash.upper) << 64) | u128::from(hash.lower)
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

fn file_stat(stat: DescriptorStat) -> FileStat {
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
    FileStat {
        kind,
        size: stat.size,
        modified_ns,
    }
}

/// An open error, with a link at the name (`loop`; `not-directory` for a directory open) as [`FsError::Changed`].
fn open_error(code: ErrorCode, directory: bool) -> FsError {
    match code {
        ErrorCode::Loop => FsError::Changed,
        ErrorCode::NotDirectory if directory => FsError::Changed,
        other => fs_error(other),
    }
}

impl Directory for WasiDirectory {
    type File = WasiFile;

    fn stat_self(&self) -> Result<FileStat, FsError> {
        self.descriptor.stat().map(file_stat).map_err(fs_error)
    }

    fn stat_at(&self, name: &str) -> Result<FileStat, FsError> {
        self.descriptor
            .stat_at(PathFlags::empty(), name)
            .map(file_stat)
            .map_err(fs_error)
    }

    fn identity(&self) -> Result<u128, FsError> {
        self.descriptor
            .metadata_hash()
            .map(identity)
            .map_err(fs_error)
    }

    fn identity_at(&self, name: &str) -> Result<u128, FsError> {
        self.descriptor
            .metadata_hash_at(PathFlags::empty(), name)
            .map(identity)
            .map_err(fs_error)
    }

    fn read_link_at(&self, name: &str) -> Result<String, FsError> {
        // `invalid`: the entry is not a link (any more).
        self.descriptor
            .readlink_at(name)
            .map_err(|code| match code {
                ErrorCode::Invalid => FsError::Changed,
                other => fs_error(other),
            })
    }

    fn open_directory_at(&self, name: &str) -> Result<WasiDirectory, FsError> {
        // No SYMLINK_FOLLOW: a link at the name is refused (`loop` or `not-directory`), never followed.
        self.descriptor
            .open_at(
                PathFlags::empty(),
                name,
                OpenFlags::DIRECTORY,
                DescriptorFlags::READ,
            )
            .map(|descriptor| WasiDirectory { descriptor })
            .map_err(|code| open_error(code, true))
    }

    fn open_file_at(&self, name: &str) -> Result<WasiFile, FsError> {
        self.descriptor
            .open_at(
                PathFlags::empty(),
                name,
                OpenFlags::empty(),
                DescriptorFlags::READ,
            )
            .map(|descriptor| WasiFile { descriptor })
            .map_err(|code| open_error(code, false))
    }

    fn can_hold_store(&self) -> bool {
        // Not asked of WASI (`get-flags`): a session is constructed where a host may not block, as wasmtime-wasi's
        // synchronous calls do inside an async runtime. The protocol session checks the host's read-write grants.
        true
    }

    fn into_store(self) -> Option<Box<dyn crate::document::StoreDirectory>> {
        Some(Box::new(StoreOver(self)))
    }

    fn list(&self, max: usize) -> Result<DirectoryListing, FsError> {
        let stream = self.descriptor.read_directory().map_err(fs_error)?;
        let mut listing = DirectoryListing::default();
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

impl crate::sandbox::SpillWriter for WasiSpillFile {
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

impl StoreCapable for WasiDirectory {
    fn rename_at(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.descriptor
            .rename_at(from, &self.descriptor, to)
            .map_err(fs_error)
    }

    fn remove_at(&self, name: &str) -> Result<(), FsError> {
        self.descriptor.unlink_file_at(name).map_err(fs_error)
    }

    fn touch_at(&self, name: &str) -> Result<(), FsError> {
        self.descriptor
            .set_times_at(
                PathFlags::empty(),
                name,
                NewTimestamp::NoChange,
                NewTimestamp::Now,
            )
            .map_err(fs_error)
    }
}

impl WritableDirectory for WasiDirectory {
    type Writer = WasiSpillFile;

    fn create_new_at(&self, name: &str) -> Result<Option<WasiSpillFile>, FsError> {
        // CREATE | EXCLUSIVE without SYMLINK_FOLLOW: a link at the name, dangling or not, is never followed.
        match self.descriptor.open_at(
            PathFlags::empty(),
            name,
            OpenFlags::CREATE | OpenFlags::EXCLUSIVE,
            DescriptorFlags::WRITE,
        ) {
            Ok(descriptor) => Ok(Some(WasiSpillFile {
                descriptor,
                offset: 0,
            })),
            Err(ErrorCode::Exist) => Ok(None),
            Err(ErrorCode::ReadOnly) => Err(FsError::PermissionDenied),
            Err(code) => Err(open_error(code, false)),
        }
    }
}
