//! BMP: uncompressed (1, 4 and 8 bits with a palette; 16, 24 and 32 bits, with or without bit fields), read a
//! row at a time with a seek to each (rows are fixed size), so it streams like a PNG under
//! [`STREAM_MAX_PIXELS`]. RLE-compressed bitmaps are refused with a converter.

use std::io::{Read, Seek, SeekFrom};

use super::geometry::{self, Request};
use super::scale::BoxScaler;
use super::{Decoded, ImageError, STREAM_MAX_PIXELS};
use crate::prose::grouped;

/// The header facts a row decode needs.
struct Header {
    width: u32,
    height: u32,
    bottom_up: bool,
    bits: u16,
    data_offset: u64,
    /// Red, green, blue and alpha masks for 16 and 32 bits.
    masks: [u32; 4],
    /// Colours as RGBA, for 1, 4 and 8 bits.
    palette: Vec<[u8; 4]>,
}

/// Decodes the BMP in `source` (`file_size` bytes) as `request` plans it.
pub(super) fn decode<R: Read + Seek>(
    source: &mut R,
    file_size: u64,
    request: &Request<'_>,
) -> Result<Decoded, ImageError> {
    let header = read_header(source)?;
    let pixels = u64::from(header.width) * u64::from(header.height);
    if pixels > STREAM_MAX_PIXELS {
        return Err(ImageError::too_large(format!(
            "The BMP's header says {} x {} pixels, more than the {} million this reader decodes.",
            grouped(header.width.into()),
            grouped(header.height.into()),
            STREAM_MAX_PIXELS / 1_000_000
        )));
    }
    let plan = geometry::plan(header.width, header.height, 1, request)?;
    let stride = (u64::from(header.width) * u64::from(header.bits)).div_ceil(32) * 4;
    let mut scaler = BoxScaler::new(plan.source, plan.stored_out_width, plan.stored_out_height);
    let mut line = vec![0u8; stride as usize];
    let mut rgba = Vec::with_capacity(header.width as usize * 4);
    let last_needed = plan.source.y + plan.source.height;
    for y in 0..last_needed {
        if y < plan.source.y {
            scaler.push(&[]);
            continue;
        }
        let stored = if header.bottom_up {
            header.height - 1 - y
        } else {
            y
        };
        let at = header.data_offset + u64::from(stored) * stride;
        if at + stride > file_size {
            return Err(truncated(y, header.height));
        }
        source
            .seek(SeekFrom::Start(at))
            .map_err(|_| truncated(y, header.height))?;
        source
            .read_exact(&mut line)
            .map_err(|_| truncated(y, header.height))?;
        row_to_rgba(&header, &line, &mut rgba);
        scaler.push(&rgba);
    }
    let raster = scaler
        .finish()
        .ok_or_else(|| truncated(last_needed, header.height))?;
    Ok(Decoded {
        raster,
        plan,
        frames: 1,
    })
}

fn read_header<R: Read + Seek>(source: &mut R) -> Result<Header, ImageError> {
    let mut head = [0u8; 14 + 124 + 1024];
    let n = read_up_to(source, &mut head)?;
    let head = &head[..n];
    let u16_at = |at: usize| {
        head.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |at: usize| {
        head.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let short = || ImageError::malformed("The BMP's header is cut short.");
    let data_offset = u64::from(u32_at(10).ok_or_else(short)?);
    let dib = u32_at(14).ok_or_else(short)?;
    let (width, raw_height, bits, compression, colours, entry) = if dib == 12 {
        let (w, h) = (u16_at(18).ok_or_else(short)?, u16_at(20).ok_or_else(short)?);
        (
            i64::from(w),
            i64::from(h),
            u16_at(24).ok_or_else(short)?,
            0,
            0,
            3,
        )
    } else {
        let w = i64::from(u32_at(18).ok_or_else(short)? as i32);
        let h = i64::from(u32_at(22).ok_or_else(short)? as i32);
        let bits = u16_at(28).ok_or_else(short)?;
        (
            w,
            h,
            bits,
            u32_at(30).ok_or_else(short)?,
            u32_at(46).unwrap_or(0),
            4,
        )
    };
    if !matches!(compression, 0 | 3 | 6) {
        return Err(ImageError::malformed(format!(
            "The BMP uses compression {compression} (RLE or embedded JPEG/PNG), which this reader does not decode. \
             Convert it first (`magick in.bmp out.png`)."
        )));
    }
    if width <= 0 || raw_height == 0 || !matches!(bits, 1 | 4 | 8 | 16 | 24 | 32) {
        return Err(ImageError::malformed(format!(
            "The BMP's header gives {width} x {raw_height} pixels at {bits} bits a pixel, which is not an image \
             this reader decodes."
        )));
    }
    let masks = masks(bits, compression, dib, &u32_at);
    let palette_at = 14 + dib as usize + if dib == 40 && compression == 3 { 12 } else { 0 };
    let count = if bits <= 8 {
        if colours == 0 {
            1usize << bits
        } else {
            (colours as usize).min(256)
        }
    } else {
        0
    };
    let palette = (0..count)
        .filter_map(|i| head.get(palette_at + i * entry..palette_at + i * entry + 3))
        .map(|p| [p[2], p[1], p[0], 255])
        .collect();
    Ok(Header {
        width: width as u32,
        height: raw_height.unsigned_abs() as u32,
        bottom_up: raw_height > 0,
        bits,
        data_offset,
        masks,
        palette,
    })
}

/// The channel masks: from the header with bit fields, else 5-5-5 for 16 bits and 8-8-8 (no alpha) for 32.
fn masks(bits: u16, compression: u32, dib: u32, u32_at: &dyn Fn(usize) -> Option<u32>) -> [u32; 4] {
    if compression == 3 || compression == 6 {
        let alpha = if dib >= 56 || compression == 6 {
            u32_at(66).unwrap_or(0)
        } else {
            0
        };
        return [
            u32_at(54).unwrap_or(0),
            u32_at(58).unwrap_or(0),
            u32_at(62).unwrap_or(0),
            alpha,
        ];
    }
    if bits == 16 {
        [0x7C00, 0x03E0, 0x001F, 0]
    } else {
        [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0]
    }
}

/// One stored row as RGBA.
fn row_to_rgba(header: &Header, line: &[u8], rgba: &mut Vec<u8>) {
    rgba.clear();
    let width = header.width as usize;
    match header.bits {
        1 | 4 | 8 => {
            let bits = usize::from(header.bits);
            for x in 0..width {
                let bit = x * bits;
                let byte = line.get(bit / 8).copied().unwrap_or(0);
                let index = (byte >> (8 - bits - bit % 8)) & ((1u16 << bits) - 1) as u8;
                rgba.extend_from_slice(
                    header
                        .palette
                        .get(usize::from(index))
                        .unwrap_or(&[0, 0, 0, 255]),
                );
            }
        }
        24 => line
            .chunks_exact(3)
            .take(width)
            .for_each(|p| rgba.extend_from_slice(&[p[2], p[1], p[0], 255])),
        16 => line.chunks_exact(2).take(width).for_each(|p| {
            push_masked(
                u32::from(u16::from_le_bytes([p[0], p[1]])),
                &header.masks,
                rgba,
            )
        }),
        _ => line.chunks_exact(4).take(width).for_each(|p| {
            push_masked(
                u32::from_le_bytes([p[0], p[1], p[2], p[3]]),
                &header.masks,
                rgba,
            )
        }),
    }
}

/// A pixel through its masks, each channel widened to 8 bits; no alpha mask is opaque.
fn push_masked(value: u32, masks: &[u32; 4], rgba: &mut Vec<u8>) {
    let channel = |mask: u32, absent: u8| {
        if mask == 0 {
            return absent;
        }
        let shift = mask.trailing_zeros();
        let max = mask >> shift;
        (((value & mask) >> shift) as u64 * 255 / u64::from(max).max(1)) as u8
    };
    rgba.extend_from_slice(&[
        channel(masks[0], 0),
        channel(masks[1], 0),
        channel(masks[2], 0),
        channel(masks[3], 255),
    ]);
}

fn read_up_to<R: Read>(source: &mut R, buf: &mut [u8]) -> Result<usize, ImageError> {
    let mut n = 0;
    while n < buf.len() {
        match source.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(ImageError::malformed(format!(
                    "The BMP could not be read: {e}."
                )))
            }
        }
    }
    Ok(n)
}

fn truncated(rows: u32, height: u32) -> ImageError {
    ImageError::malformed(format!(
        "The BMP is truncated: its pixel data ends after {} of its {} rows.",
        grouped(rows.into()),
        grouped(height.into())
    ))
}
