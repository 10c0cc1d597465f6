//! Zip containers read under the caps: the central directory checked before anything is decompressed, and each
//! entry inflated under a cap, so a zip bomb is `TooLarge`, never an out-of-memory trap.

use std::io::{Cursor, Read};

use super::{DocumentError, DocumentErrorKind, ExtractionLimits};

/// Entries at most this size (bytes, decompressed) are exempt from the ratio cap: small XML parts compress well.
const RATIO_EXEMPT_BYTES: u64 = 1_000_000;

/// Checks a zip's central directory against `limits` before anything is decompressed (entry count, declared
/// sizes, ratio). Errors: TooLarge naming the cap; Malformed when it is not a readable zip.
pub(super) fn check_zip(bytes: &[u8], limits: &ExtractionLimits) -> Result<(), DocumentError> {
    if bytes.len() as u64 > limits.max_input_bytes {
        return Err(DocumentError::too_large(format!(
            "the document is {} bytes, over the cap of {} bytes",
            bytes.len(),
            limits.max_input_bytes
        )));
    }
    let mut archive = open_zip(bytes)?;
    let entries = archive.len() as u64;
    if entries > limits.max_entries {
        return Err(DocumentError::too_large(format!(
            "the zip holds {entries} entries, over the cap of {} entries",
            limits.max_entries
        )));
    }
    let mut total: u64 = 0;
    for index in 0..archive.len() {
        let entry = archive.by_index_raw(index).map_err(|e| {
            DocumentError::malformed(format!("the zip's entry {index} is unreadable: {e}"))
        })?;
        let size = entry.size();
        let compressed = entry.compressed_size();
        total = total.saturating_add(size);
        if total > limits.max_total_uncompressed {
            return Err(DocumentError::too_large(format!(
                "the zip declares more than {} bytes decompressed in all, over the cap",
                limits.max_total_uncompressed
            )));
        }
        if size > RATIO_EXEMPT_BYTES && size / compressed.max(1) > limits.max_ratio {
            return Err(DocumentError::too_large(format!(
                "the zip entry `{}` declares a compression ratio of {} ({} bytes from {}), over the cap of {}",
                entry.name(),
                size / compressed.max(1),
                size,
                compressed,
                limits.max_ratio
            )));
        }
    }
    Ok(())
}

/// Opens `bytes` as a zip archive. Errors: Malformed when it is not a readable zip.
pub(super) fn open_zip(bytes: &[u8]) -> Result<zip::ZipArchive<Cursor<&[u8]>>, DocumentError> {
    zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| DocumentError::malformed(format!("not a readable zip archive: {e}")))
}

/// Reads the entry `name` of `archive`, inflating at most `limits.max_total_uncompressed` bytes and stopping as soon
/// as an entry over 1 MB exceeds `limits.max_ratio` (declared sizes may lie). Returns `Ok(None)` when there is no
/// such entry. Errors: TooLarge naming the cap; Encrypted for a password-protected entry; Malformed when the entry
/// cannot be inflated.
pub(super) fn read_zip_entry(
    archive: &mut zip::ZipArchive<Cursor<&[u8]>>,
    name: &str,
    limits: &ExtractionLimits,
) -> Result<Option<Vec<u8>>, DocumentError> {
    let Some(index) = archive.index_for_name(name) else {
        return Ok(None);
    };
    let (encrypted, compressed) = match archive.by_index_raw(index) {
        Ok(raw) => (raw.encrypted(), raw.compressed_size()),
        Err(e) => {
            return Err(DocumentError::malformed(format!(
                "the zip entry `{name}` is unreadable: {e}"
            )))
        }
    };
    if encrypted {
        return Err(DocumentError::new(
            DocumentErrorKind::Encrypted,
            format!("the zip entry `{name}` is encrypted (password-protected)"),
        ));
    }
    let entry = archive.by_index(index).map_err(|e| {
        DocumentError::malformed(format!("the zip entry `{name}` is unreadable: {e}"))
    })?;
    let ratio_cap = compressed
        .max(1)
        .saturating_mul(limits.max_ratio)
        .max(RATIO_EXEMPT_BYTES);
    let cap = limits.max_total_uncompressed.min(ratio_cap);
    let mut out = Vec::new();
    let mut limited = entry.take(cap.saturating_add(1));
    limited.read_to_end(&mut out).map_err(|e| {
        DocumentError::malformed(format!("the zip entry `{name}` cannot be inflated: {e}"))
    })?;
    if out.len() as u64 > cap {
        return Err(DocumentError::too_large(
            if cap == limits.max_total_uncompressed {
                format!(
                    "the zip entry `{name}` inflates past the cap of {} bytes",
                    limits.max_total_uncompressed
                )
            } else {
                format!(
                "the zip entry `{name}` inflates past a compression ratio of {} ({compressed} bytes compressed)",
                limits.max_ratio
            )
            },
        ));
    }
    Ok(Some(out))
}
