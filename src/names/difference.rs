//! The wording of a not-found name's difference from an existing one: whitespace at its edges, NFD against NFC,
//! a ligature against its letters, an invisible character or a look-alike, each named by its code point.

use super::tables::{
    is_invisible, DECOMPOSITIONS, EDGE_WHITESPACE, INVISIBLE, LIGATURES, LOOK_ALIKES,
};

/// `name` with each precomposed letter of [`DECOMPOSITIONS`] decomposed (NFD for the scripts that table covers).
fn decomposed(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    for character in name.chars() {
        match DECOMPOSITIONS.binary_search_by(|(c, _)| c.cmp(&character)) {
            Ok(index) => out.push_str(DECOMPOSITIONS.get(index).map_or("", |(_, d)| *d)),
            Err(_) => out.push(character),
        }
    }
    out
}

/// `U+XXXX NAME` for a character of [`LOOK_ALIKES`], [`INVISIBLE`] or [`LIGATURES`], `U+XXXX` for any other.
fn describe(character: char) -> String {
    let code = format!("U+{:04X}", u32::from(character));
    let name = LOOK_ALIKES
        .iter()
        .find(|(c, _, _)| *c == character)
        .map(|(_, name, _)| *name)
        .or_else(|| {
            INVISIBLE
                .iter()
                .find(|(c, _)| *c == character)
                .map(|(_, name)| *name)
        })
        .or_else(|| {
            LIGATURES
                .iter()
                .find(|(c, _, _)| *c == character)
                .map(|(_, name, _)| *name)
        });
    match (name, character) {
        (Some(name), _) => format!("{code} {name}"),
        (None, ' ') => "a space".to_string(),
        (None, c) if c.is_ascii_graphic() => format!("`{c}`"),
        (None, _) => code,
    }
}

/// A name folded to what it looks like: decomposed, invisible characters dropped, look-alikes replaced,
/// ligatures spelled out.
fn skeleton(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in decomposed(name).chars() {
        if is_invisible(c) {
            continue;
        }
        if let Some(letters) = ligature_letters(c) {
            out.push_str(letters);
            continue;
        }
        out.push(
            LOOK_ALIKES
                .iter()
                .find(|(alike, _, _)| *alike == c)
                .map_or(c, |(_, _, looks)| *looks),
        );
    }
    out
}

/// The whitespace at the start and at the end of `name` (Unicode `White_Space`).
fn edges(name: &str) -> (&str, &str) {
    let trimmed_start = name.trim_start();
    let leading = &name[..name.len() - trimmed_start.len()];
    let trimmed = trimmed_start.trim_end();
    let trailing = &trimmed_start[trimmed.len()..];
    (leading, trailing)
}

/// Whitespace in words: `"a trailing space"`, `"2 leading tabs (U+0009)"`, `"a leading space and a newline
/// (U+000A LINE FEED)"`.
fn whitespace_words(whitespace: &str, edge: &str) -> String {
    let mut runs: Vec<(char, usize)> = Vec::new();
    for c in whitespace.chars() {
        match runs.last_mut() {
            Some((last, count)) if *last == c => *count += 1,
            _ => runs.push((c, 1)),
        }
    }
    let words: Vec<String> = runs
        .iter()
        .map(|(c, count)| {
            let name = EDGE_WHITESPACE
                .iter()
                .find(|(w, _)| w == c)
                .map_or_else(|| describe(*c), |(_, name)| (*name).to_string());
            if *count == 1 {
                format!("a {name}")
            } else {
                format!("{count} × {name}")
            }
        })
        .collect();
    format!("{} at the {edge}", words.join(" and "))
}

/// When `asked` and `existing` differ only in whitespace at their start or end (a trailing space, tab or newline a
/// model copied along), the difference in words; `None` otherwise.
fn whitespace_difference(asked: &str, existing: &str) -> Option<String> {
    if asked == existing || asked.trim() != existing.trim() {
        return None;
    }
    let (asked_lead, asked_trail) = edges(asked);
    let (existing_lead, existing_trail) = edges(existing);
    let mut parts = Vec::new();
    for (mine, theirs, edge) in [
        (asked_lead, existing_lead, "start"),
        (asked_trail, existing_trail, "end"),
    ] {
        if mine == theirs {
            continue;
        }
        parts.push(match (mine.is_empty(), theirs.is_empty()) {
            (false, true) => name_lacks(&whitespace_words(mine, edge)),
            (true, false) => name_has_extra(&whitespace_words(theirs, edge)),
            _ => name_has_instead(
                &whitespace_words(theirs, edge),
                &whitespace_words(mine, edge),
            ),
        });
    }
    Some(parts.join("; "))
}

/// When `existing` differs from `asked` only by invisible or look-alike characters or by normalization, the
/// difference in words, naming the code points: `the name has U+00A0 NO-BREAK SPACE where you wrote a space`.
/// `None` when the names are equal or differ in what they show.
pub fn confusable_difference(asked: &str, existing: &str) -> Option<String> {
    if let Some(difference) = whitespace_difference(asked, existing) {
        return Some(difference);
    }
    if asked == existing || skeleton(asked) != skeleton(existing) {
        return None;
    }
    let asked_nfd = decomposed(asked);
    let existing_nfd = decomposed(existing);
    if asked_nfd == existing_nfd {
        return Some(format!(
            "the name is written {} where you wrote it {}",
            normalization_form(existing),
            normalization_form(asked)
        ));
    }
    let asked_chars: Vec<char> = asked_nfd.chars().collect();
    let existing_chars: Vec<char> = existing_nfd.chars().collect();
    character_difference(&asked_chars, &existing_chars)
}

/// How `name` is normalized, in words: decomposed (NFD) when [`decomposed`] leaves it as it is, else composed.
fn normalization_form(name: &str) -> &'static str {
    if decomposed(name) == name {
        "decomposed (NFD: a letter followed by its combining accent, as macOS writes names)"
    } else {
        "composed (NFC)"
    }
}

/// The first difference between two decomposed names of the same skeleton, character by character: a ligature
/// against its letters, an invisible character on one side, or a look-alike; `None` when there is none.
fn character_difference(asked: &[char], existing: &[char]) -> Option<String> {
    let (mut i, mut j) = (0, 0);
    loop {
        let (a, e) = (asked.get(i).copied(), existing.get(j).copied());
        if let (Some(a), Some(e)) = (a, e) {
            if a != e {
                if let Some(difference) = ligature_difference(asked, i, existing, j) {
                    return Some(difference);
                }
            }
        }
        match (a, e) {
            (Some(a), Some(e)) if a == e => {
                i += 1;
                j += 1;
            }
            (_, Some(e)) if is_invisible(e) => {
                return Some(name_has_extra(&format!("an invisible {}", describe(e))));
            }
            (Some(a), _) if is_invisible(a) => {
                return Some(name_lacks(&format!("an invisible {}", describe(a))));
            }
            (Some(a), Some(e)) => return Some(name_has_instead(&describe(e), &describe(a))),
            _ => return None,
        }
    }
}

/// The difference when character `j` of `existing` is a ligature that `asked` spells out in letters from
/// character `i`, or the other way round; `None` when neither is.
fn ligature_difference(asked: &[char], i: usize, existing: &[char], j: usize) -> Option<String> {
    let (a, e) = (*asked.get(i)?, *existing.get(j)?);
    if let Some(letters) = ligature_letters(e).filter(|l| spelled_at(asked, i, l)) {
        return Some(name_has_instead(
            &format!("the ligature {}", describe(e)),
            &format!("`{letters}`"),
        ));
    }
    if let Some(letters) = ligature_letters(a).filter(|l| spelled_at(existing, j, l)) {
        return Some(name_has_instead(
            &format!("`{letters}`"),
            &format!("the ligature {}", describe(a)),
        ));
    }
    None
}

/// Whether `chars` hold `letters` from character `at` on.
fn spelled_at(chars: &[char], at: usize, letters: &str) -> bool {
    letters
        .chars()
        .enumerate()
        .all(|(k, c)| chars.get(at + k) == Some(&c))
}

/// The letters a ligature of [`LIGATURES`] stands for; `None` for any other character.
fn ligature_letters(character: char) -> Option<&'static str> {
    LIGATURES
        .iter()
        .find(|(ligature, _, _)| *ligature == character)
        .map(|(_, _, letters)| *letters)
}

/// `the name has {theirs} where you wrote {mine}`: the name holds `theirs` in place of what was asked.
fn name_has_instead(theirs: &str, mine: &str) -> String {
    format!("the name has {theirs} where you wrote {mine}")
}

/// `the name has {theirs} that you did not write`: the name holds `theirs` and the request does not.
fn name_has_extra(theirs: &str) -> String {
    format!("the name has {theirs} that you did not write")
}

/// `you wrote {mine} that the name does not have`: the request holds `mine` and the name does not.
fn name_lacks(mine: &str) -> String {
    format!("you wrote {mine} that the name does not have")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alike_and_invisible_characters_are_named_by_code_point() {
        assert_eq!(
            confusable_difference("Screen Shot 1.png", "Screen\u{00A0}Shot 1.png").as_deref(),
            Some("the name has U+00A0 NO-BREAK SPACE where you wrote a space")
        );
        assert_eq!(
            confusable_difference("data.csv", "d\u{0430}ta.csv").as_deref(),
            Some("the name has U+0430 CYRILLIC SMALL LETTER A where you wrote `a`")
        );
        assert_eq!(
            confusable_difference("notes.txt", "no\u{200B}tes.txt").as_deref(),
            Some("the name has an invisible U+200B ZERO WIDTH SPACE that you did not write")
        );
        assert_eq!(
            confusable_difference("caf\u{00E9}.txt", "cafe\u{0301}.txt").as_deref(),
            Some("the name is written decomposed (NFD: a letter followed by its combining accent, as macOS writes names) where you wrote it composed (NFC)")
        );
        assert_eq!(confusable_difference("a.txt", "b.txt"), None);
        assert_eq!(confusable_difference("a.txt", "a.txt"), None);
    }

    #[test]
    fn whitespace_at_the_edges_tabs_ligatures_and_bidi_controls_are_named() {
        assert_eq!(
            confusable_difference("os.py ", "os.py").as_deref(),
            Some("you wrote a space at the end that the name does not have")
        );
        assert_eq!(
            confusable_difference("os.py\t\n", "os.py").as_deref(),
            Some("you wrote a tab (U+0009) and a newline (U+000A LINE FEED) at the end that the name does not have")
        );
        assert_eq!(
            confusable_difference(" os.py", "os.py").as_deref(),
            Some("you wrote a space at the start that the name does not have")
        );
        assert_eq!(
            confusable_difference("notes.txt", "notes.txt  ").as_deref(),
            Some("the name has 2 × space at the end that you did not write")
        );
        assert_eq!(
            confusable_difference("a b.txt", "a\tb.txt").as_deref(),
            Some("the name has U+0009 CHARACTER TABULATION (a tab) where you wrote a space")
        );
        assert_eq!(
            confusable_difference("file.txt", "\u{FB01}le.txt").as_deref(),
            Some("the name has the ligature U+FB01 LATIN SMALL LIGATURE FI where you wrote `fi`")
        );
        assert_eq!(
            confusable_difference("\u{FB01}le.txt", "file.txt").as_deref(),
            Some("the name has `fi` where you wrote the ligature U+FB01 LATIN SMALL LIGATURE FI")
        );
        assert_eq!(
            confusable_difference("report.txt", "report\u{202E}.txt").as_deref(),
            Some("the name has an invisible U+202E RIGHT-TO-LEFT OVERRIDE that you did not write")
        );
    }
}
