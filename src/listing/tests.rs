//! Native tests of the listing window over `NativeFileSystem` on a temporary directory mounted at `/w`.

use std::path::{Path, PathBuf};

use super::*;
use crate::config::ConfigInput;
use crate::native_fs::NativeFileSystem;
use crate::sandbox::resolve;

/// `grant/` mounted at `/w`, beside `outside/`, which no grant holds.
fn setup() -> (tempfile::TempDir, PathBuf, NativeFileSystem) {
    let directory = tempfile::tempdir().unwrap();
    let grant = directory.path().join("grant");
    std::fs::create_dir_all(&grant).unwrap();
    std::fs::create_dir_all(directory.path().join("outside")).unwrap();
    let fs = NativeFileSystem::mount(&[(grant.clone(), "/w".to_string())]);
    (directory, grant, fs)
}

fn write(root: &Path, relative: &str, bytes: usize) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "x".repeat(bytes)).unwrap();
}

fn list(
    fs: &mut NativeFileSystem,
    input: ConfigInput,
    path: &str,
    request: ListingRequest,
) -> Result<ListingWindow, ReadError> {
    let (config, _) = Config::resolve(input);
    let policy = CredentialPolicy::new(&config.deny_patterns, &config.allow_patterns);
    let mut ignore = IgnoreFiles::new(&config.ignore_files);
    let resolved = resolve(fs, path, path).unwrap();
    list_window(fs, &config, &policy, &mut ignore, &resolved, &request)
}

fn at_depth(depth: u32) -> ListingRequest {
    ListingRequest {
        depth: Some(depth),
        ..ListingRequest::default()
    }
}

/// `proj/`: two files at the top, an empty `docs/`, and `src/` with a file and `lib/` (holding one more).
fn small_tree(grant: &Path) {
    write(grant, "proj/README.md", 3_133);
    write(grant, "proj/a.txt", 1);
    std::fs::create_dir_all(grant.join("proj/docs")).unwrap();
    write(grant, "proj/src/main.rs", 812);
    write(grant, "proj/src/lib/mod.rs", 5);
}

#[test]
fn a_depth_1_listing_shows_each_entry_and_offers_depth_2() {
    let (_directory, grant, mut fs) = setup();
    small_tree(&grant);
    let window = list(&mut fs, ConfigInput::default(), "/w/proj", at_depth(1)).unwrap();
    assert_eq!(
        window.content,
        "1|README.md  3,133 bytes\n2|a.txt  1 byte\n3|docs/\n4|src/\n"
    );
    assert_eq!(
        window.hint,
        "Entries 1-4 of 4 in /w/proj (2 files, 2 directories). This is the whole listing. depth=2 lists what is inside the 2 directories."
    );
    assert_eq!(
        (window.total_entries, window.entries_returned, window.offset),
        (4, 4, 1)
    );
    assert_eq!(
        window.counts,
        EntryCounts {
            files: 2,
            directories: 2,
            links: 0,
            other: 0,
            not_readable: 0
        }
    );
    assert_eq!(window.next_offset, None);
    assert!(window.truncated_by.is_empty());
    assert!(window.warnings.is_empty());
}

#[test]
fn a_depth_2_listing_shows_relative_paths_in_pre_order() {
    let (_directory, grant, mut fs) = setup();
    small_tree(&grant);
    let window = list(&mut fs, ConfigInput::default(), "/w/proj", at_depth(2)).unwrap();
    assert_eq!(
        window.content,
        "1|README.md  3,133 bytes\n2|a.txt  1 byte\n3|docs/\n4|src/\n5|src/lib/\n6|src/main.rs  812 bytes\n"
    );
    assert_eq!(
        window.hint,
        "Entries 1-6 of 6 in /w/proj to depth 2 (3 files, 3 directories). This is the whole listing. depth=3 lists what is inside the directory."
    );
    assert_eq!(window.depth, 2);
}

#[test]
fn five_thousand_entries_page_by_1000_with_each_number_once() {
    let (_directory, grant, mut fs) = setup();
    std::fs::create_dir_all(grant.join("big")).unwrap();
    for index in 0..5_000 {
        std::fs::write(grant.join(format!("big/f{index:04}")), "").unwrap();
    }
    let mut numbers = Vec::new();
    let mut offset = Some(1);
    let mut pages = 0;
    while let Some(at) = offset {
        let window = list(
            &mut fs,
            ConfigInput::default(),
            "/w/big",
            ListingRequest {
                offset: Some(at),
                limit: Some(1_000),
                depth: None,
            },
        )
        .unwrap();
        pages += 1;
        assert_eq!(window.total_entries, 5_000);
        assert_eq!(window.entries_returned, 1_000);
        assert_eq!(window.counts.files, 5_000);
        for line in window.content.lines() {
            let (number, rest) = line.split_once('|').unwrap();
            let number: u64 = number.parse().unwrap();
            assert_eq!(rest, format!("f{:04}  0 bytes", number - 1));
            numbers.push(number);
        }
        if at == 1 {
            assert_eq!(
                window.hint,
                "Entries 1-1,000 of 5,000 in /w/big (5,000 files). Read on with offset=1001."
            );
        }
        match window.next_offset {
            Some(next) => {
                assert_eq!(next, at + 1_000);
                assert_eq!(window.truncated_by, vec!["limit"]);
            }
            None => {
                assert_eq!(at, 4_001);
                assert!(window.truncated_by.is_empty());
                assert_eq!(
                    window.hint,
                    "Entries 4,001-5,000 of 5,000 in /w/big (5,000 files). This is the end of the listing."
                );
            }
        }
        offset = window.next_offset;
    }
    assert_eq!(pages, 5);
    assert_eq!(numbers, (1..=5_000).collect::<Vec<u64>>());
}

#[test]
fn the_budget_cuts_the_window_and_the_cursor_continues() {
    let (_directory, grant, mut fs) = setup();
    for index in 1..=20 {
        write(&grant, &format!("b/file-{index:02}.txt"), 10);
    }
    let input = ConfigInput {
        budget_chars: Some(200),
        ..ConfigInput::default()
    };
    let window = list(&mut fs, input.clone(), "/w/b", ListingRequest::default()).unwrap();
    // Each line is 24 characters with its newline: 8 fit in 200, a 9th would make 216.
    assert_eq!(window.entries_returned, 8);
    assert_eq!(window.content.chars().count(), 192);
    assert!(window.content.ends_with("8|file-08.txt  10 bytes\n"));
    assert_eq!(window.next_offset, Some(9));
    assert_eq!(window.truncated_by, vec!["budget"]);
    assert_eq!(
        window.hint,
        "Entries 1-8 of 20 in /w/b (20 files). The window stopped at the budget of 200 characters. Read on with offset=9."
    );
    let next = list(
        &mut fs,
        input,
        "/w/b",
        ListingRequest {
            offset: Some(9),
            ..ListingRequest::default()
        },
    )
    .unwrap();
    assert!(next
        .content
        .starts_with("9|file-09.txt  10 bytes\n10|file-10.txt"));
    assert_eq!(next.offset, 9);
}

#[test]
fn credential_and_ignored_entries_are_listed_marked_and_not_descended() {
    let (_directory, grant, mut fs) = setup();
    std::fs::create_dir_all(grant.join("g")).unwrap();
    std::fs::write(grant.join("g/.gitignore"), "node_modules/\n*.log\n").unwrap();
    write(&grant, "g/.env", 52);
    write(&grant, "g/app.log", 3);
    write(&grant, "g/main.rs", 0);
    write(&grant, "g/node_modules/left-pad/index.js", 9);
    let input = ConfigInput {
        ignore_files: vec![".gitignore".to_string()],
        ..ConfigInput::default()
    };
    let window = list(&mut fs, input, "/w/g", at_depth(3)).unwrap();
    assert_eq!(
        window.content,
        "1|.env  52 bytes  (not readable: credential file)\n2|.gitignore  20 bytes\n3|app.log  3 bytes  (ignored by .gitignore: not readable)\n4|main.rs  0 bytes\n5|node_modules/  (ignored by .gitignore: not listed)\n"
    );
    assert_eq!(window.counts.not_readable, 3);
    assert_eq!(
        window.hint,
        "Entries 1-5 of 5 in /w/g to depth 3 (4 files, 1 directory; 3 not readable). This is the whole listing."
    );
}

#[test]
fn a_link_inside_the_grant_shows_its_target_and_others_say_why_not() {
    let (directory, grant, mut fs) = setup();
    write(&grant, "l/target.txt", 2);
    std::fs::write(directory.path().join("outside/secret.txt"), "s").unwrap();
    std::os::unix::fs::symlink("target.txt", grant.join("l/inside")).unwrap();
    std::os::unix::fs::symlink("../../outside/secret.txt", grant.join("l/escape")).unwrap();
    std::os::unix::fs::symlink("missing.txt", grant.join("l/broken")).unwrap();
    let window = list(&mut fs, ConfigInput::default(), "/w/l", at_depth(2)).unwrap();
    assert_eq!(
        window.content,
        "1|broken -> missing.txt  (a broken link)\n2|escape -> (outside the granted directories)\n3|inside -> target.txt\n4|target.txt  2 bytes\n"
    );
    assert_eq!(
        window.hint,
        "Entries 1-4 of 4 in /w/l to depth 2 (1 file, 3 links). This is the whole listing."
    );
}

#[test]
fn a_name_with_an_invisible_character_is_quoted_and_escaped() {
    let (_directory, grant, mut fs) = setup();
    write(&grant, "n/a\u{200b}b.txt", 3);
    write(&grant, "n/ab.txt", 4);
    write(&grant, "n/\u{1f468}\u{200d}\u{1f469}.png", 5);
    let window = list(&mut fs, ConfigInput::default(), "/w/n", at_depth(1)).unwrap();
    assert_eq!(
        window.content,
        "1|ab.txt  4 bytes\n2|\"a\\u{200b}b.txt\"  3 bytes\n3|\u{1f468}\u{200d}\u{1f469}.png  5 bytes\n"
    );
}

#[test]
fn an_offset_past_the_end_names_the_total() {
    let (_directory, grant, mut fs) = setup();
    for name in ["a", "b", "c"] {
        write(&grant, &format!("p/{name}"), 1);
    }
    let error = list(
        &mut fs,
        ConfigInput::default(),
        "/w/p",
        ListingRequest {
            offset: Some(4),
            ..ListingRequest::default()
        },
    )
    .unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidRequest);
    assert_eq!(
        error.message,
        "offset 4 is past the end of the listing of /w/p: it has 3 entries at depth 1. Use an offset from 1 to 3."
    );
}

#[test]
fn a_fifo_is_listed_as_not_readable() {
    let (_directory, grant, mut fs) = setup();
    write(&grant, "f/a.txt", 0);
    let status = std::process::Command::new("mkfifo")
        .arg(grant.join("f/pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let window = list(&mut fs, ConfigInput::default(), "/w/f", at_depth(1)).unwrap();
    assert_eq!(
        window.content,
        "1|a.txt  0 bytes\n2|pipe  (named pipe: not readable)\n"
    );
    assert_eq!(window.counts.other, 1);
    assert_eq!(
        window.hint,
        "Entries 1-2 of 2 in /w/f (1 file, 1 special file). This is the whole listing."
    );
}

#[test]
fn an_empty_directory_lists_nothing_and_says_so() {
    let (_directory, grant, mut fs) = setup();
    std::fs::create_dir_all(grant.join("e")).unwrap();
    let window = list(&mut fs, ConfigInput::default(), "/w/e", at_depth(1)).unwrap();
    assert_eq!(window.content, "");
    assert_eq!(
        (
            window.total_entries,
            window.entries_returned,
            window.next_offset
        ),
        (0, 0, None)
    );
    assert_eq!(
        window.hint,
        "/w/e is an empty directory: it has no entries."
    );
}

#[test]
fn limit_0_depth_0_and_a_file_are_refused() {
    let (_directory, grant, mut fs) = setup();
    write(&grant, "d/a.txt", 1);
    let limit = list(
        &mut fs,
        ConfigInput::default(),
        "/w/d",
        ListingRequest {
            limit: Some(0),
            ..ListingRequest::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        limit.message,
        "limit 0 asks for no entries; give a limit of at least 1, or leave it out for the default."
    );
    let depth = list(&mut fs, ConfigInput::default(), "/w/d", at_depth(0)).unwrap_err();
    assert_eq!(depth.kind, ErrorKind::InvalidRequest);
    let file = list(&mut fs, ConfigInput::default(), "/w/d/a.txt", at_depth(1)).unwrap_err();
    assert_eq!(file.kind, ErrorKind::NotAFile);
    assert_eq!(
        file.message,
        "/w/d/a.txt is a regular file, not a directory, so it has no listing; read it as a file."
    );
}
