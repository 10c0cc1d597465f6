//! `read-window`: read files in bounded windows through the read-window WebAssembly component.

use std::io::{self, BufRead, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use read_window_host::{json, scenario};
use read_window_host::{
    Budget, Config, Grants, HostError, ReadError, ReadOutcome, ReadRequest, ReadResult, ReadWindow,
    Session, TokenBudget,
};

mod mcp;

/// The longest request line the session mode accepts, in bytes.
const MAX_REQUEST_LINE: usize = 64 * 1024 * 1024;

/// Reads files in bounded windows for LLM agents, through the read-window WebAssembly component.
///
/// The component sees only the --root directories (default: the current directory), each preopened read-only at
/// its canonical absolute path, so host and guest paths agree. Relative paths resolve against the current
/// directory when it lies under a root, else against the first root.
#[derive(Parser, Debug)]
#[command(
    name = "read-window",
    version,
    after_help = "Exit status: 0 a result, 1 a read error (its JSON still printed with --json) or a failure of \
                  the component, 2 a usage error (a bad option or --root directory)."
)]
struct Cli {
    /// A directory the component may read (repeatable). Default: the current directory.
    #[arg(long = "root", value_name = "DIR", global = true)]
    roots: Vec<PathBuf>,

    /// Lines per window at most (default 2000).
    #[arg(long, value_name = "N", global = true)]
    max_lines: Option<u32>,

    /// Characters shown of one line before it is clamped (default 2000).
    #[arg(long, value_name = "N", global = true)]
    max_line_length: Option<u32>,

    /// Budget of N characters of formatted content per window (default 100000).
    #[arg(long, value_name = "N", global = true, conflicts_with = "max_tokens")]
    max_chars: Option<u32>,

    /// Budget of N estimated tokens per window (a token cap; windows aim at 90% of it).
    #[arg(long, value_name = "N", global = true)]
    max_tokens: Option<u32>,

    /// Always return content: never answer a repeated window with an "unchanged" stub.
    #[arg(long, global = true)]
    no_dedup: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Read one window: the content, a blank line, then the hint (and any warnings).
    Read {
        /// The file: absolute, or relative to the working directory.
        path: String,
        /// The first line, 1-based.
        #[arg(long, value_name = "N")]
        offset: Option<u64>,
        /// Where to start inside the first line, in characters, 0-based.
        #[arg(long, value_name = "N")]
        column: Option<u64>,
        /// Lines at most.
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// Print one JSON object instead.
        #[arg(long)]
        json: bool,
    },
    /// A session over JSON Lines: one request object per line on stdin, one answer object per line on stdout.
    ///
    /// Ops: read (path, offset, limit, column), other_tool, reset_dedup, wrote (path), check_write (path, text),
    /// report_tokens (path, offset, lines, tokens), token_refusal (path, offset, limit, message), stats. An "id"
    /// is echoed back.
    Session,
    /// Run scenario files (JSON; see tests/scenarios/README.md) through the component: one `PASS name` or `FAIL
    /// name: why` line each, then `N passed, M failed`. Exit 0 only when every scenario passed.
    Scenarios {
        /// Scenario files, or directories searched recursively for `*.json`.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Print the path of the component (`.wasm`) this CLI runs, for other hosts (`READ_WINDOW_WASM`).
    WasmPath,
    /// Serve MCP (Model Context Protocol) on stdin and stdout: the tools read_file and check_write, one session
    /// per connection.
    ///
    /// The directories are the --root options; without any, the roots the client offers (file:// URIs); with
    /// neither, the current directory.
    Mcp,
    /// Page through a whole file: every window from line 1 to the end, and the rest of every clamped line.
    Page {
        /// The file: absolute, or relative to the working directory.
        path: String,
        /// Lines per window at most.
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// Print one JSON object per window (JSON Lines) instead.
        #[arg(long)]
        json: bool,
    },
}

/// Why the CLI stops early.
enum Failure {
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(Failure::Usage(message)) => {
            eprintln!("read-window: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Host(message)) => {
            eprintln!("read-window: {message}");
            ExitCode::from(1)
        }
        // The reader of our output went away (`read-window page big | head`): nothing left to say.
        Err(Failure::Io(error)) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Io(error)) => {
            eprintln!("read-window: {error}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match &cli.command {
        Command::WasmPath => {
            let mut out = io::stdout().lock();
            writeln!(out, "{}", read_window_host::COMPONENT_PATH)?;
            out.flush()?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Scenarios { paths } => return scenarios(paths),
        _ => {}
    }
    let (grants, config) = setup(&cli)?;
    let reader = ReadWindow::load()
        .map_err(|e| Failure::Host(format!("could not load the component: {e:#}")))?;
    match cli.command {
        Command::Read {
            path,
            offset,
            column,
            limit,
            json,
        } => {
            let request = ReadRequest {
                path,
                offset,
                limit,
                column,
            };
            read(&reader, &grants, &config, &request, json)
        }
        Command::Session => session(&reader, &grants, config),
        Command::Page { path, limit, json } => page(&reader, &grants, config, &path, limit, json),
        Command::Mcp => {
            let roots = if cli.roots.is_empty() {
                mcp::Roots::ClientOr(grants)
            } else {
                mcp::Roots::Fixed(grants)
            };
            mcp::run(reader, roots, config)
                .map(|()| ExitCode::SUCCESS)
                .map_err(Failure::Host)
        }
        // Answered above, before any root was granted.
        Command::WasmPath | Command::Scenarios { .. } => Ok(ExitCode::SUCCESS),
    }
}

/// `scenarios`: run scenario files; exit 0 only when all pass, 1 when one fails, 2 when a path is missing.
fn scenarios(paths: &[PathBuf]) -> Result<ExitCode, Failure> {
    let reader = ReadWindow::load()
        .map_err(|e| Failure::Host(format!("could not load the component: {e:#}")))?;
    let files = scenario::collect_files(paths).map_err(|e| Failure::Usage(e.to_string()))?;
    if files.is_empty() {
        return Err(Failure::Usage(
            "no scenario files (*.json) under the given paths".into(),
        ));
    }
    let mut out = io::stdout().lock();
    let summary = scenario::run_paths(&reader, &files, &mut out)?;
    out.flush()?;
    Ok(if summary.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The grants (the roots, canonical, read-only) and the config the options describe.
fn setup(cli: &Cli) -> Result<(Grants, Config), Failure> {
    let cwd = std::env::current_dir().and_then(|dir| dir.canonicalize());
    let roots = if cli.roots.is_empty() {
        let cwd = cwd
            .as_ref()
            .map_err(|e| Failure::Usage(format!("the current directory is not usable: {e}")))?;
        vec![cwd.clone()]
    } else {
        cli.roots.clone()
    };
    let mut grants = Grants::new();
    for root in &roots {
        grants = grants
            .dir(root)
            .map_err(|e| Failure::Usage(format!("--root {e}")))?;
    }
    let working_directory = match &cwd {
        Ok(cwd) => grants.working_directory_for(cwd),
        Err(_) => grants.dirs().first().map(|grant| grant.guest().to_owned()),
    };
    let budget = match (cli.max_chars, cli.max_tokens) {
        (Some(chars), _) => Some(Budget::Characters(chars)),
        (None, Some(cap)) => Some(Budget::Tokens(TokenBudget {
            cap: Some(cap),
            headroom: None,
        })),
        (None, None) => None,
    };
    let config = Config {
        max_lines: cli.max_lines,
        max_line_length: cli.max_line_length,
        budget,
        working_directory,
        dedup: cli.no_dedup.then_some(false),
        ..Config::default()
    };
    Ok((grants, config))
}

/// `read`: one stateless window.
fn read(
    reader: &ReadWindow,
    grants: &Grants,
    config: &Config,
    request: &ReadRequest,
    as_json: bool,
) -> Result<ExitCode, Failure> {
    let outcome = match reader.read_once(grants, config, request) {
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
    if as_json {
        writeln!(out, "{}", json::once_json(&outcome))?;
    } else if let Ok(window) = &outcome {
        write_text(&mut out, window)?;
    }
    out.flush()?;
    match outcome {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(error) => {
            if !as_json {
                report_error(&error);
            }
            Ok(ExitCode::from(1))
        }
    }
}

fn report_error(error: &ReadError) {
    eprintln!("read-window: {}: {}", error.kind.as_str(), error.message);
}

/// A window as text: the content, a blank line, the hint, then one `warning:` line per warning.
fn write_text(out: &mut impl Write, window: &ReadResult) -> io::Result<()> {
    out.write_all(window.content.as_bytes())?;
    if !window.content.is_empty() && !window.content.ends_with('\n') {
        writeln!(out)?;
    }
    writeln!(out)?;
    writeln!(out, "{}", window.hint)?;
    for warning in &window.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    Ok(())
}

/// `session`: JSON Lines in, JSON Lines out, one session for the whole stream.
fn session(reader: &ReadWindow, grants: &Grants, config: Config) -> Result<ExitCode, Failure> {
    let mut session = reader.session(grants, config)?;
    let mut input = io::stdin().lock();
    let mut out = io::stdout().lock();
    let mut line = Vec::new();
    while let Some(too_long) = read_request_line(&mut input, &mut line)? {
        let answer = if too_long {
            json::error_json(&ReadError::invalid_request(format!(
                "the request line is longer than {MAX_REQUEST_LINE} bytes"
            )))
        } else {
            match std::str::from_utf8(&line) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => json::answer_line(&mut session, text),
                Err(e) => json::error_json(&ReadError::invalid_request(format!(
                    "the request line is not valid UTF-8: {e}"
                ))),
            }
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
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

/// `page`: every window from line 1 to the end, plus the rest of every clamped line, so the whole text is
/// printed exactly once. Dedup is off so no window comes back as a stub.
fn page(
    reader: &ReadWindow,
    grants: &Grants,
    mut config: Config,
    path: &str,
    limit: Option<u64>,
    as_json: bool,
) -> Result<ExitCode, Failure> {
    config.dedup = Some(false);
    let mut pager = Pager {
        session: reader.session(grants, config)?,
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
        };
        let Some(window) = pager.read(&request)? else {
            return Ok(ExitCode::from(1));
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
        let outcome = self.session.read(request)?;
        let window = match outcome {
            Ok(ReadOutcome::Window(window)) => window,
            Ok(ReadOutcome::Unchanged(stub)) => {
                return Err(Failure::Host(format!(
                    "the component answered a stub for lines {}-{} although dedup is off",
                    stub.start_line, stub.end_line
                )));
            }
            Err(error) => {
                if self.as_json {
                    writeln!(self.out, "{}", json::error_json(&error))?;
                    self.out.flush()?;
                } else {
                    report_error(&error);
                }
                return Ok(None);
            }
        };
        if self.as_json {
            writeln!(self.out, "{}", json::window_json(&window))?;
        } else {
            if !self.first {
                writeln!(self.out)?;
            }
            write_text(&mut self.out, &window)?;
        }
        self.out.flush()?;
        self.first = false;
        Ok(Some(window))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_valid() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

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
