//! Loading the component once per process ([`ReadWindow`]): the [`Engine`], the compiled component (through the
//! disk cache), the linker with WASI preview 2, the `InstancePre`, the epoch ticker and the instance allocator
//! ([`Allocation`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmtime::component::{Component, Linker};
use wasmtime::error::Context as _;
use wasmtime::{Engine, OptLevel, Strategy};

use crate::error::EPOCH_TICK;
use crate::session::{self, HostState, Shared};
use crate::{bindings, cache, document_cache, timings};
use crate::{
    Config, Grants, HostError, ReadError, ReadOutcome, ReadRequest, Session, SessionLimits,
};

/// The absolute path of the component file the `read-window-wasm` crate took (in the repository
/// `target/component-build/.../read_window.wasm`; in the published crate its `prebuilt/read_window.wasm`), for
/// hosts that load the file (Python, JavaScript, `wasmtime run`). This crate embeds a copy
/// ([`EMBEDDED_COMPONENT`]).
pub const COMPONENT_PATH: &str = read_window_wasm::COMPONENT_PATH;

/// The component as it was when this crate was compiled: what [`ReadWindow::load`] loads when
/// `$READ_WINDOW_WASM` is not set, so a binary of this crate runs without the build's `target/` directory.
pub const EMBEDDED_COMPONENT: &[u8] = read_window_wasm::COMPONENT;

/// The SHA-256 of [`EMBEDDED_COMPONENT`] (64 lowercase hex digits), computed at build time: the disk cache of the
/// compiled component is keyed by it, so [`ReadWindow::load`] never hashes the wasm at run time.
pub const EMBEDDED_COMPONENT_SHA256: &str = read_window_wasm::COMPONENT_SHA256;

/// The environment variable that names the component to load at run time, for every host: when it is set (and not
/// empty), [`ReadWindow::load`] loads that file instead of the embedded component.
pub const WASM_ENV: &str = "READ_WINDOW_WASM";

/// The component file of this build: `$READ_WINDOW_WASM` when it is set and not empty, else [`COMPONENT_PATH`]
/// (whose bytes, as of the build, are [`EMBEDDED_COMPONENT`], what [`ReadWindow::load`] then loads). The second
/// value is true when the path came from the environment.
pub fn component_path() -> (PathBuf, bool) {
    match std::env::var_os(WASM_ENV) {
        Some(path) if !path.is_empty() => (PathBuf::from(path), true),
        _ => (PathBuf::from(COMPONENT_PATH), false),
    }
}

/// The loaded component: an engine, a compiled component, a linker with WASI preview 2, and an `InstancePre`.
///
/// Load it once per process and share it (it is `Clone`, `Send` and `Sync`; clones share everything). Each
/// [`Session`] gets its own store.
///
/// # N sessions on M threads
///
/// One `ReadWindow` serves every session of the process: compiling and linking happen once, and a new session
/// only instantiates the shared `InstancePre` in a fresh store (about 150 µs and 0.2 MiB resident; 0.4 MiB once
/// it has read). A [`Session`] is `Send`, and its methods take `&mut self`: it moves between threads, and one
/// thread at a time calls it. So run N sessions on M threads by giving each session one owner at a time: a worker
/// pool where each worker owns a share of the sessions (session i on worker i mod M), or each session in a
/// `Mutex<Session>` (an agent's calls are sequential anyway) that the worker serving it locks. Sessions share
/// nothing mutable on the read path, so reads on M free cores scale with M (`read-window-load` measures it: a read
/// costs the same CPU time at 2 threads as at 1). Calls are synchronous: in an async server, call a session from
/// a blocking task (`spawn_blocking`) or a thread pool of its own. The instance allocator is chosen with
/// [`ReadWindow::load_with_allocation`] ([`Allocation`]).
#[derive(Clone)]
pub struct ReadWindow {
    shared: Arc<Shared>,
}

impl fmt::Debug for ReadWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadWindow")
            .field("cache", &self.shared.cache)
            .finish_non_exhaustive()
    }
}

impl ReadWindow {
    /// Loads the component named by `$READ_WINDOW_WASM` when it is set (see [`component_path`]), else the one
    /// `build.rs` built, embedded in this binary ([`EMBEDDED_COMPONENT`]).
    ///
    /// Compiling takes seconds, so the compiled code is cached on disk: `$XDG_CACHE_HOME/read-window/`, else
    /// `$HOME/.cache/read-window/`, else `<temp dir>/read-window/`, in a file named by the SHA-256 of the
    /// component's SHA-256 and the engine's compatibility hash (wasmtime version, target, compile settings). For
    /// the embedded component the digest was computed at build time ([`EMBEDDED_COMPONENT_SHA256`]), so a load
    /// that finds its entry reads no wasm and hashes nothing: it maps the compiled file. A cache directory that is
    /// not owned by the current user or is writable by others is not used. An entry written to since it was cached
    /// (its modification time is no longer the stamp it was written with), or that fails to deserialize, is
    /// recompiled and rewritten; a cache that cannot be written is skipped silently.
    ///
    /// Errors: `$READ_WINDOW_WASM` names a file that does not exist (the message names the variable and the
    /// path), the file cannot be read, is not a valid component, lacks the `read-window` exports, or the engine
    /// cannot be built.
    pub fn load() -> wasmtime::Result<Self> {
        let (path, from_env) = component_path();
        if !from_env {
            return Self::from_digested(EMBEDDED_COMPONENT, EMBEDDED_COMPONENT_SHA256);
        }
        if !path.is_file() {
            return Err(wasmtime::format_err!(
                "{WASM_ENV} is set to {}, which is not a file; point it at a read_window.wasm component (this \
                 build made {COMPONENT_PATH}), or unset it to use the component built into this binary",
                path.display()
            ));
        }
        Self::from_file(path)
    }

    /// Loads the component at `path` (a `.wasm` component of the `read-window` world), with the same disk cache
    /// as [`ReadWindow::load`]; the file is read and hashed (SHA-256) to find its cache entry.
    pub fn from_file(path: impl AsRef<Path>) -> wasmtime::Result<Self> {
        let path = path.as_ref();
        let wasm = std::fs::read(path).with_context(|| {
            format!(
                "could not read the read-window component {}",
                path.display()
            )
        })?;
        timings::mark("wasm_read");
        Self::from_bytes(&wasm)
            .with_context(|| format!("could not load the component {}", path.display()))
    }

    /// Loads a component from its bytes, with the same disk cache as [`ReadWindow::load`]; the bytes are hashed
    /// (SHA-256) to find their cache entry.
    pub fn from_bytes(wasm: &[u8]) -> wasmtime::Result<Self> {
        let engine = new_engine(Allocation::OnDemand)?;
        timings::mark("engine");
        let digest = cache::sha256_hex(wasm);
        let loaded = cache::load_component_digested(&engine, wasm, &digest)?;
        Self::assemble(engine, loaded, &digest)
    }

    /// Loads `wasm`, whose SHA-256 is `sha256_hex`, with the disk cache keyed by that digest.
    fn from_digested(wasm: &[u8], sha256_hex: &str) -> wasmtime::Result<Self> {
        let engine = new_engine(Allocation::OnDemand)?;
        timings::mark("engine");
        let loaded = cache::load_component_digested(&engine, wasm, sha256_hex)?;
        Self::assemble(engine, loaded, sha256_hex)
    }

    /// Links WASI preview 2, pre-instantiates the loaded component (whose SHA-256 is `sha256_hex`), finds its
    /// document cache directory and starts the epoch ticker.
    fn assemble(
        engine: Engine,
        (component, cache): (Component, cache::CacheStatus),
        sha256_hex: &str,
    ) -> wasmtime::Result<Self> {
        timings::mark(if cache.hit() {
            "cache_hit"
        } else {
            "cache_miss"
        });
        let mut linker: Linker<HostState> = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)
            .context("could not link WASI preview 2")?;
        let instance_pre = linker
            .instantiate_pre(&component)
            .context("could not pre-instantiate the component")?;
        let pre = bindings::ReadWindowPre::new(instance_pre)
            .context("the component does not export the read-window:reader/reader interface")?;
        timings::mark("linker");
        spawn_epoch_ticker(&engine)?;
        timings::mark("ticker");
        let document_cache = document_cache::document_cache_dir(sha256_hex)
            .and_then(|dir| Grants::new().writable_dir(dir).ok())
            .and_then(|grants| grants.dirs().first().cloned());
        timings::mark("document_cache");
        Ok(ReadWindow {
            shared: Arc::new(Shared {
                engine,
                linker,
                pre,
                cache,
                document_cache,
            }),
        })
    }

    /// What every store of this component shares (for the host's own tests).
    #[cfg(test)]
    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }

    /// The engine the component was compiled for.
    pub fn engine(&self) -> &Engine {
        &self.shared.engine
    }

    /// The cache file the compiled component was read from or written to, when the disk cache was usable.
    pub fn cache_file(&self) -> Option<&Path> {
        self.shared.cache.file()
    }

    /// True when the compiled component came from the disk cache (no compilation this time).
    pub fn loaded_from_cache(&self) -> bool {
        self.shared.cache.hit()
    }

    /// Starts a session over `grants` with `config` and the default [`SessionLimits`].
    ///
    /// Errors ([`HostErrorKind::Start`](crate::HostErrorKind::Start)): a granted directory cannot be opened, or
    /// instantiation or the session
    /// constructor fails. Invalid config values are not errors: the component replaces them by defaults and
    /// reports them once as a warning on the first window.
    pub fn session(&self, grants: &Grants, config: Config) -> Result<Session, HostError> {
        self.session_with_limits(grants, config, SessionLimits::default())
    }

    /// Starts a session with explicit limits; see [`ReadWindow::session`].
    pub fn session_with_limits(
        &self,
        grants: &Grants,
        config: Config,
        limits: SessionLimits,
    ) -> Result<Session, HostError> {
        Session::open(Arc::clone(&self.shared), grants, config, false, limits)
    }

    /// Starts a session that speaks the JSON protocol ([`Session::answer`]): the component parses each request
    /// and renders each answer, so this host is a pipe. `config` is the session's starting config (values out of
    /// range fall back to their defaults with a warning, as in [`ReadWindow::session`]); `configure` requests can
    /// change it before the first read. The typed methods of the returned [`Session`] are not available on it.
    ///
    /// Errors: [`HostError`] of kind `start` when the instance could not be created.
    pub fn protocol_session(
        &self,
        grants: &Grants,
        config: &Config,
        limits: SessionLimits,
    ) -> Result<Session, HostError> {
        Session::open(
            Arc::clone(&self.shared),
            grants,
            config.clone(),
            true,
            limits,
        )
    }

    /// Reads one window with no session memory, in a store of its own (with the default [`SessionLimits`]) that
    /// is dropped afterwards; no `session` resource is constructed.
    ///
    /// Returns the window or the component's [`ReadError`]; a [`HostError`] when the store cannot be set up or
    /// the call traps.
    pub fn read_once(
        &self,
        grants: &Grants,
        config: &Config,
        request: &ReadRequest,
    ) -> Result<Result<ReadOutcome, ReadError>, HostError> {
        session::read_once(&self.shared, grants, config, request)
    }
}

/// The engine every loader uses: Cranelift at speed, epoch interruption for deadlines, and `allocation`'s
/// instance allocator.
fn new_engine(allocation: Allocation) -> wasmtime::Result<Engine> {
    let mut config = wasmtime::Config::new();
    config.strategy(Strategy::Cranelift);
    config.cranelift_opt_level(OptLevel::Speed);
    config.epoch_interruption(true);
    config.allocation_strategy(allocation.strategy());
    // READ_WINDOW_PROFILE=perfmap writes /tmp/perf-<pid>.map, so `perf report` names the component's functions
    // (those of an unstripped build; see the bench's READ_WINDOW_BENCH_WASM).
    if std::env::var_os("READ_WINDOW_PROFILE").is_some_and(|value| value == "perfmap") {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    Engine::new(&config).context("could not create the wasmtime engine")
}

/// Advances the engine's epoch every [`EPOCH_TICK`] until the engine is dropped.
fn spawn_epoch_ticker(engine: &Engine) -> wasmtime::Result<()> {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("read-window-epoch".into())
        .spawn(move || loop {
            std::thread::sleep(EPOCH_TICK);
            match weak.upgrade() {
                Some(engine) => engine.increment_epoch(),
                None => break,
            }
        })
        .context("could not start the epoch ticker thread")?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------------
// Many sessions in one process

/// How the engine allocates each session's instance (its linear memory, tables and instance metadata).
///
/// [`ReadWindow::load`] uses `OnDemand`, because it measured as well as pooling where it matters and has no fixed
/// capacity. With `read-window-load --allocator on-demand|pooling` (1,000 live sessions, 2 cores, three runs each):
/// a session starts in a median 140-159 µs on demand against 100-146 µs pooled (1,000 sessions in 0.17-0.36 s
/// against 0.14-0.34 s), resident memory is the same within 3% (205-225 KiB an idle session, 300-390 KiB once it
/// has read both its files), and reads per second differ less than the run-to-run noise. Sessions of an agent live
/// for
/// minutes and start once, so the pool's faster start buys nothing a host would notice, while it costs a hard cap
/// on live sessions (sized up front) and about 4 GiB of reserved address space a slot. A host that starts and
/// drops stores at a high rate (a `read_once` per request) may prefer `Pooling`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Allocation {
    /// Wasmtime's on-demand allocator: a session's memory is mapped when it starts and unmapped when it ends; no
    /// limit on the count of live sessions beyond the machine's memory. The default of [`ReadWindow::load`].
    #[default]
    OnDemand,
    /// Wasmtime's pooling allocator, with slots for `sessions` live sessions reserved up front (about 4 GiB of
    /// address space, not memory, for each). Starting a session past `sessions` live ones fails with
    /// [`HostErrorKind::Start`](crate::HostErrorKind::Start) until one is dropped.
    Pooling {
        /// Live sessions the pool has room for (each restart or `read_once` store takes a slot while it lives).
        sessions: u32,
    },
}

/// Core wasm instances one instance of the component holds (its module plus the adapter shims and fix-ups
/// `wit-component` adds), with room to spare; the pool is sized by it.
const CORE_INSTANCES_PER_SESSION: u32 = 8;

/// Linear memories one instance of the component holds (one, with room to spare).
const MEMORIES_PER_SESSION: u32 = 2;

/// Tables one instance of the component holds (the module's and the shims'), with room to spare.
const TABLES_PER_SESSION: u32 = 4;

impl Allocation {
    fn strategy(self) -> wasmtime::InstanceAllocationStrategy {
        match self {
            Allocation::OnDemand => wasmtime::InstanceAllocationStrategy::OnDemand,
            Allocation::Pooling { sessions } => {
                let sessions = sessions.max(1);
                let mut pool = wasmtime::PoolingAllocationConfig::new();
                pool.total_component_instances(sessions)
                    .total_core_instances(sessions.saturating_mul(CORE_INSTANCES_PER_SESSION))
                    .total_memories(sessions.saturating_mul(MEMORIES_PER_SESSION))
                    .total_tables(sessions.saturating_mul(TABLES_PER_SESSION))
                    .max_tables_per_module(TABLES_PER_SESSION)
                    .max_memories_per_module(MEMORIES_PER_SESSION);
                wasmtime::InstanceAllocationStrategy::Pooling(pool)
            }
        }
    }
}

impl ReadWindow {
    /// Loads the component as [`ReadWindow::load`] does (same `$READ_WINDOW_WASM`, same disk cache), with the
    /// instance allocator `allocation`; `Allocation::OnDemand` is exactly [`ReadWindow::load`].
    ///
    /// Errors: those of [`ReadWindow::load`]; with `Allocation::Pooling`, also a pool the system cannot reserve
    /// (too little address space, e.g. under `ulimit -v`).
    pub fn load_with_allocation(allocation: Allocation) -> wasmtime::Result<Self> {
        if allocation == Allocation::OnDemand {
            return Self::load();
        }
        let engine = new_engine(allocation)?;
        let loaded = match component_path() {
            (path, true) => {
                let wasm = std::fs::read(&path).with_context(|| {
                    format!(
                        "{WASM_ENV} is set to {}, which could not be read as a read_window.wasm component",
                        path.display()
                    )
                })?;
                let digest = cache::sha256_hex(&wasm);
                (
                    cache::load_component_digested(&engine, &wasm, &digest)?,
                    digest,
                )
            }
            (_, false) => (
                cache::load_component_digested(
                    &engine,
                    EMBEDDED_COMPONENT,
                    EMBEDDED_COMPONENT_SHA256,
                )?,
                EMBEDDED_COMPONENT_SHA256.to_string(),
            ),
        };
        Self::assemble(engine, loaded.0, &loaded.1)
    }
}
