//! Issue 4 bounds through the real component that do not depend on the machine's speed: linear memory stays
//! under 16 MiB whatever the file's size or its longest line, and once a file is indexed a deep page costs a
//! bounded number of positioned reads. Issue 16: the memory of a window follows the window actually built (at
//! most 8 bytes a character of content over a fresh session's), on every path through the window code.

use std::io::Write;

use crate::common::{read, stat, Sandbox};
use read_window_host::ReadRequest;
use serde_json::json;

const MIB: u64 = 1024 * 1024;

fn write_log(sandbox: &Sandbox, name: &str, lines: u64) -> String {
    let mut file = std::io::BufWriter::new(std::fs::File::create(sandbox.host(name)).unwrap());
    for n in 1..=lines {
        writeln!(
            file,
            "2026-11-29T12:00:00Z INFO request {n} served in {} ms by worker {}",
            n % 977,
            n % 13
        )
        .unwrap();
    }
    file.flush().unwrap();
    sandbox.guest(name)
}

#[test]
fn memory_stays_bounded_on_a_large_log_and_a_long_single_line() {
    let sandbox = Sandbox::new();
    let log = write_log(&sandbox, "big.log", 600_000);
    let one_line = sandbox.write(
        "one-line.json",
        "[".to_string() + &"{\"k\":12345},".repeat(2_000_000) + "{}]",
    );
    let size = std::fs::metadata(sandbox.host("big.log")).unwrap().len()
        + std::fs::metadata(sandbox.host("one-line.json"))
            .unwrap()
            .len();
    assert!(size > 60 * MIB, "the fixtures are large: {size} bytes");
    let mut session = sandbox.default_session();

    let first = read(&mut session, &log, json!({}));
    assert_eq!(first["total_lines"], 600_000);
    let deep = read(&mut session, &log, json!({"offset": 599_000}));
    assert_eq!(deep["start_line"], 599_000);
    assert!(deep["content"]
        .as_str()
        .unwrap()
        .starts_with("599000|2026-11-29T12:00:00Z INFO request 599000 "));

    let line = read(&mut session, &one_line, json!({}));
    assert_eq!(line["clamped_lines"][0]["total_chars"], 24_000_004);
    let last = read(
        &mut session,
        &one_line,
        json!({"offset": 1, "column": 23_999_000, "limit": 1}),
    );
    assert!(last["content"].as_str().unwrap().ends_with("{}]\n"));

    let peak = session.peak_memory_bytes();
    assert!(peak < 16 * MIB, "peak linear memory {peak} bytes");
    let index_bytes = stat(&mut session, "index_bytes");
    assert!(index_bytes < MIB, "{index_bytes} index bytes");
}

#[test]
fn a_deep_page_of_an_indexed_file_costs_a_bounded_number_of_reads() {
    let sandbox = Sandbox::new();
    let log = write_log(&sandbox, "deep.log", 400_000);
    let mut session = sandbox.default_session();
    // The first read scans the whole file once to count its lines and build the index.
    read(&mut session, &log, json!({"limit": 10}));
    let scanned = stat(&mut session, "positioned_reads");
    let size = std::fs::metadata(sandbox.host("deep.log")).unwrap().len();
    assert!(
        scanned >= size / (256 * 1024),
        "{scanned} reads for {size} bytes"
    );
    for offset in [390_001u64, 200_123, 17] {
        let before = stat(&mut session, "positioned_reads");
        let window = read(&mut session, &log, json!({"offset": offset, "limit": 100}));
        let after = stat(&mut session, "positioned_reads");
        assert_eq!(window["start_line"], offset, "{window}");
        // One read checks the fingerprint before the end of the indexed lines (the file is unchanged); one block
        // holds most of the checkpoint's 1,024 lines and the window (about 70 bytes a line), and a window that
        // straddles a block boundary needs one more. However deep the page.
        assert!(
            after - before <= 3,
            "offset {offset}: {} positioned reads",
            after - before
        );
    }
}

/// The last of `requests` read in a fresh session: (the session's peak linear memory in bytes, the bytes a
/// character of the last window's content cost over what a fresh session holds, its characters of content, its
/// hint).
fn window_memory(
    sandbox: &Sandbox,
    config: read_window_host::Config,
    requests: &[ReadRequest],
) -> (u64, f64, u64, String) {
    let probe = sandbox.typed_session(config.clone());
    let baseline = probe.peak_memory_bytes();
    let mut session = sandbox.typed_session(config);
    let (last, before) = requests.split_last().expect("a request");
    for request in before {
        session.read(request).unwrap().unwrap();
    }
    let window = match session.read(last).unwrap().unwrap() {
        read_window_host::ReadOutcome::Window(window) => window,
        other => panic!("expected a window, got {other:?}"),
    };
    let chars = window.content().chars().count() as u64;
    let peak = session.peak_memory_bytes();
    let per_char = (peak.saturating_sub(baseline)) as f64 / chars as f64;
    (peak, per_char, chars, window.hint)
}

#[test]
fn a_window_of_4500000_characters_inside_a_6000000_character_line_costs_under_64_mib() {
    use read_window_host::{Budget, Config, TokenBudget};
    let sandbox = Sandbox::new();
    let six = sandbox.write("six.txt", "a".repeat(6_000_000));
    let lines = sandbox.write(
        "lines.txt",
        (0..60_000)
            .map(|n| format!("{n:06} {}\n", "x".repeat(113)))
            .collect::<String>(),
    );
    let characters = |max_line_length: Option<u32>| Config {
        max_line_length,
        max_lines: Some(100_000),
        budget: Some(Budget::Characters(4_500_000)),
        ..Config::default()
    };
    let tokens = Config {
        budget: Some(Budget::Tokens(TokenBudget {
            cap: Some(1_000_000),
            headroom: None,
        })),
        ..Config::default()
    };
    let continuation = ReadRequest::new(six.clone()).column(1);
    let cases = [
        // A continuation: the budget alone bounds it, whatever max-line-length.
        (
            "cut inside a line, from column 1",
            characters(None),
            vec![continuation.clone()],
            8.0,
        ),
        // The line read before (clamped at the default 2,000): its length is known, so the working copy is
        // reserved once instead of doubled.
        (
            "cut inside a line read before",
            characters(None),
            vec![ReadRequest::new(six.clone()), continuation.clone()],
            3.0,
        ),
        (
            "cut inside a line, from column 0",
            characters(Some(4_500_000)),
            vec![ReadRequest::new(six.clone())],
            8.0,
        ),
        (
            "clamped line",
            characters(Some(4_000_000)),
            vec![ReadRequest::new(six.clone())],
            8.0,
        ),
        (
            "whole lines",
            characters(None),
            vec![ReadRequest::new(lines)],
            8.0,
        ),
        (
            "token mode, cut inside a line",
            tokens,
            vec![continuation],
            8.0,
        ),
    ];
    for (name, config, requests, bound) in cases {
        let (peak, per_char, chars, hint) = window_memory(&sandbox, config, &requests);
        eprintln!("{name}: {chars} characters, peak {peak} bytes, {per_char:.2} bytes a character");
        assert!(chars >= 4_000_000, "{name}: {chars} characters ({hint})");
        assert!(
            peak < 64 * MIB,
            "{name}: peak linear memory {peak} bytes ({hint})"
        );
        assert!(
            per_char <= bound,
            "{name}: {per_char:.2} bytes a character, over {bound} ({hint})"
        );
    }
}
