//! `read`: one stateless window, as text or JSON.

use std::io::{self, Write};
use std::process::ExitCode;

use read_window::CONFIG_WARNING_PREFIX;
use read_window_host::{json, timings};
use read_window_host::{Config, Grants, ReadRequest, ReadResult, ReadWindow};

use crate::failure::Failure;

/// `read`: one stateless window.
pub(crate) fn read(
    reader: &ReadWindow,
    grants: &Grants,
    config: &Config,
    request: &ReadRequest,
    as_json: bool,
) -> Result<ExitCode, Failure> {
    let outcome = reader.read_once(grants, config, request);
    timings::mark("drop_store");
    let outcome = match outcome {
        Ok(outcome) => outcome,
        // With --json a host failure is still one JSON object on stdout (`host_error`), then exit 1.
        Err(host) if as_json => {
            let mut out = io::stdout().lock();
            writeln!(out, "{}", json::host_error_json(&host))?;
            out.flush()?;
            return Ok(ExitCode::from(1));
        }
        Err(host) => return Err(host.into()),
    };
    let mut out = io::stdout().lock();
    match &outcome {
        _ if as_json => writeln!(out, "{}", json::once_json(&outcome))?,
        Ok(window) => write_text(&mut out, window)?,
        // The error's text is what the model should see, like a window's: stdout, and exit 1.
        Err(error) => writeln!(out, "{}", error.message)?,
    }
    out.flush()?;
    timings::mark("print");
    Ok(match outcome {
        Ok(_) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(1),
    })
}

/// A window as text: its `text` (the content, a blank line, the hint, the warnings for the model) and a line
/// feed. Warnings about the config are for whoever runs the CLI, not the model: they go to stderr.
pub(crate) fn write_text(out: &mut impl Write, window: &ReadResult) -> io::Result<()> {
    for warning in &window.warnings {
        if warning.starts_with(CONFIG_WARNING_PREFIX) {
            eprintln!("read-window: warning: {warning}");
        }
    }
    writeln!(out, "{}", window.text)
}
