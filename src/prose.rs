//! The words every stage shares: how a path, a count of lines, a span of lines and a number read in the prose a
//! model sees (hints, notices, stubs, error messages), and the prefix of every marker. A leaf: it imports nothing
//! from the crate, so any module can use it without a cycle.

use std::borrow::Cow;

/// Every marker this component writes into content starts with this, so `check-write` can refuse it.
pub const MARKER_PREFIX: &str = "[read-window: ";

/// A path as the component writes it into prose (hints, notices, stubs, error messages, listings): unchanged when
/// it reads unambiguously, else quoted and escaped as a string literal (`"notes\nold.txt"`, `"draft.txt "`,
/// `"a\u{202e}txt.exe"`, `"a\u{200b}b.txt"`). Quoted are paths with a control character (a line feed would split
/// the hint), a line or paragraph separator, or an invisible character as a window reports it (a bidi control
/// reorders what the model reads; a zero-width or tag character hides text; an emoji's joiner and a flag's tags
/// are text: `crate::invisible::scan`) anywhere, or whitespace at the start or the end (invisible). The quoted
/// form never needs quoting again, so applying this twice is safe. The JSON fields that carry a path (`path`,
/// `error.path`) keep it raw.
pub fn path_in_prose(path: &str) -> Cow<'_, str> {
    let hidden = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    let edge = |c: Option<char>| c.is_some_and(char::is_whitespace);
    if path.chars().any(hidden)
        || edge(path.chars().next())
        || edge(path.chars().next_back())
        || crate::invisible::scan("", path, true).next().is_some()
    {
        Cow::Owned(format!("{path:?}"))
    } else {
        Cow::Borrowed(path)
    }
}

/// The path a shown name stands for, when `shown` is written in a notation messages use for names with invisible
/// or control characters: the quoted string literal of [`path_in_prose`] (`"a\u{200b}b.txt"`, `"draft.txt "`), its
/// escapes without the quotes (`a\u{200b}b.txt`), or a suggestion's `<U+200B>`. `None` when it is not quoted and
/// holds no escape that names a character: then it is only a name.
pub fn unescape_shown(shown: &str) -> Option<String> {
    let quoted = shown
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .filter(|_| shown.len() >= 2);
    let body = quoted.unwrap_or(shown);
    let mut out = String::with_capacity(body.len());
    let mut escapes = 0usize;
    let mut rest = body;
    while let Some(at) = rest.find(['\\', '<']) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let (character, after) = match escape_at(from, quoted.is_some()) {
            Some(found) => found,
            None => {
                // Not an escape: the character is itself.
                let mut chars = from.chars();
                let first = chars.next()?;
                out.push(first);
                rest = chars.as_str();
                continue;
            }
        };
        out.push(character);
        escapes += 1;
        rest = after;
    }
    out.push_str(rest);
    (escapes > 0 || quoted.is_some()).then_some(out)
}

/// The character the escape at the start of `text` names and the text after it: `\u{XXXX}` and `<U+XXXX>`, and
/// inside a quoted literal also `\n`, `\t`, `\r`, `\0`, `\"`, `\'` and `\\`.
fn escape_at(text: &str, quoted: bool) -> Option<(char, &str)> {
    let hex_until = |rest: &str, end: char| -> Option<(char, usize)> {
        let close = rest.find(end)?;
        let hex = rest.get(..close)?;
        let code = u32::from_str_radix(hex, 16)
            .ok()
            .filter(|_| (1..=6).contains(&hex.len()))?;
        Some((char::from_u32(code)?, close + end.len_utf8()))
    };
    if let Some(rest) = text.strip_prefix("\\u{") {
        let (character, used) = hex_until(rest, '}')?;
        return Some((character, rest.get(used..)?));
    }
    if let Some(rest) = text.strip_prefix("<U+") {
        let (character, used) = hex_until(rest, '>')?;
        return Some((character, rest.get(used..)?));
    }
    if !quoted {
        return None;
    }
    let mut chars = text.chars();
    chars.next().filter(|first| *first == '\\')?;
    let character = match chars.next()? {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '0' => '\0',
        '"' => '"',
        '\'' => '\'',
        '\\' => '\\',
        _ => return None,
    };
    Some((character, chars.as_str()))
}

/// A span of lines in words: `"line 7"` when `first == last`, else `"lines 7-9"` (1-based, inclusive).
pub fn line_span(first: u64, last: u64) -> String {
    if first == last {
        format!("line {first}")
    } else {
        format!("lines {first}-{last}")
    }
}

/// `text` with its first character in upper case (`"lines 3-5"` becomes `"Lines 3-5"`), to start a sentence.
pub fn capitalized(text: &str) -> String {
    let mut characters = text.chars();
    match characters.next() {
        Some(first) => first.to_uppercase().chain(characters).collect(),
        None => String::new(),
    }
}

/// `"1 line"` or `"N lines"`: a count of lines with its noun in the right number.
pub fn line_count(count: u64) -> String {
    if count == 1 {
        "1 line".to_string()
    } else {
        format!("{count} lines")
    }
}

/// `n` with thousands separators: `60,556`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `n` with thousands separators and the noun that agrees with it: `1 line`, `2 lines`, `60,556 lines`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

/// A detected type's name (`"gzip archive"`, `"ELF executable or library"`) with the article it takes: `"a gzip
/// archive"`, `"an ELF executable or library"`; a mass noun (`"binary data (...)"`) takes none. The article
/// follows the sound: `an` before a vowel, and before names read letter by letter from a vowel-sounding letter
/// (`an MP3`, `an xz`, `an SQLite`).
pub fn with_article(kind: &str) -> String {
    if kind.starts_with("binary data") || kind.is_empty() {
        return kind.to_string();
    }
    const LETTER_NAMES: [&str; 4] = ["MP3", "MP4", "xz", "SQLite"];
    let spelled = LETTER_NAMES.iter().any(|name| {
        kind.strip_prefix(name)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ',']))
    });
    let vowel = kind
        .chars()
        .next()
        .is_some_and(|first| "aeiouAEIOU".contains(first));
    let article = if vowel || spelled { "an" } else { "a" };
    format!("{article} {kind}")
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_shown_name_unescapes_to_the_name_it_stands_for() {
        for name in [
            "/w/a\u{200b}b.txt",
            "/w/c\u{202e}d.txt",
            "/w/tab\there",
            "/w/nl\nname.txt",
            "/w/draft.txt ",
            "/w/q\"uote\u{200b}\\back",
            "/w/tag\u{e0041}",
        ] {
            let shown = path_in_prose(name);
            assert_ne!(shown, name);
            assert_eq!(unescape_shown(&shown).as_deref(), Some(name), "{shown}");
        }
        // The escapes alone (quotes dropped) and a suggestion's notation.
        assert_eq!(
            unescape_shown("/w/a\\u{200b}b.txt").as_deref(),
            Some("/w/a\u{200b}b.txt")
        );
        assert_eq!(
            unescape_shown("/w/a<U+200B>b.txt").as_deref(),
            Some("/w/a\u{200b}b.txt")
        );
        // No escape, or none that names a character: only a name.
        assert_eq!(unescape_shown("\"quoted\"").as_deref(), Some("quoted"));
        for plain in [
            "/w/plain.txt",
            "/w/a\\u{zz}b",
            "/w/a\\u{110000}",
            "<U+>",
            "a\\nb",
            "/w/<tag>",
        ] {
            assert_eq!(unescape_shown(plain), None, "{plain}");
        }
    }
    #[test]
    fn a_type_name_takes_the_article_of_its_sound() {
        assert_eq!(super::with_article("gzip archive"), "a gzip archive");
        assert_eq!(
            super::with_article("ELF executable or library"),
            "an ELF executable or library"
        );
        assert_eq!(super::with_article("MP3 audio"), "an MP3 audio");
        assert_eq!(
            super::with_article("MP4, QuickTime or HEIF media"),
            "an MP4, QuickTime or HEIF media"
        );
        assert_eq!(super::with_article("xz archive"), "an xz archive");
        assert_eq!(super::with_article("MIDI audio"), "a MIDI audio");
        assert_eq!(
            super::with_article("Ogg audio or video"),
            "an Ogg audio or video"
        );
        assert_eq!(
            super::with_article("binary data (it contains NUL bytes)"),
            "binary data (it contains NUL bytes)"
        );
    }

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
        // Zero-width and tag characters hide text; an emoji's joiner and a flag's tags do not.
        assert_eq!(path_in_prose("/w/a\u{200b}b.txt"), "\"/w/a\\u{200b}b.txt\"");
        assert_eq!(path_in_prose("/w/\u{feff}x"), "\"/w/\\u{feff}x\"");
        assert_eq!(
            path_in_prose("/w/x\u{e0041}\u{e0042}.txt"),
            "\"/w/x\\u{e0041}\\u{e0042}.txt\""
        );
        for text in [
            "/w/\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}.png",
            "/w/\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}.svg",
        ] {
            assert_eq!(path_in_prose(text), text);
        }
        // Quoting twice changes nothing.
        let once = path_in_prose("/w/a\nb.txt").into_owned();
        assert_eq!(path_in_prose(&once), once);
    }

    #[test]
    fn grouped_numbers() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(60_556), "60,556");
        assert_eq!(grouped(1_000_000), "1,000,000");
    }

    #[test]
    fn counts_and_spans_agree_in_number() {
        assert_eq!(line_count(1), "1 line");
        assert_eq!(line_count(3), "3 lines");
        assert_eq!(line_span(7, 7), "line 7");
        assert_eq!(line_span(7, 9), "lines 7-9");
        assert_eq!(plural(1, "byte", "bytes"), "1 byte");
        assert_eq!(plural(60_556, "line", "lines"), "60,556 lines");
    }
}
