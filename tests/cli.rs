//! The `read-window` command line: text output, `--json`, exit codes, session mode and `page`.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::Sandbox;

fn read_window() -> Command {
    Command::new(env!("CARGO_BIN_EXE_read-window"))
}

#[test]
fn read_prints_the_window_then_the_hint_and_exits_0() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("notes.txt", "alpha\nbeta\ngamma\n");
    let output = read_window()
        .args([
            "--root",
            &sandbox.root.display().to_string(),
            "read",
            &path,
            "--limit",
            "2",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("1|alpha\n2|beta\n\nShowing lines 1-2 of 3 in {path} (the limit of 2 lines). Use offset=3 to continue.\n")
    );
}

#[test]
fn exit_codes_are_1_for_a_read_error_with_json_still_printed_and_2_for_usage() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let missing = read_window()
        .args(["--root", &root, "read", "missing.txt", "--json"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    let answer: serde_json::Value = serde_json::from_slice(&missing.stdout).unwrap();
    assert_eq!(answer["error"]["kind"], "not_found");
    let bad_root = read_window()
        .args(["--root", "/no/such/dir", "read", "x"])
        .output()
        .unwrap();
    assert_eq!(bad_root.status.code(), Some(2));
    let bad_flag = read_window().args(["read"]).output().unwrap();
    assert_eq!(bad_flag.status.code(), Some(2));
}

#[test]
fn session_mode_answers_one_line_per_request() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\ntwo\n");
    let mut child = read_window()
        .args(["--root", &sandbox.root.display().to_string(), "session"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let requests = format!(
        "{{\"op\":\"read\",\"path\":\"{path}\"}}\n{{\"op\":\"read\",\"path\":\"{path}\"}}\nnot json\n{{\"op\":\"other_tool\"}}\n"
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(requests.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let answers: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[0]["content"], "1|one\n2|two\n");
    assert_eq!(answers[1]["status"], "unchanged");
    assert_eq!(answers[2]["error"]["kind"], "invalid_request");
    assert_eq!(answers[3], serde_json::json!({"status": "ok"}));
}

#[test]
fn page_prints_every_line_once_including_the_rest_of_clamped_lines() {
    let sandbox = Sandbox::new();
    let long = "0123456789".repeat(50);
    let text: String = (1..=300)
        .map(|n| {
            if n % 50 == 0 {
                format!("{long}\n")
            } else {
                format!("line {n}\n")
            }
        })
        .collect();
    let path = sandbox.write("paged.txt", &text);
    let output = read_window()
        .args([
            "--root",
            &sandbox.root.display().to_string(),
            "--max-chars",
            "2000",
            "--max-line-length",
            "120",
            "page",
            &path,
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let mut lines: std::collections::BTreeMap<u64, String> = std::collections::BTreeMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let window: serde_json::Value = serde_json::from_str(line).unwrap();
        let start_line = window["start_line"].as_u64().unwrap();
        let start_column = window["start_column"].as_u64().unwrap();
        for (position, formatted) in window["content"]
            .as_str()
            .unwrap()
            .split_terminator('\n')
            .enumerate()
        {
            let number = start_line + position as u64;
            let body = formatted.strip_prefix(&format!("{number}|")).unwrap();
            let shown = window["clamped_lines"]
                .as_array()
                .unwrap()
                .iter()
                .find(|clamped| clamped["line"] == number)
                .map(|clamped| clamped["shown_chars"].as_u64().unwrap() as usize);
            let piece: String = match shown {
                Some(count) => body.chars().take(count).collect(),
                None => body.to_string(),
            };
            let entry = lines.entry(number).or_default();
            if position == 0 {
                assert_eq!(entry.chars().count() as u64, start_column, "line {number}");
            }
            entry.push_str(&piece);
        }
    }
    let rebuilt: String = lines.values().map(|line| format!("{line}\n")).collect();
    assert_eq!(rebuilt, text);
}
