//! File generation: the source file, the logs and the one-line JSON the sections read.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A directory removed when dropped.
pub(super) struct TempDir(pub(super) PathBuf);

impl TempDir {
    /// A new directory `read-window-bench-PID-NANOS` under `base` (default: the system temp directory); panics
    /// (a fixture error) when it cannot be made.
    pub(super) fn create(base: Option<&Path>) -> Self {
        let base = base.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = base.join(format!("read-window-bench-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        TempDir(path.canonicalize().unwrap_or(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(super) struct Fixture {
    pub(super) host: PathBuf,
    pub(super) guest: String,
    pub(super) bytes: u64,
    pub(super) lines: u64,
}

pub(super) fn fixture(dir: &TempDir, name: &str, lines: u64) -> Fixture {
    let host = dir.0.join(name);
    // Flush the file to disk now, so background writeback does not run during the timings.
    File::open(&host)
        .and_then(|file| file.sync_all())
        .unwrap_or_else(|e| panic!("sync {}: {e}", host.display()));
    let bytes = std::fs::metadata(&host).map(|m| m.len()).unwrap_or(0);
    Fixture {
        guest: host.to_string_lossy().into_owned(),
        host,
        bytes,
        lines,
    }
}

/// Directories above the deep copy of the source file.
pub(super) const DEEP_DIRECTORIES: usize = 5;

/// A copy of `source` [`DEEP_DIRECTORIES`] directories down (`deep/a/b/c/d/`).
pub(super) fn write_deep_source(dir: &TempDir, source: &Fixture) -> Fixture {
    let deep = dir.0.join("deep/a/b/c/d");
    std::fs::create_dir_all(&deep).unwrap_or_else(|e| panic!("mkdir {}: {e}", deep.display()));
    let name = source.host.file_name().unwrap_or_default();
    std::fs::copy(&source.host, deep.join(name))
        .unwrap_or_else(|e| panic!("copy {}: {e}", source.host.display()));
    let relative = deep.join(name);
    let relative = relative.strip_prefix(&dir.0).unwrap_or(&relative);
    fixture(dir, &relative.to_string_lossy(), source.lines)
}

pub(super) fn write_source(dir: &TempDir) -> Fixture {
    let mut lines: Vec<String> = vec![
        "//! A generated sample source file for read-window-bench.".into(),
        String::new(),
        "use std::collections::HashMap;".into(),
        String::new(),
    ];
    let mut n = 0;
    while lines.len() < 99 {
        lines.push(if n % 12 == 0 {
            format!("pub fn step_{n}(table: &mut HashMap<String, u64>, input: &[u8]) -> u64 {{")
        } else if n % 12 == 11 {
            "}".into()
        } else {
            format!(
                "    let value_{n} = input.iter().map(|b| u64::from(*b) * {n}).sum::<u64>(); table.insert(\"k{n}\".into(), value_{n});"
            )
        });
        n += 1;
    }
    lines.push("// end of sample".into());
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(dir.0.join("sample.rs"), text).expect("write sample.rs");
    fixture(dir, "sample.rs", lines.len() as u64)
}

/// One log line of exactly 100 bytes (the line feed included) for line `n` (1-based).
pub(super) fn log_line(n: u64, line: &mut Vec<u8>) {
    line.clear();
    let seconds = n / 7;
    let level = match n % 53 {
        0 => "ERROR",
        1..=5 => "WARN ",
        _ => "INFO ",
    };
    // 24 (timestamp) + 6 (level) + 11 (worker) + 27 (request) + 11 (status) + 11 (bytes) + 9 (duration) = 99,
    // then the line feed.
    let _ = writeln!(
        line,
        "2026-11-29T{:02}:{:02}:{:02}.{:03}Z {level} worker-{:03} GET /api/v1/items/{:08} status=200 bytes={:04} dur={:04}",
        (seconds / 3600) % 24,
        (seconds / 60) % 60,
        seconds % 60,
        (n * 137) % 1000,
        n % 16,
        n % 100_000_000,
        (n * 7919) % 10_000,
        (n * 31) % 10_000,
    );
    debug_assert_eq!(line.len(), 100);
}

pub(super) fn write_log(dir: &TempDir, name: &str, lines: u64) -> Fixture {
    let path = dir.0.join(name);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&path).expect("create log"));
    let mut line = Vec::with_capacity(128);
    for n in 1..=lines {
        log_line(n, &mut line);
        out.write_all(&line).expect("write log");
    }
    out.flush().expect("flush log");
    drop(out);
    fixture(dir, name, lines)
}

pub(super) fn write_json_one_liner(dir: &TempDir, target_bytes: u64) -> Fixture {
    let path = dir.0.join("one-line.json");
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&path).expect("create json"));
    let mut written = 0u64;
    let mut record = String::with_capacity(160);
    out.write_all(b"[").expect("write json");
    written += 1;
    let mut n = 0u64;
    while written + 2 < target_bytes {
        record.clear();
        let _ = write!(
            record,
            "{}{{\"id\":{n},\"name\":\"item-{n}\",\"tags\":[\"alpha\",\"beta\"],\"price\":{}.{:02},\"ok\":true}}",
            if n == 0 { "" } else { "," },
            n % 1000,
            n % 100
        );
        out.write_all(record.as_bytes()).expect("write json");
        written += record.len() as u64;
        n += 1;
    }
    out.write_all(b"]").expect("write json");
    out.flush().expect("flush json");
    drop(out);
    fixture(dir, "one-line.json", 1)
}
