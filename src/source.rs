//! The byte source the core reads through: positioned reads of a file, so the same windowing code runs over WASI
//! descriptors in the component and over memory or `std::fs` in native tests and fuzzing.

use crate::error::FsError;

/// A file's bytes, read by position.
pub trait ByteSource {
    /// Replaces the contents of `buffer` with up to `length` bytes starting at byte `offset`.
    ///
    /// An empty `buffer` afterwards means the end of the file. Fewer than `length` bytes is allowed (the caller
    /// asks again from where the read stopped). Errors are file-system errors, reported with the file's path.
    fn read_at(&mut self, offset: u64, length: usize, buffer: &mut Vec<u8>) -> Result<(), FsError>;
}

impl<S: ByteSource + ?Sized> ByteSource for &mut S {
    fn read_at(&mut self, offset: u64, length: usize, buffer: &mut Vec<u8>) -> Result<(), FsError> {
        (**self).read_at(offset, length, buffer)
    }
}

/// A file held in memory: for tests, fuzzing, and documents extracted to text.
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    bytes: Vec<u8>,
}

impl MemorySource {
    /// A source over `bytes`.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        MemorySource {
            bytes: bytes.into(),
        }
    }
}

impl ByteSource for MemorySource {
    fn read_at(&mut self, offset: u64, length: usize, buffer: &mut Vec<u8>) -> Result<(), FsError> {
        buffer.clear();
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.bytes.len());
        let end = start.saturating_add(length).min(self.bytes.len());
        if let Some(slice) = self.bytes.get(start..end) {
            buffer.extend_from_slice(slice);
        }
        Ok(())
    }
}

/// A byte source over a file whose only line breaks are lone carriage returns (classic Mac OS text): while active,
/// every `\r` byte reads as `\n`, so the scanner, the line index, the key guard and the window split the file on
/// `\r` with no other change. The reader turns it on only for a file of 1-byte code units (UTF-8 or a legacy
/// encoding) that holds no `\n` at all, so the mapping loses nothing. Inactive, the bytes pass as they are.
#[derive(Debug, Clone)]
pub struct CrAsLf<S> {
    inner: S,
    active: bool,
}

impl<S> CrAsLf<S> {
    /// An inactive adapter over `inner`.
    pub fn new(inner: S) -> Self {
        CrAsLf {
            inner,
            active: false,
        }
    }

    /// Turns the mapping of `\r` to `\n` on or off (the caller drops any block read in the other mode).
    pub fn set_active(&mut self, active: bool) {
        self.active = active;
    }

    /// Whether `\r` reads as `\n`.
    pub fn is_active(&self) -> bool {
        self.active
    }
}

impl<S: ByteSource> ByteSource for CrAsLf<S> {
    fn read_at(&mut self, offset: u64, length: usize, buffer: &mut Vec<u8>) -> Result<(), FsError> {
        self.inner.read_at(offset, length, buffer)?;
        if self.active {
            for byte in buffer.iter_mut() {
                if *byte == b'\r' {
                    *byte = b'\n';
                }
            }
        }
        Ok(())
    }
}

/// What a read windows: a file's bytes, or a document's extracted text (held in memory).
#[derive(Debug, Clone)]
pub enum FileOrText<F> {
    /// The file itself, by positioned reads.
    File(F),
    /// The text extracted from a document (UTF-8, lines ending in `\n`).
    Text(MemorySource),
}

impl<F: ByteSource> ByteSource for FileOrText<F> {
    fn read_at(&mut self, offset: u64, length: usize, buffer: &mut Vec<u8>) -> Result<(), FsError> {
        match self {
            FileOrText::File(file) => file.read_at(offset, length, buffer),
            FileOrText::Text(text) => text.read_at(offset, length, buffer),
        }
    }
}
