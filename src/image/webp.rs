//! WebP (lossy, lossless, animated: its first frame), decoded whole by image-webp under
//! [`DECODED_MAX_BYTES`](super::DECODED_MAX_BYTES), then box-scaled.

use std::io::{BufReader, Read, Seek};

use super::geometry::{self, Request};
use super::scale::{to_rgba, BoxScaler};
use super::{exif, Decoded, ImageError, DECODED_MAX_BYTES};
use crate::prose::grouped;

/// Decodes the WebP in `source` (its first frame) as `request` plans it.
pub(super) fn decode<R: Read + Seek>(
    source: &mut R,
    request: &Request<'_>,
) -> Result<Decoded, ImageError> {
    let mut decoder =
        image_webp::WebPDecoder::new(BufReader::new(source)).map_err(|e| malformed(&e))?;
    let (width, height) = decoder.dimensions();
    let channels = if decoder.has_alpha() { 4 } else { 3 };
    let bytes = u64::from(width) * u64::from(height) * channels as u64;
    if bytes > DECODED_MAX_BYTES {
        return Err(ImageError::too_large(format!(
            "The WebP is {} x {} pixels, {} MiB decoded, more than the {} MiB allowed. Convert it first \
             (`dwebp in.webp -o out.png`, then read a region of the PNG).",
            grouped(width.into()),
            grouped(height.into()),
            grouped(bytes >> 20),
            DECODED_MAX_BYTES >> 20
        )));
    }
    let orientation = decoder
        .exif_metadata()
        .ok()
        .flatten()
        .map_or(1, |e| exif::orientation(&e));
    let frames = if decoder.is_animated() {
        decoder.num_frames().max(1)
    } else {
        1
    };
    let plan = geometry::plan(width, height, orientation, request)?;
    let mut pixels = vec![0u8; decoder.output_buffer_size().unwrap_or(0)];
    decoder.read_image(&mut pixels).map_err(|e| malformed(&e))?;
    let mut scaler = BoxScaler::new(plan.source, plan.stored_out_width, plan.stored_out_height);
    let mut rgba = Vec::new();
    for row in pixels.chunks_exact((width as usize * channels).max(1)) {
        to_rgba(row, channels, &mut rgba);
        scaler.push(&rgba);
    }
    let raster = scaler.finish().ok_or_else(|| {
        ImageError::malformed("The WebP decoded to fewer rows than its header gives.")
    })?;
    Ok(Decoded {
        raster,
        plan,
        frames,
    })
}

fn malformed(e: &image_webp::DecodingError) -> ImageError {
    ImageError::malformed(format!("The WebP is truncated or corrupt: {e}."))
}
