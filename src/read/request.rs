//! Stage 1: a [`ReadRequest`] as the host sends it, normalized into the window or tail to read.

use super::*;

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
    /// Return the content even when this session already returned the same unchanged window (no stub): the way
    /// back for a model whose context lost the earlier result (compaction). The read still counts in the tripwire.
    pub fresh: bool,
    /// For an image: the part to show, in original pixels; `None` the whole image. An error for any other file.
    pub region: Option<crate::image::PixelRegion>,
    /// For a directory: the levels its listing shows (1, the default, its own entries; 2 also theirs, as
    /// relative paths). An error for a file.
    pub depth: Option<u32>,
}

/// The normalized request and the path it names.
pub(super) struct Prepared {
    pub(super) request: WindowRequest,
    /// The last lines asked for, when the request is a tail read.
    pub(super) tail: Option<TailRequest>,
    /// The absolute, normalized guest path asked for.
    pub(super) absolute: String,
}

pub(super) fn prepare<F: FileSystem + ?Sized>(
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
pub(super) struct TailRequest {
    /// The last lines asked for.
    pub(super) asked: u64,
    /// The last lines read at most: `asked`, capped at the limit and max-lines.
    pub(super) lines: u64,
    /// The cap in words (`"limit is 5"`, `"max-lines is 2000"`), for the hint when `lines < asked`.
    pub(super) capped_by: String,
}

/// The working directory: the config's (normalized), else the first preopen, else `/`.
pub(super) fn working_directory<F: FileSystem + ?Sized>(config: &Config, fs: &F) -> String {
    match &config.working_directory {
        Some(directory) => normalize(directory, "/"),
        None => fs
            .roots()
            .first()
            .cloned()
            .unwrap_or_else(|| "/".to_string()),
    }
}
