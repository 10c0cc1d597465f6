//! Session memory: what a session already handed the model, and what it learned about files.
//!
//! - **Dedup**: a repeat of a window whose content is identical (by hash) to what this session last returned for
//!   the same key (resolved path plus the effective request and the config that shapes it) gets a stub. Identity
//!   is the content, never the modification time, so a same-second rewrite is always seen.
//! - **Tripwire**: consecutive identical reads are counted; with dedup on, a read after an unheeded stub is
//!   blocked; with it off, the `loop_warn_at`-th read carries a warning and the `loop_block_at`-th is blocked. The
//!   stub path runs through the tripwire too (a stub that skipped the loop guard let a weak model loop forever).
//! - **Not-found cache**: a missing path is remembered for a TTL on the monotonic clock.
//! - **Line indexes** and **token densities** per file.
//!
//! Everything here is pure: the clock is passed in.

use std::collections::{HashMap, VecDeque};

use crate::config::Config;
use crate::index::LineIndex;
use crate::window::{WindowRequest, MARKER_PREFIX};

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

/// What identifies a window for dedup and the tripwire.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DedupKey {
    /// The resolved absolute guest path.
    pub path: String,
    /// The effective request.
    pub request: WindowRequest,
    /// A fingerprint of the config values that shape the window (clamp, budget).
    pub shape: u64,
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
    /// Refuse: the model is looping. `count` is the consecutive identical reads, this one included.
    Blocked {
        /// Consecutive identical reads.
        count: u32,
    },
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
    last: Option<(DedupKey, u64)>,
    consecutive: u32,
    not_found: HashMap<String, (u64, String)>,
    aliases: HashMap<String, String>,
    densities: HashMap<String, f64>,
    sent: HashMap<String, VecDeque<SentWindow>>,
    files: HashMap<String, LineIndex>,
    file_order: VecDeque<String>,
    /// Positioned reads issued by this session.
    pub positioned_reads: u64,
}

impl SessionMemory {
    /// An empty memory.
    pub fn new() -> Self {
        SessionMemory::default()
    }

    /// Decides what a read of `key` whose window hashes to `hash` returns, and records it.
    pub fn decide(&mut self, key: &DedupKey, hash: u64, config: &Config) -> Decision {
        let repeat = matches!(&self.last, Some((last_key, last_hash)) if last_key == key && *last_hash == hash);
        let count = if repeat {
            self.consecutive.saturating_add(1)
        } else {
            1
        };
        self.consecutive = count;
        self.last = Some((key.clone(), hash));
        if count >= config.loop_block_at {
            return Decision::Blocked { count };
        }
        let model_has_it = config.dedup && self.dedup.get(key) == Some(&hash);
        if model_has_it {
            if count >= config.loop_warn_at {
                return Decision::Blocked { count };
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
        let warning = (count >= config.loop_warn_at).then(|| {
            format!(
                "{MARKER_PREFIX}loop warning] This is identical read {count} in a row of lines {}-{} of {}, unchanged. Use what you already have; read {} will be blocked.",
                key.request.offset,
                (key.request.offset + key.request.limit).saturating_sub(1).max(key.request.offset),
                key.path,
                config.loop_block_at
            )
        });
        Decision::Content { warning }
    }

    /// A tool other than a read ran: the consecutive count starts over; the dedup memory stays.
    pub fn note_other_tool(&mut self) {
        self.last = None;
        self.consecutive = 0;
    }

    /// The model's context was compacted: forget what it was given, keep the tripwire's count.
    pub fn reset_dedup(&mut self) {
        self.dedup.clear();
        self.dedup_order.clear();
    }

    /// `path` (absolute, normalized) was written: forget its dedup entries, not-found entry, index and density.
    pub fn wrote(&mut self, path: &str) {
        let resolved = self.aliases.get(path).cloned();
        let matches = |candidate: &str| candidate == path || resolved.as_deref() == Some(candidate);
        self.dedup.retain(|key, _| !matches(&key.path));
        self.dedup_order.retain(|key| !matches(&key.path));
        if self
            .last
            .as_ref()
            .is_some_and(|(key, _)| matches(&key.path))
        {
            self.last = None;
            self.consecutive = 0;
        }
        self.not_found.remove(path);
        self.files.retain(|file, _| !matches(file));
        self.file_order.retain(|file| !matches(file));
        self.sent.retain(|file, _| !matches(file));
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

    /// Remembers that `path` was missing at `now_ms`, with the message the model was given.
    pub fn remember_not_found(&mut self, path: &str, message: &str, now_ms: u64, ttl_ms: u64) {
        if ttl_ms == 0 {
            return;
        }
        if self.not_found.len() >= MAX_NOT_FOUND {
            self.not_found.retain(|_, (expires, _)| *expires > now_ms);
            if self.not_found.len() >= MAX_NOT_FOUND {
                self.not_found.clear();
            }
        }
        self.not_found.insert(
            path.to_string(),
            (now_ms.saturating_add(ttl_ms), message.to_string()),
        );
    }

    /// The message of `path`'s not-found entry, if it is remembered missing at `now_ms`, with the milliseconds
    /// left; an expired entry is dropped.
    pub fn known_missing(&mut self, path: &str, now_ms: u64) -> Option<(String, u64)> {
        match self.not_found.get(path) {
            Some((expires, message)) if *expires > now_ms => {
                Some((message.clone(), expires - now_ms))
            }
            Some(_) => {
                self.not_found.remove(path);
                None
            }
            None => None,
        }
    }

    /// The resolved path the lexical path `asked` last resolved to.
    pub fn alias(&self, asked: &str) -> Option<String> {
        self.aliases.get(asked).cloned()
    }

    /// Takes the cached file out (to be put back with `store_file`).
    pub fn take_file(&mut self, path: &str) -> Option<LineIndex> {
        self.files.remove(path)
    }

    /// Keeps `file` as the index of `path`, forgetting the oldest indexes beyond the bounds.
    pub fn store_file(&mut self, path: &str, file: LineIndex) {
        self.file_order.retain(|existing| existing != path);
        self.file_order.push_back(path.to_string());
        self.files.insert(path.to_string(), file);
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

    /// Files whose index is kept.
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

/// Whether `text` is a window pasted back with its gutters: two or more lines, each `N|...`, numbered one after
/// the other. Writing it would put the line numbers into the file.
pub fn looks_like_gutter_echo(text: &str) -> bool {
    let mut expected: Option<u64> = None;
    let mut lines = 0;
    for line in text.lines() {
        let Some((number, _)) = line.split_once('|') else {
            return false;
        };
        let Ok(number) = number.parse::<u64>() else {
            return false;
        };
        if expected.is_some_and(|wanted| wanted != number) {
            return false;
        }
        expected = number.checked_add(1);
        lines += 1;
    }
    lines >= 2
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
            request: WindowRequest {
                offset,
                column: 0,
                limit,
            },
            shape: 7,
        }
    }

    #[test]
    fn content_then_stub_then_blocked() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        assert_eq!(
            memory.decide(&key(1, 100), 1, &config),
            Decision::Content { warning: None }
        );
        assert_eq!(memory.decide(&key(1, 100), 1, &config), Decision::Stub);
        assert_eq!(
            memory.decide(&key(1, 100), 1, &config),
            Decision::Blocked { count: 3 }
        );
        assert_eq!(
            memory.decide(&key(1, 100), 1, &config),
            Decision::Blocked { count: 4 }
        );
        // Another range is counted apart.
        assert_eq!(
            memory.decide(&key(1, 200), 1, &config),
            Decision::Content { warning: None }
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
            memory.decide(&key(1, 10), 1, &config),
            Decision::Content { warning: None }
        );
        assert_eq!(
            memory.decide(&key(1, 10), 1, &config),
            Decision::Content { warning: None }
        );
        assert!(matches!(
            memory.decide(&key(1, 10), 1, &config),
            Decision::Content { warning: Some(_) }
        ));
        assert_eq!(
            memory.decide(&key(1, 10), 1, &config),
            Decision::Blocked { count: 4 }
        );
    }

    #[test]
    fn reset_returns_content_once_and_keeps_the_count() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        memory.decide(&key(1, 10), 1, &config);
        assert_eq!(memory.decide(&key(1, 10), 1, &config), Decision::Stub);
        memory.reset_dedup();
        assert!(matches!(
            memory.decide(&key(1, 10), 1, &config),
            Decision::Content { warning: Some(_) }
        ));
        assert_eq!(
            memory.decide(&key(1, 10), 1, &config),
            Decision::Blocked { count: 4 }
        );
    }

    #[test]
    fn a_changed_window_or_another_tool_clears_the_count() {
        let config = Config::default();
        let mut memory = SessionMemory::new();
        memory.decide(&key(1, 10), 1, &config);
        assert_eq!(
            memory.decide(&key(1, 10), 2, &config),
            Decision::Content { warning: None }
        );
        memory.note_other_tool();
        assert_eq!(memory.decide(&key(1, 10), 2, &config), Decision::Stub);
    }

    #[test]
    fn a_window_pasted_back_with_gutters_is_recognised() {
        assert!(looks_like_gutter_echo("1|a\n2|b\n3|c\n"));
        assert!(looks_like_gutter_echo("41|    let x = 1;\n42|}\n"));
        assert!(!looks_like_gutter_echo("1|a\n"));
        assert!(!looks_like_gutter_echo("1|a\n3|b\n"));
        assert!(!looks_like_gutter_echo("| a | b |\n| 1 | 2 |\n"));
        assert!(!looks_like_gutter_echo("plain\ntext\n"));
    }

    #[test]
    fn not_found_expires_and_wrote_clears_it() {
        let mut memory = SessionMemory::new();
        memory.remember_not_found("/w/x", "gone", 1_000, 60_000);
        assert_eq!(
            memory.known_missing("/w/x", 30_000),
            Some(("gone".to_string(), 31_000))
        );
        assert_eq!(memory.known_missing("/w/x", 61_000), None);
        memory.remember_not_found("/w/x", "gone", 1_000, 60_000);
        memory.wrote("/w/x");
        assert_eq!(memory.known_missing("/w/x", 2_000), None);
    }
}
