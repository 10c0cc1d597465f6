//! Fixtures shared by the scenario tests: the component loaded once per test binary, a temporary directory
//! granted as a preopen, and helpers that speak the CLI's JSON Lines protocol.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use read_window_host::{Config, Grants, ReadWindow, Session, SessionLimits};
use serde_json::Value;

/// The component, compiled (or loaded from the disk cache) once per test binary.
pub fn component() -> &'static ReadWindow {
    static COMPONENT: OnceLock<ReadWindow> = OnceLock::new();
    COMPONENT
        .get_or_init(|| ReadWindow::load().expect("the component built by host/build.rs loads"))
}

/// The case count of a property test through the component whose usual count is `default`:
/// `$READ_WINDOW_FUZZ_CASES` when it is set to a whole number, else `$PROPTEST_CASES`, else `default`. The fixed
/// counts keep `cargo test` fast; a long run sets the variable (`READ_WINDOW_FUZZ_CASES=20000 cargo test --release
/// -p read-window-host --test all guards::`).
pub fn fuzz_cases(default: u32) -> u32 {
    ["READ_WINDOW_FUZZ_CASES", "PROPTEST_CASES"]
        .iter()
        .find_map(|name| std::env::var(name).ok()?.trim().parse().ok())
        .unwrap_or(default)
}

/// A temporary directory granted to the component at its canonical path.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    /// The canonical host path, which is also the guest path.
    pub root: PathBuf,
}

impl Sandbox {
    /// A new empty sandbox.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        Sandbox { _dir: dir, root }
    }

    /// The guest path of `name` inside the sandbox.
    pub fn guest(&self, name: &str) -> String {
        format!("{}/{name}", self.root.display())
    }

    /// Writes `bytes` to `name` (creating parent directories) and returns its guest path.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let path = self.root.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("parent directories");
        }
        std::fs::write(&path, bytes).expect("fixture written");
        self.guest(name)
    }

    /// The host path of `name`.
    pub fn host(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// The grants of this sandbox (its root only).
    pub fn grants(&self) -> Grants {
        Grants::new().dir(&self.root).expect("grant the sandbox")
    }

    /// A protocol session (JSON lines, [`ask`]) over this sandbox with `config`.
    pub fn session(&self, config: Config) -> Session {
        component()
            .protocol_session(&self.grants(), &config, SessionLimits::default())
            .expect("a session starts")
    }

    /// A typed session (the WIT `reader` interface's methods) over this sandbox with `config`.
    pub fn typed_session(&self, config: Config) -> Session {
        component()
            .session(&self.grants(), config)
            .expect("a session starts")
    }

    /// A session with the default config.
    pub fn default_session(&self) -> Session {
        self.session(Config::default())
    }
}

/// Sends one JSON Lines request to `session` and returns the answer.
pub fn ask(session: &mut Session, request: Value) -> Value {
    let answer = session.answer(&request.to_string());
    serde_json::from_str(&answer)
        .unwrap_or_else(|e| panic!("the answer is not JSON ({e}): {answer}"))
}

/// One counter of the session's `stats` answer (`positioned_reads`, `index_bytes`, ...).
pub fn stat(session: &mut Session, counter: &str) -> u64 {
    let answer = ask(session, serde_json::json!({"op": "stats"}));
    answer[counter]
        .as_u64()
        .unwrap_or_else(|| panic!("no {counter} in {answer}"))
}

/// Reads `path` with the JSON protocol: `{"op":"read","path":...,"content":true}` (the window on its own, for
/// the tests to check) plus `extra` fields.
pub fn read(session: &mut Session, path: &str, extra: Value) -> Value {
    let mut request = serde_json::json!({"op": "read", "path": path, "content": true});
    if let (Some(fields), Value::Object(more)) = (request.as_object_mut(), extra) {
        fields.extend(more);
    }
    ask(session, request)
}

/// The error kind of an answer, or "" when it is not an error.
pub fn error_kind(answer: &Value) -> &str {
    answer["error"]["kind"].as_str().unwrap_or("")
}

/// Whether `path` exists on the host.
pub fn exists(path: &Path) -> bool {
    path.exists()
}

/// Runs `command` (a `read-window ... session`) with `lines` on stdin, one request a line: its output and the
/// answers, one JSON value a line of stdout.
pub fn session_answers(
    mut command: std::process::Command,
    lines: &[String],
) -> (std::process::Output, Vec<Value>) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let answers = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (output, answers)
}
