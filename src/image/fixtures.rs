//! Test fixtures made in memory: PNG, JPEG, GIF, WebP and BMP files, and decoders for the windows' data.

use std::io::Cursor;

/// A PNG of `width` x `height`, colour `color` at 8 bits, each row made by `row(y, buffer)`.
pub fn png_rows(
    width: u32,
    height: u32,
    color: ::png::ColorType,
    mut row: impl FnMut(u32, &mut [u8]),
) -> Vec<u8> {
    let mut data = Vec::new();
    let mut encoder = ::png::Encoder::new(&mut data, width, height);
    encoder.set_color(color);
    encoder.set_depth(::png::BitDepth::Eight);
    encoder.set_compression(::png::Compression::Fast);
    let mut writer = encoder.write_header().unwrap();
    let mut stream = writer.stream_writer().unwrap();
    let mut line = vec![0u8; width as usize * color.samples()];
    for y in 0..height {
        row(y, &mut line);
        std::io::Write::write_all(&mut stream, &line).unwrap();
    }
    stream.finish().unwrap();
    drop(writer);
    data
}

/// The screenshot-like image's pixel at `(x, y)`: a title bar, a sidebar, a white page, 1-pixel red rules every
/// 300 columns and dark 1- and 2-pixel "text" strokes.
pub fn screenshot_pixel(x: u32, y: u32) -> [u8; 3] {
    if y < 200 {
        return [40, 44, 52];
    }
    if x % 300 == 299 {
        return [200, 0, 0];
    }
    let text = (y % 40 == 10 || (y % 40 == 11 && x % 3 == 0)) && x % 7 != 0 && (x / 50) % 3 != 2;
    if text {
        return [20, 20, 20];
    }
    if x < 1000 {
        [230, 230, 230]
    } else {
        [255, 255, 255]
    }
}

/// The screenshot-like PNG, `width` x `height`, RGB.
pub fn screenshot_png(width: u32, height: u32) -> Vec<u8> {
    png_rows(width, height, ::png::ColorType::Rgb, |y, line| {
        for (x, p) in line.chunks_exact_mut(3).enumerate() {
            p.copy_from_slice(&screenshot_pixel(x as u32, y));
        }
    })
}

/// The photo-like image's pixel: gradients with pseudo-random noise.
pub fn photo_pixel(x: u32, y: u32, width: u32, height: u32) -> [u8; 3] {
    let noise =
        (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)).wrapping_mul(2_246_822_519) >> 27;
    [
        (x * 200 / width.max(1) + noise) as u8,
        (y * 200 / height.max(1) + noise) as u8,
        ((x + y) * 100 / (width + height).max(1) + 2 * noise) as u8,
    ]
}

/// A JPEG of `width` x `height` RGB pixels from `pixel`, with APP1 `exif` when given.
pub fn jpeg(
    width: u32,
    height: u32,
    exif: Option<&[u8]>,
    pixel: impl Fn(u32, u32) -> [u8; 3],
) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(width as usize * height as usize * 3);
    for y in 0..height {
        for x in 0..width {
            rgb.extend_from_slice(&pixel(x, y));
        }
    }
    let mut data = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut data, 90);
    if let Some(exif) = exif {
        encoder.add_app_segment(1, exif).unwrap();
    }
    encoder
        .encode(
            &rgb,
            width as u16,
            height as u16,
            jpeg_encoder::ColorType::Rgb,
        )
        .unwrap();
    data
}

/// An EXIF APP1 payload holding only the orientation tag (big-endian TIFF).
pub fn exif_orientation(orientation: u16) -> Vec<u8> {
    let mut exif = b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01".to_vec();
    exif.extend_from_slice(&[0x01, 0x12, 0, 3, 0, 0, 0, 1]);
    exif.extend_from_slice(&orientation.to_be_bytes());
    exif.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    exif
}

/// A GIF of `frames` frames of `width` x `height`, frame i filled with palette colour i (red, green, blue, ...).
pub fn gif(width: u16, height: u16, frames: u8) -> Vec<u8> {
    let palette = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255];
    let mut data = Vec::new();
    {
        let mut encoder = ::gif::Encoder::new(&mut data, width, height, &palette).unwrap();
        for i in 0..frames {
            let pixels = vec![i % 4; width as usize * height as usize];
            let frame = ::gif::Frame::from_indexed_pixels(width, height, pixels, None);
            encoder.write_frame(&frame).unwrap();
        }
    }
    data
}

/// A lossless WebP of RGBA pixels.
pub fn webp(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut data = Vec::new();
    image_webp::WebPEncoder::new(&mut data)
        .encode(rgba, width, height, image_webp::ColorType::Rgba8)
        .unwrap();
    data
}

/// A bottom-up 24-bit BMP of RGB pixels.
pub fn bmp24(width: u32, height: u32, rgb: &[u8]) -> Vec<u8> {
    let stride = (width * 3).div_ceil(4) * 4;
    let size = 54 + stride * height;
    let mut data = b"BM".to_vec();
    for v in [size, 0, 54, 40, width, height] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    data.extend_from_slice(&1u16.to_le_bytes());
    data.extend_from_slice(&24u16.to_le_bytes());
    for v in [0u32, stride * height, 2835, 2835, 0, 0] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    for y in (0..height).rev() {
        let start = data.len();
        for x in 0..width {
            let i = ((y * width + x) * 3) as usize;
            data.extend_from_slice(&[rgb[i + 2], rgb[i + 1], rgb[i]]);
        }
        data.resize(start + stride as usize, 0);
    }
    data
}

/// A PNG whose IHDR claims `width` x `height` 8-bit gray, followed by a few IDAT bytes: a decompression bomb.
pub fn png_bomb(width: u32, height: u32) -> Vec<u8> {
    let mut data = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]);
    chunk(&mut data, b"IHDR", &ihdr);
    chunk(
        &mut data,
        b"IDAT",
        &[0x78, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff],
    );
    chunk(&mut data, b"IEND", &[]);
    data
}

fn chunk(data: &mut Vec<u8>, kind: &[u8; 4], body: &[u8]) {
    data.extend_from_slice(&(body.len() as u32).to_be_bytes());
    let start = data.len();
    data.extend_from_slice(kind);
    data.extend_from_slice(body);
    let crc = crc32(&data[start..]);
    data.extend_from_slice(&crc.to_be_bytes());
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A decoded window image: width, height and RGBA pixels (PNG or JPEG).
pub fn decode_data(mime_type: &str, data: &[u8]) -> (u32, u32, Vec<u8>) {
    if mime_type == "image/jpeg" {
        let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(data));
        let pixels = decoder.decode().unwrap();
        let info = decoder.info().unwrap();
        let mut rgba = Vec::new();
        let channels = if info.pixel_format == jpeg_decoder::PixelFormat::L8 {
            1
        } else {
            3
        };
        super::scale::to_rgba(&pixels, channels, &mut rgba);
        return (info.width.into(), info.height.into(), rgba);
    }
    let mut decoder = ::png::Decoder::new(Cursor::new(data));
    decoder.set_transformations(::png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let mut rgba = Vec::new();
    super::scale::to_rgba(
        &buffer[..info.buffer_size()],
        info.color_type.samples(),
        &mut rgba,
    );
    (info.width, info.height, rgba)
}

/// The RGBA pixel at `(x, y)` of a decoded image `width` wide.
pub fn pixel_at(rgba: &[u8], width: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * width + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}
