//! The string a model sees for one answer, built once here so every host shows the same text.
//!
//! A window's text is its content, a blank line, the hint, then each warning meant for the model on a line of its
//! own. Warnings about the config (they start with [`CONFIG_WARNING_PREFIX`]) are for the host and are left out.
//! A stub's text is its message, and so is an error's (a `loop-blocked` read included).

use std::borrow::Cow;

use crate::config::CONFIG_WARNING_PREFIX;

/// The text of a window: `content` (with a line break added when it does not end in one), a blank line, `hint`,
/// then one line per warning that is not about the config. An empty window is its hint and warnings alone. No
/// trailing line break.
pub fn window_text(content: &str, hint: &str, warnings: &[String]) -> String {
    let model_warnings = warnings
        .iter()
        .filter(|warning| !warning.starts_with(CONFIG_WARNING_PREFIX));
    let extra: usize = model_warnings
        .clone()
        .map(|warning| warning.len() + 1)
        .sum();
    let mut text = String::with_capacity(content.len() + hint.len() + extra + 2);
    if !content.is_empty() {
        text.push_str(content);
        if !content.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
    }
    text.push_str(hint);
    for warning in model_warnings {
        text.push('\n');
        text.push_str(warning);
    }
    text
}

/// A path as the component writes it into prose (hints, notices, stubs, error messages): unchanged when it reads
/// unambiguously, else quoted and escaped as a string literal (`"notes\nold.txt"`, `"draft.txt "`,
/// `"a\u{202e}txt.exe"`). Quoted are paths with a control character (a line feed would split the hint), a bidi
/// control (it reorders what the model reads) or a line or paragraph separator anywhere, or whitespace at the start
/// or the end (invisible). The quoted form never needs quoting again, so applying this twice is safe. The JSON
/// fields that carry a path (`path`, `error.path`) keep it raw.
pub fn path_in_prose(path: &str) -> Cow<'_, str> {
    let hidden = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
            )
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    let edge = |c: Option<char>| c.is_some_and(char::is_whitespace);
    if path.chars().any(hidden) || edge(path.chars().next()) || edge(path.chars().next_back()) {
        Cow::Owned(format!("{path:?}"))
    } else {
        Cow::Borrowed(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_would_mislead_in_prose_are_quoted_and_only_those() {
        for plain in [
            "/w/a.txt",
            "/w/my notes.txt",
            "/w/名前.txt",
            "/w/\"quoted\".txt",
            "",
        ] {
            assert_eq!(path_in_prose(plain), plain);
        }
        assert_eq!(path_in_prose("/w/a\nb.txt"), "\"/w/a\\nb.txt\"");
        assert_eq!(path_in_prose("/w/draft.txt "), "\"/w/draft.txt \"");
        assert_eq!(path_in_prose(" /w/x"), "\" /w/x\"");
        assert_eq!(
            path_in_prose("/w/a\u{202e}txt.exe"),
            "\"/w/a\\u{202e}txt.exe\""
        );
        assert_eq!(path_in_prose("/w/a\tb\\c"), "\"/w/a\\tb\\\\c\"");
        // Quoting twice changes nothing.
        let once = path_in_prose("/w/a\nb.txt").into_owned();
        assert_eq!(path_in_prose(&once), once);
    }

    #[test]
    fn content_blank_line_hint_then_model_warnings() {
        let warnings = vec![
            "config max-lines 0 is invalid (from 1 to 1000000); using the default 2000."
                .to_string(),
            "[read-window: loop warning] read 3 times".to_string(),
        ];
        assert_eq!(
            window_text("1|a\n2|b\n", "Lines 1-2 of 2.", &warnings),
            "1|a\n2|b\n\nLines 1-2 of 2.\n[read-window: loop warning] read 3 times"
        );
    }

    #[test]
    fn an_empty_window_is_its_hint() {
        assert_eq!(
            window_text("", "The file is empty.", &[]),
            "The file is empty."
        );
        assert_eq!(window_text("1|a", "h", &[]), "1|a\n\nh");
    }
}
