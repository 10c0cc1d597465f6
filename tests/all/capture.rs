//! Issue 14 through the real component: a command's output as head, marker and tail, with the whole stream
//! spilled to a file in the one writable preopen, read back by the ordinary reader at the lines the marker names.

use std::os::unix::fs::PermissionsExt;

use crate::common::{ask, component, read, Sandbox};
use read_window_host::capture::{begin_line, run_command, CaptureEnd};
use read_window_host::{CaptureConfig, Config, Session, SessionLimits};
use serde_json::{json, Value};

const MIB: u64 = 1024 * 1024;

/// The grants of `sandbox` (read-only) with `sandbox/spill` granted read-write.
fn capture_grants(sandbox: &Sandbox) -> read_window_host::Grants {
    std::fs::create_dir_all(sandbox.host("spill")).unwrap();
    sandbox
        .grants()
        .writable_dir(sandbox.host("spill"))
        .unwrap()
}

/// A protocol session over [`capture_grants`].
fn capture_session(sandbox: &Sandbox) -> Session {
    component()
        .protocol_session(
            &capture_grants(sandbox),
            &Config::default(),
            SessionLimits::default(),
        )
        .unwrap()
}

fn spill_config(sandbox: &Sandbox) -> CaptureConfig {
    CaptureConfig {
        spill_dir: Some(sandbox.guest("spill")),
        ..CaptureConfig::default()
    }
}

/// Captures `chunks` with `config` and returns the answer as JSON.
fn capture(
    session: &mut Session,
    config: &CaptureConfig,
    chunks: &[&[u8]],
    exit: Option<i32>,
) -> Value {
    assert_eq!(session.answer(&begin_line(config)), r#"{"status":"ok"}"#);
    for chunk in chunks {
        assert_eq!(session.push_output(chunk), r#"{"status":"ok"}"#);
    }
    let end = CaptureEnd {
        exit_status: exit,
        content: true,
        ..CaptureEnd::default()
    };
    serde_json::from_str(&session.answer(&end.line())).unwrap()
}

/// The lines of a window's content without their `N|` gutters, each with its line break.
fn ungutter(content: &str) -> String {
    content
        .split_inclusive('\n')
        .map(|line| line.split_once('|').map_or(line, |(_, rest)| rest))
        .collect()
}

#[test]
fn output_under_the_window_is_shown_whole_and_nothing_is_spilled() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let answer = capture(
        &mut session,
        &spill_config(&sandbox),
        &[b"Compiling read-window\n", b"Finished dev profile\n"],
        Some(0),
    );
    assert_eq!(
        answer["content"],
        "Compiling read-window\nFinished dev profile\n"
    );
    assert_eq!(answer["total_chars"], 43);
    assert_eq!(answer["total_lines"], 2);
    assert_eq!(answer["total_bytes"], 43);
    assert_eq!(answer["omitted_chars"], 0);
    assert_eq!(answer["omitted_lines"], 0);
    assert!(answer.get("spill_path").is_none());
    assert!(answer.get("spill_error").is_none());
    assert_eq!(answer["spill_capped"], false);
    assert_eq!(answer["exit_status"], 0);
    assert_eq!(
        answer["hint"],
        "The whole output: 2 lines (43 characters). The command exited with status 0."
    );
    assert_eq!(answer["encoding"]["encoding"], "utf8");
    assert_eq!(answer["encoding"]["line_endings"], "lf");
    assert_eq!(std::fs::read_dir(sandbox.host("spill")).unwrap().count(), 0);
}

#[test]
fn a_60556_character_output_keeps_head_and_tail_and_the_spill_holds_the_middle() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    // 2,162 lines of 28 characters, then a last line padded to make 60,556 characters.
    let mut lines: Vec<String> = (1..=2_162)
        .map(|n| format!("line {n:05} of the build log\n"))
        .collect();
    let so_far: usize = lines.iter().map(String::len).sum();
    lines.push(format!("{}\n", "=".repeat(60_556 - so_far - 1)));
    let text: String = lines.concat();
    assert_eq!(text.chars().count(), 60_556);
    let answer = capture(
        &mut session,
        &spill_config(&sandbox),
        &text.as_bytes().chunks(4_096).collect::<Vec<_>>(),
        None,
    );
    // Head: the whole lines within 20,000 characters (40%); tail: the whole lines within the last 30,000.
    let head_lines = 20_000 / 28;
    let head: String = lines[..head_lines].concat();
    let mut tail_len = 0;
    let mut tail_from = lines.len();
    while tail_from > 0 && tail_len + lines[tail_from - 1].len() <= 30_000 {
        tail_from -= 1;
        tail_len += lines[tail_from].len();
    }
    let tail: String = lines[tail_from..].concat();
    let (first, last) = (head_lines + 1, tail_from);
    let omitted = 60_556 - head.len() - tail.len();
    let path = sandbox.guest("spill/capture-1.log");
    let marker = format!(
        "[read-window: {} characters in {} lines omitted (lines {first}-{last} of 2163); they are lines \
         {first}-{last} of the spill {path}]\n",
        grouped(omitted),
        last - first + 1
    );
    assert_eq!(answer["content"], format!("{head}{marker}{tail}"));
    assert_eq!(answer["total_chars"], 60_556);
    assert_eq!(answer["total_lines"], 2_163);
    assert_eq!(answer["omitted_chars"], omitted);
    assert_eq!(answer["omitted_lines"], last - first + 1);
    assert_eq!(answer["omitted_first_line"], first);
    assert_eq!(answer["omitted_last_line"], last);
    assert_eq!(answer["spill_path"], path);
    assert_eq!(
        std::fs::read(sandbox.host("spill/capture-1.log")).unwrap(),
        text.as_bytes()
    );
    assert_eq!(
        answer["hint"],
        format!(
            "Output of 2,163 lines (60,556 characters): showing lines 1-{head_lines} (head) and lines \
             {}-2163 (tail, the end of the output); {} characters in lines {first}-{last} are omitted. \
             Read them from the spill, not by running the command again: path={path} offset={first} limit={}.",
            tail_from + 1,
            grouped(omitted),
            last - first + 1
        )
    );
    // The spill read at the lines the marker named shows exactly the omitted middle.
    let middle = read(
        &mut session,
        &path,
        json!({"offset": first, "limit": last - first + 1}),
    );
    assert_eq!(middle["start_line"], first);
    assert_eq!(middle["end_line"], last);
    assert_eq!(
        ungutter(middle["content"].as_str().unwrap()),
        lines[first - 1..last].concat()
    );
}

fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[test]
fn an_error_line_after_a_20000_character_line_is_in_the_tail() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let long = "x".repeat(20_000);
    let text = format!("{long}\nerror[E0308]: mismatched types\n");
    let config = CaptureConfig {
        window_chars: Some(10_000),
        ..spill_config(&sandbox)
    };
    let answer = capture(&mut session, &config, &[text.as_bytes()], Some(101));
    let content = answer["content"].as_str().unwrap();
    // Head: 4,000 characters of line 1; tail: the last 6,000 characters (the rest of line 1 in part, then line 2).
    let marker = format!(
        "[read-window: 10,032 characters in 1 line omitted (line 1 of 2); they are line 1 of the spill {}]\n",
        sandbox.guest("spill/capture-1.log")
    );
    let expected = format!(
        "{}\n{marker}{}\nerror[E0308]: mismatched types\n",
        "x".repeat(4_000),
        "x".repeat(5_968)
    );
    assert_eq!(content, expected);
    assert_eq!(answer["omitted_chars"], 10_032);
    assert_eq!(answer["omitted_first_line"], 1);
    assert_eq!(answer["omitted_last_line"], 1);
    assert_eq!(answer["exit_status"], 101);
    assert!(answer["hint"]
        .as_str()
        .unwrap()
        .ends_with("The command failed: exit status 101."));
}

#[test]
fn three_million_characters_then_fatal_keeps_fatal_in_the_tail_with_exact_totals() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    // 100,000 lines of 30 characters = 3,000,000 characters, then the FATAL line.
    let line = format!("{:<29}\n", "step ok");
    let body = line.repeat(100_000);
    let fatal = "FATAL: disk quota exceeded\n";
    let chunks: Vec<&[u8]> = body
        .as_bytes()
        .chunks(65_536)
        .chain([fatal.as_bytes()])
        .collect();
    let answer = capture(&mut session, &spill_config(&sandbox), &chunks, Some(1));
    assert_eq!(answer["total_chars"], 3_000_000 + fatal.len());
    assert_eq!(answer["total_bytes"], 3_000_000 + fatal.len());
    assert_eq!(answer["total_lines"], 100_001);
    let content = answer["content"].as_str().unwrap();
    assert!(content.ends_with(&format!("{line}{fatal}")));
    // 666 whole lines of head (19,980 characters), 999 lines of tail plus FATAL.
    assert_eq!(answer["omitted_first_line"], 667);
    assert_eq!(answer["omitted_last_line"], 100_001 - 1_000);
    assert_eq!(
        answer["omitted_chars"],
        3_000_000 + fatal.len() - 666 * 30 - (999 * 30 + fatal.len())
    );
    // The spill holds the raw stream whole (under the 5,000,000-character cap).
    assert_eq!(
        std::fs::metadata(sandbox.host("spill/capture-1.log"))
            .unwrap()
            .len(),
        3_000_000 + fatal.len() as u64
    );
    assert_eq!(answer["spill_capped"], false);
}

#[test]
fn chunks_split_inside_characters_and_crlf_decode_as_one_stream() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let text = "héllo wörld 😀\r\nnext ✓\r\n";
    let bytes = text.as_bytes();
    let whole = capture(&mut session, &spill_config(&sandbox), &[bytes], None);
    // Split inside é (2 bytes), inside 😀 (4 bytes), and between \r and \n.
    let emoji = text.find('😀').unwrap();
    let cr = text.find('\r').unwrap();
    let cuts = [2, emoji + 1, emoji + 3, cr + 1, bytes.len() - 1];
    let mut chunks = Vec::new();
    let mut from = 0;
    for cut in cuts {
        chunks.push(&bytes[from..cut]);
        from = cut;
    }
    chunks.push(&bytes[from..]);
    let split = capture(&mut session, &spill_config(&sandbox), &chunks, None);
    assert_eq!(whole, split);
    assert_eq!(split["content"], "héllo wörld 😀\nnext ✓\n");
    assert_eq!(split["total_chars"], 21);
    assert_eq!(split["total_bytes"], bytes.len());
    assert_eq!(split["encoding"]["line_endings"], "crlf");
    assert_eq!(split["encoding"]["replaced_invalid"], 0);
    assert_eq!(split["collapsed_redraws"], 0);
    // A truncated character at the end is replaced and counted.
    let broken = capture(
        &mut session,
        &spill_config(&sandbox),
        &[b"ok \xf0\x9f"],
        None,
    );
    assert_eq!(broken["content"], "ok \u{fffd}");
    assert_eq!(broken["encoding"]["replaced_invalid"], 1);
}

#[test]
fn a_progress_bar_of_10000_redraws_is_one_line() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let mut bar = b"Downloading\n".to_vec();
    for n in 1..=10_000 {
        bar.extend_from_slice(
            format!("\r[{:<20}] {n}/10000", "#".repeat(n * 20 / 10_000)).as_bytes(),
        );
    }
    bar.extend_from_slice(b"\nDone\n");
    let answer = capture(
        &mut session,
        &spill_config(&sandbox),
        &bar.chunks(1_000).collect::<Vec<_>>(),
        Some(0),
    );
    assert_eq!(
        answer["content"],
        "Downloading\n[####################] 10000/10000\nDone\n"
    );
    assert_eq!(answer["collapsed_redraws"], 10_000);
    assert_eq!(answer["total_lines"], 3);
    assert!(answer["hint"].as_str().unwrap().contains(
        "10,000 carriage-return or erase-line redraws were collapsed to the line's final state."
    ));
    // The output fits the window once cleaned, but redraws were collapsed: the raw stream (every redraw) is
    // spilled so nothing is unreachable.
    assert_eq!(answer["spill_path"], sandbox.guest("spill/capture-1.log"));
    assert_eq!(
        std::fs::read(sandbox.host("spill/capture-1.log")).unwrap(),
        bar
    );
}

#[test]
fn ansi_colours_are_removed_from_the_window_and_kept_in_the_spill() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let mut raw = Vec::new();
    for n in 1..=300 {
        raw.extend_from_slice(
            format!("\x1b[1m\x1b[32m   Compiling\x1b[0m crate{n:03}\n").as_bytes(),
        );
    }
    raw.extend_from_slice(b"\x1b[1;31merror\x1b[0m: could not compile\n");
    let config = CaptureConfig {
        window_chars: Some(1_000),
        ..spill_config(&sandbox)
    };
    let answer = capture(&mut session, &config, &[&raw], Some(101));
    let content = answer["content"].as_str().unwrap();
    assert!(!content.contains('\x1b'));
    assert!(content.starts_with("   Compiling crate001\n"));
    assert!(content.ends_with("   Compiling crate300\nerror: could not compile\n"));
    assert_eq!(answer["total_chars"], 300 * 22 + 25);
    assert_eq!(
        std::fs::read(sandbox.host("spill/capture-1.log")).unwrap(),
        raw
    );
}

#[test]
fn a_read_only_or_ungranted_spill_directory_keeps_the_window_and_says_why() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.host("spill")).unwrap();
    // Granted read-only (the sandbox root only): the preopen refuses the create.
    let mut session = sandbox.default_session();
    let text = "row\n".repeat(20_000);
    let answer = capture(
        &mut session,
        &spill_config(&sandbox),
        &[text.as_bytes()],
        None,
    );
    let error = format!(
        "the spill directory {} is not writable (permission denied; the host must grant it read-write)",
        sandbox.guest("spill")
    );
    assert_eq!(answer["spill_error"], error);
    assert!(answer.get("spill_path").is_none());
    let content = answer["content"].as_str().unwrap();
    assert!(content.starts_with("row\nrow\n"));
    assert!(content.ends_with("row\nrow\n"));
    assert!(content.contains(&format!("; the spill failed: {error}, so they are gone]\n")));
    assert!(answer["hint"]
        .as_str()
        .unwrap()
        .contains("They are gone: the spill failed:"));
    assert_eq!(std::fs::read_dir(sandbox.host("spill")).unwrap().count(), 0);

    // Granted read-write, but the directory's own permissions refuse writes.
    let mut writable = capture_session(&sandbox);
    std::fs::set_permissions(
        sandbox.host("spill"),
        std::fs::Permissions::from_mode(0o555),
    )
    .unwrap();
    let answer = capture(
        &mut writable,
        &spill_config(&sandbox),
        &[text.as_bytes()],
        None,
    );
    std::fs::set_permissions(
        sandbox.host("spill"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let running_as_root = std::fs::write(sandbox.host("spill/probe"), b"").is_ok()
        && std::fs::remove_file(sandbox.host("spill/probe")).is_ok()
        && answer.get("spill_path").is_some();
    if !running_as_root {
        assert!(
            answer["spill_error"]
                .as_str()
                .unwrap()
                .contains("not writable"),
            "{answer}"
        );
    }

    // No spill directory at all.
    let answer = capture(
        &mut session,
        &CaptureConfig::default(),
        &[text.as_bytes()],
        None,
    );
    assert_eq!(answer["spill_error"], "no spill directory was configured");
    // A spill directory outside every preopen.
    let answer = capture(
        &mut session,
        &CaptureConfig {
            spill_dir: Some("/nowhere/spill".into()),
            ..CaptureConfig::default()
        },
        &[text.as_bytes()],
        None,
    );
    assert!(
        answer["spill_error"]
            .as_str()
            .unwrap()
            .contains("/nowhere/spill"),
        "{answer}"
    );
}

#[test]
fn a_link_planted_at_the_spill_name_is_not_followed() {
    let sandbox = Sandbox::new();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let mut session = capture_session(&sandbox);
    std::os::unix::fs::symlink(&victim, sandbox.host("spill/capture-1.log")).unwrap();
    std::os::unix::fs::symlink("dangling-target", sandbox.host("spill/capture-2.log")).unwrap();
    let text = "data\n".repeat(20_000);
    let answer = capture(
        &mut session,
        &spill_config(&sandbox),
        &[text.as_bytes()],
        None,
    );
    assert_eq!(answer["spill_path"], sandbox.guest("spill/capture-3.log"));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(!sandbox.host("spill/dangling-target").exists());
    assert_eq!(
        std::fs::read(sandbox.host("spill/capture-3.log")).unwrap(),
        text.as_bytes()
    );
}

#[test]
fn the_spill_stops_at_its_cap_and_says_which_lines_it_holds() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let config = CaptureConfig {
        window_chars: Some(1_000),
        spill_cap_chars: Some(5_000),
        ..spill_config(&sandbox)
    };
    // 1,000 lines of 10 characters: the spill keeps 5,000 characters, lines 1-500.
    let text: String = (1..=1_000).map(|n| format!("line {n:04}\n")).collect();
    let answer = capture(&mut session, &config, &[text.as_bytes()], None);
    assert_eq!(answer["spill_capped"], true);
    assert_eq!(
        std::fs::read(sandbox.host("spill/capture-1.log")).unwrap(),
        &text.as_bytes()[..5_000]
    );
    let path = sandbox.guest("spill/capture-1.log");
    // Head 400 characters (lines 1-40), tail 600 (lines 941-1000).
    assert_eq!(answer["omitted_first_line"], 41);
    assert_eq!(answer["omitted_last_line"], 940);
    assert!(answer["content"].as_str().unwrap().contains(&format!(
        "[read-window: 9,000 characters in 900 lines omitted (lines 41-940 of 1000); the spill {path} holds them \
         up to line 500 (it stopped at its cap of 5,000 characters); lines after it are gone]"
    )));
    assert!(answer["hint"].as_str().unwrap().contains(&format!(
        "path={path} offset=41 limit=460. The spill holds them only up to line 500"
    )));
}

#[test]
fn session_ops_drive_a_capture_and_the_spill_reads_at_the_marker_lines() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let begin = ask(
        &mut session,
        json!({"op": "capture_begin", "window_chars": 200, "spill_dir": sandbox.guest("spill")}),
    );
    assert_eq!(begin, json!({"status": "ok"}));
    for n in 1..=100 {
        let chunk = ask(
            &mut session,
            json!({"op": "capture_chunk", "text": format!("line {n:04}\n")}),
        );
        assert_eq!(chunk["status"], "ok");
    }
    // Base64 chunks: "end\n" then a split é ("\xc3" "\xa9").
    assert_eq!(
        ask(
            &mut session,
            json!({"op": "capture_chunk", "base64": "ZW5kCsM="})
        )["status"],
        "ok"
    );
    assert_eq!(
        ask(
            &mut session,
            json!({"op": "capture_chunk", "base64": "qQ=="})
        )["status"],
        "ok"
    );
    let end = ask(
        &mut session,
        json!({"op": "capture_end", "exit_status": 2, "content": true}),
    );
    assert_eq!(end["exit_status"], 2);
    assert_eq!(end["omitted_first_line"], 9);
    assert_eq!(end["omitted_last_line"], 89);
    assert!(end["content"]
        .as_str()
        .unwrap()
        .ends_with("line 0100\nend\né"));
    let spill = end["spill_path"].as_str().unwrap().to_owned();
    let at_marker = read(&mut session, &spill, json!({"offset": 9, "limit": 1}));
    assert_eq!(at_marker["content"], "9|line 0009\n");
    assert_eq!(at_marker["total_lines"], 102);
    // Bad input: a chunk with no capture open, both text and base64, a bad exit status, an unknown field.
    let none = ask(&mut session, json!({"op": "capture_chunk", "text": "x"}));
    assert_eq!(none["error"]["kind"], "invalid_request");
    assert_eq!(
        none["error"]["message"],
        "no capture is open; send capture_begin first."
    );
    let both = ask(
        &mut session,
        json!({"op": "capture_chunk", "text": "x", "base64": "eA=="}),
    );
    assert_eq!(
        both["error"]["message"],
        "give `text` or `base64`, not both"
    );
    let bad_exit = ask(
        &mut session,
        json!({"op": "capture_end", "exit_status": "one"}),
    );
    assert_eq!(
        bad_exit["error"]["message"],
        "`exit_status` must be a 32-bit integer, not \"one\""
    );
    let unknown = ask(&mut session, json!({"op": "capture_begin", "window": 5}));
    assert_eq!(unknown["error"]["kind"], "invalid_request");
    let bad_base64 = ask(&mut session, json!({"op": "capture_chunk", "base64": "!!"}));
    assert_eq!(bad_base64["error"]["kind"], "invalid_request");
    // An invalid window is replaced by the default with a warning for the host.
    ask(
        &mut session,
        json!({"op": "capture_begin", "window_chars": 5}),
    );
    let warned = ask(&mut session, json!({"op": "capture_end"}));
    assert_eq!(
        warned["warnings"],
        json!([
            "config window-chars 5 is invalid (from 200 to 10000000); using the default 50000."
        ])
    );
    assert_eq!(warned["exit_status"], Value::Null);
    assert_eq!(warned["total_lines"], 0);
}

#[test]
fn run_reports_a_failing_commands_exit_status_and_interleaved_output() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let result = run_command(
        &mut session,
        &spill_config(&sandbox),
        "sh",
        &[
            "-c".into(),
            "echo building; echo 'error: boom' >&2; sleep 0.05; echo after; exit 3".into(),
        ],
        None,
        CaptureEnd::default(),
    )
    .unwrap();
    let result: Value = serde_json::from_str(&result).unwrap();
    assert_eq!(result["exit_status"], 3);
    // The window once, in the text: the output, a blank line, the hint.
    assert_eq!(result["content"], Value::Null);
    assert!(result["text"]
        .as_str()
        .unwrap()
        .starts_with("building\nerror: boom\nafter\n\n"));
    assert!(result["hint"]
        .as_str()
        .unwrap()
        .ends_with("The command failed: exit status 3."));
    let missing = run_command(
        &mut session,
        &spill_config(&sandbox),
        "no-such-command-h5",
        &[],
        None,
        CaptureEnd::default(),
    );
    assert!(missing.is_err());
}

/// Pushes `blocks` blocks of 64 KiB (1,024 lines of 64 characters) and an error line; checks the totals, the last
/// line and the peak linear memory.
fn stream_in_bounded_memory(blocks: u64) {
    let sandbox = Sandbox::new();
    // The typed `capture` resource, as an embedder drives it.
    let mut session = component()
        .session(&capture_grants(&sandbox), Config::default())
        .unwrap();
    session.capture_begin(&spill_config(&sandbox)).unwrap();
    let block: Vec<u8> = (0..1_024)
        .flat_map(|n| format!("{:<63}\n", format!("compiling unit {n}")).into_bytes())
        .collect();
    assert_eq!(block.len(), 65_536);
    for _ in 0..blocks {
        session.capture_chunk(&block).unwrap().unwrap();
    }
    session
        .capture_chunk(b"error: the last line\n")
        .unwrap()
        .unwrap();
    let result = session.capture_end(Some(1)).unwrap().unwrap();
    assert_eq!(result.total_bytes, blocks * 65_536 + 21);
    assert_eq!(result.total_lines, blocks * 1_024 + 1);
    assert!(result.content().ends_with(
        "compiling unit 1023                                            \nerror: the last line\n"
    ));
    assert!(result.spill_capped);
    assert_eq!(
        std::fs::metadata(sandbox.host("spill/capture-1.log"))
            .unwrap()
            .len(),
        5_000_000
    );
    let peak = session.peak_memory_bytes();
    eprintln!("peak linear memory {peak} bytes");
    assert!(peak < 16 * MIB, "peak linear memory {peak} bytes");
}

#[test]
fn a_1_gb_stream_passes_in_bounded_memory() {
    let started = std::time::Instant::now();
    stream_in_bounded_memory(16_384);
    eprintln!("1 GiB in {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn the_cli_captures_stdin_and_runs_a_failing_command() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let sandbox = Sandbox::new();
    let cli = env!("CARGO_BIN_EXE_read-window");
    let mut child = Command::new(cli)
        .args([
            "--root",
            sandbox.root.to_str().unwrap(),
            "capture",
            "--spill-dir",
        ])
        .arg(sandbox.host(".spill"))
        .args(["--window", "200", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let text: String = (1..=100).map(|n| format!("line {n:04}\n")).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    let spill = sandbox.guest(".spill/capture-1.log");
    assert_eq!(answer["spill_path"], spill);
    assert_eq!(answer["omitted_first_line"], 9);
    assert_eq!(answer["omitted_last_line"], 88);
    assert_eq!(
        std::fs::read(sandbox.host(".spill/capture-1.log")).unwrap(),
        text.as_bytes()
    );
    // The spill directory was granted read-write for the capture alone: the root stays read-only.
    assert!(answer["text"].as_str().unwrap().contains("line 0100\n\n"));

    let output = Command::new(cli)
        .args(["--root", sandbox.root.to_str().unwrap(), "run", "--spill-dir"])
        .arg(sandbox.host(".spill"))
        .args(["--window", "200", "--", "sh", "-c"])
        .arg("for i in $(seq 1 100); do echo \"step $i\"; done; echo 'error: failed at the end' >&2; exit 4")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    let text = String::from_utf8(output.stdout).unwrap();
    let spill = sandbox.guest(".spill/capture-2.log");
    assert!(text.starts_with("step 1\nstep 2\n"), "{text}");
    assert!(text.contains(&format!("of the spill {spill}]\n")), "{text}");
    assert!(
        text.contains("step 100\nerror: failed at the end\n\nOutput of 101 lines"),
        "{text}"
    );
    assert!(
        text.trim_end()
            .ends_with("The command failed: exit status 4."),
        "{text}"
    );

    let usage = Command::new(cli)
        .args(["capture", "--spill-dir"])
        .arg(sandbox.host(".spill"))
        .args(["--window", "5"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&usage.stderr),
        "read-window: --window 5 is out of range (200 to 10000000)\n"
    );
}

#[test]
fn the_cli_session_spills_to_its_spill_dir_and_reads_the_spill_at_the_marker_lines() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let sandbox = Sandbox::new();
    let cli = env!("CARGO_BIN_EXE_read-window");
    let mut child = Command::new(cli)
        .args([
            "--root",
            sandbox.root.to_str().unwrap(),
            "session",
            "--spill-dir",
        ])
        .arg(sandbox.host(".spill"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let text: String = (1..=100).map(|n| format!("line {n:04}\n")).collect();
    let spill = sandbox.guest(".spill/capture-1.log");
    let requests = [
        json!({"op": "capture_begin", "window_chars": 200}),
        json!({"op": "capture_chunk", "text": text}),
        json!({"op": "capture_end", "exit_status": 0}),
        json!({"op": "read", "path": spill, "offset": 9, "limit": 2, "content": true}),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for request in &requests {
        writeln!(stdin, "{request}").unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let answers: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 4, "{answers:?}");
    // No spill_dir in capture_begin: the session's one writable grant takes the spill.
    assert_eq!(answers[2]["spill_path"], spill, "{}", answers[2]);
    assert_eq!(answers[2]["omitted_first_line"], 9);
    assert_eq!(answers[3]["content"], "9|line 0009\n10|line 0010\n");
}

/// A capture config with a 200-character window (head 80, tail 120) spilling to `sandbox/spill`.
fn small_config(sandbox: &Sandbox, cap: Option<u64>) -> CaptureConfig {
    CaptureConfig {
        window_chars: Some(200),
        spill_cap_chars: cap,
        ..spill_config(sandbox)
    }
}

#[test]
fn a_cr_separated_output_is_split_and_collapsed_redraws_are_spilled() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let config = small_config(&sandbox, None);
    // No `\n` anywhere: the carriage returns separate records, as in a classic Mac OS file.
    let answer = capture(
        &mut session,
        &config,
        &[b"name,age\rAlice,30\r", b"Bob,41\rCarol,22\r"],
        None,
    );
    assert_eq!(answer["content"], "name,age\nAlice,30\nBob,41\nCarol,22\n");
    assert_eq!(
        (
            answer["total_lines"].clone(),
            answer["collapsed_redraws"].clone()
        ),
        (json!(4), json!(0))
    );
    assert_eq!(answer["encoding"]["line_endings"], "cr");
    assert_eq!(answer.get("spill_path"), None);
    // Redraws before a `\n`: the window keeps the final state, the raw stream is spilled although it fits.
    let answer = capture(&mut session, &config, &[b"step 1\rstep 2\rdone\n"], Some(0));
    let spill = sandbox.guest("spill/capture-1.log");
    assert_eq!(answer["content"], "done\n");
    assert_eq!(answer["spill_path"], spill);
    assert_eq!(
        answer["hint"],
        format!(
            "The output after redraws were collapsed: 1 line (5 characters); 2 carriage-return or erase-line \
             redraws were collapsed to the line's final state. The raw output, every redraw included, is in \
             {spill} (offset=1). The command exited with status 0."
        )
    );
    assert_eq!(
        std::fs::read(sandbox.host("spill/capture-1.log")).unwrap(),
        b"step 1\rstep 2\rdone\n"
    );
}

#[test]
fn erase_line_spinners_collapse_and_string_sequences_are_removed_whole() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let answer = capture(
        &mut session,
        &small_config(&sandbox, None),
        &[
            b"\x1b[2K\x1b[1G- fetch\x1b[2K\x1b[1G\\ fetch\x1b[2K\x1b[G",
            b"added 3 packages\nx\x1bPq#0;2;0;0;0~~\x1b\\y\x1b_apc\x1b\\z\x1b]8;;http://e\x07!\n",
        ],
        None,
    );
    assert_eq!(answer["content"], "added 3 packages\nxyz!\n");
    assert_eq!(answer["collapsed_redraws"], 2);
}

#[test]
fn a_binary_output_is_one_line_and_spilled_for_a_binary_tool() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let mut bytes = b"\x7fELF\x02\x01\x01\x00".to_vec();
    bytes.resize(20_000, 0);
    let answer = capture(
        &mut session,
        &small_config(&sandbox, None),
        &[&bytes[..5_000], &bytes[5_000..]],
        Some(0),
    );
    let spill = sandbox.guest("spill/capture-1.log");
    assert_eq!(
        answer["content"],
        format!(
            "[read-window: the output is binary (ELF executable or library), 20,000 bytes; it is in the spill \
             {spill}, for a binary tool (file, xxd), not the reader]\n"
        )
    );
    assert_eq!(
        (
            answer["total_chars"].clone(),
            answer["total_bytes"].clone(),
            answer["omitted_chars"].clone()
        ),
        (json!(0), json!(20_000), json!(0))
    );
    assert_eq!(
        std::fs::read(sandbox.host("spill/capture-1.log")).unwrap(),
        bytes
    );
}

#[test]
fn the_cap_names_the_spills_last_line_on_a_boundary_and_inside_a_line() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let config = small_config(&sandbox, Some(1_000));
    // 400 lines of 5 characters: the cap of 1,000 falls right after line 200.
    let answer = capture(
        &mut session,
        &config,
        &["abcd\n".repeat(400).as_bytes()],
        None,
    );
    let spill = sandbox.guest("spill/capture-1.log");
    assert!(answer["content"].as_str().unwrap().contains(&format!(
        "[read-window: 1,800 characters in 360 lines omitted (lines 17-376 of 400); the spill {spill} holds them \
         up to line 200 (it stopped at its cap of 1,000 characters); lines after it are gone]"
    )));
    let last = read(&mut session, &spill, json!({"offset": 200}));
    assert_eq!(last["content"], "200|abcd\n");
    assert_eq!(last["total_lines"], 200);
    // 3-character lines: the cap falls after line 333 and one character of line 334.
    let answer = capture(
        &mut session,
        &config,
        &["ab\n".repeat(500).as_bytes()],
        None,
    );
    let spill = sandbox.guest("spill/capture-2.log");
    assert!(answer["hint"].as_str().unwrap().contains(
        "The spill holds them only up to line 334 (cut short: the spill ends inside it) (it stopped at its cap of \
         1,000 characters)."
    ));
    let last = read(&mut session, &spill, json!({"offset": 334}));
    assert_eq!(last["content"], "334|a\n");
}

#[test]
fn a_single_line_over_the_window_gives_the_column_its_omitted_middle_starts_at() {
    let sandbox = Sandbox::new();
    let mut session = capture_session(&sandbox);
    let line: String = (0..1_000)
        .map(|n| char::from(b'a' + (n % 26) as u8))
        .collect();
    let answer = capture(
        &mut session,
        &small_config(&sandbox, None),
        &[line.as_bytes()],
        None,
    );
    let spill = sandbox.guest("spill/capture-1.log");
    assert_eq!(
        answer["hint"],
        format!(
            "Output of 1 line (1,000 characters): showing line 1 (head) and line 1 (tail, the end of the output); \
             800 characters in line 1 are omitted. Read them from the spill, not by running the command again: \
             path={spill} offset=1 column=80 limit=1."
        )
    );
    // The head is the line's first 80 characters; the reader continues at column 80, character 80 of the line.
    let middle = read(
        &mut session,
        &spill,
        json!({"offset": 1, "column": 80, "limit": 1}),
    );
    let content = middle["content"].as_str().unwrap();
    assert!(
        content.starts_with(&format!("1|{}", &line[80..100])),
        "{content}"
    );
}

#[test]
fn the_cli_keeps_the_window_without_a_spill_dir_and_run_reports_spawn_failures_signals_and_timeouts(
) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let sandbox = Sandbox::new();
    let cli = env!("CARGO_BIN_EXE_read-window");
    let root = sandbox.root.to_str().unwrap();
    sandbox.write("not-a-dir", "x");
    // `capture` with a spill directory that cannot be made: the piped output is still windowed.
    let mut child = Command::new(cli)
        .args(["--root", root, "capture", "--json", "--spill-dir"])
        .arg(sandbox.host("not-a-dir"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"1\n2\n3\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(answer["text"].as_str().unwrap().starts_with("1\n2\n3\n\n"));
    let warning = answer["warnings"][0].as_str().unwrap();
    assert!(
        warning.starts_with(&format!(
            "--spill-dir {}: cannot create it:",
            sandbox.host("not-a-dir").display()
        )),
        "{warning}"
    );

    // A command that does not exist: a JSON error naming it, exit 127.
    let spill = sandbox.host("spill");
    let output = Command::new(cli)
        .args(["--root", root, "run", "--json", "--spill-dir"])
        .arg(&spill)
        .args(["--", "no-such-command-h11"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(127));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        answer,
        json!({"status": "error", "content_returned": false, "text": "command not found: no-such-command-h11",
               "error": {"kind": "not_found", "command": "no-such-command-h11",
                         "message": "command not found: no-such-command-h11"}})
    );

    // Killed by a signal: the hint names it.
    let output = Command::new(cli)
        .args(["--root", root, "run", "--spill-dir"])
        .arg(&spill)
        .args(["--", "sh", "-c", "echo before; kill -9 $$"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(137));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "before\n\nThe whole output: 1 line (7 characters). The command failed: exit status 137, killed by signal 9 \
         (SIGKILL).\n"
    );

    // A background child holding the output open: --timeout kills the group and says so.
    let started = std::time::Instant::now();
    let output = Command::new(cli)
        .args(["--root", root, "run", "--timeout", "0.5", "--spill-dir"])
        .arg(&spill)
        .args(["--", "sh", "-c", "echo hi; (sleep 30 &); sleep 30"])
        .output()
        .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(137));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "hi\n\nThe whole output: 1 line (3 characters). The command was killed at its timeout of 0.5 seconds (exit \
         status 137): the output ends there.\n"
    );

    // The command exits at once, but a child it started holds the output open: one true sentence, not "exited
    // with status 0" and "was killed" both.
    let output = Command::new(cli)
        .args(["--root", root, "run", "--timeout", "0.5", "--spill-dir"])
        .arg(&spill)
        .args(["--", "sh", "-c", "echo hi; (sleep 30 &)"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "hi\n\nThe whole output: 1 line (3 characters). The command exited with status 0, but a process it started \
         kept the output open until the timeout of 0.5 seconds killed its process group: the output ends there.\n"
    );

    // The command reads the CLI's stdin.
    let mut child = Command::new(cli)
        .args(["--root", root, "run", "--spill-dir"])
        .arg(&spill)
        .args(["--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"piped\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "piped\n\nThe whole output: 1 line (6 characters). The command exited with status 0.\n"
    );

    // A spill directory under no --root: the hint says how to read the spill.
    let outside = tempfile::tempdir().unwrap();
    let outside_dir = outside.path().canonicalize().unwrap();
    let output = Command::new(cli)
        .args(["--root", root, "run", "--window", "200", "--spill-dir"])
        .arg(&outside_dir)
        .args(["--", "seq", "1", "300"])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.trim_end().ends_with(&format!(
            "The command exited with status 0. The spill directory is under no --root: read the spill with \
             `read-window --root {} read PATH` (the spill path stays the same).",
            outside_dir.display()
        )),
        "{text}"
    );

    // Output that fits the window writes no spill: the hint names none, and says nothing of its directory.
    let output = Command::new(cli)
        .args(["--root", root, "run", "--spill-dir"])
        .arg(&outside_dir)
        .args(["--", "echo", "short"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "short\n\nThe whole output: 1 line (6 characters). The command exited with status 0.\n"
    );
}
