//! The requests of the capture ops (`capture_begin`, `capture_chunk`, `capture_end`), parsed from their JSON
//! fields: a command's output windowed as it streams (docs/behaviour/capture.md).

use serde_json::{Map, Value};

use super::json_in::Fields;
use crate::capture::CaptureInput;
use crate::error::ReadError;

/// The fields of `capture_end`: what the host knows of how the command ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaptureEnd {
    /// `exit_status`: the command's exit status, when known (a signal's death is 128 + the signal).
    pub exit_status: Option<i32>,
    /// `timeout_seconds`: the host killed the command at this timeout, so the output ends there.
    pub timeout_seconds: Option<f64>,
    /// `hint_notes`: sentences of the host's own (its options), appended to the hint.
    pub hint_notes: Vec<String>,
    /// `spill_notes`: the host's sentences about the spill (how to reach its directory), appended to the hint only
    /// when a spill was written.
    pub spill_notes: Vec<String>,
    /// `warnings`: the host's warnings (a spill it could not set up), added to the answer's.
    pub warnings: Vec<String>,
}

/// `capture_begin`'s fields, every one optional. Ranges the capture checks itself (a window under 200
/// characters) are left to it: it warns and uses the default.
pub(super) fn capture_config(fields: &Fields) -> Result<CaptureInput, ReadError> {
    let window_chars = fields
        .opt_u64("window_chars")?
        .map(|chars| {
            u32::try_from(chars).map(u64::from).map_err(|_| {
                ReadError::invalid(format!(
                    "`window_chars` must be at most 4294967295 (got {chars})"
                ))
            })
        })
        .transpose()?;
    let head_share = match fields.present("head_share") {
        None => None,
        Some(value) => Some(value.as_f64().ok_or_else(|| {
            ReadError::invalid(format!(
                "`head_share` must be a number from 0 to 0.9, not {value}"
            ))
        })?),
    };
    let spill_dir = match fields.present("spill_dir") {
        None => None,
        Some(Value::String(dir)) => Some(dir.clone()),
        Some(value) => {
            return Err(ReadError::invalid(format!(
                "`spill_dir` must be a guest path (a string), not {value}"
            )))
        }
    };
    Ok(CaptureInput {
        window_chars,
        head_share,
        spill_dir,
        spill_cap_chars: fields.opt_u64("spill_cap_chars")?,
    })
}

/// Standard base64 (RFC 4648), with or without `=` padding.
const BASE64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

/// `capture_chunk`'s bytes: `text` (UTF-8 text) or `base64` (standard base64), exactly one of them.
pub(super) fn chunk(map: &Map<String, Value>) -> Result<Vec<u8>, ReadError> {
    use base64::Engine as _;
    match (map.get("text"), map.get("base64")) {
        (Some(Value::String(text)), None) => Ok(text.clone().into_bytes()),
        (None, Some(Value::String(encoded))) => {
            let compact: String = encoded
                .chars()
                .filter(|c| !c.is_ascii_whitespace())
                .collect();
            BASE64
                .decode(compact.as_bytes())
                .map_err(|why| ReadError::invalid(format!("`base64` is not valid base64: {why}")))
        }
        (Some(_), Some(_)) => Err(ReadError::invalid("give `text` or `base64`, not both")),
        (None, None) => Err(ReadError::invalid(
            "`capture_chunk` needs `text` (a string) or `base64` (the bytes in base64)",
        )),
        _ => Err(ReadError::invalid("`text` and `base64` must be strings")),
    }
}

/// `capture_end`'s fields, every one optional: `exit_status` (an integer from -2147483648 to 2147483647),
/// `timeout_seconds` (a number over 0), `hint_notes`, `spill_notes` and `warnings` (lists of strings).
pub(super) fn capture_end(fields: &Fields) -> Result<CaptureEnd, ReadError> {
    let exit_status = match fields.present("exit_status") {
        None => None,
        Some(value) => Some(
            value
                .as_i64()
                .and_then(|status| i32::try_from(status).ok())
                .ok_or_else(|| {
                    ReadError::invalid(format!(
                        "`exit_status` must be a 32-bit integer, not {value}"
                    ))
                })?,
        ),
    };
    let timeout_seconds =
        match fields.present("timeout_seconds") {
            None => None,
            Some(value) => Some(value.as_f64().filter(|seconds| *seconds > 0.0).ok_or_else(
                || {
                    ReadError::invalid(format!(
                        "`timeout_seconds` must be a number of seconds over 0, not {value}"
                    ))
                },
            )?),
        };
    Ok(CaptureEnd {
        exit_status,
        timeout_seconds,
        hint_notes: fields.opt_strings("hint_notes")?.unwrap_or_default(),
        spill_notes: fields.opt_strings("spill_notes")?.unwrap_or_default(),
        warnings: fields.opt_strings("warnings")?.unwrap_or_default(),
    })
}
