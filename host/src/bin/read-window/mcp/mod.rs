//! `read-window mcp`: the reader as an MCP (Model Context Protocol) server over stdio, built on rmcp.
//!
//! One connection is one read-window [`Session`]: dedup stubs, the loop tripwire, the count of misses and the
//! line indexes last as long as the client stays connected, exactly as in the `session` command. Two tools:
//!
//! - `read_file` (`path`, `offset`, `limit`, `column`, `tail`, `extract`, `fresh`): a window. The one text block
//!   is what the model sees (the window's content, a blank line, the hint, the warnings); a stub answers with its
//!   message; an error with its message and `isError: true`. The structured content is the answer's fields
//!   without the body, described by the tool's output schema (`docs/protocol.md`, "MCP replies").
//! - `check_write` (`path`, `text`): `ok`, or the `echoed_output`, `stale` or `binary_document` error, the same
//!   way.
//!
//! Both tools, their schemas, the reading of their arguments and the shape of the result are the component's
//! (`tools` and `tool_call` with `"reply": "mcp"` in the protocol): this server hands each call on as a line
//! and the answer back as the result. A `tools/call` whose params rmcp cannot read (its `arguments` a string of
//! JSON, as some clients send them) is handed on the same way, and the component reads or refuses it.
//!
//! Without a budget option the windows get a token budget under Claude Code's 25,000-token output cap
//! ([`read_window::protocol::mcp::MCP_TOKEN_CAP`]).
//!
//! The directories the session may read are the `--root` options; without any, the roots the client offers
//! (`roots/list`, `file://` URIs of directories) when it declares the roots capability; with neither, the
//! current directory. The roots are asked for at the first tool call and again after the client says they
//! changed (`notifications/roots/list_changed`); a different set of roots starts a new session. When the client
//! lists roots and none can be granted (not a local `file://` URI, a missing directory), every tool call is
//! answered with a `host_error` (cause `start`) that lists them and why; the current directory is not read then.
//! Nor is it when it is `/` or the home directory: the calls are answered with a `host_error` naming `--root`,
//! so the user sees why in the client rather than a server that failed to start.
//!
//! A failure of the host (the component trapped, ran past its deadline or over its memory cap) is an error
//! result with a `host_error` answer; the session was restarted and the connection goes on.
//!
//! The server speaks the MCP revisions that open with `initialize` (2024-11-05 to 2025-11-25): a session is
//! tied to the connection, and `roots/list` is a request from server to client, which the 2026 revision
//! removed.

use std::borrow::Cow;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use read_window::protocol::mcp_server::{INSTRUCTIONS, SERVER_NAME, SERVER_VERSION};
use read_window_host::{Budget, Config, Grants, ReadWindow, Session, SessionLimits, TokenBudget};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult,
    ErrorCode, Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot, Mutex};

mod roots;
#[cfg(target_os = "linux")]
mod stdio;

pub use roots::{check_fallback, Roots};
use roots::{client_grants, describe_grants, describe_roots, ClientRoots};

/// How long the server waits for the client's answer to `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);

/// The most recent MCP revision the server speaks (the last one with an `initialize` handshake).
const PROTOCOL: ProtocolVersion = ProtocolVersion::LATEST_WITH_INITIALIZE;

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
    let (server, mut calls) = McpServer::new(reader, roots, config);
    let result = serve(&runtime, server, &mut calls);
    // A read of stdin cannot be cancelled: do not wait for the blocking pool when the client is gone.
    runtime.shutdown_background();
    result
}

/// Runs the server on `runtime` until the client disconnects, and each call into the component between two turns
/// of it, on this thread.
///
/// The component's WASI calls enter Tokio themselves (wasmtime-wasi's synchronous bindings), which they may not do
/// inside a runtime: a call runs when the runtime has handed it over (`calls`), not inside a task. Nothing crosses
/// threads on the way (the stdio transport waits on the same runtime, [`stdio`]); a call handed to Tokio's
/// blocking pool crossed twice, 50 to 250 µs a call on two cores (`docs/benchmarks.md`). The cost: what the client
/// sends during a call (a `ping`, `tools/list`, a cancellation) is read when it ends. Tool calls wait for each other
/// either way (one session), and a long call's cancellation is still honoured ([`Call::run`]).
fn serve(
    runtime: &tokio::runtime::Runtime,
    server: McpServer,
    calls: &mut mpsc::UnboundedReceiver<Call>,
) -> Result<(), String> {
    let service = runtime
        // The transport registers stdin and stdout with the runtime's reactor: it is made inside the runtime.
        .block_on(async { server.serve(transport()).await })
        .map_err(|e| format!("the MCP handshake failed: {e}"))?;
    let mut waiting = Box::pin(service.waiting());
    loop {
        let next = runtime.block_on(std::future::poll_fn(|cx| {
            if let Poll::Ready(call) = calls.poll_recv(cx) {
                return Poll::Ready(Ok(call));
            }
            waiting.as_mut().poll(cx).map(Err)
        }));
        let stopped = match next {
            Ok(Some(call)) => {
                call.run(runtime);
                continue;
            }
            // Every server is gone: the service is ending.
            Ok(None) => runtime.block_on(waiting.as_mut()),
            Err(stopped) => stopped,
        };
        return stopped
            .map(|_| ())
            .map_err(|e| format!("the MCP server stopped: {e}"));
    }
}

/// stdin and stdout for rmcp: read and written on the runtime's thread where the platform allows ([`stdio`]).
#[cfg(target_os = "linux")]
fn transport() -> (stdio::Input, stdio::Output) {
    stdio::transport()
}

/// stdin and stdout for rmcp: read and written on the runtime's thread where the platform allows ([`stdio`]).
#[cfg(not(target_os = "linux"))]
fn transport() -> (rmcp::transport::StdioReader, rmcp::transport::StdioWriter) {
    rmcp::transport::stdio_pipes()
}

/// Whether stdin has bytes the server has not read yet.
#[cfg(target_os = "linux")]
fn input_waiting() -> bool {
    stdio::input_waiting()
}

/// Whether stdin has bytes the server has not read yet: not known here (the long-call rule alone applies).
#[cfg(not(target_os = "linux"))]
fn input_waiting() -> bool {
    false
}

/// One call into the component, handed by a tool call's task to the thread that runs the runtime.
struct Call {
    /// The call: starts the session when it must, then answers the line.
    work: Box<dyn FnOnce() -> CallToolResult + Send>,
    /// Where the result goes back to the task.
    answer: oneshot::Sender<CallToolResult>,
}

impl Call {
    /// Makes the call and sends its result back; a panic of the host is a `trap` result.
    ///
    /// When the client sent something during the call (stdin has bytes waiting), or the call was long (where stdin
    /// is read ahead on another thread, a terminal or a file), `runtime` first turns (`CATCH_UP_TURNS`) so that it is
    /// read: a cancellation of this call drops its task, and the result is not sent (MCP: a cancelled request gets
    /// no response). A call that overlapped nothing costs one `poll` for this.
    fn run(self, runtime: &tokio::runtime::Runtime) {
        let started = Instant::now();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(self.work))
            .unwrap_or_else(|_| {
                host_error_result(
                    &call_line(&Value::Null, &Value::Null),
                    "trap",
                    "the call into the read-window session failed (the host panicked)",
                )
            });
        if started.elapsed() >= LONG_CALL || input_waiting() {
            runtime.block_on(async {
                for _ in 0..CATCH_UP_TURNS {
                    tokio::task::yield_now().await;
                }
            });
        }
        // The task is gone when its request was cancelled: nobody waits for the result.
        let _ = self.answer.send(result);
    }
}

/// A call at least this long lets the runtime read what came meanwhile before its result goes back, whether or not
/// stdin shows bytes waiting.
const LONG_CALL: Duration = Duration::from_millis(1);

/// How many times the runtime turns after a call that overlapped input or was long: reading the input, rmcp's
/// handling of a cancellation, and the cancelled task's end each take one.
const CATCH_UP_TURNS: usize = 8;

/// The MCP server: the tools, and the connection's read-window session.
#[derive(Clone)]
pub struct McpServer {
    reader: ReadWindow,
    roots: Roots,
    config: Config,
    tools: Arc<[Tool]>,
    session: Arc<Mutex<Option<Session>>>,
    roots_changed: Arc<AtomicBool>,
    calls: mpsc::UnboundedSender<Call>,
}

impl McpServer {
    /// A server whose session (started at the first tool call) reads through `reader`, with `config`, over
    /// the directories `roots` says, and the calls into the component it hands over (to run with [`Call::run`]).
    fn new(
        reader: ReadWindow,
        roots: Roots,
        config: Config,
    ) -> (Self, mpsc::UnboundedReceiver<Call>) {
        let tools = Arc::from(tools_for(&read_window_host::settings::resolved(&config)));
        let (calls, handed_over) = mpsc::unbounded_channel();
        let server = McpServer {
            reader,
            roots,
            config,
            tools,
            session: Arc::new(Mutex::new(None)),
            roots_changed: Arc::new(AtomicBool::new(false)),
            calls,
        };
        (server, handed_over)
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
                    ClientRoots::Unusable(message) => {
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
                        if let Err(message) = check_fallback(&self.roots) {
                            eprintln!("read-window mcp: {message}");
                            return Err(message);
                        }
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

    /// Runs one `tool_call` line against the connection's session, starting (or replacing) it first when needed.
    async fn call(&self, line: String, peer: &Peer<RoleServer>) -> CallToolResult {
        let mut slot = Arc::clone(&self.session).lock_owned().await;
        let current = slot.as_ref().map(|session| session.grants().clone());
        let wanted = match self.wanted_session(current, peer).await {
            Ok(wanted) => wanted,
            Err(message) => {
                // No directory can be granted: no session reads anything until the roots change.
                *slot = None;
                return host_error_result(&line, "start", &message);
            }
        };
        let reader = self.reader.clone();
        let work = Box::new(move || {
            if let Some((grants, config)) = wanted {
                *slot = None;
                match reader.protocol_session(&grants, &config, SessionLimits::default()) {
                    Ok(session) => *slot = Some(session),
                    Err(error) => {
                        return host_error_result(&line, error.kind().as_str(), error.message());
                    }
                }
            }
            match slot.as_mut() {
                Some(session) => tool_result(&session.answer(&line)),
                None => host_error_result(&line, "trap", "the read-window session is missing"),
            }
        });
        let (answer, answered) = oneshot::channel();
        let handed_over = self.calls.send(Call { work, answer }).is_ok();
        let result = if handed_over {
            answered.await.ok()
        } else {
            None
        };
        result.unwrap_or_else(|| {
            host_error_result(
                &call_line(&Value::Null, &Value::Null),
                "trap",
                "the call into the read-window session failed: the server is stopping",
            )
        })
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_protocol_version(PROTOCOL)
            .with_server_info(
                Implementation::new(SERVER_NAME, SERVER_VERSION)
                    .with_title(SERVER_NAME)
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
        // The component reads the name and the arguments (as models send them) and words every refusal, an
        // unknown tool's included, as it does for every MCP server.
        let line = call_line(&json!(request.name), &json!(request.arguments));
        Ok(self.call(line, &context.peer).await.into())
    }

    /// A request rmcp could not read as one it knows: a `tools/call` whose params did not parse (`arguments` a
    /// string of JSON) goes to the component as it came; any other method is not one this server has.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "tools/call" {
            return Err(no_method(&request.method));
        }
        let params = request.params.unwrap_or_default();
        let name = params.get("name").cloned().unwrap_or_default();
        let arguments = params.get("arguments").cloned().unwrap_or_default();
        let result = self.call(call_line(&name, &arguments), &context.peer).await;
        serde_json::to_value(result)
            .map(CustomResult::new)
            .map_err(|error| {
                ErrorData::internal_error(format!("the result did not serialize: {error}"), None)
            })
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Err(no_method("resources/list"))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Err(no_method("resources/templates/list"))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Err(no_method("prompts/list"))
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.roots_changed.store(true, Ordering::SeqCst);
    }
}

/// The `-32601` answer to `method`, which this server does not have: it names the ones it has.
fn no_method(method: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("this server has no method {method:?}: it answers initialize, ping, tools/list and tools/call"),
        None,
    )
}

/// The protocol line of a model's call of the tool `name` with `arguments`, answered as an MCP result.
fn call_line(name: &Value, arguments: &Value) -> String {
    let mut line = json!({ "op": "tool_call", "name": name, "reply": "mcp" });
    if !arguments.is_null() {
        line["arguments"] = arguments.clone();
    }
    line.to_string()
}

/// The component's answer to a call line: an MCP `CallToolResult` already, read as one.
fn tool_result(answer: &str) -> CallToolResult {
    serde_json::from_str(answer).unwrap_or_else(|error| {
        let message = format!("the component's answer is not a tool result: {error}");
        serde_json::from_str(&read_window::protocol::host_error_answer(
            &call_line(&Value::Null, &Value::Null),
            "trap",
            &message,
            false,
        ))
        .unwrap_or_else(|_| CallToolResult::error(vec![rmcp::model::ContentBlock::text(message)]))
    })
}

/// A failure of this server around the component (no session could start, a call that could not run): the
/// component's `host_error` answer of `cause` for `line`, as a tool result.
fn host_error_result(line: &str, cause: &str, message: &str) -> CallToolResult {
    tool_result(&read_window::protocol::host_error_answer(
        line, cause, message, false,
    ))
}

/// `config` with the MCP default budget when it sets none: a token cap under Claude Code's output cap.
pub fn with_default_budget(mut config: Config) -> Config {
    if config.budget.is_none() {
        config.budget = Some(Budget::Tokens(TokenBudget {
            cap: Some(read_window::protocol::mcp::MCP_TOKEN_CAP),
            headroom: None,
        }));
    }
    config
}

// ---------------------------------------------------------------------------------------------------------------
// Tools

/// The tools as the component defines them (`read_file`, `list_directory`, `read_files`, `search` and `check_write`, with their input and output
/// schemas), for a server under `config`.
pub fn tools_for(config: &read_window::Config) -> Vec<Tool> {
    read_window::protocol::tools::definitions(read_window::protocol::tools::Format::Mcp, config)
        .into_iter()
        .filter_map(|tool| serde_json::from_value(tool).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_declare_their_schemas() {
        let tools = tools_for(&read_window::Config::default());
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "read_file",
                "list_directory",
                "read_files",
                "search",
                "check_write"
            ]
        );
        for tool in &tools {
            assert_eq!(tool.input_schema.get("type"), Some(&json!("object")));
            assert!(tool
                .output_schema
                .as_ref()
                .is_some_and(|schema| schema.get("type") == Some(&json!("object"))));
        }
    }
}
