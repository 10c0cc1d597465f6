//! Image windows: a PNG, JPEG, GIF, WebP or BMP read whole or by region, scaled to an image budget.
//!
//! # Concepts
//!
//! An image is judged by its first bytes ([`sniff_image`]), never its extension. A read ([`read_image`]) returns
//! one **window**: the image, or a **region** of it (its cursor, in original pixels after EXIF orientation),
//! scaled by the largest factor the [`ImageBudget`] allows and encoded as PNG (screenshots, line art) or JPEG
//! (photographs). When the file already fits as it is, its own bytes are the window.
//!
//! Memory follows the output, not the input: PNG rows stream through a box scaler ([`scale`]) that keeps one
//! accumulator row, and a JPEG is decoded at the smallest DCT scale that still gives enough pixels. A header
//! that claims more than a cap ([`STREAM_MAX_PIXELS`], [`DECODED_MAX_BYTES`]) is refused before decoding.
//!
//! # Layout
//!
//! `sniff` (magic bytes), `geometry` (scale, tiles, orientation, the plan of a read), `scale` (the streaming
//! scaler and the RGBA raster), one file a decoder (`png`, `jpeg`, `gif`, `webp`, `bmp`) and `exif`, `encode`
//! (PNG or JPEG under the byte budget) and `hint` (the words). This file holds the shared types and sequences a
//! read.

// The decoders, the scaler and the encoders are the `images` feature; the types and the sniff are always here, so
// that a build without it still routes nothing as an image and says why.
#[cfg(feature = "images")]
mod bmp;
#[cfg(feature = "images")]
mod encode;
#[cfg(feature = "images")]
mod exif;
#[cfg(feature = "images")]
mod geometry;
#[cfg(feature = "images")]
mod gif;
#[cfg(feature = "images")]
mod hint;
#[cfg(feature = "images")]
mod jpeg;
#[cfg(feature = "images")]
mod pipeline;
#[cfg(feature = "images")]
mod png;
#[cfg(feature = "images")]
mod scale;
mod sniff;
#[cfg(feature = "images")]
mod webp;

#[cfg(all(test, feature = "images"))]
mod fixtures;
#[cfg(all(test, feature = "images"))]
mod tests;

#[cfg(feature = "images")]
pub use geometry::{tiles, Tiles};
#[cfg(feature = "images")]
pub use hint::hint;
#[cfg(feature = "images")]
pub use pipeline::read_image;
#[cfg(feature = "images")]
use pipeline::Decoded;
pub use sniff::{sniff_image, Sniffed};

/// Most pixels a streaming (non-interlaced) PNG header may claim: 500,000,000 (a 20,000 x 20,000 scan reads; a
/// 100,000 x 100,000 decompression bomb is refused at once). Its rows are scaled as they stream, so memory
/// follows the output.
pub const STREAM_MAX_PIXELS: u64 = 500_000_000;

/// Most bytes an image decoded whole may take (width x height x bytes per pixel): 160 MiB. It caps an interlaced
/// PNG, a GIF canvas, a WebP, a BMP and a JPEG at its chosen DCT scale, within the sandbox's 256 MiB.
pub const DECODED_MAX_BYTES: u64 = 160 * 1024 * 1024;

/// A rectangle in original pixels (after EXIF orientation): the image's cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PixelRegion {
    /// Left edge, in pixels from the image's left.
    pub x: u32,
    /// Top edge, in pixels from the image's top.
    pub y: u32,
    /// Width in pixels (at least 1).
    pub width: u32,
    /// Height in pixels (at least 1).
    pub height: u32,
}

impl std::fmt::Display for PixelRegion {
    /// `x,y,width,height`, as a hint names a region (`region=0,0,1200,800`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{},{},{}", self.x, self.y, self.width, self.height)
    }
}

/// Characters of an image window's base64 at most by default: 5 MiB, what the Anthropic API checks.
pub const MAX_BASE64_BYTES: u64 = 5_242_880;

/// What an image window may hold.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageBudget {
    /// Longest side of the window's image, in pixels (default 1,568).
    pub max_side_px: u32,
    /// Pixels of the window's image, width x height (default 1,150,000).
    pub max_pixels: u64,
    /// Characters of the image's base64 (default 5,242,880: 5 MiB, what the Anthropic API checks).
    pub max_base64_bytes: u64,
}

impl Default for ImageBudget {
    fn default() -> Self {
        ImageBudget {
            max_side_px: 1568,
            max_pixels: 1_150_000,
            max_base64_bytes: MAX_BASE64_BYTES,
        }
    }
}

/// An image format read into windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// Portable Network Graphics (also the first frame of an APNG).
    Png,
    /// JPEG (JFIF or EXIF).
    Jpeg,
    /// GIF, still or animated.
    Gif,
    /// WebP, lossy or lossless, still or animated.
    WebP,
    /// Windows bitmap.
    Bmp,
}

impl ImageFormat {
    /// The format's usual name: "PNG", "JPEG", "GIF", "WebP", "BMP".
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::Png => "PNG",
            ImageFormat::Jpeg => "JPEG",
            ImageFormat::Gif => "GIF",
            ImageFormat::WebP => "WebP",
            ImageFormat::Bmp => "BMP",
        }
    }

    /// The format's MIME type, e.g. "image/png".
    pub fn mime_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::WebP => "image/webp",
            ImageFormat::Bmp => "image/bmp",
        }
    }

    /// Whether a file of this format may be sent as it is (the formats the model APIs take).
    #[cfg(feature = "images")]
    fn sendable(self) -> bool {
        !matches!(self, ImageFormat::Bmp)
    }
}

/// One window of an image.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageWindow {
    /// The MIME type of `data`: "image/png" or "image/jpeg", or the source's own when `kept_original`.
    pub mime_type: &'static str,
    /// Width of `data`'s image, in pixels.
    pub width: u32,
    /// Height of `data`'s image, in pixels.
    pub height: u32,
    /// Width of the whole image, in original pixels after EXIF orientation.
    pub original_width: u32,
    /// Height of the whole image, in original pixels after EXIF orientation.
    pub original_height: u32,
    /// The scale `data` shows `region` at: min(width / region.width, height / region.height), 1.0 at full
    /// resolution (then `data`'s pixels are the source's).
    pub scale: f64,
    /// What `data` shows, in original pixels, clipped to the image.
    pub region: PixelRegion,
    /// The asked region went past the image's edge and was clipped to it.
    pub clipped: bool,
    /// Frames in the file (1 for a still image); `data` shows the first.
    pub frames: u32,
    /// The file's format.
    pub source_format: ImageFormat,
    /// `data` is the file's own bytes.
    pub kept_original: bool,
    /// The EXIF orientation applied (1 to 8), 1 when none.
    pub orientation: u8,
    /// The encoded image.
    pub data: Vec<u8>,
}

/// Why an image could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageErrorKind {
    /// The header claims more pixels or decoded bytes than a cap, or the image cannot fit the budget.
    TooLarge,
    /// The file is truncated or corrupt, or uses a variant the decoder does not read.
    Malformed,
    /// The region is empty or starts outside the image.
    InvalidRegion,
}

/// An image read's error: its kind and a sentence a model can act on (no path in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageError {
    /// What went wrong.
    pub kind: ImageErrorKind,
    /// One or two sentences: what was found and what to do.
    pub message: String,
}

#[cfg(feature = "images")]
impl ImageError {
    fn new(kind: ImageErrorKind, message: impl Into<String>) -> Self {
        ImageError {
            kind,
            message: message.into(),
        }
    }

    fn malformed(message: impl Into<String>) -> Self {
        ImageError::new(ImageErrorKind::Malformed, message)
    }

    fn too_large(message: impl Into<String>) -> Self {
        ImageError::new(ImageErrorKind::TooLarge, message)
    }
}

impl std::fmt::Display for ImageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ImageError {}
