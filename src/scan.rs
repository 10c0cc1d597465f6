//! The scanner: a fixed-size block that rolls forward over a byte source, finding line feeds with `memchr`.
//!
//! Memory is one block (`BLOCK_BYTES`) whatever the file's size or its lines' lengths: a line longer than the block
//! is handed on in pieces, never gathered whole.

use crate::decode::TextEncoding;
use crate::error::FsError;
use crate::source::ByteSource;

/// Bytes asked for by one positioned read: 64 KiB, the most wasmtime-wasi returns from one `read` (its
/// `MAX_READ_SIZE_ALLOC`), and the size of ripgrep's default buffer.
pub const BLOCK_BYTES: usize = 64 * 1024;

/// The start offsets of the non-overlapping occurrences of `needle` in `haystack`, ascending: what
/// `memchr::memmem::find_iter` gives, found instead by a one-byte `memchr` for the needle's byte at `anchor` and a
/// compare of the whole needle at each hit. Choose as anchor a byte rare in text (`V` of `PRIVATE KEY`, `\r` of
/// `\r\n`). Compiled to wasm, memchr's one-byte search runs several times faster than its substring searcher (the
/// substring searcher took half of a first scan's time in the component; docs/benchmarks.md). An empty needle, or
/// an `anchor` outside it, finds nothing.
pub fn find_by_anchor<'a>(
    haystack: &'a [u8],
    needle: &'a [u8],
    anchor: usize,
) -> impl Iterator<Item = usize> + 'a {
    let anchor_byte = needle.get(anchor).copied();
    let searched = match anchor_byte {
        Some(_) => haystack.get(anchor..).unwrap_or_default(),
        None => &[],
    };
    let mut free_from = 0usize;
    // A hit at index `at` of `searched` is the anchor byte at `at + anchor` of `haystack`: a match starts at `at`.
    memchr::memchr_iter(anchor_byte.unwrap_or(0), searched).filter(move |&at| {
        if at < free_from || haystack.get(at..at.saturating_add(needle.len())) != Some(needle) {
            return false;
        }
        free_from = at + needle.len();
        true
    })
}

/// How a line read with [`Scanner::read_line_until`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnd {
    /// A line feed ended the line; the position is past it.
    LineFeed,
    /// The file ended.
    EndOfFile,
    /// The caller stopped; the position is after the last piece handed over.
    Stopped,
}

/// A rolling block over a byte source (owned, or borrowed as `&mut S`).
pub struct Scanner<S: ByteSource> {
    source: S,
    encoding: TextEncoding,
    block: Vec<u8>,
    /// File offset of `block[0]`.
    block_start: u64,
    /// The current file offset.
    position: u64,
    /// A read at `end_of_file` returned nothing.
    end_of_file: Option<u64>,
    /// Positioned reads issued.
    reads: u64,
    /// The file's size from its stat: a read that ends there ends the file, saving the read that would find
    /// nothing. Zero (as `/proc` files report) means unknown.
    size_hint: u64,
}

impl<S: ByteSource> Scanner<S> {
    /// A scanner at offset 0 of `source`, finding line feeds of `encoding`.
    pub fn new(source: S, encoding: TextEncoding) -> Self {
        Scanner {
            source,
            encoding,
            block: Vec::new(),
            block_start: 0,
            position: 0,
            end_of_file: None,
            reads: 0,
            size_hint: 0,
        }
    }

    /// Tells the scanner the file's size from its stat (0 when unknown).
    pub fn set_size_hint(&mut self, size: u64) {
        self.size_hint = size;
    }

    /// Changes the encoding whose line feeds are found (after sniffing the first block).
    pub fn set_encoding(&mut self, encoding: TextEncoding) {
        self.encoding = encoding;
    }

    /// The byte source, to change how it reads (see [`crate::source::CrAsLf`]); call [`Scanner::forget_block`]
    /// after such a change.
    pub fn source_mut(&mut self) -> &mut S {
        &mut self.source
    }

    /// Drops the block held, so the next [`Scanner::fill`] reads from the source again.
    pub fn forget_block(&mut self) {
        self.block.clear();
        self.block_start = 0;
        self.end_of_file = None;
    }

    /// Positioned reads issued so far.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// The current byte offset.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Moves to byte `offset`; the block is kept when it covers the new position.
    pub fn seek(&mut self, offset: u64) {
        self.position = offset;
    }

    /// The bytes from the current position to the end of the block, reading a new block when none are left.
    /// Empty at the end of the file.
    pub fn fill(&mut self) -> Result<&[u8], FsError> {
        let unit = self.encoding.unit_bytes() as u64;
        let block_end = self.block_start + self.block.len() as u64;
        let covered = self.position >= self.block_start && self.position + unit <= block_end;
        if !covered {
            if let Some(end) = self.end_of_file {
                if self.position >= end {
                    return Ok(&[]);
                }
            }
            self.reads += 1;
            // Ask for no more than the file holds by its size (and a byte more, to see that it grew since): a
            // host fills a buffer of the length asked for (wasmtime-wasi allocates it zeroed), so a small file's
            // read costs its own size, not a block's.
            let length = match self.size_hint.checked_sub(self.position) {
                Some(left) if self.size_hint > 0 => usize::try_from(left.saturating_add(1))
                    .map_or(BLOCK_BYTES, |left| left.min(BLOCK_BYTES)),
                _ => BLOCK_BYTES,
            };
            self.source
                .read_at(self.position, length, &mut self.block)?;
            self.block_start = self.position;
            if self.block.is_empty() {
                self.end_of_file = Some(self.position);
                return Ok(&[]);
            }
            let block_end = self.position + self.block.len() as u64;
            if self.size_hint > 0 && block_end == self.size_hint {
                self.end_of_file = Some(block_end);
            }
            // Keep UTF-16 and UTF-32 blocks whole units, so the next block starts on a unit boundary.
            let unit = unit as usize;
            if unit > 1 && self.block.len() > unit {
                let whole = self.block.len() - self.block.len() % unit;
                self.block.truncate(whole);
            }
        }
        let start = (self.position - self.block_start) as usize;
        Ok(self.block.get(start..).unwrap_or_default())
    }

    /// Moves the position forward by `bytes`.
    pub fn advance(&mut self, bytes: usize) {
        self.position += bytes as u64;
    }

    /// Skips `lines` line feeds. Returns how many were skipped: fewer only at the end of the file.
    pub fn skip_lines(&mut self, lines: u64) -> Result<u64, FsError> {
        let unit = self.encoding.unit_bytes();
        let encoding = self.encoding;
        let mut skipped = 0;
        while skipped < lines {
            let available = self.fill()?;
            if available.is_empty() {
                break;
            }
            let mut from = 0;
            let mut consumed = available.len();
            while skipped < lines {
                match encoding.find_line_feed(available, from) {
                    Some(index) => {
                        skipped += 1;
                        from = index + unit;
                        consumed = from;
                    }
                    None => break,
                }
            }
            if skipped < lines {
                consumed = available.len();
            }
            self.advance(consumed);
        }
        Ok(skipped)
    }

    /// Reads the current line to its end, handing its bytes to `piece` in one or more pieces (the line feed not
    /// included). Returns true when a line feed ended the line, false at the end of the file. The position moves
    /// past the line feed.
    pub fn read_line(&mut self, piece: &mut impl FnMut(&[u8])) -> Result<bool, FsError> {
        let end = self.read_line_until(&mut |bytes| {
            piece(bytes);
            true
        })?;
        Ok(end == LineEnd::LineFeed)
    }

    /// Like [`Scanner::read_line`], but `piece` returns false to stop before the line's end.
    pub fn read_line_until(
        &mut self,
        piece: &mut impl FnMut(&[u8]) -> bool,
    ) -> Result<LineEnd, FsError> {
        let unit = self.encoding.unit_bytes();
        let encoding = self.encoding;
        loop {
            let available = self.fill()?;
            if available.is_empty() {
                return Ok(LineEnd::EndOfFile);
            }
            match encoding.find_line_feed(available, 0) {
                Some(index) => {
                    let go_on = piece(&available[..index]);
                    if !go_on {
                        self.advance(index);
                        return Ok(LineEnd::Stopped);
                    }
                    self.advance(index + unit);
                    return Ok(LineEnd::LineFeed);
                }
                None => {
                    let length = available.len();
                    let go_on = piece(available);
                    self.advance(length);
                    if !go_on {
                        return Ok(LineEnd::Stopped);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{MemorySource, Recording};

    #[test]
    fn a_line_longer_than_the_block_comes_in_pieces() {
        let mut text = vec![b'x'; BLOCK_BYTES * 2 + 10];
        text.extend_from_slice(b"\nnext");
        let mut source = MemorySource::new(text);
        let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
        let mut pieces = Vec::new();
        assert!(scanner
            .read_line(&mut |bytes| pieces.push(bytes.len()))
            .unwrap());
        assert_eq!(pieces, vec![BLOCK_BYTES, BLOCK_BYTES, 10]);
        assert_eq!(scanner.reads(), 3);
        let mut last = Vec::new();
        assert!(!scanner
            .read_line(&mut |bytes| last.extend_from_slice(bytes))
            .unwrap());
        assert_eq!(last, b"next");
    }

    fn lines_of(scanner: &mut Scanner<&mut Recording<MemorySource>>) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        loop {
            let mut line = Vec::new();
            let more = scanner
                .read_line(&mut |bytes| line.extend_from_slice(bytes))
                .unwrap();
            lines.push(line);
            if !more {
                return lines;
            }
        }
    }

    #[test]
    fn reads_ask_for_the_size_left_and_a_byte_more_and_still_see_a_file_that_grew() {
        let text = b"one\ntwo\nthree".to_vec();
        let mut source = Recording::new(MemorySource::new(text.clone()));
        let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
        scanner.set_size_hint(text.len() as u64);
        assert_eq!(lines_of(&mut scanner), [&b"one"[..], b"two", b"three"]);
        assert_eq!(scanner.reads(), 1);
        assert_eq!(source.asked(), [text.len() + 1]);

        // The file grew after its stat: the byte more shows it, and the rest is read in blocks as before.
        let mut grown = text.clone();
        grown.extend_from_slice(&vec![b'x'; BLOCK_BYTES + 5]);
        let mut source = Recording::new(MemorySource::new(grown.clone()));
        let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
        scanner.set_size_hint(text.len() as u64);
        let lines = lines_of(&mut scanner);
        assert_eq!(lines.concat().len() + 2, grown.len());
        assert_eq!(lines.last().map(Vec::len), Some(5 + BLOCK_BYTES + 5));
        assert_eq!(
            source.asked(),
            [text.len() + 1, BLOCK_BYTES, BLOCK_BYTES, BLOCK_BYTES]
        );

        // A block-sized file asks for one block (no more than a block is ever asked), and no size means blocks.
        let whole = vec![b'y'; BLOCK_BYTES];
        let mut source = Recording::new(MemorySource::new(whole.clone()));
        let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
        scanner.set_size_hint(BLOCK_BYTES as u64);
        assert_eq!(lines_of(&mut scanner), [whole]);
        assert_eq!(source.asked(), [BLOCK_BYTES]);
        let mut source = Recording::new(MemorySource::new(text.clone()));
        let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
        assert_eq!(lines_of(&mut scanner).len(), 3);
        assert_eq!(source.asked(), [BLOCK_BYTES, BLOCK_BYTES]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::fuzz_tests::fuzz_cases(2_000)))]

        /// The anchored search finds exactly what memchr's substring searcher finds, on haystacks dense with the
        /// needle's bytes (overlapping near-misses, needles cut by the haystack's ends).
        #[test]
        fn the_anchored_search_finds_what_memmem_finds(
            haystack in proptest::collection::vec(proptest::sample::select(b"PRIVATE KEY\r\nVx".to_vec()), 0..300),
            needle_choice in 0usize..4,
        ) {
            let needles: [&[u8]; 4] = [b"PRIVATE KEY", b"\r\n", b"VV", b"P\0R\0I\0V\0"];
            let needle = needles[needle_choice];
            let anchor = needle.iter().position(|&byte| byte == b'V' || byte == b'\r').unwrap_or(0);
            let expected: Vec<usize> = memchr::memmem::find_iter(&haystack, needle).collect();
            let found: Vec<usize> = find_by_anchor(&haystack, needle, anchor).collect();
            proptest::prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn the_anchored_search_finds_nothing_for_an_empty_needle_or_an_anchor_outside_it() {
        assert_eq!(find_by_anchor(b"abc", b"", 0).count(), 0);
        assert_eq!(find_by_anchor(b"abc", b"b", 1).count(), 0);
        assert_eq!(
            find_by_anchor(b"a PRIVATE KEY b PRIVATE KEY", b"PRIVATE KEY", 3).collect::<Vec<_>>(),
            [2, 16]
        );
    }

    #[test]
    fn skip_lines_stops_at_the_end() {
        let mut source = MemorySource::new(b"a\nb\nc".to_vec());
        let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
        assert_eq!(scanner.skip_lines(5).unwrap(), 2);
        assert_eq!(scanner.position(), 5);
    }
}
