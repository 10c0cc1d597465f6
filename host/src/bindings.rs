//! The raw bindings `wasmtime::component::bindgen!` generates for the `read-window` world (synchronous), and the
//! host-side conveniences on the WIT types: `Default` for [`Config`], the [`ReadRequest`] builder, the window of
//! a [`ReadResult`] and a [`CaptureResult`] as a `&str`, and the snake_case `as_str` names of the WIT enums used
//! in JSON.
//!
//! Most embedders need only the types re-exported at the crate root and [`Session`](crate::Session); these are
//! here for hosts that drive the component themselves.

wasmtime::component::bindgen!({
    world: "read-window",
    path: "wit",
    additional_derives: [PartialEq],
});

use exports::read_window::reader::reader::{
    BudgetUnit, CaptureResult, Config, DocumentFormat, EncodingOrigin, ErrorKind, LineEndings,
    PartKind, PixelRegion, ReadError, ReadRequest, ReadResult, TextEncoding, Truncation,
};

/// The first `content_bytes` bytes of `text`: the window's lines, which cross the boundary once, inside the text
/// (empty when the count is not a boundary of the text, which the component never sends).
fn window_in(text: &str, content_bytes: u32) -> &str {
    usize::try_from(content_bytes)
        .ok()
        .and_then(|end| text.get(..end))
        .unwrap_or_default()
}

impl ReadResult {
    /// The window's formatted lines (`N|text` each, each ending in `\n`): the start of `text`, before the blank
    /// line and the hint.
    pub fn content(&self) -> &str {
        window_in(&self.text, self.content_bytes)
    }
}

impl CaptureResult {
    /// The capture's window (head, marker, tail; no gutter): the start of `text`, before the blank line and the
    /// hint.
    pub fn content(&self) -> &str {
        window_in(&self.text, self.content_bytes)
    }
}

impl Default for Config {
    /// Every field absent: the component's defaults (2,000 lines, 2,000 characters a line, a budget of 100,000
    /// characters, dedup on, the working directory the first preopen).
    fn default() -> Self {
        Config {
            max_lines: None,
            max_line_length: None,
            budget: None,
            working_directory: None,
            dedup: None,
            loop_warn_at: None,
            loop_block_at: None,
            not_found_ttl_ms: None,
            deny_patterns: None,
            allow_patterns: None,
            ignore_files: None,
            escape_invisible: None,
            images: None,
            document_cache_dir: None,
        }
    }
}

impl ReadRequest {
    /// A request for `path` (a guest path) from line 1, column 0, with the default limit.
    pub fn new(path: impl Into<String>) -> Self {
        ReadRequest {
            path: path.into(),
            offset: None,
            limit: None,
            column: None,
            tail: None,
            extract: None,
            asked_via: None,
            fresh: None,
            region: None,
            depth: None,
        }
    }

    /// For a directory: lists `depth` levels (1 its own entries; 2 also theirs, as relative paths).
    pub fn depth(mut self, depth: u32) -> Self {
        self.depth = Some(depth);
        self
    }

    /// For an image: shows the region `x`, `y`, `width`, `height` (original pixels) instead of the whole image.
    pub fn region(mut self, x: u32, y: u32, width: u32, height: u32) -> Self {
        self.region = Some(PixelRegion {
            x,
            y,
            width,
            height,
        });
        self
    }

    /// Returns the content even when the session already returned this window unchanged (never a stub): for a
    /// model whose context lost the earlier result. It still counts in the loop tripwire.
    pub fn fresh(mut self, fresh: bool) -> Self {
        self.fresh = Some(fresh);
        self
    }

    /// Sets the first line (1-based; 0 is read as 1).
    pub fn offset(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }

    /// Sets the number of lines at most (0 is an `invalid-request` error; clamped to `max-lines`).
    pub fn limit(mut self, limit: u64) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Sets where to start inside the first line, in characters (Unicode scalar values), 0-based.
    pub fn column(mut self, column: u64) -> Self {
        self.column = Some(column);
        self
    }

    /// Reads the last `tail` lines instead (0, or a tail with an offset or a column, is `invalid-request`).
    pub fn tail(mut self, tail: u32) -> Self {
        self.tail = Some(tail);
        self
    }

    /// Sets whether a document is read as its extracted text (the default) or, with `false`, as the file's own bytes
    /// (a notebook as its JSON; a binary container is then `binary`).
    pub fn extract(mut self, extract: bool) -> Self {
        self.extract = Some(extract);
        self
    }
}

impl ReadError {
    /// An `invalid-request` error with `message` (which should name the field at fault).
    pub fn invalid_request(message: impl Into<String>) -> Self {
        ReadError {
            kind: ErrorKind::InvalidRequest,
            message: message.into(),
            already_read: None,
            path: None,
            suggestions: Vec::new(),
            total_lines: None,
        }
    }
}

impl ReadError {
    /// The core crate's error (the component's own code, compiled natively into the host) as the WIT record: the
    /// kind, message, path and counts the component answers with.
    pub(crate) fn from_core(error: read_window::ReadError) -> Self {
        ReadError {
            kind: ErrorKind::from_core(error.kind),
            message: error.message,
            already_read: error.already_read,
            path: error.path,
            suggestions: error.suggestions,
            total_lines: error.total_lines,
        }
    }
}

impl ErrorKind {
    /// The core crate's error kind as the WIT enum's case of the same name.
    pub(crate) fn from_core(kind: read_window::ErrorKind) -> Self {
        use read_window::ErrorKind as Core;
        match kind {
            Core::NotFound => ErrorKind::NotFound,
            Core::NotAFile => ErrorKind::NotAFile,
            Core::OutsideSandbox => ErrorKind::OutsideSandbox,
            Core::PermissionDenied => ErrorKind::PermissionDenied,
            Core::InvalidRequest => ErrorKind::InvalidRequest,
            Core::Io => ErrorKind::Io,
            Core::SpecialFile => ErrorKind::SpecialFile,
            Core::Device => ErrorKind::Device,
            Core::Credential => ErrorKind::Credential,
            Core::Binary => ErrorKind::Binary,
            Core::LoopBlocked => ErrorKind::LoopBlocked,
            Core::EchoedOutput => ErrorKind::EchoedOutput,
            Core::Unencodable => ErrorKind::Unencodable,
            Core::TooLarge => ErrorKind::TooLarge,
            Core::MalformedDocument => ErrorKind::MalformedDocument,
            Core::EncryptedDocument => ErrorKind::EncryptedDocument,
            Core::BinaryDocument => ErrorKind::BinaryDocument,
            Core::Stale => ErrorKind::Stale,
            Core::Ignored => ErrorKind::Ignored,
            Core::MalformedImage => ErrorKind::MalformedImage,
        }
    }

    /// The snake_case name used in JSON: `not_found`, `not_a_file`, `outside_sandbox`, `permission_denied`,
    /// `invalid_request`, `io`, `special_file`, `device`, `credential`, `binary`, `loop_blocked`,
    /// `echoed_output`, `unencodable`, `too_large`, `malformed_document`, `encrypted_document`, `binary_document`,
    /// `stale`, `ignored`, `malformed_image`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::NotAFile => "not_a_file",
            ErrorKind::OutsideSandbox => "outside_sandbox",
            ErrorKind::PermissionDenied => "permission_denied",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::Io => "io",
            ErrorKind::SpecialFile => "special_file",
            ErrorKind::Device => "device",
            ErrorKind::Credential => "credential",
            ErrorKind::Binary => "binary",
            ErrorKind::LoopBlocked => "loop_blocked",
            ErrorKind::EchoedOutput => "echoed_output",
            ErrorKind::Unencodable => "unencodable",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::MalformedDocument => "malformed_document",
            ErrorKind::EncryptedDocument => "encrypted_document",
            ErrorKind::BinaryDocument => "binary_document",
            ErrorKind::Stale => "stale",
            ErrorKind::Ignored => "ignored",
            ErrorKind::MalformedImage => "malformed_image",
        }
    }
}

impl DocumentFormat {
    /// The lowercase name used in JSON: `ipynb`, `docx`, `xlsx`, `xls`, `ods`, `pptx`, `odp`, `odt`, `epub`, `pdf`.
    pub fn as_str(&self) -> &'static str {
        match self {
            DocumentFormat::Ipynb => "ipynb",
            DocumentFormat::Docx => "docx",
            DocumentFormat::Xlsx => "xlsx",
            DocumentFormat::Xls => "xls",
            DocumentFormat::Ods => "ods",
            DocumentFormat::Pptx => "pptx",
            DocumentFormat::Odp => "odp",
            DocumentFormat::Odt => "odt",
            DocumentFormat::Epub => "epub",
            DocumentFormat::Pdf => "pdf",
        }
    }
}

impl PartKind {
    /// The lowercase name used in JSON: `cell`, `page`, `sheet`, `slide`, `chapter`.
    pub fn as_str(&self) -> &'static str {
        match self {
            PartKind::Cell => "cell",
            PartKind::Page => "page",
            PartKind::Sheet => "sheet",
            PartKind::Slide => "slide",
            PartKind::Chapter => "chapter",
        }
    }
}

impl Truncation {
    /// The snake_case name used in JSON: `limit`, `budget`, `line_length`, `mid_line`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Truncation::Limit => "limit",
            Truncation::Budget => "budget",
            Truncation::LineLength => "line_length",
            Truncation::MidLine => "mid_line",
        }
    }
}

impl TextEncoding {
    /// The name used in JSON: `utf8`, `utf16le`, `utf16be`, `utf32le`, `utf32be`, or a legacy encoding's
    /// lower-case WHATWG name (`windows-1251`, `shift_jis`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            TextEncoding::Legacy(name) => name,
            TextEncoding::Utf8 => "utf8",
            TextEncoding::Utf16le => "utf16le",
            TextEncoding::Utf16be => "utf16be",
            TextEncoding::Utf32le => "utf32le",
            TextEncoding::Utf32be => "utf32be",
        }
    }
}

impl EncodingOrigin {
    /// The name used in JSON: `declared` (a byte order mark) or `detected` (from the content).
    pub fn as_str(&self) -> &'static str {
        match self {
            EncodingOrigin::Declared => "declared",
            EncodingOrigin::Detected => "detected",
        }
    }
}

impl LineEndings {
    /// The name used in JSON: `none`, `lf`, `crlf`, `mixed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            LineEndings::None => "none",
            LineEndings::Lf => "lf",
            LineEndings::Crlf => "crlf",
            LineEndings::Mixed => "mixed",
            LineEndings::Cr => "cr",
        }
    }
}

impl BudgetUnit {
    /// The name used in JSON: `characters`, `tokens`.
    pub fn as_str(&self) -> &'static str {
        match self {
            BudgetUnit::Characters => "characters",
            BudgetUnit::Tokens => "tokens",
        }
    }
}
