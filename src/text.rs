//! The string a model sees for one answer, built once here so every host shows the same text.
//!
//! A window's text is its content, a blank line, the hint, then each warning meant for the model on a line of its
//! own. Warnings about the config (they start with [`CONFIG_WARNING_PREFIX`]) are for the host and are left out.
//! A stub's text is its message, and so is an error's (a `loop-blocked` read included).

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

#[cfg(test)]
mod tests {
    use super::*;

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
