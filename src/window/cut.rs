//! Where a line may be cut: the longest prefix that fits, on a grapheme boundary.

use unicode_segmentation::GraphemeCursor;

/// The byte length and character count of the first `chars` characters of `text` (all of it when shorter).
pub(super) fn prefix_of_chars(text: &str, chars: u64) -> (usize, u64) {
    if (text.len() as u64) <= chars {
        return (text.len(), text.chars().count() as u64);
    }
    match text.char_indices().nth(chars as usize) {
        Some((byte, _)) => (byte, chars),
        None => (text.len(), text.chars().count() as u64),
    }
}

/// The largest grapheme boundary of `text` at or below `byte` (a character boundary of `text`), as a byte index;
/// 0 when there is none above 0. The end of `text` is a boundary only when `complete` (the text is the whole rest
/// of the line): otherwise the characters after it are unknown.
///
/// Streams over the text with a [`GraphemeCursor`]: no list of boundaries is built, so a cut costs no memory per
/// character. `text` is the kept text, which runs [`LOOKAHEAD_CHARS`](super::sink::LOOKAHEAD_CHARS) past any cut that can be asked for, so the
/// boundary at `byte` is known.
fn grapheme_floor(text: &str, complete: bool, byte: usize) -> usize {
    if byte == 0 {
        return 0;
    }
    if byte >= text.len() {
        if complete {
            return text.len();
        }
    } else {
        let mut cursor = GraphemeCursor::new(byte, text.len(), true);
        if cursor.is_boundary(text, 0) == Ok(true) {
            return byte;
        }
    }
    let mut cursor = GraphemeCursor::new(byte.min(text.len()), text.len(), true);
    match cursor.prev_boundary(text, 0) {
        Ok(Some(boundary)) => boundary,
        _ => 0,
    }
}

/// A prefix of `text` that is a candidate cut: (byte index, characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    byte: usize,
    chars: u64,
}

/// The text `text` with its character count, for cuts by character count.
struct CutText<'a> {
    text: &'a str,
    chars: u64,
    complete: bool,
    /// The largest cut at or below a byte that is allowed beside grapheme boundaries (0 when none).
    also: &'a dyn Fn(usize) -> usize,
}

impl<'a> CutText<'a> {
    fn new(text: &'a str, complete: bool, also: &'a dyn Fn(usize) -> usize) -> Self {
        CutText {
            text,
            chars: text.chars().count() as u64,
            complete,
            also,
        }
    }

    /// The prefix of `chars` characters (all of the text when it is shorter), cut at a character boundary.
    fn at_char(&self, chars: u64) -> Cut {
        if chars >= self.chars {
            return Cut {
                byte: self.text.len(),
                chars: self.chars,
            };
        }
        // ASCII text: a character is a byte.
        if self.text.len() as u64 == self.chars {
            return Cut {
                byte: chars as usize,
                chars,
            };
        }
        let byte = usize::try_from(chars)
            .ok()
            .and_then(|chars| self.text.char_indices().nth(chars))
            .map_or(self.text.len(), |(byte, _)| byte);
        Cut { byte, chars }
    }

    /// The longest prefix of at most `chars` characters that ends on a grapheme boundary (empty when none does).
    fn grapheme_at_or_below(&self, chars: u64) -> Cut {
        let at = self.at_char(chars);
        let byte = grapheme_floor(self.text, self.complete, at.byte)
            .max((self.also)(at.byte).min(at.byte));
        if byte == at.byte {
            return at;
        }
        let dropped = self
            .text
            .get(byte..at.byte)
            .map_or(at.chars, |slice| slice.chars().count() as u64);
        Cut {
            byte,
            chars: at.chars.saturating_sub(dropped),
        }
    }

    fn prefix(&self, cut: Cut) -> &'a str {
        self.text.get(..cut.byte).unwrap_or_default()
    }
}

/// The largest `chars` in `0..=upper` for which `holds(chars)` is true, where `holds` is true up to some point and
/// false after it; `None` when it does not hold even at 0. Tries `upper` first (in character mode the caller's
/// bound is exact, so one test decides), then bisects: `O(log upper)` tests and no memory.
fn last_holding(upper: u64, holds: &mut dyn FnMut(u64) -> bool) -> Option<u64> {
    if holds(upper) {
        return Some(upper);
    }
    if !holds(0) {
        return None;
    }
    // holds(low) and !holds(high).
    let (mut low, mut high) = (0u64, upper);
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        if holds(middle) {
            low = middle;
        } else {
            high = middle;
        }
    }
    Some(low)
}

/// The longest prefix of `text` of at most `max_chars` characters ending on a grapheme boundary for which
/// `fits(prefix, chars)` holds: (byte index, characters). Falls back to a character boundary when a single
/// grapheme cluster is longer than what fits. `fits` must hold for every shorter prefix when it holds for one
/// (the cost of a line grows with its text). `also(byte)` is the largest byte at or below `byte` where a cut is
/// allowed inside a grapheme cluster (0 for none): the start of an invisible character shown as its visible form,
/// which stands apart from the characters around it.
///
/// Memory: none per character (the boundaries are found by bisection, not listed).
pub(super) fn best_cut(
    text: &str,
    complete: bool,
    max_chars: u64,
    fits: &dyn Fn(&str, u64) -> bool,
    also: &dyn Fn(usize) -> usize,
) -> (usize, u64) {
    let cut_text = CutText::new(text, complete, also);
    let upper = max_chars.min(cut_text.chars);
    let on_grapheme = last_holding(upper, &mut |chars| {
        let cut = cut_text.grapheme_at_or_below(chars);
        fits(cut_text.prefix(cut), cut.chars)
    })
    .map(|chars| cut_text.grapheme_at_or_below(chars))
    .filter(|cut| cut.chars > 0);
    if let Some(cut) = on_grapheme {
        return (cut.byte, cut.chars);
    }
    // No grapheme boundary fits: cut at the longest character boundary that does.
    match last_holding(upper, &mut |chars| {
        let cut = cut_text.at_char(chars);
        fits(cut_text.prefix(cut), cut.chars)
    }) {
        Some(chars) => {
            let cut = cut_text.at_char(chars);
            (cut.byte, cut.chars)
        }
        None => (0, 0),
    }
}
