//! How a scenario's expected answer matches the answer the component gave: objects as subsets, lists exactly,
//! numbers by value, and the operators `{"$absent": bool}` and `{"$contains": text or [text, ...]}`.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// Matches `actual` against `expected` by the rules of the scenario format; `place` is the JSON path so far
/// (`/error/kind`), used in the failure message.
pub fn match_value(
    expected: &Value,
    actual: Option<&Value>,
    place: &mut String,
) -> Result<(), String> {
    if let Value::Object(spec) = expected {
        if let Some(absent) = spec.get("$absent") {
            return match_absent(absent, actual, place);
        }
        if let Some(needles) = spec.get("$contains") {
            return match_contains(needles, actual, place);
        }
        return match_object(spec, actual, place);
    }
    let Some(actual) = actual else {
        return Err(format!(
            "at {}: expected {expected}, found no key",
            at(place)
        ));
    };
    match (expected, actual) {
        (Value::Array(want), Value::Array(got)) => match_list(want, got, actual, place),
        (Value::Number(want), Value::Number(got)) => {
            let equal = match (want.as_u64(), got.as_u64()) {
                (Some(want), Some(got)) => want == got,
                _ => want.as_f64() == got.as_f64(),
            };
            if equal {
                Ok(())
            } else {
                Err(format!("at {}: expected {want}, got {got}", at(place)))
            }
        }
        _ if expected == actual => Ok(()),
        _ => Err(format!(
            "at {}: expected {expected}, got {actual}",
            at(place)
        )),
    }
}

/// `{"$absent": true}` (no key here) or `{"$absent": false}` (some value here).
fn match_absent(absent: &Value, actual: Option<&Value>, place: &str) -> Result<(), String> {
    match (absent, actual) {
        (Value::Bool(true), None) | (Value::Bool(false), Some(_)) => Ok(()),
        (Value::Bool(true), Some(value)) => {
            Err(format!("at {}: expected no key, got {value}", at(place)))
        }
        _ => Err(format!("at {}: expected a key, found none", at(place))),
    }
}

/// `{"$contains": needle}` or `{"$contains": [needle, ...]}`: a string holding every needle.
fn match_contains(needles: &Value, actual: Option<&Value>, place: &str) -> Result<(), String> {
    let Some(Value::String(haystack)) = actual else {
        return Err(format!(
            "at {}: expected a string containing {needles}, got {}",
            at(place),
            shown(actual)
        ));
    };
    let needles: Vec<&Value> = match needles {
        Value::Array(list) => list.iter().collect(),
        one => vec![one],
    };
    for needle in needles {
        let Value::String(needle) = needle else {
            return Err(format!("at {}: `$contains` takes strings", at(place)));
        };
        if !haystack.contains(needle.as_str()) {
            return Err(format!(
                "at {}: expected a string containing {needle:?}, got {haystack:?}",
                at(place)
            ));
        }
    }
    Ok(())
}

/// An object whose every key in `spec` matches: other keys of `actual` are not looked at.
fn match_object(
    spec: &Map<String, Value>,
    actual: Option<&Value>,
    place: &mut String,
) -> Result<(), String> {
    let Some(Value::Object(fields)) = actual else {
        return Err(format!(
            "at {}: expected an object, got {}",
            at(place),
            shown(actual)
        ));
    };
    for (key, value) in spec {
        let before = place.len();
        let _ = write!(place, "/{key}");
        match_value(value, fields.get(key), place)?;
        place.truncate(before);
    }
    Ok(())
}

/// A list of as many items as `want`, each matching; `actual` is the whole list, shown in the message.
fn match_list(
    want: &[Value],
    got: &[Value],
    actual: &Value,
    place: &mut String,
) -> Result<(), String> {
    if want.len() != got.len() {
        return Err(format!(
            "at {}: expected a list of {} items, got {} items: {actual}",
            at(place),
            want.len(),
            got.len()
        ));
    }
    for (index, (want, got)) in want.iter().zip(got).enumerate() {
        let before = place.len();
        let _ = write!(place, "/{index}");
        match_value(want, Some(got), place)?;
        place.truncate(before);
    }
    Ok(())
}

/// The JSON path `place` as said in a message: `/` for the root.
fn at(place: &str) -> String {
    if place.is_empty() {
        "/".to_owned()
    } else {
        place.to_owned()
    }
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "no key".to_owned(), Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(expected: Value, actual: Value) -> Result<(), String> {
        match_value(&expected, Some(&actual), &mut String::new())
    }

    #[test]
    fn objects_match_as_subsets_and_lists_exactly() {
        let answer = json!({"status": "error", "error": {"kind": "not_found", "message": "m"}});
        assert_eq!(
            check(json!({"error": {"kind": "not_found"}}), answer.clone()),
            Ok(())
        );
        assert_eq!(
            check(json!({"error": {"kind": "binary"}}), answer),
            Err("at /error/kind: expected \"binary\", got \"not_found\"".into())
        );
        assert_eq!(check(json!({"a": [1, 2]}), json!({"a": [1, 2]})), Ok(()));
        assert_eq!(
            check(json!({"a": [1]}), json!({"a": [1, 2]})),
            Err("at /a: expected a list of 1 items, got 2 items: [1,2]".into())
        );
        assert_eq!(check(json!({"n": 3}), json!({"n": 3.0})), Ok(()));
    }

    #[test]
    fn contains_and_absent() {
        let stub = json!({"status": "unchanged", "message": "still current"});
        assert_eq!(
            check(
                json!({"content": {"$absent": true}, "message": {"$contains": ["still", "current"]}}),
                stub.clone()
            ),
            Ok(())
        );
        assert_eq!(
            check(json!({"message": {"$absent": true}}), stub.clone()),
            Err("at /message: expected no key, got \"still current\"".into())
        );
        assert_eq!(
            check(json!({"message": {"$contains": "stale"}}), stub),
            Err(
                "at /message: expected a string containing \"stale\", got \"still current\"".into()
            )
        );
    }
}
