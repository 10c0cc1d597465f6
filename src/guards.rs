//! Guards by name and by content: device and process files that block or never end, and credential stores.
//!
//! These run on the normalized requested path and again on the path after links are resolved, so
//! `/dev/../dev/zero` and a link to `/dev/zero` are refused like `/dev/zero`. The credential deny-list is a
//! policy inside the sandbox; the sandbox itself is the set of preopened directories.

use crate::error::{ErrorKind, ReadError};

mod keys;

pub use keys::{KeyBlocks, MAX_KEY_LINES};

/// Device files that block or never end (from Hermes Agent's `_BLOCKED_DEVICE_PATHS`).
const BLOCKED_DEVICES: &[&str] = &[
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/console",
    "/dev/kmsg",
    "/dev/ptmx",
];

/// Per-process files under `/proc` that expose secrets: the environment, the command line, the auxiliary vector,
/// the memory map.
const PRIVATE_PROCESS_FILES: &[&str] = &["environ", "cmdline", "maps", "smaps", "auxv"];

/// Per-process files under `/proc` that are views of a process's memory: their size (0, or the whole address
/// space) is not their content, and a read of them is not a read of text.
const MEMORY_PROCESS_FILES: &[&str] = &["mem", "pagemap"];

/// Refuses device and process files by name. `path` is an absolute, normalized guest path.
///
/// Errors (`device`, the message saying what the file is and why it is refused): a device that blocks or never
/// ends (`/dev/zero`, `/dev/stdin`, ...), a descriptor of the host process (`/dev/fd/*`, `/proc/*/fd/0..2`), the
/// kernel's memory or log (`/proc/kcore`, `/proc/kmsg`), a process's private file (`/proc/*/environ`, ...) or a
/// view of a process's memory (`/proc/*/mem`, `/proc/*/pagemap`).
pub fn check_device_name(path: &str) -> Result<(), ReadError> {
    let refuse = |what: &str, why: &str| {
        Err(ReadError::new(
            ErrorKind::Device,
            format!(
                "{} is {what}; {why}, so read-window refuses it. Read a regular file instead.",
                crate::prose::path_in_prose(path)
            ),
        ))
    };
    const ENDLESS: &str = "reading it would block or never end";
    if BLOCKED_DEVICES.contains(&path) {
        return refuse("a device file", ENDLESS);
    }
    if path == "/dev/fd" || path.starts_with("/dev/fd/") {
        return refuse("a file descriptor of the host process", ENDLESS);
    }
    if let Some(rest) = path.strip_prefix("/proc/") {
        if rest == "kcore" || rest == "kmsg" {
            return refuse("a kernel memory or log device", ENDLESS);
        }
        let parts: Vec<&str> = rest.split('/').collect();
        // /proc/<pid>/... or /proc/<pid>/task/<tid>/...
        let process_parts = match parts.as_slice() {
            [process, "task", _thread, tail @ ..] if is_process(process) => tail,
            [process, tail @ ..] if is_process(process) => tail,
            _ => return Ok(()),
        };
        match process_parts {
            ["fd", descriptor] if matches!(*descriptor, "0" | "1" | "2") => {
                return refuse("a standard stream of a process", ENDLESS);
            }
            [name] if PRIVATE_PROCESS_FILES.contains(name) => {
                return refuse(
                    "a process's private file",
                    "it exposes the process's environment, arguments or memory layout, which can hold secrets",
                );
            }
            [name] if MEMORY_PROCESS_FILES.contains(name) => {
                return refuse(
                    "a view of a process's memory, not a regular file",
                    "its size is not its content and its bytes are not text",
                );
            }
            _ => {}
        }
    }
    Ok(())
}

fn is_process(part: &str) -> bool {
    part == "self"
        || part == "thread-self"
        || (!part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()))
}

/// A credential rule: a glob over the absolute guest path, and what it protects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialRule {
    /// The glob (`**` matches any directories, `*` any characters but `/`, `{a,b}` alternatives).
    pub pattern: String,
    /// What the rule protects, for the error message.
    pub description: String,
}

/// The default deny-list: files that hold secrets (from Hermes Agent's `get_read_block_error` deny-list and the
/// usual credential stores of developer tools).
pub const DEFAULT_DENY: &[(&str, &str)] = &[
    ("**/.env", "environment secrets (.env)"),
    ("**/.env.*", "environment secrets (.env.*)"),
    ("**/.envrc", "direnv secrets (.envrc)"),
    ("**/.git-credentials", "Git credentials"),
    ("**/.netrc", "netrc credentials"),
    ("**/_netrc", "netrc credentials"),
    ("**/.pypirc", "PyPI credentials"),
    ("**/.npmrc", "npm credentials"),
    ("**/.aws/credentials", "AWS credentials"),
    ("**/.docker/config.json", "Docker registry credentials"),
    ("**/.kube/config", "Kubernetes credentials"),
    ("**/.config/gh/hosts.yml", "GitHub CLI token"),
    ("**/id_rsa*", "SSH private key"),
    ("**/id_dsa*", "SSH private key"),
    ("**/id_ecdsa*", "SSH private key"),
    ("**/id_ed25519*", "SSH private key"),
    ("**/*.ppk", "PuTTY private key"),
    ("**/.pgpass", "PostgreSQL password file"),
    ("**/*.key", "private key (*.key)"),
    ("**/auth.json", "token store (auth.json)"),
    ("**/credentials.json", "token store (credentials.json)"),
    ("**/etc/shadow", "password hashes (shadow)"),
    ("**/etc/shadow-", "password hashes (shadow backup)"),
    ("**/etc/gshadow", "group password hashes (gshadow)"),
    ("**/etc/gshadow-", "group password hashes (gshadow backup)"),
    (
        "**/etc/master.passwd",
        "password hashes (BSD master.passwd)",
    ),
    ("**/etc/security/opasswd", "old password hashes (opasswd)"),
    ("**/ssh_host_*_key", "SSH host private key"),
];

/// Exceptions to the default deny-list: templates that hold no secrets.
pub const DEFAULT_ALLOW: &[&str] = &[
    "**/*.pub",
    "**/.env.example",
    "**/.env.sample",
    "**/.env.template",
    "**/.env.dist",
];

/// Paths whose verdict a [`CredentialPolicy`] keeps at most; when full, the kept verdicts are dropped at once.
pub const MAX_DECIDED_PATHS: usize = 4_096;

/// The credential policy: deny rules and exceptions, and the verdicts it has given.
#[derive(Debug, Clone)]
pub struct CredentialPolicy {
    deny: Vec<CredentialRule>,
    allow: Vec<String>,
    /// The literal runs of each deny pattern (same order), for the quick refusal of [`glob_match`].
    deny_literals: Vec<Literals>,
    /// The literal runs of each exception (same order).
    allow_literals: Vec<Literals>,
    /// Verdicts given, by path as asked: the index in `deny` of the rule that refuses it, or `None`. The rules
    /// never change, so an agent reading the same files over and over matches each path against them once.
    decided: std::cell::RefCell<std::collections::HashMap<String, Option<usize>>>,
}

impl CredentialPolicy {
    /// The defaults plus `extra_deny` patterns and `extra_allow` exceptions.
    pub fn new(extra_deny: &[String], extra_allow: &[String]) -> Self {
        let mut deny: Vec<CredentialRule> = DEFAULT_DENY
            .iter()
            .map(|(pattern, description)| CredentialRule {
                pattern: (*pattern).to_ascii_lowercase(),
                description: (*description).to_string(),
            })
            .collect();
        deny.extend(extra_deny.iter().map(|pattern| CredentialRule {
            pattern: anchored(pattern).to_ascii_lowercase(),
            description: "a pattern of the host's deny-list".to_string(),
        }));
        let mut allow: Vec<String> = DEFAULT_ALLOW
            .iter()
            .map(|pattern| (*pattern).to_string())
            .collect();
        allow.extend(
            extra_allow
                .iter()
                .map(|pattern| anchored(pattern).to_ascii_lowercase()),
        );
        let deny_literals = deny
            .iter()
            .map(|rule| Literals::of(&rule.pattern))
            .collect();
        let allow_literals = allow.iter().map(|pattern| Literals::of(pattern)).collect();
        CredentialPolicy {
            deny,
            allow,
            deny_literals,
            allow_literals,
            decided: Default::default(),
        }
    }

    /// The rule that refuses `path` (an absolute guest path), if any. A path asked before gets the verdict it got
    /// then (at most [`MAX_DECIDED_PATHS`] are kept).
    pub fn matching_rule(&self, path: &str) -> Option<&CredentialRule> {
        let kept = self.decided.borrow().get(path).copied();
        let index = match kept {
            Some(index) => index,
            None => {
                let index = self.matching_index(path);
                let mut decided = self.decided.borrow_mut();
                if decided.len() >= MAX_DECIDED_PATHS {
                    decided.clear();
                }
                decided.insert(path.to_string(), index);
                index
            }
        };
        index.and_then(|index| self.deny.get(index))
    }

    /// The index in `deny` of the first rule that refuses `path` when no exception matches it.
    fn matching_index(&self, path: &str) -> Option<usize> {
        // Case-insensitive (ASCII): on macOS and Windows `.ENV` opens `.env`.
        let path = path.to_ascii_lowercase();
        let path = path.as_str();
        if self
            .allow
            .iter()
            .zip(&self.allow_literals)
            .any(|(pattern, literals)| glob_match(pattern, literals, path))
        {
            return None;
        }
        self.deny
            .iter()
            .zip(&self.deny_literals)
            .position(|(rule, literals)| glob_match(&rule.pattern, literals, path))
    }

    /// Refuses `path` when a deny rule matches and no exception does; the message's advice fits the rule (a
    /// template for `.env` files, the public half for keys, the user for tokens).
    pub fn check(&self, path: &str) -> Result<(), ReadError> {
        match self.matching_rule(path) {
            Some(rule) => Err(ReadError::new(
                ErrorKind::Credential,
                format!(
                    "{} holds {} (credential rule `{}`); read-window does not read credential files. {}",
                    crate::prose::path_in_prose(path),
                    rule.description,
                    rule.pattern,
                    advice_for(&rule.pattern)
                ),
            )),
            None => Ok(()),
        }
    }
}

/// `fast_glob::glob_match(pattern, path)`, answered `false` at once when `literals` (the literal runs of
/// `pattern`) say it cannot match. Most reads match no rule, and the check costs a suffix comparison (or a few
/// substring searches) instead of the matcher's backtracking over the whole path for each of the ~30 rules.
fn glob_match(pattern: &str, literals: &Literals, path: &str) -> bool {
    literals.could_match(path) && fast_glob::glob_match(pattern, path)
}

/// The literal runs of a plain glob pattern (one whose only wildcards are `*`, `**` and `?`): every run must occur
/// in a matching path, and the run after the last wildcard must end it. A run after a wildcard is kept without its
/// leading `/` (`**/` also matches no directory at all). A pattern with classes, groups, escapes or a negation is
/// left to the matcher.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Literals {
    /// Whether the runs decide anything (the pattern is plain).
    plain: bool,
    /// The run after the last wildcard (the whole pattern when it has none).
    suffix: String,
    /// The other non-empty runs.
    inner: Vec<String>,
}

impl Literals {
    fn of(pattern: &str) -> Self {
        let plain = !pattern.contains(['[', ']', '{', '}', '\\', '!']);
        let mut runs: Vec<String> = pattern
            .split(['*', '?'])
            .enumerate()
            .map(|(at, run)| {
                if at > 0 {
                    run.trim_start_matches('/')
                } else {
                    run
                }
                .to_string()
            })
            .collect();
        let suffix = runs.pop().unwrap_or_default();
        runs.retain(|run| !run.is_empty());
        Literals {
            plain,
            suffix,
            inner: runs,
        }
    }

    /// Whether `path` may match the pattern (`false` only when it cannot).
    fn could_match(&self, path: &str) -> bool {
        !self.plain
            || (path.ends_with(&self.suffix)
                && self.inner.iter().all(|run| path.contains(run.as_str())))
    }
}

/// What to do instead of reading a file refused by the rule `pattern`.
fn advice_for(pattern: &str) -> &'static str {
    if pattern.starts_with("**/.env") {
        "Ask the user for the value you need, or read a template such as .env.example."
    } else if pattern.starts_with("**/id_") {
        "Read the public key (the same name with .pub) if you need the key's identity; never the private key."
    } else if pattern.contains("shadow") || pattern.contains("passwd") {
        "Read /etc/passwd or /etc/group for the accounts and groups; the password hashes are never needed."
    } else if pattern.starts_with("**/ssh_host_") {
        "Read the public host key (the same name with .pub) if you need the key's identity; never the private key."
    } else if pattern.ends_with(".ppk") || pattern.ends_with(".key") {
        "Read the certificate or public key that goes with it if you need the key's identity; never the private key."
    } else {
        "Ask the user for the value you need; do not try another path to the same file."
    }
}

/// Why `pattern` is not a glob pattern the credential rules can use, or `None` when it is one: empty, a `[` class
/// or a `{` group left open, a `}` with no `{` to close, or a trailing `\` escaping nothing. The glob
/// matcher does not refuse these (it silently matches nothing), so hosts refuse them at the edge and the component
/// leaves such a pattern out with a warning.
pub fn pattern_problem(pattern: &str) -> Option<String> {
    if pattern.is_empty() {
        return Some("an empty pattern matches nothing".to_string());
    }
    let mut braces = 0usize;
    let mut class_open = false;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => {
                return Some("it ends in a `\\` that escapes nothing".to_string());
            }
            '[' if !class_open => {
                class_open = true;
                // `[]...]` and `[!]...]` hold a `]` as their first member.
                if chars.peek() == Some(&'!') || chars.peek() == Some(&'^') {
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                }
            }
            ']' if class_open => class_open = false,
            '{' if !class_open => braces += 1,
            '}' if !class_open => {
                if braces == 0 {
                    return Some("a `}` closes no `{`".to_string());
                }
                braces -= 1;
            }
            _ => {}
        }
    }
    if class_open {
        Some("a `[` class is not closed by `]`".to_string())
    } else if braces > 0 {
        Some("a `{` group is not closed by `}`".to_string())
    } else {
        None
    }
}

/// A pattern without a leading `/` or `**/` matches at any depth.
fn anchored(pattern: &str) -> String {
    if pattern.starts_with('/') || pattern.starts_with("**/") {
        pattern.to_string()
    } else {
        format!("**/{pattern}")
    }
}

#[cfg(test)]
mod tests;
