//! Guards by content: the private key blocks of a file, found while the line index scans it, and the refusal of a
//! window that touches one.

use crate::decode::TextEncoding;
use crate::error::{ErrorKind, ReadError};
use crate::scan::find_by_anchor;

/// Private key blocks recorded per file at most; past that, everything from the next BEGIN line on is refused.
pub const MAX_KEY_BLOCKS: usize = 1_024;
/// Lines a private key block spans at most: a BEGIN line whose END does not come within this many lines (while the
/// file goes on) starts no key block (the largest keys, 16384-bit RSA or a PGP key with subkeys, take a few hundred
/// lines). A BEGIN cut off by the end of the file within this distance is a key block to the end of the file.
pub const MAX_KEY_LINES: u64 = 1_000;
/// Code units of a BEGIN or END line looked at before `PRIVATE KEY`: five dashes, `BEGIN ` and a label such as
/// `ENCRYPTED ` or `OPENSSH `.
const MARKER_LOOKBACK_UNITS: usize = 48;
/// Code units of a BEGIN line looked at from `PRIVATE KEY` on: the needle, ` BLOCK`, five dashes and what follows.
const MARKER_LOOKAHEAD_UNITS: usize = 24;
/// Code units kept from the end of one scanned block, so a marker cut by the block boundary is still found (its
/// look-back and its look-ahead both fit).
const CARRY_UNITS: usize = 80;

/// What a private key block holds, from the label of its BEGIN line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// `-----BEGIN [RSA |EC |DSA |ENCRYPTED |...]PRIVATE KEY-----`.
    Pem,
    /// `-----BEGIN OPENSSH PRIVATE KEY-----`.
    OpenSsh,
    /// `-----BEGIN PGP PRIVATE KEY BLOCK-----`.
    Pgp,
}

impl KeyKind {
    /// The kind in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            KeyKind::Pem => "a PEM private key",
            KeyKind::OpenSsh => "an OpenSSH private key",
            KeyKind::Pgp => "a PGP private key block",
        }
    }
}

/// A range of lines, `(first, last)`, 1-based and inclusive.
type LineRange = (u64, u64);

/// One private key block: the lines from its BEGIN line through its END line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyBlock {
    /// The line (1-based) holding `-----BEGIN ... PRIVATE KEY`.
    pub begin_line: u64,
    /// The line (1-based) holding the matching `-----END ... PRIVATE KEY`; `None` while none follows (the block
    /// runs to the end of the file).
    pub end_line: Option<u64>,
    /// What the BEGIN line's label names.
    pub kind: KeyKind,
}

/// The private key blocks of one file, found while the line index scans it (every byte is seen once per version of
/// the file), so each window is checked by its line range alone, wherever in the file the key is and wherever the
/// window starts (a window of only the base64 body lines is inside a block like one that shows the BEGIN line).
///
/// Markers are found anywhere in a line (a key inside a JSON string is one line that is a whole block). Memory is
/// bounded: at most `MAX_KEY_BLOCKS` blocks and a carry of `CARRY_UNITS` code units.
#[derive(Debug, Clone, Default)]
pub struct KeyBlocks {
    /// Ascending by `begin_line`; only the last can be open.
    blocks: Vec<KeyBlock>,
    /// More than `MAX_KEY_BLOCKS` blocks: the last one runs to the end of the file.
    overflowed: bool,
    /// The last bytes of the previous block of this scan (whole code units).
    carry: Vec<u8>,
}

/// Two scans are equal when they found the same blocks; the carry is scratch of the scan in progress.
impl PartialEq for KeyBlocks {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks && self.overflowed == other.overflowed
    }
}

impl Eq for KeyBlocks {}

/// A marker found in scanned bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Begin(KeyKind),
    End,
}

impl KeyBlocks {
    /// No blocks.
    pub fn new() -> Self {
        KeyBlocks::default()
    }

    #[cfg(test)]
    /// The blocks found, ascending by their BEGIN line.
    pub fn blocks(&self) -> &[KeyBlock] {
        &self.blocks
    }

    /// A new scan starts at the start of a line (the index resumes at its last line): nothing is carried over.
    /// Markers met again on that line are recognised as already recorded.
    pub fn restart(&mut self) {
        self.carry.clear();
    }

    /// Bytes of memory the blocks occupy.
    pub fn memory_bytes(&self) -> u64 {
        (self.blocks.capacity() * std::mem::size_of::<KeyBlock>() + self.carry.capacity()) as u64
    }

    /// Scans the next block of the file: `bytes` in `encoding`, starting on a code-unit boundary, whose first byte
    /// lies on line `first_line` (1-based). Blocks of one scan must be fed in order, with no gap; [`KeyBlocks::finish`]
    /// ends the scan at the end of the file.
    ///
    /// A BEGIN marker counts when its closing dashes end the line (a line feed, a carriage return, spaces, the end of
    /// the file, or a backslash: an escaped line break inside a string), so a BEGIN marker quoted in prose or code
    /// (`` `-----BEGIN ... PRIVATE KEY-----` ``) starts no block; an END marker counts wherever it is.
    pub fn scan(&mut self, bytes: &[u8], encoding: TextEncoding, first_line: u64) {
        let unit = encoding.unit_bytes();
        let needle = encode_ascii(b"PRIVATE KEY", encoding);
        let anchor = key_needle_anchor(&needle);
        let carry_bytes = CARRY_UNITS * unit;
        let ahead_bytes = MARKER_LOOKAHEAD_UNITS * unit;
        let mut joined = std::mem::take(&mut self.carry);
        let carried = joined.len();
        joined.extend_from_slice(
            bytes
                .get(..bytes.len().min(carry_bytes))
                .unwrap_or_default(),
        );
        // Markers in the carry that the previous block could not judge: an END whose `PRIVATE KEY` runs into this
        // block, a BEGIN whose look-ahead does.
        for found in find_by_anchor(&joined, &needle, anchor) {
            if found >= carried {
                break;
            }
            if found % unit != 0 {
                continue;
            }
            let line = first_line.saturating_sub(count_line_feeds(
                joined.get(found..carried).unwrap_or_default(),
                encoding,
            ));
            match marker_before(&joined, found / unit, encoding) {
                Some(Marker::End) if found + needle.len() > carried => {
                    self.record(Marker::End, line);
                }
                Some(Marker::Begin(kind))
                    if found + ahead_bytes > carried
                        && begin_line_ends(&joined, found / unit, encoding, false) =>
                {
                    self.record(Marker::Begin(kind), line);
                }
                _ => {}
            }
        }
        let mut counted_to = 0usize;
        let mut line = first_line;
        for found in find_by_anchor(bytes, &needle, anchor) {
            if found % unit != 0 {
                continue;
            }
            // The look-back of a marker near the block's start reaches into the carry.
            let (buffer, at) = if found < carry_bytes {
                (joined.as_slice(), (carried + found) / unit)
            } else {
                (bytes, found / unit)
            };
            let marker = match marker_before(buffer, at, encoding) {
                Some(Marker::Begin(kind)) => {
                    // A BEGIN whose look-ahead runs past the block is judged with the next block (or at the end).
                    if found + ahead_bytes > bytes.len()
                        || !begin_line_ends(bytes, found / unit, encoding, false)
                    {
                        continue;
                    }
                    Marker::Begin(kind)
                }
                Some(Marker::End) => Marker::End,
                None => continue,
            };
            line += count_line_feeds(bytes.get(counted_to..found).unwrap_or_default(), encoding);
            counted_to = found;
            self.record(marker, line);
        }
        // Keep the last whole units of what was seen, for the next block.
        let keep = (carried + bytes.len()).min(carry_bytes);
        if bytes.len() >= keep {
            joined.clear();
            joined.extend_from_slice(bytes.get(bytes.len() - keep..).unwrap_or_default());
        } else {
            let mut all = joined.get(..carried).unwrap_or_default().to_vec();
            all.extend_from_slice(bytes);
            joined = all.get(all.len() - keep..).unwrap_or_default().to_vec();
        }
        self.carry = joined;
    }

    /// Ends a scan at the end of the file, on line `last_line` (1-based): a BEGIN marker whose look-ahead reached
    /// the end is judged now.
    pub fn finish(&mut self, encoding: TextEncoding, last_line: u64) {
        let unit = encoding.unit_bytes();
        let needle = encode_ascii(b"PRIVATE KEY", encoding);
        let anchor = key_needle_anchor(&needle);
        let carry = std::mem::take(&mut self.carry);
        let ahead_bytes = MARKER_LOOKAHEAD_UNITS * unit;
        for found in find_by_anchor(&carry, &needle, anchor) {
            if found % unit != 0 || found + ahead_bytes <= carry.len() {
                continue;
            }
            if let Some(Marker::Begin(kind)) = marker_before(&carry, found / unit, encoding) {
                if begin_line_ends(&carry, found / unit, encoding, true) {
                    let line = last_line.saturating_sub(count_line_feeds(
                        carry.get(found..).unwrap_or_default(),
                        encoding,
                    ));
                    self.record(Marker::Begin(kind), line);
                }
            }
        }
    }

    fn record(&mut self, marker: Marker, line: u64) {
        if self.overflowed {
            return;
        }
        // An open block whose END did not come within MAX_KEY_LINES lines is no key block.
        if let Some(open) = self.blocks.last() {
            if open.end_line.is_none() && line.saturating_sub(open.begin_line) > MAX_KEY_LINES {
                self.blocks.pop();
            }
        }
        let open = self
            .blocks
            .last()
            .is_some_and(|block| block.end_line.is_none());
        match marker {
            Marker::Begin(kind) => {
                // A nested BEGIN belongs to the open block; a BEGIN met again when the index rescans its last
                // line is already recorded.
                let known = self
                    .blocks
                    .iter()
                    .rev()
                    .take_while(|block| block.begin_line >= line)
                    .any(|block| block.begin_line == line);
                if open || known {
                    return;
                }
                if self.blocks.len() >= MAX_KEY_BLOCKS {
                    self.overflowed = true;
                }
                self.blocks.push(KeyBlock {
                    begin_line: line,
                    end_line: None,
                    kind,
                });
            }
            Marker::End => {
                if let Some(block) = self.blocks.last_mut() {
                    if block.end_line.is_none() {
                        block.end_line = Some(line);
                    }
                }
            }
        }
    }

    fn overlapping_index(&self, first: u64, last: u64, total_lines: u64) -> Option<usize> {
        let from = self
            .blocks
            .partition_point(|block| block.end_line.is_some_and(|end| end < first));
        let block = self.blocks.get(from)?;
        let stale = block.end_line.is_none()
            && !self.overflowed
            && total_lines.saturating_sub(block.begin_line) > MAX_KEY_LINES;
        (block.begin_line <= last && !stale).then_some(from)
    }

    /// The lines `first..=last` (1-based) of the run of key blocks that holds `line`, adjacent blocks merged, with
    /// what they are in words (the kind of the one key, or `"private keys"` for several); `None` when `line` is in
    /// no key block. `last` is
    /// `total_lines` when the run reaches the end of the file (an open block). Used to continue past a key:
    /// the window before it says the key is withheld and where readable text goes on.
    pub fn withheld_run(&self, line: u64, total_lines: u64) -> Option<(u64, u64, &'static str)> {
        let position = self.overlapping_index(line, line, total_lines)?;
        let block = self.blocks.get(position)?;
        let (first, last) = self.run_bounds(position, total_lines);
        let keys = self
            .blocks
            .iter()
            .filter(|block| (first..=last).contains(&block.begin_line))
            .count();
        let what = if keys > 1 {
            "private keys"
        } else {
            block.kind.describe()
        };
        Some((first, last, what))
    }

    /// The first and last line of the run of adjacent key blocks around the block at `position`.
    fn run_bounds(&self, position: usize, total_lines: u64) -> (u64, u64) {
        let mut first = self
            .blocks
            .get(position)
            .map_or(1, |block| block.begin_line);
        let mut index = position;
        while let Some(previous) = index.checked_sub(1).and_then(|i| self.blocks.get(i)) {
            if previous.end_line.is_some_and(|end| end + 1 >= first) {
                first = first.min(previous.begin_line);
                index -= 1;
            } else {
                break;
            }
        }
        let mut last = total_lines;
        let mut index = position;
        while let Some(block) = self.blocks.get(index) {
            let Some(end) = block.end_line else {
                last = total_lines;
                break;
            };
            last = end;
            match self.blocks.get(index + 1) {
                Some(next) if next.begin_line <= end + 1 => index += 1,
                _ => break,
            }
        }
        (first, last.max(first))
    }

    /// The readable ranges nearest to the block at `position` on either side (past any adjacent blocks), as
    /// `(first, last)` lines; `None` on a side with no readable line at all.
    fn readable_around(&self, position: usize, total_lines: u64) -> [Option<LineRange>; 2] {
        let (first, last) = self.run_bounds(position, total_lines);
        let before = (first > 1).then(|| {
            let start = self
                .blocks
                .iter()
                .filter_map(|block| block.end_line)
                .filter(|end| *end < first)
                .max()
                .map_or(1, |end| end + 1);
            (start, first - 1)
        });
        let after = (last < total_lines).then(|| {
            let end = self
                .blocks
                .iter()
                .map(|block| block.begin_line)
                .filter(|begin| *begin > last)
                .min()
                .map_or(total_lines, |begin| begin - 1);
            (last + 1, end)
        });
        [before, after]
    }

    /// Refuses the window of lines `first..=last` of `path` (a file of `total_lines` lines) when it would show a
    /// line of a private key block (`Credential`). The message names the line where the key begins, the lines it
    /// covers, and the readable lines around it with the reads that show them.
    pub fn check_window(
        &self,
        path: &str,
        first: u64,
        last: u64,
        total_lines: u64,
    ) -> Result<(), ReadError> {
        let Some(position) = self.overlapping_index(first, last, total_lines) else {
            return Ok(());
        };
        let Some(block) = self.blocks.get(position) else {
            return Ok(());
        };
        let path = crate::prose::path_in_prose(path);
        let begin = block.begin_line;
        let window = if first == last {
            format!("line {first}")
        } else {
            format!("lines {first}-{last}")
        };
        let mut message = match block.end_line {
            Some(end) if end > begin => format!(
                "Lines {begin}-{end} of {path} are {} (it begins at line {begin}); read-window does not show private keys, so the window of {window} is refused.",
                block.kind.describe()
            ),
            Some(_) => format!(
                "Line {begin} of {path} holds {} (it begins at line {begin}); read-window does not show private keys, so the window of {window} is refused.",
                block.kind.describe()
            ),
            None if self.overflowed && position + 1 == self.blocks.len() => format!(
                "{path} holds more than {MAX_KEY_BLOCKS} private keys; from line {begin} on they are not told apart, and read-window does not show private keys, so the window of {window} is refused."
            ),
            None => format!(
                "{path} holds {} that begins at line {begin} and has no END line, so every line from {begin} on is treated as the key; read-window does not show private keys, so the window of {window} is refused.",
                block.kind.describe()
            ),
        };
        let readable: Vec<String> = self
            .readable_around(position, total_lines)
            .into_iter()
            .flatten()
            .map(|(first, last)| readable_range(first, last))
            .collect();
        if readable.is_empty() {
            message.push_str(" No line of this file outside its private keys is readable text.");
        } else {
            message.push_str(&format!(
                " Readable next to it: {}. If you need the key's identity, read its certificate or public key.",
                readable.join(" and ")
            ));
        }
        Err(ReadError::new(ErrorKind::Credential, message))
    }
}

/// `lines A-B (offset=A limit=N)`, or `line A (offset=A limit=1)`.
fn readable_range(first: u64, last: u64) -> String {
    let count = last - first + 1;
    if first == last {
        format!("line {first} (offset={first} limit=1)")
    } else {
        format!("lines {first}-{last} (offset={first} limit={count})")
    }
}

/// Where the `V` of an encoded `PRIVATE KEY` lies: the anchor of [`find_by_anchor`] (a capital V is rare in text).
fn key_needle_anchor(needle: &[u8]) -> usize {
    needle.iter().position(|&byte| byte == b'V').unwrap_or(0)
}

/// `text` (ASCII) encoded in `encoding`.
fn encode_ascii(text: &[u8], encoding: TextEncoding) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * encoding.unit_bytes());
    for &byte in text {
        let value = u32::from(byte);
        match encoding {
            TextEncoding::Utf8 | TextEncoding::Legacy(_) => out.push(byte),
            TextEncoding::Utf16Le => out.extend_from_slice(&(value as u16).to_le_bytes()),
            TextEncoding::Utf16Be => out.extend_from_slice(&(value as u16).to_be_bytes()),
            TextEncoding::Utf32Le => out.extend_from_slice(&value.to_le_bytes()),
            TextEncoding::Utf32Be => out.extend_from_slice(&value.to_be_bytes()),
        }
    }
    out
}

/// The code unit at unit index `index` of `bytes`.
fn unit_at(bytes: &[u8], index: usize, encoding: TextEncoding) -> Option<u32> {
    let unit = encoding.unit_bytes();
    let raw = bytes.get(index * unit..index * unit + unit)?;
    Some(match (encoding, raw) {
        (TextEncoding::Utf8 | TextEncoding::Legacy(_), [byte]) => u32::from(*byte),
        (TextEncoding::Utf16Le, [low, high]) => u32::from(u16::from_le_bytes([*low, *high])),
        (TextEncoding::Utf16Be, [high, low]) => u32::from(u16::from_be_bytes([*high, *low])),
        (TextEncoding::Utf32Le, [a, b, c, d]) => u32::from_le_bytes([*a, *b, *c, *d]),
        (TextEncoding::Utf32Be, [a, b, c, d]) => u32::from_be_bytes([*a, *b, *c, *d]),
        _ => return None,
    })
}

/// The marker whose `PRIVATE KEY` starts at unit `at` of `bytes`: `-----BEGIN ` or `-----END `, then a label of
/// capitals, digits and spaces, on the same line.
fn marker_before(bytes: &[u8], at: usize, encoding: TextEncoding) -> Option<Marker> {
    let is_label = |unit: u32| {
        unit == u32::from(b' ')
            || (u32::from(b'A')..=u32::from(b'Z')).contains(&unit)
            || (u32::from(b'0')..=u32::from(b'9')).contains(&unit)
    };
    let mut start = at;
    while start > 0 && at - start < MARKER_LOOKBACK_UNITS {
        match unit_at(bytes, start - 1, encoding) {
            Some(unit) if is_label(unit) => start -= 1,
            _ => break,
        }
    }
    let dashes = start.checked_sub(5)?;
    if (dashes..start).any(|index| unit_at(bytes, index, encoding) != Some(u32::from(b'-'))) {
        return None;
    }
    let label: Vec<u8> = (start..at)
        .filter_map(|index| unit_at(bytes, index, encoding))
        .filter_map(|unit| u8::try_from(unit).ok())
        .collect();
    if let Some(rest) = label.strip_prefix(b"BEGIN ") {
        let kind = match rest.trim_ascii() {
            b"OPENSSH" => KeyKind::OpenSsh,
            b"PGP" => KeyKind::Pgp,
            _ => KeyKind::Pem,
        };
        Some(Marker::Begin(kind))
    } else if label.starts_with(b"END ") {
        Some(Marker::End)
    } else {
        None
    }
}

/// Whether the BEGIN marker whose `PRIVATE KEY` starts at unit `at` of `bytes` is closed by five dashes (after
/// ` BLOCK` for PGP) that end the line: a line feed, a carriage return, a space or tab, a backslash (an escaped line
/// break inside a string), or the end of `bytes` when `at_end` says it is the end of the file.
fn begin_line_ends(bytes: &[u8], at: usize, encoding: TextEncoding, at_end: bool) -> bool {
    let unit = |index: usize| unit_at(bytes, index, encoding);
    let is = |index: usize, text: &[u8]| {
        text.iter()
            .enumerate()
            .all(|(offset, &byte)| unit(index + offset) == Some(u32::from(byte)))
    };
    let mut position = at + "PRIVATE KEY".len();
    if is(position, b" BLOCK") {
        position += " BLOCK".len();
    }
    if !is(position, b"-----") {
        return false;
    }
    match unit(position + 5) {
        None => at_end,
        Some(next) => [b'\n', b'\r', b' ', b'\t', b'\\']
            .iter()
            .any(|&byte| next == u32::from(byte)),
    }
}

/// Line feeds in `bytes` (whole code units of `encoding`).
fn count_line_feeds(bytes: &[u8], encoding: TextEncoding) -> u64 {
    if encoding == TextEncoding::Utf8 {
        return memchr::memchr_iter(b'\n', bytes).count() as u64;
    }
    let unit = encoding.unit_bytes();
    let mut count = 0;
    let mut from = 0;
    while let Some(index) = encoding.find_line_feed(bytes, from) {
        count += 1;
        from = index + unit;
    }
    count
}

#[cfg(test)]
mod tests;
