//! Jupyter notebooks (nbformat 4, and nbformat 3 with its `worksheets`): each cell opened by
//! `# [cell N] kind (execution E)`, its source, then for code cells their outputs: stream text (a carriage return
//! overwrites the line as a terminal shows it, so a progress bar is its last state), `text/plain` results, error
//! tracebacks with ANSI escape sequences removed; images and other binary outputs become one line naming the MIME
//! type and size, never base64.

use serde_json::Value;

use super::{DocumentError, DocumentFormat, ExtractedDocument, PartKind, TextBuilder};

/// The notebook in `bytes`. `Ok(None)`: JSON that is not a notebook (no `nbformat`, or neither a `cells` list nor
/// the `worksheets` of nbformat 3). Errors: `Malformed` when the bytes are not JSON.
pub fn extract_notebook(bytes: &[u8]) -> Result<Option<ExtractedDocument>, DocumentError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|error| {
        DocumentError::malformed(format!("the notebook is not valid JSON: {error}"))
    })?;
    let Some(cells) = cells_of(&value) else {
        return Ok(None);
    };
    let mut out = TextBuilder::new();
    for (index, cell) in cells.into_iter().enumerate() {
        let number = index as u32 + 1;
        let kind = cell
            .get("cell_type")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let count = cell
            .get("execution_count")
            .or_else(|| cell.get("prompt_number"))
            .and_then(Value::as_u64);
        let marker = match count {
            Some(count) if kind == "code" => {
                format!("# [cell {number}] {kind} (execution {count})")
            }
            _ => format!("# [cell {number}] {kind}"),
        };
        out.begin_part(PartKind::Cell, number, None, &marker);
        // nbformat 3 keeps a code cell's source in `input`.
        let source = joined(cell.get("source").or_else(|| cell.get("input")));
        if !source.is_empty() {
            out.line(source.strip_suffix('\n').unwrap_or(&source));
        }
        if let Some(outputs) = cell.get("outputs").and_then(Value::as_array) {
            for output in outputs {
                write_output(&mut out, output);
            }
        }
    }
    Ok(Some(out.finish(DocumentFormat::Ipynb)))
}

/// The cells of the notebook `value`: its `cells` (nbformat 4), or the cells of each of its `worksheets` in order
/// (nbformat 3). `None` when `value` has no `nbformat` or neither list.
fn cells_of(value: &Value) -> Option<Vec<&Value>> {
    value.get("nbformat")?;
    if let Some(cells) = value.get("cells").and_then(Value::as_array) {
        return Some(cells.iter().collect());
    }
    let worksheets = value.get("worksheets").and_then(Value::as_array)?;
    Some(
        worksheets
            .iter()
            .filter_map(|sheet| sheet.get("cells").and_then(Value::as_array))
            .flatten()
            .collect(),
    )
}

/// The source of each cell, in order (nbformat 3's `input` for a code cell), when `bytes` are a notebook's JSON;
/// `None` for anything else.
pub fn cell_sources(bytes: &[u8]) -> Option<Vec<String>> {
    let value: Value = serde_json::from_slice(bytes).ok()?;
    let cells = cells_of(&value)?;
    Some(
        cells
            .into_iter()
            .map(|cell| joined(cell.get("source").or_else(|| cell.get("input"))))
            .collect(),
    )
}

/// Whether `bytes` are a notebook's JSON (an object with `nbformat` and its cells), whatever its file is named.
pub fn is_notebook(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes)
        .map(|value| cells_of(&value).is_some())
        .unwrap_or(false)
}

/// `text` as a terminal shows it: on each line, a carriage return moves back to the line's start and what follows
/// overwrites what was there (`50%\r100%` is `100%`, `12345\rab` is `ab345`); `\r\n` ends a line.
pub fn overwrite_carriage_returns(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let mut shown: Vec<char> = Vec::new();
        let mut column = 0;
        for character in line.chars() {
            if character == '\r' {
                column = 0;
            } else if let Some(slot) = shown.get_mut(column) {
                *slot = character;
                column += 1;
            } else {
                shown.push(character);
                column += 1;
            }
        }
        out.extend(shown);
    }
    out
}

/// A notebook string field: a string, or a list of strings joined.
fn joined(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn write_text(out: &mut TextBuilder, text: &str) {
    let cleaned = strip_ansi(text);
    let trimmed = cleaned.strip_suffix('\n').unwrap_or(&cleaned);
    if !trimmed.is_empty() {
        out.line(trimmed);
    }
}

fn write_output(out: &mut TextBuilder, output: &Value) {
    match output
        .get("output_type")
        .and_then(Value::as_str)
        .unwrap_or("")
    {
        "stream" => {
            // nbformat 3 names the stream in `stream`.
            let name = output
                .get("name")
                .or_else(|| output.get("stream"))
                .and_then(Value::as_str)
                .unwrap_or("stream");
            out.line(&format!("[{name}]"));
            write_text(
                out,
                &overwrite_carriage_returns(&joined(output.get("text"))),
            );
        }
        // nbformat 3 calls an error `pyerr`.
        "error" | "pyerr" => {
            let ename = output
                .get("ename")
                .and_then(Value::as_str)
                .unwrap_or("Error");
            let evalue = output.get("evalue").and_then(Value::as_str).unwrap_or("");
            out.line(&format!("[error] {}: {}", ename, strip_ansi(evalue)));
            if let Some(lines) = output.get("traceback").and_then(Value::as_array) {
                for line in lines.iter().filter_map(Value::as_str) {
                    write_text(out, line);
                }
            }
        }
        kind => {
            let count = output
                .get("execution_count")
                .or_else(|| output.get("prompt_number"))
                .and_then(Value::as_u64);
            // nbformat 3 calls a result `pyout`.
            let label = match count {
                Some(count) if kind == "execute_result" || kind == "pyout" => {
                    format!("[result {count}]")
                }
                _ => format!("[{}]", if kind.is_empty() { "output" } else { kind }),
            };
            out.line(&label);
            let v3;
            let data = match output.get("data").and_then(Value::as_object) {
                Some(data) => data,
                None => {
                    v3 = v3_data(output);
                    &v3
                }
            };
            let has_plain = data.contains_key("text/plain");
            // text/plain first, then the rest by name: the same order whatever map the JSON parser keeps.
            let mut entries: Vec<(&String, &Value)> = data.iter().collect();
            entries.sort_by_key(|(mime, _)| (mime.as_str() != "text/plain", mime.as_str()));
            for (mime, value) in entries {
                let content = joined(Some(value));
                if mime == "text/plain" {
                    write_text(out, &content);
                } else if is_binary_mime(mime) {
                    out.line(&format!(
                        "[{mime} output omitted: {} bytes]",
                        base64_decoded_len(&content)
                    ));
                } else if !has_plain {
                    // JSON outputs (widgets, `application/json`) are objects, not text: their size as JSON.
                    let size = match value {
                        Value::String(_) | Value::Array(_) => content.len(),
                        other => other.to_string().len(),
                    };
                    out.line(&format!("[{mime} output omitted: {size} bytes]"));
                }
            }
        }
    }
}

/// The data of an nbformat 3 output, kept under short keys on the output itself (`text`, `png`, `html`), by MIME
/// type.
fn v3_data(output: &Value) -> serde_json::Map<String, Value> {
    const KEYS: [(&str, &str); 8] = [
        ("text", "text/plain"),
        ("png", "image/png"),
        ("jpeg", "image/jpeg"),
        ("svg", "image/svg+xml"),
        ("html", "text/html"),
        ("latex", "text/latex"),
        ("javascript", "application/javascript"),
        ("json", "application/json"),
    ];
    KEYS.iter()
        .filter_map(|(key, mime)| Some((mime.to_string(), output.get(*key)?.clone())))
        .collect()
}

/// Whether an output of `mime` is binary data kept as base64 in the notebook.
fn is_binary_mime(mime: &str) -> bool {
    (mime.starts_with("image/") && mime != "image/svg+xml")
        || mime.starts_with("audio/")
        || mime.starts_with("video/")
        || mime == "application/pdf"
        || mime == "application/octet-stream"
}

/// Bytes that the base64 text `text` decodes to (whitespace ignored).
fn base64_decoded_len(text: &str) -> u64 {
    let symbols = text
        .bytes()
        .filter(|byte| !byte.is_ascii_whitespace())
        .count() as u64;
    let padding = text
        .bytes()
        .rev()
        .filter(|byte| !byte.is_ascii_whitespace())
        .take_while(|byte| *byte == b'=')
        .count() as u64;
    (symbols / 4 * 3).saturating_sub(padding.min(2))
}

/// `text` with ANSI escape sequences removed (CSI `ESC [ ... final`, OSC `ESC ] ... BEL` or `ESC \`, and two-byte
/// escapes).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        if character != '\u{1b}' {
            out.push(character);
            continue;
        }
        match characters.next() {
            Some('[') => {
                for next in characters.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&next) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(next) = characters.next() {
                    if next == '\u{7}' {
                        break;
                    }
                    if next == '\u{1b}' && characters.peek() == Some(&'\\') {
                        characters.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carriage_returns_overwrite_the_line_as_a_terminal_shows_it() {
        assert_eq!(
            overwrite_carriage_returns("10%\r50%\r100%\ndone\n"),
            "100%\ndone\n"
        );
        assert_eq!(overwrite_carriage_returns("12345\rab"), "ab345");
        assert_eq!(overwrite_carriage_returns("one\r\ntwo\r\n"), "one\ntwo\n");
        assert_eq!(overwrite_carriage_returns("é\rx"), "x");
        assert_eq!(overwrite_carriage_returns("plain\n"), "plain\n");
    }

    #[test]
    fn a_json_output_is_named_with_its_size_as_json() {
        let notebook = br#"{"nbformat": 4, "cells": [{"cell_type": "code", "source": "w", "outputs": [{"output_type": "display_data", "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "abc"}}}]}]}"#;
        let document = extract_notebook(notebook).unwrap().unwrap();
        assert_eq!(
            document.text,
            "# [cell 1] code\nw\n[display_data]\n[application/vnd.jupyter.widget-view+json output omitted: 18 bytes]\n"
        );
    }

    #[test]
    fn notebook_json_is_told_from_other_json() {
        assert!(is_notebook(br#"{"nbformat": 4, "cells": []}"#));
        assert!(is_notebook(
            br#"{"nbformat": 3, "worksheets": [{"cells": []}]}"#
        ));
        assert!(!is_notebook(br#"{"cells": []}"#));
        assert!(!is_notebook(b"# [cell 1] code\nprint(1)\n"));
    }

    #[test]
    fn ansi_colours_are_removed_from_tracebacks() {
        assert_eq!(
            strip_ansi("\u{1b}[0;31mValueError\u{1b}[0m: bad"),
            "ValueError: bad"
        );
        assert_eq!(strip_ansi("a\u{1b}]0;title\u{7}b"), "ab");
    }

    #[test]
    fn base64_sizes_are_the_decoded_bytes() {
        assert_eq!(base64_decoded_len("QUJD"), 3);
        assert_eq!(base64_decoded_len("QUI=\n"), 2);
        assert_eq!(base64_decoded_len("QQ=="), 1);
    }
}
