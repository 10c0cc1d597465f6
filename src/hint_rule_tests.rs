//! Property tests of the hint against the window's own fields, over random files (clamps, budgets, limits,
//! columns, empty and one-line files, invalid bytes): "the whole file" / "the end of the file" appear exactly when
//! nothing from the requested position to the end is unshown; every number in the hint is one of the result's
//! fields; the continuation names exactly `next_offset`/`next_column`; every other `offset=L column=C` is a clamped
//! line's cursor; the lossy-decode sentence appears exactly when bytes were replaced. Every clamped line's rest is
//! read by continuations (reads from inside the line) to its end, each hint checked the same way.

use proptest::prelude::*;

use crate::config::Budget;
use crate::hint::{hint, CLAMPED_NAMED, LARGE_FILE_BYTES};
use crate::page_rule_tests::{budget_strategy, file_strategy, line_strategy, FileCase, Reader};
use crate::window::{Truncation, Window, WindowSettings};

/// A file: the page-rule files, one-line files (often long), empty files; then some bytes replaced by ones that
/// are never valid UTF-8.
fn bytes_strategy() -> impl Strategy<Value = Vec<u8>> {
    let one_line = (line_strategy(), any::<bool>()).prop_map(|(line, trailing_newline)| FileCase {
        lines: vec![line],
        crlf: vec![false],
        trailing_newline,
    });
    let case = prop_oneof![
        4 => file_strategy(),
        2 => one_line,
        1 => Just(FileCase { lines: Vec::new(), crlf: Vec::new(), trailing_newline: false }),
    ];
    (
        case,
        proptest::collection::vec(any::<proptest::sample::Index>(), 0..4),
        any::<bool>(),
    )
        .prop_map(|(case, invalid, damage)| {
            let mut bytes = case.bytes();
            if damage && !bytes.is_empty() {
                for index in invalid {
                    let at = index.index(bytes.len());
                    if bytes
                        .get(at)
                        .is_some_and(|byte| *byte != b'\n' && *byte != b'\r')
                    {
                        bytes[at] = 0xFF;
                    }
                }
            }
            bytes
        })
}

/// The decimal numbers written in `text`, in order.
fn numbers_in(text: &str) -> Vec<u64> {
    text.split(|character: char| !character.is_ascii_digit())
        .filter(|part| !part.is_empty())
        .filter_map(|part| part.parse().ok())
        .collect()
}

/// The `(offset, column)` pairs of every `offset=L column=C` in `text`.
fn cursor_pairs(text: &str) -> Vec<(u64, u64)> {
    let mut pairs = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("offset=") {
        rest = &rest[at + "offset=".len()..];
        let offset: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let after = &rest[offset.len()..];
        if let Some(columns) = after.strip_prefix(" column=") {
            let column: String = columns.chars().take_while(char::is_ascii_digit).collect();
            if let (Ok(offset), Ok(column)) = (offset.parse(), column.parse()) {
                pairs.push((offset, column));
            }
        }
    }
    pairs
}

/// Checks one hint against the window it describes.
fn check_hint(
    text: &str,
    window: &Window,
    budget: &Budget,
    file_size: u64,
) -> Result<(), TestCaseError> {
    let path = "case.txt";
    if window.total_lines == 0 {
        prop_assert_eq!(text, format!("{path} is empty (0 lines)."));
        return Ok(());
    }
    let nothing_left =
        !window.truncated() && window.next_offset.is_none() && window.clamped_lines.is_empty();
    let says_whole = text.contains("whole file");
    let says_end = text.contains("end of the file");
    prop_assert_eq!(
        says_whole || says_end,
        nothing_left,
        "an end phrase must appear exactly when nothing is left: {} / {:?}",
        text,
        window
    );
    prop_assert_eq!(
        says_whole,
        nothing_left && window.start_line == 1 && window.start_column == 0,
        "\"whole file\" only from line 1 column 0: {}",
        text
    );
    if nothing_left {
        prop_assert_eq!(window.end_line, window.total_lines);
    }

    // The head: lines shown, total, the start column.
    let head = if window.start_line == window.end_line {
        format!(
            "Showing line {} of {} in {path}",
            window.start_line, window.total_lines
        )
    } else {
        format!(
            "Showing lines {}-{} of {} in {path}",
            window.start_line, window.end_line, window.total_lines
        )
    };
    prop_assert!(text.starts_with(&head), "head: {}", text);
    prop_assert_eq!(
        text.contains(&format!(
            "(line {} from column {})",
            window.start_line, window.start_column
        )),
        window.start_column > 0
    );

    // Why it stopped.
    let budget_stop = window.truncated_by.contains(&Truncation::Budget);
    prop_assert_eq!(text.contains("stopped at the"), budget_stop, "{}", text);
    prop_assert_eq!(
        text.contains("(the limit of"),
        window.truncated_by.contains(&Truncation::Limit) && !budget_stop
    );

    // The continuation names exactly the cursor.
    let continues = text.matches("to continue.").count();
    match (window.next_offset, window.next_column) {
        (Some(offset), Some(column)) => {
            prop_assert_eq!(continues, 1);
            // Inside the one line the window started in, past its column 0: the rest of that line alone.
            let inside_one_line = window.start_column > 0
                && window.lines_returned == 1
                && offset == window.start_line;
            let limit = if inside_one_line { " limit=1" } else { "" };
            let call = format!("use offset={offset} column={column}{limit} to continue.");
            prop_assert!(text.contains(&call), "{} lacks {}", text, call);
        }
        (Some(offset), None) => {
            prop_assert_eq!(continues, 1);
            let call = format!("Use offset={offset} to continue.");
            prop_assert!(text.contains(&call), "{} lacks {}", text, call);
        }
        (None, _) => prop_assert_eq!(continues, 0, "a continuation without a cursor: {}", text),
    }

    // Every other cursor named is a clamped line's; the first CLAMPED_NAMED clamped lines are named.
    let mut pairs = cursor_pairs(text);
    if let (Some(offset), Some(column)) = (window.next_offset, window.next_column) {
        let at = pairs.iter().position(|pair| *pair == (offset, column));
        prop_assert!(at.is_some());
        if let Some(at) = at {
            pairs.remove(at);
        }
    }
    let named: Vec<(u64, u64)> = window
        .clamped_lines
        .iter()
        .take(CLAMPED_NAMED)
        .map(|clamped| (clamped.line, clamped.next_column))
        .collect();
    prop_assert_eq!(&pairs, &named, "clamped cursors in {}", text);
    prop_assert_eq!(
        text.contains("the others listed in clamped_lines"),
        window.clamped_lines.len() > CLAMPED_NAMED
    );
    prop_assert_eq!(
        text.contains("Text is left unshown"),
        window.next_offset.is_none() && !window.clamped_lines.is_empty()
    );

    // The large-file note, and "re-reading from line 1" only where a later line continues.
    let large = file_size > LARGE_FILE_BYTES && !nothing_left;
    prop_assert_eq!(text.contains("The file is large"), large);
    let rereading = text.contains("re-reading from line 1");
    prop_assert_eq!(
        rereading,
        large && window.next_offset.is_some_and(|offset| offset > 1)
    );

    // The lossy decode, in words, with its count.
    prop_assert_eq!(text.contains("lossy decode"), window.replaced_invalid > 0);
    if window.replaced_invalid > 0 {
        let noun = if window.replaced_invalid == 1 {
            "character"
        } else {
            "characters"
        };
        let count = format!("{} {noun} in these lines", window.replaced_invalid);
        prop_assert!(text.contains(&count), "{} lacks {}", text, count);
        prop_assert!(
            text.contains("writing it back as the file's content would destroy those bytes")
        );
        for (line, column) in &window.replaced_at {
            let place = format!("line {line} column {column}");
            prop_assert!(text.contains(&place), "{} lacks {}", text, place);
        }
    }

    // Invisible characters, named with their lines.
    let invisible = &window.invisible;
    prop_assert_eq!(text.contains("invisible character"), invisible.total() > 0);

    // Every number is a field.
    let mut fields = vec![
        window.start_line,
        window.end_line,
        window.total_lines,
        window.start_column,
        window.lines_returned,
        window.budget_limit,
        window.replaced_invalid,
        window.clamped_lines.len() as u64,
        file_size,
    ];
    fields.extend(window.next_offset);
    fields.extend(window.next_column);
    for &(line, column) in &window.replaced_at {
        fields.extend([line, column]);
    }
    if window.replaced_invalid > window.replaced_at.len() as u64 && !window.replaced_at.is_empty() {
        fields.push(window.replaced_invalid - window.replaced_at.len() as u64);
    }
    fields.push(invisible.total());
    fields.push(invisible.more_lines);
    fields.extend(&invisible.lines);
    match *budget {
        Budget::Characters(limit) => fields.push(limit),
        Budget::Tokens { cap, .. } => fields.push(cap),
    }
    for clamped in window.clamped_lines.iter().take(CLAMPED_NAMED) {
        fields.extend([
            clamped.line,
            clamped.shown_chars,
            clamped.total_chars,
            clamped.next_column,
        ]);
    }
    // A clamped line's rest is read alone: its call says limit=1 (the lines after it are in the window already).
    for (line, column) in &named {
        let call = format!("offset={line} column={column} limit=1");
        prop_assert!(text.contains(&call), "{} lacks {}", text, call);
    }
    let without_constant = text
        .replace("from line 1.", "from line.")
        .replace(" limit=1", " limit=one")
        .replace("counted from 0", "counted from zero");
    for number in numbers_in(&without_constant) {
        prop_assert!(
            fields.contains(&number),
            "{} in the hint is no field: {}",
            number,
            text
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::fuzz_tests::fuzz_cases(300)))]

    #[test]
    fn every_hint_says_what_its_fields_say(
        bytes in bytes_strategy(),
        max_line_chars in 16u64..200,
        budget in budget_strategy(),
        limit in 1u64..40,
        large in any::<bool>(),
        start in any::<proptest::sample::Index>(),
    ) {
        let settings = WindowSettings { max_line_chars, budget, density: 1.0, escape_invisible: true };
        let file_size = bytes.len() as u64 + if large { LARGE_FILE_BYTES } else { 0 };
        let mut reader = Reader::new(bytes, settings);
        // Follow the cursors from line 1, read every clamped line's rest once, and read from one more random line.
        let mut cursor = Some((1u64, 0u64));
        let mut windows = 0;
        let mut total = 0;
        while let Some((offset, column)) = cursor {
            windows += 1;
            prop_assert!(windows < 10_000, "cursors never end");
            let window = reader.read(offset, column, limit);
            total = window.total_lines;
            check_hint(&hint("case.txt", &window, &budget, file_size), &window, &budget, file_size)?;
            for clamped in window.clamped_lines.clone() {
                // The rest of a clamped line, by continuations (reads from inside the line) to its end.
                let mut column = Some(clamped.next_column);
                while let Some(at) = column {
                    windows += 1;
                    prop_assert!(windows < 10_000, "continuations never end");
                    let rest = reader.read(clamped.line, at, limit);
                    check_hint(&hint("case.txt", &rest, &budget, file_size), &rest, &budget, file_size)?;
                    prop_assert!(
                        rest.clamped_lines.iter().all(|line| line.line != clamped.line),
                        "a continuation is not clamped: {:?}",
                        rest
                    );
                    column = match (rest.next_offset, rest.next_column) {
                        (Some(line), Some(next)) if line == clamped.line => {
                            prop_assert!(next > at, "a continuation moves on: {:?}", rest);
                            Some(next)
                        }
                        _ => None,
                    };
                }
            }
            cursor = window
                .next_offset
                .map(|offset| (offset, window.next_column.unwrap_or(0)));
        }
        if total > 0 {
            let offset = start.index(total as usize) as u64 + 1;
            let window = reader.read(offset, 0, limit);
            check_hint(&hint("case.txt", &window, &budget, file_size), &window, &budget, file_size)?;
        }
    }
}
