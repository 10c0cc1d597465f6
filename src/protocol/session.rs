//! One session of the protocol: a request text in, an answer text out. It owns the reader, the config in force
//! (`configure` may change it until the first op that uses the session), and the open capture.

use serde_json::Value;

use super::answers::{
    capture_json, error_json, note_json, outcome_json, retry_json, stats_json, unit_json,
    window_once, with_id, with_notes, WindowCopies,
};
use super::census_answers::{read_many_json, search_json};
use super::config_json::{configure, effective_json, parse_config, ConfigRecord};
use super::json_in::parse_strict;
use super::json_out::json_text;
use super::mcp::{call_tool_result, wants_mcp_reply};
use super::mcp_server::{
    resolve_roots, roots_json, with_mcp_budget, INSTRUCTIONS, SERVER_NAME, SERVER_VERSION,
};
use super::options::options_json;
use super::requests::{asks_content, parse_request, CaptureEnd, LinkRefusal, Request};
use super::tools::{definitions, Format};
use crate::capture::CaptureInput;
use crate::error::ReadError;
use crate::read::{self, Reader};
use crate::sandbox::{self, describe_roots, normalize, FileKind, ResolveError};
use crate::spill::{Capture, SpillFs};

/// What a session asks of the place it runs in: the time and the size of its memory.
#[derive(Clone, Copy, Debug)]
pub struct Environment {
    /// Milliseconds on a monotonic clock (the not-found memory ages by it).
    pub now_ms: fn() -> u64,
    /// The bytes of memory the session's instance holds now; on wasm32 linear memory never shrinks, so this is
    /// also its peak (`stats` reports it).
    pub memory_bytes: fn() -> u64,
}

/// A protocol session over the file system `F` (the preopens).
pub struct ProtocolSession<F: SpillFs> {
    fs: F,
    environment: Environment,
    /// The guest paths of the writable preopens: the only one, when there is one, takes a spill by default.
    writable_roots: Vec<String>,
    config: ConfigRecord,
    reader: Reader,
    /// Why the config's `document_cache_dir` could not be used, said on every `read_once` (a session says it once).
    store_warning: Option<String>,
    /// The first op that used the session, once one ran: `configure` is refused after it.
    started: Option<&'static str>,
    /// Why the config the session was created with could not be read: every request is answered with it.
    malformed_config: Option<ReadError>,
    capture: Option<Capture<F::Writer>>,
}

impl<F: SpillFs> ProtocolSession<F> {
    /// A session reading through `fs` under `config` (a config object as text, `""` for the defaults; a value out
    /// of its range falls back to its default with a warning, as the typed session does); `writable_roots` are the
    /// guest paths of the preopens granted for writing. A config that is not a config object leaves the session
    /// answering every request with the `invalid_request` error that says why.
    pub fn new(
        mut fs: F,
        config: &str,
        writable_roots: Vec<String>,
        environment: Environment,
    ) -> Self {
        let parsed = if config.trim().is_empty() {
            Ok(ConfigRecord::default())
        } else {
            parse_strict(config)
                .map_err(|e| ReadError::invalid(format!("the config is not valid JSON: {e}")))
                .and_then(|value| parse_config(&value))
        };
        let (config, malformed_config) = match parsed {
            Ok(config) => (config, None),
            Err(error) => (
                ConfigRecord::default(),
                Some(ReadError::invalid(format!(
                    "the host started this session with a config it could not use, so it answers no request: {}",
                    error.message
                ))),
            ),
        };
        let mut reader = Reader::new(config.input());
        // Only a preopen the host granted read-write can hold the store: a read-only root named here stays a root.
        let store_warning = config.document_cache_dir.as_deref().and_then(|dir| {
            let normalized = crate::sandbox::normalize(dir, "/");
            if writable_roots
                .iter()
                .all(|root| crate::sandbox::normalize(root, "/") != normalized)
            {
                return Some(format!(
                    "document_cache_dir {normalized:?} is not a directory the host granted read-write, so no document cache is kept"
                ));
            }
            fs.attach_document_store(dir).err()
        });
        if let Some(warning) = &store_warning {
            reader.warn_once(warning.clone());
        }
        let writable_roots = writable_roots
            .into_iter()
            .filter(|root| Some(root) != config.document_cache_dir.as_ref())
            .collect();
        ProtocolSession {
            fs,
            environment,
            writable_roots,
            reader,
            store_warning,
            config,
            started: None,
            malformed_config,
            capture: None,
        }
    }

    /// The config in force, as the record `configure` merges into.
    pub fn config(&self) -> &ConfigRecord {
        &self.config
    }

    /// The config in force as the text [`Self::new`] takes: a host restarting the session after a trap starts the
    /// new one with it.
    pub fn config_text(&self) -> String {
        self.config.to_json().to_string()
    }

    /// Answers one request line with one answer line (a JSON object, the request's `id` first when it had one).
    /// Never fails: a malformed request is answered with an `invalid_request` error.
    pub fn answer(&mut self, line: &str) -> String {
        json_text(&self.answer_value(line))
    }

    /// [`Self::answer`] as a JSON value.
    pub fn answer_value(&mut self, line: &str) -> Value {
        let value = match parse_strict(line) {
            Ok(value) => value,
            Err(e) => {
                // A line refused for a key given twice still parses: its `id` goes back with the refusal.
                let id = serde_json::from_str::<Value>(line)
                    .ok()
                    .and_then(|value| value.get("id").cloned());
                let error = ReadError::invalid(format!("the request is not valid JSON: {e}"));
                return with_id(id, error_json(&error));
            }
        };
        let id = value.get("id").cloned();
        let answer = match (&self.malformed_config, parse_request(&value)) {
            (Some(error), _) => error_json(error),
            (None, Err(error)) => error_json(&error),
            (None, Ok((request, notes))) => {
                let op = value.get("op").and_then(Value::as_str);
                let answer = if asks_content(&value) {
                    self.run(request, op, WindowCopies::Twice)
                } else {
                    window_once(self.run(request, op, WindowCopies::Once))
                };
                with_notes(answer, notes)
            }
        };
        // A tool call asking for an MCP reply gets one whatever happened, a refusal of the line included.
        let answer = if wants_mcp_reply(&value) {
            call_tool_result(with_text(answer))
        } else {
            answer
        };
        with_id(id, answer)
    }

    /// Pushes a command's output bytes into the open capture: `{"status":"ok"}` or the error (no capture open).
    pub fn push_output(&mut self, chunk: &[u8]) -> String {
        json_text(&unit_json(&self.capture_chunk(chunk)))
    }

    /// Runs one request; a window goes in its answer as `copies` says.
    fn run(&mut self, request: Request, op: Option<&str>, copies: WindowCopies) -> Value {
        if let Request::ToolCall(call) = request {
            let op = match *call {
                Request::CheckWrite { .. } => "check_write",
                Request::ReadMany(_) => "read_many",
                Request::Search(_) => "search",
                _ => "read",
            };
            return with_text(self.run(*call, Some(op), copies));
        }
        if request.uses_session() && !matches!(request, Request::ReadOnce(_)) {
            self.started.get_or_insert(op_name(op));
        }
        match request {
            Request::Read(read) => {
                let now_ms = (self.environment.now_ms)();
                outcome_json(&self.reader.read(&mut self.fs, &read, now_ms), copies)
            }
            Request::ReadOnce(read) => self.read_once(&read, copies),
            Request::ReadMany(many) => self.read_many(&many, copies),
            Request::Search(search) => self.search(&search),
            Request::OtherTool => {
                self.reader.note_other_tool();
                note_json()
            }
            Request::ResetDedup => {
                self.reader.reset_dedup();
                note_json()
            }
            Request::Wrote(path) => {
                self.reader.wrote(&mut self.fs, &path);
                note_json()
            }
            Request::CheckWrite { path, text } => {
                unit_json(&self.reader.check_write(&mut self.fs, &path, &text))
            }
            request @ (Request::ReportTokens { .. } | Request::TokenRefusal { .. }) => {
                self.token_feedback(request)
            }
            Request::Stats => stats_json(
                &self.reader.stats(&mut self.fs),
                (self.environment.memory_bytes)(),
            ),
            Request::Config => self.config_answer(),
            Request::Configure(fields) => match self.configure(&fields) {
                Ok(()) => note_json(),
                Err(error) => error_json(&error),
            },
            Request::Tools(format) => self.tools(&format),
            Request::McpServer => match self.serve_mcp() {
                Ok(()) => self.mcp_server_answer(),
                Err(error) => error_json(&error),
            },
            Request::McpRoots(input) => roots_json(&resolve_roots(&input)),
            Request::Options(request) => options_json(&request),
            Request::LinkRefused { requested, refusal } => self.link_refused(&requested, refusal),
            // Unwrapped above; a tool call inside a tool call is not a request the parser makes.
            Request::ToolCall(_) => {
                error_json(&ReadError::invalid("a tool call cannot call a tool"))
            }
            Request::CaptureBegin(input) => {
                self.capture_begin(input);
                note_json()
            }
            Request::CaptureChunk(bytes) => unit_json(&self.capture_chunk(&bytes)),
            Request::CaptureEnd(end) => self.capture_end(end),
        }
    }

    /// `report_tokens` and `token_refusal`: what the client's tokenizer counted, or the window it refused.
    fn token_feedback(&mut self, request: Request) -> Value {
        match request {
            Request::ReportTokens {
                path,
                offset,
                lines,
                tokens,
            } => unit_json(
                &self
                    .reader
                    .report_tokens(&self.fs, &path, offset, lines, tokens),
            ),
            Request::TokenRefusal {
                path,
                offset,
                limit,
                message,
            } => {
                retry_json(
                    &self
                        .reader
                        .token_refusal(&mut self.fs, &path, offset, limit, &message),
                )
            }
            // `run` sends only the two token ops here.
            _ => error_json(&ReadError::invalid("not a token report")),
        }
    }

    /// `read_many`: each file's window under the one budget of the call.
    fn read_many(&mut self, request: &read::ReadManyRequest, copies: WindowCopies) -> Value {
        let now_ms = (self.environment.now_ms)();
        read_many_json(
            &self.reader.read_many(&mut self.fs, request, now_ms),
            copies,
        )
    }

    /// `search`: a page of matches and the census, under the search's deadline on the session's clock.
    fn search(&mut self, request: &crate::SearchRequest) -> Value {
        let clock = self.environment.now_ms;
        search_json(&self.reader.search(&mut self.fs, request, clock))
    }

    /// `read_once`: a window with the session's config and none of its memory.
    fn read_once(&mut self, request: &read::ReadRequest, copies: WindowCopies) -> Value {
        let outcome =
            read::read_once(self.config.input(), &mut self.fs, request).map(|mut outcome| {
                outcome.warn(self.store_warning.clone());
                outcome
            });
        outcome_json(&outcome, copies)
    }

    /// The refusal of a path the host's walk of absolute links stopped, in the words of the component's own walk.
    fn link_refused(&self, requested: &str, refusal: LinkRefusal) -> Value {
        error_json(&match refusal {
            LinkRefusal::Outside { link, target } => {
                sandbox::outside_link_error(requested, &link, &target, self.fs.roots())
                    .at_path(&link)
            }
            LinkRefusal::Loop => sandbox::link_loop_error(requested),
        })
    }

    /// `capture_end`: the open capture's window, with what the host said of the command's end.
    fn capture_end(&mut self, end: CaptureEnd) -> Value {
        match self.capture.take() {
            // A command stopped at its timeout has its end said once, by `ended`, not also by its exit status.
            Some(mut capture) => match capture.finish(
                &mut self.fs,
                end.exit_status.filter(|_| end.timeout_seconds.is_none()),
            ) {
                Ok(mut result) => {
                    result.exit_status = end.exit_status;
                    capture_json(&ended(result, end))
                }
                Err(error) => error_json(&error),
            },
            None => error_json(&no_capture()),
        }
    }

    fn config_answer(&self) -> Value {
        let first_root = self.fs.roots().first().map(String::as_str);
        serde_json::json!({
            "status": "ok",
            "config": effective_json(&self.config, first_root),
        })
    }

    /// `configure`: refused once an op used the session; a `working_directory` must be a directory under a root.
    fn configure(&mut self, fields: &serde_json::Map<String, Value>) -> Result<(), ReadError> {
        if let Some(first) = self.started {
            return Err(ReadError::invalid(format!(
                "`configure` must come before the first request that uses the session: this session already \
                 ran `{first}`, so its settings stay as they are; start a new session to change them."
            )));
        }
        let config = configure(&self.config, fields)?;
        if let (Some(dir), true) = (
            &config.working_directory,
            fields.contains_key("working_directory"),
        ) {
            self.check_working_directory(dir)
                .map_err(|why| ReadError::invalid(format!("`working_directory` {dir:?}: {why}")))?;
        }
        self.reader = Reader::new(config.input());
        self.config = config;
        Ok(())
    }

    /// Refuses a working directory that is not a directory under a root: `Err` says why.
    fn check_working_directory(&mut self, dir: &str) -> Result<(), String> {
        let absolute = normalize(dir, "/");
        if sandbox::find_root(self.fs.roots(), &absolute).is_none() {
            return Err(format!(
                "not under a root (the roots are {})",
                describe_roots(self.fs.roots())
            ));
        }
        match sandbox::resolve(&mut self.fs, dir, &absolute) {
            Ok(resolved) if resolved.stat.kind == FileKind::Directory => Ok(()),
            Ok(_) => Err("not a directory".to_owned()),
            Err(ResolveError::NotFound(missing)) => Err(format!("{} does not exist", missing.path)),
            Err(ResolveError::Other(error)) => Err(error.message),
        }
    }

    /// `mcp_server`: the MCP default budget when the config sets none, which, like `configure`, must come
    /// before the first op that uses the session.
    fn serve_mcp(&mut self) -> Result<(), ReadError> {
        if self.config.budget.is_some() {
            return Ok(());
        }
        if let Some(first) = self.started {
            return Err(ReadError::invalid(format!(
                "`mcp_server` must come before the first request that uses the session: this session already \
                 ran `{first}` under the default budget; start a new session for the MCP server."
            )));
        }
        self.config = with_mcp_budget(self.config.clone());
        self.reader = Reader::new(self.config.input());
        Ok(())
    }

    /// The `mcp_server` answer: the server's name, version, instructions and tools (MCP format).
    fn mcp_server_answer(&self) -> Value {
        let (config, _) = crate::config::Config::resolve(self.config.input());
        serde_json::json!({
            "status": "ok",
            "name": SERVER_NAME,
            "version": SERVER_VERSION,
            "instructions": INSTRUCTIONS,
            "tools": definitions(Format::Mcp, &config),
        })
    }

    fn tools(&self, format: &str) -> Value {
        let Some(format) = Format::named(format) else {
            return error_json(&ReadError::invalid(format!(
                "unknown tool format {format:?}: expected openai, anthropic or mcp"
            )));
        };
        let (config, _) = crate::config::Config::resolve(self.config.input());
        serde_json::json!({
            "status": "ok",
            "tools": definitions(format, &config),
        })
    }

    /// Opens a capture (dropping one still open). Without a `spill_dir`, the spill goes to the only writable
    /// preopen when there is exactly one.
    fn capture_begin(&mut self, mut input: CaptureInput) {
        if input.spill_dir.is_none() {
            if let [only] = self.writable_roots.as_slice() {
                input.spill_dir = Some(only.clone());
            }
        }
        self.capture = Some(Capture::new(input));
    }

    fn capture_chunk(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        match self.capture.as_mut() {
            Some(capture) => capture.push(&mut self.fs, chunk),
            None => Err(no_capture()),
        }
    }
}

/// The answer for `request` that a host could not run (`cause`: `trap`, `deadline`, `memory_limit` or
/// `start`), with the request's `id` first when it had one; an MCP `CallToolResult` when the request is a
/// `tool_call` asking for an MCP reply.
pub fn host_error_answer(
    request: &str,
    cause: &str,
    message: &str,
    session_restarted: bool,
) -> String {
    let request = serde_json::from_str::<Value>(request).ok();
    let id = request.as_ref().and_then(|value| value.get("id").cloned());
    let answer = super::answers::host_error_json(cause, message, session_restarted);
    let answer = match request {
        Some(request) if wants_mcp_reply(&request) => call_tool_result(answer),
        _ => answer,
    };
    json_text(&with_id(id, answer))
}

/// A finished capture with what the host said of the command's end: the timeout that stopped it (one sentence
/// with its exit status: killed by the timeout, or exited while a process it started held the output open until
/// the timeout killed the group) and the host's own sentences after the hint, its warnings after the capture's.
fn ended(mut result: crate::spill::CaptureResult, end: CaptureEnd) -> crate::spill::CaptureResult {
    let hint = &mut result.summary.hint;
    if let Some(seconds) = end.timeout_seconds {
        let unit = if seconds == 1.0 { "second" } else { "seconds" };
        hint.push_str(&match end.exit_status {
            Some(status @ 0..=128) | Some(status @ 160..) => format!(
                " The command exited with status {status}, but a process it started kept the output open until the timeout of {seconds} {unit} killed its process group: the output ends there."
            ),
            Some(status) => format!(
                " The command was killed at its timeout of {seconds} {unit} (exit status {status}): the output ends there."
            ),
            None => format!(
                " The command was killed at its timeout of {seconds} {unit}: the output ends there."
            ),
        });
    }
    let spilled = result.spill_path.is_some();
    let spill_notes = end.spill_notes.into_iter().filter(|_| spilled);
    for note in end.hint_notes.into_iter().chain(spill_notes) {
        hint.push(' ');
        hint.push_str(note.trim_start());
    }
    result.warnings.extend(end.warnings);
    result
}

/// A tool call's answer always carries `text`, what the model sees: `ok` for a check that passed.
fn with_text(mut answer: Value) -> Value {
    if let Value::Object(fields) = &mut answer {
        fields.entry("text").or_insert_with(|| Value::from("ok"));
    }
    answer
}

/// The op's name for the `configure` refusal (`read` when the request gave none).
fn op_name(op: Option<&str>) -> &'static str {
    super::requests::OPS
        .iter()
        .find(|name| Some(**name) == op)
        .copied()
        .unwrap_or("read")
}

fn no_capture() -> ReadError {
    ReadError::invalid("no capture is open; send capture_begin first.")
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
