//! What every MCP server over the component shares, so that the Rust, Python and JavaScript servers are pipes:
//! the server's name, version and instructions, the MCP default budget (`mcp_server`), and which directories a
//! connection may read (`mcp_roots`: the `--root` options, else the client's `file://` roots, else the current
//! directory unless it is `/` or the home directory). The host grants what the answer names; the rules and their
//! words are here. docs/protocol.md, "MCP servers".

use serde_json::{json, Value};

use super::json_in::{type_name, Fields};
use crate::error::ReadError;

use super::config_json::{BudgetRecord, ConfigRecord};
use super::mcp::MCP_TOKEN_CAP;

/// The server's name at `initialize`.
pub const SERVER_NAME: &str = "read-window";

/// The server's version at `initialize`: the component's (one version for the WIT, the crates and the packages).
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the server tells the client (and through it the model) about itself at `initialize`.
pub const INSTRUCTIONS: &str = "read-window reads text files for you in bounded windows with line numbers. Use \
read_file to read a file; when its hint says the window was truncated, make the call the hint names: \
offset=next_offset (and column=next_column when given) for the lines after the window, offset=N column=C limit=1 \
for the rest of a clamped line N (clamped_lines[].next_column). A repeated read of an unchanged window returns a \
short \"[read-window: unchanged]\" stub: the content you already received is still current, and the stub ends with \
the call that continues; if that content is no longer in your context (it was compacted), repeat the call with \
fresh=true. list_directory lists a directory, read_files reads several files under one budget, search finds a \
pattern's matching lines: each hint states the census (how many there are in all), so a page is never the whole \
unless the hint says so. Before writing text that came from read_file into a file, check it with check_write: \
line-number gutters (`N|`) and `[read-window: ...]` markers must never end up in a file.";

/// `config` as an MCP server's sessions run it: with the MCP default budget (a token cap of [`MCP_TOKEN_CAP`],
/// under Claude Code's output cap) when it sets no budget.
pub fn with_mcp_budget(mut config: ConfigRecord) -> ConfigRecord {
    if config.budget.is_none() {
        config.budget = Some(BudgetRecord::Tokens {
            cap: Some(MCP_TOKEN_CAP),
            headroom: None,
        });
    }
    config
}

/// What a host knows when it asks which directories an MCP connection may read (the `mcp_roots` op).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RootsInput {
    /// The `--root` options, as given (host paths).
    pub options: Vec<String>,
    /// The URIs the client listed in `roots/list`; `None` when it has no roots capability or did not answer.
    pub client_roots: Option<Vec<String>>,
    /// The host's current directory, canonical.
    pub cwd: String,
    /// The home directory, canonical, when there is one.
    pub home: Option<String>,
    /// Client roots the host tried to grant and could not, each with why (`"/gone" (no such directory)`): a
    /// host asks again with them after a grant failed.
    pub ungrantable: Vec<(String, String)>,
}

/// Where a connection's directories come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootsFrom {
    /// The `--root` options.
    Options,
    /// The client's roots.
    Client,
    /// The current directory (no option, no usable client root listed).
    Cwd,
}

impl RootsFrom {
    /// The name the answer gives it: `options`, `client` or `cwd`.
    pub fn as_str(self) -> &'static str {
        match self {
            RootsFrom::Options => "options",
            RootsFrom::Client => "client",
            RootsFrom::Cwd => "cwd",
        }
    }
}

/// Which directories to grant, or why none may be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootsAnswer {
    /// Host paths to grant, read-only, in order, no repeats (empty with a `refusal`).
    pub roots: Vec<String>,
    /// Where they come from.
    pub from: RootsFrom,
    /// Each client root that cannot be read, with why (`"not a local file:// URI"`).
    pub refused: Vec<(String, String)>,
    /// Why nothing may be granted: a message for the model, which names `--root`. Every tool call is then
    /// answered with it (a `host_error` of cause `start`).
    pub refusal: Option<String>,
    /// Where relative paths start: the current directory when it lies under one of `roots`, else the first
    /// root; `None` with no roots.
    pub working_directory: Option<String>,
}

/// The directories an MCP connection may read, by the rule the module names.
pub fn resolve_roots(input: &RootsInput) -> RootsAnswer {
    let answer = |roots: Vec<String>, from, refused, refusal| RootsAnswer {
        working_directory: working_directory(&roots, &input.cwd),
        roots,
        from,
        refused,
        refusal,
    };
    if !input.options.is_empty() {
        return answer(
            unique(input.options.clone()),
            RootsFrom::Options,
            vec![],
            None,
        );
    }
    let listed = input.client_roots.as_deref().unwrap_or_default();
    let mut roots = Vec::new();
    let mut refused = Vec::new();
    for uri in listed {
        match file_uri_path(uri) {
            Some(path) => match input.ungrantable.iter().find(|(root, _)| *root == path) {
                Some((_, why)) => refused.push((uri.clone(), why.clone())),
                None => roots.push(path),
            },
            None => refused.push((uri.clone(), "not a local file:// URI".to_owned())),
        }
    }
    if !roots.is_empty() {
        return answer(unique(roots), RootsFrom::Client, refused, None);
    }
    if !refused.is_empty() {
        let reasons: Vec<String> = refused
            .iter()
            .map(|(uri, why)| format!("{uri:?} ({why})"))
            .collect();
        let message = format!(
            "read-window cannot read any file: none of the roots the client offers could be granted: {}. Offer \
             a local directory as a root (a file:// URI), or start the server with --root DIR.",
            reasons.join("; ")
        );
        return answer(vec![], RootsFrom::Client, refused, Some(message));
    }
    match cwd_refusal(&input.cwd, input.home.as_deref()) {
        Some(message) => answer(vec![], RootsFrom::Cwd, vec![], Some(message)),
        None => answer(vec![input.cwd.clone()], RootsFrom::Cwd, vec![], None),
    }
}

/// The message for the model when the client offers no roots and the current directory `cwd` may not be read
/// ([`fallback_refusal`]); `None` when it may.
pub fn cwd_refusal(cwd: &str, home: Option<&str>) -> Option<String> {
    let why = fallback_refusal(cwd, home)?;
    Some(format!(
        "read-window cannot read any file: the client offers no roots, and {why} In the client's settings, add \
         `--root /path/to/project` to the server's arguments (a JSON config: \"args\": [..., \"--root\", \
         \"/path/to/project\"]), or have the client offer the project as a root."
    ))
}

/// The current directory `cwd` when it lies under one of `roots` (at a `/` boundary), else the first root.
fn working_directory(roots: &[String], cwd: &str) -> Option<String> {
    let under = |root: &String| {
        let root = root.trim_end_matches('/');
        cwd.strip_prefix(root)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    if roots.iter().any(under) {
        Some(cwd.to_owned())
    } else {
        roots.first().cloned()
    }
}

/// Why the current directory `cwd` may not be read whole when nothing else names a root: it is `/` or the home
/// directory (a client may start servers there), in a sentence; `None` when it may.
pub fn fallback_refusal(cwd: &str, home: Option<&str>) -> Option<String> {
    let trimmed = |path: &str| path.trim_end_matches('/').to_owned();
    let what = if trimmed(cwd).is_empty() {
        "the root of the file system"
    } else if home.is_some_and(|home| !home.is_empty() && trimmed(home) == trimmed(cwd)) {
        "your home directory"
    } else {
        return None;
    };
    Some(format!(
        "the server was started in {cwd} ({what}) with no --root, which it does not open to the model whole."
    ))
}

/// The `mcp_roots` answer: `{"status":"ok","roots":[...],"from":...,"refused":[{"root","reason"}],
/// "working_directory"}`, with `"refusal"` (and a null `working_directory`) when nothing may be granted.
pub fn roots_json(answer: &RootsAnswer) -> Value {
    let refused: Vec<Value> = answer
        .refused
        .iter()
        .map(|(root, reason)| json!({ "root": root, "reason": reason }))
        .collect();
    let mut value = json!({
        "status": "ok",
        "roots": answer.roots,
        "from": answer.from.as_str(),
        "refused": refused,
        "working_directory": answer.working_directory,
    });
    if let Some(refusal) = &answer.refusal {
        value["refusal"] = json!(refusal);
    }
    value
}

/// `mcp_roots`' `ungrantable`: a list of `{"root": PATH, "reason": TEXT}` (absent: none).
pub(super) fn ungrantable(fields: &Fields) -> Result<Vec<(String, String)>, ReadError> {
    const SHAPE: &str = "a list of {\"root\": PATH, \"reason\": TEXT} objects";
    let Some(value) = fields.present("ungrantable") else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = value else {
        return Err(ReadError::invalid(format!(
            "`ungrantable` must be {SHAPE}, not {}",
            type_name(value)
        )));
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let text = |key| item.get(key).and_then(Value::as_str).map(str::to_owned);
            text("root").zip(text("reason")).ok_or_else(|| {
                ReadError::invalid(format!(
                    "`ungrantable` must be {SHAPE}; item {index} is {} without a string `root` and `reason`",
                    type_name(item)
                ))
            })
        })
        .collect()
}

/// `paths` without repeats, first kept.
fn unique(paths: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::with_capacity(paths.len());
    for path in paths {
        if !kept.contains(&path) {
            kept.push(path);
        }
    }
    kept
}

/// The local path of a `file://` URI (`file:///abs/path` or `file://localhost/abs/path`, percent-decoded, any
/// query or fragment dropped); `None` for another scheme, a remote host, a malformed escape or a path that is
/// not UTF-8 once decoded.
pub fn file_uri_path(uri: &str) -> Option<String> {
    let scheme = uri.get(..7)?;
    if !scheme.eq_ignore_ascii_case("file://") {
        return None;
    }
    let rest = uri.get(7..)?;
    let slash = rest.find('/')?;
    let (host, path) = rest.split_at(slash);
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = path.split(['?', '#']).next()?;
    String::from_utf8(percent_decode(path)?).ok()
}

/// Decodes `%XX` escapes; `None` when a `%` is not followed by two hex digits.
fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(byte) = bytes.next() {
        if byte == b'%' {
            let high = hex_value(bytes.next()?)?;
            let low = hex_value(bytes.next()?)?;
            out.push(high << 4 | low);
        } else {
            out.push(byte);
        }
    }
    Some(out)
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(options: &[&str], client: Option<&[&str]>, cwd: &str) -> RootsInput {
        RootsInput {
            options: options.iter().map(|s| s.to_string()).collect(),
            client_roots: client.map(|uris| uris.iter().map(|s| s.to_string()).collect()),
            cwd: cwd.to_owned(),
            home: Some("/home/me".to_owned()),
            ungrantable: vec![],
        }
    }

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/me/proj").as_deref(),
            Some("/home/me/proj")
        );
        assert_eq!(
            file_uri_path("FILE://localhost/a%20b/c%2Fd?x#y").as_deref(),
            Some("/a b/c/d")
        );
        assert_eq!(file_uri_path("file://server/share"), None);
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(file_uri_path("file:///bad%2"), None);
        assert_eq!(file_uri_path("file:///bad%zz"), None);
        assert_eq!(file_uri_path("file:///bad%ff"), None);
        assert_eq!(file_uri_path("file://"), None);
        assert_eq!(file_uri_path("fil"), None);
    }

    #[test]
    fn options_win_over_the_client() {
        let answer = resolve_roots(&input(&["/a", "/b", "/a"], Some(&["file:///c"]), "/"));
        assert_eq!(answer.roots, ["/a", "/b"]);
        assert_eq!(answer.from, RootsFrom::Options);
        assert_eq!(answer.working_directory.as_deref(), Some("/a"));
        let inside = resolve_roots(&input(&["/a", "/b/"], None, "/b/src"));
        assert_eq!(inside.working_directory.as_deref(), Some("/b/src"));
        let beside = resolve_roots(&input(&["/a"], None, "/ab"));
        assert_eq!(beside.working_directory.as_deref(), Some("/a"));
        assert_eq!(answer.refusal, None);
    }

    #[test]
    fn client_roots_are_read_and_bad_ones_named() {
        let answer = resolve_roots(&input(
            &[],
            Some(&["file:///p", "https://x", "file:///p"]),
            "/",
        ));
        assert_eq!(answer.roots, ["/p"]);
        assert_eq!(answer.from, RootsFrom::Client);
        assert_eq!(
            answer.refused,
            [("https://x".to_owned(), "not a local file:// URI".to_owned())]
        );
        assert_eq!(answer.refusal, None);
    }

    #[test]
    fn a_root_the_host_could_not_grant_is_named() {
        let mut asked = input(&[], Some(&["file:///gone", "file:///p"]), "/");
        asked.ungrantable = vec![("/gone".to_owned(), "no such directory".to_owned())];
        let answer = resolve_roots(&asked);
        assert_eq!(answer.roots, ["/p"]);
        assert_eq!(
            answer.refused,
            [("file:///gone".to_owned(), "no such directory".to_owned())]
        );
        asked
            .ungrantable
            .push(("/p".to_owned(), "not a directory".to_owned()));
        let refusal = resolve_roots(&asked).refusal.unwrap_or_default();
        assert!(
            refusal
                .contains(r#""file:///gone" (no such directory); "file:///p" (not a directory)"#),
            "{refusal}"
        );
    }

    #[test]
    fn no_usable_client_root_is_refused_not_the_cwd() {
        let answer = resolve_roots(&input(&[], Some(&["https://x"]), "/srv/proj"));
        assert!(answer.roots.is_empty());
        assert_eq!(
            answer.refusal.as_deref(),
            Some(
                "read-window cannot read any file: none of the roots the client offers could be granted: \
                 \"https://x\" (not a local file:// URI). Offer a local directory as a root (a file:// URI), or \
                 start the server with --root DIR."
            )
        );
    }

    #[test]
    fn the_cwd_is_the_fallback_but_not_slash_or_home() {
        let answer = resolve_roots(&input(&[], None, "/srv/proj"));
        assert_eq!(
            (answer.roots.as_slice(), answer.from),
            (&["/srv/proj".to_owned()][..], RootsFrom::Cwd)
        );
        let listed_none = resolve_roots(&input(&[], Some(&[]), "/srv/proj"));
        assert_eq!(listed_none.roots, ["/srv/proj"]);
        for (cwd, what) in [
            ("/", "the root of the file system"),
            ("/home/me", "your home directory"),
        ] {
            let answer = resolve_roots(&input(&[], None, cwd));
            assert!(answer.roots.is_empty());
            let refusal = answer.refusal.unwrap_or_default();
            assert!(
                refusal.contains(&format!(
                    "the server was started in {cwd} ({what}) with no --root"
                )),
                "{refusal}"
            );
            assert!(refusal.contains("--root /path/to/project"), "{refusal}");
        }
    }

    #[test]
    fn the_default_budget_is_the_mcp_token_cap_unless_one_is_set() {
        let set = with_mcp_budget(ConfigRecord::default());
        assert_eq!(
            set.budget,
            Some(BudgetRecord::Tokens {
                cap: Some(20_000),
                headroom: None
            })
        );
        let chars = ConfigRecord {
            budget: Some(BudgetRecord::Characters(5000)),
            ..Default::default()
        };
        assert_eq!(
            with_mcp_budget(chars).budget,
            Some(BudgetRecord::Characters(5000))
        );
    }
}
