//! A density-aware token estimate: text is split into runs of one character class, and each run is priced at what
//! byte-pair-encoding tokenizers (o200k_base, cl100k_base) spend on it, erring high.
//!
//! A flat 3.5 characters a token (the figure the read-ceiling-pager mod for Claude Code uses) lets dense text through:
//! minified JSON, base64, numbers and CJK run far below it. The estimate follows how those tokenizers cut text before
//! merging bytes: letters and digits are separate pieces, digits go in groups of three, a lower-to-upper case change
//! starts a new piece, one space or one symbol joins the word after it, runs of punctuation and of spaces are one
//! piece each. Each piece is priced from measurement.
//!
//! Every price below was measured with `tools/token-report` (see `docs/token-estimate.md`), which counts the same
//! windows with tiktoken's o200k_base and cl100k_base over a generated corpus of twelve kinds of text (source code,
//! prose, Markdown, YAML, minified JSON, base64, CSV of numbers, Chinese, Japanese, logs with ANSI colours, other
//! scripts and emoji) and tunes for never under-estimating either tokenizer while over-estimating by as little as the
//! two allow. Where they disagree (CJK and most non-Latin scripts cost o200k_base far fewer tokens), the price follows
//! the dearer one. A host can also report real counts so a session learns a file's density
//! (`SessionMemory::record_density`).
//!
//! Two invariants hold for any text: the estimate never decreases as text is pushed, and no character costs less than
//! 1/8 of a token (`window.rs` bounds the characters a budget can hold on it).

/// Prices, in thousandths of a token.
mod price {
    /// A piece of letters (a word, or one case-run of an identifier) up to `WORD_FREE` letters.
    pub const WORD: u64 = 1313;
    /// Letters of a word piece that are covered by `WORD`.
    pub const WORD_FREE: u64 = 6;
    /// Each letter of a word piece past `WORD_FREE`: long and rare words split into several tokens.
    pub const WORD_EXTRA: u64 = 181;
    /// Letters of an upper-case piece (two or more capitals, as `HTTP` or base64's `QUJD`) covered by `WORD`.
    pub const CAPS_FREE: u64 = 11;
    /// Each further letter of an upper-case piece: capitals merge less than lower case.
    pub const CAPS_EXTRA: u64 = 323;
    /// A group of up to three digits: both tokenizers split numbers into groups of three.
    pub const DIGITS: u64 = 1304;
    /// A run of letters and digits at least this long that changes case and kind often (see `RANDOM_CHANGES`) is
    /// random text: base64, hashes, hex.
    pub const RANDOM_MIN_RUN: u64 = 12;
    /// A run is random when its changes reach this many a thousand characters; a change is a piece break (letter to
    /// digit or back, lower to upper case) or a capital after a capital.
    pub const RANDOM_CHANGES: u64 = 490;
    /// What a capital after a capital counts for, in thousandths of a change.
    pub const CAPITAL_PAIR: u64 = 855;
    /// A run of letters and digits this long that mixes lower case with capitals or digits is random text whatever
    /// its changes: no word or identifier runs that long without a separator.
    pub const RANDOM_LONG_RUN: u64 = 24;
    /// A random run costs this much a character, plus `RANDOM_BASE` (when more than its pieces cost).
    pub const RANDOM_CHAR: u64 = 840;
    /// See `RANDOM_CHAR`.
    pub const RANDOM_BASE: u64 = 722;
    /// One space: it usually joins the word or symbol after it.
    pub const SPACE: u64 = 125;
    /// Extra for one space before a digit, which tokenizers keep apart.
    pub const SPACE_BEFORE_DIGIT: u64 = 600;
    /// Two or more spaces or tabs (indentation): one token, whatever the length, down to the 1/8 floor.
    pub const SPACES: u64 = 166;
    /// A run of ASCII punctuation, while it may still join the word after it.
    pub const SYMBOL: u64 = 510;
    /// Each further character of a run of punctuation.
    pub const SYMBOL_EXTRA: u64 = 150;
    /// Extra for a run of punctuation that does not join a word: it is longer than one character, or what follows
    /// is not a letter.
    pub const SYMBOL_ALONE: u64 = 328;
    /// An ASCII control character (escape of an ANSI colour code, carriage return): a token of its own.
    pub const CONTROL: u64 = 1000;
    /// A CJK ideograph or a Hangul syllable: cl100k_base spends one to two tokens on most.
    pub const HAN: u64 = 1350;
    /// A kana.
    pub const KANA: u64 = 1199;
    /// CJK and fullwidth punctuation and forms.
    pub const WIDE_SYMBOL: u64 = 1134;
    /// A run of other non-ASCII characters, beside the price of each.
    pub const OTHER_RUN: u64 = 396;
    /// Accented Latin and combining marks (U+0080 to U+02FF, U+1E00 to U+1EFF): mostly inside words already paid
    /// (the run price and the 1/8 floor still apply).
    pub const LATIN: u64 = 0;
    /// Cyrillic.
    pub const CYRILLIC: u64 = 425;
    /// General punctuation, arrows, currency, box drawing and other symbols (U+2000 to U+2BFF).
    pub const SYMBOLS: u64 = 849;
    /// Any other two-byte character (Greek, Hebrew, Arabic, ...): cl100k_base spends about one token on each.
    pub const OTHER_2: u64 = 1082;
    /// Any other three-byte character (Devanagari, Thai, ...).
    pub const OTHER_3: u64 = 1128;
    /// A four-byte character (emoji, rare ideographs): two or three tokens in cl100k_base.
    pub const OTHER_4: u64 = 2675;
    /// The least any character costs: an eighth of a token.
    pub const FLOOR: u64 = 125;
}

/// Character classes: a run is a maximal stretch of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// ASCII letters and digits: one run, priced by its pieces.
    Alphanumeric,
    /// Spaces and tabs.
    Space,
    /// Line breaks and other ASCII control characters.
    Control,
    /// ASCII punctuation and symbols.
    Symbol,
    /// CJK ideographs and Hangul.
    Han,
    /// Hiragana and katakana.
    Kana,
    /// CJK punctuation, fullwidth and compatibility forms.
    WideSymbol,
    /// Any other non-ASCII character, priced one by one (`other_price`).
    Other,
}

const fn class_of(character: char) -> Class {
    match character {
        'a'..='z' | 'A'..='Z' | '0'..='9' => Class::Alphanumeric,
        ' ' | '\t' => Class::Space,
        '\u{0}'..='\u{1f}' | '\u{7f}' => Class::Control,
        '!'..='~' => Class::Symbol,
        '\u{3040}'..='\u{30ff}' | '\u{31f0}'..='\u{31ff}' => Class::Kana,
        '\u{3000}'..='\u{303f}' | '\u{fe30}'..='\u{fe4f}' | '\u{ff00}'..='\u{ffef}' => {
            Class::WideSymbol
        }
        '\u{1100}'..='\u{11ff}'
        | '\u{2e80}'..='\u{2fff}'
        | '\u{3100}'..='\u{31ef}'
        | '\u{3200}'..='\u{a4cf}'
        | '\u{ac00}'..='\u{d7af}'
        | '\u{f900}'..='\u{faff}'
        | '\u{20000}'..='\u{3ffff}' => Class::Han,
        _ => Class::Other,
    }
}

/// The class of each ASCII byte.
const ASCII_CLASS: [Class; 128] = {
    let mut table = [Class::Control; 128];
    let mut byte = 0;
    while byte < 128 {
        table[byte] = class_of(byte as u8 as char);
        byte += 1;
    }
    table
};

/// The class of an ASCII byte; `None` for a byte of a multi-byte character.
fn ascii_class(byte: u8) -> Option<Class> {
    ASCII_CLASS.get(usize::from(byte)).copied()
}

/// Whether ASCII `next` continues a piece of `byte`'s kind with no break: both lower-case letters or both digits.
fn same_kind(byte: u8, next: u8) -> bool {
    (byte.is_ascii_lowercase() && next.is_ascii_lowercase())
        || (byte.is_ascii_digit() && next.is_ascii_digit())
}

/// The price of one character of the `Other` class.
fn other_price(character: char) -> u64 {
    match character {
        '\u{80}'..='\u{2ff}' | '\u{1e00}'..='\u{1eff}' => price::LATIN,
        '\u{400}'..='\u{52f}' => price::CYRILLIC,
        '\u{2000}'..='\u{2bff}' => price::SYMBOLS,
        _ => match character.len_utf8() {
            2 => price::OTHER_2,
            3 => price::OTHER_3,
            _ => price::OTHER_4,
        },
    }
}

/// What the last character of an alphanumeric run was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Lower,
    Upper,
    Digit,
}

impl Last {
    /// The kind of an ASCII letter or digit.
    fn of(character: char) -> Last {
        match character {
            '0'..='9' => Last::Digit,
            'A'..='Z' => Last::Upper,
            _ => Last::Lower,
        }
    }
}

/// Whether a letter or digit of `kind` after `last` starts a new piece: letters to digits and back, lower case to
/// upper case.
fn is_piece_break(last: Option<Last>, kind: Last) -> bool {
    match (last, kind) {
        (None, _) | (Some(Last::Digit), Last::Digit) => false,
        (Some(Last::Digit), _) | (Some(_), Last::Digit) => true,
        (Some(Last::Lower), Last::Upper) => true,
        (Some(_), _) => false,
    }
}

/// The price of a piece of `length` characters with `capitals` capitals, whose last character was `last`.
fn piece_milli(length: u64, capitals: u64, last: Option<Last>) -> u64 {
    if length == 0 {
        0
    } else if last == Some(Last::Digit) {
        length.div_ceil(3) * price::DIGITS
    } else if capitals >= 2 {
        price::WORD + length.saturating_sub(price::CAPS_FREE) * price::CAPS_EXTRA
    } else {
        price::WORD + length.saturating_sub(price::WORD_FREE) * price::WORD_EXTRA
    }
}

/// The formula of a run of `run` characters of a class priced by its length alone (any but `Alphanumeric` and
/// `Other`), before the 1/8 floor.
fn uniform_run_milli(class: Class, run: u64) -> u64 {
    match class {
        Class::Space if run == 1 => price::SPACE,
        Class::Space => price::SPACES,
        Class::Control => run * price::CONTROL,
        Class::Symbol => price::SYMBOL + run.saturating_sub(1) * price::SYMBOL_EXTRA,
        Class::Han => run * price::HAN,
        Class::Kana => run * price::KANA,
        Class::WideSymbol => run * price::WIDE_SYMBOL,
        Class::Alphanumeric | Class::Other => 0,
    }
}

/// What a finished run of `run` characters of `class` costs beyond its formula because of the byte `next` after
/// it (the first byte of the next character): a lone space before a digit, punctuation that joins no word.
fn alone_milli(class: Class, run: u64, next: u8) -> u64 {
    match class {
        Class::Symbol if run > 1 || !next.is_ascii_alphabetic() => price::SYMBOL_ALONE,
        Class::Space if run == 1 && next.is_ascii_digit() => price::SPACE_BEFORE_DIGIT,
        _ => 0,
    }
}

/// How many bytes at the start of `bytes` are ASCII of `class`.
fn ascii_run_length(bytes: &[u8], class: Class) -> usize {
    bytes
        .iter()
        .take_while(|byte| ascii_class(**byte) == Some(class))
        .count()
}

/// The length and estimate of the alphanumeric run `bytes` start with, when it is shorter than `RANDOM_MIN_RUN`
/// (which no random-text rule reaches): its pieces, at least the 1/8 floor; `None` for a longer run. The same as
/// pushing its characters (`push_alphanumeric`) and closing it.
fn short_alphanumeric_run(bytes: &[u8]) -> Option<(u64, u64)> {
    // The common run, of lower-case letters, capitals or digits alone, is one piece: its length is found in a
    // loop of one test a byte.
    let leading = |of_kind: fn(&u8) -> bool| bytes.iter().take_while(|byte| of_kind(byte)).count();
    let uniform = match bytes.first() {
        Some(byte) if byte.is_ascii_lowercase() => {
            Some((leading(u8::is_ascii_lowercase), Last::Lower))
        }
        Some(byte) if byte.is_ascii_digit() => Some((leading(u8::is_ascii_digit), Last::Digit)),
        Some(byte) if byte.is_ascii_uppercase() => {
            Some((leading(u8::is_ascii_uppercase), Last::Upper))
        }
        _ => None,
    };
    if let Some((same, last)) = uniform {
        if !bytes.get(same).is_some_and(u8::is_ascii_alphanumeric) {
            let length = same as u64;
            if length >= price::RANDOM_MIN_RUN {
                return None;
            }
            let capitals = if last == Last::Upper { length } else { 0 };
            return Some((
                length,
                piece_milli(length, capitals, Some(last)).max(length * price::FLOOR),
            ));
        }
    }
    let (mut pieces, mut piece, mut capitals, mut last) = (0, 0, 0, None);
    let mut length = 0;
    for &byte in bytes {
        if !byte.is_ascii_alphanumeric() {
            break;
        }
        if length + 1 == price::RANDOM_MIN_RUN {
            return None;
        }
        let kind = Last::of(char::from(byte));
        if is_piece_break(last, kind) {
            pieces += piece_milli(piece, capitals, last);
            piece = 0;
            capitals = 0;
        }
        piece += 1;
        capitals += u64::from(kind == Last::Upper);
        last = Some(kind);
        length += 1;
    }
    Some((
        length,
        (pieces + piece_milli(piece, capitals, last)).max(length * price::FLOOR),
    ))
}

/// An incremental estimate: push text, read the estimate of everything pushed so far.
///
/// One pass, constant state, no allocation. The estimate never decreases as text is pushed, and every character
/// costs at least 1/8 of a token.
#[derive(Debug, Clone)]
pub struct TokenEstimator {
    /// Tokens of finished runs, in thousandths.
    finished_milli: u64,
    /// The class of the open run (`None` before the first character).
    class: Option<Class>,
    /// Characters in the open run.
    run: u64,
    /// Alphanumeric run: thousandths of its finished pieces.
    pieces_milli: u64,
    /// Alphanumeric run: piece breaks so far (letters to digits and back, lower case to upper case).
    breaks: u64,
    /// Alphanumeric run: capitals right after a capital.
    capital_pairs: u64,
    /// Alphanumeric run: it has a lower-case letter, a capital or a digit.
    has_lower: bool,
    has_capital: bool,
    has_digit: bool,
    /// Alphanumeric run: the open piece's length and its capitals.
    piece: u64,
    piece_capitals: u64,
    /// Alphanumeric run: the kind of its last character.
    last: Option<Last>,
    /// Other run: the sum of its characters' prices.
    other_milli: u64,
    /// The highest estimate the open run had before its last step that could lower it, in thousandths: with the
    /// formula now, the highest it has had (`open_run_milli`), so the estimate never falls as text grows.
    open_floor_milli: u64,
}

impl Default for TokenEstimator {
    fn default() -> Self {
        Self::new()
    }
}

impl TokenEstimator {
    /// An empty estimate.
    pub fn new() -> Self {
        TokenEstimator {
            finished_milli: 0,
            class: None,
            run: 0,
            pieces_milli: 0,
            breaks: 0,
            capital_pairs: 0,
            has_lower: false,
            has_capital: false,
            has_digit: false,
            piece: 0,
            piece_capitals: 0,
            last: None,
            other_milli: 0,
            open_floor_milli: 0,
        }
    }

    /// Adds `text` to the estimate: the same as pushing each character
    /// (`the_estimate_of_a_string_is_that_of_its_characters`), with the ASCII runs that end inside `text` priced
    /// whole where they can be (`price_whole_runs`) and a stretch of lower-case letters or of digits taken at once.
    pub fn push_str(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut at = 0;
        while let Some(&byte) = bytes.get(at) {
            if let Some(class) = ascii_class(byte) {
                if self.class != Some(class) {
                    self.close_run(char::from(byte));
                    at = self.price_whole_runs(bytes, at);
                    if bytes.get(at).is_none_or(|byte| !byte.is_ascii()) {
                        continue;
                    }
                }
                let Some(&byte) = bytes.get(at) else {
                    break;
                };
                self.push(char::from(byte));
                at += 1;
                if byte.is_ascii_lowercase() || byte.is_ascii_digit() {
                    let rest = bytes.get(at..).unwrap_or_default();
                    let same = rest
                        .iter()
                        .take_while(|next| same_kind(byte, **next))
                        .count();
                    self.extend_piece(same as u64);
                    at += same;
                }
            } else {
                let Some(character) = text.get(at..).and_then(|rest| rest.chars().next()) else {
                    break;
                };
                self.push(character);
                at += character.len_utf8();
            }
        }
    }

    /// With no run open, prices whole each ASCII run from `at` that ends inside `bytes` (an alphanumeric one only
    /// while shorter than `RANDOM_MIN_RUN`) and returns where the first run it leaves starts: the one that reaches
    /// the end, a longer alphanumeric one, or a non-ASCII character. The same as pushing their characters.
    fn price_whole_runs(&mut self, bytes: &[u8], mut at: usize) -> usize {
        let mut finished_milli = 0;
        while let Some(class) = bytes.get(at).and_then(|byte| ascii_class(*byte)) {
            let rest = bytes.get(at..).unwrap_or_default();
            let (length, run_milli) = if class == Class::Alphanumeric {
                match short_alphanumeric_run(rest) {
                    Some(run) => run,
                    None => break,
                }
            } else {
                let length = ascii_run_length(rest, class) as u64;
                (
                    length,
                    uniform_run_milli(class, length).max(length * price::FLOOR),
                )
            };
            let Some(&next) = rest.get(length as usize) else {
                break;
            };
            finished_milli += run_milli + alone_milli(class, length, next);
            at += length as usize;
        }
        self.finished_milli += finished_milli;
        at
    }

    /// Adds `count` more characters of the kind the open alphanumeric piece ended with (lower-case letters or
    /// digits): the piece and the run grow, with no break or capital pair.
    ///
    /// With its changes fixed, the run is random at the lengths from `RANDOM_MIN_RUN` up to the last its changes
    /// cover, and its formula grows there: of the steps `push` would take the floor before, the one at the longest
    /// such length has the highest formula, and is the only one taken here.
    fn extend_piece(&mut self, mut count: u64) {
        let last_random = self.changes() / price::RANDOM_CHANGES;
        let last_step_from = (self.run + count).saturating_sub(1);
        let until = last_step_from.min(last_random);
        if count > 0 && until >= self.run.max(price::RANDOM_MIN_RUN) {
            let steps = until - self.run;
            self.run += steps;
            self.piece += steps;
            count -= steps;
            self.open_floor_milli = self.open_run_milli();
        }
        self.run += count;
        self.piece += count;
    }

    /// Adds one character.
    #[inline]
    pub fn push(&mut self, character: char) {
        let class = class_of(character);
        if self.class != Some(class) {
            self.close_run(character);
            self.class = Some(class);
        }
        match class {
            Class::Alphanumeric => self.push_alphanumeric(character),
            Class::Other => {
                self.run += 1;
                self.other_milli += other_price(character);
            }
            // Every other class's formula grows with its run: the floor needs no update.
            _ => self.run += 1,
        }
    }

    /// Adds a letter or digit to the open alphanumeric run.
    ///
    /// The run's formula falls at one step only: a character after which the run no longer changes often enough to
    /// be random. Before such a step the floor takes the formula; between them the formula does not fall, so the
    /// highest estimate of every prefix is the floor or the formula now (`open_run_milli`), as
    /// `tokens_is_the_highest_prefix_estimate` checks. (A piece's second capital switches it to the upper-case
    /// price, but capitals open a piece, so that is its second letter, where both prices are `WORD`.)
    fn push_alphanumeric(&mut self, character: char) {
        let kind = Last::of(character);
        if self.changes_often() {
            self.open_floor_milli = self.open_run_milli();
        }
        self.run += 1;
        if is_piece_break(self.last, kind) {
            self.pieces_milli += self.piece_milli();
            self.breaks += 1;
            self.piece = 0;
            self.piece_capitals = 0;
        }
        self.piece += 1;
        match kind {
            Last::Lower => self.has_lower = true,
            Last::Upper => self.has_capital = true,
            Last::Digit => self.has_digit = true,
        }
        if kind == Last::Upper {
            self.piece_capitals += 1;
            if self.last == Some(Last::Upper) {
                self.capital_pairs += 1;
            }
        }
        self.last = Some(kind);
    }

    /// Whether the open alphanumeric run changes case and kind often enough to be random text (`RANDOM_CHANGES`).
    fn changes_often(&self) -> bool {
        self.run >= price::RANDOM_MIN_RUN && self.changes() >= price::RANDOM_CHANGES * self.run
    }

    /// The open alphanumeric run's changes, in thousandths: its piece breaks and its capitals after a capital.
    fn changes(&self) -> u64 {
        self.breaks * 1000 + self.capital_pairs * price::CAPITAL_PAIR
    }

    /// The estimate of all text pushed, in whole tokens (rounded up).
    pub fn tokens(&self) -> u64 {
        (self.finished_milli + self.open_run_milli()).div_ceil(1000)
    }

    fn open_run_milli(&self) -> u64 {
        self.run_formula_milli().max(self.open_floor_milli)
    }

    /// The open piece of an alphanumeric run.
    fn piece_milli(&self) -> u64 {
        piece_milli(self.piece, self.piece_capitals, self.last)
    }

    fn run_formula_milli(&self) -> u64 {
        let run = self.run;
        let formula = match self.class {
            None => 0,
            Some(Class::Alphanumeric) => {
                let pieces = self.pieces_milli + self.piece_milli();
                let changes_often = self.changes_often();
                let long_mixed = run >= price::RANDOM_LONG_RUN
                    && self.has_lower
                    && (self.has_capital || self.has_digit);
                if changes_often || long_mixed {
                    pieces.max(price::RANDOM_BASE + run * price::RANDOM_CHAR)
                } else {
                    pieces
                }
            }
            Some(Class::Other) => price::OTHER_RUN + self.other_milli,
            Some(class) => uniform_run_milli(class, run),
        };
        formula.max(run * price::FLOOR)
    }

    /// Ends the open run before `next`: what follows decides whether a lone space or symbol stands alone.
    fn close_run(&mut self, next: char) {
        let alone = self.class.map_or(0, |class| {
            alone_milli(class, self.run, u8::try_from(next).unwrap_or(0x80))
        });
        self.finished_milli += self.open_run_milli() + alone;
        self.open_floor_milli = 0;
        self.class = None;
        self.run = 0;
        self.pieces_milli = 0;
        self.breaks = 0;
        self.capital_pairs = 0;
        self.has_lower = false;
        self.has_capital = false;
        self.has_digit = false;
        self.piece = 0;
        self.piece_capitals = 0;
        self.last = None;
        self.other_milli = 0;
    }
}

/// Estimated tokens of `text`.
pub fn estimate_tokens(text: &str) -> u64 {
    let mut estimator = TokenEstimator::new();
    estimator.push_str(text);
    estimator.tokens()
}

/// Estimated tokens of a gutter `N|` for line `line`: the digits in groups of three and the bar.
pub fn gutter_tokens(line: u64) -> u64 {
    let digits = line.checked_ilog10().unwrap_or(0) as u64 + 1;
    digits.div_ceil(3) + 1
}

/// Parses an engine's refusal such as "File content (31204 tokens) exceeds maximum allowed tokens (25000)":
/// returns the refused count and the cap.
pub fn parse_refusal(message: &str) -> Option<(u64, u64)> {
    let refused = number_before(message, "tokens)")?;
    let marker = "maximum allowed tokens";
    let rest = &message[message.find(marker)? + marker.len()..];
    let open = rest.find('(')?;
    let digits: String = rest[open + 1..]
        .chars()
        .take_while(|character| {
            character.is_ascii_digit() || *character == ',' || *character == '_'
        })
        .filter(char::is_ascii_digit)
        .collect();
    let cap = digits.parse().ok()?;
    Some((refused, cap))
}

fn number_before(message: &str, marker: &str) -> Option<u64> {
    let end = message.find(marker)?;
    let before = message[..end].trim_end();
    let digits: String = before
        .chars()
        .rev()
        .take_while(|character| {
            character.is_ascii_digit() || *character == ',' || *character == '_'
        })
        .filter(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests;
