//! The text-or-binary verdict, from content: a byte order mark (UTF-8, UTF-16, UTF-32), a magic number, the
//! zero-byte pattern of UTF-16, a NUL byte, or a high share of invalid UTF-8. The file name's extension is only a
//! claim and is never consulted. A binary verdict comes with advice for its type ([`binary_advice`]).
//!
//! Control characters (backspace, form feed, escape and ANSI colour codes) are text, and so are CJK and other
//! multibyte scripts; a sample that ends inside a multibyte character is cut back to the character boundary before
//! it is judged.

use crate::decode::{decode_all, trim_incomplete_tail, TextEncoding};

/// Bytes of the file's start that the verdict looks at.
pub const SAMPLE_BYTES: usize = 8 * 1024;

/// What the start of a file says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Text in `encoding`, line 1 starting after `bom_bytes` bytes of byte order mark.
    Text {
        /// How to decode the file.
        encoding: TextEncoding,
        /// Bytes of byte order mark (0, 2, 3 or 4).
        bom_bytes: u64,
    },
    /// Not text; `kind` names the detected type ("PNG image", "ELF executable", ...).
    Binary {
        /// The detected type, for the error message.
        kind: &'static str,
    },
}

/// Magic numbers: (offset, bytes, type name).
const MAGIC: &[(usize, &[u8], &str)] = &[
    (0, b"\x89PNG\r\n\x1a\n", "PNG image"),
    (0, b"\xff\xd8\xff", "JPEG image"),
    (0, b"GIF87a", "GIF image"),
    (0, b"GIF89a", "GIF image"),
    (0, b"%PDF-", "PDF document"),
    (
        0,
        b"PK\x03\x04",
        "ZIP archive (or a format built on ZIP: docx, xlsx, jar, apk, epub)",
    ),
    (0, b"PK\x05\x06", "ZIP archive (empty)"),
    (0, b"PK\x07\x08", "ZIP archive (spanned)"),
    (0, b"\x1f\x8b", "gzip archive"),
    (0, b"\xfd7zXZ\x00", "xz archive"),
    (0, b"\x28\xb5\x2f\xfd", "zstd archive"),
    (0, b"7z\xbc\xaf\x27\x1c", "7z archive"),
    (257, b"ustar", "tar archive"),
    (
        0,
        b"!<arch>\n",
        "ar archive (a static library or a .deb package)",
    ),
    (0, b"\x7fELF", "ELF executable or library"),
    (0, b"\xfe\xed\xfa\xce", "Mach-O executable"),
    (0, b"\xfe\xed\xfa\xcf", "Mach-O executable"),
    (0, b"\xce\xfa\xed\xfe", "Mach-O executable"),
    (0, b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (0, b"\x00asm", "WebAssembly module"),
    (0, b"SQLite format 3\x00", "SQLite database"),
    (0, b"OggS", "Ogg audio or video"),
    (0, b"fLaC", "FLAC audio"),
    (0, b"ID3", "MP3 audio"),
    (0, b"\x1a\x45\xdf\xa3", "Matroska or WebM video"),
    (4, b"ftyp", "MP4, QuickTime or HEIF media"),
    (0, b"MThd", "MIDI audio"),
    (0, b"II*\x00", "TIFF image"),
    (0, b"MM\x00*", "TIFF image"),
    (0, b"\x00\x00\x01\x00", "ICO image"),
    (0, b"wOFF", "WOFF font"),
    (0, b"wOF2", "WOFF2 font"),
    (0, b"\x00\x01\x00\x00\x00", "TrueType font"),
    (0, b"OTTO", "OpenType font"),
];

fn starts_at(sample: &[u8], offset: usize, magic: &[u8]) -> bool {
    sample.get(offset..offset + magic.len()) == Some(magic)
}

/// The type named by a magic number at the start of `sample`, if any.
pub fn magic_type(sample: &[u8]) -> Option<&'static str> {
    if starts_at(sample, 0, b"RIFF") {
        return Some(match sample.get(8..12) {
            Some(b"WEBP") => "WebP image",
            Some(b"WAVE") => "WAV audio",
            Some(b"AVI ") => "AVI video",
            _ => "RIFF media",
        });
    }
    if starts_at(sample, 0, b"BZh")
        && sample
            .get(3)
            .is_some_and(|digit| (b'1'..=b'9').contains(digit))
        && starts_at(sample, 4, b"1AY&SY")
    {
        return Some("bzip2 archive");
    }
    if starts_at(sample, 0, b"\xca\xfe\xba\xbe") {
        // Java class files carry a major version of 45 or more; Mach-O universal binaries a small arch count.
        let major = sample
            .get(6..8)
            .map(|bytes| u16::from_be_bytes([bytes[0], bytes[1]]));
        return Some(match major {
            Some(version) if version >= 45 => "Java class file",
            _ => "Mach-O universal binary",
        });
    }
    if starts_at(sample, 0, b"MZ") {
        // A PE executable: "PE\0\0" where the DOS header's e_lfanew points.
        if let Some(bytes) = sample.get(0x3c..0x40) {
            let pointer = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
            if starts_at(sample, pointer, b"PE\x00\x00") {
                return Some("PE executable (Windows)");
            }
        }
    }
    MAGIC
        .iter()
        .find(|(offset, magic, _)| starts_at(sample, *offset, magic))
        .map(|(_, _, name)| *name)
}

/// What to do with a file refused as `kind` (a type name of [`magic_type`] or [`sniff`]) at `path`: the next right
/// move for its family (decompress, list the archive's entries, view the image, inspect the executable; documents
/// are not read as text yet).
pub fn binary_advice(kind: &str, path: &str) -> String {
    let path = crate::prose::path_in_prose(path);
    let decompressor = match kind {
        "gzip archive" => Some("zcat"),
        "bzip2 archive" => Some("bzcat"),
        "xz archive" => Some("xzcat"),
        "zstd archive" => Some("zstdcat"),
        _ => None,
    };
    if let Some(command) = decompressor {
        return format!(
            "It is compressed: read the text inside through a decompressor, for example `{command} {path} | head -n 200` in a shell, or the host's decompressor; it may also be an archive (`tar -tf {path}` lists a compressed tar)."
        );
    }
    let has = |word: &str| kind.contains(word);
    if has("ZIP") {
        if cfg!(feature = "documents") {
            format!("It is a ZIP archive (not a Word, Excel, PowerPoint, OpenDocument or EPUB document, which read-window extracts): list its entries (`unzip -l {path}`) and read a file extracted from it.")
        } else {
            format!("It is a ZIP archive: list its entries (`unzip -l {path}`) and read a file extracted from it. This build of read-window does not extract documents (it was built without the `documents` feature).")
        }
    } else if has("7z archive") || has("tar archive") {
        format!("It is an archive: list its entries (`tar -tf {path}` or `7z l {path}`) and read a file extracted from it.")
    } else if has("image") {
        "It is an image: view it with an image tool if you can see images; it holds no text to read.".to_string()
    } else if has("PDF") {
        format!("It is a PDF document: this build of read-window does not extract documents (it was built without the `documents` feature); a shell's `pdftotext {path} -` gives its text.")
    } else if has("ar archive") {
        format!("It is an ar archive (a static library or a Debian package): list its members (`ar t {path}`), list a static library's symbols (`nm {path}`), or read the source it was built from.")
    } else if has("ELF") {
        format!("It is compiled code (ELF): inspect it with a tool made for ELF (`readelf -h {path}`, `objdump -d {path}`, `nm {path}`, `strings {path} | head`), or read its source instead.")
    } else if has("Mach-O") {
        format!("It is compiled code (Mach-O): inspect it with a tool made for it (`otool -hv {path}`, `nm {path}`, `strings {path} | head`), or read its source instead.")
    } else if has("PE executable") {
        format!("It is compiled code (a Windows PE executable): inspect it with a tool made for it (`objdump -x {path}`, `strings {path} | head`), or read its source instead.")
    } else if has("WebAssembly") {
        format!("It is compiled code (WebAssembly): inspect it with a tool made for it (`wasm-tools print {path}`, `wasm-objdump -x {path}`), or read its source instead.")
    } else if has("Java class") {
        format!("It is compiled code (a Java class): inspect it with `javap -c {path}`, or read its source instead.")
    } else if has("executable") {
        format!("It is compiled code: inspect it with a tool made for it (`file {path}`, `strings {path} | head`), or read its source instead.")
    } else if has("SQLite") {
        format!("It is a SQLite database: query it instead (`sqlite3 {path} .tables`).")
    } else if has("audio") || has("video") || has("media") || has("font") {
        format!("It is media or a font: it holds no text; inspect its metadata with a tool made for it (`ffprobe {path}`, `fc-query {path}`).")
    } else {
        format!("If you expected text, check its type (`file {path}`) or look at its bytes (`xxd {path} | head`).")
    }
}

/// UTF-16 without a byte order mark, when the zero bytes say so unmistakably: nearly every unit has a zero in the
/// same half (ASCII-range text) and almost none in the other.
fn utf16_without_bom(sample: &[u8]) -> Option<TextEncoding> {
    let units = sample.len() / 2;
    if units < 2 {
        return None;
    }
    let (mut zero_even, mut zero_odd) = (0usize, 0usize);
    for pair in sample.chunks_exact(2) {
        zero_even += usize::from(pair[0] == 0);
        zero_odd += usize::from(pair[1] == 0);
    }
    let most = units * 7 / 10;
    let few = units / 20;
    if zero_odd >= most.max(1) && zero_even <= few {
        Some(TextEncoding::Utf16Le)
    } else if zero_even >= most.max(1) && zero_odd <= few {
        Some(TextEncoding::Utf16Be)
    } else {
        None
    }
}

/// Judges the start of a file. `sample` is up to `SAMPLE_BYTES` from offset 0; `whole_file` says it is all of it
/// (so a sequence cut at its end is really cut, not just cut by the sample).
pub fn sniff(sample: &[u8], whole_file: bool) -> Verdict {
    sniff_block(sample, whole_file)
}

/// Judges the start of a file from its first block (`block`, from offset 0; `whole_file` when it is all of the
/// file): the binary verdict from its first `SAMPLE_BYTES`, and a legacy encoding ([`crate::legacy::detect`]) from
/// the whole block when those bytes are not UTF-8. A block whose first `SAMPLE_BYTES` are valid UTF-8 but whose
/// rest is not is judged by [`crate::legacy::detect`] too.
pub fn sniff_block(block: &[u8], whole_file: bool) -> Verdict {
    let detection = block;
    let sample = block
        .get(..block.len().min(SAMPLE_BYTES))
        .unwrap_or_default();
    let whole_file_in_sample = whole_file && sample.len() == block.len();
    let verdict = sniff_sample(sample, whole_file_in_sample, detection, whole_file);
    if verdict
        == (Verdict::Text {
            encoding: TextEncoding::Utf8,
            bom_bytes: 0,
        })
        && block.len() > sample.len()
    {
        if let Some(verdict) = legacy_verdict(detection, whole_file) {
            return verdict;
        }
    }
    verdict
}

/// Byte order marks, longest first where one starts another (UTF-32 LE's starts with UTF-16 LE's): the bytes, the
/// encoding they mark, and their length in bytes.
const BOMS: &[(&[u8], TextEncoding, u64)] = &[
    (b"\xff\xfe\x00\x00", TextEncoding::Utf32Le, 4),
    (b"\x00\x00\xfe\xff", TextEncoding::Utf32Be, 4),
    (b"\xef\xbb\xbf", TextEncoding::Utf8, 3),
    (b"\xff\xfe", TextEncoding::Utf16Le, 2),
    (b"\xfe\xff", TextEncoding::Utf16Be, 2),
];

/// The verdict of a sample that starts with a byte order mark ([`BOMS`]), when it does.
fn bom_verdict(sample: &[u8]) -> Option<Verdict> {
    BOMS.iter()
        .find(|(bom, _, _)| sample.starts_with(bom))
        .map(|&(_, encoding, bom_bytes)| Verdict::Text {
            encoding,
            bom_bytes,
        })
}

/// The verdict of a legacy-encoded text, when [`crate::legacy::detect`] finds an encoding that fits `detection`
/// (`whole` when it is all of the file).
fn legacy_verdict(detection: &[u8], whole: bool) -> Option<Verdict> {
    crate::legacy::detect(detection, whole).map(|legacy| Verdict::Text {
        encoding: TextEncoding::Legacy(legacy),
        bom_bytes: 0,
    })
}

/// The sample's invalid UTF-8 as (characters, replacements): the characters of `judged` decoded with invalid
/// sequences replaced, and the sequences replaced. Valid UTF-8 (the common case, checked a word at a time) has
/// nothing replaced, and its character count is never needed: it is (0, 0), and only a sample with replacements is
/// decoded, for its share of them.
fn utf8_replacements(judged: &[u8]) -> (u64, u64) {
    match std::str::from_utf8(judged) {
        Ok(_) => (0, 0),
        Err(_) => {
            let (text, replaced) = decode_all(TextEncoding::Utf8, judged);
            (text.chars().count() as u64, replaced)
        }
    }
}

/// [`sniff_block`]'s verdict on the first `SAMPLE_BYTES` (`sample`), with `detection` (the whole block,
/// `detection_whole` when it is all of the file) for the legacy encoding.
fn sniff_sample(
    sample: &[u8],
    whole_file: bool,
    detection: &[u8],
    detection_whole: bool,
) -> Verdict {
    if let Some(verdict) = bom_verdict(sample) {
        return verdict;
    }
    // Judge whole characters only: drop a multibyte sequence the sample cut off.
    let judged = if whole_file {
        sample
    } else {
        trim_incomplete_tail(sample)
    };
    let (chars, replaced) = utf8_replacements(judged);
    let has_nul = memchr::memchr(0, sample).is_some();
    // A magic number names the type only when the sample is not clean text: a note that starts "ID3 notes" or
    // "RIFF raff" is text, and every binary format has a NUL or an invalid UTF-8 byte in its first 8 KiB.
    if has_nul || replaced > 0 {
        if let Some(kind) = magic_type(sample) {
            return Verdict::Binary { kind };
        }
    }
    // UTF-16 without a byte order mark shows as NUL bytes in every other place: without a NUL it cannot be.
    if let Some(encoding) = has_nul.then(|| utf16_without_bom(sample)).flatten() {
        return Verdict::Text {
            encoding,
            bom_bytes: 0,
        };
    }
    if has_nul {
        return Verdict::Binary {
            kind: "binary data (it contains NUL bytes)",
        };
    }
    // Not UTF-8 (or ISO-2022-JP's escapes): a legacy encoding when one fits the whole sample (see `legacy`).
    if replaced > 0 || memchr::memmem::find(sample, b"\x1b$").is_some() {
        if let Some(verdict) = legacy_verdict(detection, detection_whole) {
            return verdict;
        }
    }
    if replaced > 0 && replaced * 10 > chars * 3 {
        return Verdict::Binary {
            kind: "binary data (over 30% of it is not valid UTF-8 or UTF-16)",
        };
    }
    Verdict::Text {
        encoding: TextEncoding::Utf8,
        bom_bytes: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    mod fast_paths {
        use super::super::*;
        use proptest::prelude::*;

        fn text_bytes() -> impl Strategy<Value = Vec<u8>> {
            proptest::collection::vec(
                prop::sample::select(vec!["a", " ", "\n", "é", "日本", "🦀", "\u{1b}[0m", "\t"]),
                0..400,
            )
            .prop_map(|pieces| pieces.concat().into_bytes())
        }

        proptest! {
            /// The sniff skips the lossy decode of valid UTF-8: the decode would replace nothing.
            #[test]
            fn valid_utf8_decodes_with_nothing_replaced(bytes in text_bytes(), cut in 0usize..4) {
                let bytes = &bytes[..bytes.len().saturating_sub(cut)];
                let judged = trim_incomplete_tail(bytes);
                if std::str::from_utf8(judged).is_ok() {
                    prop_assert_eq!(decode_all(TextEncoding::Utf8, judged).1, 0);
                }
            }

            /// The sniff skips the UTF-16 census of a sample without NUL bytes: it would find no UTF-16.
            #[test]
            fn no_nul_byte_means_no_utf16_guess(bytes in proptest::collection::vec(1u8..=255, 0..600)) {
                prop_assert_eq!(utf16_without_bom(&bytes), None);
            }

            /// Text of every kind gets the verdict it got before the fast paths: UTF-8, no byte order mark.
            #[test]
            fn utf8_text_is_utf8(bytes in text_bytes()) {
                prop_assert_eq!(
                    sniff(&bytes, true),
                    Verdict::Text { encoding: TextEncoding::Utf8, bom_bytes: 0 }
                );
            }
        }
    }

    fn is_text(verdict: Verdict) -> bool {
        matches!(verdict, Verdict::Text { .. })
    }

    #[test]
    fn lying_extensions_do_not_matter_magic_numbers_name_the_type() {
        assert_eq!(
            sniff(b"\x89PNG\r\n\x1a\n....", false),
            Verdict::Binary { kind: "PNG image" }
        );
        assert_eq!(
            sniff(b"RIFF\x00\x00\x00\x00WEBPVP8 ", false),
            Verdict::Binary { kind: "WebP image" }
        );
        let mut pe = vec![0u8; 0x90];
        pe[..2].copy_from_slice(b"MZ");
        pe[0x3c] = 0x80;
        pe[0x80..0x84].copy_from_slice(b"PE\x00\x00");
        assert_eq!(
            sniff(&pe, false),
            Verdict::Binary {
                kind: "PE executable (Windows)"
            }
        );
    }

    #[test]
    fn a_sample_cut_inside_a_cjk_character_is_still_text() {
        let mut sample = vec![b'a'; 999];
        sample.extend_from_slice("中".as_bytes());
        assert!(is_text(sniff(&sample[..1001], false)));
    }

    #[test]
    fn control_characters_and_ansi_colours_are_text() {
        assert!(is_text(sniff(
            b"progress\x08\x08\x08 done \x1b[31mred\x1b[0m\x0c page",
            false
        )));
        assert!(is_text(sniff(
            "# 中文标题\n\n这是中文的段落。".as_bytes(),
            true
        )));
    }

    #[test]
    fn utf32_with_a_bom_is_text() {
        assert_eq!(
            sniff(b"\xff\xfe\x00\x00a\x00\x00\x00", true),
            Verdict::Text {
                encoding: TextEncoding::Utf32Le,
                bom_bytes: 4
            }
        );
        assert_eq!(
            sniff(b"\x00\x00\xfe\xff\x00\x00\x00a", true),
            Verdict::Text {
                encoding: TextEncoding::Utf32Be,
                bom_bytes: 4
            }
        );
    }

    #[test]
    fn every_binary_family_gets_its_own_advice() {
        let cases = [
            ("gzip archive", "`zcat /p/a.gz | head -n 200`"),
            ("bzip2 archive", "`bzcat /p/a.gz"),
            ("xz archive", "`xzcat /p/a.gz"),
            ("zstd archive", "`zstdcat /p/a.gz"),
            ("ZIP archive (empty)", "`unzip -l /p/a.gz`"),
            ("tar archive", "`tar -tf /p/a.gz`"),
            ("PNG image", "view it"),
            ("PDF document", "`pdftotext /p/a.gz -`"),
            ("ELF executable or library", "`readelf -h /p/a.gz`"),
            ("Java class file", "`javap -c /p/a.gz`"),
            ("WebAssembly module", "`wasm-tools print /p/a.gz`"),
            ("PE executable (Windows)", "`objdump -x /p/a.gz`"),
            ("Mach-O executable", "`otool -hv /p/a.gz`"),
            (
                "ar archive (a static library or a .deb package)",
                "`ar t /p/a.gz`",
            ),
            ("SQLite database", "sqlite3"),
            ("FLAC audio", "ffprobe"),
            ("binary data (it contains NUL bytes)", "`file /p/a.gz`"),
        ];
        for (kind, phrase) in cases {
            let advice = binary_advice(kind, "/p/a.gz");
            assert!(advice.contains(phrase), "{kind}: {advice}");
            assert!(!advice.contains("Retry"), "{kind}");
        }
        // Every magic type lands in a family, not the generic advice.
        for (_, _, kind) in MAGIC {
            assert!(!binary_advice(kind, "/f").contains("xxd"), "{kind}");
        }
    }

    #[test]
    fn elf_advice_names_only_elf_tools() {
        let advice = binary_advice("ELF executable or library", "/p/prog");
        for tool in ["readelf", "objdump", "nm", "strings"] {
            assert!(advice.contains(tool), "{tool}: {advice}");
        }
        for wrong in ["javap", "wasm-tools", "otool"] {
            assert!(!advice.contains(wrong), "{wrong}: {advice}");
        }
    }

    #[test]
    fn an_ar_archive_is_named_an_archive() {
        let mut library =
            b"!<arch>\n/               0           0     0     0       4         `\n".to_vec();
        library.extend_from_slice(b"\x00\x00\x00\x00");
        assert_eq!(
            sniff(&library, true),
            Verdict::Binary {
                kind: "ar archive (a static library or a .deb package)"
            }
        );
        assert!(binary_advice(
            "ar archive (a static library or a .deb package)",
            "/p/libx.a"
        )
        .contains("`ar t /p/libx.a`"));
    }

    #[test]
    fn utf16_is_recognised_with_and_without_a_bom() {
        let mut le = vec![0xff, 0xfe];
        le.extend("hello".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(
            sniff(&le, true),
            Verdict::Text {
                encoding: TextEncoding::Utf16Le,
                bom_bytes: 2
            }
        );
        let bare: Vec<u8> = "hello world"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(
            sniff(&bare, true),
            Verdict::Text {
                encoding: TextEncoding::Utf16Be,
                bom_bytes: 0
            }
        );
    }

    #[test]
    fn nul_bytes_and_garbage_are_binary() {
        assert!(!is_text(sniff(b"abc\x00def", true)));
        assert!(!is_text(sniff(
            &[0x80u8, 0x81, 0xfe, 0xff, 0x90, 0x91, 0x92, b'a'],
            true
        )));
        // A Latin-1 file with a few accents is text with replacements.
        assert!(is_text(sniff(
            b"caf\xe9 au lait, cr\xe8me br\xfbl\xe9e and a long line of plain words",
            true
        )));
        // Text that happens to start with a magic word is text.
        for text in [
            &b"ID3 notes"[..],
            b"RIFF raff",
            b"OTTO is my name",
            b"GIF87a",
            b"%PDF-1.4\nhello text\n",
        ] {
            assert!(
                is_text(sniff(text, true)),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
