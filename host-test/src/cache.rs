//! The on-disk cache of the compiled component.
//!
//! Compiling the component with Cranelift takes seconds; deserializing a compiled artifact takes milliseconds.
//! The artifact is stored in a private per-user directory, in a file named by the SHA-256 of the wasm bytes and
//! the engine's compatibility hash (which covers the wasmtime version, the target and the compile settings).
//!
//! Deserializing is `unsafe` in wasmtime because a crafted artifact runs as native code. The cache therefore
//! only uses a directory owned by the current user and not writable by group or others, and only a regular
//! file in it with the same owner and no group or other write bit.

use std::fmt;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::error::Context as _;
use wasmtime::{Engine, Precompiled};

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

/// The compiled component for `wasm`: from the cache when a valid entry exists, else compiled and cached.
pub(crate) fn load_component(
    engine: &Engine,
    wasm: &[u8],
) -> wasmtime::Result<(Component, CacheStatus)> {
    let Some(dir) = cache_dir() else {
        return Ok((compile(engine, wasm)?, CacheStatus::Disabled));
    };
    let file = dir.join(format!("{}.cwasm", key(engine, wasm)));
    if trusted_file(&file)
        && matches!(
            Engine::detect_precompiled_file(&file),
            Ok(Some(Precompiled::Component))
        )
    {
        // SAFETY: the file is a regular file owned by the current user, in a directory owned by the current user
        // that neither group nor others can write (checked above), so only this program (or the same user) wrote
        // it; wasmtime also checks its header against this engine's version and settings and refuses a mismatch.
        if let Ok(component) = unsafe { Component::deserialize_file(engine, &file) } {
            return Ok((component, CacheStatus::Hit(file)));
        }
    }
    let component = compile(engine, wasm)?;
    let status = match write_entry(&dir, &file, &component) {
        Ok(()) => {
            prune(&dir, &file);
            CacheStatus::Written(file)
        }
        Err(_) => CacheStatus::Unwritten(file),
    };
    Ok((component, status))
}

/// How many compiled components the cache keeps (each rebuild of the component adds one).
const KEEP_ENTRIES: usize = 8;

/// Removes all but the [`KEEP_ENTRIES`] most recently written entries; `keep` is never removed. Best effort.
fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "cwasm") && path != keep)
        .filter_map(|path| {
            let modified = fs::symlink_metadata(&path)
                .and_then(|meta| meta.modified())
                .ok()?;
            Some((modified, path))
        })
        .collect();
    found.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    for (_, path) in found.into_iter().skip(KEEP_ENTRIES.saturating_sub(1)) {
        let _ = fs::remove_file(path);
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

/// The hex SHA-256 of the wasm bytes and the engine's compatibility hash.
fn key(engine: &Engine, wasm: &[u8]) -> String {
    let mut hasher = Sha256Hasher(Sha256::new());
    hasher.write(b"read-window compiled component v1\0");
    hasher.write(&(wasm.len() as u64).to_le_bytes());
    hasher.write(wasm);
    engine.precompile_compatibility_hash().hash(&mut hasher);
    hasher
        .0
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The first usable of `$XDG_CACHE_HOME/read-window`, `$HOME/.cache/read-window`, `<temp dir>/read-window`.
fn cache_dir() -> Option<PathBuf> {
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

/// Creates `dir` if needed; true when it is a real directory owned by the current user that neither group nor
/// others can write.
fn private_dir(dir: &Path) -> bool {
    if create_dir(dir).is_err() {
        return false;
    }
    let Ok(meta) = fs::symlink_metadata(dir) else {
        return false;
    };
    if !meta.is_dir() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.mode() & 0o022 == 0 && current_uid(dir) == Some(meta.uid())
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// The current user's id, found as the owner of a file this process creates in `dir` (std has no `geteuid`).
#[cfg(unix)]
fn current_uid(dir: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.subsec_nanos());
    let probe = dir.join(format!(".probe-{}-{nanos}", std::process::id()));
    let created = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe);
    let uid = created
        .ok()
        .and_then(|file| file.metadata().ok())
        .map(|meta| meta.uid());
    // Best effort: a probe left behind is harmless.
    let _ = fs::remove_file(&probe);
    uid
}

/// True when `file` is a regular file (not a link) that neither group nor others can write.
fn trusted_file(file: &Path) -> bool {
    let Ok(meta) = fs::symlink_metadata(file) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let parent_uid = file
            .parent()
            .and_then(|dir| fs::symlink_metadata(dir).ok())
            .map(|dir| dir.uid());
        meta.mode() & 0o022 == 0 && parent_uid == Some(meta.uid())
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// Writes the serialized component to a temporary file beside `file`, then renames it into place.
fn write_entry(dir: &Path, file: &Path, component: &Component) -> wasmtime::Result<()> {
    let bytes = component.serialize()?;
    // Unique per process and per call, so concurrent loads never write the same temporary file.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let serial = WRITES.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".entry-{}-{serial}.tmp", std::process::id()));
    let written = write_private(&temp, &bytes).and_then(|()| fs::rename(&temp, file));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written.context("could not write the component cache")
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut out = options.open(path)?;
    out.write_all(bytes)?;
    out.sync_all()
}
