//! Jupyter notebooks (nbformat 4): each cell opened by `# [cell N] kind (execution E)`, its source, then for code
//! cells their outputs: stream text, `text/plain` results, error tracebacks with ANSI escape sequences removed;
//! images and other binary outputs become one line naming the MIME type and size, never base64.

use serde_json::Value;

use super::{DocumentError, DocumentFormat, ExtractedDocument, PartKind, TextBuilder};

/// The notebook in `bytes`. `Ok(None)`: JSON that is not a notebook (no `cells` list and `nbformat`). Errors:
/// `Malformed` when the bytes are not JSON or a cell is not an object.
pub fn extract_notebook(bytes: &[u8]) -> Result<Option<ExtractedDocument>, DocumentError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|error| {
        DocumentError::malformed(format!("the notebook is not valid JSON: {error}"))
    })?;
    let (Some(cells), Some(_)) = (
        value.get("cells").and_then(Value::as_array),
        value.get("nbformat"),
    ) else {
        return Ok(None);
    };
    let mut out = TextBuilder::new();
    for (index, cell) in cells.iter().enumerate() {
        let number = index as u32 + 1;
        let kind = cell
            .get("cell_type")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let marker = match cell.get("execution_count").and_then(Value::as_u64) {
            Some(count) if kind == "code" => {
                format!("# [cell {number}] {kind} (execution {count})")
            }
            _ => format!("# [cell {number}] {kind}"),
        };
        out.begin_part(PartKind::Cell, number, None, &marker);
        let source = joined(cell.get("source"));
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
            let name = output
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("stream");
            out.line(&format!("[{name}]"));
            write_text(out, &joined(output.get("text")));
        }
        "error" => {
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
            let label = match output.get("execution_count").and_then(Value::as_u64) {
                Some(count) if kind == "execute_result" => format!("[result {count}]"),
                _ => format!("[{}]", if kind.is_empty() { "output" } else { kind }),
            };
            out.line(&label);
            let Some(data) = output.get("data").and_then(Value::as_object) else {
                return;
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
                    out.line(&format!("[{mime} output omitted: {} bytes]", content.len()));
                }
            }
        }
    }
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
