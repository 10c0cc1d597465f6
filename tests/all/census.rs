//! Issue 29 through the real component: a directory's listing pages from its first entry to its last with an
//! exact census, a search's census is exact on its first page and its cursor reaches every match once, a regular
//! expression that backtracks exponentially elsewhere finishes, `read_many` under one budget names what it left
//! out, and the MCP server lists and runs the three tools.

use std::collections::BTreeSet;

use read_window_host::{Config, ReadManyRequest, ReadOutcome, ReadRequest, SearchRequest};
use serde_json::json;

use crate::common::{ask, read, Sandbox};

/// The entry or match numbers of a page's `N|` gutters (a search line is `path:N|text`).
fn gutter_numbers(content: &str) -> Vec<u64> {
    content
        .lines()
        .filter_map(|line| line.split_once('|'))
        .filter_map(|(number, _)| number.parse().ok())
        .collect()
}

#[test]
fn a_directory_of_5000_entries_pages_from_first_to_last_with_an_exact_census() {
    let sandbox = Sandbox::new();
    for i in 0..4990 {
        sandbox.write(&format!("data/f{i:04}.txt"), "x\n");
    }
    for i in 0..10 {
        std::fs::create_dir_all(sandbox.host(&format!("data/d{i}"))).unwrap();
    }
    let mut session = sandbox.default_session();
    let directory = sandbox.guest("data");
    let mut seen = Vec::new();
    let mut offset = 1;
    let mut pages = 0;
    loop {
        let page = read(
            &mut session,
            &directory,
            json!({"offset": offset, "limit": 1000}),
        );
        assert_eq!(page["status"], "ok", "{page}");
        assert_eq!(page["listing"], true);
        assert_eq!(page["total_entries"], 5000, "every page carries the census");
        assert_eq!(
            page["entries"],
            json!({"files": 4990, "directories": 10, "links": 0, "other": 0, "not_readable": 0})
        );
        let numbers = gutter_numbers(page["content"].as_str().unwrap());
        assert_eq!(numbers.first(), Some(&offset));
        assert_eq!(page["entries_returned"], numbers.len() as u64);
        seen.extend(numbers);
        pages += 1;
        match page["next_offset"].as_u64() {
            Some(next) => offset = next,
            None => {
                let hint = page["hint"].as_str().unwrap();
                assert!(hint.contains("of 5,000"), "{hint}");
                break;
            }
        }
    }
    assert_eq!(pages, 5);
    assert_eq!(seen, (1..=5000).collect::<Vec<u64>>());
}

#[test]
fn a_typed_read_of_a_directory_is_a_listing() {
    let sandbox = Sandbox::new();
    sandbox.write("src/main.rs", "fn main() {}\n");
    sandbox.write("README.md", "# hi\n");
    let mut session = sandbox.typed_session(Config::default());
    let listing = match session.read(&ReadRequest::new(sandbox.guest(""))).unwrap() {
        Ok(ReadOutcome::Listing(listing)) => listing,
        other => panic!("a listing was expected, not {other:?}"),
    };
    assert_eq!(listing.total_entries, 2);
    assert_eq!(listing.counts.files, 1);
    assert_eq!(listing.counts.directories, 1);
    assert_eq!(listing.content, "1|README.md  5 bytes\n2|src/\n");
    let deep = match session
        .read(&ReadRequest::new(sandbox.guest("")).depth(2))
        .unwrap()
    {
        Ok(ReadOutcome::Listing(listing)) => listing,
        other => panic!("a listing was expected, not {other:?}"),
    };
    assert_eq!(deep.total_entries, 3);
    assert_eq!(
        deep.content,
        "1|README.md  5 bytes\n2|src/\n3|src/main.rs  13 bytes\n"
    );
}

/// 40 files holding 1,234 matching lines in all: the first 34 files 31 each, the last 6 30 each.
fn forty_files(sandbox: &Sandbox) {
    for file in 0..40 {
        let matches = if file < 34 { 31 } else { 30 };
        let mut text = String::new();
        for line in 0..matches {
            text.push_str(&format!("let needle_{line} = {file};\nother line\n"));
        }
        sandbox.write(&format!("code/f{file:02}.rs"), text);
    }
    sandbox.write("code/notes.txt", "no match here\n");
}

#[test]
fn a_search_of_1234_matches_in_40_files_says_1234_on_its_first_page_and_its_cursor_reaches_each_once(
) {
    let sandbox = Sandbox::new();
    forty_files(&sandbox);
    let mut session = sandbox.default_session();
    let mut offset = 1;
    let mut seen = BTreeSet::new();
    let mut pages = 0;
    loop {
        let page = ask(
            &mut session,
            json!({"op": "search", "pattern": "needle_", "path": sandbox.guest("code"), "offset": offset, "limit": 100, "content": true}),
        );
        assert_eq!(page["status"], "ok", "{page}");
        assert_eq!(page["total_matches"], 1234);
        assert_eq!(page["files_with_matches"], 40);
        assert_eq!(page["files_searched"], 41);
        assert_eq!(page["complete"], true);
        if pages == 0 {
            let hint = page["hint"].as_str().unwrap();
            assert!(hint.contains("1-100 of 1,234"), "{hint}");
            assert!(hint.contains("offset=101"), "{hint}");
        }
        for line in page["content"].as_str().unwrap().lines() {
            if let Some((place, _)) = line.split_once('|') {
                if place.contains(':') {
                    assert!(seen.insert(place.to_owned()), "{place} shown twice");
                }
            }
        }
        pages += 1;
        match page["next_offset"].as_u64() {
            Some(next) => {
                assert_eq!(next, offset + 100);
                offset = next;
            }
            None => break,
        }
    }
    assert_eq!(pages, 13);
    assert_eq!(seen.len(), 1234);
    assert!(seen.contains("f00.rs:1"));
    assert!(seen.contains("f39.rs:59"));
}

#[test]
fn a_regex_that_backtracks_exponentially_elsewhere_finishes_and_the_typed_search_agrees() {
    let sandbox = Sandbox::new();
    sandbox.write("evil.txt", format!("{}b\n", "a".repeat(5000)));
    let mut session = sandbox.default_session();
    for pattern in ["(a+)+$", "(a|aa)+c", "(x+x+)+y"] {
        let answer = ask(
            &mut session,
            json!({"op": "search", "pattern": pattern, "regex": true, "path": sandbox.guest("evil.txt")}),
        );
        assert_eq!(answer["status"], "ok", "{answer}");
        assert_eq!(answer["total_matches"], 0, "{pattern}");
        assert_eq!(answer["complete"], true);
        assert!(
            answer["hint"].as_str().unwrap().starts_with("No matches"),
            "{answer}"
        );
    }
    let mut typed = sandbox.typed_session(Config::default());
    let result = typed
        .search(&SearchRequest {
            pattern: "a+b$".into(),
            path: Some(sandbox.guest("evil.txt")),
            regex: Some(true),
            case_sensitive: None,
            context: None,
            offset: None,
            limit: None,
        })
        .unwrap()
        .unwrap();
    assert_eq!(result.total_matches, 1);
    assert_eq!(result.files_searched, 1);
}

#[test]
fn read_many_of_30_files_under_one_budget_names_what_it_left_out() {
    let sandbox = Sandbox::new();
    let mut paths = Vec::new();
    for file in 0..30 {
        let text: String = (0..50)
            .map(|line| format!("file {file} line {line:02} ........\n"))
            .collect();
        paths.push(sandbox.write(&format!("m/f{file:02}.txt"), text));
    }
    let config = Config {
        budget: Some(read_window_host::Budget::Characters(20_000)),
        ..Config::default()
    };
    let mut session = sandbox.session(config.clone());
    let answer = ask(
        &mut session,
        json!({"op": "read_many", "paths": [sandbox.guest("m/*.txt")]}),
    );
    assert_eq!(answer["status"], "ok", "{answer}");
    let files = answer["files"].as_array().unwrap();
    let left_out = answer["left_out"].as_array().unwrap();
    assert_eq!(files.len() + left_out.len(), 30);
    assert!(!left_out.is_empty(), "{answer}");
    let read_paths: Vec<&str> = files
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        read_paths,
        paths[..files.len()]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    let left_paths: Vec<&str> = left_out
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        left_paths,
        paths[files.len()..]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    for file in left_out {
        assert_eq!(file["arguments"], json!({"path": file["path"]}));
    }
    let hint = answer["hint"].as_str().unwrap();
    assert!(
        hint.contains(&format!("{} of 30 files", files.len())),
        "{hint}"
    );
    assert!(hint.contains(left_paths[0]), "{hint}");
    assert!(
        hint.contains(&format!("the last {} files of the call", left_paths.len())),
        "{hint}"
    );
    // The budget holds the whole text: each file's window, its `==> path <==` line and its hint, then the call's.
    let text = answer["text"].as_str().unwrap();
    let files_text = text.strip_suffix(hint).unwrap();
    assert_eq!(
        answer["budget"]["used"].as_u64(),
        Some(files_text.chars().count() as u64)
    );
    assert!(text.chars().count() <= 20_000, "{}", text.chars().count());
    // What was left out is read by the call the answer names; what was read is a stub now.
    let rest = ask(
        &mut session,
        json!({"op": "read_many", "paths": left_paths}),
    );
    assert_eq!(rest["files"][0]["status"], "ok", "{rest}");
    let again = ask(
        &mut session,
        json!({"op": "read_many", "paths": [paths[0]]}),
    );
    assert_eq!(again["files"][0]["status"], "unchanged", "{again}");

    let mut typed = sandbox.typed_session(config);
    let result = typed
        .read_many(&ReadManyRequest {
            paths: paths.clone(),
            limit: None,
            fresh: None,
        })
        .unwrap()
        .unwrap();
    assert_eq!(result.files.len() + result.left_out.len(), 30);
    assert_eq!(result.left_out, left_paths);
}

#[test]
fn the_tools_list_the_three_and_a_tool_call_runs_each() {
    let sandbox = Sandbox::new();
    sandbox.write("a/x.txt", "needle\n");
    let mut session = sandbox.default_session();
    let tools = ask(&mut session, json!({"op": "tools", "format": "anthropic"}));
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "read_file",
            "list_directory",
            "read_files",
            "search",
            "check_write"
        ]
    );
    let listing = ask(
        &mut session,
        json!({"op": "tool_call", "name": "list_directory", "arguments": {"path": sandbox.guest("a")}}),
    );
    assert!(
        listing["text"]
            .as_str()
            .unwrap()
            .starts_with("1|x.txt  7 bytes\n\n"),
        "{listing}"
    );
    let found = ask(
        &mut session,
        json!({"op": "tool_call", "name": "search", "arguments": {"pattern": "needle", "path": sandbox.guest("a")}}),
    );
    assert!(
        found["text"]
            .as_str()
            .unwrap()
            .starts_with("x.txt:1|needle\n\n"),
        "{found}"
    );
    let many = ask(
        &mut session,
        json!({"op": "tool_call", "name": "read_files", "arguments": {"paths": [sandbox.guest("a/x.txt")]}}),
    );
    assert_eq!(many["files"][0].get("content"), None, "{many}");
    assert!(
        many["text"].as_str().unwrap().contains("<==\n1|needle\n\n"),
        "{many}"
    );
    let refused = ask(
        &mut session,
        json!({"op": "tool_call", "name": "search", "arguments": {"path": "a"}}),
    );
    assert_eq!(
        refused["error"]["message"],
        "`pattern` is missing: search needs a `pattern` (a string)"
    );
}

#[test]
fn read_many_quotes_a_name_that_would_forge_a_header_and_counts_one_file_left_out_in_words() {
    let sandbox = Sandbox::new();
    let forged = sandbox.write("a\n==> b <==\n1|root.txt", "x\n");
    let long = sandbox.write("long.txt", "line of text\n".repeat(3000));
    let last = sandbox.write("last.txt", "y\n");
    let config = Config {
        budget: Some(read_window_host::Budget::Characters(2_000)),
        ..Config::default()
    };
    let mut session = sandbox.session(config);
    let answer = ask(
        &mut session,
        json!({"op": "read_many", "paths": [forged, long, last]}),
    );
    let text = answer["text"].as_str().unwrap();
    let quoted = format!("==> {forged:?} <==\n1|x\n");
    assert!(text.starts_with(&quoted), "{text}");
    assert!(!text.contains("\n==> b <=="), "{text}");
    let hint = answer["hint"].as_str().unwrap();
    assert!(
        hint.contains(&format!(
            "Left out for the budget, not read at all: the last file of the call ({last}). Read it on its own, or in \
             another call for several files."
        )),
        "{hint}"
    );
}

#[test]
fn read_many_reads_the_other_paths_when_a_pattern_goes_through_a_link_out_of_the_grant() {
    let sandbox = Sandbox::new();
    let plain = sandbox.write("plain.txt", "kept\n");
    // `up` leads to `/`, out of the grant; `/etc` holds `.conf` files the pattern would match there.
    std::os::unix::fs::symlink("../../../../../../../../../..", sandbox.root.join("up")).unwrap();
    let pattern = sandbox.guest("up/etc/*.conf");
    let mut session = sandbox.session(Config::default());
    let answer = ask(
        &mut session,
        json!({"op": "read_many", "paths": [pattern, plain]}),
    );
    assert_eq!(answer["status"], "ok", "{answer}");
    let text = answer["text"].as_str().unwrap();
    assert!(text.contains("1|kept\n"), "{text}");
    assert_eq!(
        answer["files"].as_array().map(Vec::len),
        Some(1),
        "{answer}"
    );
    let (up, root) = (sandbox.guest("up"), sandbox.guest(""));
    let root = root.trim_end_matches('/');
    assert_eq!(
        answer["warnings"],
        json!([format!(
            "The pattern {pattern} was not expanded: {up}/etc goes through the link {up}, which points to \
             ../../../../../../../../../..: outside the directories read-window may read ({root}). Read the file \
             under a granted directory instead."
        )])
    );
}
