//! Issue 6 scenarios through the real component: special files, device and /proc names, links, credentials,
//! binary verdicts from content, encodings, bad requests, and a host that survives a pathological call.

mod common;

use std::time::{Duration, Instant};

use common::{ask, component, error_kind, read, Sandbox};
use read_window_host::{Config, Grants, HostErrorKind, ReadRequest, SessionLimits};
use serde_json::{json, Value};

/// A session over the sandbox and the host's /dev, as a host that preopens /dev would give.
fn with_dev(sandbox: &Sandbox) -> read_window_host::Session {
    let grants = Grants::new()
        .dir(&sandbox.root)
        .unwrap()
        .dir_at("/dev", "/dev")
        .unwrap();
    component().session(&grants, Config::default()).unwrap()
}

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
    // An absolute link is never followed by the host: it is refused as leading outside.
    std::os::unix::fs::symlink("/dev/zero", sandbox.host("absolute-zero")).unwrap();
    assert_eq!(
        error_kind(&read(&mut session, "absolute-zero", json!({}))),
        "outside_sandbox"
    );
    // /dev/null reads as an empty file.
    let null = read(&mut session, "/dev/null", json!({}));
    assert_eq!(null["status"], "ok", "{null}");
    assert_eq!(null["total_lines"], 0);
}

#[test]
fn proc_secrets_are_refused_and_ordinary_proc_files_read() {
    let sandbox = Sandbox::new();
    let grants = Grants::new()
        .dir(&sandbox.root)
        .unwrap()
        .dir_at("/proc", "/proc")
        .unwrap();
    let mut session = component().session(&grants, Config::default()).unwrap();
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

#[test]
fn each_default_credential_rule_refuses_and_names_itself() {
    let sandbox = Sandbox::new();
    let files = [
        (".env", "**/.env"),
        (".env.production", "**/.env.*"),
        (".envrc", "**/.envrc"),
        (".git-credentials", "**/.git-credentials"),
        (".netrc", "**/.netrc"),
        (".pypirc", "**/.pypirc"),
        (".npmrc", "**/.npmrc"),
        (".aws/credentials", "**/.aws/credentials"),
        (".docker/config.json", "**/.docker/config.json"),
        (".ssh/id_rsa", "**/id_rsa"),
        (".ssh/id_ed25519", "**/id_ed25519"),
        ("tls/server.pem", "**/*.pem"),
        (".codex/auth.json", "**/auth.json"),
    ];
    let mut session = sandbox.default_session();
    for (name, rule) in files {
        let path = sandbox.write(name, "SECRET=1\n");
        let answer = read(&mut session, &path, json!({}));
        assert_eq!(error_kind(&answer), "credential", "{name}");
        assert!(
            answer["error"]["message"].as_str().unwrap().contains(rule),
            "{name} names {rule}: {answer}"
        );
    }
    for name in [
        ".env.example",
        ".env.sample",
        "id_rsa.pub",
        "environment.md",
    ] {
        let path = sandbox.write(name, "ok\n");
        assert_eq!(
            read(&mut session, &path, json!({}))["content"],
            "1|ok\n",
            "{name}"
        );
    }
}

#[test]
fn credential_rules_apply_to_the_link_target_and_the_host_can_add_and_except() {
    let sandbox = Sandbox::new();
    sandbox.write(".env", "SECRET=1\n");
    std::os::unix::fs::symlink(".env", sandbox.host("notes.txt")).unwrap();
    let mut session = sandbox.default_session();
    assert_eq!(
        error_kind(&read(&mut session, "notes.txt", json!({}))),
        "credential"
    );
    let key = sandbox.write(
        "deploy/key.txt",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\n",
    );
    assert_eq!(
        error_kind(&read(&mut session, &key, json!({}))),
        "credential"
    );

    let fixtures = sandbox.write("fixtures/test.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n");
    let secrets = sandbox.write("config/secrets.yaml", "token: x\n");
    let mut custom = sandbox.session(Config {
        deny_patterns: Some(vec!["config/secrets.yaml".to_string()]),
        allow_patterns: Some(vec!["fixtures/*.pem".to_string()]),
        ..Config::default()
    });
    assert_eq!(
        error_kind(&read(&mut custom, &secrets, json!({}))),
        "credential"
    );
    assert_eq!(
        read(&mut custom, &fixtures, json!({}))["content"],
        "1|-----BEGIN CERTIFICATE-----\n2|MIIB\n"
    );
}

#[test]
fn magic_numbers_name_the_type_whatever_the_extension() {
    let sandbox = Sandbox::new();
    let mut tar = vec![0u8; 512];
    tar[257..262].copy_from_slice(b"ustar");
    let mut pe = vec![b'x'; 0x100];
    pe[..2].copy_from_slice(b"MZ");
    pe[0x3c..0x40].copy_from_slice(&0x80u32.to_le_bytes());
    pe[0x80..0x84].copy_from_slice(b"PE\0\0");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("image.txt", b"\x89PNG\r\n\x1a\nrest".to_vec(), "PNG"),
        ("photo.md", b"\xff\xd8\xff\xe0JFIF".to_vec(), "JPEG"),
        (
            "anim.rs",
            b"GIF89a\x01\x00\x01\x00\x80\x00\x00".to_vec(),
            "GIF",
        ),
        ("web.txt", b"RIFF\x10\x00\x00\x00WEBPVP8 ".to_vec(), "WebP"),
        ("doc.txt", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec(), "PDF"),
        ("book.txt", b"PK\x03\x04\x14\x00\x00\x00".to_vec(), "ZIP"),
        ("a.log", b"\x1f\x8b\x08\x00rest".to_vec(), "gzip"),
        ("b.log", b"BZh91AY&SY\x8a\x00".to_vec(), "bzip2"),
        ("c.log", b"\xfd7zXZ\x00rest".to_vec(), "xz"),
        ("d.log", b"\x28\xb5\x2f\xfdrest".to_vec(), "zstd"),
        ("e.log", b"7z\xbc\xaf\x27\x1crest".to_vec(), "7z"),
        ("f.txt", tar, "tar"),
        ("g.sh", b"\x7fELF\x02\x01\x01\x00\x00".to_vec(), "ELF"),
        ("h.sh", b"\xcf\xfa\xed\xfe\x07".to_vec(), "Mach-O"),
        ("i.txt", pe, "PE"),
        ("j.js", b"\x00asm\x01\x00\x00\x00".to_vec(), "WebAssembly"),
        ("k.csv", b"SQLite format 3\x00rest".to_vec(), "SQLite"),
        (
            "l.java",
            b"\xca\xfe\xba\xbe\x00\x00\x00\x41".to_vec(),
            "Java class",
        ),
        ("m.txt", b"ID3\x04\x00rest".to_vec(), "MP3"),
        ("n.txt", b"OggS\x00\x02".to_vec(), "Ogg"),
        ("o.txt", b"fLaC\x00\x00".to_vec(), "FLAC"),
        ("p.txt", b"RIFF\x10\x00\x00\x00WAVEfmt ".to_vec(), "WAV"),
        ("q.txt", b"\x00\x00\x00\x18ftypmp42".to_vec(), "MP4"),
        (
            "r.txt",
            b"\x1a\x45\xdf\xa3\x01\x00\x00\x00".to_vec(),
            "Matroska",
        ),
    ];
    let mut session = sandbox.default_session();
    for (name, bytes, kind) in cases {
        let path = sandbox.write(name, &bytes);
        let answer = read(&mut session, &path, json!({}));
        assert_eq!(error_kind(&answer), "binary", "{name}: {answer}");
        assert!(
            answer["error"]["message"].as_str().unwrap().contains(kind),
            "{name} is named {kind}: {answer}"
        );
    }
}

#[test]
fn text_that_other_tools_call_binary_is_read() {
    let sandbox = Sandbox::new();
    let mut session = sandbox.default_session();

    let mut utf16 = vec![0xff, 0xfe];
    utf16.extend(
        "héllo\r\nwörld\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    let path = sandbox.write("utf16.txt", utf16);
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["content"], "1|héllo\n2|wörld\n");
    assert_eq!(
        answer["encoding"],
        json!({"encoding": "utf16le", "bom": true, "line_endings": "crlf", "replaced_invalid": 0})
    );

    let big_endian: Vec<u8> = "plain ascii\nsecond\n"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    let path = sandbox.write("utf16be-no-bom.txt", big_endian);
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["content"], "1|plain ascii\n2|second\n");
    assert_eq!(answer["encoding"]["encoding"], "utf16be");

    let mut cjk_after_999 = "a".repeat(999);
    cjk_after_999.push_str("中文\n");
    let path = sandbox.write("sample-edge.txt", &cjk_after_999);
    assert_eq!(
        read(&mut session, &path, json!({}))["content"],
        format!("1|{cjk_after_999}")
    );

    let log = "progress: 10%\u{8}\u{8}\u{8}20%\n\u{1b}[31merror\u{1b}[0m done\n";
    let path = sandbox.write("build.log", log);
    assert_eq!(
        read(&mut session, &path, json!({}))["content"],
        "1|progress: 10%\u{8}\u{8}\u{8}20%\n2|\u{1b}[31merror\u{1b}[0m done\n"
    );

    let markdown = "# 中文标题\n\n这是一个中文段落，包含很多汉字。\n";
    let path = sandbox.write("readme.zh.md", markdown);
    assert_eq!(read(&mut session, &path, json!({}))["total_lines"], 3);

    let path = sandbox.write("expert.mq5", "input int Period = 14;\nvoid OnTick() {}\n");
    assert_eq!(
        read(&mut session, &path, json!({}))["content"],
        "1|input int Period = 14;\n2|void OnTick() {}\n"
    );

    let notes = sandbox.write("notes.txt", "ID3 notes: tags to fix\nRIFF raff\n");
    assert_eq!(read(&mut session, &notes, json!({}))["total_lines"], 2);

    let python = "#!/usr/bin/env python3\nimport sys\nprint(sys.argv)\n";
    let path = sandbox.write("script", python);
    assert_eq!(read(&mut session, &path, json!({}))["total_lines"], 3);
}

#[test]
fn a_form_feed_or_vertical_tab_is_not_a_line_break() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("ff.txt", "page one\u{c}page two\u{b}same line\nnext\n");
    let mut session = sandbox.default_session();
    let answer = read(&mut session, &path, json!({}));
    assert_eq!(answer["total_lines"], 2);
    assert_eq!(
        answer["content"],
        "1|page one\u{c}page two\u{b}same line\n2|next\n"
    );
}

#[test]
fn each_bad_request_gets_an_invalid_request_error_and_the_session_goes_on() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\n");
    let mut session = sandbox.default_session();
    let bad: Vec<Value> = vec![
        json!({"op": "read", "path": ""}),
        json!({"op": "read", "path": "a\u{0}b"}),
        json!({"op": "read", "path": path, "offset": -1}),
        json!({"op": "read", "path": path, "limit": -5}),
        json!({"op": "read", "path": path, "column": 1.5}),
        json!({"op": "read", "path": path, "offset": "3"}),
        json!({"op": "read"}),
        json!({"op": "launch", "path": path}),
        json!({"op": "read", "path": path, "offset": u64::MAX}),
        json!({"op": "read", "path": path, "column": u64::MAX}),
        json!({"op": "read", "path": path, "limit": 0}),
    ];
    for request in bad {
        let answer = ask(&mut session, request.clone());
        assert_eq!(
            error_kind(&answer),
            "invalid_request",
            "{request} -> {answer}"
        );
        assert!(!answer["error"]["message"].as_str().unwrap().is_empty());
    }
    for line in [
        "{not json",
        "[1,2]",
        "",
        "{\"op\":\"read\",\"path\":\"a.txt\",\"offset\":18446744073709551616}",
    ] {
        let answer = read_window_host::json::answer_line(&mut session, line);
        assert_eq!(error_kind(&answer), "invalid_request", "{line} -> {answer}");
    }
    // A huge limit is clamped, not refused; the session still reads.
    let answer = read(&mut session, &path, json!({"limit": u64::MAX}));
    assert_eq!(answer["content"], "1|alpha\n");
}

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
        read_window_host::ReadOutcome::Window(window) => assert_eq!(window.content, "1|small\n"),
        other => panic!("expected a window, got {other:?}"),
    }
}

mod no_traps {
    use super::common::{ask, Sandbox};
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
        #![proptest_config(ProptestConfig::with_cases(64))]

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
        read_window_host::ReadOutcome::Window(window) => assert_eq!(window.content, "1|small\n"),
        other => panic!("expected a window, got {other:?}"),
    }
}
