//! read-window: a file-reading tool for LLM agents that never claims more than it shows.
//!
//! # Concepts
//!
//! A read returns a **window** of a file: whole lines from an **offset** (1-based line), at most a **limit** of
//! lines, each behind a compact **gutter** `N|`. A line longer than `max_line_chars` is **clamped** on a grapheme
//! boundary and ends in a marker naming the **cursor** (offset and column) that reads its rest. The formatted
//! content stays under a **budget** of characters or estimated tokens; when the first line alone does not fit, it
//! is cut inside and `next_column` says where to go on. A window declares everything it left out
//! (`truncated_by`) and carries the cursor that continues, so following cursors from line 1 yields every character
//! of the file once, in order.
//!
//! A **session** remembers what it returned: an unchanged repeat of a window is answered with a short **stub**,
//! and the **tripwire** warns and then blocks a model that re-reads the same window in a loop.
//!
//! # Layout
//!
//! The modules are internal; the crate root re-exports the embedding surface ([`Reader`], [`read_once`],
//! [`ReadRequest`], [`ReadResult`], [`Config`], [`ReadError`], the [`FileSystem`] trait and, natively,
//! [`NativeFileSystem`]) and [`protocol`], the JSON session protocol every host pipes to. Inside, one module a
//! stage of the data flow (docs/architecture.md): `sandbox` and `beneath` (the preopens, links, the open),
//! `guards` and `names` (refusals by name and by stat), `sniff`, `decode` and `legacy` (what the bytes are), `scan`
//! and `index` (lines), `window` (the window, its clamp and budget), `tokens`, `hint` and `prose` (the words),
//! `session` and `returned` (session memory), `capture` and `spill` (command output), `document` (extraction),
//! and `read`, which sequences them for one read. The WASI edge (`wasi_fs`) and the export glue (`component`)
//! exist only for `target_arch = "wasm32"`.

#![deny(missing_docs)]

mod beneath;
mod capture;
mod config;
mod decode;
mod document;
mod error;
mod glob;
mod guards;
mod hint;
mod ignore_files;
pub mod image;
mod index;
mod invisible;
mod legacy;
mod listing;
mod names;
mod prose;
pub mod protocol;
mod read;
mod returned;
mod sandbox;
mod scan;
mod search;
mod session;
mod sniff;
mod source;
mod spill;
mod text;
mod tokens;
mod tree;
mod tripwire;
mod window;

#[cfg(not(target_arch = "wasm32"))]
mod native_fs;

#[cfg(target_arch = "wasm32")]
mod component;
#[cfg(target_arch = "wasm32")]
mod wasi_fs;

// The embedding surface: a reading session over any file system, its request and result, the config, errors.
pub use config::{
    Budget, Config, ConfigInput, ConfigProblem, CONFIG_WARNING_PREFIX, DEFAULT_MAX_LINES,
    MIN_TOKEN_HEADROOM,
};
pub use decode::TextEncoding;
pub use document::{DocumentFacts, DocumentFormat, DocumentPart};
pub use error::{ErrorKind, FsError, ReadError};
pub use guards::MAX_KEY_LINES;
pub use index::LineEndings;
pub use invisible::{InvisibleKind, InvisibleReport};
pub use listing::{EntryCounts, ListingWindow};
#[cfg(not(target_arch = "wasm32"))]
pub use native_fs::NativeFileSystem;
pub use read::{
    read_once, BudgetReport, BudgetUnit, EncodingFacts, EncodingOrigin, LeftOut, ManyFile,
    ReadManyRequest, ReadManyResult, ReadOutcome, ReadRequest, ReadResult, Reader, RetryWindow,
    SessionStats, UnchangedStub, MAX_MANY_FILES,
};
pub use sandbox::{link_loop_error, normalize, outside_link_error, FileSystem, MAX_LINK_HOPS};
pub use search::{SearchRequest, SearchResult, SkippedCounts};
pub use tokens::{estimate_tokens, gutter_tokens};
pub use window::{ClampedLine, Truncation, Window};

#[cfg(test)]
mod page_rule_tests;

#[cfg(test)]
mod hint_rule_tests;

#[cfg(test)]
mod fuzz_tests;

#[cfg(test)]
mod encoding_tests;

#[cfg(test)]
mod ignore_tests;

#[cfg(test)]
mod invisible_tests;
