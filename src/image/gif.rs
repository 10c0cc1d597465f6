//! GIF: the first frame, placed on its transparent canvas row by row, and the count of all frames (counted in a
//! second pass that skips LZW decoding).

use std::io::{BufReader, Read, Seek, SeekFrom};

use super::geometry::{self, Request};
use super::scale::BoxScaler;
use super::{Decoded, ImageError, DECODED_MAX_BYTES};
use crate::prose::grouped;

/// Decodes the first frame of the GIF in `source` as `request` plans it, and counts its frames.
pub(super) fn decode<R: Read + Seek>(
    source: &mut R,
    request: &Request<'_>,
) -> Result<Decoded, ImageError> {
    let mut options = ::gif::DecodeOptions::new();
    options.set_color_output(::gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(BufReader::new(&mut *source))
        .map_err(|e| malformed(&e))?;
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let bytes = u64::from(width) * u64::from(height) * 4;
    if bytes > DECODED_MAX_BYTES {
        return Err(ImageError::too_large(format!(
            "The GIF's canvas is {} x {} pixels, {} MiB decoded, more than the {} MiB allowed. Convert its first \
             frame first (`magick 'in.gif[0]' -resize 50% out.png`).",
            grouped(width.into()),
            grouped(height.into()),
            grouped(bytes >> 20),
            DECODED_MAX_BYTES >> 20
        )));
    }
    let plan = geometry::plan(width, height, 1, request)?;
    let frame = decoder
        .read_next_frame()
        .map_err(|e| malformed(&e))?
        .ok_or_else(|| ImageError::malformed("The GIF has no frame."))?;
    let mut scaler = BoxScaler::new(plan.source, plan.stored_out_width, plan.stored_out_height);
    let (left, top) = (usize::from(frame.left), u32::from(frame.top));
    let frame_width = usize::from(frame.width);
    let mut row = vec![0u8; width as usize * 4];
    for y in 0..height {
        row.fill(0);
        if y >= top {
            let start = (y - top) as usize * frame_width * 4;
            if let Some(line) = frame.buffer.get(start..start + frame_width * 4) {
                let end = ((left + frame_width) * 4).min(row.len());
                if let Some(dst) = row.get_mut(left * 4..end) {
                    let n = dst.len();
                    dst.copy_from_slice(&line[..n]);
                }
            }
        }
        scaler.push(&row);
    }
    let raster = scaler.finish().ok_or_else(|| {
        ImageError::malformed("The GIF's first frame could not be placed on its canvas.")
    })?;
    drop(decoder);
    let frames = count_frames(source)?;
    Ok(Decoded {
        raster,
        plan,
        frames,
    })
}

/// Counts the GIF's frames without decoding them.
fn count_frames<R: Read + Seek>(source: &mut R) -> Result<u32, ImageError> {
    source
        .seek(SeekFrom::Start(0))
        .map_err(|e| ImageError::malformed(format!("The GIF could not be read again: {e}.")))?;
    let mut options = ::gif::DecodeOptions::new();
    options.skip_frame_decoding(true);
    let mut decoder = options
        .read_info(BufReader::new(source))
        .map_err(|e| malformed(&e))?;
    let mut frames = 0u32;
    while decoder
        .read_next_frame()
        .map_err(|e| malformed(&e))?
        .is_some()
    {
        frames += 1;
    }
    Ok(frames.max(1))
}

fn malformed(e: &::gif::DecodingError) -> ImageError {
    ImageError::malformed(format!("The GIF is truncated or corrupt: {e}."))
}
