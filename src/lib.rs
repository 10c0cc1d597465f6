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
//! The core is pure (no I/O) and builds natively: [`decode`], [`scan`], [`index`], [`window`], [`tokens`],
//! [`hint`], [`text`], [`prose`] (the words they share), [`sniff`], [`legacy`], [`names`], [`guards`], [`sandbox`] (and [`beneath`], which opens what it resolved), [`session`], [`capture`] (the head and tail
//! of a command's output stream), [`spill`] (that stream on disk, over the [`sandbox::SpillFs`] trait), and
//! [`read`] (also named `reader`), which runs the data flow of one read over the [`sandbox::FileSystem`] trait. The WASI edge (`wasi_fs`) and the export glue (`component`) exist only
//! for `target_arch = "wasm32"`.

pub mod beneath;
pub mod capture;
pub mod config;
pub mod decode;
pub mod document;
pub mod error;
pub mod guards;
pub mod hint;
pub mod index;
pub mod legacy;
pub mod names;
pub mod prose;
pub mod protocol;
pub mod read;
pub mod returned;
pub mod sandbox;
pub mod scan;
pub mod session;
pub mod sniff;
pub mod source;
pub mod spill;
pub mod text;
pub mod tokens;
pub mod window;

/// The name this module had before it became the `read/` folder, kept for the crates that use it.
pub use read as reader;

#[cfg(not(target_arch = "wasm32"))]
pub mod native_fs;

#[cfg(target_arch = "wasm32")]
mod component;
#[cfg(target_arch = "wasm32")]
mod wasi_fs;

#[cfg(test)]
mod page_rule_tests;

#[cfg(test)]
mod hint_rule_tests;

#[cfg(test)]
mod fuzz_tests;

#[cfg(test)]
mod encoding_tests;
