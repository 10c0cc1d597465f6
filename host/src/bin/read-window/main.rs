//! `read-window`: read files in bounded windows through the read-window WebAssembly component.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use read_window_host::settings::{self, Settings};
use read_window_host::{scenario, timings};
use read_window_host::{Config, Grants, HostError, ReadRequest, ReadWindow};

mod capture;
mod census;
mod failure;
mod mcp;
mod page;
mod read;
mod session;

use failure::{host_error_answers, Failure};
use page::page;
use read::read;
use session::{answer_every_request, session};

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
    /// A directory the component may read (repeatable). Default: the current directory (`mcp`: the client's
    /// roots, see `read-window mcp --help`).
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
    /// Read one window: the content, a blank line, then the hint (and any warnings). A directory is read as its
    /// listing: one numbered line an entry, with the census (total entries, counts by kind) in the hint.
    Read {
        /// The file or directory: absolute, or relative to the working directory.
        path: String,
        /// For a directory: the levels to list (1, the default, its own entries; 2 also theirs, as relative
        /// paths).
        #[arg(long, value_name = "N")]
        depth: Option<u32>,
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
        /// For an image: the part to show, in original pixels (the hint names the regions at full resolution).
        #[arg(long, value_name = "X,Y,W,H", value_parser = read::parse_region)]
        region: Option<read_window_host::PixelRegion>,
        /// For an image: write the picture shown (PNG, JPEG, or the file's own bytes) to FILE; the hint is printed.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print one JSON object instead.
        #[arg(long)]
        json: bool,
    },
    /// Read several files in order under one budget: each file's window under a `==> path <==` line, then a
    /// hint naming any file the budget left out.
    ReadMany(census::ReadManyArgs),
    /// Search a file or a directory for a pattern: matches as `path:N|line`, a page at a time, with the census
    /// (total matches, files with matches, files searched, files skipped by kind) in the hint.
    Search(census::SearchArgs),
    /// A session over JSON Lines: one request object per line on stdin, one answer object per line on stdout.
    ///
    /// Ops: read (path, offset, limit, column, tail, extract, fresh, region, depth), read_many (paths, limit,
    /// fresh), search (pattern, path, regex, case_sensitive, context, offset, limit), other_tool, reset_dedup, wrote (path), check_write (path, text),
    /// report_tokens (path, offset, lines, tokens), token_refusal (path, offset, limit, message), stats, config
    /// (the config in force), configure (config fields, as in --config; before the first read only), and the
    /// capture ops capture_begin (window_chars, head_share, spill_dir, spill_cap_chars), capture_chunk (text or
    /// base64) and capture_end (exit_status). An "id" is echoed back. An answer carries its window once, in
    /// "text"; "content": true on a read, read_many, search or capture_end adds it on its own as "content".
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
    /// Serve MCP (Model Context Protocol) on stdin and stdout: the tools read_file, list_directory, read_files, search and check_write, one session
    /// per connection.
    ///
    /// The directories are the --root options; without any, the roots the client offers (file:// URIs); with
    /// neither, the current directory, but never `/` or the home directory (every call then answers an error
    /// naming --root). Without --max-chars or --max-tokens, windows get a 20,000-token cap (18,000 tokens at the
    /// default headroom), under Claude Code's 25,000-token output cap, instead of the 100,000-character budget.
    Mcp,
    /// Capture a command's output from stdin (`cmd 2>&1 | read-window capture --spill-dir .spill`): print its
    /// head, a marker line naming the omitted lines and the spill file that holds them, and its tail.
    Capture {
        #[command(flatten)]
        args: capture::CaptureArgs,
    },
    /// Run a command on the host and capture its stdout and stderr interleaved in arrival order, like `capture`,
    /// with its exit status. Exits with the command's status (127 when it is not found). The command gets this
    /// process's stdin; the capture ends when its output closes, so a background child that keeps it open keeps
    /// `run` waiting: give --timeout.
    Run {
        #[command(flatten)]
        args: capture::CaptureArgs,
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
            return tool_schema(*format, &cli.settings.config().map_err(Failure::Usage)?)
        }
        _ => {}
    }
    let (grants, config) = setup(&cli)?;
    timings::mark("setup");
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
            region,
            out,
            json,
            depth,
        } => {
            let request = ReadRequest {
                depth,
                offset,
                limit,
                column,
                tail,
                extract: no_extract.then_some(false),
                region,
                ..ReadRequest::new(path)
            };
            read(&reader, &grants, &config, &request, out.as_deref(), json)
        }
        Command::ReadMany(args) => census::read_many(&reader, &grants, &config, args),
        Command::Search(args) => census::search(&reader, &grants, &config, args),
        Command::Session { spill_dir } => {
            let grants = match spill_dir {
                Some(dir) => capture::grant_spill_dir(&grants, &dir)?.0,
                None => grants,
            };
            session(&reader, &grants, config)
        }
        Command::Capture { args } => capture::capture_stdin(&reader, &grants, config, &args),
        Command::Run {
            args,
            command,
            timeout,
        } => capture::run_command(&reader, &grants, config, &args, &command, timeout),
        Command::Page { path, limit, json } => page(&reader, &grants, config, &path, limit, json),
        Command::Mcp => {
            let roots = if cli.roots.is_empty() {
                mcp::Roots::ClientOr(grants)
            } else {
                mcp::Roots::Fixed(grants)
            };
            serve_mcp(std::mem::ManuallyDrop::into_inner(reader), roots, config)
        }
        // Answered above, before any root was granted.
        Command::WasmPath | Command::Scenarios { .. } | Command::ToolSchema { .. } => {
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `mcp`: the MCP server over stdio until the client closes it, with the MCP default budget unless one is set.
fn serve_mcp(reader: ReadWindow, roots: mcp::Roots, config: Config) -> Result<ExitCode, Failure> {
    mcp::run(reader, roots, mcp::with_default_budget(config))
        .map(|()| ExitCode::SUCCESS)
        .map_err(Failure::Host)
}

/// `tool-schema`: the read_file tool in `format`, as pretty JSON, for the settings given (its line limit; in MCP the
/// characters a reply carries, under the server's default budget when they set none).
fn tool_schema(format: SchemaFormat, config: &Config) -> Result<ExitCode, Failure> {
    use read_window::protocol::tools::{definitions, Format};
    // As `read-window mcp` with the same options lists it.
    let config = match format {
        SchemaFormat::Mcp => settings::resolved(&mcp::with_default_budget(config.clone())),
        _ => settings::resolved(config),
    };
    let config = &config;
    let format = match format {
        SchemaFormat::Openai => Format::Openai,
        SchemaFormat::Anthropic => Format::Anthropic,
        SchemaFormat::Mcp => Format::Mcp,
    };
    let value = definitions(format, config).into_iter().next();
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
        Command::Read { json: true, .. }
        | Command::Page { json: true, .. }
        | Command::ReadMany(census::ReadManyArgs { json: true, .. })
        | Command::Search(census::SearchArgs { json: true, .. }) => host_error_answers(&host, 1),
        Command::Session { .. } => answer_every_request(&host),
        _ => Err(Failure::Host(host.to_string())),
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
        grants = grants.dir(root).map_err(|e| {
            // A shell expands `~`; a client's JSON config passes it as it is.
            let tilde = if root.starts_with("~") {
                " (`~` is not expanded here, as a shell would: give the absolute path)"
            } else {
                ""
            };
            Failure::Usage(format!("--root {e}{tilde}"))
        })?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_valid() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
