//! `read-window mcp`: the reader as an MCP (Model Context Protocol) server over stdio, built on rmcp.
//!
//! One connection is one read-window [`Session`]: dedup stubs, the loop tripwire, the count of misses and the
//! line indexes last as long as the client stays connected, exactly as in the `session` command. Two tools:
//!
//! - `read_file` (`path`, `offset`, `limit`, `column`; described in [`tool`]): a window. The text content is the
//!   answer's `text` (the window's content, a blank line, the hint, the warnings for the model); a stub answers
//!   with its message; an error with its message and `isError: true`. The structured content is the JSON answer of [`json`] (a window, a
//!   stub, an error, or a `host_error`), described by the tool's output schema.
//! - `check_write` (`path`, `text`): `ok`, or the `echoed_output` or `binary_document` error, the same way.
//!
//! The directories the session may read are the `--root` options; without any, the roots the client offers
//! (`roots/list`, `file://` URIs of directories) when it declares the roots capability; with neither, the
//! current directory. The roots are asked for at the first tool call and again after the client says they
//! changed (`notifications/roots/list_changed`); a different set of roots starts a new session. When the client
//! lists roots and none can be granted (not a local `file://` URI, a missing directory), every tool call is
//! answered with a `host_error` (cause `start`) that lists them and why; the current directory is not read then.
//!
//! A failure of the host (the component trapped, ran past its deadline or over its memory cap) is an error
//! result with a `host_error` answer; the session was restarted and the connection goes on.
//!
//! The server speaks the MCP revisions that open with `initialize` (2024-11-05 to 2025-11-25): a session is
//! tied to the connection, and `roots/list` is a request from server to client, which the 2026 revision
//! removed.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use read_window_host::{json, tool};
use read_window_host::{
    Config, Grants, HostError, ReadError, ReadOutcome, ReadRequest, ReadWindow, Session,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};
use tokio::sync::Mutex;

/// The name of the tool that reads a window (its description and input schema are in [`tool`]).
pub const READ_FILE: &str = tool::READ_FILE;

/// The name of the tool that checks text before it is written.
pub const CHECK_WRITE: &str = "check_write";

/// How long the server waits for the client's answer to `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);

/// The most recent MCP revision the server speaks (the last one with an `initialize` handshake).
const PROTOCOL: ProtocolVersion = ProtocolVersion::LATEST_WITH_INITIALIZE;

/// What the server tells the client (and through it the model) about itself at `initialize`.
const INSTRUCTIONS: &str = "read-window reads text files for you in bounded windows with line numbers. Use \
read_file to read a file; when its hint says the window was truncated, continue with offset=next_offset (and \
column=next_column when given). A repeated read of an unchanged window returns a short \"[read-window: \
unchanged]\" stub: the content you already received is still current, and the stub ends with the call that \
continues. Before writing text that came from read_file into a file, check it with check_write: line-number \
gutters (`N|`) and `[read-window: ...]` markers must never end up in a file.";

const CHECK_WRITE_DESCRIPTION: &str = "Check text before you write it to a file. Answers `ok`, or an \
echoed_output error when the text contains read_file output that must never be written into a file: an \
\"unchanged\" stub, a loop message or a clamp marker (anything starting with `[read-window: `), two or more \
lines read_file returned pasted back with their `N|` line-number gutters (numbered text that never came from \
read_file passes), or U+FFFD in text for a file whose read replaced bytes that were not valid text. On an \
error, read the file again and write its real text. A binary_document error: the file is a document (Word, \
Excel, PowerPoint, OpenDocument, EPUB, PDF) or a notebook, and the text is what read_file extracted from it: \
write it to a new file instead, or for a notebook read its JSON with extract=false and write the edited JSON.";

/// Where the session's directories come from.
#[derive(Clone, Debug)]
pub enum Roots {
    /// `--root` options: these directories, whatever the client offers.
    Fixed(Grants),
    /// No `--root`: the client's roots when it offers some, else these (the current directory).
    ClientOr(Grants),
}

/// Serves MCP on stdin and stdout until the client disconnects.
///
/// `config` is the config the command-line options describe; with the client's roots, its working directory
/// is recomputed for them (the current directory when it lies under one, else the first root).
///
/// Errors: the async runtime could not start, the `initialize` handshake failed (or the client left before
/// it), or the server task failed.
pub fn run(reader: ReadWindow, roots: Roots, config: Config) -> Result<(), String> {
    eprintln!("read-window mcp: {}", describe_roots(&roots));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("could not start the async runtime: {e}"))?;
    let server = McpServer::new(reader, roots, config);
    let result = runtime.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("the MCP handshake failed: {e}"))?;
        service
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| format!("the MCP server stopped: {e}"))
    });
    // A read of stdin cannot be cancelled: do not wait for the blocking pool when the client is gone.
    runtime.shutdown_background();
    result
}

/// The MCP server: the tools, and the connection's read-window session.
#[derive(Clone)]
pub struct McpServer {
    reader: ReadWindow,
    roots: Roots,
    config: Config,
    tools: Arc<[Tool]>,
    session: Arc<Mutex<Option<Session>>>,
    roots_changed: Arc<AtomicBool>,
}

impl McpServer {
    /// A server whose session (started at the first tool call) reads through `reader`, with `config`, over
    /// the directories `roots` says.
    pub fn new(reader: ReadWindow, roots: Roots, config: Config) -> Self {
        let tools = Arc::from(tools_for(crate::settings::max_lines(&config)));
        McpServer {
            reader,
            roots,
            config,
            tools,
            session: Arc::new(Mutex::new(None)),
            roots_changed: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The grants and config for a new session, or `None` when the current session (over `current`) may go
    /// on.
    ///
    /// Errors: a message for the model when the client offers roots and none of them can be granted (each named
    /// with why); the server does not fall back to its current directory then.
    async fn wanted_session(
        &self,
        current: Option<Grants>,
        peer: &Peer<RoleServer>,
    ) -> Result<Option<(Grants, Config)>, String> {
        match &self.roots {
            Roots::Fixed(grants) => Ok(match current {
                Some(_) => None,
                None => Some((grants.clone(), self.config.clone())),
            }),
            Roots::ClientOr(fallback) => {
                let changed = self.roots_changed.swap(false, Ordering::SeqCst);
                if current.is_some() && !changed {
                    return Ok(None);
                }
                let (grants, config) = match client_grants(peer).await {
                    ClientRoots::Unusable(reasons) => {
                        let message = format!(
                            "read-window cannot read any file: none of the roots the client offers could be \
                             granted: {}. Offer a local directory as a root (a file:// URI), or start the server \
                             with --root DIR.",
                            reasons.join("; ")
                        );
                        eprintln!("read-window mcp: {message}");
                        return Err(message);
                    }
                    ClientRoots::Granted(grants) => {
                        let mut config = self.config.clone();
                        config.working_directory = std::env::current_dir()
                            .and_then(|dir| dir.canonicalize())
                            .ok()
                            .and_then(|cwd| grants.working_directory_for(&cwd))
                            .or_else(|| grants.dirs().first().map(|g| g.guest().to_owned()));
                        (grants, config)
                    }
                    ClientRoots::NotOffered => {
                        if current.is_none() {
                            eprintln!(
                                "read-window mcp: the client offers no roots; reading the current directory {}",
                                describe_grants(fallback)
                            );
                        }
                        (fallback.clone(), self.config.clone())
                    }
                };
                Ok(match current {
                    Some(current) if current == grants => None,
                    Some(_) => {
                        eprintln!(
                            "read-window mcp: the client's roots changed; a new session starts over {}",
                            describe_grants(&grants)
                        );
                        Some((grants, config))
                    }
                    None => Some((grants, config)),
                })
            }
        }
    }

    /// Runs one tool call against the connection's session, starting (or replacing) it first when needed.
    async fn call(&self, call: Call, peer: &Peer<RoleServer>) -> CallToolResult {
        let mut slot = Arc::clone(&self.session).lock_owned().await;
        let current = slot.as_ref().map(|session| session.grants().clone());
        let wanted = match self.wanted_session(current, peer).await {
            Ok(wanted) => wanted,
            Err(message) => {
                // The client's roots are all unusable: no session reads anything until they change.
                *slot = None;
                return start_error_result(&message);
            }
        };
        let reader = self.reader.clone();
        // Calls into the component block (up to the session's deadline): run them off the async threads.
        let joined = tokio::task::spawn_blocking(move || {
            if let Some((grants, config)) = wanted {
                *slot = None;
                match reader.session(&grants, config) {
                    Ok(session) => *slot = Some(session),
                    Err(error) => return host_error_result(&error),
                }
            }
            match slot.as_mut() {
                Some(session) => call.run(session),
                None => internal_error_result("the read-window session is missing"),
            }
        })
        .await;
        joined.unwrap_or_else(|error| {
            internal_error_result(&format!(
                "the call into the read-window session failed: {error}"
            ))
        })
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_protocol_version(PROTOCOL)
            .with_server_info(
                Implementation::new("read-window", env!("CARGO_PKG_VERSION"))
                    .with_title("read-window")
                    .with_description(
                        "Reads files for LLM agents in bounded windows, with cursors, session memory and guards.",
                    ),
            )
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&PROTOCOL))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.as_ref();
        let parsed = match request.name.as_ref() {
            READ_FILE => parse_read(arguments).map(|(request, notes)| Call::Read(request, notes)),
            CHECK_WRITE => {
                parse_check_write(arguments).map(|(path, text)| Call::CheckWrite { path, text })
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "unknown tool {other:?}: this server has {READ_FILE} and {CHECK_WRITE}"
                    ),
                    None,
                ));
            }
        };
        let result = match parsed {
            Ok(call) => self.call(call, &context.peer).await,
            Err(error) => read_error_result(&error),
        };
        Ok(result.into())
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.roots_changed.store(true, Ordering::SeqCst);
    }
}

/// A parsed tool call.
#[derive(Debug)]
enum Call {
    /// A read, with the notes of how its arguments were read.
    Read(ReadRequest, Vec<String>),
    CheckWrite {
        path: String,
        text: String,
    },
}

impl Call {
    /// Runs the call (blocking) and answers it as a tool result.
    fn run(self, session: &mut Session) -> CallToolResult {
        match self {
            Call::Read(request, notes) => match session.read(&request) {
                Ok(outcome) => read_result(&outcome, notes),
                Err(host) => host_error_result(&host),
            },
            Call::CheckWrite { path, text } => match session.check_write(&path, &text) {
                Ok(Ok(())) => tool_result("ok".to_owned(), json::note_json(), false),
                Ok(Err(error)) => read_error_result(&error),
                Err(host) => host_error_result(&host),
            },
        }
    }
}

/// The tool result of a read: a window (its text), a stub (its message) or an error (its message).
/// A read's answer as a tool result: its `text` as the text content, the CLI's JSON shape as the structured
/// content, with `notes` (how the arguments were read) added to both.
fn read_result(outcome: &Result<ReadOutcome, ReadError>, notes: Vec<String>) -> CallToolResult {
    let structured = json::with_notes(json::outcome_json(outcome), notes);
    let text = structured
        .get("text")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| match outcome {
            Ok(ReadOutcome::Window(window)) => window.text.clone(),
            Ok(ReadOutcome::Unchanged(stub)) => stub.message.clone(),
            Err(error) => error.message.clone(),
        });
    tool_result(text, structured, outcome.is_err())
}

fn read_error_result(error: &ReadError) -> CallToolResult {
    tool_result(error.message.clone(), json::error_json(error), true)
}

fn host_error_result(error: &HostError) -> CallToolResult {
    tool_result(
        error.message().to_owned(),
        json::host_error_json(error),
        true,
    )
}

/// No session could be started (the client's roots are all unusable): a `host_error` answer of cause `start`.
fn start_error_result(message: &str) -> CallToolResult {
    let structured = json!({
        "status": "error",
        "content_returned": false,
        "error": {
            "kind": "host_error",
            "cause": "start",
            "message": message,
            "session_restarted": false,
        },
    });
    tool_result(message.to_owned(), structured, true)
}

/// A failure of this server itself (not of the component), shaped like a `host_error` answer.
fn internal_error_result(message: &str) -> CallToolResult {
    let structured = json!({
        "status": "error",
        "content_returned": false,
        "error": {
            "kind": "host_error",
            "cause": "trap",
            "message": message,
            "session_restarted": false,
        },
    });
    tool_result(message.to_owned(), structured, true)
}

fn tool_result(text: String, structured: Value, is_error: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(text)];
    let mut result = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = Some(structured);
    result
}

// ---------------------------------------------------------------------------------------------------------------
// Arguments

/// Parses `read_file` arguments: `path` (string), `offset`, `limit`, `column`, `tail` (optional non-negative
/// integers), `extract` (optional boolean), with the notes of how they were read (for the answer's `warnings` and `text`).
///
/// The numbers are taken the way models send them, as in the session protocol (`json::parse_request_value_noted`):
/// `null` and `""` are absent, a string holding a plain integer is read as that integer and noted.
///
/// Errors: an `invalid_request` error naming the field (an unknown field, a wrong type, a negative number, a
/// fraction, a number beyond the field's range, `tail` with `offset` or `column` as the component refuses it).
fn parse_read(arguments: Option<&JsonObject>) -> Result<(ReadRequest, Vec<String>), ReadError> {
    let args = Arguments::new(
        READ_FILE,
        &["path", "offset", "limit", "column", "tail", "extract"],
        arguments,
    )?;
    // The path first, so that its errors name the tool rather than the session op.
    args.string("path")?;
    let mut request = arguments.cloned().unwrap_or_default();
    request.insert("op".to_owned(), Value::String("read".to_owned()));
    match json::parse_request_value_noted(&Value::Object(request))? {
        (json::Request::Read(read), notes) => Ok((read, notes)),
        (other, _) => Err(ReadError::invalid_request(format!(
            "{READ_FILE} arguments parsed as {other:?}, not a read"
        ))),
    }
}

/// Parses `check_write` arguments: `path` and `text` (strings).
fn parse_check_write(arguments: Option<&JsonObject>) -> Result<(String, String), ReadError> {
    let args = Arguments::new(CHECK_WRITE, &["path", "text"], arguments)?;
    Ok((args.string("path")?, args.string("text")?))
}

/// The arguments of one tool call, read with messages that name the tool and the field.
struct Arguments<'a> {
    tool: &'static str,
    map: Option<&'a Map<String, Value>>,
}

impl<'a> Arguments<'a> {
    fn new(
        tool: &'static str,
        allowed: &[&str],
        map: Option<&'a Map<String, Value>>,
    ) -> Result<Self, ReadError> {
        if let Some(extra) = map
            .into_iter()
            .flat_map(|map| map.keys())
            .find(|key| !allowed.contains(&key.as_str()))
        {
            return Err(ReadError::invalid_request(format!(
                "unknown argument `{extra}` for {tool}; its arguments are: {}",
                allowed.join(", ")
            )));
        }
        Ok(Arguments { tool, map })
    }

    fn present(&self, field: &str) -> Option<&'a Value> {
        self.map
            .and_then(|map| map.get(field))
            .filter(|value| !value.is_null())
    }

    fn string(&self, field: &str) -> Result<String, ReadError> {
        match self.present(field) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(ReadError::invalid_request(format!(
                "`{field}` must be a string, not {}",
                type_name(other)
            ))),
            None => Err(ReadError::invalid_request(format!(
                "`{field}` is missing: {} needs a `{field}` (a string)",
                self.tool
            ))),
        }
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Roots

/// What the client's roots come to.
enum ClientRoots {
    /// The usable roots the client offers (a `file://` URI of a directory, UTF-8), as grants.
    Granted(Grants),
    /// The client does not declare the roots capability, does not answer `roots/list` in time, or lists none:
    /// the server reads its current directory.
    NotOffered,
    /// The client lists roots and none can be granted: each root with why (`"https://x" (not a local file://
    /// URI)`).
    Unusable(Vec<String>),
}

/// The client's roots as grants, see [`ClientRoots`].
// Roots are deprecated from the 2026 revision on (SEP-2577); this server speaks the revisions before it.
#[allow(deprecated)]
async fn client_grants(peer: &Peer<RoleServer>) -> ClientRoots {
    let declared = peer
        .peer_info()
        .is_some_and(|info| info.capabilities.roots.is_some());
    if !declared {
        return ClientRoots::NotOffered;
    }
    let listed = match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
        Ok(Ok(result)) => result.roots,
        Ok(Err(error)) => {
            eprintln!(
                "read-window mcp: roots/list failed ({error}); reading the current directory"
            );
            return ClientRoots::NotOffered;
        }
        Err(_) => {
            eprintln!(
                "read-window mcp: no answer to roots/list within {} s; reading the current directory",
                ROOTS_TIMEOUT.as_secs()
            );
            return ClientRoots::NotOffered;
        }
    };
    let mut grants = Grants::new();
    let mut reasons = Vec::new();
    for root in &listed {
        let Some(path) = file_uri_path(&root.uri) else {
            eprintln!(
                "read-window mcp: skipping the root {:?}: not a local file:// URI",
                root.uri
            );
            reasons.push(format!("{:?} (not a local file:// URI)", root.uri));
            continue;
        };
        match grants.clone().dir(&path) {
            Ok(more) => {
                let is_new = more.dirs().last().is_some_and(|added| {
                    grants
                        .dirs()
                        .iter()
                        .all(|grant| grant.host() != added.host())
                });
                if is_new {
                    grants = more;
                }
            }
            Err(error) => {
                eprintln!("read-window mcp: skipping the root {:?}: {error}", root.uri);
                reasons.push(format!("{:?} ({error})", root.uri));
            }
        }
    }
    if grants.is_empty() {
        if listed.is_empty() {
            return ClientRoots::NotOffered;
        }
        return ClientRoots::Unusable(reasons);
    }
    ClientRoots::Granted(grants)
}

/// What the server will read, in one line for stderr at start.
pub fn describe_roots(roots: &Roots) -> String {
    match roots {
        Roots::Fixed(grants) => format!(
            "reading {} (read-only, from --root)",
            describe_grants(grants)
        ),
        Roots::ClientOr(fallback) => format!(
            "no --root given: reading the roots the client offers, or, when it offers none, the current directory \
             {} (read-only)",
            describe_grants(fallback)
        ),
    }
}

/// Refuses a fallback grant that would open a whole file system or home directory to the model without anyone
/// having asked for it: with no `--root`, the current directory is read when the client offers no roots, and
/// a server started from `/` or `$HOME` (as some clients start servers) would read everything there.
///
/// Errors: a message naming the directory and `--root`, when `roots` is [`Roots::ClientOr`] and a fallback
/// directory is `/` or the home directory (`$HOME`, compared canonically).
pub fn check_fallback(roots: &Roots) -> Result<(), String> {
    let Roots::ClientOr(fallback) = roots else {
        return Ok(());
    };
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .and_then(|home| std::path::PathBuf::from(home).canonicalize().ok());
    for grant in fallback.dirs() {
        let what = if grant.host() == std::path::Path::new("/") {
            "the root of the file system"
        } else if home.as_deref() == Some(grant.host()) {
            "your home directory"
        } else {
            continue;
        };
        return Err(format!(
            "mcp: the current directory is {} ({what}), and without --root the server reads it whenever the \
             client offers no roots. Name the directory to read with --root (for example `read-window --root \
             /path/to/project mcp`; `--root {}` if you do mean it), or start the server in the project's directory.",
            grant.host().display(),
            grant.host().display()
        ));
    }
    Ok(())
}

fn describe_grants(grants: &Grants) -> String {
    grants
        .dirs()
        .iter()
        .map(|grant| grant.host().display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The local path of a `file://` URI (`file:///abs/path` or `file://localhost/abs/path`, percent-decoded, any
/// query or fragment dropped); `None` for another scheme, a remote host or a malformed escape.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let scheme = uri.get(..7)?;
    if !scheme.eq_ignore_ascii_case("file://") {
        return None;
    }
    let rest = uri.get(7..)?;
    let slash = rest.find('/')?;
    let (host, path) = rest.split_at(slash);
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = path.split(['?', '#']).next()?;
    let bytes = percent_decode(path)?;
    path_from_bytes(bytes)
}

/// Decodes `%XX` escapes; `None` when a `%` is not followed by two hex digits.
fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let high = hex_value(*bytes.get(i + 1)?)?;
            let low = hex_value(*bytes.get(i + 2)?)?;
            out.push(high << 4 | low);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    let text = String::from_utf8(bytes).ok()?;
    // `file:///C:/dir` names `C:/dir`.
    let trimmed = match text.as_bytes() {
        [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => &text[1..],
        _ => text.as_str(),
    };
    Some(PathBuf::from(trimmed))
}

// ---------------------------------------------------------------------------------------------------------------
// Tools and schemas

/// The two tools with their input and output schemas, for a server whose line limit is `max_lines` (`read_file`'s
/// `limit` states it).
pub fn tools_for(max_lines: u64) -> Vec<Tool> {
    let mut read = Tool::new(
        READ_FILE,
        tool::READ_FILE_DESCRIPTION,
        object(tool::read_input_schema_for(max_lines)),
    );
    read.title = Some("Read a file window".to_owned());
    read.output_schema = Some(Arc::new(object(read_output_schema())));
    read.annotations = Some(
        ToolAnnotations::with_title("Read a file window")
            .read_only(true)
            .open_world(false),
    );
    let mut check = Tool::new(
        CHECK_WRITE,
        CHECK_WRITE_DESCRIPTION,
        object(check_write_input_schema()),
    );
    check.title = Some("Check text before writing it".to_owned());
    check.output_schema = Some(Arc::new(object(check_write_output_schema())));
    check.annotations = Some(
        ToolAnnotations::with_title("Check text before writing it")
            .read_only(true)
            .idempotent(true)
            .open_world(false),
    );
    vec![read, check]
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn check_write_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "The file the text is meant for: an absolute path, or a path relative to the \
                                working directory."
            },
            "text": {
                "type": "string",
                "description": "The exact text you are about to write."
            }
        },
        "required": ["path", "text"],
        "additionalProperties": false
    })
}

/// The `error` object of an answer.
fn error_schema() -> Value {
    json!({
        "type": "object",
        "description": "Why nothing was read (status error).",
        "properties": {
            "kind": {
                "type": "string",
                "enum": ["not_found", "not_a_file", "outside_sandbox", "permission_denied", "invalid_request",
                         "io", "special_file", "device", "credential", "binary", "loop_blocked",
                         "echoed_output", "unencodable", "too_large", "malformed_document",
                         "encrypted_document", "binary_document", "host_error"]
            },
            "message": { "type": "string", "description": "What happened and what to do instead." },
            "already_read": {
                "type": "integer",
                "minimum": 0,
                "description": "loop_blocked: how many consecutive identical reads there were."
            },
            "path": {
                "type": "string",
                "description": "The absolute path the read tried (after the working directory, and links once followed)."
            },
            "suggestions": {
                "type": "array",
                "items": { "type": "string" },
                "description": "not_found: similar names in the same directory, best first (often empty)."
            },
            "total_lines": {
                "type": "integer",
                "minimum": 0,
                "description": "An offset past the end: the file's line count."
            },
            "cause": {
                "type": "string",
                "enum": ["trap", "deadline", "memory_limit", "start"],
                "description": "host_error: what failed on the host side."
            },
            "session_restarted": {
                "type": "boolean",
                "description": "host_error: the session was restarted and its memory lost."
            }
        },
        "required": ["kind", "message"]
    })
}

fn read_output_schema() -> Value {
    let count = json!({ "type": "integer", "minimum": 0 });
    json!({
        "type": "object",
        "description": "A window (status ok), an unchanged stub (status unchanged, no content) or an error \
                        (status error).",
        "properties": {
            "status": { "type": "string", "enum": ["ok", "unchanged", "error"] },
            "content_returned": { "type": "boolean", "description": "True exactly when `content` is present." },
            "content": {
                "type": "string",
                "description": "The window: one `N|text` line per file line, each ending in a line feed."
            },
            "path": { "type": "string", "description": "The path that was read, after resolving links." },
            "start_line": { "type": "integer", "minimum": 0, "description": "The first line shown, 1-based." },
            "start_column": { "type": "integer", "minimum": 0, "description": "The column it starts at, 0-based." },
            "end_line": { "type": "integer", "minimum": 0, "description": "The last line shown (0: none)." },
            "lines_returned": count,
            "total_lines": count,
            "truncated": {
                "type": "boolean",
                "description": "True when something after the requested position is not in `content`."
            },
            "truncated_by": {
                "type": "array",
                "items": { "type": "string", "enum": ["limit", "budget", "line_length", "mid_line"] }
            },
            "next_offset": {
                "type": ["integer", "null"],
                "minimum": 1,
                "description": "The offset that continues; null when the file is done."
            },
            "next_column": {
                "type": ["integer", "null"],
                "minimum": 0,
                "description": "The column that continues inside line next_offset; null at a line start."
            },
            "clamped_lines": {
                "type": "array",
                "description": "Lines cut at the maximum line length: read the rest with offset=line, \
                                column=next_column.",
                "items": {
                    "type": "object",
                    "properties": {
                        "line": count,
                        "shown_chars": count,
                        "total_chars": count,
                        "next_column": count
                    },
                    "required": ["line", "shown_chars", "total_chars", "next_column"]
                }
            },
            "hint": { "type": "string", "description": "What was shown and the call that continues." },
            "file_size": { "type": "integer", "minimum": 0, "description": "The file's size in bytes." },
            "encoding": {
                "type": "object",
                "properties": {
                    "encoding": {
                        "type": "string",
                        "description": "utf8, utf16le, utf16be, utf32le, utf32be, or a legacy encoding's lower-case \
                                        WHATWG name (windows-1251, shift_jis, gbk, ...): write the file back in it."
                    },
                    "bom": { "type": "boolean" },
                    "origin": { "type": "string", "enum": ["declared", "detected"] },
                    "line_endings": { "type": "string", "enum": ["none", "lf", "crlf", "mixed", "cr"] },
                    "replaced_invalid": count
                },
                "required": ["encoding", "bom", "origin", "line_endings", "replaced_invalid"]
            },
            "budget": {
                "type": "object",
                "properties": {
                    "unit": { "type": "string", "enum": ["characters", "tokens"] },
                    "limit": count,
                    "used": count,
                    "cap": count
                },
                "required": ["unit", "limit", "used"]
            },
            "warnings": { "type": "array", "items": { "type": "string" } },
            "dedup": { "type": "boolean", "description": "Set on a stub: the window was already returned." },
            "message": {
                "type": "string",
                "description": "The stub's message: the earlier result is still current, then the call that continues."
            },
            "text": {
                "type": "string",
                "description": "Exactly what the model sees: a window's content, a blank line, the hint and its \
                                warnings; a stub's or an error's message."
            },
            "error": error_schema()
        },
        "required": ["status", "content_returned"]
    })
}

fn check_write_output_schema() -> Value {
    json!({
        "type": "object",
        "description": "status ok: the text may be written; status error: it holds read_file output.",
        "properties": {
            "status": { "type": "string", "enum": ["ok", "error"] },
            "content_returned": { "type": "boolean" },
            "text": { "type": "string", "description": "An error's message." },
            "error": error_schema()
        },
        "required": ["status"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> JsonObject {
        object(value)
    }

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/me/proj"),
            Some(PathBuf::from("/home/me/proj"))
        );
        assert_eq!(
            file_uri_path("FILE://localhost/a%20b/c%2Fd?x#y"),
            Some(PathBuf::from("/a b/c/d"))
        );
        assert_eq!(file_uri_path("file://server/share"), None);
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(file_uri_path("file:///bad%2"), None);
        assert_eq!(file_uri_path("file:///bad%zz"), None);
        assert_eq!(file_uri_path("file://"), None);
        assert_eq!(file_uri_path("fil"), None);
    }

    #[test]
    fn read_arguments_follow_the_session_rules() {
        let parsed = parse_read(Some(&args(
            json!({"path": "a", "offset": 3, "limit": 2.0, "column": null}),
        )));
        assert_eq!(
            parsed.ok(),
            Some((ReadRequest::new("a").offset(3).limit(2), Vec::new()))
        );
        let (request, notes) = parse_read(Some(&args(
            json!({"path": "a", "offset": "", "limit": "40", "tail": null}),
        )))
        .unwrap();
        assert_eq!(request, ReadRequest::new("a").limit(40));
        assert_eq!(
            notes,
            ["`limit` was the string \"40\"; it was read as the number 40. Send numbers as JSON numbers."]
        );
        let (request, _) = parse_read(Some(&args(json!({"path": "log", "tail": 5})))).unwrap();
        assert_eq!(request.tail, Some(5));
        let message = |value: Value| match parse_read(Some(&args(value))) {
            Ok(request) => panic!("parsed as {request:?}"),
            Err(error) => error.message,
        };
        assert!(message(json!({})).contains("`path` is missing: read_file needs"));
        assert!(message(json!({"path": 1})).contains("`path` must be a string"));
        assert!(message(json!({"path": "a", "offset": -1})).contains("must not be negative"));
        assert!(message(json!({"path": "a", "limit": 1.5})).contains("must be an integer"));
        assert!(message(json!({"path": "a", "column": "three"})).contains("`column`"));
        assert!(message(json!({"path": "a", "column": 1e30})).contains("beyond the largest"));
        assert!(message(json!({"path": "a", "op": "wrote"})).contains("unknown argument `op`"));
        assert!(parse_read(None).is_err());
        assert!(parse_check_write(Some(&args(json!({"path": "a"}))))
            .is_err_and(|e| e.message.contains("`text` is missing")));
    }

    #[test]
    fn tools_declare_their_schemas() {
        let tools = tools_for(read_window::config::DEFAULT_MAX_LINES);
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(names, [READ_FILE, CHECK_WRITE]);
        for tool in &tools {
            assert_eq!(tool.input_schema.get("type"), Some(&json!("object")));
            assert!(tool
                .output_schema
                .as_ref()
                .is_some_and(|schema| schema.get("type") == Some(&json!("object"))));
        }
    }
}
