//! `read-window-bench`: reads windows of generated files through the read-window component and, side by side in
//! the same process, through the tools it replaces (`sed -n 'A,Bp' FILE | cut -b1-8001` in a subprocess) and a
//! native Rust reader of the same window (a plain `BufReader` skipping lines: the physical floor on this
//! machine). It prints Markdown tables of medians, with peak linear memory of the component and peak RSS of this
//! process for each scenario.
//!
//! ```text
//! cargo run --release -p read-window-host --bin read-window-bench            # the full run: a 1 GB log
//! cargo run --release -p read-window-host --bin read-window-bench -- --quick # a 100 MB log instead
//! ```
//!
//! Options: `--quick` (or `READ_WINDOW_BENCH_QUICK=1`) makes the big log 100 MB instead of 1 GB; `--dir DIR`
//! generates the files under DIR instead of the system temp directory; `--only small|pages|one-line|one-shot` runs
//! one section (repeatable); `one-shot` (section 5) runs the release `read-window` binary beside this one (or
//! `$READ_WINDOW_BENCH_CLI`) as a whole process; `READ_WINDOW_BENCH_WASM=path.wasm` loads another build of the component (an unstripped
//! one lets `perf` name its functions, with `READ_WINDOW_PROFILE=perfmap` so wasmtime writes the perf map). The generated files are removed at exit. See docs/benchmarks.md.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use read_window::config::ConfigInput;
use read_window::native_fs::NativeFileSystem;
use read_window::reader as core;
use read_window_host::{
    Budget, Config, Grants, HostError, ReadError, ReadOutcome, ReadRequest, ReadResult, ReadWindow,
};

const MIB: f64 = 1024.0 * 1024.0;
/// `cut -b1-8001`: the bytes of a line the sed pipeline keeps.
const CUT_BYTES: usize = 8001;
/// Lines of a page of the big log.
const PAGE_LINES: u64 = 2_000;
/// The character budget of the big-log pages: room for 2,000 lines of about 100 characters plus gutters.
const PAGE_BUDGET_CHARS: u32 = 400_000;

type Outcome = Result<Result<ReadOutcome, ReadError>, HostError>;

fn main() {
    let options = Options::parse();
    let dir = TempDir::create(options.dir.as_deref());
    if let Err(message) = run(&options, &dir) {
        eprintln!("read-window-bench: {message}");
        drop(dir);
        std::process::exit(1);
    }
}

struct Options {
    quick: bool,
    dir: Option<PathBuf>,
    /// Run only these sections (`small`, `pages`, `one-line`); all when empty.
    only: Vec<String>,
}

impl Options {
    fn wants(&self, section: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|s| s == section)
    }
}

impl Options {
    fn parse() -> Self {
        let mut options = Options {
            quick: std::env::var("READ_WINDOW_BENCH_QUICK")
                .is_ok_and(|v| !v.is_empty() && v != "0"),
            dir: None,
            only: Vec::new(),
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--dir" => options.dir = args.next().map(PathBuf::from),
                "--only" => {
                    let section = args.next().unwrap_or_default();
                    if !["small", "pages", "one-line", "one-shot"].contains(&section.as_str()) {
                        eprintln!(
                            "read-window-bench: --only takes small, pages, one-line or one-shot"
                        );
                        std::process::exit(2);
                    }
                    options.only.push(section);
                }
                "-h" | "--help" => {
                    println!(
                        "read-window-bench [--quick] [--dir DIR] [--only small|pages|one-line|one-shot]...\n\n  --quick    a 100 MB \
                         log instead of 1 GB (also READ_WINDOW_BENCH_QUICK=1)\n  --dir DIR  generate the files under \
                         DIR (default: the system temp directory); they are removed at exit\n  --only S   run only \
                         section S (repeatable): small (1-2), pages (3), one-line (4), one-shot (5)"
                    );
                    std::process::exit(0);
                }
                other => {
                    eprintln!("read-window-bench: unknown argument {other:?} (try --help)");
                    std::process::exit(2);
                }
            }
        }
        options
    }
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn create(base: Option<&Path>) -> Self {
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

// ---------------------------------------------------------------------------------------------------------------
// Measurement helpers

fn median(samples: &[Duration]) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

fn fmt_duration(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1_000.0 {
        format!("{micros:.1} µs")
    } else if micros < 1_000_000.0 {
        format!("{:.2} ms", micros / 1e3)
    } else {
        format!("{:.2} s", micros / 1e6)
    }
}

fn fmt_mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / MIB)
}

fn fmt_ratio(ratio: f64) -> String {
    if ratio < 0.01 {
        format!("{ratio:.5}×")
    } else if ratio >= 100.0 {
        format!("{ratio:.0}×")
    } else if ratio >= 10.0 {
        format!("{ratio:.1}×")
    } else {
        format!("{ratio:.2}×")
    }
}

fn proc_status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The host's peak RSS over a scenario: resets the high-water mark (`/proc/self/clear_refs` = 5) at the start
/// and reads `VmHWM` at the end.
struct RssMark {
    start_rss: Option<u64>,
    reset: bool,
}

impl RssMark {
    fn start() -> Self {
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        RssMark {
            start_rss: proc_status_kib("VmRSS:").map(|kib| kib * 1024),
            reset,
        }
    }

    fn end(&self) -> Rss {
        Rss {
            peak: proc_status_kib("VmHWM:").map(|kib| kib * 1024),
            start: self.start_rss,
            reset: self.reset,
        }
    }
}

#[derive(Clone, Copy)]
struct Rss {
    peak: Option<u64>,
    start: Option<u64>,
    reset: bool,
}

impl Rss {
    fn cell(&self) -> String {
        match (self.peak, self.start) {
            (Some(peak), Some(start)) if self.reset => {
                format!(
                    "{} (+{})",
                    fmt_mib(peak),
                    fmt_mib(peak.saturating_sub(start))
                )
            }
            (Some(peak), _) => format!("{} (not reset)", fmt_mib(peak)),
            _ => "n/a".to_string(),
        }
    }
}

/// One row of a table.
struct Row {
    read: String,
    method: String,
    samples: Vec<Duration>,
    ratio: Option<f64>,
    linear: Option<u64>,
    rss: Option<Rss>,
    reads: Option<String>,
}

impl Row {
    fn new(read: impl Into<String>, method: impl Into<String>, samples: Vec<Duration>) -> Self {
        Row {
            read: read.into(),
            method: method.into(),
            samples,
            ratio: None,
            linear: None,
            rss: None,
            reads: None,
        }
    }

    fn median(&self) -> Duration {
        median(&self.samples)
    }

    fn linear(mut self, bytes: u64) -> Self {
        self.linear = Some(bytes);
        self
    }

    fn rss(mut self, rss: Rss) -> Self {
        self.rss = Some(rss);
        self
    }

    fn reads(mut self, reads: impl Into<String>) -> Self {
        self.reads = Some(reads.into());
        self
    }
}

fn reads_per_call(total: u64, calls: usize) -> String {
    let calls = calls.max(1) as u64;
    if total % calls == 0 {
        format!("{}", total / calls)
    } else {
        format!("{:.2}", total as f64 / calls as f64)
    }
}

fn print_table(rows: &[Row], ratio_header: &str) {
    println!(
        "| Read | Method | Median time ⏱ | {ratio_header} ⏱ | Runs | Peak linear memory | Peak host RSS (+ growth) | Positioned reads / call |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for row in rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            row.read,
            row.method,
            fmt_duration(row.median()),
            row.ratio.map_or("—".to_string(), fmt_ratio),
            row.samples.len(),
            row.linear.map_or("—".to_string(), fmt_mib),
            row.rss.map_or("—".to_string(), |rss| rss.cell()),
            row.reads.as_deref().unwrap_or("—"),
        );
    }
    println!();
}

fn time_runs(runs: usize, mut f: impl FnMut(usize)) -> Vec<Duration> {
    (0..runs)
        .map(|i| {
            let start = Instant::now();
            f(i);
            start.elapsed()
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------------------
// File generation

struct Fixture {
    host: PathBuf,
    guest: String,
    bytes: u64,
    lines: u64,
}

fn fixture(dir: &TempDir, name: &str, lines: u64) -> Fixture {
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

fn write_source(dir: &TempDir) -> Fixture {
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
fn log_line(n: u64, line: &mut Vec<u8>) {
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

fn write_log(dir: &TempDir, name: &str, lines: u64) -> Fixture {
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

fn write_json_one_liner(dir: &TempDir, target_bytes: u64) -> Fixture {
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

// ---------------------------------------------------------------------------------------------------------------
// The readers compared

fn window(outcome: Outcome, what: &str) -> ReadResult {
    match outcome {
        Ok(Ok(ReadOutcome::Window(result))) => result,
        Ok(Ok(ReadOutcome::Unchanged(stub))) => {
            panic!("{what}: an unchanged stub: {}", stub.message)
        }
        Ok(Err(error)) => panic!("{what}: {:?}: {}", error.kind, error.message),
        Err(error) => panic!("{what}: host error: {error}"),
    }
}

fn once(outcome: Result<Result<ReadResult, ReadError>, HostError>, what: &str) -> ReadResult {
    match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(error)) => panic!("{what}: {:?}: {}", error.kind, error.message),
        Err(error) => panic!("{what}: host error: {error}"),
    }
}

fn check_lines(result: &ReadResult, offset: u64, lines: u64, what: &str) {
    assert_eq!(result.start_line, offset, "{what}: start line");
    assert_eq!(
        result.lines_returned, lines,
        "{what}: lines returned ({})",
        result.hint
    );
    assert!(
        result.content.starts_with(&format!("{offset}|")),
        "{what}: content starts {:?}",
        result.content.get(..40)
    );
}

fn check_core(result: &core::ReadResult, offset: u64, lines: u64, what: &str) {
    assert_eq!(result.window.start_line, offset, "{what}: start line");
    assert_eq!(
        result.window.lines_returned, lines,
        "{what}: lines returned"
    );
}

fn core_window(
    outcome: Result<core::ReadOutcome, read_window::error::ReadError>,
    what: &str,
) -> core::ReadResult {
    match outcome {
        Ok(core::ReadOutcome::Window(result)) => result,
        Ok(core::ReadOutcome::Unchanged(stub)) => {
            panic!("{what}: an unchanged stub: {}", stub.message)
        }
        Err(error) => panic!("{what}: {error}"),
    }
}

fn core_request(path: &str, offset: u64, limit: u64, column: Option<u64>) -> core::ReadRequest {
    core::ReadRequest {
        path: path.to_string(),
        offset: Some(offset),
        limit: Some(limit),
        column,
        tail: None,
        extract: None,
        asked_via: Vec::new(),
    }
}

/// `sed -n 'A,Bp' FILE | cut -b1-8001` in `sh -c`; returns its stdout.
fn sed_cut(path: &Path, first: u64, last: u64) -> Vec<u8> {
    let script = format!(
        "sed -n '{first},{last}p' '{}' | cut -b1-{CUT_BYTES}",
        path.display()
    );
    let output = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .output()
        .expect("run sh -c sed | cut");
    assert!(
        output.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn count_lines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// The physical floor: a plain `BufReader` skips `first - 1` lines and keeps `count` lines, each cut at
/// `CUT_BYTES` bytes.
fn native_window(path: &Path, first: u64, count: u64) -> Vec<u8> {
    let mut reader = BufReader::with_capacity(64 * 1024, File::open(path).expect("open"));
    for _ in 1..first {
        if reader.skip_until(b'\n').expect("skip") == 0 {
            break;
        }
    }
    let mut out = Vec::with_capacity(count as usize * 128);
    let mut line = Vec::with_capacity(256);
    for _ in 0..count {
        line.clear();
        if reader.read_until(b'\n', &mut line).expect("read") == 0 {
            break;
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        out.extend_from_slice(&body[..body.len().min(CUT_BYTES)]);
        out.push(b'\n');
    }
    out
}

/// The floor of a window inside one long line: stream the line, count characters (UTF-8 scalar values) up to
/// `column`, keep the next `chars` characters. Memory is the `BufReader`'s buffer and the kept text.
/// Bytes of `buffer` for which `test` holds, counted in runs of 255 into a byte (so the loop vectorizes).
fn count_bytes(buffer: &[u8], test: impl Fn(u8) -> bool) -> u64 {
    let mut total = 0u64;
    for chunk in buffer.chunks(255) {
        let mut count = 0u8;
        for &byte in chunk {
            count += u8::from(test(byte));
        }
        total += u64::from(count);
    }
    total
}

fn native_column_window(path: &Path, column: u64, chars: u64) -> Vec<u8> {
    let mut reader = BufReader::with_capacity(256 * 1024, File::open(path).expect("open"));
    let mut seen = 0u64;
    let mut out = Vec::with_capacity(chars as usize * 4);
    let end = column + chars;
    loop {
        let buffer = reader.fill_buf().expect("read");
        if buffer.is_empty() {
            break;
        }
        let length = buffer.len();
        // Fast path (both passes vectorize): a block with no line feed that ends before the column.
        let line_feeds = count_bytes(buffer, |b| b == b'\n');
        if line_feeds == 0 {
            let starts = count_bytes(buffer, |b| (b as i8) >= -0x40);
            if seen + starts <= column {
                seen += starts;
                reader.consume(length);
                continue;
            }
        }
        let mut done = false;
        for &byte in buffer {
            if byte == b'\n' {
                done = true;
                break;
            }
            if (byte as i8) >= -0x40 {
                if seen >= end {
                    done = true;
                    break;
                }
                seen += 1;
            }
            if seen > column {
                out.push(byte);
            }
        }
        reader.consume(length);
        if done {
            break;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------------------------
// The scenarios

struct Ctx<'a> {
    component: &'a ReadWindow,
    grants: Grants,
    native_fs: NativeFileSystem,
    started: Instant,
}

impl Ctx<'_> {
    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

/// Dedup off (repeats return content) and the loop tripwire out of reach: a bench reads windows again and
/// again (alternating offsets, which the cycle tripwire would count as a cycle of two), and every answer must be a
/// window, or the bench panics.
fn no_dedup() -> Config {
    Config {
        dedup: Some(false),
        loop_warn_at: Some(u32::MAX - 1),
        loop_block_at: Some(u32::MAX),
        ..Config::default()
    }
}

/// [`no_dedup`] for the native core.
fn no_dedup_core() -> ConfigInput {
    ConfigInput {
        dedup: Some(false),
        loop_warn_at: Some(u32::MAX - 1),
        loop_block_at: Some(u32::MAX),
        ..ConfigInput::default()
    }
}

struct SmallCounts {
    warm: usize,
    fresh: usize,
    subprocess: usize,
    native: usize,
}

/// A small window (`lines` lines from `offset`; alternately from `offset + 1`, so no two consecutive reads are
/// identical; the config keeps the tripwire out of reach of the cycle they make) of `file`, by every method.
fn small_read(
    ctx: &mut Ctx<'_>,
    file: &Fixture,
    offset: u64,
    lines: u64,
    counts: &SmallCounts,
) -> Vec<Row> {
    let label = format!(
        "lines {offset}-{} of a {}-line file ({})",
        offset + lines - 1,
        file.lines,
        fmt_size(file.bytes)
    );
    let at = |i: usize| offset + (i % 2) as u64;
    let request = |i: usize| {
        ReadRequest::new(file.guest.clone())
            .offset(at(i))
            .limit(lines)
    };
    let config = no_dedup();
    let mut rows = Vec::new();

    // Warm session: one session, its index kept between reads.
    let rss = RssMark::start();
    let mut session = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    for i in 0..10 {
        check_lines(
            &window(session.read(&request(i)), "warm-up"),
            at(i),
            lines,
            "warm-up",
        );
    }
    let before = session.stats().expect("stats").positioned_reads;
    let samples = time_runs(counts.warm, |i| {
        let result = window(session.read(&request(i)), "warm session");
        check_lines(&result, at(i), lines, "warm session");
    });
    let after = session.stats().expect("stats").positioned_reads;
    rows.push(
        Row::new(&label, "component, warm session (`Session::read`)", samples)
            .linear(session.peak_memory_bytes())
            .rss(rss.end())
            .reads(reads_per_call(after - before, counts.warm)),
    );
    drop(session);

    // Stateless read-once in a warm store: no session memory, so no index is kept.
    let rss = RssMark::start();
    let mut session = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    for i in 0..5 {
        once(session.read_once(&config, &request(i)), "warm-up");
    }
    let samples = time_runs(counts.warm, |i| {
        let result = once(session.read_once(&config, &request(i)), "read_once");
        check_lines(&result, at(i), lines, "read_once");
    });
    rows.push(
        Row::new(
            &label,
            "component, stateless `read-once` in a warm store (`Session::read_once`)",
            samples,
        )
        .linear(session.peak_memory_bytes())
        .rss(rss.end()),
    );
    drop(session);

    // Stateless read-once, a new store and instance per call.
    let rss = RssMark::start();
    let samples = time_runs(counts.fresh, |i| {
        let result = once(
            ctx.component.read_once(&ctx.grants, &config, &request(i)),
            "read_once",
        );
        check_lines(&result, at(i), lines, "fresh read_once");
    });
    rows.push(
        Row::new(&label, "component, stateless `read-once`, new store + instance per call (`ReadWindow::read_once`)", samples)
            .rss(rss.end()),
    );

    // A fresh session (store, instance, session resource) per request.
    let rss = RssMark::start();
    let mut peak = 0;
    let samples = time_runs(counts.fresh, |i| {
        let mut session = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let result = window(session.read(&request(i)), "fresh session");
        peak = peak.max(session.peak_memory_bytes());
        drop(session);
        check_lines(&result, at(i), lines, "fresh session");
    });
    rows.push(
        Row::new(&label, "component, fresh session per request", samples)
            .linear(peak)
            .rss(rss.end()),
    );

    // sed | cut in a subprocess.
    let rss = RssMark::start();
    let samples = time_runs(counts.subprocess, |i| {
        let out = sed_cut(&file.host, at(i), at(i) + lines - 1);
        assert_eq!(count_lines(&out), lines, "sed | cut");
    });
    rows.push(
        Row::new(
            &label,
            "`sed -n 'A,Bp' FILE \\| cut -b1-8001` (sh -c subprocess)",
            samples,
        )
        .rss(rss.end()),
    );

    // The physical floor.
    let rss = RssMark::start();
    let samples = time_runs(counts.native, |i| {
        let out = native_window(&file.host, at(i), lines);
        assert_eq!(count_lines(&out), lines, "native floor");
    });
    rows.push(
        Row::new(
            &label,
            "native floor: `BufReader` skipping lines (no index)",
            samples,
        )
        .rss(rss.end()),
    );

    // The same core compiled natively (no wasm): where the component's time goes.
    let rss = RssMark::start();
    let mut reader = core::Reader::new(no_dedup_core());
    let core_req = |i: usize| core_request(&file.guest, at(i), lines, None);
    for i in 0..10 {
        let now = ctx.now_ms();
        core_window(
            reader.read(&mut ctx.native_fs, &core_req(i), now),
            "warm-up",
        );
    }
    let before = reader.stats().positioned_reads;
    let samples = time_runs(counts.warm, |i| {
        let now = ctx.now_ms();
        let result = core_window(
            reader.read(&mut ctx.native_fs, &core_req(i), now),
            "native core",
        );
        check_core(&result, at(i), lines, "native core");
    });
    let after = reader.stats().positioned_reads;
    rows.push(
        Row::new(
            &label,
            "same Rust core compiled natively, warm `Reader` (no wasm)",
            samples,
        )
        .rss(rss.end())
        .reads(reads_per_call(after - before, counts.warm)),
    );
    let samples = time_runs(counts.warm, |i| {
        let result = core::read_once(no_dedup_core(), &mut ctx.native_fs, &core_req(i))
            .expect("native read_once");
        check_core(&result, at(i), lines, "native read_once");
    });
    rows.push(Row::new(
        &label,
        "same Rust core compiled natively, `read_once` (no wasm)",
        samples,
    ));

    let base = rows[0].median().as_secs_f64();
    for row in &mut rows {
        row.ratio = Some(row.median().as_secs_f64() / base);
    }
    rows
}

fn fmt_size(bytes: u64) -> String {
    if bytes >= 1_000_000_000 {
        format!("{:.2} GB", bytes as f64 / 1e9)
    } else if bytes >= 1_000_000 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else if bytes >= 1_000 {
        format!("{:.1} kB", bytes as f64 / 1e3)
    } else {
        format!("{bytes} B")
    }
}

struct BigLogReport {
    rows: Vec<Row>,
    deep_ratio: f64,
    first_offset: u64,
    deep_offset: u64,
    index_bytes: u64,
}

/// Page 1 and the tenth-from-last page of the big log: first read (index built) and second read (index reused).
fn big_log(ctx: &mut Ctx<'_>, file: &Fixture, runs: usize, alternations: usize) -> BigLogReport {
    let pages = file.lines.div_ceil(PAGE_LINES);
    let first_offset = 1;
    let deep_offset = (pages - 10) * PAGE_LINES + 1;
    let config = Config {
        budget: Some(Budget::Characters(PAGE_BUDGET_CHARS)),
        ..no_dedup()
    };
    let request = |offset: u64| {
        ReadRequest::new(file.guest.clone())
            .offset(offset)
            .limit(PAGE_LINES)
    };
    let page_label = |offset: u64| {
        format!(
            "page {} (lines {offset}-{}) of {} lines, {}",
            (offset - 1) / PAGE_LINES + 1,
            offset + PAGE_LINES - 1,
            file.lines,
            fmt_size(file.bytes)
        )
    };
    let timed =
        |session: &mut read_window_host::Session, offset: u64, what: &str| -> (Duration, u64) {
            let before = session.stats().expect("stats").positioned_reads;
            let start = Instant::now();
            let outcome = session.read(&request(offset));
            let elapsed = start.elapsed();
            let result = window(outcome, what);
            check_lines(&result, offset, PAGE_LINES, what);
            assert_eq!(result.total_lines, file.lines, "{what}: total lines");
            let after = session.stats().expect("stats").positioned_reads;
            (elapsed, after - before)
        };

    let mut cold_first = Vec::new();
    let mut warm_first = Vec::new();
    let mut cold_deep = Vec::new();
    let mut warm_deep = Vec::new();
    let (mut reads_cold_first, mut reads_warm_first, mut reads_cold_deep, mut reads_warm_deep) =
        (0, 0, 0, 0);
    let mut peak = 0;
    let mut index_bytes = 0;
    let rss = RssMark::start();
    for _ in 0..runs {
        // Session A: page 1 first, then page 1 again, then the two pages alternately (the index is reused).
        let mut a = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let (t, r) = timed(&mut a, first_offset, "page 1, first read");
        cold_first.push(t);
        reads_cold_first += r;
        let (t, r) = timed(&mut a, first_offset, "page 1, second read");
        warm_first.push(t);
        reads_warm_first += r;
        for _ in 0..alternations {
            let (t, r) = timed(&mut a, deep_offset, "deep page, index reused");
            warm_deep.push(t);
            reads_warm_deep += r;
            let (t, r) = timed(&mut a, first_offset, "page 1, index reused");
            warm_first.push(t);
            reads_warm_first += r;
        }
        index_bytes = a.stats().expect("stats").index_bytes;
        peak = peak.max(a.peak_memory_bytes());
        drop(a);
        // Session B: the deep page first, then again.
        let mut b = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let (t, r) = timed(&mut b, deep_offset, "deep page, first read");
        cold_deep.push(t);
        reads_cold_deep += r;
        let (t, r) = timed(&mut b, deep_offset, "deep page, second read");
        warm_deep.push(t);
        reads_warm_deep += r;
        peak = peak.max(b.peak_memory_bytes());
    }
    let session_rss = rss.end();
    let n_cold = cold_first.len();
    let n_warm_first = warm_first.len();
    let n_warm_deep = warm_deep.len();

    let warm_first_median = median(&warm_first).as_secs_f64();
    let warm_deep_median = median(&warm_deep).as_secs_f64();
    let deep_ratio = warm_deep_median / warm_first_median;

    let mut rows = vec![
        Row::new(
            page_label(first_offset),
            "component, first read in a fresh session (index built)",
            cold_first,
        )
        .linear(peak)
        .rss(session_rss)
        .reads(reads_per_call(reads_cold_first, n_cold)),
        Row::new(
            page_label(first_offset),
            "component, second read (index reused)",
            warm_first,
        )
        .linear(peak)
        .rss(session_rss)
        .reads(reads_per_call(reads_warm_first, n_warm_first)),
        Row::new(
            page_label(deep_offset),
            "component, first read in a fresh session (index built)",
            cold_deep,
        )
        .linear(peak)
        .rss(session_rss)
        .reads(reads_per_call(reads_cold_deep, n_cold)),
        Row::new(
            page_label(deep_offset),
            "component, second read (index reused)",
            warm_deep,
        )
        .linear(peak)
        .rss(session_rss)
        .reads(reads_per_call(reads_warm_deep, n_warm_deep)),
    ];
    for row in &mut rows {
        let base = if row.read.starts_with("page 1 ") {
            warm_first_median
        } else {
            warm_deep_median
        };
        row.ratio = Some(row.median().as_secs_f64() / base);
    }

    // Stateless read-once: no index survives the call, so every call scans the file to count its lines.
    let rss = RssMark::start();
    let samples = time_runs(runs, |_| {
        let result = once(
            ctx.component
                .read_once(&ctx.grants, &config, &request(deep_offset)),
            "read_once",
        );
        check_lines(&result, deep_offset, PAGE_LINES, "read_once deep");
    });
    let mut row = Row::new(
        page_label(deep_offset),
        "component, stateless `read-once`, new store + instance per call",
        samples,
    )
    .rss(rss.end());
    row.ratio = Some(row.median().as_secs_f64() / warm_deep_median);
    rows.push(row);

    for (offset, base) in [
        (first_offset, warm_first_median),
        (deep_offset, warm_deep_median),
    ] {
        let rss = RssMark::start();
        let samples = time_runs(runs, |_| {
            let out = sed_cut(&file.host, offset, offset + PAGE_LINES - 1);
            assert_eq!(count_lines(&out), PAGE_LINES, "sed | cut");
        });
        let mut row = Row::new(
            page_label(offset),
            "`sed -n 'A,Bp' FILE \\| cut -b1-8001` (sh -c subprocess)",
            samples,
        )
        .rss(rss.end());
        row.ratio = Some(row.median().as_secs_f64() / base);
        rows.push(row);
        let rss = RssMark::start();
        let samples = time_runs(runs, |_| {
            let out = native_window(&file.host, offset, PAGE_LINES);
            assert_eq!(count_lines(&out), PAGE_LINES, "native floor");
        });
        let mut row = Row::new(
            page_label(offset),
            "native floor: `BufReader` skipping lines (no index)",
            samples,
        )
        .rss(rss.end());
        row.ratio = Some(row.median().as_secs_f64() / base);
        rows.push(row);
    }

    // The same core natively: index build and an indexed deep page, without wasm.
    let core_config = ConfigInput {
        budget_chars: Some(u64::from(PAGE_BUDGET_CHARS)),
        ..no_dedup_core()
    };
    let rss = RssMark::start();
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    for _ in 0..runs {
        let mut reader = core::Reader::new(core_config.clone());
        let start = Instant::now();
        let now = ctx.now_ms();
        let result = core_window(
            reader.read(
                &mut ctx.native_fs,
                &core_request(&file.guest, first_offset, PAGE_LINES, None),
                now,
            ),
            "native core",
        );
        cold.push(start.elapsed());
        check_core(&result, first_offset, PAGE_LINES, "native core page 1");
        for _ in 0..alternations.min(5) {
            let start = Instant::now();
            let now = ctx.now_ms();
            let result = core_window(
                reader.read(
                    &mut ctx.native_fs,
                    &core_request(&file.guest, deep_offset, PAGE_LINES, None),
                    now,
                ),
                "native core",
            );
            warm.push(start.elapsed());
            check_core(&result, deep_offset, PAGE_LINES, "native core deep");
            let now = ctx.now_ms();
            core_window(
                reader.read(
                    &mut ctx.native_fs,
                    &core_request(&file.guest, first_offset, PAGE_LINES, None),
                    now,
                ),
                "native core",
            );
        }
    }
    let core_rss = rss.end();
    let mut row = Row::new(
        page_label(first_offset),
        "same Rust core natively, first read (index built)",
        cold,
    )
    .rss(core_rss);
    row.ratio = Some(row.median().as_secs_f64() / warm_first_median);
    rows.push(row);
    let mut row = Row::new(
        page_label(deep_offset),
        "same Rust core natively, index reused",
        warm,
    )
    .rss(core_rss);
    row.ratio = Some(row.median().as_secs_f64() / warm_deep_median);
    rows.push(row);

    BigLogReport {
        rows,
        deep_ratio,
        first_offset,
        deep_offset,
        index_bytes,
    }
}

struct OneLinerReport {
    rows: Vec<Row>,
    total_chars: u64,
    last_column: u64,
    step: u64,
    last_verified: bool,
}

/// The one-line JSON's first window and its last window reached by cursor (a column read near the end).
fn one_liner(ctx: &mut Ctx<'_>, file: &Fixture, runs: usize, warm_runs: usize) -> OneLinerReport {
    let config = no_dedup();
    let label_first = format!(
        "first window of a {} single-line JSON",
        fmt_size(file.bytes)
    );
    let first_request = ReadRequest::new(file.guest.clone());

    // Learn the cursor chain's step and the line's length from a first read.
    let mut probe = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    let first = window(probe.read(&first_request), "one-liner first window");
    drop(probe);
    let clamp = first
        .clamped_lines
        .first()
        .expect("the one-liner's line is clamped");
    let total_chars = clamp.total_chars;
    let step = clamp.next_column;
    assert!(
        step > 0 && step < total_chars,
        "the first window's cursor: {clamp:?}"
    );
    // The cursor chain visits columns 0, step, 2*step, ...: the last window starts at the last multiple of step.
    let last_column = (total_chars - 1) / step * step;
    let last_request = ReadRequest::new(file.guest.clone())
        .offset(1)
        .column(last_column);
    let label_last =
        format!("last window by cursor (line 1, column {last_column}) of the same JSON");

    let mut check_session = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    let last = window(check_session.read(&last_request), "one-liner last window");
    let last_verified = last.next_offset.is_none()
        && last.next_column.is_none()
        && last.clamped_lines.is_empty()
        && last.content.trim_end().ends_with(']');
    if !last_verified {
        eprintln!(
            "read-window-bench: the last window by cursor did not end the file: next_offset {:?}, next_column {:?}, clamped {:?}, content ends {:?}",
            last.next_offset,
            last.next_column,
            last.clamped_lines,
            last.content.get(last.content.len().saturating_sub(120)..)
        );
    }
    drop(check_session);

    let mut rows = Vec::new();
    let rss = RssMark::start();
    let mut cold = Vec::new();
    let mut cold_last = Vec::new();
    let mut cold_reads = 0;
    let mut cold_last_reads = 0;
    let mut peak = 0;
    for _ in 0..runs {
        let mut session = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let start = Instant::now();
        window(session.read(&first_request), "first window");
        cold.push(start.elapsed());
        cold_reads += session.stats().expect("stats").positioned_reads;
        peak = peak.max(session.peak_memory_bytes());
        drop(session);
        let mut session = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let start = Instant::now();
        window(session.read(&last_request), "last window");
        cold_last.push(start.elapsed());
        cold_last_reads += session.stats().expect("stats").positioned_reads;
        peak = peak.max(session.peak_memory_bytes());
    }
    let mut session = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    window(session.read(&first_request), "warm-up");
    let before = session.stats().expect("stats").positioned_reads;
    let mut warm_first = Vec::new();
    let mut warm_last = Vec::new();
    for _ in 0..warm_runs {
        let start = Instant::now();
        window(session.read(&last_request), "last window");
        warm_last.push(start.elapsed());
        let start = Instant::now();
        window(session.read(&first_request), "first window");
        warm_first.push(start.elapsed());
    }
    let after = session.stats().expect("stats").positioned_reads;
    peak = peak.max(session.peak_memory_bytes());
    let component_rss = rss.end();
    let per_read = reads_per_call(after - before, warm_runs * 2);
    let base_first = median(&warm_first).as_secs_f64();
    let base_last = median(&warm_last).as_secs_f64();
    rows.push(
        Row::new(
            &label_first,
            "component, first read in a fresh session (index built)",
            cold,
        )
        .linear(peak)
        .rss(component_rss)
        .reads(reads_per_call(cold_reads, runs)),
    );
    rows.push(
        Row::new(
            &label_first,
            "component, second read (index reused)",
            warm_first,
        )
        .linear(peak)
        .rss(component_rss)
        .reads(per_read.clone()),
    );
    rows.push(
        Row::new(
            &label_last,
            "component, first read in a fresh session (index built)",
            cold_last,
        )
        .linear(peak)
        .rss(component_rss)
        .reads(reads_per_call(cold_last_reads, runs)),
    );
    rows.push(
        Row::new(
            &label_last,
            "component, second read (index reused)",
            warm_last,
        )
        .linear(peak)
        .rss(component_rss)
        .reads(per_read),
    );
    for row in &mut rows {
        let base = if row.read == label_first {
            base_first
        } else {
            base_last
        };
        row.ratio = Some(row.median().as_secs_f64() / base);
    }

    let rss = RssMark::start();
    let samples = time_runs(runs, |_| {
        let out = sed_cut(&file.host, 1, 1);
        assert_eq!(
            out.len(),
            CUT_BYTES + 1,
            "sed | cut keeps 8001 bytes of the line"
        );
    });
    let mut row = Row::new(
        &label_first,
        "`sed -n '1,1p' FILE \\| cut -b1-8001` (sh -c subprocess; no cursor reaches the rest)",
        samples,
    )
    .rss(rss.end());
    row.ratio = Some(row.median().as_secs_f64() / base_first);
    rows.push(row);

    let rss = RssMark::start();
    let samples = time_runs(warm_runs, |_| {
        let out = native_column_window(&file.host, 0, step);
        assert_eq!(out.len() as u64, step, "native first window");
    });
    let mut row = Row::new(
        &label_first,
        "native floor: `BufReader`, first characters of the line",
        samples,
    )
    .rss(rss.end());
    row.ratio = Some(row.median().as_secs_f64() / base_first);
    rows.push(row);
    let rss = RssMark::start();
    let samples = time_runs(runs, |_| {
        let out = native_column_window(&file.host, last_column, step);
        assert_eq!(
            out.len() as u64,
            total_chars - last_column,
            "native last window"
        );
    });
    let mut row = Row::new(
        &label_last,
        "native floor: `BufReader` counting characters to the column",
        samples,
    )
    .rss(rss.end());
    row.ratio = Some(row.median().as_secs_f64() / base_last);
    rows.push(row);

    // The same core natively.
    let rss = RssMark::start();
    let mut reader = core::Reader::new(no_dedup_core());
    let now = ctx.now_ms();
    core_window(
        reader.read(
            &mut ctx.native_fs,
            &core_request(&file.guest, 1, 2_000, None),
            now,
        ),
        "warm-up",
    );
    let mut first = Vec::new();
    let mut last = Vec::new();
    for _ in 0..warm_runs {
        let now = ctx.now_ms();
        let start = Instant::now();
        core_window(
            reader.read(
                &mut ctx.native_fs,
                &core_request(&file.guest, 1, 2_000, Some(last_column)),
                now,
            ),
            "native core",
        );
        last.push(start.elapsed());
        let now = ctx.now_ms();
        let start = Instant::now();
        core_window(
            reader.read(
                &mut ctx.native_fs,
                &core_request(&file.guest, 1, 2_000, None),
                now,
            ),
            "native core",
        );
        first.push(start.elapsed());
    }
    let core_rss = rss.end();
    let mut row =
        Row::new(&label_first, "same Rust core natively, index reused", first).rss(core_rss);
    row.ratio = Some(row.median().as_secs_f64() / base_first);
    rows.push(row);
    let mut row =
        Row::new(&label_last, "same Rust core natively, index reused", last).rss(core_rss);
    row.ratio = Some(row.median().as_secs_f64() / base_last);
    rows.push(row);

    OneLinerReport {
        rows,
        total_chars,
        last_column,
        step,
        last_verified,
    }
}

// ---------------------------------------------------------------------------------------------------------------

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

fn run(options: &Options, dir: &TempDir) -> Result<(), String> {
    let log_bytes: u64 = if options.quick {
        100_000_000
    } else {
        1_000_000_000
    };
    let big_lines = log_bytes / 100;

    println!("# read-window benchmarks\n");
    println!(
        "- Machine: {}, {} cores (available parallelism), {} RAM; kernel {}",
        cpu_model(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        proc_meminfo_total().map_or("unknown".to_string(), |b| format!(
            "{:.1} GiB",
            b as f64 / MIB / 1024.0
        )),
        std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map_or("unknown".into(), |s| s.trim().to_string()),
    );
    println!(
        "- Mode: {} (big log {}); files generated in {}",
        if options.quick { "--quick" } else { "full" },
        fmt_size(log_bytes),
        if options.dir.is_some() {
            "the --dir directory"
        } else {
            "the system temp directory"
        }
    );

    let start = Instant::now();
    let source = write_source(dir);
    let log = write_log(dir, "service.log", 100_000);
    let big = write_log(
        dir,
        "big.log",
        if options.wants("pages") { big_lines } else { 0 },
    );
    let json = write_json_one_liner(dir, 50_000_000);
    let generated = start.elapsed();
    println!(
        "- Files: {} lines ({}), {} lines ({}), {} lines ({}), a {} JSON on one line; generated in {}",
        source.lines,
        fmt_size(source.bytes),
        log.lines,
        fmt_size(log.bytes),
        big.lines,
        fmt_size(big.bytes),
        fmt_size(json.bytes),
        fmt_duration(generated)
    );

    let start = Instant::now();
    // READ_WINDOW_BENCH_WASM loads another build of the component (an unstripped one, to profile it by name).
    let wasm_path = std::env::var("READ_WINDOW_BENCH_WASM")
        .unwrap_or_else(|_| read_window_host::COMPONENT_PATH.to_string());
    let component = ReadWindow::from_file(&wasm_path)
        .map_err(|e| format!("cannot load the component {wasm_path}: {e:#}"))?;
    let wasm_bytes = std::fs::metadata(&wasm_path)
        .map(|meta| meta.len())
        .unwrap_or(0);
    let wasm_name = std::path::Path::new(&wasm_path)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    println!(
        "- Component: {wasm_name} ({wasm_bytes} bytes) loaded in {} ({})",
        fmt_duration(start.elapsed()),
        if component.loaded_from_cache() {
            "compiled code from the disk cache"
        } else {
            "compiled now"
        }
    );
    let rss_reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    println!(
        "- Peak host RSS: VmHWM of this process{}; the sed pipeline runs in child processes, so its memory is not in it",
        if rss_reset {
            ", its high-water mark reset (`/proc/self/clear_refs` = 5) before each row; (+x) is the growth over the RSS at the reset"
        } else {
            " (the high-water mark could not be reset: figures are cumulative)"
        }
    );
    println!(
        "- The files are written and fsynced before any timing, then read from the page cache: times are warm-cache times."
    );
    println!("- ⏱ marks machine-dependent figures (times and time ratios). Memory and positioned reads do not depend on the machine's speed.\n");

    let grants = Grants::new().dir(&dir.0).map_err(|e| e.to_string())?;
    let guest_root = dir.0.to_string_lossy().into_owned();
    let mut ctx = Ctx {
        component: &component,
        grants,
        native_fs: NativeFileSystem::mount(&[(dir.0.clone(), guest_root)]),
        started: Instant::now(),
    };

    let counts = SmallCounts {
        warm: 301,
        fresh: 101,
        subprocess: 101,
        native: 301,
    };
    if options.wants("small") {
        println!("## 1-2. A small read: warm session, stateless read-once, fresh session; sed | cut and the native floor\n");
        println!(
        "Dedup is off (`Config {{ dedup: Some(false), .. }}`) so repeats return content, and the loop tripwire's \
         thresholds are out of reach (`loop_warn_at: u32::MAX - 1`, `loop_block_at: u32::MAX`): consecutive reads \
         alternate between the offset shown and the next line, which the cycle tripwire would otherwise block. Ratio = median ÷ the \
         component's warm-session median for the same window (above 1: slower than the warm session).\n"
    );
        let mut rows = small_read(&mut ctx, &source, 40, 21, &counts);
        rows.extend(small_read(&mut ctx, &log, 50_000, 100, &counts));
        print_table(&rows, "÷ warm session");
        print_small_targets(&rows);
    }

    let runs = 7;
    let alternations = 10;
    if options.wants("pages") {
        println!("## 3. Pages of the {} log\n", fmt_size(big.bytes));
        let report = big_log(&mut ctx, &big, runs, alternations);
        println!(
        "Pages are {PAGE_LINES} lines (`limit` {PAGE_LINES}, the default `max-lines`) with a budget of {PAGE_BUDGET_CHARS} \
         characters so the whole page fits (a line is 100 bytes). Page 1 starts at line {}; the tenth-from-last page \
         at line {}. A first read is the first read of the file in a fresh session: it scans the whole file to count \
         its lines and build the sparse index. A second read reuses the index (in each of {runs} runs: page 1 twice \
         in one session, then the deep page and page 1 alternately {alternations} times; and a second session that \
         reads the deep page first and then again). Ratio = median ÷ the component's second read of the same page. \
         Index size: {} bytes.\n",
        report.first_offset, report.deep_offset, report.index_bytes
    );
        print_table(&report.rows, "÷ component second read");
        print_page_targets(&report);

        let throughput = |method: &str| {
            report
                .rows
                .iter()
                .find(|row| row.read.starts_with("page 1 ") && row.method.starts_with(method))
                .map_or("n/a".to_string(), |row| {
                    format!(
                        "{:.2} GB/s",
                        big.bytes as f64 / row.median().as_secs_f64() / 1e9
                    )
                })
        };
        println!(
        "Whole-file scan speed (file size ÷ median) ⏱: component first read {}, the same core natively {}, sed | cut {}.\n",
        throughput("component, first read"),
        throughput("same Rust core natively, first read"),
        throughput("`sed"),
    );
    }

    if options.wants("one-shot") {
        let two_thousand = write_log(dir, "two-thousand.log", 2_000);
        one_shot(&[&source, &two_thousand], 51)?;
    }

    if options.wants("one-line") {
        println!("## 4. The {} single-line JSON\n", fmt_size(json.bytes));
        let one = one_liner(&mut ctx, &json, runs, 51);
        println!(
        "The line has {} characters; a window shows {} of them (the default `max-line-length`) and its cursor moves \
         {} columns on, so the last window of the cursor chain starts at column {}{}. Ratio = median ÷ the \
         component's second read of the same window.\n",
        one.total_chars,
        one.step,
        one.step,
        one.last_column,
        if one.last_verified { " (checked: it returns no further cursor)" } else { " (CHECK FAILED: it returned a further cursor)" }
    );
        print_table(&one.rows, "÷ component second read");
    }
    Ok(())
}

/// The median of `a` ÷ the median of `b`, the rows found by the start of their read label and method.
fn median_ratio(rows: &[Row], read: &str, a: &str, b: &str) -> Option<f64> {
    let find = |method: &str| {
        rows.iter()
            .find(|row| row.read.starts_with(read) && row.method.starts_with(method))
            .map(|row| row.median().as_secs_f64())
    };
    Some(find(a)? / find(b)?)
}

/// `x.xx× (target ≤ t×): holds`, or `n/a` when a row is missing.
fn target_cell(ratio: Option<f64>, target: f64, at_most: bool) -> String {
    match ratio {
        Some(ratio) => {
            let holds = if at_most {
                ratio <= target
            } else {
                ratio >= target
            };
            format!(
                "**{}** (target {} {target}×): {}",
                fmt_ratio(ratio),
                if at_most { "≤" } else { "≥" },
                if holds { "holds" } else { "DOES NOT HOLD" }
            )
        }
        None => "n/a".to_string(),
    }
}

/// Issue 15's small-read target from one run: the warm component read ÷ the native `BufReader` floor, and where
/// the rest goes (the same core natively ÷ the floor: the core; the component ÷ the core natively: wasm and the
/// boundary).
fn print_small_targets(rows: &[Row]) {
    const WARM: &str = "component, warm session";
    const FLOOR: &str = "native floor";
    const CORE: &str = "same Rust core compiled natively, warm";
    println!("Ratios of this run (issue 15) ⏱:\n");
    for read in ["lines 40-60 ", "lines 50000-50099 "] {
        let target = if read.starts_with("lines 40-60") {
            target_cell(median_ratio(rows, read, WARM, FLOOR), 2.5, true)
        } else {
            median_ratio(rows, read, WARM, FLOOR).map_or("n/a".to_string(), fmt_ratio)
        };
        println!(
            "- {}: component warm session ÷ native floor = {target}; same core natively ÷ floor = {}; component ÷ same core natively = {}",
            read.trim_end(),
            median_ratio(rows, read, CORE, FLOOR).map_or("n/a".to_string(), fmt_ratio),
            median_ratio(rows, read, WARM, CORE).map_or("n/a".to_string(), fmt_ratio),
        );
    }
    println!();
}

/// Issue 15's page targets from one run: page 1's second read ÷ the native floor, the deep page ÷ page 1, and the
/// first scan's rate ÷ the rate of the same core natively.
fn print_page_targets(report: &BigLogReport) {
    let rows = &report.rows;
    let page_1 = median_ratio(rows, "page 1 ", "component, second read", "native floor");
    // Rates are inverse to times: the component's scan rate ÷ the native core's = native time ÷ component time.
    let scan = median_ratio(
        rows,
        "page 1 ",
        "same Rust core natively, first read",
        "component, first read",
    );
    let deep_core = rows
        .iter()
        .find(|row| {
            !row.read.starts_with("page 1 ")
                && row
                    .method
                    .starts_with("same Rust core natively, index reused")
        })
        .zip(rows.iter().find(|row| {
            !row.read.starts_with("page 1 ") && row.method.starts_with("component, second read")
        }))
        .map(|(core, component)| component.median().as_secs_f64() / core.median().as_secs_f64());
    println!("Ratios of this run (issue 15) ⏱:\n");
    println!(
        "- Page 1, second read (index reused) ÷ native floor = {}",
        target_cell(page_1, 2.0, true)
    );
    println!(
        "- Deep page, second read ÷ page 1, second read = {}",
        target_cell(Some(report.deep_ratio), 1.1, true)
    );
    println!(
        "- Deep page, second read ÷ the same core natively (index reused) = {}",
        deep_core.map_or("n/a".to_string(), fmt_ratio)
    );
    println!(
        "- First scan (page 1, index built): component scan rate ÷ the same core's native scan rate = {}\n",
        target_cell(scan, 0.6, false)
    );
}

fn proc_meminfo_total() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|line| line.starts_with("MemTotal:"))?;
    line.split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()
        .map(|kib| kib * 1024)
}

// ---------------------------------------------------------------------------------------------------------------
// 5. One-shot CLI: `read-window read` as a whole process against `sed | cut`

/// The `read-window` binary section 5 runs: `$READ_WINDOW_BENCH_CLI`, else the one beside this bench binary (the
/// same cargo profile: `cargo build --release -p read-window-host` builds both).
fn cli_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("READ_WINDOW_BENCH_CLI") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let cli = exe.with_file_name(format!("read-window{}", std::env::consts::EXE_SUFFIX));
    if cli.is_file() {
        Ok(cli)
    } else {
        Err(format!(
            "{} is missing: build it (`cargo build --release -p read-window-host`) or set READ_WINDOW_BENCH_CLI",
            cli.display()
        ))
    }
}

/// One run of the CLI: its wall time, and with `timings` its phases (`name`, microseconds) from the
/// `READ_WINDOW_TIMINGS` line plus `before main` and `after the last mark` measured against this process's clock.
fn cli_run(
    cli: &Path,
    file: &Fixture,
    first: u64,
    lines: u64,
    timings: bool,
) -> (Duration, Vec<(String, f64)>) {
    let mut command = Command::new(cli);
    command
        .current_dir(file.host.parent().unwrap_or(Path::new("/")))
        .env_remove("READ_WINDOW_WASM")
        .args([
            "read",
            &file.guest,
            "--offset",
            &first.to_string(),
            "--limit",
            &lines.to_string(),
        ]);
    if timings {
        command.env(read_window_host::timings::TIMINGS_ENV, "1");
    } else {
        command.env_remove(read_window_host::timings::TIMINGS_ENV);
    }
    let spawned_ns = read_window_host::timings::monotonic_ns();
    let start = Instant::now();
    let output = command.output().expect("run read-window read");
    let wall = start.elapsed();
    let exited_ns = read_window_host::timings::monotonic_ns();
    assert!(
        output.status.success(),
        "read-window read: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with(&format!("{first}|")) && count_lines(&output.stdout) >= lines,
        "read-window read printed {stdout:?}"
    );
    let mut phases = Vec::new();
    if timings {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .find(|line| line.starts_with("read-window: timings:"))
            .unwrap_or_default();
        let field = |name: &str| {
            line.split_whitespace()
                .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
                .and_then(|value| value.parse::<u64>().ok())
        };
        if let (Some(spawned), Some(started)) = (spawned_ns, field("started_ns")) {
            phases.push((
                "before main (exec, dynamic linking)".to_string(),
                started.saturating_sub(spawned) as f64 / 1e3,
            ));
        }
        for pair in line.split_whitespace() {
            let Some((name, value)) = pair.split_once("_us=") else {
                continue;
            };
            if name == "total" {
                continue;
            }
            if let Ok(micros) = value.parse::<f64>() {
                // The cache phase is named for its outcome; one row for both.
                let name = match name.strip_prefix("cache_") {
                    Some(outcome) => format!("cache ({outcome})"),
                    None => name.to_string(),
                };
                phases.push((name, micros));
            }
        }
        if let (Some(exited), Some(ended)) = (exited_ns, field("ended_ns")) {
            phases.push((
                "after the last mark (exit, reaped)".to_string(),
                exited.saturating_sub(ended) as f64 / 1e3,
            ));
        }
    }
    (wall, phases)
}

/// Section 5: `read-window read FILE --offset 40 --limit 21` as a whole process, against `sed -n 40,60p FILE | cut
/// -b1-8001` in `sh -c`, `runs` times each (interleaved, after one warm-up of each), on each of `files`; then the
/// median of each start-up phase from `READ_WINDOW_TIMINGS` runs.
fn one_shot(files: &[&Fixture], runs: usize) -> Result<(), String> {
    let cli = cli_binary()?;
    println!("## 5. One-shot CLI: `read-window read` as a whole process\n");
    println!(
        "`{}` (the compiled component from the disk cache) against `sh -c 'sed -n 40,60p FILE | cut -b1-8001'`, each \
         spawned and reaped {runs} times, interleaved (a warm-up run of each first); wall time from spawn to exit, \
         output captured through pipes for both. Ratio = median ÷ the sed pipeline's median. Phases: {runs} more runs \
         with `READ_WINDOW_TIMINGS=1`; `before main` and `after the last mark` are measured against this process's \
         `CLOCK_MONOTONIC`. ⏱\n",
        cli.display()
    );
    let (first, lines) = (40, 21);
    let mut rows = Vec::new();
    let mut phase_table: Vec<(String, Vec<Vec<f64>>)> = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let label = format!(
            "lines {first}-{} of a {}-line file ({})",
            first + lines - 1,
            file.lines,
            fmt_size(file.bytes)
        );
        cli_run(&cli, file, first, lines, false);
        sed_cut(&file.host, first, first + lines - 1);
        let mut cli_samples = Vec::new();
        let mut sed_samples = Vec::new();
        let mut timed = Vec::new();
        for _ in 0..runs {
            cli_samples.push(cli_run(&cli, file, first, lines, false).0);
            let start = Instant::now();
            let out = sed_cut(&file.host, first, first + lines - 1);
            sed_samples.push(start.elapsed());
            assert_eq!(count_lines(&out), lines, "sed | cut");
            timed.push(cli_run(&cli, file, first, lines, true).1);
        }
        let sed_median = median(&sed_samples).as_secs_f64();
        let mut cli_row = Row::new(&label, "`read-window read` (whole process)", cli_samples);
        cli_row.ratio = Some(cli_row.median().as_secs_f64() / sed_median);
        let mut sed_row = Row::new(
            &label,
            "`sed -n 'A,Bp' FILE \\| cut -b1-8001` (sh -c subprocess)",
            sed_samples,
        );
        sed_row.ratio = Some(1.0);
        rows.push(cli_row);
        rows.push(sed_row);
        for phases in timed {
            for (name, micros) in phases {
                let slot = match phase_table.iter().position(|(known, _)| *known == name) {
                    Some(slot) => slot,
                    None => {
                        phase_table.push((name, vec![Vec::new(); files.len()]));
                        phase_table.len() - 1
                    }
                };
                phase_table[slot].1[index].push(micros);
            }
        }
    }
    print_table(&rows, "÷ sed \\| cut");
    let targets: Vec<String> = rows
        .chunks(2)
        .map(|pair| format!("{:.2}", pair[0].ratio.unwrap_or(f64::NAN)))
        .collect();
    println!(
        "**One-shot `read-window read` ÷ `sed | cut` = {}** (the issue's target: at most 1.0) ⏱\n",
        targets.join(", ")
    );
    let mut header = String::from("| phase |");
    let mut rule = String::from("|---|");
    for file in files {
        let _ = write!(header, " median µs, {}-line file |", file.lines);
        rule.push_str("---:|");
    }
    println!("{header}\n{rule}");
    let mut sums = vec![0.0; files.len()];
    for (name, per_file) in &phase_table {
        let mut line = format!("| {name} |");
        for (index, samples) in per_file.iter().enumerate() {
            let mut sorted = samples.clone();
            sorted.sort_by(f64::total_cmp);
            let mid = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
            sums[index] += mid;
            let _ = write!(line, " {mid:.1} |");
        }
        println!("{line}");
    }
    let mut line = String::from("| sum of the medians |");
    for sum in sums {
        let _ = write!(line, " {sum:.1} |");
    }
    println!("{line}\n");
    Ok(())
}
