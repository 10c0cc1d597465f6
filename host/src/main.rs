//! `read-window`: read files in bounded windows through the read-window WebAssembly component.

use std::io::{self, BufRead, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use read_window::config::CONFIG_WARNING_PREFIX;
use read_window_host::settings::{self, Settings};
use read_window_host::{json, scenario, timings};
use read_window_host::{
    Config, ErrorKind, Grants, HostError, ReadError, ReadOutcome, ReadRequest, ReadResult,
    ReadWindow, Session,
};

mod capture_cli;
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
                  the component, 2 a usage error (a bad option, a setting out of its range, a bad --config file \
                  or --root directory), 3 `page` stopped because the file changed under it (its error, naming the \
                  change, printed).\n\nREAD_WINDOW_TIMINGS=1 prints, at exit, one line on stderr with the time of \
                  each start-up phase in microseconds (`read-window: timings: started_ns=.. args_us=.. ..`)."
)]
struct Cli {
    /// A directory the component may read (repeatable). Default: the current directory.
    #[arg(long = "root", value_name = "DIR", global = true)]
    roots: Vec<PathBuf>,

    /// The settings: one option per config field, and --config FILE.
    #[command(flatten)]
    settings: Settings,

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
        /// Read the last N lines instead (the window ends at the file's last line); not with --offset or --column.
        #[arg(long, value_name = "N", conflicts_with_all = ["offset", "column"])]
        tail: Option<u32>,
        /// Read a document's own bytes as a file instead of its extracted text: a notebook as its JSON, a `.docx`
        /// that holds plain text as that text (a binary container is then refused as binary).
        #[arg(long)]
        no_extract: bool,
        /// Print one JSON object instead.
        #[arg(long)]
        json: bool,
    },
    /// A session over JSON Lines: one request object per line on stdin, one answer object per line on stdout.
    ///
    /// Ops: read (path, offset, limit, column, tail, extract), other_tool, reset_dedup, wrote (path), check_write (path, text),
    /// report_tokens (path, offset, lines, tokens), token_refusal (path, offset, limit, message), stats, config
    /// (the config in force), configure (config fields, as in --config; before the first read only), and the
    /// capture ops capture_begin (window_chars, head_share, spill_dir, spill_cap_chars), capture_chunk (text or
    /// base64) and capture_end (exit_status). An "id" is echoed back.
    Session {
        /// A directory granted read-write for the captures' spill files (made when missing); capture_begin
        /// spills there when it names no spill_dir. Without it, a capture over its window loses its middle.
        #[arg(long, value_name = "DIR")]
        spill_dir: Option<PathBuf>,
    },
    /// Run scenario files (JSON; see tests/scenarios/README.md) through the component: one `PASS name` or `FAIL
    /// name: why` line each, then `N passed, M failed`. Exit 0 only when every scenario passed.
    Scenarios {
        /// Scenario files, or directories searched recursively for `*.json`.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Print the path of the component (`.wasm`) this CLI runs ($READ_WINDOW_WASM when set, else the one its
    /// build made), for other hosts.
    WasmPath,
    /// Print the read_file tool's definition (name, description for a model, JSON Schema of its parameters) to
    /// hand to a model.
    ToolSchema {
        /// The shape: OpenAI function calling, Anthropic tool use, or an MCP tools/list entry.
        #[arg(long, value_enum, default_value = "openai")]
        format: SchemaFormat,
    },
    /// Serve MCP (Model Context Protocol) on stdin and stdout: the tools read_file and check_write, one session
    /// per connection.
    ///
    /// The directories are the --root options; without any, the roots the client offers (file:// URIs); with
    /// neither, the current directory.
    Mcp,
    /// Capture a command's output from stdin (`cmd 2>&1 | read-window capture --spill-dir .spill`): print its
    /// head, a marker line naming the omitted lines and the spill file that holds them, and its tail.
    Capture {
        #[command(flatten)]
        args: capture_cli::CaptureArgs,
    },
    /// Run a command on the host and capture its stdout and stderr interleaved in arrival order, like `capture`,
    /// with its exit status. Exits with the command's status (127 when it is not found). The command gets this
    /// process's stdin; the capture ends when its output closes, so a background child that keeps it open keeps
    /// `run` waiting: give --timeout.
    Run {
        #[command(flatten)]
        args: capture_cli::CaptureArgs,
        /// Kill the command (its whole process group) after this many seconds and report it in the hint.
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        /// The command and its arguments, after `--`.
        #[arg(last = true, required = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Page through a whole file: every window from line 1 to the end, and the rest of every clamped line.
    ///
    /// A read error ends it: its text on stdout as `read` prints it (its JSON with --json), exit 1; exit 3 when the
    /// error says the file changed under the pager (it shrank past the next window).
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

/// The shapes `tool-schema` prints.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum SchemaFormat {
    /// `{"type":"function","function":{"name","description","parameters"}}`.
    Openai,
    /// `{"name","description","input_schema"}`.
    Anthropic,
    /// `{"name","title","description","inputSchema","outputSchema","annotations"}`.
    Mcp,
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
    timings::start();
    let cli = Cli::parse();
    timings::mark("args");
    let code = run(cli);
    if let Some(line) = timings::report() {
        eprintln!("{line}");
    }
    match code {
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
            writeln!(out, "{}", read_window_host::component_path().0.display())?;
            out.flush()?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Scenarios { paths } => return scenarios(paths),
        Command::ToolSchema { format } => {
            let config = cli.settings.config().map_err(Failure::Usage)?;
            return tool_schema(*format, settings::max_lines(&config));
        }
        _ => {}
    }
    let (grants, config) = setup(&cli)?;
    timings::mark("setup");
    if matches!(cli.command, Command::Mcp) && cli.roots.is_empty() {
        mcp::check_fallback(&mcp::Roots::ClientOr(grants.clone())).map_err(Failure::Usage)?;
    }
    // Never dropped: the process ends when the command returns, and the kernel takes the engine, the compiled
    // component's mappings and the stores back faster than dropping them piece by piece would (a one-shot read
    // pays for its exit too).
    let reader = std::mem::ManuallyDrop::new(match ReadWindow::load() {
        Ok(reader) => reader,
        // In the JSON modes a host failure is still a JSON answer on stdout, one per request.
        Err(error) => return load_failed(&cli.command, &error),
    });
    match cli.command {
        Command::Read {
            path,
            offset,
            column,
            limit,
            tail,
            no_extract,
            json,
        } => {
            let request = ReadRequest {
                path,
                offset,
                limit,
                column,
                tail,
                extract: no_extract.then_some(false),
                asked_via: None,
            };
            read(&reader, &grants, &config, &request, json)
        }
        Command::Session { spill_dir } => {
            let grants = match spill_dir {
                Some(dir) => capture_cli::grant_spill_dir(&grants, &dir)?.0,
                None => grants,
            };
            session(&reader, &grants, config)
        }
        Command::Capture { args } => capture_cli::capture_stdin(&reader, &grants, config, &args),
        Command::Run {
            args,
            command,
            timeout,
        } => capture_cli::run_command(&reader, &grants, config, &args, &command, timeout),
        Command::Page { path, limit, json } => page(&reader, &grants, config, &path, limit, json),
        Command::Mcp => {
            let roots = if cli.roots.is_empty() {
                mcp::Roots::ClientOr(grants)
            } else {
                mcp::Roots::Fixed(grants)
            };
            mcp::run(std::mem::ManuallyDrop::into_inner(reader), roots, config)
                .map(|()| ExitCode::SUCCESS)
                .map_err(Failure::Host)
        }
        // Answered above, before any root was granted.
        Command::WasmPath | Command::Scenarios { .. } | Command::ToolSchema { .. } => {
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `tool-schema`: the read_file tool in `format`, as pretty JSON, stating the line limit `max_lines` (the one the
/// settings given describe).
fn tool_schema(format: SchemaFormat, max_lines: u64) -> Result<ExitCode, Failure> {
    use read_window::protocol::tools::{definitions, Format};
    let format = match format {
        SchemaFormat::Openai => Format::Openai,
        SchemaFormat::Anthropic => Format::Anthropic,
        SchemaFormat::Mcp => Format::Mcp,
    };
    let value = definitions(format, max_lines).into_iter().next();
    let value =
        value.ok_or_else(|| Failure::Host("the read_file tool could not be rendered".into()))?;
    let text = serde_json::to_string_pretty(&value)
        .map_err(|e| Failure::Host(format!("the read_file tool could not be rendered: {e}")))?;
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The component could not be loaded: in the JSON modes (`read --json`, `page --json`, `session`) the host error
/// is the answer on stdout (one per request line in `session`), exit 1; otherwise a message on stderr, exit 1.
fn load_failed(command: &Command, error: &wasmtime::Error) -> Result<ExitCode, Failure> {
    let host = HostError::load_failed(error);
    match command {
        Command::Read { json: true, .. } | Command::Page { json: true, .. } => {
            host_error_answers(&host, 1)
        }
        Command::Session { .. } => answer_every_request(&host),
        _ => Err(Failure::Host(host.to_string())),
    }
}

/// `session` without a session: answers every request line (blank lines skipped) with `host`'s JSON; exit 1.
fn answer_every_request(host: &HostError) -> Result<ExitCode, Failure> {
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    let mut answers = 0;
    while read_request_line(&mut input, &mut line)?.is_some() {
        if !line.iter().all(u8::is_ascii_whitespace) {
            answers += 1;
        }
    }
    host_error_answers(host, answers)
}

/// Prints `host` as its JSON answer `count` times; exit 1.
fn host_error_answers(host: &HostError, count: usize) -> Result<ExitCode, Failure> {
    let mut out = io::stdout().lock();
    for _ in 0..count {
        writeln!(out, "{}", json::host_error_json(host))?;
    }
    out.flush()?;
    Ok(ExitCode::from(1))
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
    let mut config = cli.settings.config().map_err(Failure::Usage)?;
    // The MCP server without --root reads the client's roots, unknown until a client connects.
    let roots_known = !(matches!(cli.command, Command::Mcp) && cli.roots.is_empty());
    if let (Some(dir), true) = (&config.working_directory, roots_known) {
        settings::check_working_directory(dir, &grants).map_err(|why| {
            Failure::Usage(match &cli.settings.cwd {
                Some(given) => format!("--cwd {}: {why}", given.display()),
                None => format!("`working_directory` {dir:?} in the config file: {why}"),
            })
        })?;
    }
    if config.working_directory.is_none() {
        config.working_directory = match &cwd {
            Ok(cwd) => grants.working_directory_for(cwd),
            Err(_) => grants.dirs().first().map(|grant| grant.guest().to_owned()),
        };
    }
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
fn write_text(out: &mut impl Write, window: &ReadResult) -> io::Result<()> {
    for warning in &window.warnings {
        if warning.starts_with(CONFIG_WARNING_PREFIX) {
            eprintln!("read-window: warning: {warning}");
        }
    }
    writeln!(out, "{}", window.text)
}

/// `session`: JSON Lines in, JSON Lines out, one session for the whole stream. `configure` (before the first other
/// op but `config` and `stats`) starts the session again with its fields over the options; `config` answers the
/// config in force.
fn session(reader: &ReadWindow, grants: &Grants, config: Config) -> Result<ExitCode, Failure> {
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
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The `invalid_request` answer to a line the session never saw (too long, not UTF-8).
fn refusal(message: &str) -> String {
    let error = read_window::error::ReadError::invalid(message);
    read_window::protocol::answers::error_json(&error).to_string()
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
/// printed exactly once. Dedup is off so no window comes back as a stub. A read error is printed like `read`
/// prints it and ends the paging with exit 1, or [`PAGE_FILE_CHANGED`] when it tells of a change of the file
/// since the previous window (a file that shrank under the cursor): the windows above are of an older version.
fn page(
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
            .unwrap_or(read_window::config::DEFAULT_MAX_LINES);
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
        for line in offset + 1..=offset + read_window::guards::MAX_KEY_LINES + 1 {
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
