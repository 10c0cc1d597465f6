//! Unit tests of the data flow of one read.

use super::*;

#[cfg(test)]
mod stub_and_miss_tests {
    use std::path::PathBuf;

    use super::*;
    use crate::native_fs::NativeFileSystem;

    fn setup() -> (tempfile::TempDir, NativeFileSystem) {
        let directory = tempfile::tempdir().unwrap();
        let fs = NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]);
        (directory, fs)
    }

    fn request(path: &str, offset: u64, limit: Option<u64>, column: Option<u64>) -> ReadRequest {
        ReadRequest {
            path: path.to_string(),
            offset: Some(offset),
            limit,
            column,
            tail: None,
            extract: None,
            asked_via: Vec::new(),
            fresh: false,
            region: None,
            depth: None,
        }
    }

    fn stub(outcome: Result<ReadOutcome, ReadError>) -> UnchangedStub {
        match outcome {
            Ok(ReadOutcome::Unchanged(stub)) => stub,
            other => panic!("not a stub: {other:?}"),
        }
    }

    #[test]
    fn a_stub_carries_the_cursor_of_the_window_it_stands_for() {
        let (directory, mut fs) = setup();
        std::fs::write(directory.path().join("a.txt"), "1\n2\n3\n4\n5\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        let page = request("a.txt", 1, Some(2), None);
        assert!(matches!(
            reader.read(&mut fs, &page, 0),
            Ok(ReadOutcome::Window(_))
        ));
        let first = stub(reader.read(&mut fs, &page, 0));
        assert_eq!(
            (first.start_line, first.end_line, first.total_lines),
            (1, 2, 5)
        );
        assert_eq!((first.next_offset, first.next_column), (Some(3), None));
        assert_eq!(
            first.message,
            "[read-window: unchanged] Lines 1-2 of 5 in /w/a.txt have not changed since you read them earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true). Use offset=3 to continue."
        );
        let last = request("a.txt", 5, None, None);
        reader.read(&mut fs, &last, 0).unwrap();
        let last = stub(reader.read(&mut fs, &last, 0));
        assert_eq!((last.next_offset, last.next_column), (None, None));
        assert_eq!(
            last.message,
            "[read-window: unchanged] Line 5 of 5 in /w/a.txt has not changed since you read it earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true). Nothing after line 5 is left to read."
        );
    }

    #[test]
    fn a_stub_of_five_clamped_lines_names_three_and_counts_the_rest() {
        let (directory, mut fs) = setup();
        let long = "x".repeat(100);
        std::fs::write(
            directory.path().join("five.txt"),
            format!("{long}\n").repeat(5),
        )
        .unwrap();
        let mut reader = Reader::new(ConfigInput {
            max_line_chars: Some(40),
            ..ConfigInput::default()
        });
        let whole = request("five.txt", 1, None, None);
        reader.read(&mut fs, &whole, 0).unwrap();
        assert_eq!(
            stub(reader.read(&mut fs, &whole, 0)).message,
            "[read-window: unchanged] Lines 1-5 of 5 in /w/five.txt have not changed since you read them earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true). Nothing after line 5 is left, but clamped text inside the window is: 5 lines were clamped; read their rest with offset=1 column=40 limit=1, offset=2 column=40 limit=1, offset=3 column=40 limit=1 and 2 more (see clamped_lines of the earlier result)."
        );
        let page = request("five.txt", 1, Some(4), None);
        reader.read(&mut fs, &page, 0).unwrap();
        assert_eq!(
            stub(reader.read(&mut fs, &page, 0)).message,
            "[read-window: unchanged] Lines 1-4 of 5 in /w/five.txt have not changed since you read them earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true). Use offset=5 to continue. 4 lines were clamped; read their rest with offset=1 column=40 limit=1, offset=2 column=40 limit=1, offset=3 column=40 limit=1 and 1 more (see clamped_lines of the earlier result)."
        );
    }

    fn blocked(outcome: Result<ReadOutcome, ReadError>) -> (String, Option<u32>) {
        match outcome {
            Err(error) if error.kind == ErrorKind::LoopBlocked => {
                (error.message, error.already_read)
            }
            other => panic!("not blocked: {other:?}"),
        }
    }

    #[test]
    fn loop_blocked_names_the_window_in_a_row_and_in_a_cycle() {
        let (directory, mut fs) = setup();
        std::fs::write(directory.path().join("a.txt"), "alpha\n").unwrap();
        std::fs::write(directory.path().join("b.txt"), "one\ntwo\nthree\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        let a = request("a.txt", 1, None, None);
        let b = request("b.txt", 2, None, None);
        for _ in 0..2 {
            reader.read(&mut fs, &b, 0).unwrap();
        }
        assert_eq!(
            blocked(reader.read(&mut fs, &b, 0)),
            ("[read-window: loop-blocked] You have read lines 2-3 of /w/b.txt 3 times in a row and they have not changed. Stop re-reading them: use the content you already have, read a different range, or change the file first.".to_string(), Some(3))
        );
        reader.note_other_tool();
        for _ in 0..2 {
            reader.read(&mut fs, &a, 0).unwrap();
        }
        assert_eq!(
            blocked(reader.read(&mut fs, &a, 0)).0,
            "[read-window: loop-blocked] You have read line 1 of /w/a.txt 3 times in a row and it has not changed. Stop re-reading it: use the content you already have, read a different range, or change the file first."
        );
        reader.note_other_tool();
        for page in [&a, &b, &a, &b] {
            reader.read(&mut fs, page, 0).unwrap();
        }
        assert_eq!(
            blocked(reader.read(&mut fs, &a, 0)),
            ("[read-window: loop-blocked] You have read line 1 of /w/a.txt 3 times in a cycle of 2 unchanged windows read over and over. Stop re-reading them: use the content you already have, read a range you have not read, or change the file first.".to_string(), Some(3))
        );
    }

    #[test]
    fn a_stub_inside_a_long_line_names_the_column_and_the_clamped_rest() {
        let (directory, mut fs) = setup();
        let long = "x".repeat(100);
        std::fs::write(
            directory.path().join("long.txt"),
            format!("{long}\n{long}\nend\n"),
        )
        .unwrap();
        let mut reader = Reader::new(ConfigInput {
            max_line_chars: Some(40),
            ..ConfigInput::default()
        });
        let whole = request("long.txt", 1, None, None);
        reader.read(&mut fs, &whole, 0).unwrap();
        let clamped = stub(reader.read(&mut fs, &whole, 0));
        assert_eq!(clamped.next_offset, None);
        assert_eq!(
            clamped.message,
            "[read-window: unchanged] Lines 1-3 of 3 in /w/long.txt have not changed since you read them earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true). Nothing after line 3 is left, but clamped text inside the window is: 2 lines were clamped; read their rest with offset=1 column=40 limit=1, offset=2 column=40 limit=1."
        );
        let tail = request("long.txt", 2, Some(1), Some(60));
        reader.read(&mut fs, &tail, 0).unwrap();
        let tail = stub(reader.read(&mut fs, &tail, 0));
        assert_eq!((tail.next_offset, tail.next_column), (Some(3), None));
        assert_eq!(
            tail.message,
            "[read-window: unchanged] Line 2 (line 2 from column 60) of 3 in /w/long.txt has not changed since you read it earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true). Use offset=3 to continue."
        );
    }

    #[test]
    fn a_missing_path_is_checked_on_every_read_and_its_misses_are_counted() {
        let (directory, mut fs) = setup();
        std::fs::write(directory.path().join("notes.txt"), "n\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        let missing = request("notez.txt", 1, None, None);
        let messages: Vec<(ErrorKind, String, Option<u32>)> = (0..4)
            .map(|at| match reader.read(&mut fs, &missing, at * 1_000) {
                Err(error) => (error.kind, error.message, error.already_read),
                Ok(other) => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            messages[0],
            (
                ErrorKind::NotFound,
                "notez.txt (resolved to /w/notez.txt) does not exist. Similar names in /w: notes.txt.".to_string(),
                None
            )
        );
        assert_eq!(messages[1].1, "notez.txt (resolved to /w/notez.txt) still does not exist: you asked for this missing file 2 times in this session, and it was checked again just now. Similar names in /w: notes.txt.");
        assert_eq!(messages[2].1, "notez.txt (resolved to /w/notez.txt) still does not exist: you asked for this missing file 3 times in this session, and it was checked again just now. Similar names in /w: notes.txt. Asking again will not make it appear: ask 4 will be blocked. Find the right path with a directory listing, or create the file first.");
        assert_eq!(messages[3].0, ErrorKind::LoopBlocked);
        assert_eq!(messages[3].2, Some(4));
        // Created now: read at once, with no note from the host.
        std::fs::write(directory.path().join("notez.txt"), "here\n").unwrap();
        match reader.read(&mut fs, &missing, 5_000) {
            Ok(ReadOutcome::Window(result)) => assert_eq!(result.window.content, "1|here\n"),
            other => panic!("{other:?}"),
        }
        // Gone again: the count started over when it was found.
        std::fs::remove_file(directory.path().join("notez.txt")).unwrap();
        let again = reader.read(&mut fs, &missing, 6_000).unwrap_err();
        assert_eq!(
            again.message,
            "notez.txt (resolved to /w/notez.txt) does not exist. Similar names in /w: notes.txt."
        );
    }
}

#[cfg(test)]
mod returned_and_change_tests {
    use std::path::PathBuf;

    use super::*;
    use crate::native_fs::NativeFileSystem;

    fn setup() -> (tempfile::TempDir, NativeFileSystem) {
        let directory = tempfile::tempdir().unwrap();
        let fs = NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]);
        (directory, fs)
    }

    fn read(
        reader: &mut Reader,
        fs: &mut NativeFileSystem,
        offset: u64,
        limit: u64,
    ) -> ReadOutcome {
        let request = ReadRequest {
            path: "a.txt".to_string(),
            offset: Some(offset),
            limit: Some(limit),
            column: None,
            tail: None,
            extract: None,
            asked_via: Vec::new(),
            fresh: false,
            region: None,
            depth: None,
        };
        reader.read(fs, &request, 0).unwrap()
    }

    fn warnings(outcome: ReadOutcome) -> Vec<String> {
        match outcome {
            ReadOutcome::Window(result) => result.warnings,
            other => panic!("not a window: {other:?}"),
        }
    }

    #[test]
    fn check_write_refuses_returned_windows_anywhere_and_accepts_numbered_data() {
        let (directory, mut fs) = setup();
        let lines: String = (1..=14)
            .map(|n| match n {
                12 => "def foo():\n".to_string(),
                13 => "    return 1\n".to_string(),
                n => format!("line {n}\n"),
            })
            .collect();
        std::fs::write(directory.path().join("a.txt"), lines).unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        read(&mut reader, &mut fs, 12, 2);
        let refused = reader
            .check_write(
                &mut fs,
                "b.py",
                "# header\n12|def foo():\n13|    return 1\n",
            )
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::EchoedOutput);
        assert!(
            refused
                .message
                .starts_with("Lines 2-3 of the text for b.py"),
            "{}",
            refused.message
        );
        assert!(reader
            .check_write(&mut fs, "b.py", "1|Alice|30\n2|Bob|25\n")
            .is_ok());
        assert!(reader
            .check_write(&mut fs, "b.py", "12|def foo():\n")
            .is_ok());
        assert!(reader
            .check_write(&mut fs, "b.py", "def foo():\n    return 1\n")
            .is_ok());
        assert!(reader
            .check_write(&mut fs, "b.py", "[read-window: unchanged] x")
            .is_err());
    }

    fn window_of(outcome: ReadOutcome) -> ReadResult {
        match outcome {
            ReadOutcome::Window(result) => result,
            other => panic!("not a window: {other:?}"),
        }
    }

    #[test]
    fn a_smart_quote_in_utf8_is_replaced_and_named_where_and_nothing_else_is_re_decoded() {
        let (directory, mut fs) = setup();
        std::fs::write(
            directory.path().join("a.txt"),
            b"# Notes\nShe said \x93hello\x94.\nCaf\xc3\xa9 ok\n",
        )
        .unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        let result = window_of(read(&mut reader, &mut fs, 1, 10));
        assert_eq!(
            result.window.content,
            "1|# Notes\n2|She said \u{FFFD}hello\u{FFFD}.\n3|Café ok\n"
        );
        assert_eq!(result.encoding.encoding, crate::decode::TextEncoding::Utf8);
        assert_eq!(result.encoding.replaced_invalid, 2);
        assert_eq!(result.window.replaced_at, vec![(2, 9), (2, 15)]);
        assert!(result.hint.ends_with("This text is a lossy decode: 2 characters in these lines are U+FFFD, replacing bytes that could not be decoded (at line 2 column 9 and line 2 column 15, columns counted from 0); writing it back as the file's content would destroy those bytes."), "{}", result.hint);
        // A window of line 3 alone holds no replacement and says nothing of one.
        let later = window_of(read(&mut reader, &mut fs, 3, 1));
        assert_eq!(later.window.content, "3|Café ok\n");
        assert!(!later.hint.contains("lossy"), "{}", later.hint);
    }

    #[test]
    fn check_write_refuses_the_damaged_decode_of_a_lossy_read_only() {
        let (directory, mut fs) = setup();
        // UTF-8 with one Latin-1 byte pasted in: it stays UTF-8 (its valid multi-byte characters outnumber the
        // invalid byte), so the byte is replaced.
        let mut bytes = "déjà\n".as_bytes().to_vec();
        bytes.extend_from_slice(b"caf\xe9\n");
        std::fs::write(directory.path().join("a.txt"), bytes).unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        let before = reader.check_write(&mut fs, "a.txt", "ok\ncaf\u{FFFD}\n");
        assert!(before.is_ok());
        read(&mut reader, &mut fs, 1, 10);
        let refused = reader
            .check_write(&mut fs, "/w/a.txt", "ok\ncaf\u{FFFD}\n")
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::EchoedOutput);
        assert!(
            refused
                .message
                .starts_with("Line 2 of the text for /w/a.txt holds U+FFFD"),
            "{}",
            refused.message
        );
        assert!(reader.check_write(&mut fs, "a.txt", "ok\ncafé\n").is_ok());
        assert!(reader
            .check_write(&mut fs, "copy.txt", "ok\ncaf\u{FFFD}\n")
            .is_ok());
    }

    #[test]
    fn a_read_after_a_change_carries_one_notice() {
        let (directory, mut fs) = setup();
        let path = directory.path().join("a.txt");
        std::fs::write(&path, "1\n2\n3\n4\n5\n6\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        assert!(warnings(read(&mut reader, &mut fs, 1, 3)).is_empty());
        std::fs::write(&path, "0\n1\n2\n3\n4\n5\n6\n").unwrap();
        let notice = warnings(read(&mut reader, &mut fs, 4, 3));
        assert_eq!(notice.len(), 1);
        assert!(
            notice[0].contains("the change starts at line 1 (it now has 7 lines)"),
            "{notice:?}"
        );
        // Told once: the next read compares with the version this read saw.
        assert!(warnings(read(&mut reader, &mut fs, 7, 3)).is_empty());
        std::fs::write(&path, "0\n1\n2\n3\n4\n5\n6\n7\n").unwrap();
        let notice = warnings(read(&mut reader, &mut fs, 8, 3));
        assert!(
            notice[0].contains("line 8 was added after line 7. Lines 1-7 are unchanged"),
            "{notice:?}"
        );
        // The same bytes written again are no change; a stub of an unchanged window carries a change elsewhere.
        std::fs::write(&path, "0\n1\n2\n3\n4\n5\n6\n7\n").unwrap();
        assert!(warnings(read(&mut reader, &mut fs, 1, 2)).is_empty());
        std::fs::write(&path, "0\n1\n2\nX\n4\n5\n6\n7\n").unwrap();
        match read(&mut reader, &mut fs, 1, 2) {
            ReadOutcome::Unchanged(stub) => assert!(
                stub.message.contains("[read-window: file changed] /w/a.txt changed since your previous read of it in this session: the first changed line is 4"),
                "{}",
                stub.message
            ),
            other => panic!("not a stub: {other:?}"),
        }
    }

    #[test]
    fn check_write_after_an_outside_edit_is_stale_and_names_the_change() {
        let (directory, mut fs) = setup();
        let path = directory.path().join("a.txt");
        std::fs::write(&path, "1\n2\n3\n4\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        // A file this session never read is checked as before.
        assert!(reader.check_write(&mut fs, "a.txt", "one\n").is_ok());
        read(&mut reader, &mut fs, 1, 2);
        assert!(reader.check_write(&mut fs, "a.txt", "one\n").is_ok());
        std::fs::write(&path, "1\nTWO\n3\n4\n").unwrap();
        let refused = reader.check_write(&mut fs, "a.txt", "one\n").unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Stale);
        assert_eq!(refused.path.as_deref(), Some("a.txt"));
        assert_eq!(
            refused.message,
            "a.txt changed since this session last read it: the first changed line is 2 (it now has 4 lines); line 1 is unchanged. Windows of it you read earlier are stale from line 2 on: their line numbers and content may no longer match the file. The text for it was built on what the file held before the change, so writing it may undo the change. Read a.txt again (at least the lines you change) and build the edit on what it holds now."
        );
        // Another name for the same file is the same file.
        let by_absolute = reader
            .check_write(&mut fs, "/w/a.txt", "one\n")
            .unwrap_err();
        assert_eq!(by_absolute.kind, ErrorKind::Stale);
        // Still stale until it is read again; then the read's notice is the news and the edit may go on.
        assert!(reader.check_write(&mut fs, "a.txt", "one\n").is_err());
        let notice = warnings(read(&mut reader, &mut fs, 3, 2));
        assert!(
            notice[0].contains("the first changed line is 2"),
            "{notice:?}"
        );
        assert!(reader.check_write(&mut fs, "a.txt", "one\n").is_ok());
    }

    #[test]
    fn the_write_an_accepted_check_write_announced_is_no_outside_change() {
        let (directory, mut fs) = setup();
        let path = directory.path().join("a.txt");
        std::fs::write(&path, "1\n2\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        read(&mut reader, &mut fs, 1, 2);
        // The model's own write tool writes what check_write accepted (over MCP no `wrote` follows).
        assert!(reader.check_write(&mut fs, "a.txt", "1\nedited\n").is_ok());
        std::fs::write(&path, "1\nedited\n").unwrap();
        assert!(reader
            .check_write(&mut fs, "a.txt", "1\nedited again\n")
            .is_ok());
        std::fs::write(&path, "1\nedited again\n").unwrap();
        assert!(reader.check_write(&mut fs, "a.txt", "third\n").is_ok());
        // An edit's text (Claude Code's Edit sends its new_string), written into the file, and a whole text the
        // writer gave a final line feed: the model's own writes too.
        std::fs::write(&path, "third\n").unwrap();
        assert!(reader
            .check_write(&mut fs, "a.txt", "    fn edited_in_place() {}")
            .is_ok());
        std::fs::write(&path, "third\n    fn edited_in_place() {}\nfourth\n").unwrap();
        assert!(reader
            .check_write(&mut fs, "a.txt", "1\nno final line feed")
            .is_ok());
        std::fs::write(&path, "1\nno final line feed\n").unwrap();
        assert!(reader
            .check_write(&mut fs, "a.txt", "1\nedited again\n")
            .is_ok());
        std::fs::write(&path, "1\nedited again\n").unwrap();
        assert!(reader.check_write(&mut fs, "a.txt", "third\n").is_ok());
        // Content other than the announced one is an outside change.
        std::fs::write(&path, "1\nsomeone else\n").unwrap();
        let refused = reader.check_write(&mut fs, "a.txt", "x\n").unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Stale);
        assert!(
            refused.message.starts_with(
                "a.txt changed since it was written with the text check_write last accepted for it: the first changed line is 2"
            ),
            "{}",
            refused.message
        );
    }

    #[test]
    fn a_write_the_host_reports_is_the_new_base_and_appended_lines_are_a_change() {
        let (directory, mut fs) = setup();
        let path = directory.path().join("a.txt");
        std::fs::write(&path, "1\n2\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        read(&mut reader, &mut fs, 1, 2);
        std::fs::write(&path, "1\n2\nours\n").unwrap();
        reader.wrote(&mut fs, "a.txt");
        assert!(reader
            .check_write(&mut fs, "a.txt", "1\n2\nours\nagain\n")
            .is_ok());
        std::fs::write(&path, "1\n2\nours\ntheirs\n").unwrap();
        let refused = reader.check_write(&mut fs, "a.txt", "x\n").unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Stale);
        assert!(
            refused.message.starts_with("a.txt changed since the host last reported writing it: line 4 was added after line 3. Lines 1-3 are unchanged"),
            "{}",
            refused.message
        );
    }
}

#[cfg(test)]
mod document_head_tests {
    use super::*;
    use proptest::prelude::*;

    /// The verdict of the whole first block, as every read made it before the probe.
    fn block_verdict(bytes: &[u8], name: &str) -> Candidate {
        let mut head = Vec::new();
        let _ = MemorySource::new(bytes).read_at(0, BLOCK_BYTES, &mut head);
        document::candidate(&head, name)
    }

    /// The probe's verdict when the file's stat said `size` bytes: its size, or a stale size (the file changed
    /// between its stat and the probe).
    fn probe_verdict(bytes: &[u8], name: &str, size: u64) -> Candidate {
        let mut file = ReadAhead::new(MemorySource::new(bytes));
        let head = document_head(&mut file, size).unwrap_or_default().to_vec();
        document::candidate(&head, name)
    }

    fn sizes(bytes: &[u8]) -> [u64; 6] {
        let size = bytes.len() as u64;
        [size, 0, size / 2, size + 700, BLOCK_BYTES as u64, u64::MAX]
    }

    #[test]
    fn the_head_probe_gives_the_first_blocks_verdict() {
        let late_key = format!("{{\"cells\": [\"{}\"], \"nbformat\": 4}}", "x".repeat(3000));
        let padded = format!("{}{{\"nbformat\": 4}}", " ".repeat(2000));
        let late_pdf = format!("{}%PDF-1.7", "y".repeat(2000));
        let early_pdf = format!("{}%PDF-1.7", "y".repeat(900));
        let cases: [(&[u8], &str); 8] = [
            (late_key.as_bytes(), "a.json"),
            (padded.as_bytes(), "a.json"),
            (late_pdf.as_bytes(), "a.txt"),
            (early_pdf.as_bytes(), "a.txt"),
            (b"PK\x03\x04rest", "a.bin"),
            (b"plain text\n", "a.txt"),
            (b"plain text\n", "report.docx"),
            (b"", "a.txt"),
        ];
        for (bytes, name) in cases {
            for size in sizes(bytes) {
                assert_eq!(
                    probe_verdict(bytes, name, size),
                    block_verdict(bytes, name),
                    "{name} (stat size {size}): {:?}",
                    bytes.get(..40)
                );
            }
        }
    }

    proptest! {
        #[test]
        fn any_file_start_gets_the_first_blocks_verdict(
            pad in 0usize..3000,
            pad_byte in prop::sample::select(vec![b' ', b'\n', b'x', b'{']),
            tail in prop::sample::select(vec!["{\"nbformat\": 4}", "%PDF-1.4", "PK\u{3}\u{4}", "text", "\"nbformat\""]),
            name in prop::sample::select(vec!["a.txt", "a.ipynb", "a.pdf", "a"]),
        ) {
            let mut bytes = vec![pad_byte; pad];
            bytes.extend_from_slice(tail.as_bytes());
            for size in sizes(&bytes) {
                prop_assert_eq!(probe_verdict(&bytes, name, size), block_verdict(&bytes, name));
            }
        }
    }
}

#[cfg(test)]
mod read_count_tests {
    use std::cell::RefCell;
    use std::path::PathBuf;
    use std::rc::Rc;

    use super::*;
    use crate::native_fs::{NativeFile, NativeFileSystem};
    use crate::sandbox::{DirectoryListing, FileStat};
    use crate::source::Recording;

    /// The native file system, recording the positioned reads of the files it opens.
    struct CountingFs {
        inner: NativeFileSystem,
        asked: Rc<RefCell<Vec<usize>>>,
    }

    impl FileSystem for CountingFs {
        type File = Recording<NativeFile>;
        fn roots(&self) -> &[String] {
            self.inner.roots()
        }
        fn stat(&mut self, root: usize, relative: &str) -> Result<FileStat, FsError> {
            self.inner.stat(root, relative)
        }
        fn read_link(&mut self, root: usize, relative: &str) -> Result<String, FsError> {
            self.inner.read_link(root, relative)
        }
        fn open(&mut self, root: usize, relative: &str) -> Result<Recording<NativeFile>, FsError> {
            Ok(Recording {
                inner: self.inner.open(root, relative)?,
                asked: self.asked.clone(),
            })
        }
        fn list_directory(
            &mut self,
            root: usize,
            relative: &str,
            max: usize,
        ) -> Result<DirectoryListing, FsError> {
            self.inner.list_directory(root, relative, max)
        }
    }

    /// The positioned reads of each of three windows of `text` (a first read, a repeat, another window), and the
    /// last window's content.
    fn reads_of(text: &str) -> (Vec<usize>, String) {
        let directory = tempfile::tempdir().unwrap();
        std::fs::write(directory.path().join("a.txt"), text).unwrap();
        let asked = Rc::new(RefCell::new(Vec::new()));
        let mut fs = CountingFs {
            inner: NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]),
            asked: asked.clone(),
        };
        let mut reader = Reader::new(ConfigInput {
            dedup: Some(false),
            ..ConfigInput::default()
        });
        let mut counts = Vec::new();
        let mut content = String::new();
        for (at, offset) in [2, 2, 3].into_iter().enumerate() {
            let before = asked.borrow().len();
            let request = ReadRequest {
                path: "/w/a.txt".to_string(),
                offset: Some(offset),
                limit: Some(2),
                column: None,
                tail: None,
                extract: None,
                asked_via: Vec::new(),
                fresh: false,
                region: None,
                depth: None,
            };
            match reader.read(&mut fs, &request, at as u64) {
                Ok(ReadOutcome::Window(result)) => content = result.window.content,
                other => panic!("not a window: {other:?}"),
            }
            counts.push(asked.borrow().len() - before);
        }
        (counts, content)
    }

    #[test]
    fn a_window_of_a_file_under_a_block_costs_one_positioned_read() {
        let (counts, content) = reads_of("one\ntwo\nthree\nfour\n");
        assert_eq!(counts, [1, 1, 1]);
        assert_eq!(content, "3|three\n4|four\n");
        // A file of a block and more reads its first kilobyte to tell a document, then: its two blocks to index it
        // and the window's block on the first read; the fingerprint at its end and the window's block after.
        let long = format!("one\ntwo\nthree\nfour\n{}\n", "x".repeat(BLOCK_BYTES));
        let (counts, content) = reads_of(&long);
        assert_eq!(counts, [4, 3, 3]);
        assert_eq!(content, "3|three\n4|four\n");
    }
}
