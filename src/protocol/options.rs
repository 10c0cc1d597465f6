//! The `options` op: a host's command line (`--root DIR`, one option per config field, `--config FILE`) read
//! into the roots and the config, so that every command-line host (the Python package's `python -m read_window`
//! and `read-window-mcp`, the npm package's `read-window-mcp`) takes the same options with the same words as the
//! Rust CLI's (`host/src/settings.rs`, which clap reads). The host does what needs its file system: it reads the
//! `--config` file the answer names and asks again with its text, and makes the roots and `--cwd` canonical.
//! docs/protocol.md, "Options".

use serde_json::{json, Value};

use super::config_json::{check, parse_config, BudgetRecord, ConfigRecord, Origin};
use super::json_in::parse_strict;
use crate::error::ReadError;

/// What an option's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A whole number (`--max-lines 50`).
    Count,
    /// A number with a fraction (`--token-headroom 0.8`).
    Share,
    /// A path or a glob, taken as given.
    Text,
    /// No value (`--no-dedup`).
    Flag,
}

/// The options, in the order the usage lists them: name, value kind, value name and help.
const OPTIONS: &[(&str, Kind, &str, &str)] = &[
    (
        "--root",
        Kind::Text,
        "DIR",
        "a directory the model may read, read-only (repeatable)",
    ),
    (
        "--config",
        Kind::Text,
        "FILE",
        "a JSON config file (docs/protocol.md, \"Config\"); the options override it",
    ),
    (
        "--max-lines",
        Kind::Count,
        "N",
        "lines per window at most: 1 to 1000000 (default 2000)",
    ),
    (
        "--max-line-length",
        Kind::Count,
        "N",
        "characters shown of a line before it is clamped (default 2000)",
    ),
    (
        "--max-chars",
        Kind::Count,
        "N",
        "a budget of N characters per window (not with --max-tokens)",
    ),
    (
        "--max-tokens",
        Kind::Count,
        "N",
        "a budget of N estimated tokens per window (a token cap)",
    ),
    (
        "--token-headroom",
        Kind::Share,
        "F",
        "the share of the token cap a window aims at: 0.5 to 1 (default 0.9)",
    ),
    (
        "--cwd",
        Kind::Text,
        "DIR",
        "where relative paths start (default: the current directory under a root)",
    ),
    (
        "--no-dedup",
        Kind::Flag,
        "",
        "never answer an unchanged repeat with a stub",
    ),
    (
        "--loop-warn-at",
        Kind::Count,
        "N",
        "the identical read in a row that warns (default 3)",
    ),
    (
        "--loop-block-at",
        Kind::Count,
        "N",
        "the identical read in a row that is refused (default 4)",
    ),
    (
        "--not-found-ttl-ms",
        Kind::Count,
        "MS",
        "how long a miss counts towards the next (default 60000)",
    ),
    (
        "--deny",
        Kind::Text,
        "GLOB",
        "a credential glob refused beside the built-in list (repeatable)",
    ),
    (
        "--allow",
        Kind::Text,
        "GLOB",
        "a glob excepted from the deny-list (repeatable)",
    ),
    (
        "--no-escape-invisible",
        Kind::Flag,
        "",
        "leave tag, bidi and zero-width characters raw (they are still reported)",
    ),
    (
        "--no-images",
        Kind::Flag,
        "",
        "refuse images as binary, for a text-only model (default: read them as images)",
    ),
    (
        "--ignore-file",
        Kind::Text,
        "NAME",
        "apply the rules of ignore files of this name, as git does (repeatable: .gitignore)",
    ),
    ("--help", Kind::Flag, "", "this text"),
    ("--version", Kind::Flag, "", "the version"),
];

/// A command line read: the values as given, before the config file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// `--root` values, as given.
    pub roots: Vec<String>,
    /// The arguments that are no option's nor an option's value (a command's `FILE`), in order.
    pub positionals: Vec<String>,
    /// `--config`: the config file's path, as given.
    pub config_file: Option<String>,
    /// `--cwd`, as given.
    pub cwd: Option<String>,
    /// `--help` or `-h`.
    pub help: bool,
    /// `--version` or `-V`.
    pub version: bool,
    /// The config the options give (no `working_directory`: the host makes `--cwd` canonical).
    pub config: ConfigRecord,
    max_chars: Option<u32>,
    max_tokens: Option<u32>,
    token_headroom: Option<f64>,
}

/// The usage text every command-line host prints for `--help` and after a usage error, headed by `program`.
pub fn usage(program: &str) -> String {
    let mut text = format!("usage: {program} [--root DIR]... [options]\n\noptions:\n");
    for (name, _, value, help) in OPTIONS {
        let left = if value.is_empty() {
            (*name).to_owned()
        } else {
            format!("{name} {value}")
        };
        text.push_str(&format!("  {left:<24}{help}\n"));
    }
    text
}

/// Reads `args` (the command line after the program's name: `--max-lines 50` or `--max-lines=50`), with at most
/// `positionals` arguments that are no option's (`--` ends the options).
///
/// Errors: an `invalid_request` error naming the option: an unknown option, an argument past `positionals`, a
/// missing value, a value that is not a number where one is wanted, a flag given a value, `--max-chars` beside a
/// token option.
pub fn parse_options(args: &[String], positionals: usize) -> Result<Options, ReadError> {
    let mut options = Options::default();
    let mut rest = args.iter();
    let mut ended = false;
    while let Some(arg) = rest.next() {
        if ended || arg == "-" || !arg.starts_with('-') {
            if options.positionals.len() == positionals {
                return Err(usage_error(format!(
                    "unexpected argument {arg:?}: every value follows its option"
                )));
            }
            options.positionals.push(arg.clone());
            continue;
        }
        if arg == "--" {
            ended = true;
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let name = match name {
            "-h" => "--help",
            "-V" => "--version",
            other => other,
        };
        let Some(&(name, kind, _, _)) = OPTIONS.iter().find(|(known, ..)| *known == name) else {
            return Err(usage_error(format!("unknown option {arg:?}")));
        };
        let value = match (kind, inline) {
            (Kind::Flag, Some(_)) => return Err(usage_error(format!("{name} takes no value"))),
            (Kind::Flag, None) => String::new(),
            (_, Some(value)) => value,
            (_, None) => rest
                .next()
                .cloned()
                .ok_or_else(|| usage_error(format!("{name} needs a value")))?,
        };
        set(&mut options, name, kind, value)?;
    }
    if options.max_chars.is_some()
        && (options.max_tokens.is_some() || options.token_headroom.is_some())
    {
        return Err(usage_error(
            "--max-chars sets a budget of characters: give it or --max-tokens/--token-headroom, not both".to_owned(),
        ));
    }
    Ok(options)
}

/// Sets the option `name` (known, of `kind`) to `value` in `options`.
fn set(options: &mut Options, name: &str, kind: Kind, value: String) -> Result<(), ReadError> {
    let count = || -> Result<u64, ReadError> {
        value
            .parse::<u64>()
            .map_err(|_| usage_error(format!("{name} {value:?}: a whole number from 0 is wanted")))
    };
    let small = || -> Result<u32, ReadError> {
        u32::try_from(count()?)
            .map_err(|_| usage_error(format!("{name} {value}: at most 4294967295")))
    };
    let config = &mut options.config;
    match name {
        "--root" => options.roots.push(value),
        "--config" => options.config_file = Some(value),
        "--cwd" => options.cwd = Some(value),
        "--help" => options.help = true,
        "--version" => options.version = true,
        "--no-dedup" => config.dedup = Some(false),
        "--no-escape-invisible" => config.escape_invisible = Some(false),
        "--no-images" => config.images = Some(false),
        "--max-lines" => config.max_lines = Some(small()?),
        "--max-line-length" => config.max_line_length = Some(small()?),
        "--max-chars" => options.max_chars = Some(small()?),
        "--max-tokens" => options.max_tokens = Some(small()?),
        "--loop-warn-at" => config.loop_warn_at = Some(small()?),
        "--loop-block-at" => config.loop_block_at = Some(small()?),
        "--not-found-ttl-ms" => config.not_found_ttl_ms = Some(count()?),
        "--token-headroom" => {
            let share = value.parse::<f64>().ok().filter(|share| share.is_finite());
            options.token_headroom = Some(
                share
                    .ok_or_else(|| usage_error(format!("{name} {value:?}: a number is wanted")))?,
            );
        }
        "--deny" => config
            .deny_patterns
            .get_or_insert_with(Vec::new)
            .push(value),
        "--ignore-file" => config.ignore_files.get_or_insert_with(Vec::new).push(value),
        // The only option left: every other name was matched above.
        _ => {
            debug_assert_eq!((name, kind), ("--allow", Kind::Text));
            config
                .allow_patterns
                .get_or_insert_with(Vec::new)
                .push(value);
        }
    }
    Ok(())
}

/// The config of `options` over the config file's text `file` (JSON; `None` without `--config`): each option
/// replaces its field, and `--max-tokens` and `--token-headroom` replace only their part of the file's token
/// budget. Values out of range are refused, each named where it was given.
///
/// Errors: an `invalid_request` error: the file is not a JSON config object (naming the field at fault), its
/// `working_directory` is relative, `--token-headroom` comes with no token cap in the options or the file, or a
/// value is out of its range.
pub fn resolve(options: &Options, file: Option<&str>) -> Result<ConfigRecord, ReadError> {
    let file = match file {
        Some(text) => {
            let value = parse_strict(text)
                .map_err(|e| usage_error(format!("--config: the file is not JSON ({e})")))?;
            parse_config(&value).map_err(|e| usage_error(format!("--config: {}", e.message)))?
        }
        None => ConfigRecord::default(),
    };
    if let Some(dir) = file
        .working_directory
        .as_deref()
        .filter(|dir| !dir.starts_with('/'))
    {
        return Err(usage_error(format!(
            "`working_directory` {dir:?} in the config file must be an absolute path (a directory under a root)"
        )));
    }
    let file_tokens = match file.budget {
        Some(BudgetRecord::Tokens { cap, headroom }) => Some((cap, headroom)),
        _ => None,
    };
    if let (Some(headroom), None) = (options.token_headroom, options.max_tokens) {
        if file_tokens.and_then(|(cap, _)| cap).is_none() {
            return Err(usage_error(format!(
                "--token-headroom {headroom} needs a token cap: give --max-tokens N too (or `budget.tokens.cap` in \
                 the config file); a headroom is a share of a token cap."
            )));
        }
    }
    let mut over = options.config.clone();
    over.budget = match (
        options.max_chars,
        options.max_tokens,
        options.token_headroom,
    ) {
        (Some(chars), _, _) => Some(BudgetRecord::Characters(chars)),
        (None, None, None) => None,
        (None, cap, headroom) => Some(BudgetRecord::Tokens {
            cap: cap.or(file_tokens.and_then(|(cap, _)| cap)),
            headroom: headroom.or(file_tokens.and_then(|(_, headroom)| headroom)),
        }),
    };
    let config = file.clone().merged(over);
    check(&config, |field| {
        if given_as_option(options, field) {
            Some(Origin::Option)
        } else if file.gives(field) {
            Some(Origin::File)
        } else {
            None
        }
    })
    .map_err(usage_error)?;
    Ok(config)
}

/// True when an option of `options` gives the field a refusal names as `field`.
fn given_as_option(options: &Options, field: &str) -> bool {
    match field {
        "budget.characters" => options.max_chars.is_some(),
        "budget.tokens.cap" => options.max_tokens.is_some(),
        "budget.tokens.headroom" => options.token_headroom.is_some(),
        other => options.config.gives(other),
    }
}

/// An `options` request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionsRequest {
    /// The program's name, for the usage text.
    pub program: String,
    /// The arguments after the program's name.
    pub args: Vec<String>,
    /// How many arguments may be no option's (a command's `FILE`).
    pub positionals: usize,
    /// The `--config` file's text, once the host read it.
    pub config_file_text: Option<String>,
}

/// The `options` answer: `{"status":"ok","roots","positionals","config_file","cwd","help","version","config",
/// "config_complete","usage"}`; `config` leaves the file out (`config_complete` false) while `config_file` is
/// named and its text not given. An error answer carries `usage` too.
pub fn options_json(request: &OptionsRequest) -> Value {
    let usage = usage(&request.program);
    let file_text = request.config_file_text.as_deref();
    let parsed = parse_options(&request.args, request.positionals).and_then(|options| {
        let complete = options.config_file.is_none() || file_text.is_some();
        let config = if complete {
            resolve(&options, file_text)?
        } else {
            options.config.clone()
        };
        Ok((options, config, complete))
    });
    match parsed {
        Ok((options, config, complete)) => json!({
            "status": "ok",
            "roots": options.roots,
            "positionals": options.positionals,
            "config_file": options.config_file,
            "cwd": options.cwd,
            "help": options.help,
            "version": options.version,
            "config": config.to_json(),
            "config_complete": complete,
            "usage": usage,
        }),
        Err(error) => {
            let mut answer = super::answers::error_json(&error);
            answer["usage"] = json!(usage);
            answer
        }
    }
}

/// A usage error: an `invalid_request` with `message`.
fn usage_error(message: String) -> ReadError {
    ReadError::invalid(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn parsed(line: &str) -> Result<Options, ReadError> {
        parse_options(&args(line), 0)
    }

    fn message(result: Result<impl std::fmt::Debug, ReadError>) -> String {
        result.err().map(|error| error.message).unwrap_or_default()
    }

    #[test]
    fn options_become_roots_and_config() {
        let options = parsed(
            "--root /a --max-lines 50 --root=/b --no-dedup --deny *.pem --deny x --cwd /a/s",
        )
        .unwrap();
        assert_eq!(options.roots, ["/a", "/b"]);
        assert_eq!(options.cwd.as_deref(), Some("/a/s"));
        let config = resolve(&options, None).unwrap();
        assert_eq!(
            config.to_json(),
            json!({"max_lines": 50, "dedup": false, "deny_patterns": ["*.pem", "x"]})
        );
        let tokens = resolve(&parsed("--max-tokens 9000").unwrap(), None).unwrap();
        assert_eq!(
            tokens.to_json(),
            json!({"budget": {"tokens": {"cap": 9000}}})
        );
    }

    #[test]
    fn usage_errors_name_the_option() {
        assert_eq!(message(parsed("--fly")), "unknown option \"--fly\"");
        assert_eq!(
            message(parsed("notes.txt")),
            "unexpected argument \"notes.txt\": every value follows its option"
        );
        assert_eq!(message(parsed("--max-lines")), "--max-lines needs a value");
        assert_eq!(
            message(parsed("--max-lines ten")),
            "--max-lines \"ten\": a whole number from 0 is wanted"
        );
        assert_eq!(message(parsed("--no-dedup=1")), "--no-dedup takes no value");
        assert_eq!(
            message(parsed("--max-chars 900 --max-tokens 100")),
            "--max-chars sets a budget of characters: give it or --max-tokens/--token-headroom, not both"
        );
        assert_eq!(
            message(parsed("--max-lines 4294967296")),
            "--max-lines 4294967296: at most 4294967295"
        );
    }

    #[test]
    fn the_file_is_under_the_options_and_refusals_say_where() {
        let file = r#"{"max_lines": 7, "budget": {"tokens": {"cap": 5000, "headroom": 0.6}}, "loop_warn_at": 2}"#;
        let options = parsed("--config f.json --token-headroom 0.8 --max-lines 9").unwrap();
        let config = resolve(&options, Some(file)).unwrap();
        assert_eq!(
            config.to_json(),
            json!({"max_lines": 9, "budget": {"tokens": {"cap": 5000, "headroom": 0.8}}, "loop_warn_at": 2})
        );
        assert_eq!(
            message(resolve(&parsed("--max-lines 0").unwrap(), None)),
            "--max-lines 0 is out of range: from 1 to 1000000."
        );
        assert_eq!(
            message(resolve(
                &parsed("--config f.json").unwrap(),
                Some(r#"{"max_line_length": 3}"#)
            )),
            "`max_line_length` 3 in the config file is out of range: from 16 to 10000000."
        );
        assert_eq!(
            message(resolve(&parsed("--token-headroom 0.7").unwrap(), None)),
            "--token-headroom 0.7 needs a token cap: give --max-tokens N too (or `budget.tokens.cap` in the config \
             file); a headroom is a share of a token cap."
        );
        assert!(
            message(resolve(&options, Some("{"))).starts_with("--config: the file is not JSON (")
        );
        assert_eq!(
            message(resolve(&options, Some(r#"{"max_lnes": 3}"#))),
            format!(
                "--config: {}",
                message(parse_config(&json!({"max_lnes": 3})))
            )
        );
    }

    #[test]
    fn the_answer_asks_for_the_file_then_merges_it() {
        let ask = |line: &str, positionals, text: Option<&str>| {
            options_json(&OptionsRequest {
                program: "read-window-mcp".into(),
                args: args(line),
                positionals,
                config_file_text: text.map(str::to_owned),
            })
        };
        let first = ask("--config c.json --max-lines 9", 0, None);
        assert_eq!(first["config_file"], "c.json");
        assert_eq!(first["config_complete"], false);
        assert_eq!(first["config"], json!({"max_lines": 9}));
        let second = ask("--config c.json", 0, Some(r#"{"dedup": false}"#));
        assert_eq!(second["config"], json!({"dedup": false}));
        assert_eq!(second["config_complete"], true);
        let file = ask("--max-lines 5 notes.txt --json", 1, None);
        assert_eq!(file["error"]["message"], "unknown option \"--json\"");
        let file = ask("--max-lines 5 notes.txt -- -dash.txt", 2, None);
        assert_eq!(file["positionals"], json!(["notes.txt", "-dash.txt"]));
        let refused = ask("-x", 0, None);
        assert_eq!(refused["status"], "error");
        assert_eq!(refused["error"]["kind"], "invalid_request");
        let usage = refused["usage"].as_str().unwrap_or_default();
        assert!(
            usage.starts_with("usage: read-window-mcp [--root DIR]... [options]"),
            "{usage}"
        );
        assert!(
            usage.contains("  --max-lines N           lines per window at most"),
            "{usage}"
        );
    }
}
