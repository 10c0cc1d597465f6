//! The EXIF orientation tag (0x0112) from an EXIF block: a TIFF header and its first IFD.

/// The orientation (1 to 8) in `exif` (starting at the TIFF header, or at "Exif\0\0"); 1 when absent or bad.
pub(super) fn orientation(exif: &[u8]) -> u8 {
    let tiff = exif.strip_prefix(b"Exif\0\0").unwrap_or(exif);
    find_orientation(tiff)
        .filter(|o| (1..=8).contains(o))
        .unwrap_or(1)
}

fn find_orientation(tiff: &[u8]) -> Option<u8> {
    let little = match tiff.get(0..2)? {
        b"II" => true,
        b"MM" => false,
        _ => return None,
    };
    let u16_at = |at: usize| {
        let b = tiff.get(at..at.checked_add(2)?)?;
        Some(if little {
            u16::from_le_bytes([b[0], b[1]])
        } else {
            u16::from_be_bytes([b[0], b[1]])
        })
    };
    let u32_at = |at: usize| {
        let b = tiff.get(at..at.checked_add(4)?)?;
        let b = [b[0], b[1], b[2], b[3]];
        Some(if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    };
    let ifd = u32_at(4)? as usize;
    let count = u16_at(ifd)? as usize;
    (0..count).find_map(|i| {
        let entry = ifd.checked_add(2 + i * 12)?;
        if u16_at(entry)? != 0x0112 {
            return None;
        }
        // Type SHORT, count 1: the value sits in the first two bytes of the value field.
        u16_at(entry + 8).map(|v| v.min(255) as u8)
    })
}
