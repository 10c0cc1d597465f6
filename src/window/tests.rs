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

/// [`settings`] in characters, or with `Some(density)` in tokens: a cap of a third of `budget`, each token of the
/// estimate costing `density`.
fn settings_in(max_line_chars: u64, budget: u64, density: Option<f64>) -> WindowSettings {
    let mut settings = settings(max_line_chars, budget);
    if let Some(density) = density {
        settings.budget = Budget::Tokens {
            cap: budget / 3,
            headroom: 1.0,
        };
        settings.density = density;
    }
    settings
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

proptest::proptest! {
    /// The token sink's chunked keep (the whole room priced at once when it fits) keeps what the per-character
    /// keep does, piece after piece: the same bytes, the same crossing, the same look-ahead and the same estimate.
    #[test]
    fn the_chunked_token_keep_is_the_per_character_keep(
        pieces in proptest::collection::vec(
            "[a-zA-Z0-9 _.,;(){}\t\u{200b}\u{202e}\u{00e9}\u{4e2d}\u{1f600}=+-]{0,80}",
            1..6,
        ),
        remaining_units in 0u64..120,
        density in 0.5f64..3.0,
        keep_chars in 1u64..400,
        escape in proptest::bool::ANY,
    ) {
        use crate::tokens::TokenEstimator;
        use sink::{keep_by_character, TokenStop};
        let stop = || TokenStop {
            estimator: TokenEstimator::new(),
            remaining_units,
            density,
            over_at: None,
            escape,
            priced_visible_forms: false,
        };
        let mut chunked = sink::LineSink::new(0, keep_chars, Some(stop()));
        let (mut slow_stop, mut slow_keep, mut slow_kept) = (stop(), keep_chars, 0u64);
        let mut slow_text = String::new();
        for piece in &pieces {
            chunked.push(piece);
            let room = slow_keep.saturating_sub(slow_kept);
            if room > 0 && slow_stop.over_at.is_none() {
                let (byte, taken) = keep_by_character(&mut slow_stop, piece, room, slow_kept, &mut slow_keep);
                slow_text.push_str(&piece[..byte]);
                slow_kept += taken;
            } else if room > 0 {
                let (byte, taken) = cut::prefix_of_chars(piece, room);
                slow_text.push_str(&piece[..byte]);
                slow_kept += taken;
            }
        }
        let fast_stop = chunked.token_stop.as_ref().map(|stop| (stop.over_at, stop.estimator.tokens()));
        proptest::prop_assert_eq!(&chunked.kept, &slow_text);
        proptest::prop_assert_eq!(chunked.kept_chars, slow_kept);
        proptest::prop_assert_eq!(chunked.keep_chars, slow_keep);
        proptest::prop_assert_eq!(fast_stop, Some((slow_stop.over_at, slow_stop.estimator.tokens())));
    }
}

proptest::proptest! {
    /// A whole line's token cost from the sink's own estimate is the cost of pricing the text again, whenever the
    /// sink offers its estimate (it never went over and priced no visible form).
    #[test]
    fn a_line_costs_the_same_from_the_sinks_estimate(
        text in "[a-zA-Z0-9 _.,;(){}\t\u{200b}\u{200d}\u{202e}\u{00e9}\u{4e2d}\u{1f600}\u{1f468}=+-]{0,120}",
        line in 1u64..2_000_000,
        density in 0.5f64..3.0,
        escape in proptest::bool::ANY,
    ) {
        use crate::invisible::LineInvisibles;
        let meter = meter::Meter::Tokens { density };
        let mut sink = sink::LineSink::new(0, u64::MAX, meter.token_stop(u64::MAX / 4, escape));
        sink.push(&text);
        sink.finish(true);
        let invisibles = LineInvisibles::find("", &sink.kept, true, escape, usize::MAX);
        let chars = sink.kept_chars;
        let estimate = sink.token_stop.as_ref().and_then(|stop| stop.estimate_of_kept());
        let has_invisible = text.chars().any(|c| crate::invisible::InvisibleKind::of(c).is_some());
        proptest::prop_assert_eq!(estimate.is_some(), !(escape && has_invisible));
        proptest::prop_assert_eq!(
            meter.line_cost_known(line, &sink.kept, chars, &invisibles, estimate),
            meter.line_cost(line, &sink.kept, chars, "", &invisibles)
        );
    }
}

mod fast_path;
