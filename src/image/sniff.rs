//! What a file's first bytes say: an image format read here, an image format refused with a converter to use,
//! or not an image at all. Judged by magic bytes, never by the extension.

use super::ImageFormat;

/// What the first bytes of a file say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniffed {
    /// An image read into windows.
    Image(ImageFormat),
    /// An image format not read here: its name and a command that converts it to one that is.
    Unsupported {
        /// The format's name, e.g. "HEIC".
        format: &'static str,
        /// What to do, e.g. "Convert it with `heif-convert in.heic out.jpg`, then read the JPEG."
        advice: &'static str,
    },
}

const HEIC: Sniffed = Sniffed::Unsupported {
    format: "HEIC",
    advice: "Convert it to JPEG (`heif-convert in.heic out.jpg` or `magick in.heic out.jpg`), then read that.",
};
const AVIF: Sniffed = Sniffed::Unsupported {
    format: "AVIF",
    advice:
        "Convert it to PNG (`magick in.avif out.png` or `avifdec in.avif out.png`), then read that.",
};
const CR3: Sniffed = Sniffed::Unsupported {
    format: "Canon CR3 camera raw",
    advice: "Develop it to JPEG (`darktable-cli in.cr3 out.jpg` or `magick in.cr3 out.jpg`), then read that.",
};
const TIFF: Sniffed = Sniffed::Unsupported {
    format: "TIFF (or a TIFF-based camera raw: CR2, NEF, ARW, DNG)",
    advice: "Convert it to PNG (`magick in.tif out.png`; a camera raw: `dcraw -c -w in.nef | magick - out.jpg` or \
             `darktable-cli in.nef out.jpg`), then read that.",
};
const JXL: Sniffed = Sniffed::Unsupported {
    format: "JPEG XL",
    advice: "Convert it to PNG (`djxl in.jxl out.png`), then read that.",
};
const PSD: Sniffed = Sniffed::Unsupported {
    format: "Photoshop PSD",
    advice: "Export it as PNG (`magick 'in.psd[0]' out.png` flattens it), then read that.",
};

/// `head` is the file's first bytes (at least 64 when the file has them). None: not an image (read as text or
/// judged binary by the existing sniffer).
pub fn sniff_image(head: &[u8]) -> Option<Sniffed> {
    let starts = |magic: &[u8]| head.starts_with(magic);
    let image = |format| Some(Sniffed::Image(format));
    if starts(b"\x89PNG\r\n\x1a\n") {
        return image(ImageFormat::Png);
    }
    if starts(&[0xFF, 0xD8, 0xFF]) {
        return image(ImageFormat::Jpeg);
    }
    if starts(b"GIF87a") || starts(b"GIF89a") {
        return image(ImageFormat::Gif);
    }
    if starts(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        return image(ImageFormat::WebP);
    }
    if starts(b"BM") && bmp_header(head) {
        return image(ImageFormat::Bmp);
    }
    if starts(b"II*\0") || starts(b"MM\0*") || starts(b"II+\0") || starts(b"MM\0+") {
        return Some(TIFF);
    }
    if starts(&[0xFF, 0x0A]) || starts(b"\0\0\0\x0cJXL \r\n\x87\n") {
        return Some(JXL);
    }
    if starts(b"8BPS") {
        return Some(PSD);
    }
    iso_brand(head)
}

/// A BMP's file header: "BM", then a DIB header size BMP writers use at offset 14.
fn bmp_header(head: &[u8]) -> bool {
    let Some(size) = head.get(14..18) else {
        return false;
    };
    let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]);
    matches!(size, 12 | 16 | 40 | 52 | 56 | 64 | 108 | 124)
}

/// The ISO base media formats by the brands of their `ftyp` box: HEIC/HEIF, AVIF, CR3.
fn iso_brand(head: &[u8]) -> Option<Sniffed> {
    if head.get(4..8) != Some(b"ftyp") {
        return None;
    }
    let size = head
        .get(0..4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)?;
    let end = size.clamp(16, head.len().max(16)).min(head.len());
    // The major brand at 8, then compatible brands from 16 (4 bytes at 12 are the minor version).
    let brands =
        std::iter::once(head.get(8..12)).chain((16..end).step_by(4).map(|i| head.get(i..i + 4)));
    let mut found = None;
    for brand in brands.flatten() {
        found = match brand {
            b"avif" | b"avis" => return Some(AVIF),
            b"crx " => return Some(CR3),
            b"heic" | b"heix" | b"heim" | b"heis" | b"hevc" | b"hevx" | b"mif1" | b"msf1" => {
                found.or(Some(HEIC))
            }
            _ => found,
        };
    }
    found
}
