//! JSON of the typed API's records, for the CLI commands that call the typed `reader` interface (`read`, `page`):
//! the same shape the component's protocol answers (`docs/protocol.md`), rendered from the WIT records.

use serde_json::{json, Map, Value};

use crate::{BudgetReport, DocumentFacts, HostError, ReadError, ReadResult};

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
    read_window::protocol::host_error_json(
        error.kind().as_str(),
        error.message(),
        error.session_restarted(),
    )
}

/// The answer to a stateless read: a window or an error.
pub fn once_json(outcome: &Result<ReadResult, ReadError>) -> Value {
    match outcome {
        Ok(result) => window_json(result),
        Err(error) => error_json(error),
    }
}
