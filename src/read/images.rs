//! Stage 4 for an image (docs/behaviour/images.md): a file whose first bytes say PNG, JPEG, GIF, WebP or BMP is
//! read as an image window (`crate::image`): the whole picture or a region of it, fitted to the image budget,
//! with the hint that names the regions at full resolution. Session memory keys it by its region.

use super::*;
use crate::image::{ImageFormat, ImageWindow, PixelRegion, Sniffed};

/// A window of an image with everything a result reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageResult {
    /// The picture, its sizes, scale, region and frames.
    pub window: ImageWindow,
    /// The resolved guest path.
    pub path: String,
    /// The sentence for the model: the size, the scale shown, the regions at full resolution.
    pub hint: String,
    /// The file's size in bytes.
    pub file_size: u64,
    /// Warnings: a loop warning, a config value replaced by its default.
    pub warnings: Vec<String>,
}

/// What the first bytes of an opened file make of it: text (or a document) read by lines, or an image.
pub(super) enum Routed<File> {
    /// Read by lines (text, a document, or refused by the sniffer as binary).
    Lines(ReadAhead<File>),
    /// Read as an image of `format`.
    Image(ReadAhead<File>, ImageFormat),
}

/// Routes the opened `file` of `resolved` by its first bytes: an image when images are on (`config.images`, the
/// `images` feature) and the read asks for content (`extract` not false). A format that cannot be decoded here
/// (HEIC, AVIF, TIFF and camera raw, JPEG XL) is refused as `binary`, naming a converter. A `region` for a file
/// that is not read as an image is `invalid_request`.
pub(super) fn route<S: ByteSource>(
    mut file: ReadAhead<S>,
    resolved: &Resolved,
    config: &Config,
    request: &ReadRequest,
) -> Result<Routed<S>, ReadError> {
    let requested = request.path.as_str();
    let wanted = cfg!(feature = "images") && config.images && request.extract != Some(false);
    let sniffed = if wanted && resolved.stat.size > 0 {
        let head = document_head(&mut file, resolved.stat.size)
            .map_err(|error| error.into_read_error(requested))?;
        crate::image::sniff_image(head)
    } else {
        None
    };
    match sniffed {
        Some(Sniffed::Image(format)) => Ok(Routed::Image(file, format)),
        Some(Sniffed::Unsupported { format, advice }) => Err(ReadError::new(
            ErrorKind::Binary,
            format!(
                "{} is {} {format} image, which read-window cannot decode. {advice}",
                crate::prose::path_in_prose(requested),
                if format.starts_with(['A', 'E', 'I', 'O', 'U']) {
                    "an"
                } else {
                    "a"
                }
            ),
        )),
        None if request.region.is_some() => Err(region_refusal(requested, config, request)),
        None => Ok(Routed::Lines(file)),
    }
}

/// The refusal of a `region` for a file not read as an image: why it is not, and how to read it.
fn region_refusal(requested: &str, config: &Config, request: &ReadRequest) -> ReadError {
    let shown = crate::prose::path_in_prose(requested);
    let why = if !cfg!(feature = "images") {
        "this build of read-window reads no images (it was built without the `images` feature)"
            .to_owned()
    } else if !config.images {
        "this session reads no images (config `images` is false)".to_owned()
    } else if request.extract == Some(false) {
        "extract=false reads a file's own bytes, never an image".to_owned()
    } else {
        format!("{shown} is not a PNG, JPEG, GIF, WebP or BMP image")
    };
    ReadError::invalid(format!(
        "`region` is for images, and {why}: read {shown} without it (by lines: offset and limit)."
    ))
}

/// The image window of `file` (`format`, the file `resolved`): the region asked for, fitted to `budget` (the
/// default, or in `read_many` what the call's images and its token budget left). Errors: `too_large` (a header
/// over the caps), `malformed_image`, `invalid_request` (a region that starts outside the image or is empty), `io`.
#[cfg(feature = "images")]
pub(super) fn image_result<S: ByteSource>(
    file: ReadAhead<S>,
    format: ImageFormat,
    resolved: &Resolved,
    request: &ReadRequest,
    budget: &crate::image::ImageBudget,
) -> Result<ImageResult, ReadError> {
    use crate::image::ImageErrorKind;
    let requested = request.path.as_str();
    let size = resolved.stat.size;
    let mut reader = crate::source::SourceReader::new(file, size);
    let decoded = crate::image::read_image(&mut reader, size, format, request.region, budget);
    if let Some(error) = reader.take_error() {
        return Err(error.into_read_error(requested));
    }
    let window = decoded.map_err(|error| {
        let kind = match error.kind {
            ImageErrorKind::TooLarge => ErrorKind::TooLarge,
            ImageErrorKind::Malformed => ErrorKind::MalformedImage,
            ImageErrorKind::InvalidRegion => ErrorKind::InvalidRequest,
        };
        ReadError::new(
            kind,
            format!(
                "{}: {}",
                crate::prose::path_in_prose(requested),
                error.message
            ),
        )
    })?;
    let hint = crate::image::hint(&window, &resolved.path, budget);
    Ok(ImageResult {
        window,
        path: resolved.path.clone(),
        hint,
        file_size: size,
        warnings: Vec::new(),
    })
}

/// Without the `images` feature no file is routed as an image ([`route`]); one that were would be binary.
#[cfg(not(feature = "images"))]
pub(super) fn image_result<S: ByteSource>(
    _file: ReadAhead<S>,
    format: ImageFormat,
    _resolved: &Resolved,
    request: &ReadRequest,
    _budget: &crate::image::ImageBudget,
) -> Result<ImageResult, ReadError> {
    Err(ReadError::new(
        ErrorKind::Binary,
        format!(
            "{} is a {} image. {}",
            crate::prose::path_in_prose(&request.path),
            format.name(),
            binary_advice("image", &request.path)
        ),
    ))
}

/// What an image window says, hashed: its pixels and what frames it stands for.
fn image_hash(window: &ImageWindow) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    window.data.hash(&mut hasher);
    (window.original_width, window.original_height, window.frames).hash(&mut hasher);
    hasher.finish()
}

impl Reader {
    /// The answer to a read of an image whose window is `result`, as the session memory decides: the window, a
    /// stub when the model already has this region unchanged, or `loop_blocked`.
    pub(super) fn image_answer(
        &mut self,
        mut result: ImageResult,
        request: &ReadRequest,
    ) -> Result<ReadOutcome, ReadError> {
        let region = result.window.region;
        let key = DedupKey {
            path: result.path.clone(),
            view: View::Image,
            request: WindowRequest {
                offset: 1,
                column: 0,
                limit: 1,
            },
            shape: 0,
            region: Some(region),
        };
        let hash = image_hash(&result.window);
        match self.memory.decide(&key, hash, &self.config, request.fresh) {
            Decision::Blocked { count, cycle } => {
                let in_call = self.memory.in_call();
                Err(
                    image_loop_blocked(&result.path, &region, (count, cycle), in_call)
                        .at_path(&result.path),
                )
            }
            Decision::Stub => Ok(ReadOutcome::Unchanged(image_stub(&result))),
            Decision::Content { warning } => {
                result.warnings = std::mem::take(&mut self.pending_warnings);
                result.warnings.extend(warning);
                result
                    .warnings
                    .extend(tilde_note(&request.path, &result.path));
                Ok(ReadOutcome::Image(result))
            }
        }
    }
}

/// The stub of an image region the model already has.
fn image_stub(result: &ImageResult) -> UnchangedStub {
    let window = &result.window;
    let path = crate::prose::path_in_prose(&result.path);
    let whole = window.region.width == window.original_width
        && window.region.height == window.original_height;
    let what = if whole {
        "The whole image".to_owned()
    } else {
        format!("Region {}", window.region)
    };
    UnchangedStub {
        path: result.path.clone(),
        start_line: 0,
        end_line: 0,
        total_lines: 0,
        next_offset: None,
        next_column: None,
        region: Some(window.region),
        message: format!(
            "{MARKER_PREFIX}unchanged] {what} of {path} ({} x {}) has not changed since you read it earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true). Another region shows another part.",
            crate::prose::grouped(u64::from(window.original_width)),
            crate::prose::grouped(u64::from(window.original_height)),
        ),
    }
}

/// The `loop_blocked` error of a region of the image `path` read over and over (`in_call`: in the same call for
/// several files made again and again).
fn image_loop_blocked(
    path: &str,
    region: &PixelRegion,
    (count, cycle): (u32, u32),
    in_call: bool,
) -> ReadError {
    let shown = crate::prose::path_in_prose(path);
    let what = format!("region {region}");
    let message = if in_call {
        super::answer::call_loop_blocked(&what, &shown, count)
    } else if cycle > 1 {
        format!(
            "{MARKER_PREFIX}loop-blocked] You have read {what} of {shown} {count} times in a cycle of {cycle} unchanged windows read over and over. Stop re-reading them: use what you already have, read a region you have not read, or change the file first."
        )
    } else {
        format!(
            "{MARKER_PREFIX}loop-blocked] You have read {what} of {shown} {count} times in a row and it has not changed. Stop re-reading it: use what you already have, read a different region, or change the file first."
        )
    };
    ReadError::new(ErrorKind::LoopBlocked, message).with_count(count)
}
