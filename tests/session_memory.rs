//! Issue 5 scenarios through the real component: dedup stubs, the loop tripwire, host notes, the not-found
//! cache, check-write, and sessions that share nothing.

mod common;

use std::time::{Duration, SystemTime};

use common::{ask, error_kind, read, Sandbox};
use read_window_host::Config;
use serde_json::json;

fn no_dedup() -> Config {
    Config {
        dedup: Some(false),
        ..Config::default()
    }
}

#[test]
fn second_read_is_a_stub_with_no_content_key() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\nbeta\n");
    let mut session = sandbox.default_session();
    let first = read(&mut session, &path, json!({}));
    assert_eq!(first["content"], "1|alpha\n2|beta\n");
    let second = read(&mut session, &path, json!({}));
    assert_eq!(second["status"], "unchanged");
    assert_eq!(second["content_returned"], false);
    assert_eq!(second["dedup"], true);
    assert!(
        second.get("content").is_none(),
        "a stub has no content field: {second}"
    );
    assert!(second["message"]
        .as_str()
        .unwrap()
        .contains("still current"));
}

#[test]
fn third_read_is_blocked_with_already_read_3_and_stays_blocked() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\n");
    let mut session = sandbox.default_session();
    read(&mut session, &path, json!({}));
    read(&mut session, &path, json!({}));
    let third = read(&mut session, &path, json!({}));
    assert_eq!(error_kind(&third), "loop_blocked");
    assert_eq!(third["error"]["already_read"], 3);
    assert!(third["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Stop re-reading"));
    let fourth = read(&mut session, &path, json!({}));
    assert_eq!(error_kind(&fourth), "loop_blocked");
    assert_eq!(fourth["error"]["already_read"], 4);
}

#[test]
fn without_dedup_the_third_read_warns_and_the_fourth_is_blocked() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\n");
    let mut session = sandbox.session(no_dedup());
    for _ in 0..2 {
        let answer = read(&mut session, &path, json!({}));
        assert_eq!(answer["content"], "1|alpha\n");
        assert!(answer.get("warnings").is_none());
    }
    let third = read(&mut session, &path, json!({}));
    assert_eq!(third["content"], "1|alpha\n");
    assert!(third["warnings"][0]
        .as_str()
        .unwrap()
        .contains("identical read 3 in a row"));
    let fourth = read(&mut session, &path, json!({}));
    assert_eq!(fourth["error"]["already_read"], 4);
}

#[test]
fn a_same_second_rewrite_of_the_same_size_returns_fresh_content() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "version 1\n");
    let host = sandbox.host("a.txt");
    let mut session = sandbox.default_session();
    assert_eq!(
        read(&mut session, &path, json!({}))["content"],
        "1|version 1\n"
    );
    let modified = std::fs::metadata(&host).unwrap().modified().unwrap();
    std::fs::write(&host, "version 2\n").unwrap();
    // Put the modification time back exactly: only the content tells the versions apart.
    std::fs::File::options()
        .write(true)
        .open(&host)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    assert_eq!(
        std::fs::metadata(&host).unwrap().modified().unwrap(),
        modified
    );
    let again = read(&mut session, &path, json!({}));
    assert_eq!(again["status"], "ok");
    assert_eq!(again["content"], "1|version 2\n");
}

#[test]
fn a_write_note_clears_the_dedup_memory_of_that_path() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\n");
    let other = sandbox.write("b.txt", "beta\n");
    let mut session = sandbox.default_session();
    read(&mut session, &path, json!({}));
    read(&mut session, &other, json!({}));
    assert_eq!(
        ask(&mut session, json!({"op": "wrote", "path": "a.txt"})),
        json!({"status": "ok"})
    );
    assert_eq!(read(&mut session, &path, json!({}))["content"], "1|alpha\n");
    // The other file's memory is kept.
    assert_eq!(read(&mut session, &other, json!({}))["status"], "unchanged");
}

#[test]
fn another_tool_clears_the_count_but_not_the_dedup_memory() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\n");
    let mut session = sandbox.default_session();
    read(&mut session, &path, json!({}));
    assert_eq!(read(&mut session, &path, json!({}))["status"], "unchanged");
    assert_eq!(
        ask(&mut session, json!({"op": "other_tool"})),
        json!({"status": "ok"})
    );
    // The count starts over: the model still has the content, so it gets stubs until the count reaches 3.
    assert_eq!(read(&mut session, &path, json!({}))["status"], "unchanged");
    assert_eq!(read(&mut session, &path, json!({}))["status"], "unchanged");
    assert_eq!(
        read(&mut session, &path, json!({}))["error"]["already_read"],
        3
    );
}

#[test]
fn limits_100_and_200_are_counted_apart() {
    let sandbox = Sandbox::new();
    let text: String = (1..=300).map(|n| format!("{n}\n")).collect();
    let path = sandbox.write("long.txt", text);
    let mut session = sandbox.default_session();
    for _ in 0..2 {
        read(&mut session, &path, json!({"limit": 100}));
    }
    assert_eq!(
        error_kind(&read(&mut session, &path, json!({"limit": 100}))),
        "loop_blocked"
    );
    let wider = read(&mut session, &path, json!({"limit": 200}));
    assert_eq!(wider["status"], "ok");
    assert_eq!(wider["end_line"], 200);
    let paged = read(&mut session, &path, json!({"offset": 101, "limit": 100}));
    assert_eq!(paged["start_line"], 101);
}

#[test]
fn reset_dedup_returns_exact_content_once_and_keeps_loop_detection() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\nbeta\n");
    let mut session = sandbox.default_session();
    let first = read(&mut session, &path, json!({}));
    assert_eq!(read(&mut session, &path, json!({}))["status"], "unchanged");
    assert_eq!(
        ask(&mut session, json!({"op": "reset_dedup"})),
        json!({"status": "ok"})
    );
    let third = read(&mut session, &path, json!({}));
    assert_eq!(third["content"], first["content"]);
    assert!(third["warnings"][0]
        .as_str()
        .unwrap()
        .contains("identical read 3"));
    let fourth = read(&mut session, &path, json!({}));
    assert_eq!(error_kind(&fourth), "loop_blocked");
    assert_eq!(fourth["error"]["already_read"], 4);
}

#[test]
fn not_found_is_remembered_within_the_ttl_and_cleared_by_a_write_note() {
    let sandbox = Sandbox::new();
    sandbox.write("notes.txt", "n\n");
    sandbox.write("nodes.txt", "n\n");
    sandbox.write("zebra.txt", "z\n");
    let mut session = sandbox.default_session();
    let missing = read(&mut session, "notez.txt", json!({}));
    assert_eq!(error_kind(&missing), "not_found");
    let message = missing["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("notes.txt")
            && message.contains("nodes.txt")
            && !message.contains("zebra"),
        "{message}"
    );
    sandbox.write("notez.txt", "now here\n");
    let remembered = read(&mut session, "notez.txt", json!({}));
    assert_eq!(error_kind(&remembered), "not_found");
    assert!(remembered["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Remembered"));
    ask(&mut session, json!({"op": "wrote", "path": "notez.txt"}));
    assert_eq!(
        read(&mut session, "notez.txt", json!({}))["content"],
        "1|now here\n"
    );
}

#[test]
fn the_not_found_cache_expires_after_its_ttl() {
    let sandbox = Sandbox::new();
    let mut session = sandbox.session(Config {
        not_found_ttl_ms: Some(200),
        ..Config::default()
    });
    assert_eq!(
        error_kind(&read(&mut session, "late.txt", json!({}))),
        "not_found"
    );
    sandbox.write("late.txt", "late\n");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        read(&mut session, "late.txt", json!({}))["content"],
        "1|late\n"
    );
}

#[test]
fn check_write_refuses_a_stub_and_a_clamp_marker_and_passes_plain_text() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\n");
    let mut session = sandbox.default_session();
    read(&mut session, &path, json!({}));
    let stub = read(&mut session, &path, json!({}));
    let message = stub["message"].as_str().unwrap();
    let refused = ask(
        &mut session,
        json!({"op": "check_write", "path": "a.txt", "text": message}),
    );
    assert_eq!(error_kind(&refused), "echoed_output");
    let marker =
        "x [read-window: line 1 clamped, 5 more characters; read them with offset=1 column=2000]";
    let refused = ask(
        &mut session,
        json!({"op": "check_write", "path": "a.txt", "text": marker}),
    );
    assert_eq!(error_kind(&refused), "echoed_output");
    let gutters = ask(
        &mut session,
        json!({"op": "check_write", "path": "a.txt", "text": "1|alpha\n2|beta\n"}),
    );
    assert_eq!(error_kind(&gutters), "echoed_output");
    let plain = ask(
        &mut session,
        json!({"op": "check_write", "path": "a.txt", "text": "alpha\nbeta\n"}),
    );
    assert_eq!(plain, json!({"status": "ok"}));
}

#[test]
fn two_sessions_do_not_share_state() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\n");
    let mut first = sandbox.default_session();
    let mut second = sandbox.default_session();
    read(&mut first, &path, json!({}));
    assert_eq!(read(&mut first, &path, json!({}))["status"], "unchanged");
    assert_eq!(read(&mut second, &path, json!({}))["content"], "1|alpha\n");
}

#[test]
fn invalid_thresholds_fall_back_to_defaults_with_one_warning() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\n");
    let other = sandbox.write("b.txt", "beta\n");
    let mut session = sandbox.session(Config {
        loop_warn_at: Some(9),
        loop_block_at: Some(2),
        ..Config::default()
    });
    let first = read(&mut session, &path, json!({}));
    assert_eq!(first["warnings"].as_array().unwrap().len(), 1);
    assert!(first["warnings"][0]
        .as_str()
        .unwrap()
        .contains("using the defaults 3 and 4"));
    assert!(read(&mut session, &other, json!({}))
        .get("warnings")
        .is_none());
    read(&mut session, &path, json!({}));
    read(&mut session, &path, json!({}));
    assert_eq!(
        read(&mut session, &path, json!({}))["error"]["already_read"],
        3
    );
}

#[test]
fn a_file_changed_between_reads_returns_fresh_content_and_clears_the_count() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\n");
    let mut session = sandbox.default_session();
    read(&mut session, &path, json!({}));
    assert_eq!(read(&mut session, &path, json!({}))["status"], "unchanged");
    std::fs::write(sandbox.host("a.txt"), "two\n").unwrap();
    let _ = SystemTime::now();
    assert_eq!(read(&mut session, &path, json!({}))["content"], "1|two\n");
    assert_eq!(read(&mut session, &path, json!({}))["status"], "unchanged");
}

fn numbered(prefix: &str, width: usize, lines: u64) -> String {
    (1..=lines)
        .map(|n| format!("{prefix}{n:0width$}\n"))
        .collect()
}

#[test]
fn a_large_file_rewritten_under_the_same_size_and_mtime_is_indexed_again() {
    let sandbox = Sandbox::new();
    // 20,000 lines of 7 bytes (140 KB, over one block); then 14,000 lines of 10 bytes: the same size.
    let path = sandbox.write("same.txt", numbered("A", 5, 20_000));
    let host = sandbox.host("same.txt");
    let mut session = sandbox.default_session();
    assert_eq!(
        read(&mut session, &path, json!({"offset": 5_000, "limit": 1}))["content"],
        "5000|A05000\n"
    );
    let modified = std::fs::metadata(&host).unwrap().modified().unwrap();
    std::fs::write(&host, numbered("B", 8, 14_000)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&host)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let again = read(&mut session, &path, json!({"offset": 5_000, "limit": 1}));
    assert_eq!(again["content"], "5000|B00005000\n");
    assert_eq!(again["total_lines"], 14_000);
    let past = read(&mut session, &path, json!({"offset": 15_000, "limit": 1}));
    assert_eq!(error_kind(&past), "invalid_request");
}

#[test]
fn an_edit_before_the_part_that_grew_is_indexed_again() {
    let sandbox = Sandbox::new();
    let original = numbered("line ", 5, 5_000);
    let path = sandbox.write("src.txt", &original);
    let mut session = sandbox.default_session();
    assert_eq!(
        read(&mut session, &path, json!({"offset": 3_000, "limit": 1}))["content"],
        "3000|line 03000\n"
    );
    // Insert two lines near the top: the file grew, but not by appending.
    let mut lines: Vec<&str> = original.lines().collect();
    lines.insert(9, "import os");
    lines.insert(10, "import sys, json, re  # a longer inserted line");
    std::fs::write(sandbox.host("src.txt"), lines.join("\n") + "\n").unwrap();
    let after = read(&mut session, &path, json!({"offset": 1_025, "limit": 2}));
    assert_eq!(after["content"], "1025|line 01023\n1026|line 01024\n");
    assert_eq!(after["total_lines"], 5_002);
}

#[test]
fn an_appended_log_extends_its_index_and_reads_the_new_lines() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("app.log", numbered("event ", 6, 10_000));
    let mut session = sandbox.default_session();
    assert_eq!(
        read(&mut session, &path, json!({"offset": 9_999}))["total_lines"],
        10_000
    );
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(sandbox.host("app.log"))
        .unwrap();
    std::io::Write::write_all(&mut file, numbered("later ", 6, 3).as_bytes()).unwrap();
    let grown = read(&mut session, &path, json!({"offset": 10_001}));
    assert_eq!(
        grown["content"],
        "10001|later 000001\n10002|later 000002\n10003|later 000003\n"
    );
    assert_eq!(grown["total_lines"], 10_003);
}

#[test]
fn dedup_keys_on_the_window_returned_not_the_limit_asked() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\ntwo\nthree\n");
    let mut session = sandbox.default_session();
    assert_eq!(
        read(&mut session, &path, json!({"limit": 10}))["status"],
        "ok"
    );
    assert_eq!(
        read(&mut session, &path, json!({"limit": 11}))["status"],
        "unchanged"
    );
    let third = read(&mut session, &path, json!({"limit": 12}));
    assert_eq!(third["error"]["already_read"], 3);
}

#[test]
fn a_failed_read_breaks_a_run_of_identical_reads() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\n");
    let mut session = sandbox.session(no_dedup());
    read(&mut session, &path, json!({}));
    read(&mut session, &path, json!({}));
    assert_eq!(
        error_kind(&read(&mut session, "missing.txt", json!({}))),
        "not_found"
    );
    let after = read(&mut session, &path, json!({}));
    assert_eq!(after["status"], "ok");
    assert!(after.get("warnings").is_none(), "{after}");
}
