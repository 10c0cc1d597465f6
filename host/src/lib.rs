//! A wasmtime host for the read-window component: load it once, open sessions over granted directories, read
//! windows, and turn the answers into JSON.
//!
//! # Lifecycle
//!
//! - **Load once.** [`ReadWindow::load`] builds one [`wasmtime::Engine`] (Cranelift, optimised for speed, epoch
//!   interruption on, with a background thread that advances the epoch every [`EPOCH_TICK`]), compiles the
//!   component (or deserializes it from an on-disk cache keyed by the wasm bytes and the engine's compatibility
//!   hash), links WASI preview 2 into one [`Linker`], and pre-instantiates it into an [`InstancePre`]. All of that
//!   is paid once per process; a [`ReadWindow`] is cheap to clone and share across threads.
//! - **A Store per session.** [`ReadWindow::session`] creates a fresh [`Store`] holding a WASI context whose only
//!   filesystem access is the [`Grants`] (preopened read-only), instantiates the component from the
//!   `InstancePre` (cheap: no compilation, no linking) and constructs the component's `session` resource in it.
//!   Sessions share nothing: each has its own linear memory, dedup memory, loop tripwire and line indexes.
//! - **Bounded calls.** Every call into the guest has a deadline ([`SessionLimits::deadline`], 60 s by default)
//!   and the store's linear memory is capped ([`SessionLimits::memory_bytes`], 256 MiB by default). A call that
//!   traps, runs past its deadline or asks for memory over the cap returns a [`HostError`]; the session then
//!   replaces its store, instance and session resource so later calls work, but its state is lost.
//!
//! ```no_run
//! use read_window_host::{Config, Grants, ReadOutcome, ReadRequest, ReadWindow};
//!
//! # fn main() -> wasmtime::Result<()> {
//! let reader = ReadWindow::load()?;
//! let grants = Grants::new().dir(".")?;
//! let mut session = reader.session(&grants, Config::default())?;
//! match session.read(&ReadRequest::new("Cargo.toml").limit(40))? {
//!     Ok(ReadOutcome::Window(window)) => print!("{}\n{}\n", window.content, window.hint),
//!     Ok(ReadOutcome::Unchanged(stub)) => println!("{}", stub.message),
//!     Err(error) => eprintln!("{}: {}", error.kind.as_str(), error.message),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! [`Linker`]: wasmtime::component::Linker
//! [`InstancePre`]: wasmtime::component::InstancePre
//! [`Store`]: wasmtime::Store

#![warn(missing_docs)]

mod cache;
pub mod capture;
pub mod json;
mod links;
mod pipe;
pub mod scenario;
pub mod settings;
pub mod timings;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use wasmtime::component::{Component, Linker, ResourceAny, ResourceTable};
use wasmtime::error::Context as _;
use wasmtime::{
    Engine, OptLevel, ResourceLimiter, Store, StoreLimits, StoreLimitsBuilder, Strategy, Trap,
};
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use crate::pipe::TailPipe;

/// The raw bindings `wasmtime::component::bindgen!` generates for the `read-window` world (synchronous).
///
/// Most embedders need only the types re-exported at the crate root and [`Session`]; these are here for hosts
/// that drive the component themselves.
#[allow(missing_docs)]
pub mod bindings {
    wasmtime::component::bindgen!({
        world: "read-window",
        path: "../wit",
        additional_derives: [PartialEq],
    });
}

pub use bindings::exports::read_window::reader::reader::{
    Budget, BudgetReport, BudgetUnit, CaptureConfig, CaptureResult, ClampedLine, Config,
    DocumentFacts, DocumentFormat, DocumentPart, EncodingFacts, EncodingOrigin, ErrorKind,
    LineEndings, PageRange, PartKind, ReadError, ReadOutcome, ReadRequest, ReadResult, RetryWindow,
    SessionStats, TextEncoding, TokenBudget, Truncation, UnchangedStub,
};

/// How often the background thread advances the engine's epoch; deadlines are counted in these ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The default deadline of one call into the component: 60 seconds.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);

/// The default cap on a session's linear memory: 256 MiB, in bytes.
pub const DEFAULT_MEMORY_BYTES: usize = 256 * 1024 * 1024;

/// The absolute path of the component `build.rs` built (`target/component-build/.../read_window.wasm`), for hosts
/// that load the file (Python, JavaScript, `wasmtime run`). This crate embeds a copy ([`EMBEDDED_COMPONENT`]).
pub const COMPONENT_PATH: &str = env!("READ_WINDOW_WASM");

/// The component `build.rs` built, as it was when this crate was compiled: what [`ReadWindow::load`] loads when
/// `$READ_WINDOW_WASM` is not set, so a binary of this crate runs without the build's `target/` directory.
pub const EMBEDDED_COMPONENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/read_window.wasm"));

/// The SHA-256 of [`EMBEDDED_COMPONENT`] (64 lowercase hex digits), computed by `build.rs`: the disk cache of the
/// compiled component is keyed by it, so [`ReadWindow::load`] never hashes the wasm at run time.
pub const EMBEDDED_COMPONENT_SHA256: &str = env!("READ_WINDOW_WASM_SHA256");

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

/// How much of the guest's stderr a session keeps (its last bytes) to explain a trap.
const STDERR_TAIL_BYTES: usize = 4096;

/// What the session resets on a restart, said in every trap message.
const STATE_LOST: &str =
    "its state (dedup memory, loop counts, not-found cache, line indexes) is lost and later calls start fresh";

impl Default for Config {
    /// Every field absent: the component's defaults (2,000 lines, 2,000 characters a line, a budget of 100,000
    /// characters, dedup on, the working directory the first preopen).
    fn default() -> Self {
        Config {
            max_lines: None,
            max_line_length: None,
            budget: None,
            working_directory: None,
            dedup: None,
            loop_warn_at: None,
            loop_block_at: None,
            not_found_ttl_ms: None,
            deny_patterns: None,
            allow_patterns: None,
        }
    }
}

impl ReadRequest {
    /// A request for `path` (a guest path) from line 1, column 0, with the default limit.
    pub fn new(path: impl Into<String>) -> Self {
        ReadRequest {
            path: path.into(),
            offset: None,
            limit: None,
            column: None,
            tail: None,
            extract: None,
            asked_via: None,
        }
    }

    /// Sets the first line (1-based; 0 is read as 1).
    pub fn offset(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }

    /// Sets the number of lines at most (0 is an `invalid-request` error; clamped to `max-lines`).
    pub fn limit(mut self, limit: u64) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Sets where to start inside the first line, in characters (Unicode scalar values), 0-based.
    pub fn column(mut self, column: u64) -> Self {
        self.column = Some(column);
        self
    }

    /// Reads the last `tail` lines instead (0, or a tail with an offset or a column, is `invalid-request`).
    pub fn tail(mut self, tail: u32) -> Self {
        self.tail = Some(tail);
        self
    }

    /// Sets whether a document is read as its extracted text (the default) or, with `false`, as the file's own bytes
    /// (a notebook as its JSON; a binary container is then `binary`).
    pub fn extract(mut self, extract: bool) -> Self {
        self.extract = Some(extract);
        self
    }
}

impl ReadError {
    /// An `invalid-request` error with `message` (which should name the field at fault).
    pub fn invalid_request(message: impl Into<String>) -> Self {
        ReadError {
            kind: ErrorKind::InvalidRequest,
            message: message.into(),
            already_read: None,
            path: None,
            suggestions: Vec::new(),
            total_lines: None,
        }
    }
}

impl ErrorKind {
    /// The snake_case name used in JSON: `not_found`, `not_a_file`, `outside_sandbox`, `permission_denied`,
    /// `invalid_request`, `io`, `special_file`, `device`, `credential`, `binary`, `loop_blocked`,
    /// `echoed_output`, `unencodable`, `too_large`, `malformed_document`, `encrypted_document`, `binary_document`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::NotAFile => "not_a_file",
            ErrorKind::OutsideSandbox => "outside_sandbox",
            ErrorKind::PermissionDenied => "permission_denied",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::Io => "io",
            ErrorKind::SpecialFile => "special_file",
            ErrorKind::Device => "device",
            ErrorKind::Credential => "credential",
            ErrorKind::Binary => "binary",
            ErrorKind::LoopBlocked => "loop_blocked",
            ErrorKind::EchoedOutput => "echoed_output",
            ErrorKind::Unencodable => "unencodable",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::MalformedDocument => "malformed_document",
            ErrorKind::EncryptedDocument => "encrypted_document",
            ErrorKind::BinaryDocument => "binary_document",
        }
    }
}

impl DocumentFormat {
    /// The lowercase name used in JSON: `ipynb`, `docx`, `xlsx`, `xls`, `ods`, `pptx`, `odp`, `odt`, `epub`, `pdf`.
    pub fn as_str(&self) -> &'static str {
        match self {
            DocumentFormat::Ipynb => "ipynb",
            DocumentFormat::Docx => "docx",
            DocumentFormat::Xlsx => "xlsx",
            DocumentFormat::Xls => "xls",
            DocumentFormat::Ods => "ods",
            DocumentFormat::Pptx => "pptx",
            DocumentFormat::Odp => "odp",
            DocumentFormat::Odt => "odt",
            DocumentFormat::Epub => "epub",
            DocumentFormat::Pdf => "pdf",
        }
    }
}

impl PartKind {
    /// The lowercase name used in JSON: `cell`, `page`, `sheet`, `slide`, `chapter`.
    pub fn as_str(&self) -> &'static str {
        match self {
            PartKind::Cell => "cell",
            PartKind::Page => "page",
            PartKind::Sheet => "sheet",
            PartKind::Slide => "slide",
            PartKind::Chapter => "chapter",
        }
    }
}

impl Truncation {
    /// The snake_case name used in JSON: `limit`, `budget`, `line_length`, `mid_line`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Truncation::Limit => "limit",
            Truncation::Budget => "budget",
            Truncation::LineLength => "line_length",
            Truncation::MidLine => "mid_line",
        }
    }
}

impl TextEncoding {
    /// The name used in JSON: `utf8`, `utf16le`, `utf16be`, `utf32le`, `utf32be`, or a legacy encoding's
    /// lower-case WHATWG name (`windows-1251`, `shift_jis`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            TextEncoding::Legacy(name) => name,
            TextEncoding::Utf8 => "utf8",
            TextEncoding::Utf16le => "utf16le",
            TextEncoding::Utf16be => "utf16be",
            TextEncoding::Utf32le => "utf32le",
            TextEncoding::Utf32be => "utf32be",
        }
    }
}

impl EncodingOrigin {
    /// The name used in JSON: `declared` (a byte order mark) or `detected` (from the content).
    pub fn as_str(&self) -> &'static str {
        match self {
            EncodingOrigin::Declared => "declared",
            EncodingOrigin::Detected => "detected",
        }
    }
}

impl LineEndings {
    /// The name used in JSON: `none`, `lf`, `crlf`, `mixed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            LineEndings::None => "none",
            LineEndings::Lf => "lf",
            LineEndings::Crlf => "crlf",
            LineEndings::Mixed => "mixed",
            LineEndings::Cr => "cr",
        }
    }
}

impl BudgetUnit {
    /// The name used in JSON: `characters`, `tokens`.
    pub fn as_str(&self) -> &'static str {
        match self {
            BudgetUnit::Characters => "characters",
            BudgetUnit::Tokens => "tokens",
        }
    }
}

/// One granted directory: a host directory and the guest path the component sees it at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    host: PathBuf,
    guest: String,
    writable: bool,
    given: Option<String>,
}

impl Grant {
    /// The host directory (canonical, absolute).
    pub fn host(&self) -> &Path {
        &self.host
    }

    /// The guest path the directory is preopened at.
    pub fn guest(&self) -> &str {
        &self.guest
    }

    /// True for a directory granted read-write (a capture's spill directory, see [`Grants::writable_dir`]).
    pub fn writable(&self) -> bool {
        self.writable
    }

    /// The absolute path the directory was given by, when it differs from its canonical path (a root given
    /// through a link, `/var/run` for `/run`) and the grant is at its canonical path ([`Grants::dir`]); `None`
    /// otherwise. Requested paths under it are rewritten onto the guest path ([`Grants::onto_guest`]).
    pub fn given(&self) -> Option<&str> {
        self.given.as_deref()
    }
}

/// The directories a session may read, each preopened **read-only** (`FsPerms::ReadOnly`: no file or
/// directory can be created, written, renamed or removed through it). The component sees nothing else.
///
/// Build with [`Grants::dir`] (guest path = the directory's canonical absolute path, so guest and host paths
/// agree) or [`Grants::dir_at`] (a guest path of your choosing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grants {
    dirs: Vec<Grant>,
}

impl Grants {
    /// No directories.
    pub fn new() -> Self {
        Grants::default()
    }

    /// Grants `host` at its canonical absolute path.
    ///
    /// Errors (`io::Error`, the message naming the path): the directory does not exist or cannot be resolved,
    /// is not a directory, or its canonical path is not UTF-8 (guest paths are strings).
    pub fn dir(self, host: impl AsRef<Path>) -> io::Result<Self> {
        let given = std::path::absolute(host.as_ref())
            .ok()
            .and_then(|path| {
                path.to_str()
                    .map(|path| path.trim_end_matches('/').to_owned())
            })
            .filter(|path| !path.is_empty());
        let canonical = canonical_dir(host.as_ref())?;
        let guest = canonical
            .to_str()
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{}: the path is not UTF-8, so it cannot be a guest path",
                        canonical.display()
                    ),
                )
            })?
            .to_owned();
        let given = given.filter(|given| *given != guest);
        let mut grants = self.push(canonical, guest);
        if let Some(last) = grants.dirs.last_mut() {
            last.given = given;
        }
        Ok(grants)
    }

    /// Grants `host` at the guest path `guest` (it should be absolute, e.g. `/workspace`).
    ///
    /// Errors (`io::Error`, the message naming the path): the directory does not exist or cannot be resolved,
    /// or is not a directory; `guest` is empty.
    pub fn dir_at(self, host: impl AsRef<Path>, guest: impl Into<String>) -> io::Result<Self> {
        let canonical = canonical_dir(host.as_ref())?;
        let guest = guest.into();
        if guest.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: the guest path is empty", canonical.display()),
            ));
        }
        Ok(self.push(canonical, guest))
    }

    /// Grants `host` **read-write** at its canonical absolute path: the one directory a capture may create its
    /// spill file in (`FsPerms::ReadWrite`). Every other grant stays read-only; a writable directory inside a
    /// read-only one is a preopen of its own, and the component maps a path onto the longest matching guest path,
    /// so only paths under it are writable.
    ///
    /// Errors: as [`Grants::dir`].
    pub fn writable_dir(self, host: impl AsRef<Path>) -> io::Result<Self> {
        let mut grants = self.dir(host)?;
        if let Some(last) = grants.dirs.last_mut() {
            last.writable = true;
        }
        Ok(grants)
    }

    /// Grants `host` read-write at the guest path `guest`; see [`Grants::writable_dir`].
    ///
    /// Errors: as [`Grants::dir_at`].
    pub fn writable_dir_at(
        self,
        host: impl AsRef<Path>,
        guest: impl Into<String>,
    ) -> io::Result<Self> {
        let mut grants = self.dir_at(host, guest)?;
        if let Some(last) = grants.dirs.last_mut() {
            last.writable = true;
        }
        Ok(grants)
    }

    fn push(mut self, host: PathBuf, guest: String) -> Self {
        self.dirs.push(Grant {
            host,
            guest,
            writable: false,
            given: None,
        });
        self
    }

    /// The granted directories, in the order they were added (the first is the component's default working
    /// directory).
    pub fn dirs(&self) -> &[Grant] {
        &self.dirs
    }

    /// True when nothing is granted.
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// `path` rewritten onto the guest path of the grant it names by the path the root was given by: a root
    /// given as `/tmp/x/linkroot` (a link to `/tmp/x/L`) is preopened at `/tmp/x/L`, so `/tmp/x/linkroot/a.txt`
    /// becomes `/tmp/x/L/a.txt`. `None` when `path` is relative or under no grant's given path ([`Grant::given`];
    /// the longest given path wins, matched whole components at a time).
    pub fn onto_guest(&self, path: &str) -> Option<String> {
        if !path.starts_with('/') {
            return None;
        }
        self.dirs
            .iter()
            .filter_map(|grant| {
                let given = grant.given.as_deref()?;
                let rest = path.strip_prefix(given)?;
                (rest.is_empty() || rest.starts_with('/')).then_some((grant, given.len(), rest))
            })
            .max_by_key(|(_, length, _)| *length)
            .map(|(grant, _, rest)| {
                let path = format!("{}{rest}", grant.guest.trim_end_matches('/'));
                if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                }
            })
    }

    /// The guest path of the host directory `host_dir` when it lies under a grant (the longest matching grant
    /// wins), else the first grant's guest path; `None` when nothing is granted. `host_dir` should be
    /// canonical. Meant for `Config::working_directory`.
    pub fn working_directory_for(&self, host_dir: &Path) -> Option<String> {
        let under = self
            .dirs
            .iter()
            .filter_map(|grant| {
                host_dir
                    .strip_prefix(&grant.host)
                    .ok()
                    .map(|rest| (grant, rest))
            })
            .max_by_key(|(grant, _)| grant.host.as_os_str().len())
            .and_then(|(grant, rest)| {
                let rest = rest.to_str()?;
                if rest.is_empty() {
                    Some(grant.guest.clone())
                } else {
                    Some(format!("{}/{}", grant.guest.trim_end_matches('/'), rest))
                }
            });
        under.or_else(|| self.dirs.first().map(|grant| grant.guest.clone()))
    }
}

fn canonical_dir(path: &Path) -> io::Result<PathBuf> {
    let canonical = path
        .canonicalize()
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    if !canonical.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a directory", path.display()),
        ));
    }
    Ok(canonical)
}

/// Per-session bounds on the guest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// Wall-clock time one call into the component may take before it is interrupted (measured in
    /// [`EPOCH_TICK`]s, so it is exact to about 10 ms). Default [`DEFAULT_DEADLINE`].
    pub deadline: Duration,
    /// The most linear memory the guest may grow to, in bytes. Default [`DEFAULT_MEMORY_BYTES`].
    pub memory_bytes: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            deadline: DEFAULT_DEADLINE,
            memory_bytes: DEFAULT_MEMORY_BYTES,
        }
    }
}

impl SessionLimits {
    fn deadline_ticks(&self) -> u64 {
        let tick = EPOCH_TICK.as_nanos().max(1);
        let ticks = self.deadline.as_nanos().div_ceil(tick).saturating_add(1);
        u64::try_from(ticks).unwrap_or(u64::MAX).min(u64::MAX / 2)
    }
}

/// What went wrong on the host side of a call (as opposed to a [`ReadError`], the component's typed answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostErrorKind {
    /// The guest trapped: a panic, an `unreachable`, an out-of-bounds access.
    Trap,
    /// The call ran past its deadline and was interrupted.
    Deadline,
    /// The guest asked for more linear memory than [`SessionLimits::memory_bytes`].
    MemoryLimit,
    /// A session could not be started: a granted directory could not be opened, or instantiation or the
    /// session constructor failed.
    Start,
}

impl HostErrorKind {
    /// The snake_case name used in JSON: `trap`, `deadline`, `memory_limit`, `start`.
    pub fn as_str(&self) -> &'static str {
        match self {
            HostErrorKind::Trap => "trap",
            HostErrorKind::Deadline => "deadline",
            HostErrorKind::MemoryLimit => "memory_limit",
            HostErrorKind::Start => "start",
        }
    }
}

/// A host-side failure of a call into the component.
///
/// After a trap, a deadline or the memory cap, the session has already been restarted when this is returned
/// ([`HostError::session_restarted`]), and its state is lost. If the restart itself failed, the next call tries
/// again.
#[derive(Clone, Debug)]
pub struct HostError {
    kind: HostErrorKind,
    message: String,
    restarted: bool,
}

impl HostError {
    /// What failed.
    pub fn kind(&self) -> HostErrorKind {
        self.kind
    }

    /// One paragraph saying what failed and what state was lost, e.g. `the read-window component trapped: wasm
    /// trap: wasm `unreachable` instruction executed; the session was restarted: its state (...) is lost ...`.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// True when the session was replaced by a fresh one (it works again, with its state lost).
    pub fn session_restarted(&self) -> bool {
        self.restarted
    }

    /// The error of a component that could not be loaded ([`ReadWindow::load`] failed): cause
    /// [`HostErrorKind::Start`], the message saying why.
    pub fn load_failed(error: &wasmtime::Error) -> Self {
        HostError {
            kind: HostErrorKind::Start,
            message: format!("could not load the read-window component: {error:#}"),
            restarted: false,
        }
    }

    fn start(error: &wasmtime::Error) -> Self {
        HostError {
            kind: HostErrorKind::Start,
            message: format!("could not start a read-window session: {}", describe(error)),
            restarted: false,
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HostError {}

/// The chain of an error's messages, `outer: inner: root`, without a backtrace.
fn describe(error: &wasmtime::Error) -> String {
    if let Some(trap) = error.downcast_ref::<Trap>() {
        return trap.to_string();
    }
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let text = cause.to_string();
        // A wasm backtrace is attached as context; it is noise in a one-line message.
        if text.starts_with("error while executing at wasm backtrace") {
            continue;
        }
        if parts.last() != Some(&text) {
            parts.push(text);
        }
    }
    if parts.is_empty() {
        error.root_cause().to_string()
    } else {
        parts.join(": ")
    }
}

/// The part of the engine, linker and pre-instantiated component every session shares.
struct Shared {
    engine: Engine,
    /// The linker the `InstancePre` was made from; kept with it for hosts that extend the component later.
    #[allow(dead_code)]
    linker: Linker<HostState>,
    pre: bindings::ReadWindowPre<HostState>,
    cache: cache::CacheStatus,
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
                "{WASM_ENV} is set to {}, which is not a file; point it at a read_window.wasm component, or unset \
                 it to load the one this build made ({COMPONENT_PATH})",
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
        let loaded = cache::load_component(&engine, wasm)?;
        Self::assemble(engine, loaded)
    }

    /// Loads `wasm`, whose SHA-256 is `sha256_hex`, with the disk cache keyed by that digest.
    fn from_digested(wasm: &[u8], sha256_hex: &str) -> wasmtime::Result<Self> {
        let engine = new_engine(Allocation::OnDemand)?;
        timings::mark("engine");
        let loaded = cache::load_component_digested(&engine, wasm, sha256_hex)?;
        Self::assemble(engine, loaded)
    }

    /// Links WASI preview 2, pre-instantiates the loaded component and starts the epoch ticker.
    fn assemble(
        engine: Engine,
        (component, cache): (Component, cache::CacheStatus),
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
        Ok(ReadWindow {
            shared: Arc::new(Shared {
                engine,
                linker,
                pre,
                cache,
            }),
        })
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
    /// Errors ([`HostErrorKind::Start`]): a granted directory cannot be opened, or instantiation or the session
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
        let live = Live::start(&self.shared, grants, limits, Start::Typed(&config))
            .map_err(|e| HostError::start(&e))?;
        Ok(Session {
            shared: Arc::clone(&self.shared),
            grants: grants.clone(),
            config,
            protocol_config: None,
            limits,
            live: Some(live),
            peak_before: 0,
            restarts: 0,
        })
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
        let text = settings::config_record(config).to_json().to_string();
        let live = Live::start(&self.shared, grants, limits, Start::Protocol(&text))
            .map_err(|e| HostError::start(&e))?;
        Ok(Session {
            shared: Arc::clone(&self.shared),
            grants: grants.clone(),
            config: config.clone(),
            protocol_config: Some(text),
            limits,
            live: Some(live),
            peak_before: 0,
            restarts: 0,
        })
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
    ) -> Result<Result<ReadResult, ReadError>, HostError> {
        let request = match through_links(grants, config, request) {
            Ok(request) => request,
            Err(error) => return Ok(Err(error)),
        };
        let limits = SessionLimits::default();
        let mut live = Live::start(&self.shared, grants, limits, Start::Bare)
            .map_err(|e| HostError::start(&e))?;
        timings::mark("instantiate");
        live.store.set_epoch_deadline(limits.deadline_ticks());
        let runtime = call_runtime();
        let entered = runtime.as_ref().map(tokio::runtime::Handle::enter);
        let result = live.bindings.read_window_reader_reader().call_read_once(
            &mut live.store,
            config,
            &request,
        );
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
}

/// The error of a capture op with no capture open.
fn no_capture() -> ReadError {
    ReadError::invalid_request("no capture is open; send capture_begin first.")
}

/// `request` with a path under a root given through a link rewritten onto its guest path ([`Grants::onto_guest`]),
/// then the absolute links on the way of its path resolved on the host (see the `links` module: WASI cannot
/// follow them), or the `outside-sandbox` error for a link out of every grant.
fn through_links(
    grants: &Grants,
    config: &Config,
    request: &ReadRequest,
) -> Result<ReadRequest, ReadError> {
    let working_directory = config.working_directory.as_deref();
    let request = &match grants.onto_guest(&request.path) {
        Some(path) => ReadRequest {
            path,
            ..request.clone()
        },
        None => request.clone(),
    };
    match links::resolve_absolute_links(grants, working_directory, &request.path) {
        links::Resolution::AsAsked => Ok(request.clone()),
        links::Resolution::Guest { resolved, passed } => Ok(ReadRequest {
            path: resolved,
            asked_via: Some(passed),
            ..request.clone()
        }),
        links::Resolution::Outside(error) => Err(error),
    }
}

/// What the host does with a protocol line before the component sees it.
enum Linked {
    /// Hand it on as it is.
    AsAsked,
    /// Hand on this line instead: its path resolved through absolute links, with `asked_via`.
    Rewritten(String),
    /// Answer this instead: the path goes through an absolute link out of every grant, or round a loop.
    Refused(String),
}

/// The absolute links on the way of the path of a `read`, `read_once` or `check_write` line (or a `tool_call` of
/// `read_file` or `check_write`), resolved on the host (WASI cannot read them; see [`through_links`]). `config` is
/// the session's protocol config (its working directory starts relative paths). A line that is not such a request
/// goes on as it is, for the component to answer or refuse.
fn linked_line(grants: &Grants, config: Option<&str>, line: &str) -> Linked {
    use serde_json::Value;
    // A line that is not one JSON object with each key once is the component's to refuse.
    let Ok(Value::Object(mut request)) = read_window::protocol::json_in::parse_strict(line) else {
        return Linked::AsAsked;
    };
    let id = request.get("id").cloned();
    let op = match request.get("op") {
        None | Some(Value::Null) => Some("read".to_owned()),
        Some(op) => op.as_str().map(str::to_owned),
    };
    if request.contains_key("asked_via") {
        return Linked::AsAsked;
    }
    let (checks_write, fields) = match op.as_deref() {
        Some("read" | "read_once") => (false, &mut request),
        Some("check_write") => (true, &mut request),
        Some("tool_call") => {
            let checks_write = match request.get("name").and_then(Value::as_str) {
                Some("read_file") => false,
                Some("check_write") => true,
                _ => return Linked::AsAsked,
            };
            match request.get_mut("arguments") {
                Some(Value::Object(arguments)) => (checks_write, arguments),
                _ => return Linked::AsAsked,
            }
        }
        _ => return Linked::AsAsked,
    };
    let Some(path) = fields
        .get("path")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return Linked::AsAsked;
    };
    let working_directory = config
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .and_then(|config| config.get("working_directory")?.as_str().map(str::to_owned));
    let config = Config {
        working_directory,
        ..Config::default()
    };
    match through_links(grants, &config, &ReadRequest::new(&path)) {
        Ok(linked) if linked.path == path && linked.asked_via.is_none() => Linked::AsAsked,
        Ok(linked) => {
            fields.insert("path".into(), linked.path.into());
            // A tool call's arguments are the model's: the host's `asked_via` goes beside them.
            if let (Some(passed), false) = (linked.asked_via, checks_write) {
                request.insert("asked_via".into(), passed.into());
            }
            Linked::Rewritten(Value::Object(request).to_string())
        }
        // check_write names a file to be written: only a link out of the sandbox stops it here.
        Err(error) if checks_write && error.kind != ErrorKind::OutsideSandbox => Linked::AsAsked,
        Err(error) => Linked::Refused(json::with_id(id, json::error_json(&error)).to_string()),
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
struct HostState {
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

/// Why a session started with [`ReadWindow::session`] answers no protocol line.
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
    /// The protocol session resource, for a session started as a pipe ([`ReadWindow::protocol_session`]).
    protocol: Option<ResourceAny>,
    /// The open capture resource, between `capture_begin` and `capture_end`.
    capture: Option<ResourceAny>,
    stderr: TailPipe,
}

impl Live {
    fn start(
        shared: &Shared,
        grants: &Grants,
        limits: SessionLimits,
        start: Start<'_>,
    ) -> wasmtime::Result<Self> {
        let stderr = TailPipe::new(STDERR_TAIL_BYTES);
        let mut builder = WasiCtxBuilder::new();
        builder.allow_blocking_current_thread(true);
        builder.stderr(stderr.clone());
        for grant in grants.dirs() {
            let perms = if grant.writable {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            builder
                .preopened_dir(&grant.host, &grant.guest, perms)
                .with_context(|| {
                    format!(
                        "could not open the granted directory {}",
                        grant.host.display()
                    )
                })?;
        }
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
        let (kind, mut detail) = if let Some(asked) = limiter.refused {
            (
                HostErrorKind::MemoryLimit,
                format!(
                    "it asked for {asked} bytes of linear memory, over the session's cap of {} bytes",
                    limiter.cap
                ),
            )
        } else if error.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
            (
                HostErrorKind::Deadline,
                format!(
                    "the call ran past its deadline of {:.3} s and was interrupted",
                    limits.deadline.as_secs_f64()
                ),
            )
        } else {
            (HostErrorKind::Trap, describe(error))
        };
        let stderr = self.stderr.tail_text();
        if !stderr.is_empty() {
            detail.push_str(&format!(" (guest stderr: {stderr})"));
        }
        (kind, detail)
    }
}

/// A reading session: one store, one instance, one `session` resource of the component.
///
/// `Send`: move it to the thread that serves its agent, or keep it behind a `Mutex`; see "N sessions on M
/// threads" on [`ReadWindow`]. A session that traps, overruns its deadline or hits its memory cap restarts
/// alone: the other sessions of the process do not notice.
///
/// The methods mirror the WIT resource. Each returns `Err(HostError)` when the call could not complete on the
/// host side (trap, deadline, memory cap: the session is then restarted with its state lost), else the
/// component's answer, which for fallible operations is itself a `Result` with a typed [`ReadError`].
pub struct Session {
    shared: Arc<Shared>,
    grants: Grants,
    config: Config,
    /// For a pipe ([`ReadWindow::protocol_session`]): the protocol config in force, as its constructor takes it.
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
    ) -> Result<Result<ReadResult, ReadError>, HostError> {
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
                let live = Live::start(&self.shared, &self.grants, self.limits, self.start())
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
    /// [`ReadWindow::session`] has no protocol resource: its answer is a `host_error` that says so.
    pub fn answer(&mut self, line: &str) -> String {
        if self.protocol_config.is_none() {
            return read_window::protocol::host_error_answer(line, "start", NO_PROTOCOL, false);
        }
        let linked = match linked_line(&self.grants, self.protocol_config.as_deref(), line) {
            Linked::AsAsked => None,
            Linked::Rewritten(rewritten) => Some(rewritten),
            Linked::Refused(answer) => return answer,
        };
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
        match Live::start(&self.shared, &self.grants, self.limits, self.start()) {
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

// ---------------------------------------------------------------------------------------------------------------
// Many sessions in one process

/// How the engine allocates each session's instance (its linear memory, tables and instance metadata).
///
/// [`ReadWindow::load`] uses `OnDemand`, because it measured as well as pooling where it matters and has no fixed
/// capacity. With `read-window-load --allocator on-demand|pooling` (1,000 live sessions, 2 cores, three runs each):
/// a session starts in a median 140-159 µs on demand against 100-146 µs pooled (1,000 sessions in 0.17-0.36 s
/// against 0.14-0.34 s), resident memory is the same within 3% (205-225 KiB an idle session, 300-390 KiB once it
/// has read both its files), and reads per second differ less than the run-to-run noise. Sessions of an agent live for
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
    /// [`HostErrorKind::Start`] until one is dropped.
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
                cache::load_component(&engine, &wasm)?
            }
            (_, false) => cache::load_component_digested(
                &engine,
                EMBEDDED_COMPONENT,
                EMBEDDED_COMPONENT_SHA256,
            )?,
        };
        Self::assemble(engine, loaded)
    }
}

/// Compile-time proof of what the docs promise: a [`Session`] can move to another thread, and a [`ReadWindow`]
/// can be shared by all of them.
const _: () = {
    const fn send<T: Send>() {}
    const fn shared<T: Send + Sync + Clone>() {}
    send::<Session>();
    shared::<ReadWindow>();
    send::<HostError>();
};
