//! A scenario's fixture files: text, base64, repeated, numbered, concatenated or encoded bytes, symbolic links
//! and FIFOs, written under the scenario's directory and never outside it.

use std::fmt::Write as _;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

/// `name` (relative, `/`-separated, no `..`) under `dir`.
pub(super) fn fixture_path(dir: &Path, name: &str) -> Result<PathBuf, String> {
    let relative = Path::new(name);
    let plain = relative
        .components()
        .all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
    if name.is_empty() || !plain {
        return Err(format!(
            "fixture path {name:?} must be relative to the scenario's directory, without `..`"
        ));
    }
    Ok(dir.join(relative))
}

/// Writes the fixtures `files` under `dir`; `scenario_dir` is the scenario's own directory, which
/// `{"symlink_absolute"}` targets are relative to.
pub(super) fn write_files(
    dir: &Path,
    scenario_dir: &Path,
    files: Option<&Value>,
    key: &str,
) -> Result<(), String> {
    let files = match files {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Object(files)) => files,
        Some(_) => return Err(format!("`{key}` must be an object of path: content")),
    };
    for (name, content) in files {
        let path = fixture_path(dir, name).map_err(|e| format!("{key}: {e}"))?;
        write_one(&path, scenario_dir, content).map_err(|e| format!("{key}: {name}: {e}"))?;
    }
    Ok(())
}

/// Writes one fixture, replacing what was there: a file value (see [`file_bytes`]), `{"symlink"}`,
/// `{"symlink_absolute"}` (a link to the absolute host path of a path relative to `scenario_dir`, the
/// scenario's directory), `{"dir": true}` or `{"fifo": true}`.
pub(super) fn write_one(path: &Path, scenario_dir: &Path, content: &Value) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let io = |e: io::Error| format!("cannot write {}: {e}", path.display());
    if let Ok(metadata) = std::fs::symlink_metadata(path) {
        if metadata.is_dir() {
            std::fs::remove_dir_all(path).map_err(io)?;
        } else {
            std::fs::remove_file(path).map_err(io)?;
        }
    }
    if let Value::Object(spec) = content {
        if let Some(target) = spec.get("symlink") {
            let target = target.as_str().ok_or("`symlink` must be a string")?;
            return symlink(target, path).map_err(io);
        }
        if let Some(target) = spec.get("symlink_absolute") {
            let target = target.as_str().ok_or(
                "`symlink_absolute` must be a string (a path relative to the scenario's directory)",
            )?;
            let base = scenario_dir
                .canonicalize()
                .map_err(|e| format!("cannot resolve {}: {e}", scenario_dir.display()))?;
            let absolute = lexical_join(&base, target);
            let absolute = absolute
                .to_str()
                .ok_or("the scenario's directory is not UTF-8")?;
            return symlink(absolute, path).map_err(io);
        }
        if spec.contains_key("dir") {
            return std::fs::create_dir(path).map_err(io);
        }
        if spec.contains_key("fifo") {
            return make_fifo(path);
        }
    }
    let bytes = file_bytes(content)?;
    std::fs::write(path, bytes).map_err(io)
}

/// The bytes of a file value: text (UTF-8), `{"base64"}`, `{"repeat", "count"}`, `{"numbered", "count",
/// "from", "width", "suffix"}`, `{"concat": [value, ...]}` or `{"encode": value, "encoding": label}` (the text of
/// `value`, which must be UTF-8, encoded in the WHATWG encoding `label`; a character it cannot encode is an error).
///
/// Errors: a sentence naming the key at fault (a value of the wrong type, a missing key, an unknown encoding).
fn file_bytes(content: &Value) -> Result<Vec<u8>, String> {
    let spec = match content {
        Value::String(text) => return Ok(text.as_bytes().to_vec()),
        Value::Object(spec) => spec,
        _ => return Err("a file is a string or an object".into()),
    };
    if let Some(encoded) = spec.get("base64") {
        decode_base64(encoded.as_str().ok_or("`base64` must be a string")?)
    } else if let Some(text) = spec.get("repeat") {
        let text = text.as_str().ok_or("`repeat` must be a string")?;
        Ok(text.repeat(count_of(spec)?).into_bytes())
    } else if let Some(prefix) = spec.get("numbered") {
        numbered_bytes(spec, prefix)
    } else if let Some(inner) = spec.get("encode") {
        encoded_bytes(spec, inner)
    } else if let Some(parts) = spec.get("concat") {
        let parts = parts
            .as_array()
            .ok_or("`concat` must be a list of file values")?;
        let mut bytes = Vec::new();
        for part in parts {
            bytes.extend(file_bytes(part)?);
        }
        Ok(bytes)
    } else {
        Err(format!(
            "a file object needs one of the keys {}",
            FILE_KINDS.join(", ")
        ))
    }
}

/// The `count` of a `repeat` or `numbered` file object: how many copies or lines.
///
/// Errors: `count` missing, negative, not an integer, or past `usize`.
fn count_of(spec: &Map<String, Value>) -> Result<usize, &'static str> {
    spec.get("count")
        .and_then(Value::as_u64)
        .and_then(|count| usize::try_from(count).ok())
        .ok_or("`count` must be a non-negative integer")
}

/// The bytes of `{"numbered": prefix, "count", "from", "width", "suffix"}`: `count` lines `{prefix}{n}{suffix}`,
/// `n` from `from` (default 1) zero-padded to `width` digits (default 0), each ending in a line feed.
///
/// Errors: a key of the wrong type, or `count` missing.
fn numbered_bytes(spec: &Map<String, Value>, prefix: &Value) -> Result<Vec<u8>, String> {
    let prefix = prefix
        .as_str()
        .ok_or("`numbered` must be a string (the prefix)")?;
    let suffix = match spec.get("suffix") {
        None => "",
        Some(value) => value.as_str().ok_or("`suffix` must be a string")?,
    };
    let number = |key: &str, default: u64| match spec.get(key) {
        None => Ok(default),
        Some(value) => value
            .as_u64()
            .ok_or(format!("`{key}` must be a non-negative integer")),
    };
    let from = number("from", 1)?;
    let width = usize::try_from(number("width", 0)?).map_err(|e| e.to_string())?;
    let mut text = String::new();
    for n in (from..).take(count_of(spec)?) {
        let _ = writeln!(text, "{prefix}{n:0width$}{suffix}");
    }
    Ok(text.into_bytes())
}

/// The bytes of `{"encode": inner, "encoding": label}`: the text of the file value `inner` encoded in the
/// WHATWG encoding `label`.
///
/// Errors: no `encoding`, an unknown label, `inner` not UTF-8 (or itself in error), or a character the
/// encoding cannot encode.
fn encoded_bytes(spec: &Map<String, Value>, inner: &Value) -> Result<Vec<u8>, String> {
    let label = spec
        .get("encoding")
        .and_then(Value::as_str)
        .ok_or("`encode` needs an `encoding` (a WHATWG label such as \"windows-1251\")")?;
    let encoding = encoding_rs::Encoding::for_label(label.as_bytes()).ok_or(format!(
        "`encoding` {label:?} is not a WHATWG encoding label"
    ))?;
    let bytes = file_bytes(inner)?;
    let text = String::from_utf8(bytes).map_err(|_| "the text to `encode` is not UTF-8")?;
    let mut encoder = encoding.new_encoder();
    let mut out = Vec::with_capacity(
        encoder
            .max_buffer_length_from_utf8_without_replacement(text.len())
            .unwrap_or(text.len() * 4),
    );
    let (result, _) = encoder.encode_from_utf8_to_vec_without_replacement(&text, &mut out, true);
    match result {
        encoding_rs::EncoderResult::InputEmpty => Ok(out),
        encoding_rs::EncoderResult::Unmappable(character) => Err(format!(
            "{label} cannot encode U+{:04X} of the text to `encode`",
            u32::from(character)
        )),
        encoding_rs::EncoderResult::OutputFull => Err("the encoded text outgrew its buffer".into()),
    }
}

/// The keys that say what a file object is.
const FILE_KINDS: &[&str] = &[
    "base64",
    "repeat",
    "numbered",
    "concat",
    "encode",
    "symlink",
    "symlink_absolute",
    "dir",
    "fifo",
];

/// `relative` joined to the absolute `base`, with `.` and `..` resolved by name (no file system access).
fn lexical_join(base: &Path, relative: &str) -> PathBuf {
    let mut joined = base.to_path_buf();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                joined.pop();
            }
            name => joined.push(name),
        }
    }
    joined
}

#[cfg(unix)]
fn symlink(target: &str, path: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, path)
}

#[cfg(not(unix))]
fn symlink(_target: &str, _path: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "symbolic links in scenarios need a Unix host",
    ))
}

/// Creates a named pipe with the system's `mkfifo` command.
fn make_fifo(path: &Path) -> Result<(), String> {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .map_err(|e| format!("cannot run mkfifo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("mkfifo {} failed ({status})", path.display()))
    }
}

/// Standard base64 (RFC 4648, with or without `=` padding; whitespace ignored).
pub(crate) fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    let mut buffer = 0u32;
    let mut bits = 0u32;
    for c in text
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && *c != '=')
    {
        let value = match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '+' => 62,
            '/' => 63,
            other => return Err(format!("{other:?} is not a base64 character")),
        };
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(decode_base64("AAEC"), Ok(vec![0, 1, 2]));
        assert_eq!(decode_base64("aGk="), Ok(b"hi".to_vec()));
        assert_eq!(decode_base64("aGk"), Ok(b"hi".to_vec()));
        assert!(decode_base64("a*").is_err());
    }

    #[test]
    fn numbered_and_concatenated_files() {
        assert_eq!(
            file_bytes(&json!({"numbered": "event ", "width": 3, "from": 9, "count": 2})),
            Ok(b"event 009\nevent 010\n".to_vec())
        );
        assert_eq!(
            file_bytes(&json!({"numbered": "", "suffix": "|x", "count": 2})),
            Ok(b"1|x\n2|x\n".to_vec())
        );
        assert_eq!(
            file_bytes(&json!({"concat": ["a", {"repeat": "b", "count": 2}, {"base64": "Yw=="}]})),
            Ok(b"abbc".to_vec())
        );
        assert!(file_bytes(&json!({"concat": [{"symlink": "x"}]})).is_err());
        assert!(file_bytes(&json!({"numbered": "x"})).is_err());
    }

    #[test]
    fn fixture_paths_stay_inside() {
        let dir = Path::new("/d");
        assert_eq!(
            fixture_path(dir, "a/b.txt"),
            Ok(PathBuf::from("/d/a/b.txt"))
        );
        assert!(fixture_path(dir, "../x").is_err());
        assert!(fixture_path(dir, "/etc/passwd").is_err());
        assert!(fixture_path(dir, "").is_err());
    }
}
