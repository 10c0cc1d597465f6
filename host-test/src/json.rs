//! JSON for agents and the CLI: the component's answers as `serde_json::Value`s with snake_case fields, and
//! JSON requests for the session protocol (one request object per line, one answer object per line).
//!
//! # Answers
//!
//! - A window: `{"status":"ok","content_returned":true,"content","path","start_line","start_column","end_line",
//!   "lines_returned","total_lines","truncated","truncated_by":["limit"|"budget"|"line_length"|"mid_line"],
//!   "next_offset":N|null,"next_column":N|null,"clamped_lines":[{"line","shown_chars","total_chars",
//!   "next_column"}],"hint","file_size","encoding":{"encoding":"utf8"|"utf16le"|"utf16be"|"utf32le"|"utf32be","bom",
//!   "line_endings":"none"|"lf"|"crlf"|"mixed","replaced_invalid"},"budget":{"unit":"characters"|"tokens",
//!   "limit","used","cap"},"warnings":[...]}`; `cap` only in token mode, `warnings` only when not empty. Lines,
//!   columns and counts are integers: lines 1-based, columns 0-based in Unicode scalar values, `file_size` in
//!   bytes, `budget` numbers in its `unit`.
//! - A dedup stub: `{"status":"unchanged","content_returned":false,"dedup":true,"path","start_line","end_line",
//!   "total_lines","next_offset":N|null,"next_column":N|null,"message"}`, with no `content` key. The cursor is
//!   the one the window it stands for carried (`null` when nothing after it is left), so paging goes on through a
//!   stub; `message` says the earlier result is still current, then the call that continues (`Use offset=N to
//!   continue.`), or that nothing after the window is left, and the calls that read the rest of clamped lines.
//! - An error: `{"status":"error","content_returned":false,"error":{"kind","message","already_read"}}`, `kind` one
//!   of `not_found`, `not_a_file`, `outside_sandbox`, `permission_denied`, `invalid_request`, `io`,
//!   `special_file`, `device`, `credential`, `binary`, `loop_blocked`, `echoed_output`; `already_read` only when
//!   present (loop-blocked reads).
//! - A host failure (trap, deadline, memory cap): like an error, with `"kind":"host_error"`, `"cause"` one of
//!   `trap`, `deadline`, `memory_limit`, `start`, and `"session_restarted"`.
//! - A note (`other_tool`, `reset_dedup`, `wrote`, an accepted `check_write` or `report_tokens`):
//!   `{"status":"ok"}`.
//! - A retry window (`token_refusal`): `{"status":"ok","offset","limit","refused_tokens","cap_tokens","hint"}`.
//! - Stats: `{"status":"ok","positioned_reads","indexed_files","index_bytes","peak_memory_bytes"}`.
//!
//! # Requests
//!
//! An object with `"op"` (default `"read"`) and the op's fields; an optional `"id"` (any JSON value) is echoed
//! in the answer:
//!
//! | op | fields |
//! | --- | --- |
//! | `read` | `path` (string), `offset`, `limit`, `column` (optional non-negative integers) |
//! | `other_tool`, `reset_dedup`, `stats` | none |
//! | `wrote` | `path` |
//! | `check_write` | `path`, `text` (string) |
//! | `report_tokens` | `path`, `offset`, `lines`, `tokens` |
//! | `token_refusal` | `path`, `offset`, `limit`, `message` (string) |
//!
//! Malformed JSON, an unknown op, a missing or unknown field, a value of the wrong type, a negative number, a
//! non-integer or a number beyond `u64` are answered with an `invalid_request` error naming the field.

use serde_json::{json, Map, Value};

use crate::{
    Budget, BudgetReport, Config, HostError, ReadError, ReadOutcome, ReadRequest, ReadResult,
    RetryWindow, Session, SessionStats, TokenBudget, UnchangedStub,
};

/// A parsed request line of the session protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `read`: a window of a file.
    Read(ReadRequest),
    /// `other_tool`: the agent ran another tool ([`Session::note_other_tool`]).
    OtherTool,
    /// `reset_dedup`: the model's context was compacted ([`Session::reset_dedup`]).
    ResetDedup,
    /// `wrote`: the host wrote `path` ([`Session::wrote`]).
    Wrote {
        /// The guest path written.
        path: String,
    },
    /// `check_write`: check `text` meant for `path` ([`Session::check_write`]).
    CheckWrite {
        /// The guest path to be written.
        path: String,
        /// The text to be written.
        text: String,
    },
    /// `report_tokens`: the real token count of a window ([`Session::report_tokens`]).
    ReportTokens {
        /// The guest path of the window.
        path: String,
        /// The window's first line (1-based).
        offset: u64,
        /// The window's line count.
        lines: u64,
        /// The tokens the window really took.
        tokens: u64,
    },
    /// `token_refusal`: an engine refused a window for its token count ([`Session::token_refusal`]).
    TokenRefusal {
        /// The guest path of the refused window.
        path: String,
        /// The refused window's first line (1-based).
        offset: u64,
        /// The refused window's limit in lines.
        limit: u64,
        /// The engine's refusal message.
        message: String,
    },
    /// `stats`: the session's counters ([`Session::stats`]).
    Stats,
}

/// `{"status":"ok"}`: a note was taken or a check passed.
pub fn note_json() -> Value {
    json!({ "status": "ok" })
}

/// A window as JSON (see the module docs for the shape).
pub fn window_json(result: &ReadResult) -> Value {
    let truncated_by: Vec<&str> = result.truncated_by.iter().map(|t| t.as_str()).collect();
    let clamped: Vec<Value> = result
        .clamped_lines
        .iter()
        .map(|line| {
            json!({
                "line": line.line,
                "shown_chars": line.shown_chars,
                "total_chars": line.total_chars,
                "next_column": line.next_column,
            })
        })
        .collect();
    let mut value = json!({
        "status": "ok",
        "content_returned": true,
        "content": result.content,
        "path": result.path,
        "start_line": result.start_line,
        "start_column": result.start_column,
        "end_line": result.end_line,
        "lines_returned": result.lines_returned,
        "total_lines": result.total_lines,
        "truncated": result.truncated,
        "truncated_by": truncated_by,
        "next_offset": result.next_offset,
        "next_column": result.next_column,
        "clamped_lines": clamped,
        "hint": result.hint,
        "file_size": result.file_size,
        "encoding": {
            "encoding": result.encoding.encoding.as_str(),
            "bom": result.encoding.bom,
            "line_endings": result.encoding.line_endings.as_str(),
            "replaced_invalid": result.encoding.replaced_invalid,
        },
        "budget": budget_json(&result.budget),
    });
    if !result.warnings.is_empty() {
        if let Value::Object(map) = &mut value {
            map.insert("warnings".into(), json!(result.warnings));
        }
    }
    value
}

fn budget_json(budget: &BudgetReport) -> Value {
    let mut map = Map::new();
    map.insert("unit".into(), json!(budget.unit.as_str()));
    map.insert("limit".into(), json!(budget.limit));
    map.insert("used".into(), json!(budget.used));
    if let Some(cap) = budget.cap {
        map.insert("cap".into(), json!(cap));
    }
    Value::Object(map)
}

/// A dedup stub as JSON: `status` `unchanged`, no `content` key; the window's lines, the file's `total_lines`, the
/// window's cursor (`next_offset` 1-based line, `next_column` 0-based characters, each `null` when absent) and the
/// message with the call that continues.
pub fn stub_json(stub: &UnchangedStub) -> Value {
    json!({
        "status": "unchanged",
        "content_returned": false,
        "dedup": true,
        "path": stub.path,
        "start_line": stub.start_line,
        "end_line": stub.end_line,
        "total_lines": stub.total_lines,
        "next_offset": stub.next_offset,
        "next_column": stub.next_column,
        "message": stub.message,
    })
}

/// A [`ReadError`] as JSON: `{"status":"error","content_returned":false,"error":{"kind","message",...}}`.
pub fn error_json(error: &ReadError) -> Value {
    let mut inner = Map::new();
    inner.insert("kind".into(), json!(error.kind.as_str()));
    inner.insert("message".into(), json!(error.message));
    if let Some(already_read) = error.already_read {
        inner.insert("already_read".into(), json!(already_read));
    }
    json!({ "status": "error", "content_returned": false, "error": Value::Object(inner) })
}

/// A [`HostError`] as JSON: an error object with `"kind":"host_error"`, its `cause` and `session_restarted`.
pub fn host_error_json(error: &HostError) -> Value {
    json!({
        "status": "error",
        "content_returned": false,
        "error": {
            "kind": "host_error",
            "cause": error.kind().as_str(),
            "message": error.message(),
            "session_restarted": error.session_restarted(),
        },
    })
}

/// The answer to a session read: a window, a stub or an error.
pub fn outcome_json(outcome: &Result<ReadOutcome, ReadError>) -> Value {
    match outcome {
        Ok(ReadOutcome::Window(result)) => window_json(result),
        Ok(ReadOutcome::Unchanged(stub)) => stub_json(stub),
        Err(error) => error_json(error),
    }
}

/// The answer to a stateless read: a window or an error.
pub fn once_json(outcome: &Result<ReadResult, ReadError>) -> Value {
    match outcome {
        Ok(result) => window_json(result),
        Err(error) => error_json(error),
    }
}

/// A note (`{"status":"ok"}`) or an error.
pub fn unit_json(outcome: &Result<(), ReadError>) -> Value {
    match outcome {
        Ok(()) => note_json(),
        Err(error) => error_json(error),
    }
}

/// A retry window (`{"status":"ok","offset","limit","refused_tokens","cap_tokens","hint"}`) or an error.
pub fn retry_json(outcome: &Result<RetryWindow, ReadError>) -> Value {
    match outcome {
        Ok(retry) => json!({
            "status": "ok",
            "offset": retry.offset,
            "limit": retry.limit,
            "refused_tokens": retry.refused_tokens,
            "cap_tokens": retry.cap_tokens,
            "hint": retry.hint,
        }),
        Err(error) => error_json(error),
    }
}

/// Session counters: `{"status":"ok","positioned_reads","indexed_files","index_bytes"}`.
pub fn stats_json(stats: &SessionStats) -> Value {
    json!({
        "status": "ok",
        "positioned_reads": stats.positioned_reads,
        "indexed_files": stats.indexed_files,
        "index_bytes": stats.index_bytes,
    })
}

/// Parses one request line (a JSON object; see the module docs).
///
/// Errors: an `invalid_request` [`ReadError`] whose message names the field at fault.
pub fn parse_request(line: &str) -> Result<Request, ReadError> {
    let value: Value = serde_json::from_str(line)
        .map_err(|e| ReadError::invalid_request(format!("the request is not valid JSON: {e}")))?;
    parse_request_value(&value)
}

/// Parses one request already decoded as JSON; see [`parse_request`].
pub fn parse_request_value(value: &Value) -> Result<Request, ReadError> {
    let Value::Object(fields) = value else {
        return Err(ReadError::invalid_request(format!(
            "the request must be a JSON object with an `op` field, not {}",
            type_name(value)
        )));
    };
    let op = match fields.get("op") {
        None | Some(Value::Null) => "read",
        Some(Value::String(op)) => op.as_str(),
        Some(other) => {
            return Err(ReadError::invalid_request(format!(
                "`op` must be a string, not {}",
                type_name(other)
            )));
        }
    };
    let allowed: &[&str] = match op {
        "read" => &["path", "offset", "limit", "column"],
        "other_tool" | "reset_dedup" | "stats" => &[],
        "wrote" => &["path"],
        "check_write" => &["path", "text"],
        "report_tokens" => &["path", "offset", "lines", "tokens"],
        "token_refusal" => &["path", "offset", "limit", "message"],
        unknown => {
            return Err(ReadError::invalid_request(format!(
                "unknown `op` {unknown:?}: expected one of read, other_tool, reset_dedup, wrote, check_write, \
                 report_tokens, token_refusal, stats"
            )));
        }
    };
    if let Some(extra) = fields
        .keys()
        .find(|key| !["op", "id"].contains(&key.as_str()) && !allowed.contains(&key.as_str()))
    {
        let expected = if allowed.is_empty() {
            "none".to_owned()
        } else {
            allowed.join(", ")
        };
        return Err(ReadError::invalid_request(format!(
            "unknown field `{extra}` for op `{op}`; its fields are: {expected}"
        )));
    }
    let fields = Fields { op, map: fields };
    Ok(match op {
        "read" => Request::Read(ReadRequest {
            path: fields.string("path")?,
            offset: fields.opt_u64("offset")?,
            limit: fields.opt_u64("limit")?,
            column: fields.opt_u64("column")?,
        }),
        "other_tool" => Request::OtherTool,
        "reset_dedup" => Request::ResetDedup,
        "stats" => Request::Stats,
        "wrote" => Request::Wrote {
            path: fields.string("path")?,
        },
        "check_write" => Request::CheckWrite {
            path: fields.string("path")?,
            text: fields.string("text")?,
        },
        "report_tokens" => Request::ReportTokens {
            path: fields.string("path")?,
            offset: fields.u64("offset")?,
            lines: fields.u64("lines")?,
            tokens: fields.u64("tokens")?,
        },
        // The only op left: every other name was matched or refused above.
        _ => Request::TokenRefusal {
            path: fields.string("path")?,
            offset: fields.u64("offset")?,
            limit: fields.u64("limit")?,
            message: fields.string("message")?,
        },
    })
}

/// The fields of [`Config`] in JSON, snake_case as in the WIT record (every one optional).
pub const CONFIG_FIELDS: &[&str] = &[
    "max_lines",
    "max_line_length",
    "budget",
    "working_directory",
    "dedup",
    "loop_warn_at",
    "loop_block_at",
    "not_found_ttl_ms",
    "deny_patterns",
    "allow_patterns",
];

/// Parses a config object: the WIT `config` record with snake_case field names, every field optional (absent or
/// `null` takes the component's default). `budget` is `{"characters": N}` or `{"tokens": {"cap": N,
/// "headroom": F}}` (both inner fields optional). Used by the scenario files.
///
/// Errors: an `invalid_request` [`ReadError`] naming the field: an unknown field, a value of the wrong type, a
/// number out of the field's integer range (`u32`, or `u64` for `not_found_ttl_ms`). Ranges the component
/// checks itself (a budget under 200 characters, say) are left to it.
pub fn parse_config(value: &Value) -> Result<Config, ReadError> {
    let Value::Object(map) = value else {
        return Err(ReadError::invalid_request(format!(
            "the config must be a JSON object, not {}",
            type_name(value)
        )));
    };
    if let Some(extra) = map
        .keys()
        .find(|key| !CONFIG_FIELDS.contains(&key.as_str()))
    {
        return Err(ReadError::invalid_request(format!(
            "unknown config field `{extra}`; the fields are: {}",
            CONFIG_FIELDS.join(", ")
        )));
    }
    let fields = Fields { op: "config", map };
    Ok(Config {
        max_lines: fields.opt_u32("max_lines")?,
        max_line_length: fields.opt_u32("max_line_length")?,
        budget: fields.present("budget").map(parse_budget).transpose()?,
        working_directory: fields.opt_string("working_directory")?,
        dedup: fields.opt_bool("dedup")?,
        loop_warn_at: fields.opt_u32("loop_warn_at")?,
        loop_block_at: fields.opt_u32("loop_block_at")?,
        not_found_ttl_ms: fields.opt_u64("not_found_ttl_ms")?,
        deny_patterns: fields.opt_strings("deny_patterns")?,
        allow_patterns: fields.opt_strings("allow_patterns")?,
    })
}

fn parse_budget(value: &Value) -> Result<Budget, ReadError> {
    let shape =
        "`budget` must be {\"characters\": N} or {\"tokens\": {\"cap\": N, \"headroom\": F}}";
    let Value::Object(map) = value else {
        return Err(ReadError::invalid_request(format!(
            "{shape}, not {}",
            type_name(value)
        )));
    };
    let mut entries = map.iter();
    let (Some((unit, inner)), None) = (entries.next(), entries.next()) else {
        return Err(ReadError::invalid_request(format!(
            "{shape}: exactly one key"
        )));
    };
    match unit.as_str() {
        "characters" => Ok(Budget::Characters(to_u32(
            "budget.characters",
            number("budget.characters", inner)?,
        )?)),
        "tokens" => {
            let Value::Object(token_map) = inner else {
                return Err(ReadError::invalid_request(format!(
                    "`budget.tokens` must be an object with optional `cap` and `headroom`, not {}",
                    type_name(inner)
                )));
            };
            if let Some(extra) = token_map
                .keys()
                .find(|key| !["cap", "headroom"].contains(&key.as_str()))
            {
                return Err(ReadError::invalid_request(format!(
                    "unknown field `{extra}` in `budget.tokens`; its fields are: cap, headroom"
                )));
            }
            let tokens = Fields {
                op: "config",
                map: token_map,
            };
            let headroom = match tokens.present("headroom") {
                None => None,
                Some(Value::Number(n)) => n.as_f64(),
                Some(other) => {
                    return Err(ReadError::invalid_request(format!(
                        "`budget.tokens.headroom` must be a number, not {}",
                        type_name(other)
                    )))
                }
            };
            Ok(Budget::Tokens(TokenBudget {
                cap: tokens.opt_u32("cap")?,
                headroom,
            }))
        }
        other => Err(ReadError::invalid_request(format!(
            "{shape}, not a `{other}` key"
        ))),
    }
}

fn to_u32(field: &str, value: u64) -> Result<u32, ReadError> {
    u32::try_from(value).map_err(|_| {
        ReadError::invalid_request(format!(
            "`{field}` is beyond the largest supported value {} (got {value})",
            u32::MAX
        ))
    })
}

/// The fields of one request object, read with messages that name the op and the field.
struct Fields<'a> {
    op: &'a str,
    map: &'a Map<String, Value>,
}

impl Fields<'_> {
    fn present(&self, field: &str) -> Option<&Value> {
        self.map.get(field).filter(|value| !value.is_null())
    }

    fn string(&self, field: &str) -> Result<String, ReadError> {
        match self.present(field) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(ReadError::invalid_request(format!(
                "`{field}` must be a string, not {}",
                type_name(other)
            ))),
            None => Err(ReadError::invalid_request(format!(
                "`{field}` is missing: the `{}` op needs a `{field}` (a string)",
                self.op
            ))),
        }
    }

    fn u64(&self, field: &str) -> Result<u64, ReadError> {
        self.opt_u64(field)?.ok_or_else(|| {
            ReadError::invalid_request(format!(
                "`{field}` is missing: the `{}` op needs a `{field}` (a non-negative integer)",
                self.op
            ))
        })
    }

    fn opt_u64(&self, field: &str) -> Result<Option<u64>, ReadError> {
        match self.present(field) {
            None => Ok(None),
            Some(value) => number(field, value).map(Some),
        }
    }

    fn opt_u32(&self, field: &str) -> Result<Option<u32>, ReadError> {
        self.opt_u64(field)?.map(|n| to_u32(field, n)).transpose()
    }

    fn opt_string(&self, field: &str) -> Result<Option<String>, ReadError> {
        self.present(field).map(|_| self.string(field)).transpose()
    }

    fn opt_bool(&self, field: &str) -> Result<Option<bool>, ReadError> {
        match self.present(field) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(other) => Err(ReadError::invalid_request(format!(
                "`{field}` must be a boolean, not {}",
                type_name(other)
            ))),
        }
    }

    fn opt_strings(&self, field: &str) -> Result<Option<Vec<String>>, ReadError> {
        let Some(value) = self.present(field) else {
            return Ok(None);
        };
        let not_strings = || {
            ReadError::invalid_request(format!(
                "`{field}` must be a list of strings, not {}",
                type_name(value)
            ))
        };
        let Value::Array(items) = value else {
            return Err(not_strings());
        };
        items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or_else(not_strings))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

/// A non-negative integer up to `u64::MAX`; an integral float like `5.0` or `1e3` counts as an integer.
fn number(field: &str, value: &Value) -> Result<u64, ReadError> {
    let Value::Number(number) = value else {
        return Err(ReadError::invalid_request(format!(
            "`{field}` must be a non-negative integer, not {}",
            type_name(value)
        )));
    };
    if let Some(n) = number.as_u64() {
        return Ok(n);
    }
    if number.as_i64().is_some() {
        return Err(ReadError::invalid_request(format!(
            "`{field}` must not be negative (got {number})"
        )));
    }
    // A float: serde_json parses fractions, exponents and integers beyond u64 as f64.
    let float = number.as_f64().unwrap_or(f64::NAN);
    if !float.is_finite() || float.fract() != 0.0 {
        return Err(ReadError::invalid_request(format!(
            "`{field}` must be an integer (got {number})"
        )));
    }
    if float < 0.0 {
        return Err(ReadError::invalid_request(format!(
            "`{field}` must not be negative (got {number})"
        )));
    }
    // 2^64 is exactly representable; every integral float below it fits in u64.
    if float >= 18_446_744_073_709_551_616.0 {
        return Err(ReadError::invalid_request(format!(
            "`{field}` is beyond the largest supported value {} (got {number})",
            u64::MAX
        )));
    }
    Ok(float as u64)
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

/// Runs one request against `session` and answers it as JSON.
///
/// `Err(HostError)` when the call trapped (the session was restarted); see [`host_error_json`].
pub fn run(session: &mut Session, request: &Request) -> Result<Value, HostError> {
    Ok(match request {
        Request::Read(read) => outcome_json(&session.read(read)?),
        Request::OtherTool => {
            session.note_other_tool()?;
            note_json()
        }
        Request::ResetDedup => {
            session.reset_dedup()?;
            note_json()
        }
        Request::Wrote { path } => {
            session.wrote(path)?;
            note_json()
        }
        Request::CheckWrite { path, text } => unit_json(&session.check_write(path, text)?),
        Request::ReportTokens {
            path,
            offset,
            lines,
            tokens,
        } => unit_json(&session.report_tokens(path, *offset, *lines, *tokens)?),
        Request::TokenRefusal {
            path,
            offset,
            limit,
            message,
        } => retry_json(&session.token_refusal(path, *offset, *limit, message)?),
        Request::Stats => {
            let mut value = stats_json(&session.stats()?);
            if let Value::Object(map) = &mut value {
                map.insert(
                    "peak_memory_bytes".into(),
                    json!(session.peak_memory_bytes()),
                );
            }
            value
        }
    })
}

/// Answers one line of the session protocol: parses it, runs it, and returns the answer object, with the
/// request's `id` (when it had one) as the first field. Never fails: a malformed request is answered with an
/// `invalid_request` error and a host failure with a `host_error`; the session goes on either way.
pub fn answer_line(session: &mut Session, line: &str) -> Value {
    let value: Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(e) => {
            return error_json(&ReadError::invalid_request(format!(
                "the request is not valid JSON: {e}"
            )))
        }
    };
    let id = value.get("id").cloned();
    let answer = match parse_request_value(&value) {
        Ok(request) => match run(session, &request) {
            Ok(answer) => answer,
            Err(host) => host_error_json(&host),
        },
        Err(error) => error_json(&error),
    };
    with_id(id, answer)
}

fn with_id(id: Option<Value>, answer: Value) -> Value {
    match (id, answer) {
        (Some(id), Value::Object(fields)) => {
            let mut map = Map::with_capacity(fields.len() + 1);
            map.insert("id".into(), id);
            map.extend(fields);
            Value::Object(map)
        }
        (_, answer) => answer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(line: &str) -> String {
        match parse_request(line) {
            Ok(request) => panic!("{line} parsed as {request:?}"),
            Err(error) => {
                assert_eq!(error.kind, crate::ErrorKind::InvalidRequest);
                error.message
            }
        }
    }

    #[test]
    fn parses_every_op() {
        assert_eq!(
            parse_request(r#"{"op":"read","path":"a","offset":2,"limit":3,"column":4}"#).ok(),
            Some(Request::Read(
                ReadRequest::new("a").offset(2).limit(3).column(4)
            ))
        );
        assert_eq!(
            parse_request(r#"{"path":"a"}"#).ok(),
            Some(Request::Read(ReadRequest::new("a")))
        );
        assert_eq!(
            parse_request(r#"{"op":"other_tool"}"#).ok(),
            Some(Request::OtherTool)
        );
        assert_eq!(
            parse_request(r#"{"op":"reset_dedup","id":7}"#).ok(),
            Some(Request::ResetDedup)
        );
        assert_eq!(
            parse_request(r#"{"op":"stats"}"#).ok(),
            Some(Request::Stats)
        );
        assert_eq!(
            parse_request(r#"{"op":"wrote","path":"a"}"#).ok(),
            Some(Request::Wrote { path: "a".into() })
        );
        assert_eq!(
            parse_request(r#"{"op":"check_write","path":"a","text":"t"}"#).ok(),
            Some(Request::CheckWrite {
                path: "a".into(),
                text: "t".into()
            })
        );
        assert_eq!(
            parse_request(r#"{"op":"report_tokens","path":"a","offset":1,"lines":2,"tokens":3}"#)
                .ok(),
            Some(Request::ReportTokens {
                path: "a".into(),
                offset: 1,
                lines: 2,
                tokens: 3
            })
        );
        assert_eq!(
            parse_request(
                r#"{"op":"token_refusal","path":"a","offset":1,"limit":2,"message":"m"}"#
            )
            .ok(),
            Some(Request::TokenRefusal {
                path: "a".into(),
                offset: 1,
                limit: 2,
                message: "m".into()
            })
        );
        assert_eq!(
            parse_request(r#"{"path":"a","offset":5.0,"limit":1e3,"column":18446744073709551615}"#)
                .ok(),
            Some(Request::Read(
                ReadRequest::new("a").offset(5).limit(1000).column(u64::MAX)
            ))
        );
    }

    #[test]
    fn refuses_malformed_requests_naming_the_field() {
        assert!(invalid("{").contains("not valid JSON"));
        assert!(invalid("[1]").contains("JSON object"));
        assert!(invalid(r#"{"op":"fly"}"#).contains("unknown `op`"));
        assert!(invalid(r#"{"op":3}"#).contains("`op`"));
        assert!(invalid(r#"{"op":"read"}"#).contains("`path` is missing"));
        assert!(invalid(r#"{"op":"read","path":1}"#).contains("`path` must be a string"));
        assert!(invalid(r#"{"path":"a","offset":-1}"#).contains("`offset` must not be negative"));
        assert!(invalid(r#"{"path":"a","limit":1.5}"#).contains("`limit` must be an integer"));
        assert!(
            invalid(r#"{"path":"a","column":18446744073709551616}"#).contains("`column` is beyond")
        );
        assert!(invalid(r#"{"path":"a","column":-1e30}"#).contains("`column` must not be negative"));
        assert!(invalid(r#"{"path":"a","offset":"3"}"#)
            .contains("`offset` must be a non-negative integer"));
        assert!(invalid(r#"{"path":"a","ofset":3}"#).contains("unknown field `ofset`"));
        assert!(
            invalid(r#"{"op":"report_tokens","path":"a","offset":1,"lines":2}"#)
                .contains("`tokens` is missing")
        );
        assert!(invalid(r#"{"op":"check_write","path":"a"}"#).contains("`text` is missing"));
    }

    #[test]
    fn error_json_has_the_documented_shape() {
        let error = ReadError {
            kind: crate::ErrorKind::LoopBlocked,
            message: "stop".into(),
            already_read: Some(4),
        };
        assert_eq!(
            error_json(&error),
            json!({"status":"error","content_returned":false,
                   "error":{"kind":"loop_blocked","message":"stop","already_read":4}})
        );
        let plain = ReadError::invalid_request("bad");
        assert_eq!(
            error_json(&plain),
            json!({"status":"error","content_returned":false,"error":{"kind":"invalid_request","message":"bad"}})
        );
    }

    #[test]
    fn stub_json_has_no_content_and_carries_the_cursor() {
        let stub = UnchangedStub {
            path: "/a".into(),
            start_line: 1,
            end_line: 9,
            total_lines: 20,
            next_offset: Some(10),
            next_column: None,
            message: "same".into(),
        };
        let value = stub_json(&stub);
        assert!(value.get("content").is_none());
        assert_eq!(
            value,
            json!({"status":"unchanged","content_returned":false,"dedup":true,"path":"/a","start_line":1,
                   "end_line":9,"total_lines":20,"next_offset":10,"next_column":null,"message":"same"})
        );
    }

    #[test]
    fn id_comes_first() {
        let value = with_id(Some(json!("x")), note_json());
        assert_eq!(
            serde_json::to_string(&value).ok().as_deref(),
            Some(r#"{"id":"x","status":"ok"}"#)
        );
    }
}
