//! The answers that carry a census, as JSON: a listing (a read of a directory), `read_many` and `search`.
//! Shapes are documented in `docs/protocol.md`; `text` is last, what a model sees.

use serde_json::{json, Map, Value};

use super::answers::{budget_json, error_json, outcome_json, WindowCopies};
use crate::error::ReadError;
use crate::listing::ListingWindow;
use crate::read::{ManyFile, ReadManyResult, FILE_SEPARATOR};
use crate::search::SearchResult;
use crate::text::window_text;

/// A listing window: `{"status":"ok","content_returned":true,"path","listing":true,"depth","total_entries",
/// "entries":{files,directories,links,other,not_readable},"offset","entries_returned","next_offset",
/// "truncated","truncated_by","content","hint","budget","warnings"?,"text"}`.
pub fn listing_json(listing: &ListingWindow) -> Value {
    let counts = &listing.counts;
    let mut map = Map::new();
    map.insert("status".into(), json!("ok"));
    map.insert("content_returned".into(), json!(true));
    map.insert("content".into(), json!(listing.content));
    map.insert("path".into(), json!(listing.path));
    map.insert("listing".into(), json!(true));
    map.insert("depth".into(), json!(listing.depth));
    map.insert("total_entries".into(), json!(listing.total_entries));
    map.insert(
        "entries".into(),
        json!({
            "files": counts.files,
            "directories": counts.directories,
            "links": counts.links,
            "other": counts.other,
            "not_readable": counts.not_readable,
        }),
    );
    map.insert("offset".into(), json!(listing.offset));
    map.insert("entries_returned".into(), json!(listing.entries_returned));
    map.insert("next_offset".into(), json!(listing.next_offset));
    map.insert("truncated".into(), json!(!listing.truncated_by.is_empty()));
    map.insert("truncated_by".into(), json!(listing.truncated_by));
    map.insert("hint".into(), json!(listing.hint));
    map.insert("budget".into(), budget_json(&listing.budget));
    if !listing.warnings.is_empty() {
        map.insert("warnings".into(), json!(listing.warnings));
    }
    let text = window_text(&listing.content, &listing.hint, &listing.warnings);
    map.insert("text".into(), json!(text));
    Value::Object(map)
}

/// A `read_many` answer: `{"status":"ok","files":[answer...],"left_out":[{"path","arguments":{"path"}}],
/// "budget","hint","warnings"?,"text"}`; each file's answer is a read's, with `requested` first. `text` is each
/// file's text under a `==> path <==` line, then the hint; each window's `content` as `copies` says.
pub fn read_many_json(outcome: &Result<ReadManyResult, ReadError>, copies: WindowCopies) -> Value {
    let result = match outcome {
        Ok(result) => result,
        Err(error) => return error_json(error),
    };
    let files: Vec<Value> = result
        .files
        .iter()
        .map(|file| file_json(file, copies))
        .collect();
    let mut text = String::new();
    for (file, answer) in result.files.iter().zip(&files) {
        text.push_str(&file.header());
        text.push_str(answer.get("text").and_then(Value::as_str).unwrap_or(""));
        text.push_str(FILE_SEPARATOR);
    }
    text.push_str(&window_text("", &result.hint, &result.warnings));
    let left_out: Vec<Value> = result
        .left_out
        .iter()
        .map(|file| json!({ "path": file.path, "arguments": { "path": file.path } }))
        .collect();
    let mut map = Map::new();
    map.insert("status".into(), json!("ok"));
    // True when any file's answer carries content (not when every file was a stub or an error).
    let any_content = files
        .iter()
        .any(|answer| answer.get("content_returned") == Some(&Value::Bool(true)));
    map.insert("content_returned".into(), json!(any_content));
    map.insert("files".into(), Value::Array(files));
    map.insert("left_out".into(), Value::Array(left_out));
    map.insert("budget".into(), budget_json(&result.budget));
    map.insert("hint".into(), json!(result.hint));
    if !result.warnings.is_empty() {
        map.insert("warnings".into(), json!(result.warnings));
    }
    map.insert("text".into(), json!(text));
    Value::Object(map)
}

/// One file of a `read_many` answer: `requested`, then the read's answer.
fn file_json(file: &ManyFile, copies: WindowCopies) -> Value {
    let mut answer = outcome_json(&file.outcome, copies);
    if let Value::Object(map) = &mut answer {
        map.shift_insert(0, "requested".into(), json!(file.requested));
    }
    answer
}

/// A search answer: `{"status":"ok","content_returned","content","path","pattern","total_matches",
/// "files_with_matches","files_searched","skipped":{binary,credential,ignored,too_large,unreadable},"complete",
/// "stopped_before","offset","matches_returned","next_offset","hint","warnings"?,"text"}`.
pub fn search_json(outcome: &Result<SearchResult, ReadError>) -> Value {
    let result = match outcome {
        Ok(result) => result,
        Err(error) => return error_json(error),
    };
    let skipped = &result.skipped;
    let mut map = Map::new();
    map.insert("status".into(), json!("ok"));
    map.insert(
        "content_returned".into(),
        json!(result.matches_returned > 0),
    );
    map.insert("content".into(), json!(result.content));
    map.insert("path".into(), json!(result.path));
    map.insert("pattern".into(), json!(result.pattern));
    map.insert("total_matches".into(), json!(result.total_matches));
    map.insert(
        "files_with_matches".into(),
        json!(result.files_with_matches),
    );
    map.insert("files_searched".into(), json!(result.files_searched));
    map.insert(
        "skipped".into(),
        json!({
            "binary": skipped.binary,
            "credential": skipped.credential,
            "ignored": skipped.ignored,
            "too_large": skipped.too_large,
            "unreadable": skipped.unreadable,
        }),
    );
    map.insert("complete".into(), json!(result.complete));
    map.insert("stopped_before".into(), json!(result.stopped_before));
    map.insert("offset".into(), json!(result.offset));
    map.insert("matches_returned".into(), json!(result.matches_returned));
    map.insert("next_offset".into(), json!(result.next_offset));
    map.insert("hint".into(), json!(result.hint));
    if !result.warnings.is_empty() {
        map.insert("warnings".into(), json!(result.warnings));
    }
    let text = window_text(&result.content, &result.hint, &result.warnings);
    map.insert("text".into(), json!(text));
    Value::Object(map)
}
