//! Names a model gets almost right: a missing name that differs from an existing one only by invisible or
//! look-alike characters (a no-break space for a space, NFD against NFC, a Cyrillic `а` for a Latin `a`, a
//! zero-width space), and a path that starts with `~`, which the sandbox does not expand. Both only shape the
//! message of a `not_found` error: no other file is ever opened in place of the one asked for.
//!
//! `difference` words how a name differs from the one asked for; `tables` holds the characters it knows.

mod difference;
mod tables;

pub use difference::confusable_difference;
use tables::is_invisible;

/// `name` as a message may show it: each bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE and the like),
/// invisible character and control character written as `<U+XXXX>`, so the text around it cannot be reordered or
/// hidden. Other characters are kept.
pub fn shown_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_control() || is_invisible(c) {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// The sentence for a requested path that starts with `~`: the sandbox does not expand it (it is a name like any
/// other), and the granted roots (`` `~` is not expanded in the sandbox: ... The granted roots are /w, /data.``);
/// empty for any other path. It makes no claim about home directories: a granted root may well be one.
pub fn tilde_sentence(requested: &str, roots: &[String]) -> String {
    if !requested.starts_with('~') {
        return String::new();
    }
    format!(
        " `~` is not expanded in the sandbox (it is read as a name like any other, relative to the working directory): give the full path under a granted root, or a path relative to the working directory. The granted roots are {}.",
        roots.join(", ")
    )
}

/// The warning for a read that succeeded through a path starting with `~/`: the `~` was not expanded, so what was
/// read is under a directory literally named `~` (`resolved`, the absolute guest path read); `None` for any other
/// path.
pub fn tilde_note(requested: &str, resolved: &str) -> Option<String> {
    requested.starts_with("~/").then(|| {
        format!(
            "`~` was not expanded: {resolved} is inside a directory literally named `~`, not a home directory."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_and_control_characters_are_shown_as_code_points() {
        assert_eq!(shown_name("a\u{202E}txt.exe"), "a<U+202E>txt.exe");
        assert_eq!(shown_name("tab\there"), "tab<U+0009>here");
        assert_eq!(shown_name("plain é.txt"), "plain é.txt");
    }

    #[test]
    fn a_tilde_path_names_the_roots() {
        assert_eq!(
            tilde_sentence("~/notes.txt", &["/w".to_string(), "/data".to_string()]),
            " `~` is not expanded in the sandbox (it is read as a name like any other, relative to the working directory): give the full path under a granted root, or a path relative to the working directory. The granted roots are /w, /data."
        );
        assert_eq!(tilde_sentence("notes.txt", &["/w".to_string()]), "");
    }
}
