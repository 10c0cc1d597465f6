//! The sparse line index: per file, the byte offset of every `spacing`-th line start, built while scanning, so a
//! read at line N seeks to the checkpoint at or below N and scans at most `spacing` lines, and every result can
//! report the file's exact line count.
//!
//! Memory is bounded: at `MAX_CHECKPOINTS` the spacing doubles and every other checkpoint is dropped.

use crate::decode::TextEncoding;
use crate::error::FsError;
use crate::guards::KeyBlocks;
use crate::scan::{find_by_anchor, Scanner};
use crate::source::ByteSource;

/// Lines between checkpoints for a file of fewer than `MAX_CHECKPOINTS * INITIAL_SPACING` lines.
pub const INITIAL_SPACING: u64 = 1_024;
/// Checkpoints kept at most (8 bytes each: 512 KiB).
pub const MAX_CHECKPOINTS: usize = 65_536;
/// A line of more bytes than this is a long line: its character count, its end and column checkpoints are kept.
pub const LONG_LINE_BYTES: u64 = 64 * 1024;
/// Bytes between column checkpoints of a long line, at first.
pub const COLUMN_CHECKPOINT_BYTES: u64 = 64 * 1024;
/// Column checkpoints kept per long line at most (16 bytes each); past that the spacing doubles.
pub const MAX_COLUMN_CHECKPOINTS: usize = 1_024;
/// Long lines remembered per file at most.
pub const MAX_LONG_LINES: usize = 64;
/// Bytes before a checkpoint (and before the end of the scanned lines) whose hash is kept, so a cached index can
/// tell that the file was rewritten under the same size and modification time, or changed before the part that grew.
pub const FINGERPRINT_BYTES: usize = 64;

/// Lines at the start of a file whose prefix print the index keeps ([`LineIndex::line_prints`]), so a change
/// notice can name the first changed line (8 bytes a line: 16 KiB at most per index).
pub const LINE_PRINT_LINES: usize = 2_048;

/// A streaming content fingerprint: the same bytes give the same print however they are split into pieces. It
/// mixes 32 bytes a step in four independent 8-byte lanes (a multiply and a rotate each, as in xxHash's stripes),
/// so the lanes' multiplies overlap and hashing a whole file while it is scanned costs little next to the scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamPrint {
    lanes: [u64; PRINT_LANES],
    /// The bytes of a stripe not yet mixed (the first `pending_len`).
    pending: [u8; PRINT_STRIPE],
    pending_len: usize,
    length: u64,
}

/// Lanes of a [`StreamPrint`]: each mixes one 8-byte word of every stripe.
const PRINT_LANES: usize = 4;

/// Bytes a [`StreamPrint`] mixes a step: one word per lane.
const PRINT_STRIPE: usize = PRINT_LANES * 8;

/// The multiplier of every mixing step (the 64-bit golden ratio).
const PRINT_MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

impl StreamPrint {
    /// A print of no bytes yet, seeded by `seed` (prints of different seeds never compare equal by design).
    pub fn new(seed: u64) -> Self {
        let base = seed ^ 0x243f_6a88_85a3_08d3;
        StreamPrint {
            lanes: [
                base,
                base ^ 0x1319_8a2e_0370_7344,
                base ^ 0xa409_3822_299f_31d0,
                base ^ 0x082e_fa98_ec4e_6c89,
            ],
            pending: [0; PRINT_STRIPE],
            pending_len: 0,
            length: 0,
        }
    }

    /// The seed of a file's content print: its encoding, where its text starts, and whether its lines are split
    /// on lone `\r` (its bytes are then printed as read through [`crate::source::CrAsLf`], each `\r` as `\n`, so
    /// without the mode a file whose line feeds became carriage returns would print the same).
    pub fn seed_of(encoding: TextEncoding, data_start: u64, split_on_cr: bool) -> u64 {
        fingerprint(&[
            encoding.name().as_bytes(),
            &data_start.to_le_bytes(),
            &[u8::from(split_on_cr)],
        ])
    }

    fn mix(state: u64, word: u64) -> u64 {
        (state ^ word)
            .wrapping_mul(PRINT_MULTIPLIER)
            .rotate_left(31)
    }

    /// Mixes one stripe: word `i` (little-endian) into lane `i`.
    fn mix_stripe(&mut self, stripe: &[u8]) {
        for (lane, word) in self.lanes.iter_mut().zip(stripe.chunks_exact(8)) {
            let mut buffer = [0u8; 8];
            buffer.copy_from_slice(word);
            *lane = Self::mix(*lane, u64::from_le_bytes(buffer));
        }
    }

    /// Adds `bytes` after the bytes already printed.
    pub fn update(&mut self, bytes: &[u8]) {
        self.length = self.length.wrapping_add(bytes.len() as u64);
        let mut rest = bytes;
        if self.pending_len > 0 {
            let take = (PRINT_STRIPE - self.pending_len).min(rest.len());
            let (head, tail) = rest.split_at(take);
            if let Some(room) = self
                .pending
                .get_mut(self.pending_len..self.pending_len + take)
            {
                room.copy_from_slice(head);
            }
            self.pending_len += take;
            rest = tail;
            if self.pending_len < PRINT_STRIPE {
                return;
            }
            let stripe = self.pending;
            self.mix_stripe(&stripe);
            self.pending_len = 0;
        }
        let mut stripes = rest.chunks_exact(PRINT_STRIPE);
        for stripe in &mut stripes {
            self.mix_stripe(stripe);
        }
        let remainder = stripes.remainder();
        if let Some(room) = self.pending.get_mut(..remainder.len()) {
            room.copy_from_slice(remainder);
        }
        self.pending_len = remainder.len();
    }

    /// The print of the bytes so far (the state is kept: more bytes may follow).
    pub fn finish(&self) -> u64 {
        let mut copy = *self;
        if copy.pending_len > 0 {
            // The stripe's unfilled tail is zeros; the length mixed in below tells it from real zero bytes.
            let mut stripe = [0u8; PRINT_STRIPE];
            if let (Some(room), Some(bytes)) = (
                stripe.get_mut(..copy.pending_len),
                copy.pending.get(..copy.pending_len),
            ) {
                room.copy_from_slice(bytes);
            }
            copy.mix_stripe(&stripe);
        }
        let [first, second, third, fourth] = copy.lanes;
        let mut hash = Self::mix(Self::mix(Self::mix(first, second), third), fourth);
        hash = Self::mix(hash, copy.length);
        hash ^= hash >> 33;
        hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
        hash ^= hash >> 33;
        hash
    }
}

/// Prints the bytes `[data_start, end)` read through `scanner` as a [`LineIndex`] of `encoding` prints them, split
/// on lone `\r` or not (compare with [`LineIndex::content_print`] of an earlier version). Reads `end - data_start`
/// bytes.
pub fn print_prefix<S: ByteSource>(
    scanner: &mut Scanner<S>,
    encoding: TextEncoding,
    data_start: u64,
    split_on_cr: bool,
    end: u64,
) -> Result<u64, FsError> {
    let mut print = StreamPrint::new(StreamPrint::seed_of(encoding, data_start, split_on_cr));
    scanner.seek(data_start);
    while scanner.position() < end {
        let wanted = usize::try_from(end - scanner.position()).unwrap_or(usize::MAX);
        let available = scanner.fill()?;
        if available.is_empty() {
            break;
        }
        let take = wanted.min(available.len());
        print.update(available.get(..take).unwrap_or_default());
        scanner.advance(take);
    }
    Ok(print.finish())
}

/// Where [`LineIndex::extend`] is in the bytes it prints: the running print, how far into the block it has
/// printed, and the offset whose prefix print it was asked to note.
struct Printer {
    running: StreamPrint,
    at: usize,
    base: u64,
    mark: Option<u64>,
    marked: Option<u64>,
}

impl Printer {
    /// Prints `block[at..target]`, noting the prefix print at the mark on the way.
    fn to(&mut self, block: &[u8], target: usize) {
        let target = target.min(block.len());
        if target <= self.at {
            return;
        }
        if let Some(mark) = self.mark {
            let start = self.base + self.at as u64;
            let end = self.base + target as u64;
            if self.marked.is_none() && mark > start && mark <= end {
                let split = (mark - self.base) as usize;
                self.running
                    .update(block.get(self.at..split).unwrap_or_default());
                self.at = split;
                self.marked = Some(self.running.finish());
            }
        }
        self.running
            .update(block.get(self.at..target).unwrap_or_default());
        self.at = target;
    }
}

/// FNV-1a over the concatenation of `parts`.
pub fn fingerprint(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in *part {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// The hash of the `FINGERPRINT_BYTES` before `end` of `block`, reaching back into `before` (the bytes that
/// preceded the block) when `end` is near the block's start.
fn region_fingerprint(before: &[u8], block: &[u8], end: usize) -> u64 {
    let inside = end.min(FINGERPRINT_BYTES);
    let from_before = (FINGERPRINT_BYTES - inside).min(before.len());
    fingerprint(&[
        before.get(before.len() - from_before..).unwrap_or_default(),
        block.get(end - inside..end).unwrap_or_default(),
    ])
}

/// What reading a long line once taught: its length, where the next line starts, and where its columns are, so a
/// window deep inside it (or after it) does not decode it from its start again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongLine {
    /// Characters in the line (the line ending not counted).
    pub total_chars: u64,
    /// The byte offset where the next line starts (the end of the file for the last line).
    pub next_line_offset: u64,
    /// (characters before, byte offset) pairs on character boundaries, ascending; the first is the line's start.
    pub checkpoints: Vec<(u64, u64)>,
}

impl LongLine {
    /// The checkpoint at or below `column`: (characters before it, its byte offset).
    pub fn checkpoint_at_or_below(&self, column: u64) -> Option<(u64, u64)> {
        let index = self
            .checkpoints
            .partition_point(|&(chars, _)| chars <= column);
        index
            .checked_sub(1)
            .and_then(|index| self.checkpoints.get(index))
            .copied()
    }
}

/// Builds the column checkpoints of a line while it is decoded.
#[derive(Debug, Clone)]
pub struct LongLineRecorder {
    start: u64,
    spacing: u64,
    last: u64,
    checkpoints: Vec<(u64, u64)>,
}

impl LongLineRecorder {
    /// A recorder for the line starting at byte `start`.
    pub fn new(start: u64) -> Self {
        LongLineRecorder {
            start,
            spacing: COLUMN_CHECKPOINT_BYTES,
            last: start,
            // The first checkpoint, (0, start), is added with the second: most lines are short and never get one,
            // so a window of 2,000 lines allocates no list per line.
            checkpoints: Vec::new(),
        }
    }

    /// Offers a checkpoint: `chars` characters of the line end at byte `offset`, on a character boundary.
    pub fn offer(&mut self, chars: u64, offset: u64) {
        if offset < self.last + self.spacing {
            return;
        }
        if self.checkpoints.is_empty() {
            self.checkpoints.push((0, self.start));
        }
        if self.checkpoints.len() >= MAX_COLUMN_CHECKPOINTS {
            let mut kept = 0;
            for index in (0..self.checkpoints.len()).step_by(2) {
                self.checkpoints[kept] = self.checkpoints[index];
                kept += 1;
            }
            self.checkpoints.truncate(kept);
            self.spacing *= 2;
        }
        self.checkpoints.push((chars, offset));
        self.last = offset;
    }

    /// The long line, if the line ending at `end` (exclusive of its line feed) was long enough to keep.
    pub fn finish(self, total_chars: u64, end: u64, next_line_offset: u64) -> Option<LongLine> {
        (end.saturating_sub(self.start) > LONG_LINE_BYTES).then(|| LongLine {
            total_chars,
            next_line_offset,
            checkpoints: if self.checkpoints.is_empty() {
                vec![(0, self.start)]
            } else {
                self.checkpoints
            },
        })
    }
}

/// What identifies a version of a file: the index is valid while both are unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileIdentity {
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the epoch, when the file system gives one.
    pub modified_ns: Option<u128>,
}

/// The line endings seen in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEndings {
    /// No line feed at all.
    None,
    /// Only `\n`.
    Lf,
    /// Only `\r\n`.
    Crlf,
    /// Both.
    Mixed,
    /// Lone `\r` (classic Mac OS): the file has no `\n`, and it is split on `\r`.
    Cr,
}

impl LineEndings {
    /// The name used in results.
    pub fn name(self) -> &'static str {
        match self {
            LineEndings::None => "none",
            LineEndings::Lf => "lf",
            LineEndings::Crlf => "crlf",
            LineEndings::Mixed => "mixed",
            LineEndings::Cr => "cr",
        }
    }
}

/// Checkpoints of one file's line starts, and its line count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    encoding: TextEncoding,
    /// Where line 1 starts (after a byte order mark).
    data_start: u64,
    /// Lines between checkpoints.
    spacing: u64,
    /// `checkpoints[k]` is the byte offset where line `k * spacing + 1` starts.
    checkpoints: Vec<u64>,
    /// `checkpoint_prints[k]` is the fingerprint of the bytes before `checkpoints[k]`.
    checkpoint_prints: Vec<u64>,
    /// The fingerprint of the bytes before `resume_offset`.
    resume_print: u64,
    /// Lines ended by a line feed.
    complete_lines: u64,
    /// The byte offset just after the last line feed: where the last (unterminated) line starts.
    resume_offset: u64,
    /// The bytes scanned: the end of the file when the index was last extended.
    scanned_bytes: u64,
    lf_endings: u64,
    crlf_endings: u64,
    /// Long lines already read: line number to what was learned.
    long_lines: std::collections::BTreeMap<u64, LongLine>,
    /// The private key blocks seen while scanning, by line.
    key_blocks: KeyBlocks,
    /// The version of the file the index describes.
    pub identity: Option<FileIdentity>,
    /// For a legacy encoding that was a guess among single-byte encodings, the runner-up the hint names
    /// ([`crate::legacy::detect_with_runner_up`]).
    pub runner_up: Option<&'static encoding_rs::Encoding>,
    /// The content print of the bytes `[data_start, resume_offset)`, to go on from when the file grows.
    prefix: StreamPrint,
    /// The content print of every scanned byte: `[data_start, scanned_bytes)`.
    content_print: u64,
    /// `line_prints[k]` is the content print of the bytes from the start through the line feed of line `k + 1`,
    /// for the first `LINE_PRINT_LINES` lines.
    line_prints: Vec<u64>,
    /// When the last `extend` went on from an earlier scan: the earlier end of the file and the print of the bytes
    /// before it as they are now.
    grown_from: Option<(u64, u64)>,
    /// A carriage return was seen in a block without a line feed (a 1-byte-unit file only).
    cr_seen: bool,
    /// The file is split on lone `\r`: it was scanned through [`crate::source::CrAsLf`].
    split_on_cr: bool,
}

impl LineIndex {
    /// An empty index of a file decoded as `encoding` whose text starts at `data_start`.
    pub fn new(encoding: TextEncoding, data_start: u64) -> Self {
        LineIndex::with_splitting(encoding, data_start, false)
    }

    /// An empty index of a file whose lines end in lone `\r`, to be scanned through an active
    /// [`crate::source::CrAsLf`] (which reads each `\r` as `\n`).
    pub fn new_split_on_cr(encoding: TextEncoding, data_start: u64) -> Self {
        LineIndex::with_splitting(encoding, data_start, true)
    }

    fn with_splitting(encoding: TextEncoding, data_start: u64, split_on_cr: bool) -> Self {
        let seed = StreamPrint::seed_of(encoding, data_start, split_on_cr);
        LineIndex {
            encoding,
            data_start,
            spacing: INITIAL_SPACING,
            checkpoints: vec![data_start],
            checkpoint_prints: vec![0],
            resume_print: 0,
            complete_lines: 0,
            resume_offset: data_start,
            scanned_bytes: data_start,
            lf_endings: 0,
            crlf_endings: 0,
            long_lines: std::collections::BTreeMap::new(),
            key_blocks: KeyBlocks::new(),
            identity: None,
            runner_up: None,
            prefix: StreamPrint::new(seed),
            content_print: StreamPrint::new(seed).finish(),
            line_prints: Vec::new(),
            grown_from: None,
            cr_seen: false,
            split_on_cr,
        }
    }

    /// Whether the file is split on lone `\r` (its index was built through an active `CrAsLf`).
    pub fn splits_on_cr(&self) -> bool {
        self.split_on_cr
    }

    /// Whether the file, scanned for `\n`, has none at all but has a `\r`, and its code units are bytes: its
    /// lines end in lone `\r` and it is to be indexed again with [`LineIndex::new_split_on_cr`].
    pub fn wants_split_on_cr(&self) -> bool {
        !self.split_on_cr
            && self.complete_lines == 0
            && self.cr_seen
            && self.encoding.unit_bytes() == 1
    }

    /// The content print of the whole file as scanned (see [`StreamPrint`]): equal prints, equal content.
    pub fn content_print(&self) -> u64 {
        self.content_print
    }

    /// The content prints of the first lines (at most `LINE_PRINT_LINES`): entry `k` covers the bytes from the
    /// start through the line feed of line `k + 1`, so the first entry that differs between two versions names the
    /// first changed line. A last line without a line feed has no entry (its print is `content_print`).
    pub fn line_prints(&self) -> &[u64] {
        &self.line_prints
    }

    /// When the last scan went on from an earlier one (the file grew and its cached index was kept): the earlier
    /// end of the file in bytes and the content print of the bytes before it, read again from the grown file.
    pub fn grown_from(&self) -> Option<(u64, u64)> {
        self.grown_from
    }

    /// Bytes scanned: the size of the file when the index was last brought up to date.
    pub fn scanned_bytes(&self) -> u64 {
        self.scanned_bytes
    }

    /// Whether the file ends with a line feed (or is empty): no last line is open to grow.
    pub fn ends_with_line_feed(&self) -> bool {
        self.scanned_bytes <= self.resume_offset
    }

    /// What was learned about `line` when it was read, if it is a long line.
    pub fn long_line(&self, line: u64) -> Option<&LongLine> {
        self.long_lines.get(&line)
    }

    /// Remembers a long line (up to `MAX_LONG_LINES` per file).
    pub fn remember_long_line(&mut self, line: u64, long_line: LongLine) {
        if self.long_lines.len() < MAX_LONG_LINES || self.long_lines.contains_key(&line) {
            self.long_lines.insert(line, long_line);
        }
    }

    /// The encoding the index was built for.
    pub fn encoding(&self) -> TextEncoding {
        self.encoding
    }

    /// The private key blocks of the file, by line (found while scanning, so a window is checked by its lines).
    pub fn key_blocks(&self) -> &KeyBlocks {
        &self.key_blocks
    }

    /// Where line 1 starts, in bytes.
    pub fn data_start(&self) -> u64 {
        self.data_start
    }

    /// Lines in the file: a last line without a line feed counts, a final line feed adds none.
    pub fn total_lines(&self) -> u64 {
        self.complete_lines + u64::from(self.scanned_bytes > self.resume_offset)
    }

    /// Bytes of memory the index occupies.
    pub fn memory_bytes(&self) -> u64 {
        (std::mem::size_of::<Self>()
            + (self.checkpoints.capacity()
                + self.checkpoint_prints.capacity()
                + self.line_prints.capacity())
                * std::mem::size_of::<u64>()) as u64
            + self.key_blocks.memory_bytes()
    }

    /// The line endings seen.
    pub fn line_endings(&self) -> LineEndings {
        if self.split_on_cr {
            return if self.lf_endings > 0 {
                LineEndings::Cr
            } else {
                LineEndings::None
            };
        }
        match (self.lf_endings > 0, self.crlf_endings > 0) {
            (false, false) => LineEndings::None,
            (true, false) => LineEndings::Lf,
            (false, true) => LineEndings::Crlf,
            (true, true) => LineEndings::Mixed,
        }
    }

    /// The checkpoint at or below `line` (1-based): its line number and byte offset.
    pub fn locate(&self, line: u64) -> (u64, u64) {
        let wanted = (line.max(1) - 1) / self.spacing;
        let last = self.checkpoints.len().saturating_sub(1) as u64;
        let index = wanted.min(last);
        let offset = self
            .checkpoints
            .get(index as usize)
            .copied()
            .unwrap_or(self.data_start);
        (index * self.spacing + 1, offset)
    }

    /// The fingerprint the bytes before the checkpoint at or below `line` must have, and where they start, when
    /// that checkpoint is not line 1: (region start, checkpoint offset, fingerprint).
    pub fn checkpoint_region(&self, line: u64) -> Option<(u64, u64, u64)> {
        let wanted = (line.max(1) - 1) / self.spacing;
        let index = usize::try_from(wanted)
            .unwrap_or(usize::MAX)
            .min(self.checkpoints.len().saturating_sub(1));
        if index == 0 {
            return None;
        }
        let offset = *self.checkpoints.get(index)?;
        let print = *self.checkpoint_prints.get(index)?;
        Some((
            offset.saturating_sub(FINGERPRINT_BYTES as u64),
            offset,
            print,
        ))
    }

    /// The bytes before the end of the scanned lines and their fingerprint: (region start, end, fingerprint);
    /// `None` while no line feed has been seen (the whole file is its last line, rescanned when it grows).
    pub fn resume_region(&self) -> Option<(u64, u64, u64)> {
        (self.resume_offset > self.data_start).then(|| {
            (
                self.resume_offset.saturating_sub(FINGERPRINT_BYTES as u64),
                self.resume_offset,
                self.resume_print,
            )
        })
    }

    /// Scans from the start of the last line to the end of the file, adding checkpoints and counting lines.
    ///
    /// On a new index this scans the whole file; on a file that grew it scans only what was added.
    pub fn extend<S: ByteSource>(&mut self, scanner: &mut Scanner<S>) -> Result<(), FsError> {
        // The last line may grow: what was learned about it as a long line no longer holds.
        self.long_lines.remove(&(self.complete_lines + 1));
        let encoding = self.encoding;
        let unit = encoding.unit_bytes();
        // The bytes before the resume offset, for the fingerprints of checkpoints just after it.
        let mut before: Vec<u8> = Vec::with_capacity(2 * FINGERPRINT_BYTES);
        scanner.seek(self.resume_offset.saturating_sub(FINGERPRINT_BYTES as u64));
        while scanner.position() < self.resume_offset {
            let wanted = (self.resume_offset - scanner.position()) as usize;
            let available = scanner.fill()?;
            if available.is_empty() {
                break;
            }
            let take = wanted.min(available.len());
            before.extend_from_slice(available.get(..take).unwrap_or_default());
            scanner.advance(take);
        }
        scanner.seek(self.resume_offset);
        // The content print goes on from the end of the scanned lines; on a grown file, the print of the bytes
        // before the earlier end is noted on the way (the earlier part is read again from its last line only).
        let mark = (self.scanned_bytes > self.data_start).then_some(self.scanned_bytes);
        let mut printer = Printer {
            running: self.prefix,
            at: 0,
            base: self.resume_offset,
            mark,
            marked: (mark == Some(self.resume_offset)).then(|| self.prefix.finish()),
        };
        // The unit before the resume offset is a line feed (or nothing), never a carriage return.
        let mut previous_was_cr = false;
        self.key_blocks.restart();
        loop {
            let base = scanner.position();
            let available = scanner.fill()?;
            if available.is_empty() {
                break;
            }
            let length = available.len();
            self.key_blocks
                .scan(available, encoding, self.complete_lines + 1);
            let resume_before = self.resume_offset;
            if encoding.unit_bytes() == 1 {
                self.scan_utf8_block(available, base, previous_was_cr, &before);
            } else {
                self.scan_units(available, base, previous_was_cr, &before);
            }
            self.print_block(&mut printer, available, base, resume_before);
            previous_was_cr = length >= unit
                && available
                    .get(length - unit..)
                    .is_some_and(|unit_bytes| encoding.is_carriage_return(unit_bytes));
            // Keep the last FINGERPRINT_BYTES seen as the bytes before the next block.
            let keep_block = length.min(FINGERPRINT_BYTES);
            let keep_before = (FINGERPRINT_BYTES - keep_block).min(before.len());
            let tail: Vec<u8> = before[before.len() - keep_before..]
                .iter()
                .chain(available[length - keep_block..].iter())
                .copied()
                .collect();
            before = tail;
            scanner.advance(length);
        }
        self.key_blocks.finish(encoding, self.complete_lines + 1);
        self.scanned_bytes = scanner.position().max(self.data_start);
        self.content_print = printer.running.finish();
        self.grown_from = mark.zip(printer.marked);
        Ok(())
    }

    /// Adds a scanned block to the content print: the prints of the first lines as their line feeds go by, the
    /// print at the end of the scanned lines (to go on from later), then the rest of the block.
    fn print_block(&mut self, printer: &mut Printer, block: &[u8], base: u64, resume_before: u64) {
        printer.base = base;
        printer.at = 0;
        let unit = self.encoding.unit_bytes();
        if self.line_prints.len() < LINE_PRINT_LINES && self.resume_offset > resume_before {
            let mut from = 0;
            while self.line_prints.len() < LINE_PRINT_LINES {
                let Some(index) = self.encoding.find_line_feed(block, from) else {
                    break;
                };
                let end = index + unit;
                printer.to(block, end);
                self.line_prints.push(printer.running.finish());
                from = end;
            }
        }
        if self.resume_offset > resume_before && self.resume_offset > base {
            printer.to(block, (self.resume_offset - base) as usize);
            self.prefix = printer.running;
        }
        printer.to(block, block.len());
    }

    /// Counts a UTF-8 block's line feeds and `\r\n` pairs with whole-block SIMD searches, and visits single line
    /// feeds only where a checkpoint falls.
    fn scan_utf8_block(&mut self, block: &[u8], base: u64, previous_was_cr: bool, before: &[u8]) {
        let line_feeds = memchr::memchr_iter(b'\n', block).count() as u64;
        if line_feeds == 0 {
            self.cr_seen = self.cr_seen || memchr::memchr(b'\r', block).is_some();
            return;
        }
        let pairs = find_by_anchor(block, b"\r\n", 0).count() as u64
            + u64::from(previous_was_cr && block.first() == Some(&b'\n'));
        self.crlf_endings += pairs;
        self.lf_endings += line_feeds - pairs;
        // The line feeds of this block end lines complete_lines+1 ..= complete_lines+line_feeds; a checkpoint
        // goes after every one whose count is a multiple of the spacing.
        let first = self.complete_lines;
        let mut next_multiple = (first / self.spacing + 1) * self.spacing;
        if next_multiple <= first + line_feeds {
            let mut seen = first;
            for position in memchr::memchr_iter(b'\n', block) {
                seen += 1;
                if seen == next_multiple {
                    self.complete_lines = seen;
                    let print = region_fingerprint(before, block, position + 1);
                    self.add_checkpoint(base + position as u64 + 1, print);
                    next_multiple = (seen / self.spacing + 1) * self.spacing;
                    if next_multiple > first + line_feeds {
                        break;
                    }
                }
            }
        }
        self.complete_lines = first + line_feeds;
        let last = memchr::memrchr(b'\n', block).unwrap_or(0);
        self.resume_offset = base + last as u64 + 1;
        self.resume_print = region_fingerprint(before, block, last + 1);
    }

    /// Visits every line feed of a UTF-16 block.
    fn scan_units(&mut self, block: &[u8], base: u64, previous_was_cr: bool, before: &[u8]) {
        let encoding = self.encoding;
        let unit = encoding.unit_bytes();
        let mut from = 0;
        while let Some(index) = encoding.find_line_feed(block, from) {
            let carriage_return = match index.checked_sub(unit) {
                Some(before) => block
                    .get(before..index)
                    .is_some_and(|unit_bytes| encoding.is_carriage_return(unit_bytes)),
                None => previous_was_cr,
            };
            if carriage_return {
                self.crlf_endings += 1;
            } else {
                self.lf_endings += 1;
            }
            self.complete_lines += 1;
            from = index + unit;
            self.resume_offset = base + from as u64;
            self.resume_print = region_fingerprint(before, block, from);
            if self.complete_lines % self.spacing == 0 {
                self.add_checkpoint(self.resume_offset, self.resume_print);
            }
        }
    }

    fn add_checkpoint(&mut self, offset: u64, print: u64) {
        if self.checkpoints.len() >= MAX_CHECKPOINTS {
            // Double the spacing: keep checkpoints 0, 2, 4, ... (lines 1, 2s+1, 4s+1, ...).
            let mut kept = 0;
            for index in (0..self.checkpoints.len()).step_by(2) {
                self.checkpoints[kept] = self.checkpoints[index];
                self.checkpoint_prints[kept] = self.checkpoint_prints[index];
                kept += 1;
            }
            self.checkpoints.truncate(kept);
            self.checkpoint_prints.truncate(kept);
            self.spacing *= 2;
        }
        // Line `complete_lines + 1` starts at `offset`; keep it only on the (possibly doubled) spacing.
        if self.complete_lines % self.spacing == 0 {
            self.checkpoints.push(offset);
            self.checkpoint_prints.push(print);
        }
    }
}

#[cfg(test)]
mod tests;
