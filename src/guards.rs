//! Guards by name and by content: device and process files that block or never end, and credential stores.
//!
//! These run on the normalized requested path and again on the path after links are resolved, so
//! `/dev/../dev/zero` and a link to `/dev/zero` are refused like `/dev/zero`. The credential deny-list is a
//! policy inside the sandbox; the sandbox itself is the set of preopened directories.

use crate::error::{ErrorKind, ReadError};

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

/// Per-process files under `/proc` that expose secrets, block, or are unbounded.
const BLOCKED_PROCESS_FILES: &[&str] = &[
    "environ", "cmdline", "maps", "smaps", "mem", "auxv", "pagemap",
];

/// Refuses device and process files by name. `path` is an absolute, normalized guest path.
pub fn check_device_name(path: &str) -> Result<(), ReadError> {
    let refuse = |what: &str| {
        Err(ReadError::new(
            ErrorKind::Device,
            format!("{path} is {what}; reading it would block or never end, so read-window refuses it. Read a regular file instead."),
        ))
    };
    if BLOCKED_DEVICES.contains(&path) {
        return refuse("a device file");
    }
    if path == "/dev/fd" || path.starts_with("/dev/fd/") {
        return refuse("a file descriptor of the host process");
    }
    if let Some(rest) = path.strip_prefix("/proc/") {
        if rest == "kcore" || rest == "kmsg" {
            return refuse("a kernel memory or log device");
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
                return refuse("a standard stream of a process");
            }
            [name] if BLOCKED_PROCESS_FILES.contains(name) => {
                return refuse("a process's private or unbounded file");
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
    ("**/*.pem", "PEM private key or certificate store (*.pem)"),
    ("**/*.key", "private key (*.key)"),
    ("**/auth.json", "token store (auth.json)"),
    ("**/credentials.json", "token store (credentials.json)"),
];

/// Exceptions to the default deny-list: templates that hold no secrets.
pub const DEFAULT_ALLOW: &[&str] = &[
    "**/*.pub",
    "**/.env.example",
    "**/.env.sample",
    "**/.env.template",
    "**/.env.dist",
];

/// The credential policy: deny rules and exceptions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialPolicy {
    deny: Vec<CredentialRule>,
    allow: Vec<String>,
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
        CredentialPolicy { deny, allow }
    }

    /// The rule that refuses `path` (an absolute guest path), if any.
    pub fn matching_rule(&self, path: &str) -> Option<&CredentialRule> {
        // Case-insensitive (ASCII): on macOS and Windows `.ENV` opens `.env`.
        let path = path.to_ascii_lowercase();
        let path = path.as_str();
        if self
            .allow
            .iter()
            .any(|pattern| fast_glob::glob_match(pattern, path))
        {
            return None;
        }
        self.deny
            .iter()
            .find(|rule| fast_glob::glob_match(&rule.pattern, path))
    }

    /// Refuses `path` when a deny rule matches and no exception does.
    pub fn check(&self, path: &str) -> Result<(), ReadError> {
        match self.matching_rule(path) {
            Some(rule) => Err(ReadError::new(
                ErrorKind::Credential,
                format!(
                    "{path} holds {} (credential rule `{}`); read-window does not read credential files. Ask the user for the value you need, or read a template such as .env.example.",
                    rule.description, rule.pattern
                ),
            )),
            None => Ok(()),
        }
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

/// Refuses content that is a PEM private key, whatever the file is called.
pub fn check_private_key(path: &str, sample: &[u8]) -> Result<(), ReadError> {
    let begin = memchr::memmem::find(sample, b"-----BEGIN ");
    if let Some(start) = begin {
        let header_end = sample.len().min(start + 80);
        let header = sample.get(start..header_end).unwrap_or_default();
        if memchr::memmem::find(header, b"PRIVATE KEY-----").is_some() {
            return Err(ReadError::new(
                ErrorKind::Credential,
                format!("{path} contains a private key (PEM `BEGIN ... PRIVATE KEY`); read-window does not read private keys."),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "/p/server.pem",
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
        ] {
            assert!(policy.check(path).is_ok(), "{path}");
        }
    }

    #[test]
    fn host_patterns_add_rules_and_exceptions() {
        let policy = CredentialPolicy::new(
            &["secrets/*.yaml".to_string()],
            &["**/test-fixtures/*.pem".to_string()],
        );
        assert!(policy.check("/p/secrets/prod.yaml").is_err());
        assert!(policy.check("/p/test-fixtures/cert.pem").is_ok());
        assert!(policy.check("/p/other/cert.pem").is_err());
    }

    #[test]
    fn private_keys_are_found_by_content() {
        assert!(check_private_key("/p/k", b"-----BEGIN OPENSSH PRIVATE KEY-----\nabc").is_err());
        assert!(check_private_key("/p/c", b"-----BEGIN CERTIFICATE-----\nabc").is_ok());
    }
}
