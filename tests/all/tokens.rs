//! Issue 3 scenarios through the real component: the page rule on random files. The fixed scenarios (token budgets,
//! calibration from host counts, the refusal helper) are scenario files in `tests/scenarios/tokens/`.

use crate::common::{component, Sandbox};
use proptest::prelude::*;
use read_window_host::{Budget, Config, ReadOutcome, ReadRequest, ReadResult, TokenBudget};

const PIECES: &[&str] = &[
    "a",
    "b",
    " ",
    "é",
    "e\u{301}",
    "中",
    "😀",
    "👨\u{200d}👩\u{200d}👧",
    "🇫🇷",
    "\t",
    "x",
];

fn line_strategy() -> impl Strategy<Value = String> {
    let piece = proptest::sample::select(PIECES);
    prop_oneof![
        3 => proptest::collection::vec(piece.clone(), 0..10).prop_map(|pieces| pieces.concat()),
        1 => proptest::collection::vec(piece, 100..600).prop_map(|pieces| pieces.concat()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::fuzz_cases(24)))]

    // Stays in Rust: a property test over random files and configs, which a fixed scenario file cannot express.
    #[test]
    fn cursors_through_the_component_reconstruct_the_file(
        lines in proptest::collection::vec(line_strategy(), 1..12),
        crlf in any::<bool>(),
        trailing in any::<bool>(),
        max_line_length in 16u32..300,
        budget in prop_oneof![(200u32..2_000).prop_map(Budget::Characters), (300u32..1_500).prop_map(|cap| Budget::Tokens(TokenBudget { cap: Some(cap), headroom: None }))],
        limit in 1u64..20,
    ) {
        let sandbox = Sandbox::new();
        let ending = if crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(ending);
        if trailing {
            text.push_str(ending);
        }
        // One empty line and no line feed is an empty file: 0 lines, not one empty line.
        prop_assume!(!text.is_empty());
        let path = sandbox.write("case.txt", &text);
        let config = Config { max_line_length: Some(max_line_length), budget: Some(budget), ..Config::default() };
        let grants = sandbox.grants();
        let read_at = |offset: u64, column: u64, limit: u64| -> ReadResult {
            match component()
                .read_once(&grants, &config, &ReadRequest::new(path.clone()).offset(offset).column(column).limit(limit))
                .expect("no trap")
                .expect("every cursor is readable")
            {
                ReadOutcome::Window(window) => window,
                other => panic!("a window of lines, not {other:?}"),
            }
        };
        let mut got: Vec<String> = vec![String::new(); lines.len()];
        let mut cursor = Some((1u64, 0u64));
        while let Some((offset, column)) = cursor {
            let window = read_at(offset, column, limit);
            prop_assert!(window.budget.used <= window.budget.limit);
            prop_assert!(window.lines_returned >= 1);
            let mut queue: Vec<(u64, u64, ReadResult)> = vec![(offset, column, window.clone())];
            while let Some((_, start_column, part)) = queue.pop() {
                for (position, formatted) in part.content().split_terminator('\n').enumerate() {
                    let line = part.start_line + position as u64;
                    let body = formatted.strip_prefix(&format!("{line}|")).expect("gutter");
                    let start = if position == 0 { start_column } else { 0 };
                    let clamped = part.clamped_lines.iter().find(|clamped| clamped.line == line);
                    let shown = match clamped {
                        Some(clamped) => Some(clamped.shown_chars),
                        None if line == part.end_line && part.next_offset == Some(line) => part.next_column.map(|next| next - start),
                        None => None,
                    };
                    let piece: String = match shown { Some(count) => body.chars().take(count as usize).collect(), None => body.to_string() };
                    let slot = &mut got[(line - 1) as usize];
                    prop_assert_eq!(slot.chars().count() as u64, start);
                    slot.push_str(&piece);
                    if let Some(clamped) = clamped {
                        let rest = read_at(line, clamped.next_column, 1);
                        queue.push((line, clamped.next_column, rest));
                    } else if line == part.end_line && part.next_offset == Some(line) && start_column != column && part.lines_returned == 1 {
                        if let Some(next) = part.next_column {
                            queue.push((line, next, read_at(line, next, 1)));
                        }
                    }
                }
            }
            cursor = window.next_offset.map(|next| (next, window.next_column.unwrap_or(0)));
        }
        prop_assert_eq!(got, lines);
    }
}
