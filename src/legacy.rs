//! Legacy encodings: which one a file is in (detected by `chardetng` on a bounded sample of its start, then
//! checked), and whether text to be written back can be encoded in it.
//!
//! The rule ([`detect`]): a file whose first block (at most 64 KiB) is valid UTF-8 stays UTF-8; so does one whose
//! sample holds more valid multi-byte UTF-8 characters than invalid sequences (UTF-8 with a few damaged bytes).
//! Otherwise `chardetng` guesses among the legacy encodings it knows (UTF-8 excluded), and the guess is taken only
//! when the sample decodes in it with no malformed sequence, no C1 control character (U+0080-U+009F: bytes a real
//! text in that encoding does not hold) and at most 1% C0 control characters other than tab, line feed, vertical
//! tab, form feed, carriage return, backspace and escape. A single-byte guess for a sample whose non-ASCII bytes
//! are at most 8, each alone between ASCII bytes (accented letters in Latin-script words), is replaced by
//! windows-1252: too little for the detector to tell the Latin encodings apart. ISO-2022-JP is pure 7-bit: a valid UTF-8 sample is
//! checked for it only when it holds the escape sequence `ESC $`. When no guess passes, the file is read as UTF-8
//! with replacements counted, or judged binary by the share of invalid bytes.

use encoding_rs::{DecoderResult, Encoding};

use crate::decode::TextEncoding;
use crate::sniff::trim_incomplete_tail;

/// The share of C0 control characters (other than the usual whitespace and escape) a decoded sample may hold, in
/// parts per thousand.
const MAX_CONTROL_PER_MILLE: usize = 10;

/// The legacy encoding of a file whose start is `sample` (`whole_file` when it is all of the file), or `None` when
/// the file is UTF-8 or no legacy encoding fits (see the module doc for the rule).
pub fn detect(sample: &[u8], whole_file: bool) -> Option<&'static Encoding> {
    let judged = if whole_file {
        sample
    } else {
        trim_incomplete_tail(sample)
    };
    let escape_sequence = memchr::memmem::find(sample, b"\x1b$").is_some();
    // The common case first: valid UTF-8 (pure ASCII included) without ISO-2022-JP's escapes.
    if !escape_sequence && std::str::from_utf8(judged).is_ok() {
        return None;
    }
    let (invalid, multibyte) = utf8_census(judged);
    if invalid == 0 && !escape_sequence {
        return None;
    }
    if invalid > 0 && multibyte > invalid {
        return None;
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    detector.feed(sample, whole_file);
    let guess = detector.guess(None, chardetng::Utf8Detection::Deny);
    // A valid UTF-8 sample is legacy only as ISO-2022-JP (7-bit, with escape sequences).
    if guess == encoding_rs::UTF_8 || (invalid == 0 && guess != encoding_rs::ISO_2022_JP) {
        return None;
    }
    // A few accented letters, each alone between ASCII bytes, are Latin script: too little for the detector to
    // tell the Latin encodings apart (a lone `naïve` scores best as ISO-8859-4), so the common one is taken.
    let guess = if guess.is_single_byte() && few_isolated_non_ascii(sample) {
        encoding_rs::WINDOWS_1252
    } else {
        guess
    };
    decodes_cleanly(guess, sample, whole_file).then_some(guess)
}

/// Non-ASCII bytes a sample may hold for [`few_isolated_non_ascii`].
const FEW_NON_ASCII: usize = 8;

/// Whether `sample` holds at most `FEW_NON_ASCII` non-ASCII bytes, none of them next to another (accented letters
/// in Latin-script words; Cyrillic, Greek, Hebrew or Arabic words are runs of them).
fn few_isolated_non_ascii(sample: &[u8]) -> bool {
    let mut count = 0;
    let mut previous_non_ascii = false;
    for &byte in sample {
        let non_ascii = byte >= 0x80;
        if non_ascii {
            count += 1;
            if previous_non_ascii || count > FEW_NON_ASCII {
                return false;
            }
        }
        previous_non_ascii = non_ascii;
    }
    true
}

/// Invalid UTF-8 sequences and valid multi-byte characters in `bytes`.
fn utf8_census(bytes: &[u8]) -> (usize, usize) {
    let mut invalid = 0;
    let mut multibyte = 0;
    for chunk in bytes.utf8_chunks() {
        multibyte += chunk.valid().chars().filter(|c| !c.is_ascii()).count();
        if !chunk.invalid().is_empty() {
            invalid += 1;
        }
    }
    (invalid, multibyte)
}

/// Whether `sample` decodes in `encoding` with no malformed sequence, no C1 control and few C0 controls.
fn decodes_cleanly(encoding: &'static Encoding, sample: &[u8], whole_file: bool) -> bool {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::with_capacity(
        decoder
            .max_utf8_buffer_length_without_replacement(sample.len())
            .unwrap_or(sample.len()),
    );
    let (result, _) = decoder.decode_to_string_without_replacement(sample, &mut text, whole_file);
    if !matches!(result, DecoderResult::InputEmpty) {
        return false;
    }
    let mut chars = 0usize;
    let mut controls = 0usize;
    for character in text.chars() {
        chars += 1;
        match character {
            '\u{80}'..='\u{9f}' => return false,
            '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{8}' | '\u{1b}' => {}
            control if control.is_ascii_control() => controls += 1,
            _ => {}
        }
    }
    controls * 1000 <= chars * MAX_CONTROL_PER_MILLE
}

/// The first character of `text` that `encoding` cannot encode: (the character, its 1-based line in `text`, its
/// 0-based column in characters). `None` when every character can be encoded (or the encoding is a Unicode one).
pub fn first_unencodable(text: &str, encoding: TextEncoding) -> Option<(char, u64, u64)> {
    let TextEncoding::Legacy(legacy) = encoding else {
        return None;
    };
    let mut encoder = legacy.new_encoder();
    let mut buffer = Vec::new();
    let mut line = 1u64;
    let mut column = 0u64;
    let mut one = [0u8; 4];
    for character in text.chars() {
        buffer.clear();
        buffer.reserve(
            encoder
                .max_buffer_length_from_utf8_without_replacement(4)
                .unwrap_or(16),
        );
        let (result, _) = encoder.encode_from_utf8_to_vec_without_replacement(
            character.encode_utf8(&mut one),
            &mut buffer,
            false,
        );
        if let encoding_rs::EncoderResult::Unmappable(_) = result {
            return Some((character, line, column));
        }
        if character == '\n' {
            line += 1;
            column = 0;
        } else {
            column += 1;
        }
    }
    None
}

/// The files this session read in a legacy encoding, by resolved guest path (the most recent `MAX_FILES`), so
/// `check-write` can tell text that would not survive being written back in the file's encoding.
#[derive(Debug, Default)]
pub struct LegacyFiles {
    files: std::collections::VecDeque<(String, TextEncoding)>,
}

/// Files whose legacy encoding a session remembers at most.
pub const MAX_FILES: usize = 1_024;

impl LegacyFiles {
    /// An empty memory.
    pub fn new() -> Self {
        LegacyFiles::default()
    }

    /// Notes that `path` was just read in `encoding`: remembered when it is a legacy one, forgotten otherwise.
    pub fn note(&mut self, path: &str, encoding: TextEncoding) {
        self.files.retain(|(known, _)| known != path);
        if matches!(encoding, TextEncoding::Legacy(_)) {
            if self.files.len() >= MAX_FILES {
                self.files.pop_front();
            }
            self.files.push_back((path.to_string(), encoding));
        }
    }

    /// The legacy encoding `path` was last read in, if any.
    pub fn encoding_of(&self, path: &str) -> Option<TextEncoding> {
        self.files
            .iter()
            .rev()
            .find(|(known, _)| known == path)
            .map(|(_, encoding)| *encoding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(text: &str, encoding: &'static Encoding) -> Vec<u8> {
        let (bytes, _, unmappable) = encoding.encode(text);
        assert!(!unmappable, "{text} in {}", encoding.name());
        bytes.into_owned()
    }

    #[test]
    fn the_files_of_the_issue_are_detected() {
        let cases: [(&str, &'static Encoding); 11] = [
            ("Привет мир, это тест\n", encoding_rs::WINDOWS_1251),
            ("你好，世界\n", encoding_rs::GBK),
            (
                "こんにちは、世界。日本語のテキストです。\n",
                encoding_rs::SHIFT_JIS,
            ),
            (
                "// O objetivo é testar operações\n",
                encoding_rs::WINDOWS_1252,
            ),
            ("café naïve résumé\n", encoding_rs::WINDOWS_1252),
            ("naïve\n", encoding_rs::WINDOWS_1252),
            ("é\n", encoding_rs::WINDOWS_1252),
            ("Zażółć gęślą jaźń\n", encoding_rs::WINDOWS_1250),
            ("Γειά σου Κόσμε\n", encoding_rs::WINDOWS_1253),
            (
                "こんにちは、世界。日本語のテキストです。\n",
                encoding_rs::EUC_JP,
            ),
            (
                "안녕하세요, 세계. 한국어 텍스트입니다.\n",
                encoding_rs::EUC_KR,
            ),
        ];
        for (text, encoding) in cases {
            let bytes = encoded(text, encoding);
            assert_eq!(
                detect(&bytes, true).map(Encoding::name),
                Some(encoding.name()),
                "{text}"
            );
        }
    }

    #[test]
    fn a_few_characters_are_below_what_detection_can_tell() {
        // Three CJK characters (6 bytes) are too few: the guess is another encoding, not what was written.
        let short = encoded("日本語\n", encoding_rs::SHIFT_JIS);
        assert_ne!(detect(&short, true), Some(encoding_rs::SHIFT_JIS));
        // Russian in KOI8-R is named koi8-u, which decodes Russian text the same.
        let koi = encoded("Привет мир, это тест\n", encoding_rs::KOI8_R);
        assert_eq!(detect(&koi, true), Some(encoding_rs::KOI8_U));
    }

    #[test]
    fn utf8_ascii_and_damaged_utf8_are_not_legacy() {
        assert_eq!(detect(b"plain ascii\n", true), None);
        assert_eq!(detect("déjà vu, naïve\n".as_bytes(), true), None);
        let mut damaged = "déjà vu, naïve, très bien\n".as_bytes().to_vec();
        damaged.push(0xff);
        assert_eq!(detect(&damaged, true), None);
    }

    #[test]
    fn unencodable_text_names_its_first_character() {
        let cyrillic = TextEncoding::Legacy(encoding_rs::WINDOWS_1251);
        assert_eq!(first_unencodable("Привет\nмир", cyrillic), None);
        assert_eq!(
            first_unencodable("Привет\nмир 😀", cyrillic),
            Some(('😀', 2, 4))
        );
        assert_eq!(first_unencodable("😀", TextEncoding::Utf8), None);
    }
}
