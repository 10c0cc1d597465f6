//! Where the component keeps extracted documents between processes (its document store, the config's
//! `document_cache_dir`): a private directory per component build, granted read-write to every session.
//!
//! The component does the rest (entries named by the SHA-256 of each document, checked on the way back in, the
//! least recently used removed past its bounds; docs/behaviour/documents.md). This host picks the directory,
//! `<cache dir>/documents/<the first 16 hex digits of the component's SHA-256>`, with the same safety as the
//! compiled-component cache: each directory on the way is owned by the current user and neither group nor others
//! can write it, or no document cache is kept. A directory per build means a new component never reads what an
//! older extractor wrote. The directories of other builds are pruned: the most recently used one is kept beside
//! this build's, the rest removed. `READ_WINDOW_DOCUMENT_CACHE=off` (or `0`, `false`, `no`) turns it off.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::cache;

/// The variable that turns the document cache off.
pub const DOCUMENT_CACHE_ENV: &str = "READ_WINDOW_DOCUMENT_CACHE";
/// Directories of other component builds kept beside this build's.
const KEEP_OTHER_BUILDS: usize = 1;

/// The document cache directory of the component whose SHA-256 is `component_sha256` (hex), created private;
/// `None` when it is turned off or no private directory can be had.
pub(crate) fn document_cache_dir(component_sha256: &str) -> Option<PathBuf> {
    let off = std::env::var(DOCUMENT_CACHE_ENV).is_ok_and(|value| {
        matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false" | "no"
        )
    });
    if off {
        return None;
    }
    let documents = cache::cache_dir()?.join("documents");
    let build = component_sha256.get(..16)?;
    let dir = documents.join(build);
    if !cache::private_dir(&documents) || !cache::private_dir(&dir) {
        return None;
    }
    prune_other_builds(&documents, build);
    fs::canonicalize(&dir).ok()
}

/// Removes the directories of other builds under `documents` but the [`KEEP_OTHER_BUILDS`] most recently
/// modified. Only real directories with a 16-hex-digit name are touched. Best effort.
fn prune_other_builds(documents: &Path, build: &str) {
    let Ok(entries) = fs::read_dir(documents) else {
        return;
    };
    let mut others: Vec<(SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name != build && name.len() == 16 && name.bytes().all(|byte| byte.is_ascii_hexdigit())
        })
        .filter_map(|entry| {
            let meta = fs::symlink_metadata(entry.path()).ok()?;
            if !meta.is_dir() {
                return None;
            }
            Some((meta.modified().ok()?, entry.path()))
        })
        .collect();
    others.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    for (_, path) in others.into_iter().skip(KEEP_OTHER_BUILDS) {
        let _ = fs::remove_dir_all(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_builds_are_pruned_but_the_most_recent_one() {
        let top = tempfile::tempdir().unwrap();
        let names = ["0000000000000001", "0000000000000002", "0000000000000003"];
        for (age, name) in names.iter().enumerate() {
            let dir = top.path().join(name);
            fs::create_dir(&dir).unwrap();
            let when = SystemTime::now() - std::time::Duration::from_secs(100 * (age as u64 + 1));
            fs::File::open(&dir).unwrap().set_modified(when).unwrap();
        }
        fs::write(top.path().join("not-a-build"), b"kept").unwrap();
        prune_other_builds(top.path(), "ffffffffffffffff");
        let mut left: Vec<String> = fs::read_dir(top.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["0000000000000001", "not-a-build"]);
    }
}
