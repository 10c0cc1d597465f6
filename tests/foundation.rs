//! Issue 2 scenarios through the real component: windows, budgets, clamps, encodings, paths and special files.

mod common;

use std::time::{Duration, Instant};

use common::{ask, error_kind, read, Sandbox};
use read_window_host::{Budget, Config};
use serde_json::{json, Value};

fn chars_config(max_chars: u32) -> Config {
    Config {
        budget: Some(Budget::Characters(max_chars)),
        ..Config::default()
    }
}

#[test]
fn sixty_lines_of_1900_characters_stop_at_line_52_by_budget() {
    let sandbox = Sandbox::new();
    let line = "a".repeat(1_900);
    let path = sandbox.write(
        "wide.txt",
        (0..60).map(|_| format!("{line}\n")).collect::<String>(),
    );
    let mut session = sandbox.default_session();
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["status"], "ok");
    assert_eq!(answer["start_line"], 1);
    assert_eq!(answer["end_line"], 52);
    assert_eq!(answer["lines_returned"], 52);
    assert_eq!(answer["total_lines"], 60);
    assert_eq!(answer["truncated"], true);
    assert_eq!(answer["truncated_by"], json!(["budget"]));
    assert_eq!(answer["next_offset"], 52 + 1);
    assert_eq!(answer["next_column"], Value::Null);
    assert_eq!(answer["budget"]["unit"], "characters");
    assert_eq!(answer["budget"]["limit"], 100_000);
    assert_eq!(answer["budget"]["used"], 98_999);
    assert_eq!(answer["content"].as_str().unwrap().chars().count(), 98_999);
    assert_eq!(
        answer["hint"],
        format!("Showing lines 1-52 of 60 in {path}; stopped at the 100000-character budget. Use offset=53 to continue.")
    );
}

#[test]
fn a_small_character_budget_holds_and_continues() {
    let sandbox = Sandbox::new();
    let line = "b".repeat(100);
    let path = sandbox.write(
        "narrow.txt",
        (0..50).map(|_| format!("{line}\n")).collect::<String>(),
    );
    let mut session = sandbox.session(chars_config(1_000));
    let answer = read(&mut session, &path, json!({}));
    let content = answer["content"].as_str().unwrap();
    assert!(content.chars().count() <= 1_000);
    // Each line costs "N|" + 100 + "\n": lines 1-9 cost 103, so nine lines fit (927) and the tenth (104) does not.
    assert_eq!(answer["end_line"], 9);
    assert_eq!(answer["next_offset"], 10);
    assert_eq!(answer["truncated_by"], json!(["budget"]));
}

#[test]
fn a_zwj_emoji_is_never_split_by_the_clamp() {
    let sandbox = Sandbox::new();
    let family = "👨\u{200d}👩\u{200d}👧\u{200d}👦";
    let path = sandbox.write(
        "zwj.txt",
        format!("{}{family}{}\n", "x".repeat(18), "y".repeat(30)),
    );
    let mut session = sandbox.session(Config {
        max_line_length: Some(20),
        ..Config::default()
    });
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(
        answer["clamped_lines"],
        json!([{"line": 1, "shown_chars": 18, "total_chars": 55, "next_column": 18}])
    );
    assert_eq!(answer["truncated_by"], json!(["line_length"]));
    let content = answer["content"].as_str().unwrap();
    assert!(content.starts_with(&format!("1|{} [read-window: line 1 clamped, 37 more characters; read them with offset=1 column=18]", "x".repeat(18))), "{content}");
    let rest = read(
        &mut session,
        &path,
        json!({"offset": 1, "column": 18, "limit": 1}),
    );
    assert!(rest["content"]
        .as_str()
        .unwrap()
        .starts_with(&format!("1|{family}")));
    assert_eq!(rest["start_column"], 18);
}

#[test]
fn a_surrogate_pair_emoji_is_kept_whole_at_the_clamp() {
    let sandbox = Sandbox::new();
    // Sixteen characters: fifteen letters and an emoji outside the Basic Multilingual Plane (a surrogate pair in UTF-16).
    let path = sandbox.write(
        "astral.txt",
        format!("{}😀{}\n", "q".repeat(15), "r".repeat(10)),
    );
    let mut session = sandbox.session(Config {
        max_line_length: Some(16),
        ..Config::default()
    });
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["clamped_lines"][0]["shown_chars"], 16);
    assert!(answer["content"]
        .as_str()
        .unwrap()
        .starts_with(&format!("1|{}😀 [read-window:", "q".repeat(15))));
}

#[test]
fn crlf_lines_are_shown_without_carriage_returns() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("dos.txt", "one\r\ntwo\r\nthree\r\n");
    let mut session = sandbox.default_session();
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["content"], "1|one\n2|two\n3|three\n");
    assert_eq!(answer["total_lines"], 3);
    assert_eq!(answer["encoding"]["line_endings"], "crlf");
    assert_eq!(answer["truncated"], false);
}

#[test]
fn line_counts_are_exact_with_and_without_a_final_newline() {
    let sandbox = Sandbox::new();
    let bare = sandbox.write("bare.txt", "a\nb\nc");
    let ended = sandbox.write("ended.txt", "line1\nline2\nline3\n");
    let mut session = sandbox.default_session();
    let first = read(&mut session, &bare, json!({}));
    assert_eq!(
        (first["total_lines"].clone(), first["content"].clone()),
        (json!(3), json!("1|a\n2|b\n3|c\n"))
    );
    let second = read(&mut session, &ended, json!({}));
    assert_eq!(second["total_lines"], 3);
    assert_eq!(
        second["hint"],
        format!("Showing lines 1-3 of 3 in {ended}: the whole file.")
    );
}

#[test]
fn an_empty_file_is_a_success_with_no_lines() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("empty.txt", "");
    let mut session = sandbox.default_session();
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["status"], "ok");
    assert_eq!(answer["total_lines"], 0);
    assert_eq!(answer["lines_returned"], 0);
    assert_eq!(answer["content"], "");
    assert_eq!(answer["truncated"], false);
    let past = read(&mut session, &path, json!({"offset": 2}));
    assert_eq!(error_kind(&past), "invalid_request");
}

#[test]
fn invalid_utf8_is_replaced_and_counted() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("latin1.txt", b"caf\xe9 cr\xe8me\nplain\n");
    let mut session = sandbox.default_session();
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["content"], "1|caf\u{FFFD} cr\u{FFFD}me\n2|plain\n");
    assert_eq!(answer["encoding"]["replaced_invalid"], 2);
    assert_eq!(answer["encoding"]["encoding"], "utf8");
}

#[test]
fn a_utf8_bom_is_stripped_and_reported() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("bom.txt", b"\xef\xbb\xbfhello\nworld\n");
    let mut session = sandbox.default_session();
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["content"], "1|hello\n2|world\n");
    assert_eq!(answer["encoding"]["bom"], true);
    assert_eq!(answer["file_size"], 15);
}

#[test]
fn offset_past_the_end_names_the_line_count() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("short.txt", "1\n2\n3\n");
    let mut session = sandbox.default_session();
    let answer = read(&mut session, &path, json!({"offset": 10}));
    assert_eq!(answer["status"], "error");
    assert_eq!(error_kind(&answer), "invalid_request");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("offset 10") && message.contains("3 lines"),
        "{message}"
    );
    let zero = read(&mut session, &path, json!({"offset": 0, "limit": 1}));
    assert_eq!(zero["content"], "1|1\n");
}

#[test]
fn limit_zero_is_an_invalid_request_that_says_so() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "a\n");
    let mut session = sandbox.default_session();
    let answer = read(&mut session, &path, json!({"limit": 0}));
    assert_eq!(error_kind(&answer), "invalid_request");
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("limit 0"));
}

#[test]
fn dot_dot_cannot_leave_the_sandbox() {
    let sandbox = Sandbox::new();
    sandbox.write("inside.txt", "x\n");
    let mut session = sandbox.default_session();
    let answer = read(&mut session, "../../../../etc/passwd", json!({}));
    assert_eq!(error_kind(&answer), "outside_sandbox");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&sandbox.root.display().to_string()),
        "names the granted root: {message}"
    );
    let relative = read(&mut session, "sub/../inside.txt", json!({}));
    assert_eq!(relative["content"], "1|x\n");
}

#[test]
fn an_absolute_path_outside_the_roots_is_refused() {
    let sandbox = Sandbox::new();
    let mut session = sandbox.default_session();
    let answer = read(&mut session, "/etc/hostname", json!({}));
    assert_eq!(error_kind(&answer), "outside_sandbox");
}

#[test]
fn a_symlink_pointing_outside_the_root_is_refused() {
    let sandbox = Sandbox::new();
    let outside = Sandbox::new();
    outside.write("secret.txt", "top secret\n");
    std::os::unix::fs::symlink(outside.host("secret.txt"), sandbox.host("link.txt")).unwrap();
    std::os::unix::fs::symlink(&outside.root, sandbox.host("etc")).unwrap();
    sandbox.write("real.txt", "real\n");
    std::os::unix::fs::symlink("real.txt", sandbox.host("inside-link.txt")).unwrap();
    let mut session = sandbox.default_session();
    let answer = read(&mut session, "link.txt", json!({}));
    assert_eq!(error_kind(&answer), "outside_sandbox", "{answer}");
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("link"));
    let through_directory = read(&mut session, "etc/secret.txt", json!({}));
    assert_eq!(error_kind(&through_directory), "outside_sandbox");
    std::os::unix::fs::symlink("nowhere.txt", sandbox.host("dangling")).unwrap();
    let dangling = read(&mut session, "dangling", json!({}));
    assert_eq!(error_kind(&dangling), "not_found");
    assert!(
        dangling["error"]["message"]
            .as_str()
            .unwrap()
            .contains("points to nowhere.txt"),
        "{dangling}"
    );
    let inside = read(&mut session, "inside-link.txt", json!({}));
    assert_eq!(inside["content"], "1|real\n");
    assert_eq!(inside["path"], sandbox.guest("real.txt"));
}

#[test]
fn a_directory_is_not_a_file() {
    let sandbox = Sandbox::new();
    std::fs::create_dir(sandbox.host("dir")).unwrap();
    let mut session = sandbox.default_session();
    let answer = read(&mut session, "dir", json!({}));
    assert_eq!(error_kind(&answer), "not_a_file");
}

#[test]
fn a_fifo_is_refused_at_once_without_being_opened() {
    let sandbox = Sandbox::new();
    let fifo = sandbox.host("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let mut session = sandbox.default_session();
    let started = Instant::now();
    let answer = read(&mut session, "pipe", json!({}));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a FIFO must not block"
    );
    assert_eq!(error_kind(&answer), "special_file", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("FIFO"),
        "{answer}"
    );
}

#[test]
fn paging_through_the_cursors_returns_every_line_once() {
    let sandbox = Sandbox::new();
    let lines: Vec<String> = (1..=5_000)
        .map(|n| format!("log line {n} {}", "z".repeat(n % 97)))
        .collect();
    let path = sandbox.write(
        "paged.log",
        lines
            .iter()
            .map(|line| format!("{line}\n"))
            .collect::<String>(),
    );
    let mut session = sandbox.session(chars_config(20_000));
    let mut seen = Vec::new();
    let mut offset = Some(1u64);
    while let Some(current) = offset {
        let answer = read(
            &mut session,
            &path,
            json!({"offset": current, "limit": 700}),
        );
        assert_eq!(answer["status"], "ok", "{answer}");
        assert_eq!(answer["start_line"], current);
        for formatted in answer["content"].as_str().unwrap().lines() {
            let (number, text) = formatted.split_once('|').unwrap();
            seen.push((number.parse::<u64>().unwrap(), text.to_string()));
        }
        offset = answer["next_offset"].as_u64();
        if let Some(next) = offset {
            let hint = answer["hint"].as_str().unwrap();
            assert!(
                hint.ends_with(&format!("Use offset={next} to continue.")),
                "{hint}"
            );
        }
    }
    assert_eq!(seen.len(), 5_000);
    for (index, (number, text)) in seen.iter().enumerate() {
        assert_eq!(*number, index as u64 + 1);
        assert_eq!(text, &lines[index]);
    }
}

#[test]
fn read_once_reads_without_session_memory() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("once.txt", "only\n");
    let grants = sandbox.grants();
    for _ in 0..4 {
        let result = common::component()
            .read_once(
                &grants,
                &Config::default(),
                &read_window_host::ReadRequest::new(path.clone()),
            )
            .expect("no trap")
            .expect("a window");
        assert_eq!(result.content, "1|only\n");
    }
    let mut session = sandbox.default_session();
    let malformed = ask(&mut session, json!("not an object"));
    assert_eq!(error_kind(&malformed), "invalid_request");
}
