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
//!     Ok(ReadOutcome::Window(window)) => println!("{}", window.text),
//!     Ok(ReadOutcome::Unchanged(stub)) => println!("{}", stub.message),
//!     Ok(ReadOutcome::Image(image)) => println!("{} ({} bytes of {})", image.hint, image.data.len(), image.mime_type),
//!     Ok(ReadOutcome::Listing(listing)) => print!("{}\n{}\n", listing.content, listing.hint),
//!     Err(error) => eprintln!("{}: {}", error.kind.as_str(), error.message),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! [`Linker`]: wasmtime::component::Linker
//! [`InstancePre`]: wasmtime::component::InstancePre
//! [`Store`]: wasmtime::Store

#![deny(missing_docs)]

/// The raw bindings `wasmtime::component::bindgen!` generates for the `read-window` world (synchronous).
///
/// Most embedders need only the types re-exported at the crate root and [`Session`]; these are here for hosts
/// that drive the component themselves.
#[allow(missing_docs)]
pub mod bindings;
mod cache;
pub mod capture;
mod document_cache;
mod engine;
mod error;
mod grants;
mod links;
mod pipe;
pub mod scenario;
mod session;
pub mod settings;
pub mod timings;

pub use bindings::exports::read_window::reader::reader::{
    Budget, BudgetReport, BudgetUnit, CaptureConfig, CaptureResult, ClampedLine, Config,
    DocumentFacts, DocumentFormat, DocumentPart, EncodingFacts, EncodingOrigin, EntryCounts,
    ErrorKind, ImageWindow, LineEndings, ListingWindow, PageRange, PartKind, PixelRegion,
    ReadError, ReadManyFile, ReadManyRequest, ReadManyResult, ReadOutcome, ReadRequest, ReadResult,
    RetryWindow, SearchRequest, SearchResult, SessionStats, SkippedFiles, TextEncoding,
    TokenBudget, Truncation, UnchangedStub,
};
pub use engine::{
    component_path, Allocation, ReadWindow, COMPONENT_PATH, EMBEDDED_COMPONENT,
    EMBEDDED_COMPONENT_SHA256, WASM_ENV,
};
pub use error::{
    HostError, HostErrorKind, SessionLimits, DEFAULT_DEADLINE, DEFAULT_MEMORY_BYTES, EPOCH_TICK,
};
pub use grants::{Grant, Grants};
pub use session::Session;

/// Compile-time proof of what the docs promise: a [`Session`] can move to another thread, and a [`ReadWindow`]
/// can be shared by all of them.
const _: () = {
    const fn send<T: Send>() {}
    const fn shared<T: Send + Sync + Clone>() {}
    send::<Session>();
    shared::<ReadWindow>();
    send::<HostError>();
};
