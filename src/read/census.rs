//! The reads that answer with a census, on the session's guards: a directory's listing (a read of a directory)
//! and a search over a file or a tree. Both resolve their path as a read does, so a refusal is a read's.

use super::*;
use crate::listing::{list_window, ListingRequest, ListingWindow};
use crate::search::{SearchRequest, SearchResult, SearchRun, SkipKind};
use crate::source::FileOrText;
use crate::tree::{walk, Refusal, Step, TreeEntry};

/// How long one search may run, in milliseconds: past it the search stops and says how far it got.
pub const SEARCH_TIME_LIMIT_MS: u64 = 10_000;

/// The largest file a search reads, in bytes (a larger one is skipped as too large).
pub const MAX_SEARCH_FILE_BYTES: u64 = 1 << 30;

/// The bytes of one line a search matches at most: the rest of a longer line is not searched, and a warning says so.
pub const MAX_SEARCH_LINE_BYTES: usize = 16 << 20;

/// Lines searched between two looks at the clock.
const LINES_PER_CLOCK_CHECK: u64 = 4_096;

/// When a search must stop: the clock and the deadline on it, in milliseconds.
#[derive(Clone, Copy)]
pub(super) struct Deadline {
    clock: fn() -> u64,
    at_ms: u64,
}

impl Deadline {
    /// Whether the deadline has passed.
    fn passed(&self) -> bool {
        (self.clock)() > self.at_ms
    }
}

/// The fields of a read that a directory's listing does not take, for the refusal that names them.
fn listing_conflict(request: &ReadRequest) -> Option<&'static str> {
    if request.column.unwrap_or(0) > 0 {
        Some("column")
    } else if request.tail.is_some() {
        Some("tail")
    } else if request.region.is_some() {
        Some("region")
    } else {
        None
    }
}

/// The listing window of the directory `resolved` for `request`, under `config` and the session's guards.
///
/// Errors: a field a listing does not take (`column`, `tail`, `region`), an offset past the last entry, a
/// directory that cannot be listed.
pub(super) fn listing_of<F: FileSystem + ?Sized>(
    fs: &mut F,
    config: &Config,
    refusals: &mut Refusals<'_>,
    request: &ReadRequest,
    prepared: &Prepared,
    resolved: &Resolved,
) -> Result<ListingWindow, ReadError> {
    if let Some(field) = listing_conflict(request) {
        return Err(ReadError::invalid(format!(
            "{} is a directory: its listing pages by offset and limit (and depth), so `{field}` does not apply. \
             Leave `{field}` out, or read a file inside it.",
            described(&request.path, &resolved.path)
        ))
        .at_path(&resolved.path));
    }
    let listing = ListingRequest {
        offset: Some(prepared.request.offset),
        limit: Some(prepared.request.limit),
        depth: request.depth,
    };
    list_window(
        fs,
        config,
        refusals.policy,
        refusals.ignore,
        resolved,
        &listing,
    )
    .map_err(|error| error.at_path(&resolved.path))
}

/// Refuses `depth` on a read of anything but a directory.
pub(super) fn check_depth(request: &ReadRequest, resolved: &Resolved) -> Result<(), ReadError> {
    match request.depth {
        Some(depth) if resolved.stat.kind != FileKind::Directory => Err(ReadError::invalid(format!(
            "`depth` ({depth}) is for a directory's listing, and {} is a file: leave `depth` out to read it.",
            described(&request.path, &resolved.path)
        ))
        .at_path(&resolved.path)),
        _ => Ok(()),
    }
}

impl Reader {
    /// Searches the file or the tree at `request.path` for its pattern: every regular file under it the guards
    /// let through, in name order, until [`SEARCH_TIME_LIMIT_MS`] by `clock` (milliseconds) has passed.
    ///
    /// Errors: the path's own refusal (as a read's: not found, outside the grants, a credential file...), a
    /// pattern that is empty or not a valid regular expression.
    pub fn search<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        request: &SearchRequest,
        clock: fn() -> u64,
    ) -> Result<SearchResult, ReadError> {
        let mut run = SearchRun::new(request, &self.config)?;
        let read = ReadRequest {
            path: request.path.clone(),
            ..ReadRequest::default()
        };
        let prepared = prepare(&self.config, fs, &read)?;
        let mut refusals = Refusals {
            policy: &self.policy,
            ignore: &mut self.ignore,
        };
        let resolved = resolve_once(fs, &mut refusals, &read, &prepared.absolute)?;
        let deadline = Deadline {
            clock,
            at_ms: clock().saturating_add(SEARCH_TIME_LIMIT_MS),
        };
        let config = &self.config;
        let documents = &mut self.documents;
        match resolved.stat.kind {
            FileKind::Directory => {
                let mut visit = |fs: &mut F, entry: &TreeEntry| {
                    if run.stopped() {
                        return Step::Stop;
                    }
                    if deadline.passed() {
                        run.out_of_time(&entry.path);
                        return Step::Stop;
                    }
                    search_entry(&mut run, fs, (config, documents, deadline), entry)
                };
                let summary = walk(
                    fs,
                    &self.policy,
                    &mut self.ignore,
                    &resolved,
                    u32::MAX,
                    &mut visit,
                );
                for (directory, _) in &summary.unlistable {
                    run.skip(SkipKind::Unreadable);
                    run.warn(format!(
                        "The directory {directory}/ could not be listed, so it was not searched."
                    ));
                }
            }
            _ => search_file(
                &mut run,
                fs,
                (config, documents, deadline),
                &request.path,
                &resolved,
            ),
        }
        let result = run.finish(&resolved.path);
        self.returned.remember_text(&result.content);
        Ok(result)
    }
}

/// What searching a file needs besides the run and the file system: the config (how to open it), the session's
/// extracted documents, the deadline.
type FileSearch<'a> = (&'a Config, &'a mut DocumentCache, Deadline);

/// One entry of a searched tree: a regular file searched, a refused or unreadable one counted as skipped, a
/// directory descended into.
fn search_entry<F: FileSystem + ?Sized>(
    run: &mut SearchRun,
    fs: &mut F,
    context: FileSearch<'_>,
    entry: &TreeEntry,
) -> Step {
    match (&entry.refusal, entry.stat.kind) {
        (Some(Refusal::Credential(_)), _) => run.skip(SkipKind::Credential),
        (Some(Refusal::Ignored(_)), _) => run.skip(SkipKind::Ignored),
        (None, FileKind::Directory) => return Step::Descend,
        (None, FileKind::Regular) => {
            let resolved = Resolved {
                path: entry.absolute.clone(),
                root: entry.root,
                relative: entry.relative.clone(),
                stat: entry.stat,
                links: Vec::new(),
            };
            search_file(run, fs, context, &entry.path, &resolved);
        }
        (None, _) => run.skip(SkipKind::Unreadable),
    }
    Step::Skip
}

/// What kind of skip a file's refusal is.
fn skip_kind(error: &ReadError) -> SkipKind {
    match error.kind {
        ErrorKind::Binary | ErrorKind::BinaryDocument => SkipKind::Binary,
        ErrorKind::TooLarge => SkipKind::TooLarge,
        ErrorKind::Credential => SkipKind::Credential,
        ErrorKind::Ignored => SkipKind::Ignored,
        _ => SkipKind::Unreadable,
    }
}

/// Searches the regular file `resolved` (shown as `display`): opened, sniffed, decoded (a document as its
/// extracted text) as a read does, then every line fed to `run`; a file a read would refuse is counted as
/// skipped by kind.
fn search_file<F: FileSystem + ?Sized>(
    run: &mut SearchRun,
    fs: &mut F,
    (config, documents, deadline): FileSearch<'_>,
    display: &str,
    resolved: &Resolved,
) {
    if resolved.stat.size > MAX_SEARCH_FILE_BYTES {
        run.skip(SkipKind::TooLarge);
        return;
    }
    let request = ReadRequest {
        path: resolved.path.clone(),
        ..ReadRequest::default()
    };
    let file = match open_routed(fs, resolved, config, &request) {
        Ok(Routed::Lines(file)) => file,
        Ok(Routed::Image(..)) => return run.skip(SkipKind::Binary),
        Err(error) => return run.skip(skip_kind(&error)),
    };
    let store = fs.document_store();
    let mut opened = match open_and_index(
        file,
        resolved,
        &resolved.path,
        |_| None,
        documents,
        store,
        true,
    ) {
        Ok(opened) => opened,
        Err(error) => return run.skip(skip_kind(&error)),
    };
    run.begin_file(display);
    match search_lines(run, &mut opened, deadline, display) {
        Ok(stopped_at) => run.end_file(stopped_at),
        Err(_) => {
            run.warn(format!(
                "{display} could not be read to its end; the counts cover the lines before."
            ));
            run.end_file(None);
        }
    }
}

/// Feeds every line of `opened` to `run`; the line the deadline stopped at, if it did.
fn search_lines<S: ByteSource>(
    run: &mut SearchRun,
    opened: &mut Opened<FileOrText<S>>,
    deadline: Deadline,
    display: &str,
) -> Result<Option<u64>, FsError> {
    let index = &opened.index;
    let total = index.total_lines();
    let scanner = &mut opened.scanner;
    scanner.set_encoding(index.encoding());
    scanner.seek(index.data_start());
    let mut decoder = Decoder::new(index.encoding());
    let mut line = String::new();
    for number in 1..=total {
        if number % LINES_PER_CLOCK_CHECK == 0 && deadline.passed() {
            return Ok(Some(number));
        }
        line.clear();
        let mut cut = false;
        let ended = scanner.read_line(&mut |bytes| {
            if line.len() < MAX_SEARCH_LINE_BYTES {
                decoder.feed(bytes, &mut |piece| line.push_str(piece));
            } else {
                cut = true;
            }
        })?;
        decoder.finish(&mut |piece| line.push_str(piece));
        if ended && line.ends_with('\r') {
            line.pop();
        }
        if cut {
            run.warn(format!(
                "Line {number} of {display} is longer than {} MiB: only its first {} MiB were searched.",
                MAX_SEARCH_LINE_BYTES >> 20,
                MAX_SEARCH_LINE_BYTES >> 20
            ));
        }
        let searchable = index.key_blocks().withheld_run(number, total).is_none();
        if !searchable {
            run.warn(format!(
                "The lines of private keys in {display} were not searched."
            ));
        }
        run.line(number, &line, searchable);
    }
    Ok(None)
}
