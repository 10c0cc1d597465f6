//! MCP replies: a `tool_call` with `"reply": "mcp"` is answered as an MCP `CallToolResult`, so an MCP server is
//! a pipe. The window travels once, in the one text block every client shows the model; the structured content
//! carries the answer's fields without the body (no `content`, `text`, `hint`, `message` or `warnings`: they are
//! all in the text) and with its lists bounded, so a reply is its text plus a fixed allowance. Why the text is
//! not repeated in the structured content: docs/protocol.md, "MCP replies".

use serde_json::{json, Map, Value};

/// The output cap of Claude Code, the MCP client most people use: a tool result over 25,000 tokens
/// (`MAX_MCP_OUTPUT_TOKENS`) is saved to a file instead of shown.
pub const CLAUDE_CODE_CAP_TOKENS: u32 = 25_000;

/// The token cap an MCP server's windows get by default: under [`CLAUDE_CODE_CAP_TOKENS`] with the default
/// headroom (windows aim at 90% of it, 18,000 tokens) and room for the reply's fields ([`FIELDS_ALLOWANCE_BYTES`]).
pub const MCP_TOKEN_CAP: u32 = 20_000;

/// The most `document.parts` a reply lists: the parts the window touches and the one after it, from the first.
pub const MAX_LISTED_PARTS: usize = 24;

/// The most `clamped_lines` a reply lists (the text's clamp markers name every one).
pub const MAX_LISTED_CLAMPS: usize = 64;

/// The most `document.empty_pages` ranges a reply lists (the text's warning names them).
pub const MAX_LISTED_EMPTY_RANGES: usize = 24;

/// The bytes of structured content a reply carries at most: the fixed fields and every list at its bound. A
/// reply's JSON is at most its text (escaped) plus this.
pub const FIELDS_ALLOWANCE_BYTES: usize = 12 * 1024;

/// The keys of a `read_files` file a reply keeps: what it is (a listing's count, an image's size and region) and
/// its cursor; its hint in the text says the rest.
const FILE_KEYS: &[&str] = &[
    "requested",
    "status",
    "content_returned",
    "path",
    "start_line",
    "end_line",
    "total_lines",
    "truncated",
    "truncated_by",
    "next_offset",
    "next_column",
    "listing",
    "total_entries",
    "image",
    "error",
];

/// The bytes of a `read_files` reply's `files` at most, and half as many for `left_out`; past them the lists end
/// and `files_total` or `left_out_total` counts them (the text names every file).
pub const FILE_LIST_ALLOWANCE_BYTES: usize = FIELDS_ALLOWANCE_BYTES / 2;

/// The keys of an answer that the reply's text already carries.
const IN_THE_TEXT: &[&str] = &["content", "text", "hint", "message", "warnings"];

/// Whether `request` (a request object) asks for an MCP reply: a `tool_call` with `"reply": "mcp"`.
pub fn wants_mcp_reply(request: &Value) -> bool {
    request.get("op").and_then(Value::as_str) == Some("tool_call")
        && request.get("reply").and_then(Value::as_str) == Some("mcp")
}

/// `answer` (a tool call's answer, which carries `text`) as an MCP `CallToolResult`:
/// `{"content":[{"type":"text","text"}],"structuredContent":{...},"isError"}`, `isError` when its `status` is
/// `error`. The structured content is the answer without what the text carries, its lists bounded. An image's
/// answer adds an `image` content block after the text (`data`, base64, and `mimeType`), and its `data` leaves the
/// structured content (it would be sent twice).
pub fn call_tool_result(answer: Value) -> Value {
    let Value::Object(mut fields) = answer else {
        return answer;
    };
    let text = match fields.shift_remove("text") {
        Some(Value::String(text)) => text,
        _ => String::new(),
    };
    let is_error = fields.get("status").and_then(Value::as_str) == Some("error");
    let mut content = vec![json!({ "type": "text", "text": text })];
    content.extend(image_block(&mut fields));
    for key in IN_THE_TEXT {
        fields.shift_remove(*key);
    }
    // A read_many answer: each file's window is in the text already, and its picture goes in a block of its own;
    // each file keeps its cursor, and the lists end at their allowance.
    if let Some(Value::Array(files)) = fields.get_mut("files") {
        for file in files.iter_mut().filter_map(Value::as_object_mut) {
            content.extend(image_block(file));
            file.retain(|key, _| FILE_KEYS.contains(&key.as_str()));
        }
    }
    bound_list(
        &mut fields,
        "files",
        "files_total",
        FILE_LIST_ALLOWANCE_BYTES,
    );
    bound_list(
        &mut fields,
        "left_out",
        "left_out_total",
        FILE_LIST_ALLOWANCE_BYTES / 2,
    );
    let window = (
        fields.get("start_line").and_then(Value::as_u64),
        fields.get("end_line").and_then(Value::as_u64),
    );
    if let Some(Value::Array(clamped)) = fields.get_mut("clamped_lines") {
        if clamped.len() > MAX_LISTED_CLAMPS {
            let total = clamped.len();
            clamped.truncate(MAX_LISTED_CLAMPS);
            fields.insert("clamped_lines_total".into(), json!(total));
        }
    }
    if let Some(Value::Object(document)) = fields.get_mut("document") {
        bound_document(document, window);
    }
    json!({
        "content": content,
        "structuredContent": Value::Object(fields),
        "isError": is_error,
    })
}

/// Ends the list at `key` before the item that would take its JSON past `allowance_bytes` (the first item is always
/// kept), and then counts the whole list in `total_key`.
fn bound_list(fields: &mut Map<String, Value>, key: &str, total_key: &str, allowance_bytes: usize) {
    let Some(Value::Array(items)) = fields.get_mut(key) else {
        return;
    };
    let total = items.len();
    let mut bytes = 0usize;
    let kept = items
        .iter()
        .position(|item| {
            bytes = bytes.saturating_add(item.to_string().len() + 1);
            bytes > allowance_bytes
        })
        .unwrap_or(total)
        .max(1);
    if kept < total {
        items.truncate(kept);
        fields.insert(total_key.into(), json!(total));
    }
}

/// An image answer's picture as an MCP `image` content block, its `data` taken out of `fields`; `None` for any
/// other answer.
fn image_block(fields: &mut Map<String, Value>) -> Option<Value> {
    let Some(Value::String(data)) = fields.shift_remove("data") else {
        return None;
    };
    let mime_type = fields
        .get("image")
        .and_then(|image| image.get("mime_type"))
        .cloned()
        .unwrap_or(Value::Null);
    Some(json!({ "type": "image", "data": data, "mimeType": mime_type }))
}

/// Bounds a document's map for a reply: `parts_total` (the count of parts), `parts` the ones from the part the
/// window starts in to the one after the part it ends in, at most [`MAX_LISTED_PARTS`]; `empty_pages` at most
/// [`MAX_LISTED_EMPTY_RANGES`] ranges, with `empty_pages_total`.
fn bound_document(document: &mut Map<String, Value>, (start, end): (Option<u64>, Option<u64>)) {
    if let Some(Value::Array(parts)) = document.get_mut("parts") {
        let total = parts.len();
        let first_line = |part: &Value| part.get("first_line").and_then(Value::as_u64).unwrap_or(0);
        let start = start.unwrap_or(1).max(1);
        let end = end.unwrap_or(start).max(start);
        // The part the window starts in is the last that starts at or before its first line.
        let from = parts
            .iter()
            .rposition(|part| first_line(part) <= start)
            .unwrap_or(0);
        let through = parts
            .iter()
            .rposition(|part| first_line(part) <= end)
            .unwrap_or(from)
            .max(from);
        let listed: Vec<Value> = parts
            .iter()
            .skip(from)
            .take((through - from + 2).min(MAX_LISTED_PARTS))
            .cloned()
            .collect();
        *parts = listed;
        document.insert("parts_total".into(), json!(total));
    }
    if let Some(Value::Array(ranges)) = document.get_mut("empty_pages") {
        if ranges.len() > MAX_LISTED_EMPTY_RANGES {
            let total = ranges.len();
            ranges.truncate(MAX_LISTED_EMPTY_RANGES);
            document.insert("empty_pages_total".into(), json!(total));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(number: u64, first_line: u64) -> Value {
        json!({"kind": "page", "number": number, "first_line": first_line, "characters": 10})
    }

    #[test]
    fn the_body_goes_once_in_the_text_and_the_fields_stay() {
        let answer = json!({
            "status": "ok", "content_returned": true, "content": "1|a\n", "start_line": 1, "end_line": 1,
            "next_offset": 2, "hint": "Showing line 1 of 2.", "warnings": ["w"], "text": "1|a\n\nShowing line 1 of 2.\nw",
        });
        let reply = call_tool_result(answer);
        let keys: Vec<&str> = reply["structuredContent"]
            .as_object()
            .map(|fields| fields.keys().map(String::as_str).collect())
            .unwrap_or_default();
        // The fields keep the answer's order: taking the text's keys out does not shuffle the rest.
        assert_eq!(
            keys,
            [
                "status",
                "content_returned",
                "start_line",
                "end_line",
                "next_offset"
            ]
        );
        assert_eq!(
            reply,
            json!({
                "content": [{"type": "text", "text": "1|a\n\nShowing line 1 of 2.\nw"}],
                "structuredContent": {"status": "ok", "content_returned": true, "start_line": 1, "end_line": 1, "next_offset": 2},
                "isError": false,
            })
        );
        let error = json!({"status": "error", "content_returned": false, "text": "gone", "error": {"kind": "not_found", "message": "gone"}});
        assert_eq!(call_tool_result(error)["isError"], json!(true));
    }

    #[test]
    fn an_image_goes_in_an_image_block_after_its_text() {
        let answer = json!({
            "status": "ok", "content_returned": true, "path": "/w/a.png",
            "image": {"mime_type": "image/png", "width": 2, "height": 1}, "data": "iVBORw0K",
            "hint": "a.png: a 2 x 1 PNG image.", "text": "a.png: a 2 x 1 PNG image.",
        });
        assert_eq!(
            call_tool_result(answer),
            json!({
                "content": [
                    {"type": "text", "text": "a.png: a 2 x 1 PNG image."},
                    {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"},
                ],
                "structuredContent": {"status": "ok", "content_returned": true, "path": "/w/a.png",
                                      "image": {"mime_type": "image/png", "width": 2, "height": 1}},
                "isError": false,
            })
        );
    }

    #[test]
    fn a_documents_map_lists_the_parts_around_the_window() {
        let parts: Vec<Value> = (1..=300).map(|n| part(n, (n - 1) * 10 + 1)).collect();
        // Lines 95-130 are in pages 10-13: the reply lists pages 10-14 of 300.
        let answer = json!({"status": "ok", "start_line": 95, "end_line": 130, "text": "",
                            "document": {"format": "pdf", "parts": parts, "pages": 300}});
        let structured = &call_tool_result(answer)["structuredContent"];
        let numbers: Vec<u64> = structured["document"]["parts"]
            .as_array()
            .map(|parts| parts.iter().filter_map(|p| p["number"].as_u64()).collect())
            .unwrap_or_default();
        assert_eq!(numbers, [10, 11, 12, 13, 14]);
        assert_eq!(structured["document"]["parts_total"], json!(300));
        // A window over 100 pages lists 24 of them.
        let answer = json!({"status": "ok", "start_line": 1, "end_line": 1000, "text": "",
                            "document": {"format": "pdf", "parts": (1..=300).map(|n| part(n, (n - 1) * 10 + 1)).collect::<Vec<_>>()}});
        let structured = &call_tool_result(answer)["structuredContent"];
        assert_eq!(
            structured["document"]["parts"].as_array().map(Vec::len),
            Some(24)
        );
        assert_eq!(structured["document"]["parts"][0]["number"], json!(1));
    }

    #[test]
    fn many_clamped_lines_are_listed_up_to_the_bound() {
        let clamped: Vec<Value> = (1..=100)
            .map(|line| json!({"line": line, "shown_chars": 16, "total_chars": 40, "next_column": 16}))
            .collect();
        let answer = json!({"status": "ok", "text": "", "clamped_lines": clamped});
        let structured = &call_tool_result(answer)["structuredContent"];
        assert_eq!(
            structured["clamped_lines"].as_array().map(Vec::len),
            Some(64)
        );
        assert_eq!(structured["clamped_lines"][63]["line"], json!(64));
        assert_eq!(structured["clamped_lines_total"], json!(100));
    }

    #[test]
    fn a_read_files_reply_keeps_each_files_cursor_and_ends_its_lists_at_their_allowance() {
        let file = |n: u64| {
            json!({"requested": format!("f{n:03}.txt"), "status": "ok", "content_returned": true,
                   "path": format!("/w/f{n:03}.txt"), "start_line": 1, "start_column": 0, "end_line": 2,
                   "lines_returned": 2, "total_lines": 9, "truncated": true, "truncated_by": ["limit"],
                   "next_offset": 3, "next_column": null, "clamped_lines": [], "file_size": 90,
                   "encoding": {"encoding": "utf8"}, "budget": {"unit": "characters", "limit": 9, "used": 4}})
        };
        let left_out: Vec<Value> = (0..150)
            .map(|n| json!({"path": format!("/w/g{n:03}.txt"), "arguments": {"path": format!("/w/g{n:03}.txt")}}))
            .collect();
        let answer = json!({"status": "ok", "content_returned": true, "files": (0..100).map(file).collect::<Vec<_>>(),
                            "left_out": left_out, "hint": "h", "text": "t"});
        let reply = call_tool_result(answer);
        let fields = &reply["structuredContent"];
        let files = fields["files"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        assert_eq!(
            files.first(),
            Some(
                &json!({"requested": "f000.txt", "status": "ok", "content_returned": true, "path": "/w/f000.txt",
                         "start_line": 1, "end_line": 2, "total_lines": 9, "truncated": true,
                         "truncated_by": ["limit"], "next_offset": 3, "next_column": null})
            )
        );
        // 6 KiB holds 29 of these files (204 bytes each and a comma), 3 KiB 52 left-out paths (57 and a comma).
        assert_eq!(
            (files.len(), fields["files_total"].clone()),
            (29, json!(100))
        );
        let listed = fields["left_out"].as_array().map_or(0, Vec::len);
        assert_eq!((listed, fields["left_out_total"].clone()), (52, json!(150)));
        assert!(fields.to_string().len() <= FIELDS_ALLOWANCE_BYTES);
    }

    #[test]
    fn only_a_tool_call_asking_for_it_gets_an_mcp_reply() {
        assert!(wants_mcp_reply(&json!({"op": "tool_call", "reply": "mcp"})));
        assert!(!wants_mcp_reply(&json!({"op": "tool_call"})));
        assert!(!wants_mcp_reply(&json!({"op": "read", "reply": "mcp"})));
    }
}
