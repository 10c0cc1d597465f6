//! The data flow of one read, stage by stage (DESIGN.md): normalize the request, map the path onto a preopen,
//! guards by name and by stat, open, sniff and decode, index, window, session memory, result.
//!
//! [`Reader`] is a session; [`read_once`] reads with no memory. Both run over any [`FileSystem`], so everything
//! here is tested natively; the component supplies the WASI one.

use std::hash::{Hash, Hasher};

use crate::config::{Budget, Config, ConfigInput};
use crate::decode::{Decoder, TextEncoding};
use crate::error::FsError;
use crate::error::{ErrorKind, ReadError};
use crate::guards::{check_device_name, check_private_key, CredentialPolicy};
use crate::hint::hint;
use crate::index::{fingerprint, FileIdentity, LineEndings, LineIndex, FINGERPRINT_BYTES};
use crate::sandbox::{
    find_root, normalize, outside_error, resolve, validate_path, FileKind, FileSystem,
    ResolveError, Resolved,
};
use crate::scan::{Scanner, BLOCK_BYTES};
use crate::session::{
    contains_component_output, looks_like_gutter_echo, Decision, DedupKey, SessionMemory,
};
use crate::sniff::{sniff, Verdict, SAMPLE_BYTES};
use crate::source::ByteSource;
use crate::tokens::{gutter_tokens, parse_refusal, TokenEstimator};
use crate::window::{read_window, Window, WindowRequest, WindowSettings, MARKER_PREFIX};

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

/// How the file was decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodingFacts {
    /// The encoding.
    pub encoding: TextEncoding,
    /// A byte order mark was stripped.
    pub bom: bool,
    /// The file's line endings.
    pub line_endings: LineEndings,
    /// Invalid sequences replaced in this window.
    pub replaced_invalid: u64,
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
}

/// The answer to an unchanged repeat of a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnchangedStub {
    /// The resolved guest path.
    pub path: String,
    /// The first line of the window.
    pub start_line: u64,
    /// The last line of the window.
    pub end_line: u64,
    /// Tells the model that the earlier result is still current.
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
}

/// The normalized request and the path it names.
struct Prepared {
    request: WindowRequest,
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
    let absolute = normalize(&request.path, &working_directory(config, fs));
    Ok(Prepared {
        request: request_window,
        absolute,
    })
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
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    window.content.hash(&mut hasher);
    window.total_lines.hash(&mut hasher);
    window.next_offset.hash(&mut hasher);
    window.next_column.hash(&mut hasher);
    hasher.finish()
}

/// The not-found error for `absolute` (asked for as `requested`), with up to three similar names from its directory.
fn not_found_error<F: FileSystem + ?Sized>(
    fs: &mut F,
    requested: &str,
    absolute: &str,
) -> ReadError {
    let (parent, name) = match absolute.rsplit_once('/') {
        Some(("", name)) => ("/", name),
        Some((parent, name)) => (parent, name),
        None => ("/", absolute),
    };
    let mut message = format!("{requested} does not exist.");
    let roots = fs.roots().to_vec();
    if let Some((root, relative)) = find_root(&roots, parent) {
        if let Ok(entries) = fs.list_directory(root, &relative, SUGGESTION_SCAN) {
            let mut scored: Vec<(f64, String)> = entries
                .into_iter()
                .map(|entry| (strsim::normalized_damerau_levenshtein(name, &entry), entry))
                .filter(|(score, _)| *score >= 0.6)
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            let names: Vec<String> = scored.into_iter().take(3).map(|(_, entry)| entry).collect();
            if !names.is_empty() {
                message.push_str(&format!(
                    " Similar names in {parent}: {}.",
                    names.join(", ")
                ));
            }
        }
    }
    ReadError::new(ErrorKind::NotFound, message)
}

/// Refuses by stat what is not a regular file; `/dev/null` reads as empty.
fn check_kind(resolved: &Resolved, requested: &str) -> Result<(), ReadError> {
    match resolved.stat.kind {
        FileKind::Regular => Ok(()),
        FileKind::CharacterDevice if resolved.path == "/dev/null" => Ok(()),
        FileKind::Directory => Err(ReadError::new(
            ErrorKind::NotAFile,
            format!("{requested} is a directory, not a file. List it with a directory tool, or read a file inside it."),
        )),
        kind => Err(ReadError::new(
            ErrorKind::SpecialFile,
            format!(
                "{requested} is {}; reading it could block or never end, so read-window refuses it without opening it.",
                kind.describe()
            ),
        )),
    }
}

/// An open file: the scanner over it (holding its last block) and its index.
struct Opened<File: ByteSource> {
    scanner: Scanner<File>,
    index: LineIndex,
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

/// Sniffs the file from its first block and scans all of it into a new index.
fn build_index<S: ByteSource>(
    scanner: &mut Scanner<S>,
    resolved: &Resolved,
    requested: &str,
) -> Result<LineIndex, ReadError> {
    let io = |error: FsError| error.into_read_error(requested);
    scanner.seek(0);
    scanner.set_encoding(TextEncoding::Utf8);
    let block = scanner.fill().map_err(io)?;
    let sample = block
        .get(..block.len().min(SAMPLE_BYTES))
        .unwrap_or_default();
    let whole_file = resolved.stat.size > 0 && sample.len() as u64 >= resolved.stat.size;
    let mut index = match sniff(sample, whole_file) {
        Verdict::Binary { kind } => {
            return Err(ReadError::new(
                ErrorKind::Binary,
                format!(
                    "{requested} is {kind}, detected from its content (the file name is not trusted). read-window returns text only: use a tool made for this type (an image viewer, an archive lister, a hex dump) instead."
                ),
            ));
        }
        Verdict::Text {
            encoding,
            bom_bytes,
        } => {
            check_private_key(requested, sample)?;
            scanner.set_encoding(encoding);
            LineIndex::new(encoding, bom_bytes)
        }
    };
    index.extend(scanner).map_err(io)?;
    index.identity = Some(identity_of(resolved));
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
) -> Result<Opened<F::File>, ReadError> {
    let io = |error: FsError| error.into_read_error(requested);
    let file = fs.open(resolved.root, &resolved.relative).map_err(io)?;
    let identity = identity_of(resolved);
    // Files of one block are rescanned: the scan is the one read the window needs anyway.
    let candidate = cached.filter(|index| {
        index.identity.is_some_and(|known| {
            known == identity || (identity.size > known.size && known.size > BLOCK_BYTES as u64)
        }) && identity.size > BLOCK_BYTES as u64
    });
    let mut scanner = Scanner::new(file, TextEncoding::Utf8);
    scanner.set_size_hint(resolved.stat.size);
    let mut reusable = None;
    if let Some(index) = candidate {
        scanner.set_encoding(index.encoding());
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
            index
        }
        None => build_index(&mut scanner, resolved, requested)?,
    };
    Ok(Opened { scanner, index })
}

/// The result of reading the window of an opened file.
fn window_result<File: ByteSource>(
    opened: &mut Opened<File>,
    config: &Config,
    density: f64,
    request: &WindowRequest,
    resolved: &Resolved,
    requested: &str,
) -> Result<ReadResult, ReadError> {
    let settings = WindowSettings {
        max_line_chars: config.max_line_chars,
        budget: config.budget,
        density,
    };
    // The checkpoint the window starts from must still sit after the same bytes; if not, the file changed
    // under an unchanged size and modification time: index it again.
    if let Some((start, offset, print)) = opened.index.checkpoint_region(request.offset) {
        let found = region_print(&mut opened.scanner, start, offset)
            .map_err(|error| error.into_read_error(requested))?;
        if found != print {
            opened.index = build_index(&mut opened.scanner, resolved, requested)?;
        }
    }
    let window = read_window(
        &mut opened.scanner,
        &mut opened.index,
        request,
        &settings,
        requested,
    )?;
    let budget = BudgetReport::of(&config.budget, window.budget_limit, window.budget_used);
    Ok(ReadResult {
        hint: hint(&resolved.path, &window, &config.budget, resolved.stat.size),
        path: resolved.path.clone(),
        file_size: resolved.stat.size,
        encoding: EncodingFacts {
            encoding: opened.index.encoding(),
            bom: opened.index.data_start() > 0,
            line_endings: opened.index.line_endings(),
            replaced_invalid: window.replaced_invalid,
        },
        budget,
        warnings: Vec::new(),
        window,
    })
}

/// Resolves and guards a request's path; on a missing path, the error and whether it is cacheable.
fn resolve_guarded<F: FileSystem + ?Sized>(
    fs: &mut F,
    policy: &CredentialPolicy,
    requested: &str,
    absolute: &str,
) -> Result<Resolved, ResolveError> {
    check_device_name(absolute).map_err(ResolveError::Other)?;
    let roots = fs.roots().to_vec();
    if find_root(&roots, absolute).is_none() {
        return Err(ResolveError::Other(outside_error(
            requested, absolute, &roots,
        )));
    }
    let resolved = resolve(fs, requested, absolute)?;
    check_device_name(&resolved.path).map_err(ResolveError::Other)?;
    policy.check(absolute).map_err(ResolveError::Other)?;
    policy.check(&resolved.path).map_err(ResolveError::Other)?;
    check_kind(&resolved, requested).map_err(ResolveError::Other)?;
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
            line_endings: LineEndings::None,
            replaced_invalid: 0,
        },
        budget: BudgetReport::of(&config.budget, config.budget.limit(), 0),
        warnings: Vec::new(),
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
    let (config, warnings) = Config::resolve(config);
    let policy = CredentialPolicy::new(&config.deny_patterns, &config.allow_patterns);
    let prepared = prepare(&config, fs, request)?;
    let resolved = match resolve_guarded(fs, &policy, &request.path, &prepared.absolute) {
        Ok(resolved) => resolved,
        Err(ResolveError::NotFound) => {
            return Err(not_found_error(fs, &request.path, &prepared.absolute))
        }
        Err(ResolveError::Other(error)) => return Err(error),
    };
    let mut result = if resolved.stat.kind == FileKind::CharacterDevice {
        empty_result(&config, &resolved)
    } else {
        let mut opened = open_and_index(fs, &resolved, &request.path, None)?;
        window_result(
            &mut opened,
            &config,
            1.0,
            &prepared.request,
            &resolved,
            &request.path,
        )?
    };
    result.warnings = warnings;
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
        let outcome = self.read_through_memory(fs, request, now_ms);
        if let Err(error) = &outcome {
            // A failed read is a read of something else: the run of identical reads is broken.
            if error.kind != ErrorKind::LoopBlocked {
                self.memory.note_other_tool();
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
        if let Some((message, left_ms)) = self.memory.known_missing(&prepared.absolute, now_ms) {
            return Err(ReadError::new(
                ErrorKind::NotFound,
                format!(
                    "{message} (Remembered from a check in this session; it is not checked again for {} more seconds unless the host reports a write to it.)",
                    left_ms.div_ceil(1000)
                ),
            ));
        }
        let resolved = match resolve_guarded(fs, &self.policy, requested, &prepared.absolute) {
            Ok(resolved) => resolved,
            Err(ResolveError::NotFound) => {
                let error = not_found_error(fs, requested, &prepared.absolute);
                self.memory.remember_not_found(
                    &prepared.absolute,
                    &error.message,
                    now_ms,
                    self.config.not_found_ttl_ms,
                );
                return Err(error);
            }
            Err(ResolveError::Other(error)) => return Err(error),
        };
        self.memory
            .remember_alias(&prepared.absolute, &resolved.path);
        let mut result = if resolved.stat.kind == FileKind::CharacterDevice {
            empty_result(&self.config, &resolved)
        } else {
            let cached = self.memory.take_file(&resolved.path);
            let mut opened = open_and_index(fs, &resolved, requested, cached)?;
            let density = self.memory.density(&resolved.path);
            let outcome = window_result(
                &mut opened,
                &self.config,
                density,
                &prepared.request,
                &resolved,
                requested,
            );
            self.memory.positioned_reads += opened.scanner.reads();
            self.memory.store_file(&resolved.path, opened.index);
            outcome?
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
        match self.memory.decide(&key, window_hash(window), &self.config) {
            Decision::Blocked { count } => Err(ReadError {
                kind: ErrorKind::LoopBlocked,
                message: format!(
                    "{MARKER_PREFIX}loop-blocked] You have read lines {}-{} of {} {count} times in a row and they have not changed. Stop re-reading them: use the content you already have, read a different range, or change the file first.",
                    window.start_line, window.end_line, resolved.path
                ),
                already_read: Some(count),
            }),
            Decision::Stub => Ok(ReadOutcome::Unchanged(UnchangedStub {
                path: resolved.path.clone(),
                start_line: window.start_line,
                end_line: window.end_line,
                message: format!(
                    "{MARKER_PREFIX}unchanged] Lines {}-{} of {} have not changed since you read them earlier in this session; that result is still current, so it is not sent again. Use it, or read another range.",
                    window.start_line, window.end_line, resolved.path
                ),
            })),
            Decision::Content { warning } => {
                if let Some(tokens) = window.estimated_tokens {
                    self.memory
                        .remember_sent(&resolved.path, window.start_line, window.lines_returned, tokens);
                }
                result.warnings = std::mem::take(&mut self.pending_warnings);
                result.warnings.extend(warning);
                Ok(ReadOutcome::Window(result))
            }
        }
    }

    /// A tool other than a read ran: consecutive counts start over; the dedup memory stays.
    pub fn note_other_tool(&mut self) {
        self.memory.note_other_tool();
    }

    /// The model's context was compacted: the next read of any window returns full content.
    pub fn reset_dedup(&mut self) {
        self.memory.reset_dedup();
    }

    /// The host wrote `path`: forget its dedup entries, its not-found entry and its index.
    pub fn wrote<F: FileSystem + ?Sized>(&mut self, fs: &F, path: &str) {
        let absolute = normalize(path, &working_directory(&self.config, fs));
        self.memory.wrote(&absolute);
    }

    /// Refuses text for writing that contains output of this component, or that is a window pasted back with its
    /// `N|` gutters (`EchoedOutput`).
    pub fn check_write(&self, path: &str, text: &str) -> Result<(), ReadError> {
        if looks_like_gutter_echo(text) {
            return Err(ReadError::new(
                ErrorKind::EchoedOutput,
                format!(
                    "The text for {path} is a read window with its `N|` line numbers; writing it would put them into the file. Write the lines without the gutters."
                ),
            ));
        }
        if contains_component_output(text) {
            return Err(ReadError::new(
                ErrorKind::EchoedOutput,
                format!(
                    "The text for {path} contains `{MARKER_PREFIX}...]`: a stub, a block message or a clamp marker of the read tool, not file content. Read the file again for its real content and write that."
                ),
            ));
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
        let prepared = prepare(
            &self.config,
            fs,
            &ReadRequest {
                path: path.to_string(),
                ..ReadRequest::default()
            },
        )?;
        if let Ok(resolved) = resolve_guarded(fs, &self.policy, path, &prepared.absolute) {
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
        let mut opened = open_and_index(fs, resolved, requested, cached)?;
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
