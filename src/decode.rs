//! Decoding a file's bytes into text, piece by piece and block by block: UTF-8 with invalid sequences replaced by
//! U+FFFD (exactly as `String::from_utf8_lossy` would over the whole file, however the bytes are split), UTF-16
//! LE or BE with unpaired surrogates replaced, and UTF-32 LE or BE with units that are no Unicode scalar value
//! (surrogates, above U+10FFFF) replaced, and the legacy encodings of the WHATWG Encoding Standard (windows-125x,
//! ISO-8859-x, KOI8, Shift_JIS, EUC-JP, ISO-2022-JP, GBK/gb18030, Big5, EUC-KR, ...) through `encoding_rs`, with
//! malformed sequences replaced and counted the same way. Valid UTF-8 is handed on without copying.

/// The encodings a file is decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextEncoding {
    /// UTF-8 (also the fallback for any non-UTF-16 text: invalid sequences are replaced and counted).
    Utf8,
    /// UTF-16, little-endian.
    Utf16Le,
    /// UTF-16, big-endian.
    Utf16Be,
    /// UTF-32, little-endian (recognised by its byte order mark only).
    Utf32Le,
    /// UTF-32, big-endian (recognised by its byte order mark only).
    Utf32Be,
    /// A legacy encoding of the WHATWG Encoding Standard, decoded by `encoding_rs` (never UTF-8 or UTF-16: those
    /// are the variants above). Every one the detector names is ASCII-compatible as far as line breaks go: byte
    /// 0x0A is a line feed and 0x0D a carriage return wherever they stand, never part of a multi-byte character.
    Legacy(&'static encoding_rs::Encoding),
}

impl TextEncoding {
    /// Bytes in one code unit: 1 for UTF-8, 2 for UTF-16, 4 for UTF-32.
    pub fn unit_bytes(self) -> usize {
        match self {
            TextEncoding::Utf8 | TextEncoding::Legacy(_) => 1,
            TextEncoding::Utf16Le | TextEncoding::Utf16Be => 2,
            TextEncoding::Utf32Le | TextEncoding::Utf32Be => 4,
        }
    }

    /// The name used in results: `utf8`, `utf16le`, `utf16be`, `utf32le`, `utf32be`, or a legacy encoding's
    /// WHATWG name in lower case (`windows-1251`, `shift_jis`, `gbk`, `euc-jp`, ...: each is also a WHATWG label).
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Legacy(encoding) => legacy_label(encoding),
            TextEncoding::Utf8 => "utf8",
            TextEncoding::Utf16Le => "utf16le",
            TextEncoding::Utf16Be => "utf16be",
            TextEncoding::Utf32Le => "utf32le",
            TextEncoding::Utf32Be => "utf32be",
        }
    }

    /// The index of the first byte of the next line feed in `bytes` at or after `from`.
    ///
    /// `bytes` must start on a code-unit boundary. For UTF-16 a line feed is the unit 0x000A at an even index; for
    /// UTF-32 the unit 0x0000000A at an index that is a multiple of 4.
    #[inline]
    pub fn find_line_feed(self, bytes: &[u8], from: usize) -> Option<usize> {
        match self {
            TextEncoding::Utf8 | TextEncoding::Legacy(_) => {
                memchr::memchr(b'\n', bytes.get(from..)?).map(|index| index + from)
            }
            TextEncoding::Utf16Le => {
                let mut start = from;
                while let Some(found) = memchr::memchr(b'\n', bytes.get(start..)?) {
                    let index = start + found;
                    if index % 2 == 0 && bytes.get(index + 1) == Some(&0) {
                        return Some(index);
                    }
                    start = index + 1;
                }
                None
            }
            TextEncoding::Utf16Be => {
                let mut start = from + 1;
                while let Some(found) = memchr::memchr(b'\n', bytes.get(start..)?) {
                    let index = start + found;
                    if index % 2 == 1 && bytes.get(index - 1) == Some(&0) {
                        return Some(index - 1);
                    }
                    start = index + 1;
                }
                None
            }
            TextEncoding::Utf32Le => {
                let mut start = from;
                while let Some(found) = memchr::memchr(b'\n', bytes.get(start..)?) {
                    let index = start + found;
                    if index % 4 == 0 && bytes.get(index + 1..index + 4) == Some(&[0, 0, 0][..]) {
                        return Some(index);
                    }
                    start = index + 1;
                }
                None
            }
            TextEncoding::Utf32Be => {
                let mut start = from + 3;
                while let Some(found) = memchr::memchr(b'\n', bytes.get(start..)?) {
                    let index = start + found;
                    if index % 4 == 3 && bytes.get(index - 3..index) == Some(&[0, 0, 0][..]) {
                        return Some(index - 3);
                    }
                    start = index + 1;
                }
                None
            }
        }
    }

    /// Whether a run of whole lines with no invalid sequence decodes to the text of its lines decoded one at a
    /// time, as the walk decodes them: true of every encoding but ISO-2022-JP, whose shift state crosses line
    /// feeds.
    pub fn lines_decode_alone(self) -> bool {
        self != TextEncoding::Legacy(encoding_rs::ISO_2022_JP)
    }

    /// Whether `unit` (the bytes of one code unit) is a carriage return.
    #[inline]
    pub fn is_carriage_return(self, unit: &[u8]) -> bool {
        match self {
            TextEncoding::Utf8 | TextEncoding::Legacy(_) => unit == b"\r",
            TextEncoding::Utf16Le => unit == [b'\r', 0],
            TextEncoding::Utf16Be => unit == [0, b'\r'],
            TextEncoding::Utf32Le => unit == [b'\r', 0, 0, 0],
            TextEncoding::Utf32Be => unit == [0, 0, 0, b'\r'],
        }
    }
}

/// The lower-case WHATWG name of `encoding` (`Shift_JIS` is `shift_jis`): a label every WHATWG decoder accepts.
pub fn legacy_label(encoding: &'static encoding_rs::Encoding) -> &'static str {
    match encoding.name() {
        "Big5" => "big5",
        "EUC-JP" => "euc-jp",
        "EUC-KR" => "euc-kr",
        "GBK" => "gbk",
        "IBM866" => "ibm866",
        "ISO-2022-JP" => "iso-2022-jp",
        "ISO-8859-10" => "iso-8859-10",
        "ISO-8859-13" => "iso-8859-13",
        "ISO-8859-14" => "iso-8859-14",
        "ISO-8859-15" => "iso-8859-15",
        "ISO-8859-16" => "iso-8859-16",
        "ISO-8859-2" => "iso-8859-2",
        "ISO-8859-3" => "iso-8859-3",
        "ISO-8859-4" => "iso-8859-4",
        "ISO-8859-5" => "iso-8859-5",
        "ISO-8859-6" => "iso-8859-6",
        "ISO-8859-7" => "iso-8859-7",
        "ISO-8859-8" => "iso-8859-8",
        "ISO-8859-8-I" => "iso-8859-8-i",
        "KOI8-R" => "koi8-r",
        "KOI8-U" => "koi8-u",
        "Shift_JIS" => "shift_jis",
        // Already lower case: windows-125x, windows-874, macintosh, x-mac-cyrillic, gb18030, x-user-defined, ...
        name => name,
    }
}

const REPLACEMENT: &str = "\u{FFFD}";

/// The streaming state of a legacy decoder: `encoding_rs`'s decoder, and what its state reports when nothing is
/// pending, so [`Decoder::at_boundary`] can tell a character boundary from the middle of a multi-byte sequence.
struct LegacyState {
    encoding: &'static encoding_rs::Encoding,
    decoder: encoding_rs::Decoder,
    /// `max_utf16_buffer_length(0)` of a fresh decoder: a larger value means bytes are pending.
    idle_need: Option<usize>,
}

impl LegacyState {
    fn new(encoding: &'static encoding_rs::Encoding) -> Self {
        let decoder = encoding.new_decoder_without_bom_handling();
        let idle_need = decoder.max_utf16_buffer_length(0);
        LegacyState {
            encoding,
            decoder,
            idle_need,
        }
    }

    /// Whether no byte of a multi-byte sequence is pending. ISO-2022-JP keeps a mode across characters that a
    /// fresh decoder would not know, so it is never at a boundary inside a line.
    fn at_boundary(&self) -> bool {
        if self.encoding.is_single_byte() {
            return true;
        }
        if self.encoding == encoding_rs::ISO_2022_JP {
            return false;
        }
        self.decoder.max_utf16_buffer_length(0) == self.idle_need
    }

    /// Decodes `bytes` (the last piece of the text when `last`) into `out`, each malformed sequence replaced by
    /// one U+FFFD; returns how many were replaced.
    fn decode(&mut self, mut bytes: &[u8], last: bool, out: &mut String) -> u64 {
        let mut replaced = 0;
        loop {
            let need = self
                .decoder
                .max_utf8_buffer_length_without_replacement(bytes.len())
                .unwrap_or(bytes.len().saturating_mul(3).saturating_add(16));
            out.reserve(need);
            let (result, read) = self
                .decoder
                .decode_to_string_without_replacement(bytes, out, last);
            bytes = bytes.get(read..).unwrap_or_default();
            match result {
                encoding_rs::DecoderResult::InputEmpty => break,
                encoding_rs::DecoderResult::OutputFull => continue,
                encoding_rs::DecoderResult::Malformed(_, _) => {
                    replaced += 1;
                    out.push_str(REPLACEMENT);
                }
            }
        }
        if last {
            // A decoder that was told the text ended must not be fed again: the next line starts afresh.
            self.decoder = self.encoding.new_decoder_without_bom_handling();
        }
        replaced
    }
}

/// A streaming decoder: feed it the bytes of a line in pieces, then `finish` at the line's end.
#[derive(Debug, Clone)]
pub struct Decoder {
    encoding: TextEncoding,
    /// The bytes of an incomplete UTF-8 sequence, an odd UTF-16 byte, or the first bytes of a UTF-32 unit, carried
    /// to the next piece.
    carry: [u8; 4],
    carry_len: usize,
    /// A UTF-16 high surrogate waiting for its low half.
    high_surrogate: Option<u16>,
    /// Invalid sequences replaced so far.
    replaced: u64,
    /// Decoded UTF-16 text of the current piece.
    scratch: String,
    /// The decoder of a legacy encoding.
    legacy: Option<Box<LegacyState>>,
}

impl std::fmt::Debug for LegacyState {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("LegacyState")
            .field("encoding", &self.encoding.name())
            .field("at_boundary", &self.at_boundary())
            .finish()
    }
}

impl Clone for LegacyState {
    /// A fresh decoder of the same encoding (`encoding_rs` decoders are not cloned; a clone starts a new text).
    fn clone(&self) -> Self {
        LegacyState::new(self.encoding)
    }
}

impl Decoder {
    /// A decoder for `encoding`.
    pub fn new(encoding: TextEncoding) -> Self {
        Decoder {
            encoding,
            carry: [0; 4],
            carry_len: 0,
            high_surrogate: None,
            replaced: 0,
            scratch: String::new(),
            legacy: match encoding {
                TextEncoding::Legacy(legacy) => Some(Box::new(LegacyState::new(legacy))),
                _ => None,
            },
        }
    }

    /// Whether the bytes fed so far end on a character boundary (nothing is carried to the next piece).
    pub fn at_boundary(&self) -> bool {
        self.carry_len == 0
            && self.high_surrogate.is_none()
            && self
                .legacy
                .as_ref()
                .is_none_or(|legacy| legacy.at_boundary())
    }

    /// Invalid sequences replaced by U+FFFD since the decoder was made.
    pub fn replaced(&self) -> u64 {
        self.replaced
    }

    /// Decodes `bytes`, continuing a sequence the previous piece left open, and hands the text to `sink` in pieces.
    pub fn feed(&mut self, bytes: &[u8], sink: &mut impl FnMut(&str)) {
        self.feed_marking(bytes, &mut |text, _| sink(text));
    }

    /// [`Decoder::feed`], telling `sink` which pieces are a U+FFFD that replaced an invalid sequence (`true`).
    /// UTF-8 replacements are marked, each its own piece; UTF-16, UTF-32 and legacy replacements are inside other
    /// pieces and are not (they are still counted by [`Decoder::replaced`]).
    pub fn feed_marking(&mut self, bytes: &[u8], sink: &mut impl FnMut(&str, bool)) {
        match self.encoding {
            TextEncoding::Utf8 => self.feed_utf8(bytes, sink),
            TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
                self.feed_utf16(bytes, &mut |text| sink(text, false))
            }
            TextEncoding::Utf32Le | TextEncoding::Utf32Be => {
                self.feed_utf32(bytes, &mut |text| sink(text, false))
            }
            TextEncoding::Legacy(_) => {
                self.feed_legacy(bytes, false, &mut |text| sink(text, false))
            }
        }
    }

    fn feed_legacy(&mut self, bytes: &[u8], last: bool, sink: &mut impl FnMut(&str)) {
        let Some(legacy) = self.legacy.as_mut() else {
            return;
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        self.replaced += legacy.decode(bytes, last, &mut scratch);
        if !scratch.is_empty() {
            sink(&scratch);
        }
        self.scratch = scratch;
    }

    /// Ends the text: a sequence left open is invalid and becomes one U+FFFD.
    pub fn finish(&mut self, sink: &mut impl FnMut(&str)) {
        self.finish_marking(&mut |text, _| sink(text));
    }

    /// [`Decoder::finish`], marking the U+FFFD of a sequence left open (`true`) as [`Decoder::feed_marking`] does.
    pub fn finish_marking(&mut self, sink: &mut impl FnMut(&str, bool)) {
        if self.legacy.is_some() {
            self.feed_legacy(&[], true, &mut |text| sink(text, false));
        }
        if self.carry_len > 0 {
            self.carry_len = 0;
            self.replaced += 1;
            sink(REPLACEMENT, true);
        }
        if self.high_surrogate.take().is_some() {
            self.replaced += 1;
            sink(REPLACEMENT, true);
        }
    }

    fn feed_utf8(&mut self, mut bytes: &[u8], sink: &mut impl FnMut(&str, bool)) {
        if self.carry_len > 0 {
            // Complete the carried sequence with as few bytes as it needs.
            let mut joined = [0u8; 4];
            joined[..self.carry_len].copy_from_slice(&self.carry[..self.carry_len]);
            let mut len = self.carry_len;
            let mut taken = 0;
            loop {
                match std::str::from_utf8(&joined[..len]) {
                    Ok(text) => {
                        sink(text, false);
                        self.carry_len = 0;
                        bytes = bytes.get(taken..).unwrap_or_default();
                        break;
                    }
                    Err(error) => match error.error_len() {
                        Some(invalid) => {
                            // The carried bytes are a maximal invalid subpart: one replacement; the bytes after
                            // it are decoded afresh.
                            self.replaced += 1;
                            sink(REPLACEMENT, true);
                            self.carry_len = 0;
                            let consumed = invalid.saturating_sub(len - taken);
                            bytes = bytes.get(consumed..).unwrap_or_default();
                            break;
                        }
                        None => match bytes.get(taken) {
                            Some(&byte) if len < 4 => {
                                joined[len] = byte;
                                len += 1;
                                taken += 1;
                            }
                            _ => {
                                // Still incomplete and the piece is used up: carry it all on.
                                self.carry[..len].copy_from_slice(&joined[..len]);
                                self.carry_len = len;
                                return;
                            }
                        },
                    },
                }
            }
        }
        // The common case: the piece is valid UTF-8 (ASCII included). `from_utf8` validates a word at a time,
        // `utf8_chunks` a byte at a time; both hand the sink the same single piece.
        if let Ok(text) = std::str::from_utf8(bytes) {
            if !text.is_empty() {
                sink(text, false);
            }
            return;
        }
        let mut chunks = bytes.utf8_chunks().peekable();
        while let Some(chunk) = chunks.next() {
            let valid = chunk.valid();
            if !valid.is_empty() {
                sink(valid, false);
            }
            let invalid = chunk.invalid();
            if invalid.is_empty() {
                continue;
            }
            let is_last = chunks.peek().is_none();
            let incomplete =
                matches!(std::str::from_utf8(invalid), Err(error) if error.error_len().is_none());
            if is_last && incomplete && invalid.len() < 4 {
                self.carry[..invalid.len()].copy_from_slice(invalid);
                self.carry_len = invalid.len();
            } else {
                self.replaced += 1;
                sink(REPLACEMENT, true);
            }
        }
    }

    fn feed_utf16(&mut self, bytes: &[u8], sink: &mut impl FnMut(&str)) {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let mut rest = bytes;
        if self.carry_len == 1 {
            if let Some((&second, tail)) = rest.split_first() {
                let first = self.carry[0];
                self.carry_len = 0;
                let unit = self.unit_from([first, second]);
                self.push_unit(unit, &mut scratch);
                rest = tail;
            }
        }
        let mut pairs = rest.chunks_exact(2);
        for pair in &mut pairs {
            let unit = self.unit_from([pair[0], pair[1]]);
            self.push_unit(unit, &mut scratch);
        }
        if let [odd] = pairs.remainder() {
            self.carry[0] = *odd;
            self.carry_len = 1;
        }
        if !scratch.is_empty() {
            sink(&scratch);
        }
        self.scratch = scratch;
    }

    fn feed_utf32(&mut self, bytes: &[u8], sink: &mut impl FnMut(&str)) {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let mut rest = bytes;
        if self.carry_len > 0 {
            let wanted = 4 - self.carry_len;
            let take = wanted.min(rest.len());
            let (head, tail) = rest.split_at(take);
            self.carry[self.carry_len..self.carry_len + take].copy_from_slice(head);
            self.carry_len += take;
            rest = tail;
            if self.carry_len == 4 {
                self.carry_len = 0;
                let unit = self.carry;
                self.push_scalar(unit, &mut scratch);
            }
        }
        let mut units = rest.chunks_exact(4);
        for unit in &mut units {
            self.push_scalar([unit[0], unit[1], unit[2], unit[3]], &mut scratch);
        }
        let remainder = units.remainder();
        if !remainder.is_empty() {
            self.carry[..remainder.len()].copy_from_slice(remainder);
            self.carry_len = remainder.len();
        }
        if !scratch.is_empty() {
            sink(&scratch);
        }
        self.scratch = scratch;
    }

    fn push_scalar(&mut self, unit: [u8; 4], out: &mut String) {
        let value = match self.encoding {
            TextEncoding::Utf32Be => u32::from_be_bytes(unit),
            _ => u32::from_le_bytes(unit),
        };
        match char::from_u32(value) {
            Some(character) => out.push(character),
            None => {
                self.replaced += 1;
                out.push_str(REPLACEMENT);
            }
        }
    }

    fn unit_from(&self, pair: [u8; 2]) -> u16 {
        match self.encoding {
            TextEncoding::Utf16Be => u16::from_be_bytes(pair),
            _ => u16::from_le_bytes(pair),
        }
    }

    fn push_unit(&mut self, unit: u16, out: &mut String) {
        match unit {
            0xD800..=0xDBFF => {
                if self.high_surrogate.replace(unit).is_some() {
                    self.replaced += 1;
                    out.push_str(REPLACEMENT);
                }
            }
            0xDC00..=0xDFFF => match self.high_surrogate.take() {
                Some(high) => {
                    let scalar =
                        0x10000 + (((high as u32) - 0xD800) << 10) + ((unit as u32) - 0xDC00);
                    out.push(char::from_u32(scalar).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
                None => {
                    self.replaced += 1;
                    out.push_str(REPLACEMENT);
                }
            },
            _ => {
                if self.high_surrogate.take().is_some() {
                    self.replaced += 1;
                    out.push_str(REPLACEMENT);
                }
                out.push(char::from_u32(unit as u32).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
    }
}

/// Decodes into `out` the longest prefix of `bytes` that holds no invalid sequence, the text [`Decoder`] gives
/// for it. True when that prefix reaches the end of `bytes` (a character the end cuts short is left out, as text
/// still to come); false when an invalid sequence stopped it. `bytes` starts on a character boundary. For the
/// plain-line fast path, which shows only lines that decode clean.
pub fn decode_clean(encoding: TextEncoding, bytes: &[u8], out: &mut String) -> bool {
    let whatwg = match encoding {
        TextEncoding::Utf8 => {
            let (valid, clean) = match std::str::from_utf8(bytes) {
                Ok(text) => (text, true),
                Err(error) => (
                    bytes
                        .get(..error.valid_up_to())
                        .and_then(|valid| std::str::from_utf8(valid).ok())
                        .unwrap_or_default(),
                    error.error_len().is_none(),
                ),
            };
            out.push_str(valid);
            return clean;
        }
        TextEncoding::Utf32Le | TextEncoding::Utf32Be => {
            let big_endian = encoding == TextEncoding::Utf32Be;
            for unit in bytes.chunks_exact(4) {
                let Ok(unit) = <[u8; 4]>::try_from(unit) else {
                    break;
                };
                let value = if big_endian {
                    u32::from_be_bytes(unit)
                } else {
                    u32::from_le_bytes(unit)
                };
                match char::from_u32(value) {
                    Some(character) => out.push(character),
                    None => return false,
                }
            }
            return true;
        }
        TextEncoding::Utf16Le => encoding_rs::UTF_16LE,
        TextEncoding::Utf16Be => encoding_rs::UTF_16BE,
        TextEncoding::Legacy(legacy) => legacy,
    };
    let mut decoder = whatwg.new_decoder_without_bom_handling();
    let mut rest = bytes;
    loop {
        let need = decoder
            .max_utf8_buffer_length_without_replacement(rest.len())
            .unwrap_or(rest.len().saturating_mul(3).saturating_add(16));
        out.reserve(need);
        let (result, read) = decoder.decode_to_string_without_replacement(rest, out, false);
        rest = rest.get(read..).unwrap_or_default();
        match result {
            encoding_rs::DecoderResult::InputEmpty => return true,
            encoding_rs::DecoderResult::OutputFull => continue,
            encoding_rs::DecoderResult::Malformed(_, _) => return false,
        }
    }
}

/// Decodes all of `bytes` at once (for tests and small samples).
pub fn decode_all(encoding: TextEncoding, bytes: &[u8]) -> (String, u64) {
    let mut decoder = Decoder::new(encoding);
    let mut text = String::new();
    decoder.feed(bytes, &mut |piece| text.push_str(piece));
    decoder.finish(&mut |piece| text.push_str(piece));
    (text, decoder.replaced())
}

/// `sample` without a trailing incomplete UTF-8 sequence (at most 3 bytes are dropped). Here, in the leaf that
/// knows encodings, so that `sniff` and `legacy` can both use it without importing each other.
pub fn trim_incomplete_tail(sample: &[u8]) -> &[u8] {
    let len = sample.len();
    for back in 1..=3.min(len) {
        let byte = sample[len - back];
        if byte & 0b1100_0000 != 0b1000_0000 {
            // The lead byte of the last sequence: its length says whether the sequence is complete.
            let needed = match byte {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            return if needed > back {
                &sample[..len - back]
            } else {
                sample
            };
        }
    }
    sample
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn decode_split(bytes: &[u8], splits: &[usize]) -> String {
        let mut decoder = Decoder::new(TextEncoding::Utf8);
        let mut text = String::new();
        let mut start = 0;
        for &split in splits {
            let end = split.clamp(start, bytes.len());
            decoder.feed(&bytes[start..end], &mut |piece| text.push_str(piece));
            start = end;
        }
        decoder.feed(&bytes[start..], &mut |piece| text.push_str(piece));
        decoder.finish(&mut |piece| text.push_str(piece));
        text
    }

    #[test]
    fn split_emoji_is_joined_across_pieces() {
        let bytes = "a😀b".as_bytes();
        for split in 0..bytes.len() {
            assert_eq!(decode_split(bytes, &[split]), "a😀b");
        }
    }

    #[test]
    fn invalid_bytes_are_replaced_and_counted() {
        let (text, replaced) = decode_all(TextEncoding::Utf8, b"ok\xff\xfe then \xe2\x82");
        assert_eq!(text, "ok\u{FFFD}\u{FFFD} then \u{FFFD}");
        assert_eq!(replaced, 3);
    }

    #[test]
    fn utf16_surrogate_pairs_decode_and_lone_halves_are_replaced() {
        let mut bytes = Vec::new();
        for unit in "x😀".encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        bytes.extend_from_slice(&0xDC00u16.to_le_bytes());
        let (text, replaced) = decode_all(TextEncoding::Utf16Le, &bytes);
        assert_eq!(text, "x😀\u{FFFD}");
        assert_eq!(replaced, 1);
    }

    #[test]
    fn utf16_line_feed_is_found_only_on_unit_boundaries() {
        // U+0A0A is not a line feed; the real one follows.
        let bytes = [0x0A, 0x0A, b'a', 0, 0x0A, 0];
        assert_eq!(TextEncoding::Utf16Le.find_line_feed(&bytes, 0), Some(4));
        let big = [0x0A, 0x0A, 0, b'a', 0, 0x0A];
        assert_eq!(TextEncoding::Utf16Be.find_line_feed(&big, 0), Some(4));
    }

    fn utf32(text: &str, big_endian: bool) -> Vec<u8> {
        text.chars()
            .flat_map(|character| {
                let value = character as u32;
                if big_endian {
                    value.to_be_bytes()
                } else {
                    value.to_le_bytes()
                }
            })
            .collect()
    }

    #[test]
    fn utf32_decodes_in_any_split_and_replaces_what_is_no_scalar_value() {
        for big_endian in [false, true] {
            let encoding = if big_endian {
                TextEncoding::Utf32Be
            } else {
                TextEncoding::Utf32Le
            };
            let bytes = utf32("añ😀\n中", big_endian);
            for split in 0..bytes.len() {
                let mut decoder = Decoder::new(encoding);
                let mut text = String::new();
                decoder.feed(&bytes[..split], &mut |piece| text.push_str(piece));
                assert_eq!(decoder.at_boundary(), split % 4 == 0);
                decoder.feed(&bytes[split..], &mut |piece| text.push_str(piece));
                decoder.finish(&mut |piece| text.push_str(piece));
                assert_eq!(text, "añ😀\n中");
                assert_eq!(decoder.replaced(), 0);
            }
            let mut bad = utf32("a", big_endian);
            let surrogate: u32 = 0xD800;
            bad.extend(if big_endian {
                surrogate.to_be_bytes()
            } else {
                surrogate.to_le_bytes()
            });
            bad.extend([0x41, 0x00]);
            let (text, replaced) = decode_all(encoding, &bad);
            assert_eq!(text, "a\u{FFFD}\u{FFFD}");
            assert_eq!(replaced, 2);
        }
    }

    #[test]
    fn utf32_line_feed_is_found_only_on_unit_boundaries() {
        // A 0x0A byte inside another unit is not a line feed; the unit 0x0000000A at a multiple of 4 is.
        let little = [0x0A, 0x0A, 0, 0, b'a', 0, 0, 0, 0x0A, 0, 0, 0];
        assert_eq!(TextEncoding::Utf32Le.find_line_feed(&little, 0), Some(8));
        let big = [0, 0, 0x0A, 0x0A, 0, 0, 0, b'a', 0, 0, 0, 0x0A];
        assert_eq!(TextEncoding::Utf32Be.find_line_feed(&big, 0), Some(8));
        assert!(TextEncoding::Utf32Le.is_carriage_return(&[b'\r', 0, 0, 0]));
        assert!(TextEncoding::Utf32Be.is_carriage_return(&[0, 0, 0, b'\r']));
    }

    proptest! {
        #[test]
        fn any_split_decodes_like_from_utf8_lossy(bytes in proptest::collection::vec(any::<u8>(), 0..64),
                                                 mut splits in proptest::collection::vec(0usize..64, 0..6)) {
            splits.sort_unstable();
            prop_assert_eq!(decode_split(&bytes, &splits), String::from_utf8_lossy(&bytes).into_owned());
        }

        #[test]
        fn any_split_of_utf16_decodes_like_std(units in proptest::collection::vec(any::<u16>(), 0..32), split in 0usize..64) {
            let bytes: Vec<u8> = units.iter().flat_map(|unit| unit.to_le_bytes()).collect();
            let split = split.min(bytes.len());
            let mut decoder = Decoder::new(TextEncoding::Utf16Le);
            let mut text = String::new();
            decoder.feed(&bytes[..split], &mut |piece| text.push_str(piece));
            decoder.feed(&bytes[split..], &mut |piece| text.push_str(piece));
            decoder.finish(&mut |piece| text.push_str(piece));
            prop_assert_eq!(text, String::from_utf16_lossy(&units));
        }
    }
}
