//! `page`: every window of a file from line 1 to the end, each clamped line in full ([`Pager`]), through the
//! component's protocol (`read` lines in a session with dedup off).

use std::io::{self, Write};
use std::process::ExitCode;

use read_window_host::{Config, Grants, ReadRequest, ReadWindow, Session, SessionLimits};
use serde_json::Value;

use crate::failure::{host_error_answers, Failure};
use crate::read::{parse_answer, request_line, write_text};

/// `page`: every window from line 1 to the end, plus the rest of every clamped line, so the whole text is
/// printed exactly once. Dedup is off so no window comes back as a stub. A read error is printed like `read`
/// prints it and ends the paging with exit 1, or [`PAGE_FILE_CHANGED`] when it tells of a change of the file
/// since the previous window (a file that shrank under the cursor): the windows above are of an older version.
pub(crate) fn page(
    reader: &ReadWindow,
    grants: &Grants,
    mut config: Config,
    path: &str,
    limit: Option<u64>,
    as_json: bool,
) -> Result<ExitCode, Failure> {
    config.dedup = Some(false);
    let session = match reader.protocol_session(grants, &config, SessionLimits::default()) {
        Ok(session) => session,
        Err(host) if as_json => return host_error_answers(&host, 1),
        Err(host) => return Err(host.into()),
    };
    let mut pager = Pager {
        session,
        out: io::stdout().lock(),
        as_json,
        first: true,
    };
    let mut cursor = (1u64, None::<u64>);
    loop {
        let request = window_request(path, cursor.0, cursor.1, limit);
        let answer = pager.answer(&request)?;
        let window = match Outcome::of(&answer) {
            Outcome::Window => {
                pager.print(&answer)?;
                answer
            }
            // A window that would show a private key: the lines before it, or past it.
            Outcome::Refused(kind) if kind == "credential" && cursor.1.is_none() => {
                match pager.around_key(&request, &answer)? {
                    AroundKey::Window(window) => window,
                    AroundKey::From(line) => {
                        cursor = (line, None);
                        continue;
                    }
                    AroundKey::End => return Ok(ExitCode::SUCCESS),
                    AroundKey::Failed => return Ok(ExitCode::from(1)),
                }
            }
            Outcome::Refused(_) => {
                pager.print(&answer)?;
                let message = answer["error"]["message"].as_str().unwrap_or_default();
                if message.contains(FILE_CHANGED_MARKER) {
                    eprintln!("read-window: page stopped: {path} changed while it was being paged, so the windows above are of an older version of it; page it again.");
                    return Ok(ExitCode::from(PAGE_FILE_CHANGED));
                }
                return Ok(ExitCode::from(1));
            }
            Outcome::Host => {
                pager.print(&answer)?;
                return Ok(ExitCode::from(1));
            }
            Outcome::Unexpected => return Err(unexpected(&answer)),
        };
        if !pager.follow_clamped_lines(path, &window)? {
            return Ok(ExitCode::from(1));
        }
        let Some(next_offset) = window["next_offset"].as_u64() else {
            return Ok(ExitCode::SUCCESS);
        };
        let next = (next_offset, window["next_column"].as_u64());
        if (next.0, next.1.unwrap_or(0)) <= (cursor.0, cursor.1.unwrap_or(0)) {
            return Err(Failure::Host(format!(
                "the component's cursor does not advance (line {}, column {} after line {}, column {})",
                next.0,
                next.1.unwrap_or(0),
                cursor.0,
                cursor.1.unwrap_or(0)
            )));
        }
        cursor = next;
    }
}

/// The exit status of `page` stopped by a read error that tells of a change of the file under it.
const PAGE_FILE_CHANGED: u8 = 3;

/// What the component's change notice starts with.
const FILE_CHANGED_MARKER: &str = "[read-window: file changed]";

/// The request of the window of `path` at `offset` (and `column`), at most `limit` lines.
fn window_request(path: &str, offset: u64, column: Option<u64>, limit: Option<u64>) -> ReadRequest {
    ReadRequest {
        path: path.to_owned(),
        offset: Some(offset),
        limit,
        column,
        tail: None,
        extract: None,
        asked_via: None,
        fresh: None,
        region: None,
        depth: None,
    }
}

/// What an answer is, for the pager.
enum Outcome<'a> {
    /// A window.
    Window,
    /// A read error of this kind.
    Refused(&'a str),
    /// The host or the component failed (`host_error`).
    Host,
    /// A stub or anything else a session with dedup off never answers a read.
    Unexpected,
}

impl<'a> Outcome<'a> {
    fn of(answer: &'a Value) -> Self {
        match (answer["status"].as_str(), answer["error"]["kind"].as_str()) {
            (Some("ok"), _) if answer["content_returned"] == true => Outcome::Window,
            (Some("error"), Some("host_error")) => Outcome::Host,
            (Some("error"), Some(kind)) => Outcome::Refused(kind),
            _ => Outcome::Unexpected,
        }
    }
}

/// The failure of an answer a paging session never gives.
fn unexpected(answer: &Value) -> Failure {
    Failure::Host(format!(
        "the component answered a read with neither a window nor an error although dedup is off: {answer}"
    ))
}

/// How `page` goes on after a window refused for a private key.
enum AroundKey {
    /// The lines before the key, printed (their cursor continues past it).
    Window(Value),
    /// The key starts at the cursor: the refusal was printed; readable text goes on at this line.
    From(u64),
    /// The key starts at the cursor and runs to the end of the file: the refusal was printed.
    End,
    /// An error was printed.
    Failed,
}

/// The state of `page`: its session and its output.
struct Pager<W: Write> {
    session: Session,
    out: W,
    as_json: bool,
    first: bool,
}

impl<W: Write> Pager<W> {
    /// The component's answer to `request` as a `read` line, parsed.
    fn answer(&mut self, request: &ReadRequest) -> Result<Value, Failure> {
        parse_answer(
            &self
                .session
                .answer(&request_line("read", request).to_string()),
        )
    }

    /// Prints an answer: its JSON with `--json`, else its text on stdout as `read` prints it (after a blank line
    /// but for the first answer); a host failure's message goes to stderr.
    fn print(&mut self, answer: &Value) -> Result<(), Failure> {
        if self.as_json {
            writeln!(self.out, "{answer}")?;
        } else if matches!(Outcome::of(answer), Outcome::Host) {
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            eprintln!("read-window: {message}");
        } else {
            if !self.first {
                writeln!(self.out)?;
            }
            write_text(&mut self.out, answer)?;
        }
        self.out.flush()?;
        self.first = false;
        Ok(())
    }

    /// After `request` (a window from the start of a line) was refused as `refusal` because it would show a
    /// private key: prints the longest window from the same line that stops before the key (found by halving
    /// the limit; its cursor goes on past the key), or, when the key starts at that line, prints the refusal
    /// and finds the next line that reads (one line at a time, at most the longest key).
    fn around_key(&mut self, request: &ReadRequest, refusal: &Value) -> Result<AroundKey, Failure> {
        let offset = request.offset.unwrap_or(1);
        let limit = request
            .limit
            .or(self.session.config().max_lines.map(u64::from))
            .unwrap_or(read_window::DEFAULT_MAX_LINES);
        let probe = |offset: u64, limit: u64| ReadRequest {
            limit: Some(limit),
            ..window_request(&request.path, offset, None, None)
        };
        let (mut readable, mut refused) = (0u64, limit);
        let mut best = None;
        while refused - readable > 1 {
            let middle = readable + (refused - readable) / 2;
            let answer = self.answer(&probe(offset, middle))?;
            match Outcome::of(&answer) {
                Outcome::Window => {
                    readable = middle;
                    best = Some(answer);
                }
                Outcome::Refused("credential") => refused = middle,
                Outcome::Refused(_) | Outcome::Host => {
                    self.print(&answer)?;
                    return Ok(AroundKey::Failed);
                }
                Outcome::Unexpected => return Err(unexpected(&answer)),
            }
        }
        if let Some(window) = best {
            self.print(&window)?;
            return Ok(AroundKey::Window(window));
        }
        self.print(refusal)?;
        self.readable_line_after(offset, &probe)
    }

    /// The first line after the private key at `offset` that reads (one line at a time, at most the longest key).
    fn readable_line_after(
        &mut self,
        offset: u64,
        probe: &dyn Fn(u64, u64) -> ReadRequest,
    ) -> Result<AroundKey, Failure> {
        for line in offset + 1..=offset + read_window::MAX_KEY_LINES + 1 {
            let answer = self.answer(&probe(line, 1))?;
            match Outcome::of(&answer) {
                Outcome::Window => return Ok(AroundKey::From(line)),
                Outcome::Refused("credential") => {}
                // Past the last line: the key ran to the end of the file.
                Outcome::Refused("invalid_request") => return Ok(AroundKey::End),
                Outcome::Refused(_) | Outcome::Host => {
                    self.print(&answer)?;
                    return Ok(AroundKey::Failed);
                }
                Outcome::Unexpected => return Err(unexpected(&answer)),
            }
        }
        Ok(AroundKey::Failed)
    }

    /// Reads the rest of every line `window` clamped (but one its own cursor continues inside, which the main
    /// loop reads). False after printing a read error.
    fn follow_clamped_lines(&mut self, path: &str, window: &Value) -> Result<bool, Failure> {
        let Some(clamped_lines) = window["clamped_lines"].as_array() else {
            return Ok(true);
        };
        let next_offset = window["next_offset"].as_u64();
        for clamped in clamped_lines {
            let (Some(line), Some(column)) =
                (clamped["line"].as_u64(), clamped["next_column"].as_u64())
            else {
                return Err(unexpected(window));
            };
            if next_offset == Some(line) && !window["next_column"].is_null() {
                continue;
            }
            if !self.follow_line(path, line, column)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Reads the rest of clamped line `line` from `column`, one single-line window at a time, following its
    /// cursor until the line is done. False after printing a read error.
    fn follow_line(&mut self, path: &str, line: u64, mut column: u64) -> Result<bool, Failure> {
        loop {
            let answer = self.answer(&window_request(path, line, Some(column), Some(1)))?;
            match Outcome::of(&answer) {
                Outcome::Window => self.print(&answer)?,
                Outcome::Refused(_) | Outcome::Host => {
                    self.print(&answer)?;
                    return Ok(false);
                }
                Outcome::Unexpected => return Err(unexpected(&answer)),
            }
            let clamped = answer["clamped_lines"].as_array().and_then(|lines| {
                lines
                    .iter()
                    .find(|clamped| clamped["line"].as_u64() == Some(line))
            });
            let next = match clamped {
                Some(clamped) => clamped["next_column"].as_u64(),
                None if answer["next_offset"].as_u64() == Some(line) => {
                    answer["next_column"].as_u64()
                }
                None => None,
            };
            match next {
                None => return Ok(true),
                Some(next) if next > column => column = next,
                Some(next) => {
                    return Err(Failure::Host(format!(
                        "the component's cursor inside line {line} does not advance (column {next} after {column})"
                    )));
                }
            }
        }
    }
}
