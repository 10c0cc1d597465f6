//! Capture on the host: the JSON of a capture's answer and of the session ops `capture_begin`, `capture_chunk` and
//! `capture_end`, and the pumps that feed a stream or a spawned command's output into the component's `capture`
//! resource. The component only decodes, windows and spills; spawning is the host's job, and happens here.
//!
//! The answer of `capture_end` (and of the CLI's `capture --json` and `run --json`) is one object: `status` `ok`,
//! `content`, `total_chars`, `total_lines`, `total_bytes`, `omitted_chars`, `omitted_lines`, `omitted_first_line`
//! and `omitted_last_line` (both absent when nothing was omitted), `spill_path` (absent when nothing spilled),
//! `spill_capped`, `spill_error` (absent when none), `exit_status` (`null` when unknown), `hint`,
//! `collapsed_redraws`, `encoding` (as for reads), `warnings` (only when there are some) and `text`.

use std::io::{self, Read};
use std::process::Command;

use serde_json::{json, Map, Value};

use crate::{CaptureConfig, CaptureResult, HostError, ReadError, Session};

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

/// The fields of `capture_begin`: the WIT `capture-config` record in snake_case.
pub const CAPTURE_CONFIG_FIELDS: &[&str] =
    &["window_chars", "head_share", "spill_dir", "spill_cap_chars"];

/// A finished capture as JSON (see the module docs for the shape).
pub fn capture_json(result: &CaptureResult) -> Value {
    let mut map = Map::new();
    map.insert("status".into(), json!("ok"));
    map.insert("content".into(), json!(result.content));
    map.insert("total_chars".into(), json!(result.total_chars));
    map.insert("total_lines".into(), json!(result.total_lines));
    map.insert("total_bytes".into(), json!(result.total_bytes));
    map.insert("omitted_chars".into(), json!(result.omitted_chars));
    map.insert("omitted_lines".into(), json!(result.omitted_lines));
    if let (Some(first), Some(last)) = (result.omitted_first_line, result.omitted_last_line) {
        map.insert("omitted_first_line".into(), json!(first));
        map.insert("omitted_last_line".into(), json!(last));
    }
    if let Some(path) = &result.spill_path {
        map.insert("spill_path".into(), json!(path));
    }
    map.insert("spill_capped".into(), json!(result.spill_capped));
    if let Some(error) = &result.spill_error {
        map.insert("spill_error".into(), json!(error));
    }
    map.insert("exit_status".into(), json!(result.exit_status));
    map.insert("hint".into(), json!(result.hint));
    map.insert("collapsed_redraws".into(), json!(result.collapsed_redraws));
    map.insert(
        "encoding".into(),
        json!({
            "encoding": result.encoding.encoding.as_str(),
            "bom": result.encoding.bom,
            "origin": result.encoding.origin.as_str(),
            "line_endings": result.encoding.line_endings.as_str(),
            "replaced_invalid": result.encoding.replaced_invalid,
        }),
    );
    if !result.warnings.is_empty() {
        map.insert("warnings".into(), json!(result.warnings));
    }
    map.insert("text".into(), json!(result.text));
    Value::Object(map)
}

/// `capture_end`'s answer: the capture as JSON, or the error.
pub fn end_json(outcome: &Result<CaptureResult, ReadError>) -> Value {
    match outcome {
        Ok(result) => capture_json(result),
        Err(error) => crate::json::error_json(error),
    }
}

fn invalid(message: String) -> ReadError {
    ReadError::invalid_request(message)
}

fn optional_u64(map: &Map<String, Value>, field: &str) -> Result<Option<u64>, ReadError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value.as_u64().map(Some).ok_or_else(|| {
            invalid(format!(
                "`{field}` must be a non-negative integer, not {value}"
            ))
        }),
    }
}

/// Parses `capture_begin`'s fields (`window_chars`, `head_share`, `spill_dir`, `spill_cap_chars`, every one
/// optional). Errors (`invalid_request`, naming the field): a value of the wrong type, `window_chars` over
/// 4294967295. Ranges the component checks (a window under 200 characters) are left to it: it warns and uses the
/// default.
pub fn parse_capture_config(map: &Map<String, Value>) -> Result<CaptureConfig, ReadError> {
    let window_chars = optional_u64(map, "window_chars")?
        .map(|chars| {
            u32::try_from(chars).map_err(|_| {
                invalid(format!(
                    "`window_chars` must be at most 4294967295 (got {chars})"
                ))
            })
        })
        .transpose()?;
    let head_share = match map.get("head_share") {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_f64().ok_or_else(|| {
            invalid(format!(
                "`head_share` must be a number from 0 to 0.9, not {value}"
            ))
        })?),
    };
    let spill_dir = match map.get("spill_dir") {
        None | Some(Value::Null) => None,
        Some(Value::String(dir)) => Some(dir.clone()),
        Some(value) => {
            return Err(invalid(format!(
                "`spill_dir` must be a guest path (a string), not {value}"
            )))
        }
    };
    Ok(CaptureConfig {
        window_chars,
        head_share,
        spill_dir,
        spill_cap_chars: optional_u64(map, "spill_cap_chars")?,
    })
}

/// Parses `capture_chunk`'s bytes: `text` (UTF-8 text) or `base64` (standard base64), exactly one of them.
pub fn parse_chunk(map: &Map<String, Value>) -> Result<Vec<u8>, ReadError> {
    match (map.get("text"), map.get("base64")) {
        (Some(Value::String(text)), None) => Ok(text.clone().into_bytes()),
        (None, Some(Value::String(encoded))) => crate::scenario::decode_base64(encoded)
            .map_err(|why| invalid(format!("`base64` is not valid base64: {why}"))),
        (Some(_), Some(_)) => Err(invalid("give `text` or `base64`, not both".into())),
        (None, None) => Err(invalid(
            "`capture_chunk` needs `text` (a string) or `base64` (the bytes in base64)".into(),
        )),
        _ => Err(invalid("`text` and `base64` must be strings".into())),
    }
}

/// Parses `capture_end`'s optional `exit_status` (an integer from -2147483648 to 2147483647).
pub fn parse_exit_status(map: &Map<String, Value>) -> Result<Option<i32>, ReadError> {
    match map.get("exit_status") {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_i64()
            .and_then(|status| i32::try_from(status).ok())
            .map(Some)
            .ok_or_else(|| {
                invalid(format!(
                    "`exit_status` must be a 32-bit integer, not {value}"
                ))
            }),
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
    /// The component failed on the host side.
    Host(HostError),
    /// The component refused a chunk (it is finished: a host bug).
    Refused(ReadError),
}

impl std::fmt::Display for PumpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PumpError::Io(error) => write!(f, "{error}"),
            PumpError::Spawn { program, error } => write!(f, "cannot run {program}: {error}"),
            PumpError::Host(error) => write!(f, "{error}"),
            PumpError::Refused(error) => write!(f, "{}", error.message),
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
        session
            .capture_chunk(chunk)
            .map_err(PumpError::Host)?
            .map_err(PumpError::Refused)?;
        total += read as u64;
    }
}

/// Captures `input` whole with `config`: begin, pump, end with `exit_status`.
pub fn capture_stream(
    session: &mut Session,
    config: &CaptureConfig,
    input: &mut impl Read,
    exit_status: Option<i32>,
) -> Result<Result<CaptureResult, ReadError>, PumpError> {
    session.capture_begin(config).map_err(PumpError::Host)?;
    pump(session, input)?;
    session.capture_end(exit_status).map_err(PumpError::Host)
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
/// killed at its timeout of N seconds.` (and the exit status is 137 when the command itself was killed).
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
) -> Result<Result<CaptureResult, ReadError>, PumpError> {
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
    let began = session.capture_begin(config).map_err(PumpError::Host);
    let pumped = began.and_then(|()| pump(session, &mut reader));
    let status = child.wait().map_err(PumpError::Io);
    drop(done);
    if let Some(watchdog) = watchdog {
        let _ = watchdog.join();
    }
    let status = status?;
    pumped?;
    let mut outcome = session
        .capture_end(exit_code(&status))
        .map_err(PumpError::Host)?;
    if let (Ok(result), Some(limit)) = (&mut outcome, timeout) {
        if timed_out.load(Ordering::SeqCst) {
            let seconds = limit.as_secs_f64();
            let unit = if seconds == 1.0 { "second" } else { "seconds" };
            let sentence = format!(
                " The command was killed at its timeout of {seconds} {unit}: the output ends there."
            );
            if let Some(at) = result.text.rfind(result.hint.as_str()) {
                result.text.insert_str(at + result.hint.len(), &sentence);
            }
            result.hint.push_str(&sentence);
        }
    }
    Ok(outcome)
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
