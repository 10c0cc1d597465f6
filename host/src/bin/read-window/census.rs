//! `read-many` and `search`: one protocol line each through a fresh session, printed as text or JSON (a
//! directory's listing is `read DIR`).

use std::process::ExitCode;

use read_window_host::{Config, Grants, ReadWindow};
use serde_json::{json, Map, Value};

use crate::failure::Failure;
use crate::read::{answer_once, print_answer, Answered};

/// The arguments of `read-window read-many`.
#[derive(clap::Args, Debug)]
pub(crate) struct ReadManyArgs {
    /// The files: paths or glob patterns (quote them: 'src/**/*.rs').
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Lines of each file at most.
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// Print one JSON object instead.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The arguments of `read-window search`.
#[derive(clap::Args, Debug)]
pub(crate) struct SearchArgs {
    /// The text to find (a regular expression with --regex).
    pattern: String,
    /// A file or a directory (default: the working directory).
    path: Option<String>,
    /// Read the pattern as a regular expression (linear time).
    #[arg(long)]
    regex: bool,
    /// Match case exactly (default: only when the pattern has an uppercase letter).
    #[arg(long, conflicts_with = "ignore_case")]
    case_sensitive: bool,
    /// Match any case.
    #[arg(long, short = 'i')]
    ignore_case: bool,
    /// Lines of context before and after each match.
    #[arg(long, short = 'C', value_name = "N")]
    context: Option<u32>,
    /// The first match to show, 1-based.
    #[arg(long, value_name = "N")]
    offset: Option<u64>,
    /// Matches to show at most.
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// Print one JSON object instead.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `read-many`: the `read_many` request of `args`, answered and printed.
pub(crate) fn read_many(
    reader: &ReadWindow,
    grants: &Grants,
    config: &Config,
    args: ReadManyArgs,
) -> Result<ExitCode, Failure> {
    let line = with_fields(
        Map::from_iter([
            ("op".to_owned(), json!("read_many")),
            ("paths".to_owned(), json!(args.paths)),
        ]),
        &[("limit", args.limit.map(Into::into))],
    );
    answer_line(reader, grants, config, line, args.json)
}

/// `search`: the `search` request of `args`, answered and printed.
pub(crate) fn search(
    reader: &ReadWindow,
    grants: &Grants,
    config: &Config,
    args: SearchArgs,
) -> Result<ExitCode, Failure> {
    let case = (args.case_sensitive || args.ignore_case).then_some(args.case_sensitive);
    let line = with_fields(
        Map::from_iter([
            ("op".to_owned(), json!("search")),
            ("pattern".to_owned(), json!(args.pattern)),
            ("regex".to_owned(), json!(args.regex)),
        ]),
        &[
            ("path", args.path.map(Into::into)),
            ("case_sensitive", case.map(Into::into)),
            ("context", args.context.map(Into::into)),
            ("offset", args.offset.map(Into::into)),
            ("limit", args.limit.map(Into::into)),
        ],
    );
    answer_line(reader, grants, config, line, args.json)
}

/// Answers the protocol request `line` (`read_many` or `search`) in a session of its own and prints its `text`
/// (config warnings to stderr), or with `as_json` the answer as it is. Exit 1 for an error answer.
fn answer_line(
    reader: &ReadWindow,
    grants: &Grants,
    config: &Config,
    line: Map<String, Value>,
    as_json: bool,
) -> Result<ExitCode, Failure> {
    match answer_once(
        reader,
        grants,
        config,
        &Value::Object(line).to_string(),
        as_json,
    )? {
        Answered::Answer(answer, value) => print_answer(&answer, &value, as_json),
        Answered::Printed(code) => Ok(code),
    }
}

/// `fields` with each `(name, value)` whose value is present added.
fn with_fields(
    mut fields: Map<String, Value>,
    optional: &[(&str, Option<Value>)],
) -> Map<String, Value> {
    for (name, value) in optional {
        if let Some(value) = value {
            fields.insert((*name).to_owned(), value.clone());
        }
    }
    fields
}
