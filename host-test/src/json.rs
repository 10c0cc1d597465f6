//! JSON for agents and the CLI: the component's answers as `serde_json::Value`s with snake_case fields, and
//! JSON requests for the session protocol (one request object per line, one answer object per line).
//!
//! # Answers
//!
//! - A window: `{"status":"ok","content_returned":true,"content","path","start_line","start_column","end_line",
//!   "lines_returned","total_lines","truncated","truncated_by":["limit"|"budget"|"line_length"|"mid_line"],
//!   "next_offset":N|null,"next_column":N|null,"clamped_lines":[{"line","shown_chars","total_chars",
//!   "next_column"}],"hint","file_size","encoding":{"encoding":"utf8"|"utf16le"|"utf16be"|"utf32le"|"utf32be" or a
//!   legacy encoding's lower-case WHATWG name ("windows-1251", "shift_jis", ...),"bom","origin":"declared"|"detected",
//!   "line_endings":"none"|"lf"|"crlf"|"mixed"|"cr","replaced_invalid"},"budget":{"unit":"characters"|"tokens",
//!   "limit","used","cap"},"warnings":[...],"document":{...},"text"}`; `cap` only in token mode, `warnings` only when
//!   not empty; `document` only for a document read as its extracted text (see [`document_json`]);
//!   `text` is exactly what a model should see (the content, a blank line, the hint, the warnings for the model:
//!   the component's `read-result.text`). Lines,
//!   columns and counts are integers: lines 1-based, columns 0-based in Unicode scalar values, `file_size` in
//!   bytes, `budget` numbers in its `unit`.
//! - A dedup stub: `{"status":"unchanged","content_returned":false,"dedup":true,"path","start_line","end_line",
//!   "total_lines","next_offset":N|null,"next_column":N|null,"message","text"}`, with no `content` key and
//!   `text` equal to `message`. The cursor is
//!   the one the window it stands for carried (`null` when nothing after it is left), so paging goes on through a
//!   stub; `message` says the earlier result is still current, then the call that continues (`Use offset=N to
//!   continue.`), or that nothing after the window is left, and the calls that read the rest of clamped lines.
//! - An error: `{"status":"error","content_returned":false,"text","error":{"kind","message","already_read",
//!   "path","suggestions","total_lines"}}`, `kind` one of `not_found`, `not_a_file`, `outside_sandbox`,
//!   `permission_denied`, `invalid_request`, `io`, `special_file`, `device`, `credential`, `binary`,
//!   `loop_blocked`, `echoed_output`, `unencodable`, `too_large`, `malformed_document`, `encrypted_document`,
//!   `binary_document`; `text` is the message; `already_read` only when present (loop-blocked
//!   reads), `path` (the absolute guest path tried) only when present, `suggestions` (similar names, best first)
//!   always a list, `total_lines` only for an offset past the end.
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
//! | `read` | `path` (string), `offset`, `limit`, `column`, `tail` (optional non-negative integers, taken as models send them: `null` and `""` absent, `"40"` read as 40 with a note in `warnings`), `extract` (optional boolean, default true: false reads a document's own bytes, a notebook as its JSON) |
//! | `other_tool`, `reset_dedup`, `stats` | none |
//! | `wrote` | `path` |
//! | `check_write` | `path`, `text` (string) |
//! | `report_tokens` | `path`, `offset`, `lines`, `tokens` |
//! | `token_refusal` | `path`, `offset`, `limit`, `message` (string) |
//! | `capture_begin` | `window_chars`, `head_share`, `spill_dir`, `spill_cap_chars` (all optional) |
//! | `capture_chunk` | `text` (string) or `base64` (the bytes), exactly one |
//! | `capture_end` | `exit_status` (optional 32-bit integer); answered in the shape of [`crate::capture`] |
//!
//! The CLI's `session` command answers two more ops itself, before they reach [`run`]: `config` (the config in
//! force, [`crate::settings::effective_json`]) and `configure` (config fields, [`crate::settings::configure`]),
//! accepted only before the first op that uses the session.
//!
//! Malformed JSON, an unknown op, a missing or unknown field, a value of the wrong type, a negative number, a
//! non-integer or a number beyond `u64` are answered with an `invalid_request` error naming the field.

use serde_json::{json, Map, Value};

use crate::{
    Budget, BudgetReport, Config, DocumentFacts, HostError, ReadError, ReadOutcome, ReadRequest,
    ReadResult, RetryWindow, Session, SessionStats, TokenBudget, UnchangedStub,
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
    /// `capture_begin`: begin capturing a command's output ([`Session::capture_begin`]; fields in
    /// [`crate::capture::CAPTURE_CONFIG_FIELDS`]).
    CaptureBegin(crate::CaptureConfig),
    /// `capture_chunk`: push output bytes (`text` or `base64`) into the open capture ([`Session::capture_chunk`]).
    CaptureChunk(Vec<u8>),
    /// `capture_end`: finish the capture with an optional `exit_status` ([`Session::capture_end`]).
    CaptureEnd {
        /// The command's exit status, when known.
        exit_status: Option<i32>,
    },
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
            "origin": result.encoding.origin.as_str(),
            "line_endings": result.encoding.line_endings.as_str(),
            "replaced_invalid": result.encoding.replaced_invalid,
        },
        "budget": budget_json(&result.budget),
    });
    if let Value::Object(map) = &mut value {
        if !result.warnings.is_empty() {
            map.insert("warnings".into(), json!(result.warnings));
        }
        if let Some(document) = &result.document {
            map.insert("document".into(), document_json(document));
        }
        map.insert("text".into(), json!(result.text));
    }
    value
}

/// A document's facts: `{"format","parts":[{"kind","number","name"?,"first_line","characters"}],"pages"?,
/// "empty_pages"?:[[first,last]]}`; `pages` and `empty_pages` for PDFs only, `name` only when the part has one.
pub fn document_json(document: &DocumentFacts) -> Value {
    let parts: Vec<Value> = document
        .parts
        .iter()
        .map(|part| {
            let mut value = json!({
                "kind": part.kind.as_str(),
                "number": part.number,
                "first_line": part.first_line,
                "characters": part.characters,
            });
            if let (Value::Object(map), Some(name)) = (&mut value, &part.name) {
                map.insert("name".into(), json!(name));
            }
            value
        })
        .collect();
    let mut value = json!({"format": document.format.as_str(), "parts": parts});
    if let (Value::Object(map), Some(pages)) = (&mut value, document.pages) {
        map.insert("pages".into(), json!(pages));
        let ranges: Vec<Value> = document
            .empty_pages
            .iter()
            .map(|range| json!([range.first, range.last]))
            .collect();
        map.insert("empty_pages".into(), json!(ranges));
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
        "text": stub.message,
    })
}

/// A [`ReadError`] as JSON: `{"status":"error","content_returned":false,"text","error":{"kind","message",
/// "already_read","path","suggestions","total_lines"}}`; `text` is the message, `suggestions` always a list,
/// the other optional fields only when present.
pub fn error_json(error: &ReadError) -> Value {
    let mut inner = Map::new();
    inner.insert("kind".into(), json!(error.kind.as_str()));
    inner.insert("message".into(), json!(error.message));
    if let Some(already_read) = error.already_read {
        inner.insert("already_read".into(), json!(already_read));
    }
    if let Some(path) = &error.path {
        inner.insert("path".into(), json!(path));
    }
    inner.insert("suggestions".into(), json!(error.suggestions));
    if let Some(total_lines) = error.total_lines {
        inner.insert("total_lines".into(), json!(total_lines));
    }
    json!({
        "status": "error",
        "content_returned": false,
        "text": error.message,
        "error": Value::Object(inner),
    })
}

/// A [`HostError`] as JSON: an error object with `"kind":"host_error"`, its `cause` and `session_restarted`.
pub fn host_error_json(error: &HostError) -> Value {
    json!({
        "status": "error",
        "content_returned": false,
        "text": error.message(),
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
    let value: Value = crate::settings::parse_json(line)
        .map_err(|e| ReadError::invalid_request(format!("the request is not valid JSON: {e}")))?;
    parse_request_value(&value)
}

/// Parses one request already decoded as JSON; see [`parse_request`]. The notes of
/// [`parse_request_value_noted`] are dropped.
pub fn parse_request_value(value: &Value) -> Result<Request, ReadError> {
    parse_request_value_noted(value).map(|(request, _)| request)
}

/// Parses one request already decoded as JSON, taking a read's optional numbers (`offset`, `limit`, `column`,
/// `tail`) the way models send them: `null` and `""` mean absent, and a string holding a plain integer (`"40"`)
/// is read as that integer and noted (the notes go into the answer's `warnings`). Anything else is an
/// `invalid_request` error naming the field and its valid range.
pub fn parse_request_value_noted(value: &Value) -> Result<(Request, Vec<String>), ReadError> {
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
        "read" => &["path", "offset", "limit", "column", "tail", "extract"],
        "other_tool" | "reset_dedup" | "stats" => &[],
        "wrote" => &["path"],
        "check_write" => &["path", "text"],
        "report_tokens" => &["path", "offset", "lines", "tokens"],
        "token_refusal" => &["path", "offset", "limit", "message"],
        "capture_begin" => crate::capture::CAPTURE_CONFIG_FIELDS,
        "capture_chunk" => &["text", "base64"],
        "capture_end" => &["exit_status"],
        unknown => {
            return Err(ReadError::invalid_request(format!(
                "unknown `op` {unknown:?}: expected one of read, other_tool, reset_dedup, wrote, check_write, \
                 report_tokens, token_refusal, stats, capture_begin, capture_chunk, capture_end"
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
    let mut notes = Vec::new();
    let request = match op {
        "read" => Request::Read(ReadRequest {
            path: fields.string("path")?,
            offset: fields.lenient_u64("offset", OFFSET_RANGE, &mut notes)?,
            limit: fields.lenient_u64("limit", LIMIT_RANGE, &mut notes)?,
            column: fields.lenient_u64("column", COLUMN_RANGE, &mut notes)?,
            tail: fields
                .lenient_u64("tail", TAIL_RANGE, &mut notes)?
                .map(|tail| {
                    u32::try_from(tail).map_err(|_| {
                        ReadError::invalid_request(format!(
                            "`tail` must be {TAIL_RANGE} (got {tail})"
                        ))
                    })
                })
                .transpose()?,
            extract: fields.lenient_bool("extract", &mut notes)?,
            asked_via: None,
        }),
        "other_tool" => Request::OtherTool,
        "reset_dedup" => Request::ResetDedup,
        "stats" => Request::Stats,
        "capture_begin" => Request::CaptureBegin(crate::capture::parse_capture_config(fields.map)?),
        "capture_chunk" => Request::CaptureChunk(crate::capture::parse_chunk(fields.map)?),
        "capture_end" => Request::CaptureEnd {
            exit_status: crate::capture::parse_exit_status(fields.map)?,
        },
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
    };
    Ok((request, notes))
}

/// The valid range of a read's `offset`, in words.
const OFFSET_RANGE: &str = "a line number from 1 (0 is read as 1) up to the file's line count";
/// The valid range of a read's `limit`, in words.
const LIMIT_RANGE: &str = "a count of lines from 1 (larger values are clamped to max-lines)";
/// The valid range of a read's `column`, in words.
const COLUMN_RANGE: &str = "a character position from 0 inside the first line";
/// The valid range of a read's `tail`, in words.
const TAIL_RANGE: &str = "a count of last lines from 1 to 4294967295";

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

    /// An optional number as models send it: `null`, `""` (or only spaces) absent; a string of ASCII digits read
    /// as its integer, with a note; a JSON number as [`number`] reads it; anything else an error naming `field`
    /// and its valid `range`.
    fn lenient_u64(
        &self,
        field: &str,
        range: &str,
        notes: &mut Vec<String>,
    ) -> Result<Option<u64>, ReadError> {
        match self.present(field) {
            None => Ok(None),
            Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
            Some(Value::String(text)) => {
                let digits = text.trim();
                match digits.parse::<u64>() {
                    Ok(n) if digits.bytes().all(|byte| byte.is_ascii_digit()) => {
                        notes.push(format!(
                            "`{field}` was the string {text:?}; it was read as the number {n}. Send numbers as JSON numbers."
                        ));
                        Ok(Some(n))
                    }
                    _ => Err(ReadError::invalid_request(format!(
                        "`{field}` must be {range}, as a JSON number; got the string {text:?}"
                    ))),
                }
            }
            Some(value @ Value::Number(_)) => number(field, value).map(Some).map_err(|error| {
                ReadError::invalid_request(format!("{} ({field} must be {range})", error.message))
            }),
            Some(other) => Err(ReadError::invalid_request(format!(
                "`{field}` must be {range}, as a JSON number, not {}",
                type_name(other)
            ))),
        }
    }

    /// An optional boolean as models send it: `null`, `""` (or only spaces) absent; the strings `"true"` and
    /// `"false"` read as their boolean, with a note; anything else an error naming `field`.
    fn lenient_bool(
        &self,
        field: &str,
        notes: &mut Vec<String>,
    ) -> Result<Option<bool>, ReadError> {
        match self.present(field) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
            Some(Value::String(text)) if matches!(text.trim(), "true" | "false") => {
                let flag = text.trim() == "true";
                notes.push(format!(
                    "`{field}` was the string {text:?}; it was read as the boolean {flag}. Send booleans as JSON true or false."
                ));
                Ok(Some(flag))
            }
            Some(other) => Err(ReadError::invalid_request(format!(
                "`{field}` must be true or false, as a JSON boolean, not {}",
                match other {
                    Value::String(text) => format!("the string {text:?}"),
                    other => type_name(other).to_string(),
                }
            ))),
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
        Request::CaptureBegin(config) => {
            session.capture_begin(config)?;
            note_json()
        }
        Request::CaptureChunk(bytes) => unit_json(&session.capture_chunk(bytes)?),
        Request::CaptureEnd { exit_status } => {
            crate::capture::end_json(&session.capture_end(*exit_status)?)
        }
    })
}

/// Answers one line of the session protocol: parses it, runs it, and returns the answer object, with the
/// request's `id` (when it had one) as the first field. Never fails: a malformed request is answered with an
/// `invalid_request` error and a host failure with a `host_error`; the session goes on either way.
pub fn answer_line(session: &mut Session, line: &str) -> Value {
    let value: Value = match crate::settings::parse_json(line) {
        Ok(value) => value,
        Err(e) => {
            // A line refused for a key given twice still parses: its `id` goes back with the refusal.
            let id = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|value| value.get("id").cloned());
            return with_id(
                id,
                error_json(&ReadError::invalid_request(format!(
                    "the request is not valid JSON: {e}"
                ))),
            );
        }
    };
    let id = value.get("id").cloned();
    let answer = match parse_request_value_noted(&value) {
        Ok((request, notes)) => match run(session, &request) {
            Ok(answer) => with_notes(answer, notes),
            Err(host) => host_error_json(&host),
        },
        Err(error) => error_json(&error),
    };
    with_id(id, answer)
}

/// `answer` with `notes` (how arguments were read) added to its `warnings` (created when it has none) and, a line
/// each, to the end of its `text` (what the model sees learns how its arguments were read).
pub fn with_notes(answer: Value, notes: Vec<String>) -> Value {
    if notes.is_empty() {
        return answer;
    }
    match answer {
        Value::Object(mut fields) => {
            if let Some(Value::String(text)) = fields.get_mut("text") {
                for note in &notes {
                    text.push('\n');
                    text.push_str(note);
                }
            }
            let warnings = fields
                .entry("warnings")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = warnings {
                list.extend(notes.into_iter().map(Value::String));
            }
            Value::Object(fields)
        }
        answer => answer,
    }
}

/// `answer` with the request's `id` as its first field, when the request had one.
pub fn with_id(id: Option<Value>, answer: Value) -> Value {
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
    fn optional_numbers_are_taken_the_way_models_send_them() {
        let noted = |line: &str| {
            let value: Value = serde_json::from_str(line).unwrap();
            parse_request_value_noted(&value).unwrap()
        };
        assert_eq!(
            noted(r#"{"op":"read","path":"a.txt","offset":"","limit":null,"column":" "}"#),
            (Request::Read(ReadRequest::new("a.txt")), Vec::new())
        );
        assert_eq!(
            noted(r#"{"path":"a.txt","offset":"40","tail":null}"#),
            (
                Request::Read(ReadRequest::new("a.txt").offset(40)),
                vec!["`offset` was the string \"40\"; it was read as the number 40. Send numbers as JSON numbers.".to_string()]
            )
        );
        assert_eq!(
            noted(r#"{"path":"a.txt","tail":"3"}"#).0,
            Request::Read(ReadRequest::new("a.txt").tail(3))
        );
        assert_eq!(
            noted(r#"{"path":"nb.ipynb","extract":false}"#),
            (
                Request::Read(ReadRequest::new("nb.ipynb").extract(false)),
                Vec::new()
            )
        );
        assert_eq!(
            noted(r#"{"path":"nb.ipynb","extract":"false"}"#),
            (
                Request::Read(ReadRequest::new("nb.ipynb").extract(false)),
                vec!["`extract` was the string \"false\"; it was read as the boolean false. Send booleans as JSON true or false.".to_string()]
            )
        );
        assert_eq!(
            noted(r#"{"path":"nb.ipynb","extract":""}"#).0,
            Request::Read(ReadRequest::new("nb.ipynb"))
        );
        let answer = with_notes(json!({"status":"ok"}), vec!["n".into()]);
        assert_eq!(answer, json!({"status":"ok","warnings":["n"]}));
        let answer = with_notes(json!({"status":"ok","warnings":["w"]}), vec!["n".into()]);
        assert_eq!(answer, json!({"status":"ok","warnings":["w","n"]}));
    }

    #[test]
    fn refuses_malformed_requests_naming_the_field() {
        assert!(invalid("{").contains("not valid JSON"));
        // A key given twice is refused, not settled by the last one (serde_json's way).
        assert_eq!(
            invalid(r#"{"op":"configure","max_lines":5,"max_lines":10}"#),
            "the request is not valid JSON: the key `max_lines` is given twice at line 1 column 43"
        );
        assert!(invalid(r#"{"op":"read","path":"a","path":"b"}"#).contains("`path` is given twice"));
        assert_eq!(
            invalid(r#"{"path":"a","extract":"no"}"#),
            "`extract` must be true or false, as a JSON boolean, not the string \"no\""
        );
        assert_eq!(
            invalid(r#"{"path":"a","extract":0}"#),
            "`extract` must be true or false, as a JSON boolean, not a number"
        );
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
        assert_eq!(
            invalid(r#"{"path":"a","offset":"3a"}"#),
            "`offset` must be a line number from 1 (0 is read as 1) up to the file's line count, as a JSON number; got the string \"3a\""
        );
        assert_eq!(
            invalid(r#"{"path":"a","limit":[3]}"#),
            "`limit` must be a count of lines from 1 (larger values are clamped to max-lines), as a JSON number, not an array"
        );
        assert_eq!(
            invalid(r#"{"path":"a","tail":4294967296}"#),
            "`tail` must be a count of last lines from 1 to 4294967295 (got 4294967296)"
        );
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
            path: Some("/w/a".into()),
            suggestions: vec!["b".into()],
            total_lines: None,
        };
        assert_eq!(
            error_json(&error),
            json!({"status":"error","content_returned":false,"text":"stop",
                   "error":{"kind":"loop_blocked","message":"stop","already_read":4,"path":"/w/a",
                            "suggestions":["b"]}})
        );
        let plain = ReadError::invalid_request("bad");
        assert_eq!(
            error_json(&plain),
            json!({"status":"error","content_returned":false,"text":"bad",
                   "error":{"kind":"invalid_request","message":"bad","suggestions":[]}})
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
                   "end_line":9,"total_lines":20,"next_offset":10,"next_column":null,"message":"same",
                   "text":"same"})
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
