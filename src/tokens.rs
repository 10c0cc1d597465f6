//! A density-aware token estimate: text is split into runs of one character class, and each class is priced at
//! what byte-pair-encoding tokenizers (cl100k_base, o200k_base) spend on it, erring high.
//!
//! A flat 3.5 characters a token (the figure the read-ceiling-pager mod for Claude Code uses) lets dense text through:
//! minified JSON, base64, numbers and CJK run far below it. The prices below were checked against real tokenizers by
//! `tools/token-report` (see `docs/token-estimate.md`); a host can also report real counts so a session learns a
//! file's density (`SessionMemory::record_density`).

/// Character classes priced separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// ASCII letters (words, identifiers).
    Letter,
    /// ASCII digits.
    Digit,
    /// Spaces and tabs.
    Space,
    /// Line breaks and other ASCII control characters.
    Control,
    /// ASCII punctuation and symbols.
    Symbol,
    /// CJK ideographs, kana, hangul, fullwidth forms.
    Wide,
    /// Any other non-ASCII character.
    Other,
}

fn class_of(character: char) -> Class {
    match character {
        'a'..='z' | 'A'..='Z' => Class::Letter,
        '0'..='9' => Class::Digit,
        ' ' | '\t' => Class::Space,
        '\u{0}'..='\u{1f}' | '\u{7f}' => Class::Control,
        '!'..='~' => Class::Symbol,
        '\u{1100}'..='\u{11ff}'
        | '\u{2e80}'..='\u{a4cf}'
        | '\u{ac00}'..='\u{d7af}'
        | '\u{f900}'..='\u{faff}'
        | '\u{fe30}'..='\u{fe4f}'
        | '\u{ff00}'..='\u{ffef}'
        | '\u{20000}'..='\u{3ffff}' => Class::Wide,
        _ => Class::Other,
    }
}

/// An incremental estimate: push text, read the estimate of everything pushed so far.
#[derive(Debug, Clone)]
pub struct TokenEstimator {
    /// Tokens of finished runs, in thousandths.
    finished_milli: u64,
    class: Option<Class>,
    /// Characters in the open run.
    run: u64,
    /// The open run of letters and digits mixes both cases and digits (base64-like).
    run_has_lower: bool,
    run_has_upper: bool,
    run_has_digit: bool,
    /// The highest estimate the open run has had, in thousandths: the estimate never falls as text grows.
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
            run_has_lower: false,
            run_has_upper: false,
            run_has_digit: false,
            open_floor_milli: 0,
        }
    }

    /// Adds `text` to the estimate.
    pub fn push_str(&mut self, text: &str) {
        for character in text.chars() {
            self.push(character);
        }
    }

    /// Adds one character.
    pub fn push(&mut self, character: char) {
        let class = class_of(character);
        // Letters and digits form one "word" run so base64 and hex are seen whole.
        let merged = match class {
            Class::Digit => Class::Letter,
            other => other,
        };
        if self.class != Some(merged) {
            self.close_run();
            self.class = Some(merged);
        }
        self.run += 1;
        match character {
            'a'..='z' => self.run_has_lower = true,
            'A'..='Z' => self.run_has_upper = true,
            '0'..='9' => self.run_has_digit = true,
            _ => {}
        }
        self.open_floor_milli = self.open_run_milli();
    }

    /// The estimate of all text pushed, in whole tokens (rounded up).
    pub fn tokens(&self) -> u64 {
        (self.finished_milli + self.open_run_milli()).div_ceil(1000)
    }

    fn open_run_milli(&self) -> u64 {
        self.run_formula_milli().max(self.open_floor_milli)
    }

    fn run_formula_milli(&self) -> u64 {
        let run = self.run;
        match self.class {
            None => 0,
            Some(Class::Letter) => {
                let mixed = u64::from(self.run_has_lower)
                    + u64::from(self.run_has_upper)
                    + u64::from(self.run_has_digit);
                if run >= 16 && mixed >= 2 {
                    // base64, hex, hashes, identifiers glued together: about 2.3 characters a token.
                    run * 435 + 1000
                } else if self.run_has_digit && !self.run_has_lower && !self.run_has_upper {
                    // Numbers: tokenizers split digits into groups of three.
                    run.div_ceil(3) * 1000 + 300
                } else {
                    // Words: one token for short ones, about 4 characters a token for long ones.
                    1000 + run.saturating_sub(4) * 260
                }
            }
            Some(Class::Space) => {
                if run == 1 {
                    // A single space joins the next word's token.
                    150
                } else {
                    run.div_ceil(4) * 1000
                }
            }
            Some(Class::Control) => run * 1000,
            Some(Class::Symbol) => run * 800 + 200,
            Some(Class::Wide) => run * 1250,
            Some(Class::Other) => run * 900 + 300,
            Some(Class::Digit) => run.div_ceil(3) * 1000,
        }
    }

    fn close_run(&mut self) {
        self.finished_milli += self.open_run_milli();
        self.open_floor_milli = 0;
        self.class = None;
        self.run = 0;
        self.run_has_lower = false;
        self.run_has_upper = false;
        self.run_has_digit = false;
    }
}

/// Estimated tokens of `text`.
pub fn estimate_tokens(text: &str) -> u64 {
    let mut estimator = TokenEstimator::new();
    estimator.push_str(text);
    estimator.tokens()
}

/// Estimated tokens of a gutter `N|` for line `line`: the digits and the bar.
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
mod tests {
    use super::*;

    #[test]
    fn dense_text_costs_more_than_prose_per_character() {
        let prose = "The quick brown fox jumps over the lazy dog and keeps running.";
        let base64 = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2";
        let prose_density = prose.chars().count() as f64 / estimate_tokens(prose) as f64;
        let base64_density = base64.chars().count() as f64 / estimate_tokens(base64) as f64;
        assert!(prose_density > 3.0, "{prose_density}");
        assert!(base64_density < 2.6, "{base64_density}");
        assert!(estimate_tokens("中文的文本") >= 5);
    }

    #[test]
    fn estimate_never_decreases_as_text_grows() {
        let text = "fn main() { let x = 42; println!(\"{x}\"); } // 中文 QUJDREVGR0hJSktMTU5PUFFS 12345678";
        let mut estimator = TokenEstimator::new();
        let mut last = 0;
        for character in text.chars() {
            estimator.push(character);
            assert!(estimator.tokens() >= last);
            last = estimator.tokens();
        }
    }

    #[test]
    fn refusal_text_is_parsed() {
        let message = "File content (31204 tokens) exceeds maximum allowed tokens (25000). Use offset and limit.";
        assert_eq!(parse_refusal(message), Some((31_204, 25_000)));
        assert_eq!(
            parse_refusal("(1,234 tokens) exceeds maximum allowed tokens (1,000)"),
            Some((1_234, 1_000))
        );
        assert_eq!(parse_refusal("something else"), None);
    }
}
