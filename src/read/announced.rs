//! The writes a session expects: the text each accepted `check_write` announced for a file, so that the write that
//! follows (a model over MCP writes with a tool of its own, and no `wrote` follows) is no outside change to it.

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};

/// Texts announced for one file that are kept at most (the newest); an older one written last is a change.
const ANNOUNCED_PER_FILE: usize = 4;
/// Files with announced texts kept at most; past it the memory starts over.
const MAX_FILES: usize = 1024;
/// Bytes of announced texts kept whole, in all, to find an edit's text inside the file; a text past the budget is
/// kept as a print and matches only a file that holds exactly it.
const KEPT_TEXT_BYTES: usize = 4 * 1024 * 1024;
/// The shortest text found inside a file as an edit's: shorter ones would be found almost anywhere.
const MIN_FRAGMENT_BYTES: usize = 16;

/// One announced text: its length and print, and its bytes when kept.
#[derive(Debug)]
struct Announced {
    length: u64,
    print: u64,
    bytes: Option<Vec<u8>>,
}

/// The write an edit base is, when it is not a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BaseWrite {
    /// The host reported it (`wrote`).
    Reported,
    /// The file came to hold a text an accepted `check_write` announced.
    Announced,
}

/// The announced texts of a session's files, and which write each edit base is when it is not a read.
#[derive(Debug, Default)]
pub(super) struct ExpectedWrites {
    announced: HashMap<String, VecDeque<Announced>>,
    kept_bytes: usize,
    /// The files whose edit base is a write, and which (for the words of the refusal).
    pub(super) written: HashMap<String, BaseWrite>,
}

/// A hash of `bytes`.
fn print_of(bytes: &[u8]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

impl ExpectedWrites {
    /// Keeps `bytes` (the text, encoded as the file was read) as a content the file at `path` may come to hold.
    pub(super) fn announce(&mut self, path: &str, bytes: Vec<u8>) {
        if self.announced.len() >= MAX_FILES && !self.announced.contains_key(path) {
            self.announced.clear();
            self.kept_bytes = 0;
        }
        let keep = self.kept_bytes.saturating_add(bytes.len()) <= KEPT_TEXT_BYTES;
        let entry = Announced {
            length: bytes.len() as u64,
            print: print_of(&bytes),
            bytes: keep.then_some(bytes),
        };
        self.kept_bytes += entry.bytes.as_ref().map_or(0, Vec::len);
        let texts = self.announced.entry(path.to_string()).or_default();
        texts.push_back(entry);
        if texts.len() > ANNOUNCED_PER_FILE {
            let dropped = texts.pop_front();
            let freed = dropped
                .and_then(|old| old.bytes)
                .map_or(0, |bytes| bytes.len());
            self.kept_bytes = self.kept_bytes.saturating_sub(freed);
        }
    }

    /// Whether a file at `path` of `size` bytes could hold an announced text (so it is worth reading whole).
    pub(super) fn may_hold(&self, path: &str, size: u64) -> bool {
        self.announced.get(path).is_some_and(|texts| {
            texts.iter().any(|text| {
                text.length == size
                    || text.bytes.as_ref().is_some_and(|bytes| {
                        bytes.len() >= MIN_FRAGMENT_BYTES && bytes.len() as u64 <= size
                    })
            })
        })
    }

    /// Whether `file` (the whole content of the file at `path`) is what an announced text makes of it: exactly the
    /// text, or a file holding it (an edit's text, a text the writer added a final line feed to). On a match the
    /// announced texts of `path` are forgotten.
    pub(super) fn matches(&mut self, path: &str, file: &[u8]) -> bool {
        let Some(texts) = self.announced.get(path) else {
            return false;
        };
        let print = print_of(file);
        let found = texts.iter().any(|text| {
            (text.length == file.len() as u64 && text.print == print)
                || text.bytes.as_ref().is_some_and(|bytes| {
                    bytes.len() >= MIN_FRAGMENT_BYTES && memchr::memmem::find(file, bytes).is_some()
                })
        });
        if found {
            self.forget(path);
        }
        found
    }

    /// Forgets the announced texts of `path` (a write the host reported replaces them).
    pub(super) fn forget(&mut self, path: &str) {
        if let Some(texts) = self.announced.remove(path) {
            let freed: usize = texts
                .iter()
                .filter_map(|text| text.bytes.as_ref())
                .map(Vec::len)
                .sum();
            self.kept_bytes = self.kept_bytes.saturating_sub(freed);
        }
    }
}
