//! Settings at the edge, through the `read-window` CLI and the real component: every option and every `--config`
//! key round-trips into the session's effective config (the `config` op), out-of-range values are usage errors,
//! `configure` works before the first read and is refused after it, `tool-schema` matches the request fields,
//! and `text` is what text mode prints.

use std::process::{Command, Output, Stdio};

use crate::common::Sandbox;
use serde_json::{json, Value};

fn read_window() -> Command {
    Command::new(env!("CARGO_BIN_EXE_read-window"))
}

/// Runs `read-window ARGS session` with `lines` on stdin; the output and the answers, one per line.
fn session(args: &[&str], lines: &[Value]) -> (Output, Vec<Value>) {
    let lines: Vec<String> = lines.iter().map(Value::to_string).collect();
    session_of_lines(args, &lines)
}

/// [`session`] with request lines as they are written (a line JSON values cannot spell: a key given twice).
fn session_of_lines(args: &[&str], lines: &[String]) -> (Output, Vec<Value>) {
    let mut command = read_window();
    command.args(args).arg("session");
    crate::common::session_answers(command, lines)
}

/// The effective config a session started with `args` reports.
fn effective(args: &[&str]) -> Value {
    let (output, answers) = session(args, &[json!({"op": "config"})]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(answers[0]["status"], "ok");
    answers[0]["config"].clone()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn every_option_round_trips_into_the_effective_config() {
    let sandbox = Sandbox::new();
    sandbox.write("sub/a.txt", "a\n");
    let root = sandbox.root.display().to_string();
    let sub = sandbox.guest("sub");
    let config = effective(&[
        "--root",
        &root,
        "--max-lines",
        "40",
        "--max-line-length",
        "300",
        "--max-chars",
        "5000",
        "--cwd",
        &sub,
        "--no-dedup",
        "--loop-warn-at",
        "5",
        "--loop-block-at",
        "9",
        "--not-found-ttl-ms",
        "1500",
        "--deny",
        "**/*.key",
        "--deny",
        "**/secret*",
        "--allow",
        "**/public.key",
        "--ignore-file",
        ".gitignore",
        "--ignore-file",
        ".ignore",
        "--no-escape-invisible",
        "--no-images",
    ]);
    assert_eq!(
        config,
        json!({
            "max_lines": 40,
            "max_line_length": 300,
            "budget": {"characters": 5000},
            "working_directory": sub,
            "dedup": false,
            "loop_warn_at": 5,
            "loop_block_at": 9,
            "not_found_ttl_ms": 1500,
            "deny_patterns": ["**/*.key", "**/secret*"],
            "allow_patterns": ["**/public.key"],
            "ignore_files": [".gitignore", ".ignore"],
            "escape_invisible": false,
            "images": false,
        })
    );
    let tokens = effective(&[
        "--root",
        &root,
        "--max-tokens",
        "4000",
        "--token-headroom",
        "0.5",
    ]);
    assert_eq!(
        tokens["budget"],
        json!({"tokens": {"cap": 4000, "headroom": 0.5}})
    );
    // No option: the defaults, the working directory the root (the process runs elsewhere).
    let defaults = effective(&["--root", &root]);
    assert_eq!(
        defaults,
        json!({
            "max_lines": 2000,
            "max_line_length": 2000,
            "budget": {"characters": 100000},
            "working_directory": defaults["working_directory"].clone(),
            "dedup": true,
            "loop_warn_at": 3,
            "loop_block_at": 4,
            "not_found_ttl_ms": 60000,
            "deny_patterns": [],
            "allow_patterns": [],
            "ignore_files": [],
            "escape_invisible": true,
            "images": true,
        })
    );
}

#[test]
fn a_config_file_in_json_or_toml_round_trips_and_options_override_it() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    // The working directory must be a directory under a root.
    sandbox.write("elsewhere/k.txt", "");
    let elsewhere = sandbox.guest("elsewhere");
    let json_file = sandbox.write(
        "rw.json",
        r#"{"max_lines": 12, "max_line_length": 100, "budget": {"tokens": {"cap": 3000}},
            "working_directory": "/elsewhere", "dedup": false, "loop_warn_at": 4, "loop_block_at": 6,
            "not_found_ttl_ms": 0, "deny_patterns": ["**/*.pem"], "allow_patterns": ["**/ok.pem"],
            "ignore_files": [".gitignore"], "escape_invisible": false, "images": false}"#
            .replace("/elsewhere", &elsewhere),
    );
    let from_json = effective(&["--root", &root, "--config", &json_file]);
    assert_eq!(
        from_json,
        json!({
            "max_lines": 12,
            "max_line_length": 100,
            "budget": {"tokens": {"cap": 3000, "headroom": 0.9}},
            "working_directory": elsewhere,
            "dedup": false,
            "loop_warn_at": 4,
            "loop_block_at": 6,
            "not_found_ttl_ms": 0,
            "deny_patterns": ["**/*.pem"],
            "allow_patterns": ["**/ok.pem"],
            "ignore_files": [".gitignore"],
            "escape_invisible": false,
            "images": false,
        })
    );
    // The effective config is itself a config file that gives the same config.
    let again = sandbox.write("again.json", from_json.to_string());
    assert_eq!(effective(&["--root", &root, "--config", &again]), from_json);
    let toml_file = sandbox.write(
        "rw.toml",
        "max_lines = 12\nmax_line_length = 100\ndedup = false\nloop_warn_at = 4\nloop_block_at = 6\n\
         not_found_ttl_ms = 0\nworking_directory = \"/elsewhere\"\ndeny_patterns = [\"**/*.pem\"]\n\
         allow_patterns = [\"**/ok.pem\"]\nignore_files = [\".gitignore\"]\nescape_invisible = false\nimages = false\n\n[budget.tokens]\ncap = 3000\n"
            .replace("/elsewhere", &elsewhere),
    );
    assert_eq!(
        effective(&["--root", &root, "--config", &toml_file]),
        from_json
    );
    // TOML without the extension is recognised by its content.
    let toml_plain = sandbox.write("rw.conf", "max_lines = 7\n");
    assert_eq!(
        effective(&["--root", &root, "--config", &toml_plain])["max_lines"],
        7
    );
    // Options override the file, field by field; a headroom joins the file's token cap.
    let overridden = effective(&[
        "--root",
        &root,
        "--config",
        &toml_file,
        "--max-lines",
        "99",
        "--token-headroom",
        "0.5",
        "--deny",
        "**/*.p12",
    ]);
    assert_eq!(overridden["max_lines"], 99);
    assert_eq!(overridden["max_line_length"], 100);
    assert_eq!(
        overridden["budget"],
        json!({"tokens": {"cap": 3000, "headroom": 0.5}})
    );
    assert_eq!(overridden["deny_patterns"], json!(["**/*.p12"]));
    let chars = effective(&[
        "--root",
        &root,
        "--config",
        &toml_file,
        "--max-chars",
        "900",
    ]);
    assert_eq!(chars["budget"], json!({"characters": 900}));
}

#[test]
fn each_out_of_range_value_is_a_usage_error_naming_the_field_and_its_range() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("f.txt", "x\n");
    let root = sandbox.root.display().to_string();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--max-chars", "150"],
            "--max-chars 150 is out of range: from 200 to 10000000.",
        ),
        (
            &["--max-chars", "10000001"],
            "--max-chars 10000001 is out of range: from 200 to 10000000.",
        ),
        (
            &["--max-line-length", "5"],
            "--max-line-length 5 is out of range: from 16 to 10000000.",
        ),
        (
            &["--max-line-length", "4294967295"],
            "--max-line-length 4294967295 is out of range: from 16 to 10000000.",
        ),
        (
            &["--max-lines", "0"],
            "--max-lines 0 is out of range: from 1 to 1000000.",
        ),
        (
            &["--max-lines", "1000001"],
            "--max-lines 1000001 is out of range: from 1 to 1000000.",
        ),
        (
            &["--max-tokens", "99"],
            "--max-tokens 99 is out of range: from 100 to 1000000.",
        ),
        (
            &["--max-tokens", "1000001"],
            "--max-tokens 1000001 is out of range: from 100 to 1000000.",
        ),
        (
            &["--max-tokens", "100", "--token-headroom", "1.5"],
            "--token-headroom 1.5 is out of range: from 0.5 to 1.",
        ),
        (
            &["--max-tokens", "100", "--token-headroom", "0"],
            "--token-headroom 0.0 is out of range: from 0.5 to 1.",
        ),
        (
            &["--max-tokens", "100", "--token-headroom", "0.01"],
            "--token-headroom 0.01 is out of range: from 0.5 to 1.",
        ),
        (
            &["--max-tokens", "100", "--token-headroom", "1e-300"],
            "--token-headroom 1e-300 is out of range: from 0.5 to 1.",
        ),
        (
            &["--token-headroom", "0.5"],
            "--token-headroom 0.5 needs a token cap: give --max-tokens N too (or `budget.tokens.cap` in the \
             config file); a headroom is a share of a token cap.",
        ),
        (
            &["--loop-warn-at", "4"],
            "--loop-warn-at 4 is out of range: at least 2, below loop-block-at 4.",
        ),
        (
            &["--loop-block-at", "2"],
            "--loop-block-at 2 is out of range: above loop-warn-at 3.",
        ),
        (
            &["--deny", "/etc/serv["],
            "--deny /etc/serv[ is not a glob pattern: a `[` class is not closed by `]`.",
        ),
        (
            &["--allow", "**/*.{pem"],
            "--allow **/*.{pem is not a glob pattern: a `{` group is not closed by `}`.",
        ),
        (
            &["--cwd", "/nonexistent-rw-dir"],
            "--cwd /nonexistent-rw-dir: No such file or directory (os error 2)",
        ),
        (
            &["--loop-warn-at", "1"],
            "--loop-warn-at 1 is out of range: at least 2, below loop-block-at 4.",
        ),
        (
            &["--loop-block-at", "3"],
            "--loop-block-at 3 is out of range: above loop-warn-at 3.",
        ),
        (
            &["--not-found-ttl-ms", "86400001"],
            "--not-found-ttl-ms 86400001 is out of range: from 0 to 86400000.",
        ),
    ];
    for (options, message) in cases {
        let output = read_window()
            .args(["--root", &root])
            .args(*options)
            .args(["read", &path])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{options:?}");
        assert!(output.stdout.is_empty(), "{options:?}");
        assert_eq!(stderr(&output), format!("read-window: {message}\n"));
    }
    // A value out of range in a config file names the key and the file's role.
    let file = sandbox.write("bad.json", r#"{"budget": {"characters": 150}}"#);
    let output = read_window()
        .args(["--root", &root, "--config", &file, "read", &path])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "read-window: `budget.characters` 150 in the config file is out of range: from 200 to 10000000.\n"
    );
    // A malformed file is a usage error naming the file and the field.
    let unknown = sandbox.write("unknown.json", r#"{"max_chars": 500}"#);
    let output = read_window()
        .args(["--root", &root, "--config", &unknown, "read", &path])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains(&format!(
        "--config {unknown}: unknown config field `max_chars`"
    )));
    let missing = read_window()
        .args([
            "--root",
            &root,
            "--config",
            "/no/such/rw.toml",
            "read",
            &path,
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let broken = sandbox.write("broken.toml", "max_lines = = 3\n");
    let output = read_window()
        .args(["--root", &root, "--config", &broken, "read", &path])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not valid TOML"),
        "{}",
        stderr(&output)
    );
    // The MCP server takes the same options and refuses the same way.
    let output = read_window()
        .args(["--root", &root, "--max-line-length", "5", "mcp"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "read-window: --max-line-length 5 is out of range: from 16 to 10000000.\n"
    );
}

#[test]
fn configure_applies_before_the_first_read_and_is_refused_after_it() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let path = sandbox.write("f.txt", "one\ntwo\nthree\n");
    let (output, answers) = session(
        &["--root", &root, "--max-lines", "50"],
        &[
            json!({"op": "configure", "id": 1, "max_line_length": 5}),
            json!({"op": "configure", "id": 2, "max_lines": 2, "dedup": false}),
            json!({"op": "config", "id": 3}),
            json!({"op": "read", "id": 4, "path": path}),
            json!({"op": "configure", "id": 5, "max_lines": 9}),
            json!({"op": "config", "id": 6}),
        ],
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(answers.len(), 6);
    assert_eq!(
        answers[0],
        json!({"id": 1, "status": "error", "content_returned": false,
               "text": "`max_line_length` 5 is out of range: from 16 to 10000000.",
               "error": {"kind": "invalid_request",
                         "message": "`max_line_length` 5 is out of range: from 16 to 10000000.",
                         "suggestions": []}})
    );
    assert_eq!(answers[1], json!({"id": 2, "status": "ok"}));
    assert_eq!(answers[2]["config"]["max_lines"], 2);
    assert_eq!(answers[2]["config"]["dedup"], false);
    assert_eq!(answers[2]["config"]["max_line_length"], 2000);
    assert_eq!(answers[3]["lines_returned"], 2);
    assert_eq!(answers[3]["next_offset"], 3);
    assert_eq!(answers[4]["error"]["kind"], "invalid_request");
    assert_eq!(
        answers[4]["error"]["message"],
        "`configure` must come before the first request that uses the session: this session already ran \
         `read`, so its settings stay as they are; start a new session to change them."
    );
    assert_eq!(answers[5]["config"]["max_lines"], 2);
}

/// The request fields the session protocol accepts for `read`, from its own refusal of an unknown field.
fn read_request_fields() -> Vec<String> {
    let request = serde_json::json!({"op": "read", "path": "a", "zz": 1});
    let error = read_window::protocol::parse_request(&request)
        .err()
        .map(|error| error.message)
        .unwrap_or_default();
    let (_, fields) = error.split_once("its fields are: ").unwrap_or(("", ""));
    let mut fields: Vec<String> = fields.split(", ").map(str::to_owned).collect();
    fields.sort();
    fields
}

#[test]
fn tool_schema_is_json_schema_whose_parameters_are_the_request_fields() {
    let mut schemas = Vec::new();
    for (format, pointer) in [
        ("openai", "/function/parameters"),
        ("anthropic", "/input_schema"),
        ("mcp", "/inputSchema"),
    ] {
        let output = read_window()
            .args(["tool-schema", "--format", format])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{format}");
        let tool: Value = serde_json::from_slice(&output.stdout).unwrap();
        let description = tool
            .pointer("/function/description")
            .or(tool.get("description"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        for words in [
            "window",
            "The hint names the call that continues, e.g. offset=2001",
            "column",
            "stub",
            "loop_blocked",
        ] {
            assert!(description.contains(words), "{format}: {words}");
        }
        let schema = tool.pointer(pointer).cloned().unwrap_or_default();
        assert!(
            jsonschema::meta::is_valid(&schema),
            "{format}: not a valid JSON Schema"
        );
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(
            validator.is_valid(&json!({"path": "a.txt", "offset": 3, "limit": 10, "column": 0}))
        );
        assert!(!validator.is_valid(&json!({"offset": 3})));
        assert!(!validator.is_valid(&json!({"path": "a.txt", "lines": 3})));
        assert!(!validator.is_valid(&json!({"path": "a.txt", "limit": 0})));
        assert!(!validator.is_valid(&json!({"path": "a.txt", "offset": -1})));
        let mut names: Vec<String> = schema["properties"]
            .as_object()
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default();
        names.sort();
        // `depth` is the list_directory tool's, and `content` the host's (a tool call's answer carries its window
        // once, in the text): read_file takes every other field of a read.
        let mut fields = read_request_fields();
        fields.retain(|field| field != "depth" && field != "content");
        assert_eq!(names, fields, "{format}");
        schemas.push(schema);
    }
    assert_eq!(schemas[0], schemas[1]);
    assert_eq!(schemas[0], schemas[2]);
    let bad = read_window()
        .args(["tool-schema", "--format", "xml"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn text_is_what_text_mode_prints_for_a_window_and_an_error() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let path = sandbox.write("notes.txt", "alpha\nbeta\ngamma\n");
    let run = |args: &[&str]| {
        read_window()
            .args(["--root", &root])
            .args(args)
            .output()
            .unwrap()
    };
    for args in [
        vec!["read", path.as_str(), "--limit", "2"],
        vec!["read", path.as_str(), "--offset", "9"],
        vec!["read", "notez.txt"],
        vec!["read", root.as_str()],
    ] {
        let text_mode = run(&args);
        let mut json_args = args.clone();
        json_args.push("--json");
        let json_mode = run(&json_args);
        assert_eq!(text_mode.status.code(), json_mode.status.code(), "{args:?}");
        let answer: Value = serde_json::from_slice(&json_mode.stdout).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&text_mode.stdout),
            format!("{}\n", answer["text"].as_str().unwrap_or_default()),
            "{args:?}"
        );
        assert!(text_mode.stderr.is_empty(), "{args:?}");
    }
    let window = run(&["read", &path, "--limit", "2", "--json"]);
    let answer: Value = serde_json::from_slice(&window.stdout).unwrap();
    assert_eq!(
        answer["text"],
        format!("1|alpha\n2|beta\n\nShowing lines 1-2 of 3 in {path} (the limit of 2 lines). Use offset=3 to continue.")
    );
    let missing = run(&["read", "notez.txt", "--json"]);
    let answer: Value = serde_json::from_slice(&missing.stdout).unwrap();
    assert_eq!(answer["text"], answer["error"]["message"]);
    assert_eq!(answer["error"]["path"], sandbox.guest("notez.txt"));
    assert_eq!(answer["error"]["suggestions"], json!(["notes.txt"]));
    let past = run(&["read", &path, "--offset", "9", "--json"]);
    let answer: Value = serde_json::from_slice(&past.stdout).unwrap();
    assert_eq!(answer["error"]["kind"], "invalid_request");
    assert_eq!(answer["error"]["total_lines"], 3);
    assert_eq!(answer["error"]["path"], path);
}

/// Runs `read-window ARGS`; the exit code and stderr.
fn refusal(args: &[&str]) -> (Option<i32>, String) {
    let output = read_window().args(args).output().unwrap();
    (output.status.code(), stderr(&output))
}

#[test]
fn config_files_that_are_not_regular_json_or_toml_files_are_refused() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let path = sandbox.write("f.txt", "x\n");
    let usage = |config: &str| refusal(&["--root", &root, "--config", config, "read", &path]);
    assert_eq!(
        usage("/dev/zero"),
        (
            Some(2),
            "read-window: --config /dev/zero: not a regular file (a config file is a JSON or TOML file)\n"
                .to_owned()
        )
    );
    let fifo = sandbox.host("pipe.json");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let fifo = fifo.display().to_string();
    assert_eq!(
        usage(&fifo),
        (
            Some(2),
            format!("read-window: --config {fifo}: not a regular file (a config file is a JSON or TOML file)\n")
        )
    );
    let big = sandbox.write("big.json", vec![b' '; (1 << 20) + 1]);
    assert_eq!(
        usage(&big),
        (
            Some(2),
            format!(
                "read-window: --config {big}: 1048577 bytes, over the 1048576-byte cap on a config file\n"
            )
        )
    );
    let twice = sandbox.write("twice.json", r#"{"max_lines": 5, "max_lines": 9}"#);
    let (code, message) = usage(&twice);
    assert_eq!(code, Some(2));
    assert!(
        message.starts_with(&format!(
            "read-window: --config {twice}: not valid JSON: the key `max_lines` is given twice"
        )),
        "{message}"
    );
    let nested = sandbox.write(
        "nested",
        r#"{"budget": {"tokens": {"cap": 100, "cap": 200}}}"#,
    );
    let (code, message) = usage(&nested);
    assert_eq!(code, Some(2));
    assert!(
        message.contains("the key `cap` is given twice"),
        "{message}"
    );
    // A `.json` name means JSON: TOML in it is not JSON (the name decides, as docs/cli.md says).
    let toml_in_json = sandbox.write("c.json", "max_lines = 3\n");
    let (code, message) = usage(&toml_in_json);
    assert_eq!(code, Some(2));
    assert!(
        message.starts_with(&format!(
            "read-window: --config {toml_in_json}: not valid JSON"
        )),
        "{message}"
    );
    let relative = sandbox.write("rel.json", r#"{"working_directory": "rel"}"#);
    assert_eq!(
        usage(&relative),
        (
            Some(2),
            "read-window: `working_directory` \"rel\" in the config file must be an absolute path (a directory \
             under a root)\n"
                .to_owned()
        )
    );
    let outside = sandbox.write("out.json", r#"{"working_directory": "/usr"}"#);
    assert_eq!(
        usage(&outside),
        (
            Some(2),
            format!(
                "read-window: `working_directory` \"/usr\" in the config file: not under a root (the roots are \
                 {root})\n"
            )
        )
    );
    // --token-headroom does not turn the file's character budget into the default token budget.
    let chars = sandbox.write("chars.json", r#"{"budget": {"characters": 300}}"#);
    assert_eq!(
        refusal(&[
            "--root",
            &root,
            "--config",
            &chars,
            "--token-headroom",
            "0.5",
            "read",
            &path
        ]),
        (
            Some(2),
            "read-window: --token-headroom 0.5 needs a token cap: give --max-tokens N too (or \
             `budget.tokens.cap` in the config file); a headroom is a share of a token cap.\n"
                .to_owned()
        )
    );
    let tokens = sandbox.write("tokens.json", r#"{"budget": {"tokens": {"cap": 1000}}}"#);
    let shown = effective(&[
        "--root",
        &root,
        "--config",
        &tokens,
        "--token-headroom",
        "0.5",
    ]);
    assert_eq!(
        shown["budget"],
        json!({"tokens": {"cap": 1000, "headroom": 0.5}})
    );
    // A loop threshold out of range in the file is named as the file's key.
    let loops = sandbox.write("loops.json", r#"{"loop_warn_at": 4}"#);
    assert_eq!(
        usage(&loops),
        (
            Some(2),
            "read-window: `loop_warn_at` 4 in the config file is out of range: at least 2, below loop-block-at 4.\n"
                .to_owned()
        )
    );
}

#[test]
fn the_working_directory_must_be_a_directory_under_a_root() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let path = sandbox.write("sub/f.txt", "x\n");
    assert_eq!(
        refusal(&["--root", &root, "--cwd", "/usr", "read", &path]),
        (
            Some(2),
            format!("read-window: --cwd /usr: not under a root (the roots are {root})\n")
        )
    );
    assert_eq!(
        refusal(&["--root", &root, "--cwd", &path, "read", &path]),
        (
            Some(2),
            format!("read-window: --cwd {path}: not a directory\n")
        )
    );
    let sub = sandbox.guest("sub");
    assert_eq!(
        effective(&["--root", &root, "--cwd", &sub])["working_directory"],
        json!(sub)
    );
    let (output, answers) = session(
        &["--root", &root],
        &[
            json!({"op": "configure", "id": 1, "working_directory": "rel"}),
            json!({"op": "configure", "id": 2, "working_directory": "/usr"}),
            json!({"op": "configure", "id": 3, "working_directory": path}),
            json!({"op": "configure", "id": 4, "working_directory": sub}),
            json!({"op": "read", "id": 5, "path": "f.txt", "content": true}),
        ],
    );
    assert_eq!(output.status.code(), Some(0));
    let messages: Vec<&str> = answers
        .iter()
        .map(|answer| answer["error"]["message"].as_str().unwrap_or("ok"))
        .collect();
    assert_eq!(
        messages,
        [
            "`working_directory` \"rel\" must be an absolute path (a directory under a root)"
                .to_owned(),
            format!("`working_directory` \"/usr\": not under a root (the roots are {root})"),
            format!("`working_directory` {path:?}: not a directory"),
            "ok".to_owned(),
            "ok".to_owned(),
        ]
    );
    assert_eq!(answers[4]["content"], "1|x\n");
}

#[test]
fn a_line_that_gives_a_key_twice_is_refused_with_its_id_and_leaves_configure_open() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let path = sandbox.write("f.txt", "one\ntwo\nthree\n");
    let lines = [
        r#"{"op":"configure","id":1,"max_lines":5,"max_lines":10}"#.to_string(),
        format!(r#"{{"op":"read","id":2,"path":"{path}","path":"other.txt"}}"#),
        r#"{"op":"nope","id":3}"#.to_string(),
        r#"{"op":"configure","id":4,"max_lines":2}"#.to_string(),
        format!(r#"{{"op":"read","id":5,"path":"{path}"}}"#),
        r#"{"op":"configure","id":6,"max_lines":9}"#.to_string(),
    ];
    let (output, answers) = session_of_lines(&["--root", &root], &lines);
    assert_eq!(output.status.code(), Some(0));
    let ids: Vec<&Value> = answers.iter().map(|answer| &answer["id"]).collect();
    assert_eq!(
        ids,
        [
            &json!(1),
            &json!(2),
            &json!(3),
            &json!(4),
            &json!(5),
            &json!(6)
        ]
    );
    assert_eq!(
        answers[0]["error"]["message"],
        "the request is not valid JSON: the key `max_lines` is given twice at line 1 column 50"
    );
    assert_eq!(answers[1]["error"]["kind"], "invalid_request");
    assert!(
        answers[1]["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("the key `path` is given twice"),
        "{}",
        answers[1]
    );
    assert_eq!(answers[2]["error"]["kind"], "invalid_request");
    // Refused lines used nothing: configure still applies, and the read after it has 2 lines a window.
    assert_eq!(answers[3], json!({"id": 4, "status": "ok"}));
    assert_eq!(answers[4]["lines_returned"], 2);
    assert_eq!(
        answers[5]["error"]["message"],
        "`configure` must come before the first request that uses the session: this session already ran \
         `read`, so its settings stay as they are; start a new session to change them."
    );
}

#[test]
fn configure_names_its_own_keys_and_refuses_what_it_cannot_apply() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let (output, answers) = session(
        &["--root", &root, "--max-chars", "5000"],
        &[
            json!({"op": "config", "id": 1, "extra": 1}),
            json!({"op": "configure", "id": 2, "budget": {"tokens": {"headroom": 0.5}}}),
            json!({"op": "configure", "id": 3, "loop_warn_at": 4}),
            json!({"op": "configure", "id": 4, "deny_patterns": ["/etc/serv["]}),
            json!({"op": "config", "id": 5}),
            json!({"op": "other_tool", "id": 6}),
            json!({"op": "configure", "id": 7, "max_lines": 3}),
        ],
    );
    assert_eq!(output.status.code(), Some(0));
    let messages: Vec<&str> = answers
        .iter()
        .map(|answer| answer["error"]["message"].as_str().unwrap_or("ok"))
        .collect();
    assert_eq!(
        messages,
        [
            "unknown field `extra` for op `config`; its fields are: none",
            "`budget.tokens.headroom` 0.5 needs `budget.tokens.cap` beside it: `configure` replaces the budget as \
             a whole, so give {\"tokens\": {\"cap\": N, \"headroom\": 0.5}}.",
            "`loop_warn_at` 4 is out of range: at least 2, below loop-block-at 4.",
            "`deny_patterns` /etc/serv[ is not a glob pattern: a `[` class is not closed by `]`.",
            "ok",
            "ok",
            "`configure` must come before the first request that uses the session: this session already ran \
             `other_tool`, so its settings stay as they are; start a new session to change them.",
        ]
    );
    assert_eq!(answers[0]["error"]["kind"], "invalid_request");
    assert_eq!(answers[4]["config"]["budget"], json!({"characters": 5000}));
}

#[test]
fn tool_schema_states_the_line_limit_the_options_set() {
    for (format, pointer) in [
        ("openai", "/function/parameters/properties/limit"),
        ("anthropic", "/input_schema/properties/limit"),
        ("mcp", "/inputSchema/properties/limit"),
    ] {
        let output = read_window()
            .args(["--max-lines", "50", "tool-schema", "--format", format])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{format}");
        let tool: Value = serde_json::from_slice(&output.stdout).unwrap();
        let limit = tool.pointer(pointer).cloned().unwrap_or_default();
        assert_eq!(limit["maximum"], 50, "{format}");
        assert_eq!(
            limit["description"],
            "The most lines to show, at least 1; default and maximum: 50. The window may stop earlier at its \
             size budget; the hint says so.",
            "{format}"
        );
    }
    // MCP's read_file declares the characters a reply carries at most under the budget in force, as the server
    // lists it: its default token budget, or the one the options give.
    for (options, chars) in [
        (&[][..], 304_384),
        (&["--max-tokens", "5000"][..], 4_500 * 16 + 16_384),
        (&["--max-chars", "30000"][..], 30_000 + 16_384),
    ] {
        let output = read_window()
            .args(options)
            .args(["tool-schema", "--format", "mcp"])
            .output()
            .unwrap();
        let tool: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            tool["_meta"],
            serde_json::json!({"anthropic/maxResultSizeChars": chars}),
            "{options:?}"
        );
    }
}

#[test]
fn a_root_given_through_a_link_reads_its_own_absolute_paths() {
    let sandbox = Sandbox::new();
    sandbox.write("real/hello.txt", "hello\n");
    let link = sandbox.host("linkroot");
    std::os::unix::fs::symlink(sandbox.host("real"), &link).unwrap();
    let link = link.display().to_string();
    let asked = format!("{link}/hello.txt");
    let output = read_window()
        .args(["--root", &link, "read", "--json", &asked])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        answer["text"].as_str().unwrap().starts_with("1|hello\n\n"),
        "{answer}"
    );
    assert_eq!(
        answer.get("content"),
        None,
        "the window is in the text once"
    );
    assert_eq!(answer["path"], sandbox.guest("real/hello.txt"));
    // A path that only shares a prefix of the link's name is not under it.
    let beside = format!("{link}x/hello.txt");
    let output = read_window()
        .args(["--root", &link, "read", "--json", &beside])
        .output()
        .unwrap();
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["error"]["kind"], "outside_sandbox");
}

/// An op the CLI's code never names (`tools`, `tool_call`) is answered through `session`: the host hands every
/// line to the component's protocol. Python and JS run the same check in their own tests.
#[test]
fn an_op_only_the_component_knows_reaches_the_cli() {
    let sandbox = Sandbox::new();
    let root = sandbox.root.display().to_string();
    let path = sandbox.write("f.txt", "one\ntwo\nthree\n");
    let (output, answers) = session(
        &["--root", &root, "--max-lines", "50"],
        &[
            json!({"op": "tools", "format": "mcp", "id": 7}),
            json!({"op": "tool_call", "id": 8, "name": "read_file",
                   "arguments": {"path": path, "limit": "2"}}),
            json!({"op": "tool_call", "id": 9, "name": "read_file", "arguments": {"path": path, "op": "wrote"}}),
        ],
    );
    assert_eq!(output.status.code(), Some(0));
    let tools = &answers[0];
    assert_eq!(tools["id"], 7);
    assert_eq!(tools["status"], "ok");
    assert_eq!(tools["tools"][0]["name"], "read_file");
    assert_eq!(tools["tools"][1]["name"], "list_directory");
    assert_eq!(tools["tools"][4]["name"], "check_write");
    assert_eq!(
        tools["tools"][0]["inputSchema"]["properties"]["limit"]["maximum"],
        50
    );
    assert_eq!(tools["tools"][1]["annotations"]["readOnlyHint"], true);
    let read = &answers[1];
    assert_eq!(read["id"], 8);
    assert!(
        read["text"]
            .as_str()
            .unwrap()
            .starts_with("1|one\n2|two\n\n"),
        "{read}"
    );
    assert_eq!(read["next_offset"], 3);
    assert_eq!(
        read["warnings"],
        json!(["`limit` was the string \"2\"; it was read as the number 2. Send numbers as JSON numbers."])
    );
    assert_eq!(
        answers[2]["error"]["message"],
        "unknown argument `op` for read_file; its arguments are: path, offset, limit, column, tail, extract, fresh, region"
    );
}
