//! Settings at the edge: one command-line option for every field of the WIT `config`, config files (JSON or TOML,
//! the same snake_case field names), the session protocol's `configure` op, and the refusal of out-of-range values
//! before they reach the component.
//!
//! The component itself replaces an out-of-range value by its default and says so in a warning (for hosts that
//! pass config programmatically); the CLI, the MCP server and the session protocol refuse it instead, with a
//! message naming the field and its range. The ranges are the component's own (`read_window::Config`).
//!
//! | field | option | default | range |
//! | --- | --- | --- | --- |
//! | `max_lines` | `--max-lines` | 2,000 | 1 to 1,000,000 |
//! | `max_line_length` | `--max-line-length` | 2,000 characters | 16 to 10,000,000 |
//! | `budget.characters` | `--max-chars` | 100,000 characters | 200 to 10,000,000 |
//! | `budget.tokens.cap` | `--max-tokens` | 25,000 tokens (token mode only) | 100 to 1,000,000 |
//! | `budget.tokens.headroom` | `--token-headroom` (with a token cap) | 0.9 | 0.5 to 1 |
//! | `working_directory` | `--cwd` | the current directory (CLI), the first root | an absolute directory under a root |
//! | `dedup` | `--no-dedup` | true | |
//! | `loop_warn_at` | `--loop-warn-at` | 3 | at least 2, below `loop_block_at` |
//! | `loop_block_at` | `--loop-block-at` | 4 | above `loop_warn_at` |
//! | `not_found_ttl_ms` | `--not-found-ttl-ms` | 60,000 ms | 0 to 86,400,000 |
//! | `deny_patterns` | `--deny` (repeatable) | none (added to the built-in deny-list) | glob patterns |
//! | `allow_patterns` | `--allow` (repeatable) | none | glob patterns |
//! | `ignore_files` | `--ignore-file` (repeatable) | none | plain file names (`.gitignore`) |
//! | `escape_invisible` | `--no-escape-invisible` | true | |
//! | `images` | `--no-images` | true | |
//!
//! A refusal names the value where it was given: the option (`--loop-warn-at 4`), the config file's key
//! (`` `loop_warn_at` 4 in the config file ``), or the `configure` request's key (`` `loop_warn_at` 4 ``).

use std::path::{Path, PathBuf};

use clap::Args;
use read_window::protocol::config_json::{self, BudgetRecord, ConfigRecord};
use read_window::{Config as CoreConfig, ConfigInput};
use serde_json::Value;

use crate::{Budget, Config, Grants, TokenBudget};

/// One option for every config field, shared by every command that reads (`read`, `session`, `page`, `mcp`).
/// Options override the `--config` file field by field (a list option replaces the file's list).
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// A config file (a regular file of at most 1 MiB): TOML when its name ends in `.toml`, JSON when it ends in
    /// `.json`, else JSON when it parses as JSON and TOML otherwise; the WIT config's field names
    /// in snake_case (max_lines, max_line_length, budget, working_directory, dedup, loop_warn_at, loop_block_at,
    /// not_found_ttl_ms, deny_patterns, allow_patterns, ignore_files, escape_invisible, images). The options below
    /// override it.
    #[arg(long = "config", value_name = "FILE", global = true)]
    pub config_file: Option<PathBuf>,

    /// Lines per window at most: 1 to 1000000 (default 2000).
    #[arg(long, value_name = "N", global = true)]
    pub max_lines: Option<u32>,

    /// Characters shown of one line before it is clamped: 16 to 10000000 (default 2000).
    #[arg(long, value_name = "N", global = true)]
    pub max_line_length: Option<u32>,

    /// Budget of N characters of formatted content per window: 200 to 10000000 (default 100000).
    #[arg(long, value_name = "N", global = true, conflicts_with_all = ["max_tokens", "token_headroom"])]
    pub max_chars: Option<u32>,

    /// Budget of N estimated tokens per window (a token cap): 100 to 1000000; windows aim at the headroom of it.
    #[arg(long, value_name = "N", global = true)]
    pub max_tokens: Option<u32>,

    /// Token mode: the share of the token cap a window aims at, 0.5 to 1 (default 0.9). Needs a token cap:
    /// --max-tokens, or `budget.tokens.cap` in the config file.
    #[arg(long, value_name = "F", global = true)]
    pub token_headroom: Option<f64>,

    /// The directory relative paths resolve against (default: the current directory when it lies under a root,
    /// else the first root).
    #[arg(long, value_name = "DIR", global = true)]
    pub cwd: Option<PathBuf>,

    /// Always return content: never answer a repeated window with an "unchanged" stub.
    #[arg(long, global = true)]
    pub no_dedup: bool,

    /// The repeated read of an unchanged window that carries a loop warning: at least 2 (default 3).
    #[arg(long, value_name = "N", global = true)]
    pub loop_warn_at: Option<u32>,

    /// The repeated read that is refused (`loop_blocked`): above --loop-warn-at (default 4).
    #[arg(long, value_name = "N", global = true)]
    pub loop_block_at: Option<u32>,

    /// How long a miss counts towards the next miss of the same path, in milliseconds: 0 to 86400000 (default
    /// 60000; 0 turns the count off).
    #[arg(long, value_name = "MS", global = true)]
    pub not_found_ttl_ms: Option<u64>,

    /// A glob pattern of credential files to refuse, added to the built-in deny-list (repeatable; matched against
    /// the absolute path, `**/` matches any directories).
    #[arg(long = "deny", value_name = "GLOB", global = true)]
    pub deny: Vec<String>,

    /// A glob pattern excepted from the credential deny-list (repeatable).
    #[arg(long = "allow", value_name = "GLOB", global = true)]
    pub allow: Vec<String>,

    /// Apply the rules of the ignore files of this name, as git does: each directory's file from the root down,
    /// negation and directory rules included; an ignored path is refused (repeatable: `--ignore-file .gitignore`).
    #[arg(long = "ignore-file", value_name = "NAME", global = true)]
    pub ignore_file: Vec<String>,

    /// Leave tag, bidi and zero-width characters raw in the content instead of showing them as `⟪U+XXXX⟫` (the
    /// warning that names them stays).
    #[arg(long, global = true)]
    pub no_escape_invisible: bool,

    /// Refuse images as binary instead of reading them as images, for a text-only model.
    #[arg(long, global = true)]
    pub no_images: bool,
}

impl Settings {
    /// The config the file and the options describe, options over the file. `working_directory` is `--cwd`
    /// (made absolute against the current directory and canonical, so host and guest paths agree), else the
    /// file's; absent when neither gives one.
    ///
    /// Errors: a usage message (the file cannot be read or parsed, a field of it is malformed, the file's
    /// `working_directory` is relative, `--cwd` is not a directory, `--token-headroom` comes without a token cap,
    /// a deny or allow pattern is malformed, or a value is out of its range; see [`check`]). Whether the working
    /// directory lies under a root is [`check_working_directory`]'s job, once the roots are known.
    pub fn config(&self) -> Result<Config, String> {
        let file = self.file_config()?;
        let working_directory = self.cwd_option()?;
        let budget = self.budget_option(&file)?;
        let options = self.options(working_directory, budget);
        let config = merge(file.clone(), options);
        check(&config, |field| {
            if self.given_as_option(field) {
                Some(Origin::Option)
            } else if given_in_file(&file, field) {
                Some(Origin::File)
            } else {
                None
            }
        })?;
        Ok(config)
    }

    /// The config file's config (every field absent without `--config`). Errors: the file cannot be read or
    /// parsed, or its `working_directory` is relative.
    fn file_config(&self) -> Result<Config, String> {
        let file = match &self.config_file {
            Some(path) => read_config_file(path)?,
            None => Config::default(),
        };
        if let Some(dir) = &file.working_directory {
            if !dir.starts_with('/') {
                return Err(format!(
                    "`working_directory` {dir:?} in the config file must be an absolute path (a directory under a \
                     root)"
                ));
            }
        }
        Ok(file)
    }

    /// `--cwd`, canonical; `None` without it. Errors: it cannot be resolved or is not a directory.
    fn cwd_option(&self) -> Result<Option<String>, String> {
        let Some(dir) = &self.cwd else {
            return Ok(None);
        };
        let canonical = dir
            .canonicalize()
            .map_err(|e| format!("--cwd {}: {e}", dir.display()))?;
        if !canonical.is_dir() {
            return Err(format!("--cwd {}: not a directory", dir.display()));
        }
        Ok(Some(canonical.to_string_lossy().into_owned()))
    }

    /// The budget the options give: `--max-chars`, else a token budget from `--max-tokens` and
    /// `--token-headroom` with the file's token fields under them; `None` when no budget option is given.
    /// Errors: `--token-headroom` with no token cap in the options or the file.
    fn budget_option(&self, file: &Config) -> Result<Option<Budget>, String> {
        let file_tokens = match &file.budget {
            Some(Budget::Tokens(tokens)) => Some(*tokens),
            _ => None,
        };
        if let (Some(headroom), None) = (self.token_headroom, self.max_tokens) {
            if file_tokens.and_then(|tokens| tokens.cap).is_none() {
                return Err(format!(
                    "--token-headroom {headroom} needs a token cap: give --max-tokens N too (or \
                     `budget.tokens.cap` in the config file); a headroom is a share of a token cap."
                ));
            }
        }
        Ok(
            match (self.max_chars, self.max_tokens, self.token_headroom) {
                (Some(chars), _, _) => Some(Budget::Characters(chars)),
                (None, None, None) => None,
                (None, cap, headroom) => Some(Budget::Tokens(TokenBudget {
                    cap: cap.or(file_tokens.and_then(|tokens| tokens.cap)),
                    headroom: headroom.or(file_tokens.and_then(|tokens| tokens.headroom)),
                })),
            },
        )
    }

    /// The config the options alone give, with `working_directory` and `budget` worked out already.
    fn options(&self, working_directory: Option<String>, budget: Option<Budget>) -> Config {
        Config {
            max_lines: self.max_lines,
            max_line_length: self.max_line_length,
            budget,
            working_directory,
            dedup: self.no_dedup.then_some(false),
            loop_warn_at: self.loop_warn_at,
            loop_block_at: self.loop_block_at,
            not_found_ttl_ms: self.not_found_ttl_ms,
            deny_patterns: (!self.deny.is_empty()).then(|| self.deny.clone()),
            allow_patterns: (!self.allow.is_empty()).then(|| self.allow.clone()),
            ignore_files: (!self.ignore_file.is_empty()).then(|| self.ignore_file.clone()),
            escape_invisible: self.no_escape_invisible.then_some(false),
            images: self.no_images.then_some(false),
            document_cache_dir: None,
        }
    }

    /// True when an option gives the config field `field` (named as [`check`] names it).
    fn given_as_option(&self, field: &str) -> bool {
        match field {
            "max-lines" => self.max_lines.is_some(),
            "max-line-length" => self.max_line_length.is_some(),
            "budget.characters" => self.max_chars.is_some(),
            "budget.tokens.cap" => self.max_tokens.is_some(),
            "budget.tokens.headroom" => self.token_headroom.is_some(),
            "loop-warn-at" => self.loop_warn_at.is_some(),
            "loop-block-at" => self.loop_block_at.is_some(),
            "not-found-ttl-ms" => self.not_found_ttl_ms.is_some(),
            "deny-patterns" => !self.deny.is_empty(),
            "allow-patterns" => !self.allow.is_empty(),
            "ignore-files" => !self.ignore_file.is_empty(),
            _ => false,
        }
    }
}

/// True when the config file `file` gives the config field `field` (named as [`check`] names it).
fn given_in_file(file: &Config, field: &str) -> bool {
    match field {
        "max-lines" => file.max_lines.is_some(),
        "max-line-length" => file.max_line_length.is_some(),
        "budget.characters" => matches!(file.budget, Some(Budget::Characters(_))),
        "budget.tokens.cap" => {
            matches!(&file.budget, Some(Budget::Tokens(tokens)) if tokens.cap.is_some())
        }
        "budget.tokens.headroom" => {
            matches!(&file.budget, Some(Budget::Tokens(tokens)) if tokens.headroom.is_some())
        }
        "loop-warn-at" => file.loop_warn_at.is_some(),
        "loop-block-at" => file.loop_block_at.is_some(),
        "not-found-ttl-ms" => file.not_found_ttl_ms.is_some(),
        "deny-patterns" => file.deny_patterns.is_some(),
        "allow-patterns" => file.allow_patterns.is_some(),
        "ignore-files" => file.ignore_files.is_some(),
        _ => false,
    }
}

pub use read_window::protocol::config_json::{option_name, Origin};

/// Refuses the invalid values of `config`, naming each where `origin` says it was given (see
/// [`read_window::protocol::config_json::check`]).
pub fn check(config: &Config, origin: impl Fn(&str) -> Option<Origin>) -> Result<(), String> {
    config_json::check(&config_record(config), origin)
}

/// `over` on top of `base`: each field `over` sets replaces the field of `base` (a budget as a whole).
pub fn merge(base: Config, over: Config) -> Config {
    wit_config(config_record(&base).merged(config_record(&over)))
}

/// The largest config file read, in bytes (1 MiB): a config is a few hundred bytes, so anything larger is a
/// mistake, and the cap keeps `--config /dev/zero` from filling memory.
pub const MAX_CONFIG_FILE_BYTES: u64 = 1 << 20;

/// Reads a config file: TOML when its name ends in `.toml`, JSON when it ends in `.json`, else JSON when it
/// parses as JSON and TOML otherwise. Fields as in [`answers::parse_config`]; a JSON key given twice is refused
/// (TOML refuses it itself).
///
/// Errors: a usage message naming the file (missing, not a regular file (a FIFO, a device, a directory), over
/// [`MAX_CONFIG_FILE_BYTES`], not UTF-8, not JSON or TOML, a duplicate key, or a malformed field).
pub fn read_config_file(path: &Path) -> Result<Config, String> {
    let shown = path.display();
    let metadata = std::fs::metadata(path).map_err(|e| format!("--config {shown}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "--config {shown}: not a regular file (a config file is a JSON or TOML file)"
        ));
    }
    if metadata.len() > MAX_CONFIG_FILE_BYTES {
        return Err(format!(
            "--config {shown}: {} bytes, over the {MAX_CONFIG_FILE_BYTES}-byte cap on a config file",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| {
            use std::io::Read;
            file.take(MAX_CONFIG_FILE_BYTES + 1).read_to_end(&mut bytes)
        })
        .map_err(|e| format!("--config {shown}: {e}"))?;
    if bytes.len() as u64 > MAX_CONFIG_FILE_BYTES {
        return Err(format!(
            "--config {shown}: over the {MAX_CONFIG_FILE_BYTES}-byte cap on a config file"
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("--config {shown}: not UTF-8 text"))?;
    let extension = path
        .extension()
        .and_then(|ext| ext.to_str())
        .map(str::to_ascii_lowercase);
    let value: Value = match extension.as_deref() {
        Some("toml") => {
            parse_toml(&text).map_err(|e| format!("--config {}: {e}", path.display()))?
        }
        Some("json") => parse_json(&text)
            .map_err(|e| format!("--config {}: not valid JSON: {e}", path.display()))?,
        _ => match parse_json(&text) {
            Ok(value) => value,
            Err(json_error) => parse_toml(&text).map_err(|toml_error| {
                format!(
                    "--config {}: neither JSON ({json_error}) nor TOML ({toml_error})",
                    path.display()
                )
            })?,
        },
    };
    if value.get("document_cache_dir").is_some() {
        return Err(format!(
            "--config {shown}: `document_cache_dir` is the host's to give (the document cache under the cache \
             directory, turned off with {}=off), not a config file's",
            crate::document_cache::DOCUMENT_CACHE_ENV
        ));
    }
    config_json::parse_config(&value)
        .map(wit_config)
        .map_err(|e| format!("--config {}: {}", path.display(), e.message))
}

/// Parses JSON, refusing an object that gives a key twice (the protocol's own reading).
pub fn parse_json(text: &str) -> Result<Value, serde_json::Error> {
    read_window::protocol::parse_strict(text)
}

fn parse_toml(text: &str) -> Result<Value, String> {
    toml::from_str::<Value>(text).map_err(|e| format!("not valid TOML: {}", e.message()))
}

/// Refuses a working directory that is not an absolute guest path of a directory under one of `grants`: `Err`
/// says why (`not under a root (the roots are /a, /b)`, `not a directory`, the I/O error), for the caller to
/// prefix with where it was given.
pub fn check_working_directory(dir: &str, grants: &Grants) -> Result<(), String> {
    if !dir.starts_with('/') {
        return Err("must be an absolute path (a directory under a root)".to_string());
    }
    let host = grants
        .dirs()
        .iter()
        .filter_map(|grant| {
            let guest = grant.guest().trim_end_matches('/');
            let rest = dir.strip_prefix(guest)?;
            if rest.is_empty() || rest.starts_with('/') || guest.is_empty() {
                Some((grant, rest.trim_start_matches('/')))
            } else {
                None
            }
        })
        .max_by_key(|(grant, _)| grant.guest().len())
        .map(|(grant, rest)| grant.host().join(rest));
    let Some(host) = host else {
        let roots: Vec<&str> = grants.dirs().iter().map(|grant| grant.guest()).collect();
        return Err(format!(
            "not under a root (the roots are {})",
            roots.join(", ")
        ));
    };
    match std::fs::metadata(&host) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err("not a directory".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// `config` as the core's copy of the WIT record, which the protocol reads and writes as JSON.
pub fn config_record(config: &Config) -> ConfigRecord {
    ConfigRecord {
        max_lines: config.max_lines,
        max_line_length: config.max_line_length,
        budget: config.budget.map(|budget| match budget {
            Budget::Characters(chars) => BudgetRecord::Characters(chars),
            Budget::Tokens(tokens) => BudgetRecord::Tokens {
                cap: tokens.cap,
                headroom: tokens.headroom,
            },
        }),
        working_directory: config.working_directory.clone(),
        dedup: config.dedup,
        loop_warn_at: config.loop_warn_at,
        loop_block_at: config.loop_block_at,
        not_found_ttl_ms: config.not_found_ttl_ms,
        deny_patterns: config.deny_patterns.clone(),
        allow_patterns: config.allow_patterns.clone(),
        ignore_files: config.ignore_files.clone(),
        escape_invisible: config.escape_invisible,
        images: config.images,
        document_cache_dir: config.document_cache_dir.clone(),
    }
}

/// The core's view of `config` (the component's `config-input`), for validation and the effective values.
pub fn core_input(config: &Config) -> ConfigInput {
    config_record(config).input()
}

/// The WIT record of the core's copy of it.
pub fn wit_config(record: ConfigRecord) -> Config {
    Config {
        max_lines: record.max_lines,
        max_line_length: record.max_line_length,
        budget: record.budget.map(|budget| match budget {
            BudgetRecord::Characters(chars) => Budget::Characters(chars),
            BudgetRecord::Tokens { cap, headroom } => Budget::Tokens(TokenBudget { cap, headroom }),
        }),
        working_directory: record.working_directory,
        dedup: record.dedup,
        loop_warn_at: record.loop_warn_at,
        loop_block_at: record.loop_block_at,
        not_found_ttl_ms: record.not_found_ttl_ms,
        deny_patterns: record.deny_patterns,
        allow_patterns: record.allow_patterns,
        ignore_files: record.ignore_files,
        escape_invisible: record.escape_invisible,
        images: record.images,
        document_cache_dir: record.document_cache_dir,
    }
}

/// The config in force under `config` (every field resolved, a value out of range at its default), as the
/// component reads it: the tool definitions state its line limit and the size of a reply.
pub fn resolved(config: &Config) -> CoreConfig {
    CoreConfig::resolve(core_input(config)).0
}

/// The config in force as a config object (every field present, defaults filled in), as the protocol's `config`
/// op answers it. `first_root` stands for an absent working directory.
pub fn effective_json(config: &Config, first_root: Option<&str>) -> Value {
    config_json::effective_json(&config_record(config), first_root)
}
