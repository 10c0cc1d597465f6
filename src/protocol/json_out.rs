//! Writing an answer as JSON text: byte for byte what `serde_json::to_string` writes, with each string's stretches
//! that need no escape found sixteen bytes at a time.
//!
//! serde_json looks up every byte of a string in a table before it copies it. An answer carries its window as a
//! string, and in wasm that lookup was a third of a 2,000-line page's answer (`docs/benchmarks.md`).

use std::fmt::Write as _;

use serde_json::Value;

/// `value` as compact JSON text, as `serde_json::to_string` writes it
/// (`json_text_is_what_serde_json_writes_for_any_value`).
pub fn json_text(value: &Value) -> String {
    let mut text = String::with_capacity(text_capacity(value));
    write_value(&mut text, value);
    text
}

/// Bytes to reserve for `value`'s text: its strings' bytes and a little for the rest (the text grows past it
/// when it must).
fn text_capacity(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len() + 2,
        Value::Array(items) => items.iter().map(text_capacity).sum::<usize>() + items.len() + 2,
        Value::Object(fields) => fields
            .iter()
            .map(|(key, field)| key.len() + 4 + text_capacity(field))
            .sum::<usize>()
            .saturating_add(2),
        _ => 8,
    }
}

fn write_value(text: &mut String, value: &Value) {
    match value {
        Value::Null => text.push_str("null"),
        Value::Bool(true) => text.push_str("true"),
        Value::Bool(false) => text.push_str("false"),
        // serde_json's `Display` of a number is its serializer's (itoa and ryu).
        Value::Number(number) => {
            let _ = write!(text, "{number}");
        }
        Value::String(string) => write_string(text, string),
        Value::Array(items) => {
            text.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    text.push(',');
                }
                write_value(text, item);
            }
            text.push(']');
        }
        Value::Object(fields) => {
            text.push('{');
            for (index, (key, field)) in fields.iter().enumerate() {
                if index > 0 {
                    text.push(',');
                }
                write_string(text, key);
                text.push(':');
                write_value(text, field);
            }
            text.push('}');
        }
    }
}

/// Whether `byte` needs an escape in a JSON string: a control character (below 0x20), `"` or `\`.
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The bytes at the start of `bytes` that need no escape.
///
/// In wasm with simd128 (the component's build), sixteen bytes at a time: three vector compares and one test a
/// chunk. Elsewhere (the native tests and tools), eight at a time in a word ([`word_needs_escape`]). A function of
/// its own, so the loop's values stay in registers.
#[inline(never)]
fn clean_prefix(bytes: &[u8]) -> usize {
    let mut clean = 0;
    while let Some(chunk) = bytes
        .get(clean..clean + CHUNK_BYTES)
        .and_then(|chunk| <[u8; CHUNK_BYTES]>::try_from(chunk).ok())
    {
        if chunk_needs_escape(chunk) {
            break;
        }
        clean += CHUNK_BYTES;
    }
    let rest = bytes.get(clean..).unwrap_or_default();
    clean + rest.iter().take_while(|&&byte| !needs_escape(byte)).count()
}

/// Bytes of a chunk, which [`clean_prefix`] tests at a time.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
const CHUNK_BYTES: usize = 16;
/// Bytes of a chunk, which [`clean_prefix`] tests at a time.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
const CHUNK_BYTES: usize = 8;

/// Whether any byte of `chunk` needs an escape, by simd128's compares.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn chunk_needs_escape(chunk: [u8; CHUNK_BYTES]) -> bool {
    use core::arch::wasm32::{u8x16_eq, u8x16_lt, u8x16_splat, v128_any_true, v128_or};
    let [b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15] = chunk;
    let bytes = core::arch::wasm32::u8x16(
        b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15,
    );
    let control = u8x16_lt(bytes, u8x16_splat(0x20));
    let quote = u8x16_eq(bytes, u8x16_splat(b'"'));
    let backslash = u8x16_eq(bytes, u8x16_splat(b'\\'));
    v128_any_true(v128_or(control, v128_or(quote, backslash)))
}

/// Whether any byte of `chunk` needs an escape, as a word ([`word_needs_escape`]).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn chunk_needs_escape(chunk: [u8; CHUNK_BYTES]) -> bool {
    word_needs_escape(u64::from_le_bytes(chunk))
}

/// Each byte of a word set to 0x01.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
const ONES: u64 = u64::from_le_bytes([0x01; 8]);
/// Each byte of a word set to 0x80.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// Whether any byte of `word` needs an escape in a JSON string: a control character (below 0x20), `"` or `\`.
/// Each test is exact as a yes or no: a byte below n sets its high bit in `(word - n) & !word`, and no byte at n or
/// above makes the result non-zero on its own.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn word_needs_escape(word: u64) -> bool {
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let zero_in = |word: u64| word.wrapping_sub(ONES) & !word;
    (below_space | zero_in(quote) | zero_in(backslash)) & HIGHS != 0
}

/// The escape serde_json writes for `byte`, if it needs one.
fn escape_of(byte: u8) -> Option<&'static str> {
    const CONTROL: [&str; 0x20] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011",
        "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019",
        "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    match byte {
        b'"' => Some("\\\""),
        b'\\' => Some("\\\\"),
        _ => CONTROL.get(usize::from(byte)).copied(),
    }
}

/// `string` as a JSON string: quoted, with `"`, `\` and the control characters escaped.
fn write_string(text: &mut String, string: &str) {
    text.push('"');
    let bytes = string.as_bytes();
    // `copied` is where the bytes not yet written start; escapes are ASCII, so every cut is a character boundary.
    let (mut copied, mut at) = (0, 0);
    while at < bytes.len() {
        at += clean_prefix(bytes.get(at..).unwrap_or_default());
        let Some(&byte) = bytes.get(at) else {
            break;
        };
        if let Some(escape) = escape_of(byte) {
            text.push_str(string.get(copied..at).unwrap_or_default());
            // The common escapes are two characters: pushed as such, not copied from the table.
            match escape.as_bytes() {
                [b'\\', letter] => {
                    text.push('\\');
                    text.push(char::from(*letter));
                }
                _ => text.push_str(escape),
            }
            copied = at + 1;
        }
        at += 1;
    }
    text.push_str(string.get(copied..).unwrap_or_default());
    text.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn json_text_is_what_serde_json_writes() {
        let every_control: String = (0u8..0x20).map(char::from).collect();
        let value = json!({
            "status": "ok",
            "text": format!("1|a \"quoted\" \\ path\t{every_control}\u{7f} é 漢 😀 </script>\n"),
            "numbers": [0, 1, -1, u64::MAX, i64::MIN, 1.5, -0.25, 1e300, 2.0, 0.1],
            "nested": {"empty": {}, "list": [], "null": null, "yes": true, "no": false},
            "": "",
        });
        assert_eq!(json_text(&value), serde_json::to_string(&value).unwrap());
    }

    #[test]
    fn an_escape_is_found_at_every_place_in_a_chunk() {
        for length in 0..50 {
            for place in 0..length {
                for escaped in ['"', '\\', '\n', '\u{1}', '\u{1f}'] {
                    let mut text: String = "abcdefgh".chars().cycle().take(length).collect();
                    text.replace_range(place..place + 1, &escaped.to_string());
                    let value = Value::String(text);
                    assert_eq!(json_text(&value), serde_json::to_string(&value).unwrap());
                }
            }
        }
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(|float| json!(float)),
            "\\PC{0,40}".prop_map(Value::String),
            proptest::collection::vec(any::<char>(), 0..80)
                .prop_map(|chars| Value::String(chars.into_iter().collect())),
            "[ -~\\t\\n\\r\\u{0}-\\u{1f}\"\\\\é漢]{0,200}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                proptest::collection::vec(("\\PC{0,12}", inner), 0..8)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn json_text_is_what_serde_json_writes_for_any_value(value in any_value()) {
            prop_assert_eq!(json_text(&value), serde_json::to_string(&value).unwrap());
        }
    }
}
