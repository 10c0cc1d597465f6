//! The export glue: WIT types in, core types through [`crate::read`], WIT types out. Nothing here decides
//! anything.

use std::cell::RefCell;

use crate::config::ConfigInput;
use crate::decode::TextEncoding;
use crate::error::{ErrorKind as CoreKind, ReadError as CoreError};
use crate::index::LineEndings as CoreEndings;
use crate::read::{
    self as reader, BudgetUnit as CoreUnit, EncodingOrigin as CoreOrigin,
    ReadOutcome as CoreOutcome, ReadResult as CoreResult, Reader,
};
use crate::text::{into_window_text, window_text};
use crate::wasi_fs::{now_ms, WasiFileSystem};
use crate::window::Truncation as CoreTruncation;

wit_bindgen::generate!({
    path: "wit",
    world: "read-window",
});

use crate::document::{
    DocumentFacts as CoreFacts, DocumentFormat as CoreFormat, PartKind as CorePartKind,
};
use exports::read_window::reader::reader::{
    Budget, BudgetReport, BudgetUnit, CaptureConfig, CaptureResult, ClampedLine, Config,
    DocumentFacts, DocumentFormat, DocumentPart, EncodingFacts, EncodingOrigin, ErrorKind, Guest,
    GuestCapture, GuestSession, ImageWindow, LineEndings, PageRange, PartKind, PixelRegion,
    ReadError, ReadOutcome, ReadRequest, ReadResult, RetryWindow, SessionStats,
    TextEncoding as WitEncoding, Truncation, UnchangedStub,
};

mod census;

struct Component;

/// A core budget report as the WIT record.
fn wit_budget(budget: crate::read::BudgetReport) -> BudgetReport {
    BudgetReport {
        unit: match budget.unit {
            CoreUnit::Characters => BudgetUnit::Characters,
            CoreUnit::Tokens => BudgetUnit::Tokens,
        },
        limit: budget.limit,
        used: budget.used,
        cap: budget.cap,
    }
}

fn config_input(config: Config) -> ConfigInput {
    let (budget_chars, token_mode, token_cap, token_headroom) = match config.budget {
        Some(Budget::Characters(chars)) => (Some(u64::from(chars)), false, None, None),
        Some(Budget::Tokens(tokens)) => (None, true, tokens.cap.map(u64::from), tokens.headroom),
        None => (None, false, None, None),
    };
    ConfigInput {
        max_lines: config.max_lines.map(u64::from),
        max_line_chars: config.max_line_length.map(u64::from),
        budget_chars,
        token_cap,
        token_headroom,
        token_mode,
        working_directory: config.working_directory,
        dedup: config.dedup,
        loop_warn_at: config.loop_warn_at,
        loop_block_at: config.loop_block_at,
        not_found_ttl_ms: config.not_found_ttl_ms,
        deny_patterns: config.deny_patterns.unwrap_or_default(),
        allow_patterns: config.allow_patterns.unwrap_or_default(),
        ignore_files: config.ignore_files.unwrap_or_default(),
        escape_invisible: config.escape_invisible,
        images: config.images,
    }
}

/// The preopens, with the document store attached when `config` names one, and the warning when it could not be.
fn preopens_for(config: &Config) -> (WasiFileSystem, Option<String>) {
    let mut fs = crate::wasi_fs::from_preopens();
    let warning = config
        .document_cache_dir
        .as_deref()
        .and_then(|dir| crate::sandbox::FileSystem::attach_document_store(&mut fs, dir).err());
    (fs, warning)
}

fn wit_region(region: crate::image::PixelRegion) -> PixelRegion {
    PixelRegion {
        x: region.x,
        y: region.y,
        width: region.width,
        height: region.height,
    }
}

fn wit_image(result: reader::ImageResult) -> ImageWindow {
    let window = result.window;
    let text = window_text("", &result.hint, &result.warnings);
    ImageWindow {
        path: result.path,
        mime_type: window.mime_type.to_owned(),
        width: window.width,
        height: window.height,
        original_width: window.original_width,
        original_height: window.original_height,
        scale: window.scale,
        region: wit_region(window.region),
        frames: window.frames,
        data: window.data,
        file_size: result.file_size,
        hint: result.hint,
        warnings: result.warnings,
        text,
    }
}

fn wit_outcome(outcome: CoreOutcome) -> ReadOutcome {
    match outcome {
        CoreOutcome::Window(result) => ReadOutcome::Window(wit_result(result)),
        CoreOutcome::Image(result) => ReadOutcome::Image(wit_image(result)),
        CoreOutcome::Listing(listing) => ReadOutcome::Listing(census::wit_listing(listing)),
        CoreOutcome::Unchanged(stub) => ReadOutcome::Unchanged(UnchangedStub {
            path: stub.path,
            start_line: stub.start_line,
            end_line: stub.end_line,
            total_lines: stub.total_lines,
            next_offset: stub.next_offset,
            next_column: stub.next_column,
            region: stub.region.map(wit_region),
            message: stub.message,
        }),
    }
}

fn core_request(request: ReadRequest) -> reader::ReadRequest {
    reader::ReadRequest {
        path: request.path,
        offset: request.offset,
        limit: request.limit,
        column: request.column,
        tail: request.tail.map(u64::from),
        extract: request.extract,
        asked_via: request.asked_via.unwrap_or_default(),
        fresh: request.fresh.unwrap_or(false),
        region: request.region.map(|region| crate::image::PixelRegion {
            x: region.x,
            y: region.y,
            width: region.width,
            height: region.height,
        }),
        depth: request.depth,
    }
}

fn wit_error(error: CoreError) -> ReadError {
    ReadError {
        kind: match error.kind {
            CoreKind::NotFound => ErrorKind::NotFound,
            CoreKind::NotAFile => ErrorKind::NotAFile,
            CoreKind::OutsideSandbox => ErrorKind::OutsideSandbox,
            CoreKind::PermissionDenied => ErrorKind::PermissionDenied,
            CoreKind::InvalidRequest => ErrorKind::InvalidRequest,
            CoreKind::Io => ErrorKind::Io,
            CoreKind::SpecialFile => ErrorKind::SpecialFile,
            CoreKind::Device => ErrorKind::Device,
            CoreKind::Credential => ErrorKind::Credential,
            CoreKind::Binary => ErrorKind::Binary,
            CoreKind::LoopBlocked => ErrorKind::LoopBlocked,
            CoreKind::EchoedOutput => ErrorKind::EchoedOutput,
            CoreKind::Unencodable => ErrorKind::Unencodable,
            CoreKind::TooLarge => ErrorKind::TooLarge,
            CoreKind::MalformedDocument => ErrorKind::MalformedDocument,
            CoreKind::EncryptedDocument => ErrorKind::EncryptedDocument,
            CoreKind::BinaryDocument => ErrorKind::BinaryDocument,
            CoreKind::Stale => ErrorKind::Stale,
            CoreKind::Ignored => ErrorKind::Ignored,
            CoreKind::MalformedImage => ErrorKind::MalformedImage,
        },
        message: error.message,
        already_read: error.already_read,
        path: error.path,
        suggestions: error.suggestions,
        total_lines: error.total_lines,
    }
}

fn wit_document(facts: CoreFacts) -> DocumentFacts {
    DocumentFacts {
        format: match facts.format {
            CoreFormat::Ipynb => DocumentFormat::Ipynb,
            CoreFormat::Docx => DocumentFormat::Docx,
            CoreFormat::Xlsx => DocumentFormat::Xlsx,
            CoreFormat::Xls => DocumentFormat::Xls,
            CoreFormat::Ods => DocumentFormat::Ods,
            CoreFormat::Pptx => DocumentFormat::Pptx,
            CoreFormat::Odp => DocumentFormat::Odp,
            CoreFormat::Odt => DocumentFormat::Odt,
            CoreFormat::Epub => DocumentFormat::Epub,
            CoreFormat::Pdf => DocumentFormat::Pdf,
        },
        parts: facts
            .parts
            .into_iter()
            .map(|part| DocumentPart {
                kind: match part.kind {
                    CorePartKind::Cell => PartKind::Cell,
                    CorePartKind::Page => PartKind::Page,
                    CorePartKind::Sheet => PartKind::Sheet,
                    CorePartKind::Slide => PartKind::Slide,
                    CorePartKind::Chapter => PartKind::Chapter,
                },
                number: part.number,
                name: part.name,
                first_line: part.first_line,
                characters: part.characters,
            })
            .collect(),
        pages: facts.pages,
        empty_pages: facts
            .empty_pages
            .into_iter()
            .map(|(first, last)| PageRange { first, last })
            .collect(),
    }
}

fn wit_endings(endings: CoreEndings) -> LineEndings {
    match endings {
        CoreEndings::None => LineEndings::None,
        CoreEndings::Lf => LineEndings::Lf,
        CoreEndings::Crlf => LineEndings::Crlf,
        CoreEndings::Mixed => LineEndings::Mixed,
        CoreEndings::Cr => LineEndings::Cr,
    }
}

fn wit_result(result: CoreResult) -> ReadResult {
    let window = result.window;
    // A string crossing the boundary is under 4 GiB, so the length fits.
    let content_bytes = u32::try_from(window.content.len()).unwrap_or(u32::MAX);
    let text = into_window_text(window.content, &result.hint, &result.warnings);
    ReadResult {
        text,
        content_bytes,
        path: result.path,
        start_line: window.start_line,
        start_column: window.start_column,
        end_line: window.end_line,
        lines_returned: window.lines_returned,
        total_lines: window.total_lines,
        truncated: !window.truncated_by.is_empty(),
        truncated_by: window
            .truncated_by
            .iter()
            .map(|reason| match reason {
                CoreTruncation::Limit => Truncation::Limit,
                CoreTruncation::Budget => Truncation::Budget,
                CoreTruncation::LineLength => Truncation::LineLength,
                CoreTruncation::MidLine => Truncation::MidLine,
            })
            .collect(),
        next_offset: window.next_offset,
        next_column: window.next_column,
        clamped_lines: window
            .clamped_lines
            .iter()
            .map(|line| ClampedLine {
                line: line.line,
                shown_chars: line.shown_chars,
                total_chars: line.total_chars,
                next_column: line.next_column,
            })
            .collect(),
        hint: result.hint,
        file_size: result.file_size,
        encoding: EncodingFacts {
            encoding: match result.encoding.encoding {
                TextEncoding::Utf8 => WitEncoding::Utf8,
                TextEncoding::Utf16Le => WitEncoding::Utf16le,
                TextEncoding::Utf16Be => WitEncoding::Utf16be,
                TextEncoding::Utf32Le => WitEncoding::Utf32le,
                TextEncoding::Utf32Be => WitEncoding::Utf32be,
                TextEncoding::Legacy(_) => {
                    WitEncoding::Legacy(result.encoding.encoding.name().to_string())
                }
            },
            bom: result.encoding.bom,
            origin: match result.encoding.origin {
                CoreOrigin::Declared => EncodingOrigin::Declared,
                CoreOrigin::Detected => EncodingOrigin::Detected,
            },
            line_endings: wit_endings(result.encoding.line_endings),
            replaced_invalid: result.encoding.replaced_invalid,
        },
        budget: wit_budget(result.budget),
        warnings: result.warnings,
        document: result.document.map(wit_document),
    }
}

impl Guest for Component {
    type Session = Session;
    type Capture = Capture;

    fn read_once(config: Config, request: ReadRequest) -> Result<ReadOutcome, ReadError> {
        let (mut fs, warning) = preopens_for(&config);
        reader::read_once(config_input(config), &mut fs, &core_request(request))
            .map(|mut outcome| {
                outcome.warn(warning);
                wit_outcome(outcome)
            })
            .map_err(wit_error)
    }
}

/// A session resource: the core reader and the preopens it reads through.
struct Session {
    reader: RefCell<Reader>,
    fs: RefCell<WasiFileSystem>,
}

impl GuestSession for Session {
    fn new(config: Config) -> Self {
        let (fs, warning) = preopens_for(&config);
        let mut reader = Reader::new(config_input(config));
        if let Some(warning) = warning {
            reader.warn_once(warning);
        }
        Session {
            reader: RefCell::new(reader),
            fs: RefCell::new(fs),
        }
    }

    fn read(&self, request: ReadRequest) -> Result<ReadOutcome, ReadError> {
        let mut reader = self.reader.borrow_mut();
        let mut fs = self.fs.borrow_mut();
        reader
            .read(&mut *fs, &core_request(request), now_ms())
            .map(wit_outcome)
            .map_err(wit_error)
    }

    fn read_many(
        &self,
        request: exports::read_window::reader::reader::ReadManyRequest,
    ) -> Result<exports::read_window::reader::reader::ReadManyResult, ReadError> {
        let mut reader = self.reader.borrow_mut();
        let mut fs = self.fs.borrow_mut();
        reader
            .read_many(&mut *fs, &census::core_many_request(request), now_ms())
            .map(census::wit_many_result)
            .map_err(wit_error)
    }

    fn search(
        &self,
        request: exports::read_window::reader::reader::SearchRequest,
    ) -> Result<exports::read_window::reader::reader::SearchResult, ReadError> {
        let mut reader = self.reader.borrow_mut();
        let mut fs = self.fs.borrow_mut();
        census::wit_search(reader.search(&mut *fs, &census::core_search_request(request), now_ms))
    }

    fn note_other_tool(&self) {
        self.reader.borrow_mut().note_other_tool();
    }

    fn reset_dedup(&self) {
        self.reader.borrow_mut().reset_dedup();
    }

    fn wrote(&self, path: String) {
        let mut fs = self.fs.borrow_mut();
        self.reader.borrow_mut().wrote(&mut *fs, &path);
    }

    fn check_write(&self, path: String, text: String) -> Result<(), ReadError> {
        let mut fs = self.fs.borrow_mut();
        self.reader
            .borrow_mut()
            .check_write(&mut *fs, &path, &text)
            .map_err(wit_error)
    }

    fn report_tokens(
        &self,
        path: String,
        offset: u64,
        lines: u64,
        tokens: u64,
    ) -> Result<(), ReadError> {
        let fs = self.fs.borrow();
        self.reader
            .borrow_mut()
            .report_tokens(&*fs, &path, offset, lines, tokens)
            .map_err(wit_error)
    }

    fn token_refusal(
        &self,
        path: String,
        offset: u64,
        limit: u64,
        message: String,
    ) -> Result<RetryWindow, ReadError> {
        let mut fs = self.fs.borrow_mut();
        self.reader
            .borrow_mut()
            .token_refusal(&mut *fs, &path, offset, limit, &message)
            .map(|retry| RetryWindow {
                offset: retry.offset,
                limit: retry.limit,
                refused_tokens: retry.refused_tokens,
                cap_tokens: retry.cap_tokens,
                hint: retry.hint,
            })
            .map_err(wit_error)
    }

    fn stats(&self) -> SessionStats {
        let stats = self.reader.borrow().stats(&mut *self.fs.borrow_mut());
        SessionStats {
            positioned_reads: stats.positioned_reads,
            indexed_files: stats.indexed_files,
            index_bytes: stats.index_bytes,
            documents_extracted: stats.documents_extracted,
            documents_from_store: stats.documents_from_store,
        }
    }
}

/// A capture resource: the core capture and the preopens its spill is created in.
struct Capture {
    capture: RefCell<crate::spill::Capture<crate::wasi_fs::WasiSpillFile>>,
    fs: RefCell<WasiFileSystem>,
}

fn wit_capture(result: crate::spill::CaptureResult) -> CaptureResult {
    let summary = result.summary;
    let line_endings = wit_endings(summary.line_endings());
    let content_bytes = u32::try_from(summary.content.len()).unwrap_or(u32::MAX);
    let text = into_window_text(summary.content, &summary.hint, &[]);
    CaptureResult {
        text,
        content_bytes,
        total_chars: summary.total_chars,
        total_lines: summary.total_lines,
        total_bytes: summary.total_bytes,
        omitted_chars: summary.omitted_chars,
        omitted_lines: summary.omitted_lines,
        omitted_first_line: summary.omitted_range.map(|(first, _)| first),
        omitted_last_line: summary.omitted_range.map(|(_, last)| last),
        spill_path: result.spill_path,
        spill_capped: result.spill_capped,
        spill_error: result.spill_error,
        exit_status: result.exit_status,
        hint: summary.hint,
        collapsed_redraws: summary.collapsed_redraws,
        encoding: EncodingFacts {
            encoding: WitEncoding::Utf8,
            bom: false,
            origin: EncodingOrigin::Detected,
            line_endings,
            replaced_invalid: summary.replaced_invalid,
        },
        warnings: result.warnings,
    }
}

impl GuestCapture for Capture {
    fn new(config: CaptureConfig) -> Self {
        Capture {
            capture: RefCell::new(crate::spill::Capture::new(crate::capture::CaptureInput {
                window_chars: config.window_chars.map(u64::from),
                head_share: config.head_share,
                spill_dir: config.spill_dir,
                spill_cap_chars: config.spill_cap_chars,
            })),
            fs: RefCell::new(crate::wasi_fs::from_preopens()),
        }
    }

    fn push(&self, chunk: Vec<u8>) -> Result<(), ReadError> {
        let mut fs = self.fs.borrow_mut();
        self.capture
            .borrow_mut()
            .push(&mut *fs, &chunk)
            .map_err(wit_error)
    }

    fn finish(&self, exit_status: Option<i32>) -> Result<CaptureResult, ReadError> {
        let mut fs = self.fs.borrow_mut();
        self.capture
            .borrow_mut()
            .finish(&mut *fs, exit_status)
            .map(wit_capture)
            .map_err(wit_error)
    }
}

/// A protocol session resource: the core protocol session over the preopens.
struct ProtocolSession {
    inner: RefCell<crate::protocol::ProtocolSession<WasiFileSystem>>,
}

/// The component's linear memory in bytes (it never shrinks: this is also its peak).
fn memory_bytes() -> u64 {
    core::arch::wasm32::memory_size(0) as u64 * 65_536
}

impl exports::read_window::reader::protocol::Guest for Component {
    type Session = ProtocolSession;

    fn host_error(
        request: String,
        cause: String,
        message: String,
        session_restarted: bool,
    ) -> String {
        crate::protocol::host_error_answer(&request, &cause, &message, session_restarted)
    }
}

impl exports::read_window::reader::protocol::GuestSession for ProtocolSession {
    fn new(config: String, writable_roots: Vec<String>) -> Self {
        let environment = crate::protocol::Environment {
            now_ms,
            memory_bytes,
        };
        ProtocolSession {
            inner: RefCell::new(crate::protocol::ProtocolSession::new(
                crate::wasi_fs::from_preopens(),
                &config,
                writable_roots,
                environment,
            )),
        }
    }

    fn answer(&self, request: String) -> String {
        self.inner.borrow_mut().answer(&request)
    }

    fn push_output(&self, chunk: Vec<u8>) -> String {
        self.inner.borrow_mut().push_output(&chunk)
    }

    fn config(&self) -> String {
        self.inner.borrow().config_text()
    }
}

export!(Component);
