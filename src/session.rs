//! Session memory: what a session already handed the model, and what it learned about files.
//!
//! - **Dedup**: a repeat of a window whose content is identical (by hash) to what this session last returned for
//!   the same key (resolved path plus the effective request and the config that shapes it) gets a stub. Identity
//!   is the content, never the modification time, so a same-second rewrite is always seen.
//! - **Tripwire** ([`crate::tripwire`]): repeated reads of unchanged windows are counted: identical reads in a
//!   row, and cycles read over and over (A B A B, A B C A B C), a call for several files counting as one read of
//!   the cycle; a read's count is how many times its window came round in the run. With dedup on, a read after an
//!   unheeded stub is blocked from `loop_warn_at` on; with it off, the `loop_warn_at`-th read carries a warning and
//!   the `loop_block_at`-th is blocked. The stub path runs through the tripwire too (a stub that skipped the loop
//!   guard let a weak model loop forever). Paging forward is never a cycle: its windows are all different.
//! - **Not-found memory**: a missing path is checked again on every read (a negative answer is never stale); the
//!   memory only counts the misses of a path, for the message ("asked 3 times") and the tripwire. A miss more than
//!   the TTL after the previous one starts the count over; `other_tool`, `reset_dedup` and `wrote` forget it.
//! - **Line indexes** per file and [`View`], and **token densities** per file.
//!
//! A document has two views, its extracted text and its own bytes (`extract=false`): their windows, line numbers
//! and indexes differ, so every memory of what a read returned is kept per view, and a switch of view is never
//! taken for a change of the file.
//!
//! Everything here is pure: the clock is passed in.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

use crate::config::Config;
use crate::index::LineIndex;
use crate::prose::MARKER_PREFIX;
use crate::tripwire::{print_of, Count, Tripwire};
use crate::window::WindowRequest;

/// Files whose line index a session keeps at most.
pub const MAX_INDEXED_FILES: usize = 256;
/// Bytes of line indexes a session keeps at most.
pub const MAX_INDEX_BYTES: u64 = 8 * 1024 * 1024;
/// Recent token-mode windows remembered per file, for `report-tokens`.
const RECENT_WINDOWS: usize = 16;
/// Not-found entries kept at most.
const MAX_NOT_FOUND: usize = 1_024;
/// Dedup entries kept at most (the oldest are forgotten first).
const MAX_DEDUP: usize = 4_096;

/// Which text of a file a read windows: a document's extracted text, or the file's own bytes (any other file, or
/// a document read with `extract=false`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum View {
    /// The file's own bytes, decoded.
    #[default]
    Bytes,
    /// The text extracted from a document.
    Extracted,
    /// An image's pixels (a region of them, `DedupKey::region`).
    Image,
}

impl View {
    /// The view of a read that windowed a document's extracted text (`extracted`) or the file's bytes.
    pub fn of(extracted: bool) -> View {
        if extracted {
            View::Extracted
        } else {
            View::Bytes
        }
    }
}

/// What identifies a window for dedup and the tripwire.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DedupKey {
    /// The resolved absolute guest path.
    pub path: String,
    /// The view of the file the window is of: a stub of one view never answers a read of the other.
    pub view: View,
    /// The effective request.
    pub request: WindowRequest,
    /// A fingerprint of the config values that shape the window (clamp, budget).
    pub shape: u64,
    /// For an image: the region returned (then `request` is the same for every region).
    pub region: Option<crate::image::PixelRegion>,
}

/// What the session answers for a read whose window has been computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Return the content; `warning` is the tripwire's warning when the count reached `loop_warn_at`.
    Content {
        /// The loop warning, if any.
        warning: Option<String>,
    },
    /// Return a stub: the model already has this exact window.
    Stub,
    /// Refuse: the model is looping. `count` is the times this window came round in the run, this read included.
    Blocked {
        /// Reads of this window in the run: identical reads in a row, or rounds of the cycle.
        count: u32,
        /// The windows in the cycle: 1 for identical reads in a row, 2 or more for a cycle (A B A B is 2).
        cycle: u32,
    },
}

/// The print of a read of `key` whose window hashed to `hash`, which the tripwire compares (a key's path compared
/// byte by byte as often costs more than the read of a small window): equal for equal reads, and for different
/// reads as unlikely to be equal as two 64-bit window hashes (which dedup already trusts).
fn read_print(key: &DedupKey, hash: u64) -> u64 {
    print_of(&(key, hash))
}

/// The loop warning of a read of `key` that came round `count` times in a run of `cycle` windows: read `block_at`
/// will be blocked. Within a call for several files it speaks of the call (the file's window may differ from the
/// one sent before: the budget reaches other lines from one call to the next).
fn loop_warning(
    key: &DedupKey,
    (count, cycle): (u32, u32),
    block_at: u32,
    in_call: bool,
) -> String {
    let first = key.request.offset;
    let last = (first + key.request.limit).saturating_sub(1).max(first);
    let what = match &key.region {
        Some(region) => format!("region {region}"),
        None => crate::prose::line_span(first, last),
    };
    let path = crate::prose::path_in_prose(&key.path);
    if in_call {
        format!(
            "{MARKER_PREFIX}loop warning] This is call {count} of the same call for several files, with nothing changed (here {what} of {path}). Use what you already have, and ask for files or ranges you have not read; call {block_at} will be blocked."
        )
    } else if cycle > 1 {
        format!(
            "{MARKER_PREFIX}loop warning] This is read {count} of {what} of {path} in a cycle of {cycle} unchanged windows read over and over. Use what you already have; read {block_at} of it will be blocked."
        )
    } else {
        format!(
            "{MARKER_PREFIX}loop warning] This is identical read {count} in a row of {what} of {path}, unchanged. Use what you already have; read {block_at} will be blocked."
        )
    }
}

/// The print of a read of the file of `key` (its path, view and shape, not its window) whose whole view printed
/// `version`: equal for every window of the same file unchanged.
fn file_print(key: &DedupKey, version: u64) -> u64 {
    print_of(&(&key.path, key.view, key.shape, version))
}

/// The misses of one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Missing {
    /// Misses counted (the count starts over after the TTL).
    count: u32,
    /// The monotonic time of the latest miss, in milliseconds.
    last_ms: u64,
}

/// A token-mode window the session returned: where it started, how many lines, its estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SentWindow {
    offset: u64,
    lines: u64,
    estimated_tokens: u64,
}

/// The memory of one session.
#[derive(Debug, Default)]
pub struct SessionMemory {
    dedup: HashMap<DedupKey, u64>,
    dedup_order: VecDeque<DedupKey>,
    tripwire: Tripwire,
    not_found: HashMap<String, Missing>,
    aliases: HashMap<String, String>,
    densities: HashMap<String, f64>,
    sent: HashMap<String, VecDeque<SentWindow>>,
    files: HashMap<(String, View), LineIndex>,
    file_order: VecDeque<(String, View)>,
    /// Positioned reads issued by this session.
    pub positioned_reads: u64,
}

impl SessionMemory {
    /// An empty memory.
    pub fn new() -> Self {
        SessionMemory::default()
    }

    /// Decides what a read of `key` whose window hashes to `hash` returns, and records it. A `fresh` read is
    /// never a stub (the model says it lost the earlier result), but counts in the tripwire as any other read,
    /// except right after the stub of the same window: then it is that read again, answered with the content (the
    /// way back the stub names), not one more.
    pub fn decide(&mut self, key: &DedupKey, hash: u64, config: &Config, fresh: bool) -> Decision {
        self.decide_file(key, hash, config, (fresh, None))
    }

    /// [`SessionMemory::decide`] for a read of a file whose whole view printed `version` (as the line index
    /// printed it). Within a call for several files such a read is counted by its file instead of its window: the
    /// budget a call leaves a file varies with what the files before it cost (a stub, a warning), and the file is
    /// the same.
    pub fn decide_file(
        &mut self,
        key: &DedupKey,
        hash: u64,
        config: &Config,
        (fresh, version): (bool, Option<u64>),
    ) -> Decision {
        let print = match version {
            Some(version) if self.tripwire.in_call() => file_print(key, version),
            _ => read_print(key, hash),
        };
        let Count { count, cycle } = self.tripwire.count(&key.path, print, fresh);
        let decision = self.verdict(key, hash, config, fresh, (count, cycle));
        self.tripwire.answered(decision == Decision::Stub);
        decision
    }

    /// What a read of `key` (hashing to `hash`) that came round `count` times in a run of `cycle` windows gets:
    /// blocked, a stub (never for a `fresh` read), or the content with the loop warning once the count warrants.
    fn verdict(
        &mut self,
        key: &DedupKey,
        hash: u64,
        config: &Config,
        fresh: bool,
        (count, cycle): (u32, u32),
    ) -> Decision {
        if count >= config.loop_block_at {
            return Decision::Blocked { count, cycle };
        }
        let model_has_it = !fresh && config.dedup && self.dedup.get(key) == Some(&hash);
        if model_has_it {
            if count >= config.loop_warn_at {
                return Decision::Blocked { count, cycle };
            }
            return Decision::Stub;
        }
        if config.dedup && self.dedup.insert(key.clone(), hash).is_none() {
            self.dedup_order.push_back(key.clone());
            while self.dedup_order.len() > MAX_DEDUP {
                if let Some(old) = self.dedup_order.pop_front() {
                    self.dedup.remove(&old);
                }
            }
        }
        let in_call = self.tripwire.in_call();
        let warning = (count >= config.loop_warn_at)
            .then(|| loop_warning(key, (count, cycle), config.loop_block_at, in_call));
        Decision::Content { warning }
    }

    /// Whether a call for several files is open: its loop messages speak of the call.
    pub fn in_call(&self) -> bool {
        self.tripwire.in_call()
    }

    /// A read of `path` answered without a window (it failed, or listed a directory); `print` stands for the
    /// answer. It is a read of something else: it breaks a run of identical reads and is a read of its own in a
    /// cycle; within a call for several files it is one of the call's answers, a repeat when the same. The dedup
    /// memory and the not-found counts stay.
    pub fn other_answer(&mut self, path: &str, print: u64) {
        self.tripwire.other_answer(path, print);
    }

    /// A call for several files starts: its reads count as one read of the tripwire's runs, until
    /// [`SessionMemory::end_call`]. `asked` is a print of what it asks for (its paths, patterns expanded, and its
    /// limit); `maybe_changed` when a file it names may have changed since it was read (its reads are then neither
    /// warned nor blocked).
    pub fn begin_call(&mut self, asked: u64, fresh: bool, maybe_changed: bool) {
        self.tripwire.begin_call(asked, fresh, maybe_changed);
    }

    /// The reads the tripwire counted so far: a read that did not change it was not counted.
    pub fn counted_reads(&self) -> u64 {
        self.tripwire.counted_reads()
    }

    /// The call for several files ends.
    pub fn end_call(&mut self) {
        self.tripwire.end_call();
    }

    /// A tool other than a read ran: the tripwire starts over (identical reads, cycles and misses); the dedup
    /// memory stays.
    pub fn note_other_tool(&mut self) {
        self.tripwire.clear();
        self.not_found.clear();
    }

    /// The model's context was compacted: forget what it was given and the misses it was told of; keep the
    /// tripwire's count of repeated reads.
    pub fn reset_dedup(&mut self) {
        self.dedup.clear();
        self.dedup_order.clear();
        self.not_found.clear();
    }

    /// `path` (absolute, normalized) was written: forget its dedup entries, not-found entry, index and density.
    pub fn wrote(&mut self, path: &str) {
        let resolved = self.aliases.get(path).cloned();
        let matches = |candidate: &str| candidate == path || resolved.as_deref() == Some(candidate);
        self.dedup.retain(|key, _| !matches(&key.path));
        self.dedup_order.retain(|key| !matches(&key.path));
        self.tripwire.forget_path(matches);
        self.not_found.remove(path);
        self.files.retain(|(file, _), _| !matches(file));
        self.file_order.retain(|(file, _)| !matches(file));
        self.sent.retain(|file, _| !matches(file));
    }

    /// `path` (resolved) changed since this session's previous read of it in `view`, and the model is being told
    /// so (a change notice): only lines `1..=unchanged_through` (1-based; 0 for none) of that view are as they
    /// were. Every dedup entry of `path` in `view` whose window reaches past them is forgotten, so no stub ever
    /// points to a window the notice called stale (a file rewritten and then restored to the old bytes returns
    /// content, not a stub of the old window); and the tripwire's run that involves `path` starts over. The other
    /// view keeps its entries: its next read compares it with its own previous read, and a change there brings its
    /// own notice (and forgets its stale windows) before any stub. The line indexes and token densities stay.
    pub fn file_changed(&mut self, path: &str, view: View, unchanged_through: u64) {
        let stale = |key: &DedupKey| {
            key.path == path
                && key.view == view
                && (key.request.limit == 0
                    || key
                        .request
                        .offset
                        .saturating_add(key.request.limit)
                        .saturating_sub(1)
                        > unchanged_through)
        };
        self.dedup.retain(|key, _| !stale(key));
        self.dedup_order.retain(|key| !stale(key));
        self.tripwire.forget_path(|file| file == path);
    }

    /// Remembers that the lexical path `asked` resolved to `resolved`.
    pub fn remember_alias(&mut self, asked: &str, resolved: &str) {
        if asked != resolved {
            if self.aliases.len() >= MAX_DEDUP {
                self.aliases.clear();
            }
            self.aliases.insert(asked.to_string(), resolved.to_string());
        }
    }

    /// Counts a miss: `path` (absolute, normalized) was checked at `now_ms` (monotonic milliseconds) and does not
    /// exist. Returns the misses of `path` counted so far, this one included (at least 1). The count starts over
    /// when the previous miss is more than `ttl_ms` old; with `ttl_ms` 0 nothing is remembered and every miss is
    /// the first.
    pub fn count_miss(&mut self, path: &str, now_ms: u64, ttl_ms: u64) -> u32 {
        if ttl_ms == 0 {
            return 1;
        }
        let fresh = |entry: &Missing| now_ms.saturating_sub(entry.last_ms) <= ttl_ms;
        if !self.not_found.contains_key(path) && self.not_found.len() >= MAX_NOT_FOUND {
            self.not_found.retain(|_, entry| fresh(entry));
            if self.not_found.len() >= MAX_NOT_FOUND {
                self.not_found.clear();
            }
        }
        let count = match self.not_found.get(path) {
            Some(entry) if fresh(entry) => entry.count.saturating_add(1),
            _ => 1,
        };
        self.not_found.insert(
            path.to_string(),
            Missing {
                count,
                last_ms: now_ms,
            },
        );
        count
    }

    /// Whether a miss of `path` (absolute, normalized) is being counted.
    pub fn missed(&self, path: &str) -> bool {
        self.not_found.contains_key(path)
    }

    /// `path` exists now: its count of misses is forgotten.
    pub fn found(&mut self, path: &str) {
        self.not_found.remove(path);
    }

    /// The resolved path the lexical path `asked` last resolved to.
    pub fn alias(&self, asked: &str) -> Option<String> {
        self.aliases.get(asked).cloned()
    }

    /// The identities (size, modification time) of the kept indexes of `path` (resolved), in either view.
    pub fn kept_identities(&self, path: &str) -> Vec<crate::index::FileIdentity> {
        [View::Bytes, View::Extracted]
            .into_iter()
            .filter_map(|view| self.files.get(&(path.to_string(), view)))
            .filter_map(|index| index.identity)
            .collect()
    }

    /// Takes the cached index of `path` in `view` out (to be put back with `store_file`).
    pub fn take_file(&mut self, path: &str, view: View) -> Option<LineIndex> {
        self.files.remove(&(path.to_string(), view))
    }

    /// Keeps `file` as the index of `path` in `view`, forgetting the oldest indexes beyond the bounds.
    pub fn store_file(&mut self, path: &str, view: View, file: LineIndex) {
        let key = (path.to_string(), view);
        self.file_order.retain(|existing| *existing != key);
        self.file_order.push_back(key.clone());
        self.files.insert(key, file);
        while self.files.len() > MAX_INDEXED_FILES
            || (self.index_bytes() > MAX_INDEX_BYTES && self.files.len() > 1)
        {
            match self.file_order.pop_front() {
                Some(oldest) => {
                    self.files.remove(&oldest);
                }
                None => break,
            }
        }
    }

    /// Indexes kept (one per file and view).
    pub fn indexed_files(&self) -> usize {
        self.files.len()
    }

    /// Bytes the kept indexes occupy.
    pub fn index_bytes(&self) -> u64 {
        self.files.values().map(LineIndex::memory_bytes).sum()
    }

    /// The density multiplier learned for `path` (1.0 when nothing was reported).
    pub fn density(&self, path: &str) -> f64 {
        self.densities.get(path).copied().unwrap_or(1.0)
    }

    /// Records a real token count against an estimate: later windows of `path` are estimated at that density
    /// (with a 5% margin), kept within 0.5 to 3 times the built-in estimate.
    pub fn record_density(&mut self, path: &str, real_tokens: u64, estimated_tokens: u64) -> f64 {
        let base = self.density(path);
        let raw_estimate = (estimated_tokens as f64 / base).max(1.0);
        let density = ((real_tokens as f64 / raw_estimate) * 1.05).clamp(0.5, 3.0);
        self.densities.insert(path.to_string(), density);
        density
    }

    /// Remembers a token-mode window sent for `path`.
    pub fn remember_sent(&mut self, path: &str, offset: u64, lines: u64, estimated_tokens: u64) {
        let recent = self.sent.entry(path.to_string()).or_default();
        recent.retain(|window| !(window.offset == offset && window.lines == lines));
        recent.push_back(SentWindow {
            offset,
            lines,
            estimated_tokens,
        });
        while recent.len() > RECENT_WINDOWS {
            recent.pop_front();
        }
    }

    /// The estimate of a window sent for `path` at `offset` with `lines` lines.
    pub fn sent_estimate(&self, path: &str, offset: u64, lines: u64) -> Option<u64> {
        self.sent
            .get(path)?
            .iter()
            .rev()
            .find(|window| window.offset == offset && window.lines == lines)
            .map(|window| window.estimated_tokens)
    }
}

/// Whether `text` (offered for writing) contains output of this component: a stub, a block message, a warning or
/// a clamp or budget marker, all of which start with `MARKER_PREFIX`.
pub fn contains_component_output(text: &str) -> bool {
    text.contains(MARKER_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(offset: u64, limit: u64) -> DedupKey {
        DedupKey {
            path: "/w/a.txt".to_string(),
            view: View::Bytes,
            request: WindowRequest {
                offset,
                column: 0,
                limit,
            },
            shape: 7,
            region: None,
        }
    }

    #[test]
    fn content_then_stub_then_blocked() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        assert_eq!(
            memory.decide(&key(1, 100), 1, &config, false),
            Decision::Content { warning: None }
        );
        assert_eq!(
            memory.decide(&key(1, 100), 1, &config, false),
            Decision::Stub
        );
        assert_eq!(
            memory.decide(&key(1, 100), 1, &config, false),
            Decision::Blocked { count: 3, cycle: 1 }
        );
        assert_eq!(
            memory.decide(&key(1, 100), 1, &config, false),
            Decision::Blocked { count: 4, cycle: 1 }
        );
        // Another range is counted apart.
        assert_eq!(
            memory.decide(&key(1, 200), 1, &config, false),
            Decision::Content { warning: None }
        );
    }

    #[test]
    fn a_fresh_read_right_after_a_stub_is_that_read_again_and_a_fresh_loop_is_blocked() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        let read =
            |memory: &mut SessionMemory, fresh| memory.decide(&key(1, 100), 1, &config, fresh);
        assert_eq!(
            read(&mut memory, false),
            Decision::Content { warning: None }
        );
        assert_eq!(read(&mut memory, false), Decision::Stub);
        // The way back the stub names: the content, counted as the read the stub answered.
        assert_eq!(read(&mut memory, true), Decision::Content { warning: None });
        // Fresh again and again: the third read in a row warns, the fourth is blocked.
        let warned = read(&mut memory, true);
        assert!(
            matches!(warned, Decision::Content { warning: Some(_) }),
            "{warned:?}"
        );
        assert_eq!(
            read(&mut memory, true),
            Decision::Blocked { count: 4, cycle: 1 }
        );
    }

    #[test]
    fn without_dedup_the_third_warns_and_the_fourth_blocks() {
        let config = Config {
            dedup: false,
            ..Config::default()
        };
        let mut memory = SessionMemory::new();
        assert_eq!(
            memory.decide(&key(1, 10), 1, &config, false),
            Decision::Content { warning: None }
        );
        assert_eq!(
            memory.decide(&key(1, 10), 1, &config, false),
            Decision::Content { warning: None }
        );
        assert!(matches!(
            memory.decide(&key(1, 10), 1, &config, false),
            Decision::Content { warning: Some(_) }
        ));
        assert_eq!(
            memory.decide(&key(1, 10), 1, &config, false),
            Decision::Blocked { count: 4, cycle: 1 }
        );
    }

    #[test]
    fn reset_returns_content_once_and_keeps_the_count() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        memory.decide(&key(1, 10), 1, &config, false);
        assert_eq!(
            memory.decide(&key(1, 10), 1, &config, false),
            Decision::Stub
        );
        memory.reset_dedup();
        assert!(matches!(
            memory.decide(&key(1, 10), 1, &config, false),
            Decision::Content { warning: Some(_) }
        ));
        assert_eq!(
            memory.decide(&key(1, 10), 1, &config, false),
            Decision::Blocked { count: 4, cycle: 1 }
        );
    }

    #[test]
    fn a_changed_window_or_another_tool_clears_the_count() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        memory.decide(&key(1, 10), 1, &config, false);
        assert_eq!(
            memory.decide(&key(1, 10), 2, &config, false),
            Decision::Content { warning: None }
        );
        memory.note_other_tool();
        assert_eq!(
            memory.decide(&key(1, 10), 2, &config, false),
            Decision::Stub
        );
    }

    #[test]
    fn misses_are_counted_within_the_ttl_and_forgotten_by_every_note() {
        let mut memory = SessionMemory::new();
        assert_eq!(memory.count_miss("/w/x", 1_000, 60_000), 1);
        assert_eq!(memory.count_miss("/w/x", 30_000, 60_000), 2);
        assert_eq!(memory.count_miss("/w/y", 30_000, 60_000), 1);
        // More than the TTL after the previous miss: the count starts over.
        assert_eq!(memory.count_miss("/w/x", 90_001, 60_000), 1);
        assert_eq!(memory.count_miss("/w/x", 90_002, 60_000), 2);
        memory.wrote("/w/x");
        assert_eq!(memory.count_miss("/w/x", 90_003, 60_000), 1);
        memory.note_other_tool();
        assert_eq!(memory.count_miss("/w/x", 90_004, 60_000), 1);
        memory.reset_dedup();
        assert_eq!(memory.count_miss("/w/x", 90_005, 60_000), 1);
        memory.found("/w/x");
        assert_eq!(memory.count_miss("/w/x", 90_006, 60_000), 1);
        // A failed read breaks the run of reads, not the count of misses.
        memory.other_answer("/w/missing.txt", 0);
        assert_eq!(memory.count_miss("/w/x", 90_007, 60_000), 2);
        // TTL 0: nothing is remembered.
        assert_eq!(memory.count_miss("/w/z", 1, 0), 1);
        assert_eq!(memory.count_miss("/w/z", 2, 0), 1);
    }

    fn key_of(path: &str, offset: u64) -> DedupKey {
        DedupKey {
            path: path.to_string(),
            ..key(offset, 10)
        }
    }

    #[test]
    fn a_cycle_of_two_is_stubbed_then_blocked_at_a_windows_third_read() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        let (a, b) = (key(1, 10), key(11, 10));
        let content = Decision::Content { warning: None };
        assert_eq!(memory.decide(&a, 1, &config, false), content);
        assert_eq!(memory.decide(&b, 2, &config, false), content);
        assert_eq!(memory.decide(&a, 1, &config, false), Decision::Stub);
        assert_eq!(memory.decide(&b, 2, &config, false), Decision::Stub);
        // A is read the third time in the cycle: blocked, as the third identical read is.
        assert_eq!(
            memory.decide(&a, 1, &config, false),
            Decision::Blocked { count: 3, cycle: 2 }
        );
        assert_eq!(
            memory.decide(&b, 2, &config, false),
            Decision::Blocked { count: 3, cycle: 2 }
        );
        // Another tool starts the tripwire over.
        memory.note_other_tool();
        assert_eq!(memory.decide(&b, 2, &config, false), Decision::Stub);
    }

    #[test]
    fn a_cycle_of_three_without_dedup_warns_then_blocks() {
        let config = Config {
            dedup: false,
            ..Config::default()
        };
        let mut memory = SessionMemory::new();
        let keys = [key_of("/w/a", 1), key_of("/w/b", 1), key_of("/w/c", 1)];
        let mut decisions = Vec::new();
        for _ in 0..4 {
            for (index, key) in keys.iter().enumerate() {
                decisions.push(memory.decide(key, index as u64, &config, false));
            }
        }
        let content = Decision::Content { warning: None };
        // Rounds 1 and 2: content; round 3: warnings naming the cycle; round 4: blocked.
        assert!(decisions[..6].iter().all(|decision| *decision == content));
        for decision in &decisions[6..9] {
            match decision {
                Decision::Content {
                    warning: Some(warning),
                } => assert!(
                    warning.contains("read 3 of lines 1-10") && warning.contains("cycle of 3"),
                    "{warning}"
                ),
                other => panic!("{other:?}"),
            }
        }
        assert!(decisions[9..]
            .iter()
            .all(|decision| *decision == Decision::Blocked { count: 4, cycle: 3 }));
    }

    #[test]
    fn paging_forward_and_changed_windows_are_never_a_cycle() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        let content = Decision::Content { warning: None };
        for page in 0..40 {
            assert_eq!(
                memory.decide(&key(1 + page * 10, 10), 1, &config, false),
                content
            );
        }
        // A B A B where B changes every time: A is stubbed, never blocked.
        let mut memory = SessionMemory::new();
        for round in 0..10u64 {
            let a = memory.decide(&key(1, 10), 1, &config, false);
            assert_eq!(
                a,
                if round == 0 {
                    content.clone()
                } else {
                    Decision::Stub
                }
            );
            assert_eq!(
                memory.decide(&key(11, 10), 100 + round, &config, false),
                content
            );
        }
    }

    #[test]
    fn a_change_forgets_the_stale_windows_and_restarts_the_count() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        let content = Decision::Content { warning: None };
        let (head, all, other) = (key(1, 3), key(1, 10), key_of("/w/b.txt", 1));
        assert_eq!(memory.decide(&head, 1, &config, false), content);
        assert_eq!(memory.decide(&all, 2, &config, false), content);
        assert_eq!(memory.decide(&other, 3, &config, false), content);
        assert_eq!(memory.decide(&all, 2, &config, false), Decision::Stub);
        // Lines 1-3 are unchanged: lines 1-3 are still current, lines 1-10 are not; another file keeps its own.
        memory.file_changed("/w/a.txt", View::Bytes, 3);
        assert_eq!(memory.decide(&head, 1, &config, false), Decision::Stub);
        assert_eq!(memory.decide(&all, 2, &config, false), content);
        assert_eq!(memory.decide(&other, 3, &config, false), Decision::Stub);
        // Changed from line 1: nothing of it is current, and the count of the run starts over.
        assert_eq!(memory.decide(&all, 2, &config, false), Decision::Stub);
        memory.file_changed("/w/a.txt", View::Bytes, 0);
        assert_eq!(memory.decide(&all, 2, &config, false), content);
        assert_eq!(memory.decide(&head, 1, &config, false), content);
        assert_eq!(memory.decide(&all, 2, &config, false), Decision::Stub);
        assert_eq!(memory.decide(&all, 2, &config, false), Decision::Stub);
        assert_eq!(
            memory.decide(&all, 2, &config, false),
            Decision::Blocked { count: 3, cycle: 1 }
        );
    }

    #[test]
    fn a_failed_read_breaks_the_run_and_a_write_the_cycle() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        let (a, b) = (key(1, 10), key_of("/w/b.txt", 1));
        for _ in 0..2 {
            memory.decide(&a, 1, &config, false);
            memory.decide(&b, 2, &config, false);
        }
        memory.other_answer("/w/missing.txt", 0);
        assert_eq!(memory.decide(&a, 1, &config, false), Decision::Stub);
        assert_eq!(memory.decide(&b, 2, &config, false), Decision::Stub);
        assert_eq!(memory.decide(&a, 1, &config, false), Decision::Stub);
        memory.wrote("/w/b.txt");
        assert_eq!(
            memory.decide(&b, 2, &config, false),
            Decision::Content { warning: None }
        );
        assert_eq!(memory.decide(&a, 1, &config, false), Decision::Stub);
    }

    #[test]
    fn the_two_views_of_a_file_are_remembered_apart() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        let content = Decision::Content { warning: None };
        let bytes = key(1, 3);
        let extracted = DedupKey {
            view: View::Extracted,
            ..key(1, 3)
        };
        // The same lines of the two views, even with the same hash, are two windows: neither stubs the other.
        assert_eq!(memory.decide(&extracted, 1, &config, false), content);
        assert_eq!(memory.decide(&bytes, 1, &config, false), content);
        assert_eq!(memory.decide(&extracted, 1, &config, false), Decision::Stub);
        assert_eq!(memory.decide(&bytes, 1, &config, false), Decision::Stub);
        // A change found in one view forgets its stale windows only: the other view is compared with itself.
        memory.file_changed("/w/a.txt", View::Bytes, 0);
        assert_eq!(memory.decide(&bytes, 1, &config, false), content);
        assert_eq!(memory.decide(&extracted, 1, &config, false), Decision::Stub);
        memory.file_changed("/w/a.txt", View::Extracted, 0);
        assert_eq!(memory.decide(&extracted, 1, &config, false), content);
        assert_eq!(memory.decide(&bytes, 1, &config, false), Decision::Stub);
        // Each view keeps its own index.
        let index = || LineIndex::new(crate::decode::TextEncoding::Utf8, 0);
        memory.store_file("/w/a.txt", View::Bytes, index());
        memory.store_file("/w/a.txt", View::Extracted, index());
        assert_eq!(memory.indexed_files(), 2);
        assert!(memory.take_file("/w/a.txt", View::Extracted).is_some());
        assert!(memory.take_file("/w/a.txt", View::Extracted).is_none());
        assert!(memory.take_file("/w/a.txt", View::Bytes).is_some());
    }
}
