//! `page`: every window of a file from line 1 to the end, each clamped line in full ([`Pager`]).

use std::io::{self, Write};
use std::process::ExitCode;

use read_window_host::json;
use read_window_host::{
    Config, ErrorKind, Grants, ReadError, ReadOutcome, ReadRequest, ReadResult, ReadWindow, Session,
};

use crate::failure::{host_error_answers, Failure};
use crate::read::write_text;

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
    let session = match reader.session(grants, config) {
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
        let request = ReadRequest {
            path: path.to_owned(),
            offset: Some(cursor.0),
            limit,
            column: cursor.1,
            tail: None,
            extract: None,
            asked_via: None,
        };
        let window = match pager.try_read(&request)? {
            None => return Ok(ExitCode::from(1)),
            Some(Ok(window)) => window,
            // A window that would show a private key: the lines before it, or past it.
            Some(Err(error)) if error.kind == ErrorKind::Credential && cursor.1.is_none() => {
                match pager.around_key(&request, &error)? {
                    AroundKey::Window(window) => *window,
                    AroundKey::From(line) => {
                        cursor = (line, None);
                        continue;
                    }
                    AroundKey::End => return Ok(ExitCode::SUCCESS),
                    AroundKey::Failed => return Ok(ExitCode::from(1)),
                }
            }
            Some(Err(error)) => {
                pager.print_error(&error)?;
                if error.message.contains(FILE_CHANGED_MARKER) {
                    eprintln!("read-window: page stopped: {path} changed while it was being paged, so the windows above are of an older version of it; page it again.");
                    return Ok(ExitCode::from(PAGE_FILE_CHANGED));
                }
                return Ok(ExitCode::from(1));
            }
        };
        for clamped in &window.clamped_lines {
            // When the window's own cursor continues inside this line, the main loop reads its rest.
            if window.next_offset == Some(clamped.line) && window.next_column.is_some() {
                continue;
            }
            if !pager.follow_line(path, clamped.line, clamped.next_column)? {
                return Ok(ExitCode::from(1));
            }
        }
        let Some(next_offset) = window.next_offset else {
            return Ok(ExitCode::SUCCESS);
        };
        let next = (next_offset, window.next_column);
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

/// How `page` goes on after a window refused for a private key.
enum AroundKey {
    /// The lines before the key, printed (their cursor continues past it).
    Window(Box<ReadResult>),
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
    /// Reads and prints one window; `None` after printing a read error.
    fn read(&mut self, request: &ReadRequest) -> Result<Option<ReadResult>, Failure> {
        match self.try_read(request)? {
            None => Ok(None),
            Some(Ok(window)) => Ok(Some(window)),
            Some(Err(error)) => {
                self.print_error(&error)?;
                Ok(None)
            }
        }
    }

    /// Prints a read error: its JSON answer with `--json`, else its text for the model on stdout as `read`
    /// prints it (after a blank line but for the first answer).
    fn print_error(&mut self, error: &ReadError) -> Result<(), Failure> {
        if self.as_json {
            writeln!(self.out, "{}", json::error_json(error))?;
        } else {
            if !self.first {
                writeln!(self.out)?;
            }
            writeln!(self.out, "{}", error.message)?;
        }
        self.out.flush()?;
        self.first = false;
        Ok(())
    }

    /// Reads a window without printing it: `None` after printing a host error.
    fn quiet(
        &mut self,
        request: &ReadRequest,
    ) -> Result<Option<Result<ReadOutcome, ReadError>>, Failure> {
        match self.session.read(request) {
            Ok(outcome) => Ok(Some(outcome)),
            Err(host) => {
                if self.as_json {
                    writeln!(self.out, "{}", json::host_error_json(&host))?;
                    self.out.flush()?;
                } else {
                    eprintln!("read-window: {host}");
                }
                Ok(None)
            }
        }
    }

    /// After `request` (a window from the start of a line) was refused as `refusal` because it would show a
    /// private key: prints the longest window from the same line that stops before the key (found by halving
    /// the limit; its cursor goes on past the key), or, when the key starts at that line, prints the refusal
    /// and finds the next line that reads (one line at a time, at most the longest key).
    fn around_key(
        &mut self,
        request: &ReadRequest,
        refusal: &ReadError,
    ) -> Result<AroundKey, Failure> {
        let offset = request.offset.unwrap_or(1);
        let limit = request
            .limit
            .or(self.session.config().max_lines.map(u64::from))
            .unwrap_or(read_window::DEFAULT_MAX_LINES);
        let probe = |offset: u64, limit: u64| ReadRequest {
            offset: Some(offset),
            limit: Some(limit),
            column: None,
            ..request.clone()
        };
        let (mut readable, mut refused) = (0u64, limit);
        let mut best = None;
        while refused - readable > 1 {
            let middle = readable + (refused - readable) / 2;
            match self.quiet(&probe(offset, middle))? {
                None => return Ok(AroundKey::Failed),
                Some(Ok(ReadOutcome::Window(window))) => {
                    readable = middle;
                    best = Some(window);
                }
                Some(Err(error)) if error.kind == ErrorKind::Credential => refused = middle,
                Some(Err(error)) => {
                    self.print_error(&error)?;
                    return Ok(AroundKey::Failed);
                }
                Some(Ok(ReadOutcome::Unchanged(_))) => {
                    return Err(Failure::Host(
                        "the component answered a stub although dedup is off".into(),
                    ))
                }
            }
        }
        if let Some(window) = best {
            self.show(&window)?;
            return Ok(AroundKey::Window(Box::new(window)));
        }
        self.print_error(refusal)?;
        for line in offset + 1..=offset + read_window::MAX_KEY_LINES + 1 {
            match self.quiet(&probe(line, 1))? {
                None => return Ok(AroundKey::Failed),
                Some(Ok(_)) => return Ok(AroundKey::From(line)),
                Some(Err(error)) if error.kind == ErrorKind::Credential => {}
                // Past the last line: the key ran to the end of the file.
                Some(Err(error)) if error.kind == ErrorKind::InvalidRequest => {
                    return Ok(AroundKey::End)
                }
                Some(Err(error)) => {
                    self.print_error(&error)?;
                    return Ok(AroundKey::Failed);
                }
            }
        }
        Ok(AroundKey::Failed)
    }

    /// Prints a window: its JSON answer with `--json`, else its text (after a blank line but for the first).
    fn show(&mut self, window: &ReadResult) -> Result<(), Failure> {
        if self.as_json {
            writeln!(self.out, "{}", json::window_json(window))?;
        } else {
            if !self.first {
                writeln!(self.out)?;
            }
            write_text(&mut self.out, window)?;
        }
        self.out.flush()?;
        self.first = false;
        Ok(())
    }

    /// Reads and prints one window; a read error is returned unprinted; `None` after printing a host error.
    fn try_read(
        &mut self,
        request: &ReadRequest,
    ) -> Result<Option<Result<ReadResult, ReadError>>, Failure> {
        let outcome = match self.session.read(request) {
            Ok(outcome) => outcome,
            Err(host) => {
                if self.as_json {
                    writeln!(self.out, "{}", json::host_error_json(&host))?;
                    self.out.flush()?;
                } else {
                    eprintln!("read-window: {host}");
                }
                return Ok(None);
            }
        };
        let window = match outcome {
            Ok(ReadOutcome::Window(window)) => window,
            Ok(ReadOutcome::Unchanged(stub)) => {
                return Err(Failure::Host(format!(
                    "the component answered a stub for lines {}-{} although dedup is off",
                    stub.start_line, stub.end_line
                )));
            }
            Err(error) => return Ok(Some(Err(error))),
        };
        self.show(&window)?;
        Ok(Some(Ok(window)))
    }

    /// Reads the rest of clamped line `line` from `column`, one single-line window at a time, following its
    /// cursor until the line is done. False after printing a read error.
    fn follow_line(&mut self, path: &str, line: u64, mut column: u64) -> Result<bool, Failure> {
        loop {
            let request = ReadRequest {
                path: path.to_owned(),
                offset: Some(line),
                limit: Some(1),
                column: Some(column),
                tail: None,
                extract: None,
                asked_via: None,
            };
            let Some(window) = self.read(&request)? else {
                return Ok(false);
            };
            let next = window
                .clamped_lines
                .iter()
                .find(|clamped| clamped.line == line)
                .map(|clamped| clamped.next_column)
                .or(if window.next_offset == Some(line) {
                    window.next_column
                } else {
                    None
                });
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
