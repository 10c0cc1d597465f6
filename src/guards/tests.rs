//! Tests of the guards by name: device and process files, the credential rules, their patterns and advice.

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
