//! Stage 8: the result and stub types, the window result of an opened file and the stub of an unchanged repeat.

use super::*;

/// How the encoding was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodingOrigin {
    /// The file declares it: a byte order mark (UTF-8, UTF-16 or UTF-32).
    Declared,
    /// Detected from the content: valid UTF-8, UTF-16 by its zero bytes, or a legacy encoding by `chardetng` on a
    /// sample of the file's start (see `legacy`).
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
    /// For an image: the region the earlier result showed (the line fields are then 0, the cursors `None`).
    pub region: Option<crate::image::PixelRegion>,
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
    /// A window of an image.
    Image(ImageResult),
    /// A page of a directory's listing (a read of a directory).
    Listing(crate::listing::ListingWindow),
}

impl ReadOutcome {
    /// The text window, when the outcome is one.
    pub fn into_window(self) -> Option<ReadResult> {
        match self {
            ReadOutcome::Window(result) => Some(result),
            ReadOutcome::Unchanged(_) | ReadOutcome::Image(_) | ReadOutcome::Listing(_) => None,
        }
    }

    /// Adds `warning` to the outcome's warnings (a stub has none, so it is dropped there).
    pub fn warn(&mut self, warning: Option<String>) {
        let Some(warning) = warning else { return };
        match self {
            ReadOutcome::Window(result) => result.warnings.push(warning),
            ReadOutcome::Image(image) => image.warnings.push(warning),
            ReadOutcome::Listing(listing) => listing.warnings.push(warning),
            ReadOutcome::Unchanged(_) => {}
        }
    }
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
    /// Documents extracted (found neither in the session's cache nor in the document store).
    pub documents_extracted: u64,
    /// Documents windowed from the document store instead of extracted (the store's hits).
    pub documents_from_store: u64,
}

/// A fingerprint of the config values that change how a line is shown: the clamp and the escapes. The budget is
/// not among them: it decides where a window ends, which the key and the window's hash already hold, so the same
/// window returned under another budget (a `read_many` file under what the files before it left) is a repeat.
pub(super) fn shape_of(config: &Config) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    config.max_line_chars.hash(&mut hasher);
    config.escape_invisible.hash(&mut hasher);
    hasher.finish()
}

/// What a window shows, hashed: its lines (their prints, folded as they were written, markers included) and where
/// it ends inside a line. Not the file's line count nor the next line: the window of a grown file whose lines are
/// the same is unchanged, and its stub, made from the read just done, states the new count and cursor (with the
/// change notice that says what was added).
pub(super) fn window_hash(window: &Window) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    window.prints.content.hash(&mut hasher);
    window.content.len().hash(&mut hasher);
    window.next_column.hash(&mut hasher);
    hasher.finish()
}

/// A `binary` refusal of a read with `extract` false says what that asked for: the file's own bytes, which are
/// not text, so the model drops `extract` to read the text extracted from the document (the refusal written for
/// a read without `extract` speaks of extraction as if it were not available). Any other error as it is.
pub(super) fn raw_bytes_error(error: ReadError, request: &ReadRequest) -> ReadError {
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

impl Reader {
    /// The answer to a read whose window is `result`, as the session memory decides: the window (with the
    /// session's warnings), a stub for an unchanged repeat (never for a `fresh` request), or the `loop-blocked`
    /// error. `version` is the print of the file's whole view, when its line index printed it.
    pub(super) fn answer_of(
        &mut self,
        mut result: ReadResult,
        resolved: &Resolved,
        request: &ReadRequest,
        version: Option<u64>,
    ) -> Result<ReadOutcome, ReadError> {
        let requested = request.path.as_str();
        // The key is the window as returned, not as asked: two requests that return the same lines (a limit past
        // the end of the file, a budget that stops both at line 52) are the same read.
        // A document's extracted text and its bytes are two views of it: a stub of one never answers the other.
        let key = DedupKey {
            path: resolved.path.clone(),
            view: View::of(result.document.is_some()),
            request: WindowRequest {
                offset: result.window.start_line,
                column: result.window.start_column,
                limit: result.window.lines_returned,
            },
            shape: shape_of(&self.config),
            region: None,
        };
        let window = &result.window;
        let hash = window_hash(window);
        match self
            .memory
            .decide_file(&key, hash, &self.config, (request.fresh, version))
        {
            Decision::Blocked { count, cycle } => {
                let in_call = self.memory.in_call();
                Err(
                    loop_blocked(window, &resolved.path, (count, cycle), in_call)
                        .at_path(&resolved.path),
                )
            }
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
                result.warnings.extend(tilde_note(requested, &result.path));
                // A document without a text layer on some pages says so on every window of it.
                result.warnings.extend(
                    result
                        .document
                        .as_ref()
                        .and_then(|facts| facts.warning.clone()),
                );
                // Invisible characters are named on every window that holds them.
                result.warnings.extend(crate::hint::invisible_warning(
                    &resolved.path,
                    &result.window.invisible,
                ));
                Ok(ReadOutcome::Window(result))
            }
        }
    }
}

/// The `loop-blocked` error of a window of `path` read over and over: in a row (`cycle` 1) or in a cycle of
/// `cycle` windows, the `count`th time (this one included); `in_call`: in the same call for several files made
/// again and again.
pub(super) fn loop_blocked(
    window: &Window,
    path: &str,
    (count, cycle): (u32, u32),
    in_call: bool,
) -> ReadError {
    let shown = crate::prose::path_in_prose(path);
    let span = crate::prose::line_span(window.start_line, window.end_line);
    let message = if in_call {
        call_loop_blocked(&span, &shown, count)
    } else if cycle > 1 {
        format!(
            "{MARKER_PREFIX}loop-blocked] You have read {span} of {shown} {count} times in a cycle of {cycle} unchanged windows read over and over. Stop re-reading them: use the content you already have, read a range you have not read, or change the file first."
        )
    } else {
        let (have, them) = if window.start_line == window.end_line {
            ("it has", "it")
        } else {
            ("they have", "them")
        };
        format!(
            "{MARKER_PREFIX}loop-blocked] You have read {span} of {shown} {count} times in a row and {have} not changed. Stop re-reading {them}: use the content you already have, read a different range, or change the file first."
        )
    };
    ReadError::new(ErrorKind::LoopBlocked, message).with_count(count)
}

/// The `loop-blocked` message of `what` of `shown` (a path in prose) in the same call for several files made
/// `count` times with nothing changed: the call is the loop, whatever window of the file it reached this time.
pub(super) fn call_loop_blocked(what: &str, shown: &str, count: u32) -> String {
    format!(
        "{MARKER_PREFIX}loop-blocked] You have made the same call for several files {count} times with nothing changed (here {what} of {shown}). Stop repeating it: use the content you already have, ask for files or ranges you have not read, or change a file first."
    )
}

/// The stub that stands for `window` of `path`: its lines and cursor, and a message that says the earlier result
/// is still current and then how to go on, generated from the window's own fields: the call that continues, or
/// that nothing after the window is left; and the calls that read the rest of its clamped lines.
pub(super) fn stub_of(window: &Window, path: &str) -> UnchangedStub {
    let raw = path;
    let path = crate::prose::path_in_prose(raw);
    let mut message = if window.total_lines == 0 {
        format!("{MARKER_PREFIX}unchanged] {path} is still empty (0 lines), as when you read it earlier in this session; there is nothing to read in it.")
    } else {
        let lines =
            crate::prose::capitalized(&crate::prose::line_span(window.start_line, window.end_line));
        let have = if window.start_line == window.end_line {
            "has not changed since you read it"
        } else {
            "have not changed since you read them"
        };
        let column = crate::hint::start_column_clause(window);
        format!(
            "{MARKER_PREFIX}unchanged] {lines}{column} of {} in {path} {have} earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true).",
            window.total_lines
        )
    };
    let clamped = window.clamped_lines.as_slice();
    match crate::hint::continuation_after(window) {
        Some(call) => {
            message.push(' ');
            message.push_str(&call);
        }
        None if clamped.is_empty() && window.total_lines > 0 => message.push_str(&format!(
            " Nothing after line {} is left to read.",
            window.end_line
        )),
        None if !clamped.is_empty() => message.push_str(&format!(
            " Nothing after line {} is left, but clamped text inside the window is:",
            window.end_line
        )),
        None => {}
    }
    if !clamped.is_empty() {
        let capital = !message.ends_with(':');
        message.push(' ');
        push_clamped(&mut message, clamped, capital, ClampedRest::InEarlierResult);
    }
    UnchangedStub {
        path: raw.to_string(),
        start_line: window.start_line,
        end_line: window.end_line,
        total_lines: window.total_lines,
        next_offset: window.next_offset,
        next_column: window.next_column,
        region: None,
        message,
    }
}

/// The result of reading the window of an opened file.
pub(super) fn window_result<File: ByteSource>(
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
        escape_invisible: config.escape_invisible,
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

/// The result of reading the window `request` of an opened file; `tail` is the count of a tail read (for the
/// hint's pointer to the lines before it).
pub(super) fn window_result_at<File: ByteSource>(
    opened: &mut Opened<File>,
    config: &Config,
    settings: &WindowSettings,
    request: &WindowRequest,
    tail: Option<u64>,
    resolved: &Resolved,
    requested: &str,
) -> Result<ReadResult, ReadError> {
    let settings = *settings;
    recheck_checkpoint(opened, request, resolved, requested)?;
    let mut window = read_window(
        &mut opened.scanner,
        &mut opened.index,
        request,
        &settings,
        requested,
    )?;
    let withheld = withhold_key_run(&opened.index, &resolved.path, &mut window)?;
    let budget = BudgetReport::of(&config.budget, window.budget_limit, window.budget_used);
    let encoding = EncodingFacts::of(&opened.index, &window);
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

/// The checkpoint the window at `request` starts from must still sit after the same bytes; if not, the file
/// changed under an unchanged size and modification time, and it is indexed again.
fn recheck_checkpoint<File: ByteSource>(
    opened: &mut Opened<File>,
    request: &WindowRequest,
    resolved: &Resolved,
    requested: &str,
) -> Result<(), ReadError> {
    if let Some((start, offset, print)) = opened.index.checkpoint_region(request.offset) {
        let found = region_print(&mut opened.scanner, start, offset)
            .map_err(|error| error.into_read_error(requested))?;
        if found != print {
            opened.index = build_index(&mut opened.scanner, resolved, requested)?;
        }
    }
    Ok(())
}

/// Refuses a window of `path` that would show any line of a private key block, wherever the key is in the file;
/// a window that stops right before a key continues past it (its cursor moved after the key), and the key's run
/// is returned for the hint: the key is withheld, not a page to read.
fn withhold_key_run(
    index: &LineIndex,
    path: &str,
    window: &mut Window,
) -> Result<Option<Withheld>, ReadError> {
    if window.lines_returned > 0 {
        index.key_blocks().check_window(
            path,
            window.start_line,
            window.end_line,
            window.total_lines,
        )?;
    }
    let withheld = match (window.next_offset, window.next_column) {
        (Some(next), None) => index
            .key_blocks()
            .withheld_run(next, window.total_lines)
            .map(|(first, last, what)| Withheld { first, last, what }),
        _ => None,
    };
    if let Some(withheld) = &withheld {
        window.next_offset = (withheld.last < window.total_lines).then_some(withheld.last + 1);
    }
    Ok(withheld)
}

impl EncodingFacts {
    /// The encoding facts of `window`, read from the file whose index is `index`.
    fn of(index: &LineIndex, window: &Window) -> EncodingFacts {
        EncodingFacts {
            encoding: index.encoding(),
            bom: index.data_start() > 0,
            origin: if index.data_start() > 0 {
                EncodingOrigin::Declared
            } else {
                EncodingOrigin::Detected
            },
            line_endings: index.line_endings(),
            replaced_invalid: window.replaced_invalid,
            runner_up: index.runner_up,
        }
    }
}

/// The hint's clause for a file not in UTF-8: decoded from a legacy encoding (` Decoded from windows-1252 (detected
/// from its content): write changes back in windows-1252.`), or from UTF-16 or UTF-32 (` Decoded from UTF-16LE
/// (its byte order mark): write changes back in UTF-16LE with the byte order mark.`), so text written back keeps
/// the file's encoding; empty for UTF-8.
///
/// When the encoding was a guess between single-byte encodings that read the file differently, the clause says so
/// and names the runner-up (` Decoded from iso-8859-15 (detected from its content, a guess: could also be
/// windows-1252): write changes back in iso-8859-15.`).
pub(super) fn encoding_clause(encoding: &EncodingFacts) -> String {
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
        TextEncoding::Utf8 => String::new(),
        TextEncoding::Utf16Le
        | TextEncoding::Utf16Be
        | TextEncoding::Utf32Le
        | TextEncoding::Utf32Be => {
            let name = match encoding.encoding {
                TextEncoding::Utf16Le => "UTF-16LE",
                TextEncoding::Utf16Be => "UTF-16BE",
                TextEncoding::Utf32Le => "UTF-32LE",
                _ => "UTF-32BE",
            };
            if encoding.bom {
                format!(
                    " Decoded from {name} (its byte order mark): write changes back in {name} with the byte order mark."
                )
            } else {
                format!(" Decoded from {name} (detected from its content): write changes back in {name}.")
            }
        }
    }
}

/// An empty window for `/dev/null`.
pub(super) fn empty_result(config: &Config, resolved: &Resolved) -> ReadResult {
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
        replaced_at: Vec::new(),
        invisible: Default::default(),
        prints: Default::default(),
        partial_lines: Vec::new(),
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
