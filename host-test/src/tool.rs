//! The `read_file` tool as a model sees it: its name, a description written for a model, and the JSON Schema of
//! its parameters (exactly the fields of a `read` request). One source for `read-window tool-schema` and the MCP
//! server's `read_file` tool.
//!
//! [`definition`] renders the tool for the three formats agents use: OpenAI function calling, Anthropic tool use,
//! and MCP (`tools/list`).

use serde_json::{json, Value};

/// The tool's name.
pub const READ_FILE: &str = "read_file";

/// The tool's description, written for a model: what a window is, how cursors work, `offset`/`limit`/`column`/
/// `tail`, documents and `extract`, what a clamp marker, a stub and a block mean.
pub const READ_FILE_DESCRIPTION: &str = "Read a text file or a document in bounded windows, with line numbers.

A window is whole lines starting at `offset` (1-based), at most `limit` lines. Each line is shown behind a \
gutter `N|`: the line number and a bar, which are not part of the file. A line longer than the maximum line \
length is cut (clamped) and ends in a marker like `[read-window: line 7 clamped, 5200 more characters; read them \
with offset=7 column=2000]`. The whole window stays under a size budget. `tail` reads the last lines of the file \
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
so paging goes on through it. Repeating the same read anyway, or going round the same windows in a cycle, is \
blocked: a loop_blocked error that says to stop re-reading; so is asking again and again for a file that does \
not exist.

Documents are read as their extracted text, windowed like any file: Jupyter notebooks (cells and their text \
outputs; an image output is one line naming it), Word, Excel, PowerPoint, OpenDocument, EPUB and PDF. Each \
part opens with a marker line (`--- page 3 of 12 ---`, `--- slide 2 of 9 ---`, `=== sheet 2 of 3: Totals \
(A1:D17) ===`, `# [cell 4] code`), and the hint says which part the window is in and the offset where the next \
part starts. A warning names pages with no text layer (scanned): look at those pages another way. \
`extract`: false reads a document's own bytes instead, e.g. a notebook's JSON before editing it; never write \
extracted text back over a document.

`path` is absolute, or relative to the working directory; only files under the granted directories can be \
read. A missing file is answered with similar names when there are some. Directories, binary files, devices \
and credential files are refused with a message that says why and what to do instead. Never copy the gutters, \
a stub or a `[read-window: ...]` marker into a file.";

/// The JSON Schema (draft 2020-12, an object) of the tool's parameters: `path` (required), `offset`, `limit`,
/// `column`, `tail` and `extract`, each with its type, range and a description for the model. No other property is allowed.
/// The line limit it states is the default, 2,000 lines ([`read_input_schema_for`] states another).
pub fn read_input_schema() -> Value {
    read_input_schema_for(read_window::config::DEFAULT_MAX_LINES)
}

/// [`read_input_schema`] for a host whose line limit is `max_lines` (the effective `max_lines` of its config):
/// `limit`'s description and `maximum` state it.
pub fn read_input_schema_for(max_lines: u64) -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "The file to read: an absolute path, or a path relative to the working directory."
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
                                line's marker names, together with its offset (offset=7 column=2000)."
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
            }
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

/// The formats `read-window tool-schema` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// OpenAI function calling: `{"type":"function","function":{"name","description","parameters"}}`.
    Openai,
    /// Anthropic tool use: `{"name","description","input_schema"}`.
    Anthropic,
    /// MCP `tools/list` entry: `{"name","title","description","inputSchema",...}` (the MCP server's own tool).
    Mcp,
}

/// The tool definition in `format` for the OpenAI and Anthropic formats; `None` for [`Format::Mcp`], which the
/// MCP server renders from its own `Tool` (with the same description and schema, plus its output schema).
pub fn definition(format: Format) -> Option<Value> {
    definition_for(format, read_window::config::DEFAULT_MAX_LINES)
}

/// [`definition`] for a host whose line limit is `max_lines` (see [`read_input_schema_for`]).
pub fn definition_for(format: Format, max_lines: u64) -> Option<Value> {
    match format {
        Format::Openai => Some(json!({
            "type": "function",
            "function": {
                "name": READ_FILE,
                "description": READ_FILE_DESCRIPTION,
                "parameters": read_input_schema_for(max_lines),
            }
        })),
        Format::Anthropic => Some(json!({
            "name": READ_FILE,
            "description": READ_FILE_DESCRIPTION,
            "input_schema": read_input_schema_for(max_lines),
        })),
        Format::Mcp => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_names_every_parameter() {
        let schema = read_input_schema();
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
    fn openai_and_anthropic_carry_the_same_schema() {
        let openai = definition(Format::Openai).unwrap_or_default();
        let anthropic = definition(Format::Anthropic).unwrap_or_default();
        assert_eq!(openai["function"]["parameters"], anthropic["input_schema"]);
        assert_eq!(anthropic["name"], json!("read_file"));
        assert_eq!(definition(Format::Mcp), None);
    }
}
