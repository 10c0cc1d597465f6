//! Issue 3 scenarios through the real component: token budgets, calibration from host counts, the refusal
//! helper, and the page rule on random files.

mod common;

use common::{ask, component, read, Sandbox};
use proptest::prelude::*;
use read_window_host::{Budget, Config, ReadRequest, ReadResult, TokenBudget};
use serde_json::json;

fn tokens(cap: Option<u32>) -> Config {
    Config {
        budget: Some(Budget::Tokens(TokenBudget {
            cap,
            headroom: None,
        })),
        ..Config::default()
    }
}

#[test]
fn the_default_token_cap_refuses_nothing_and_pages_20010_short_lines() {
    let sandbox = Sandbox::new();
    let text: String = (1..=20_010).map(|n| format!("line {n}\n")).collect();
    let path = sandbox.write("many.txt", text);
    let mut session = sandbox.session(tokens(None));
    let first = read(&mut session, &path, json!({}));
    assert_eq!(first["status"], "ok");
    assert_eq!(first["budget"]["unit"], "tokens");
    assert_eq!(first["budget"]["cap"], 25_000);
    assert_eq!(first["budget"]["limit"], 22_500);
    assert_eq!(first["end_line"], 2_000);
    assert_eq!(first["next_offset"], 2_001);
    assert_eq!(first["truncated_by"], json!(["limit"]));

    // With no line limit in the way, the token budget decides the window.
    let mut wide = sandbox.session(Config {
        max_lines: Some(100_000),
        ..tokens(None)
    });
    let window = read(&mut wide, &path, json!({}));
    let used = window["budget"]["used"].as_u64().unwrap();
    assert!(used <= 22_500, "{used}");
    assert_eq!(window["truncated_by"], json!(["budget"]));
    let end = window["end_line"].as_u64().unwrap();
    assert!(end > 2_000 && end < 20_010, "{end}");
    assert_eq!(window["next_offset"], end + 1);
    assert!(window["hint"].as_str().unwrap().contains("25000-token cap"));
}

#[test]
fn a_minified_json_line_is_windowed_under_the_cap_and_readable_to_its_end() {
    let sandbox = Sandbox::new();
    let items: Vec<String> = (0..20_000)
        .map(|n| format!("{{\"id\":{n},\"k\":\"v{n}\",\"ok\":true}}"))
        .collect();
    let minified = format!("[{}]", items.join(","));
    let path = sandbox.write("min.json", &minified);
    let config = tokens(Some(5_000));
    let grants = sandbox.grants();
    let mut column = 0u64;
    let mut text = String::new();
    let mut windows = 0;
    loop {
        let result: ReadResult = component()
            .read_once(
                &grants,
                &config,
                &ReadRequest::new(path.clone()).column(column).limit(1),
            )
            .unwrap()
            .unwrap();
        windows += 1;
        assert!(result.budget.used <= 4_500, "{}", result.budget.used);
        let shown = match (result.clamped_lines.first(), result.next_column) {
            (Some(clamped), _) => clamped.shown_chars,
            (None, Some(next)) => next - column,
            (None, None) => minified.chars().count() as u64 - column,
        };
        let body = result.content.strip_prefix("1|").unwrap();
        text.extend(body.chars().take(shown as usize));
        match result
            .clamped_lines
            .first()
            .map(|clamped| clamped.next_column)
            .or(result.next_column)
        {
            Some(next) => column = next,
            None => break,
        }
    }
    assert_eq!(text, minified);
    assert!(windows > 10);
}

#[test]
fn calibration_lowers_the_next_window_of_an_underestimated_file() {
    let sandbox = Sandbox::new();
    let text: String = (1..=3_000u64)
        .map(|n| format!("{:x}{:x}{:x}\n", n * 7919, n * 104_729, n * 1_299_709))
        .collect();
    let path = sandbox.write("hashes.txt", text);
    let mut session = sandbox.session(Config {
        dedup: Some(false),
        ..tokens(Some(2_000))
    });
    let before = read(&mut session, &path, json!({}));
    let lines = before["lines_returned"].as_u64().unwrap();
    let used = before["budget"]["used"].as_u64().unwrap();
    let report = ask(
        &mut session,
        json!({"op": "report_tokens", "path": path, "offset": 1, "lines": lines, "tokens": used * 2}),
    );
    assert_eq!(report, json!({"status": "ok"}));
    ask(&mut session, json!({"op": "other_tool"}));
    let after = read(&mut session, &path, json!({}));
    let fewer = after["lines_returned"].as_u64().unwrap();
    assert!(
        fewer * 10 < lines * 6,
        "twice the density roughly halves the window: {lines} then {fewer}"
    );
    assert!(after["budget"]["used"].as_u64().unwrap() <= 1_800);
    let unknown = ask(
        &mut session,
        json!({"op": "report_tokens", "path": path, "offset": 7, "lines": 3, "tokens": 10}),
    );
    assert_eq!(unknown["error"]["kind"], "invalid_request");
}

#[test]
fn the_refusal_helper_answers_the_documented_window() {
    let sandbox = Sandbox::new();
    let text: String = (1..=2_000).map(|n| format!("row {n}\n")).collect();
    let path = sandbox.write("rows.txt", text);
    let mut session = sandbox.default_session();
    let message = "File content (31204 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters.";
    let answer = ask(
        &mut session,
        json!({"op": "token_refusal", "path": path, "offset": 1, "limit": 1_000, "message": message}),
    );
    // 1000 lines * 0.8 * 25000 / 31204 = 640, but at most half the window that failed: 500.
    assert_eq!(answer["limit"], 500, "{answer}");
    assert_eq!(answer["offset"], 1);
    assert_eq!(answer["refused_tokens"], 31_204);
    assert_eq!(answer["cap_tokens"], 25_000);
    let smaller = ask(
        &mut session,
        json!({"op": "token_refusal", "path": path, "offset": 1, "limit": 1_000, "message": "(100000 tokens) exceeds maximum allowed tokens (25000)"}),
    );
    assert_eq!(smaller["limit"], 200);
    let garbled = ask(
        &mut session,
        json!({"op": "token_refusal", "path": path, "offset": 1, "limit": 10, "message": "too big"}),
    );
    assert_eq!(garbled["error"]["kind"], "invalid_request");
}

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
    #![proptest_config(ProptestConfig::with_cases(24))]

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
            component()
                .read_once(&grants, &config, &ReadRequest::new(path.clone()).offset(offset).column(column).limit(limit))
                .expect("no trap")
                .expect("every cursor is readable")
        };
        let mut got: Vec<String> = vec![String::new(); lines.len()];
        let mut cursor = Some((1u64, 0u64));
        while let Some((offset, column)) = cursor {
            let window = read_at(offset, column, limit);
            prop_assert!(window.budget.used <= window.budget.limit);
            prop_assert!(window.lines_returned >= 1);
            let mut queue: Vec<(u64, u64, ReadResult)> = vec![(offset, column, window.clone())];
            while let Some((_, start_column, part)) = queue.pop() {
                for (position, formatted) in part.content.split_terminator('\n').enumerate() {
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
