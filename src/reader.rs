//! The data flow of one read, stage by stage (DESIGN.md): normalize the request, map the path onto a preopen,
//! guards by name and by stat, open, sniff and decode, index, window, session memory, result.
//!
//! [`Reader`] is a session; [`read_once`] reads with no memory. Both run over any [`FileSystem`], so everything
//! here is tested natively; the component supplies the WASI one.

use std::hash::{Hash, Hasher};

use crate::config::{Budget, Config, ConfigInput};
use crate::decode::{Decoder, TextEncoding};
use crate::document::{
    self, Candidate, DocumentCache, DocumentErrorKind, DocumentFacts, ExtractedDocument,
    ExtractionLimits,
};
use crate::error::FsError;
use crate::error::{ErrorKind, ReadError};
use crate::guards::{check_device_name, CredentialPolicy};
use crate::hint::{hint, hint_past_key, Withheld};
use crate::index::{
    fingerprint, print_prefix, FileIdentity, LineEndings, LineIndex, FINGERPRINT_BYTES,
};
use crate::legacy::{first_unencodable, LegacyFiles, Unencodable};
use crate::names::{confusable_difference, shown_name, tilde_note, tilde_sentence};
use crate::prose::{line_count, MARKER_PREFIX};
use crate::returned::{
    change_notice, compare, replacement_line, FileVersion, FileVersions, ReturnedLines,
};
use crate::sandbox::{
    described, find_root, normalize, outside_error, resolve, validate_path, FileKind, FileSystem,
    Missing, ResolveError, Resolved,
};
use crate::scan::{Scanner, BLOCK_BYTES};
use crate::session::{contains_component_output, Decision, DedupKey, SessionMemory};
use crate::sniff::{binary_advice, sniff_block, Verdict};
use crate::source::{ByteSource, CrAsLf, FileOrText, MemorySource, ReadAhead};
use crate::tokens::{gutter_tokens, parse_refusal, TokenEstimator};
use crate::window::{read_window, Truncation, Window, WindowRequest, WindowSettings};

/// Directory entries looked at for "did you mean" suggestions at most.
const SUGGESTION_SCAN: usize = 10_000;

/// A read as the host sends it (mirrors the WIT `read-request`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadRequest {
    /// A guest path, absolute or relative to the working directory.
    pub path: String,
    /// The first line, 1-based; `None` and 0 mean 1.
    pub offset: Option<u64>,
    /// Lines at most; `None` means `max_lines`; 0 is an error.
    pub limit: Option<u64>,
    /// The column (0-based characters) to start at in the first line.
    pub column: Option<u64>,
    /// Read the last `tail` lines instead (at most `limit` and `max_lines`): the window ends at the file's last
    /// line. 0 is an error, and so is a `tail` with an `offset` past 1 or a `column` past 0 (their defaults are accepted).
    pub tail: Option<u64>,
    /// Whether a document is read as its extracted text; `None` means yes. `Some(false)` reads the file's own
    /// bytes as any other file: a notebook as its JSON, a `.docx` that is plain text as that text, and a binary
    /// container (zip, OLE, PDF) is then refused as `binary`.
    pub extract: Option<bool>,
    /// When the host resolved absolute links itself and rewrote `path` to where they lead: the absolute guest
    /// path asked for, then each link the host followed, in order. The credential rules are checked on each.
    pub asked_via: Vec<String>,
}

/// What the budget counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetUnit {
    /// Characters of formatted content.
    Characters,
    /// Estimated tokens of formatted content.
    Tokens,
}

/// The budget's figures for one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetReport {
    /// The unit.
    pub unit: BudgetUnit,
    /// The limit (in token mode the cap times the headroom).
    pub limit: u64,
    /// What the content costs.
    pub used: u64,
    /// In token mode, the cap.
    pub cap: Option<u64>,
}

impl BudgetReport {
    /// The report of a window that used `used` of `limit` under `budget`.
    pub fn of(budget: &Budget, limit: u64, used: u64) -> Self {
        let (unit, cap) = match *budget {
            Budget::Characters(_) => (BudgetUnit::Characters, None),
            Budget::Tokens { cap, .. } => (BudgetUnit::Tokens, Some(cap)),
        };
        BudgetReport {
            unit,
            limit,
            used,
            cap,
        }
    }
}

/// How the encoding was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodingOrigin {
    /// The file declares it: a byte order mark (UTF-8, UTF-16 or UTF-32).
    Declared,
    /// Detected from the content: valid UTF-8, UTF-16 by its zero bytes, or a legacy encoding by `chardetng` on a
    /// sample of the file's start (see [`crate::legacy`]).
    Detected,
}

impl EncodingOrigin {
    /// The name used in results: `declared` or `detected`.
    pub fn name(self) -> &'static str {
        match self {
            EncodingOrigin::Declared => "declared",
            EncodingOrigin::Detected => "detected",
        }
    }
}

/// How the file was decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodingFacts {
    /// The encoding.
    pub encoding: TextEncoding,
    /// A byte order mark was stripped.
    pub bom: bool,
    /// Whether the file declared the encoding (a byte order mark) or it was detected from the content.
    pub origin: EncodingOrigin,
    /// The file's line endings.
    pub line_endings: LineEndings,
    /// Invalid sequences replaced in this window.
    pub replaced_invalid: u64,
    /// For a legacy encoding guessed among single-byte encodings that decode the file differently, the runner-up
    /// the hint names (`could also be iso-8859-15`); `None` otherwise.
    pub runner_up: Option<&'static encoding_rs::Encoding>,
}

/// A window with everything a result reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadResult {
    /// The window: content, lines, cursor, truncation.
    pub window: Window,
    /// The resolved guest path.
    pub path: String,
    /// The sentence for the model.
    pub hint: String,
    /// The file's size in bytes.
    pub file_size: u64,
    /// Encoding facts.
    pub encoding: EncodingFacts,
    /// Budget figures.
    pub budget: BudgetReport,
    /// Warnings: a loop warning, a config value replaced by its default.
    pub warnings: Vec<String>,
    /// For a document read as its extracted text: its format, parts (page/sheet/slide map) and empty pages.
    pub document: Option<DocumentFacts>,
}

/// The answer to an unchanged repeat of a window. It carries the cursor of the window it stands for, so paging
/// goes on through a stub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnchangedStub {
    /// The resolved guest path.
    pub path: String,
    /// The first line of the window (1-based).
    pub start_line: u64,
    /// The last line of the window (1-based; 0 for an empty file).
    pub end_line: u64,
    /// Lines in the file.
    pub total_lines: u64,
    /// The window's cursor: the next line (1-based), absent when nothing after the window is left.
    pub next_offset: Option<u64>,
    /// The window's cursor inside a line: the column (0-based characters) where `next_offset` continues.
    pub next_column: Option<u64>,
    /// Tells the model that the earlier result is still current, then the call that continues (or that nothing
    /// after the window is left, and the calls that read the rest of its clamped lines).
    pub message: String,
}

/// What a session read returns.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // One outcome per read, moved once: boxing would only add an allocation.
pub enum ReadOutcome {
    /// The window's content.
    Window(ReadResult),
    /// A stub: the model already has this window.
    Unchanged(UnchangedStub),
}

/// The window a host should ask for after its engine refused one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryWindow {
    /// The first line, as in the refused request.
    pub offset: u64,
    /// Lines that should fit.
    pub limit: u64,
    /// The engine's count of the refused window.
    pub refused_tokens: u64,
    /// The engine's cap.
    pub cap_tokens: u64,
    /// The call to make, in words.
    pub hint: String,
}

/// Counters of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionStats {
    /// Positioned reads issued since the session began.
    pub positioned_reads: u64,
    /// Files whose line index is kept.
    pub indexed_files: u32,
    /// Bytes the line indexes occupy.
    pub index_bytes: u64,
}

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
    /// The files read in a legacy encoding, for `check_write`.
    legacy: LegacyFiles,
    /// The documents this session extracted, per file version.
    documents: DocumentCache,
}

/// The normalized request and the path it names.
struct Prepared {
    request: WindowRequest,
    /// The last lines asked for, when the request is a tail read.
    tail: Option<TailRequest>,
    /// The absolute, normalized guest path asked for.
    absolute: String,
}

fn prepare<F: FileSystem + ?Sized>(
    config: &Config,
    fs: &F,
    request: &ReadRequest,
) -> Result<Prepared, ReadError> {
    validate_path(&request.path)?;
    let limit = match request.limit {
        Some(0) => {
            return Err(ReadError::invalid(
                "limit 0 asks for no lines; give a limit of at least 1, or leave it out for the default.",
            ))
        }
        Some(limit) => limit.min(config.max_lines),
        None => config.max_lines,
    };
    let request_window = WindowRequest {
        offset: request.offset.unwrap_or(1).max(1),
        column: request.column.unwrap_or(0),
        limit,
    };
    let tail = match request.tail {
        None => None,
        Some(0) => {
            return Err(ReadError::invalid(
                "tail 0 asks for no lines; give a tail of at least 1 (the last lines of the file), or leave it out.",
            ))
        }
        // An offset of 0 or 1 and a column of 0 are the defaults: they ask for nothing a tail contradicts.
        Some(_) if request.offset.unwrap_or(1) > 1 || request.column.unwrap_or(0) > 0 => {
            return Err(ReadError::invalid(
                "tail reads the last lines of the file, so it cannot be combined with an offset past 1 or a column past 0; send tail alone (with limit at most), or offset without tail.",
            ))
        }
        Some(asked) => Some(TailRequest {
            asked,
            lines: asked.min(limit),
            capped_by: match request.limit {
                Some(given) if given < asked && given <= config.max_lines => {
                    format!("limit is {given}")
                }
                _ => format!("max-lines is {}", config.max_lines),
            },
        }),
    };
    let absolute = normalize(&request.path, &working_directory(config, fs));
    Ok(Prepared {
        request: request_window,
        tail,
        absolute,
    })
}

/// A tail read as asked: the last `asked` lines, of which at most `lines` (the limit, or max-lines) are read.
#[derive(Debug, Clone)]
struct TailRequest {
    /// The last lines asked for.
    asked: u64,
    /// The last lines read at most: `asked`, capped at the limit and max-lines.
    lines: u64,
    /// The cap in words (`"limit is 5"`, `"max-lines is 2000"`), for the hint when `lines < asked`.
    capped_by: String,
}

/// The working directory: the config's (normalized), else the first preopen, else `/`.
fn working_directory<F: FileSystem + ?Sized>(config: &Config, fs: &F) -> String {
    match &config.working_directory {
        Some(directory) => normalize(directory, "/"),
        None => fs
            .roots()
            .first()
            .cloned()
            .unwrap_or_else(|| "/".to_string()),
    }
}

/// A fingerprint of the config values that shape a window.
fn shape_of(config: &Config) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    config.max_line_chars.hash(&mut hasher);
    match config.budget {
        Budget::Characters(limit) => (0u8, limit).hash(&mut hasher),
        Budget::Tokens { cap, headroom } => (1u8, cap, headroom.to_bits()).hash(&mut hasher),
    }
    hasher.finish()
}

/// What a window says, hashed: content, cursor and line count (so a grown file is not "unchanged").
fn window_hash(window: &Window) -> u64 {
    // rustc-hash hashes the content a word at a time (SipHash, the default, a byte at a time costs as much as
    // building a page); the hash never leaves the session.
    let mut hasher = rustc_hash::FxHasher::default();
    window.content.hash(&mut hasher);
    window.total_lines.hash(&mut hasher);
    window.next_offset.hash(&mut hasher);
    window.next_column.hash(&mut hasher);
    hasher.finish()
}

/// Clamped lines a stub names one by one; the rest are counted.
const STUB_CLAMPED_NAMED: usize = 3;

/// The stub that stands for `window` of `path`: its lines and cursor, and a message that says the earlier result
/// is still current and then how to go on, generated from the window's own fields: the call that continues, or
/// that nothing after the window is left; and the calls that read the rest of its clamped lines.
fn stub_of(window: &Window, path: &str) -> UnchangedStub {
    let raw = path;
    let path = crate::prose::path_in_prose(raw);
    let mut message = if window.total_lines == 0 {
        format!("{MARKER_PREFIX}unchanged] {path} is still empty (0 lines), as when you read it earlier in this session; there is nothing to read in it.")
    } else {
        let (lines, have) = if window.start_line == window.end_line {
            (
                format!("Line {}", window.start_line),
                "has not changed since you read it",
            )
        } else {
            (
                format!("Lines {}-{}", window.start_line, window.end_line),
                "have not changed since you read them",
            )
        };
        let column = if window.start_column > 0 {
            format!(
                " (line {} from column {})",
                window.start_line, window.start_column
            )
        } else {
            String::new()
        };
        format!(
            "{MARKER_PREFIX}unchanged] {lines}{column} of {} in {path} {have} earlier in this session; that result is still current, so it is not sent again.",
            window.total_lines
        )
    };
    let clamped = window.clamped_lines.as_slice();
    match (window.next_offset, window.next_column) {
        (Some(offset), Some(column)) => message.push_str(&format!(
            " Line {offset} continues: use offset={offset} column={column} to continue."
        )),
        (Some(offset), None) => message.push_str(&format!(" Use offset={offset} to continue.")),
        (None, _) if clamped.is_empty() && window.total_lines > 0 => message.push_str(&format!(
            " Nothing after line {} is left to read.",
            window.end_line
        )),
        (None, _) if !clamped.is_empty() => message.push_str(&format!(
            " Nothing after line {} is left, but clamped text inside the window is:",
            window.end_line
        )),
        (None, _) => {}
    }
    match clamped {
        [] => {}
        [only] => {
            let subject = if message.ends_with(':') {
                "line"
            } else {
                "Line"
            };
            message.push_str(&format!(
                " {subject} {} was clamped ({} of its {} characters shown); read the rest with offset={} column={}.",
                only.line, only.shown_chars, only.total_chars, only.line, only.next_column
            ));
        }
        clamped => {
            let named: Vec<String> = clamped
                .iter()
                .take(STUB_CLAMPED_NAMED)
                .map(|line| format!("offset={} column={}", line.line, line.next_column))
                .collect();
            message.push_str(&format!(
                " {} lines were clamped; read their rest with {}",
                clamped.len(),
                named.join(", ")
            ));
            if clamped.len() > STUB_CLAMPED_NAMED {
                message.push_str(&format!(
                    " and {} more (see clamped_lines of the earlier result)",
                    clamped.len() - STUB_CLAMPED_NAMED
                ));
            }
            message.push('.');
        }
    }
    UnchangedStub {
        path: raw.to_string(),
        start_line: window.start_line,
        end_line: window.end_line,
        total_lines: window.total_lines,
        next_offset: window.next_offset,
        next_column: window.next_column,
        message,
    }
}

/// Which component of a missing path is missing, when that is not plain from the path: the missing component is
/// not the last one, or lies past a link (`/w/a/b is missing`, `/w/real/x.txt is missing, past the link /w/d,
/// which points to real`); `None` when the last component itself is missing and no link was followed.
fn missing_detail(absolute: &str, missing: &Missing) -> Option<String> {
    let shown = crate::prose::path_in_prose(&missing.path);
    match &missing.via_link {
        Some((link, target)) => Some(format!(
            "{shown} is missing, past the link {}, which points to {}",
            crate::prose::path_in_prose(link),
            crate::prose::path_in_prose(target)
        )),
        None if missing.path != absolute => Some(format!("{shown} is missing")),
        None => None,
    }
}

/// `requested` as a repeated-miss message names it: with the path it resolved to and, in parentheses, the
/// [`missing_detail`].
fn missing_subject(requested: &str, absolute: &str, missing: &Missing) -> String {
    match missing_detail(absolute, missing) {
        Some(detail) => format!("{} ({detail})", described(requested, absolute)),
        None => described(requested, absolute),
    }
}

/// The not-found error for `absolute` (asked for as `requested`), naming the component that is `missing`, with up
/// to three similar names from the directory it is missing from.
fn not_found_error<F: FileSystem + ?Sized>(
    fs: &mut F,
    requested: &str,
    absolute: &str,
    missing: &Missing,
) -> ReadError {
    let similar = similar_names(fs, &missing.path);
    let detail = missing_detail(absolute, missing)
        .map(|detail| format!(": {detail}"))
        .unwrap_or_default();
    let message = format!(
        "{} does not exist{detail}.{}{}",
        described(requested, absolute),
        similar.sentence(),
        tilde_sentence(requested, fs.roots())
    );
    ReadError::new(ErrorKind::NotFound, message).with_suggestions(similar.names)
}

/// The answer to the `count`-th miss of `absolute` (asked for as `requested`) in a session: checked again just
/// now, never remembered. The first is the plain not-found error; later ones say how often it was asked for; from
/// `loop_warn_at` on the message warns, and from `loop_block_at` on the read is `LoopBlocked` (with the count).
fn missing_error<F: FileSystem + ?Sized>(
    fs: &mut F,
    config: &Config,
    requested: &str,
    absolute: &str,
    missing: &Missing,
    count: u32,
) -> ReadError {
    if count <= 1 {
        return not_found_error(fs, requested, absolute, missing);
    }
    let tilde = tilde_sentence(requested, fs.roots());
    let requested = &missing_subject(requested, absolute, missing);
    let similar = similar_names(fs, &missing.path);
    if count >= config.loop_block_at {
        return ReadError::new(
            ErrorKind::LoopBlocked,
            format!(
                "{MARKER_PREFIX}loop-blocked] You have asked for {requested} {count} times in this session and it still does not exist (checked again just now).{}{tilde} Stop asking for it: find the right path with a directory listing, or create the file first.",
                similar.sentence()
            ),
        )
        .with_count(count)
        .with_suggestions(similar.names);
    }
    let mut message = format!(
        "{requested} still does not exist: you asked for this missing file {count} times in this session, and it was checked again just now.{}{tilde}",
        similar.sentence()
    );
    if count >= config.loop_warn_at {
        message.push_str(&format!(
            " Asking again will not make it appear: ask {} will be blocked. Find the right path with a directory listing, or create the file first.",
            config.loop_block_at
        ));
    }
    ReadError::new(ErrorKind::NotFound, message).with_suggestions(similar.names)
}

/// The names offered instead of a missing one: the directory they are in and the names, best first.
struct SimilarNames {
    /// The directory listed (a guest path).
    parent: String,
    /// At most three names of `parent`, best first; empty when none look alike or it cannot be listed.
    names: Vec<String>,
    /// A name of `parent` that differs from the missing one only by invisible or look-alike characters or by
    /// normalization, and that difference in words ([`crate::names::confusable_difference`]).
    confusable: Option<(String, String)>,
    /// Names of `parent` skipped because they are not valid UTF-8.
    not_utf8: usize,
}

impl SimilarNames {
    /// The names as a sentence with a leading space (` Similar names in /w: a.txt, b.txt.`); empty without names.
    fn sentence(&self) -> String {
        let mut sentence = String::new();
        if let Some((name, difference)) = &self.confusable {
            sentence.push_str(&format!(
                " {}/{} looks the same but is another name: {difference}. Ask for that exact name to read it.",
                self.parent.trim_end_matches('/'),
                shown_name(name)
            ));
        }
        if !self.names.is_empty() {
            sentence.push_str(&format!(
                " Similar names in {}: {}.",
                self.parent,
                self.names
                    .iter()
                    .map(|name| shown_name(name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        match self.not_utf8 {
            0 => {}
            1 => sentence.push_str(&format!(
                " 1 name in {} is not valid UTF-8 and cannot be asked for by name.",
                self.parent
            )),
            count => sentence.push_str(&format!(
                " {count} names in {} are not valid UTF-8 and cannot be asked for by name.",
                self.parent
            )),
        }
        sentence
    }
}

/// Up to three names in the directory of `absolute` that look like its last component (none when the directory
/// cannot be listed).
fn similar_names<F: FileSystem + ?Sized>(fs: &mut F, absolute: &str) -> SimilarNames {
    let (parent, name) = match absolute.rsplit_once('/') {
        Some(("", name)) => ("/", name),
        Some((parent, name)) => (parent, name),
        None => ("/", absolute),
    };
    let mut similar = SimilarNames {
        parent: parent.to_string(),
        names: Vec::new(),
        confusable: None,
        not_utf8: 0,
    };
    let roots = fs.roots().to_vec();
    if let Some((root, relative)) = find_root(&roots, parent) {
        if let Ok(listing) = fs.list_directory(root, &relative, SUGGESTION_SCAN) {
            similar.not_utf8 = listing.not_utf8;
            let entries = listing.names;
            similar.confusable = entries.iter().find_map(|entry| {
                confusable_difference(name, entry).map(|difference| (entry.clone(), difference))
            });
            let mut scored: Vec<(f64, String)> = entries
                .into_iter()
                .map(|entry| {
                    // A name that differs only in case (Unicode-aware) is as similar as can be.
                    let score = if name.to_lowercase() == entry.to_lowercase() {
                        1.0
                    } else {
                        strsim::normalized_damerau_levenshtein(name, &entry)
                    };
                    (score, entry)
                })
                .filter(|(score, _)| *score >= 0.6)
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            similar.names = scored.into_iter().take(3).map(|(_, entry)| entry).collect();
        }
    }
    similar
}

/// Entries of a directory counted for its `not_a_file` message at most.
const DIRECTORY_COUNT_CAP: usize = 10_000;

/// How many entries the directory `resolved` holds, in words (`3 entries`, `more than 10000 entries`, `no
/// entries`); empty when it cannot be listed.
fn directory_entries<F: FileSystem + ?Sized>(fs: &mut F, resolved: &Resolved) -> String {
    match fs.list_directory(resolved.root, &resolved.relative, DIRECTORY_COUNT_CAP + 1) {
        Ok(entries) if entries.len() > DIRECTORY_COUNT_CAP => format!(
            " of more than {DIRECTORY_COUNT_CAP} entries{}",
            entries.not_utf8_note()
        ),
        Ok(entries) if entries.is_empty() => " with no entries".to_string(),
        Ok(entries) if entries.len() == 1 => format!(" of 1 entry{}", entries.not_utf8_note()),
        Ok(entries) => format!(" of {} entries{}", entries.len(), entries.not_utf8_note()),
        Err(_) => String::new(),
    }
}

/// Refuses by stat what is not a regular file; `/dev/null` reads as empty. A directory's message says how many
/// entries it holds (counted up to `DIRECTORY_COUNT_CAP`).
fn check_kind<F: FileSystem + ?Sized>(
    fs: &mut F,
    resolved: &Resolved,
    requested: &str,
) -> Result<(), ReadError> {
    match resolved.stat.kind {
        FileKind::Regular => Ok(()),
        FileKind::CharacterDevice if resolved.path == "/dev/null" => Ok(()),
        FileKind::Directory => Err(ReadError::new(
            ErrorKind::NotAFile,
            format!(
                "{} is a directory{}, not a file. List it with a directory tool, or read a file inside it.",
                described(requested, &resolved.path),
                directory_entries(fs, resolved)
            ),
        )),
        kind => Err(ReadError::new(
            ErrorKind::SpecialFile,
            format!(
                "{} is {}; reading it could block or never end, so read-window refuses it without opening it.",
                described(requested, &resolved.path),
                kind.describe()
            ),
        )),
    }
}

/// An open file: the scanner over it (holding its last block) and its index.
struct Opened<File: ByteSource> {
    /// The scanner over the file, read through [`CrAsLf`] (active when the index splits on `\r`).
    scanner: Scanner<CrAsLf<File>>,
    index: LineIndex,
    /// The document whose extracted text `scanner` reads, when the file is one.
    document: Option<std::sync::Arc<ExtractedDocument>>,
}

/// Fingerprints the bytes `[start, end)` (at most `FINGERPRINT_BYTES`) read through `scanner`.
fn region_print<S: ByteSource>(
    scanner: &mut Scanner<S>,
    start: u64,
    end: u64,
) -> Result<u64, FsError> {
    let mut bytes = Vec::with_capacity(FINGERPRINT_BYTES);
    scanner.seek(start);
    while scanner.position() < end {
        let wanted = (end - scanner.position()) as usize;
        let available = scanner.fill()?;
        if available.is_empty() {
            break;
        }
        let take = wanted.min(available.len());
        bytes.extend_from_slice(available.get(..take).unwrap_or_default());
        scanner.advance(take);
    }
    Ok(fingerprint(&[&bytes]))
}

/// Sniffs the file from its first block and scans all of it into a new index: split on `\n`, or, when the file
/// has no `\n` at all but has `\r` (and 1-byte code units), split on `\r` (scanned again through an active
/// [`CrAsLf`]).
fn build_index<S: ByteSource>(
    scanner: &mut Scanner<CrAsLf<S>>,
    resolved: &Resolved,
    requested: &str,
) -> Result<LineIndex, ReadError> {
    let io = |error: FsError| error.into_read_error(requested);
    if scanner.source_mut().is_active() {
        scanner.source_mut().set_active(false);
        scanner.forget_block();
    }
    scanner.seek(0);
    scanner.set_encoding(TextEncoding::Utf8);
    let block = scanner.fill().map_err(io)?;
    let whole_file = resolved.stat.size > 0 && block.len() as u64 >= resolved.stat.size;
    let verdict = sniff_block(block, whole_file);
    let runner_up = match verdict {
        Verdict::Text {
            encoding: TextEncoding::Legacy(legacy),
            ..
        } if legacy.is_single_byte() => crate::legacy::detect_with_runner_up(block, whole_file)
            .filter(|(detected, _)| *detected == legacy)
            .and_then(|(_, runner_up)| runner_up),
        _ => None,
    };
    let mut index = match verdict {
        Verdict::Binary { kind } => {
            return Err(ReadError::new(
                ErrorKind::Binary,
                format!(
                    "{requested} is {kind}, detected from its content (the file name is not trusted); read-window returns text only. {}",
                    binary_advice(kind, requested)
                ),
            ));
        }
        Verdict::Text {
            encoding,
            bom_bytes,
        } => {
            scanner.set_encoding(encoding);
            LineIndex::new(encoding, bom_bytes)
        }
    };
    index.extend(scanner).map_err(io)?;
    if index.wants_split_on_cr() {
        scanner.source_mut().set_active(true);
        scanner.forget_block();
        index = LineIndex::new_split_on_cr(index.encoding(), index.data_start());
        index.extend(scanner).map_err(io)?;
    }
    index.identity = Some(identity_of(resolved));
    index.runner_up = runner_up;
    Ok(index)
}

fn identity_of(resolved: &Resolved) -> FileIdentity {
    FileIdentity {
        size: resolved.stat.size,
        modified_ns: resolved.stat.modified_ns,
    }
}

/// Opens `resolved` and brings its index up to date: a cached index is kept when the file is the same version or
/// only grew, and the bytes before the end of its scanned lines still have the fingerprint they had (so a rewrite
/// under the same size and modification time, or an edit before the part that grew, is rescanned from the start).
fn open_and_index<F: FileSystem + ?Sized>(
    fs: &mut F,
    resolved: &Resolved,
    requested: &str,
    cached: Option<LineIndex>,
    documents: &mut DocumentCache,
    extract: bool,
) -> Result<Opened<FileOrText<ReadAhead<F::File>>>, ReadError> {
    let io = |error: FsError| error.into_read_error(requested);
    let file = ReadAhead::new(fs.open(resolved.root, &resolved.relative).map_err(io)?);
    let (file, document) = if extract {
        document_source(file, resolved, requested, documents)?
    } else {
        (FileOrText::File(file), None)
    };
    // A document's lines are those of its extracted text: the index is built over the text, and kept only for the
    // same version of the file (the cache gives the same text for it).
    let text_resolved;
    let (resolved, cached) = match &document {
        Some(document) => {
            text_resolved = Resolved {
                stat: crate::sandbox::FileStat {
                    size: document.text.len() as u64,
                    ..resolved.stat
                },
                ..resolved.clone()
            };
            let identity = identity_of(&text_resolved);
            (
                &text_resolved,
                cached.filter(|index| index.identity == Some(identity)),
            )
        }
        None => (resolved, cached),
    };
    let identity = identity_of(resolved);
    // A file of one block indexed at the same version is checked by its content print (a read of the block the
    // window needs anyway, hashed 8 bytes a step) rather than sniffed and scanned again; a print that differs (a
    // rewrite under the same size and modification time) rescans it.
    let (small, cached) = match cached {
        Some(index) if identity.size <= BLOCK_BYTES as u64 && index.identity == Some(identity) => {
            (Some(index), None)
        }
        other => (None, other),
    };
    let candidate = cached.filter(|index| {
        index.identity.is_some_and(|known| {
            known == identity
                // A file split on `\r` that changed may have gained a `\n`: it is indexed again.
                || (identity.size > known.size
                    && known.size > BLOCK_BYTES as u64
                    && !index.splits_on_cr())
        }) && identity.size > BLOCK_BYTES as u64
    });
    let mut scanner = Scanner::new(CrAsLf::new(file), TextEncoding::Utf8);
    scanner.set_size_hint(resolved.stat.size);
    let mut reusable = None;
    if let Some(index) = small {
        scanner.set_encoding(index.encoding());
        scanner.source_mut().set_active(index.splits_on_cr());
        let print = print_prefix(
            &mut scanner,
            index.encoding(),
            index.data_start(),
            index.scanned_bytes(),
        )
        .map_err(io)?;
        if index.scanned_bytes() == identity.size && print == index.content_print() {
            reusable = Some(index);
        }
    }
    if let Some(index) = candidate {
        scanner.set_encoding(index.encoding());
        scanner.source_mut().set_active(index.splits_on_cr());
        let unchanged = match index.resume_region() {
            Some((start, end, print)) => {
                region_print(&mut scanner, start, end).map_err(io)? == print
            }
            None => true,
        };
        if unchanged {
            reusable = Some(index);
        }
    }
    let index = match reusable {
        Some(mut index) => {
            if index.identity != Some(identity) {
                index.extend(&mut scanner).map_err(io)?;
                index.identity = Some(identity);
            }
            if index.wants_split_on_cr() {
                build_index(&mut scanner, resolved, requested)?
            } else {
                index
            }
        }
        None => build_index(&mut scanner, resolved, requested)?,
    };
    Ok(Opened {
        scanner,
        index,
        document,
    })
}

/// The bytes of a file of at most `size` bytes, read whole.
fn read_whole<S: ByteSource>(file: &mut S, size: u64) -> Result<Vec<u8>, FsError> {
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let mut chunk = Vec::new();
    while (bytes.len() as u64) < size {
        file.read_at(bytes.len() as u64, BLOCK_BYTES, &mut chunk)?;
        if chunk.is_empty() {
            break;
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Bytes of a file's start read first to tell a document from any other file: a container's magic number and a
/// PDF's `%PDF-` header lie within them (see [`document::candidate`]); only a JSON object is read further (its first
/// block), for a notebook's `"nbformat"`.
const HEAD_PROBE_BYTES: usize = 1024;

/// The first bytes of `file` that [`document::candidate`] needs, read once and kept by `file` for the reads after
/// it: [`HEAD_PROBE_BYTES`], or the first block when the probe may start a notebook (a JSON object, or a probe of
/// whitespace only), whose `"nbformat"` key is looked for in the whole block. A file of `size` bytes smaller than a
/// block is read whole and a byte more (what the window's scan asks for), so that one read serves both. The verdict
/// is the one the first block gives.
fn document_head<S: ByteSource>(file: &mut ReadAhead<S>, size: u64) -> Result<&[u8], FsError> {
    let whole = usize::try_from(size.saturating_add(1))
        .ok()
        .filter(|&length| length <= BLOCK_BYTES);
    let asked = whole.unwrap_or(HEAD_PROBE_BYTES).max(HEAD_PROBE_BYTES);
    let head = file.read_head(asked)?;
    let first = head.iter().find(|byte| !byte.is_ascii_whitespace());
    if head.len() == asked && asked < BLOCK_BYTES && matches!(first, None | Some(b'{')) {
        file.read_head(BLOCK_BYTES)?;
    }
    Ok(file.head())
}

/// What [`document_source`] gives for a file `S`: the bytes a read windows, and the document extracted from it.
type SourceOf<S> = (
    FileOrText<ReadAhead<S>>,
    Option<std::sync::Arc<ExtractedDocument>>,
);

/// The source a read windows: the file, or, when its content (then its name) says it is a document, the text
/// extracted from it (from `documents` when this version was extracted before). Errors: the document's typed
/// error (`too_large`, `malformed_document`, `encrypted_document`; `binary` for a format not extracted).
fn document_source<S: ByteSource>(
    mut file: ReadAhead<S>,
    resolved: &Resolved,
    requested: &str,
    documents: &mut DocumentCache,
) -> Result<SourceOf<S>, ReadError> {
    let io = |error: FsError| error.into_read_error(requested);
    let head = document_head(&mut file, resolved.stat.size).map_err(io)?;
    if document::candidate(head, &resolved.path) == Candidate::No {
        return Ok((FileOrText::File(file), None));
    }
    let limits = ExtractionLimits::default();
    let size = resolved.stat.size;
    // The content's fingerprint is part of the version: a document replaced by another of the same size and
    // modification time (`cp -p`, `rsync -a`, an unzip) is extracted again, not shown from the cache.
    let (fingerprint, whole) = if size > limits.max_input_bytes {
        (0, None)
    } else {
        document_fingerprint(&mut file, size).map_err(io)?
    };
    let version = (size, resolved.stat.modified_ns, fingerprint);
    let extraction = match documents.get(&resolved.path, version) {
        Some(extraction) => Some(extraction),
        None => {
            let extraction = if size > limits.max_input_bytes {
                Err(document::DocumentError::too_large(format!(
                    "{requested} is {size} bytes, over the cap of {} bytes for documents, so it is not extracted",
                    limits.max_input_bytes
                )))
            } else {
                let bytes = match whole {
                    Some(bytes) => bytes,
                    None => read_whole(&mut file, size).map_err(io)?,
                };
                documents.extractions += 1;
                extract_document(&bytes, &resolved.path, &limits)
            };
            match extraction {
                Ok(None) => None,
                Ok(Some(document)) => {
                    let extraction = Ok(std::sync::Arc::new(document));
                    documents.put(&resolved.path, version, extraction.clone());
                    Some(extraction)
                }
                Err(error) => {
                    documents.put(&resolved.path, version, Err(error.clone()));
                    Some(Err(error))
                }
            }
        }
    };
    match extraction {
        None => Ok((FileOrText::File(file), None)),
        Some(Ok(document)) => Ok((
            FileOrText::Text(MemorySource::new(document.text.as_bytes())),
            Some(document),
        )),
        Some(Err(error)) => Err(document_error(
            error,
            requested,
            &resolved.path,
            document::is_binary_container(file.head()).is_some(),
        )),
    }
}

/// Files of at most this many bytes are fingerprinted whole; larger ones by their first and last
/// `DOCUMENT_FINGERPRINT_BYTES / 2` (a zip's central directory, at its end, holds the CRC-32 of every part).
const DOCUMENT_FINGERPRINT_BYTES: u64 = 16 * 1024 * 1024;

/// The fingerprint of a document file of `size` bytes (FxHash of its bytes, or of its head and tail when it is
/// over [`DOCUMENT_FINGERPRINT_BYTES`]), and its bytes when they were read whole.
fn document_fingerprint<S: ByteSource>(
    file: &mut S,
    size: u64,
) -> Result<(u64, Option<Vec<u8>>), FsError> {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    if size <= DOCUMENT_FINGERPRINT_BYTES {
        let bytes = read_whole(file, size)?;
        hasher.write(&bytes);
        return Ok((hasher.finish(), Some(bytes)));
    }
    let half = DOCUMENT_FINGERPRINT_BYTES / 2;
    let mut chunk = Vec::new();
    for start in [0, size - half] {
        let mut at = start;
        while at < start + half {
            file.read_at(at, BLOCK_BYTES, &mut chunk)?;
            if chunk.is_empty() {
                break;
            }
            let take = chunk.len().min((start + half - at) as usize);
            hasher.write(chunk.get(..take).unwrap_or_default());
            at += take as u64;
        }
    }
    Ok((hasher.finish(), None))
}

/// Extracts a document (see [`document::extract`]); without the `documents` feature nothing is a document.
#[cfg(feature = "documents")]
fn extract_document(
    bytes: &[u8],
    name: &str,
    limits: &ExtractionLimits,
) -> Result<Option<ExtractedDocument>, document::DocumentError> {
    document::extract(bytes, name, limits)
}

#[cfg(not(feature = "documents"))]
fn extract_document(
    _bytes: &[u8],
    _name: &str,
    _limits: &ExtractionLimits,
) -> Result<Option<ExtractedDocument>, document::DocumentError> {
    Ok(None)
}

/// The read error of a document that could not be extracted, with the next move for the model.
/// `container`: the file is a zip, OLE or PDF container, whose bytes read with extract=false are binary too, so the
/// advice for a malformed document leaves that out.
fn document_error(
    error: document::DocumentError,
    requested: &str,
    path: &str,
    container: bool,
) -> ReadError {
    let (kind, advice) = match error.kind {
        DocumentErrorKind::Malformed if container => (
            ErrorKind::MalformedDocument,
            "It cannot be extracted as it is: check what the file really is (`file` on it), or ask for a good copy.",
        ),
        DocumentErrorKind::TooLarge => (
            ErrorKind::TooLarge,
            "Extract the part you need with a tool outside read-window (or split the file), then read that.",
        ),
        DocumentErrorKind::Malformed => (
            ErrorKind::MalformedDocument,
            "It cannot be extracted as it is: read its bytes as a file with extract=false (a file named like a document that holds text or JSON reads that way), check what it really is (`file` on it), or ask for a good copy.",
        ),
        DocumentErrorKind::Encrypted => (
            ErrorKind::EncryptedDocument,
            "It needs its password: ask the user for a decrypted copy.",
        ),
        DocumentErrorKind::Unsupported => (ErrorKind::Binary, ""),
    };
    let message = error.message;
    let message = if message.starts_with(requested) || message.starts_with(path) {
        message
    } else {
        format!("{requested}: {message}")
    };
    ReadError::new(kind, format!("{message}. {advice}").trim_end().to_string())
}

/// What the existing file at `path` is when it is a binary document container (a zip, an OLE compound file, a
/// PDF), in words; `None` for text, a missing file, or anything that cannot be read.
fn binary_container<F: FileSystem + ?Sized>(
    fs: &mut F,
    working_directory: &str,
    path: &str,
) -> Option<&'static str> {
    let absolute = normalize(path, working_directory);
    let resolved = resolve(fs, path, &absolute).ok()?;
    if resolved.stat.kind != FileKind::Regular {
        return None;
    }
    let mut file = fs.open(resolved.root, &resolved.relative).ok()?;
    let mut head = Vec::new();
    file.read_at(0, 1024, &mut head).ok()?;
    document::is_binary_container(&head)
}

/// The size in bytes of the existing regular file at `path` when it is a Jupyter notebook (JSON with `nbformat`
/// and its cells, whatever its name), read whole up to the documents' input cap; `None` for anything else.
fn existing_notebook<F: FileSystem + ?Sized>(
    fs: &mut F,
    working_directory: &str,
    path: &str,
) -> Option<u64> {
    let absolute = normalize(path, working_directory);
    let resolved = resolve(fs, path, &absolute).ok()?;
    let size = resolved.stat.size;
    if resolved.stat.kind != FileKind::Regular || size > ExtractionLimits::default().max_input_bytes
    {
        return None;
    }
    let mut file = fs.open(resolved.root, &resolved.relative).ok()?;
    let mut head = Vec::new();
    file.read_at(0, 64, &mut head).ok()?;
    if head.iter().find(|byte| !byte.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let bytes = read_whole(&mut file, size).ok()?;
    document::is_notebook(&bytes).then_some(size)
}

/// Adds what a read of a document reports to `result`: the document facts, and the hint's clause on its parts.
fn attach_document(result: &mut ReadResult, document: Option<&ExtractedDocument>) {
    if let Some(document) = document {
        let facts = DocumentFacts::of(document, &result.path);
        result.hint.push_str(&facts.hint_clause(
            result.window.start_line,
            result.window.end_line.max(result.window.start_line),
        ));
        result.document = Some(facts);
    }
}

/// The result of reading the window of an opened file.
fn window_result<File: ByteSource>(
    opened: &mut Opened<File>,
    config: &Config,
    density: f64,
    request: &WindowRequest,
    tail: Option<&TailRequest>,
    resolved: &Resolved,
    requested: &str,
) -> Result<ReadResult, ReadError> {
    let settings = WindowSettings {
        max_line_chars: config.max_line_chars,
        budget: config.budget,
        density,
    };
    let Some(tail) = tail else {
        return window_result_at(
            opened, config, &settings, request, None, resolved, requested,
        );
    };
    // A tail read: the last `tail` lines, fewer when they do not fit the budget, so the window still ends at the
    // last line (a last line alone over the budget is cut inside, with its cursor, as any window).
    let mut lines = tail.lines;
    let mut attempts = 0;
    loop {
        let total = opened.index.total_lines();
        let at = WindowRequest {
            offset: total.saturating_sub(lines).saturating_add(1),
            column: 0,
            limit: lines,
        };
        let result = window_result_at(
            opened,
            config,
            &settings,
            &at,
            Some(lines),
            resolved,
            requested,
        )?;
        let window = &result.window;
        let shown_whole = window
            .lines_returned
            .saturating_sub(u64::from(window.next_column.is_some()));
        attempts += 1;
        if window.next_offset.is_none()
            || shown_whole == 0
            || shown_whole >= lines
            || attempts >= TAIL_ATTEMPTS
        {
            return Ok(declare_tail_cut(result, tail, &config.budget));
        }
        lines = shown_whole;
    }
}

/// A tail window that shows fewer lines than asked while the file has more lines before it left them out: it is
/// truncated (`limit` when the limit or max-lines capped the tail, `budget` when the budget held fewer), and the
/// hint says how many of the lines asked for are shown and why, before its pointer to the lines before them.
fn declare_tail_cut(mut result: ReadResult, tail: &TailRequest, budget: &Budget) -> ReadResult {
    let window = &mut result.window;
    if window.lines_returned == 0 || window.start_line <= 1 || window.lines_returned >= tail.asked {
        return result;
    }
    let mut causes = Vec::new();
    if tail.lines < tail.asked {
        window
            .truncated_by
            .retain(|reason| *reason != Truncation::Limit);
        window.truncated_by.push(Truncation::Limit);
        causes.push(tail.capped_by.clone());
    }
    if window.lines_returned < tail.lines {
        if !window.truncated_by.contains(&Truncation::Budget) {
            window.truncated_by.push(Truncation::Budget);
        }
        causes.push(match *budget {
            Budget::Characters(limit) => {
                format!("the {limit}-character budget holds no more")
            }
            Budget::Tokens { cap, .. } => format!("the {cap}-token budget holds no more"),
        });
    }
    let shown = window.lines_returned;
    let verb = if shown == 1 { "is" } else { "are" };
    let clause = format!(
        " You asked for the last {}; {shown} {verb} shown ({}).",
        crate::prose::line_count(tail.asked),
        causes.join("; ")
    );
    // The clause goes right after the first sentence (lines shown, the end of the file), else at the end.
    const END: &str = ": the end of the file.";
    let at = result
        .hint
        .find(END)
        .map_or(result.hint.len(), |at| at + END.len());
    result.hint.insert_str(at, &clause);
    result
}

/// Tail reads that do not fit the budget are tried again with fewer lines at most this many times.
const TAIL_ATTEMPTS: u32 = 8;

/// The result of reading the window `request` of an opened file; `tail` is the count of a tail read (for the
/// hint's pointer to the lines before it).
fn window_result_at<File: ByteSource>(
    opened: &mut Opened<File>,
    config: &Config,
    settings: &WindowSettings,
    request: &WindowRequest,
    tail: Option<u64>,
    resolved: &Resolved,
    requested: &str,
) -> Result<ReadResult, ReadError> {
    let settings = *settings;
    // The checkpoint the window starts from must still sit after the same bytes; if not, the file changed
    // under an unchanged size and modification time: index it again.
    if let Some((start, offset, print)) = opened.index.checkpoint_region(request.offset) {
        let found = region_print(&mut opened.scanner, start, offset)
            .map_err(|error| error.into_read_error(requested))?;
        if found != print {
            opened.index = build_index(&mut opened.scanner, resolved, requested)?;
        }
    }
    let mut window = read_window(
        &mut opened.scanner,
        &mut opened.index,
        request,
        &settings,
        requested,
    )?;
    // A window that would show any line of a private key block is refused, wherever the key is in the file.
    if window.lines_returned > 0 {
        opened.index.key_blocks().check_window(
            &resolved.path,
            window.start_line,
            window.end_line,
            window.total_lines,
        )?;
    }
    // A window that stops right before a key continues past it: the key is withheld, not a page to read.
    let withheld = match (window.next_offset, window.next_column) {
        (Some(next), None) => opened
            .index
            .key_blocks()
            .withheld_run(next, window.total_lines)
            .map(|(first, last, what)| Withheld { first, last, what }),
        _ => None,
    };
    if let Some(withheld) = &withheld {
        window.next_offset = (withheld.last < window.total_lines).then_some(withheld.last + 1);
    }
    let budget = BudgetReport::of(&config.budget, window.budget_limit, window.budget_used);
    let encoding = EncodingFacts {
        encoding: opened.index.encoding(),
        bom: opened.index.data_start() > 0,
        origin: if opened.index.data_start() > 0 {
            EncodingOrigin::Declared
        } else {
            EncodingOrigin::Detected
        },
        line_endings: opened.index.line_endings(),
        replaced_invalid: window.replaced_invalid,
        runner_up: opened.index.runner_up,
    };
    let mut hint = hint_past_key(
        &resolved.path,
        &window,
        &config.budget,
        resolved.stat.size,
        withheld.as_ref(),
    );
    if let Some(tail) = tail {
        hint.push_str(&tail_clause(&window, tail));
    }
    hint.push_str(&encoding_clause(&encoding));
    Ok(ReadResult {
        hint,
        path: resolved.path.clone(),
        file_size: resolved.stat.size,
        encoding,
        budget,
        warnings: Vec::new(),
        document: None,
        window,
    })
}

/// The hint's pointer from a tail window to the lines before it (` The N lines before them are read with
/// offset=A limit=N.`); empty when the window starts at line 1.
fn tail_clause(window: &Window, tail: u64) -> String {
    if window.start_line <= 1 || window.lines_returned == 0 {
        return String::new();
    }
    let before = window.start_line - 1;
    let count = before.min(tail.max(1));
    let offset = window.start_line - count;
    let them = if window.lines_returned == 1 {
        "it"
    } else {
        "them"
    };
    if count == 1 {
        format!(" The line before {them} is read with offset={offset} limit=1.")
    } else {
        format!(" The {count} lines before {them} are read with offset={offset} limit={count}.")
    }
}

/// The hint's clause for a file decoded from a legacy encoding (` Decoded from windows-1252 (detected from its
/// content): write changes back in windows-1252.`); empty for UTF-8, UTF-16 and UTF-32.
///
/// When the encoding was a guess between single-byte encodings that read the file differently, the clause says so
/// and names the runner-up (` Decoded from iso-8859-15 (detected from its content, a guess: could also be
/// windows-1252): write changes back in iso-8859-15.`).
fn encoding_clause(encoding: &EncodingFacts) -> String {
    match encoding.encoding {
        TextEncoding::Legacy(_) => {
            let name = encoding.encoding.name();
            let guess = match encoding.runner_up {
                Some(other) => format!(
                    ", a guess: could also be {}",
                    crate::decode::legacy_label(other)
                ),
                None => String::new(),
            };
            format!(
                " Decoded from {name} (detected from its content{guess}): write changes back in {name}."
            )
        }
        _ => String::new(),
    }
}

/// Resolves and guards a request's path; on a missing path, the error and whether it is cacheable.
///
/// The credential rules see every name on the way: the paths the host passed before it rewrote the request
/// (`asked_via`), the path asked for, each link the walk followed and the file reached.
fn resolve_guarded<F: FileSystem + ?Sized>(
    fs: &mut F,
    policy: &CredentialPolicy,
    request: &ReadRequest,
    absolute: &str,
) -> Result<Resolved, ResolveError> {
    let requested = request.path.as_str();
    check_device_name(absolute).map_err(ResolveError::Other)?;
    let roots = fs.roots().to_vec();
    if find_root(&roots, absolute).is_none() {
        return Err(ResolveError::Other(outside_error(
            requested, absolute, &roots,
        )));
    }
    for passed in &request.asked_via {
        // The refusal names the path the caller asked through, not the one the host rewrote it to.
        policy
            .check(passed)
            .map_err(|refusal| ResolveError::Other(refusal.at_path(passed)))?;
    }
    let resolved = resolve(fs, requested, absolute)?;
    check_device_name(&resolved.path).map_err(ResolveError::Other)?;
    policy.check(absolute).map_err(ResolveError::Other)?;
    for link in resolved
        .links
        .iter()
        .filter(|link| link.as_str() != absolute)
    {
        policy.check(link).map_err(ResolveError::Other)?;
    }
    if resolved.path != absolute {
        policy.check(&resolved.path).map_err(ResolveError::Other)?;
    }
    check_kind(fs, &resolved, requested).map_err(ResolveError::Other)?;
    Ok(resolved)
}

/// An empty window for `/dev/null`.
fn empty_result(config: &Config, resolved: &Resolved) -> ReadResult {
    let window = Window {
        content: String::new(),
        start_line: 1,
        start_column: 0,
        end_line: 0,
        lines_returned: 0,
        total_lines: 0,
        truncated_by: Vec::new(),
        next_offset: None,
        next_column: None,
        clamped_lines: Vec::new(),
        budget_limit: config.budget.limit(),
        budget_used: 0,
        estimated_tokens: None,
        replaced_invalid: 0,
    };
    ReadResult {
        hint: hint(&resolved.path, &window, &config.budget, 0),
        path: resolved.path.clone(),
        file_size: 0,
        encoding: EncodingFacts {
            encoding: TextEncoding::Utf8,
            bom: false,
            origin: EncodingOrigin::Detected,
            line_endings: LineEndings::None,
            replaced_invalid: 0,
            runner_up: None,
        },
        budget: BudgetReport::of(&config.budget, config.budget.limit(), 0),
        warnings: Vec::new(),
        document: None,
        window,
    }
}

/// Reads one window with no session memory: no stubs, no tripwire, no index kept.
///
/// Errors: every `ErrorKind` but `LoopBlocked` and `EchoedOutput`. Config warnings come with the result.
pub fn read_once<F: FileSystem + ?Sized>(
    config: ConfigInput,
    fs: &mut F,
    request: &ReadRequest,
) -> Result<ReadResult, ReadError> {
    crate::beneath::retried_on_change(fs, |fs| read_once_as_asked(config.clone(), fs, request))
        .map_err(|error| raw_bytes_error(error, request))
}

/// A `binary` refusal of a read with `extract` false says what that asked for: the file's own bytes, which are
/// not text, so the model drops `extract` to read the text extracted from the document (the refusal written for
/// a read without `extract` speaks of extraction as if it were not available). Any other error as it is.
fn raw_bytes_error(error: ReadError, request: &ReadRequest) -> ReadError {
    if request.extract != Some(false) || error.kind != ErrorKind::Binary {
        return error;
    }
    let path = error.path.clone().unwrap_or_else(|| request.path.clone());
    let shown = crate::prose::path_in_prose(&path);
    ReadError {
        message: format!(
            "{shown} is binary: extract=false asks for the file's own bytes, and they are not text. Leave extract out (it defaults to true) to read the text read-window extracts from a document (notebooks, Word, Excel, PowerPoint, OpenDocument, EPUB and PDF files)."
        ),
        ..error
    }
}

/// [`read_once`] without the rewording of [`raw_bytes_error`].
fn read_once_as_asked<F: FileSystem + ?Sized>(
    config: ConfigInput,
    fs: &mut F,
    request: &ReadRequest,
) -> Result<ReadResult, ReadError> {
    let (config, warnings) = Config::resolve(config);
    let policy = CredentialPolicy::new(&config.deny_patterns, &config.allow_patterns);
    let prepared = prepare(&config, fs, request)?;
    let resolved = match resolve_guarded(fs, &policy, request, &prepared.absolute) {
        Ok(resolved) => resolved,
        Err(ResolveError::NotFound(missing)) => {
            return Err(
                not_found_error(fs, &request.path, &prepared.absolute, &missing)
                    .at_path(&prepared.absolute),
            )
        }
        Err(ResolveError::Other(error)) => return Err(error.at_path(&prepared.absolute)),
    };
    let mut result = if resolved.stat.kind == FileKind::CharacterDevice {
        empty_result(&config, &resolved)
    } else {
        let mut opened = open_and_index(
            fs,
            &resolved,
            &request.path,
            None,
            &mut DocumentCache::new(),
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
    result
        .warnings
        .extend(tilde_note(&request.path, &result.path));
    Ok(result)
}

impl Reader {
    /// A session with `config`; invalid values are replaced by defaults and reported once, with the first result.
    pub fn new(config: ConfigInput) -> Reader {
        let (config, pending_warnings) = Config::resolve(config);
        let policy = CredentialPolicy::new(&config.deny_patterns, &config.allow_patterns);
        Reader {
            config,
            policy,
            memory: SessionMemory::new(),
            pending_warnings,
            returned: ReturnedLines::new(),
            versions: FileVersions::new(),
            legacy: LegacyFiles::new(),
            documents: DocumentCache::new(),
        }
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
        let outcome = crate::beneath::retried_on_change(fs, |fs| {
            self.read_through_memory(fs, request, now_ms)
        })
        .map_err(|error| raw_bytes_error(error, request));
        if let Err(error) = &outcome {
            // A failed read is a read of something else: the run of repeated reads is broken.
            if error.kind != ErrorKind::LoopBlocked {
                self.memory.break_run();
            }
        }
        outcome
    }

    fn read_through_memory<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        request: &ReadRequest,
        now_ms: u64,
    ) -> Result<ReadOutcome, ReadError> {
        let prepared = prepare(&self.config, fs, request)?;
        let requested = request.path.as_str();
        // A missing path is checked again on every read: the memory of misses only counts them.
        let resolved = match resolve_guarded(fs, &self.policy, request, &prepared.absolute) {
            Ok(resolved) => resolved,
            Err(ResolveError::NotFound(missing)) => {
                let count = self.memory.count_miss(
                    &prepared.absolute,
                    now_ms,
                    self.config.not_found_ttl_ms,
                );
                return Err(missing_error(
                    fs,
                    &self.config,
                    requested,
                    &prepared.absolute,
                    &missing,
                    count,
                )
                .at_path(&prepared.absolute));
            }
            Err(ResolveError::Other(error)) => return Err(error.at_path(&prepared.absolute)),
        };
        self.memory.found(&prepared.absolute);
        self.memory
            .remember_alias(&prepared.absolute, &resolved.path);
        let mut change = None;
        let mut result = if resolved.stat.kind == FileKind::CharacterDevice {
            empty_result(&self.config, &resolved)
        } else {
            let cached = self.memory.take_file(&resolved.path);
            let mut opened = open_and_index(
                fs,
                &resolved,
                requested,
                cached,
                &mut self.documents,
                request.extract != Some(false),
            )
            .map_err(|error| error.at_path(&resolved.path))?;
            let density = self.memory.density(&resolved.path);
            let outcome = window_result(
                &mut opened,
                &self.config,
                density,
                &prepared.request,
                prepared.tail.as_ref(),
                &resolved,
                requested,
            );
            let seen = version_change(&self.versions, &resolved.path, &mut opened);
            // Told of a change, the model drops what it had of the file: no stub may stand for a stale window.
            if let Some(through) = seen.unchanged_through {
                self.memory.file_changed(&resolved.path, through);
            }
            self.memory.positioned_reads += opened.scanner.reads();
            self.memory.store_file(&resolved.path, opened.index);
            match outcome {
                Ok(mut result) => {
                    change = Some((seen.version, seen.notice));
                    attach_document(&mut result, opened.document.as_deref());
                    result
                }
                Err(error) => {
                    let error = changed_error(error, &seen, prepared.request.offset, requested);
                    return Err(error.at_path(&resolved.path));
                }
            }
        };
        // The key is the window as returned, not as asked: two requests that return the same lines (a limit past
        // the end of the file, a budget that stops both at line 52) are the same read.
        let key = DedupKey {
            path: resolved.path.clone(),
            request: WindowRequest {
                offset: result.window.start_line,
                column: result.window.start_column,
                limit: result.window.lines_returned,
            },
            shape: shape_of(&self.config),
        };
        let window = &result.window;
        let shown = crate::prose::path_in_prose(&resolved.path);
        let outcome = match self.memory.decide(&key, window_hash(window), &self.config) {
            Decision::Blocked { count, cycle } => Err(ReadError::new(
                ErrorKind::LoopBlocked,
                if cycle > 1 {
                    format!(
                        "{MARKER_PREFIX}loop-blocked] You have read {} of {} {count} times in a cycle of {cycle} unchanged windows read over and over. Stop re-reading them: use the content you already have, read a range you have not read, or change the file first.",
                        crate::prose::line_span(window.start_line, window.end_line), shown
                    )
                } else {
                    format!(
                        "{MARKER_PREFIX}loop-blocked] You have read {} of {} {count} times in a row and {} not changed. Stop re-reading {}: use the content you already have, read a different range, or change the file first.",
                        crate::prose::line_span(window.start_line, window.end_line), shown,
                        if window.start_line == window.end_line { "it has" } else { "they have" },
                        if window.start_line == window.end_line { "it" } else { "them" }
                    )
                },
            )
            .with_count(count)
            .at_path(&resolved.path)),
            Decision::Stub => Ok(ReadOutcome::Unchanged(stub_of(window, &resolved.path))),
            Decision::Content { warning } => {
                if let Some(tokens) = window.estimated_tokens {
                    self.memory.remember_sent(
                        &resolved.path,
                        window.start_line,
                        window.lines_returned,
                        tokens,
                    );
                }
                result.warnings = std::mem::take(&mut self.pending_warnings);
                result.warnings.extend(warning);
                result
                    .warnings
                    .extend(tilde_note(requested, &result.path));
                // A document without a text layer on some pages says so on every window of it.
                result
                    .warnings
                    .extend(result.document.as_ref().and_then(|facts| facts.warning.clone()));
                Ok(ReadOutcome::Window(result))
            }
        };
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

    /// The host wrote `path`: forget its dedup entries, its count of misses and its index.
    pub fn wrote<F: FileSystem + ?Sized>(&mut self, fs: &F, path: &str) {
        let absolute = normalize(path, &working_directory(&self.config, fs));
        self.memory.wrote(&absolute);
        let resolved = self
            .memory
            .alias(&absolute)
            .unwrap_or_else(|| absolute.clone());
        self.documents.forget(&absolute);
        self.documents.forget(&resolved);
    }

    /// Checks text the model wants written to `path` (`EchoedOutput` when refused). `BinaryDocument`: `path` is an
    /// existing binary document (a zip or OLE container, a PDF), or a Jupyter notebook and the text is not notebook
    /// JSON (the text the model holds of either is an extraction). Refused: text holding two or
    /// more consecutive lines equal to `N|line` lines this session returned (of any file, anywhere in the text,
    /// whatever is around them; the message names the lines of the text); text holding output of this component
    /// (a stub, a block message, a warning, a clamp or budget marker: all start with `MARKER_PREFIX`); and text
    /// holding U+FFFD for a file whose read in this session replaced invalid bytes with it (the message names the
    /// line of the text). Numbered text this session never returned is accepted. `Unencodable`: text for a file
    /// this session read in a legacy encoding that holds a character that encoding cannot encode (the message
    /// names the first one, its line and column); text that passes must be written back in that encoding.
    pub fn check_write<F: FileSystem + ?Sized>(
        &self,
        fs: &mut F,
        path: &str,
        text: &str,
    ) -> Result<(), ReadError> {
        if let Some(what) = binary_container(fs, &working_directory(&self.config, fs), path) {
            return Err(ReadError::new(
                ErrorKind::BinaryDocument,
                format!(
                    "{path} is {what}, not a text file: any text you hold of it is an extraction (what read-window shows of it), and writing it over the file would destroy the document. Leave {path} as it is: write the text to a new file (for example a .md or .txt beside it), or change the document with a tool made for its format (python-docx, openpyxl, python-pptx, a PDF editor)."
                ),
            )
            .at_path(path));
        }
        // The text parsed once as notebook JSON: for the notebook guard here and the cells' echo check below.
        let cell_sources = document::notebook_cell_sources(text.as_bytes());
        if let Some(size) = existing_notebook(fs, &working_directory(&self.config, fs), path) {
            if cell_sources.is_none() {
                return Err(ReadError::new(
                    ErrorKind::BinaryDocument,
                    format!(
                        "{path} is a Jupyter notebook ({size} bytes of JSON) and the text for it is not notebook JSON: what read-window showed you of it (`# [cell N]` headers, outputs) is an extraction, and writing it would replace the notebook's cells, outputs and metadata. To change the notebook, read its JSON with extract=false and write back the whole JSON with your edit, or edit it with a notebook tool (nbformat, jupytext, jq)."
                    ),
                )
                .at_path(path));
            }
        }
        if let Some(run) = self.returned.echoed_run(text) {
            return Err(ReadError::new(
                ErrorKind::EchoedOutput,
                format!(
                    "Lines {}-{} of the text for {path} are lines this session returned with their `N|` line numbers (the first is `{}`); writing them would put the gutters into the file. Write the lines without the `N|` prefixes.",
                    run.first, run.last, run.quote
                ),
            ));
        }
        // Notebook JSON keeps each cell's lines inside JSON strings, where no line starts with a gutter: the
        // lines of each cell's source are checked as they would be written to the cell.
        for (index, source) in cell_sources.iter().flatten().enumerate() {
            if let Some(run) = self.returned.echoed_run(source) {
                return Err(ReadError::new(
                    ErrorKind::EchoedOutput,
                    format!(
                        "Lines {}-{} of cell {} in the notebook JSON for {path} are lines this session returned with their `N|` line numbers (the first is `{}`); writing them would put the gutters into the cell. Write the cell's source without the `N|` prefixes.",
                        run.first,
                        run.last,
                        index + 1,
                        run.quote
                    ),
                ));
            }
        }
        if contains_component_output(text) {
            return Err(ReadError::new(
                ErrorKind::EchoedOutput,
                format!(
                    "The text for {path} contains `{MARKER_PREFIX}...]`: a stub, a block message or a clamp marker of the read tool, not file content. Read the file again for its real content and write that."
                ),
            ));
        }
        // Resolved as a read resolves it (links followed), so a link to a file read, or the file under a linked
        // directory, is checked against what this session knows of that file; a path that does not resolve (a
        // new file) is taken as asked.
        let absolute = normalize(path, &working_directory(&self.config, fs));
        let resolved = match crate::sandbox::resolve(fs, path, &absolute) {
            Ok(resolved) => resolved.path,
            Err(_) => self.resolved_alias(fs, path),
        };
        if self.returned.is_lossy(&resolved) {
            if let Some(line) = replacement_line(text) {
                return Err(ReadError::new(
                    ErrorKind::EchoedOutput,
                    format!(
                        "Line {line} of the text for {path} holds U+FFFD, the replacement character: this session's read of {resolved} replaced bytes that are not valid text with it, so this text is the damaged decode, and writing it would replace the file's original bytes for good. Change only the lines you mean with a tool that keeps the other bytes as they are (a byte-level edit or sed on those lines), or convert the file to UTF-8 first (iconv -f ITS-ENCODING -t UTF-8) and read it again."
                    ),
                ));
            }
        }
        if let Some((encoding, runner_up)) = self.legacy.encoding_of(&resolved) {
            if let Some(found) = first_unencodable(text, encoding) {
                let name = encoding.name();
                let Unencodable {
                    character,
                    line,
                    column,
                    becomes,
                } = found;
                let code = u32::from(character);
                let what = match becomes {
                    None => format!("which {name} cannot encode"),
                    Some(back) => format!(
                        "which {name} cannot hold: it would be written as the bytes of `{back}` and read back as `{back}`"
                    ),
                };
                let guess = match runner_up {
                    Some(other) => format!(
                        " ({name} is a guess from the file's content: it could also be {}, so check which before converting)",
                        crate::decode::legacy_label(other)
                    ),
                    None => String::new(),
                };
                return Err(ReadError::new(
                    ErrorKind::Unencodable,
                    format!(
                        "Line {line} of the text for {path} holds U+{code:04X} `{character}` (column {column}), {what}: this session read {resolved} as {name}{guess}, so the text must be written back encoded in {name}, and this character would be lost or changed, or the file would mix two encodings. Use a character {name} has, or convert the file to UTF-8 first (iconv -f {name} -t UTF-8) and read it again."
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The host reports the real token count of a window it received; later windows of the file use the
    /// learned density. Errors: `InvalidRequest` when no such token-mode window was returned in this session.
    pub fn report_tokens<F: FileSystem + ?Sized>(
        &mut self,
        fs: &F,
        path: &str,
        offset: u64,
        lines: u64,
        tokens: u64,
    ) -> Result<(), ReadError> {
        if tokens == 0 {
            return Err(ReadError::invalid(
                "tokens 0 is not a count of a window; report the engine's count.",
            ));
        }
        let resolved = self.resolved_alias(fs, path);
        match self.memory.sent_estimate(&resolved, offset, lines) {
            Some(estimate) => {
                self.memory.record_density(&resolved, tokens, estimate);
                Ok(())
            }
            None => Err(ReadError::invalid(format!(
                "no token-budget window of {path} starting at line {offset} with {lines} lines was returned in this session; report the start_line and lines_returned of a result you received."
            ))),
        }
    }

    /// Parses an engine refusal ("(N tokens) exceeds maximum allowed tokens (M)") of the window `offset`/`limit`,
    /// records the file's density, and answers the window that fits: `limit` scaled by 80% of M over N, at most
    /// half of `limit` (the rule of the read-ceiling-chunk hook).
    pub fn token_refusal<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        path: &str,
        offset: u64,
        limit: u64,
        message: &str,
    ) -> Result<RetryWindow, ReadError> {
        let Some((refused, cap)) = parse_refusal(message) else {
            return Err(ReadError::invalid(
                "the message does not have the form \"(N tokens) exceeds maximum allowed tokens (M)\"; pass the engine's refusal text.",
            ));
        };
        if refused == 0 || cap == 0 || limit == 0 {
            return Err(ReadError::invalid(
                "the refusal's counts and the window's limit must be above 0.",
            ));
        }
        let offset = offset.max(1);
        let scaled = ((limit as f64) * 0.8 * (cap as f64) / (refused as f64)).floor() as u64;
        let fitting = scaled.min(limit / 2).max(1);
        let request = ReadRequest {
            path: path.to_string(),
            ..ReadRequest::default()
        };
        let prepared = prepare(&self.config, fs, &request)?;
        if let Ok(resolved) = resolve_guarded(fs, &self.policy, &request, &prepared.absolute) {
            if resolved.stat.kind == FileKind::Regular {
                if let Ok(estimate) = self.estimate_lines(fs, &resolved, path, offset, limit) {
                    if estimate > 0 {
                        self.memory
                            .record_density(&resolved.path, refused, estimate);
                    }
                }
            }
        }
        Ok(RetryWindow {
            offset,
            limit: fitting,
            refused_tokens: refused,
            cap_tokens: cap,
            hint: format!(
                "The engine refused {limit} lines of {path} from line {offset} ({refused} tokens over the {cap}-token cap). Read offset={offset} limit={fitting} instead."
            ),
        })
    }

    /// Estimated tokens of `limit` whole lines from `offset`, as an engine that counts long lines whole sees them.
    fn estimate_lines<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        resolved: &Resolved,
        requested: &str,
        offset: u64,
        limit: u64,
    ) -> Result<u64, ReadError> {
        let cached = self.memory.take_file(&resolved.path);
        let mut opened =
            open_and_index(fs, resolved, requested, cached, &mut self.documents, true)?;
        let io = |error: crate::error::FsError| error.into_read_error(requested);
        let estimate = {
            let scanner = &mut opened.scanner;
            let (checkpoint_line, checkpoint_offset) = opened.index.locate(offset);
            scanner.seek(checkpoint_offset);
            scanner
                .skip_lines(offset.saturating_sub(checkpoint_line))
                .map_err(io)?;
            let mut decoder = Decoder::new(opened.index.encoding());
            let mut total = 0u64;
            let last = offset
                .saturating_add(limit)
                .min(opened.index.total_lines().saturating_add(1));
            for line in offset..last {
                let mut estimator = TokenEstimator::new();
                scanner
                    .read_line(&mut |bytes| {
                        decoder.feed(bytes, &mut |piece| estimator.push_str(piece))
                    })
                    .map_err(io)?;
                decoder.finish(&mut |piece| estimator.push_str(piece));
                total += gutter_tokens(line) + estimator.tokens() + 1;
            }
            total
        };
        self.memory.positioned_reads += opened.scanner.reads();
        self.memory.store_file(&resolved.path, opened.index);
        Ok(estimate)
    }

    fn resolved_alias<F: FileSystem + ?Sized>(&self, fs: &F, path: &str) -> String {
        let absolute = normalize(path, &working_directory(&self.config, fs));
        self.memory.alias(&absolute).unwrap_or(absolute)
    }

    /// Counters of this session.
    pub fn stats(&self) -> SessionStats {
        SessionStats {
            positioned_reads: self.memory.positioned_reads,
            indexed_files: u32::try_from(self.memory.indexed_files()).unwrap_or(u32::MAX),
            index_bytes: self.memory.index_bytes(),
        }
    }
}

/// Files up to this size whose index was rebuilt are read again from the start to tell an append from a rewrite
/// (past the line prints); larger ones are told by their kept index, or not at all.
const PREFIX_RECHECK_BYTES: u64 = 1024 * 1024;

/// What a read learned of a file against this session's previous read of it.
struct VersionChange {
    /// The version the read saw.
    version: FileVersion,
    /// The change notice (`None` on the first read or when the content is the same).
    notice: Option<String>,
    /// With a notice: the lines (1..=N) it leaves as they were
    /// ([`crate::returned::Change::unchanged_through`]).
    unchanged_through: Option<u64>,
    /// The line count at the previous read (`None` on the first read).
    previous_lines: Option<u64>,
}

/// The version of the file `opened` describes, and the change against `path`'s version at this session's
/// previous read.
fn version_change<File: ByteSource>(
    versions: &FileVersions,
    path: &str,
    opened: &mut Opened<File>,
) -> VersionChange {
    let new = FileVersion::of(&opened.index);
    let Some(old) = versions.previous(path) else {
        return VersionChange {
            version: new,
            notice: None,
            unchanged_through: None,
            previous_lines: None,
        };
    };
    // The print of the old part of a grown file: from the kept index when it was extended from the old end, else
    // read again when it is small.
    let old_prefix = if new.size > old.size && new.print != old.print {
        match opened.index.grown_from() {
            Some((end, print)) if end == old.size => Some(print),
            _ if old.size <= PREFIX_RECHECK_BYTES => print_prefix(
                &mut opened.scanner,
                opened.index.encoding(),
                opened.index.data_start(),
                old.size,
            )
            .ok(),
            _ => None,
        }
    } else {
        None
    };
    let change = compare(old, &new, old_prefix);
    let previous_lines = Some(old.total_lines);
    let notice = change_notice(path, change);
    VersionChange {
        version: new,
        unchanged_through: notice.as_ref().and(change.unchanged_through()),
        notice,
        previous_lines,
    }
}

/// A window refused as past the end (`invalid-request` with the file's line count) of a file that changed since
/// this session's previous read of it: the error names the change instead of blaming the request. An `offset` past
/// the end of a file that shrank says so first ("offset 729 is past the end of del.txt: the file shrank from 728
/// lines to 1 line since your previous read of it in this session. Use an offset from 1 to 1, and read again what
/// you rely on."); any such error then carries the change notice. It stays `invalid-request` (the request cannot
/// be served as asked), with `total-lines` the new count. Other errors, and files that did not change, are left
/// as they are.
fn changed_error(error: ReadError, seen: &VersionChange, offset: u64, path: &str) -> ReadError {
    let path = crate::prose::path_in_prose(path);
    let (Some(notice), Some(total)) = (&seen.notice, error.total_lines) else {
        return error;
    };
    if error.kind != ErrorKind::InvalidRequest {
        return error;
    }
    let message = match seen.previous_lines {
        Some(was) if offset > total && total < was => {
            let what_now = if total == 0 {
                "It is empty now: there is nothing left to read.".to_string()
            } else {
                format!("Use an offset from 1 to {total}, and read again what you rely on.")
            };
            format!(
                "offset {offset} is past the end of {path}: the file shrank from {} to {} since your previous read of it in this session. {what_now} {notice}",
                line_count(was),
                line_count(total)
            )
        }
        _ => format!("{} {notice}", error.message),
    };
    ReadError { message, ..error }
}

impl Reader {
    /// What a read leaves in the session besides dedup and the tripwire: the file's version (with the change
    /// notice on the result, or appended to a stub's message), and the gutter lines and lossy reads it returned.
    /// A failed or blocked read leaves nothing.
    fn after_read(
        &mut self,
        path: &str,
        change: Option<(FileVersion, Option<String>)>,
        mut outcome: Result<ReadOutcome, ReadError>,
    ) -> Result<ReadOutcome, ReadError> {
        let Ok(answer) = &mut outcome else {
            return outcome;
        };
        if let Some((version, notice)) = change {
            self.versions.store(path, version);
            if let Some(notice) = notice {
                match answer {
                    ReadOutcome::Window(result) => result.warnings.push(notice),
                    ReadOutcome::Unchanged(stub) => {
                        stub.message.push(' ');
                        stub.message.push_str(&notice);
                    }
                }
            }
        }
        if let ReadOutcome::Window(result) = answer {
            self.legacy
                .note(path, result.encoding.encoding, result.encoding.runner_up);
            self.returned.remember(&result.window.content);
            if result.window.replaced_invalid > 0 {
                self.returned.remember_lossy(path);
            }
        }
        outcome
    }
}

#[cfg(test)]
mod stub_and_miss_tests {
    use std::path::PathBuf;

    use super::*;
    use crate::native_fs::NativeFileSystem;

    fn setup() -> (tempfile::TempDir, NativeFileSystem) {
        let directory = tempfile::tempdir().unwrap();
        let fs = NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]);
        (directory, fs)
    }

    fn request(path: &str, offset: u64, limit: Option<u64>, column: Option<u64>) -> ReadRequest {
        ReadRequest {
            path: path.to_string(),
            offset: Some(offset),
            limit,
            column,
            tail: None,
            extract: None,
            asked_via: Vec::new(),
        }
    }

    fn stub(outcome: Result<ReadOutcome, ReadError>) -> UnchangedStub {
        match outcome {
            Ok(ReadOutcome::Unchanged(stub)) => stub,
            other => panic!("not a stub: {other:?}"),
        }
    }

    #[test]
    fn a_stub_carries_the_cursor_of_the_window_it_stands_for() {
        let (directory, mut fs) = setup();
        std::fs::write(directory.path().join("a.txt"), "1\n2\n3\n4\n5\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        let page = request("a.txt", 1, Some(2), None);
        assert!(matches!(
            reader.read(&mut fs, &page, 0),
            Ok(ReadOutcome::Window(_))
        ));
        let first = stub(reader.read(&mut fs, &page, 0));
        assert_eq!(
            (first.start_line, first.end_line, first.total_lines),
            (1, 2, 5)
        );
        assert_eq!((first.next_offset, first.next_column), (Some(3), None));
        assert_eq!(
            first.message,
            "[read-window: unchanged] Lines 1-2 of 5 in /w/a.txt have not changed since you read them earlier in this session; that result is still current, so it is not sent again. Use offset=3 to continue."
        );
        let last = request("a.txt", 5, None, None);
        reader.read(&mut fs, &last, 0).unwrap();
        let last = stub(reader.read(&mut fs, &last, 0));
        assert_eq!((last.next_offset, last.next_column), (None, None));
        assert_eq!(
            last.message,
            "[read-window: unchanged] Line 5 of 5 in /w/a.txt has not changed since you read it earlier in this session; that result is still current, so it is not sent again. Nothing after line 5 is left to read."
        );
    }

    #[test]
    fn a_stub_inside_a_long_line_names_the_column_and_the_clamped_rest() {
        let (directory, mut fs) = setup();
        let long = "x".repeat(100);
        std::fs::write(
            directory.path().join("long.txt"),
            format!("{long}\n{long}\nend\n"),
        )
        .unwrap();
        let mut reader = Reader::new(ConfigInput {
            max_line_chars: Some(40),
            ..ConfigInput::default()
        });
        let whole = request("long.txt", 1, None, None);
        reader.read(&mut fs, &whole, 0).unwrap();
        let clamped = stub(reader.read(&mut fs, &whole, 0));
        assert_eq!(clamped.next_offset, None);
        assert_eq!(
            clamped.message,
            "[read-window: unchanged] Lines 1-3 of 3 in /w/long.txt have not changed since you read them earlier in this session; that result is still current, so it is not sent again. Nothing after line 3 is left, but clamped text inside the window is: 2 lines were clamped; read their rest with offset=1 column=40, offset=2 column=40."
        );
        let tail = request("long.txt", 2, Some(1), Some(60));
        reader.read(&mut fs, &tail, 0).unwrap();
        let tail = stub(reader.read(&mut fs, &tail, 0));
        assert_eq!((tail.next_offset, tail.next_column), (Some(3), None));
        assert_eq!(
            tail.message,
            "[read-window: unchanged] Line 2 (line 2 from column 60) of 3 in /w/long.txt has not changed since you read it earlier in this session; that result is still current, so it is not sent again. Use offset=3 to continue."
        );
    }

    #[test]
    fn a_missing_path_is_checked_on_every_read_and_its_misses_are_counted() {
        let (directory, mut fs) = setup();
        std::fs::write(directory.path().join("notes.txt"), "n\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        let missing = request("notez.txt", 1, None, None);
        let messages: Vec<(ErrorKind, String, Option<u32>)> = (0..4)
            .map(|at| match reader.read(&mut fs, &missing, at * 1_000) {
                Err(error) => (error.kind, error.message, error.already_read),
                Ok(other) => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            messages[0],
            (
                ErrorKind::NotFound,
                "notez.txt (resolved to /w/notez.txt) does not exist. Similar names in /w: notes.txt.".to_string(),
                None
            )
        );
        assert_eq!(messages[1].1, "notez.txt (resolved to /w/notez.txt) still does not exist: you asked for this missing file 2 times in this session, and it was checked again just now. Similar names in /w: notes.txt.");
        assert_eq!(messages[2].1, "notez.txt (resolved to /w/notez.txt) still does not exist: you asked for this missing file 3 times in this session, and it was checked again just now. Similar names in /w: notes.txt. Asking again will not make it appear: ask 4 will be blocked. Find the right path with a directory listing, or create the file first.");
        assert_eq!(messages[3].0, ErrorKind::LoopBlocked);
        assert_eq!(messages[3].2, Some(4));
        // Created now: read at once, with no note from the host.
        std::fs::write(directory.path().join("notez.txt"), "here\n").unwrap();
        match reader.read(&mut fs, &missing, 5_000) {
            Ok(ReadOutcome::Window(result)) => assert_eq!(result.window.content, "1|here\n"),
            other => panic!("{other:?}"),
        }
        // Gone again: the count started over when it was found.
        std::fs::remove_file(directory.path().join("notez.txt")).unwrap();
        let again = reader.read(&mut fs, &missing, 6_000).unwrap_err();
        assert_eq!(
            again.message,
            "notez.txt (resolved to /w/notez.txt) does not exist. Similar names in /w: notes.txt."
        );
    }
}

#[cfg(test)]
mod returned_and_change_tests {
    use std::path::PathBuf;

    use super::*;
    use crate::native_fs::NativeFileSystem;

    fn setup() -> (tempfile::TempDir, NativeFileSystem) {
        let directory = tempfile::tempdir().unwrap();
        let fs = NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]);
        (directory, fs)
    }

    fn read(
        reader: &mut Reader,
        fs: &mut NativeFileSystem,
        offset: u64,
        limit: u64,
    ) -> ReadOutcome {
        let request = ReadRequest {
            path: "a.txt".to_string(),
            offset: Some(offset),
            limit: Some(limit),
            column: None,
            tail: None,
            extract: None,
            asked_via: Vec::new(),
        };
        reader.read(fs, &request, 0).unwrap()
    }

    fn warnings(outcome: ReadOutcome) -> Vec<String> {
        match outcome {
            ReadOutcome::Window(result) => result.warnings,
            other => panic!("not a window: {other:?}"),
        }
    }

    #[test]
    fn check_write_refuses_returned_windows_anywhere_and_accepts_numbered_data() {
        let (directory, mut fs) = setup();
        let lines: String = (1..=14)
            .map(|n| match n {
                12 => "def foo():\n".to_string(),
                13 => "    return 1\n".to_string(),
                n => format!("line {n}\n"),
            })
            .collect();
        std::fs::write(directory.path().join("a.txt"), lines).unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        read(&mut reader, &mut fs, 12, 2);
        let refused = reader
            .check_write(
                &mut fs,
                "b.py",
                "# header\n12|def foo():\n13|    return 1\n",
            )
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::EchoedOutput);
        assert!(
            refused
                .message
                .starts_with("Lines 2-3 of the text for b.py"),
            "{}",
            refused.message
        );
        assert!(reader
            .check_write(&mut fs, "b.py", "1|Alice|30\n2|Bob|25\n")
            .is_ok());
        assert!(reader
            .check_write(&mut fs, "b.py", "12|def foo():\n")
            .is_ok());
        assert!(reader
            .check_write(&mut fs, "b.py", "def foo():\n    return 1\n")
            .is_ok());
        assert!(reader
            .check_write(&mut fs, "b.py", "[read-window: unchanged] x")
            .is_err());
    }

    #[test]
    fn check_write_refuses_the_damaged_decode_of_a_lossy_read_only() {
        let (directory, mut fs) = setup();
        // UTF-8 with one Latin-1 byte pasted in: it stays UTF-8 (its valid multi-byte characters outnumber the
        // invalid byte), so the byte is replaced.
        let mut bytes = "déjà\n".as_bytes().to_vec();
        bytes.extend_from_slice(b"caf\xe9\n");
        std::fs::write(directory.path().join("a.txt"), bytes).unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        let before = reader.check_write(&mut fs, "a.txt", "ok\ncaf\u{FFFD}\n");
        assert!(before.is_ok());
        read(&mut reader, &mut fs, 1, 10);
        let refused = reader
            .check_write(&mut fs, "/w/a.txt", "ok\ncaf\u{FFFD}\n")
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::EchoedOutput);
        assert!(
            refused
                .message
                .starts_with("Line 2 of the text for /w/a.txt holds U+FFFD"),
            "{}",
            refused.message
        );
        assert!(reader.check_write(&mut fs, "a.txt", "ok\ncafé\n").is_ok());
        assert!(reader
            .check_write(&mut fs, "copy.txt", "ok\ncaf\u{FFFD}\n")
            .is_ok());
    }

    #[test]
    fn a_read_after_a_change_carries_one_notice() {
        let (directory, mut fs) = setup();
        let path = directory.path().join("a.txt");
        std::fs::write(&path, "1\n2\n3\n4\n5\n6\n").unwrap();
        let mut reader = Reader::new(ConfigInput::default());
        assert!(warnings(read(&mut reader, &mut fs, 1, 3)).is_empty());
        std::fs::write(&path, "0\n1\n2\n3\n4\n5\n6\n").unwrap();
        let notice = warnings(read(&mut reader, &mut fs, 4, 3));
        assert_eq!(notice.len(), 1);
        assert!(
            notice[0].contains("the change starts at line 1 (it now has 7 lines)"),
            "{notice:?}"
        );
        // Told once: the next read compares with the version this read saw.
        assert!(warnings(read(&mut reader, &mut fs, 7, 3)).is_empty());
        std::fs::write(&path, "0\n1\n2\n3\n4\n5\n6\n7\n").unwrap();
        let notice = warnings(read(&mut reader, &mut fs, 8, 3));
        assert!(
            notice[0].contains("line 8 was added after line 7. Lines 1-7 are unchanged"),
            "{notice:?}"
        );
        // The same bytes written again are no change; a stub of an unchanged window carries a change elsewhere.
        std::fs::write(&path, "0\n1\n2\n3\n4\n5\n6\n7\n").unwrap();
        assert!(warnings(read(&mut reader, &mut fs, 1, 2)).is_empty());
        std::fs::write(&path, "0\n1\n2\nX\n4\n5\n6\n7\n").unwrap();
        match read(&mut reader, &mut fs, 1, 2) {
            ReadOutcome::Unchanged(stub) => assert!(
                stub.message.contains("[read-window: file changed] /w/a.txt changed since your previous read of it in this session: the first changed line is 4"),
                "{}",
                stub.message
            ),
            other => panic!("not a stub: {other:?}"),
        }
    }
}

#[cfg(test)]
mod document_head_tests {
    use super::*;
    use proptest::prelude::*;

    /// The verdict of the whole first block, as every read made it before the probe.
    fn block_verdict(bytes: &[u8], name: &str) -> Candidate {
        let mut head = Vec::new();
        let _ = MemorySource::new(bytes).read_at(0, BLOCK_BYTES, &mut head);
        document::candidate(&head, name)
    }

    /// The probe's verdict when the file's stat said `size` bytes: its size, or a stale size (the file changed
    /// between its stat and the probe).
    fn probe_verdict(bytes: &[u8], name: &str, size: u64) -> Candidate {
        let mut file = ReadAhead::new(MemorySource::new(bytes));
        let head = document_head(&mut file, size).unwrap_or_default().to_vec();
        document::candidate(&head, name)
    }

    fn sizes(bytes: &[u8]) -> [u64; 6] {
        let size = bytes.len() as u64;
        [size, 0, size / 2, size + 700, BLOCK_BYTES as u64, u64::MAX]
    }

    #[test]
    fn the_head_probe_gives_the_first_blocks_verdict() {
        let late_key = format!("{{\"cells\": [\"{}\"], \"nbformat\": 4}}", "x".repeat(3000));
        let padded = format!("{}{{\"nbformat\": 4}}", " ".repeat(2000));
        let late_pdf = format!("{}%PDF-1.7", "y".repeat(2000));
        let early_pdf = format!("{}%PDF-1.7", "y".repeat(900));
        let cases: [(&[u8], &str); 8] = [
            (late_key.as_bytes(), "a.json"),
            (padded.as_bytes(), "a.json"),
            (late_pdf.as_bytes(), "a.txt"),
            (early_pdf.as_bytes(), "a.txt"),
            (b"PK\x03\x04rest", "a.bin"),
            (b"plain text\n", "a.txt"),
            (b"plain text\n", "report.docx"),
            (b"", "a.txt"),
        ];
        for (bytes, name) in cases {
            for size in sizes(bytes) {
                assert_eq!(
                    probe_verdict(bytes, name, size),
                    block_verdict(bytes, name),
                    "{name} (stat size {size}): {:?}",
                    bytes.get(..40)
                );
            }
        }
    }

    proptest! {
        #[test]
        fn any_file_start_gets_the_first_blocks_verdict(
            pad in 0usize..3000,
            pad_byte in prop::sample::select(vec![b' ', b'\n', b'x', b'{']),
            tail in prop::sample::select(vec!["{\"nbformat\": 4}", "%PDF-1.4", "PK\u{3}\u{4}", "text", "\"nbformat\""]),
            name in prop::sample::select(vec!["a.txt", "a.ipynb", "a.pdf", "a"]),
        ) {
            let mut bytes = vec![pad_byte; pad];
            bytes.extend_from_slice(tail.as_bytes());
            for size in sizes(&bytes) {
                prop_assert_eq!(probe_verdict(&bytes, name, size), block_verdict(&bytes, name));
            }
        }
    }
}

#[cfg(test)]
mod read_count_tests {
    use std::cell::RefCell;
    use std::path::PathBuf;
    use std::rc::Rc;

    use super::*;
    use crate::native_fs::{NativeFile, NativeFileSystem};
    use crate::sandbox::{DirectoryListing, FileStat};
    use crate::source::Recording;

    /// The native file system, recording the positioned reads of the files it opens.
    struct CountingFs {
        inner: NativeFileSystem,
        asked: Rc<RefCell<Vec<usize>>>,
    }

    impl FileSystem for CountingFs {
        type File = Recording<NativeFile>;
        fn roots(&self) -> &[String] {
            self.inner.roots()
        }
        fn stat(&mut self, root: usize, relative: &str) -> Result<FileStat, FsError> {
            self.inner.stat(root, relative)
        }
        fn read_link(&mut self, root: usize, relative: &str) -> Result<String, FsError> {
            self.inner.read_link(root, relative)
        }
        fn open(&mut self, root: usize, relative: &str) -> Result<Recording<NativeFile>, FsError> {
            Ok(Recording {
                inner: self.inner.open(root, relative)?,
                asked: self.asked.clone(),
            })
        }
        fn list_directory(
            &mut self,
            root: usize,
            relative: &str,
            max: usize,
        ) -> Result<DirectoryListing, FsError> {
            self.inner.list_directory(root, relative, max)
        }
    }

    /// The positioned reads of each of three windows of `text` (a first read, a repeat, another window), and the
    /// last window's content.
    fn reads_of(text: &str) -> (Vec<usize>, String) {
        let directory = tempfile::tempdir().unwrap();
        std::fs::write(directory.path().join("a.txt"), text).unwrap();
        let asked = Rc::new(RefCell::new(Vec::new()));
        let mut fs = CountingFs {
            inner: NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]),
            asked: asked.clone(),
        };
        let mut reader = Reader::new(ConfigInput {
            dedup: Some(false),
            ..ConfigInput::default()
        });
        let mut counts = Vec::new();
        let mut content = String::new();
        for (at, offset) in [2, 2, 3].into_iter().enumerate() {
            let before = asked.borrow().len();
            let request = ReadRequest {
                path: "/w/a.txt".to_string(),
                offset: Some(offset),
                limit: Some(2),
                column: None,
                tail: None,
                extract: None,
                asked_via: Vec::new(),
            };
            match reader.read(&mut fs, &request, at as u64) {
                Ok(ReadOutcome::Window(result)) => content = result.window.content,
                other => panic!("not a window: {other:?}"),
            }
            counts.push(asked.borrow().len() - before);
        }
        (counts, content)
    }

    #[test]
    fn a_window_of_a_file_under_a_block_costs_one_positioned_read() {
        let (counts, content) = reads_of("one\ntwo\nthree\nfour\n");
        assert_eq!(counts, [1, 1, 1]);
        assert_eq!(content, "3|three\n4|four\n");
        // A file of a block and more reads its first kilobyte to tell a document, then: its two blocks to index it
        // and the window's block on the first read; the fingerprint at its end and the window's block after.
        let long = format!("one\ntwo\nthree\nfour\n{}\n", "x".repeat(BLOCK_BYTES));
        let (counts, content) = reads_of(&long);
        assert_eq!(counts, [4, 3, 3]);
        assert_eq!(content, "3|three\n4|four\n");
    }
}
