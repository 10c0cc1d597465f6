//! The document store across processes: a second `read-window` process windows a PDF from the extraction the
//! first one kept, byte for byte, without extracting it; a damaged entry is extracted again; the store is off
//! when asked or when its directory is not private.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::common::Sandbox;

/// A 40-page text PDF, the one the documents scenarios read.
fn report_pdf() -> Vec<u8> {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/scenarios/documents/a_short_window_of_a_long_document_gets_a_short_map.json"
    );
    let scenario: serde_json::Value =
        serde_json::from_slice(&std::fs::read(scenario).unwrap()).unwrap();
    let encoded = scenario["files"]["report.pdf"]["base64"].as_str().unwrap();
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap()
}

/// A private cache home (mode 0700), as `XDG_CACHE_HOME`.
fn cache_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    home
}

/// One `read-window session` process over `sandbox` with the cache home `home`: a read of lines 1-5 of `pdf`,
/// then `stats`. Returns the read's answer and the stats.
fn read_then_stats(
    sandbox: &Sandbox,
    home: &Path,
    pdf: &str,
    env: &[(&str, &str)],
) -> (serde_json::Value, serde_json::Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_read-window"));
    command
        .args(["--root", &sandbox.root.display().to_string(), "session"])
        .env("XDG_CACHE_HOME", home)
        .env_remove("READ_WINDOW_DOCUMENT_CACHE")
        .env_remove("READ_WINDOW_WASM")
        .envs(env.iter().copied());
    let requests = [
        format!("{{\"op\":\"read\",\"path\":\"{pdf}\",\"limit\":5}}"),
        "{\"op\":\"stats\"}".to_string(),
    ];
    let (output, answers) = crate::common::session_answers(command, &requests);
    assert_eq!(output.status.code(), Some(0));
    (answers[0].clone(), answers[1].clone())
}

/// The counters a test checks: (`documents_extracted`, `documents_from_store`).
fn counts(stats: &serde_json::Value) -> (u64, u64) {
    (
        stats["documents_extracted"].as_u64().unwrap(),
        stats["documents_from_store"].as_u64().unwrap(),
    )
}

/// The entries under `<home>/read-window/documents/` (each build's directory, then its files).
fn entries(home: &Path) -> Vec<PathBuf> {
    let documents = home.join("read-window").join("documents");
    let mut found = Vec::new();
    for build in std::fs::read_dir(documents).into_iter().flatten().flatten() {
        for entry in std::fs::read_dir(build.path()).unwrap().flatten() {
            found.push(entry.path());
        }
    }
    found
}

#[test]
fn a_second_process_windows_the_stored_extraction_byte_for_byte_and_a_damaged_entry_is_redone() {
    let sandbox = Sandbox::new();
    let bytes = report_pdf();
    let pdf = sandbox.write("report.pdf", &bytes);
    let home = cache_home();

    let (first, stats) = read_then_stats(&sandbox, home.path(), &pdf, &[]);
    assert!(
        first["text"]
            .as_str()
            .unwrap()
            .starts_with("1|--- page 1 of 40 ---\n"),
        "{first}"
    );
    assert_eq!(counts(&stats), (1, 0));
    let stored = entries(home.path());
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(
        stored[0].file_name().unwrap().to_str().unwrap(),
        format!("{digest}.pdf.extracted")
    );

    let (second, stats) = read_then_stats(&sandbox, home.path(), &pdf, &[]);
    assert_eq!(second, first);
    assert_eq!(counts(&stats), (0, 1));

    let mut damaged = std::fs::read(&stored[0]).unwrap();
    damaged.truncate(damaged.len() - 10);
    std::fs::write(&stored[0], &damaged).unwrap();
    let (third, stats) = read_then_stats(&sandbox, home.path(), &pdf, &[]);
    assert_eq!(third, first);
    assert_eq!(counts(&stats), (1, 0));
    assert!(
        std::fs::read(&stored[0]).unwrap().len() > damaged.len(),
        "written again"
    );

    let (off, stats) = read_then_stats(
        &sandbox,
        home.path(),
        &pdf,
        &[("READ_WINDOW_DOCUMENT_CACHE", "off")],
    );
    assert_eq!(off, first);
    assert_eq!(counts(&stats), (1, 0));
}

#[test]
fn a_documents_directory_others_can_write_is_not_used() {
    let sandbox = Sandbox::new();
    let pdf = sandbox.write("report.pdf", report_pdf());
    let home = cache_home();
    let documents = home.path().join("read-window").join("documents");
    std::fs::create_dir_all(&documents).unwrap();
    std::fs::set_permissions(
        home.path().join("read-window"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    std::fs::set_permissions(&documents, std::fs::Permissions::from_mode(0o777)).unwrap();
    for _ in 0..2 {
        let (answer, stats) = read_then_stats(&sandbox, home.path(), &pdf, &[]);
        assert_eq!(answer["status"], "ok", "{answer}");
        assert_eq!(counts(&stats), (1, 0));
    }
    assert_eq!(entries(home.path()), Vec::<PathBuf>::new());
}

#[test]
fn configure_cannot_name_a_document_cache() {
    let sandbox = Sandbox::new();
    let mut session = sandbox.session(read_window_host::Config::default());
    let answer = crate::common::ask(
        &mut session,
        serde_json::json!({"op": "configure", "document_cache_dir": sandbox.root.display().to_string()}),
    );
    assert_eq!(answer["error"]["kind"], "invalid_request");
    assert_eq!(
        answer["error"]["message"],
        "`document_cache_dir` is given by the host when the session starts; `configure` cannot change it"
    );
}

#[test]
fn a_config_file_cannot_name_a_document_cache() {
    let sandbox = Sandbox::new();
    let text = sandbox.write("a.txt", "a\n");
    let config = sandbox.write(
        "rw.json",
        format!("{{\"document_cache_dir\": \"{}\"}}", sandbox.root.display()),
    );
    let output = Command::new(env!("CARGO_BIN_EXE_read-window"))
        .args([
            "--root",
            &sandbox.root.display().to_string(),
            "--config",
            &config,
            "read",
            &text,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "--config {config}: `document_cache_dir` is the host's to give (the document cache under the cache \
             directory, turned off with READ_WINDOW_DOCUMENT_CACHE=off), not a config file's"
        )),
        "{stderr}"
    );
}

#[test]
fn a_read_only_grant_named_as_the_store_stays_a_root_with_a_warning() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\n");
    let root = sandbox.root.display().to_string();
    let config = read_window_host::Config {
        document_cache_dir: Some(root.clone()),
        ..read_window_host::Config::default()
    };
    let mut session = sandbox.session(config);
    let answer = crate::common::ask(
        &mut session,
        serde_json::json!({"op": "read", "path": path, "content": true}),
    );
    assert_eq!(answer["content"], "1|one\n", "{answer}");
    assert_eq!(
        answer["warnings"],
        serde_json::json!([format!(
            "document_cache_dir {root:?} is not a directory the host granted read-write, so no document cache is kept"
        )])
    );
}
