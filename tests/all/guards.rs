//! Issue 6 scenarios that need host control: a socket, /dev and /proc granted, malformed protocol requests, random
//! inputs, and a host that survives a pathological call. Credentials, binary verdicts from content, encodings and
//! the requests the component refuses are scenario files in `tests/scenarios/guards/`, run by `tests/scenarios.rs`.

use std::time::{Duration, Instant};

use crate::common::{ask, component, error_kind, read, Sandbox};
use read_window_host::{Config, Grants, HostErrorKind, ReadRequest, SessionLimits};
use serde_json::{json, Value};

/// A session over the sandbox and the host's /dev, as a host that preopens /dev would give.
fn with_dev(sandbox: &Sandbox) -> read_window_host::Session {
    let grants = Grants::new()
        .dir(&sandbox.root)
        .unwrap()
        .dir_at("/dev", "/dev")
        .unwrap();
    component()
        .protocol_session(&grants, &Config::default(), SessionLimits::default())
        .unwrap()
}

// Stays in Rust: a scenario cannot make a Unix socket (the format has files, links, directories and FIFOs).
#[test]
fn a_socket_is_a_special_file() {
    let sandbox = Sandbox::new();
    let _listener = std::os::unix::net::UnixListener::bind(sandbox.host("live.sock")).unwrap();
    let mut session = sandbox.default_session();
    let started = Instant::now();
    let answer = read(&mut session, "live.sock", json!({}));
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(error_kind(&answer), "special_file");
}

// Stays in Rust: grants the host's /dev, and scenarios grant only their own directory.
#[test]
fn device_names_are_refused_even_when_dev_is_granted() {
    let sandbox = Sandbox::new();
    let mut session = with_dev(&sandbox);
    for path in [
        "/dev/zero",
        "/dev/stdin",
        "/dev/../dev/zero",
        "/dev/urandom",
        "/dev/fd/0",
        "/dev/tty",
    ] {
        let started = Instant::now();
        let answer = read(&mut session, path, json!({}));
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{path} answered at once"
        );
        assert_eq!(error_kind(&answer), "device", "{path}: {answer}");
    }
    // A relative link that leads to /dev/zero is refused by the same rule.
    std::os::unix::fs::symlink(
        format!(
            "{}/dev/zero",
            "../".repeat(sandbox.root.components().count())
        ),
        sandbox.host("zero-link"),
    )
    .unwrap();
    assert_eq!(
        error_kind(&read(&mut session, "zero-link", json!({}))),
        "device"
    );
    // An absolute link is resolved by the host (WASI cannot follow it) into /dev/zero, which the component
    // refuses by name.
    std::os::unix::fs::symlink("/dev/zero", sandbox.host("absolute-zero")).unwrap();
    assert_eq!(
        error_kind(&read(&mut session, "absolute-zero", json!({}))),
        "device"
    );
    // /dev/null reads as an empty file.
    let null = read(&mut session, "/dev/null", json!({}));
    assert_eq!(null["status"], "ok", "{null}");
    assert_eq!(null["total_lines"], 0);
}

// Stays in Rust: grants the host's /proc, and scenarios grant only their own directory.
#[test]
fn proc_secrets_are_refused_and_ordinary_proc_files_read() {
    let sandbox = Sandbox::new();
    let grants = Grants::new()
        .dir(&sandbox.root)
        .unwrap()
        .dir_at("/proc", "/proc")
        .unwrap();
    let mut session = component()
        .protocol_session(&grants, &Config::default(), SessionLimits::default())
        .unwrap();
    for path in [
        "/proc/self/environ",
        "/proc/1/cmdline",
        "/proc/self/fd/0",
        "/proc/self/task/1/maps",
        "/proc/self/mem",
    ] {
        assert_eq!(
            error_kind(&read(&mut session, path, json!({}))),
            "device",
            "{path}"
        );
    }
    let cpuinfo = read(&mut session, "/proc/cpuinfo", json!({"limit": 3}));
    assert_eq!(cpuinfo["status"], "ok", "{cpuinfo}");
    assert_eq!(cpuinfo["lines_returned"], 3);
}

// Stays in Rust: grants the host's /proc. A missing entry under the `self` link is not found, naming the entry that
// is missing (not a "dangling link": the link's target exists); a view of memory is refused for what it is.
#[test]
fn a_missing_proc_entry_is_not_found_naming_it_and_pagemap_is_not_said_to_block() {
    let grants = Grants::new().dir_at("/proc", "/proc").unwrap();
    let mut session = component()
        .protocol_session(&grants, &Config::default(), SessionLimits::default())
        .unwrap();
    for path in ["/proc/self/fd/987654", "/proc/self/task/987654/status"] {
        let answer = read(&mut session, path, json!({}));
        assert_eq!(error_kind(&answer), "not_found", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(!message.contains("dangling"), "{answer}");
        assert!(
            message.contains("/987654 is missing, past the link /proc/self, which points to "),
            "{answer}"
        );
        assert!(
            message.starts_with(&format!("{path} does not exist: /proc/")),
            "{answer}"
        );
    }
    let pagemap = read(&mut session, "/proc/self/pagemap", json!({}));
    assert_eq!(error_kind(&pagemap), "device", "{pagemap}");
    let message = pagemap["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("not a regular file"), "{pagemap}");
    assert!(!message.contains("block"), "{pagemap}");
}

// Stays in Rust: grants the host's /proc. Issue 11 case 9: an error that will not heal never invites a retry.
#[test]
fn a_write_only_proc_file_fails_without_inviting_a_retry() {
    let sandbox = Sandbox::new();
    let grants = Grants::new()
        .dir(&sandbox.root)
        .unwrap()
        .dir_at("/proc", "/proc")
        .unwrap();
    let mut session = component()
        .protocol_session(&grants, &Config::default(), SessionLimits::default())
        .unwrap();
    let answer = read(&mut session, "/proc/self/clear_refs", json!({}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    // As root the read fails (EINVAL): `io`; otherwise the open is refused: `permission_denied`.
    match error_kind(&answer) {
        "io" => assert!(
            message.contains("reading it again will fail the same way"),
            "{answer}"
        ),
        "permission_denied" => assert!(message.contains("denied again"), "{answer}"),
        other => panic!("unexpected kind {other}: {answer}"),
    }
    assert!(!message.to_ascii_lowercase().contains("retry"), "{answer}");
}

// Stays in Rust: malformed protocol requests are refused by the host's parser, and a scenario step cannot be one.
#[test]
fn each_malformed_request_gets_an_invalid_request_error_and_the_session_goes_on() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\n");
    let mut session = sandbox.default_session();
    let bad: Vec<(Value, &str)> = vec![
        (
            json!({"op": "read", "path": path, "offset": -1}),
            "`offset` must not be negative",
        ),
        (
            json!({"op": "read", "path": path, "limit": -5}),
            "`limit` must not be negative",
        ),
        (
            json!({"op": "read", "path": path, "column": 1.5}),
            "`column` must be an integer",
        ),
        (
            json!({"op": "read", "path": path, "offset": "3rd"}),
            "`offset` must be a line number from 1",
        ),
        (json!({"op": "read"}), "`path` is missing"),
        (json!({"op": "launch", "path": path}), "unknown `op`"),
    ];
    for (request, phrase) in bad {
        let answer = ask(&mut session, request.clone());
        assert_eq!(
            error_kind(&answer),
            "invalid_request",
            "{request} -> {answer}"
        );
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains(phrase),
            "{request} -> {answer}"
        );
    }
    for (line, phrase) in [
        ("{not json", "not valid JSON"),
        ("[1,2]", "JSON object"),
        ("", "not valid JSON"),
        (
            "{\"op\":\"read\",\"path\":\"a.txt\",\"offset\":18446744073709551616}",
            "`offset` is beyond",
        ),
    ] {
        let answer: Value = serde_json::from_str(&session.answer(line)).unwrap();
        assert_eq!(error_kind(&answer), "invalid_request", "{line} -> {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains(phrase),
            "{line} -> {answer}"
        );
    }
    // The session goes on.
    assert_eq!(read(&mut session, &path, json!({}))["content"], "1|alpha\n");
}

// Stays in Rust: sets a deadline (host control) and checks the host's restart.
#[test]
fn a_call_past_its_deadline_is_interrupted_and_the_session_restarts() {
    let sandbox = Sandbox::new();
    let line = "0123456789".repeat(10);
    let big: String = (0..1_000_000).map(|_| format!("{line}\n")).collect();
    let path = sandbox.write("big.log", big);
    let small = sandbox.write("small.txt", "small\n");
    let limits = SessionLimits {
        deadline: Duration::from_millis(1),
        ..SessionLimits::default()
    };
    let mut session = component()
        .session_with_limits(&sandbox.grants(), Config::default(), limits)
        .unwrap();
    let error = session
        .read(&ReadRequest::new(path))
        .expect_err("a 100 MB scan takes more than one epoch tick");
    assert_eq!(error.kind(), HostErrorKind::Deadline);
    assert!(error.session_restarted());
    assert_eq!(session.restarts(), 1);
    let after = session
        .read(&ReadRequest::new(small))
        .expect("the restarted session answers")
        .expect("a window");
    match after {
        read_window_host::ReadOutcome::Window(window) => assert_eq!(window.content(), "1|small\n"),
        other => panic!("expected a window, got {other:?}"),
    }
}

// Stays in Rust: a property test over random bytes, requests and configs.
mod no_traps {
    use crate::common::{ask, Sandbox};
    use proptest::prelude::*;
    use read_window_host::{Budget, Config, TokenBudget};
    use serde_json::{json, Value};

    const KINDS: &[&str] = &[
        "not_found",
        "not_a_file",
        "outside_sandbox",
        "permission_denied",
        "invalid_request",
        "io",
        "special_file",
        "device",
        "credential",
        "binary",
        "loop_blocked",
        "echoed_output",
    ];

    fn number() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            (0u64..40).prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            Just(json!(1.5)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::common::fuzz_cases(64)))]

        /// Random bytes, random requests and random configs through the real component: every answer is a
        /// window, a stub or a typed error, never a host error (a trap, a deadline, the memory cap).
        #[test]
        fn random_inputs_never_trap_the_component(
            bytes in proptest::collection::vec(any::<u8>(), 0..4_000),
            text in "[\\PC\r\n\t]{0,600}",
            use_text in any::<bool>(),
            max_lines in proptest::option::of(0u32..50),
            max_line_length in proptest::option::of(0u32..100),
            chars in proptest::option::of(0u32..3_000),
            cap in proptest::option::of(0u32..3_000),
            dedup in proptest::option::of(any::<bool>()),
            requests in proptest::collection::vec((number(), number(), number(), 0usize..4), 1..8),
        ) {
            let sandbox = Sandbox::new();
            sandbox.write("f.bin", if use_text { text.into_bytes() } else { bytes });
            let budget = match (chars, cap) {
                (_, Some(cap)) => Some(Budget::Tokens(TokenBudget { cap: Some(cap), headroom: None })),
                (Some(chars), None) => Some(Budget::Characters(chars)),
                (None, None) => None,
            };
            let mut session = sandbox.session(Config { max_lines, max_line_length, budget, dedup, ..Config::default() });
            for (offset, limit, column, path) in requests {
                let path = ["f.bin", "", "../f.bin", "missing"][path];
                let answer = ask(&mut session, json!({"op": "read", "path": path, "offset": offset, "limit": limit, "column": column}));
                match answer["status"].as_str() {
                    Some("ok") => {
                        let used = answer["budget"]["used"].as_u64().unwrap();
                        prop_assert!(used <= answer["budget"]["limit"].as_u64().unwrap());
                    }
                    Some("unchanged") => prop_assert!(answer.get("content").is_none()),
                    Some("error") => {
                        let kind = answer["error"]["kind"].as_str().unwrap_or("");
                        prop_assert!(KINDS.contains(&kind), "{answer}");
                    }
                    _ => prop_assert!(false, "unexpected answer {answer}"),
                }
            }
        }
    }
}

// Stays in Rust: sets a memory cap (host control) and checks the host's restart.
#[test]
fn a_call_over_the_memory_cap_traps_and_the_session_is_replaced() {
    let sandbox = Sandbox::new();
    // A window of 2,000 lines of 1,000 characters needs about 2 MB of content; cap the store at 1.5 MiB above the
    // component's start.
    let wide: String = (0..2_000)
        .map(|_| format!("{}\n", "w".repeat(1_000)))
        .collect();
    let big = sandbox.write("wide.txt", wide);
    let small = sandbox.write("small.txt", "small\n");
    let probe = component()
        .session(&sandbox.grants(), Config::default())
        .unwrap();
    let baseline = probe.peak_memory_bytes();
    let limits = SessionLimits {
        memory_bytes: baseline as usize + 1_536 * 1024,
        ..SessionLimits::default()
    };
    let config = Config {
        budget: Some(read_window_host::Budget::Characters(4_000_000)),
        ..Config::default()
    };
    let mut session = component()
        .session_with_limits(&sandbox.grants(), config, limits)
        .unwrap();
    let error = session
        .read(&ReadRequest::new(big))
        .expect_err("the window does not fit the memory cap");
    assert_eq!(error.kind(), HostErrorKind::MemoryLimit, "{error}");
    assert!(error.session_restarted());
    assert_eq!(session.restarts(), 1);
    match session.read(&ReadRequest::new(small)).unwrap().unwrap() {
        read_window_host::ReadOutcome::Window(window) => assert_eq!(window.content(), "1|small\n"),
        other => panic!("expected a window, got {other:?}"),
    }
}

// Stays in Rust: two grants at guest paths of their own, and the host's `/`. An absolute link is resolved by the
// host into the grant that holds its target (WASI cannot follow it), and `/etc/localtime` reads with `/` granted.
#[test]
fn absolute_links_resolve_across_grants_and_under_the_root() {
    let one = Sandbox::new();
    let two = Sandbox::new();
    two.write("data/b.txt", "bravo\n");
    std::os::unix::fs::symlink(two.root.join("data/b.txt"), one.host("to-b")).unwrap();
    let grants = Grants::new()
        .dir_at(&one.root, "/one")
        .unwrap()
        .dir_at(&two.root, "/two")
        .unwrap();
    let mut session = component()
        .protocol_session(&grants, &Config::default(), SessionLimits::default())
        .unwrap();
    let answer = read(&mut session, "to-b", json!({}));
    assert_eq!(answer["status"], "ok", "{answer}");
    assert_eq!(answer["content"], "1|bravo\n");
    assert_eq!(answer["path"], "/two/data/b.txt");
    // The name asked for is held to the credential rules too, as for a link the component follows itself.
    std::os::unix::fs::symlink(two.root.join("data/b.txt"), one.host(".env")).unwrap();
    let named = read(&mut session, ".env", json!({}));
    assert_eq!(error_kind(&named), "credential", "{named}");
    assert_eq!(named["error"]["path"], "/one/.env");
    assert!(
        named["error"]["message"]
            .as_str()
            .is_some_and(|message| message.starts_with("/one/.env holds")),
        "{named}"
    );
    let alone = Grants::new().dir_at(&one.root, "/one").unwrap();
    let mut session = component()
        .protocol_session(&alone, &Config::default(), SessionLimits::default())
        .unwrap();
    let refused = read(&mut session, "/one/to-b", json!({}));
    assert_eq!(error_kind(&refused), "outside_sandbox", "{refused}");
    assert_eq!(
        refused["error"]["message"],
        format!(
            "/one/to-b goes through the link /one/to-b, which points to {}: outside the directories read-window \
             may read (/one). Read the file under a granted directory instead.",
            two.root.join("data/b.txt").display()
        )
    );
    let localtime = std::path::Path::new("/etc/localtime");
    let absolute_link = std::fs::read_link(localtime).is_ok_and(|target| target.is_absolute());
    if absolute_link && localtime.is_file() {
        let root = Grants::new().dir("/").unwrap();
        let mut session = component()
            .protocol_session(&root, &Config::default(), SessionLimits::default())
            .unwrap();
        let zone = read(&mut session, "/etc/localtime", json!({"limit": 1}));
        assert_ne!(error_kind(&zone), "outside_sandbox", "{zone}");
    }
}

// Stays in Rust: a scenario's file names are JSON strings, so they cannot hold a name that is not valid UTF-8.
#[test]
fn a_name_that_is_not_valid_utf8_is_skipped_and_counted_not_a_switch_for_suggestions_or_listed() {
    use std::os::unix::ffi::OsStrExt;
    let sandbox = Sandbox::new();
    sandbox.write("notes.txt", "n\n");
    std::fs::write(
        sandbox
            .root
            .join(std::ffi::OsStr::from_bytes(b"bad\xff.txt")),
        "b\n",
    )
    .unwrap();
    let mut session = sandbox.default_session();
    let answer = read(&mut session, "notez.txt", json!({}));
    let dir = sandbox.root.display();
    assert_eq!(
        answer["error"]["message"],
        format!("notez.txt (resolved to {dir}/notez.txt) does not exist. Similar names in {dir}: notes.txt. 1 name in {dir} is not valid UTF-8 and cannot be asked for by name.")
    );
    assert_eq!(answer["error"]["suggestions"], json!(["notes.txt"]));
    // Its listing shows the one name a request can use and says what it left out.
    let answer = read(&mut session, ".", json!({}));
    assert_eq!(answer["content"], "1|notes.txt  2 bytes\n", "{answer}");
    assert_eq!(answer["total_entries"], 1);
    assert_eq!(
        answer["warnings"],
        json!([format!("1 name under {dir} is not valid UTF-8: not listed or counted, as no request can name them.")])
    );
}

/// The race test of docs/behaviour/guards.md, "The sandbox under races", through the wasmtime host: the plan and the swapper of
/// `tests/race/race.py` (the Python and JavaScript hosts run the same), at least 20,000 racing reads and 1,000
/// racing captures (`RACE_READS`, `RACE_CAPTURES` change the counts), and no forbidden string in any answer.
#[test]
fn no_byte_from_outside_and_no_secret_under_racing_swaps() {
    let reads_wanted = race_count("RACE_READS", 20_000);
    let captures_wanted = race_count("RACE_CAPTURES", 1_000);
    let dir = tempfile::tempdir().unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/race/race.py");
    let setup = std::process::Command::new("python3")
        .arg(&script)
        .arg("setup")
        .arg(dir.path())
        .output()
        .expect("python3 runs tests/race/race.py");
    assert!(
        setup.status.success(),
        "{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let plan: Value = serde_json::from_slice(&setup.stdout).unwrap();
    let mut grants = Grants::new();
    for (guest, host) in plan["grants"].as_object().unwrap() {
        grants = grants.dir_at(host.as_str().unwrap(), guest).unwrap();
    }
    for (guest, host) in plan["writable_grants"].as_object().unwrap() {
        grants = grants
            .writable_dir_at(host.as_str().unwrap(), guest)
            .unwrap();
    }
    let config = read_window::protocol::config_json::parse_config(&plan["config"])
        .map(read_window_host::settings::wit_config)
        .unwrap();
    let mut session = component()
        .protocol_session(&grants, &config, SessionLimits::default())
        .unwrap();
    let forbidden: Vec<&str> = plan["forbidden"]
        .as_array()
        .unwrap()
        .iter()
        .map(|value| value.as_str().unwrap())
        .collect();
    let mut swapper = std::process::Command::new("python3")
        .arg(&script)
        .arg("swap")
        .arg(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut tally = std::collections::BTreeMap::<String, u64>::new();
    let mut leaks = Vec::new();
    let (mut reads, mut captures) = (0u64, 0u64);
    let mut check = |answer: &Value, tally: &mut std::collections::BTreeMap<String, u64>| {
        let text = answer.to_string();
        for word in &forbidden {
            if text.contains(word) {
                leaks.push(format!("{word}: {text}"));
            }
        }
        let status = match error_kind(answer) {
            "" => answer["status"].as_str().unwrap_or("?").to_string(),
            kind => kind.to_string(),
        };
        *tally.entry(status).or_default() += 1;
    };
    let steps = plan["reads"].as_array().unwrap();
    let capture_runs = plan["captures"].as_array().unwrap();
    while reads < reads_wanted || captures < captures_wanted {
        for step in steps
            .iter()
            .take(if reads < reads_wanted { steps.len() } else { 0 })
        {
            check(&ask(&mut session, step.clone()), &mut tally);
            reads += 1;
        }
        for run in capture_runs.iter().take(if captures < captures_wanted {
            capture_runs.len()
        } else {
            0
        }) {
            for step in run.as_array().unwrap() {
                let answer = ask(&mut session, step.clone());
                if step["op"] == "capture_end" {
                    let spill = answer["spill_path"].as_str().unwrap_or("/spill/");
                    assert!(spill.starts_with("/spill/"), "{answer}");
                    captures += 1;
                }
                check(&answer, &mut tally);
            }
        }
    }
    drop(swapper.stdin.take());
    let swapped = swapper.wait_with_output().unwrap();
    let swaps: Value = serde_json::from_slice(&swapped.stdout).unwrap();
    let outside_spills = std::fs::read_dir(plan["outside_spill"].as_str().unwrap())
        .unwrap()
        .count();
    println!(
        "race (rust): {reads} reads, {captures} captures, {} leaks, {outside_spills} outside spills, {} swaps; answers: {tally:?}",
        leaks.len(),
        swaps["swaps"]
    );
    assert!(
        leaks.is_empty(),
        "{} answers leaked: {:#?}",
        leaks.len(),
        &leaks[..leaks.len().min(5)]
    );
    assert_eq!(
        outside_spills, 0,
        "a spill file was created outside the writable grant"
    );
    assert!(swaps["swaps"].as_u64().unwrap() > 0);
}

/// `$name` as a count, else `default`.
fn race_count(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(default)
}
