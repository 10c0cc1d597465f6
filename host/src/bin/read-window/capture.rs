//! The CLI's `capture` and `run` subcommands: a command's output as a head, a marker and a tail, with the whole
//! output spilled to a file in `--spill-dir`, the one directory the component may write.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use read_window_host::capture::{self, CaptureEnd, PumpError};
use read_window_host::{CaptureConfig, Config, Grants, ReadWindow, SessionLimits};
use serde_json::Value;

use crate::failure::Failure;

/// The options `capture` and `run` share.
#[derive(clap::Args, Debug)]
pub struct CaptureArgs {
    /// The directory the spill file (`capture-N.log`) is created in; made when missing. It is granted read-write
    /// for this alone; every --root stays read-only.
    #[arg(long, value_name = "DIR")]
    pub spill_dir: PathBuf,
    /// Characters of head and tail together: 200 to 10000000 (default 50000).
    #[arg(long = "window", value_name = "N")]
    pub window_chars: Option<u32>,
    /// The head's share of the window: 0 to 0.9 (default 0.4).
    #[arg(long, value_name = "F")]
    pub head_share: Option<f64>,
    /// Characters the spill file keeps at most: from 1000 (default 5000000).
    #[arg(long = "spill-cap", value_name = "N")]
    pub spill_cap_chars: Option<u64>,
    /// Print one JSON object instead.
    #[arg(long)]
    pub json: bool,
}

impl CaptureArgs {
    /// Checks the ranges (a usage error names the option), makes the spill directory, and grants it read-write
    /// on top of `grants`. Returns the grants and the capture config (its spill directory a guest path).
    fn setup(&self, grants: &Grants) -> Result<(Grants, CaptureConfig), Failure> {
        self.check_ranges()?;
        let (grants, guest) = grant_spill_dir(grants, &self.spill_dir)?;
        Ok((grants, self.config(Some(guest))))
    }

    /// `setup` for `capture`, whose stdin is already flowing: a spill directory that cannot be made or granted
    /// does not lose the window. The capture goes on without a grant for it (the component then reports the
    /// spill's failure in `spill_error` if the output overflows), and the reason is returned for a warning.
    fn setup_lenient(
        &self,
        grants: &Grants,
    ) -> Result<(Grants, CaptureConfig, Option<String>), Failure> {
        self.check_ranges()?;
        match grant_spill_dir(grants, &self.spill_dir) {
            Ok((grants, guest)) => Ok((grants, self.config(Some(guest)), None)),
            Err(failure) => {
                let why = match failure {
                    Failure::Usage(why) => why,
                    _ => format!(
                        "--spill-dir {}: cannot be granted",
                        self.spill_dir.display()
                    ),
                };
                // The path as given: the component names it in its spill error (it is in no preopen).
                let path = std::path::absolute(&self.spill_dir)
                    .unwrap_or_else(|_| self.spill_dir.clone())
                    .to_string_lossy()
                    .into_owned();
                Ok((grants.clone(), self.config(Some(path)), Some(why)))
            }
        }
    }

    fn config(&self, spill_dir: Option<String>) -> CaptureConfig {
        CaptureConfig {
            window_chars: self.window_chars,
            head_share: self.head_share,
            spill_dir,
            spill_cap_chars: self.spill_cap_chars,
        }
    }

    fn check_ranges(&self) -> Result<(), Failure> {
        if let Some(chars) = self.window_chars {
            if !(200..=10_000_000).contains(&chars) {
                return Err(Failure::Usage(format!(
                    "--window {chars} is out of range (200 to 10000000)"
                )));
            }
        }
        if let Some(share) = self.head_share {
            if !(0.0..=0.9).contains(&share) {
                return Err(Failure::Usage(format!(
                    "--head-share {share} is out of range (0 to 0.9)"
                )));
            }
        }
        if let Some(cap) = self.spill_cap_chars {
            if cap < 1_000 {
                return Err(Failure::Usage(format!(
                    "--spill-cap {cap} is out of range (at least 1000)"
                )));
            }
        }
        Ok(())
    }
}

/// The end of a capture whose spill directory is `spill_dir`: the sentence that says how to read a spill outside
/// every `--root`, when it is (the component adds it only when a spill was written).
fn spill_end(grants: &Grants, spill_dir: &Path) -> CaptureEnd {
    let sentence = spill_root_sentence(grants, spill_dir);
    CaptureEnd {
        spill_notes: if sentence.is_empty() {
            Vec::new()
        } else {
            vec![sentence]
        },
        ..CaptureEnd::default()
    }
}

/// When the spill directory lies under no `--root` (`grants`, before the spill directory's own grant), a later
/// `read-window read` cannot reach the spill: the sentence that says how (`--root` the spill directory; the guest
/// path is the host path, so the spill path stays the same). Empty when a root covers it.
fn spill_root_sentence(grants: &Grants, spill_dir: &Path) -> String {
    let Ok(canonical) = spill_dir.canonicalize() else {
        return String::new();
    };
    if grants
        .dirs()
        .iter()
        .any(|grant| canonical.starts_with(grant.host()))
    {
        return String::new();
    }
    format!(
        " The spill directory is under no --root: read the spill with `read-window --root {} read PATH` (the \
         spill path stays the same).",
        canonical.display()
    )
}

/// Makes `dir` when it is missing and grants it read-write on top of `grants`: the grants, and the guest path the
/// spill directory has in them. Errors: a usage error naming `--spill-dir` when it cannot be made or granted.
pub fn grant_spill_dir(grants: &Grants, dir: &Path) -> Result<(Grants, String), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Failure::Usage(format!(
            "--spill-dir {}: cannot create it: {e}",
            dir.display()
        ))
    })?;
    let grants = grants
        .clone()
        .writable_dir(dir)
        .map_err(|e| Failure::Usage(format!("--spill-dir {e}")))?;
    let guest = grants
        .dirs()
        .last()
        .map(|grant| grant.guest().to_owned())
        .ok_or_else(|| Failure::Usage("--spill-dir could not be granted".into()))?;
    Ok((grants, guest))
}

fn pump_failure(error: PumpError) -> Failure {
    match error {
        PumpError::Io(error) => Failure::Io(error),
        PumpError::Spawn { program, error } => Failure::Io(io::Error::new(
            error.kind(),
            format!("cannot run {program}: {error}"),
        )),
        PumpError::Refused(answer) => Failure::Host(answer),
    }
}

/// A command that could not be started: exit 127 when it was not found, 126 when it is not executable (as shells
/// do), with `{"status":"error", "error":{"kind":"not_found"|"spawn_failed", "command", "message"}}` under
/// `--json`, else the message on stderr.
fn spawn_failed(program: &str, error: &io::Error, json: bool) -> Result<ExitCode, Failure> {
    let (kind, code) = match error.kind() {
        io::ErrorKind::NotFound => ("not_found", 127),
        io::ErrorKind::PermissionDenied => ("spawn_failed", 126),
        _ => ("spawn_failed", 127),
    };
    let message = match error.kind() {
        io::ErrorKind::NotFound => format!("command not found: {program}"),
        _ => format!("cannot run {program}: {error}"),
    };
    if json {
        let mut out = io::stdout().lock();
        let answer = serde_json::json!({
            "status": "error",
            "content_returned": false,
            "text": message,
            "error": {"kind": kind, "command": program, "message": message},
        });
        writeln!(out, "{answer}")?;
        out.flush()?;
    } else {
        eprintln!("read-window: {message}");
    }
    Ok(ExitCode::from(code))
}

/// Prints the capture's answer: one JSON object, or its text (an error's kind and message on stderr). The
/// answer as JSON, or `None` when it is an error.
fn print(answer: &str, json: bool) -> Result<Option<Value>, Failure> {
    let value: Value = serde_json::from_str(answer).map_err(|e| {
        Failure::Host(format!(
            "the component's answer is not JSON ({e}): {answer}"
        ))
    })?;
    let mut out = io::stdout().lock();
    let ok = value["status"] == "ok";
    match (ok, json) {
        (_, true) => writeln!(out, "{answer}")?,
        (true, false) => writeln!(out, "{}", value["text"].as_str().unwrap_or_default())?,
        (false, false) => eprintln!(
            "read-window: {}: {}",
            value["error"]["kind"].as_str().unwrap_or("error"),
            value["error"]["message"].as_str().unwrap_or_default()
        ),
    }
    out.flush()?;
    Ok(ok.then_some(value))
}

/// `capture`: the window of stdin. Exit 0 with a window, 1 when the component failed.
pub fn capture_stdin(
    reader: &ReadWindow,
    grants: &Grants,
    config: Config,
    args: &CaptureArgs,
) -> Result<ExitCode, Failure> {
    let (session_grants, capture_config, spill_problem) = args.setup_lenient(grants)?;
    if let Some(why) = &spill_problem {
        eprintln!("read-window: {why}; capturing without a spill");
    }
    let mut session =
        reader.protocol_session(&session_grants, &config, SessionLimits::default())?;
    let mut input = io::stdin().lock();
    let end = match spill_problem {
        Some(why) => CaptureEnd {
            warnings: vec![why],
            ..CaptureEnd::default()
        },
        None => spill_end(grants, &args.spill_dir),
    };
    let answer = capture::capture_stream(&mut session, &capture_config, &mut input, &end)
        .map_err(pump_failure)?;
    Ok(match print(&answer, args.json)? {
        Some(_) => ExitCode::SUCCESS,
        None => ExitCode::from(1),
    })
}

/// `run`: spawn the command, capture its stdout and stderr interleaved, print the window. The exit status is the
/// command's (a signal's death is 128 + the signal), or 1 when the component failed.
pub fn run_command(
    reader: &ReadWindow,
    grants: &Grants,
    config: Config,
    args: &CaptureArgs,
    command: &[String],
    timeout_seconds: Option<f64>,
) -> Result<ExitCode, Failure> {
    let Some((program, rest)) = command.split_first() else {
        return Err(Failure::Usage("run needs a command after --".into()));
    };
    let timeout = match timeout_seconds {
        None => None,
        Some(seconds) => Some(
            std::time::Duration::try_from_secs_f64(seconds)
                .ok()
                .filter(|limit| !limit.is_zero())
                .ok_or_else(|| {
                    Failure::Usage(format!(
                        "--timeout {seconds} is out of range (a number of seconds over 0)"
                    ))
                })?,
        ),
    };
    let (session_grants, capture_config) = args.setup(grants)?;
    let mut session =
        reader.protocol_session(&session_grants, &config, SessionLimits::default())?;
    let end = spill_end(grants, &args.spill_dir);
    let answer =
        match capture::run_command(&mut session, &capture_config, program, rest, timeout, end) {
            Ok(answer) => answer,
            Err(PumpError::Spawn { program, error }) => {
                return spawn_failed(&program, &error, args.json)
            }
            Err(error) => return Err(pump_failure(error)),
        };
    let Some(value) = print(&answer, args.json)? else {
        return Ok(ExitCode::from(1));
    };
    let status = value["exit_status"].as_i64().unwrap_or(0).clamp(0, 255);
    Ok(ExitCode::from(u8::try_from(status).unwrap_or(1)))
}
