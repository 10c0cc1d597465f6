//! Native tests of opening beneath: paths swapped for links between a check and an open, the credential rules on
//! every link on the way, the directories a walk keeps, and names quoted in refusals.

use std::path::{Path, PathBuf};

use super::*;
use crate::config::ConfigInput;
use crate::error::ErrorKind;
use crate::native_fs::NativeFileSystem;
use crate::read::{read_once_window, ReadRequest};

/// The native file system, with `swap` run before the file-system calls numbered in `swap_before` (counted
/// from 1 over stats and opens): another process renaming entries between the walk's checks and the open.
struct Swapping {
    inner: NativeFileSystem,
    calls: usize,
    swap_before: Vec<usize>,
    swap: Box<dyn FnMut()>,
}

impl Swapping {
    fn tick(&mut self) {
        self.calls += 1;
        if self.swap_before.contains(&self.calls) {
            (self.swap)();
        }
    }
}

impl FileSystem for Swapping {
    type File = <NativeFileSystem as FileSystem>::File;
    fn roots(&self) -> &[String] {
        self.inner.roots()
    }
    fn begin_walk(&mut self) {
        self.inner.begin_walk();
    }
    fn changes(&self) -> u64 {
        self.inner.changes()
    }
    fn stat(&mut self, root: usize, relative: &str) -> Result<FileStat, FsError> {
        self.tick();
        self.inner.stat(root, relative)
    }
    fn read_link(&mut self, root: usize, relative: &str) -> Result<String, FsError> {
        self.inner.read_link(root, relative)
    }
    fn open(&mut self, root: usize, relative: &str) -> Result<Self::File, FsError> {
        self.tick();
        self.inner.open(root, relative)
    }
    fn list_directory(
        &mut self,
        root: usize,
        relative: &str,
        max: usize,
    ) -> Result<DirectoryListing, FsError> {
        self.inner.list_directory(root, relative, max)
    }
}

impl crate::sandbox::SpillFs for Swapping {
    type Writer = <NativeFileSystem as crate::sandbox::SpillFs>::Writer;
    fn create_new(&mut self, root: usize, relative: &str) -> Result<Option<Self::Writer>, FsError> {
        self.tick();
        self.inner.create_new(root, relative)
    }
}

/// `grant/` (mounted at `/w`) and `outside/` in a new directory: `c/credentials` a plain file, `.aws/credentials`
/// the secret, `f.txt` a plain file, and a link beside each entry the test swaps in (`.swap-c` to `.aws`,
/// `.swap-f.txt` to the outside canary).
fn tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let grant = dir.path().join("grant");
    std::fs::create_dir_all(grant.join("c")).unwrap();
    std::fs::create_dir_all(grant.join(".aws")).unwrap();
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    std::fs::write(grant.join("c/credentials"), "plain notes\n").unwrap();
    std::fs::write(
        grant.join(".aws/credentials"),
        "aws_secret_access_key = SECRET\n",
    )
    .unwrap();
    std::fs::write(grant.join("f.txt"), "inside\n").unwrap();
    std::fs::write(dir.path().join("outside/canary.txt"), "CANARY\n").unwrap();
    std::os::unix::fs::symlink(".aws", grant.join(".swap-c")).unwrap();
    std::os::unix::fs::symlink("../outside/canary.txt", grant.join(".swap-f.txt")).unwrap();
    (dir, grant)
}

fn exchange(grant: &Path, name: &str) -> impl FnMut() {
    let (a, b) = (grant.join(name), grant.join(format!(".swap-{name}")));
    move || {
        rustix::fs::renameat_with(
            rustix::fs::CWD,
            &a,
            rustix::fs::CWD,
            &b,
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .unwrap()
    }
}

fn swapping(grant: &Path, name: &str, swap_before: Vec<usize>) -> Swapping {
    Swapping {
        inner: NativeFileSystem::mount(&[(grant.to_path_buf(), "/w".to_string())]),
        calls: 0,
        swap_before,
        swap: Box::new(exchange(grant, name)),
    }
}

fn read(fs: &mut Swapping, path: &str) -> Result<String, crate::error::ReadError> {
    let request = ReadRequest {
        path: path.to_string(),
        ..ReadRequest::default()
    };
    read_once_window(ConfigInput::default(), fs, &request).map(|result| result.window.content)
}

#[test]
fn a_directory_swapped_for_a_link_to_a_credential_store_after_its_check_is_refused_on_the_next_try()
{
    let (_dir, grant) = tree();
    // Call 1 stats `c` (a directory); the swap comes before call 2, which opens `c` to stat `credentials`.
    let mut fs = swapping(&grant, "c", vec![2]);
    let error = read(&mut fs, "/w/c/credentials").unwrap_err();
    assert_eq!(error.kind, ErrorKind::Credential, "{}", error.message);
    assert!(
        error.message.contains("AWS credentials"),
        "{}",
        error.message
    );
    assert_eq!(fs.changes(), 1);
}

#[test]
fn a_file_swapped_for_a_link_out_between_its_stat_and_its_open_is_never_read() {
    let (_dir, grant) = tree();
    // Call 1 stats `f.txt` (a file), call 2 opens it: the link is in place by then.
    let mut fs = swapping(&grant, "f.txt", vec![2]);
    let error = read(&mut fs, "/w/f.txt").unwrap_err();
    assert_eq!(error.kind, ErrorKind::OutsideSandbox, "{}", error.message);
    assert!(
        error.message.starts_with(
            "/w/f.txt goes through the link /w/f.txt, which points to ../outside/canary.txt"
        ),
        "{}",
        error.message
    );
    assert_eq!(fs.changes(), 1);
}

#[test]
fn a_path_that_changes_on_every_try_is_refused_without_a_byte_read() {
    let (_dir, grant) = tree();
    // Each try stats `f.txt`, then opens it; the swap before every open makes it a link, and the swap before
    // the next try's stat makes it the file again.
    let calls: Vec<usize> = (1..=2 * MAX_WALK_TRIES as usize)
        .filter(|n| *n > 1)
        .collect();
    let mut fs = swapping(&grant, "f.txt", calls);
    let error = read(&mut fs, "/w/f.txt").unwrap_err();
    assert_eq!(error.kind, ErrorKind::Io);
    assert!(
        error
            .message
            .starts_with("/w/f.txt changed while read-window opened it"),
        "{}",
        error.message
    );
    assert_eq!(fs.changes(), u64::from(MAX_WALK_TRIES));
}

#[test]
fn the_file_opened_is_the_one_under_the_directory_the_walk_checked() {
    let (_dir, grant) = tree();
    // The swap after the walk opened `c` (calls 1 and 2) and before the file's open (call 3): the file is
    // opened through the `c` that was checked, never through the link now at its name.
    let mut fs = swapping(&grant, "c", vec![3]);
    assert_eq!(
        read(&mut fs, "/w/c/credentials").unwrap(),
        "1|plain notes\n"
    );
    assert_eq!(fs.changes(), 0);
}

#[test]
fn a_spill_directory_swapped_for_a_link_out_before_the_spill_is_created_is_refused_on_the_next_try()
{
    let (dir, grant) = tree();
    std::fs::create_dir(grant.join("s")).unwrap();
    std::os::unix::fs::symlink("../outside", grant.join(".swap-s")).unwrap();
    // Call 1 stats `s` (a directory); the swap comes before call 2, which opens `s` to create the spill file.
    let mut fs = swapping(&grant, "s", vec![2]);
    let mut capture = crate::spill::Capture::new(crate::capture::CaptureInput {
        window_chars: Some(200),
        spill_dir: Some("/w/s".into()),
        ..crate::capture::CaptureInput::default()
    });
    capture.push(&mut fs, "y\n".repeat(300).as_bytes()).unwrap();
    let result = capture.finish(&mut fs, None).unwrap();
    assert_eq!(
        result.spill_error.as_deref(),
        Some(
            "/w/s goes through the link /w/s, which points to ../outside: outside the directories \
             read-window may read (/w)"
        )
    );
    assert_eq!(fs.changes(), 1);
    assert_eq!(
        std::fs::read_dir(dir.path().join("outside"))
            .unwrap()
            .count(),
        1
    );
}

#[test]
fn the_host_paths_before_a_rewrite_are_checked_by_the_credential_rules() {
    let (_dir, grant) = tree();
    let mut fs = NativeFileSystem::mount(&[(grant, "/w".to_string())]);
    let request = ReadRequest {
        path: "/w/f.txt".to_string(),
        asked_via: vec!["/w/.env".to_string()],
        ..ReadRequest::default()
    };
    let error = read_once_window(ConfigInput::default(), &mut fs, &request).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Credential);
    assert!(
        error.message.starts_with("/w/.env holds"),
        "{}",
        error.message
    );
    assert_eq!(error.path.as_deref(), Some("/w/.env"));
}

#[test]
fn every_link_on_the_way_is_checked_by_the_credential_rules() {
    let (_dir, grant) = tree();
    // `note` -> `.env` -> `f.txt`: the file reached and the name asked for are plain; the link between is not.
    std::os::unix::fs::symlink("f.txt", grant.join(".env")).unwrap();
    std::os::unix::fs::symlink(".env", grant.join("note")).unwrap();
    let mut fs = NativeFileSystem::mount(&[(grant, "/w".to_string())]);
    let request = ReadRequest {
        path: "/w/note".to_string(),
        ..ReadRequest::default()
    };
    let error = read_once_window(ConfigInput::default(), &mut fs, &request).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Credential);
    assert!(error.message.contains("/w/.env"), "{}", error.message);
}

/// A native directory that counts the directories opened beneath it (in every handle opened from it).
struct Counting {
    inner: crate::native_fs::NativeDirectory,
    opened: std::rc::Rc<std::cell::Cell<usize>>,
}

impl Directory for Counting {
    type File = <crate::native_fs::NativeDirectory as Directory>::File;
    fn stat_self(&self) -> Result<FileStat, FsError> {
        self.inner.stat_self()
    }
    fn stat_at(&self, name: &str) -> Result<FileStat, FsError> {
        self.inner.stat_at(name)
    }
    fn identity(&self) -> Result<u128, FsError> {
        self.inner.identity()
    }
    fn identity_at(&self, name: &str) -> Result<u128, FsError> {
        self.inner.identity_at(name)
    }
    fn read_link_at(&self, name: &str) -> Result<String, FsError> {
        self.inner.read_link_at(name)
    }
    fn open_directory_at(&self, name: &str) -> Result<Self, FsError> {
        self.opened.set(self.opened.get() + 1);
        Ok(Counting {
            inner: self.inner.open_directory_at(name)?,
            opened: self.opened.clone(),
        })
    }
    fn open_file_at(&self, name: &str) -> Result<Self::File, FsError> {
        self.inner.open_file_at(name)
    }
    fn list(&self, max: usize) -> Result<DirectoryListing, FsError> {
        self.inner.list(max)
    }
}

/// `grant` mounted at `/w` over [`Counting`], and its count of directories opened.
fn counting(grant: &Path) -> (Beneath<Counting>, std::rc::Rc<std::cell::Cell<usize>>) {
    let native = NativeFileSystem::mount(&[(grant.to_path_buf(), "/w".to_string())]);
    let opened = std::rc::Rc::new(std::cell::Cell::new(0));
    let preopens = native
        .preopens
        .into_iter()
        .map(|inner| {
            let opened = opened.clone();
            (Counting { inner, opened }, "/w".to_string())
        })
        .collect();
    (Beneath::new(preopens), opened)
}

fn read_in<F: FileSystem>(fs: &mut F, path: &str) -> Result<String, crate::error::ReadError> {
    let request = ReadRequest {
        path: path.to_string(),
        ..ReadRequest::default()
    };
    read_once_window(ConfigInput::default(), fs, &request).map(|result| result.window.content)
}

#[test]
fn the_directories_on_a_path_are_opened_once_and_again_only_when_another_entry_takes_a_name() {
    let (dir, grant) = tree();
    std::fs::create_dir_all(grant.join("a/b/c")).unwrap();
    std::fs::write(grant.join("a/b/c/f.txt"), "first\n").unwrap();
    let (mut fs, opened) = counting(&grant);
    for _ in 0..3 {
        assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|first\n");
    }
    assert_eq!(opened.get(), 3);
    // `a/b` moved out of the grant while kept, and a new `a/b/c/f.txt` made: the kept `a/b` (now outside)
    // and `a/b/c` under it are never read through; the new ones are opened.
    std::fs::rename(grant.join("a/b"), dir.path().join("outside/b")).unwrap();
    std::fs::create_dir_all(grant.join("a/b/c")).unwrap();
    std::fs::write(grant.join("a/b/c/f.txt"), "second\n").unwrap();
    assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|second\n");
    assert_eq!(opened.get(), 5);
    // Removed: not found; made again: the kept handles (of removed directories) are not used.
    std::fs::remove_dir_all(grant.join("a")).unwrap();
    let error = read_in(&mut fs, "/w/a/b/c/f.txt").unwrap_err();
    assert_eq!(error.kind, ErrorKind::NotFound, "{}", error.message);
    std::fs::create_dir_all(grant.join("a/b/c")).unwrap();
    std::fs::write(grant.join("a/b/c/f.txt"), "third\n").unwrap();
    assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|third\n");
    assert_eq!(opened.get(), 8);
    // Kept while one of the last 16 walks used it; closed at the start of a walk when none did.
    for _ in 1..KEPT_FOR_WALKS {
        assert_eq!(read_in(&mut fs, "/w/f.txt").unwrap(), "1|inside\n");
    }
    assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|third\n");
    assert_eq!(opened.get(), 8);
    for _ in 0..KEPT_FOR_WALKS {
        assert_eq!(read_in(&mut fs, "/w/f.txt").unwrap(), "1|inside\n");
    }
    assert_eq!(fs.walked.len(), 3);
    assert_eq!(read_in(&mut fs, "/w/f.txt").unwrap(), "1|inside\n");
    assert!(fs.walked.is_empty());
    assert_eq!(read_in(&mut fs, "/w/a/b/c/f.txt").unwrap(), "1|third\n");
    assert_eq!(opened.get(), 11);
    // A directory swapped for a link while kept: the walk sees the link, as if nothing was kept.
    std::fs::create_dir_all(grant.join("c/d")).unwrap();
    std::fs::write(grant.join("c/d/g.txt"), "kept\n").unwrap();
    assert_eq!(read_in(&mut fs, "/w/c/d/g.txt").unwrap(), "1|kept\n");
    exchange(&grant, "c")();
    let error = read_in(&mut fs, "/w/c/credentials").unwrap_err();
    assert_eq!(error.kind, ErrorKind::Credential, "{}", error.message);
}

#[test]
fn names_with_invisible_characters_are_quoted_in_refusals() {
    let (_dir, grant) = tree();
    std::fs::write(grant.join("a\u{200b}b.bin"), b"\0\x01binary").unwrap();
    std::os::unix::fs::symlink("../outside/canary.txt", grant.join("l\u{200b}k")).unwrap();
    let mut fs = NativeFileSystem::mount(&[(grant, "/w".to_string())]);
    let binary = read_in(&mut fs, "/w/a\u{200b}b.bin").unwrap_err();
    assert_eq!(binary.kind, ErrorKind::Binary);
    assert!(
        binary.message.starts_with(
            "\"/w/a\\u{200b}b.bin\" is binary data (it contains NUL bytes), detected from its content"
        ),
        "{}",
        binary.message
    );
    let outside = read_in(&mut fs, "/w/l\u{200b}k").unwrap_err();
    assert_eq!(outside.kind, ErrorKind::OutsideSandbox);
    assert!(
        outside.message.starts_with(
            "\"/w/l\\u{200b}k\" goes through the link \"/w/l\\u{200b}k\", which points to ../outside/canary.txt: \
             outside the directories read-window may read (/w)."
        ),
        "{}",
        outside.message
    );
}

#[test]
fn no_more_directories_are_kept_than_the_cap() {
    let (_dir, grant) = tree();
    // Three directories a path, 40 paths: more than the cap within the walks a directory is kept for.
    let count = 40;
    for n in 0..count {
        std::fs::create_dir_all(grant.join(format!("d{n}/x/y"))).unwrap();
        std::fs::write(grant.join(format!("d{n}/x/y/f.txt")), format!("{n}\n")).unwrap();
    }
    let mut fs = NativeFileSystem::mount(&[(grant, "/w".to_string())]);
    let mut most = 0;
    for n in (0..count).chain(0..count) {
        let path = format!("/w/d{n}/x/y/f.txt");
        assert_eq!(read_in(&mut fs, &path).unwrap(), format!("1|{n}\n"));
        most = most.max(fs.walked.len());
    }
    // Without the cap the last 17 walks' 51 would be kept; with it, three a walk reach within two of it before
    // the cap closes them all.
    assert!(
        (MAX_WALKED_DIRECTORIES - 2..=MAX_WALKED_DIRECTORIES).contains(&most),
        "{most}"
    );
}
