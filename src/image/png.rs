//! PNG: rows stream through the box scaler (`Reader::next_row`), so a 20,000 x 20,000 scan reads in the memory
//! of its output. An interlaced PNG is decoded whole, under [`DECODED_MAX_BYTES`](super::DECODED_MAX_BYTES).

use std::io::{BufReader, Read, Seek};

use super::geometry::{self, Request};
use super::scale::{to_rgba, BoxScaler};
use super::{exif, Decoded, ImageError, DECODED_MAX_BYTES, STREAM_MAX_PIXELS};
use crate::prose::grouped;

/// Decodes the PNG in `source` as `request` plans it.
pub(super) fn decode<R: Read + Seek>(
    source: &mut R,
    request: &Request<'_>,
) -> Result<Decoded, ImageError> {
    let mut decoder = ::png::Decoder::new(BufReader::new(source));
    decoder.set_transformations(::png::Transformations::normalize_to_color8());
    decoder.set_ignore_text_chunk(true);
    let header = decoder
        .read_header_info()
        .map_err(|e| malformed_header(&e))?;
    let (width, height) = (header.width, header.height);
    let interlaced = header.interlaced;
    check_caps(width, height, interlaced)?;
    let mut reader = decoder.read_info().map_err(|e| malformed_header(&e))?;
    let info = reader.info();
    let orientation = info.exif_metadata.as_deref().map_or(1, exif::orientation);
    let frames = info.animation_control.map_or(1, |a| a.num_frames.max(1));
    let plan = geometry::plan(width, height, orientation, request)?;
    let channels = reader.output_color_type().0.samples();
    let mut scaler = BoxScaler::new(plan.source, plan.stored_out_width, plan.stored_out_height);
    let mut rgba = Vec::new();
    if interlaced {
        let size = reader.output_buffer_size().unwrap_or(usize::MAX);
        let mut buffer = vec![0u8; size];
        reader
            .next_frame(&mut buffer)
            .map_err(|e| truncated(0, height, &e))?;
        let line = width as usize * channels;
        for row in buffer.chunks_exact(line.max(1)) {
            to_rgba(row, channels, &mut rgba);
            scaler.push(&rgba);
        }
    } else {
        while !scaler.done() {
            match reader.next_row() {
                Ok(Some(row)) => {
                    to_rgba(row.data(), channels, &mut rgba);
                    scaler.push(&rgba);
                }
                Ok(None) => break,
                Err(e) => return Err(truncated(scaler.rows_seen(), height, &e)),
            }
        }
    }
    let seen = scaler.rows_seen();
    let raster = scaler
        .finish()
        .ok_or_else(|| truncated_plain(seen, height))?;
    Ok(Decoded {
        raster,
        plan,
        frames,
    })
}

/// TooLarge when the header claims more than the streaming cap, or (interlaced) more than a whole decode may take.
fn check_caps(width: u32, height: u32, interlaced: bool) -> Result<(), ImageError> {
    let pixels = u64::from(width) * u64::from(height);
    let size = format!("{} x {}", grouped(width.into()), grouped(height.into()));
    if pixels > STREAM_MAX_PIXELS {
        return Err(ImageError::too_large(format!(
            "The PNG's header says {size} pixels ({} million), more than the {} million this reader decodes. \
             If the image is real, crop or scale it first (`magick in.png -resize 20000x20000 out.png`).",
            grouped(pixels / 1_000_000),
            grouped(STREAM_MAX_PIXELS / 1_000_000),
        )));
    }
    let bytes = pixels * 4;
    if interlaced && bytes > DECODED_MAX_BYTES {
        return Err(ImageError::too_large(format!(
            "The PNG is interlaced, so it is decoded whole: {size} pixels take {} MiB, more than the {} MiB \
             allowed. Save it non-interlaced (`magick in.png -interlace none out.png`) to read it streaming.",
            grouped(bytes >> 20),
            DECODED_MAX_BYTES >> 20,
        )));
    }
    Ok(())
}

fn malformed_header(e: &::png::DecodingError) -> ImageError {
    ImageError::malformed(format!("The PNG's header could not be read: {e}."))
}

fn truncated(rows: u32, height: u32, e: &::png::DecodingError) -> ImageError {
    ImageError::malformed(format!(
        "The PNG is truncated or corrupt: its image data ends after {} of its {} rows ({e}).",
        grouped(rows.into()),
        grouped(height.into()),
    ))
}

fn truncated_plain(rows: u32, height: u32) -> ImageError {
    ImageError::malformed(format!(
        "The PNG is truncated: its image data ends after {} of its {} rows.",
        grouped(rows.into()),
        grouped(height.into()),
    ))
}
