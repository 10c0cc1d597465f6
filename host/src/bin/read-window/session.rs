//! `session`: the JSON protocol over stdin and stdout, one session for the whole stream.

use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;

use read_window_host::{Config, Grants, HostError, ReadWindow};

use crate::failure::Failure;

/// The longest request line the session mode accepts, in bytes.
const MAX_REQUEST_LINE: usize = 64 * 1024 * 1024;

/// `session` without a session: answers each request line as it arrives (blank lines skipped) with `host`'s
/// error, the request's `id` first when it has one; exit 1 at the end of input. Each answer is written when its
/// line is read, so a client that keeps the pipe open gets it.
pub(crate) fn answer_every_request(host: &HostError) -> Result<ExitCode, Failure> {
    let mut input = io::stdin().lock();
    let mut out = io::stdout().lock();
    let mut line = Vec::new();
    while read_request_line(&mut input, &mut line)?.is_some() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let request = std::str::from_utf8(&line).unwrap_or_default();
        let mut answer = read_window::protocol::host_error_answer(
            request,
            host.kind().as_str(),
            host.message(),
            host.session_restarted(),
        );
        answer.push('\n');
        out.write_all(answer.as_bytes())?;
        out.flush()?;
    }
    Ok(ExitCode::from(1))
}

/// `session`: JSON Lines in, JSON Lines out, one session for the whole stream. `configure` (before the first other
/// op but `config` and `stats`) starts the session again with its fields over the options; `config` answers the
/// config in force.
pub(crate) fn session(
    reader: &ReadWindow,
    grants: &Grants,
    config: Config,
) -> Result<ExitCode, Failure> {
    let mut session = match reader.protocol_session(
        grants,
        &config,
        read_window_host::SessionLimits::default(),
    ) {
        Ok(session) => session,
        Err(host) => return answer_every_request(&host),
    };
    let mut input = io::stdin().lock();
    let mut out = io::stdout().lock();
    let mut line = Vec::new();
    while let Some(too_long) = read_request_line(&mut input, &mut line)? {
        let answer = if too_long {
            refusal(&format!(
                "the request line is longer than {MAX_REQUEST_LINE} bytes"
            ))
        } else {
            match std::str::from_utf8(&line) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => session.answer(text),
                Err(e) => refusal(&format!("the request line is not valid UTF-8: {e}")),
            }
        };
        // The answer and its line feed in one write: a reader on the pipe wakes once.
        let mut answer = answer;
        answer.push('\n');
        out.write_all(answer.as_bytes())?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The `invalid_request` answer to a line the session never saw (too long, not UTF-8).
fn refusal(message: &str) -> String {
    let error = read_window::ReadError::invalid(message);
    read_window::protocol::error_json(&error).to_string()
}

/// Reads one line (at most [`MAX_REQUEST_LINE`] bytes) into `line`. `None` at the end of input; `Some(true)`
/// when the line was too long (it is skipped to its end and `line` is left empty).
fn read_request_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<Option<bool>> {
    line.clear();
    let cap = MAX_REQUEST_LINE as u64;
    let read = input.by_ref().take(cap + 1).read_until(b'\n', line)?;
    if read == 0 {
        return Ok(None);
    }
    if line.len() > MAX_REQUEST_LINE && line.last() != Some(&b'\n') {
        line.clear();
        let mut rest = Vec::new();
        loop {
            rest.clear();
            let skipped = input
                .by_ref()
                .take(64 * 1024)
                .read_until(b'\n', &mut rest)?;
            if skipped == 0 || rest.last() == Some(&b'\n') {
                break;
            }
        }
        return Ok(Some(true));
    }
    Ok(Some(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_are_capped() {
        let mut input = io::Cursor::new(b"{\"op\":\"stats\"}\n\nlast".to_vec());
        let mut line = Vec::new();
        assert_eq!(
            read_request_line(&mut input, &mut line).ok(),
            Some(Some(false))
        );
        assert_eq!(line, b"{\"op\":\"stats\"}\n");
        assert_eq!(
            read_request_line(&mut input, &mut line).ok(),
            Some(Some(false))
        );
        assert_eq!(line, b"\n");
        assert_eq!(
            read_request_line(&mut input, &mut line).ok(),
            Some(Some(false))
        );
        assert_eq!(line, b"last");
        assert_eq!(read_request_line(&mut input, &mut line).ok(), Some(None));
    }
}
