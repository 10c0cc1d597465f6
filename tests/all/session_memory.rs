//! Issue 5 scenarios that need host control: modification times set back and a count of misses whose TTL expires
//! while the test sleeps. The rest (dedup stubs, the loop tripwire, host notes, the count of misses, check-write,
//! sessions that share nothing) are scenario files in `tests/scenarios/session/` and `tests/scenarios/session-truth/`,
//! run by `tests/scenarios.rs` and every host.

use std::time::Duration;

use crate::common::{error_kind, read, Sandbox};
use read_window_host::Config;
use serde_json::json;

// Stays in Rust: sets the file's modification time back, which a scenario cannot.
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

// Stays in Rust: the count of misses must start over while the test sleeps past its TTL. (A missing path is
// checked on every read: the TTL only bounds the count the message and the tripwire use.)
#[test]
fn a_miss_after_the_ttl_is_counted_as_the_first_and_a_created_file_reads_at_once() {
    let sandbox = Sandbox::new();
    let mut session = sandbox.session(Config {
        not_found_ttl_ms: Some(200),
        ..Config::default()
    });
    let first = read(&mut session, "late.txt", json!({}));
    assert_eq!(error_kind(&first), "not_found");
    let again = read(&mut session, "late.txt", json!({}));
    assert_eq!(error_kind(&again), "not_found");
    assert!(again["error"]["message"]
        .as_str()
        .unwrap()
        .contains("you asked for this missing file 2 times in this session"));
    std::thread::sleep(Duration::from_millis(300));
    let after_the_ttl = read(&mut session, "late.txt", json!({}));
    assert_eq!(after_the_ttl["error"], first["error"]);
    // Created now: the very next read finds it, with no note and no wait.
    sandbox.write("late.txt", "late\n");
    assert_eq!(
        read(&mut session, "late.txt", json!({}))["content"],
        "1|late\n"
    );
}

fn numbered(prefix: &str, width: usize, lines: u64) -> String {
    (1..=lines)
        .map(|n| format!("{prefix}{n:0width$}\n"))
        .collect()
}

// Stays in Rust: sets the rewritten file's modification time back to the first version's, which a scenario cannot.
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
