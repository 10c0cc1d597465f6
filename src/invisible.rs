//! Invisible characters: Unicode tag characters, bidi controls and zero-width characters, which no reader of the
//! text sees but a model reads. Tag characters spell instructions a reviewer never sees ("Normal text." followed
//! by "Ignore previous instructions" in tags); bidi overrides make code display in an order other than the one
//! it runs in (Trojan Source). The window reports each one and shows it in a visible form, `⟪U+E0049⟫`.
//!
//! Not invisible, because they are text: an emoji tag sequence (a subdivision flag: U+1F3F4, then three to six
//! tag characters of lower-case letters and digits, then U+E007F CANCEL TAG) and a zero-width joiner between two
//! emoji (a ZWJ emoji such as a family).
//!
//! A leaf module: it imports nothing from the crate.

use std::borrow::Cow;

use unicode_properties::UnicodeEmoji;

/// The kinds of invisible character a window reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvisibleKind {
    /// A tag character, U+E0000 to U+E007F.
    Tag,
    /// A bidi embedding, override, isolate or mark: U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C.
    Bidi,
    /// A zero-width character: U+200B, U+200C, U+200D, U+2060, U+FEFF.
    ZeroWidth,
}

impl InvisibleKind {
    /// The kinds in the order messages name them.
    pub const ALL: [InvisibleKind; 3] = [
        InvisibleKind::Tag,
        InvisibleKind::Bidi,
        InvisibleKind::ZeroWidth,
    ];

    /// The kind of `character`, when it is one of the invisible characters (in any context).
    pub fn of(character: char) -> Option<InvisibleKind> {
        match character {
            '\u{E0000}'..='\u{E007F}' => Some(InvisibleKind::Tag),
            '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{061C}' => Some(InvisibleKind::Bidi),
            '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => {
                Some(InvisibleKind::ZeroWidth)
            }
            _ => None,
        }
    }

    /// The bytes that may start the UTF-8 form of an invisible character ([`InvisibleKind::of`]): the lead bytes
    /// of U+0600-063F, U+2000-2FFF, U+F000-FFFF and U+C0000-FFFFF. A text none of whose bytes is one holds none.
    pub const LEAD_BYTES: [u8; 4] = [0xD8, 0xE2, 0xEF, 0xF3];

    /// Whether `byte` is one of [`InvisibleKind::LEAD_BYTES`].
    pub fn may_start(byte: u8) -> bool {
        let [a, b, c, d] = Self::LEAD_BYTES;
        byte == a || byte == b || byte == c || byte == d
    }

    /// The kind in words, singular or plural by `count`, with the code points it covers.
    pub fn counted(self, count: u64) -> String {
        let plural = if count == 1 { "" } else { "s" };
        match self {
            InvisibleKind::Tag => format!("{count} tag character{plural} (U+E0000-E007F)"),
            InvisibleKind::Bidi => format!(
                "{count} bidi control{plural} (U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C)"
            ),
            InvisibleKind::ZeroWidth => format!(
                "{count} zero-width character{plural} (U+200B, U+200C, U+200D, U+2060, U+FEFF)"
            ),
        }
    }
}

/// The opening and closing brackets of a visible form.
pub const VISIBLE_OPEN: char = '⟪';
/// See [`VISIBLE_OPEN`].
pub const VISIBLE_CLOSE: char = '⟫';

/// The visible form of `character`: `⟪U+200B⟫`, `⟪U+E0049⟫` (at least four hex digits, upper case).
pub fn visible_form(character: char) -> String {
    format!(
        "{VISIBLE_OPEN}U+{:04X}{VISIBLE_CLOSE}",
        u32::from(character)
    )
}

/// Characters in the visible form of `character`: 8 for a code point of four hex digits, 9 for five.
pub fn visible_form_chars(character: char) -> u64 {
    if u32::from(character) > 0xFFFF {
        9
    } else {
        8
    }
}

/// The first visible form of an invisible character in `line` (`⟪U+200B⟫`), with that character.
pub fn find_visible_form(line: &str) -> Option<(&str, char)> {
    let mut rest = line;
    while let Some(at) = rest.find(VISIBLE_OPEN) {
        let after = rest.get(at + VISIBLE_OPEN.len_utf8()..).unwrap_or_default();
        let parsed = after.strip_prefix("U+").and_then(|hex| {
            let end = hex.find(VISIBLE_CLOSE)?;
            let digits = hex.get(..end)?;
            if !(4..=6).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let character = char::from_u32(u32::from_str_radix(digits, 16).ok()?)?;
            InvisibleKind::of(character)?;
            let form_len = VISIBLE_OPEN.len_utf8() + 2 + end + VISIBLE_CLOSE.len_utf8();
            Some((rest.get(at..at + form_len)?, character))
        });
        if parsed.is_some() {
            return parsed;
        }
        rest = after;
    }
    None
}

/// One invisible character of a line's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Its byte offset in the text.
    pub byte: usize,
    /// The character.
    pub character: char,
    /// Its kind.
    pub kind: InvisibleKind,
}

/// The invisible characters of one line's text, in order, and whether the window shows them escaped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineInvisibles {
    found: Vec<Found>,
    escape: bool,
}

/// Characters of a subdivision flag's tag specification: a region and a subdivision, as `gbsct`.
const FLAG_TAGS: std::ops::RangeInclusive<usize> = 3..=6;

/// Whether `character` starts or joins an emoji ZWJ sequence as a pictograph (ASCII digits, `#` and `*` are
/// emoji only in keycap sequences, never joined).
fn is_pictograph(character: char) -> bool {
    !character.is_ascii() && character.is_emoji_char()
}

/// Whether `character` is of a script whose ordinary writing puts ZWNJ and ZWJ after its letters (Arabic and
/// Persian, Syriac, the Indic scripts from Devanagari to Sinhala, where a word may end in one): after such a
/// character they shape the text, and are text.
fn uses_joiners(character: char) -> bool {
    matches!(
        character,
        '\u{0600}'..='\u{074F}'
            | '\u{0750}'..='\u{077F}'
            | '\u{08A0}'..='\u{08FF}'
            | '\u{0900}'..='\u{0DFF}'
            | '\u{FB50}'..='\u{FDFF}'
            | '\u{FE70}'..='\u{FEFE}'
    )
}

/// Emoji modifiers that may stand between a pictograph and the ZWJ after it: VS16 and the skin tones.
fn is_emoji_modifier(character: char) -> bool {
    matches!(character, '\u{FE0F}' | '\u{1F3FB}'..='\u{1F3FF}')
}

/// What follows U+1F3F4 WAVING BLACK FLAG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FlagTags {
    /// The tag characters and CANCEL TAG of a subdivision flag, this many bytes.
    Flag(usize),
    /// No subdivision flag.
    None,
    /// The text ends before it is known: tags so far, no CANCEL TAG yet.
    Unknown,
}

/// What the start of `text` (the text right after U+1F3F4 WAVING BLACK FLAG) makes of the flag.
fn flag_tags(text: &str) -> FlagTags {
    let mut spelled = String::new();
    for (byte, character) in text.char_indices() {
        match character {
            '\u{E0030}'..='\u{E0039}' | '\u{E0061}'..='\u{E007A}'
                if spelled.len() < *FLAG_TAGS.end() =>
            {
                // A tag letter or digit is its ASCII character plus 0xE0000.
                spelled.push(char::from_u32(u32::from(character) - 0xE0000).unwrap_or('?'));
                if !SUBDIVISION_FLAGS
                    .iter()
                    .any(|flag| flag.starts_with(&spelled))
                {
                    return FlagTags::None;
                }
            }
            '\u{E007F}' if SUBDIVISION_FLAGS.contains(&spelled.as_str()) => {
                return FlagTags::Flag(byte + character.len_utf8())
            }
            _ => return FlagTags::None,
        }
    }
    FlagTags::Unknown
}

/// The subdivision flags Unicode recommends for general interchange (England, Scotland, Wales), as their tags
/// spell them: any other spelling between U+1F3F4 and CANCEL TAG is hidden text, not a flag.
const SUBDIVISION_FLAGS: [&str; 3] = ["gbeng", "gbsct", "gbwls"];

/// The invisible characters of `text` in order, as [`LineInvisibles::find`] tells them (`before`, `complete`:
/// as there). Nothing is kept per character: the iterator holds the text (joined to `before` when that is not
/// empty) and a few words of state.
pub fn scan<'t>(before: &str, text: &'t str, complete: bool) -> Scan<'t> {
    let any = may_hold_invisible(text.as_bytes());
    let joined: Cow<'t, str> = if before.is_empty() || !any {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{before}{text}"))
    };
    let start = if joined.len() == text.len() {
        0
    } else {
        before.len()
    };
    Scan {
        position: if any { 0 } else { joined.len() },
        joined,
        start,
        complete,
        base: None,
        flag_end: 0,
    }
}

/// Whether `bytes` (UTF-8) may hold an invisible character: whether it holds the first bytes of one (D8 9C,
/// E2 80 8B-8F or AA-AE, E2 81 A0 or A6-A9, EF BB BF, F3 A0 80-81). Text without them (most text, prose with
/// dashes and quotes and CJK with fullwidth punctuation included) is passed over by `memchr` without decoding.
fn may_hold_invisible(bytes: &[u8]) -> bool {
    let at = |index: usize| bytes.get(index).copied().unwrap_or(0);
    memchr::memchr3_iter(0xE2, 0xEF, 0xF3, bytes).any(|index| {
        matches!(
            (at(index), at(index + 1), at(index + 2)),
            (0xE2, 0x80, 0x8B..=0x8F | 0xAA..=0xAE)
                | (0xE2, 0x81, 0xA0 | 0xA6..=0xA9)
                | (0xEF, 0xBB, 0xBF)
                | (0xF3, 0xA0, 0x80..=0x81)
        )
    }) || memchr::memchr_iter(0xD8, bytes).any(|index| at(index + 1) == 0x9C)
}

/// The iterator of [`scan`].
pub struct Scan<'t> {
    joined: Cow<'t, str>,
    /// Where `text` starts in `joined`.
    start: usize,
    complete: bool,
    /// The byte of `joined` to read next.
    position: usize,
    /// The last character that is not an emoji modifier or a tag: a ZWJ after a pictograph may join.
    base: Option<char>,
    /// Bytes up to which a flag's tags are text.
    flag_end: usize,
}

impl Iterator for Scan<'_> {
    type Item = Found;

    fn next(&mut self) -> Option<Found> {
        while let Some(character) = self.joined.get(self.position..)?.chars().next() {
            let byte = self.position;
            let after = byte + character.len_utf8();
            self.position = after;
            if byte < self.flag_end {
                continue;
            }
            if character == '\u{1F3F4}' {
                match self.joined.get(after..).map_or(FlagTags::None, flag_tags) {
                    FlagTags::Flag(len) => self.flag_end = after + len,
                    FlagTags::Unknown if !self.complete => self.flag_end = self.joined.len(),
                    _ => {}
                }
            }
            let Some(kind) = InvisibleKind::of(character) else {
                if !is_emoji_modifier(character) {
                    self.base = Some(character);
                }
                continue;
            };
            let next = self
                .joined
                .get(after..)
                .and_then(|rest| rest.chars().next());
            let joins = (character == '\u{200D}'
                && self.base.is_some_and(is_pictograph)
                && next.map_or(!self.complete, is_pictograph))
                || (matches!(character, '\u{200C}' | '\u{200D}')
                    && self.base.is_some_and(uses_joiners));
            if kind != InvisibleKind::Tag {
                self.base = Some(character);
            }
            if !joins && byte >= self.start {
                return Some(Found {
                    byte: byte - self.start,
                    character,
                    kind,
                });
            }
        }
        None
    }
}

impl LineInvisibles {
    /// The invisible characters of `text`, a line's text from some column on, when the window shows them as
    /// visible forms (`escape`; none are kept otherwise, since they change neither cost nor cut). `before` is the
    /// text of the line just before that column (a few characters, empty at the line's start), the context that
    /// tells whether the first characters of `text` are inside an emoji sequence. `complete`: `text` runs to the
    /// end of the line; otherwise a flag's tags or a ZWJ after an emoji that reach the end of `text` are taken as
    /// text (what follows them is unknown, and they are never cut inside).
    ///
    /// Memory: at most `cap` are kept (16 bytes each). A caller that can show no more than `cap - 1` visible forms
    /// (each costs at least 8 characters, or a token) loses nothing: a prefix past the last kept one costs more
    /// than it can show.
    pub fn find(
        before: &str,
        text: &str,
        complete: bool,
        escape: bool,
        cap: usize,
    ) -> LineInvisibles {
        let found = if escape {
            scan(before, text, complete).take(cap).collect()
        } else {
            Vec::new()
        };
        LineInvisibles { found, escape }
    }

    /// Whether the window shows them as visible forms (else none are kept).
    pub fn is_escaped(&self) -> bool {
        self.escape
    }

    /// Those before byte `end` of the text.
    pub fn before(&self, end: usize) -> &[Found] {
        let count = self.found.partition_point(|found| found.byte < end);
        self.found.get(..count).unwrap_or_default()
    }

    /// The characters the visible forms of those before byte `end` add to the text's own (0 unescaped).
    pub fn extra_chars_before(&self, end: usize) -> u64 {
        if !self.escape {
            return 0;
        }
        self.before(end)
            .iter()
            .map(|found| visible_form_chars(found.character) - 1)
            .sum()
    }

    /// The start of the last escaped invisible character at or below byte `at` (0 when none, or unescaped): a
    /// place a line may be cut, since each is shown apart.
    pub fn floor(&self, at: usize) -> usize {
        if !self.escape {
            return 0;
        }
        let count = self.found.partition_point(|found| found.byte <= at);
        count
            .checked_sub(1)
            .and_then(|last| self.found.get(last))
            .map_or(0, |found| found.byte)
    }

    /// `prefix` (a prefix of the text) as the window shows it: each invisible character in its visible form when
    /// escaped, else as it is.
    pub fn shown<'t>(&self, prefix: &'t str) -> Cow<'t, str> {
        let found = self.before(prefix.len());
        if !self.escape || found.is_empty() {
            return Cow::Borrowed(prefix);
        }
        Cow::Owned(shown_range(prefix, 0, prefix.len(), found.iter().copied()))
    }
}

/// Bytes `from..to` of `text` with each of `found` (in order, found on the whole of `text`) that lies inside them in
/// its visible form; the rest as it is. Empty when the range is not on character boundaries.
pub fn shown_range(
    text: &str,
    from: usize,
    to: usize,
    found: impl IntoIterator<Item = Found>,
) -> String {
    let mut shown = String::with_capacity(to.saturating_sub(from));
    let mut at = from;
    for found in found {
        if found.byte >= to {
            break;
        }
        if found.byte < from {
            continue;
        }
        shown.push_str(text.get(at..found.byte).unwrap_or_default());
        shown.push_str(&visible_form(found.character));
        at = found.byte + found.character.len_utf8();
    }
    shown.push_str(text.get(at..to).unwrap_or_default());
    shown
}

/// What a window reports of the invisible characters in its lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InvisibleReport {
    /// How many of each kind, in the order of [`InvisibleKind::ALL`].
    pub counts: [u64; 3],
    /// The first [`INVISIBLE_AT_KEPT`] of them, as (1-based line, 0-based column in the file's characters).
    pub at: Vec<(u64, u64)>,
    /// The first [`INVISIBLE_LINES_KEPT`] lines that hold any, in order.
    pub lines: Vec<u64>,
    /// Lines past those that hold any.
    pub more_lines: u64,
    /// Whether the content shows them as visible forms (else as they are).
    pub escaped: bool,
}

/// How many positions of invisible characters a window keeps for its warning.
pub const INVISIBLE_AT_KEPT: usize = 3;
/// How many lines holding invisible characters a window names.
pub const INVISIBLE_LINES_KEPT: usize = 5;

impl InvisibleReport {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// How many of `kind`.
    pub fn count(&self, kind: InvisibleKind) -> u64 {
        let index = InvisibleKind::ALL
            .iter()
            .position(|each| *each == kind)
            .unwrap_or(0);
        self.counts.get(index).copied().unwrap_or(0)
    }

    /// Notes the invisible characters `found` (in order) in `text`, the text line `line` shows from column
    /// `column` (each line of a window once).
    pub fn note(
        &mut self,
        line: u64,
        column: u64,
        text: &str,
        found: &mut dyn Iterator<Item = Found>,
    ) {
        let (mut chars, mut byte) = (0u64, 0usize);
        let mut any = false;
        for each in found {
            if !any {
                any = true;
                // A window shows each line once: every call is a new line.
                if self.lines.len() < INVISIBLE_LINES_KEPT {
                    self.lines.push(line);
                } else {
                    self.more_lines += 1;
                }
            }
            if let Some(slot) = InvisibleKind::ALL
                .iter()
                .position(|kind| *kind == each.kind)
                .and_then(|index| self.counts.get_mut(index))
            {
                *slot += 1;
            }
            if self.at.len() < INVISIBLE_AT_KEPT {
                chars += text
                    .get(byte..each.byte)
                    .map_or(0, |gap| gap.chars().count() as u64);
                byte = each.byte;
                self.at.push((line, column + chars));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found_in(text: &str) -> Vec<(usize, char)> {
        LineInvisibles::find("", text, true, true, usize::MAX)
            .found
            .iter()
            .map(|found| (found.byte, found.character))
            .collect()
    }

    #[test]
    fn every_invisible_character_starts_with_a_byte_that_may_start_one() {
        let mut invisible = 0;
        for character in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            if InvisibleKind::of(character).is_some() {
                invisible += 1;
                let mut utf8 = [0u8; 4];
                let first = character.encode_utf8(&mut utf8).as_bytes()[0];
                assert!(InvisibleKind::may_start(first), "{character:?}");
            }
        }
        assert_eq!(invisible, 128 + 5 + 4 + 2 + 1 + 5);
    }

    #[test]
    fn a_subdivision_flag_and_a_zwj_family_are_text() {
        assert_eq!(found_in("Scotland: 🏴󠁧󠁢󠁳󠁣󠁴󠁿, family: 👨‍👩‍👧, skin: 👩🏽‍💻"), vec![]);
    }

    #[test]
    fn tags_outside_a_flag_are_invisible() {
        // A flag whose tag specification spells more than a subdivision code is not a flag.
        let text = "🏴\u{E0069}\u{E0067}\u{E006E}\u{E006F}\u{E0072}\u{E0065}\u{E0073}\u{E007F}";
        assert_eq!(found_in(text).len(), 8);
        assert_eq!(found_in("🏴\u{E0041}\u{E0042}\u{E0043}\u{E007F}").len(), 4);
        assert_eq!(found_in("a\u{E0041}"), vec![(1, '\u{E0041}')]);
        // Shaped like a flag but no flag Unicode recommends: six of them could spell a sentence.
        let fake = "🏴\u{E0069}\u{E0067}\u{E006E}\u{E006F}\u{E0072}\u{E007F}";
        assert_eq!(found_in(fake).len(), 6);
        let scotland = "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
        assert_eq!(found_in(scotland), vec![]);
    }

    #[test]
    fn a_zwj_not_between_pictographs_is_invisible() {
        assert_eq!(found_in("a\u{200D}b"), vec![(1, '\u{200D}')]);
        assert_eq!(found_in("👨\u{200D}"), vec![(4, '\u{200D}')]);
        // Cut off after the ZWJ: what follows is unknown, so it stays text.
        assert!(
            LineInvisibles::find("", "👨\u{200D}", false, true, usize::MAX)
                .found
                .is_empty()
        );
        assert!(
            LineInvisibles::find("", "🏴\u{E0067}\u{E0062}", false, true, usize::MAX)
                .found
                .is_empty()
        );
        assert_eq!(found_in("1\u{200D}2"), vec![(1, '\u{200D}')]);
        // Persian and Hindi put joiners between letters in ordinary writing: text there, not in a Latin word.
        assert_eq!(found_in("می\u{200C}خواهم"), vec![]);
        assert_eq!(found_in("क्\u{200D}ष"), vec![]);
        assert_eq!(found_in("pay\u{200C}pal"), vec![(3, '\u{200C}')]);
        // A Malayalam word may end in a ZWJ (the old spelling of a chillu).
        assert_eq!(found_in("ലോക്കല്\u{200D} ഫയല്\u{200D}"), vec![]);
        assert_eq!(found_in("می\u{200B}خواهم"), vec![(4, '\u{200B}')]);
    }

    #[test]
    fn the_context_before_the_column_keeps_a_flag_text() {
        let flag = "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
        let (before, text) = flag.split_at(8);
        assert!(LineInvisibles::find(before, text, true, true, usize::MAX)
            .found
            .is_empty());
        assert_eq!(
            LineInvisibles::find("", text, true, true, usize::MAX)
                .found
                .len(),
            5
        );
    }

    #[test]
    fn the_byte_check_finds_every_invisible_character_and_passes_over_punctuation() {
        let invisible = (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|character| InvisibleKind::of(*character).is_some());
        assert_eq!(invisible.clone().count(), 128 + 12 + 5);
        for character in invisible {
            let text = format!("a{character}b");
            assert!(
                may_hold_invisible(text.as_bytes()),
                "{:X}",
                u32::from(character)
            );
        }
        assert!(!may_hold_invisible(
            "“quoted” — dash… 中文，测试。 Ж ب".as_bytes()
        ));
    }

    #[test]
    fn shown_escapes_and_counts_the_visible_forms() {
        let text = "a\u{200B}b\u{E0049}c";
        let invisibles = LineInvisibles::find("", text, true, true, usize::MAX);
        assert_eq!(invisibles.shown(text), "a⟪U+200B⟫b⟪U+E0049⟫c");
        assert_eq!(invisibles.extra_chars_before(text.len()), 7 + 8);
        assert_eq!(invisibles.shown("a\u{200B}"), "a⟪U+200B⟫");
        assert_eq!(invisibles.floor(3), 1);
        let raw = LineInvisibles::find("", text, true, false, usize::MAX);
        assert_eq!(raw.shown(text), text);
        assert_eq!(raw.extra_chars_before(text.len()), 0);
    }

    #[test]
    fn a_visible_form_is_found_with_its_character() {
        assert_eq!(
            find_visible_form("x ⟪U+E0049⟫ y"),
            Some(("⟪U+E0049⟫", '\u{E0049}'))
        );
        assert_eq!(
            find_visible_form("⟪U+0041⟫ ⟪U+202E⟫"),
            Some(("⟪U+202E⟫", '\u{202E}'))
        );
        assert_eq!(find_visible_form("⟪U+20⟫ ⟪x⟫"), None);
    }
}
