//! The scenario runner: language-neutral JSON files of fixture files, a config and session steps with the answers
//! expected, run through the real component. The format is `tests/scenarios/README.md`; the Python and JavaScript
//! hosts run the same files and compare in the same JSON shape (the component's protocol).
//!
//! Each scenario runs in a fresh temporary directory: its `files` in `scenario/`, granted read-only at the guest
//! path [`GUEST_ROOT`] (also the working directory), its `outside` files in `outside/`, not granted. Named
//! sessions (`"session"` on a step, default `"main"`) start at their first step with the scenario's config.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use read_window::protocol::answers::note_json;
use read_window::protocol::config_json::parse_config;

use crate::{Config, Grants, HostError, ReadWindow, Session, SessionLimits};

/// The guest path the scenario's directory is granted at, on every host.
pub const GUEST_ROOT: &str = "/scenario";

/// The session a step without a `"session"` key runs in.
pub const DEFAULT_SESSION: &str = "main";

/// The keys of a step that belong to the scenario format, not to the request.
const STEP_KEYS: &[&str] = &["expect", "session"];

/// The result of one scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioOutcome {
    /// The scenario's `name` (the file name when the file could not be parsed).
    pub name: String,
    /// `Ok` when every step matched; else why it failed: the step, the place in the answer, the values.
    pub result: Result<(), String>,
}

impl ScenarioOutcome {
    /// The runner's line for this scenario: `PASS name` or `FAIL name: why`.
    pub fn line(&self) -> String {
        match &self.result {
            Ok(()) => format!("PASS {}", self.name),
            Err(why) => format!("FAIL {}: {why}", self.name),
        }
    }
}

/// Counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Scenarios whose every step matched.
    pub passed: usize,
    /// Scenarios that failed (a mismatch, a host failure or a malformed file).
    pub failed: usize,
}

impl Summary {
    /// The closing line: `N passed, M failed`.
    pub fn line(&self) -> String {
        format!("{} passed, {} failed", self.passed, self.failed)
    }
}

/// The scenario files under `paths`: each file as given, each directory searched recursively for `*.json`
/// files, in sorted order.
///
/// Errors: a path that does not exist or cannot be listed (the message names it).
pub fn collect_files(paths: &[PathBuf]) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        if metadata.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found)?;
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> io::Result<()> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, found)?;
        } else if path.extension().is_some_and(|ext| ext == "json") {
            found.push(path);
        }
    }
    Ok(())
}

/// Runs every scenario file under `paths`, writing one line per scenario and the closing line to `out`.
///
/// Errors: a path cannot be listed, or `out` cannot be written. A scenario that fails is counted, not an error.
pub fn run_paths(
    reader: &ReadWindow,
    paths: &[PathBuf],
    out: &mut impl Write,
) -> io::Result<Summary> {
    let mut summary = Summary::default();
    let mut names: BTreeMap<String, PathBuf> = BTreeMap::new();
    for file in collect_files(paths)? {
        let mut outcome = run_file(reader, &file);
        if let Some(first) = names.get(&outcome.name) {
            outcome.result = Err(format!(
                "the name is already used by {}; names are unique",
                first.display()
            ));
        } else {
            names.insert(outcome.name.clone(), file.clone());
        }
        if outcome.result.is_ok() {
            summary.passed += 1;
        } else {
            summary.failed += 1;
        }
        writeln!(out, "{}", outcome.line())?;
    }
    writeln!(out, "{}", summary.line())?;
    Ok(summary)
}

/// Runs one scenario file.
pub fn run_file(reader: &ReadWindow, file: &Path) -> ScenarioOutcome {
    let fallback_name = file.display().to_string();
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            return ScenarioOutcome {
                name: fallback_name,
                result: Err(format!("cannot read the scenario file: {e}")),
            }
        }
    };
    let value: Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => {
            return ScenarioOutcome {
                name: fallback_name,
                result: Err(format!("the scenario file is not valid JSON: {e}")),
            }
        }
    };
    match value.get("name") {
        Some(Value::String(name)) if !name.is_empty() => ScenarioOutcome {
            name: name.clone(),
            result: run_scenario(reader, &value),
        },
        _ => ScenarioOutcome {
            name: fallback_name,
            result: Err("`name` is missing: a scenario needs a non-empty string name".into()),
        },
    }
}

/// Runs one scenario given as JSON; `Err` says why it failed.
pub fn run_scenario(reader: &ReadWindow, scenario: &Value) -> Result<(), String> {
    let Value::Object(fields) = scenario else {
        return Err("a scenario must be a JSON object".into());
    };
    if let Some(extra) = fields.keys().find(|key| {
        ![
            "name",
            "description",
            "files",
            "outside",
            "config",
            "spill",
            "steps",
        ]
        .contains(&key.as_str())
    }) {
        return Err(format!(
            "unknown scenario key `{extra}`; the keys are name, description, files, outside, config, spill, steps"
        ));
    }
    let config = match fields.get("config") {
        None | Some(Value::Null) => Config::default(),
        Some(value) => parse_config(value)
            .map(crate::settings::wit_config)
            .map_err(|e| format!("config: {}", e.message))?,
    };
    let Some(Value::Array(steps)) = fields.get("steps") else {
        return Err("`steps` must be a list of steps".into());
    };

    let temp =
        tempfile::tempdir().map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let root = temp.path().join("scenario");
    let outside = temp.path().join("outside");
    for dir in [&root, &outside] {
        std::fs::create_dir(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_files(&root, &root, fields.get("files"), "files")?;
    write_files(&outside, &root, fields.get("outside"), "outside")?;
    let mut grants = Grants::new()
        .dir_at(&root, GUEST_ROOT)
        .map_err(|e| format!("cannot grant the scenario directory: {e}"))?;
    // `spill`: a directory of the scenario made and granted read-write, for the capture ops' spill files.
    match fields.get("spill") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => {
            let dir = fixture_path(&root, name)?;
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            grants = grants
                .writable_dir_at(&dir, format!("{GUEST_ROOT}/{}", name.trim_matches('/')))
                .map_err(|e| format!("cannot grant the spill directory: {e}"))?;
        }
        Some(_) => return Err("`spill` must be a directory name (a string)".into()),
    }

    let mut runner = Runner {
        reader,
        grants,
        config,
        root,
        sessions: BTreeMap::new(),
    };
    for (index, step) in steps.iter().enumerate() {
        runner
            .step(step)
            .map_err(|why| format!("step {} ({}): {why}", index + 1, describe(step)))?;
    }
    Ok(())
}

/// A short description of a step for failure messages: its op and path.
fn describe(step: &Value) -> String {
    let op = step.get("op").and_then(Value::as_str).unwrap_or("read");
    match step.get("path").and_then(Value::as_str) {
        Some(path) => format!("{op} {path}"),
        None => op.to_owned(),
    }
}

struct Runner<'a> {
    reader: &'a ReadWindow,
    grants: Grants,
    config: Config,
    root: PathBuf,
    sessions: BTreeMap<String, Session>,
}

impl Runner<'_> {
    fn step(&mut self, step: &Value) -> Result<(), String> {
        let Value::Object(fields) = step else {
            return Err("a step must be a JSON object".into());
        };
        let request: Map<String, Value> = fields
            .iter()
            .filter(|(key, _)| !STEP_KEYS.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let session_name = match fields.get("session") {
            None => DEFAULT_SESSION.to_owned(),
            Some(Value::String(name)) => name.clone(),
            Some(_) => return Err("`session` must be a string".into()),
        };
        let answer = self.answer(&session_name, request)?;
        if answer["error"]["kind"] == "host_error" {
            return Err(format!("host failure: {answer}"));
        }
        match fields.get("expect") {
            None => Ok(()),
            Some(expected) => {
                let mut place = String::new();
                match_value(expected, Some(&answer), &mut place)
                    .map_err(|why| format!("{why}; the answer was {answer}"))
            }
        }
    }

    fn answer(&mut self, session_name: &str, request: Map<String, Value>) -> Result<Value, String> {
        let id = request.get("id").cloned();
        let op = request.get("op").and_then(Value::as_str).unwrap_or("read");
        let answer = match op {
            "write_file" => {
                only_keys(&request, &["op", "id", "path", "content"])?;
                let path = self.fixture_path(&request)?;
                let content = request.get("content").ok_or("`content` is missing")?;
                write_one(&path, &self.root, content)?;
                note_json()
            }
            "remove_file" => {
                only_keys(&request, &["op", "id", "path"])?;
                let path = self.fixture_path(&request)?;
                std::fs::remove_file(&path)
                    .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
                note_json()
            }
            _ => {
                let line = Value::Object(request).to_string();
                let session = self.session(session_name)?;
                let answer = session.answer(&line);
                serde_json::from_str(&answer)
                    .map_err(|e| format!("the answer is not JSON ({e}): {answer}"))?
            }
        };
        Ok(match (id, answer) {
            (Some(id), Value::Object(fields)) => {
                let mut map = Map::with_capacity(fields.len() + 1);
                map.insert("id".into(), id);
                map.extend(fields);
                Value::Object(map)
            }
            (_, answer) => answer,
        })
    }

    fn session(&mut self, name: &str) -> Result<&mut Session, String> {
        if !self.sessions.contains_key(name) {
            let session = self
                .reader
                .protocol_session(&self.grants, &self.config, SessionLimits::default())
                .map_err(|e: HostError| format!("session `{name}` did not start: {e}"))?;
            self.sessions.insert(name.to_owned(), session);
        }
        self.sessions
            .get_mut(name)
            .ok_or_else(|| format!("session `{name}` is missing"))
    }

    fn fixture_path(&self, request: &Map<String, Value>) -> Result<PathBuf, String> {
        let name = request
            .get("path")
            .and_then(Value::as_str)
            .ok_or("`path` must be a string")?;
        fixture_path(&self.root, name)
    }
}

fn only_keys(request: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    match request.keys().find(|key| !allowed.contains(&key.as_str())) {
        Some(extra) => Err(format!(
            "unknown field `{extra}`; the fields are {}",
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

/// `name` (relative, `/`-separated, no `..`) under `dir`.
fn fixture_path(dir: &Path, name: &str) -> Result<PathBuf, String> {
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
fn write_files(
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
fn write_one(path: &Path, scenario_dir: &Path, content: &Value) -> Result<(), String> {
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
fn file_bytes(content: &Value) -> Result<Vec<u8>, String> {
    let spec = match content {
        Value::String(text) => return Ok(text.as_bytes().to_vec()),
        Value::Object(spec) => spec,
        _ => return Err("a file is a string or an object".into()),
    };
    let count = || {
        spec.get("count")
            .and_then(Value::as_u64)
            .and_then(|count| usize::try_from(count).ok())
            .ok_or("`count` must be a non-negative integer")
    };
    if let Some(encoded) = spec.get("base64") {
        decode_base64(encoded.as_str().ok_or("`base64` must be a string")?)
    } else if let Some(text) = spec.get("repeat") {
        let text = text.as_str().ok_or("`repeat` must be a string")?;
        Ok(text.repeat(count()?).into_bytes())
    } else if let Some(prefix) = spec.get("numbered") {
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
        for n in (from..).take(count()?) {
            let _ = writeln!(text, "{prefix}{n:0width$}{suffix}");
        }
        Ok(text.into_bytes())
    } else if let Some(inner) = spec.get("encode") {
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
        let (result, _) =
            encoder.encode_from_utf8_to_vec_without_replacement(&text, &mut out, true);
        match result {
            encoding_rs::EncoderResult::InputEmpty => Ok(out),
            encoding_rs::EncoderResult::Unmappable(character) => Err(format!(
                "{label} cannot encode U+{:04X} of the text to `encode`",
                u32::from(character)
            )),
            encoding_rs::EncoderResult::OutputFull => {
                Err("the encoded text outgrew its buffer".into())
            }
        }
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

/// Matches `actual` against `expected` by the rules of the scenario format; `place` is the JSON path so far
/// (`/error/kind`), used in the failure message.
pub fn match_value(
    expected: &Value,
    actual: Option<&Value>,
    place: &mut String,
) -> Result<(), String> {
    let at = |place: &str| {
        if place.is_empty() {
            "/".to_owned()
        } else {
            place.to_owned()
        }
    };
    if let Value::Object(spec) = expected {
        if let Some(absent) = spec.get("$absent") {
            return match (absent, actual) {
                (Value::Bool(true), None) | (Value::Bool(false), Some(_)) => Ok(()),
                (Value::Bool(true), Some(value)) => {
                    Err(format!("at {}: expected no key, got {value}", at(place)))
                }
                _ => Err(format!("at {}: expected a key, found none", at(place))),
            };
        }
        if let Some(needles) = spec.get("$contains") {
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
            return Ok(());
        }
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
        return Ok(());
    }
    let Some(actual) = actual else {
        return Err(format!(
            "at {}: expected {expected}, found no key",
            at(place)
        ));
    };
    match (expected, actual) {
        (Value::Array(want), Value::Array(got)) => {
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
