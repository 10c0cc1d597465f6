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
/// The smallest clamp accepted, in characters.
pub const MIN_MAX_LINE_CHARS: u64 = 16;

/// The cap on one window's formatted content.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// At most this many characters (Unicode scalar values), gutters, markers and newlines included.
    Characters(u64),
    /// At most `cap * headroom` estimated tokens.
    Tokens {
        /// The host's cap, in tokens.
        cap: u64,
        /// The share of the cap aimed at, in (0, 1].
        headroom: f64,
    },
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
        }
    }
}

impl Config {
    /// Validates `input`: each invalid value is replaced by its default and named in the returned warnings.
    pub fn resolve(input: ConfigInput) -> (Config, Vec<String>) {
        let mut warnings = Vec::new();
        let mut config = Config {
            working_directory: input.working_directory.filter(|dir| !dir.is_empty()),
            dedup: input.dedup.unwrap_or(true),
            deny_patterns: input.deny_patterns,
            allow_patterns: input.allow_patterns,
            ..Config::default()
        };
        if let Some(lines) = input.max_lines {
            if lines >= 1 {
                config.max_lines = lines;
            } else {
                warnings.push(format!(
                    "config max-lines {lines} is invalid (at least 1); using the default {DEFAULT_MAX_LINES}."
                ));
            }
        }
        if let Some(chars) = input.max_line_chars {
            if chars >= MIN_MAX_LINE_CHARS {
                config.max_line_chars = chars;
            } else {
                warnings.push(format!(
                    "config max-line-length {chars} is invalid (at least {MIN_MAX_LINE_CHARS}); using the default {DEFAULT_MAX_LINE_CHARS}."
                ));
            }
        }
        if input.token_mode || input.token_cap.is_some() {
            let cap = match input.token_cap {
                Some(cap) if cap >= MIN_TOKEN_CAP => cap,
                Some(cap) => {
                    warnings.push(format!(
                        "config token cap {cap} is invalid (at least {MIN_TOKEN_CAP}); using the default {DEFAULT_TOKEN_CAP}."
                    ));
                    DEFAULT_TOKEN_CAP
                }
                None => DEFAULT_TOKEN_CAP,
            };
            let headroom = match input.token_headroom {
                Some(headroom) if headroom > 0.0 && headroom <= 1.0 => headroom,
                Some(headroom) => {
                    warnings.push(format!(
                        "config token headroom {headroom} is invalid (above 0, at most 1); using the default {DEFAULT_TOKEN_HEADROOM}."
                    ));
                    DEFAULT_TOKEN_HEADROOM
                }
                None => DEFAULT_TOKEN_HEADROOM,
            };
            config.budget = Budget::Tokens { cap, headroom };
            if input.budget_chars.is_some() {
                warnings.push(
                    "config sets both a character and a token budget; the token budget is used."
                        .to_string(),
                );
            }
        } else if let Some(chars) = input.budget_chars {
            if chars >= MIN_BUDGET_CHARS {
                config.budget = Budget::Characters(chars);
            } else {
                warnings.push(format!(
                    "config budget of {chars} characters is invalid (at least {MIN_BUDGET_CHARS}); using the default {DEFAULT_BUDGET_CHARS}."
                ));
            }
        }
        let warn_at = input.loop_warn_at.unwrap_or(DEFAULT_LOOP_WARN_AT);
        let block_at = input.loop_block_at.unwrap_or(DEFAULT_LOOP_BLOCK_AT);
        if warn_at >= 2 && block_at > warn_at {
            config.loop_warn_at = warn_at;
            config.loop_block_at = block_at;
        } else {
            warnings.push(format!(
                "config loop thresholds warn-at {warn_at} and block-at {block_at} are invalid (warn-at at least 2, block-at above it); using the defaults {DEFAULT_LOOP_WARN_AT} and {DEFAULT_LOOP_BLOCK_AT}."
            ));
        }
        if let Some(ttl) = input.not_found_ttl_ms {
            // A day at most: a longer memory of a missing file hides files the host creates later.
            if ttl <= 86_400_000 {
                config.not_found_ttl_ms = ttl;
            } else {
                warnings.push(format!(
                    "config not-found-ttl-ms {ttl} is invalid (at most 86400000); using the default {DEFAULT_NOT_FOUND_TTL_MS}."
                ));
            }
        }
        (config, warnings)
    }
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
    fn token_mode_limit_is_cap_times_headroom() {
        let (config, _) = Config::resolve(ConfigInput {
            token_mode: true,
            ..ConfigInput::default()
        });
        assert_eq!(config.budget.limit(), 22_500);
    }
}
