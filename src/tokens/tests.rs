//! Tests of the token estimate: its invariants, pushing text in pieces against a character at a time, and the
//! refusal parser.

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
    let text =
        "fn main() { let x = 42; println!(\"{x}\"); } // 中文 QUJDREVGR0hJSktMTU5PUFFS 12345678";
    let mut estimator = TokenEstimator::new();
    let mut last = 0;
    for character in text.chars() {
        estimator.push(character);
        assert!(estimator.tokens() >= last);
        last = estimator.tokens();
    }
}

/// The estimate after each character of `text` as the estimator kept it before it skipped steps: the floor
/// taken after every character.
fn floored_after_every_character(text: &str) -> Vec<u64> {
    let mut estimator = TokenEstimator::new();
    text.chars()
        .map(|character| {
            estimator.push(character);
            estimator.open_floor_milli = estimator.open_run_milli();
            estimator.tokens()
        })
        .collect()
}

/// The estimate after each character of `text`.
fn after_every_character(text: &str) -> Vec<u64> {
    let mut estimator = TokenEstimator::new();
    text.chars()
        .map(|character| {
            estimator.push(character);
            estimator.tokens()
        })
        .collect()
}

/// The estimate of `text` pushed a character at a time.
fn pushed_by_character(text: &str) -> u64 {
    after_every_character(text).last().copied().unwrap_or(0)
}

#[test]
fn the_estimate_of_a_string_is_that_of_its_characters() {
    // Runs that become random inside a stretch of lower case and stop being so later in it, and random runs of
    // lower-case letters and digits.
    for text in [
        "AAAAAAAAaaaaa ",
        "AAAAAAAAAAAAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.",
        "a1b2c3d4e5f6g7h8i9j0kkkkkkkkkkkkkkkkkkkkkkkk",
        "A1B2C3D4E5F6G7H8I9J0K1L2333333333333333333 x",
        "plain words, 12345 numbers; camelCase and SHOUT. é日😀\tend\r\n",
    ] {
        assert_eq!(estimate_tokens(text), pushed_by_character(text), "{text:?}");
        let mut estimator = TokenEstimator::new();
        let (head, tail) = text.split_at(text.len() / 2);
        estimator.push_str(head);
        estimator.push_str(tail);
        assert_eq!(
            estimator.tokens(),
            pushed_by_character(text),
            "{text:?} in two"
        );
    }
}

#[test]
fn a_run_of_one_kind_costs_what_its_characters_cost_at_every_length() {
    // Lower-case letters, capitals and digits alone, at each length around `RANDOM_MIN_RUN` (where a run of
    // capitals becomes random text) and `RANDOM_LONG_RUN`, ended by a space, a symbol, a letter of another kind
    // or the end of the text.
    for length in 1..=30 {
        for kind in ["a", "Q", "7"] {
            for end in [" x", ".", "b", "C", "8", ""] {
                let text = format!("{}{end}", kind.repeat(length));
                let mut estimator = TokenEstimator::new();
                estimator.push_str(&text);
                assert_eq!(estimator.tokens(), pushed_by_character(&text), "{text:?}");
                let milli = estimator.finished_milli + estimator.open_run_milli();
                let mut by_character = TokenEstimator::new();
                text.chars()
                    .for_each(|character| by_character.push(character));
                let by_character_milli =
                    by_character.finished_milli + by_character.open_run_milli();
                assert_eq!(milli, by_character_milli, "{text:?}");
            }
        }
    }
}

#[test]
fn tokens_is_the_highest_prefix_estimate() {
    // Second capitals after long lower-case pieces, random runs that stop being random, every class.
    let text = "  \tx  if a.b_c(d) { e += 0x9b, 17798; } \u{1b}[1;31mERROR\u{1b}[0m \\r\r\n AbcDEFghIJK1l2m3 \
                QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZn/+== ひらがなカタカナ漢字、。（） Москва 안녕 👨\u{200d}👩 ├── … \
                abcdefghijKLmnop a1B2c3D4e5F6g7h8iiiiiiiiiiiiiiiiiiiiiiiiiiiiii XyzzyQQQQQQQQQQQQ";
    let reversed: String = text.chars().rev().collect();
    for text in [text, reversed.as_str()] {
        assert_eq!(
            after_every_character(text),
            floored_after_every_character(text)
        );
    }
}

proptest::proptest! {
    #[test]
    fn tokens_is_the_highest_prefix_estimate_of_any_text(
        pieces in proptest::collection::vec(
            proptest::prop_oneof![
                6 => "[a-z]{1,12}",
                4 => "[A-Z]{1,6}",
                4 => "[0-9]{1,5}",
                3 => "[a-zA-Z0-9]{1,40}",
                2 => "[ \t._(/+=-]{1,3}",
                1 => "[\n\u{1b}漢カ、éЖ€😀]",
            ],
            0..60,
        )
    ) {
        let text = pieces.concat();
        proptest::prop_assert_eq!(after_every_character(&text), floored_after_every_character(&text));
        proptest::prop_assert_eq!(estimate_tokens(&text), pushed_by_character(&text));
    }
}

proptest::proptest! {
    /// Runs priced whole (`price_whole_runs`) and stretches taken at once cost what they cost a character at a
    /// time, wherever the text is cut between `push_str` calls.
    #[test]
    fn the_estimate_of_any_text_in_any_cuts_is_that_of_its_characters(
        pieces in proptest::collection::vec(
            proptest::prop_oneof![
                4 => "[a-z]{1,8}",
                3 => "[A-Z][a-z]{0,6}",
                2 => "[A-Z]{1,4}",
                3 => "[0-9]{1,5}",
                2 => "[a-zA-Z0-9]{8,30}",
                5 => "[ \t]{1,4}",
                5 => r#"[-.,;:(){}<>!?/*+=_\\"'#@]{1,4}"#,
                1 => "\r?\n|\u{1b}\\[[0-9;]{1,4}m",
                1 => "[éЖ€😀漢カ、\u{200b}]{1,2}",
            ],
            0..40,
        ),
        cuts in proptest::collection::vec(0usize..400, 0..4),
    ) {
        let text = pieces.concat();
        let mut bounds: Vec<usize> = cuts
            .iter()
            .map(|cut| cut % (text.len() + 1))
            .filter(|cut| text.is_char_boundary(*cut))
            .collect();
        bounds.push(0);
        bounds.push(text.len());
        bounds.sort_unstable();
        let mut estimator = TokenEstimator::new();
        for pair in bounds.windows(2) {
            estimator.push_str(&text[pair[0]..pair[1]]);
        }
        proptest::prop_assert_eq!(estimator.tokens(), pushed_by_character(&text));
    }
}

#[test]
fn estimate_never_decreases_in_any_class() {
    let text = "  \tx  if a.b_c(d) { e += 0x9b, 17798; } \u{1b}[1;31mERROR\u{1b}[0m \\r\r\n AbcDEFghIJK1l2m3n4o5p6q7r8s9 \
                QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZn/+== ひらがなカタカナ漢字、。（） Москва für naïve ελληνικά \
                שלום नमस्ते 안녕하세요 👨\u{200d}👩\u{200d}👧 🇯🇵 ├── € … 3.14e-5,2024-01-02";
    let mut estimator = TokenEstimator::new();
    let mut last = 0;
    for character in text.chars() {
        estimator.push(character);
        assert!(estimator.tokens() >= last, "fell at {character:?}");
        last = estimator.tokens();
    }
}

#[test]
fn no_character_costs_less_than_an_eighth_of_a_token() {
    let long_word = "a".repeat(500);
    let spaces = " ".repeat(300);
    let tabs = "\t".repeat(300);
    let symbols = "=".repeat(300);
    let accents = "é".repeat(300);
    let combining = "e\u{301}".repeat(150);
    let digits = "7".repeat(300);
    let capitals = "Q".repeat(300);
    let mixed = "ab ".repeat(100);
    for text in [
        &long_word, &spaces, &tabs, &symbols, &accents, &combining, &digits, &capitals, &mixed,
    ] {
        let chars = text.chars().count() as u64;
        assert!(
            estimate_tokens(text) * 8 >= chars,
            "{chars} characters of {:?}",
            &text[..4]
        );
    }
}

#[test]
fn numbers_and_base64_are_priced_as_tokenizers_cut_them() {
    // Three digits a group: "12345678" is 123|456|78 to both tokenizers.
    assert!(estimate_tokens("12345678") >= 3);
    // A long mixed-case run is random text, about a token for 1.2 to 1.5 characters.
    let base64 = "IGluIHdvdWxkIHdhcyAtIHRvIHRoYXQgYXMgZmFjZSB0aGF0IC06IFRvIGZvciBiZWNhdXNlIHdl";
    assert!(estimate_tokens(base64) as f64 >= base64.len() as f64 / 1.5);
    // A common word is about one token.
    assert!(estimate_tokens("window") <= 2);
}

#[test]
fn refusal_text_is_parsed() {
    let message =
        "File content (31204 tokens) exceeds maximum allowed tokens (25000). Use offset and limit.";
    assert_eq!(parse_refusal(message), Some((31_204, 25_000)));
    assert_eq!(
        parse_refusal("(1,234 tokens) exceeds maximum allowed tokens (1,000)"),
        Some((1_234, 1_000))
    );
    assert_eq!(parse_refusal("something else"), None);
}
