//! Glob patterns over the grants, for `read_many`: the files a pattern such as `src/**/*.rs` matches, found by a
//! walk from the pattern's literal directory, with the session's guards. Matching is `fast_glob`'s.

use crate::error::ReadError;
use crate::guards::CredentialPolicy;
use crate::ignore_files::IgnoreFiles;
use crate::prose::plural;
use crate::sandbox::{normalize, resolve, FileKind, FileSystem, ResolveError};
use crate::tree::{walk, Refusal, Step, TreeEntry};

/// Whether `path` is a glob pattern rather than a path: it holds `*`, `?`, `[` or `{`.
pub fn is_glob(path: &str) -> bool {
    path.contains(['*', '?', '[', '{'])
}

/// The directory a pattern's walk starts from and how deep it goes: the components before the first that holds
/// a glob character, and the count of components after them (`None` when a `**` lets it go any depth).
fn literal_base(absolute_pattern: &str) -> (String, Option<u32>) {
    let components: Vec<&str> = absolute_pattern
        .split('/')
        .filter(|c| !c.is_empty())
        .collect();
    let literal = components
        .iter()
        .take_while(|component| !is_glob(component))
        .count();
    let base = format!(
        "/{}",
        components.get(..literal).unwrap_or_default().join("/")
    );
    let rest = components.get(literal..).unwrap_or_default();
    let depth = if rest.contains(&"**") {
        None
    } else {
        u32::try_from(rest.len()).ok()
    };
    (base, depth)
}

/// The regular files under the grants that `pattern` (absolute, or relative to `base`) matches, as absolute
/// paths in name order, at most `max` + 1 (one more tells the caller there are too many), and the notes on the
/// matches the guards refused (credential files, ignored paths: not read, as a single read would refuse them).
///
/// Errors: the pattern's literal directory does not exist, is not a directory, or lies outside the grants
/// (`not_found`, `not_a_file`, `outside_sandbox`).
pub fn matches<F: FileSystem + ?Sized>(
    fs: &mut F,
    policy: &CredentialPolicy,
    ignore: &mut IgnoreFiles,
    pattern: &str,
    base: &str,
    max: usize,
) -> Result<(Vec<String>, Vec<String>), ReadError> {
    let absolute_pattern = normalize(pattern, base);
    let (directory, depth) = literal_base(&absolute_pattern);
    let start = match resolve(fs, &directory, &directory) {
        Ok(start) if start.stat.kind == FileKind::Directory => start,
        Ok(_) => {
            return Err(ReadError::new(
                crate::error::ErrorKind::NotAFile,
                format!("the pattern {pattern} starts from {directory}, which is not a directory"),
            ))
        }
        Err(ResolveError::NotFound(missing)) => {
            return Err(ReadError::new(
                crate::error::ErrorKind::NotFound,
                format!(
                    "the pattern {pattern} starts from {directory}, and {} does not exist",
                    missing.path
                ),
            ))
        }
        Err(ResolveError::Other(error)) => return Err(error),
    };
    let mut found = Vec::new();
    let mut refused = (0u64, 0u64);
    let mut visit = |_: &mut F, entry: &TreeEntry| {
        let matched = fast_glob::glob_match(&absolute_pattern, &entry.absolute);
        match (&entry.refusal, entry.stat.kind) {
            (Some(Refusal::Credential(_)), _) if matched => refused.0 += 1,
            (Some(Refusal::Ignored(_)), _) if matched => refused.1 += 1,
            (Some(_), _) => {}
            (None, FileKind::Directory) => return Step::Descend,
            (None, FileKind::Regular) if matched => {
                found.push(entry.absolute.clone());
                if found.len() > max {
                    return Step::Stop;
                }
            }
            (None, _) => {}
        }
        Step::Skip
    };
    walk(
        fs,
        policy,
        ignore,
        &start,
        depth.unwrap_or(u32::MAX),
        &mut visit,
    );
    let mut notes = Vec::new();
    if refused.0 > 0 {
        notes.push(format!(
            "The pattern {pattern} also matched {}, refused as a single read would refuse {}, so not read.",
            plural(refused.0, "credential file", "credential files"),
            if refused.0 == 1 { "it" } else { "them" }
        ));
    }
    if refused.1 > 0 {
        notes.push(format!(
            "The pattern {pattern} also matched {} under the ignore rules, not read.",
            plural(refused.1, "path", "paths")
        ));
    }
    Ok((found, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_starts_at_the_literal_directory_and_goes_as_deep_as_the_pattern() {
        assert_eq!(literal_base("/p/src/*.rs"), ("/p/src".to_owned(), Some(1)));
        assert_eq!(
            literal_base("/p/src/*/mod.rs"),
            ("/p/src".to_owned(), Some(2))
        );
        assert_eq!(literal_base("/p/**/*.md"), ("/p".to_owned(), None));
        assert_eq!(literal_base("/*.txt"), ("/".to_owned(), Some(1)));
    }
}
