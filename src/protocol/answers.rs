//! Answers of the session protocol: every outcome as one JSON object with snake_case fields, `text` last (what a
//! model should see). The shape is documented in `docs/protocol.md`; the scenario files pin it.

use serde_json::{json, Map, Value};

use crate::document::DocumentFacts;
use crate::error::ReadError;
use crate::image::PixelRegion;
use crate::read::{
    BudgetReport, BudgetUnit, EncodingFacts, ImageResult, ReadOutcome, ReadResult, RetryWindow,
    SessionStats, UnchangedStub,
};
use crate::spill::CaptureResult;
use crate::text::window_text;

/// `{"status":"ok"}`: a note was taken or a check passed.
pub fn note_json() -> Value {
    json!({ "status": "ok" })
}

/// A window: `content` (only when `copies` is `WindowCopies::Twice`), its cursor, the hint, the encoding, the budget,
/// `warnings` (only when there are some), `document` (only for a document read as its extracted text) and `text`.
pub fn window_json(result: &ReadResult, copies: WindowCopies) -> Value {
    let window = &result.window;
    let truncated_by: Vec<&str> = window.truncated_by.iter().map(|t| t.name()).collect();
    let clamped: Vec<Value> = window
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
    let mut map = Map::new();
    map.insert("status".into(), json!("ok"));
    map.insert("content_returned".into(), json!(true));
    if copies == WindowCopies::Twice {
        map.insert("content".into(), json!(window.content));
    }
    map.insert("path".into(), json!(result.path));
    map.insert("start_line".into(), json!(window.start_line));
    map.insert("start_column".into(), json!(window.start_column));
    map.insert("end_line".into(), json!(window.end_line));
    map.insert("lines_returned".into(), json!(window.lines_returned));
    map.insert("total_lines".into(), json!(window.total_lines));
    map.insert("truncated".into(), json!(!truncated_by.is_empty()));
    map.insert("truncated_by".into(), json!(truncated_by));
    map.insert("next_offset".into(), json!(window.next_offset));
    map.insert("next_column".into(), json!(window.next_column));
    map.insert("clamped_lines".into(), Value::Array(clamped));
    map.insert("hint".into(), json!(result.hint));
    map.insert("file_size".into(), json!(result.file_size));
    map.insert("encoding".into(), encoding_json(&result.encoding));
    map.insert("budget".into(), budget_json(&result.budget));
    if !result.warnings.is_empty() {
        map.insert("warnings".into(), json!(result.warnings));
    }
    if let Some(document) = &result.document {
        map.insert("document".into(), document_json(document));
    }
    let text = window_text(&window.content, &result.hint, &result.warnings);
    map.insert("text".into(), json!(text));
    Value::Object(map)
}

fn encoding_json(encoding: &EncodingFacts) -> Value {
    json!({
        "encoding": encoding.encoding.name(),
        "bom": encoding.bom,
        "origin": encoding.origin.name(),
        "line_endings": encoding.line_endings.name(),
        "replaced_invalid": encoding.replaced_invalid,
    })
}

/// A document's facts: `{"format","parts":[{"kind","number","name"?,"first_line","characters"}],"pages"?,
/// "empty_pages"?:[[first,last]]}`; `pages` and `empty_pages` for PDFs only, `name` only when the part has one.
pub fn document_json(document: &DocumentFacts) -> Value {
    let parts: Vec<Value> = document
        .parts
        .iter()
        .map(|part| {
            let mut value = Map::new();
            value.insert("kind".into(), json!(part.kind.name()));
            value.insert("number".into(), json!(part.number));
            value.insert("first_line".into(), json!(part.first_line));
            value.insert("characters".into(), json!(part.characters));
            if let Some(name) = &part.name {
                value.insert("name".into(), json!(name));
            }
            Value::Object(value)
        })
        .collect();
    let mut value = Map::new();
    value.insert("format".into(), json!(document.format.name()));
    value.insert("parts".into(), Value::Array(parts));
    if let Some(pages) = document.pages {
        value.insert("pages".into(), json!(pages));
        let ranges: Vec<Value> = document
            .empty_pages
            .iter()
            .map(|(first, last)| json!([first, last]))
            .collect();
        value.insert("empty_pages".into(), Value::Array(ranges));
    }
    Value::Object(value)
}

pub(super) fn budget_json(budget: &BudgetReport) -> Value {
    let mut map = Map::new();
    map.insert(
        "unit".into(),
        json!(match budget.unit {
            BudgetUnit::Characters => "characters",
            BudgetUnit::Tokens => "tokens",
        }),
    );
    map.insert("limit".into(), json!(budget.limit));
    map.insert("used".into(), json!(budget.used));
    if let Some(cap) = budget.cap {
        map.insert("cap".into(), json!(cap));
    }
    Value::Object(map)
}

/// A window of an image: `image` (its sizes, scale, region and frames), `data` (the encoded image in base64),
/// the hint, `warnings` (only when there are some) and `text` (the hint and the warnings for the model).
pub fn image_json(result: &ImageResult) -> Value {
    use base64::Engine as _;
    let window = &result.window;
    let mut map = Map::new();
    map.insert("status".into(), json!("ok"));
    map.insert("content_returned".into(), json!(true));
    map.insert("path".into(), json!(result.path));
    map.insert(
        "image".into(),
        json!({
            "mime_type": window.mime_type,
            "width": window.width,
            "height": window.height,
            "original_width": window.original_width,
            "original_height": window.original_height,
            "scale": window.scale,
            "region": region_json(&window.region),
            "frames": window.frames,
        }),
    );
    map.insert(
        "data".into(),
        json!(base64::engine::general_purpose::STANDARD.encode(&window.data)),
    );
    map.insert("hint".into(), json!(result.hint));
    map.insert("file_size".into(), json!(result.file_size));
    if !result.warnings.is_empty() {
        map.insert("warnings".into(), json!(result.warnings));
    }
    let text = window_text("", &result.hint, &result.warnings);
    map.insert("text".into(), json!(text));
    Value::Object(map)
}

/// `{"x", "y", "width", "height"}`.
pub fn region_json(region: &PixelRegion) -> Value {
    json!({"x": region.x, "y": region.y, "width": region.width, "height": region.height})
}

/// A dedup stub: `status` `unchanged`, no `content` key; the window's lines, the file's `total_lines`, the
/// window's cursor (each `null` when absent), for an image the `region`, and the message with the call that
/// continues, as `message` and `text`.
pub fn stub_json(stub: &UnchangedStub) -> Value {
    let mut answer = json!({
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
    });
    if let (Some(region), Value::Object(map)) = (&stub.region, &mut answer) {
        map.shift_insert(9, "region".into(), region_json(region));
    }
    answer
}

/// An error: `{"status":"error","content_returned":false,"text","error":{"kind","message","already_read"?,
/// "path"?,"suggestions","total_lines"?}}`; `text` is the message, `suggestions` always a list.
pub fn error_json(error: &ReadError) -> Value {
    let mut inner = Map::new();
    inner.insert("kind".into(), json!(error.kind.name()));
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

/// A failure of the host around the component (a trap, a deadline, the memory cap, a start that failed): an
/// error with `"kind":"host_error"`, its `cause` and whether the session was restarted.
pub fn host_error_json(cause: &str, message: &str, session_restarted: bool) -> Value {
    json!({
        "status": "error",
        "content_returned": false,
        "text": message,
        "error": {
            "kind": "host_error",
            "cause": cause,
            "message": message,
            "session_restarted": session_restarted,
        },
    })
}

/// How often an answer carries its window: in `text` alone, or also on its own as `content` (`"content": true`;
/// `docs/protocol.md`, "The window once").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowCopies {
    /// In `text` alone: what every request gets unless it asks.
    Once,
    /// In `text` and on its own as `content`.
    Twice,
}

/// A session read's answer: a window (with `content` as `copies` says), a stub, an image, a directory's listing or
/// an error.
pub fn outcome_json(outcome: &Result<ReadOutcome, ReadError>, copies: WindowCopies) -> Value {
    match outcome {
        Ok(ReadOutcome::Window(result)) => window_json(result, copies),
        Ok(ReadOutcome::Listing(listing)) => super::census_answers::listing_json(listing),
        Ok(ReadOutcome::Unchanged(stub)) => stub_json(stub),
        Ok(ReadOutcome::Image(result)) => image_json(result),
        Err(error) => error_json(error),
    }
}

/// A note or an error.
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

/// Session counters: `{"status":"ok","positioned_reads","indexed_files","index_bytes","documents_extracted",
/// "documents_from_store","peak_memory_bytes"}`; the peak is the component's linear memory in bytes (it never
/// shrinks, so its size now is its peak).
pub fn stats_json(stats: &SessionStats, peak_memory_bytes: u64) -> Value {
    json!({
        "status": "ok",
        "positioned_reads": stats.positioned_reads,
        "indexed_files": stats.indexed_files,
        "index_bytes": stats.index_bytes,
        "documents_extracted": stats.documents_extracted,
        "documents_from_store": stats.documents_from_store,
        "peak_memory_bytes": peak_memory_bytes,
    })
}

/// A finished capture: `content`, the totals, what was omitted (`omitted_first_line` and `omitted_last_line`
/// only when something was), `spill_path` and `spill_error` (only when present), `spill_capped`, `exit_status`
/// (`null` when unknown), `hint`, `collapsed_redraws`, `encoding`, `warnings` (only when there are some), `text`.
pub fn capture_json(result: &CaptureResult) -> Value {
    let summary = &result.summary;
    let mut map = Map::new();
    map.insert("status".into(), json!("ok"));
    map.insert("content".into(), json!(summary.content));
    map.insert("total_chars".into(), json!(summary.total_chars));
    map.insert("total_lines".into(), json!(summary.total_lines));
    map.insert("total_bytes".into(), json!(summary.total_bytes));
    map.insert("omitted_chars".into(), json!(summary.omitted_chars));
    map.insert("omitted_lines".into(), json!(summary.omitted_lines));
    if let Some((first, last)) = summary.omitted_range {
        map.insert("omitted_first_line".into(), json!(first));
        map.insert("omitted_last_line".into(), json!(last));
    }
    if let Some(path) = &result.spill_path {
        map.insert("spill_path".into(), json!(path));
    }
    map.insert("spill_capped".into(), json!(result.spill_capped));
    if let Some(error) = &result.spill_error {
        map.insert("spill_error".into(), json!(error));
    }
    map.insert("exit_status".into(), json!(result.exit_status));
    map.insert("hint".into(), json!(summary.hint));
    map.insert("collapsed_redraws".into(), json!(summary.collapsed_redraws));
    map.insert(
        "encoding".into(),
        json!({
            "encoding": "utf8",
            "bom": false,
            "origin": "detected",
            "line_endings": summary.line_endings().name(),
            "replaced_invalid": summary.replaced_invalid,
        }),
    );
    if !result.warnings.is_empty() {
        map.insert("warnings".into(), json!(result.warnings));
    }
    let text = window_text(&summary.content, &summary.hint, &[]);
    map.insert("text".into(), json!(text));
    Value::Object(map)
}

/// `answer` with its window once: without `content` when its `text` begins with it, and in a `read_many`
/// answer without each file's `content` and `text` (the answer's `text` holds each file's). A request with
/// `"content": true` keeps them instead (`docs/protocol.md`, "The window once").
pub fn window_once(answer: Value) -> Value {
    let Value::Object(mut fields) = answer else {
        return answer;
    };
    let carried = match (fields.get("content"), fields.get("text")) {
        (Some(Value::String(content)), Some(Value::String(text))) => {
            text.starts_with(content.as_str())
        }
        _ => false,
    };
    // `shift_remove` keeps the order of the other fields (`remove` would move the last one into the gap).
    if carried {
        fields.shift_remove("content");
    }
    if let Some(Value::Array(files)) = fields.get_mut("files") {
        for file in files.iter_mut().filter_map(Value::as_object_mut) {
            file.shift_remove("content");
            file.shift_remove("text");
        }
    }
    Value::Object(fields)
}

/// `answer` with `notes` (how arguments were read) added to its `warnings` (created when it has none) and, a line
/// each, to the end of its `text`, so the model learns how its arguments were read.
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

    #[test]
    fn an_error_has_the_documented_shape() {
        let error = ReadError::new(crate::error::ErrorKind::LoopBlocked, "stop")
            .with_count(4)
            .at_path("/w/a")
            .with_suggestions(vec!["b".into()]);
        assert_eq!(
            error_json(&error),
            json!({"status":"error","content_returned":false,"text":"stop",
                   "error":{"kind":"loop_blocked","message":"stop","already_read":4,"path":"/w/a",
                            "suggestions":["b"]}})
        );
        assert_eq!(
            error_json(&ReadError::invalid("bad")),
            json!({"status":"error","content_returned":false,"text":"bad",
                   "error":{"kind":"invalid_request","message":"bad","suggestions":[]}})
        );
    }

    #[test]
    fn a_stub_has_no_content_and_carries_the_cursor() {
        let stub = UnchangedStub {
            path: "/a".into(),
            start_line: 1,
            end_line: 9,
            total_lines: 20,
            next_offset: Some(10),
            next_column: None,
            message: "same".into(),
            region: None,
        };
        assert_eq!(
            stub_json(&stub),
            json!({"status":"unchanged","content_returned":false,"dedup":true,"path":"/a","start_line":1,
                   "end_line":9,"total_lines":20,"next_offset":10,"next_column":null,"message":"same",
                   "text":"same"})
        );
    }

    #[test]
    fn the_window_goes_once_in_the_text_and_only_a_copy_leaves() {
        assert_eq!(
            window_once(
                json!({"status":"ok","content":"1|a","next_offset":2,"text":"1|a\n\nhint"})
            )
            .to_string(),
            r#"{"status":"ok","next_offset":2,"text":"1|a\n\nhint"}"#
        );
        // A `content` the text does not begin with is not a copy: it stays.
        assert_eq!(
            window_once(json!({"status":"ok","content":"x","text":"hint"})),
            json!({"status":"ok","content":"x","text":"hint"})
        );
        assert_eq!(
            window_once(json!({"status":"ok","files":[
                {"requested":"a","status":"ok","content":"1|a\n","start_line":1,"text":"1|a\n\nh"},
                {"requested":"b","status":"error","text":"gone","error":{"kind":"not_found","message":"gone"}}],
                "text":"==> /a <==\n1|a\n\nh\n\n==> b <==\ngone\n\nall"})),
            json!({"status":"ok","files":[
                {"requested":"a","status":"ok","start_line":1},
                {"requested":"b","status":"error","error":{"kind":"not_found","message":"gone"}}],
                "text":"==> /a <==\n1|a\n\nh\n\n==> b <==\ngone\n\nall"})
        );
    }

    #[test]
    fn the_id_comes_first_and_notes_join_the_warnings_and_the_text() {
        assert_eq!(
            with_id(Some(json!("x")), note_json()).to_string(),
            r#"{"id":"x","status":"ok"}"#
        );
        assert_eq!(
            with_notes(json!({"status":"ok","text":"t"}), vec!["n".into()]),
            json!({"status":"ok","text":"t\nn","warnings":["n"]})
        );
        assert_eq!(
            with_notes(json!({"status":"ok","warnings":["w"]}), vec!["n".into()]),
            json!({"status":"ok","warnings":["w","n"]})
        );
    }
}
