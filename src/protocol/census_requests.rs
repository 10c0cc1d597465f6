//! The requests of the ops that answer with a census: `read_many` (several files under one budget) and `search`
//! (matches with their counts), parsed from their JSON fields; a listing is a `read` of a directory.

use serde_json::Value;

use super::json_in::Fields;
use crate::error::ReadError;
use crate::read::ReadManyRequest;
use crate::search::SearchRequest;

/// The fields of `read_many`: the `read_files` tool's arguments and `content`, which only a host asks for
/// ([`HOST_ONLY_FIELDS`](super::requests::HOST_ONLY_FIELDS)).
pub const READ_MANY_FIELDS: &[&str] = &["paths", "limit", "fresh", "content"];

/// The fields of `search`: the `search` tool's arguments and `content`.
pub const SEARCH_FIELDS: &[&str] = &[
    "pattern",
    "path",
    "regex",
    "case_sensitive",
    "context",
    "offset",
    "limit",
    "content",
];

/// The valid range of a page's `limit`, in words.
const LIMIT_RANGE: &str = "a count from 1";
/// The valid range of a search's `offset`, in words.
const MATCH_OFFSET_RANGE: &str = "a match number from 1 (0 is read as 1)";
/// The valid range of a search's `context`, in words.
const CONTEXT_RANGE: &str = "a count of lines from 0 to 100 before and after each match";
/// Lines of context a search shows at most on each side of a match.
const MAX_CONTEXT_LINES: u64 = 100;

/// `read_many`'s request: `paths` a list of strings (a single string is read as a list of one, with a note),
/// `limit` and `fresh` as a read takes them.
///
/// Errors: `paths` missing or not strings, a limit that is no count (`invalid_request`, naming the field).
pub fn read_many_request(
    fields: &Fields,
    notes: &mut Vec<String>,
) -> Result<ReadManyRequest, ReadError> {
    let paths = match fields.present("paths") {
        None => {
            return Err(ReadError::invalid(
                "`paths` is missing: the `read_many` op needs `paths` (a list of paths or glob patterns)",
            ))
        }
        Some(Value::String(path)) => {
            notes.push(format!(
                "`paths` was the string {path:?}; it was read as a list of that one path. Send a JSON list of \
                 strings."
            ));
            vec![path.clone()]
        }
        Some(_) => fields.opt_strings("paths")?.unwrap_or_default(),
    };
    Ok(ReadManyRequest {
        paths,
        limit: fields.lenient_u64("limit", LIMIT_RANGE, notes)?,
        fresh: fields.lenient_bool("fresh", notes)?.unwrap_or(false),
    })
}

/// `search`'s request: `pattern` (required), `path` (default the working directory), `regex`,
/// `case_sensitive`, `context` (lines before and after each match), `offset` (the first match shown, 1-based)
/// and `limit` (matches a page).
///
/// Errors: `pattern` missing or empty, a field of the wrong type or out of its range (`invalid_request`).
pub fn search_request(
    fields: &Fields,
    notes: &mut Vec<String>,
) -> Result<SearchRequest, ReadError> {
    let pattern = fields.string("pattern")?;
    let context = fields
        .lenient_u64("context", CONTEXT_RANGE, notes)?
        .unwrap_or(0);
    if context > MAX_CONTEXT_LINES {
        return Err(ReadError::invalid(format!(
            "`context` must be {CONTEXT_RANGE} (got {context})"
        )));
    }
    let limit = fields.lenient_u64("limit", LIMIT_RANGE, notes)?;
    if limit == Some(0) {
        return Err(ReadError::invalid(
            "limit 0 asks for no matches; give a limit of at least 1, or leave it out for the default.",
        ));
    }
    Ok(SearchRequest {
        pattern,
        path: fields.opt_string("path")?.unwrap_or_else(|| ".".to_owned()),
        regex: fields.lenient_bool("regex", notes)?.unwrap_or(false),
        case_sensitive: fields.lenient_bool("case_sensitive", notes)?,
        context_lines: u32::try_from(context).unwrap_or(0),
        offset: fields.lenient_u64("offset", MATCH_OFFSET_RANGE, notes)?,
        limit,
    })
}
