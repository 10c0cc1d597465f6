//! The data flow of one read, stage by stage (DESIGN.md): normalize the request, map the path onto a preopen,
//! guards by name and by stat, open, sniff and decode, index, window, session memory, result.
//!
//! [`Reader`] is a session; [`read_once`] reads with no memory. Both run over any [`FileSystem`], so everything
//! here is tested natively; the component supplies the WASI one.

use std::hash::{Hash, Hasher};

use crate::config::{Budget, Config, ConfigInput};
use crate::decode::{Decoder, TextEncoding};
use crate::document::{
    self, Candidate, DocumentCache, DocumentErrorKind, DocumentFacts, DocumentStore,
    ExtractedDocument, ExtractionLimits,
};
use crate::error::FsError;
use crate::error::{ErrorKind, ReadError};
use crate::guards::{check_device_name, CredentialPolicy};
use crate::hint::{hint, hint_past_key, push_clamped, ClampedRest, Withheld};
use crate::ignore_files::IgnoreFiles;
use crate::image::ImageBudget;
use crate::index::{
    fingerprint, print_prefix, FileIdentity, LineEndings, LineIndex, FINGERPRINT_BYTES,
};
use crate::legacy::{first_unencodable, LegacyFiles, Unencodable};
use crate::names::{confusable_difference, shown_name, tilde_note, tilde_sentence};
use crate::prose::{line_count, MARKER_PREFIX};
use crate::returned::{
    change_body, change_notice, compare, replacement_line, Change, FileVersion, FileVersions,
    ReturnedLines,
};
use crate::sandbox::{
    described, find_root, normalize, outside_error, resolve, validate_path, FileKind, FileSystem,
    Missing, ResolveError, Resolved,
};
use crate::scan::{Scanner, BLOCK_BYTES};
use crate::session::{contains_component_output, Decision, DedupKey, SessionMemory, View};
use crate::sniff::{binary_advice, sniff_block, Verdict};
use crate::source::{read_whole, ByteSource, CrAsLf, FileOrText, MemorySource, ReadAhead};
use crate::tokens::{gutter_tokens, parse_refusal, TokenEstimator};
use crate::window::{read_window, Truncation, Window, WindowRequest, WindowSettings};

mod announced;
mod answer;
mod census;
mod changes;
mod feedback;
mod images;
mod many;
mod missing;
mod open;
mod request;
mod resolve;
mod stale;
mod tail;
#[cfg(test)]
mod tests;
mod write_check;

pub use self::answer::{
    EncodingFacts, EncodingOrigin, ReadOutcome, ReadResult, RetryWindow, SessionStats,
    UnchangedStub,
};
pub use self::images::ImageResult;

pub use self::many::{
    LeftOut, ManyFile, ReadManyRequest, ReadManyResult, FILE_SEPARATOR, MAX_MANY_FILES,
};
pub use self::request::ReadRequest;
use self::{
    answer::*, census::*, changes::*, images::*, missing::*, open::*, request::*, resolve::*,
    tail::*,
};
pub use crate::config::{BudgetReport, BudgetUnit};

/// A reading session: config, credential policy and session memory.
#[derive(Debug)]
pub struct Reader {
    config: Config,
    policy: CredentialPolicy,
    memory: SessionMemory,
    pending_warnings: Vec<String>,
    /// The gutter lines and lossy reads this session returned, for `check_write`.
    returned: ReturnedLines,
    /// The version of each file at its previous read, for change notices.
    versions: FileVersions,
    /// The version of each file at its last read or `wrote`, the base `check_write` compares with (`stale`).
    edit_bases: FileVersions,
    /// The rules of the ignore files the config names (`ignored`).
    ignore: IgnoreFiles,
    /// Whether the first read checked that each named ignore file is at the top of some root.
    ignore_names_checked: bool,
    /// The writes this session was told of: announced by an accepted `check_write`, or reported by `wrote`.
    writes: announced::ExpectedWrites,
    /// The files read in a legacy encoding, for `check_write`.
    legacy: LegacyFiles,
    /// The documents this session extracted, per file version.
    documents: DocumentCache,
    /// What an image read may return: the default, or in `read_many` what the call's images and budget left.
    image_budget: ImageBudget,
}

/// Reads one window with no session memory: no stubs, no tripwire, no index kept. The outcome is a window of
/// lines or of an image, never `Unchanged`.
///
/// Errors: every `ErrorKind` but `LoopBlocked` and `EchoedOutput`. Config warnings come with the result.
pub fn read_once<F: FileSystem + ?Sized>(
    config: ConfigInput,
    fs: &mut F,
    request: &ReadRequest,
) -> Result<ReadOutcome, ReadError> {
    crate::beneath::retried_on_change(fs, |fs| read_once_as_asked(config.clone(), fs, request))
        .map_err(|error| raw_bytes_error(error, request))
}

/// [`read_once`] of a file read by lines, for tests: an image's window is a panic.
#[cfg(test)]
pub(crate) fn read_once_window<F: FileSystem + ?Sized>(
    config: ConfigInput,
    fs: &mut F,
    request: &ReadRequest,
) -> Result<ReadResult, ReadError> {
    read_once(config, fs, request).map(|outcome| match outcome {
        ReadOutcome::Window(result) => result,
        other => panic!("a window of lines was expected, not {other:?}"),
    })
}

/// [`read_once`] without the rewording of [`raw_bytes_error`].
fn read_once_as_asked<F: FileSystem + ?Sized>(
    config: ConfigInput,
    fs: &mut F,
    request: &ReadRequest,
) -> Result<ReadOutcome, ReadError> {
    let (config, warnings) = Config::resolve(config);
    let policy = CredentialPolicy::new(&config.deny_patterns, &config.allow_patterns);
    let mut ignore = IgnoreFiles::new(&config.ignore_files);
    let prepared = prepare(&config, fs, request)?;
    let mut refusals = Refusals {
        policy: &policy,
        ignore: &mut ignore,
    };
    let resolved = resolve_once(fs, &mut refusals, request, &prepared.absolute)?;
    check_depth(request, &resolved)?;
    if resolved.stat.kind == FileKind::Directory {
        let mut listing = listing_of(fs, &config, &mut refusals, request, &prepared, &resolved)?;
        listing.warnings.splice(0..0, warnings);
        listing
            .warnings
            .extend(tilde_note(&request.path, &listing.path));
        return Ok(ReadOutcome::Listing(listing));
    }
    let mut result = if resolved.stat.kind == FileKind::CharacterDevice {
        empty_result(&config, &resolved)
    } else {
        let file = match open_routed(fs, &resolved, &config, request)
            .map_err(|error| error.at_path(&resolved.path))?
        {
            Routed::Lines(file) => file,
            Routed::Image(file, format) => {
                let mut image =
                    image_result(file, format, &resolved, request, &ImageBudget::default())
                        .map_err(|error| error.at_path(&resolved.path))?;
                image.warnings = warnings;
                image
                    .warnings
                    .extend(tilde_note(&request.path, &image.path));
                return Ok(ReadOutcome::Image(image));
            }
        };
        let mut opened = open_and_index(
            file,
            &resolved,
            &request.path,
            |_| None,
            &mut DocumentCache::new(),
            fs.document_store(),
            request.extract != Some(false),
        )
        .map_err(|error| error.at_path(&resolved.path))?;
        let mut result = window_result(
            &mut opened,
            &config,
            1.0,
            &prepared.request,
            prepared.tail.as_ref(),
            &resolved,
            &request.path,
        )
        .map_err(|error| error.at_path(&resolved.path))?;
        attach_document(&mut result, opened.document.as_deref());
        result
    };
    result.warnings = warnings;
    result.warnings.extend(
        result
            .document
            .as_ref()
            .and_then(|facts| facts.warning.clone()),
    );
    result.warnings.extend(crate::hint::invisible_warning(
        &result.path,
        &result.window.invisible,
    ));
    result
        .warnings
        .extend(tilde_note(&request.path, &result.path));
    Ok(ReadOutcome::Window(result))
}

/// The path of a read with no session memory resolved and guarded (`read_once`); a missing one is `not_found`
/// with its suggestions.
fn resolve_once<F: FileSystem + ?Sized>(
    fs: &mut F,
    refusals: &mut Refusals<'_>,
    request: &ReadRequest,
    absolute: &str,
) -> Result<Resolved, ReadError> {
    match resolve_guarded(fs, refusals.policy, refusals.ignore, request, absolute) {
        Ok(resolved) => Ok(resolved),
        Err(ResolveError::NotFound(missing)) => {
            Err(not_found_error(fs, refusals, &request.path, absolute, &missing).at_path(absolute))
        }
        Err(ResolveError::Other(error)) => Err(error.at_path(absolute)),
    }
}

impl Reader {
    /// A session with `config`; invalid values are replaced by defaults and reported once, with the first result.
    pub fn new(config: ConfigInput) -> Reader {
        let (config, pending_warnings) = Config::resolve(config);
        let policy = CredentialPolicy::new(&config.deny_patterns, &config.allow_patterns);
        let ignore = IgnoreFiles::new(&config.ignore_files);
        Reader {
            config,
            policy,
            memory: SessionMemory::new(),
            pending_warnings,
            returned: ReturnedLines::new(),
            versions: FileVersions::new(),
            edit_bases: FileVersions::new(),
            ignore,
            ignore_names_checked: false,
            writes: announced::ExpectedWrites::default(),
            legacy: LegacyFiles::new(),
            documents: DocumentCache::new(),
            image_budget: ImageBudget::default(),
        }
    }

    /// Adds `warning` to those the first result carries (a config value the session could not use).
    pub fn warn_once(&mut self, warning: String) {
        self.pending_warnings.push(warning);
    }

    /// Documents this session extracted (not found in its cache or the document store), for tests.
    #[cfg(test)]
    pub(crate) fn extractions(&self) -> u64 {
        self.documents.extractions
    }

    /// The config in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Reads a window, through the session memory: content, a stub, or an error. `now_ms` is the monotonic clock.
    ///
    /// Errors: every `ErrorKind` but `EchoedOutput`; `LoopBlocked` carries the count.
    pub fn read<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        request: &ReadRequest,
        now_ms: u64,
    ) -> Result<ReadOutcome, ReadError> {
        if !self.ignore_names_checked {
            self.ignore_names_checked = true;
            let missing = self.ignore.missing_names(fs);
            self.pending_warnings.extend(missing);
        }
        let pending = self.pending_warnings.len();
        let counted = self.memory.counted_reads();
        let outcome = crate::beneath::retried_on_change(fs, |fs| {
            self.read_through_memory(fs, request, now_ms)
        })
        .map_err(|error| raw_bytes_error(error, request));
        // A warning about this read alone (a name read as its shown form) that no window carried goes with it.
        if !matches!(
            outcome,
            Ok(ReadOutcome::Window(_) | ReadOutcome::Listing(_) | ReadOutcome::Image(_))
        ) {
            self.pending_warnings.truncate(pending);
        }
        // A failed read is a read of something else: it breaks a run of identical reads and is a read of its own in
        // a cycle (within a call for several files, the same failure again is part of a repeated call). A window
        // the tripwire blocked was counted; a miss the count of misses blocked was not, and is the same answer as
        // the misses before it.
        if outcome.is_err() && self.memory.counted_reads() == counted {
            self.memory
                .other_answer(&request.path, failure_print(&request.path));
        }
        outcome
    }

    /// One read, stage by stage: the request prepared, the path resolved and guarded (a miss counted), the file
    /// opened and its window read, the memory's decision on it, then the version recorded.
    fn read_through_memory<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        request: &ReadRequest,
        now_ms: u64,
    ) -> Result<ReadOutcome, ReadError> {
        let prepared = prepare(&self.config, fs, request)?;
        let resolved = self.resolve_or_count_miss(fs, request, &prepared, now_ms)?;
        check_depth(request, &resolved)?;
        if resolved.stat.kind == FileKind::Directory {
            let mut refusals = Refusals {
                policy: &self.policy,
                ignore: &mut self.ignore,
            };
            let mut listing = listing_of(
                fs,
                &self.config,
                &mut refusals,
                request,
                &prepared,
                &resolved,
            )?;
            listing
                .warnings
                .splice(0..0, self.pending_warnings.drain(..));
            // A listing is a read of something else: it breaks a run of identical reads of one window, and is a
            // read of its own in a cycle.
            self.memory.other_answer(
                &resolved.path,
                answer_print(&listing.content, &resolved.path),
            );
            self.returned.remember_text(&listing.content);
            return Ok(ReadOutcome::Listing(listing));
        }
        let (result, change) = if resolved.stat.kind == FileKind::CharacterDevice {
            (empty_result(&self.config, &resolved), None)
        } else {
            match self.open_and_window(fs, request, &prepared, &resolved)? {
                Windowed::Lines(result, change) => (result, Some(change)),
                Windowed::Image(image) => return self.image_answer(image, request),
            }
        };
        let version = change.as_ref().map(|seen| seen.version.print);
        let outcome = self.answer_of(result, &resolved, request, version);
        self.after_read(&resolved.path, change, outcome)
    }

    /// A tool other than a read ran: the tripwire starts over (identical reads, cycles, the count of misses of
    /// each missing path); the dedup memory stays.
    pub fn note_other_tool(&mut self) {
        self.memory.note_other_tool();
    }

    /// The model's context was compacted: the next read of any window returns full content, and the count of
    /// misses of each missing path starts over; the tripwire's count of repeated reads is kept.
    pub fn reset_dedup(&mut self) {
        self.memory.reset_dedup();
    }

    /// The host wrote `path`: forget its dedup entries, its count of misses and its index, and keep what it holds
    /// now as the base `check_write` compares the next edit with.
    pub fn wrote<F: FileSystem + ?Sized>(&mut self, fs: &mut F, path: &str) {
        let absolute = normalize(path, &working_directory(&self.config, fs));
        self.memory.wrote(&absolute);
        let resolved = self
            .memory
            .alias(&absolute)
            .unwrap_or_else(|| absolute.clone());
        self.documents.forget(&absolute);
        self.documents.forget(&resolved);
        self.returned.partial.forget(&resolved, 0);
        self.note_written_base(fs, path);
    }

    fn resolved_alias<F: FileSystem + ?Sized>(&self, fs: &F, path: &str) -> String {
        let absolute = normalize(path, &working_directory(&self.config, fs));
        self.memory.alias(&absolute).unwrap_or(absolute)
    }

    /// Counters of this session; `fs` holds the document store, whose hits are counted.
    pub fn stats<F: FileSystem + ?Sized>(&self, fs: &mut F) -> SessionStats {
        SessionStats {
            positioned_reads: self.memory.positioned_reads,
            indexed_files: u32::try_from(self.memory.indexed_files()).unwrap_or(u32::MAX),
            index_bytes: self.memory.index_bytes(),
            documents_extracted: self.documents.extractions,
            documents_from_store: fs.document_store().map_or(0, |store| store.hits),
        }
    }
}

/// The print of a failed read of `path`, for the tripwire: the same for every failure of the path (a miss stays
/// the same answer when the count of misses turns it into a block).
fn failure_print(path: &str) -> u64 {
    answer_print("failed", path)
}

/// The print of an answer that had no window (a failure, a listing's text) for `path`, for the tripwire.
fn answer_print(answer: impl std::hash::Hash, path: &str) -> u64 {
    crate::tripwire::print_of(&(answer, path))
}
