//! The readers compared: the component, the core natively, `sed | cut` and a plain native window.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::floor::Floor;
use read_window as core;
use read_window::ConfigInput;
use read_window::NativeFileSystem;
use read_window_host::{
    Config, Grants, HostError, ReadError, ReadOutcome, ReadResult, ReadWindow, Session,
};

/// `cut -b1-8001`: the bytes of a line the sed pipeline keeps.
pub(super) const CUT_BYTES: usize = 8001;
/// What a read of the typed API answers.
pub(super) type Outcome = Result<Result<ReadOutcome, ReadError>, HostError>;

/// What every section reads through: the component and its grants, the native core's file system, and the bench's
/// clock.
pub(super) struct Ctx<'a> {
    /// The loaded component.
    pub(super) component: &'a ReadWindow,
    /// The bench's directory, granted read-only.
    pub(super) grants: Grants,
    /// The same directory for the core compiled natively.
    pub(super) native_fs: NativeFileSystem,
    /// When the bench started (the native core's clock).
    pub(super) started: Instant,
    /// The sandbox floor over the same directory; `None` when it could not be built or started (the bench said
    /// why).
    pub(super) floor: Option<Floor>,
}

impl Ctx<'_> {
    /// Milliseconds since the bench started: the clock the native core's reads are given.
    pub(super) fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// A new session of the component over the bench's grants with `config`; panics (a fixture error) when it
    /// does not start.
    pub(super) fn session(&self, config: &Config) -> Session {
        self.component
            .session(&self.grants, config.clone())
            .expect("session")
    }

    /// `request` read by the native core's `reader` at the bench's clock: its window; panics (naming `what`) on a
    /// stub or an error.
    pub(super) fn core_read(
        &mut self,
        reader: &mut core::Reader,
        request: &core::ReadRequest,
        what: &str,
    ) -> core::ReadResult {
        let now = self.now_ms();
        core_window(reader.read(&mut self.native_fs, request, now), what)
    }
}

/// Dedup off (repeats return content) and the loop tripwire out of reach: a bench reads windows again and
/// again (alternating offsets, which the cycle tripwire would count as a cycle of two), and every answer must be a
/// window, or the bench panics.
pub(super) fn no_dedup() -> Config {
    Config {
        dedup: Some(false),
        loop_warn_at: Some(u32::MAX - 1),
        loop_block_at: Some(u32::MAX),
        ..Config::default()
    }
}

/// [`no_dedup`] for the native core.
pub(super) fn no_dedup_core() -> ConfigInput {
    ConfigInput {
        dedup: Some(false),
        loop_warn_at: Some(u32::MAX - 1),
        loop_block_at: Some(u32::MAX),
        ..ConfigInput::default()
    }
}

pub(super) fn window(outcome: Outcome, what: &str) -> ReadResult {
    match outcome {
        Ok(Ok(ReadOutcome::Window(result))) => result,
        Ok(Ok(ReadOutcome::Unchanged(stub))) => {
            panic!("{what}: an unchanged stub: {}", stub.message)
        }
        Ok(Ok(ReadOutcome::Image(image))) => panic!("{what}: an image: {}", image.hint),
        Ok(Ok(ReadOutcome::Listing(listing))) => panic!("{what}: a listing: {}", listing.hint),
        Ok(Err(error)) => panic!("{what}: {:?}: {}", error.kind, error.message),
        Err(error) => panic!("{what}: host error: {error}"),
    }
}

pub(super) fn check_lines(result: &ReadResult, offset: u64, lines: u64, what: &str) {
    assert_eq!(result.start_line, offset, "{what}: start line");
    assert_eq!(
        result.lines_returned, lines,
        "{what}: lines returned ({})",
        result.hint
    );
    assert!(
        result.content().starts_with(&format!("{offset}|")),
        "{what}: content starts {:?}",
        result.content().get(..40)
    );
}

pub(super) fn check_core(result: &core::ReadResult, offset: u64, lines: u64, what: &str) {
    assert_eq!(result.window.start_line, offset, "{what}: start line");
    assert_eq!(
        result.window.lines_returned, lines,
        "{what}: lines returned"
    );
}

pub(super) fn core_window(
    outcome: Result<core::ReadOutcome, read_window::ReadError>,
    what: &str,
) -> core::ReadResult {
    match outcome {
        Ok(core::ReadOutcome::Window(result)) => result,
        Ok(core::ReadOutcome::Unchanged(stub)) => {
            panic!("{what}: an unchanged stub: {}", stub.message)
        }
        Ok(core::ReadOutcome::Image(image)) => panic!("{what}: an image: {}", image.hint),
        Ok(core::ReadOutcome::Listing(listing)) => panic!("{what}: a listing: {}", listing.hint),
        Err(error) => panic!("{what}: {error}"),
    }
}

pub(super) fn core_request(
    path: &str,
    offset: u64,
    limit: u64,
    column: Option<u64>,
) -> core::ReadRequest {
    core::ReadRequest {
        path: path.to_string(),
        offset: Some(offset),
        limit: Some(limit),
        column,
        tail: None,
        extract: None,
        asked_via: Vec::new(),
        fresh: false,
        region: None,
        depth: None,
    }
}

/// The `method` cell of a component's first read of a window, in a fresh session (pages, one-line JSON).
pub(super) const FIRST_READ_METHOD: &str = "component, first read in a fresh session (index built)";

/// The `method` cell of a component's second read of a window, its session's index reused.
pub(super) const SECOND_READ_METHOD: &str = "component, second read (index reused)";

/// The `method` cell of the native core's read of a window, its reader's index reused.
pub(super) const CORE_REUSED_METHOD: &str = "same Rust core natively, index reused";

/// The `method` cell of a `sed | cut` row.
pub(super) const SED_CUT_METHOD: &str = "`sed -n 'A,Bp' FILE \\| cut -b1-8001` (sh -c subprocess)";

/// The `method` cell of a row of [`native_window`], the physical floor.
pub(super) const NATIVE_FLOOR_METHOD: &str = "native floor: `BufReader` skipping lines (no index)";

/// `sed -n 'A,Bp' FILE | cut -b1-8001` in `sh -c`; returns its stdout.
pub(super) fn sed_cut(path: &Path, first: u64, last: u64) -> Vec<u8> {
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

pub(super) fn count_lines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// The physical floor: a plain `BufReader` skips `first - 1` lines and keeps `count` lines, each cut at
/// `CUT_BYTES` bytes.
pub(super) fn native_window(path: &Path, first: u64, count: u64) -> Vec<u8> {
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
pub(super) fn count_bytes(buffer: &[u8], test: impl Fn(u8) -> bool) -> u64 {
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

pub(super) fn native_column_window(path: &Path, column: u64, chars: u64) -> Vec<u8> {
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
