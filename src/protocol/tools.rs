//! The tools as a model sees them: `read_file` and `check_write`, each with its name, a description written for
//! a model and the JSON Schemas of its input and output, rendered for OpenAI function calling, Anthropic tool
//! use and MCP `tools/list`. The `tools` op answers them; the input schema's `limit` states the session's line
//! limit.

use serde_json::{json, Value};

use crate::config::{Budget, Config};

/// The name of the tool that reads a window.
pub const READ_FILE: &str = "read_file";

/// The name of the tool that checks text before it is written.
pub const CHECK_WRITE: &str = "check_write";

/// The tool's description, written for a model: what a window is, how cursors work, `offset`/`limit`/`column`/
/// `tail`, documents and `extract`, what a clamp marker, a stub and a block mean.
pub const READ_FILE_DESCRIPTION: &str = "Read a text file or a document in bounded windows, with line numbers.

A window is whole lines starting at `offset` (1-based), at most `limit` lines. Each line is shown behind a \
gutter `N|`: the line number and a bar, which are not part of the file. A line longer than the maximum line \
length is cut (clamped) and ends in a marker like `[read-window: line 7 clamped, 5200 more characters; read them \
with offset=7 column=2000 limit=1]`: that call reads the rest of line 7 alone. The whole window stays under a size budget. `tail` reads the last lines of the file \
instead of starting at `offset`.

After the content come a blank line and a hint: which lines were shown, of how many, why the window stopped, \
and the call that continues, e.g. `Showing lines 1-2000 of 5310 in /src/app.rs (the limit of 2000 lines). Use \
offset=2001 to continue.` The hint names the call that continues, e.g. offset=2001, or offset=7 column=2000 \
when the window ended inside a very long line (`column` counts characters from 0): call read_file again with \
exactly those arguments. Following the calls the hints name from line 1 reads the whole file, every character \
exactly once.

Asking again for a window you already received, while the file is unchanged, returns a short \
`[read-window: unchanged] ...` stub instead of the content: the earlier result is still current, so use it \
instead of reading again, or read another range. The stub keeps the cursor and names the call that continues, \
so paging goes on through it. If that earlier result is no longer in your context (it was compacted or \
dropped), repeat the call with `fresh`: true to get the content again. Repeating the same read anyway, or going round the same windows in a cycle, is \
blocked: a loop_blocked error that says to stop re-reading; so is asking again and again for a file that does \
not exist.

Documents are read as their extracted text, windowed like any file: Jupyter notebooks (cells and their text \
outputs; an image output is one line naming it), Word, Excel, PowerPoint, OpenDocument, EPUB and PDF. Each \
part opens with a marker line (`--- page 3 of 12 ---`, `--- slide 2 of 9 ---`, `=== sheet 2 of 3: Totals \
(A1:D17) ===`, `# [cell 4] code`), and the hint says which part the window is in and the offset where the next \
part starts. A warning names pages with no text layer (scanned): look at those pages another way. \
`extract`: false reads a document's own bytes instead, e.g. a notebook's JSON before editing it; never write \
extracted text back over a document.

Images (PNG, JPEG, GIF, WebP, BMP) are returned as an image, scaled to fit what a model sees (at most 1568 \
pixels on the longest side): the text says the original size, the scale shown and the regions that show it at \
full resolution, e.g. `5 x 5 regions of 1,200 x 800 show it at full resolution, the first is \
region=0,0,1200,800`. Pass `region` (x, y, width, height in original pixels) to see any part in detail: small \
text in a scaled-down screenshot is only readable that way. An animation shows its first frame.

`path` is absolute, or relative to the working directory; only files under the granted directories can be \
read. A missing file is answered with similar names when there are some. A directory is answered with its listing \
(see list_directory). Binary files, devices and credential files are refused with a message that says why and what to do instead. Never copy the gutters, \
a stub or a `[read-window: ...]` marker into a file.";

/// The `check_write` tool's description, written for a model.
pub const CHECK_WRITE_DESCRIPTION: &str = "Check text before you write it to a file: the whole new content, \
or the text an edit puts in. Answers `ok`, or an echoed_output error when the text contains read_file output \
that must never be written into a file: an \"unchanged\" stub, a loop message or a clamp marker (anything \
starting with `[read-window: `), two or more lines read_file returned pasted back with their `N|` line-number \
gutters (numbered text that never came from read_file passes), a line of a file that read_file showed only in \
part (clamped, cut by the budget, or from a column) written back as if it were the whole line, U+FFFD in text \
for a file whose read replaced bytes that were not valid text, or a visible form such as ⟪U+200B⟫ that read_file showed in place \
of an invisible character (write the character itself). On an error, read the file again and write its real \
text. An unencodable error: the file is in a legacy encoding that cannot hold a character of the text. A \
binary_document error: the file is a document (Word, Excel, PowerPoint, OpenDocument, EPUB, PDF) or a notebook, \
and the text is what read_file extracted from it: write it to a new file instead, or for a notebook read its \
JSON with extract=false and write the edited JSON. A stale error: the file changed since this session last read \
it, other than by writing text check_write accepted (an outside edit, a formatter, another agent); read it \
again and build the edit on what it holds now.";

/// The JSON Schema (draft 2020-12, an object) of `read_file`'s input for a session whose line limit is
/// `max_lines`: `path` (required), `offset`, `limit` (its description and `maximum` state the limit), `column`,
/// `tail`, `extract` and `fresh`; no other property.
pub fn read_input_schema_for(max_lines: u64) -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "The file to read: an absolute path, or a path relative to the working directory. \
                                A name shown quoted with escapes (\"a\\u{200b}.txt\") holds those characters: \
                                send the characters themselves."
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "The first line to show, 1-based; default 1 (0 is read as 1). To continue a \
                                truncated read, pass the offset the hint names (\"Use offset=N to continue\")."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_lines,
                "description": format!("The most lines to show, at least 1; default and maximum: \
                                {max_lines}. The window may stop earlier at its size budget; the hint says so.")
            },
            "column": {
                "type": "integer",
                "minimum": 0,
                "description": "Where to start inside the first line, in characters, 0-based; default 0. Only \
                                needed to continue inside a long line: pass the column the hint or a clamped \
                                line's marker names, together with its offset (offset=7 column=2000, and limit=1 for the rest of a clamped \
                                line alone)."
            },
            "tail": {
                "type": "integer",
                "minimum": 1,
                "maximum": u32::MAX,
                "description": "Read the last N lines of the file instead of starting at offset (a log's newest \
                                entries): the window ends at the last line, at most limit lines. Not together \
                                with offset or column."
            },
            "extract": {
                "type": "boolean",
                "description": "Whether a document (notebook, Word, Excel, PowerPoint, OpenDocument, EPUB, PDF) \
                                is read as its extracted text; default true. false reads the file's own bytes: \
                                a notebook's JSON (to edit it and write the whole JSON back), or a file named \
                                like a document that holds plain text."
            },
            "fresh": {
                "type": "boolean",
                "description": "true returns the content even when this window was already returned and is \
                                unchanged (never an \"unchanged\" stub): for when that earlier result is no longer \
                                in your context. Default false. Still counts as a repeated read."
            },
            "region": region_schema("For an image: the part to show, in original pixels (the hint names the \
                                     regions that show it at full resolution); default the whole image.")
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

/// The `_meta` key of a tool in MCP `tools/list` that Claude Code reads: the characters of a result it shows the
/// model rather than saving to a file (about 50,000 when a tool declares none; at most
/// [`MAX_RESULT_CHARS_CEILING`]). A tool that declares it is held to it instead of `MAX_MCP_OUTPUT_TOKENS`.
pub const MAX_RESULT_CHARS_META: &str = "anthropic/maxResultSizeChars";

/// The most a tool may declare under [`MAX_RESULT_CHARS_META`].
pub const MAX_RESULT_CHARS_CEILING: u64 = 500_000;

/// Characters of a reply besides the window: the hint, its warnings and notes.
const HINT_ALLOWANCE_CHARS: u64 = 4_096;

/// The most characters a `read_file` reply carries under `budget`: the window (a token holds at most 16
/// characters: none is estimated under 1/8 of a token, and a learned density is at least 0.5), the hint and the
/// structured fields, at most [`MAX_RESULT_CHARS_CEILING`].
pub fn max_result_chars(budget: &Budget) -> u64 {
    let window = match budget {
        Budget::Characters(chars) => *chars,
        Budget::Tokens { .. } => budget.limit().saturating_mul(16),
    };
    let fields = super::mcp::FIELDS_ALLOWANCE_BYTES as u64;
    window
        .saturating_add(HINT_ALLOWANCE_CHARS + fields)
        .min(MAX_RESULT_CHARS_CEILING)
}

/// A format tool definitions are rendered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// OpenAI function calling: `{"type":"function","function":{"name","description","parameters"}}`.
    Openai,
    /// Anthropic tool use: `{"name","description","input_schema"}`.
    Anthropic,
    /// MCP `tools/list`: `{"name","title","description","inputSchema","outputSchema","annotations"}`.
    Mcp,
}

impl Format {
    /// The format named `name` (`openai`, `anthropic`, `mcp`), or `None`.
    pub fn named(name: &str) -> Option<Format> {
        match name {
            "openai" => Some(Format::Openai),
            "anthropic" => Some(Format::Anthropic),
            "mcp" => Some(Format::Mcp),
            _ => None,
        }
    }
}

/// One tool: its name, title, description, input and output schemas, and whether it only reads.
struct Tool {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: Value,
    output: Value,
    idempotent: bool,
    /// The characters its results carry at most (MCP `_meta`, see [`MAX_RESULT_CHARS_META`]).
    max_result_chars: Option<u64>,
}

impl Tool {
    fn render(self, format: Format) -> Value {
        match format {
            Format::Openai => json!({
                "type": "function",
                "function": {
                    "name": self.name,
                    "description": self.description,
                    "parameters": self.input,
                }
            }),
            Format::Anthropic => json!({
                "name": self.name,
                "description": self.description,
                "input_schema": self.input,
            }),
            Format::Mcp => {
                let mut annotations = json!({
                    "title": self.title,
                    "readOnlyHint": true,
                    "openWorldHint": false,
                });
                if self.idempotent {
                    annotations["idempotentHint"] = json!(true);
                }
                let mut tool = json!({
                    "name": self.name,
                    "title": self.title,
                    "description": self.description,
                    "inputSchema": self.input,
                    "outputSchema": self.output,
                    "annotations": annotations,
                });
                if let Some(chars) = self.max_result_chars {
                    tool["_meta"] = json!({ MAX_RESULT_CHARS_META: chars });
                }
                tool
            }
        }
    }
}

/// The tools `read_file`, `list_directory`, `read_files`, `search` and `check_write` in `format`, for a session
/// under `config`: each `limit` states its line limit, and in MCP the `_meta` of each tool that returns text the
/// characters a reply carries at most under its budget.
pub fn definitions(format: Format, config: &Config) -> Vec<Value> {
    let read = Tool {
        name: READ_FILE,
        title: "Read a file window",
        description: READ_FILE_DESCRIPTION,
        input: read_input_schema_for(config.max_lines),
        output: read_output_schema(),
        idempotent: false,
        max_result_chars: Some(max_result_chars(&config.budget)),
    };
    let check = Tool {
        name: CHECK_WRITE,
        title: "Check text before writing it",
        description: CHECK_WRITE_DESCRIPTION,
        input: check_write_input_schema(),
        output: check_write_output_schema(),
        idempotent: true,
        max_result_chars: None,
    };
    use super::census_tools::*;
    let max_chars = Some(max_result_chars(&config.budget));
    let list = Tool {
        name: LIST_DIRECTORY,
        title: "List a directory",
        description: LIST_DIRECTORY_DESCRIPTION,
        input: list_directory_input_schema(config.max_lines),
        output: read_output_schema(),
        idempotent: true,
        max_result_chars: max_chars,
    };
    let many = Tool {
        name: READ_FILES,
        title: "Read several files",
        description: READ_FILES_DESCRIPTION,
        input: read_files_input_schema(config.max_lines),
        output: read_files_output_schema(),
        idempotent: false,
        max_result_chars: max_chars,
    };
    let search = Tool {
        name: SEARCH,
        title: "Search files",
        description: SEARCH_DESCRIPTION,
        input: search_input_schema(),
        output: search_output_schema(),
        idempotent: true,
        max_result_chars: max_chars,
    };
    vec![
        read.render(format),
        list.render(format),
        many.render(format),
        search.render(format),
        check.render(format),
    ]
}

/// The input JSON Schema of `check_write`: the path a model is about to write.
pub fn check_write_input_schema() -> Value {
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
pub fn error_schema() -> Value {
    json!({
        "type": "object",
        "description": "Why nothing was read (status error).",
        "properties": {
            "kind": {
                "type": "string",
                "enum": ["not_found", "not_a_file", "outside_sandbox", "permission_denied", "invalid_request",
                         "io", "special_file", "device", "credential", "binary", "loop_blocked",
                         "echoed_output", "unencodable", "too_large", "malformed_document",
                         "encrypted_document", "binary_document", "stale", "ignored", "malformed_image",
                         "host_error"]
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

/// The output JSON Schema of `read_file`: the structured content of an MCP reply (docs/protocol.md, "MCP
/// replies"), the answer's fields without what its text content carries.
pub fn read_output_schema() -> Value {
    let count = json!({ "type": "integer", "minimum": 0 });
    let mut schema = json!({
        "type": "object",
        "description": "The fields of a window or a directory's listing (status ok), an unchanged stub \
                        (status unchanged) or an error (status error). The window itself, its hint, warnings and a stub's message are the text \
                        content, sent once.",
        "properties": {
            "status": { "type": "string", "enum": ["ok", "unchanged", "error"] },
            "content_returned": { "type": "boolean", "description": "True when the text content holds the window." },
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
                                column=next_column, limit=1. At most 64; clamped_lines_total counts them when there are more.",
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
            "clamped_lines_total": {
                "type": "integer",
                "minimum": 0,
                "description": "When more lines were clamped than clamped_lines lists: how many."
            },
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
            "document": document_schema(),
            "image": image_schema(),
            "region": region_schema("Set on a stub of an image: the region the earlier result showed."),
            "dedup": { "type": "boolean", "description": "Set on a stub: the window was already returned." },
            "error": error_schema()
        },
        "required": ["status", "content_returned"]
    });
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.extend(super::census_tools::listing_properties());
    }
    schema
}

/// A region of an image in original pixels, described as `description`.
fn region_schema(description: &str) -> Value {
    let count = json!({ "type": "integer", "minimum": 0, "maximum": u32::MAX });
    json!({
        "type": "object",
        "description": description,
        "properties": { "x": count, "y": count, "width": count, "height": count },
        "required": ["x", "y", "width", "height"],
        "additionalProperties": false
    })
}

/// The `image` object of a window of an image (its pixels are the reply's image content).
fn image_schema() -> Value {
    let count = json!({ "type": "integer", "minimum": 0 });
    json!({
        "type": "object",
        "description": "The image shown: its size, the original size, the scale and the region of the original \
                        it shows. The picture is the image content.",
        "properties": {
            "mime_type": { "type": "string", "enum": ["image/png", "image/jpeg", "image/gif", "image/webp"] },
            "width": count,
            "height": count,
            "original_width": count,
            "original_height": count,
            "scale": { "type": "number", "minimum": 0, "maximum": 1 },
            "region": region_schema("The part of the original shown, in original pixels."),
            "frames": { "type": "integer", "minimum": 1, "description": "Frames in the file; the first is shown." }
        },
        "required": ["mime_type", "width", "height", "original_width", "original_height", "scale", "region", "frames"]
    })
}

/// The `document` object of a window of a document read as its extracted text, as an MCP reply bounds it.
fn document_schema() -> Value {
    let count = json!({ "type": "integer", "minimum": 0 });
    json!({
        "type": "object",
        "description": "The document the window's text was extracted from, and where its parts start.",
        "properties": {
            "format": {
                "type": "string",
                "enum": ["ipynb", "docx", "xlsx", "xls", "ods", "pptx", "odp", "odt", "epub", "pdf"]
            },
            "parts": {
                "type": "array",
                "description": "The parts (pages, sheets, slides, cells, chapters) from the one the window starts \
                                in to the one after it, at most 24.",
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": { "type": "string", "enum": ["cell", "page", "sheet", "slide", "chapter"] },
                        "number": count,
                        "name": { "type": "string" },
                        "first_line": count,
                        "characters": count
                    },
                    "required": ["kind", "number", "first_line", "characters"]
                }
            },
            "parts_total": { "type": "integer", "minimum": 0, "description": "How many parts there are." },
            "pages": { "type": "integer", "minimum": 0, "description": "A PDF's page count." },
            "empty_pages": {
                "type": "array",
                "description": "A PDF's runs of pages with no text layer, [first, last], at most 24.",
                "items": { "type": "array", "items": count }
            },
            "empty_pages_total": {
                "type": "integer",
                "minimum": 0,
                "description": "When there are more runs of empty pages than empty_pages lists: how many."
            }
        },
        "required": ["format", "parts"]
    })
}

/// The output JSON Schema of `check_write`: the structured content of an MCP reply to a write check.
pub fn check_write_output_schema() -> Value {
    json!({
        "type": "object",
        "description": "status ok: the text may be written; status error: it holds read_file output.",
        "properties": {
            "status": { "type": "string", "enum": ["ok", "error"] },
            "content_returned": { "type": "boolean" },
            "error": error_schema()
        },
        "required": ["status"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_names_every_parameter() {
        let schema = read_input_schema_for(crate::config::DEFAULT_MAX_LINES);
        let properties = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for name in properties.keys() {
            assert!(
                READ_FILE_DESCRIPTION.contains(&format!("`{name}`"))
                    || READ_FILE_DESCRIPTION.contains(&format!("{name}=")),
                "{name}"
            );
        }
    }

    #[test]
    fn the_limit_states_the_line_limit_in_force() {
        let schema = read_input_schema_for(50);
        assert_eq!(schema["properties"]["limit"]["maximum"], json!(50));
        assert_eq!(
            schema["properties"]["limit"]["description"],
            json!(
                "The most lines to show, at least 1; default and maximum: 50. The window may stop earlier at \
                 its size budget; the hint says so."
            )
        );
        assert!(!READ_FILE_DESCRIPTION.contains("next_offset"));
        assert!(READ_FILE_DESCRIPTION
            .contains("The hint names the call that continues, e.g. offset=2001"));
    }

    #[test]
    fn every_format_carries_the_same_schemas() {
        let config = Config::default();
        let openai = definitions(Format::Openai, &config);
        let anthropic = definitions(Format::Anthropic, &config);
        let mcp = definitions(Format::Mcp, &config);
        assert_eq!(
            openai[0]["function"]["parameters"],
            anthropic[0]["input_schema"]
        );
        assert_eq!(anthropic[1]["input_schema"], mcp[1]["inputSchema"]);
        assert_eq!(mcp[0]["name"], json!("read_file"));
        assert_eq!(mcp[4]["name"], json!("check_write"));
        assert_eq!(mcp[4]["annotations"]["idempotentHint"], json!(true));
        assert_eq!(mcp[0]["outputSchema"]["type"], json!("object"));
        assert!(openai[0].get("_meta").is_none() && mcp[4].get("_meta").is_none());
    }

    #[test]
    fn mcp_declares_the_characters_a_reply_carries_at_most() {
        let meta = |budget: Budget| {
            let config = Config {
                budget,
                ..Config::default()
            };
            definitions(Format::Mcp, &config)[0]["_meta"][MAX_RESULT_CHARS_META].clone()
        };
        // 100,000 characters of window, 4,096 of hint, 12,288 of fields.
        assert_eq!(meta(Budget::Characters(100_000)), json!(116_384));
        // The MCP default: 18,000 tokens of at most 16 characters each.
        let tokens = Budget::Tokens {
            cap: 20_000,
            headroom: 0.9,
        };
        assert_eq!(meta(tokens), json!(304_384));
        assert_eq!(meta(Budget::Characters(10_000_000)), json!(500_000));
    }
}
