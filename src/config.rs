//! Settings of a session or a stateless read: the defaults of DESIGN.md, and validation that replaces an invalid
//! value by its default and says so in a warning instead of failing the read.

/// Lines per window at most (from Hermes Agent's `tool_output.max_lines`).
pub const DEFAULT_MAX_LINES: u64 = 2_000;
/// Characters of one line shown before it is clamped (Hermes Agent's `max_line_length`).
pub const DEFAULT_MAX_LINE_CHARS: u64 = 2_000;
/// Characters of formatted content per window (Hermes Agent's `file_read_max_chars`).
pub const DEFAULT_BUDGET_CHARS: u64 = 100_000;
/// Token cap per window (Claude Code's Read refuses results over 25,000 tokens).
pub const DEFAULT_TOKEN_CAP: u64 = 25_000;
/// Share of the token cap a window aims at (the read-ceiling-pager mod aims at 90%).
pub const DEFAULT_TOKEN_HEADROOM: f64 = 0.9;
/// The consecutive identical read that carries a loop warning.
pub const DEFAULT_LOOP_WARN_AT: u32 = 3;
/// The consecutive identical read that is refused.
pub const DEFAULT_LOOP_BLOCK_AT: u32 = 4;
/// How long a miss counts towards the next miss of the same path, in milliseconds.
pub const DEFAULT_NOT_FOUND_TTL_MS: u64 = 60_000;
/// The smallest character budget accepted: room for a gutter, a marker and some text.
pub const MIN_BUDGET_CHARS: u64 = 200;
/// The smallest token cap accepted.
pub const MIN_TOKEN_CAP: u64 = 100;
/// The smallest token headroom accepted: a window aims at no less than half its cap, so the smallest cap
/// (`MIN_TOKEN_CAP`) still leaves a budget of 50 tokens, room for a gutter, a marker and some text.
pub const MIN_TOKEN_HEADROOM: f64 = 0.5;
/// The smallest clamp accepted, in characters.
pub const MIN_MAX_LINE_CHARS: u64 = 16;
/// The largest character budget accepted: 10,000,000 characters. A window costs at most about 8 bytes of linear
/// memory per character of content (the content, one working copy, the block being read), so the largest window
/// stays near 80 MiB, well under the host's 256 MiB cap on a session's memory.
pub const MAX_BUDGET_CHARS: u64 = 10_000_000;
/// The largest clamp accepted, in characters: a line is never shown past the largest budget anyway.
pub const MAX_MAX_LINE_CHARS: u64 = MAX_BUDGET_CHARS;
/// The most lines per window accepted: 1,000,000 (each shown line costs at least its gutter and newline, so the
/// largest budget holds about this many short lines).
pub const MAX_MAX_LINES: u64 = 1_000_000;
/// The largest token cap accepted: 1,000,000 tokens. The estimate never prices a character under an eighth of a
/// token, so a token window holds at most 8,000,000 characters, under the largest character budget.
pub const MAX_TOKEN_CAP: u64 = 1_000_000;
/// The longest not-found TTL accepted, in milliseconds: a day. A longer memory of a missing file only hides the
/// count of misses from the model longer.
pub const MAX_NOT_FOUND_TTL_MS: u64 = 86_400_000;

/// A config value out of its range: the field (its WIT name), the value given, the range accepted and the
/// default used instead. Hosts that pass config programmatically get it as a warning ([`Config::resolve`]); a CLI
/// or a session protocol refuses it at the edge ([`Config::problems`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigProblem {
    /// The field, as the WIT names it (`max-line-length`, `budget.characters`, `budget.tokens.cap`, ...).
    pub field: &'static str,
    /// The value given, as text.
    pub value: String,
    /// The values accepted, in words (`from 16 to 10000000`).
    pub range: String,
    /// What is used instead, in words: `the default 2000`, or for the loop thresholds (which fall back together)
    /// `the defaults 3 and 4 for loop-warn-at and loop-block-at`.
    pub fallback: String,
}

impl ConfigProblem {
    fn new(
        field: &'static str,
        value: impl ToString,
        range: String,
        default: impl ToString,
    ) -> Self {
        ConfigProblem {
            field,
            value: value.to_string(),
            range,
            fallback: format!("the default {}", default.to_string()),
        }
    }

    /// A problem with one of the loop thresholds: both fall back to their defaults together.
    fn loop_thresholds(field: &'static str, value: u32, range: String) -> Self {
        ConfigProblem {
            field,
            value: value.to_string(),
            range,
            fallback: format!(
                "the defaults {DEFAULT_LOOP_WARN_AT} and {DEFAULT_LOOP_BLOCK_AT} for loop-warn-at and loop-block-at"
            ),
        }
    }

    /// The warning the component reports: `config max-line-length 5 is invalid (from 16 to 10000000); using the
    /// default 2000.` Every config warning starts with `config ` ([`CONFIG_WARNING_PREFIX`]).
    pub fn warning(&self) -> String {
        format!(
            "{CONFIG_WARNING_PREFIX}{} {} is invalid ({}); using {}.",
            self.field, self.value, self.range, self.fallback
        )
    }
}

pub use crate::guards::pattern_problem;

/// How every warning about the config begins. These warnings are for the host, not the model: a result's `text`
/// leaves them out.
pub const CONFIG_WARNING_PREFIX: &str = "config ";

fn between(min: u64, max: u64) -> String {
    format!("from {min} to {max}")
}

/// The cap on one window's formatted content.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// At most this many characters (Unicode scalar values), gutters, markers and newlines included.
    Characters(u64),
    /// At most `cap * headroom` estimated tokens.
    Tokens {
        /// The host's cap, in tokens.
        cap: u64,
        /// The share of the cap aimed at, from [`MIN_TOKEN_HEADROOM`](crate::MIN_TOKEN_HEADROOM) (0.5) to 1.
        headroom: f64,
    },
}

/// What the budget counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetUnit {
    /// Characters of formatted content.
    Characters,
    /// Estimated tokens of formatted content.
    Tokens,
}

/// The budget's figures for one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetReport {
    /// The unit.
    pub unit: BudgetUnit,
    /// The limit (in token mode the cap times the headroom).
    pub limit: u64,
    /// What the content costs.
    pub used: u64,
    /// In token mode, the cap.
    pub cap: Option<u64>,
}

impl BudgetReport {
    /// The report of a window that used `used` of `limit` under `budget`.
    pub fn of(budget: &Budget, limit: u64, used: u64) -> Self {
        let (unit, cap) = match *budget {
            Budget::Characters(_) => (BudgetUnit::Characters, None),
            Budget::Tokens { cap, .. } => (BudgetUnit::Tokens, Some(cap)),
        };
        BudgetReport {
            unit,
            limit,
            used,
            cap,
        }
    }
}

impl Budget {
    /// The limit the content must stay under, in characters or tokens.
    pub fn limit(&self) -> u64 {
        match *self {
            Budget::Characters(chars) => chars,
            Budget::Tokens { cap, headroom } => ((cap as f64) * headroom).floor() as u64,
        }
    }
}

/// The config as a host sends it: every field optional (mirrors the WIT `config`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigInput {
    /// Lines per window at most.
    pub max_lines: Option<u64>,
    /// Characters of a line shown before the clamp.
    pub max_line_chars: Option<u64>,
    /// Budget in characters (mutually exclusive with `token_cap`; tokens win when both are given).
    pub budget_chars: Option<u64>,
    /// Token mode: the cap in tokens.
    pub token_cap: Option<u64>,
    /// Token mode: the headroom.
    pub token_headroom: Option<f64>,
    /// Token mode requested (true when the host chose the tokens variant, even with no cap given).
    pub token_mode: bool,
    /// The guest path relative paths resolve against.
    pub working_directory: Option<String>,
    /// Dedup stubs on or off.
    pub dedup: Option<bool>,
    /// Loop warning threshold.
    pub loop_warn_at: Option<u32>,
    /// Loop block threshold.
    pub loop_block_at: Option<u32>,
    /// How long a miss counts towards the next miss of the same path, in milliseconds (0: no count). A missing
    /// path is checked on every read regardless.
    pub not_found_ttl_ms: Option<u64>,
    /// Extra credential deny patterns.
    pub deny_patterns: Vec<String>,
    /// Exceptions to the credential deny-list.
    pub allow_patterns: Vec<String>,
    /// Names of the ignore files whose rules refuse paths (`.gitignore`); empty: none.
    pub ignore_files: Vec<String>,
    /// Show invisible characters as visible forms `⟪U+XXXX⟫` (default true).
    pub escape_invisible: Option<bool>,
    /// Read images as images (default true); false refuses them as `binary`.
    pub images: Option<bool>,
}

/// The config in force: every value valid.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Lines per window at most, at least 1.
    pub max_lines: u64,
    /// Characters of a line shown before the clamp, at least `MIN_MAX_LINE_CHARS`.
    pub max_line_chars: u64,
    /// The budget of one window.
    pub budget: Budget,
    /// The guest path relative paths resolve against; `None` means the first preopen.
    pub working_directory: Option<String>,
    /// Answer unchanged repeats with a stub.
    pub dedup: bool,
    /// The consecutive identical read that warns.
    pub loop_warn_at: u32,
    /// The consecutive identical read that is refused.
    pub loop_block_at: u32,
    /// How long a miss counts towards the next miss of the same path, in milliseconds (0: no count). A missing
    /// path is checked on every read regardless.
    pub not_found_ttl_ms: u64,
    /// Extra credential deny patterns.
    pub deny_patterns: Vec<String>,
    /// Exceptions to the credential deny-list.
    pub allow_patterns: Vec<String>,
    /// Names of the ignore files whose rules refuse paths (`.gitignore`); empty: none.
    pub ignore_files: Vec<String>,
    /// Show each invisible character (tag, bidi control, zero-width) in a window as its visible form
    /// `⟪U+XXXX⟫`; off, the content holds them as they are. Either way a window that holds any reports them.
    pub escape_invisible: bool,
    /// Read PNG, JPEG, GIF, WebP and BMP files as image windows; off (for a text-only model), they are refused as
    /// `binary`, as in a build without the `images` feature.
    pub images: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_lines: DEFAULT_MAX_LINES,
            max_line_chars: DEFAULT_MAX_LINE_CHARS,
            budget: Budget::Characters(DEFAULT_BUDGET_CHARS),
            working_directory: None,
            dedup: true,
            loop_warn_at: DEFAULT_LOOP_WARN_AT,
            loop_block_at: DEFAULT_LOOP_BLOCK_AT,
            not_found_ttl_ms: DEFAULT_NOT_FOUND_TTL_MS,
            deny_patterns: Vec::new(),
            allow_patterns: Vec::new(),
            ignore_files: Vec::new(),
            escape_invisible: true,
            images: true,
        }
    }
}

impl Config {
    /// Validates `input`: each invalid value is replaced by its default and named in the returned warnings (one
    /// [`ConfigProblem::warning`] each, plus a note when both a character and a token budget are given).
    pub fn resolve(input: ConfigInput) -> (Config, Vec<String>) {
        let (config, problems, both_budgets) = Config::check(input);
        let mut warnings: Vec<String> = problems.iter().map(ConfigProblem::warning).collect();
        if both_budgets {
            warnings.push(format!(
                "{CONFIG_WARNING_PREFIX}sets both a character and a token budget; the token budget is used."
            ));
        }
        (config, warnings)
    }

    /// The values of `input` out of their ranges, for hosts that refuse them at the edge; empty when all are valid.
    pub fn problems(input: ConfigInput) -> Vec<ConfigProblem> {
        Config::check(input).1
    }

    /// The config in force, the problems found, and whether both kinds of budget were given.
    fn check(input: ConfigInput) -> (Config, Vec<ConfigProblem>, bool) {
        let mut problems = Vec::new();
        let mut config = Config {
            working_directory: input.working_directory.filter(|dir| !dir.is_empty()),
            dedup: input.dedup.unwrap_or(true),
            deny_patterns: input.deny_patterns,
            allow_patterns: input.allow_patterns,
            ignore_files: input.ignore_files,
            escape_invisible: input.escape_invisible.unwrap_or(true),
            images: input.images.unwrap_or(true),
            ..Config::default()
        };
        let lines = (1, MAX_MAX_LINES, DEFAULT_MAX_LINES);
        if let Some(lines) = within(&mut problems, "max-lines", input.max_lines, lines) {
            config.max_lines = lines;
        }
        let chars = (
            MIN_MAX_LINE_CHARS,
            MAX_MAX_LINE_CHARS,
            DEFAULT_MAX_LINE_CHARS,
        );
        if let Some(chars) = within(
            &mut problems,
            "max-line-length",
            input.max_line_chars,
            chars,
        ) {
            config.max_line_chars = chars;
        }
        let token_mode = input.token_mode || input.token_cap.is_some();
        if token_mode {
            config.budget = token_budget(&mut problems, input.token_cap, input.token_headroom);
        } else {
            let range = (MIN_BUDGET_CHARS, MAX_BUDGET_CHARS, DEFAULT_BUDGET_CHARS);
            if let Some(chars) = within(
                &mut problems,
                "budget.characters",
                input.budget_chars,
                range,
            ) {
                config.budget = Budget::Characters(chars);
            }
        }
        if let Some((warn_at, block_at)) =
            loop_thresholds(&mut problems, input.loop_warn_at, input.loop_block_at)
        {
            config.loop_warn_at = warn_at;
            config.loop_block_at = block_at;
        }
        let ttl = (0, MAX_NOT_FOUND_TTL_MS, DEFAULT_NOT_FOUND_TTL_MS);
        if let Some(ttl) = within(
            &mut problems,
            "not-found-ttl-ms",
            input.not_found_ttl_ms,
            ttl,
        ) {
            config.not_found_ttl_ms = ttl;
        }
        for (field, patterns) in [
            ("deny-patterns", &mut config.deny_patterns),
            ("allow-patterns", &mut config.allow_patterns),
        ] {
            drop_bad_patterns(&mut problems, field, patterns);
        }
        drop_bad_file_names(&mut problems, &mut config.ignore_files);
        let both_budgets = token_mode && input.budget_chars.is_some();
        (config, problems, both_budgets)
    }
}

/// `value` when it is given and in `min..=max` of `(min, max, default)`; `None` when it is absent, or out of the
/// range (then `field`'s problem is added, falling back to `default`).
fn within(
    problems: &mut Vec<ConfigProblem>,
    field: &'static str,
    value: Option<u64>,
    (min, max, default): (u64, u64, u64),
) -> Option<u64> {
    let value = value?;
    if (min..=max).contains(&value) {
        return Some(value);
    }
    problems.push(ConfigProblem::new(field, value, between(min, max), default));
    None
}

/// The token budget of `cap` and `headroom`, each its default when absent or out of its range (with a problem).
fn token_budget(
    problems: &mut Vec<ConfigProblem>,
    cap: Option<u64>,
    headroom: Option<f64>,
) -> Budget {
    let caps = (MIN_TOKEN_CAP, MAX_TOKEN_CAP, DEFAULT_TOKEN_CAP);
    let cap = within(problems, "budget.tokens.cap", cap, caps).unwrap_or(DEFAULT_TOKEN_CAP);
    let headroom = match headroom {
        Some(headroom) if (MIN_TOKEN_HEADROOM..=1.0).contains(&headroom) => headroom,
        Some(headroom) => {
            problems.push(ConfigProblem::new(
                "budget.tokens.headroom",
                // Debug keeps 1e-300 short where Display writes 300 digits.
                format!("{headroom:?}"),
                format!("from {MIN_TOKEN_HEADROOM} to 1"),
                DEFAULT_TOKEN_HEADROOM,
            ));
            DEFAULT_TOKEN_HEADROOM
        }
        None => DEFAULT_TOKEN_HEADROOM,
    };
    Budget::Tokens { cap, headroom }
}

/// The loop thresholds `(warn_at, block_at)` (each its default when absent) when warn-at is at least 2 and
/// block-at above it; else `None`, with the problem of the one that is wrong (both fall back to the defaults).
fn loop_thresholds(
    problems: &mut Vec<ConfigProblem>,
    warn_at: Option<u32>,
    block_at: Option<u32>,
) -> Option<(u32, u32)> {
    let warn_at = warn_at.unwrap_or(DEFAULT_LOOP_WARN_AT);
    let block_at = block_at.unwrap_or(DEFAULT_LOOP_BLOCK_AT);
    if warn_at >= 2 && block_at > warn_at {
        return Some((warn_at, block_at));
    }
    problems.push(if warn_at < 2 {
        ConfigProblem::loop_thresholds(
            "loop-warn-at",
            warn_at,
            format!("at least 2, below loop-block-at {block_at}"),
        )
    } else {
        ConfigProblem::loop_thresholds(
            "loop-block-at",
            block_at,
            format!("above loop-warn-at {warn_at}"),
        )
    });
    None
}

/// Drops from `patterns` each pattern [`pattern_problem`] refuses, with its problem under `field`.
fn drop_bad_patterns(
    problems: &mut Vec<ConfigProblem>,
    field: &'static str,
    patterns: &mut Vec<String>,
) {
    patterns.retain(|pattern| match pattern_problem(pattern) {
        Some(why) => {
            problems.push(ConfigProblem {
                field,
                value: pattern.clone(),
                range: why,
                fallback: "the other patterns without it".to_string(),
            });
            false
        }
        None => true,
    });
}

/// Drops from `names` each entry that is not a plain file name (empty, `.`, `..`, or holding `/` or a NUL),
/// with its problem under `ignore-files`; a name given twice is kept once.
fn drop_bad_file_names(problems: &mut Vec<ConfigProblem>, names: &mut Vec<String>) {
    let mut seen: Vec<String> = Vec::new();
    names.retain(|name| {
        let why = match name.as_str() {
            "" => Some("it is empty"),
            "." | ".." => Some("it names a directory"),
            _ if name.contains('/') => {
                Some("it holds a `/`: ignore files are named, and found in each directory")
            }
            _ if name.contains('\0') => Some("it holds a NUL character"),
            _ => None,
        };
        if let Some(why) = why {
            problems.push(ConfigProblem {
                field: "ignore-files",
                value: name.clone(),
                range: why.to_string(),
                fallback: "the other names without it".to_string(),
            });
            return false;
        }
        if seen.contains(name) {
            return false;
        }
        seen.push(name.clone());
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_come_from_the_design() {
        let (config, warnings) = Config::resolve(ConfigInput::default());
        assert!(warnings.is_empty());
        assert_eq!(config.max_lines, 2_000);
        assert_eq!(config.max_line_chars, 2_000);
        assert_eq!(config.budget, Budget::Characters(100_000));
        assert_eq!((config.loop_warn_at, config.loop_block_at), (3, 4));
        assert_eq!(config.not_found_ttl_ms, 60_000);
    }

    #[test]
    fn invalid_values_fall_back_with_one_warning_each() {
        let (config, warnings) = Config::resolve(ConfigInput {
            max_lines: Some(0),
            budget_chars: Some(10),
            loop_warn_at: Some(5),
            loop_block_at: Some(5),
            ..ConfigInput::default()
        });
        assert_eq!(config.max_lines, 2_000);
        assert_eq!(config.budget, Budget::Characters(100_000));
        assert_eq!((config.loop_warn_at, config.loop_block_at), (3, 4));
        assert_eq!(warnings.len(), 3, "{warnings:?}");
    }

    #[test]
    fn values_over_the_upper_bounds_fall_back_and_name_their_range() {
        let (config, warnings) = Config::resolve(ConfigInput {
            max_lines: Some(1_000_001),
            max_line_chars: Some(4_294_967_295),
            budget_chars: Some(10_000_001),
            not_found_ttl_ms: Some(86_400_001),
            ..ConfigInput::default()
        });
        assert_eq!(config, Config::default());
        assert_eq!(
            warnings,
            [
                "config max-lines 1000001 is invalid (from 1 to 1000000); using the default 2000.",
                "config max-line-length 4294967295 is invalid (from 16 to 10000000); using the default 2000.",
                "config budget.characters 10000001 is invalid (from 200 to 10000000); using the default 100000.",
                "config not-found-ttl-ms 86400001 is invalid (from 0 to 86400000); using the default 60000.",
            ]
        );
        let problems = Config::problems(ConfigInput {
            token_cap: Some(1_000_001),
            ..ConfigInput::default()
        });
        assert_eq!(problems.len(), 1);
        assert_eq!(
            (problems[0].field, problems[0].range.as_str()),
            ("budget.tokens.cap", "from 100 to 1000000")
        );
    }

    #[test]
    fn the_bounds_themselves_are_accepted() {
        let input = ConfigInput {
            max_lines: Some(MAX_MAX_LINES),
            max_line_chars: Some(MAX_MAX_LINE_CHARS),
            budget_chars: Some(MAX_BUDGET_CHARS),
            not_found_ttl_ms: Some(MAX_NOT_FOUND_TTL_MS),
            ..ConfigInput::default()
        };
        assert!(Config::problems(input.clone()).is_empty());
        let (config, _) = Config::resolve(input);
        assert_eq!(config.budget, Budget::Characters(10_000_000));
        assert_eq!(config.max_line_chars, 10_000_000);
    }

    #[test]
    fn a_headroom_under_half_and_a_malformed_pattern_fall_back_with_warnings() {
        let (config, warnings) = Config::resolve(ConfigInput {
            token_cap: Some(100),
            token_headroom: Some(0.01),
            deny_patterns: vec!["/etc/serv[".into(), "**/*.key".into()],
            allow_patterns: vec!["{a".into()],
            ..ConfigInput::default()
        });
        assert_eq!(
            config.budget,
            Budget::Tokens {
                cap: 100,
                headroom: 0.9
            }
        );
        assert_eq!(config.deny_patterns, ["**/*.key"]);
        assert!(config.allow_patterns.is_empty());
        assert_eq!(
            warnings,
            [
                "config budget.tokens.headroom 0.01 is invalid (from 0.5 to 1); using the default 0.9.",
                "config deny-patterns /etc/serv[ is invalid (a `[` class is not closed by `]`); using the other \
                 patterns without it.",
                "config allow-patterns {a is invalid (a `{` group is not closed by `}`); using the other patterns \
                 without it.",
            ]
        );
        let smallest = Config::resolve(ConfigInput {
            token_cap: Some(MIN_TOKEN_CAP),
            token_headroom: Some(MIN_TOKEN_HEADROOM),
            ..ConfigInput::default()
        });
        assert_eq!((smallest.0.budget.limit(), smallest.1.len()), (50, 0));
    }

    #[test]
    fn token_mode_limit_is_cap_times_headroom() {
        let (config, _) = Config::resolve(ConfigInput {
            token_mode: true,
            ..ConfigInput::default()
        });
        assert_eq!(config.budget.limit(), 22_500);
    }
}
