//! A reading session ([`Session`]): its store and instance ([`Live`]), the WASI state and memory limiter of the
//! store, the calls into the component's `session`, `capture` and `protocol` resources, and the restart after a
//! trap, a deadline or the memory cap.

use std::fmt;
use std::sync::Arc;

use read_window::protocol::LinkRefusal;
use wasmtime::component::{Linker, ResourceAny, ResourceTable};
use wasmtime::error::Context as _;
use wasmtime::{Engine, ResourceLimiter, Store, StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use crate::error::{classify, describe};
use crate::links::{through_links, walk_links, Refusal};
use crate::pipe::TailPipe;
use crate::{bindings, cache, settings, timings};
use crate::{
    CaptureConfig, CaptureResult, Config, ErrorKind, Grant, Grants, HostError, HostErrorKind,
    ReadError, ReadManyRequest, ReadManyResult, ReadOutcome, ReadRequest, RetryWindow,
    SearchRequest, SearchResult, SessionLimits, SessionStats,
};

/// How much of the guest's stderr a session keeps (its last bytes) to explain a trap.
const STDERR_TAIL_BYTES: usize = 4096;

/// What the session resets on a restart, said in every trap message.
const STATE_LOST: &str =
    "its state (dedup memory, loop counts, not-found cache, line indexes) is lost and later calls start fresh";

/// The part of the engine, linker and pre-instantiated component every session shares.
pub(crate) struct Shared {
    pub(crate) engine: Engine,
    /// The linker the `InstancePre` was made from; kept with it for hosts that extend the component later.
    #[allow(dead_code)]
    pub(crate) linker: Linker<HostState>,
    pub(crate) pre: bindings::ReadWindowPre<HostState>,
    pub(crate) cache: cache::CacheStatus,
    /// The document store's directory ([`crate::document_cache`]), granted read-write to each session whose
    /// config names none of its own.
    pub(crate) document_cache: Option<Grant>,
}

/// `config` with the process's document cache ([`Shared::document_cache`]) named as its `document_cache_dir`, and
/// the grant that preopens it, when the config names none of its own, no grant is at that path already, and the
/// directory is there (made again when another build's process removed it).
fn with_document_cache(
    shared: &Shared,
    grants: &Grants,
    config: &Config,
) -> (Config, Option<Grant>) {
    let cache = shared.document_cache.as_ref().filter(|cache| {
        config.document_cache_dir.is_none()
            && grants
                .dirs()
                .iter()
                .all(|grant| grant.guest() != cache.guest())
            // A process of another build removes this build's directory as it starts: made again here, else
            // this session keeps no documents (it does not fail to start).
            && crate::document_cache::ensure_dir(&cache.host)
    });
    match cache {
        Some(cache) => (
            Config {
                document_cache_dir: Some(cache.guest().to_owned()),
                ..config.clone()
            },
            Some(cache.clone()),
        ),
        None => (config.clone(), None),
    }
}

/// The error of a capture op with no capture open.
fn no_capture() -> ReadError {
    ReadError::invalid_request("no capture is open; send capture_begin first.")
}

/// The absolute links on the way of the path of a `read`, `read_once` or `check_write` line (or a `tool_call` of
/// `read_file` or `check_write`), resolved on the host (WASI cannot read them; see [`walk_links`]): the line to hand
/// the component instead, or `None` to hand it on as it is. `config` is the session's protocol config (its working
/// directory starts relative paths). A path through an absolute link into a grant is rewritten to the guest path it
/// leads to, with `asked_via` beside it (not for `check_write`); a path through one out of every grant (or round a
/// loop) gets the request's `link_refusal`, which the component answers in its own words (for `check_write` only a
/// link out of every grant). A line that is not such a request goes on as it is, for the component to answer or
/// refuse.
fn linked_line(grants: &Grants, config: Option<&str>, line: &str) -> Option<String> {
    use serde_json::Value;
    // A line that is not one JSON object with each key once is the component's to refuse.
    let Ok(Value::Object(mut request)) = read_window::protocol::parse_strict(line) else {
        return None;
    };
    let op = match request.get("op") {
        None | Some(Value::Null) => Some("read".to_owned()),
        Some(op) => op.as_str().map(str::to_owned),
    };
    if request.contains_key("asked_via") {
        return None;
    }
    let (checks_write, fields) = match op.as_deref() {
        Some("read" | "read_once") => (false, &mut request),
        Some("check_write") => (true, &mut request),
        Some("tool_call") => {
            let checks_write = match request.get("name").and_then(Value::as_str) {
                Some("read_file" | "list_directory") => false,
                Some("check_write") => true,
                _ => return None,
            };
            match request.get_mut("arguments") {
                Some(Value::Object(arguments)) => (checks_write, arguments),
                _ => return None,
            }
        }
        _ => return None,
    };
    let path = fields.get("path").and_then(Value::as_str)?.to_owned();
    let working_directory = config
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .and_then(|config| config.get("working_directory")?.as_str().map(str::to_owned));
    match walk_links(
        grants,
        working_directory.as_deref(),
        &ReadRequest::new(&path),
    ) {
        Ok(linked) if linked.path == path && linked.asked_via.is_none() => return None,
        Ok(linked) => {
            fields.insert("path".into(), linked.path.into());
            // A tool call's arguments are the model's: the host's `asked_via` goes beside them.
            if let (Some(passed), false) = (linked.asked_via, checks_write) {
                request.insert("asked_via".into(), passed.into());
            }
        }
        // check_write names a file to be written: only a link out of the sandbox stops it here.
        Err(Refusal {
            why: LinkRefusal::Loop,
            ..
        }) if checks_write => return None,
        Err(refusal) => {
            fields.insert("path".into(), refusal.requested.clone().into());
            // Beside a tool call's arguments, as `asked_via`.
            request.insert("link_refusal".into(), refusal.field());
        }
    }
    Some(Value::Object(request).to_string())
}

/// The handle of this thread's Tokio runtime, to enter around a call into the component so wasmtime-wasi's
/// synchronous host calls run on the calling thread without a detour; `None` when the calling thread is already
/// inside a Tokio runtime (an embedder's own, which then serves the calls as before) or when Tokio could not build
/// one (the calls then take wasmtime-wasi's path: slower, and otherwise the same).
///
/// Each synchronous WASI call (`stat-at`, `open-at`, `read`, ...) runs its future through `in_tokio`: inside an
/// entered runtime that is one poll of a future that is ready at once (files here block on the calling thread,
/// `allow_blocking_current_thread`); outside one it enters wasmtime-wasi's own multi-threaded runtime and yields
/// to its scheduler first, several times the cost, about five times a read (docs/benchmarks.md). Each thread has
/// its own current-thread runtime (dropped when the thread ends), so sessions read on many threads share no
/// runtime state. It has no I/O or timer driver and no worker thread: the component's WASI context has no sockets
/// and never sleeps, so nothing it calls waits on one.
fn call_runtime() -> Option<tokio::runtime::Handle> {
    thread_local! {
        static RUNTIME: Option<tokio::runtime::Runtime> =
            tokio::runtime::Builder::new_current_thread().build().ok();
    }
    if tokio::runtime::Handle::try_current().is_ok() {
        return None;
    }
    RUNTIME
        .try_with(|runtime| runtime.as_ref().map(|runtime| runtime.handle().clone()))
        .ok()
        .flatten()
}

/// The data of a session's store: WASI state and the memory limiter.
pub(crate) struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    limiter: PeakLimiter,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// [`StoreLimits`] plus a record of the largest linear memory the guest asked for.
struct PeakLimiter {
    limits: StoreLimits,
    cap: usize,
    peak: usize,
    refused: Option<usize>,
}

impl PeakLimiter {
    fn new(cap: usize) -> Self {
        PeakLimiter {
            limits: StoreLimitsBuilder::new()
                .memory_size(cap)
                .trap_on_grow_failure(true)
                .build(),
            cap,
            peak: 0,
            refused: None,
        }
    }

    /// Moves the cap to `cap` bytes, keeping the record of the peak.
    fn set_cap(&mut self, cap: usize) {
        self.limits = StoreLimitsBuilder::new()
            .memory_size(cap)
            .trap_on_grow_failure(true)
            .build();
        self.cap = cap;
    }
}

impl ResourceLimiter for PeakLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.peak = self.peak.max(desired);
        if desired > self.cap {
            self.refused = Some(desired);
        }
        self.limits.memory_growing(current, desired, maximum)
    }

    fn memory_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.limits.memory_grow_failed(error)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn table_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.limits.table_grow_failed(error)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
    }
}

/// Why a session started with [`ReadWindow::session`](crate::ReadWindow::session) answers no protocol line.
const NO_PROTOCOL: &str =
    "this session was started with ReadWindow::session, which speaks the typed interface \
                           only; start it with ReadWindow::protocol_session to send it JSON lines";

/// What a new instance holds besides its exports.
#[derive(Clone, Copy)]
enum Start<'a> {
    /// Nothing (a `read_once` store).
    Bare,
    /// A typed `reader.session` with this config.
    Typed(&'a Config),
    /// A `protocol.session` with this config text.
    Protocol(&'a str),
}

/// A running instance: its store, its exports, and (for sessions) the session resource.
struct Live {
    store: Store<HostState>,
    bindings: bindings::ReadWindow,
    session: Option<ResourceAny>,
    /// The protocol session resource, for a session started as a pipe
    /// ([`ReadWindow::protocol_session`](crate::ReadWindow::protocol_session)).
    protocol: Option<ResourceAny>,
    /// The open capture resource, between `capture_begin` and `capture_end`.
    capture: Option<ResourceAny>,
    stderr: TailPipe,
}

/// Preopens `grants` in `builder`, each read-only unless writable, and the document cache when there is one.
/// Errors: a granted directory that cannot be opened.
fn preopen(
    builder: &mut WasiCtxBuilder,
    grants: &Grants,
    document_cache: Option<&Grant>,
) -> wasmtime::Result<()> {
    let perms = |grant: &Grant| {
        if grant.writable {
            FsPerms::ReadWrite
        } else {
            FsPerms::ReadOnly
        }
    };
    for grant in grants.dirs() {
        builder
            .preopened_dir(&grant.host, &grant.guest, perms(grant))
            .with_context(|| {
                format!(
                    "could not open the granted directory {}",
                    grant.host.display()
                )
            })?;
    }
    // The document cache is only a cache: made again when a process of another build removed it (as it may have
    // at any time since the session started, even between this check and the open), and left out when it cannot
    // be opened. The session then starts, or restarts, without it (the component keeps no documents:
    // `document_cache_dir` names no granted directory) rather than not at all.
    if let Some(cache) =
        document_cache.filter(|cache| crate::document_cache::ensure_dir(&cache.host))
    {
        let _ = builder.preopened_dir(&cache.host, &cache.guest, perms(cache));
    }
    Ok(())
}

impl Live {
    fn start(
        shared: &Shared,
        grants: &Grants,
        document_cache: Option<&Grant>,
        limits: SessionLimits,
        start: Start<'_>,
    ) -> wasmtime::Result<Self> {
        let stderr = TailPipe::new(STDERR_TAIL_BYTES);
        let mut builder = WasiCtxBuilder::new();
        builder.allow_blocking_current_thread(true);
        builder.stderr(stderr.clone());
        preopen(&mut builder, grants, document_cache)?;
        let state = HostState {
            wasi: builder.build(),
            table: ResourceTable::new(),
            limiter: PeakLimiter::new(limits.memory_bytes),
        };
        let mut store = Store::new(&shared.engine, state);
        store.limiter(|state| &mut state.limiter);
        store.set_epoch_deadline(limits.deadline_ticks());
        let bindings = shared
            .pre
            .instantiate(&mut store)
            .context("could not instantiate the component")?;
        let (mut session, mut protocol) = (None, None);
        match start {
            Start::Bare => {}
            Start::Typed(config) => {
                session = Some(
                    bindings
                        .read_window_reader_reader()
                        .session()
                        .call_constructor(&mut store, config)
                        .context("the session constructor failed")?,
                );
            }
            Start::Protocol(config) => {
                let writable: Vec<String> = grants
                    .dirs()
                    .iter()
                    .chain(document_cache)
                    .filter(|grant| grant.writable())
                    .map(|grant| grant.guest().to_owned())
                    .collect();
                protocol = Some(
                    bindings
                        .read_window_reader_protocol()
                        .session()
                        .call_constructor(&mut store, config, &writable)
                        .context("the protocol session constructor failed")?,
                );
            }
        }
        Ok(Live {
            store,
            bindings,
            session,
            protocol,
            capture: None,
            stderr,
        })
    }

    fn peak(&self) -> usize {
        self.store.data().limiter.peak
    }

    /// Names what a failed call ran into and says it in words, with the guest's last stderr output if any.
    fn classify(&self, error: &wasmtime::Error, limits: &SessionLimits) -> (HostErrorKind, String) {
        let limiter = &self.store.data().limiter;
        classify(
            error,
            limits,
            limiter.refused,
            limiter.cap,
            &self.stderr.tail_text(),
        )
    }
}

/// Reads one window with no session memory, in a store of its own (with the default [`SessionLimits`]) that is
/// dropped afterwards; no `session` resource is constructed. See
/// [`ReadWindow::read_once`](crate::ReadWindow::read_once).
pub(crate) fn read_once(
    shared: &Shared,
    grants: &Grants,
    config: &Config,
    request: &ReadRequest,
) -> Result<Result<ReadOutcome, ReadError>, HostError> {
    let request = match through_links(grants, config, request) {
        Ok(request) => request,
        Err(error) => return Ok(Err(error)),
    };
    let limits = SessionLimits::default();
    let (config, document_cache) = with_document_cache(shared, grants, config);
    let config = &config;
    let mut live = Live::start(shared, grants, document_cache.as_ref(), limits, Start::Bare)
        .map_err(|e| HostError::start(&e))?;
    timings::mark("instantiate");
    live.store.set_epoch_deadline(limits.deadline_ticks());
    let runtime = call_runtime();
    let entered = runtime.as_ref().map(tokio::runtime::Handle::enter);
    let result =
        live.bindings
            .read_window_reader_reader()
            .call_read_once(&mut live.store, config, &request);
    drop(entered);
    timings::mark("read");
    result.map_err(|error| {
        let (kind, detail) = live.classify(&error, &limits);
        HostError {
            kind,
            message: format!("the read-window component trapped: {detail}"),
            restarted: false,
        }
    })
}

/// A reading session: one store, one instance, one `session` resource of the component.
///
/// `Send`: move it to the thread that serves its agent, or keep it behind a `Mutex`; see "N sessions on M
/// threads" on [`ReadWindow`](crate::ReadWindow). A session that traps, overruns its deadline or hits its memory
/// cap restarts
/// alone: the other sessions of the process do not notice.
///
/// The methods mirror the WIT resource. Each returns `Err(HostError)` when the call could not complete on the
/// host side (trap, deadline, memory cap: the session is then restarted with its state lost), else the
/// component's answer, which for fallible operations is itself a `Result` with a typed [`ReadError`].
pub struct Session {
    shared: Arc<Shared>,
    grants: Grants,
    /// The document cache preopened beside `grants` (the config names it as its `document_cache_dir`).
    document_cache: Option<Grant>,
    config: Config,
    /// For a pipe ([`ReadWindow::protocol_session`](crate::ReadWindow::protocol_session)): the protocol config in
    /// force, as its constructor takes it.
    protocol_config: Option<String>,
    limits: SessionLimits,
    live: Option<Live>,
    peak_before: usize,
    restarts: u64,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("grants", &self.grants)
            .field("config", &self.config)
            .field("limits", &self.limits)
            .field("restarts", &self.restarts)
            .field("peak_memory_bytes", &self.peak_memory_bytes())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Starts a session over `grants`: a typed one with `config`, or a pipe with the protocol config text
    /// `protocol_config` ([`ReadWindow::protocol_session`](crate::ReadWindow::protocol_session)).
    pub(crate) fn open(
        shared: Arc<Shared>,
        grants: &Grants,
        config: Config,
        protocol: bool,
        limits: SessionLimits,
    ) -> Result<Session, HostError> {
        let (config, document_cache) = with_document_cache(&shared, grants, &config);
        let protocol_config =
            protocol.then(|| settings::config_record(&config).to_json().to_string());
        let start = match &protocol_config {
            Some(text) => Start::Protocol(text),
            None => Start::Typed(&config),
        };
        let live = Live::start(&shared, grants, document_cache.as_ref(), limits, start)
            .map_err(|e| HostError::start(&e))?;
        timings::mark("instantiate");
        Ok(Session {
            shared,
            grants: grants.clone(),
            document_cache,
            config,
            protocol_config,
            limits,
            live: Some(live),
            peak_before: 0,
            restarts: 0,
        })
    }

    /// Reads a window: its content, a stub when the session already returned it unchanged (dedup), or a
    /// [`ReadError`] of any kind but `echoed-output`.
    pub fn read(
        &mut self,
        request: &ReadRequest,
    ) -> Result<Result<ReadOutcome, ReadError>, HostError> {
        let request = match through_links(&self.grants, &self.config, request) {
            Ok(request) => request,
            Err(error) => return Ok(Err(error)),
        };
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_read(&mut live.store, session, &request)
        })
    }

    /// Tells the session the agent ran a tool other than a read: clears the consecutive-read counts (the loop
    /// tripwire), keeps the dedup memory.
    pub fn note_other_tool(&mut self) -> Result<(), HostError> {
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_note_other_tool(&mut live.store, session)
        })
    }

    /// Tells the session the model's context was compacted: the next read of any window returns full content.
    pub fn reset_dedup(&mut self) -> Result<(), HostError> {
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_reset_dedup(&mut live.store, session)
        })
    }

    /// Tells the session the host wrote or patched `path` (a guest path): its dedup entries, not-found entry
    /// and line index are forgotten.
    pub fn wrote(&mut self, path: &str) -> Result<(), HostError> {
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_wrote(&mut live.store, session, path)
        })
    }

    /// Checks `text` the model wants written to `path`: `Err(ReadError)` of kind `echoed-output` when it
    /// contains a stub, a block message or a marker this component produced, two or more `N|` lines this session
    /// returned in a row, or U+FFFD for a file whose read in this session replaced invalid bytes.
    ///
    /// `path` goes through the absolute links on its way as a read's path does (a link named `notes.txt` to a
    /// `.docx` is checked as the `.docx`); a link that leads out of every grant is the `outside-sandbox` error (the
    /// text cannot be checked against what is there, and the write would leave the sandbox).
    pub fn check_write(
        &mut self,
        path: &str,
        text: &str,
    ) -> Result<Result<(), ReadError>, HostError> {
        let linked = match through_links(&self.grants, &self.config, &ReadRequest::new(path)) {
            Ok(request) => request.path,
            Err(error) if error.kind == ErrorKind::OutsideSandbox => return Ok(Err(error)),
            Err(_) => path.to_owned(),
        };
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_check_write(&mut live.store, session, &linked, text)
        })
    }

    /// Reports the real token count `tokens` of the window of `path` starting at line `offset` with `lines`
    /// lines (as returned in a result), so later windows of that file are estimated at the learned density.
    pub fn report_tokens(
        &mut self,
        path: &str,
        offset: u64,
        lines: u64,
        tokens: u64,
    ) -> Result<Result<(), ReadError>, HostError> {
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_report_tokens(&mut live.store, session, path, offset, lines, tokens)
        })
    }

    /// Hands the session an engine's refusal `message` (like "(N tokens) exceeds maximum allowed tokens (M)")
    /// for the window `offset`/`limit` of `path`; answers the window that fits.
    pub fn token_refusal(
        &mut self,
        path: &str,
        offset: u64,
        limit: u64,
        message: &str,
    ) -> Result<Result<RetryWindow, ReadError>, HostError> {
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_token_refusal(&mut live.store, session, path, offset, limit, message)
        })
    }

    /// Reads several files in order under one budget (the component's `read-many`): each file's answer, and
    /// the files the budget had no room for. Paths are passed as given: the component resolves them (absolute
    /// links in them are not walked by the host, unlike [`Session::read`]).
    pub fn read_many(
        &mut self,
        request: &ReadManyRequest,
    ) -> Result<Result<ReadManyResult, ReadError>, HostError> {
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_read_many(&mut live.store, session, request)
        })
    }

    /// Searches a file or a tree for a pattern (the component's `search`): a page of matches and the census.
    pub fn search(
        &mut self,
        request: &SearchRequest,
    ) -> Result<Result<SearchResult, ReadError>, HostError> {
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_search(&mut live.store, session, request)
        })
    }

    /// The session's counters: positioned reads, indexed files, index bytes (since the last restart).
    pub fn stats(&mut self) -> Result<SessionStats, HostError> {
        self.call_session(|live, session| {
            live.bindings
                .read_window_reader_reader()
                .session()
                .call_stats(&mut live.store, session)
        })
    }

    /// Reads one window with `config` and no session memory (the component's `read-once`), in this session's
    /// store and grants. The session's own state is not touched.
    pub fn read_once(
        &mut self,
        config: &Config,
        request: &ReadRequest,
    ) -> Result<Result<ReadOutcome, ReadError>, HostError> {
        let request = match through_links(&self.grants, config, request) {
            Ok(request) => request,
            Err(error) => return Ok(Err(error)),
        };
        self.call(|live| {
            live.bindings.read_window_reader_reader().call_read_once(
                &mut live.store,
                config,
                &request,
            )
        })
    }

    /// Begins capturing a command's output in this session's store (the component's `capture` resource), so
    /// reads of its spill can be interleaved. A capture still open is dropped first. Invalid config values are
    /// replaced by defaults and reported in the result's `warnings`. Without a `spill_dir`, the spill goes to the
    /// session's writable grant ([`Grants::writable_dir`]) when it has exactly one.
    pub fn capture_begin(&mut self, config: &CaptureConfig) -> Result<(), HostError> {
        self.capture_drop()?;
        let mut config = config.clone();
        if config.spill_dir.is_none() {
            let mut writable = self.grants.dirs().iter().filter(|grant| grant.writable());
            if let (Some(only), None) = (writable.next(), writable.next()) {
                config.spill_dir = Some(only.guest().to_owned());
            }
        }
        let config = &config;
        self.call(|live| {
            let capture = live
                .bindings
                .read_window_reader_reader()
                .capture()
                .call_constructor(&mut live.store, config)?;
            live.capture = Some(capture);
            Ok(())
        })
    }

    /// Pushes a chunk of the command's raw output to the open capture. `Err(ReadError)` of kind
    /// `invalid-request` when no capture is open.
    pub fn capture_chunk(&mut self, chunk: &[u8]) -> Result<Result<(), ReadError>, HostError> {
        self.call(|live| match live.capture {
            Some(capture) => live
                .bindings
                .read_window_reader_reader()
                .capture()
                .call_push(&mut live.store, capture, chunk),
            None => Ok(Err(no_capture())),
        })
    }

    /// Ends the open capture with the command's exit status and returns its window; the capture is closed.
    /// `Err(ReadError)` of kind `invalid-request` when no capture is open.
    pub fn capture_end(
        &mut self,
        exit_status: Option<i32>,
    ) -> Result<Result<CaptureResult, ReadError>, HostError> {
        let result = self.call(|live| match live.capture {
            Some(capture) => live
                .bindings
                .read_window_reader_reader()
                .capture()
                .call_finish(&mut live.store, capture, exit_status),
            None => Ok(Err(no_capture())),
        })?;
        self.capture_drop()?;
        Ok(result)
    }

    /// Drops the open capture resource, if any.
    fn capture_drop(&mut self) -> Result<(), HostError> {
        let Some(live) = self.live.as_mut() else {
            return Ok(());
        };
        let Some(capture) = live.capture.take() else {
            return Ok(());
        };
        self.call(|live| capture.resource_drop(&mut live.store))
    }

    /// The largest linear memory, in bytes, the guest asked for (any one memory, including a request refused by
    /// the cap), over the whole life of this session, restarts included.
    pub fn peak_memory_bytes(&self) -> u64 {
        let live = self.live.as_ref().map_or(0, Live::peak);
        u64::try_from(self.peak_before.max(live)).unwrap_or(u64::MAX)
    }

    /// How many times the session was restarted after a trap, a deadline or the memory cap.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// The config the session was started (and is restarted) with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The directories the session may read.
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// The session's limits.
    pub fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// Replaces the session's limits without a restart: the deadline applies from the next call, the memory cap
    /// from the next time the guest's memory grows (memory already grown stays), and both to every restart. A
    /// host can give one call a tighter deadline, or a session more room, this way.
    pub fn set_limits(&mut self, limits: SessionLimits) {
        self.limits = limits;
        if let Some(live) = self.live.as_mut() {
            live.store.data_mut().limiter.set_cap(limits.memory_bytes);
        }
    }

    /// Runs `f` against the live instance, starting one first if a previous restart failed.
    fn call<R>(
        &mut self,
        f: impl FnOnce(&mut Live) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        let runtime = call_runtime();
        let _entered = runtime.as_ref().map(tokio::runtime::Handle::enter);
        let live = match self.live.as_mut() {
            Some(live) => live,
            None => {
                let live = Live::start(
                    &self.shared,
                    &self.grants,
                    self.document_cache.as_ref(),
                    self.limits,
                    self.start(),
                )
                .map_err(|e| HostError::start(&e))?;
                self.live.insert(live)
            }
        };
        live.store.set_epoch_deadline(self.limits.deadline_ticks());
        match f(live) {
            Ok(value) => Ok(value),
            Err(error) => Err(self.restart_after(&error)),
        }
    }

    /// What a (re)started instance of this session holds.
    fn start(&self) -> Start<'_> {
        match &self.protocol_config {
            Some(config) => Start::Protocol(config),
            None => Start::Typed(&self.config),
        }
    }

    /// Answers one line of the JSON protocol (the component's `protocol` interface; see `docs/protocol.md`) with
    /// one answer line. Never fails: a host failure (trap, deadline, memory cap) is answered as a `host_error`
    /// with the request's `id`, after the session restarted with the config it had. A session started with
    /// [`ReadWindow::session`](crate::ReadWindow::session) has no protocol resource: its answer is a `host_error`
    /// that says so.
    pub fn answer(&mut self, line: &str) -> String {
        if self.protocol_config.is_none() {
            return read_window::protocol::host_error_answer(line, "start", NO_PROTOCOL, false);
        }
        let linked = linked_line(&self.grants, self.protocol_config.as_deref(), line);
        let line = linked.as_deref().unwrap_or(line);
        let answered = self.call(|live| match live.protocol {
            Some(protocol) => {
                let sessions = live.bindings.read_window_reader_protocol().session();
                let answer = sessions.call_answer(&mut live.store, protocol, line)?;
                // `configure` may have changed the config: keep it for a restart.
                let config = if line.contains("configure") {
                    Some(sessions.call_config(&mut live.store, protocol)?)
                } else {
                    None
                };
                Ok((answer, config))
            }
            None => Err(wasmtime::format_err!("{NO_PROTOCOL}")),
        });
        timings::mark("read");
        match answered {
            Ok((answer, config)) => {
                if let (Some(config), Some(kept)) = (config, self.protocol_config.as_mut()) {
                    *kept = config;
                }
                answer
            }
            Err(host) => read_window::protocol::host_error_answer(
                line,
                host.kind().as_str(),
                host.message(),
                host.session_restarted(),
            ),
        }
    }

    /// Pushes a command's raw output into the capture a `capture_begin` line opened: `{"status":"ok"}`, or an
    /// error answer (no capture open, a host failure).
    pub fn push_output(&mut self, chunk: &[u8]) -> String {
        if self.protocol_config.is_none() {
            return read_window::protocol::host_error_answer("", "start", NO_PROTOCOL, false);
        }
        let pushed = self.call(|live| match live.protocol {
            Some(protocol) => live
                .bindings
                .read_window_reader_protocol()
                .session()
                .call_push_output(&mut live.store, protocol, chunk),
            None => Err(wasmtime::format_err!(
                "this session was started without the protocol"
            )),
        });
        pushed.unwrap_or_else(|host| {
            read_window::protocol::host_error_answer(
                "",
                host.kind().as_str(),
                host.message(),
                host.session_restarted(),
            )
        })
    }

    /// Like [`Session::call`], for methods of the session resource.
    fn call_session<R>(
        &mut self,
        f: impl FnOnce(&mut Live, ResourceAny) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        self.call(|live| match live.session {
            Some(session) => f(live, session),
            None => Err(wasmtime::format_err!("the session resource is missing")),
        })
    }

    /// Replaces the store, instance and session resource after a failed call; says what happened.
    fn restart_after(&mut self, error: &wasmtime::Error) -> HostError {
        let (kind, detail) = match self.live.take() {
            Some(old) => {
                self.peak_before = self.peak_before.max(old.peak());
                old.classify(error, &self.limits)
            }
            None => (HostErrorKind::Trap, describe(error)),
        };
        self.restarts += 1;
        match Live::start(
                    &self.shared,
                    &self.grants,
                    self.document_cache.as_ref(),
                    self.limits,
                    self.start(),
                ) {
            Ok(live) => {
                self.live = Some(live);
                HostError {
                    kind,
                    message: format!("the read-window component trapped: {detail}; the session was restarted: {STATE_LOST}"),
                    restarted: true,
                }
            }
            Err(restart) => HostError {
                kind,
                message: format!(
                    "the read-window component trapped: {detail}; restarting the session failed too ({}); the next \
                     call tries again, and the session's state is lost",
                    describe(&restart)
                ),
                restarted: false,
            },
        }
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
