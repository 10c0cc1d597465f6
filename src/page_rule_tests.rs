//! Property tests of the page rule through the native core: following the main cursor and every clamped line's
//! cursor from line 1 reconstructs the file's text exactly; every window fits its budget; no window is empty
//! while text remains; every cut lands on a grapheme boundary.

use std::collections::BTreeMap;

use proptest::prelude::*;
use unicode_segmentation::UnicodeSegmentation;

use crate::config::Budget;
use crate::decode::TextEncoding;
use crate::index::LineIndex;
use crate::scan::Scanner;
use crate::source::MemorySource;
use crate::window::{read_window, Truncation, Window, WindowRequest, WindowSettings};

/// Graphemes the generated files are made of: ASCII, multibyte, combining marks, ZWJ and flag emoji, a tab, a
/// lone carriage return, a form feed; invisible characters (a zero-width space, a tag, a bidi override), shown
/// as visible forms, and a subdivision flag, which is text.
const PIECES: &[&str] = &[
    "a",
    "b",
    " ",
    "é",
    "e\u{301}",
    "中",
    "文",
    "😀",
    "👨\u{200d}👩\u{200d}👧",
    "🇫🇷",
    "\t",
    "x",
    "\r",
    "\u{c}",
    "z",
    "\u{200b}",
    "\u{E0049}",
    "\u{202E}",
    "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
];

/// `text` with each visible form of an invisible character turned back into the character.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((form, character)) = crate::invisible::find_visible_form(rest) {
        let at = rest.find(form).unwrap_or(0);
        out.push_str(&rest[..at]);
        out.push(character);
        rest = &rest[at + form.len()..];
    }
    out.push_str(rest);
    out
}

pub(crate) fn line_strategy() -> impl Strategy<Value = String> {
    let piece = proptest::sample::select(PIECES);
    prop_oneof![
        3 => proptest::collection::vec(piece.clone(), 0..12).prop_map(|pieces| pieces.concat()),
        1 => proptest::collection::vec(piece, 40..400).prop_map(|pieces| pieces.concat()),
        1 => Just(String::new()),
    ]
}

#[derive(Debug, Clone)]
pub(crate) struct FileCase {
    pub(crate) lines: Vec<String>,
    pub(crate) crlf: Vec<bool>,
    pub(crate) trailing_newline: bool,
}

impl FileCase {
    pub(crate) fn bytes(&self) -> Vec<u8> {
        let mut text = String::new();
        for (index, line) in self.lines.iter().enumerate() {
            text.push_str(line);
            let last = index + 1 == self.lines.len();
            if !last || self.trailing_newline {
                text.push_str(if self.crlf.get(index).copied().unwrap_or(false) {
                    "\r\n"
                } else {
                    "\n"
                });
            }
        }
        text.into_bytes()
    }

    /// The lines a reader must reconstruct: a final line feed adds no line; an empty file has none.
    fn expected(&self) -> Vec<String> {
        let bytes = self.bytes();
        let text = String::from_utf8(bytes).unwrap_or_default();
        if text.is_empty() {
            return Vec::new();
        }
        let body = text.strip_suffix('\n').unwrap_or(&text);
        body.split('\n')
            .enumerate()
            .map(|(index, line)| {
                // A carriage return before a line feed is part of the line ending.
                let ended = index + 1 < body.split('\n').count() || text.ends_with('\n');
                if ended {
                    line.strip_suffix('\r').unwrap_or(line).to_string()
                } else {
                    line.to_string()
                }
            })
            .collect()
    }
}

pub(crate) fn file_strategy() -> impl Strategy<Value = FileCase> {
    (
        proptest::collection::vec(line_strategy(), 0..25),
        proptest::collection::vec(any::<bool>(), 25),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, trailing_newline)| FileCase {
            lines,
            crlf,
            trailing_newline,
        })
}

pub(crate) fn budget_strategy() -> impl Strategy<Value = Budget> {
    prop_oneof![
        (200u64..3_000).prop_map(Budget::Characters),
        (300u64..3_000, 0.5f64..1.0).prop_map(|(cap, headroom)| Budget::Tokens { cap, headroom }),
    ]
}

pub(crate) struct Reader {
    source: MemorySource,
    index: LineIndex,
    settings: WindowSettings,
}

impl Reader {
    pub(crate) fn new(bytes: Vec<u8>, settings: WindowSettings) -> Self {
        let mut source = MemorySource::new(bytes);
        let mut index = LineIndex::new(TextEncoding::Utf8, 0);
        {
            let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
            index
                .extend(&mut scanner)
                .expect("memory reads do not fail");
        }
        Reader {
            source,
            index,
            settings,
        }
    }

    pub(crate) fn read(&mut self, offset: u64, column: u64, limit: u64) -> Window {
        let mut scanner = Scanner::new(&mut self.source, TextEncoding::Utf8);
        read_window(
            &mut scanner,
            &mut self.index,
            &WindowRequest {
                offset,
                column,
                limit,
            },
            &self.settings,
            "case.txt",
        )
        .expect("every cursor the reader hands out is readable")
    }
}

/// The pieces of each line a window shows: (line, start column, text).
fn pieces_of(window: &Window) -> Vec<(u64, u64, String)> {
    let mut pieces = Vec::new();
    for (position, formatted) in window.content.split_terminator('\n').enumerate() {
        let line = window.start_line + position as u64;
        let gutter = format!("{line}|");
        let text = unescape(
            formatted
                .strip_prefix(&gutter)
                .expect("every line starts with its gutter"),
        );
        let start = if position == 0 {
            window.start_column
        } else {
            0
        };
        let shown = if let Some(clamped) = window
            .clamped_lines
            .iter()
            .find(|clamped| clamped.line == line)
        {
            Some(clamped.shown_chars)
        } else if line == window.end_line && window.next_offset == Some(line) {
            window.next_column.map(|next| next - start)
        } else {
            None
        };
        let piece: String = match shown {
            Some(chars) => text.chars().take(chars as usize).collect(),
            None => text,
        };
        pieces.push((line, start, piece));
    }
    pieces
}

fn check_window(window: &Window, settings: &WindowSettings) -> Result<(), TestCaseError> {
    prop_assert!(
        window.budget_used <= window.budget_limit,
        "window over budget: {window:?}"
    );
    prop_assert_eq!(window.budget_limit, settings.budget.limit());
    if let Budget::Characters(_) = settings.budget {
        prop_assert_eq!(window.content.chars().count() as u64, window.budget_used);
    }
    prop_assert!(
        window.lines_returned >= 1 || window.total_lines == 0,
        "empty window: {window:?}"
    );
    prop_assert_eq!(
        window.content.split_terminator('\n').count() as u64,
        window.lines_returned
    );
    for (position, (line, start, piece)) in pieces_of(window).into_iter().enumerate() {
        // A continuation (the first line of a window that starts inside it) is bounded by the budget alone.
        let continuation = position == 0 && start > 0;
        prop_assert!(
            continuation || piece.chars().count() as u64 <= settings.max_line_chars,
            "line {} over the clamp",
            line
        );
        prop_assert!(
            !continuation
                || window
                    .clamped_lines
                    .iter()
                    .all(|clamped| clamped.line != line),
            "continuation of line {} clamped",
            line
        );
    }
    // A continuation cut by the budget shows as much of its line as the budget allows: in characters, at most a
    // grapheme or a visible form (the family emoji is 5 characters, a visible form 9) and the marker's shorter
    // numbers (2 x 20 digits) short of it.
    if let Budget::Characters(_) = settings.budget {
        if window.start_column > 0
            && window.next_offset == Some(window.start_line)
            && window.next_column.is_some()
        {
            prop_assert!(
                window.budget_used + 9 + 40 > window.budget_limit,
                "continuation cut short of the budget: {:?}",
                window
            );
        }
    }
    for clamped in &window.clamped_lines {
        prop_assert!(clamped.shown_chars <= settings.max_line_chars);
        prop_assert!(clamped.shown_chars < clamped.total_chars);
    }
    Ok(())
}

/// Whether a line may be cut at `column`: a grapheme boundary, or the start of an invisible character shown as
/// its visible form (which stands apart from the characters around it).
fn is_grapheme_boundary(line: &str, column: u64) -> bool {
    if column == 0 || column == line.chars().count() as u64 {
        return true;
    }
    let byte = line
        .char_indices()
        .nth(column as usize)
        .map(|(byte, _)| byte)
        .unwrap_or(line.len());
    let shown_apart = crate::invisible::LineInvisibles::find("", line, true, true, usize::MAX)
        .floor(byte)
        == byte;
    shown_apart || line.grapheme_indices(true).any(|(start, _)| start == byte)
}

/// Follows every cursor from line 1 and returns the text of each line as read.
fn reconstruct(
    reader: &mut Reader,
    limit: u64,
    expected: &[String],
) -> Result<BTreeMap<u64, String>, TestCaseError> {
    let settings = reader.settings;
    let mut lines: BTreeMap<u64, String> = BTreeMap::new();
    let mut cursor = Some((1u64, 0u64));
    let mut windows = 0;
    while let Some((offset, column)) = cursor {
        windows += 1;
        prop_assert!(windows < 100_000, "cursors never end");
        let window = reader.read(offset, column, limit);
        check_window(&window, &settings)?;
        if window.total_lines == 0 {
            break;
        }
        for (line, start, piece) in pieces_of(&window) {
            let text = lines.entry(line).or_default();
            prop_assert_eq!(
                text.chars().count() as u64,
                start,
                "line {} piece at the wrong column",
                line
            );
            text.push_str(&piece);
            if let Some(clamped) = window
                .clamped_lines
                .iter()
                .find(|clamped| clamped.line == line)
            {
                let full = expected
                    .get(line as usize - 1)
                    .map(String::as_str)
                    .unwrap_or_default();
                prop_assert!(
                    is_grapheme_boundary(full, clamped.next_column),
                    "clamp inside a grapheme"
                );
                // Read the rest of the clamped line, one window of one line at a time.
                let mut rest = Some(clamped.next_column);
                while let Some(column) = rest {
                    let part = reader.read(line, column, 1);
                    check_window(&part, &settings)?;
                    let (_, start, piece) = pieces_of(&part).into_iter().next().expect("a line");
                    let text = lines.entry(line).or_default();
                    prop_assert_eq!(text.chars().count() as u64, start);
                    text.push_str(&piece);
                    rest = part
                        .clamped_lines
                        .first()
                        .map(|clamped| clamped.next_column)
                        .or(if part.next_offset == Some(line) {
                            part.next_column
                        } else {
                            None
                        });
                    if let Some(next) = rest {
                        prop_assert!(is_grapheme_boundary(full, next), "cut inside a grapheme");
                    }
                }
            }
        }
        if let (Some(line), Some(next)) = (window.next_offset, window.next_column) {
            let full = expected
                .get(line as usize - 1)
                .map(String::as_str)
                .unwrap_or_default();
            prop_assert!(
                is_grapheme_boundary(full, next),
                "budget cut inside a grapheme"
            );
        }
        cursor = window
            .next_offset
            .map(|offset| (offset, window.next_column.unwrap_or(0)));
    }
    Ok(lines)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::fuzz_tests::fuzz_cases(400)))]

    #[test]
    fn following_cursors_reconstructs_the_file(
        file in file_strategy(),
        max_line_chars in 16u64..200,
        budget in budget_strategy(),
        limit in 1u64..40,
        escape_invisible in any::<bool>(),
    ) {
        // Escaped, the windows' content unescaped (see `pieces_of`) is the file; raw, it is the file as it is.
        let settings = WindowSettings { max_line_chars, budget, density: 1.0, escape_invisible };
        let expected = file.expected();
        let mut reader = Reader::new(file.bytes(), settings);
        prop_assert_eq!(reader.index.total_lines(), expected.len() as u64);
        let lines = reconstruct(&mut reader, limit, &expected)?;
        let got: Vec<String> = lines.into_values().collect();
        prop_assert_eq!(got, expected);
    }
}

#[test]
fn a_450000_character_line_is_readable_to_its_end_in_both_units() {
    let line: String = "abcdefghij".repeat(45_000);
    let budgets = [
        Budget::Characters(100_000),
        Budget::Tokens {
            cap: 25_000,
            headroom: 0.9,
        },
    ];
    for (budget, max_line_chars) in budgets
        .into_iter()
        .flat_map(|budget| [(budget, 2_000), (budget, 1_000_000)])
    {
        let settings = WindowSettings {
            max_line_chars,
            budget,
            density: 1.0,
            escape_invisible: true,
        };
        let mut reader = Reader::new(line.clone().into_bytes(), settings);
        let lines =
            reconstruct(&mut reader, 2_000, std::slice::from_ref(&line)).expect("reconstructs");
        assert_eq!(lines.get(&1).map(String::len), Some(450_000));
        assert_eq!(lines.get(&1), Some(&line));
    }
}

#[test]
fn a_long_multibyte_line_is_readable_to_its_end_through_its_checkpoints() {
    let mut line = String::new();
    let mut state = 7usize;
    while line.len() < 600_000 {
        line.push_str(PIECES[state % PIECES.len()]);
        state = (state * 31 + 11) % 65_521;
    }
    let expected = vec![line.clone(), "after".to_string()];
    let bytes = format!("{line}\nafter\n").into_bytes();
    for (budget, max_line_chars) in [
        (Budget::Characters(50_000), 1_000_000),
        (Budget::Characters(100_000), 20_000),
    ] {
        let settings = WindowSettings {
            max_line_chars,
            budget,
            density: 1.0,
            escape_invisible: true,
        };
        let mut reader = Reader::new(bytes.clone(), settings);
        let lines = reconstruct(&mut reader, 10, &expected).expect("reconstructs");
        assert_eq!(lines.into_values().collect::<Vec<_>>(), expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::fuzz_tests::fuzz_cases(300)))]

    /// A continuation (a read from inside a line, at any column) and the continuations its cursor names read exactly
    /// the rest of that line: each window starts where the last one stopped, nothing is lost or repeated, each
    /// fits its budget, and only the budget (never the clamp) cuts the line.
    #[test]
    fn continuations_from_any_column_read_the_rest_of_the_line_exactly(
        file in file_strategy(),
        max_line_chars in 16u64..200,
        budget in budget_strategy(),
        limit in 1u64..40,
        line_pick in any::<proptest::sample::Index>(),
        column_pick in any::<proptest::sample::Index>(),
    ) {
        let settings = WindowSettings { max_line_chars, budget, density: 1.0, escape_invisible: true };
        let expected = file.expected();
        prop_assume!(!expected.is_empty());
        let line = line_pick.index(expected.len()) as u64 + 1;
        let full = &expected[line as usize - 1];
        let chars: Vec<char> = full.chars().collect();
        prop_assume!(chars.len() > 1);
        let start = 1 + column_pick.index(chars.len() - 1) as u64;
        let mut reader = Reader::new(file.bytes(), settings);
        let mut text = String::new();
        let mut column = Some(start);
        let mut windows = 0;
        while let Some(at) = column {
            windows += 1;
            prop_assert!(windows < 100_000, "cursors never end");
            let window = reader.read(line, at, limit);
            check_window(&window, &settings)?;
            prop_assert_eq!(window.start_column, at);
            prop_assert!(window.clamped_lines.iter().all(|clamped| clamped.line != line));
            let (first_line, first_start, piece) =
                pieces_of(&window).into_iter().next().expect("a continuation shows its line");
            prop_assert_eq!((first_line, first_start), (line, at));
            prop_assert_eq!(start + text.chars().count() as u64, at, "a piece at the wrong column");
            text.push_str(&piece);
            column = match (window.next_offset, window.next_column) {
                (Some(next_line), Some(next)) if next_line == line => {
                    prop_assert!(window.truncated_by.contains(&Truncation::MidLine));
                    Some(next)
                }
                (next_line, _) => {
                    // The line ended in this window: the cursor, if any, is a later line.
                    prop_assert!(next_line.is_none_or(|next_line| next_line > line));
                    None
                }
            };
        }
        let rest: String = chars[start as usize..].iter().collect();
        prop_assert_eq!(text, rest);
    }
}
