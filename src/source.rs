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

/// A file whose first bytes were read once (to tell a document from any other file) and are served again from
/// memory, so that for a file smaller than a block the probe's read is also the read of the window: one positioned
/// read per call instead of two.
///
/// A read is served from the kept head when the head covers all of it, or when it starts inside the head and the
/// head's read came back short (the head then holds everything that read found, as a read now would have, a file
/// that grew since aside: such a read may return fewer bytes than asked, which [`ByteSource`] allows). Every other
/// read goes to the file.
#[derive(Debug, Clone)]
pub struct ReadAhead<S> {
    inner: S,
    /// Bytes `0..head.len()` of the file, as one read returned them.
    head: Vec<u8>,
    /// Whether that read returned fewer bytes than it asked for.
    head_short: bool,
    /// The bytes that read asked for.
    head_asked: usize,
}

impl<S: ByteSource> ReadAhead<S> {
    /// A source over `inner` that has kept nothing yet.
    pub fn new(inner: S) -> Self {
        ReadAhead {
            inner,
            head: Vec::new(),
            head_short: false,
            head_asked: 0,
        }
    }

    /// Reads bytes `0..length` of the file (fewer at its end), keeps them in place of any head kept before, and
    /// returns them; a head kept from a read that asked for at least `length` bytes is returned as it is (the
    /// image sniff and the document sniff share one read). Errors: the file's read error.
    pub fn read_head(&mut self, length: usize) -> Result<&[u8], FsError> {
        if length <= self.head_asked {
            return Ok(&self.head);
        }
        self.head_short = false;
        self.head_asked = 0;
        self.inner.read_at(0, length, &mut self.head)?;
        self.head_short = self.head.len() < length;
        self.head_asked = length;
        Ok(&self.head)
    }

    /// The bytes the last [`read_head`](Self::read_head) kept (empty before one).
    pub fn head(&self) -> &[u8] {
        &self.head
    }
}

impl<S: ByteSource> ByteSource for ReadAhead<S> {
    fn read_at(&mut self, offset: u64, length: usize, buffer: &mut Vec<u8>) -> Result<(), FsError> {
        let kept = self.head.len();
        if let Ok(start) = usize::try_from(offset) {
            let end = start.saturating_add(length);
            let covered = end <= kept || (self.head_short && start < kept);
            if let Some(slice) = self.head.get(start..end.min(kept)).filter(|_| covered) {
                buffer.clear();
                buffer.extend_from_slice(slice);
                return Ok(());
            }
        }
        self.inner.read_at(offset, length, buffer)
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

/// A source that records the length of every read asked of it, for tests that count reads.
#[cfg(test)]
#[derive(Debug)]
pub(crate) struct Recording<S> {
    pub(crate) inner: S,
    /// The length of each read asked, in order. Shared: a test's file system hands a clone to every file it opens.
    pub(crate) asked: std::rc::Rc<std::cell::RefCell<Vec<usize>>>,
}

#[cfg(test)]
impl<S> Recording<S> {
    /// A source over `inner` that has been asked nothing.
    pub(crate) fn new(inner: S) -> Self {
        Recording {
            inner,
            asked: Default::default(),
        }
    }

    /// The lengths asked so far.
    pub(crate) fn asked(&self) -> Vec<usize> {
        self.asked.borrow().clone()
    }
}

#[cfg(test)]
impl<S: ByteSource> ByteSource for Recording<S> {
    fn read_at(&mut self, offset: u64, length: usize, buffer: &mut Vec<u8>) -> Result<(), FsError> {
        self.asked.borrow_mut().push(length);
        self.inner.read_at(offset, length, buffer)
    }
}

/// Bytes asked for by each read of [`read_whole`] (the scan's block).
const WHOLE_READ_BYTES: usize = 64 * 1024;

/// The bytes of a file of at most `size` bytes, read whole (fewer when it ends first).
pub fn read_whole<S: ByteSource>(file: &mut S, size: u64) -> Result<Vec<u8>, FsError> {
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let mut chunk = Vec::new();
    while (bytes.len() as u64) < size {
        file.read_at(bytes.len() as u64, WHOLE_READ_BYTES, &mut chunk)?;
        if chunk.is_empty() {
            break;
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn counting(bytes: &[u8]) -> ReadAhead<Recording<MemorySource>> {
        ReadAhead::new(Recording::new(MemorySource::new(bytes)))
    }

    #[test]
    fn a_head_that_holds_the_whole_file_serves_every_read_after_it() {
        let mut file = counting(b"one\ntwo\n");
        assert_eq!(file.read_head(9).unwrap(), b"one\ntwo\n");
        let mut buffer = Vec::new();
        for (offset, length, expected) in [
            (0, 9, &b"one\ntwo\n"[..]),
            (4, 100, b"two\n"),
            (7, 1, b"\n"),
            (2, 0, b""),
        ] {
            file.read_at(offset, length, &mut buffer).unwrap();
            assert_eq!(buffer, expected, "offset {offset}, length {length}");
        }
        assert_eq!(file.inner.asked().len(), 1);
        // The end of the file is not claimed from the head: a read there asks the file (which may have grown).
        file.read_at(8, 10, &mut buffer).unwrap();
        assert!(buffer.is_empty());
        assert_eq!(file.inner.asked().len(), 2);
    }

    #[test]
    fn a_full_head_serves_only_reads_it_covers() {
        let bytes: Vec<u8> = (0..=255).collect();
        let mut file = counting(&bytes);
        assert_eq!(file.read_head(16).unwrap(), &bytes[..16]);
        let mut buffer = Vec::new();
        file.read_at(4, 12, &mut buffer).unwrap();
        assert_eq!(
            (buffer.as_slice(), file.inner.asked().len()),
            (&bytes[4..16], 1)
        );
        // Past the head: the file gives the whole read, not the head's part of it.
        file.read_at(4, 100, &mut buffer).unwrap();
        assert_eq!(
            (buffer.as_slice(), file.inner.asked().len()),
            (&bytes[4..104], 2)
        );
        file.read_at(16, 4, &mut buffer).unwrap();
        assert_eq!(
            (buffer.as_slice(), file.inner.asked().len()),
            (&bytes[16..20], 3)
        );
    }

    proptest! {
        /// Served from the head or not, a read gives what the file gives (a prefix of it at most, never other bytes).
        #[test]
        fn reads_through_the_head_give_the_files_bytes(
            bytes in proptest::collection::vec(any::<u8>(), 0..300),
            head in 0usize..400,
            reads in proptest::collection::vec((0u64..400, 0usize..400), 1..8),
        ) {
            let mut file = counting(&bytes);
            let kept = file.read_head(head).unwrap().to_vec();
            prop_assert_eq!(kept.as_slice(), &bytes[..head.min(bytes.len())]);
            let mut plain = MemorySource::new(bytes.clone());
            for (offset, length) in reads {
                let (mut served, mut expected) = (Vec::new(), Vec::new());
                file.read_at(offset, length, &mut served).unwrap();
                plain.read_at(offset, length, &mut expected).unwrap();
                prop_assert_eq!(served, expected);
            }
        }
    }
}

/// A [`ByteSource`] as `std::io` reads one (`Read`, `BufRead`, `Seek`), for decoders that take a reader: it reads
/// a block of [`READER_BLOCK_BYTES`] at a time at its position, and keeps the first file-system error, which
/// `std::io` callers see only as a message, for the caller to report as it is.
#[cfg(feature = "images")]
#[derive(Debug)]
pub struct SourceReader<S> {
    source: S,
    /// The file's size in bytes, the end `SeekFrom::End` counts from.
    size: u64,
    /// The bytes read at `block_start`.
    block: Vec<u8>,
    block_start: u64,
    /// Where the next read starts.
    position: u64,
    /// The first read error.
    error: Option<FsError>,
}

/// Bytes one read of a [`SourceReader`] asks for.
#[cfg(feature = "images")]
pub const READER_BLOCK_BYTES: usize = 64 * 1024;

#[cfg(feature = "images")]
impl<S: ByteSource> SourceReader<S> {
    /// A reader at the start of `source`, a file of `size` bytes.
    pub fn new(source: S, size: u64) -> Self {
        SourceReader {
            source,
            size,
            block: Vec::new(),
            block_start: 0,
            position: 0,
            error: None,
        }
    }

    /// The first file-system error a read met, if any.
    pub fn take_error(&mut self) -> Option<FsError> {
        self.error.take()
    }

    /// The offset of `position` inside the kept block, when the block holds it.
    fn offset_in_block(&self) -> Option<usize> {
        let offset = self.position.checked_sub(self.block_start)?;
        usize::try_from(offset)
            .ok()
            .filter(|&offset| offset < self.block.len())
    }
}

#[cfg(feature = "images")]
impl<S: ByteSource> std::io::BufRead for SourceReader<S> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.offset_in_block().is_none() {
            self.block_start = self.position;
            if let Err(error) =
                self.source
                    .read_at(self.position, READER_BLOCK_BYTES, &mut self.block)
            {
                let message = format!("{error:?}");
                self.error.get_or_insert(error);
                self.block.clear();
                return Err(std::io::Error::other(message));
            }
        }
        let offset = self.offset_in_block().unwrap_or(self.block.len());
        Ok(self.block.get(offset..).unwrap_or_default())
    }

    fn consume(&mut self, amount: usize) {
        self.position = self.position.saturating_add(amount as u64);
    }
}

#[cfg(feature = "images")]
impl<S: ByteSource> std::io::Read for SourceReader<S> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let available = std::io::BufRead::fill_buf(self)?;
        let count = available.len().min(buffer.len());
        if let (Some(to), Some(from)) = (buffer.get_mut(..count), available.get(..count)) {
            to.copy_from_slice(from);
        }
        std::io::BufRead::consume(self, count);
        Ok(count)
    }
}

#[cfg(feature = "images")]
impl<S: ByteSource> std::io::Seek for SourceReader<S> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            std::io::SeekFrom::Start(offset) => Some(offset),
            std::io::SeekFrom::End(delta) => self.size.checked_add_signed(delta),
            std::io::SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        let target = target.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a seek before the start of the file",
            )
        })?;
        self.position = target;
        Ok(target)
    }
}
