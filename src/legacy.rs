//! Legacy encodings: which one a file is in (detected by `chardetng` on a bounded sample of its start, then
//! checked), and whether text to be written back can be encoded in it.
//!
//! The rule ([`detect`]): a file whose first block (at most 64 KiB) is valid UTF-8 stays UTF-8; so does one that is
//! mostly UTF-8: its sample's valid multi-byte UTF-8 characters take at least as many bytes as its invalid sequences;
//! or it has any valid multi-byte character and only stray bytes (a Word smart quote or a Latin-1 `é` pasted into
//! UTF-8 text, a stray `\xff`); or its only invalid sequences are UTF-8 punctuation marks or emoji cut short (a smart
//! quote that lost its last byte, `\xe2\x80`); the last two at most 8 or one in 256 bytes. No valid character is ever
//! re-decoded in a legacy encoding; the few invalid bytes are replaced and named. Otherwise `chardetng` guesses among
//! the legacy encodings it knows (UTF-8 excluded), and the guess is taken only when the sample decodes in it with no
//! malformed sequence, no C1 control character (U+0080-U+009F: bytes a real text in that encoding does not hold) and
//! at most 1% C0 control characters other than tab, line feed, vertical tab, form feed, carriage return, backspace
//! and escape. A single-byte guess for a sample whose non-ASCII bytes are at most 8, each alone between ASCII bytes
//! (accented letters in Latin-script words), is replaced by windows-1252: too little for the detector to tell the
//! Latin encodings apart. ISO-2022-JP is pure 7-bit: a valid UTF-8 sample is checked for it only when it holds the
//! escape sequence `ESC $`. When no guess passes, the file is read as UTF-8 with replacements counted, or judged
//! binary by the share of invalid bytes.

use encoding_rs::{DecoderResult, Encoding};

use crate::decode::{trim_incomplete_tail, TextEncoding};

/// The share of C0 control characters (other than the usual whitespace and escape) a decoded sample may hold, in
/// parts per thousand.
const MAX_CONTROL_PER_MILLE: usize = 10;

/// The legacy encoding of a file whose start is `sample` (`whole_file` when it is all of the file), or `None` when
/// the file is UTF-8 or no legacy encoding fits (see the module doc for the rule).
pub fn detect(sample: &[u8], whole_file: bool) -> Option<&'static Encoding> {
    detect_with_runner_up(sample, whole_file).map(|(encoding, _)| encoding)
}

/// [`detect`], with the runner-up when the detection is a guess between single-byte encodings that decode the
/// sample to different text with little to choose between them (ISO-8859-15 against windows-1252, ISO-8859-3
/// against ISO-8859-2, KOI8-U against KOI8-R: see [`CONFUSABLE`]); `None` as the runner-up when no other
/// candidate comes close.
pub fn detect_with_runner_up(
    sample: &[u8],
    whole_file: bool,
) -> Option<(&'static Encoding, Option<&'static Encoding>)> {
    let judged = if whole_file {
        cut_short_utf8(sample).unwrap_or(sample)
    } else {
        trim_incomplete_tail(sample)
    };
    let escape_sequence = memchr::memmem::find(sample, b"\x1b$").is_some();
    // The common case first: valid UTF-8 (pure ASCII included) without ISO-2022-JP's escapes.
    if !escape_sequence && std::str::from_utf8(judged).is_ok() {
        return None;
    }
    let census = utf8_census(judged);
    if census.invalid_bytes == 0 && !escape_sequence {
        return None;
    }
    if census.mostly_utf8() {
        return None;
    }
    let invalid = census.invalid_bytes;
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    detector.feed(sample, whole_file);
    let guess = detector.guess(None, chardetng::Utf8Detection::Deny);
    // A valid UTF-8 sample is legacy only as ISO-2022-JP (7-bit, with escape sequences).
    if guess == encoding_rs::UTF_8 || (invalid == 0 && guess != encoding_rs::ISO_2022_JP) {
        return None;
    }
    if guess == encoding_rs::ISO_2022_JP {
        return decodes_cleanly(guess, sample, whole_file).map(|_| (guess, None));
    }
    // A few accented letters, each alone between ASCII bytes, are Latin script: too little for the detector to
    // tell the Latin encodings apart (a lone `naïve` scores best as ISO-8859-4), so the common one is taken.
    // ISO-8859-15 is still weighed against it (`cœur` reads `c½ur` in windows-1252).
    if guess.is_single_byte() && few_isolated_non_ascii(sample) {
        let latin = vec![encoding_rs::WINDOWS_1252, encoding_rs::ISO_8859_15];
        return best_candidate(latin, sample, whole_file);
    }
    best_candidate(candidates(&detector, guess), sample, whole_file)
}

/// `file` without its last bytes when they are a UTF-8 character cut short (a file caught mid-write, or cut by
/// `head -c`), so that it is judged as the UTF-8 it is rather than as a legacy encoding; `None` when the file does
/// not end so. A cut is taken as UTF-8 when at least a lead byte and one continuation byte are left (a legacy text
/// rarely ends in such a pair), when the rest of the file holds other multi-byte UTF-8 characters, or when the lone
/// byte left is 0xC2 or 0xC3 (the leads of UTF-8's Latin letters; `Â` or `Ã` rarely end a Latin-1 text). Any other
/// lone high byte at the end of ASCII text (`caf\xe9` in Latin-1) is left to detection.
fn cut_short_utf8(file: &[u8]) -> Option<&[u8]> {
    let trimmed = trim_incomplete_tail(file);
    let cut = file.len() - trimmed.len();
    if cut == 0 || std::str::from_utf8(trimmed).is_err() {
        return None;
    }
    let lone_latin_lead = matches!(file.last(), Some(0xc2 | 0xc3));
    (cut >= 2 || !trimmed.is_ascii() || lone_latin_lead).then_some(trimmed)
}

/// The top-level domains whose regional guess [`best_candidate`] asks `chardetng` for: each makes the detector
/// prefer the encodings of one region (Cyrillic, Japanese, Korean, simplified and traditional Chinese, Greek,
/// Turkish, Hebrew, Central European Windows and ISO, Baltic, Vietnamese, Thai, Arabic).
const REGIONS: [&[u8]; 14] = [
    b"ru", b"jp", b"kr", b"cn", b"tw", b"gr", b"tr", b"il", b"cz", b"pl", b"lt", b"vn", b"th",
    b"eg",
];

/// The encodings [`best_candidate`] weighs, in order of preference on a tie: `guess` (the detector's generic
/// guess), then the detector's guess for each of [`REGIONS`], each followed by the encodings the detector never
/// names that read its script: ISO-8859-15 and ISO-8859-3 (Esperanto, Maltese) beside a single-byte one, every
/// one of [`CYRILLIC`] beside a Cyrillic one.
fn candidates(
    detector: &chardetng::EncodingDetector,
    guess: &'static Encoding,
) -> Vec<&'static Encoding> {
    let mut base: Vec<&'static Encoding> = vec![guess];
    for region in REGIONS {
        let regional = detector.guess(Some(region), chardetng::Utf8Detection::Deny);
        if !base.contains(&regional) && regional != encoding_rs::UTF_8 {
            base.push(regional);
        }
    }
    // Each candidate is followed by the encodings the detector never names that read the same script.
    let mut candidates: Vec<&'static Encoding> = Vec::new();
    for encoding in base {
        let mut with = vec![encoding];
        if CYRILLIC.contains(&encoding) {
            with.extend_from_slice(&CYRILLIC);
        } else if encoding.is_single_byte() {
            with.push(encoding_rs::ISO_8859_15);
            with.push(encoding_rs::ISO_8859_3);
        }
        for one in with {
            if !candidates.contains(&one) {
                candidates.push(one);
            }
        }
    }
    candidates
}

/// The encoding among `candidates` (the first is the detector's guess, the rest in order of preference on a tie)
/// whose clean decode of `sample` scores best by [`plausibility`], with its runner-up: the best-scoring other clean
/// candidate of a [`CONFUSABLE`] group with it that decodes the sample to different text and scores no lower than
/// the winner less the threshold below (ISO-8859-3 only with Esperanto evidence). `None` when no candidate decodes cleanly, or only ones
/// with more evidence against them than the threshold below. A clean guess gives way only to a candidate of its
/// kind (single-byte or multi-byte) that scores better by more than the threshold: 2% of the sample's non-ASCII
/// bytes, at least 4. KOI8-R is taken over KOI8-U when both decode the sample to the same text (Russian, box
/// drawing).
fn best_candidate(
    candidates: Vec<&'static Encoding>,
    sample: &[u8],
    whole_file: bool,
) -> Option<(&'static Encoding, Option<&'static Encoding>)> {
    let guess = *candidates.first()?;
    let mut decoded: Vec<(&'static Encoding, String, i64)> = Vec::new();
    for encoding in candidates {
        if let Some(text) = decodes_cleanly(encoding, sample, whole_file) {
            let score = plausibility(&text, encoding);
            decoded.push((encoding, text, score));
        }
    }
    // Evidence must outweigh the detector: by more than 2% of the sample's non-ASCII bytes (at least 4).
    let threshold = (sample.iter().filter(|byte| **byte >= 0x80).count() / 50).max(4) as i64;
    let guess_entry = decoded.iter().find(|(encoding, _, _)| *encoding == guess);
    let mut best: Option<&(&'static Encoding, String, i64)> = guess_entry;
    for entry in &decoded {
        let better = match (best, guess_entry) {
            // A guess that does not decode cleanly gives way to a candidate of its kind with little against it.
            (None, _) => {
                entry.0.is_single_byte() == guess.is_single_byte()
                    && entry.2 >= -threshold
                    && spaced_like_text(sample)
            }
            // A clean guess gives way only to a decode of its kind (single-byte or multi-byte) with clearly
            // less evidence against it.
            (Some(current), Some(guessed)) => {
                entry.0.is_single_byte() == guess.is_single_byte()
                    && entry.2 > current.2
                    && entry.2 - guessed.2 > threshold
            }
            (Some(current), None) => {
                entry.0.is_single_byte() == guess.is_single_byte() && entry.2 > current.2
            }
        };
        if better {
            best = Some(entry);
        }
    }
    let (mut winner, winner_text, winner_score) = best?;
    if winner == encoding_rs::KOI8_U
        && decoded
            .iter()
            .any(|(encoding, text, _)| *encoding == encoding_rs::KOI8_R && text == winner_text)
    {
        winner = encoding_rs::KOI8_R;
    }
    // A runner-up: a confusable decode to different text that the evidence does not rule out. ISO-8859-3 reads
    // most Latin-2 and Nordic text as plausible letters, so it is one only with Esperanto's `aŭ` in it.
    let mut runner_up: Option<&(&'static Encoding, String, i64)> = None;
    for entry in &decoded {
        let (encoding, text, score) = entry;
        let close = *encoding != winner
            && *score >= winner_score - threshold
            && text != winner_text
            && (*encoding != encoding_rs::ISO_8859_3 || *score > 0)
            && CONFUSABLE
                .iter()
                .any(|group| group.contains(encoding) && group.contains(&winner));
        if close && runner_up.is_none_or(|(_, _, best)| score > best) {
            runner_up = Some(entry);
        }
    }
    Some((winner, runner_up.map(|(encoding, _, _)| *encoding)))
}

/// Whether `sample` has the spaces or line breaks of text: at least one for every 16 non-ASCII bytes (so a run
/// of stray high bytes is not taken for text in an encoding found only after the detector's guess failed).
fn spaced_like_text(sample: &[u8]) -> bool {
    let breaks = sample
        .iter()
        .filter(|byte| matches!(byte, b' ' | b'\n' | b'\t'))
        .count();
    let high = sample.iter().filter(|byte| **byte >= 0x80).count();
    breaks * 16 >= high && breaks > 0
}

/// The single-byte Cyrillic encodings: when one is a candidate, all are (KOI8-R and KOI8-U are told apart from
/// windows-1251 and IBM866 by their case and box-drawing patterns, which [`plausibility`] weighs).
const CYRILLIC: [&Encoding; 5] = [
    encoding_rs::WINDOWS_1251,
    encoding_rs::KOI8_R,
    encoding_rs::KOI8_U,
    encoding_rs::IBM866,
    encoding_rs::ISO_8859_5,
];

/// Single-byte encodings that decode the same bytes to different letters of one script, which no detector tells
/// apart reliably on a short sample: a winner's runner-ups come from its groups.
const CONFUSABLE: [&[&Encoding]; 3] = [
    &[encoding_rs::WINDOWS_1252, encoding_rs::ISO_8859_15],
    &[
        encoding_rs::ISO_8859_2,
        encoding_rs::WINDOWS_1250,
        encoding_rs::ISO_8859_3,
        encoding_rs::ISO_8859_16,
    ],
    &[encoding_rs::KOI8_R, encoding_rs::KOI8_U],
];

/// The script of a letter, for [`plausibility`]'s test of words that mix scripts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Cyrillic,
    Greek,
    Hebrew,
    Arabic,
    Thai,
    Hangul,
    Kana,
    Han,
    Other,
}

fn script_of(character: char) -> Script {
    match u32::from(character) {
        0x00..=0x024F | 0x1E00..=0x1EFF => Script::Latin,
        0x0370..=0x03FF | 0x1F00..=0x1FFF => Script::Greek,
        0x0400..=0x052F => Script::Cyrillic,
        0x0590..=0x05FF => Script::Hebrew,
        0x0600..=0x06FF => Script::Arabic,
        0x0E00..=0x0E7F => Script::Thai,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => Script::Hangul,
        0x3040..=0x30FF | 0xFF66..=0xFF9F => Script::Kana,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => Script::Han,
        _ => Script::Other,
    }
}

/// Whether `character` is a non-ASCII symbol that real text does not put against a letter: box drawing, block
/// elements, and the Latin-1 signs `¤ ¦ ¼ ½ ¾` that a wrong single-byte encoding turns letters into.
fn odd_symbol(character: char) -> bool {
    matches!(character, '\u{a4}' | '\u{a6}' | '\u{bc}'..='\u{be}' | '\u{2500}'..='\u{259f}')
        || (!character.is_ascii()
            && !character.is_alphanumeric()
            && !character.is_whitespace()
            && matches!(u32::from(character), 0xA1..=0xBF | 0xD7 | 0xF7 | 0x2000..=0x2BFF)
            && !matches!(
                character,
                '\u{a1}' | '\u{a7}' | '\u{a8}' | '\u{ab}' | '\u{b0}' | '\u{b4}' | '\u{b7}' | '\u{b8}'
                    | '\u{bb}' | '\u{bf}' | '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{203a}' | '\u{20ac}' | '\u{2116}'
            ))
}

/// [`plausibility`] for the multi-byte (CJK) encodings, from the mix of scripts alone: 0, or less the Han
/// characters when the mix does not fit the encoding's language. Japanese text holds kana for at least half its
/// Han characters (Korean read as EUC-JP is Han with a few kana from the jamo rows); Korean text holds at least
/// half as many Hangul syllables as Han characters (Chinese read as EUC-KR has few); Chinese text holds kana for at
/// most a tenth of its Han characters (Korean read as GBK gets kana from the jamo rows).
fn cjk_plausibility(text: &str, encoding: &'static Encoding) -> i64 {
    let (mut kana, mut han, mut hangul) = (0i64, 0i64, 0i64);
    for character in text.chars() {
        match script_of(character) {
            Script::Kana => kana += 1,
            Script::Han => han += 1,
            Script::Hangul => hangul += 1,
            _ => {}
        }
    }
    let misfit = if encoding == encoding_rs::EUC_JP
        || encoding == encoding_rs::SHIFT_JIS
        || encoding == encoding_rs::ISO_2022_JP
    {
        kana * 2 < han
    } else if encoding == encoding_rs::EUC_KR {
        hangul * 2 < han
    } else {
        kana * 10 > han
    };
    if misfit {
        -han.max(1)
    } else {
        0
    }
}

/// How much `text` (a clean decode of a sample in `encoding`) looks like text people write, as 0 less the signs
/// of a wrong encoding (so only evidence against a decode counts, never its length): each non-ASCII letter
/// counts -1 in an implausible word (a word that mixes scripts, has a lower-case letter before an upper-case one
/// where one of them is not ASCII, or is Latin with 3 or more letters none of them ASCII: Cyrillic or Greek read
/// in a Latin encoding); each odd symbol ([`odd_symbol`]) next to a letter counts -2; non-ASCII capitals count -1
/// each for as many as they outnumber the non-ASCII lower-case letters (cases swapped); multi-byte
/// encodings are judged by [`cjk_plausibility`] instead; each `aŭ`/`eŭ` counts +3 in ISO-8859-3 (Esperanto, which ISO-8859-2 would read as `aý`).
fn plausibility(text: &str, encoding: &'static Encoding) -> i64 {
    if !encoding.is_single_byte() {
        return cjk_plausibility(text, encoding);
    }
    let mut score = 0i64;
    let mut previous: Option<char> = None;
    let mut word = WordSigns::default();
    let mut chars = text.chars().peekable();
    while let Some(character) = chars.next() {
        if character.is_alphabetic() {
            word.add(character, previous);
        } else {
            score -= word.take_bad_letters();
            // Box drawing is odd only against a non-ASCII letter (KOI8-U's letters amid KOI8-R's box lines);
            // a table's ASCII labels may touch its rules.
            let letter = |c: &char| {
                c.is_alphabetic()
                    && (!('\u{2500}'..='\u{259f}').contains(&character) || !c.is_ascii())
            };
            if character == '\u{a4}'
                || odd_symbol(character)
                    && (previous.as_ref().is_some_and(letter) || chars.peek().is_some_and(letter))
            {
                score -= 2;
            }
        }
        previous = Some(character);
    }
    score -= word.take_bad_letters();
    // Running text is mostly lower case; a decode that is mostly capitals has the cases swapped (KOI8 read as
    // windows-1251 or the reverse, Cyrillic read as Latin-1).
    let (mut upper, mut lower) = (0i64, 0i64);
    for character in text.chars().filter(|c| !c.is_ascii()) {
        if character.is_uppercase() {
            upper += 1;
        } else if character.is_lowercase() {
            lower += 1;
        }
    }
    score -= (upper - lower).max(0);
    if encoding == encoding_rs::ISO_8859_3 {
        let esperanto = text.matches("aŭ").count() + text.matches("eŭ").count();
        score += 3 * esperanto as i64;
    }
    score
}

/// What [`plausibility`] notes of the word being read (a run of letters).
#[derive(Default)]
struct WordSigns {
    /// Non-ASCII letters.
    non_ascii: i64,
    /// ASCII letters.
    ascii: i64,
    /// The script of its non-ASCII Latin letters was seen (`Some(Latin)`), or of its other letters.
    script: Option<Script>,
    /// Two scripts other than ASCII Latin.
    mixed: bool,
    /// Changes between ASCII letters and letters of another script than Latin.
    switches: u32,
    /// A lower-case letter followed by an upper-case one, one of them not ASCII.
    case_flip: bool,
}

impl WordSigns {
    /// Notes `character` (a letter) after `previous`.
    fn add(&mut self, character: char, previous: Option<char>) {
        if character.is_ascii() {
            self.ascii += 1;
        } else {
            self.non_ascii += 1;
            let script = script_of(character);
            match self.script {
                None => self.script = Some(script),
                Some(seen) if seen != script && alphabet(seen) && alphabet(script) => {
                    self.mixed = true
                }
                Some(_) => {}
            }
        }
        if let Some(before) = previous.filter(|before| before.is_alphabetic()) {
            let foreign = |c: char| !c.is_ascii() && script_of(c) != Script::Latin;
            if (before.is_ascii() && foreign(character))
                || (foreign(before) && character.is_ascii())
            {
                self.switches += 1;
            }
            if before.is_lowercase()
                && character.is_uppercase()
                && !(before.is_ascii() && character.is_ascii())
            {
                self.case_flip = true;
            }
        }
    }

    /// The count of the word's non-ASCII letters when the word is implausible (0 otherwise), and a fresh start.
    /// Implausible: two scripts (ASCII letters glued to one other script, as in `\\fBслово`, are markup, but a
    /// word switching twice between them is not), a case flip, or a Latin word of 3 or more letters none of them
    /// ASCII (Cyrillic or Greek read in a Latin encoding; Latin words hold ASCII letters among accented ones).
    fn take_bad_letters(&mut self) -> i64 {
        let latin_heavy =
            self.script == Some(Script::Latin) && self.non_ascii >= 3 && self.ascii == 0;
        let bad = self.mixed || self.switches >= 2 || self.case_flip || latin_heavy;
        let count = if bad { self.non_ascii } else { 0 };
        *self = WordSigns::default();
        count
    }
}

/// Whether `script` is an alphabet whose letters never share a word with another's.
fn alphabet(script: Script) -> bool {
    matches!(
        script,
        Script::Latin
            | Script::Cyrillic
            | Script::Greek
            | Script::Hebrew
            | Script::Arabic
            | Script::Thai
    )
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

/// Stray bytes (a single invalid byte between ASCII bytes) a sample with valid multi-byte characters may hold and
/// stay UTF-8, however few its valid bytes: a pasted sentence's smart quotes and dashes. A legacy text has an
/// invalid byte for nearly every accented letter, and a multi-byte legacy text (GBK, Shift_JIS) pairs them.
const FEW_STRAY_SEQUENCES: usize = 8;

/// The non-ASCII bytes of a sample, by whether they are valid UTF-8.
struct Utf8Census {
    /// Bytes of the sample's invalid UTF-8 sequences.
    invalid_bytes: usize,
    /// The sample's invalid UTF-8 sequences.
    invalid_sequences: usize,
    /// Bytes of the sample.
    sample_bytes: usize,
    /// Whether every invalid sequence is a stray byte: one byte, with an ASCII byte (or the sample's edge) on
    /// each side.
    all_stray: bool,
    /// Whether every invalid sequence is a UTF-8 punctuation mark or emoji cut short (see [`cut_mark`]).
    all_cut: bool,
    /// Bytes of its valid multi-byte UTF-8 characters.
    multibyte_bytes: usize,
}

impl Utf8Census {
    /// Whether the sample is UTF-8 with a few damaged bytes: some invalid, and at least as many bytes of valid
    /// multi-byte characters; or any valid multi-byte character and invalid sequences that are all stray bytes; or
    /// invalid sequences that are all punctuation marks or emoji cut short ([`cut_mark`]); the last two at most
    /// [`FEW_STRAY_SEQUENCES`] or one in 256 bytes of the sample. A legacy text holds valid UTF-8 pairs only by
    /// accident (`Тё` in windows-1251 is the pair D2 B8), far fewer than its invalid bytes, which come with nearly
    /// every accented letter.
    fn mostly_utf8(&self) -> bool {
        let few = self.invalid_sequences <= FEW_STRAY_SEQUENCES.max(self.sample_bytes / 256);
        self.invalid_bytes > 0
            && (self.multibyte_bytes >= self.invalid_bytes
                || (self.multibyte_bytes > 0 && self.all_stray && few)
                || (self.all_cut && few))
    }
}

/// Whether `invalid` (an invalid sequence as `utf8_chunks` gives it: a character cut short, or one byte) is a UTF-8
/// punctuation mark, symbol or emoji that lost its last byte: `E2` and a continuation byte (smart quotes, dashes,
/// the ellipsis, arrows, math, box drawing, check marks, stars: U+2000-U+2FFF) or `F0 9F` (emoji). In windows-1252
/// those pairs are `â` or `ð` followed by punctuation (`â€`, `âœ`, `ðŸ`): mojibake, no word of a Latin language.
/// Other leads are not taken: a Latin letter then punctuation looks the same (`José’s` is `E9 92`).
fn cut_mark(invalid: &[u8]) -> bool {
    matches!(invalid, [0xe2, 0x80..=0xbf, ..] | [0xf0, 0x9f, ..])
}

/// The census of `bytes`' non-ASCII bytes (see [`Utf8Census`]).
fn utf8_census(bytes: &[u8]) -> Utf8Census {
    let mut census = Utf8Census {
        invalid_bytes: 0,
        invalid_sequences: 0,
        all_stray: true,
        all_cut: true,
        sample_bytes: bytes.len(),
        multibyte_bytes: 0,
    };
    // Whether the previous chunk ended in a stray candidate, which the next chunk must start with ASCII to confirm.
    let mut pending_stray = false;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid().as_bytes();
        if pending_stray && !valid.first().is_some_and(u8::is_ascii) {
            census.all_stray = false;
        }
        let invalid = chunk.invalid();
        pending_stray = !invalid.is_empty();
        if !invalid.is_empty() && !cut_mark(invalid) {
            census.all_cut = false;
        }
        if pending_stray && (invalid.len() > 1 || valid.last().is_some_and(|byte| !byte.is_ascii()))
        {
            census.all_stray = false;
        }
        census.multibyte_bytes += chunk
            .valid()
            .chars()
            .map(char::len_utf8)
            .filter(|&len| len > 1)
            .sum::<usize>();
        census.invalid_bytes += chunk.invalid().len();
        census.invalid_sequences += usize::from(!invalid.is_empty());
    }
    census
}

/// The text of `sample` decoded in `encoding`, when it decodes with no malformed sequence, no C1 control and few
/// C0 controls; `None` otherwise.
fn decodes_cleanly(encoding: &'static Encoding, sample: &[u8], whole_file: bool) -> Option<String> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::with_capacity(
        decoder
            .max_utf8_buffer_length_without_replacement(sample.len())
            .unwrap_or(sample.len()),
    );
    let (result, _) = decoder.decode_to_string_without_replacement(sample, &mut text, whole_file);
    if !matches!(result, DecoderResult::InputEmpty) {
        return None;
    }
    let mut chars = 0usize;
    let mut controls = 0usize;
    for character in text.chars() {
        chars += 1;
        match character {
            '\u{80}'..='\u{9f}' => return None,
            '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{8}' | '\u{1b}' => {}
            control if control.is_ascii_control() => controls += 1,
            _ => {}
        }
    }
    (controls * 1000 <= chars * MAX_CONTROL_PER_MILLE).then_some(text)
}

/// The first character of `text` that does not survive being written in a legacy encoding and read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unencodable {
    /// The character.
    pub character: char,
    /// Its 1-based line in the text.
    pub line: u64,
    /// Its 0-based column in the line, in characters.
    pub column: u64,
    /// What it reads back as when the encoding has a byte sequence for it that decodes to something else
    /// (Shift_JIS writes `¥` as the byte of `\`); `None` when the encoding has no byte sequence for it at all.
    pub becomes: Option<String>,
}

/// The first character of `text` that `encoding` cannot hold: one it cannot encode, one whose encoding decodes
/// back to other text (checked by encoding each non-ASCII character with `encoding_rs` and decoding the bytes
/// again: Shift_JIS `¥` is written as `\\`, `−` U+2212 as `－`; ISO-2022-JP writes half-width kana as full-width),
/// or, for euc-kr, a syllable only its windows-949 extension has (`똠`), which strict EUC-KR readers refuse. `None` when every character survives (or the encoding is a
/// Unicode one).
pub fn first_unencodable(text: &str, encoding: TextEncoding) -> Option<Unencodable> {
    let TextEncoding::Legacy(legacy) = encoding else {
        return None;
    };
    let mut line = 1u64;
    let mut column = 0u64;
    let mut one = [0u8; 4];
    let mut bytes = Vec::with_capacity(16);
    for character in text.chars() {
        if !character.is_ascii() {
            // A fresh encoder told the text ends here closes a stateful encoding's mode (ISO-2022-JP's escape back
            // to ASCII), so the bytes decode alone.
            let as_str: &str = character.encode_utf8(&mut one);
            let mut encoder = legacy.new_encoder();
            bytes.clear();
            bytes.reserve(
                encoder
                    .max_buffer_length_from_utf8_without_replacement(as_str.len())
                    .unwrap_or(16),
            );
            let (result, _) =
                encoder.encode_from_utf8_to_vec_without_replacement(as_str, &mut bytes, true);
            // WHATWG's euc-kr is windows-949: its extension syllables (`똠`, lead or trail byte below 0xA1) are
            // not EUC-KR to any other reader of the file.
            let uhc_only = legacy == encoding_rs::EUC_KR
                && bytes.len() == 2
                && bytes.iter().any(|byte| *byte < 0xA1);
            let becomes = match result {
                encoding_rs::EncoderResult::Unmappable(_) => Some(None),
                _ if uhc_only => Some(None),
                _ => {
                    let (back, malformed) = legacy.decode_without_bom_handling(&bytes);
                    (malformed || back != as_str).then(|| Some(back.into_owned()))
                }
            };
            if let Some(becomes) = becomes {
                return Some(Unencodable {
                    character,
                    line,
                    column,
                    becomes,
                });
            }
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
    files: std::collections::VecDeque<(String, TextEncoding, Option<&'static Encoding>)>,
}

/// Files whose legacy encoding a session remembers at most.
pub const MAX_FILES: usize = 1_024;

impl LegacyFiles {
    /// An empty memory.
    pub fn new() -> Self {
        LegacyFiles::default()
    }

    /// Notes that `path` was just read in `encoding` (with the runner-up of a guessed one, see
    /// [`detect_with_runner_up`]): remembered when it is a legacy one, forgotten otherwise.
    pub fn note(
        &mut self,
        path: &str,
        encoding: TextEncoding,
        runner_up: Option<&'static Encoding>,
    ) {
        self.files.retain(|(known, _, _)| known != path);
        if matches!(encoding, TextEncoding::Legacy(_)) {
            if self.files.len() >= MAX_FILES {
                self.files.pop_front();
            }
            self.files
                .push_back((path.to_string(), encoding, runner_up));
        }
    }

    /// The legacy encoding `path` was last read in, with its runner-up when it was a guess, if any.
    pub fn encoding_of(&self, path: &str) -> Option<(TextEncoding, Option<&'static Encoding>)> {
        self.files
            .iter()
            .rev()
            .find(|(known, _, _)| known == path)
            .map(|(_, encoding, runner_up)| (*encoding, *runner_up))
    }
}

#[cfg(test)]
mod tests;
