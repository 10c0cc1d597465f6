//! Why the CLI stops early ([`Failure`], which `main` turns into an exit status) and the answers it prints for a
//! host failure in the JSON modes: what every command shares, in a leaf the commands and `main` both use.

use std::io::{self, Write};
use std::process::ExitCode;

use read_window_host::HostError;

/// Why the CLI stops early.
pub(crate) enum Failure {
    /// A bad root directory or setting: exit 2.
    Usage(String),
    /// The component could not be loaded or a call failed on the host side: exit 1.
    Host(String),
    /// Writing stdout or reading stdin failed.
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Io(error)
    }
}

impl From<HostError> for Failure {
    fn from(error: HostError) -> Self {
        Failure::Host(error.to_string())
    }
}

/// Prints `host` as its JSON answer `count` times; exit 1.
pub(crate) fn host_error_answers(host: &HostError, count: usize) -> Result<ExitCode, Failure> {
    let mut out = io::stdout().lock();
    for _ in 0..count {
        writeln!(out, "{}", host_error_json(host))?;
    }
    out.flush()?;
    Ok(ExitCode::from(1))
}

/// `host` as the component's `host_error` answer: its cause, message and whether the session restarted.
pub(crate) fn host_error_json(host: &HostError) -> serde_json::Value {
    read_window::protocol::host_error_json(
        host.kind().as_str(),
        host.message(),
        host.session_restarted(),
    )
}
