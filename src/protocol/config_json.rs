//! The config as the protocol carries it: the WIT `config` record ([`ConfigRecord`]) read from and written to
//! a JSON object with snake_case fields, merged (`configure`) and checked with refusals that name each value
//! where it was given.

use serde_json::{json, Map, Value};

use super::json_in::{number, to_u32, type_name, Fields};
use crate::config::{Budget as CoreBudget, Config, ConfigInput, ConfigProblem};
use crate::error::ReadError;

/// The WIT `config` record: every field optional (absent takes the component's default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigRecord {
    /// `max_lines`: lines per window at most.
    pub max_lines: Option<u32>,
    /// `max_line_length`: characters of one line before it is clamped.
    pub max_line_length: Option<u32>,
    /// `budget`: the window's size budget.
    pub budget: Option<BudgetRecord>,
    /// `working_directory`: the absolute guest path relative paths start from.
    pub working_directory: Option<String>,
    /// `dedup`: answer an unchanged repeat with a stub.
    pub dedup: Option<bool>,
    /// `loop_warn_at`: identical reads in a row that warn.
    pub loop_warn_at: Option<u32>,
    /// `loop_block_at`: identical reads in a row that are blocked.
    pub loop_block_at: Option<u32>,
    /// `not_found_ttl_ms`: how long a miss is remembered, in milliseconds.
    pub not_found_ttl_ms: Option<u64>,
    /// `deny_patterns`: credential globs added to the defaults.
    pub deny_patterns: Option<Vec<String>>,
    /// `allow_patterns`: globs that lift a deny.
    pub allow_patterns: Option<Vec<String>>,
    /// `ignore_files`: names of ignore files whose rules refuse paths (`[".gitignore"]`); none by default.
    pub ignore_files: Option<Vec<String>>,
    /// `escape_invisible`: show invisible characters as visible forms `⟪U+XXXX⟫`.
    pub escape_invisible: Option<bool>,
    /// `images`: read images as image windows (default true).
    pub images: Option<bool>,
    /// `document_cache_dir`: the guest path of a read-write preopen the component keeps extracted documents in
    /// (the document store), taken away from the model's file system. Set when the session starts; `configure`
    /// refuses it.
    pub document_cache_dir: Option<String>,
}

/// The WIT `budget` variant: characters, or tokens with an optional cap and headroom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BudgetRecord {
    /// `{"characters": N}`.
    Characters(u32),
    /// `{"tokens": {"cap": N, "headroom": F}}`, both optional.
    Tokens {
        /// The engine's cap in tokens.
        cap: Option<u32>,
        /// The share of the cap a window may use.
        headroom: Option<f64>,
    },
}

/// The fields of [`ConfigRecord`] in JSON, snake_case as in the WIT record.
pub const CONFIG_FIELDS: &[&str] = &[
    "max_lines",
    "max_line_length",
    "budget",
    "working_directory",
    "dedup",
    "loop_warn_at",
    "loop_block_at",
    "not_found_ttl_ms",
    "deny_patterns",
    "allow_patterns",
    "ignore_files",
    "escape_invisible",
    "images",
    "document_cache_dir",
];

/// The config fields a refusal can name, WIT-style (`max-line-length`, `budget.tokens.cap`).
const NAMED_FIELDS: [&str; 11] = [
    "max-lines",
    "max-line-length",
    "budget.characters",
    "budget.tokens.cap",
    "budget.tokens.headroom",
    "loop-warn-at",
    "loop-block-at",
    "not-found-ttl-ms",
    "deny-patterns",
    "allow-patterns",
    "ignore-files",
];

impl ConfigRecord {
    /// The core's view of the record, for validation and the values in force.
    pub fn input(&self) -> ConfigInput {
        let (budget_chars, token_mode, token_cap, token_headroom) = match self.budget {
            Some(BudgetRecord::Characters(chars)) => (Some(u64::from(chars)), false, None, None),
            Some(BudgetRecord::Tokens { cap, headroom }) => {
                (None, true, cap.map(u64::from), headroom)
            }
            None => (None, false, None, None),
        };
        ConfigInput {
            max_lines: self.max_lines.map(u64::from),
            max_line_chars: self.max_line_length.map(u64::from),
            budget_chars,
            token_cap,
            token_headroom,
            token_mode,
            working_directory: self.working_directory.clone(),
            dedup: self.dedup,
            loop_warn_at: self.loop_warn_at,
            loop_block_at: self.loop_block_at,
            not_found_ttl_ms: self.not_found_ttl_ms,
            deny_patterns: self.deny_patterns.clone().unwrap_or_default(),
            allow_patterns: self.allow_patterns.clone().unwrap_or_default(),
            ignore_files: self.ignore_files.clone().unwrap_or_default(),
            escape_invisible: self.escape_invisible,
            images: self.images,
        }
    }

    /// `over` on top of `self`: each field `over` sets replaces this one's (a budget as a whole).
    pub fn merged(self, over: ConfigRecord) -> ConfigRecord {
        ConfigRecord {
            max_lines: over.max_lines.or(self.max_lines),
            max_line_length: over.max_line_length.or(self.max_line_length),
            budget: over.budget.or(self.budget),
            working_directory: over.working_directory.or(self.working_directory),
            dedup: over.dedup.or(self.dedup),
            loop_warn_at: over.loop_warn_at.or(self.loop_warn_at),
            loop_block_at: over.loop_block_at.or(self.loop_block_at),
            not_found_ttl_ms: over.not_found_ttl_ms.or(self.not_found_ttl_ms),
            deny_patterns: over.deny_patterns.or(self.deny_patterns),
            allow_patterns: over.allow_patterns.or(self.allow_patterns),
            ignore_files: over.ignore_files.or(self.ignore_files),
            escape_invisible: over.escape_invisible.or(self.escape_invisible),
            images: over.images.or(self.images),
            document_cache_dir: self.document_cache_dir,
        }
    }

    /// Whether the record gives the value a refusal names as `field` (WIT-style, as in [`ConfigProblem`]).
    pub fn gives(&self, field: &str) -> bool {
        match field {
            "max-lines" => self.max_lines.is_some(),
            "max-line-length" => self.max_line_length.is_some(),
            "budget.characters" => matches!(self.budget, Some(BudgetRecord::Characters(_))),
            "budget.tokens.cap" => {
                matches!(self.budget, Some(BudgetRecord::Tokens { cap: Some(_), .. }))
            }
            "budget.tokens.headroom" => matches!(
                self.budget,
                Some(BudgetRecord::Tokens {
                    headroom: Some(_),
                    ..
                })
            ),
            "loop-warn-at" => self.loop_warn_at.is_some(),
            "loop-block-at" => self.loop_block_at.is_some(),
            "not-found-ttl-ms" => self.not_found_ttl_ms.is_some(),
            "deny-patterns" => self.deny_patterns.is_some(),
            "allow-patterns" => self.allow_patterns.is_some(),
            "ignore-files" => self.ignore_files.is_some(),
            _ => false,
        }
    }

    /// The record as a config object (only the fields it gives), which [`parse_config`] reads back.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        let mut put = |key: &str, value: Value| {
            if !value.is_null() {
                map.insert(key.to_owned(), value);
            }
        };
        put("max_lines", json!(self.max_lines));
        put("max_line_length", json!(self.max_line_length));
        put("budget", self.budget.map_or(Value::Null, budget_json));
        put("working_directory", json!(self.working_directory));
        put("dedup", json!(self.dedup));
        put("loop_warn_at", json!(self.loop_warn_at));
        put("loop_block_at", json!(self.loop_block_at));
        put("not_found_ttl_ms", json!(self.not_found_ttl_ms));
        put("deny_patterns", json!(self.deny_patterns));
        put("allow_patterns", json!(self.allow_patterns));
        put("ignore_files", json!(self.ignore_files));
        put("escape_invisible", json!(self.escape_invisible));
        put("images", json!(self.images));
        put("document_cache_dir", json!(self.document_cache_dir));
        Value::Object(map)
    }
}

fn budget_json(budget: BudgetRecord) -> Value {
    match budget {
        BudgetRecord::Characters(chars) => json!({ "characters": chars }),
        BudgetRecord::Tokens { cap, headroom } => {
            let mut inner = Map::new();
            if let Some(cap) = cap {
                inner.insert("cap".into(), json!(cap));
            }
            if let Some(headroom) = headroom {
                inner.insert("headroom".into(), json!(headroom));
            }
            json!({ "tokens": inner })
        }
    }
}

/// Parses a config object: the WIT `config` record with snake_case field names, every field optional (absent or
/// `null` takes the default). `budget` is `{"characters": N}` or `{"tokens": {"cap": N, "headroom": F}}`.
///
/// Errors: an `invalid_request` error naming the field: an unknown field, a value of the wrong type, a number
/// out of the field's integer range. Ranges the core checks itself are [`check`]'s.
pub fn parse_config(value: &Value) -> Result<ConfigRecord, ReadError> {
    let Value::Object(map) = value else {
        return Err(ReadError::invalid(format!(
            "the config must be a JSON object, not {}",
            type_name(value)
        )));
    };
    if let Some(extra) = map
        .keys()
        .find(|key| !CONFIG_FIELDS.contains(&key.as_str()))
    {
        return Err(ReadError::invalid(format!(
            "unknown config field `{extra}`; the fields are: {}",
            CONFIG_FIELDS.join(", ")
        )));
    }
    config_fields(&Fields { op: "config", map })
}

/// The config fields of `fields` (other keys are the caller's to refuse).
fn config_fields(fields: &Fields) -> Result<ConfigRecord, ReadError> {
    Ok(ConfigRecord {
        max_lines: fields.opt_u32("max_lines")?,
        max_line_length: fields.opt_u32("max_line_length")?,
        budget: fields.present("budget").map(parse_budget).transpose()?,
        working_directory: fields.opt_string("working_directory")?,
        dedup: fields.opt_bool("dedup")?,
        loop_warn_at: fields.opt_u32("loop_warn_at")?,
        loop_block_at: fields.opt_u32("loop_block_at")?,
        not_found_ttl_ms: fields.opt_u64("not_found_ttl_ms")?,
        deny_patterns: fields.opt_strings("deny_patterns")?,
        allow_patterns: fields.opt_strings("allow_patterns")?,
        ignore_files: fields.opt_strings("ignore_files")?,
        escape_invisible: fields.opt_bool("escape_invisible")?,
        images: fields.opt_bool("images")?,
        document_cache_dir: fields.opt_string("document_cache_dir")?,
    })
}

fn parse_budget(value: &Value) -> Result<BudgetRecord, ReadError> {
    let shape =
        "`budget` must be {\"characters\": N} or {\"tokens\": {\"cap\": N, \"headroom\": F}}";
    let Value::Object(map) = value else {
        return Err(ReadError::invalid(format!(
            "{shape}, not {}",
            type_name(value)
        )));
    };
    let mut entries = map.iter();
    let (Some((unit, inner)), None) = (entries.next(), entries.next()) else {
        return Err(ReadError::invalid(format!("{shape}: exactly one key")));
    };
    match unit.as_str() {
        "characters" => Ok(BudgetRecord::Characters(to_u32(
            "budget.characters",
            number("budget.characters", inner)?,
        )?)),
        "tokens" => parse_token_budget(inner),
        other => Err(ReadError::invalid(format!("{shape}, not a `{other}` key"))),
    }
}

fn parse_token_budget(inner: &Value) -> Result<BudgetRecord, ReadError> {
    let Value::Object(token_map) = inner else {
        return Err(ReadError::invalid(format!(
            "`budget.tokens` must be an object with optional `cap` and `headroom`, not {}",
            type_name(inner)
        )));
    };
    if let Some(extra) = token_map
        .keys()
        .find(|key| !["cap", "headroom"].contains(&key.as_str()))
    {
        return Err(ReadError::invalid(format!(
            "unknown field `{extra}` in `budget.tokens`; its fields are: cap, headroom"
        )));
    }
    let tokens = Fields {
        op: "config",
        map: token_map,
    };
    let headroom = match tokens.present("headroom") {
        None => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => {
            return Err(ReadError::invalid(format!(
                "`budget.tokens.headroom` must be a number, not {}",
                type_name(other)
            )))
        }
    };
    Ok(BudgetRecord::Tokens {
        cap: tokens.opt_u32("cap")?,
        headroom,
    })
}

/// Where a config value came from, for a refusal that names it where the user wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A command-line option (`--loop-warn-at 4`).
    Option,
    /// A key of a host's config file (`` `loop_warn_at` 4 in the config file ``).
    File,
    /// A key of the session's `configure` request (`` `loop_warn_at` 4 ``).
    Request,
}

/// The CLI option that sets the config field `field` (`max-line-length` is `--max-line-length`,
/// `budget.characters` is `--max-chars`).
pub fn option_name(field: &str) -> &'static str {
    match field {
        "max-lines" => "--max-lines",
        "max-line-length" => "--max-line-length",
        "budget.characters" => "--max-chars",
        "budget.tokens.cap" => "--max-tokens",
        "budget.tokens.headroom" => "--token-headroom",
        "working-directory" => "--cwd",
        "dedup" => "--no-dedup",
        "loop-warn-at" => "--loop-warn-at",
        "loop-block-at" => "--loop-block-at",
        "not-found-ttl-ms" => "--not-found-ttl-ms",
        "deny-patterns" => "--deny",
        "allow-patterns" => "--allow",
        "ignore-files" => "--ignore-file",
        _ => "--config",
    }
}

/// How a refusal names the value `value` of the field `field` given at `origin` (`None`: the default).
fn describe(field: &str, value: &str, origin: Option<Origin>) -> String {
    let snake = field.replace('-', "_");
    match origin {
        Some(Origin::Option) => format!("{} {value}", option_name(field)),
        Some(Origin::File) => format!("`{snake}` {value} in the config file"),
        Some(Origin::Request) => format!("`{snake}` {value}"),
        None => format!("`{snake}` {value} (the default)"),
    }
}

/// Refuses the invalid values of `config`: `Err` says `WHAT is out of range: RANGE.` for each value out of its
/// range and `WHAT is not a glob pattern: WHY.` for each malformed pattern, where WHAT names the value where
/// `origin` says it was given (`None` for a field left at its default). The loop thresholds are judged together:
/// when the one the core blames was left at its default, the one given is named instead.
pub fn check(config: &ConfigRecord, origin: impl Fn(&str) -> Option<Origin>) -> Result<(), String> {
    let problems: Vec<ConfigProblem> = Config::problems(config.input());
    if problems.is_empty() {
        return Ok(());
    }
    let warn_at = config
        .loop_warn_at
        .unwrap_or(crate::config::DEFAULT_LOOP_WARN_AT);
    let block_at = config
        .loop_block_at
        .unwrap_or(crate::config::DEFAULT_LOOP_BLOCK_AT);
    Err(problems
        .iter()
        .map(|problem| match problem.field {
            "deny-patterns" | "allow-patterns" => format!(
                "{} is not a glob pattern: {}.",
                describe(problem.field, &problem.value, origin(problem.field)),
                problem.range
            ),
            "ignore-files" => format!(
                "{} is not a file name: {}.",
                describe(problem.field, &problem.value, origin(problem.field)),
                problem.range
            ),
            "loop-block-at" if origin("loop-block-at").is_none() => format!(
                "{} is out of range: at least 2, below loop-block-at {block_at}.",
                describe("loop-warn-at", &warn_at.to_string(), origin("loop-warn-at"))
            ),
            "loop-warn-at" if origin("loop-warn-at").is_none() => format!(
                "{} is out of range: above loop-warn-at {warn_at}.",
                describe(
                    "loop-block-at",
                    &block_at.to_string(),
                    origin("loop-block-at")
                )
            ),
            field => format!(
                "{} is out of range: {}.",
                describe(field, &problem.value, origin(field)),
                problem.range
            ),
        })
        .collect::<Vec<_>>()
        .join(" "))
}

/// The `configure` op: the config fields of `request` (every key but `op` and `id`) on top of `base`. A field
/// the request gives replaces the field of `base` as a whole (a token `budget` must give its `cap`).
///
/// Errors: an `invalid_request` error naming the field: a malformed field, a token `budget` with a `headroom`
/// but no `cap`, a relative `working_directory`, a malformed pattern, a value out of its range (a value `base`
/// held is named as the default: `` `loop_block_at` 4 (the default) ``).
pub fn configure(
    base: &ConfigRecord,
    request: &Map<String, Value>,
) -> Result<ConfigRecord, ReadError> {
    let fields = Fields {
        op: "configure",
        map: request,
    };
    if let Some(extra) = fields.unknown(CONFIG_FIELDS) {
        return Err(ReadError::invalid(format!(
            "unknown config field `{extra}`; the fields are: {}",
            CONFIG_FIELDS.join(", ")
        )));
    }
    let over = config_fields(&fields)?;
    if over.document_cache_dir.is_some() {
        return Err(ReadError::invalid(
            "`document_cache_dir` is given by the host when the session starts; `configure` cannot change it",
        ));
    }
    if let Some(BudgetRecord::Tokens {
        cap: None,
        headroom: Some(headroom),
    }) = over.budget
    {
        return Err(ReadError::invalid(format!(
            "`budget.tokens.headroom` {headroom} needs `budget.tokens.cap` beside it: `configure` replaces the \
             budget as a whole, so give {{\"tokens\": {{\"cap\": N, \"headroom\": {headroom}}}}}."
        )));
    }
    if let Some(dir) = &over.working_directory {
        if !dir.starts_with('/') {
            return Err(ReadError::invalid(format!(
                "`working_directory` {dir:?} must be an absolute path (a directory under a root)"
            )));
        }
    }
    let given: Vec<&str> = NAMED_FIELDS
        .into_iter()
        .filter(|field| {
            over.gives(field) || (field.starts_with("budget.") && over.budget.is_some())
        })
        .collect();
    let config = base.clone().merged(over);
    check(&config, |field| {
        given.contains(&field).then_some(Origin::Request)
    })
    .map_err(ReadError::invalid)?;
    Ok(config)
}

/// The config in force as a config object: every field present but the host's `document_cache_dir`, defaults
/// filled in, the names [`parse_config`] reads (so it round-trips, and a saved copy names no preopen of the
/// host's). `first_root` stands for an absent working directory.
pub fn effective_json(config: &ConfigRecord, first_root: Option<&str>) -> Value {
    let (core, _) = Config::resolve(config.input());
    let budget = match core.budget {
        CoreBudget::Characters(chars) => json!({ "characters": chars }),
        CoreBudget::Tokens { cap, headroom } => {
            json!({ "tokens": { "cap": cap, "headroom": headroom } })
        }
    };
    json!({
        "max_lines": core.max_lines,
        "max_line_length": core.max_line_chars,
        "budget": budget,
        "working_directory": core.working_directory.as_deref().or(first_root),
        "dedup": core.dedup,
        "loop_warn_at": core.loop_warn_at,
        "loop_block_at": core.loop_block_at,
        "not_found_ttl_ms": core.not_found_ttl_ms,
        "deny_patterns": core.deny_patterns,
        "allow_patterns": core.allow_patterns,
        "ignore_files": core.ignore_files,
        "escape_invisible": core.escape_invisible,
        "images": core.images,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(request: Value) -> Option<String> {
        let map = request.as_object().cloned().unwrap_or_default();
        configure(&ConfigRecord::default(), &map)
            .err()
            .map(|e| e.message)
    }

    #[test]
    fn configure_refuses_a_value_out_of_range_naming_the_field() {
        assert_eq!(
            refusal(json!({"op": "configure", "max_line_length": 5})).as_deref(),
            Some("`max_line_length` 5 is out of range: from 16 to 10000000.")
        );
        assert_eq!(
            refusal(json!({"op": "configure", "budget": {"characters": 150}, "id": 1})).as_deref(),
            Some("`budget.characters` 150 is out of range: from 200 to 10000000.")
        );
        assert_eq!(
            refusal(json!({"op": "configure", "loop_warn_at": 4})).as_deref(),
            Some("`loop_warn_at` 4 is out of range: at least 2, below loop-block-at 4.")
        );
        assert_eq!(
            refusal(json!({"op": "configure", "max_lines": 9, "colour": true})).as_deref(),
            Some(
                "unknown config field `colour`; the fields are: max_lines, max_line_length, budget, \
                 working_directory, dedup, loop_warn_at, loop_block_at, not_found_ttl_ms, deny_patterns, \
                 allow_patterns, ignore_files, escape_invisible, images, document_cache_dir"
            )
        );
    }

    #[test]
    fn the_effective_config_round_trips() {
        let config = ConfigRecord {
            max_lines: Some(40),
            deny_patterns: Some(vec!["**/*.key".into()]),
            ..ConfigRecord::default()
        };
        let shown = effective_json(&config, Some("/w"));
        assert_eq!(shown["max_lines"], json!(40));
        assert_eq!(shown["budget"], json!({"characters": 100000}));
        assert_eq!(shown["working_directory"], json!("/w"));
        let parsed = parse_config(&shown).ok();
        assert_eq!(
            parsed.map(|parsed| effective_json(&parsed, None)),
            Some(shown)
        );
        assert_eq!(parse_config(&config.to_json()).ok(), Some(config));
    }
}
