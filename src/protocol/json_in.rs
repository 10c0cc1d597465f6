//! Reading JSON the way the protocol does: strict about structure (a key given twice is refused, serde_json
//! would keep the last silently), lenient about the numbers models send (`"40"` read as 40 with a note).

use serde_json::{Map, Value};

use crate::error::ReadError;

/// Parses JSON text, refusing an object that gives a key twice: every request line, and a host's config file.
///
/// Errors: serde_json's error for text that is not JSON, or `the key `K` is given twice` with its position.
pub fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    let value: Value = serde_json::from_str(text)?;
    // Parse again with a visitor that sees every key, to find a duplicate.
    let mut deserializer = serde_json::Deserializer::from_str(text);
    serde::de::Deserializer::deserialize_any(&mut deserializer, UniqueKeys)?;
    Ok(value)
}

/// A visitor that walks a JSON value and fails on an object with a duplicate key.
struct UniqueKeys;

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(UniqueKeys)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys {
    type Value = ();
    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(UniqueKeys)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "the key `{key}` is given twice"
                )));
            }
            map.next_value_seed(UniqueKeys)?;
        }
        Ok(())
    }
}

/// How a message names the JSON type of `value` ("a string", "an object", "null").
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `value` as a `u32`, or an `invalid_request` error naming `field` and the largest value.
pub fn to_u32(field: &str, value: u64) -> Result<u32, ReadError> {
    u32::try_from(value).map_err(|_| {
        ReadError::invalid(format!(
            "`{field}` is beyond the largest supported value {} (got {value})",
            u32::MAX
        ))
    })
}

/// A non-negative integer up to `u64::MAX`; an integral float like `5.0` or `1e3` counts as an integer.
///
/// Errors: `invalid_request` naming `field`: not a number, negative, not an integer, beyond `u64`.
pub fn number(field: &str, value: &Value) -> Result<u64, ReadError> {
    let Value::Number(number) = value else {
        return Err(ReadError::invalid(format!(
            "`{field}` must be a non-negative integer, not {}",
            type_name(value)
        )));
    };
    if let Some(n) = number.as_u64() {
        return Ok(n);
    }
    if number.as_i64().is_some() {
        return Err(ReadError::invalid(format!(
            "`{field}` must not be negative (got {number})"
        )));
    }
    // A float: serde_json parses fractions, exponents and integers beyond u64 as f64.
    let float = number.as_f64().unwrap_or(f64::NAN);
    if !float.is_finite() || float.fract() != 0.0 {
        return Err(ReadError::invalid(format!(
            "`{field}` must be an integer (got {number})"
        )));
    }
    if float < 0.0 {
        return Err(ReadError::invalid(format!(
            "`{field}` must not be negative (got {number})"
        )));
    }
    // 2^64 is exactly representable; every integral float below it fits in u64.
    if float >= 18_446_744_073_709_551_616.0 {
        return Err(ReadError::invalid(format!(
            "`{field}` is beyond the largest supported value {} (got {number})",
            u64::MAX
        )));
    }
    Ok(float as u64)
}

/// The fields of one request (or config) object, read with messages that name the op and the field. A field
/// that is `null` counts as absent.
pub struct Fields<'a> {
    /// The op the fields belong to (`read`, or `config` for a config object), for "missing" messages.
    pub op: &'a str,
    /// The object.
    pub map: &'a Map<String, Value>,
}

impl Fields<'_> {
    /// The field's value, unless absent or `null`.
    pub fn present(&self, field: &str) -> Option<&Value> {
        self.map.get(field).filter(|value| !value.is_null())
    }

    /// A required string.
    pub fn string(&self, field: &str) -> Result<String, ReadError> {
        match self.present(field) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(ReadError::invalid(format!(
                "`{field}` must be a string, not {}",
                type_name(other)
            ))),
            None => Err(ReadError::invalid(format!(
                "`{field}` is missing: the `{}` op needs a `{field}` (a string)",
                self.op
            ))),
        }
    }

    /// A required non-negative integer ([`number`]).
    pub fn u64(&self, field: &str) -> Result<u64, ReadError> {
        self.opt_u64(field)?.ok_or_else(|| {
            ReadError::invalid(format!(
                "`{field}` is missing: the `{}` op needs a `{field}` (a non-negative integer)",
                self.op
            ))
        })
    }

    /// An optional non-negative integer ([`number`]).
    pub fn opt_u64(&self, field: &str) -> Result<Option<u64>, ReadError> {
        match self.present(field) {
            None => Ok(None),
            Some(value) => number(field, value).map(Some),
        }
    }

    /// An optional number as models send it: `null`, `""` (or only spaces) absent; a string of ASCII digits read
    /// as its integer, with a note pushed on `notes`; a JSON number as [`number`] reads it; anything else an error
    /// naming `field` and its valid `range` (in words).
    pub fn lenient_u64(
        &self,
        field: &str,
        range: &str,
        notes: &mut Vec<String>,
    ) -> Result<Option<u64>, ReadError> {
        match self.present(field) {
            None => Ok(None),
            Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
            Some(Value::String(text)) => {
                let digits = text.trim();
                match digits.parse::<u64>() {
                    Ok(n) if digits.bytes().all(|byte| byte.is_ascii_digit()) => {
                        notes.push(format!(
                            "`{field}` was the string {text:?}; it was read as the number {n}. Send numbers as JSON numbers."
                        ));
                        Ok(Some(n))
                    }
                    _ => Err(ReadError::invalid(format!(
                        "`{field}` must be {range}, as a JSON number; got the string {text:?}"
                    ))),
                }
            }
            Some(value @ Value::Number(_)) => number(field, value).map(Some).map_err(|error| {
                ReadError::invalid(format!("{} ({field} must be {range})", error.message))
            }),
            Some(other) => Err(ReadError::invalid(format!(
                "`{field}` must be {range}, as a JSON number, not {}",
                type_name(other)
            ))),
        }
    }

    /// An optional boolean as models send it: `null`, `""` (or only spaces) absent; the strings `"true"` and
    /// `"false"` read as their boolean, with a note; anything else an error naming `field`.
    pub fn lenient_bool(
        &self,
        field: &str,
        notes: &mut Vec<String>,
    ) -> Result<Option<bool>, ReadError> {
        match self.present(field) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
            Some(Value::String(text)) if matches!(text.trim(), "true" | "false") => {
                let flag = text.trim() == "true";
                notes.push(format!(
                    "`{field}` was the string {text:?}; it was read as the boolean {flag}. Send booleans as JSON true or false."
                ));
                Ok(Some(flag))
            }
            Some(other) => Err(ReadError::invalid(format!(
                "`{field}` must be true or false, as a JSON boolean, not {}",
                match other {
                    Value::String(text) => format!("the string {text:?}"),
                    other => type_name(other).to_string(),
                }
            ))),
        }
    }

    /// An optional `u32` ([`number`], then [`to_u32`]).
    pub fn opt_u32(&self, field: &str) -> Result<Option<u32>, ReadError> {
        self.opt_u64(field)?.map(|n| to_u32(field, n)).transpose()
    }

    /// An optional string.
    pub fn opt_string(&self, field: &str) -> Result<Option<String>, ReadError> {
        self.present(field).map(|_| self.string(field)).transpose()
    }

    /// An optional strict boolean.
    pub fn opt_bool(&self, field: &str) -> Result<Option<bool>, ReadError> {
        match self.present(field) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(other) => Err(ReadError::invalid(format!(
                "`{field}` must be a boolean, not {}",
                type_name(other)
            ))),
        }
    }

    /// An optional list of strings.
    pub fn opt_strings(&self, field: &str) -> Result<Option<Vec<String>>, ReadError> {
        let Some(value) = self.present(field) else {
            return Ok(None);
        };
        let not_strings = || {
            ReadError::invalid(format!(
                "`{field}` must be a list of strings, not {}",
                type_name(value)
            ))
        };
        let Value::Array(items) = value else {
            return Err(not_strings());
        };
        items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or_else(not_strings))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// The first key that is not `op`, `id` or one of `allowed`.
    pub fn unknown<'k>(&'k self, allowed: &[&str]) -> Option<&'k str> {
        self.map
            .keys()
            .map(String::as_str)
            .find(|key| !["op", "id"].contains(key) && !allowed.contains(key))
    }
}
