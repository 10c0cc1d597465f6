//! The scenario runner: language-neutral JSON files of fixture files, a config and session steps with the answers
//! expected, run through the real component. The format is `tests/scenarios/README.md`; the Python and JavaScript
//! hosts run the same files and compare in the same JSON shape (the component's protocol).
//!
//! Each scenario runs in a fresh temporary directory: its `files` in `scenario/`, granted read-only at the guest
//! path [`GUEST_ROOT`] (also the working directory), its `outside` files in `outside/`, not granted. Named
//! sessions (`"session"` on a step, default `"main"`) start at their first step with the scenario's config.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use read_window::protocol::config_json::parse_config;
use read_window::protocol::note_json;

use crate::{Config, Grants, HostError, ReadWindow, Session, SessionLimits};

mod fixtures;
mod matching;

use fixtures::{fixture_path, write_files, write_one};
pub use matching::match_value;

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
