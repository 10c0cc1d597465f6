//! Requests of the session protocol: one JSON object, its `op` (default `read`) and that op's fields, read the
//! way models send them. The ops and fields are documented in `docs/protocol.md`.

use serde_json::{Map, Value};

pub use super::capture_requests::CaptureEnd;
use super::capture_requests::{capture_config, capture_end, chunk};
use super::json_in::{type_name, Fields};
use crate::capture::CaptureInput;
use crate::error::ReadError;
use crate::image::PixelRegion;
use crate::read::{ReadManyRequest, ReadRequest};
use crate::search::SearchRequest;

/// One parsed request.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `read`: a window of a file.
    Read(ReadRequest),
    /// `read_once`: a window read with the session's config and none of its memory.
    ReadOnce(ReadRequest),
    /// `read_many`: several files in order under one budget.
    ReadMany(ReadManyRequest),
    /// `search`: a pattern's matches in a file or a tree, with the census.
    Search(SearchRequest),
    /// `other_tool`: the agent ran another tool (clears the loop counts).
    OtherTool,
    /// `reset_dedup`: the model's context was compacted.
    ResetDedup,
    /// `wrote`: the host wrote `path`.
    Wrote(String),
    /// `check_write`: check `text` meant for `path`.
    CheckWrite {
        /// The guest path to be written.
        path: String,
        /// The text to be written.
        text: String,
    },
    /// `report_tokens`: the real token count of a window.
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
    /// `token_refusal`: an engine refused a window for its token count.
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
    /// `stats`: the session's counters.
    Stats,
    /// `config`: the config in force.
    Config,
    /// `configure`: config fields on top of the session's config (the request object, `op` and `id` included).
    Configure(Map<String, Value>),
    /// `tools`: the tool definitions in a format (`openai`, `anthropic` or `mcp`).
    Tools(String),
    /// `mcp_server`: this session serves MCP (the MCP default budget when none is set); the server's name,
    /// version, instructions and tools.
    McpServer,
    /// `mcp_roots`: which directories an MCP connection may read.
    McpRoots(super::mcp_server::RootsInput),
    /// `options`: a host's command line read into roots and config.
    Options(super::options::OptionsRequest),
    /// `tool_call`: a model's call of one of those tools, run as the op it stands for (its `reply` shape is read
    /// off the request by [`super::mcp::wants_mcp_reply`], which also reshapes a refusal of the line).
    ToolCall(Box<Request>),
    /// `capture_begin`: begin capturing a command's output.
    CaptureBegin(CaptureInput),
    /// `capture_chunk`: output bytes for the open capture (`text` or `base64`).
    CaptureChunk(Vec<u8>),
    /// `capture_end`: finish the capture.
    CaptureEnd(CaptureEnd),
    /// A read or a check whose path the host found going through an absolute link it must refuse (the host's
    /// `link_refusal` field): answered with the component's words for it.
    LinkRefused {
        /// The path as the request gave it.
        requested: String,
        /// Why.
        refusal: LinkRefusal,
    },
}

/// The host's `link_refusal` field: what its walk of a path's absolute links (which WASI cannot read) found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkRefusal {
    /// `{"outside": {"link": L, "target": T}}`: the link `L` (a guest path) points to `T`, under no grant.
    Outside {
        /// The guest path of the link.
        link: String,
        /// Its target as stored (a host path).
        target: String,
    },
    /// `"loop"`: more links than a walk follows.
    Loop,
}

impl Request {
    /// Whether running the request uses the session, so that `configure` may no longer follow it.
    pub fn uses_session(&self) -> bool {
        !matches!(
            self,
            Request::Stats
                | Request::Config
                | Request::Configure(_)
                | Request::Tools(_)
                | Request::McpServer
                | Request::McpRoots(_)
                | Request::Options(_)
        )
    }
}

/// Every op, in the order the unknown-op refusal lists them.
pub const OPS: &[&str] = &[
    "read",
    "read_once",
    "other_tool",
    "reset_dedup",
    "wrote",
    "check_write",
    "report_tokens",
    "token_refusal",
    "stats",
    "config",
    "configure",
    "tools",
    "tool_call",
    "mcp_server",
    "mcp_roots",
    "options",
    "read_many",
    "search",
    "capture_begin",
    "capture_chunk",
    "capture_end",
];

/// The fields of `capture_begin`: the WIT `capture-config` record in snake_case.
pub const CAPTURE_CONFIG_FIELDS: &[&str] =
    &["window_chars", "head_share", "spill_dir", "spill_cap_chars"];

/// The fields a read takes; `asked_via` and `link_refusal` are a host's (what its walk of absolute links found).
const READ_FIELDS: &[&str] = &[
    "path",
    "offset",
    "limit",
    "column",
    "tail",
    "extract",
    "fresh",
    "region",
    "depth",
    "content",
    "asked_via",
    "link_refusal",
];

/// Fields only a host adds, left out of the field lists refusals name.
const HOST_FIELDS: &[&str] = &["asked_via", "link_refusal"];

/// The fields `op` takes, or `None` for an unknown op. `configure`'s are checked by its own parser.
fn fields_of(op: &str) -> Option<&'static [&'static str]> {
    Some(match op {
        "read" | "read_once" => READ_FIELDS,
        "read_many" => super::census_requests::READ_MANY_FIELDS,
        "search" => super::census_requests::SEARCH_FIELDS,
        "other_tool" | "reset_dedup" | "stats" | "config" => &[],
        "configure" => super::config_json::CONFIG_FIELDS,
        "tools" => &["format"],
        "mcp_server" => &[],
        "mcp_roots" => &["roots", "client_roots", "cwd", "home", "ungrantable"],
        "options" => &["program", "args", "positionals", "config_file_text"],
        "tool_call" => &["name", "arguments", "reply", "asked_via", "link_refusal"],
        "wrote" => &["path"],
        "check_write" => &["path", "text", "link_refusal"],
        "report_tokens" => &["path", "offset", "lines", "tokens"],
        "token_refusal" => &["path", "offset", "limit", "message"],
        "capture_begin" => CAPTURE_CONFIG_FIELDS,
        "capture_chunk" => &["text", "base64"],
        "capture_end" => &[
            "content",
            "exit_status",
            "timeout_seconds",
            "hint_notes",
            "spill_notes",
            "warnings",
        ],
        _ => return None,
    })
}

/// The valid range of a read's `offset`, in words.
const OFFSET_RANGE: &str = "a line number from 1 (0 is read as 1) up to the file's line count";
/// The valid range of a read's `limit`, in words.
const LIMIT_RANGE: &str = "a count of lines from 1 (larger values are clamped to max-lines)";
/// The valid range of a read's `column`, in words.
const COLUMN_RANGE: &str = "a character position from 0 inside the first line";
/// The valid range of a listing's `depth`, in words.
const DEPTH_RANGE: &str = "a count of levels from 1 (the directory's own entries) to 64";
/// The deepest listing.
const MAX_DEPTH: u32 = 64;
/// The valid range of a read's `tail`, in words.
const TAIL_RANGE: &str = "a count of last lines from 1 to 4294967295";

/// Parses one request already decoded as JSON, with the notes on how model-shaped arguments were read (`"40"`
/// for 40: they go into the answer's `warnings` and `text`).
///
/// Errors: an `invalid_request` error naming the field at fault: not an object, an unknown op or field, a value
/// of the wrong type or out of range, a missing field.
pub fn parse_request(value: &Value) -> Result<(Request, Vec<String>), ReadError> {
    let Value::Object(map) = value else {
        return Err(ReadError::invalid(format!(
            "the request must be a JSON object with an `op` field, not {}",
            type_name(value)
        )));
    };
    let op = match map.get("op") {
        None | Some(Value::Null) => "read",
        Some(Value::String(op)) => op.as_str(),
        Some(other) => {
            return Err(ReadError::invalid(format!(
                "`op` must be a string, not {}",
                type_name(other)
            )));
        }
    };
    let Some(allowed) = fields_of(op) else {
        return Err(ReadError::invalid(format!(
            "unknown `op` {op:?}: expected one of {}",
            OPS.join(", ")
        )));
    };
    let fields = Fields { op, map };
    if let Some(extra) = fields.unknown(allowed) {
        let expected = if allowed.is_empty() {
            "none".to_owned()
        } else {
            allowed
                .iter()
                .filter(|field| !HOST_FIELDS.contains(field))
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(ReadError::invalid(format!(
            "unknown field `{extra}` for op `{op}`; its fields are: {expected}"
        )));
    }
    if let Some(refusal) = fields.present("link_refusal") {
        return Ok((
            Request::LinkRefused {
                requested: link_requested(op, &fields)?,
                refusal: link_refusal(refusal)?,
            },
            Vec::new(),
        ));
    }
    let mut notes = Vec::new();
    // Read again by the session when it builds the answer (`asks_content`); checked here with every other field.
    fields.lenient_bool("content", &mut notes)?;
    let request = op_request(op, &fields, &mut notes)?;
    Ok((request, notes))
}

/// Whether `request` (a request object [`parse_request`] took) asks for the window's `content` beside the `text`
/// that carries it: `"content": true`, or the string `"true"` read as that.
pub fn asks_content(request: &Value) -> bool {
    let Some(map) = request.as_object() else {
        return false;
    };
    let fields = Fields { op: "", map };
    matches!(
        fields.lenient_bool("content", &mut Vec::new()),
        Ok(Some(true))
    )
}

/// The request of the op `op` (known, its fields checked) from `fields`, with the notes on how model-shaped
/// arguments were read pushed on `notes`.
fn op_request(op: &str, fields: &Fields, notes: &mut Vec<String>) -> Result<Request, ReadError> {
    let map = fields.map;
    Ok(match op {
        "read" => Request::Read(read_request(fields, notes)?),
        "read_once" => Request::ReadOnce(read_request(fields, notes)?),
        "read_many" => Request::ReadMany(super::census_requests::read_many_request(fields, notes)?),
        "search" => Request::Search(super::census_requests::search_request(fields, notes)?),
        "other_tool" => Request::OtherTool,
        "reset_dedup" => Request::ResetDedup,
        "stats" => Request::Stats,
        "config" => Request::Config,
        "configure" => Request::Configure(map.clone()),
        "tools" => Request::Tools(fields.string("format")?),
        "mcp_server" => Request::McpServer,
        "options" => Request::Options(super::options::OptionsRequest {
            program: fields
                .opt_string("program")?
                .unwrap_or_else(|| "read-window".to_owned()),
            args: fields.opt_strings("args")?.unwrap_or_default(),
            positionals: usize::try_from(fields.opt_u64("positionals")?.unwrap_or(0))
                .unwrap_or(usize::MAX),
            config_file_text: fields.opt_string("config_file_text")?,
        }),
        "mcp_roots" => Request::McpRoots(super::mcp_server::RootsInput {
            options: fields.opt_strings("roots")?.unwrap_or_default(),
            client_roots: fields.opt_strings("client_roots")?,
            cwd: fields.string("cwd")?,
            home: fields.opt_string("home")?,
            ungrantable: super::mcp_server::ungrantable(fields)?,
        }),
        "tool_call" => {
            check_reply(fields)?;
            let (call, call_notes) = tool_call(fields)?;
            notes.extend(call_notes);
            Request::ToolCall(Box::new(call))
        }
        "capture_begin" => Request::CaptureBegin(capture_config(fields)?),
        "capture_chunk" => Request::CaptureChunk(chunk(map)?),
        "capture_end" => Request::CaptureEnd(capture_end(fields)?),
        "wrote" => Request::Wrote(fields.string("path")?),
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

/// Refuses a `tool_call`'s `reply` that is neither `"answer"` (the default) nor `"mcp"` (an MCP `CallToolResult`,
/// docs/protocol.md "MCP replies").
fn check_reply(fields: &Fields) -> Result<(), ReadError> {
    match fields.opt_string("reply")?.as_deref() {
        None | Some("answer" | "mcp") => Ok(()),
        Some(other) => Err(ReadError::invalid(format!(
            "`reply` must be \"answer\" or \"mcp\", not {other:?}"
        ))),
    }
}

/// A tool call's `arguments`: an object, absent (no arguments), or a string holding a JSON object (as OpenAI
/// function calling and some MCP clients send them), read as that object with a note.
fn call_arguments(
    fields: &Fields,
    notes: &mut Vec<String>,
) -> Result<Map<String, Value>, ReadError> {
    match fields.present("arguments") {
        None => Ok(Map::new()),
        Some(Value::Object(arguments)) => Ok(arguments.clone()),
        Some(Value::String(text)) => match super::json_in::parse_strict(text) {
            Ok(Value::Object(arguments)) => {
                notes.push(
                    "`arguments` was a string holding a JSON object; it was read as that object. Send the \
                     arguments as a JSON object."
                        .to_owned(),
                );
                Ok(arguments)
            }
            Ok(other) => Err(ReadError::invalid(format!(
                "`arguments` must be an object; it was a string holding {}",
                type_name(&other)
            ))),
            Err(error) => Err(ReadError::invalid(format!(
                "`arguments` must be an object; it was a string that is not a JSON object ({error})"
            ))),
        },
        Some(other) => Err(ReadError::invalid(format!(
            "`arguments` must be an object, not {}",
            type_name(other)
        ))),
    }
}

/// The fields of an op that a host asks for and a model's tool call never does: `content` (the text carries the
/// window).
pub const HOST_ONLY_FIELDS: &[&str] = &["content"];

/// A `tool_call`: `name` (`read_file` or `check_write`) and `arguments` (see [`call_arguments`]), read as the op
/// the tool stands for, with refusals that name the tool and its arguments rather than the op.
fn tool_call(fields: &Fields) -> Result<(Request, Vec<String>), ReadError> {
    use super::census_tools::{LIST_DIRECTORY, READ_FILES, SEARCH};
    use super::tools::{CHECK_WRITE, READ_FILE};
    let name = fields.string("name")?;
    let mut notes = Vec::new();
    let arguments = &call_arguments(fields, &mut notes)?;
    let (op, allowed): (&str, &[&str]) = match name.as_str() {
        READ_FILE => (
            "read",
            &[
                "path", "offset", "limit", "column", "tail", "extract", "fresh", "region",
            ],
        ),
        CHECK_WRITE => ("check_write", &["path", "text"]),
        LIST_DIRECTORY => ("read", &["path", "depth", "offset", "limit"]),
        READ_FILES => ("read_many", super::census_requests::READ_MANY_FIELDS),
        SEARCH => ("search", super::census_requests::SEARCH_FIELDS),
        other => {
            return Err(ReadError::invalid(format!(
                "unknown tool {other:?}: the tools are {READ_FILE}, {LIST_DIRECTORY}, {READ_FILES}, {SEARCH} \
                 and {CHECK_WRITE}"
            )))
        }
    };
    let allowed: Vec<&str> = allowed
        .iter()
        .copied()
        .filter(|field| !HOST_ONLY_FIELDS.contains(field))
        .collect();
    if let Some(extra) = arguments
        .keys()
        .find(|key| !allowed.contains(&key.as_str()))
    {
        return Err(ReadError::invalid(format!(
            "unknown argument `{extra}` for {name}; its arguments are: {}",
            allowed.join(", ")
        )));
    }
    let call = Fields {
        op: &name,
        map: arguments,
    };
    let required_fields: &[&str] = match name.as_str() {
        READ_FILE | LIST_DIRECTORY => &["path"],
        CHECK_WRITE => &["path", "text"],
        READ_FILES => &["paths"],
        _ => &["pattern"],
    };
    for required in required_fields {
        if call.present(required).is_none() {
            return Err(ReadError::invalid(format!(
                "`{required}` is missing: {name} needs a `{required}` ({})",
                if *required == "paths" {
                    "a list of paths or glob patterns"
                } else {
                    "a string"
                }
            )));
        }
    }
    let mut request = arguments.clone();
    request.insert("op".into(), Value::from(op));
    for host_field in HOST_FIELDS {
        if let Some(value) = fields.present(host_field) {
            request.insert((*host_field).into(), value.clone());
        }
    }
    let (call, call_notes) = parse_request(&Value::Object(request))?;
    notes.extend(call_notes);
    Ok((call, notes))
}

/// The path a `link_refusal` refuses: the request's `path` (a tool call's `arguments.path`).
fn link_requested(op: &str, fields: &Fields) -> Result<String, ReadError> {
    if op != "tool_call" {
        return fields.string("path");
    }
    match fields
        .present("arguments")
        .and_then(|arguments| arguments.get("path"))
    {
        Some(Value::String(path)) => Ok(path.clone()),
        _ => Err(ReadError::invalid(
            "`link_refusal` needs the call's `path` (a string)",
        )),
    }
}

/// A host's `link_refusal`: `{"outside": {"link", "target"}}` or `"loop"`.
fn link_refusal(value: &Value) -> Result<LinkRefusal, ReadError> {
    let shape = "`link_refusal` must be {\"outside\": {\"link\": L, \"target\": T}} or \"loop\"";
    match value {
        Value::String(word) if word == "loop" => Ok(LinkRefusal::Loop),
        Value::Object(map) => match map.get("outside") {
            Some(Value::Object(outside)) => {
                let outside = Fields {
                    op: "link_refusal",
                    map: outside,
                };
                Ok(LinkRefusal::Outside {
                    link: outside.string("link")?,
                    target: outside.string("target")?,
                })
            }
            _ => Err(ReadError::invalid(shape)),
        },
        _ => Err(ReadError::invalid(shape)),
    }
}

fn read_request(fields: &Fields, notes: &mut Vec<String>) -> Result<ReadRequest, ReadError> {
    let tail = fields
        .lenient_u64("tail", TAIL_RANGE, notes)?
        .map(|tail| {
            u32::try_from(tail).map(u64::from).map_err(|_| {
                ReadError::invalid(format!("`tail` must be {TAIL_RANGE} (got {tail})"))
            })
        })
        .transpose()?;
    Ok(ReadRequest {
        path: fields.string("path")?,
        offset: fields.lenient_u64("offset", OFFSET_RANGE, notes)?,
        limit: fields.lenient_u64("limit", LIMIT_RANGE, notes)?,
        column: fields.lenient_u64("column", COLUMN_RANGE, notes)?,
        tail,
        extract: fields.lenient_bool("extract", notes)?,
        asked_via: fields.opt_strings("asked_via")?.unwrap_or_default(),
        fresh: fields.lenient_bool("fresh", notes)?.unwrap_or(false),
        region: fields
            .present("region")
            .map(|value| region(value, notes))
            .transpose()?,
        depth: fields
            .lenient_u64("depth", DEPTH_RANGE, notes)?
            .map(|depth| match u32::try_from(depth) {
                Ok(depth @ 1..=MAX_DEPTH) => Ok(depth),
                _ => Err(ReadError::invalid(format!(
                    "`depth` must be {DEPTH_RANGE} (got {depth})"
                ))),
            })
            .transpose()?,
    })
}

/// The four numbers of a region, in the order `x`, `y`, `width`, `height`.
const REGION_FIELDS: [&str; 4] = ["x", "y", "width", "height"];

/// `region` as the WIT record takes it, `{"x": 0, "y": 0, "width": 1200, "height": 800}`; or, with a note, as a
/// model copies it from a hint: the string `"0,0,1200,800"` or the array `[0, 0, 1200, 800]`. Each number a
/// `u32`; an empty width or height is the reader's to refuse (it names the image's size).
fn region(value: &Value, notes: &mut Vec<String>) -> Result<PixelRegion, ReadError> {
    let shape = "an object {\"x\": X, \"y\": Y, \"width\": W, \"height\": H} in original pixels";
    let numbers: Vec<u64> = match value {
        Value::Object(map) => {
            if let Some(unknown) = map
                .keys()
                .find(|key| !REGION_FIELDS.contains(&key.as_str()))
            {
                return Err(ReadError::invalid(format!(
                    "`region` has no field `{unknown}`: it is {shape}"
                )));
            }
            REGION_FIELDS
                .iter()
                .map(|field| match map.get(*field) {
                    Some(number) => super::json_in::number(&format!("region.{field}"), number),
                    None => Err(ReadError::invalid(format!(
                        "`region.{field}` is missing: `region` is {shape}"
                    ))),
                })
                .collect::<Result<_, _>>()?
        }
        Value::String(text) => {
            let numbers: Option<Vec<u64>> = text
                .split(',')
                .map(|part| part.trim().parse::<u64>().ok())
                .collect();
            match numbers.filter(|numbers| numbers.len() == 4) {
                Some(numbers) => {
                    notes.push(format!(
                        "`region` was the string {text:?}; it was read as x, y, width, height. Send it as {shape}."
                    ));
                    numbers
                }
                None => {
                    return Err(ReadError::invalid(format!(
                        "`region` must be {shape}; got the string {text:?}"
                    )))
                }
            }
        }
        Value::Array(items) if items.len() == 4 => {
            let numbers = items
                .iter()
                .zip(REGION_FIELDS)
                .map(|(item, field)| super::json_in::number(&format!("region.{field}"), item))
                .collect::<Result<Vec<_>, _>>()?;
            notes.push(format!(
                "`region` was an array; it was read as x, y, width, height. Send it as {shape}."
            ));
            numbers
        }
        other => {
            return Err(ReadError::invalid(format!(
                "`region` must be {shape}, not {}",
                super::json_in::type_name(other)
            )))
        }
    };
    let value = |index: usize| -> Result<u32, ReadError> {
        let number = numbers.get(index).copied().unwrap_or(0);
        let field = REGION_FIELDS.get(index).copied().unwrap_or("x");
        super::json_in::to_u32(&format!("region.{field}"), number)
    };
    Ok(PixelRegion {
        x: value(0)?,
        y: value(1)?,
        width: value(2)?,
        height: value(3)?,
    })
}

#[cfg(test)]
mod tests;
