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
    let mut text = String::with_capacity(content.len() + tail_bytes(hint, warnings));
    text.push_str(content);
    into_window_text(text, hint, warnings)
}

/// [`window_text`] built in `content`'s own buffer: the window is not copied. The text begins with `content`'s
/// bytes, so `content.len()` taken before is where the window ends in it.
pub fn into_window_text(mut content: String, hint: &str, warnings: &[String]) -> String {
    content.reserve_exact(tail_bytes(hint, warnings));
    push_tail(&mut content, hint, warnings);
    content
}

/// What [`window_text`] puts after `content`: the line breaks that end it and make the blank line, the hint and
/// the model's warnings (for a caller that counts what a window's text holds beside its content).
pub fn window_tail(content: &str, hint: &str, warnings: &[String]) -> String {
    let mut tail = String::with_capacity(tail_bytes(hint, warnings));
    tail.push_str(breaks_after(content));
    push_hint(&mut tail, hint, warnings);
    tail
}

/// The warnings meant for the model: those not about the config.
fn model_warnings(warnings: &[String]) -> impl Iterator<Item = &String> + Clone {
    warnings
        .iter()
        .filter(|warning| !warning.starts_with(CONFIG_WARNING_PREFIX))
}

/// The bytes [`push_tail`] adds at most.
fn tail_bytes(hint: &str, warnings: &[String]) -> usize {
    let extra: usize = model_warnings(warnings)
        .map(|warning| warning.len() + 1)
        .sum();
    hint.len() + extra + 2
}

/// Appends to `text` (the window's content so far) the blank line when there is content, the hint and the model's
/// warnings.
fn push_tail(text: &mut String, hint: &str, warnings: &[String]) {
    text.push_str(breaks_after(text));
    push_hint(text, hint, warnings);
}

/// The line breaks after `content`: none for an empty window, else one to end its last line when it does not end
/// in one, and one for the blank line.
fn breaks_after(content: &str) -> &'static str {
    match (content.is_empty(), content.ends_with('\n')) {
        (true, _) => "",
        (false, true) => "\n",
        (false, false) => "\n\n",
    }
}

/// Appends `hint`, then each of the model's warnings on a line of its own.
fn push_hint(text: &mut String, hint: &str, warnings: &[String]) {
    text.push_str(hint);
    for warning in model_warnings(warnings) {
        text.push('\n');
        text.push_str(warning);
    }
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

    #[test]
    fn built_in_the_contents_buffer_the_window_is_the_texts_first_bytes() {
        let warnings = vec!["w".to_string()];
        let cases = [
            ("", "h\nw"),
            ("1|a", "1|a\n\nh\nw"),
            ("1|a\n2|b\n", "1|a\n2|b\n\nh\nw"),
        ];
        for (content, expected) in cases {
            let text = into_window_text(content.to_string(), "h", &warnings);
            assert_eq!(text, expected);
            assert_eq!(text.get(..content.len()), Some(content));
            // What a window's text holds beside its content, as `read_many` charges it.
            assert_eq!(
                format!("{content}{}", window_tail(content, "h", &warnings)),
                expected
            );
        }
    }
}
