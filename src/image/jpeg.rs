//! JPEG: decoded by jpeg-decoder at the smallest DCT scale (1/8, 1/4, 1/2 or 1) that still gives the output
//! enough pixels, then box-scaled. What it decodes whole is capped by [`DECODED_MAX_BYTES`].

use std::io::{BufReader, Read, Seek};

use jpeg_decoder::PixelFormat;

use super::geometry::{self, Plan, Rect, Request};
use super::scale::{to_rgba, BoxScaler};
use super::{exif, Decoded, ImageError, DECODED_MAX_BYTES};
use crate::prose::grouped;

/// Decodes the JPEG in `source` as `request` plans it.
pub(super) fn decode<R: Read + Seek>(
    source: &mut R,
    request: &Request<'_>,
) -> Result<Decoded, ImageError> {
    let mut decoder = jpeg_decoder::Decoder::new(BufReader::new(source));
    decoder.read_info().map_err(|e| malformed("header", &e))?;
    let info = decoder
        .info()
        .ok_or_else(|| ImageError::malformed("The JPEG has no frame header (SOF marker)."))?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    let orientation = decoder.exif_data().map_or(1, exif::orientation);
    let plan = geometry::plan(width, height, orientation, request)?;
    let denominator = dct_denominator(plan.source, plan.stored_out_width, plan.stored_out_height);
    let (dw, dh) = (width.div_ceil(denominator), height.div_ceil(denominator));
    check_cap(dw, dh, info.pixel_format.pixel_bytes() as u64, denominator)?;
    let (aw, ah) = decoder
        .scale(dw as u16, dh as u16)
        .map_err(|e| malformed("header", &e))?;
    decoder.set_max_decoding_buffer_size(DECODED_MAX_BYTES as usize);
    let pixels = decoder.decode().map_err(|e| malformed("image data", &e))?;
    let raster = scale_decoded(
        &pixels,
        info.pixel_format,
        (u32::from(aw), u32::from(ah)),
        (width, height),
        &plan,
    )?;
    Ok(Decoded {
        raster,
        plan,
        frames: 1,
    })
}

/// The largest DCT denominator (8, 4, 2 or 1) at which `rect` still has at least `out_width` x `out_height`
/// pixels: how much smaller than the file the decoder may work.
pub(super) fn dct_denominator(rect: Rect, out_width: u32, out_height: u32) -> u32 {
    [8, 4, 2]
        .into_iter()
        .find(|&d| rect.width / d >= out_width && rect.height / d >= out_height)
        .unwrap_or(1)
}

fn check_cap(
    width: u32,
    height: u32,
    bytes_per_pixel: u64,
    denominator: u32,
) -> Result<(), ImageError> {
    let bytes = u64::from(width) * u64::from(height) * bytes_per_pixel;
    if bytes <= DECODED_MAX_BYTES {
        return Ok(());
    }
    Err(ImageError::too_large(format!(
        "The JPEG would decode at 1/{denominator} scale to {} x {} pixels, {} MiB, more than the {} MiB allowed. \
         Ask for a smaller scale (a larger region is read at a coarser DCT scale), or convert it first \
         (`magick in.jpg -resize 50% out.jpg`).",
        grouped(width.into()),
        grouped(height.into()),
        grouped(bytes >> 20),
        DECODED_MAX_BYTES >> 20,
    )))
}

/// Scales the decoded pixels (`decoded` size) of a `full`-size JPEG to the plan's output.
fn scale_decoded(
    pixels: &[u8],
    format: PixelFormat,
    decoded: (u32, u32),
    full: (u32, u32),
    plan: &Plan,
) -> Result<super::scale::Raster, ImageError> {
    let (aw, ah) = decoded;
    let map = |v: u32, size: u32, full: u32, up: bool| {
        let scaled = u64::from(v) * u64::from(size);
        let full = u64::from(full.max(1));
        (if up {
            scaled.div_ceil(full)
        } else {
            scaled / full
        })
        .min(u64::from(size)) as u32
    };
    let s = plan.source;
    let x0 = map(s.x, aw, full.0, false);
    let y0 = map(s.y, ah, full.1, false);
    let x1 = map(s.x + s.width, aw, full.0, true).max(x0 + 1);
    let y1 = map(s.y + s.height, ah, full.1, true).max(y0 + 1);
    let rect = Rect {
        x: x0,
        y: y0,
        width: x1 - x0,
        height: y1 - y0,
    };
    let mut scaler = BoxScaler::new(rect, plan.stored_out_width, plan.stored_out_height);
    let bytes = format.pixel_bytes();
    let line = aw as usize * bytes;
    let mut row8 = Vec::new();
    let mut rgba = Vec::new();
    for row in pixels.chunks_exact(line.max(1)).take(y1 as usize) {
        let channels = match format {
            PixelFormat::L8 => 1,
            PixelFormat::RGB24 => 3,
            PixelFormat::L16 => {
                row8.clear();
                row8.extend(row.chunks_exact(2).map(|p| p[0]));
                to_rgba(&row8, 1, &mut rgba);
                scaler.push(&rgba);
                continue;
            }
            PixelFormat::CMYK32 => {
                cmyk_to_rgba(row, &mut rgba);
                scaler.push(&rgba);
                continue;
            }
        };
        to_rgba(row, channels, &mut rgba);
        scaler.push(&rgba);
    }
    let seen = scaler.rows_seen();
    scaler.finish().ok_or_else(|| {
        ImageError::malformed(format!(
            "The JPEG decoded to {} rows, fewer than the {} its header gives at this scale.",
            grouped(seen.into()),
            grouped(ah.into())
        ))
    })
}

/// CMYK as jpeg-decoder gives it (Adobe's inverted samples) to RGBA.
fn cmyk_to_rgba(row: &[u8], rgba: &mut Vec<u8>) {
    rgba.clear();
    for p in row.chunks_exact(4) {
        let k = u16::from(p[3]);
        let c = |v: u8| ((u16::from(v) * k + 127) / 255) as u8;
        rgba.extend_from_slice(&[c(p[0]), c(p[1]), c(p[2]), 255]);
    }
}

fn malformed(part: &str, e: &jpeg_decoder::Error) -> ImageError {
    ImageError::malformed(format!(
        "The JPEG is truncated or corrupt: its {part} could not be decoded ({e})."
    ))
}
