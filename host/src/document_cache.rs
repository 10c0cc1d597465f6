//! Where the component keeps extracted documents between processes (its document store, the config's
//! `document_cache_dir`): a private directory per component build, granted read-write to every session.
//!
//! The component does the rest (entries named by the SHA-256 of each document, checked on the way back in, the
//! least recently used removed past its bounds; docs/behaviour/documents.md). This host picks the directory,
//! `<cache dir>/documents/<the first 16 hex digits of the component's SHA-256>`, with the same safety as the
//! compiled-component cache: each directory on the way is owned by the current user and neither group nor others
//! can write it, or no document cache is kept. A directory per build means a new component never reads what an
//! older extractor wrote. The directories of other builds are removed: the component hides only its own store,
//! so another build's, left beside it, would show through a root that holds the cache.
//! `READ_WINDOW_DOCUMENT_CACHE=off` (or `0`, `false`, `no`, `none`, `disabled`) turns it off.

use std::fs;
use std::path::{Path, PathBuf};

use crate::cache;

/// The variable that turns the document cache off.
pub const DOCUMENT_CACHE_ENV: &str = "READ_WINDOW_DOCUMENT_CACHE";

/// The document cache directory of the component whose SHA-256 is `component_sha256` (hex), created private;
/// `None` when it is turned off or no private directory can be had.
pub(crate) fn document_cache_dir(component_sha256: &str) -> Option<PathBuf> {
    let off = std::env::var(DOCUMENT_CACHE_ENV).is_ok_and(|value| {
        matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false" | "no" | "none" | "disabled"
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

/// Makes `dir`, a document cache directory [`document_cache_dir`] returned, again when it is gone (a process
/// running another build removed it, as this one removes theirs); true when it is there and private. A session
/// whose cache directory this says false for keeps no documents.
pub(crate) fn ensure_dir(dir: &Path) -> bool {
    dir.is_dir()
        || dir
            .parent()
            .is_some_and(|documents| cache::private_dir(documents) && cache::private_dir(dir))
}

/// Removes the directories of other builds under `documents`: real directories with a 16-hex-digit name other
/// than `build`. Best effort.
fn prune_other_builds(documents: &Path, build: &str) {
    let Ok(entries) = fs::read_dir(documents) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let other_build =
            name != build && name.len() == 16 && name.bytes().all(|byte| byte.is_ascii_hexdigit());
        let is_dir = fs::symlink_metadata(entry.path()).is_ok_and(|meta| meta.is_dir());
        if other_build && is_dir {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_another_build_removed_is_made_again() {
        let top = tempfile::tempdir().unwrap();
        let documents = top.path().join("documents");
        let dir = documents.join("0000000000000001");
        assert!(ensure_dir(&dir));
        fs::remove_dir_all(&documents).unwrap();
        assert!(ensure_dir(&dir));
        assert!(dir.is_dir());
        // A file where the directory was is not a document cache.
        fs::remove_dir(&dir).unwrap();
        fs::write(&dir, b"a file").unwrap();
        assert!(!ensure_dir(&dir));
    }

    #[test]
    fn the_directories_of_other_builds_are_removed() {
        let top = tempfile::tempdir().unwrap();
        for name in ["0000000000000001", "0000000000000002", "ffffffffffffffff"] {
            fs::create_dir(top.path().join(name)).unwrap();
            fs::write(top.path().join(name).join("entry.extracted"), b"x").unwrap();
        }
        fs::write(top.path().join("not-a-build"), b"kept").unwrap();
        fs::write(top.path().join("0000000000000003"), b"a file, kept").unwrap();
        prune_other_builds(top.path(), "0000000000000001");
        let mut left: Vec<String> = fs::read_dir(top.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["0000000000000001", "0000000000000003", "not-a-build"]
        );
    }
}
