//! Native tests of search through the session's reader, over `NativeFileSystem` on a temporary directory mounted at
//! `/w`: the page, the census, the cursor, the matcher and what is skipped.

use std::path::{Path, PathBuf};

use super::*;
use crate::config::ConfigInput;
use crate::native_fs::NativeFileSystem;
use crate::read::Reader;

fn setup() -> (tempfile::TempDir, PathBuf, NativeFileSystem) {
    let directory = tempfile::tempdir().unwrap();
    let grant = directory.path().join("grant");
    std::fs::create_dir_all(&grant).unwrap();
    let fs = NativeFileSystem::mount(&[(grant.clone(), "/w".to_string())]);
    (directory, grant, fs)
}

fn write(root: &Path, relative: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn no_clock() -> u64 {
    0
}

/// A clock that is always an hour later than the last time it was asked: any deadline passes at once.
fn late_clock() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NOW: AtomicU64 = AtomicU64::new(0);
    NOW.fetch_add(3_600_000, Ordering::Relaxed)
}

fn search(fs: &mut NativeFileSystem, config: ConfigInput, request: SearchRequest) -> SearchResult {
    Reader::new(config).search(fs, &request, no_clock).unwrap()
}

fn request(pattern: &str, path: &str) -> SearchRequest {
    SearchRequest {
        pattern: pattern.to_owned(),
        path: path.to_owned(),
        ..SearchRequest::default()
    }
}

#[test]
fn a_small_search_shows_its_matches_with_context_and_states_the_census() {
    let (_directory, grant, mut fs) = setup();
    write(
        &grant,
        "p/a.rs",
        "one\nlet needle = 1;\nthree\nfour\nfive\nneedle again\n",
    );
    write(&grant, "p/b.txt", "nothing\n");
    write(&grant, "p/c.bin", b"\x00\x01\x02binary needle\x00");
    let result = search(
        &mut fs,
        ConfigInput::default(),
        SearchRequest {
            context_lines: 1,
            ..request("needle", "/w/p")
        },
    );
    assert_eq!(
        result.content,
        "a.rs-1|one\na.rs:2|let needle = 1;\na.rs-3|three\n--\na.rs-5|five\na.rs:6|needle again\n"
    );
    assert_eq!(result.total_matches, 2);
    assert_eq!(result.files_with_matches, 1);
    assert_eq!(result.files_searched, 2);
    assert_eq!(result.skipped.binary, 1);
    assert_eq!(result.next_offset, None);
    assert_eq!(
        result.hint,
        "Matches 1-2 of 2 in 1 file (2 files searched in /w/p; skipped, not searched: 1 binary). This is every match."
    );
}

#[test]
fn the_census_of_1234_matches_is_on_the_first_page_and_the_cursor_reaches_each_once() {
    let (_directory, grant, mut fs) = setup();
    for file in 0..40 {
        let matches = if file < 34 { 31 } else { 30 };
        let text: String = (0..matches)
            .map(|line| format!("hit {line}\nmiss\n"))
            .collect();
        write(&grant, &format!("m/f{file:02}.txt"), text);
    }
    let mut offset = 1;
    let mut seen = Vec::new();
    loop {
        let page = search(
            &mut fs,
            ConfigInput::default(),
            SearchRequest {
                offset: Some(offset),
                limit: Some(100),
                ..request("hit", "/w/m")
            },
        );
        assert_eq!(page.total_matches, 1234);
        assert_eq!(page.files_with_matches, 40);
        if offset == 1 {
            assert!(
                page.hint.starts_with("Matches 1-100 of 1,234 in 40 files"),
                "{}",
                page.hint
            );
            assert!(
                page.hint.ends_with("Read on with offset=101."),
                "{}",
                page.hint
            );
        }
        seen.extend(
            page.content
                .lines()
                .map(|line| line.split('|').next().unwrap().to_owned()),
        );
        match page.next_offset {
            Some(next) => offset = next,
            None => break,
        }
    }
    let unique: std::collections::BTreeSet<&String> = seen.iter().collect();
    assert_eq!(seen.len(), 1234);
    assert_eq!(unique.len(), 1234);
    assert_eq!(seen.first().map(String::as_str), Some("f00.txt:1"));
    assert_eq!(seen.last().map(String::as_str), Some("f39.txt:59"));
}

#[test]
fn a_literal_pattern_is_the_text_and_a_bad_regex_is_an_invalid_request() {
    let (_directory, grant, mut fs) = setup();
    write(&grant, "x.txt", "a.b(\naxb(\n");
    let literal = search(&mut fs, ConfigInput::default(), request("a.b(", "/w/x.txt"));
    assert_eq!(literal.content, "/w/x.txt:1|a.b(\n");
    let error = Reader::new(ConfigInput::default())
        .search(
            &mut fs,
            &SearchRequest {
                regex: true,
                ..request("a.b(", "/w/x.txt")
            },
            no_clock,
        )
        .unwrap_err();
    assert_eq!(error.kind, crate::error::ErrorKind::InvalidRequest);
    assert!(
        error
            .message
            .starts_with("\"a.b(\" is not a valid regular expression: regex parse error"),
        "{}",
        error.message
    );
    let empty = Reader::new(ConfigInput::default())
        .search(&mut fs, &request("", "/w/x.txt"), no_clock)
        .unwrap_err();
    assert_eq!(empty.kind, crate::error::ErrorKind::InvalidRequest);
}

#[test]
fn case_is_smart_unless_asked() {
    let (_directory, grant, mut fs) = setup();
    write(&grant, "c.txt", "Needle\nneedle\nNEEDLE\n");
    let count = |fs: &mut NativeFileSystem, pattern: &str, sensitive: Option<bool>| {
        search(
            fs,
            ConfigInput::default(),
            SearchRequest {
                case_sensitive: sensitive,
                ..request(pattern, "/w/c.txt")
            },
        )
        .total_matches
    };
    assert_eq!(count(&mut fs, "needle", None), 3);
    assert_eq!(count(&mut fs, "Needle", None), 1);
    assert_eq!(count(&mut fs, "needle", Some(true)), 1);
    assert_eq!(count(&mut fs, "Needle", Some(false)), 3);
    let regex = |fs: &mut NativeFileSystem, pattern: &str| {
        search(
            fs,
            ConfigInput::default(),
            SearchRequest {
                regex: true,
                ..request(pattern, "/w/c.txt")
            },
        )
        .total_matches
    };
    // Escapes, classes by name and group names hold no letter to match: the pattern still matches any case.
    assert_eq!(regex(&mut fs, r"ne\Sdle"), 3);
    assert_eq!(regex(&mut fs, r"(?P<Word>needle)\b"), 3);
    assert_eq!(regex(&mut fs, r"\p{L}eedle"), 3);
    // A literal or a class item in upper case makes case matter.
    assert_eq!(regex(&mut fs, r"N\w+"), 2);
    assert_eq!(regex(&mut fs, r"[A-Z]eedle"), 1);
}

#[test]
fn a_long_matched_line_is_cut_around_the_match_and_names_its_column() {
    let (_directory, grant, mut fs) = setup();
    let mut line = "x".repeat(100_000);
    line.replace_range(60_000..60_006, "needle");
    write(&grant, "long.txt", format!("{line}\n"));
    let result = search(
        &mut fs,
        ConfigInput::default(),
        request("needle", "/w/long.txt"),
    );
    let shown = result.content.strip_prefix("/w/long.txt:1|").unwrap();
    let (excerpt, marker) = shown.split_once(" [read-window: ").unwrap();
    assert_eq!(excerpt.chars().count(), 2000);
    assert_eq!(excerpt.find("needle"), Some(500));
    assert_eq!(
        marker,
        "line 1 has 100,000 characters; this shows columns 59,500-61,499 around the match (0-based); read from \
         there with offset=1 column=59500 limit=1]\n"
    );
}

#[test]
fn invisible_characters_and_the_names_that_hold_them_are_shown_as_a_read_shows_them() {
    let (_directory, grant, mut fs) = setup();
    // Tag characters spelling "Hi" after the text, a zero-width space in the context line, and a file name with a
    // zero-width space beside one without; an emoji family stays text.
    write(
        &grant,
        "p/a\u{200b}.md",
        "zero\u{200b}width\nText.\u{e0048}\u{e0069} needle\n\u{1f468}\u{200d}\u{1f469} needle\n",
    );
    write(&grant, "p/a.md", "plain needle\n");
    let shown = |fs: &mut NativeFileSystem, config: ConfigInput| {
        let mut request = request("needle", "/w/p");
        request.context_lines = 1;
        search(fs, config, request).content
    };
    assert_eq!(
        shown(&mut fs, ConfigInput::default()),
        "a.md:1|plain needle\n--\n\"a\\u{200b}.md\"-1|zero⟪U+200B⟫width\n\
         \"a\\u{200b}.md\":2|Text.⟪U+E0048⟫⟪U+E0069⟫ needle\n\"a\\u{200b}.md\":3|\u{1f468}\u{200d}\u{1f469} needle\n"
    );
    // A long line cut around its match escapes what it shows, and its columns stay the line's.
    let long = format!("{}\u{200b}needle{}\n", "x".repeat(3_000), "y".repeat(3_000));
    write(&grant, "q/long.txt", long);
    let result = search(
        &mut fs,
        ConfigInput::default(),
        request("needle", "/w/q/long.txt"),
    );
    // Columns 2,501-4,500: 499 x's, the zero-width space (column 3,000), the match and 1,494 y's.
    assert_eq!(
        result.content,
        format!(
            "/w/q/long.txt:1|{}⟪U+200B⟫needle{} [read-window: line 1 has 6,007 characters; this shows columns \
             2,501-4,500 around the match (0-based); read from there with offset=1 column=2501 limit=1]\n",
            "x".repeat(499),
            "y".repeat(1_494)
        )
    );
    // With escape_invisible off, the characters are left as they are.
    let raw = shown(
        &mut fs,
        ConfigInput {
            escape_invisible: Some(false),
            ..ConfigInput::default()
        },
    );
    assert!(raw.contains("Text.\u{e0048}\u{e0069} needle"), "{raw}");
}

#[test]
fn patterns_that_backtrack_exponentially_elsewhere_finish() {
    let (_directory, grant, mut fs) = setup();
    write(&grant, "evil.txt", format!("{}b\n", "a".repeat(30)));
    for pattern in ["(a+)+$", "(a|aa)+c", "(x+x+)+y", "^(a|a?)+$"] {
        let result = search(
            &mut fs,
            ConfigInput::default(),
            SearchRequest {
                regex: true,
                ..request(pattern, "/w/evil.txt")
            },
        );
        assert_eq!(result.total_matches, 0, "{pattern}");
        assert_eq!(
            result.hint,
            format!("No matches for {pattern:?} (1 file searched in /w/evil.txt).")
        );
    }
}

#[test]
#[cfg(feature = "documents")]
fn utf16_files_and_documents_are_searched_as_a_read_decodes_them() {
    let (_directory, grant, mut fs) = setup();
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in "first\nsecond rose\n".encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    write(&grant, "d/u16.txt", utf16);
    write(&grant, "d/notes.docx", crate::document::samples::docx());
    let result = search(&mut fs, ConfigInput::default(), request("rose", "/w/d"));
    assert_eq!(result.total_matches, 2, "{}", result.content);
    assert!(
        result.content.contains("u16.txt:2|second rose\n"),
        "{}",
        result.content
    );
    assert!(result.content.contains("notes.docx:"), "{}", result.content);
    assert!(
        result.content.contains("|Sales rose & costs fell.[^1]\n"),
        "{}",
        result.content
    );
}

#[test]
fn credential_and_ignored_files_are_skipped_and_counted() {
    let (_directory, grant, mut fs) = setup();
    write(&grant, "r/.env", "TOKEN=needle\n");
    write(&grant, "r/.gitignore", "build/\n");
    write(&grant, "r/build/out.txt", "needle\n");
    write(&grant, "r/keep.txt", "needle\n");
    let config = ConfigInput {
        ignore_files: vec![".gitignore".to_owned()],
        ..ConfigInput::default()
    };
    let result = search(&mut fs, config, request("needle", "/w/r"));
    assert_eq!(result.content, "keep.txt:1|needle\n");
    assert_eq!(result.skipped.credential, 1);
    assert_eq!(result.skipped.ignored, 1);
    assert_eq!(result.files_searched, 2);
}

#[test]
fn a_search_stopped_by_the_time_limit_never_says_no_matches() {
    let (_directory, grant, mut fs) = setup();
    write(&grant, "t/a.txt", "x\n");
    write(&grant, "t/b.txt", "x\n");
    let result = Reader::new(ConfigInput::default())
        .search(&mut fs, &request("needle", "/w/t"), late_clock)
        .unwrap();
    assert!(!result.complete);
    assert_eq!(result.stopped_before.as_deref(), Some("a.txt"));
    assert!(
        result.hint.starts_with("No matches so far"),
        "{}",
        result.hint
    );
    assert!(
        result
            .hint
            .contains("stopped at its time limit before a.txt"),
        "{}",
        result.hint
    );
}

#[test]
fn an_offset_past_the_last_match_names_the_total() {
    let (_directory, grant, mut fs) = setup();
    write(&grant, "o.txt", "hit\nhit\n");
    let result = search(
        &mut fs,
        ConfigInput::default(),
        SearchRequest {
            offset: Some(5),
            ..request("hit", "/w/o.txt")
        },
    );
    assert_eq!(result.matches_returned, 0);
    assert_eq!(
        result.hint,
        "Match 5 is past the last: the search found 2 in 1 file (1 file searched in /w/o.txt). Use an offset from 1 to 2."
    );
}

#[test]
fn the_budget_ends_a_page_and_its_cursor_goes_on() {
    let (_directory, grant, mut fs) = setup();
    let text: String = (0..50)
        .map(|i| format!("hit {i:03} {}\n", "y".repeat(40)))
        .collect();
    write(&grant, "b.txt", text);
    let config = ConfigInput {
        budget_chars: Some(500),
        ..ConfigInput::default()
    };
    let result = search(&mut fs, config, request("hit", "/w/b.txt"));
    assert_eq!(result.matches_returned, 8);
    assert_eq!(result.next_offset, Some(9));
    assert!(result.content.chars().count() <= 500);
    assert!(
        result
            .hint
            .ends_with("The page stopped at the budget. Read on with offset=9."),
        "{}",
        result.hint
    );
}
