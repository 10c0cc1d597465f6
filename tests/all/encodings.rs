//! Issue 10 through the real component where the test needs host control: a 900 KB windows-1251 file paged
//! through every cursor with nothing lost, and tail reads of a large log (bounded memory, and no scan once the
//! file is indexed). The other behaviours of the issue are scenario files (tests/scenarios/encodings,
//! tests/scenarios/line-endings).

use std::io::Write;

use crate::common::{read, stat, Sandbox};
use serde_json::json;

const MIB: u64 = 1024 * 1024;

/// The text of a window's content: each `N|` gutter dropped, line by line.
fn lines_of(content: &str) -> Vec<String> {
    content
        .lines()
        .map(|line| {
            line.split_once('|')
                .map_or(line, |(_, text)| text)
                .to_string()
        })
        .collect()
}

#[test]
fn a_900_kb_windows_1251_file_pages_through_its_cursors_with_nothing_lost() {
    let sandbox = Sandbox::new();
    let text: String = (1..=45_000)
        .map(|n| format!("строка номер {n:06} — ёжик в тумане\n"))
        .collect();
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1251.encode(&text);
    assert!(!unmappable);
    assert!(bytes.len() > 900_000, "{} bytes", bytes.len());
    let path = sandbox.write("big-1251.txt", &bytes);
    let mut session = sandbox.default_session();
    let mut seen: Vec<String> = Vec::new();
    let mut offset = Some(1u64);
    let mut pages = 0;
    while let Some(at) = offset {
        let page = read(&mut session, &path, json!({"offset": at}));
        assert_eq!(page["status"], "ok", "{page}");
        assert_eq!(page["encoding"]["encoding"], "windows-1251");
        assert_eq!(page["encoding"]["replaced_invalid"], 0);
        assert_eq!(page["start_line"], at);
        seen.extend(lines_of(page["content"].as_str().unwrap()));
        offset = page["next_offset"].as_u64();
        pages += 1;
    }
    assert_eq!(pages, 23);
    let expected: Vec<&str> = text.lines().collect();
    assert_eq!(seen.len(), expected.len());
    assert!(seen == expected, "the paged text differs from the source");
}

#[test]
fn a_tail_of_a_large_log_is_bounded_and_needs_no_scan_once_indexed() {
    let sandbox = Sandbox::new();
    let lines = 600_000u64;
    let mut file = std::io::BufWriter::new(std::fs::File::create(sandbox.host("big.log")).unwrap());
    for n in 1..=lines {
        writeln!(file, "2026-11-29T12:00:00Z INFO request {n} served").unwrap();
    }
    file.flush().unwrap();
    drop(file);
    let log = sandbox.guest("big.log");
    let mut session = sandbox.default_session();
    let first = read(&mut session, &log, json!({"tail": 3}));
    assert_eq!(
        first["content"],
        "599998|2026-11-29T12:00:00Z INFO request 599998 served\n599999|2026-11-29T12:00:00Z INFO request 599999 served\n600000|2026-11-29T12:00:00Z INFO request 600000 served\n"
    );
    assert_eq!(first["next_offset"], serde_json::Value::Null);
    assert_eq!(
        first["hint"],
        format!("Showing lines 599998-600000 of 600000 in {log}: the end of the file. The 3 lines before them are read with offset=599995 limit=3.")
    );
    let before = stat(&mut session, "positioned_reads");
    let again = read(&mut session, &log, json!({"tail": 10}));
    assert_eq!(again["start_line"], 599_991);
    let reads = stat(&mut session, "positioned_reads") - before;
    assert!(
        reads <= 3,
        "{reads} positioned reads for a tail of an indexed file"
    );
    let peak = session.peak_memory_bytes();
    assert!(peak < 16 * MIB, "peak linear memory {peak} bytes");
}

/// The component writes its answers' JSON text itself, finding the stretches that need no escape a chunk at a time
/// (16 bytes by simd128 in the component, a word in the native unit tests, which so never run the component's
/// scan): a line with `"`, `\` or a tab at every column of every length up to two chunks and more, read through
/// the protocol, comes back as JSON whose text holds each line exactly.
#[test]
fn escapes_at_every_place_of_a_chunk_come_back_exactly_through_the_protocol() {
    let sandbox = Sandbox::new();
    let mut lines = Vec::new();
    for length in 1..=34 {
        for place in 0..length {
            for escaped in ['"', '\\', '\t'] {
                let mut line: String = "abcdefgh".chars().cycle().take(length).collect();
                line.replace_range(place..place + 1, &escaped.to_string());
                lines.push(line);
            }
        }
    }
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let path = sandbox.write("escapes.txt", text);
    let mut session = sandbox.default_session();
    let page = read(&mut session, &path, json!({"limit": lines.len()}));
    let shown: Vec<&str> = page["content"].as_str().unwrap().lines().collect();
    let expected: Vec<String> = (1..)
        .zip(&lines)
        .map(|(number, line)| format!("{number}|{line}"))
        .collect();
    assert_eq!(lines.len(), 1_785);
    assert_eq!(shown, expected);
    assert!(page["text"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{}\n", expected.join("\n"))));
}
