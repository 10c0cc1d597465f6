//! Capture on the host: the pumps that feed a stream or a spawned command's output into a protocol session's
//! capture (`capture_begin`, raw chunks through [`Session::push_output`], `capture_end`). The component decodes,
//! windows, spills and answers (`docs/protocol.md`); spawning, the timeout and the kill are the host's job, and
//! happen here.

use std::io::{self, Read};
use std::process::Command;

use serde_json::{json, Map, Value};

use crate::{CaptureConfig, Session};

/// Bytes read from a stream or a command per chunk pushed into the component (64 KiB).
pub const CHUNK_BYTES: usize = 64 * 1024;

impl Default for CaptureConfig {
    /// Every field absent: a 50,000-character window, 40% head, no spill directory, a 5,000,000-character cap.
    fn default() -> Self {
        CaptureConfig {
            window_chars: None,
            head_share: None,
            spill_dir: None,
            spill_cap_chars: None,
        }
    }
}

/// The `capture_begin` line for `config` (its fields that are set).
pub fn begin_line(config: &CaptureConfig) -> String {
    let mut request = Map::new();
    request.insert("op".into(), json!("capture_begin"));
    let fields = [
        ("window_chars", json!(config.window_chars)),
        ("head_share", json!(config.head_share)),
        ("spill_dir", json!(config.spill_dir)),
        ("spill_cap_chars", json!(config.spill_cap_chars)),
    ];
    for (name, value) in fields {
        if !value.is_null() {
            request.insert(name.into(), value);
        }
    }
    Value::Object(request).to_string()
}

/// How a captured command ended, for the `capture_end` line: its exit status, the timeout that killed it, the
/// host's own sentences for the hint and its warnings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaptureEnd {
    /// The command's exit status, when known (a signal's death is 128 + the signal).
    pub exit_status: Option<i32>,
    /// The timeout in seconds at which the command was killed, when it was.
    pub timeout_seconds: Option<f64>,
    /// Sentences appended to the hint (advice about the host's own options).
    pub hint_notes: Vec<String>,
    /// Sentences about the spill (how to reach its directory), appended to the hint only when a spill was written.
    pub spill_notes: Vec<String>,
    /// Warnings added to the answer's.
    pub warnings: Vec<String>,
    /// Whether the answer carries the window on its own as `content` too (it is always in `text`).
    pub content: bool,
}

impl CaptureEnd {
    /// The `capture_end` line.
    pub fn line(&self) -> String {
        json!({
            "op": "capture_end",
            "exit_status": self.exit_status,
            "timeout_seconds": self.timeout_seconds,
            "hint_notes": self.hint_notes,
            "spill_notes": self.spill_notes,
            "warnings": self.warnings,
            "content": self.content,
        })
        .to_string()
    }
}

/// Why a pump stopped.
#[derive(Debug)]
pub enum PumpError {
    /// Reading the stream, or waiting for the command, failed.
    Io(io::Error),
    /// The command could not be started: `program` was not found (`io::ErrorKind::NotFound`), is not executable
    /// (`PermissionDenied`), or the spawn failed otherwise. Nothing was captured.
    Spawn {
        /// The program as given.
        program: String,
        /// Why.
        error: io::Error,
    },
    /// The component refused `capture_begin` or a chunk, or failed on the host side: its answer.
    Refused(String),
}

impl std::fmt::Display for PumpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PumpError::Io(error) => write!(f, "{error}"),
            PumpError::Spawn { program, error } => write!(f, "cannot run {program}: {error}"),
            PumpError::Refused(answer) => write!(f, "{answer}"),
        }
    }
}

impl std::error::Error for PumpError {}

/// Pushes everything `input` yields into the open capture of `session`, in chunks of at most [`CHUNK_BYTES`],
/// as it arrives. Returns the bytes pushed.
pub fn pump(session: &mut Session, input: &mut impl Read) -> Result<u64, PumpError> {
    let mut buffer = vec![0u8; CHUNK_BYTES];
    let mut total = 0u64;
    loop {
        let read = match input.read(&mut buffer) {
            Ok(0) => return Ok(total),
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(PumpError::Io(error)),
        };
        let chunk = buffer.get(..read).unwrap_or(&buffer);
        refused(session.push_output(chunk))?;
        total += read as u64;
    }
}

/// `Err` with `answer` when it is not `{"status":"ok"}`.
fn refused(answer: String) -> Result<(), PumpError> {
    match serde_json::from_str::<Value>(&answer) {
        Ok(value) if value["status"] == "ok" => Ok(()),
        _ => Err(PumpError::Refused(answer)),
    }
}

/// Captures `input` whole with `config` in a protocol session: begin, pump, end as `end` says. The answer is the
/// capture's (or the error's), as the protocol gives it.
pub fn capture_stream(
    session: &mut Session,
    config: &CaptureConfig,
    input: &mut impl Read,
    end: &CaptureEnd,
) -> Result<String, PumpError> {
    refused(session.answer(&begin_line(config)))?;
    pump(session, input)?;
    Ok(session.answer(&end.line()))
}

/// Spawns `program` with `args` on the host, its stdout and stderr both writing into one stream (a Unix socket
/// pair, so the order holds on every Rust this crate supports) so the capture sees them interleaved in arrival
/// order, as a terminal would (`2>&1`), and captures the output with `config`. The command inherits this process's
/// stdin (`printf 'y\n' | read-window run ... -- cmd` feeds it). The result carries the exit status (a signal's
/// death is `128 + signal`, as shells report it).
///
/// The capture ends when the output closes, not when the command exits: a background child that keeps the output
/// open keeps the capture waiting. With `timeout`, the command runs in a process group of its own, and at the
/// deadline the whole group is killed (`SIGKILL`) and the stream is closed; the hint then ends with `The command was
/// killed at its timeout of N seconds.` (and the exit status is 137 when the command itself was killed). `end`
/// carries the host's own hint sentences and warnings; its exit status and timeout are filled in here.
///
/// Errors: [`PumpError::Spawn`] when the command cannot be started (not found, not executable); the command cannot
/// be waited for, the stream fails, or the component fails on the host side.
#[cfg(unix)]
pub fn run_command(
    session: &mut Session,
    config: &CaptureConfig,
    program: &str,
    args: &[String],
    timeout: Option<std::time::Duration>,
    end: CaptureEnd,
) -> Result<String, PumpError> {
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};

    let (mut reader, writer) = UnixStream::pair().map_err(PumpError::Io)?;
    let error_writer = writer.try_clone().map_err(PumpError::Io)?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::from(OwnedFd::from(writer)))
        .stderr(Stdio::from(OwnedFd::from(error_writer)));
    if timeout.is_some() {
        // A group of its own, so the deadline kills the command's children too.
        command.process_group(0);
    }
    let mut child = command.spawn().map_err(|error| PumpError::Spawn {
        program: program.to_string(),
        error,
    })?;
    // The Command holds copies of the write end: drop them, so the reader sees the end of the stream when the
    // child's copies are closed.
    drop(command);
    let timed_out = Arc::new(AtomicBool::new(false));
    let (done, cancelled) = mpsc::channel::<()>();
    let watchdog = match timeout {
        Some(limit) => {
            let group = i32::try_from(child.id()).unwrap_or(0);
            let stream = reader.try_clone().map_err(PumpError::Io)?;
            let flag = Arc::clone(&timed_out);
            Some(std::thread::spawn(move || {
                if cancelled.recv_timeout(limit) == Err(mpsc::RecvTimeoutError::Timeout) {
                    flag.store(true, Ordering::SeqCst);
                    if group > 0 {
                        // SAFETY: killpg only sends a signal to the process group the child leads.
                        unsafe {
                            libc::killpg(group, libc::SIGKILL);
                        }
                    }
                    // A child that left the group may still hold the output open: stop reading it.
                    let _ = stream.shutdown(std::net::Shutdown::Read);
                }
            }))
        }
        None => None,
    };
    let began = refused(session.answer(&begin_line(config)));
    let pumped = began.and_then(|()| pump(session, &mut reader));
    let status = child.wait().map_err(PumpError::Io);
    drop(done);
    if let Some(watchdog) = watchdog {
        let _ = watchdog.join();
    }
    let status = status?;
    pumped?;
    let end = CaptureEnd {
        exit_status: exit_code(&status),
        timeout_seconds: timeout
            .filter(|_| timed_out.load(Ordering::SeqCst))
            .map(|limit| limit.as_secs_f64()),
        ..end
    };
    Ok(session.answer(&end.line()))
}

/// The exit status as shells report it: the code, or `128 + signal` for a command killed by a signal.
fn exit_code(status: &std::process::ExitStatus) -> Option<i32> {
    if let Some(code) = status.code() {
        return Some(code);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal().map(|signal| 128 + signal)
    }
    #[cfg(not(unix))]
    {
        None
    }
}
