//! `wasmtime run --invoke` calls `read-once` of the same component, as docs/hosts.md shows. The wasmtime CLI is
//! optional (`cargo install wasmtime-cli`); without one on PATH (or at `READ_WINDOW_WASMTIME`) this test says so
//! and checks nothing else.

use std::path::PathBuf;
use std::process::Command;

/// The invocation docs/hosts.md shows: the config record empty (`{:}` in WAVE), the request naming a file under the
/// directory mounted at `/d`.
const INVOKE: &str =
    r#"read-window:reader/reader.read-once@0.3.0({:}, {path: "/d/a.txt", limit: some(1)})"#;

fn wasmtime_cli() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("READ_WINDOW_WASMTIME") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("wasmtime"))
        .find(|candidate| candidate.is_file())
}

#[test]
fn wasmtime_run_invoke_reads_one_window() {
    let Some(wasmtime) = wasmtime_cli() else {
        eprintln!("no wasmtime CLI on PATH: `wasmtime run --invoke` was not tried (cargo install wasmtime-cli)");
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("a.txt"), "alpha\nbeta\n").expect("fixture written");
    let output = Command::new(&wasmtime)
        .arg("run")
        .arg("--dir")
        .arg(format!("{}::/d", dir.path().display()))
        .arg("--invoke")
        .arg(INVOKE)
        .arg(read_window_host::COMPONENT_PATH)
        .output()
        .expect("the wasmtime CLI runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "wasmtime exited with {}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.starts_with("ok("), "{stdout}");
    assert!(stdout.contains("content-bytes: 8,"), "{stdout}");
    assert!(stdout.contains(r#"text: "1|alpha\n\nShowing"#), "{stdout}");
    assert!(stdout.contains("next-offset: some(2)"), "{stdout}");
    assert!(stdout.contains("total-lines: 2"), "{stdout}");
}
