//! Issue 4 bounds through the real component that do not depend on the machine's speed: linear memory stays
//! under 16 MiB whatever the file's size or its longest line, and once a file is indexed a deep page costs a
//! bounded number of positioned reads.

mod common;

use std::io::Write;

use common::{read, Sandbox};
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
    let stats = session.stats().unwrap();
    assert!(stats.index_bytes < MIB, "{stats:?}");
}

#[test]
fn a_deep_page_of_an_indexed_file_costs_a_bounded_number_of_reads() {
    let sandbox = Sandbox::new();
    let log = write_log(&sandbox, "deep.log", 400_000);
    let mut session = sandbox.default_session();
    // The first read scans the whole file once to count its lines and build the index.
    read(&mut session, &log, json!({"limit": 10}));
    let scanned = session.stats().unwrap().positioned_reads;
    let size = std::fs::metadata(sandbox.host("deep.log")).unwrap().len();
    assert!(
        scanned >= size / (256 * 1024),
        "{scanned} reads for {size} bytes"
    );
    for offset in [390_001u64, 200_123, 17] {
        let before = session.stats().unwrap().positioned_reads;
        let window = session
            .read(&ReadRequest::new(log.clone()).offset(offset).limit(100))
            .unwrap()
            .unwrap();
        let after = session.stats().unwrap().positioned_reads;
        match window {
            read_window_host::ReadOutcome::Window(window) => assert_eq!(window.start_line, offset),
            other => panic!("expected a window: {other:?}"),
        }
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
