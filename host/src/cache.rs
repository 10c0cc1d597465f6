//! The on-disk cache of the compiled component.
//!
//! Compiling the component with Cranelift takes seconds; loading a compiled artifact takes about a millisecond.
//! The artifact is stored in a private per-user directory, in a file named by its key: the SHA-256 of the
//! component's SHA-256 and the engine's compatibility hash (which covers the wasmtime version, the target and
//! the compile settings). For the component embedded in the binary, build.rs computed its SHA-256 at build time,
//! so a start-up that finds its entry neither reads nor hashes the wasm: it stats one file and maps it
//! (`Component::deserialize_file`), and only the pages the instance touches are read.
//!
//! Deserializing is `unsafe` in wasmtime because a crafted artifact runs as native code. The cache therefore
//! only uses a directory owned by the current user and not writable by group or others, and only a regular
//! file in it with the same owner and no group or other write bit.
//!
//! An entry is never used stale or changed:
//! - stale: the key changes with the component's bytes and with the engine, so an entry for another component
//!   or engine is never looked up (and wasmtime checks the artifact's header against the engine again);
//! - changed after it was written: each entry's modification time is set to a stamp derived from its key (a whole,
//!   even second in 2001, exact on every filesystem) before it is renamed into place. Any later write to the file
//!   moves its modification time to the present, so an entry whose modification time is not its stamp is
//!   recompiled and replaced, without reading it;
//! - unreadable: a file wasmtime rejects (truncated, not an artifact, built by another wasmtime) is recompiled and
//!   replaced too.
//!
//! What the stamp cannot see is a change that also restores the modification time (a deliberate `touch -d`, or
//! bits rotting on the disk): the cache trusts the filesystem as the binary itself does.

use std::fmt;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::error::Context as _;
use wasmtime::Engine;

/// Where the compiled component came from.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum CacheStatus {
    /// Deserialized from this file.
    Hit(PathBuf),
    /// Compiled, and written to this file.
    Written(PathBuf),
    /// Compiled; writing this file failed.
    Unwritten(PathBuf),
    /// Compiled; no usable cache directory.
    Disabled,
}

impl CacheStatus {
    pub(crate) fn file(&self) -> Option<&Path> {
        match self {
            CacheStatus::Hit(path) | CacheStatus::Written(path) => Some(path),
            CacheStatus::Unwritten(_) | CacheStatus::Disabled => None,
        }
    }

    pub(crate) fn hit(&self) -> bool {
        matches!(self, CacheStatus::Hit(_))
    }
}

impl fmt::Debug for CacheStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheStatus::Hit(path) => write!(f, "hit {}", path.display()),
            CacheStatus::Written(path) => write!(f, "written {}", path.display()),
            CacheStatus::Unwritten(path) => write!(f, "not written {}", path.display()),
            CacheStatus::Disabled => f.write_str("disabled"),
        }
    }
}

/// The SHA-256 of `bytes`, 64 lowercase hex digits.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The compiled component for `wasm`, whose SHA-256 is `sha256_hex` (64 lowercase hex digits, as build.rs
/// writes it; not checked against the bytes), from the cache when a valid entry exists, else compiled and cached.
pub(crate) fn load_component_digested(
    engine: &Engine,
    wasm: &[u8],
    sha256_hex: &str,
) -> wasmtime::Result<(Component, CacheStatus)> {
    match cache_dir() {
        Some(dir) => load_in(&dir, engine, wasm, sha256_hex),
        None => Ok((compile(engine, wasm)?, CacheStatus::Disabled)),
    }
}

/// [`load_component_digested`] with the cache in `dir` (an existing private directory).
fn load_in(
    dir: &Path,
    engine: &Engine,
    wasm: &[u8],
    sha256_hex: &str,
) -> wasmtime::Result<(Component, CacheStatus)> {
    let key = Key::new(engine, sha256_hex);
    let file = dir.join(key.file_name());
    if let Some(component) = cached(engine, &file, key.stamp()) {
        return Ok((component, CacheStatus::Hit(file)));
    }
    let component = compile(engine, wasm)?;
    let status = match write_entry(dir, &file, &component, key.stamp()) {
        Ok(()) => {
            prune(dir, &file);
            CacheStatus::Written(file)
        }
        Err(_) => CacheStatus::Unwritten(file),
    };
    Ok((component, status))
}

/// The entry at `file` when it is trusted (see [`trusted_entry`]) and wasmtime accepts it for `engine`.
fn cached(engine: &Engine, file: &Path, stamp: SystemTime) -> Option<Component> {
    let meta = fs::symlink_metadata(file).ok()?;
    if !trusted_entry(&meta, stamp) {
        return None;
    }
    // SAFETY: the file is a regular file owned by the current user, in a directory owned by the current user
    // that neither group nor others can write (`private_dir`), its modification time is the stamp this module
    // set before renaming it into place (so nothing wrote to it since), and wasmtime checks its header against
    // this engine's version and settings and refuses a mismatch.
    unsafe { Component::deserialize_file(engine, file) }.ok()
}

/// How many compiled components the cache keeps (each rebuild of the component adds one).
const KEEP_ENTRIES: usize = 8;

/// Removes all but the [`KEEP_ENTRIES`] most recently written entries; `keep` is never removed. Best effort.
fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut found: Vec<(SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "cwasm") && path != keep)
        .filter_map(|path| {
            let written = written_at(&fs::symlink_metadata(&path).ok()?)?;
            Some((written, path))
        })
        .collect();
    found.sort_by_key(|(written, _)| std::cmp::Reverse(*written));
    for (_, path) in found.into_iter().skip(KEEP_ENTRIES.saturating_sub(1)) {
        let _ = fs::remove_file(path);
    }
}

/// When an entry was written: its status-change time on Unix (the modification time is the stamp), else its
/// creation time, else its modification time.
fn written_at(meta: &fs::Metadata) -> Option<SystemTime> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let secs = u64::try_from(meta.ctime()).ok()?;
        let nanos = u64::try_from(meta.ctime_nsec()).ok()?;
        UNIX_EPOCH.checked_add(Duration::from_secs(secs) + Duration::from_nanos(nanos))
    }
    #[cfg(not(unix))]
    {
        meta.created().or_else(|_| meta.modified()).ok()
    }
}

fn compile(engine: &Engine, wasm: &[u8]) -> wasmtime::Result<Component> {
    Component::new(engine, wasm).context("could not compile the component")
}

/// Feeds `Hash` impls into SHA-256.
struct Sha256Hasher(Sha256);

impl Hasher for Sha256Hasher {
    fn finish(&self) -> u64 {
        // Only the digest is used; `finish` is never called.
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

/// A cache key: the SHA-256 of the component's SHA-256 and the engine's compatibility hash.
struct Key([u8; 32]);

impl Key {
    fn new(engine: &Engine, sha256_hex: &str) -> Self {
        let mut hasher = Sha256Hasher(Sha256::new());
        hasher.write(b"read-window compiled component v2\0");
        hasher.write(sha256_hex.as_bytes());
        hasher.write(b"\0");
        engine.precompile_compatibility_hash().hash(&mut hasher);
        Key(hasher.0.finalize().into())
    }

    /// `<hex key>.cwasm`.
    fn file_name(&self) -> String {
        format!("{}.cwasm", hex(&self.0))
    }

    /// The modification time an entry is written with: 1,000,000,000 s after the Unix epoch (September 2001)
    /// plus an even count of seconds below 2^24 taken from the key. A whole, even second is stored exactly by
    /// every filesystem (FAT keeps two-second times), and no write can produce it: a write sets the present time.
    fn stamp(&self) -> SystemTime {
        let [a, b, c, ..] = self.0;
        let offset = u64::from(u32::from_le_bytes([a, b, c, 0]) & 0x7f_ffff) * 2;
        UNIX_EPOCH + Duration::from_secs(1_000_000_000 + offset)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The first usable of `$XDG_CACHE_HOME/read-window`, `$HOME/.cache/read-window`, `<temp dir>/read-window`.
pub(crate) fn cache_dir() -> Option<PathBuf> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    let candidates = [
        absolute("XDG_CACHE_HOME").map(|base| base.join("read-window")),
        absolute("HOME").map(|home| home.join(".cache").join("read-window")),
        Some(std::env::temp_dir().join("read-window")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|dir| private_dir(dir))
}

#[cfg(unix)]
fn create_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_dir(dir: &Path) -> std::io::Result<()> {
    fs::create_dir_all(dir)
}

/// Creates `dir` if it is missing; true when it is a real directory owned by the current user that neither group
/// nor others can write.
pub(crate) fn private_dir(dir: &Path) -> bool {
    let meta = match fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(_) => {
            if create_dir(dir).is_err() {
                return false;
            }
            match fs::symlink_metadata(dir) {
                Ok(meta) => meta,
                Err(_) => return false,
            }
        }
    };
    meta.is_dir() && owned_privately(&meta)
}

/// True when `meta` is a regular file (not a link) owned by the current user that neither group nor others can
/// write, with the modification time `stamp`.
fn trusted_entry(meta: &fs::Metadata, stamp: SystemTime) -> bool {
    meta.is_file() && owned_privately(meta) && meta.modified().ok() == Some(stamp)
}

/// Owned by the current user, and neither group nor others can write it (always true off Unix).
fn owned_privately(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let uid = unsafe { libc::geteuid() };
        meta.mode() & 0o022 == 0 && meta.uid() == uid
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        true
    }
}

/// Writes the serialized component to a temporary file beside `file`, stamps its modification time, then renames
/// it into place.
fn write_entry(
    dir: &Path,
    file: &Path,
    component: &Component,
    stamp: SystemTime,
) -> wasmtime::Result<()> {
    let bytes = component.serialize()?;
    // Unique per process and per call, so concurrent loads never write the same temporary file.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let serial = WRITES.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".entry-{}-{serial}.tmp", std::process::id()));
    let written = write_private(&temp, &bytes, stamp).and_then(|()| fs::rename(&temp, file));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written.context("could not write the component cache")
}

fn write_private(path: &Path, bytes: &[u8], stamp: SystemTime) -> std::io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut out = options.open(path)?;
    out.write_all(bytes)?;
    // Last: no write may follow the stamp.
    out.set_modified(stamp)?;
    out.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom};

    /// The smallest component: the preamble of component-model layer 1 and nothing else. It compiles in
    /// milliseconds, so these tests can afford to compile it again and again.
    const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\0\x01\0";

    fn private_temp_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).expect("chmod 700");
        }
        assert!(private_dir(dir.path()));
        dir
    }

    fn load(dir: &Path, engine: &Engine) -> CacheStatus {
        let digest = hex(&Sha256::digest(EMPTY_COMPONENT));
        load_in(dir, engine, EMPTY_COMPONENT, &digest)
            .expect("load the empty component")
            .1
    }

    /// Loads once (compiling and writing the entry) and returns the entry's path, checked to be a hit next time.
    fn written_entry(dir: &Path, engine: &Engine) -> PathBuf {
        let CacheStatus::Written(file) = load(dir, engine) else {
            panic!("the first load should compile and write the entry");
        };
        assert_eq!(load(dir, engine), CacheStatus::Hit(file.clone()));
        file
    }

    fn stamp_of(engine: &Engine) -> SystemTime {
        Key::new(engine, &hex(&Sha256::digest(EMPTY_COMPONENT))).stamp()
    }

    fn set_mtime(file: &Path, time: SystemTime) {
        fs::OpenOptions::new()
            .write(true)
            .open(file)
            .and_then(|out| out.set_modified(time))
            .expect("set the modification time");
    }

    #[test]
    fn entry_is_written_with_its_stamp_then_loaded_from_the_cache() {
        let dir = private_temp_dir();
        let engine = Engine::default();
        let file = written_entry(dir.path(), &engine);
        let meta = fs::metadata(&file).expect("entry");
        assert_eq!(meta.modified().ok(), Some(stamp_of(&engine)));
        let since_epoch = stamp_of(&engine)
            .duration_since(UNIX_EPOCH)
            .expect("after the epoch");
        assert_eq!(since_epoch.subsec_nanos(), 0);
        assert_eq!(since_epoch.as_secs() % 2, 0);
        assert!((1_000_000_000..1_000_000_000 + (1 << 24)).contains(&since_epoch.as_secs()));
    }

    #[test]
    fn entry_written_to_after_it_was_cached_is_recompiled_and_replaced() {
        let dir = private_temp_dir();
        let engine = Engine::default();
        let file = written_entry(dir.path(), &engine);
        let len = fs::metadata(&file).expect("entry").len();
        // Flip bytes in the middle of the artifact (its code), as a stray write would.
        let mut out = fs::OpenOptions::new()
            .write(true)
            .open(&file)
            .expect("open");
        out.seek(SeekFrom::Start(len / 2)).expect("seek");
        out.write_all(&[0xff; 16]).expect("write");
        drop(out);
        assert_ne!(
            fs::metadata(&file).expect("entry").modified().ok(),
            Some(stamp_of(&engine))
        );
        assert_eq!(
            load(dir.path(), &engine),
            CacheStatus::Written(file.clone())
        );
        assert_eq!(load(dir.path(), &engine), CacheStatus::Hit(file));
    }

    #[test]
    fn truncated_entry_with_its_stamp_restored_is_recompiled() {
        let dir = private_temp_dir();
        let engine = Engine::default();
        let file = written_entry(dir.path(), &engine);
        let len = fs::metadata(&file).expect("entry").len();
        fs::OpenOptions::new()
            .write(true)
            .open(&file)
            .and_then(|out| out.set_len(len / 2))
            .expect("truncate");
        set_mtime(&file, stamp_of(&engine));
        assert_eq!(
            load(dir.path(), &engine),
            CacheStatus::Written(file.clone())
        );
        assert_eq!(fs::metadata(&file).expect("entry").len(), len);
        assert_eq!(load(dir.path(), &engine), CacheStatus::Hit(file));
    }

    #[test]
    fn zeroed_entry_with_its_stamp_restored_is_recompiled() {
        let dir = private_temp_dir();
        let engine = Engine::default();
        let file = written_entry(dir.path(), &engine);
        let len = fs::metadata(&file).expect("entry").len();
        fs::write(&file, vec![0u8; usize::try_from(len).expect("small")]).expect("zero");
        set_mtime(&file, stamp_of(&engine));
        assert_eq!(
            load(dir.path(), &engine),
            CacheStatus::Written(file.clone())
        );
        assert_eq!(load(dir.path(), &engine), CacheStatus::Hit(file));
    }

    #[cfg(unix)]
    #[test]
    fn entry_others_can_write_is_not_trusted() {
        use std::os::unix::fs::PermissionsExt;
        let dir = private_temp_dir();
        let engine = Engine::default();
        let file = written_entry(dir.path(), &engine);
        fs::set_permissions(&file, fs::Permissions::from_mode(0o666)).expect("chmod 666");
        assert_eq!(
            load(dir.path(), &engine),
            CacheStatus::Written(file.clone())
        );
        let mode = fs::metadata(&file).expect("entry").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn directory_others_can_write_is_not_used() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).expect("chmod 777");
        assert!(!private_dir(dir.path()));
        let missing = dir.path().join("made");
        assert!(private_dir(&missing));
        let mode = fs::metadata(&missing).expect("made").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    #[test]
    fn entry_of_the_same_bytes_is_shared_and_another_engine_has_its_own() {
        let engine = Engine::default();
        let digest = hex(&Sha256::digest(EMPTY_COMPONENT));
        let other = {
            let mut config = wasmtime::Config::new();
            config.epoch_interruption(true);
            Engine::new(&config).expect("engine")
        };
        assert_eq!(
            Key::new(&engine, &digest).file_name(),
            Key::new(&engine, &hex(&Sha256::digest(EMPTY_COMPONENT))).file_name()
        );
        assert_ne!(
            Key::new(&engine, &digest).file_name(),
            Key::new(&other, &digest).file_name()
        );
        assert_ne!(
            Key::new(&engine, &digest).file_name(),
            Key::new(&engine, &hex(&Sha256::digest(b"\0asm\x0d\0\x01\0\0"))).file_name()
        );
    }
}
