//! Tests of the directory walk: sorted pre-order, depth, links not followed, the cap on entries.

use std::path::PathBuf;

use super::*;
use crate::native_fs::NativeFileSystem;
use crate::sandbox::resolve;

fn setup() -> (tempfile::TempDir, NativeFileSystem) {
    let directory = tempfile::tempdir().unwrap();
    let fs = NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]);
    (directory, fs)
}

/// The paths and depths a walk of `/w` visits, with the cap `max_entries`.
fn visited(
    fs: &mut NativeFileSystem,
    max_depth: u32,
    max_entries: u64,
) -> (Vec<(String, u32)>, WalkSummary) {
    let policy = CredentialPolicy::new(&[], &[]);
    let mut ignore = IgnoreFiles::new(&[]);
    let start = resolve(fs, "/w", "/w").unwrap();
    let mut seen = Vec::new();
    let summary = walk_capped(
        fs,
        &policy,
        &mut ignore,
        &start,
        max_depth,
        max_entries,
        &mut |_, entry| {
            seen.push((entry.path.clone(), entry.depth));
            Step::Descend
        },
    );
    (seen, summary)
}

#[test]
fn entries_come_sorted_by_bytes_each_directory_before_its_children() {
    let (directory, mut fs) = setup();
    for name in ["b.txt", "a/z.txt", "a/m/deep.txt", "B.txt", "a-b.txt"] {
        let path = directory.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "").unwrap();
    }
    std::os::unix::fs::symlink("a", directory.path().join("link")).unwrap();
    let (seen, summary) = visited(&mut fs, 10, MAX_WALK_ENTRIES);
    let expected: Vec<(String, u32)> = [
        ("B.txt", 1),
        ("a", 1),
        ("a/m", 2),
        ("a/m/deep.txt", 3),
        ("a/z.txt", 2),
        ("a-b.txt", 1),
        ("b.txt", 1),
        ("link", 1),
    ]
    .iter()
    .map(|(path, depth)| (path.to_string(), *depth))
    .collect();
    assert_eq!(seen, expected);
    assert_eq!(summary, WalkSummary::default());
    let (shallow, _) = visited(&mut fs, 1, MAX_WALK_ENTRIES);
    assert_eq!(shallow.len(), 5);
}

#[test]
fn the_cap_stops_the_walk_and_says_so() {
    let (directory, mut fs) = setup();
    for index in 0..10 {
        std::fs::write(directory.path().join(format!("f{index}")), "").unwrap();
    }
    let (seen, summary) = visited(&mut fs, 1, 3);
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[2].0, "f2");
    assert!(summary.stopped);
}
