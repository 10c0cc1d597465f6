//! The CLI's `capture` and `run` subcommands: a command's output as a head, a marker and a tail, with the whole
//! output spilled to a file in `--spill-dir`, the one directory the component may write.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use read_window_host::capture::{self, PumpError};
use read_window_host::{CaptureConfig, CaptureResult, Config, Grants, ReadError, ReadWindow};

use crate::Failure;

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
        let (grants, guest) = grant_spill_dir(grants, &self.spill_dir)?;
        Ok((
            grants,
            CaptureConfig {
                window_chars: self.window_chars,
                head_share: self.head_share,
                spill_dir: Some(guest),
                spill_cap_chars: self.spill_cap_chars,
            },
        ))
    }
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
        PumpError::Host(error) => Failure::Host(error.to_string()),
        PumpError::Refused(error) => Failure::Host(error.message),
    }
}

/// Prints the capture: its text, or one JSON object.
fn print(outcome: &Result<CaptureResult, ReadError>, json: bool) -> Result<bool, Failure> {
    let mut out = io::stdout().lock();
    match outcome {
        Ok(result) if json => writeln!(out, "{}", capture::capture_json(result))?,
        Ok(result) => writeln!(out, "{}", result.text)?,
        Err(error) if json => writeln!(out, "{}", read_window_host::json::error_json(error))?,
        Err(error) => eprintln!("read-window: {}: {}", error.kind.as_str(), error.message),
    }
    out.flush()?;
    Ok(outcome.is_ok())
}

/// `capture`: the window of stdin. Exit 0 with a window, 1 when the component failed.
pub fn capture_stdin(
    reader: &ReadWindow,
    grants: &Grants,
    config: Config,
    args: &CaptureArgs,
) -> Result<ExitCode, Failure> {
    let (grants, capture_config) = args.setup(grants)?;
    let mut session = reader.session(&grants, config)?;
    let mut input = io::stdin().lock();
    let outcome = capture::capture_stream(&mut session, &capture_config, &mut input, None)
        .map_err(pump_failure)?;
    Ok(if print(&outcome, args.json)? {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
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
) -> Result<ExitCode, Failure> {
    let Some((program, rest)) = command.split_first() else {
        return Err(Failure::Usage("run needs a command after --".into()));
    };
    let (grants, capture_config) = args.setup(grants)?;
    let mut session = reader.session(&grants, config)?;
    let outcome =
        capture::run_command(&mut session, &capture_config, program, rest).map_err(pump_failure)?;
    let status = outcome.as_ref().ok().and_then(|result| result.exit_status);
    if !print(&outcome, args.json)? {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::from(
        u8::try_from(status.unwrap_or(0).clamp(0, 255)).unwrap_or(1),
    ))
}
