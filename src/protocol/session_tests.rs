//! Tests of the protocol session, request by request: reads and the window once, ids, tool calls, the MCP server
//! and its roots, a host's link refusal, the config, and the end of a capture.

use super::*;
use crate::native_fs::NativeFileSystem;
use serde_json::json;

/// A session over a temporary directory granted at `/w`, holding `a.txt` (3 lines).
fn session(config: &str) -> (tempfile::TempDir, ProtocolSession<NativeFileSystem>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
    let fs = NativeFileSystem::mount(&[(dir.path().to_path_buf(), "/w".to_string())]);
    let environment = Environment {
        now_ms: || 0,
        memory_bytes: || 4096,
    };
    (
        dir,
        ProtocolSession::new(fs, config, Vec::new(), environment),
    )
}

fn ask(session: &mut ProtocolSession<NativeFileSystem>, request: Value) -> Value {
    serde_json::from_str(&session.answer(&request.to_string())).unwrap()
}

#[test]
fn an_id_comes_back_as_it_was_sent() {
    let (_dir, mut session) = session("{}");
    // A fraction of 17 digits needs serde_json's exact parsing (`float_roundtrip`) to come back as sent.
    for id in [
        "123456789.12345679",
        "0.1",
        "-2.5e-300",
        "18446744073709551615",
        "-9223372036854775808",
        r#""a \"quoted\" \\ id\u0001""#,
        r#"{"nested":[1,"two",null]}"#,
    ] {
        let answer = session.answer(&format!(r#"{{"id":{id},"op":"stats"}}"#));
        assert!(
            answer.starts_with(&format!(r#"{{"id":{id},"#)),
            "{id}: {answer}"
        );
    }
}

#[test]
fn the_window_crosses_once_unless_content_is_asked_for() {
    let (_dir, mut session) = session(r#"{"max_lines": 2}"#);
    let once = ask(&mut session, json!({"op": "read", "path": "a.txt"}));
    assert_eq!(once.get("content"), None);
    assert_eq!(
        once["text"],
        "1|one\n2|two\n\nShowing lines 1-2 of 3 in /w/a.txt (the limit of 2 lines). Use offset=3 to continue."
    );
    let both = ask(
        &mut session,
        json!({"op": "read_once", "path": "a.txt", "offset": 3, "content": true}),
    );
    assert_eq!(both["content"], "3|three\n");
    assert!(both["text"]
        .as_str()
        .is_some_and(|text| text.starts_with("3|three\n\n")));
    let refused = ask(
        &mut session,
        json!({"op": "read", "path": "a.txt", "content": "yes"}),
    );
    assert_eq!(refused["error"]["kind"], "invalid_request");
    assert_eq!(
        refused["error"]["message"],
        "`content` must be true or false, as a JSON boolean, not the string \"yes\""
    );
    // A model's call never asks for it: the tools refuse the argument.
    for (tool, arguments, listed) in [
        (
            "read_files",
            json!({"paths": ["a.txt"], "content": true}),
            "paths, limit, fresh",
        ),
        (
            "search",
            json!({"pattern": "one", "content": true}),
            "pattern, path, regex, case_sensitive, context, offset, limit",
        ),
    ] {
        let call = ask(
            &mut session,
            json!({"op": "tool_call", "name": tool, "arguments": arguments}),
        );
        assert_eq!(
            call["error"]["message"],
            format!("unknown argument `content` for {tool}; its arguments are: {listed}")
        );
    }
    // The string "true" is read as the boolean, with a note, as `fresh` is.
    let lenient = ask(
        &mut session,
        json!({"op": "read", "path": "a.txt", "offset": 3, "content": "true", "fresh": true}),
    );
    assert_eq!(lenient["content"], "3|three\n");
    assert_eq!(
        lenient["warnings"][0],
        "`content` was the string \"true\"; it was read as the boolean true. Send booleans as JSON true or false."
    );
}

#[test]
fn mcp_server_sets_the_mcp_budget_and_describes_the_server() {
    let (_dir, mut served_session) = session("");
    let served = ask(&mut served_session, json!({"op": "mcp_server"}));
    assert_eq!(served["status"], "ok");
    assert_eq!(
        (served["name"].as_str(), served["version"].as_str()),
        (Some("read-window"), Some("0.3.0"))
    );
    assert_eq!(served["instructions"], INSTRUCTIONS);
    let names: Vec<&str> = served["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
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
    assert_eq!(served["tools"][0]["inputSchema"]["type"], "object");
    let config = ask(&mut served_session, json!({"op": "config"}));
    assert_eq!(
        config["config"]["budget"],
        json!({"tokens": {"cap": 20000, "headroom": 0.9}})
    );

    // A budget the host set stays; the default budget cannot change under a session already reading.
    let (_dir, mut chars) = session(r#"{"budget": {"characters": 5000}}"#);
    assert_eq!(ask(&mut chars, json!({"op": "mcp_server"}))["status"], "ok");
    assert_eq!(
        ask(&mut chars, json!({"op": "config"}))["config"]["budget"],
        json!({"characters": 5000})
    );
    let (_dir, mut late) = session("");
    ask(&mut late, json!({"op": "read", "path": "a.txt"}));
    let refused = ask(&mut late, json!({"op": "mcp_server"}));
    assert_eq!(refused["error"]["kind"], "invalid_request");
    assert_eq!(
        refused["error"]["message"],
        "`mcp_server` must come before the first request that uses the session: this session already ran \
         `read` under the default budget; start a new session for the MCP server."
    );
}

#[test]
fn mcp_roots_names_what_to_grant() {
    let (_dir, mut session) = session("");
    let answer = ask(
        &mut session,
        json!({"op": "mcp_roots", "client_roots": ["file:///p%20q", "https://x", "file:///gone"], "cwd": "/",
               "ungrantable": [{"root": "/gone", "reason": "no such directory"}]}),
    );
    assert_eq!(
        answer,
        json!({"status": "ok", "roots": ["/p q"], "from": "client", "refused": [
            {"root": "https://x", "reason": "not a local file:// URI"},
            {"root": "file:///gone", "reason": "no such directory"}], "working_directory": "/p q"})
    );
    let home = ask(
        &mut session,
        json!({"op": "mcp_roots", "cwd": "/home/me", "home": "/home/me/"}),
    );
    assert_eq!(
        (home["roots"].clone(), home["from"].clone()),
        (json!([]), json!("cwd"))
    );
    assert!(home["refusal"]
        .as_str()
        .unwrap()
        .contains("started in /home/me (your home directory)"));
    let bad = ask(
        &mut session,
        json!({"op": "mcp_roots", "cwd": "/", "ungrantable": [{"root": "/x"}]}),
    );
    assert_eq!(
        bad["error"]["message"],
        "`ungrantable` must be a list of {\"root\": PATH, \"reason\": TEXT} objects; item 0 is an object \
         without a string `root` and `reason`"
    );
    let missing = ask(&mut session, json!({"op": "mcp_roots", "roots": ["/a"]}));
    assert_eq!(missing["error"]["kind"], "invalid_request");
}

#[test]
fn a_tool_call_runs_as_its_op_with_the_tools_words() {
    let (_dir, mut session) = session(r#"{"max_lines": 2}"#);
    let tools = ask(&mut session, json!({"op": "tools", "format": "anthropic"}));
    assert_eq!(
        tools["tools"][0]["input_schema"]["properties"]["limit"]["maximum"],
        2
    );
    let read = ask(
        &mut session,
        json!({"op": "tool_call", "id": 1, "name": "read_file", "arguments": {"path": "a.txt"}}),
    );
    assert_eq!(read["id"], 1);
    assert!(read.get("content").is_none(), "{read}");
    assert!(read["text"]
        .as_str()
        .is_some_and(|text| text.starts_with("1|one\n2|two\n\n")));
    assert_eq!(read["next_offset"], 3);
    let check = ask(
        &mut session,
        json!({"op": "tool_call", "name": "check_write", "arguments": {"path": "b.txt", "text": "x"}}),
    );
    assert_eq!(check, json!({"status": "ok", "text": "ok"}));
    let missing = ask(
        &mut session,
        json!({"op": "tool_call", "name": "check_write", "arguments": {"path": "b"}}),
    );
    assert_eq!(
        missing["error"]["message"],
        "`text` is missing: check_write needs a `text` (a string)"
    );
    let unknown = ask(
        &mut session,
        json!({"op": "tool_call", "name": "rm", "arguments": {}}),
    );
    assert_eq!(
        unknown["error"]["message"],
        "unknown tool \"rm\": the tools are read_file, list_directory, read_files, search and check_write"
    );
    let host_only = ask(
        &mut session,
        json!({"op": "read", "path": "a.txt", "colour": 1}),
    );
    assert_eq!(
        host_only["error"]["message"],
        "unknown field `colour` for op `read`; its fields are: path, offset, limit, column, tail, extract, fresh, region, depth, content"
    );
}

#[test]
fn a_hosts_link_refusal_is_answered_in_the_components_words() {
    let (_dir, mut session) = session("");
    let outside = ask(
        &mut session,
        json!({"op": "read", "id": 3, "path": "x", "link_refusal": {"outside": {"link": "/w/x", "target": "/etc/y"}}}),
    );
    assert_eq!(outside["id"], 3);
    assert_eq!(outside["error"]["kind"], "outside_sandbox");
    assert_eq!(outside["error"]["path"], "/w/x");
    assert_eq!(
        outside["text"],
        "x goes through the link /w/x, which points to /etc/y: outside the directories read-window may read \
         (/w). Read the file under a granted directory instead."
    );
    let looped = ask(
        &mut session,
        json!({"op": "tool_call", "name": "read_file", "arguments": {"path": "l"}, "link_refusal": "loop"}),
    );
    assert_eq!(looped["error"]["kind"], "not_found");
    assert_eq!(
        looped["text"],
        "l goes through more than 40 links (a link loop?); read the target directly."
    );
    let malformed = ask(
        &mut session,
        json!({"op": "read", "path": "x", "link_refusal": 5}),
    );
    assert_eq!(
        malformed["error"]["message"],
        "`link_refusal` must be {\"outside\": {\"link\": L, \"target\": T}} or \"loop\""
    );
}

#[test]
fn configure_holds_until_the_first_read_and_the_config_survives_a_restart() {
    let (_dir, mut session) = session(r#"{"max_lines": 5}"#);
    assert_eq!(
        ask(&mut session, json!({"op": "configure", "max_lines": 1})),
        json!({"status": "ok"})
    );
    assert_eq!(
        ask(&mut session, json!({"op": "config"}))["config"]["max_lines"],
        1
    );
    assert_eq!(session.config_text(), r#"{"max_lines":1}"#);
    assert_eq!(ask(&mut session, json!({"path": "a.txt"}))["end_line"], 1);
    let late = ask(&mut session, json!({"op": "configure", "max_lines": 3}));
    assert!(
        late["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already ran `read`"),
        "{late}"
    );
    let stats = ask(&mut session, json!({"op": "stats"}));
    assert_eq!(stats["peak_memory_bytes"], 4096);
}

#[test]
fn a_malformed_config_is_the_answer_to_every_request() {
    let (_dir, mut session) = session(r#"{"max_lines": "many"}"#);
    let answer = ask(
        &mut session,
        json!({"op": "read", "path": "a.txt", "id": 2}),
    );
    assert_eq!(answer["id"], 2);
    assert_eq!(
        answer["error"]["message"],
        "the host started this session with a config it could not use, so it answers no request: \
         `max_lines` must be a non-negative integer, not a string"
    );
}

#[test]
fn capture_end_says_the_timeout_and_the_hosts_notes() {
    let (_dir, mut session) = session("");
    assert_eq!(
        ask(&mut session, json!({"op": "capture_begin"})),
        json!({"status": "ok"})
    );
    assert_eq!(session.push_output(b"built\n"), r#"{"status":"ok"}"#);
    let end = ask(
        &mut session,
        json!({"op": "capture_end", "exit_status": 137, "timeout_seconds": 1.0,
               "hint_notes": ["Read it with --root."], "warnings": ["no spill"]}),
    );
    let hint = end["hint"].as_str().unwrap();
    assert_eq!(
        hint,
        "The whole output: 1 line (6 characters). The command was killed at its timeout of 1 second (exit status 137): the output ends there. Read it with --root."
    );
    assert_eq!(end["exit_status"], 137);
    assert!(end["text"].as_str().unwrap().ends_with(hint));
    assert_eq!(end["warnings"], json!(["no spill"]));
    assert_eq!(session.push_output(b"late"), ask_text(&mut session));
}

#[test]
fn a_command_that_exited_before_its_timeout_is_told_in_one_true_sentence() {
    let (_dir, mut session) = session("");
    ask(&mut session, json!({"op": "capture_begin"}));
    session.push_output(b"started a daemon\n");
    let end = ask(
        &mut session,
        json!({"op": "capture_end", "exit_status": 0, "timeout_seconds": 2.0}),
    );
    let hint = end["hint"].as_str().unwrap();
    assert!(!hint.contains("exited with status 0."), "{hint}");
    assert!(
        hint.ends_with(" The command exited with status 0, but a process it started kept the output open until the timeout of 2 seconds killed its process group: the output ends there."),
        "{hint}"
    );
    assert_eq!(end["exit_status"], 0);
}

/// The answer to a chunk with no capture open.
fn ask_text(session: &mut ProtocolSession<NativeFileSystem>) -> String {
    session.answer(r#"{"op":"capture_chunk","text":"late"}"#)
}
