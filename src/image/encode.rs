//! Encoding a window's raster: PNG for screenshots and line art, JPEG for photographs, re-encoded smaller
//! (lower JPEG quality first, then a smaller scale) until its base64 fits the budget.

use super::scale::{scale_raster, Raster};
use super::{ImageBudget, ImageError};

/// JPEG qualities tried in turn before the scale is lowered.
const JPEG_QUALITIES: [u8; 4] = [85, 75, 60, 45];
/// Pixels sampled to count distinct colours, and the count past which the output is a photograph.
const COLOUR_SAMPLE: usize = 65_536;
const PHOTO_COLOURS: usize = 4_096;
/// Each further try shrinks both sides to this fraction.
const SHRINK: f64 = 0.75;

/// An encoded window image.
pub(super) struct Encoded {
    pub mime_type: &'static str,
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

/// The length of the base64 of `bytes` bytes (padded).
pub(super) fn base64_len(bytes: u64) -> u64 {
    bytes.div_ceil(3) * 4
}

/// Encodes `raster` so that its base64 fits `budget`: JPEG when the source was a JPEG or the output looks like a
/// photograph (many colours, opaque), else PNG. TooLarge when not even a 1 x 1 image fits.
pub(super) fn fit(
    mut raster: Raster,
    source_jpeg: bool,
    budget: &ImageBudget,
) -> Result<Encoded, ImageError> {
    let alpha = raster.has_alpha();
    let photo = !alpha && (source_jpeg || many_colours(&raster));
    loop {
        if photo {
            for quality in JPEG_QUALITIES {
                let data = jpeg(&raster, quality)?;
                if base64_len(data.len() as u64) <= budget.max_base64_bytes {
                    return Ok(encoded("image/jpeg", &raster, data));
                }
            }
        } else {
            let data = png(&raster, alpha)?;
            if base64_len(data.len() as u64) <= budget.max_base64_bytes {
                return Ok(encoded("image/png", &raster, data));
            }
        }
        if raster.width <= 1 && raster.height <= 1 {
            return Err(ImageError::too_large(format!(
                "Not even a 1 x 1 image fits a base64 budget of {} bytes.",
                budget.max_base64_bytes
            )));
        }
        let side = |n: u32| ((f64::from(n) * SHRINK) as u32).max(1);
        raster = scale_raster(&raster, side(raster.width), side(raster.height));
    }
}

fn encoded(mime_type: &'static str, raster: &Raster, data: Vec<u8>) -> Encoded {
    Encoded {
        mime_type,
        width: raster.width,
        height: raster.height,
        data,
    }
}

/// Whether a sample of the raster's pixels has more than [`PHOTO_COLOURS`] distinct colours.
fn many_colours(raster: &Raster) -> bool {
    let pixels = raster.pixels.len() / 4;
    let step = pixels.div_ceil(COLOUR_SAMPLE).max(1);
    let mut seen = std::collections::HashSet::with_hasher(rustc_hash::FxBuildHasher);
    for p in raster.pixels.chunks_exact(4).step_by(step) {
        seen.insert(u32::from_le_bytes([p[0], p[1], p[2], 0]));
        if seen.len() > PHOTO_COLOURS {
            return true;
        }
    }
    false
}

/// The raster as RGB bytes (alpha dropped) or, for JPEG, flattened onto white.
fn rgb(raster: &Raster, flatten: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(raster.pixels.len() / 4 * 3);
    for p in raster.pixels.chunks_exact(4) {
        if flatten && p[3] != 255 {
            let a = u16::from(p[3]);
            let over = |c: u8| ((u16::from(c) * a + 255 * (255 - a) + 127) / 255) as u8;
            out.extend_from_slice(&[over(p[0]), over(p[1]), over(p[2])]);
        } else {
            out.extend_from_slice(&p[..3]);
        }
    }
    out
}

/// PNG, RGBA when `alpha`, else RGB; fast compression.
fn png(raster: &Raster, alpha: bool) -> Result<Vec<u8>, ImageError> {
    let failed = |e: ::png::EncodingError| {
        ImageError::malformed(format!("The image could not be encoded as PNG: {e}."))
    };
    let mut data = Vec::new();
    let mut encoder = ::png::Encoder::new(&mut data, raster.width, raster.height);
    encoder.set_color(if alpha {
        ::png::ColorType::Rgba
    } else {
        ::png::ColorType::Rgb
    });
    encoder.set_depth(::png::BitDepth::Eight);
    encoder.set_compression(::png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(failed)?;
    if alpha {
        writer.write_image_data(&raster.pixels).map_err(failed)?;
    } else {
        writer
            .write_image_data(&rgb(raster, false))
            .map_err(failed)?;
    }
    writer.finish().map_err(failed)?;
    Ok(data)
}

/// JPEG at `quality`, alpha flattened onto white.
fn jpeg(raster: &Raster, quality: u8) -> Result<Vec<u8>, ImageError> {
    let too_big = || ImageError::too_large("A JPEG side is at most 65,535 pixels.");
    let width = u16::try_from(raster.width).map_err(|_| too_big())?;
    let height = u16::try_from(raster.height).map_err(|_| too_big())?;
    let mut data = Vec::new();
    jpeg_encoder::Encoder::new(&mut data, quality)
        .encode(
            &rgb(raster, true),
            width,
            height,
            jpeg_encoder::ColorType::Rgb,
        )
        .map_err(|e| {
            ImageError::malformed(format!("The image could not be encoded as JPEG: {e}."))
        })?;
    Ok(data)
}
