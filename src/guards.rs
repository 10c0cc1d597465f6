//! Guards by name and by content: device and process files that block or never end, and credential stores.
//!
//! These run on the normalized requested path and again on the path after links are resolved, so
//! `/dev/../dev/zero` and a link to `/dev/zero` are refused like `/dev/zero`. The credential deny-list is a
//! policy inside the sandbox; the sandbox itself is the set of preopened directories.

use crate::decode::TextEncoding;
use crate::error::{ErrorKind, ReadError};
use crate::scan::find_by_anchor;

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

/// Private key blocks recorded per file at most; past that, everything from the next BEGIN line on is refused.
pub const MAX_KEY_BLOCKS: usize = 1_024;
/// Lines a private key block spans at most: a BEGIN line whose END does not come within this many lines (while the
/// file goes on) starts no key block (the largest keys, 16384-bit RSA or a PGP key with subkeys, take a few hundred
/// lines). A BEGIN cut off by the end of the file within this distance is a key block to the end of the file.
pub const MAX_KEY_LINES: u64 = 1_000;
/// Code units of a BEGIN or END line looked at before `PRIVATE KEY`: five dashes, `BEGIN ` and a label such as
/// `ENCRYPTED ` or `OPENSSH `.
const MARKER_LOOKBACK_UNITS: usize = 48;
/// Code units of a BEGIN line looked at from `PRIVATE KEY` on: the needle, ` BLOCK`, five dashes and what follows.
const MARKER_LOOKAHEAD_UNITS: usize = 24;
/// Code units kept from the end of one scanned block, so a marker cut by the block boundary is still found (its
/// look-back and its look-ahead both fit).
const CARRY_UNITS: usize = 80;

/// What a private key block holds, from the label of its BEGIN line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// `-----BEGIN [RSA |EC |DSA |ENCRYPTED |...]PRIVATE KEY-----`.
    Pem,
    /// `-----BEGIN OPENSSH PRIVATE KEY-----`.
    OpenSsh,
    /// `-----BEGIN PGP PRIVATE KEY BLOCK-----`.
    Pgp,
}

impl KeyKind {
    /// The kind in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            KeyKind::Pem => "a PEM private key",
            KeyKind::OpenSsh => "an OpenSSH private key",
            KeyKind::Pgp => "a PGP private key block",
        }
    }
}

/// A range of lines, `(first, last)`, 1-based and inclusive.
type LineRange = (u64, u64);

/// One private key block: the lines from its BEGIN line through its END line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyBlock {
    /// The line (1-based) holding `-----BEGIN ... PRIVATE KEY`.
    pub begin_line: u64,
    /// The line (1-based) holding the matching `-----END ... PRIVATE KEY`; `None` while none follows (the block
    /// runs to the end of the file).
    pub end_line: Option<u64>,
    /// What the BEGIN line's label names.
    pub kind: KeyKind,
}

/// The private key blocks of one file, found while the line index scans it (every byte is seen once per version of
/// the file), so each window is checked by its line range alone, wherever in the file the key is and wherever the
/// window starts (a window of only the base64 body lines is inside a block like one that shows the BEGIN line).
///
/// Markers are found anywhere in a line (a key inside a JSON string is one line that is a whole block). Memory is
/// bounded: at most `MAX_KEY_BLOCKS` blocks and a carry of `CARRY_UNITS` code units.
#[derive(Debug, Clone, Default)]
pub struct KeyBlocks {
    /// Ascending by `begin_line`; only the last can be open.
    blocks: Vec<KeyBlock>,
    /// More than `MAX_KEY_BLOCKS` blocks: the last one runs to the end of the file.
    overflowed: bool,
    /// The last bytes of the previous block of this scan (whole code units).
    carry: Vec<u8>,
}

/// Two scans are equal when they found the same blocks; the carry is scratch of the scan in progress.
impl PartialEq for KeyBlocks {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks && self.overflowed == other.overflowed
    }
}

impl Eq for KeyBlocks {}

/// A marker found in scanned bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Begin(KeyKind),
    End,
}

impl KeyBlocks {
    /// No blocks.
    pub fn new() -> Self {
        KeyBlocks::default()
    }

    #[cfg(test)]
    /// The blocks found, ascending by their BEGIN line.
    pub fn blocks(&self) -> &[KeyBlock] {
        &self.blocks
    }

    /// A new scan starts at the start of a line (the index resumes at its last line): nothing is carried over.
    /// Markers met again on that line are recognised as already recorded.
    pub fn restart(&mut self) {
        self.carry.clear();
    }

    /// Bytes of memory the blocks occupy.
    pub fn memory_bytes(&self) -> u64 {
        (self.blocks.capacity() * std::mem::size_of::<KeyBlock>() + self.carry.capacity()) as u64
    }

    /// Scans the next block of the file: `bytes` in `encoding`, starting on a code-unit boundary, whose first byte
    /// lies on line `first_line` (1-based). Blocks of one scan must be fed in order, with no gap; [`KeyBlocks::finish`]
    /// ends the scan at the end of the file.
    ///
    /// A BEGIN marker counts when its closing dashes end the line (a line feed, a carriage return, spaces, the end of
    /// the file, or a backslash: an escaped line break inside a string), so a BEGIN marker quoted in prose or code
    /// (`` `-----BEGIN ... PRIVATE KEY-----` ``) starts no block; an END marker counts wherever it is.
    pub fn scan(&mut self, bytes: &[u8], encoding: TextEncoding, first_line: u64) {
        let unit = encoding.unit_bytes();
        let needle = encode_ascii(b"PRIVATE KEY", encoding);
        let anchor = key_needle_anchor(&needle);
        let carry_bytes = CARRY_UNITS * unit;
        let ahead_bytes = MARKER_LOOKAHEAD_UNITS * unit;
        let mut joined = std::mem::take(&mut self.carry);
        let carried = joined.len();
        joined.extend_from_slice(
            bytes
                .get(..bytes.len().min(carry_bytes))
                .unwrap_or_default(),
        );
        // Markers in the carry that the previous block could not judge: an END whose `PRIVATE KEY` runs into this
        // block, a BEGIN whose look-ahead does.
        for found in find_by_anchor(&joined, &needle, anchor) {
            if found >= carried {
                break;
            }
            if found % unit != 0 {
                continue;
            }
            let line = first_line.saturating_sub(count_line_feeds(
                joined.get(found..carried).unwrap_or_default(),
                encoding,
            ));
            match marker_before(&joined, found / unit, encoding) {
                Some(Marker::End) if found + needle.len() > carried => {
                    self.record(Marker::End, line);
                }
                Some(Marker::Begin(kind))
                    if found + ahead_bytes > carried
                        && begin_line_ends(&joined, found / unit, encoding, false) =>
                {
                    self.record(Marker::Begin(kind), line);
                }
                _ => {}
            }
        }
        let mut counted_to = 0usize;
        let mut line = first_line;
        for found in find_by_anchor(bytes, &needle, anchor) {
            if found % unit != 0 {
                continue;
            }
            // The look-back of a marker near the block's start reaches into the carry.
            let (buffer, at) = if found < carry_bytes {
                (joined.as_slice(), (carried + found) / unit)
            } else {
                (bytes, found / unit)
            };
            let marker = match marker_before(buffer, at, encoding) {
                Some(Marker::Begin(kind)) => {
                    // A BEGIN whose look-ahead runs past the block is judged with the next block (or at the end).
                    if found + ahead_bytes > bytes.len()
                        || !begin_line_ends(bytes, found / unit, encoding, false)
                    {
                        continue;
                    }
                    Marker::Begin(kind)
                }
                Some(Marker::End) => Marker::End,
                None => continue,
            };
            line += count_line_feeds(bytes.get(counted_to..found).unwrap_or_default(), encoding);
            counted_to = found;
            self.record(marker, line);
        }
        // Keep the last whole units of what was seen, for the next block.
        let keep = (carried + bytes.len()).min(carry_bytes);
        if bytes.len() >= keep {
            joined.clear();
            joined.extend_from_slice(bytes.get(bytes.len() - keep..).unwrap_or_default());
        } else {
            let mut all = joined.get(..carried).unwrap_or_default().to_vec();
            all.extend_from_slice(bytes);
            joined = all.get(all.len() - keep..).unwrap_or_default().to_vec();
        }
        self.carry = joined;
    }

    /// Ends a scan at the end of the file, on line `last_line` (1-based): a BEGIN marker whose look-ahead reached
    /// the end is judged now.
    pub fn finish(&mut self, encoding: TextEncoding, last_line: u64) {
        let unit = encoding.unit_bytes();
        let needle = encode_ascii(b"PRIVATE KEY", encoding);
        let anchor = key_needle_anchor(&needle);
        let carry = std::mem::take(&mut self.carry);
        let ahead_bytes = MARKER_LOOKAHEAD_UNITS * unit;
        for found in find_by_anchor(&carry, &needle, anchor) {
            if found % unit != 0 || found + ahead_bytes <= carry.len() {
                continue;
            }
            if let Some(Marker::Begin(kind)) = marker_before(&carry, found / unit, encoding) {
                if begin_line_ends(&carry, found / unit, encoding, true) {
                    let line = last_line.saturating_sub(count_line_feeds(
                        carry.get(found..).unwrap_or_default(),
                        encoding,
                    ));
                    self.record(Marker::Begin(kind), line);
                }
            }
        }
    }

    fn record(&mut self, marker: Marker, line: u64) {
        if self.overflowed {
            return;
        }
        // An open block whose END did not come within MAX_KEY_LINES lines is no key block.
        if let Some(open) = self.blocks.last() {
            if open.end_line.is_none() && line.saturating_sub(open.begin_line) > MAX_KEY_LINES {
                self.blocks.pop();
            }
        }
        let open = self
            .blocks
            .last()
            .is_some_and(|block| block.end_line.is_none());
        match marker {
            Marker::Begin(kind) => {
                // A nested BEGIN belongs to the open block; a BEGIN met again when the index rescans its last
                // line is already recorded.
                let known = self
                    .blocks
                    .iter()
                    .rev()
                    .take_while(|block| block.begin_line >= line)
                    .any(|block| block.begin_line == line);
                if open || known {
                    return;
                }
                if self.blocks.len() >= MAX_KEY_BLOCKS {
                    self.overflowed = true;
                }
                self.blocks.push(KeyBlock {
                    begin_line: line,
                    end_line: None,
                    kind,
                });
            }
            Marker::End => {
                if let Some(block) = self.blocks.last_mut() {
                    if block.end_line.is_none() {
                        block.end_line = Some(line);
                    }
                }
            }
        }
    }

    fn overlapping_index(&self, first: u64, last: u64, total_lines: u64) -> Option<usize> {
        let from = self
            .blocks
            .partition_point(|block| block.end_line.is_some_and(|end| end < first));
        let block = self.blocks.get(from)?;
        let stale = block.end_line.is_none()
            && !self.overflowed
            && total_lines.saturating_sub(block.begin_line) > MAX_KEY_LINES;
        (block.begin_line <= last && !stale).then_some(from)
    }

    /// The lines `first..=last` (1-based) of the run of key blocks that holds `line`, adjacent blocks merged, with
    /// what they are in words (the kind of the one key, or `"private keys"` for several); `None` when `line` is in
    /// no key block. `last` is
    /// `total_lines` when the run reaches the end of the file (an open block). Used to continue past a key:
    /// the window before it says the key is withheld and where readable text goes on.
    pub fn withheld_run(&self, line: u64, total_lines: u64) -> Option<(u64, u64, &'static str)> {
        let position = self.overlapping_index(line, line, total_lines)?;
        let block = self.blocks.get(position)?;
        let (first, last) = self.run_bounds(position, total_lines);
        let keys = self
            .blocks
            .iter()
            .filter(|block| (first..=last).contains(&block.begin_line))
            .count();
        let what = if keys > 1 {
            "private keys"
        } else {
            block.kind.describe()
        };
        Some((first, last, what))
    }

    /// The first and last line of the run of adjacent key blocks around the block at `position`.
    fn run_bounds(&self, position: usize, total_lines: u64) -> (u64, u64) {
        let mut first = self
            .blocks
            .get(position)
            .map_or(1, |block| block.begin_line);
        let mut index = position;
        while let Some(previous) = index.checked_sub(1).and_then(|i| self.blocks.get(i)) {
            if previous.end_line.is_some_and(|end| end + 1 >= first) {
                first = first.min(previous.begin_line);
                index -= 1;
            } else {
                break;
            }
        }
        let mut last = total_lines;
        let mut index = position;
        while let Some(block) = self.blocks.get(index) {
            let Some(end) = block.end_line else {
                last = total_lines;
                break;
            };
            last = end;
            match self.blocks.get(index + 1) {
                Some(next) if next.begin_line <= end + 1 => index += 1,
                _ => break,
            }
        }
        (first, last.max(first))
    }

    /// The readable ranges nearest to the block at `position` on either side (past any adjacent blocks), as
    /// `(first, last)` lines; `None` on a side with no readable line at all.
    fn readable_around(&self, position: usize, total_lines: u64) -> [Option<LineRange>; 2] {
        let (first, last) = self.run_bounds(position, total_lines);
        let before = (first > 1).then(|| {
            let start = self
                .blocks
                .iter()
                .filter_map(|block| block.end_line)
                .filter(|end| *end < first)
                .max()
                .map_or(1, |end| end + 1);
            (start, first - 1)
        });
        let after = (last < total_lines).then(|| {
            let end = self
                .blocks
                .iter()
                .map(|block| block.begin_line)
                .filter(|begin| *begin > last)
                .min()
                .map_or(total_lines, |begin| begin - 1);
            (last + 1, end)
        });
        [before, after]
    }

    /// Refuses the window of lines `first..=last` of `path` (a file of `total_lines` lines) when it would show a
    /// line of a private key block (`Credential`). The message names the line where the key begins, the lines it
    /// covers, and the readable lines around it with the reads that show them.
    pub fn check_window(
        &self,
        path: &str,
        first: u64,
        last: u64,
        total_lines: u64,
    ) -> Result<(), ReadError> {
        let Some(position) = self.overlapping_index(first, last, total_lines) else {
            return Ok(());
        };
        let Some(block) = self.blocks.get(position) else {
            return Ok(());
        };
        let path = crate::prose::path_in_prose(path);
        let begin = block.begin_line;
        let window = if first == last {
            format!("line {first}")
        } else {
            format!("lines {first}-{last}")
        };
        let mut message = match block.end_line {
            Some(end) if end > begin => format!(
                "Lines {begin}-{end} of {path} are {} (it begins at line {begin}); read-window does not show private keys, so the window of {window} is refused.",
                block.kind.describe()
            ),
            Some(_) => format!(
                "Line {begin} of {path} holds {} (it begins at line {begin}); read-window does not show private keys, so the window of {window} is refused.",
                block.kind.describe()
            ),
            None if self.overflowed && position + 1 == self.blocks.len() => format!(
                "{path} holds more than {MAX_KEY_BLOCKS} private keys; from line {begin} on they are not told apart, and read-window does not show private keys, so the window of {window} is refused."
            ),
            None => format!(
                "{path} holds {} that begins at line {begin} and has no END line, so every line from {begin} on is treated as the key; read-window does not show private keys, so the window of {window} is refused.",
                block.kind.describe()
            ),
        };
        let readable: Vec<String> = self
            .readable_around(position, total_lines)
            .into_iter()
            .flatten()
            .map(|(first, last)| readable_range(first, last))
            .collect();
        if readable.is_empty() {
            message.push_str(" No line of this file outside its private keys is readable text.");
        } else {
            message.push_str(&format!(
                " Readable next to it: {}. If you need the key's identity, read its certificate or public key.",
                readable.join(" and ")
            ));
        }
        Err(ReadError::new(ErrorKind::Credential, message))
    }
}

/// `lines A-B (offset=A limit=N)`, or `line A (offset=A limit=1)`.
fn readable_range(first: u64, last: u64) -> String {
    let count = last - first + 1;
    if first == last {
        format!("line {first} (offset={first} limit=1)")
    } else {
        format!("lines {first}-{last} (offset={first} limit={count})")
    }
}

/// Where the `V` of an encoded `PRIVATE KEY` lies: the anchor of [`find_by_anchor`] (a capital V is rare in text).
fn key_needle_anchor(needle: &[u8]) -> usize {
    needle.iter().position(|&byte| byte == b'V').unwrap_or(0)
}

/// `text` (ASCII) encoded in `encoding`.
fn encode_ascii(text: &[u8], encoding: TextEncoding) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * encoding.unit_bytes());
    for &byte in text {
        let value = u32::from(byte);
        match encoding {
            TextEncoding::Utf8 | TextEncoding::Legacy(_) => out.push(byte),
            TextEncoding::Utf16Le => out.extend_from_slice(&(value as u16).to_le_bytes()),
            TextEncoding::Utf16Be => out.extend_from_slice(&(value as u16).to_be_bytes()),
            TextEncoding::Utf32Le => out.extend_from_slice(&value.to_le_bytes()),
            TextEncoding::Utf32Be => out.extend_from_slice(&value.to_be_bytes()),
        }
    }
    out
}

/// The code unit at unit index `index` of `bytes`.
fn unit_at(bytes: &[u8], index: usize, encoding: TextEncoding) -> Option<u32> {
    let unit = encoding.unit_bytes();
    let raw = bytes.get(index * unit..index * unit + unit)?;
    Some(match (encoding, raw) {
        (TextEncoding::Utf8 | TextEncoding::Legacy(_), [byte]) => u32::from(*byte),
        (TextEncoding::Utf16Le, [low, high]) => u32::from(u16::from_le_bytes([*low, *high])),
        (TextEncoding::Utf16Be, [high, low]) => u32::from(u16::from_be_bytes([*high, *low])),
        (TextEncoding::Utf32Le, [a, b, c, d]) => u32::from_le_bytes([*a, *b, *c, *d]),
        (TextEncoding::Utf32Be, [a, b, c, d]) => u32::from_be_bytes([*a, *b, *c, *d]),
        _ => return None,
    })
}

/// The marker whose `PRIVATE KEY` starts at unit `at` of `bytes`: `-----BEGIN ` or `-----END `, then a label of
/// capitals, digits and spaces, on the same line.
fn marker_before(bytes: &[u8], at: usize, encoding: TextEncoding) -> Option<Marker> {
    let is_label = |unit: u32| {
        unit == u32::from(b' ')
            || (u32::from(b'A')..=u32::from(b'Z')).contains(&unit)
            || (u32::from(b'0')..=u32::from(b'9')).contains(&unit)
    };
    let mut start = at;
    while start > 0 && at - start < MARKER_LOOKBACK_UNITS {
        match unit_at(bytes, start - 1, encoding) {
            Some(unit) if is_label(unit) => start -= 1,
            _ => break,
        }
    }
    let dashes = start.checked_sub(5)?;
    if (dashes..start).any(|index| unit_at(bytes, index, encoding) != Some(u32::from(b'-'))) {
        return None;
    }
    let label: Vec<u8> = (start..at)
        .filter_map(|index| unit_at(bytes, index, encoding))
        .filter_map(|unit| u8::try_from(unit).ok())
        .collect();
    if let Some(rest) = label.strip_prefix(b"BEGIN ") {
        let kind = match rest.trim_ascii() {
            b"OPENSSH" => KeyKind::OpenSsh,
            b"PGP" => KeyKind::Pgp,
            _ => KeyKind::Pem,
        };
        Some(Marker::Begin(kind))
    } else if label.starts_with(b"END ") {
        Some(Marker::End)
    } else {
        None
    }
}

/// Whether the BEGIN marker whose `PRIVATE KEY` starts at unit `at` of `bytes` is closed by five dashes (after
/// ` BLOCK` for PGP) that end the line: a line feed, a carriage return, a space or tab, a backslash (an escaped line
/// break inside a string), or the end of `bytes` when `at_end` says it is the end of the file.
fn begin_line_ends(bytes: &[u8], at: usize, encoding: TextEncoding, at_end: bool) -> bool {
    let unit = |index: usize| unit_at(bytes, index, encoding);
    let is = |index: usize, text: &[u8]| {
        text.iter()
            .enumerate()
            .all(|(offset, &byte)| unit(index + offset) == Some(u32::from(byte)))
    };
    let mut position = at + "PRIVATE KEY".len();
    if is(position, b" BLOCK") {
        position += " BLOCK".len();
    }
    if !is(position, b"-----") {
        return false;
    }
    match unit(position + 5) {
        None => at_end,
        Some(next) => [b'\n', b'\r', b' ', b'\t', b'\\']
            .iter()
            .any(|&byte| next == u32::from(byte)),
    }
}

/// Line feeds in `bytes` (whole code units of `encoding`).
fn count_line_feeds(bytes: &[u8], encoding: TextEncoding) -> u64 {
    if encoding == TextEncoding::Utf8 {
        return memchr::memchr_iter(b'\n', bytes).count() as u64;
    }
    let unit = encoding.unit_bytes();
    let mut count = 0;
    let mut from = 0;
    while let Some(index) = encoding.find_line_feed(bytes, from) {
        count += 1;
        from = index + unit;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths near every default rule (matches, near misses, case variants) and a few ordinary ones.
    fn credential_probe_paths() -> Vec<String> {
        let mut paths = vec![
            "/".to_string(),
            ".env".to_string(),
            "/w/src/main.rs".to_string(),
            "/w/.env".to_string(),
            "/w/.env.local".to_string(),
            "/w/.env.example".to_string(),
            "/w/my.env".to_string(),
            "/w/.envrc.d/x".to_string(),
            "/home/u/.ssh/id_rsa".to_string(),
            "/home/u/.ssh/id_rsa.pub".to_string(),
            "/home/u/.ssh/xid_rsa".to_string(),
            "/etc/ssh/ssh_host_ed25519_key".to_string(),
            "/etc/ssh/ssh_host_key".to_string(),
            "/etc/shadow".to_string(),
            "/etc/shadow-".to_string(),
            "/x/etc/security/opasswd".to_string(),
            "/w/server.key".to_string(),
            "/w/server.key/notes.txt".to_string(),
            "/w/.aws/credentials".to_string(),
            "/w/.aws/credentials.bak".to_string(),
        ];
        for (pattern, _) in DEFAULT_DENY {
            let plain = pattern.replace("**/", "").replace('*', "x");
            paths.push(format!("/w/{plain}"));
            paths.push(format!("/w/{plain}/inner"));
            paths.push(format!("/w/{plain}.old"));
            paths.push(format!("/{plain}"));
        }
        paths
    }

    #[test]
    fn the_literal_prefilter_never_changes_a_credential_verdict() {
        let extra = [
            "secrets/**".to_string(),
            "**/*.{pem,p12}".to_string(),
            "**/token?.txt".to_string(),
        ];
        let policy = CredentialPolicy::new(&extra, &["**/keep/*.key".to_string()]);
        let patterns: Vec<&str> = policy
            .deny
            .iter()
            .map(|rule| rule.pattern.as_str())
            .chain(policy.allow.iter().map(String::as_str))
            .collect();
        let mut paths = credential_probe_paths();
        paths.extend([
            "/w/secrets/a".to_string(),
            "/w/a.pem".to_string(),
            "/w/token1.txt".to_string(),
            "/w/keep/a.key".to_string(),
        ]);
        let mut matched = 0;
        for path in &paths {
            let path = path.to_ascii_lowercase();
            for pattern in &patterns {
                let slow = fast_glob::glob_match(pattern, &path);
                let fast = glob_match(pattern, &Literals::of(pattern), &path);
                assert_eq!(fast, slow, "{pattern} on {path}");
                matched += usize::from(slow);
            }
        }
        assert!(matched > 40, "the probe paths match rules: {matched}");
    }

    #[test]
    fn device_names_are_refused_and_ordinary_files_are_not() {
        for path in [
            "/dev/zero",
            "/dev/stdin",
            "/dev/fd/3",
            "/proc/self/environ",
            "/proc/12/task/13/fd/0",
            "/proc/1/mem",
        ] {
            assert_eq!(
                check_device_name(path).unwrap_err().kind,
                ErrorKind::Device,
                "{path}"
            );
        }
        for path in [
            "/dev/null",
            "/proc/cpuinfo",
            "/proc/self/status",
            "/proc/1/fd/5",
            "/home/dev/zero",
        ] {
            assert!(check_device_name(path).is_ok(), "{path}");
        }
    }

    #[test]
    fn memory_views_are_refused_for_what_they_are_not_as_blocking() {
        let pagemap = check_device_name("/proc/self/pagemap").unwrap_err();
        assert_eq!(pagemap.kind, ErrorKind::Device);
        assert_eq!(
            pagemap.message,
            "/proc/self/pagemap is a view of a process's memory, not a regular file; its size is not its content \
             and its bytes are not text, so read-window refuses it. Read a regular file instead."
        );
        assert!(!check_device_name("/proc/1/task/2/mem")
            .unwrap_err()
            .message
            .contains("block"));
        let environ = check_device_name("/proc/self/environ").unwrap_err();
        assert!(
            environ.message.contains("can hold secrets"),
            "{}",
            environ.message
        );
        assert!(check_device_name("/dev/zero")
            .unwrap_err()
            .message
            .contains("would block or never end"));
    }

    #[test]
    fn a_kept_verdict_is_the_verdict_the_rules_give() {
        let policy = CredentialPolicy::new(
            &["**/secrets/*".to_string()],
            &["**/keep/*.key".to_string()],
        );
        let paths = [
            "/p/.env",
            "/p/.ENV",
            "/p/.env.example",
            "/p/keep/a.key",
            "/p/b.key",
            "/p/secrets/x",
            "/p/README.md",
        ];
        let verdict = |policy: &CredentialPolicy, path: &str| {
            policy.matching_rule(path).map(|rule| rule.pattern.clone())
        };
        let fresh: Vec<_> = paths
            .iter()
            .map(|path| {
                verdict(
                    &CredentialPolicy::new(
                        &["**/secrets/*".to_string()],
                        &["**/keep/*.key".to_string()],
                    ),
                    path,
                )
            })
            .collect();
        assert_eq!(fresh.iter().filter(|rule| rule.is_some()).count(), 4);
        // Asked again, and again after enough other paths to drop every kept verdict.
        for round in 0..3 {
            let kept: Vec<_> = paths.iter().map(|path| verdict(&policy, path)).collect();
            assert_eq!(kept, fresh, "round {round}");
            for other in 0..MAX_DECIDED_PATHS {
                assert!(policy.check(&format!("/p/other/{other}.txt")).is_ok());
            }
            assert!(policy.decided.borrow().len() <= MAX_DECIDED_PATHS);
        }
    }

    #[test]
    fn default_credential_rules_and_exceptions() {
        let policy = CredentialPolicy::new(&[], &[]);
        for path in [
            "/p/.env",
            "/p/.env.production",
            "/p/.envrc",
            "/h/.git-credentials",
            "/h/.netrc",
            "/h/.pypirc",
            "/h/.npmrc",
            "/h/.aws/credentials",
            "/h/.docker/config.json",
            "/h/.ssh/id_rsa",
            "/h/.ssh/id_ed25519",
            "/p/server.key",
            "/h/.codex/auth.json",
        ] {
            assert!(policy.check(path).is_err(), "{path}");
        }
        for path in [
            "/p/.env.example",
            "/p/.env.sample",
            "/p/env.rs",
            "/h/.ssh/id_rsa.pub",
            "/p/README.md",
            "/p/tls/chain.pem",
        ] {
            assert!(policy.check(path).is_ok(), "{path}");
        }
    }

    #[test]
    fn host_patterns_add_rules_and_exceptions() {
        let policy = CredentialPolicy::new(
            &["secrets/*.yaml".to_string()],
            &["**/test-fixtures/*.key".to_string()],
        );
        assert!(policy.check("/p/secrets/prod.yaml").is_err());
        assert!(policy.check("/p/test-fixtures/cert.key").is_ok());
        assert!(policy.check("/p/other/cert.key").is_err());
    }

    #[test]
    fn malformed_patterns_are_named_and_well_formed_ones_pass() {
        assert_eq!(
            pattern_problem("/etc/serv[").as_deref(),
            Some("a `[` class is not closed by `]`")
        );
        assert_eq!(
            pattern_problem("**/*.{pem,key").as_deref(),
            Some("a `{` group is not closed by `}`")
        );
        assert_eq!(
            pattern_problem("a}b").as_deref(),
            Some("a `}` closes no `{`")
        );
        assert_eq!(
            pattern_problem("x\\").as_deref(),
            Some("it ends in a `\\` that escapes nothing")
        );
        assert_eq!(
            pattern_problem("").as_deref(),
            Some("an empty pattern matches nothing")
        );
        for good in [
            "**/*.key",
            "/etc/serv[ai]ces",
            "[]x]",
            "{a,{b,c}}",
            "\\[",
            "*.[!a]",
        ] {
            assert_eq!(pattern_problem(good), None, "{good}");
        }
    }

    #[test]
    fn the_advice_fits_the_rule() {
        let policy = CredentialPolicy::new(&[], &[]);
        let env = policy.check("/p/.env").unwrap_err().message;
        assert!(env.contains(".env.example"), "{env}");
        for path in ["/p/server.key", "/h/.ssh/id_rsa", "/h/putty.ppk"] {
            let message = policy.check(path).unwrap_err().message;
            assert!(!message.contains(".env.example"), "{message}");
            assert!(message.contains("never the private key"), "{message}");
        }
        let token = policy.check("/h/.codex/auth.json").unwrap_err().message;
        assert!(!token.contains(".env.example"), "{token}");
    }

    /// `text` with `PRIVATE_KEY` spelled `PRIVATE KEY`: the fixtures below are written so that this source file,
    /// read through read-window, holds no key blocks of its own.
    fn k(text: &str) -> String {
        text.replace("PRIVATE_KEY", "PRIVATE KEY")
    }

    /// The key blocks of `text` scanned in pieces of `piece` bytes, as the index feeds them.
    fn blocks_of(text: &[u8], encoding: TextEncoding, piece: usize) -> KeyBlocks {
        let mut blocks = KeyBlocks::new();
        blocks.restart();
        let mut line = 1;
        for chunk in text.chunks(piece.max(1)) {
            blocks.scan(chunk, encoding, line);
            line += count_line_feeds(chunk, encoding);
        }
        blocks.finish(encoding, line);
        blocks
    }

    const CERT: &str =
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\nAbCd\n-----END CERTIFICATE-----\n";
    const KEY: &str = "-----BEGIN RSA PRIVATE_KEY-----\nMIIEpAIBAAKCAQEA\nZm9vYmFy\n-----END RSA PRIVATE_KEY-----\n";

    #[test]
    fn a_key_after_a_certificate_is_found_by_its_lines_in_any_split() {
        let text = format!("{CERT}{}tail\n", k(KEY));
        let expected = [KeyBlock {
            begin_line: 5,
            end_line: Some(8),
            kind: KeyKind::Pem,
        }];
        for piece in 1..text.len() + 1 {
            let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, piece);
            assert_eq!(blocks.blocks(), expected, "piece {piece}");
        }
        let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, 7);
        // The certificate and the tail are readable; any window that touches lines 5-8 is not.
        assert!(blocks.check_window("/p/b.pem", 1, 4, 9).is_ok());
        assert!(blocks.check_window("/p/b.pem", 9, 9, 9).is_ok());
        for (first, last) in [(1, 9), (4, 5), (6, 6), (7, 9), (8, 8)] {
            let error = blocks.check_window("/p/b.pem", first, last, 9).unwrap_err();
            let window = if first == last {
                format!("line {first}")
            } else {
                format!("lines {first}-{last}")
            };
            assert_eq!(error.kind, ErrorKind::Credential);
            assert_eq!(
                error.message,
                format!("Lines 5-8 of /p/b.pem are a PEM private key (it begins at line 5); read-window does not show private keys, so the window of {window} is refused. Readable next to it: lines 1-4 (offset=1 limit=4) and line 9 (offset=9 limit=1). If you need the key's identity, read its certificate or public key.")
            );
        }
    }

    #[test]
    fn openssh_pgp_and_one_line_keys_are_found_and_certificates_are_not() {
        let text = k("a\n-----BEGIN OPENSSH PRIVATE_KEY-----\nb3Bl\n-----END OPENSSH PRIVATE_KEY-----\n\
            -----BEGIN PGP PRIVATE_KEY BLOCK-----\n\nlQOY\n-----END PGP PRIVATE_KEY BLOCK-----\n\
            {\"private_key\": \"-----BEGIN PRIVATE_KEY-----\\nMIIE\\n-----END PRIVATE_KEY-----\\n\"}\n\
            -----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n-----BEGIN ENCRYPTED PRIVATE_KEY-----\nMIIF\n");
        let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, 64 * 1024);
        assert_eq!(
            blocks.blocks(),
            [
                KeyBlock {
                    begin_line: 2,
                    end_line: Some(4),
                    kind: KeyKind::OpenSsh
                },
                KeyBlock {
                    begin_line: 5,
                    end_line: Some(8),
                    kind: KeyKind::Pgp
                },
                KeyBlock {
                    begin_line: 9,
                    end_line: Some(9),
                    kind: KeyKind::Pem
                },
                KeyBlock {
                    begin_line: 13,
                    end_line: None,
                    kind: KeyKind::Pem
                },
            ]
        );
        assert!(blocks.check_window("/p/k", 10, 12, 14).is_ok());
        let open = blocks.check_window("/p/k", 14, 14, 14).unwrap_err().message;
        assert!(
            open.contains("begins at line 13 and has no END line"),
            "{open}"
        );
        assert!(open.contains("lines 10-12 (offset=10 limit=3)"), "{open}");
        let json = blocks.check_window("/p/k", 9, 9, 14).unwrap_err().message;
        assert!(
            json.starts_with("Line 9 of /p/k holds a PEM private key (it begins at line 9)"),
            "{json}"
        );
    }

    #[test]
    fn keys_in_utf16_and_utf32_are_found() {
        let text = format!("x\n{}", k(KEY));
        for encoding in [
            TextEncoding::Utf16Le,
            TextEncoding::Utf16Be,
            TextEncoding::Utf32Le,
            TextEncoding::Utf32Be,
        ] {
            let bytes = encode_ascii(text.as_bytes(), encoding);
            let unit = encoding.unit_bytes();
            for piece in [unit, 3 * unit, 40 * unit, bytes.len()] {
                let blocks = blocks_of(&bytes, encoding, piece);
                assert_eq!(
                    blocks.blocks(),
                    [KeyBlock {
                        begin_line: 2,
                        end_line: Some(5),
                        kind: KeyKind::Pem
                    }],
                    "{encoding:?} {piece}"
                );
            }
        }
    }

    #[test]
    fn a_rescan_of_the_last_line_records_nothing_twice() {
        let mut blocks = KeyBlocks::new();
        blocks.restart();
        blocks.scan(
            k("a\n-----BEGIN EC PRIVATE_KEY-----").as_bytes(),
            TextEncoding::Utf8,
            1,
        );
        // The BEGIN line ends the data: it is judged at the end of the scan.
        assert_eq!(blocks.blocks().len(), 0);
        blocks.finish(TextEncoding::Utf8, 2);
        assert_eq!(blocks.blocks().len(), 1);
        // The file grew: the index rescans from the start of its last line (line 2).
        blocks.restart();
        blocks.scan(
            k("-----BEGIN EC PRIVATE_KEY-----\nMHc\n-----END EC PRIVATE_KEY-----\nz").as_bytes(),
            TextEncoding::Utf8,
            2,
        );
        blocks.finish(TextEncoding::Utf8, 5);
        assert_eq!(
            blocks.blocks(),
            [KeyBlock {
                begin_line: 2,
                end_line: Some(4),
                kind: KeyKind::Pem
            }]
        );
        blocks.restart();
        blocks.scan(b"z and more\n", TextEncoding::Utf8, 5);
        blocks.finish(TextEncoding::Utf8, 6);
        assert_eq!(blocks.blocks().len(), 1);
    }

    #[test]
    fn look_alikes_are_not_keys() {
        let text = k("PRIVATE_KEY\n--BEGIN PRIVATE_KEY\n-----BEGIN private key-----\nthe PRIVATE_KEY-----\n-----BEGINPRIVATE_KEY-----\n\
            /// A BEGIN line is `-----BEGIN OPENSSH PRIVATE_KEY-----`, then the body.\n\
            const BEGIN: &str = \"-----BEGIN RSA PRIVATE_KEY-----\";\n\
            -----BEGIN PRIVATE_KEY-----and more\n\
            -----END RSA PRIVATE_KEY-----\n");
        for piece in [5, 64, text.len()] {
            assert!(
                blocks_of(text.as_bytes(), TextEncoding::Utf8, piece)
                    .blocks()
                    .is_empty(),
                "{piece}"
            );
        }
    }

    #[test]
    fn a_begin_whose_end_does_not_come_within_the_longest_key_starts_no_block() {
        let mut text = k("-----BEGIN PRIVATE_KEY-----\n");
        for _ in 0..MAX_KEY_LINES {
            text.push_str("prose\n");
        }
        text.push_str(&k(
            "-----END PRIVATE_KEY-----\nafter\n-----BEGIN PRIVATE_KEY-----\nQQ\n",
        ));
        let total = MAX_KEY_LINES + 5;
        let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, 4096);
        // The first BEGIN was dropped when its END came too late; the last one is cut by the end of the file.
        assert_eq!(
            blocks.blocks(),
            [KeyBlock {
                begin_line: total - 1,
                end_line: None,
                kind: KeyKind::Pem
            }]
        );
        assert!(blocks.check_window("/p/doc", 1, total - 2, total).is_ok());
        assert!(blocks.check_window("/p/doc", total, total, total).is_err());
        // A BEGIN with no END and more than MAX_KEY_LINES lines after it is no key either.
        let mut open = k("-----BEGIN PRIVATE_KEY-----\n");
        for _ in 0..MAX_KEY_LINES + 1 {
            open.push_str("prose\n");
        }
        let blocks = blocks_of(open.as_bytes(), TextEncoding::Utf8, 4096);
        assert!(blocks
            .check_window("/p/doc", 1, 3, MAX_KEY_LINES + 2)
            .is_ok());
    }

    #[test]
    fn too_many_keys_turn_the_rest_of_the_file_into_one_block() {
        let mut text = String::new();
        for _ in 0..MAX_KEY_BLOCKS + 2 {
            text.push_str(&k(
                "-----BEGIN PRIVATE_KEY-----\nQQ\n-----END PRIVATE_KEY-----\nok\n",
            ));
        }
        let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, 64 * 1024);
        assert_eq!(blocks.blocks().len(), MAX_KEY_BLOCKS + 1);
        let last_begin = (MAX_KEY_BLOCKS as u64) * 4 + 1;
        assert_eq!(
            blocks.blocks().last().map(|block| block.end_line),
            Some(None)
        );
        let total = (MAX_KEY_BLOCKS as u64 + 2) * 4;
        let message = blocks
            .check_window("/p/many", total, total, total)
            .unwrap_err()
            .message;
        assert!(
            message.contains(&format!("from line {last_begin} on")),
            "{message}"
        );
        assert!(blocks.check_window("/p/many", 4, 4, total).is_ok());
    }
}
