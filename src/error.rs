//! Typed errors of a read: a kind the host can branch on and a message a model can act on.

use std::fmt;

/// What went wrong, mirroring the WIT `error-kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// No such file, or a component of the path is missing.
    NotFound,
    /// Not the kind of entry the request needs: a `read_many` pattern whose directory is a file.
    NotAFile,
    /// The path, or a link it passes through, leaves every granted directory.
    OutsideSandbox,
    /// The host or the file system refused access.
    PermissionDenied,
    /// The request or the config is malformed; the message names the field.
    InvalidRequest,
    /// The file system failed while reading.
    Io,
    /// A FIFO, socket, character or block device, refused by its type without being opened.
    SpecialFile,
    /// A device or process file known to block or never end, refused by its name.
    Device,
    /// A credential store refused by the deny-list.
    Credential,
    /// Content that is not text.
    Binary,
    /// The same window was read again and again.
    LoopBlocked,
    /// Text offered for writing contains output of this component (a stub, a block message, a marker).
    EchoedOutput,
    /// Text offered for writing holds a character the file's legacy encoding cannot encode.
    Unencodable,
    /// A document over a cap (50 MB input, zip entries, decompressed size, compression ratio), or an image whose
    /// header claims more pixels than can be decoded; the message names the cap.
    TooLarge,
    /// A document that cannot be extracted: corrupt, or not the format its name promises (the message says what
    /// was found).
    MalformedDocument,
    /// A password-protected document.
    EncryptedDocument,
    /// Text offered for writing over a binary document (a zip or OLE container, a PDF): the text is an extraction.
    BinaryDocument,
    /// Text offered for writing over a file that changed since this session last read it (or was told it was
    /// written): the edit was built on an old read.
    Stale,
    /// The path is ignored by the rules of the session's ignore files (config `ignore_files`).
    Ignored,
    /// An image that cannot be decoded: truncated or corrupt (the message says what was found).
    MalformedImage,
}

impl ErrorKind {
    /// The snake_case name used in JSON (`not_found`, `loop_blocked`, ...).
    pub fn name(self) -> &'static str {
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

/// A failed read: the kind, a message for the model, and the facts a host can act on without parsing the message
/// (the count of a `LoopBlocked` read, the path tried, the similar names offered, the file's line count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// One or two sentences saying what happened and what to do instead.
    pub message: String,
    /// For `LoopBlocked`: consecutive identical reads, this one included.
    pub already_read: Option<u32>,
    /// The absolute guest path the read tried (after resolving against the working directory, and after links
    /// once they were resolved); `None` when the request was refused before a path was formed.
    pub path: Option<String>,
    /// Names offered instead of a missing one (the similar names of its directory, best first, at most three);
    /// empty when none were offered.
    pub suggestions: Vec<String>,
    /// For an offset or column past the end: the file's line count (a last line without a line break counts).
    pub total_lines: Option<u64>,
}

impl ReadError {
    /// An error of `kind` with `message` and no count.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ReadError {
            kind,
            message: message.into(),
            already_read: None,
            path: None,
            suggestions: Vec::new(),
            total_lines: None,
        }
    }

    /// The same error with the count of a `LoopBlocked` read (this one included).
    pub fn with_count(mut self, already_read: u32) -> Self {
        self.already_read = Some(already_read);
        self
    }

    /// The same error with `path` as the path tried, unless one is already set (the first, most precise, wins).
    pub fn at_path(mut self, path: &str) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_string());
        }
        self
    }

    /// The same error offering `suggestions` (similar names, best first).
    pub fn with_suggestions(mut self, suggestions: Vec<String>) -> Self {
        self.suggestions = suggestions;
        self
    }

    /// The same error with the file's line count (for an offset or column past the end).
    pub fn with_total_lines(mut self, total_lines: u64) -> Self {
        self.total_lines = Some(total_lines);
        self
    }

    /// An `InvalidRequest` error.
    pub fn invalid(message: impl Into<String>) -> Self {
        ReadError::new(ErrorKind::InvalidRequest, message)
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}: {}", self.kind.name(), self.message)
    }
}

impl std::error::Error for ReadError {}

/// An error of the byte source or the file system, before it is given a path and turned into a `ReadError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FsError {
    /// The entry does not exist.
    NotFound,
    /// Access was refused.
    PermissionDenied,
    /// A path component is not a directory.
    NotADirectory,
    /// A name on the path changed between the walk that checked it and the open: a directory or file the walk
    /// saw was replaced by a link or another entry (see `beneath`). Nothing was opened through it.
    Changed,
    /// Any other failure, described.
    Other(String),
}

impl FsError {
    /// Turns the file-system error into a read error about `path`.
    pub fn into_read_error(self, path: &str) -> ReadError {
        let path = crate::prose::path_in_prose(path);
        match self {
            FsError::NotFound => ReadError::new(
                ErrorKind::NotFound,
                format!("{path} does not exist. Check the path, or list its directory first."),
            ),
            FsError::PermissionDenied => ReadError::new(
                ErrorKind::PermissionDenied,
                format!("Permission to read {path} was denied by the host or the file system; reading it again will be denied again. Ask the user for access, or read another file."),
            ),
            FsError::NotADirectory => ReadError::new(
                ErrorKind::NotFound,
                format!("{path} does not exist: a component of the path is a file, not a directory."),
            ),
            FsError::Changed => ReadError::new(
                ErrorKind::Io,
                format!("{path} changed while read-window opened it: a directory or file on the way was replaced (by a link or another entry) after it was checked, on every try, so nothing was read through it. Read it again once the directory settles; if it keeps changing, ask the user what is rewriting it."),
            ),
            FsError::Other(detail) if is_transient(&detail) => ReadError::new(
                ErrorKind::Io,
                format!("Reading {path} failed: {detail}. This kind of failure is temporary: one more read may succeed; if it fails again, stop and tell the user."),
            ),
            FsError::Other(detail) => ReadError::new(
                ErrorKind::Io,
                format!("Reading {path} failed: {detail}. The file system refuses to read this file this way (a write-only or kernel file, or a broken device), so reading it again will fail the same way; read another file, or ask the user."),
            ),
        }
    }
}

/// Whether a failure described by `detail` (a WASI error code's message and name, or an OS error's text) can heal
/// by itself: the resource was busy, the call was interrupted or would have blocked, or it timed out.
pub fn is_transient(detail: &str) -> bool {
    let detail = detail.to_ascii_lowercase();
    [
        "would-block",
        "would block",
        "interrupted",
        "busy",
        "in-progress",
        "temporarily unavailable",
        "timed out",
        "timed-out",
        "insufficient-memory",
    ]
    .iter()
    .any(|word| detail.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_failures_that_heal_invite_another_read() {
        let lasting = FsError::Other("Invalid argument (invalid)".to_string())
            .into_read_error("/proc/self/clear_refs");
        assert_eq!(lasting.kind, ErrorKind::Io);
        assert!(lasting.message.contains("will fail the same way"));
        assert!(!lasting.message.to_ascii_lowercase().contains("retry"));
        let passing = FsError::Other("Resource busy (busy)".to_string()).into_read_error("/p/a");
        assert!(passing.message.contains("one more read may succeed"));
        let denied = FsError::PermissionDenied.into_read_error("/p/a");
        assert!(denied.message.contains("denied again"));
    }
}
