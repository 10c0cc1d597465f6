//! The extractions a session keeps, per path and file version, least recently used first out.

use super::{DocumentError, ExtractedDocument};

/// Extracted documents a session keeps at most.
pub(super) const MAX_CACHED_DOCUMENTS: usize = 8;
/// Bytes of extracted text a session keeps at most (the last document stays even when it alone is larger).
const MAX_CACHED_TEXT_BYTES: u64 = 64 * 1024 * 1024;

/// A file version: its size in bytes, its modification time (nanoseconds since the epoch, when known) and the
/// fingerprint of its content (the reader's `document_fingerprint`: all of it up to 16 MiB, else its head and tail).
type Version = (u64, Option<u128>, u64);

/// The extractions of a session, per path and file version, least recently used first out: extraction runs once
/// per file version, so paging a 300-page PDF does not extract it again. Failed extractions are kept too (a zip
/// bomb is refused once, then answered from here). Bounded by [`MAX_CACHED_DOCUMENTS`] and
/// [`MAX_CACHED_TEXT_BYTES`].
#[derive(Debug, Default)]
pub(crate) struct DocumentCache {
    entries: Vec<(
        String,
        Version,
        Result<std::sync::Arc<ExtractedDocument>, DocumentError>,
    )>,
    /// Extractions run (cache misses), for tests and stats.
    pub extractions: u64,
}

impl DocumentCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The cached extraction of `path` at `version`, moved to the back (most recently used).
    pub fn get(
        &mut self,
        path: &str,
        version: Version,
    ) -> Option<Result<std::sync::Arc<ExtractedDocument>, DocumentError>> {
        let position = self
            .entries
            .iter()
            .position(|(p, v, _)| p == path && *v == version)?;
        let entry = self.entries.remove(position);
        let answer = entry.2.clone();
        self.entries.push(entry);
        Some(answer)
    }

    /// Keeps `extraction` of `path` at `version` (replacing any other version of `path`) and evicts the least
    /// recently used beyond the bounds.
    pub fn put(
        &mut self,
        path: &str,
        version: Version,
        extraction: Result<std::sync::Arc<ExtractedDocument>, DocumentError>,
    ) {
        self.entries.retain(|(p, _, _)| p != path);
        self.entries.push((path.to_string(), version, extraction));
        while self.entries.len() > MAX_CACHED_DOCUMENTS
            || (self.text_bytes() > MAX_CACHED_TEXT_BYTES && self.entries.len() > 1)
        {
            let _evicted = self.entries.remove(0);
        }
    }

    /// Forgets `path` (it was written).
    pub fn forget(&mut self, path: &str) {
        self.entries.retain(|(p, _, _)| p != path);
    }

    #[cfg(test)]
    /// Documents kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    fn text_bytes(&self) -> u64 {
        self.entries
            .iter()
            .map(|(_, _, extraction)| {
                extraction
                    .as_ref()
                    .map_or(0, |document| document.text.len() as u64)
            })
            .sum()
    }
}
