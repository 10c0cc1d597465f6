use super::walk::push_gutter;
use super::*;
use crate::decode::TextEncoding;
use crate::error::ReadError;
use crate::index::LineIndex;
use crate::scan::Scanner;
use crate::source::MemorySource;

#[test]
fn the_gutter_is_written_as_format_writes_it() {
    let mut numbers = vec![0, 1, 9, 10, 99, 100, 2_000, 999_999, u64::MAX - 1, u64::MAX];
    numbers.extend((0..64).map(|shift| 1u64 << shift));
    numbers.extend((1..20).map(|power| 10u64.pow(power) - 1));
    for number in numbers {
        let mut content = String::from("x");
        push_gutter(&mut content, number);
        assert_eq!(content, format!("x{number}|"));
    }
}

#[test]
fn lines_after_a_long_clamped_line_read_as_they_do_alone() {
    // The kept text of each line is reused by the next: a short line after a long one, a long one after short
    // ones, and multibyte text give the lines they give when each is read alone.
    let lines = [
        "short".to_string(),
        "é".repeat(3_000),
        "tail".to_string(),
        "日本語".repeat(10),
        String::new(),
        "x".repeat(1_999),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let whole = read(&text, 1, 0, 2_000, &settings(2_000, 100_000)).unwrap();
    let mut joined = String::new();
    for number in 1..=lines.len() as u64 {
        joined.push_str(
            &read(&text, number, 0, 1, &settings(2_000, 100_000))
                .unwrap()
                .content,
        );
    }
    assert_eq!(whole.content, joined);
    assert_eq!(whole.clamped_lines.len(), 1);
    assert_eq!(whole.clamped_lines[0].line, 2);
}

fn settings(max_line_chars: u64, budget_chars: u64) -> WindowSettings {
    WindowSettings {
        max_line_chars,
        budget: Budget::Characters(budget_chars),
        density: 1.0,
        escape_invisible: true,
    }
}

fn read(
    text: &str,
    offset: u64,
    column: u64,
    limit: u64,
    settings: &WindowSettings,
) -> Result<Window, ReadError> {
    let mut source = MemorySource::new(text.as_bytes().to_vec());
    let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
    let mut index = LineIndex::new(TextEncoding::Utf8, 0);
    index.extend(&mut scanner).unwrap();
    read_window(
        &mut scanner,
        &mut index,
        &WindowRequest {
            offset,
            column,
            limit,
        },
        settings,
        "f.txt",
    )
}

#[test]
fn sixty_lines_of_1900_chars_stop_at_line_52_by_budget() {
    let line = "x".repeat(1_900);
    let text: String = (0..60).map(|_| format!("{line}\n")).collect();
    let window = read(&text, 1, 0, 2_000, &settings(2_000, 100_000)).unwrap();
    assert_eq!(
        (window.start_line, window.end_line, window.lines_returned),
        (1, 52, 52)
    );
    assert_eq!(window.next_offset, Some(53));
    assert_eq!(window.next_column, None);
    assert_eq!(window.truncated_by, vec![Truncation::Budget]);
    assert_eq!(window.content.chars().count() as u64, window.budget_used);
    assert!(window.budget_used <= 100_000);
}

#[test]
fn crlf_is_shown_without_the_carriage_return() {
    let window = read("a\r\nb\r\nc", 1, 0, 10, &settings(2_000, 1_000)).unwrap();
    assert_eq!(window.content, "1|a\n2|b\n3|c\n");
    assert!(!window.truncated());
}

#[test]
fn clamp_lands_on_a_grapheme_boundary_before_a_zwj_emoji() {
    let family = "👨\u{200d}👩\u{200d}👧";
    let text = format!("{}{family}tail\n", "a".repeat(14));
    let window = read(&text, 1, 0, 10, &settings(16, 1_000)).unwrap();
    let clamped = window.clamped_lines[0];
    assert_eq!(clamped.shown_chars, 14);
    assert_eq!(clamped.next_column, 14);
    assert_eq!(clamped.total_chars, 14 + 5 + 4);
    assert!(window
        .content
        .starts_with(&format!("1|{} {MARKER_PREFIX}", "a".repeat(14))));
    assert_eq!(window.next_offset, None);
    assert_eq!(window.truncated_by, vec![Truncation::LineLength]);
    let rest = read(&text, 1, 14, 1, &settings(16, 1_000)).unwrap();
    assert_eq!(rest.content, format!("1|{family}tail\n"));
}

#[test]
fn first_line_over_the_budget_is_cut_inside_with_a_column_cursor() {
    let text = "y".repeat(5_000);
    let window = read(&text, 1, 0, 10, &settings(100_000, 1_000)).unwrap();
    assert!(window.budget_used <= 1_000);
    let next = window.next_column.unwrap();
    assert_eq!(window.next_offset, Some(1));
    assert_eq!(
        window.truncated_by,
        vec![Truncation::Budget, Truncation::MidLine]
    );
    // Read from inside the line, the rest of it comes alone: its marker says limit=1, 8 characters more, shown
    // fewer.
    let second = read(&text, 1, next, 10, &settings(100_000, 1_000)).unwrap();
    let after = next * 2 - 8;
    assert_eq!(second.next_column, Some(after));
    assert!(second.content.ends_with(&format!(
        "more characters; continue with offset=1 column={after} limit=1]\n"
    )));
    assert!(!window.content.contains("limit=1"));
}

#[test]
fn offset_past_the_end_names_the_line_count() {
    let error = read("a\nb\n", 5, 0, 10, &settings(2_000, 1_000)).unwrap_err();
    assert!(error.message.contains("has 2 lines"), "{}", error.message);
    let empty = read("", 1, 0, 10, &settings(2_000, 1_000)).unwrap();
    assert_eq!(
        (
            empty.total_lines,
            empty.lines_returned,
            empty.content.as_str()
        ),
        (0, 0, "")
    );
}

#[test]
fn limit_stops_with_a_cursor() {
    let window = read("1\n2\n3\n4\n", 2, 0, 2, &settings(2_000, 1_000)).unwrap();
    assert_eq!(window.content, "2|2\n3|3\n");
    assert_eq!(window.next_offset, Some(4));
    assert_eq!(window.truncated_by, vec![Truncation::Limit]);
}
#[test]
fn windows_inside_a_long_line_use_its_checkpoints_and_match_a_fresh_read() {
    // A 2 MB line of mixed widths (so column checkpoints fall between multibyte characters), then two lines.
    let pieces = ["ab", "é", "中文", "😀", "e\u{301}", "x"];
    let mut long = String::new();
    let mut index_of_piece = 0usize;
    while long.len() < 2_000_000 {
        long.push_str(pieces[index_of_piece % pieces.len()]);
        index_of_piece = index_of_piece * 7 + 3;
        index_of_piece %= 1_000_003;
    }
    let text = format!("first\r\n{long}\r\nafter\nend");
    let chars: Vec<char> = long.chars().collect();
    let settings = settings(1_000, 5_000);
    let mut source = MemorySource::new(text.as_bytes().to_vec());
    let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
    let mut index = LineIndex::new(TextEncoding::Utf8, 0);
    index.extend(&mut scanner).unwrap();
    let mut cold_reads = 0;
    for (round, column) in [
        0u64,
        123_457,
        400_000,
        800_001,
        chars.len() as u64 - 10,
        250_001,
        0,
    ]
    .into_iter()
    .enumerate()
    {
        let before = scanner.reads();
        let window = read_window(
            &mut scanner,
            &mut index,
            &WindowRequest {
                offset: 2,
                column,
                limit: 3,
            },
            &settings,
            "long.txt",
        )
        .unwrap();
        let reads = scanner.reads() - before;
        if round == 0 {
            cold_reads = reads;
            assert!(index.long_line(2).is_some(), "the long line is remembered");
        } else {
            assert!(
                reads * 4 < cold_reads,
                "column {column}: {reads} reads, the first read took {cold_reads}"
            );
        }
        let shown_chars = match (window.clamped_lines.first(), window.next_column) {
            (Some(clamped), _) => {
                assert_eq!(column, 0, "only a read from column 0 is clamped");
                assert_eq!(clamped.total_chars, chars.len() as u64);
                clamped.shown_chars
            }
            // A continuation shows what the budget allows, then its cursor.
            (None, Some(next)) => {
                assert_eq!(window.next_offset, Some(2));
                assert!(next - column > 1_000, "column {column}: {next}");
                next - column
            }
            (None, None) => chars.len() as u64 - column,
        };
        let shown: String = window.content["2|".len()..]
            .chars()
            .take(shown_chars as usize)
            .collect();
        let expected: String = chars[column as usize..(column + shown_chars) as usize]
            .iter()
            .collect();
        assert_eq!(shown, expected, "column {column}");
        // The lines after the long one are found from what was learned.
        if column + shown_chars >= chars.len() as u64 - 10 {
            assert!(
                window.content.ends_with("3|after\n4|end\n"),
                "{}",
                &window.content[window.content.len() - 40..]
            );
        }
    }
    let past = read_window(
        &mut scanner,
        &mut index,
        &WindowRequest {
            offset: 2,
            column: chars.len() as u64 + 1,
            limit: 1,
        },
        &settings,
        "long.txt",
    );
    assert!(past.is_err());
}
