//! The `read-window` command line: text output, `--json`, exit codes, session mode and `page`.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::Sandbox;

fn read_window() -> Command {
    Command::new(env!("CARGO_BIN_EXE_read-window"))
}

#[test]
fn read_prints_the_window_then_the_hint_and_exits_0() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("notes.txt", "alpha\nbeta\ngamma\n");
    let output = read_window()
        .args([
            "--root",
            &sandbox.root.display().to_string(),
            "read",
            &path,
            "--limit",
            "2",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("1|alpha\n2|beta\n\nShowing lines 1-2 of 3 in {path} (the limit of 2 lines). Use offset=3 to continue.\n")
    );
}

#[test]
fn exit_codes_are_1_for_a_read_error_with_json_still_printed_and_2_for_usage() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let missing = read_window()
        .args(["--root", &root, "read", "missing.txt", "--json"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    let answer: serde_json::Value = serde_json::from_slice(&missing.stdout).unwrap();
    assert_eq!(answer["error"]["kind"], "not_found");
    let bad_root = read_window()
        .args(["--root", "/no/such/dir", "read", "x"])
        .output()
        .unwrap();
    assert_eq!(bad_root.status.code(), Some(2));
    let bad_flag = read_window().args(["read"]).output().unwrap();
    assert_eq!(bad_flag.status.code(), Some(2));
}

#[test]
fn session_mode_answers_one_line_per_request() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\ntwo\n");
    let mut child = read_window()
        .args(["--root", &sandbox.root.display().to_string(), "session"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let requests = format!(
        "{{\"op\":\"read\",\"path\":\"{path}\",\"content\":true}}\n{{\"op\":\"read\",\"path\":\"{path}\"}}\nnot json\n{{\"op\":\"other_tool\"}}\n"
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(requests.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let answers: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[0]["content"], "1|one\n2|two\n");
    assert_eq!(answers[1]["status"], "unchanged");
    assert_eq!(answers[2]["error"]["kind"], "invalid_request");
    assert_eq!(answers[3], serde_json::json!({"status": "ok"}));
}

#[test]
fn page_prints_every_line_once_including_the_rest_of_clamped_lines() {
    let sandbox = Sandbox::new();
    let long = "0123456789".repeat(50);
    let text: String = (1..=300)
        .map(|n| {
            if n % 50 == 0 {
                format!("{long}\n")
            } else {
                format!("line {n}\n")
            }
        })
        .collect();
    let path = sandbox.write("paged.txt", &text);
    let output = read_window()
        .args([
            "--root",
            &sandbox.root.display().to_string(),
            "--max-chars",
            "2000",
            "--max-line-length",
            "120",
            "page",
            &path,
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let mut lines: std::collections::BTreeMap<u64, String> = std::collections::BTreeMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let window: serde_json::Value = serde_json::from_str(line).unwrap();
        let start_line = window["start_line"].as_u64().unwrap();
        let start_column = window["start_column"].as_u64().unwrap();
        for (position, formatted) in window_lines(&window).split_terminator('\n').enumerate() {
            let number = start_line + position as u64;
            let body = formatted.strip_prefix(&format!("{number}|")).unwrap();
            let shown = window["clamped_lines"]
                .as_array()
                .unwrap()
                .iter()
                .find(|clamped| clamped["line"] == number)
                .map(|clamped| clamped["shown_chars"].as_u64().unwrap() as usize);
            let piece: String = match shown {
                Some(count) => body.chars().take(count).collect(),
                None => body.to_string(),
            };
            let entry = lines.entry(number).or_default();
            if position == 0 {
                assert_eq!(entry.chars().count() as u64, start_column, "line {number}");
            }
            entry.push_str(&piece);
        }
    }
    let rebuilt: String = lines.values().map(|line| format!("{line}\n")).collect();
    assert_eq!(rebuilt, text);
}

#[test]
fn a_bad_root_after_the_command_is_a_usage_error_naming_it() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("file.txt", "not a directory\n");
    let missing = sandbox.root.join("no-such-dir").display().to_string();
    for (root, why) in [
        (missing.as_str(), "No such file or directory"),
        (file.as_str(), "not a directory"),
    ] {
        let output = read_window()
            .args(["read", "--root", root, "notes.txt"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{root}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with(&format!("read-window: --root {root}: ")) && stderr.contains(why),
            "{stderr}"
        );
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn read_window_wasm_is_honoured_at_run_time_and_a_missing_file_is_a_clear_error() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\n");
    let root = sandbox.root.display().to_string();
    let missing = sandbox.root.join("no-such.wasm");
    let expected = format!(
        "READ_WINDOW_WASM is set to {}, which is not a file; point it at a read_window.wasm component (this build \
         made {}), or unset it to use the component built into this binary",
        missing.display(),
        read_window_host::COMPONENT_PATH
    );
    let where_from = read_window()
        .arg("wasm-path")
        .env("READ_WINDOW_WASM", &missing)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&where_from.stdout),
        format!("{}\n", missing.display())
    );
    // Text mode: the message on stderr, exit 1.
    let text = read_window()
        .args(["--root", &root, "read", &path])
        .env("READ_WINDOW_WASM", &missing)
        .output()
        .unwrap();
    assert_eq!(text.status.code(), Some(1));
    assert!(text.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&text.stderr),
        format!("read-window: could not load the read-window component: {expected}\n")
    );
    // JSON modes: one host_error answer on stdout for every request, exit 1.
    for args in [vec!["read", &path, "--json"], vec!["page", &path, "--json"]] {
        let output = read_window()
            .args(["--root", &root])
            .args(&args)
            .env("READ_WINDOW_WASM", &missing)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(answer["status"], "error", "{args:?}");
        assert_eq!(answer["error"]["kind"], "host_error");
        assert_eq!(answer["error"]["cause"], "start");
        assert_eq!(
            answer["error"]["message"],
            format!("could not load the read-window component: {expected}")
        );
    }
    // `session`: each request answered as it arrives (its id first), while the client keeps the pipe open.
    let mut child = read_window()
        .args(["--root", &root, "session"])
        .env("READ_WINDOW_WASM", &missing)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, answers) = std::sync::mpsc::channel();
    let reading = std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            let answer: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            sender.send(answer).unwrap();
        }
    });
    let next = |request: &[u8], stdin: &mut std::process::ChildStdin| {
        stdin.write_all(request).unwrap();
        stdin.flush().unwrap();
        answers.recv_timeout(std::time::Duration::from_secs(60))
    };
    let first = next(b"{\"id\":7,\"path\":\"a.txt\"}\n\n", &mut stdin);
    let Ok(first) = first else {
        child.kill().unwrap();
        panic!("no answer to the first request while the pipe stayed open");
    };
    assert_eq!(first["id"], 7);
    assert_eq!(first["error"]["kind"], "host_error");
    assert_eq!(first["error"]["cause"], "start");
    let second = next(b"{\"op\":\"stats\"}\n", &mut stdin).unwrap();
    assert_eq!(second.get("id"), None);
    assert_eq!(second["error"]["kind"], "host_error");
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(1));
    reading.join().unwrap();
    assert!(answers.try_recv().is_err());
}

#[test]
fn page_of_a_bundle_shows_the_certificate_and_says_the_key_is_withheld() {
    let sandbox = Sandbox::new();
    let key = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";
    let path = sandbox.write(
        "bundle.pem",
        format!("-----BEGIN CERTIFICATE-----\nQ2VydA==\n-----END CERTIFICATE-----\n{key}# end\n"),
    );
    let root = sandbox.root.display().to_string();
    let output = read_window()
        .args(["--root", &root, "page", &path])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!(
            "1|-----BEGIN CERTIFICATE-----\n2|Q2VydA==\n3|-----END CERTIFICATE-----\n\nShowing lines 1-3 of 7 in {path}. \
             Lines 4-6 are a PEM private key, which read-window withholds. Use offset=7 to continue.\n\n7|# end\n\n\
             Showing line 7 of 7 in {path}: the end of the file.\n"
        )
    );
    // A file that starts with a key: the refusal is said, and the text after it is shown.
    let first = sandbox.write("key-first.pem", format!("{key}after\n"));
    let output = read_window()
        .args(["--root", &root, "page", &first, "--json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let answers: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["error"]["kind"], "credential");
    assert_eq!(window_lines(&answers[1]), "4|after\n");
}

#[test]
fn page_prints_a_read_error_on_stdout_as_read_does_and_exits_1() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    sandbox.write("present.txt", "a\n");
    let missing = sandbox.guest("absent.txt");
    let read = read_window()
        .args(["--root", &root, "read", &missing])
        .output()
        .unwrap();
    let page = read_window()
        .args(["--root", &root, "page", &missing])
        .output()
        .unwrap();
    assert_eq!(read.status.code(), Some(1));
    assert_eq!(page.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&page.stderr), "");
    let text = String::from_utf8(page.stdout).unwrap();
    assert_eq!(text, String::from_utf8(read.stdout).unwrap());
    assert!(
        text.starts_with(&format!("{missing} does not exist")),
        "{text}"
    );
}

#[test]
fn page_before_a_key_past_half_its_limit_names_no_limit_it_did_not_ask() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let mut text: String = (1..=1000).map(|line| format!("line {line}\n")).collect();
    text.push_str("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nafter\n");
    let path = sandbox.write("k.txt", text);
    let output = read_window()
        .args(["--root", &root, "page", &path])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let hints: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter(|line| line.starts_with("Showing"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        hints,
        [
            format!("Showing lines 1-1000 of 1004 in {path}. Lines 1001-1003 are a PEM private key, which read-window withholds. Use offset=1004 to continue."),
            format!("Showing line 1004 of 1004 in {path}: the end of the file."),
        ]
    );
}

#[test]
fn read_tail_prints_the_last_lines_and_refuses_it_with_an_offset() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let path = sandbox.write("log.txt", "line1\r\nline2\r\nline3\r\n");
    let output = read_window()
        .args(["--root", &root, "read", &path, "--tail", "1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("3|line3\n\nShowing line 3 of 3 in {path}: the end of the file. The line before it is read with offset=2 limit=1.\n")
    );
    let both = read_window()
        .args([
            "--root", &root, "read", &path, "--tail", "1", "--offset", "2",
        ])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn session_mode_takes_tail_and_numbers_as_models_send_them() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\ntwo\nthree\n");
    let mut child = read_window()
        .args(["--root", &sandbox.root.display().to_string(), "session"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"op":"read","path":"{path}","tail":"2","offset":"","content":true}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"op":"read","path":"{path}","offset":"two"}}"#).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let answers: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers[0]["content"], "2|two\n3|three\n");
    assert_eq!(
        answers[0]["warnings"],
        serde_json::json!(["`tail` was the string \"2\"; it was read as the number 2. Send numbers as JSON numbers."])
    );
    assert_eq!(answers[1]["error"]["kind"], "invalid_request");
    assert_eq!(
        answers[1]["error"]["message"],
        "`offset` must be a line number from 1 (0 is read as 1) up to the file's line count, as a JSON number; got the string \"two\""
    );
}

/// One `read` with its own cache directory and the timings on: its stdout, and whether the compiled component came
/// from the cache (`cache_hit_us` in the timings line) or was compiled (`cache_miss_us`).
fn read_with_cache(cache: &std::path::Path, root: &str, path: &str) -> (String, bool) {
    let output = read_window()
        .args([
            "--root", root, "read", path, "--offset", "2", "--limit", "2",
        ])
        .env("XDG_CACHE_HOME", cache)
        .env("READ_WINDOW_TIMINGS", "1")
        .env_remove("READ_WINDOW_WASM")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8(output.stderr).unwrap();
    let timings = stderr
        .lines()
        .find(|line| line.starts_with("read-window: timings: "))
        .unwrap_or_else(|| panic!("no timings line in {stderr:?}"));
    let hit = timings.contains(" cache_hit_us=");
    assert!(hit || timings.contains(" cache_miss_us="), "{timings}");
    // Every phase docs/cli.md names, in order.
    let phases: Vec<&str> = timings
        .split(' ')
        .filter_map(|field| field.split_once("_us=").map(|(name, _)| name))
        .collect();
    let cache = if hit { "cache_hit" } else { "cache_miss" };
    assert_eq!(
        phases,
        [
            "args",
            "setup",
            "engine",
            cache,
            "linker",
            "ticker",
            "document_cache",
            "instantiate",
            "read",
            "drop_store",
            "print",
            "total"
        ],
        "{timings}"
    );
    (String::from_utf8(output.stdout).unwrap(), hit)
}

#[test]
fn a_compiled_component_written_to_in_the_cache_is_recompiled_and_the_answer_stays_right() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let path = sandbox.write("notes.txt", "alpha\nbeta\ngamma\ndelta\n");
    let cache = tempfile::tempdir().unwrap();
    let expected = format!(
        "2|beta\n3|gamma\n\nShowing lines 2-3 of 4 in {path} (the limit of 2 lines). Use offset=4 to continue.\n"
    );
    assert_eq!(
        read_with_cache(cache.path(), &root, &path),
        (expected.clone(), false)
    );
    assert_eq!(
        read_with_cache(cache.path(), &root, &path),
        (expected.clone(), true)
    );

    // Write over the middle of the compiled code, as a stray write would: the entry's modification time leaves
    // its stamp, so the next start compiles again instead of running the damaged code, and replaces the entry.
    let dir = cache.path().join("read-window");
    let entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "cwasm"))
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let len = std::fs::metadata(&entries[0]).unwrap().len();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(&entries[0])
        .unwrap();
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(len / 2)).unwrap();
    file.write_all(&[0xcc; 4096]).unwrap();
    drop(file);
    assert_eq!(
        read_with_cache(cache.path(), &root, &path),
        (expected.clone(), false)
    );
    assert_eq!(
        read_with_cache(cache.path(), &root, &path),
        (expected, true)
    );
}

/// The lines of a window a CLI `--json` answer shows: its `text` up to the blank line before the hint (every line
/// of a window begins with its `N|` gutter, so the first blank line ends them).
fn window_lines(answer: &serde_json::Value) -> &str {
    let text = answer["text"].as_str().unwrap_or_default();
    text.find("\n\n").map_or(text, |end| &text[..=end])
}
