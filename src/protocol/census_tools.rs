//! The tools whose answers carry a census, as a model sees them: `list_directory` (a read of a directory),
//! `read_files` (`read_many`) and `search`, each with its description and the JSON Schemas of its input and
//! output. [`super::tools::definitions`] renders them beside `read_file` and `check_write`.

use serde_json::{json, Map, Value};

/// The name of the tool that lists a directory.
pub const LIST_DIRECTORY: &str = "list_directory";

/// The name of the tool that reads several files under one budget.
pub const READ_FILES: &str = "read_files";

/// The name of the tool that searches files.
pub const SEARCH: &str = "search";

/// `list_directory`'s description, written for a model.
pub const LIST_DIRECTORY_DESCRIPTION: &str = "List a directory: its entries as numbered lines, sorted by name, \
a page at a time. `3|src/` is a directory, `12|README.md  3,133 bytes` a file and its size, `7|current -> \
releases/v2` a link and where it leads. Entries the guards refuse (credential files, ignored paths, devices) are \
listed and marked not readable.

The hint gives the census, the exact count of entries in all (`Entries 1-500 of 5,000 in /p/data (4,990 files, \
10 directories). Read on with offset=501.`): a page is never the whole unless the hint says so. `depth` lists \
the tree below as relative paths (default 1: the directory's own entries), still with exact totals. Page with \
`offset` (the entry number the hint names) and `limit`.";

/// `read_files`' description, written for a model.
pub const READ_FILES_DESCRIPTION: &str = "Read several files in one call, in order, under one shared size \
budget. `paths` are paths or glob patterns under the granted directories (`src/*.rs`, `docs/**/*.md`); each \
file gets the window read_file would give it, with its own hint and the offset that continues it, from the \
budget the files before it left. Files the budget had no room for are left out, not read at all: the answer's \
`left_out` and its hint name each one; read them with another read_files or read_file call. Each file goes \
through the same guards, ignore rules and unchanged stubs as read_file.";

/// `search`'s description, written for a model.
pub const SEARCH_DESCRIPTION: &str = "Search files for a pattern and get the matching lines, a page at a time, \
with the exact census of the whole search: `total_matches` (matching lines), `files_with_matches`, \
`files_searched` and the files skipped by kind (binary, credential, ignored, too large).

`pattern` is literal text by default; `regex`: true takes a regular expression (linear time: any pattern \
finishes). Case: a pattern with no capital letters matches any case unless `case_sensitive` is true. `path` is a \
file or a directory (default the working directory); documents are searched in their extracted text. Each match \
is a line `src/app.rs:12|text` (path, line number, the line); `context` adds lines before and after \
(`src/app.rs-11|...`). A long line is cut around the match and names the read_file call (offset and column) that \
shows it. Page with `offset`, the match number the hint names (`Matches 1-100 of 1,234 in 40 files ... Read on \
with offset=101.`). \"No matches\" is said only when the whole path was searched; a search stopped by its time \
limit says how far it got.";

/// The input JSON Schema of `list_directory`.
pub fn list_directory_input_schema(max_lines: u64) -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "The directory: an absolute path, or a path relative to the working directory. \
                                A name shown quoted with escapes (\"a\\u{200b}\") holds those characters: send \
                                the characters themselves."
            },
            "depth": {
                "type": "integer",
                "minimum": 1,
                "maximum": 64,
                "description": "Levels to list: 1 (default) the directory's own entries, 2 also the entries of \
                                its subdirectories, as relative paths."
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "The first entry to show, 1-based; default 1. Pass the offset the hint names."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_lines,
                "description": format!("The most entries to show; default and maximum {max_lines}.")
            }
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

/// The input JSON Schema of `read_files`.
pub fn read_files_input_schema(max_lines: u64) -> Value {
    json!({
        "type": "object",
        "properties": {
            "paths": {
                "type": "array",
                "items": { "type": "string", "minLength": 1 },
                "minItems": 1,
                "maxItems": crate::read::MAX_MANY_FILES,
                "description": "The files, in the order to read them: paths (absolute, or relative to the \
                                working directory) or glob patterns such as src/**/*.rs."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_lines,
                "description": format!("The most lines of each file; default and maximum {max_lines}.")
            },
            "fresh": {
                "type": "boolean",
                "description": "true returns each file's content even when it was already returned unchanged."
            }
        },
        "required": ["paths"],
        "additionalProperties": false
    })
}

/// The input JSON Schema of `search`.
pub fn search_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "The text to find; a regular expression when regex is true."
            },
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "A file or a directory to search; default the working directory."
            },
            "regex": {
                "type": "boolean",
                "description": "true reads pattern as a regular expression (Rust regex syntax); default false."
            },
            "case_sensitive": {
                "type": "boolean",
                "description": "Whether case must match; default: only when the pattern has a capital letter."
            },
            "context": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "description": "Lines to show before and after each match; default 0."
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "The first match to show, 1-based; default 1. Pass the offset the hint names."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": "The most matches to show; default 100."
            }
        },
        "required": ["pattern"],
        "additionalProperties": false
    })
}

/// The properties of a directory's listing that a window does not have, for `read_file`'s output schema (which
/// is `list_directory`'s too: both are a read).
pub fn listing_properties() -> Map<String, Value> {
    let count = json!({ "type": "integer", "minimum": 0 });
    let properties = json!({
        "listing": { "type": "boolean", "description": "Set on a directory's listing." },
        "depth": { "type": "integer", "minimum": 1, "description": "The levels the listing shows." },
        "total_entries": {
            "type": "integer",
            "minimum": 0,
            "description": "Entries in the whole listing at this depth: the census, not the page."
        },
        "entries": {
            "type": "object",
            "description": "The census by kind of entry.",
            "properties": {
                "files": count,
                "directories": count,
                "links": count,
                "other": count,
                "not_readable": count
            },
            "required": ["files", "directories", "links", "other", "not_readable"]
        },
        "offset": { "type": "integer", "minimum": 1, "description": "The first entry of the page, 1-based." },
        "entries_returned": count
    });
    match properties {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The JSON Schema of one count.
fn count() -> Value {
    json!({ "type": "integer", "minimum": 0 })
}

/// The output JSON Schema of `read_files`: each file's answer as `read_file`'s output, with `requested`.
pub fn read_files_output_schema() -> Value {
    let mut file = super::tools::read_output_schema();
    if let Some(Value::Object(properties)) = file.get_mut("properties") {
        properties.insert(
            "requested".into(),
            json!({ "type": "string", "description": "The path as asked for (a pattern's match: absolute)." }),
        );
    }
    json!({
        "type": "object",
        "description": "Each file's answer in order, and the files left out for the budget (status ok), or an \
                        error. Every window is in the text content, under a `==> path <==` line.",
        "properties": {
            "status": { "type": "string", "enum": ["ok", "error"] },
            "content_returned": { "type": "boolean" },
            "files": { "type": "array", "items": file },
            "files_total": {
                "type": "integer",
                "minimum": 0,
                "description": "In an MCP reply whose `files` list was cut at its allowance: the files read in all."
            },
            "left_out_total": {
                "type": "integer",
                "minimum": 0,
                "description": "In an MCP reply whose `left_out` list was cut: the files left out in all."
            },
            "left_out": {
                "type": "array",
                "description": "Files the budget had no room for, not read at all: read each with these arguments.",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": { "type": "string" },
                        "arguments": {
                            "type": "object",
                            "properties": { "path": { "type": "string" } },
                            "required": ["path"]
                        }
                    },
                    "required": ["path", "arguments"]
                }
            },
            "budget": budget_schema(),
            "error": super::tools::error_schema()
        },
        "required": ["status", "content_returned"]
    })
}

/// The JSON Schema of a budget report.
fn budget_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "unit": { "type": "string", "enum": ["characters", "tokens"] },
            "limit": count(),
            "used": count(),
            "cap": count()
        },
        "required": ["unit", "limit", "used"]
    })
}

/// The output JSON Schema of `search`.
pub fn search_output_schema() -> Value {
    json!({
        "type": "object",
        "description": "The census of the whole search and a page of its matches (status ok), or an error. The \
                        matches and the hint are the text content.",
        "properties": {
            "status": { "type": "string", "enum": ["ok", "error"] },
            "content_returned": { "type": "boolean" },
            "path": { "type": "string", "description": "The absolute path searched." },
            "pattern": { "type": "string" },
            "total_matches": count(),
            "files_with_matches": count(),
            "files_searched": count(),
            "skipped": {
                "type": "object",
                "description": "Files not searched, by kind.",
                "properties": {
                    "binary": count(),
                    "credential": count(),
                    "ignored": count(),
                    "too_large": count(),
                    "unreadable": count()
                },
                "required": ["binary", "credential", "ignored", "too_large", "unreadable"]
            },
            "complete": {
                "type": "boolean",
                "description": "false when the time limit stopped the search: the counts cover what was searched."
            },
            "stopped_before": {
                "type": ["string", "null"],
                "description": "When stopped: the first file not searched."
            },
            "offset": { "type": "integer", "minimum": 1, "description": "The first match of the page." },
            "matches_returned": count(),
            "next_offset": {
                "type": ["integer", "null"],
                "minimum": 1,
                "description": "The match number that continues; null when the page is the last."
            },
            "error": super::tools::error_schema()
        },
        "required": ["status", "content_returned"]
    })
}
