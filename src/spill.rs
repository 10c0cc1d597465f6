//! The spill: a capture's raw stream written to a new file in a writable preopen, so the ordinary reader pages the
//! whole output with exact line numbers, and the capture run that feeds the window and the spill together.
//!
//! Nothing is written while the output fits the window: the raw bytes are held in memory (at most
//! [`raw_hold_bytes`]) until the cleaned output overflows the window, or the held bytes outgrow that bound (a
//! stream of terminal noise that cleans down to little), and then the whole stream from its first byte goes to the
//! spill. The file is created exclusively (`capture-N.log`, the first free `N` from 1), so an existing file, a
//! directory or a link at that name (dangling or not) is never followed, replaced or written: the next name is
//! taken. The spill keeps the raw bytes (escape sequences and redraws included) up to its cap in characters,
//! cut on a character boundary. A spill that cannot be made or written never costs the window: the result says
//! why, and that the text it does not hold is gone.

use crate::capture::{CaptureConfig, CaptureInput, CaptureSummary, SpillReport, StreamWindow};
use crate::error::{ErrorKind, FsError, ReadError};
use crate::sandbox::{normalize, resolve, FileKind, ResolveError};
/// The traits the spill writes through live beside [`crate::sandbox::FileSystem`], with the other I/O seams.
pub use crate::sandbox::{SpillFs, SpillWriter};
use crate::sniff::{sniff, Verdict, SAMPLE_BYTES};

/// How a spill file is named: `capture-N.log`.
pub const SPILL_PREFIX: &str = "capture-";
/// See [`SPILL_PREFIX`].
pub const SPILL_SUFFIX: &str = ".log";
/// Names tried at most before the spill gives up (`capture-1.log` to `capture-10000.log`).
pub const MAX_NAME_PROBES: u64 = 10_000;
/// Raw bytes held at least before the spill starts anyway, in bytes (1 MiB).
pub const MIN_RAW_HOLD_BYTES: usize = 1 << 20;

/// Raw bytes held in memory at most before the spill starts even though the cleaned output still fits: 16 bytes
/// a character of the window, at least [`MIN_RAW_HOLD_BYTES`].
pub fn raw_hold_bytes(config: &CaptureConfig) -> usize {
    usize::try_from(config.window_chars.saturating_mul(16))
        .unwrap_or(usize::MAX)
        .max(MIN_RAW_HOLD_BYTES)
}

/// The state of the spill.
enum Spill<W> {
    /// Nothing written yet: the raw bytes so far.
    Holding(Vec<u8>),
    /// The file is open.
    Writing {
        path: String,
        writer: W,
        chars: u64,
        newlines: u64,
    },
    /// Writing stopped at the cap.
    Capped { path: String, newlines: u64 },
    /// The spill could not be made (`path` absent) or a write failed (`path` holds what was written).
    Failed {
        path: Option<String>,
        error: String,
        newlines: u64,
    },
}

impl<W> Spill<W> {
    /// What became of the spill, for the window's marker and hint: `cap_chars` is the cap in characters,
    /// `spill_cut` whether the last written byte is not a line break (said only when a file was created). A spill
    /// still holding (the output fit) reports no file and no error.
    fn report(&self, cap_chars: u64, spill_cut: bool) -> SpillReport {
        let report = match self {
            // The output fit: nothing spilled.
            Spill::Holding(_) => SpillReport::default(),
            Spill::Writing { path, newlines, .. } => SpillReport {
                path: Some(path.clone()),
                newlines_held: *newlines,
                ..SpillReport::default()
            },
            Spill::Capped { path, newlines } => SpillReport {
                path: Some(path.clone()),
                capped: true,
                newlines_held: *newlines,
                ..SpillReport::default()
            },
            Spill::Failed {
                path,
                error,
                newlines,
            } => SpillReport {
                path: path.clone(),
                error: Some(error.clone()),
                newlines_held: *newlines,
                ..SpillReport::default()
            },
        };
        SpillReport {
            cut_line: spill_cut && report.path.is_some(),
            cap_chars,
            ..report
        }
    }
}

/// A fresh window for `config` fed `held` (the whole raw stream so far) with every `\r` turned into `\n` and
/// closed: the window of a CR-separated output, and whether it overflowed (the spill must start then).
fn cr_split_window(config: &CaptureConfig, held: &[u8]) -> (StreamWindow, bool) {
    let mut split = StreamWindow::new(config.clone());
    let lines: Vec<u8> = held
        .iter()
        .map(|&byte| if byte == b'\r' { b'\n' } else { byte })
        .collect();
    split.split_on_cr();
    let overflowed = split.push(&lines) | split.close();
    (split, overflowed)
}

/// What a finished capture returns: the window and the spill's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureResult {
    /// The window, its counts and its hint.
    pub summary: CaptureSummary,
    /// The guest path of the spill file, when one was created.
    pub spill_path: Option<String>,
    /// The spill stopped at its cap.
    pub spill_capped: bool,
    /// Why the spill failed or was never made, when the output overflowed the window and it did.
    pub spill_error: Option<String>,
    /// The command's exit status, as the host gave it.
    pub exit_status: Option<i32>,
    /// Config values replaced by their defaults (for the host).
    pub warnings: Vec<String>,
}

/// One command's capture: the window in memory and the spill on disk.
pub struct Capture<W> {
    window: StreamWindow,
    spill: Spill<W>,
    hold_limit: usize,
    warnings: Vec<String>,
    finished: bool,
    /// The stream's first [`SAMPLE_BYTES`] for the binary verdict, until it is made.
    sample: Vec<u8>,
    /// The binary verdict: `None` until made (at [`SAMPLE_BYTES`] or at the end), then `Some(kind)` for a binary
    /// output and `Some("")` for text.
    binary: Option<&'static str>,
    /// The spill's last written byte is not a line break (its last line is a fragment).
    spill_cut: bool,
}

impl<W: SpillWriter> Capture<W> {
    /// A capture with `input`'s settings (out-of-range values replaced by defaults, with warnings).
    pub fn new(input: CaptureInput) -> Self {
        let (config, warnings) = CaptureConfig::from_input(input);
        Capture {
            hold_limit: raw_hold_bytes(&config),
            window: StreamWindow::new(config),
            spill: Spill::Holding(Vec::new()),
            warnings,
            finished: false,
            sample: Vec::new(),
            binary: None,
            spill_cut: false,
        }
    }

    /// Adds the start of `chunk` to the sample and makes the binary verdict once it is full (`at_end`: the stream
    /// ended, so the sample is all of it). A binary output is spilled at once, whatever its size.
    fn sniff<F: SpillFs<Writer = W> + ?Sized>(&mut self, fs: &mut F, chunk: &[u8], at_end: bool) {
        if self.binary.is_some() {
            return;
        }
        let room = SAMPLE_BYTES.saturating_sub(self.sample.len());
        self.sample
            .extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
        if self.sample.len() < SAMPLE_BYTES && !at_end {
            return;
        }
        if self.sample.is_empty() {
            self.binary = Some("");
            return;
        }
        self.binary = Some(match sniff(&self.sample, at_end) {
            Verdict::Binary { kind } => kind,
            Verdict::Text { .. } => "",
        });
        self.sample = Vec::new();
        if self.binary.is_some_and(|kind| !kind.is_empty()) {
            self.start_spill(fs);
        }
    }

    fn finished_error() -> ReadError {
        ReadError::new(
            ErrorKind::InvalidRequest,
            "this capture is finished; begin a new capture for more output.",
        )
    }

    /// Pushes one chunk of the raw stream. Errors: `invalid-request` after [`Capture::finish`]. Spill failures
    /// are not errors: they are reported by `finish`.
    pub fn push<F: SpillFs<Writer = W> + ?Sized>(
        &mut self,
        fs: &mut F,
        chunk: &[u8],
    ) -> Result<(), ReadError> {
        if self.finished {
            return Err(Self::finished_error());
        }
        let overflowed = self.window.push(chunk);
        match &mut self.spill {
            Spill::Holding(held) => {
                held.extend_from_slice(chunk);
                if overflowed || held.len() > self.hold_limit {
                    self.start_spill(fs);
                }
            }
            _ => self.write(chunk),
        }
        self.sniff(fs, chunk, false);
        Ok(())
    }

    /// Ends the stream and returns the window. Errors: `invalid-request` when already finished.
    pub fn finish<F: SpillFs<Writer = W> + ?Sized>(
        &mut self,
        fs: &mut F,
        exit_status: Option<i32>,
    ) -> Result<CaptureResult, ReadError> {
        if self.finished {
            return Err(Self::finished_error());
        }
        self.finished = true;
        if self.window.close() {
            self.start_spill(fs);
        }
        self.sniff(fs, &[], true);
        let binary = self.binary.filter(|kind| !kind.is_empty());
        if binary.is_none() && self.window.collapsed_redraws() > 0 {
            self.settle_redraws(fs);
        }
        let report = self
            .spill
            .report(self.window.config().spill_cap_chars, self.spill_cut);
        self.spill = Spill::Holding(Vec::new());
        let summary = match binary {
            Some(kind) => self.window.finish_binary(kind, &report, exit_status),
            None => self.window.finish(&report, exit_status),
        };

        Ok(CaptureResult {
            summary,
            spill_path: report.path,
            spill_capped: report.capped,
            spill_error: report.error,
            exit_status,
            warnings: std::mem::take(&mut self.warnings),
        })
    }

    /// A finished text output whose redraws were collapsed, when nothing was spilled yet (the raw stream is still
    /// held): with no `\n` anywhere it is a CR-separated output and the window is rebuilt split on `\r` (spilled
    /// when that overflows); else the raw stream is spilled, so what the window dropped stays reachable. Once the
    /// spill has started there is nothing to do.
    fn settle_redraws<F: SpillFs<Writer = W> + ?Sized>(&mut self, fs: &mut F) {
        let Spill::Holding(held) = &self.spill else {
            return;
        };
        if self.window.line_feeds() == 0 {
            // No `\n` anywhere, and carriage returns followed by text: a CR-separated output (records, a classic
            // Mac OS file), split on `\r` as the reader splits a CR-only file, not collapsed.
            let (split, overflowed) = cr_split_window(self.window.config(), held);
            self.window = split;
            if overflowed {
                self.start_spill(fs);
            }
        } else {
            // Redraws were collapsed: the raw stream is spilled even though the window holds the output, so what
            // the window dropped stays reachable.
            self.start_spill(fs);
        }
    }

    /// Creates the spill file and writes the held bytes to it.
    fn start_spill<F: SpillFs<Writer = W> + ?Sized>(&mut self, fs: &mut F) {
        let Spill::Holding(held) = &mut self.spill else {
            // Already started (or failed): nothing to do.
            return;
        };
        let held = std::mem::take(held);
        self.spill = match crate::beneath::retried_on_change(fs, |fs| {
            create_spill(fs, self.window.config().spill_dir.as_deref())
        }) {
            Ok((path, writer)) => Spill::Writing {
                path,
                writer,
                chars: 0,
                newlines: 0,
            },
            Err(error) => Spill::Failed {
                path: None,
                error,
                newlines: 0,
            },
        };
        self.write(&held);
    }

    /// Appends `bytes` to the spill up to its cap.
    fn write(&mut self, bytes: &[u8]) {
        let cap = self.window.config().spill_cap_chars;
        let Spill::Writing {
            path,
            writer,
            chars,
            newlines,
        } = &mut self.spill
        else {
            return;
        };
        let (end, count) = cut_at_chars(bytes, cap.saturating_sub(*chars));
        let kept = bytes.get(..end).unwrap_or(bytes);
        if let Err(error) = writer.append(kept) {
            let held = *newlines;
            self.spill = Spill::Failed {
                path: Some(path.clone()),
                error: format!("writing {path} failed: {}", fs_words(&error)),
                newlines: held,
            };
            return;
        }
        *chars += count;
        *newlines += memchr::memchr_iter(b'\n', kept).count() as u64;
        if let Some(last) = kept.last() {
            self.spill_cut = *last != b'\n';
        }
        if end < bytes.len() {
            self.spill = Spill::Capped {
                path: path.clone(),
                newlines: *newlines,
            };
        }
    }
}

/// The prefix of `bytes` holding at most `allowed` characters (a character starts at every byte that is not a
/// UTF-8 continuation byte), cut before the first character over it: its length in bytes and its characters.
fn cut_at_chars(bytes: &[u8], allowed: u64) -> (usize, u64) {
    let mut count = 0u64;
    for (index, byte) in bytes.iter().enumerate() {
        if byte & 0xc0 != 0x80 {
            if count == allowed {
                return (index, count);
            }
            count += 1;
        }
    }
    (bytes.len(), count)
}

fn fs_words(error: &FsError) -> String {
    match error {
        FsError::NotFound => "not found".to_string(),
        FsError::PermissionDenied => "permission denied".to_string(),
        FsError::NotADirectory => "not a directory".to_string(),
        FsError::Changed => "a directory on the way changed while it was opened".to_string(),
        FsError::Other(message) => message.clone(),
    }
}

/// The first sentence of a read error's message, without its full stop: the words of a spill error, which sit
/// inside the capture's marker line (`...; {words}, so they are gone]`), where a read's advice does not apply.
fn spill_words(message: &str) -> String {
    let first = message.split(". ").next().unwrap_or(message);
    first.trim_end_matches('.').to_string()
}

/// Resolves the spill directory inside the sandbox and creates the first free `capture-N.log` in it. Errors, in
/// words for the result's `spill-error`: no directory configured, the directory outside every preopen, missing,
/// not a directory, not writable, or every name taken.
fn create_spill<F: SpillFs + ?Sized>(
    fs: &mut F,
    dir: Option<&str>,
) -> Result<(String, F::Writer), String> {
    let Some(dir) = dir else {
        return Err("no spill directory was configured".to_string());
    };
    let absolute = normalize(dir, "/");
    let resolved = match resolve(fs, dir, &absolute) {
        Ok(resolved) => resolved,
        Err(ResolveError::NotFound(missing)) => {
            return Err(format!(
                "the spill directory {} does not exist",
                missing.path
            ))
        }
        Err(ResolveError::Other(error)) => return Err(spill_words(&error.message)),
    };
    if resolved.stat.kind != FileKind::Directory {
        return Err(format!(
            "the spill directory {} is {}, not a directory",
            resolved.path,
            resolved.stat.kind.describe()
        ));
    }
    for n in 1..=MAX_NAME_PROBES {
        let name = format!("{SPILL_PREFIX}{n}{SPILL_SUFFIX}");
        let relative = if resolved.relative.is_empty() {
            name.clone()
        } else {
            format!("{}/{name}", resolved.relative)
        };
        match fs.create_new(resolved.root, &relative) {
            Ok(Some(writer)) => {
                let path = if resolved.path == "/" {
                    format!("/{name}")
                } else {
                    format!("{}/{name}", resolved.path)
                };
                return Ok((path, writer));
            }
            Ok(None) => continue,
            Err(FsError::PermissionDenied) => {
                return Err(format!(
                    "the spill directory {} is not writable (permission denied; the host must grant it \
                     read-write)",
                    resolved.path
                ))
            }
            Err(error) => {
                return Err(format!(
                    "creating a spill file in {} failed: {}",
                    resolved.path,
                    fs_words(&error)
                ))
            }
        }
    }
    Err(format!(
        "every spill name from {SPILL_PREFIX}1{SPILL_SUFFIX} to {SPILL_PREFIX}{MAX_NAME_PROBES}{SPILL_SUFFIX} in {} \
         is taken",
        resolved.path
    ))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::native_fs::NativeFileSystem;
    use crate::read::{read_once_window, ReadOutcome, ReadRequest};

    fn mount(dir: &std::path::Path) -> NativeFileSystem {
        NativeFileSystem::mount(&[(dir.to_path_buf(), "/out".to_string())])
    }

    fn input(window: u64) -> CaptureInput {
        CaptureInput {
            window_chars: Some(window),
            spill_dir: Some("/out".into()),
            ..CaptureInput::default()
        }
    }

    #[test]
    fn nothing_is_spilled_while_the_output_fits() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(input(200));
        capture.push(&mut fs, b"short\n").unwrap();
        let result = capture.finish(&mut fs, Some(0)).unwrap();
        assert_eq!(result.summary.content, "short\n");
        assert_eq!(result.spill_path, None);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        assert_eq!(
            capture.push(&mut fs, b"x").unwrap_err().kind,
            ErrorKind::InvalidRequest
        );
    }

    #[test]
    fn the_spill_is_the_raw_stream_and_pages_at_the_marker_lines() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(input(200));
        let text: String = (1..=100)
            .map(|n| format!("\x1b[32mline {n:04}\x1b[0m\n"))
            .collect();
        for chunk in text.as_bytes().chunks(7) {
            capture.push(&mut fs, chunk).unwrap();
        }
        let result = capture.finish(&mut fs, Some(2)).unwrap();
        assert_eq!(result.spill_path.as_deref(), Some("/out/capture-1.log"));
        assert_eq!(
            std::fs::read(dir.path().join("capture-1.log")).unwrap(),
            text.as_bytes()
        );
        assert_eq!(result.summary.omitted_range, Some((9, 88)));
        let window = read_once_window(
            Default::default(),
            &mut fs,
            &ReadRequest {
                path: "/out/capture-1.log".into(),
                offset: Some(9),
                limit: Some(1),
                ..ReadRequest::default()
            },
        )
        .unwrap();
        assert_eq!(window.window.content, "9|\x1b[32mline 0009\x1b[0m\n");
        assert!(result
            .summary
            .hint
            .ends_with("The command failed: exit status 2."));
        let _ = ReadOutcome::Window;
    }

    #[test]
    fn a_link_at_the_spill_name_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("victim");
        std::fs::write(&target, b"keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("capture-1.log")).unwrap();
        std::os::unix::fs::symlink("/nowhere", dir.path().join("capture-2.log")).unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(input(200));
        capture.push(&mut fs, "x\n".repeat(300).as_bytes()).unwrap();
        let result = capture.finish(&mut fs, None).unwrap();
        assert_eq!(result.spill_path.as_deref(), Some("/out/capture-3.log"));
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    }

    #[test]
    fn the_spill_stops_at_its_cap_on_a_character_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(CaptureInput {
            spill_cap_chars: Some(1_000),
            ..input(200)
        });
        let text = "é\n".repeat(2_000);
        capture.push(&mut fs, text.as_bytes()).unwrap();
        let result = capture.finish(&mut fs, None).unwrap();
        assert!(result.spill_capped);
        let spilled = std::fs::read(dir.path().join("capture-1.log")).unwrap();
        assert_eq!(spilled, "é\n".repeat(500).as_bytes());
    }

    #[test]
    fn a_missing_spill_directory_keeps_the_window() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(CaptureInput {
            spill_dir: Some("/out/missing".into()),
            ..input(200)
        });
        capture.push(&mut fs, "y\n".repeat(300).as_bytes()).unwrap();
        let result = capture.finish(&mut fs, None).unwrap();
        assert_eq!(
            result.spill_error.as_deref(),
            Some("the spill directory /out/missing does not exist")
        );
        assert!(result.summary.content.starts_with("y\n"));
        assert!(result.summary.content.ends_with("y\n"));
        assert!(result.summary.content.contains(
            "the spill failed: the spill directory /out/missing does not exist, so they are gone]"
        ));
    }

    #[test]
    fn a_spill_directory_linked_out_of_the_grant_is_named_in_the_marker_in_a_clause() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("../elsewhere", dir.path().join("s")).unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(CaptureInput {
            spill_dir: Some("/out/s".into()),
            ..input(200)
        });
        capture.push(&mut fs, "y\n".repeat(300).as_bytes()).unwrap();
        let result = capture.finish(&mut fs, None).unwrap();
        let words = "/out/s goes through the link /out/s, which points to ../elsewhere: outside the directories \
                     read-window may read (/out)";
        assert_eq!(result.spill_error.as_deref(), Some(words));
        assert!(result
            .summary
            .content
            .contains(&format!("the spill failed: {words}, so they are gone]")));
    }

    #[test]
    fn a_cr_separated_output_is_split_on_its_carriage_returns() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(input(200));
        capture
            .push(&mut fs, b"name,age\rAlice,30\rBob,41\rCarol,22\r")
            .unwrap();
        let result = capture.finish(&mut fs, None).unwrap();
        let summary = &result.summary;
        assert_eq!(summary.content, "name,age\nAlice,30\nBob,41\nCarol,22\n");
        assert_eq!((summary.total_lines, summary.total_chars), (4, 34));
        assert_eq!(
            (
                summary.cr_count,
                summary.lf_count,
                summary.collapsed_redraws
            ),
            (4, 0, 0)
        );
        assert_eq!(result.spill_path, None);
        assert_eq!(
            summary.hint,
            "The whole output: 4 lines (34 characters). The output has no line feed: its 4 carriage returns split \
             it into lines, as the reader splits a CR-only file."
        );
    }

    #[test]
    fn collapsed_redraws_spill_the_raw_output_even_when_it_fits() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(input(200));
        capture.push(&mut fs, b"step 1\rstep 2\rdone\n").unwrap();
        let result = capture.finish(&mut fs, Some(0)).unwrap();
        assert_eq!(result.summary.content, "done\n");
        assert_eq!(result.spill_path.as_deref(), Some("/out/capture-1.log"));
        assert_eq!(
            std::fs::read(dir.path().join("capture-1.log")).unwrap(),
            b"step 1\rstep 2\rdone\n"
        );
        assert_eq!(
            result.summary.hint,
            "The output after redraws were collapsed: 1 line (5 characters); 2 carriage-return or erase-line \
             redraws were collapsed to the line's final state. The raw output, every redraw included, is in \
             /out/capture-1.log (offset=1). The command exited with status 0."
        );
    }

    #[test]
    fn a_binary_output_is_one_line_and_spilled_for_a_binary_tool() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(input(200));
        let mut bytes = b"\x7fELF\x02\x01\x01\x00".to_vec();
        bytes.resize(10_000, 0);
        for chunk in bytes.chunks(3_000) {
            capture.push(&mut fs, chunk).unwrap();
        }
        let result = capture.finish(&mut fs, Some(0)).unwrap();
        assert_eq!(
            result.summary.content,
            "[read-window: the output is binary (ELF executable or library), 10,000 bytes; it is in the spill \
             /out/capture-1.log, for a binary tool (file, xxd), not the reader]\n"
        );
        assert_eq!(
            result.summary.hint,
            "The output is binary (ELF executable or library), 10,000 bytes, so no text window is shown. The raw bytes are \
             in /out/capture-1.log: inspect them with a binary tool (`file /out/capture-1.log`, \
             `xxd /out/capture-1.log | head`), not with the reader. The command exited with status 0."
        );
        assert_eq!(
            (result.summary.total_chars, result.summary.omitted_range),
            (0, None)
        );
        assert_eq!(
            std::fs::read(dir.path().join("capture-1.log")).unwrap(),
            bytes
        );
    }

    #[test]
    fn a_small_binary_output_is_judged_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(input(200));
        capture.push(&mut fs, b"ab\x00\x00cd").unwrap();
        let result = capture.finish(&mut fs, None).unwrap();
        assert!(result.summary.content.starts_with(
            "[read-window: the output is binary (binary data (it contains NUL bytes)), 6 bytes;"
        ));
        assert_eq!(result.spill_path.as_deref(), Some("/out/capture-1.log"));
    }

    #[test]
    fn a_cap_on_a_line_boundary_names_the_last_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(CaptureInput {
            spill_cap_chars: Some(1_000),
            ..input(200)
        });
        // 400 lines of 5 characters: the cap of 1,000 falls after line 200.
        capture
            .push(&mut fs, "abcd\n".repeat(400).as_bytes())
            .unwrap();
        let result = capture.finish(&mut fs, None).unwrap();
        assert!(result.spill_capped);
        assert!(result.summary.content.contains(
            "the spill /out/capture-1.log holds them up to line 200 (it stopped at its cap of 1,000 characters); \
             lines after it are gone]"
        ));
        assert!(result
            .summary
            .hint
            .contains("offset=17 limit=184. The spill holds them only up to line 200 (it stopped"));
    }

    #[test]
    fn a_cap_inside_a_line_says_the_spills_last_line_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let mut fs = mount(dir.path());
        let mut capture = Capture::new(CaptureInput {
            spill_cap_chars: Some(1_000),
            ..input(200)
        });
        // 3-character lines: the cap falls after line 333 and one character of line 334.
        capture
            .push(&mut fs, "ab\n".repeat(500).as_bytes())
            .unwrap();
        let result = capture.finish(&mut fs, None).unwrap();
        assert!(result.summary.content.contains(
            "holds them up to line 334 (cut short: the spill ends inside it) (it stopped at its cap of 1,000 \
             characters); lines after it are gone]"
        ));
        assert!(result.summary.hint.contains(
            "The spill holds them only up to line 334 (cut short: the spill ends inside it) (it stopped at its \
             cap of 1,000 characters)."
        ));
        let spilled = std::fs::read(dir.path().join("capture-1.log")).unwrap();
        assert_eq!(spilled.len(), 1_000);
        assert_eq!(spilled.last(), Some(&b'a'));
    }

    #[test]
    fn cut_at_chars_counts_scalar_values() {
        assert_eq!(cut_at_chars("aé😀b".as_bytes(), 2), (3, 2));
        assert_eq!(cut_at_chars(b"abc", 5), (3, 3));
        assert_eq!(cut_at_chars(b"abc", 0), (0, 0));
    }
}
