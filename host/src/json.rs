//! JSON of the typed API's records, for the CLI commands that call the typed `reader` interface (`read`, `page`)
//! and for the host's own refusals (an absolute link out of every grant): the same shape the component's protocol
//! answers (`docs/protocol.md`), rendered from the WIT records.

use serde_json::{json, Map, Value};

use crate::{
    BudgetReport, DocumentFacts, HostError, ReadError, ReadOutcome, ReadResult, RetryWindow,
    SessionStats, UnchangedStub,
};

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
