//! Native tests of the text people keep: legacy encodings read through the whole data flow (detection kept with
//! the index, multi-byte characters across block boundaries, cursors), lone-CR files, tail reads, and the
//! `check_write` refusal of text a legacy file cannot hold.

use std::path::PathBuf;

use crate::config::ConfigInput;
use crate::decode::TextEncoding;
use crate::error::ErrorKind;
use crate::index::LineEndings;
use crate::native_fs::NativeFileSystem;
use crate::read::{read_once_window, EncodingOrigin, ReadOutcome, ReadRequest, ReadResult, Reader};
use crate::scan::BLOCK_BYTES;

fn setup() -> (tempfile::TempDir, NativeFileSystem) {
    let directory = tempfile::tempdir().unwrap();
    let fs = NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]);
    (directory, fs)
}

fn request(path: &str) -> ReadRequest {
    ReadRequest {
        path: path.to_string(),
        ..ReadRequest::default()
    }
}

fn window(outcome: ReadOutcome) -> ReadResult {
    match outcome {
        ReadOutcome::Window(result) => result,
        other => panic!("not a window: {other:?}"),
    }
}

fn encoded(text: &str, encoding: &'static encoding_rs::Encoding) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable);
    bytes.into_owned()
}

/// The text of a window's content without its gutters.
fn text_of(content: &str) -> String {
    content
        .lines()
        .map(|line| line.split_once('|').map_or(line, |(_, text)| text))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_windows_1251_file_reads_with_its_encoding_named_in_the_result_and_the_hint() {
    let (directory, mut fs) = setup();
    std::fs::write(
        directory.path().join("ru.txt"),
        encoded("Привет мир, это тест\n", encoding_rs::WINDOWS_1251),
    )
    .unwrap();
    let result = read_once_window(ConfigInput::default(), &mut fs, &request("ru.txt")).unwrap();
    assert_eq!(result.window.content, "1|Привет мир, это тест\n");
    assert_eq!(
        result.encoding.encoding,
        TextEncoding::Legacy(encoding_rs::WINDOWS_1251)
    );
    assert_eq!(result.encoding.encoding.name(), "windows-1251");
    assert_eq!(result.encoding.origin, EncodingOrigin::Detected);
    assert_eq!(result.encoding.replaced_invalid, 0);
    assert_eq!(
        result.hint,
        "Showing line 1 of 1 in /w/ru.txt: the whole file. Decoded from windows-1251 (detected from its content): write changes back in windows-1251."
    );
}

#[test]
fn utf16_and_utf32_files_are_named_in_the_hint_with_their_byte_order_mark() {
    let (directory, mut fs) = setup();
    let utf16 = |big_endian: bool, text: &str| -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|unit| {
                if big_endian {
                    unit.to_be_bytes()
                } else {
                    unit.to_le_bytes()
                }
            })
            .collect()
    };
    let utf32_be = |text: &str| -> Vec<u8> {
        text.chars()
            .flat_map(|c| u32::from(c).to_be_bytes())
            .collect()
    };
    // UTF-16LE and UTF-32BE with a byte order mark; UTF-16BE without one (detected from its NUL bytes).
    let files: [(&str, Vec<u8>, &str); 3] = [
        (
            "le.txt",
            utf16(false, "\u{feff}año\n"),
            "Showing line 1 of 1 in /w/le.txt: the whole file. Decoded from UTF-16LE (its byte order mark): write changes back in UTF-16LE with the byte order mark.",
        ),
        (
            "be.txt",
            utf16(true, "plain ascii text\nand more of it\n"),
            "Showing lines 1-2 of 2 in /w/be.txt: the whole file. Decoded from UTF-16BE (detected from its content): write changes back in UTF-16BE.",
        ),
        (
            "be32.txt",
            utf32_be("\u{feff}año\n"),
            "Showing line 1 of 1 in /w/be32.txt: the whole file. Decoded from UTF-32BE (its byte order mark): write changes back in UTF-32BE with the byte order mark.",
        ),
    ];
    for (name, bytes, hint) in files {
        std::fs::write(directory.path().join(name), bytes).unwrap();
        let result = read_once_window(ConfigInput::default(), &mut fs, &request(name)).unwrap();
        assert_eq!(result.hint, hint, "{name}");
    }
}

#[test]
fn shift_jis_characters_straddling_the_block_boundary_decode_exactly_and_page_by_cursor() {
    let (directory, mut fs) = setup();
    // One ASCII byte first, so every 2-byte character of the long line straddles the 64 KiB boundary.
    let line: String = "x".to_string() + &"日本語のテキスト".repeat(BLOCK_BYTES / 8);
    let text = format!("{line}\nおわり\n");
    let bytes = encoded(&text, encoding_rs::SHIFT_JIS);
    assert_eq!(bytes.get(BLOCK_BYTES - 1).map(|b| *b >= 0x81), Some(true));
    std::fs::write(directory.path().join("jp.txt"), bytes).unwrap();
    let mut reader = Reader::new(ConfigInput {
        max_line_chars: Some(10_000),
        ..ConfigInput::default()
    });
    let mut seen = String::new();
    let mut next = Some((1u64, 0u64));
    while let Some((offset, column)) = next {
        let result = window(
            reader
                .read(
                    &mut fs,
                    &ReadRequest {
                        path: "jp.txt".into(),
                        offset: Some(offset),
                        column: Some(column),
                        limit: Some(1),
                        tail: None,
                        extract: None,
                        asked_via: Vec::new(),
                        fresh: false,
                        region: None,
                        depth: None,
                    },
                    0,
                )
                .unwrap(),
        );
        assert_eq!(result.encoding.encoding.name(), "shift_jis");
        assert_eq!(result.encoding.replaced_invalid, 0);
        let body = result.window.content.split_once('|').unwrap().1;
        let body = body.split(" [read-window: ").next().unwrap();
        let body = body.strip_suffix('\n').unwrap_or(body);
        seen.push_str(body);
        if let Some(clamped) = result.window.clamped_lines.first() {
            next = Some((clamped.line, clamped.next_column));
            continue;
        }
        next = match (result.window.next_offset, result.window.next_column) {
            (Some(line), Some(column)) => Some((line, column)),
            (Some(line), None) => {
                seen.push('\n');
                Some((line, 0))
            }
            (None, _) => None,
        };
    }
    seen.push('\n');
    assert_eq!(seen.chars().count(), text.chars().count());
    assert!(seen == text, "the paged text differs from the source");
}

#[test]
fn lone_cr_files_split_on_cr_and_lf_files_keep_stray_cr() {
    let (directory, mut fs) = setup();
    std::fs::write(directory.path().join("mac.txt"), "a\rb\rc\r").unwrap();
    std::fs::write(directory.path().join("stray.txt"), "a\rb\nc\n").unwrap();
    let mac = read_once_window(ConfigInput::default(), &mut fs, &request("mac.txt")).unwrap();
    assert_eq!(mac.window.content, "1|a\n2|b\n3|c\n");
    assert_eq!(mac.window.total_lines, 3);
    assert_eq!(mac.encoding.line_endings, LineEndings::Cr);
    let stray = read_once_window(ConfigInput::default(), &mut fs, &request("stray.txt")).unwrap();
    assert_eq!(stray.window.content, "1|a\rb\n2|c\n");
    assert_eq!(stray.encoding.line_endings, LineEndings::Lf);
}

#[test]
fn tail_reads_end_at_the_last_line_of_every_line_ending_kind() {
    let (directory, mut fs) = setup();
    for (name, text) in [
        ("lf.txt", "line1\nline2\nline3\n"),
        ("bare.txt", "line1\nline2\nline3"),
        ("crlf.txt", "line1\r\nline2\r\nline3\r\n"),
        ("cr.txt", "line1\rline2\rline3\r"),
    ] {
        std::fs::write(directory.path().join(name), text).unwrap();
        let one = read_once_window(
            ConfigInput::default(),
            &mut fs,
            &ReadRequest {
                tail: Some(1),
                ..request(name)
            },
        )
        .unwrap();
        assert_eq!(one.window.content, "3|line3\n", "{name}");
        assert_eq!(one.window.next_offset, None, "{name}");
        assert_eq!(
            one.hint,
            format!("Showing line 3 of 3 in /w/{name}: the end of the file. The line before it is read with offset=2 limit=1."),
        );
        let two = read_once_window(
            ConfigInput::default(),
            &mut fs,
            &ReadRequest {
                tail: Some(2),
                ..request(name)
            },
        )
        .unwrap();
        assert_eq!(two.window.content, "2|line2\n3|line3\n", "{name}");
    }
    std::fs::write(directory.path().join("empty.txt"), "").unwrap();
    let empty = read_once_window(
        ConfigInput::default(),
        &mut fs,
        &ReadRequest {
            tail: Some(5),
            ..request("empty.txt")
        },
    )
    .unwrap();
    assert_eq!(empty.window.content, "");
    let refused = read_once_window(
        ConfigInput::default(),
        &mut fs,
        &ReadRequest {
            tail: Some(2),
            offset: Some(2),
            ..request("lf.txt")
        },
    )
    .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::InvalidRequest);
}

#[test]
fn a_tail_over_the_budget_shrinks_to_still_end_at_the_last_line() {
    let (directory, mut fs) = setup();
    let text: String = (1..=100)
        .map(|n| format!("{n:03} {}\n", "x".repeat(60)))
        .collect();
    std::fs::write(directory.path().join("log.txt"), text).unwrap();
    let result = read_once_window(
        ConfigInput {
            budget_chars: Some(300),
            ..ConfigInput::default()
        },
        &mut fs,
        &ReadRequest {
            tail: Some(50),
            ..request("log.txt")
        },
    )
    .unwrap();
    assert_eq!(result.window.end_line, 100);
    assert_eq!(result.window.next_offset, None);
    assert_eq!(result.window.start_line, 97);
    assert!(
        text_of(&result.window.content).starts_with("097 "),
        "{}",
        result.window.content
    );
}

#[test]
fn check_write_refuses_text_a_legacy_file_cannot_encode() {
    let (directory, mut fs) = setup();
    std::fs::write(
        directory.path().join("ru.txt"),
        encoded("Привет мир, это тест\n", encoding_rs::WINDOWS_1251),
    )
    .unwrap();
    let mut reader = Reader::new(ConfigInput::default());
    reader.read(&mut fs, &request("ru.txt"), 0).unwrap();
    assert!(reader
        .check_write(&mut fs, "ru.txt", "Привет, мир\n")
        .is_ok());
    let refused = reader
        .check_write(&mut fs, "ru.txt", "Привет\nмир 😀\n")
        .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Unencodable);
    assert!(
        refused
            .message
            .starts_with("Line 2 of the text for ru.txt holds U+1F600 `😀` (column 4), which windows-1251 cannot encode"),
        "{}",
        refused.message
    );
    // Another file is not held to it.
    assert!(reader.check_write(&mut fs, "new.txt", "мир 😀\n").is_ok());
}

#[cfg(unix)]
#[test]
fn check_write_follows_links_to_the_file_that_was_read() {
    let (directory, mut fs) = setup();
    std::fs::create_dir(directory.path().join("real")).unwrap();
    std::fs::write(
        directory.path().join("real/ru.txt"),
        encoded("Привет мир, это тест\n", encoding_rs::WINDOWS_1251),
    )
    .unwrap();
    std::os::unix::fs::symlink("real/ru.txt", directory.path().join("rel.txt")).unwrap();
    // An absolute link names the guest path.
    std::os::unix::fs::symlink("/w/real/ru.txt", directory.path().join("abs.txt")).unwrap();
    std::os::unix::fs::symlink("real", directory.path().join("linked")).unwrap();
    let mut reader = Reader::new(ConfigInput::default());
    let read = window(reader.read(&mut fs, &request("rel.txt"), 0).unwrap());
    assert_eq!(read.path, "/w/real/ru.txt");
    for path in [
        "rel.txt",
        "abs.txt",
        "linked/ru.txt",
        "real/ru.txt",
        "/w/rel.txt",
    ] {
        let refused = reader.check_write(&mut fs, path, "мир 😀\n").unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Unencodable, "{path}");
        assert!(
            refused.message.starts_with(&format!(
                "Line 1 of the text for {path} holds U+1F600 `😀` (column 4), which windows-1251 cannot encode: this session read /w/real/ru.txt as windows-1251"
            )),
            "{}",
            refused.message
        );
    }
}
