//! Documents reduced to text: notebooks, Word, Excel, PowerPoint, OpenDocument, EPUB and PDF files become one
//! extracted text with a map of its parts (cells, pages, sheets, slides, chapters), which the reader then windows
//! exactly like a file.
//!
//! Every part opens with one marker line: notebooks `# [cell 3] code (execution 5)`, pages `--- page 3 of 12 ---`,
//! sheets `=== sheet 2 of 3: Totals (A1:D17) ===`, slides `--- slide 4 of 9: Title ---`, chapters
//! `--- chapter 2: Title ---`. Lines end in `\n`; no trailing whitespace is added.
//!
//! Zip containers are checked before anything is decompressed ([`check_zip`]) and every entry is inflated under a
//! cap ([`read_zip_entry`]), so a zip bomb is `TooLarge`, never an out-of-memory trap.

#[cfg(feature = "documents")]
use std::io::Cursor;

#[cfg(feature = "documents")]
mod archive;
#[cfg(feature = "documents")]
mod builder;
mod cache;
mod detect;
#[cfg(feature = "documents")]
mod epub;
mod facts;
#[cfg(feature = "documents")]
#[cfg(test)]
mod fixtures;
#[cfg(feature = "documents")]
mod notebook;
#[cfg(feature = "documents")]
mod office;
#[cfg(feature = "documents")]
mod pdf;
#[cfg(feature = "documents")]
#[cfg(test)]
pub(crate) mod samples;
#[cfg(all(test, feature = "documents"))]
mod session_tests;
#[cfg(feature = "documents")]
mod sheets;
pub(crate) mod store;
#[cfg(all(test, feature = "documents"))]
mod store_tests;
#[cfg(all(test, feature = "documents"))]
mod tests;
#[cfg(feature = "documents")]
mod xml;

#[cfg(feature = "documents")]
use archive::{check_zip, open_zip, read_zip_entry};
#[cfg(feature = "documents")]
use builder::TextBuilder;
pub(crate) use cache::DocumentCache;
#[cfg(test)]
use cache::MAX_CACHED_DOCUMENTS;
pub(crate) use detect::{
    candidate, is_binary_container, is_notebook, notebook_cell_sources, plain_zip, Candidate,
};
#[cfg(feature = "documents")]
use detect::{format_of_name, pdf_header, EMPTY_ZIP_MAGIC, OLE_MAGIC, ZIP_MAGIC};
pub use facts::DocumentFacts;
#[cfg(test)]
use facts::{coverage_warning, empty_page_ranges, ordinal};
pub(crate) use store::{entry_name, DocumentStore, StoreDirectory, StoredFile};

/// What the name `path` promises, for a document store entry's name: the JSON name of the format its extension
/// names (`pdf`), or `none`. Extraction judges the content first, but a name decides some cases (an OLE file is a
/// workbook only when named `.xls`; a `.docx` that is no Word file is refused), so the same bytes read under a name
/// that promises another format are another entry.
pub(crate) fn promised_by_name(path: &str) -> &'static str {
    detect::format_of_name(path).map_or("none", |(format, _)| format.name())
}

/// The document formats read-window extracts (their JSON names are lowercase: "ipynb", "docx", ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentFormat {
    /// A Jupyter notebook (JSON with `cells` and `nbformat`).
    Ipynb,
    /// A Word file (Office Open XML, a zip holding `word/document.xml`).
    Docx,
    /// An Excel workbook (Office Open XML, a zip holding `xl/workbook.xml`).
    Xlsx,
    /// A legacy Excel workbook (an OLE compound file).
    Xls,
    /// An OpenDocument spreadsheet.
    Ods,
    /// A PowerPoint deck (Office Open XML, a zip holding `ppt/presentation.xml`).
    Pptx,
    /// An OpenDocument presentation.
    Odp,
    /// An OpenDocument text.
    Odt,
    /// An EPUB book (a zip with `mimetype` `application/epub+zip`).
    Epub,
    /// A PDF file (`%PDF-` header).
    Pdf,
}

impl DocumentFormat {
    /// The format's lowercase JSON name: `"ipynb"`, `"docx"`, `"xlsx"`, `"xls"`, `"ods"`, `"pptx"`, `"odp"`, `"odt"`,
    /// `"epub"`, `"pdf"`.
    pub fn name(self) -> &'static str {
        match self {
            DocumentFormat::Ipynb => "ipynb",
            DocumentFormat::Docx => "docx",
            DocumentFormat::Xlsx => "xlsx",
            DocumentFormat::Xls => "xls",
            DocumentFormat::Ods => "ods",
            DocumentFormat::Pptx => "pptx",
            DocumentFormat::Odp => "odp",
            DocumentFormat::Odt => "odt",
            DocumentFormat::Epub => "epub",
            DocumentFormat::Pdf => "pdf",
        }
    }
}

/// What one part of a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    /// A notebook cell.
    Cell,
    /// A PDF page.
    Page,
    /// A spreadsheet sheet.
    Sheet,
    /// A presentation slide.
    Slide,
    /// An EPUB chapter (one spine item).
    Chapter,
}

impl PartKind {
    /// The kind's lowercase JSON name: `"cell"`, `"page"`, `"sheet"`, `"slide"`, `"chapter"`.
    pub fn name(self) -> &'static str {
        match self {
            PartKind::Cell => "cell",
            PartKind::Page => "page",
            PartKind::Sheet => "sheet",
            PartKind::Slide => "slide",
            PartKind::Chapter => "chapter",
        }
    }
}

/// One part of an extracted document: where it starts in the extracted text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentPart {
    /// What the part is (cell, page, sheet, slide, chapter).
    pub kind: PartKind,
    /// 1-based number of the part in the document (page 3, slide 12, sheet 2).
    pub number: u32,
    /// The part's name where it has one (a sheet's name, a chapter's title).
    pub name: Option<String>,
    /// 1-based line of the extracted text holding the part's marker/header line.
    pub first_line: u64,
    /// Characters of text extracted for the part (its marker/header line excluded): a PDF page under 20 is empty.
    pub characters: u64,
    /// A PDF page whose text was not extracted (a cap, or a page the extractor cannot read): its one line says
    /// why. It is never counted as a page without a text layer.
    pub not_extracted: bool,
}

/// A document reduced to text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractedDocument {
    /// The format the document was detected as.
    pub format: DocumentFormat,
    /// The extracted text: lines ending in `\n`, each part opened by its marker line.
    pub text: String,
    /// The parts in document order (may be empty for formats without parts, e.g. docx/odt).
    pub parts: Vec<DocumentPart>,
}

/// Why a document could not be extracted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// Without the `documents` feature nothing extracts, so only `TooLarge` is made (the reader still matches on all).
#[cfg_attr(not(feature = "documents"), allow(dead_code))]
pub enum DocumentErrorKind {
    /// Over a cap of [`ExtractionLimits`] (input size, zip entries, decompressed size, compression ratio).
    TooLarge,
    /// Not a readable document of the format it claims (corrupt zip, missing part, bad XML/JSON).
    Malformed,
    /// Encrypted or password-protected.
    Encrypted,
    /// A document format read-window does not extract (legacy `.doc`/`.ppt`, or the `documents` part not built).
    Unsupported,
}

/// Why a document could not be extracted, with a message naming the problem (and the cap, for `TooLarge`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentError {
    /// The kind of failure.
    pub kind: DocumentErrorKind,
    /// One sentence naming what was found and, for caps, the cap.
    pub message: String,
}

impl DocumentError {
    /// An error of `kind` with `message`.
    pub fn new(kind: DocumentErrorKind, message: impl Into<String>) -> Self {
        DocumentError {
            kind,
            message: message.into(),
        }
    }

    /// A `Malformed` error with `message`.
    #[cfg(feature = "documents")]
    pub fn malformed(message: impl Into<String>) -> Self {
        Self::new(DocumentErrorKind::Malformed, message)
    }

    /// A `TooLarge` error with `message`.
    pub fn too_large(message: impl Into<String>) -> Self {
        Self::new(DocumentErrorKind::TooLarge, message)
    }
}

impl std::fmt::Display for DocumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Caps on what extraction may take (defaults: 50 MB input, 10,000 zip entries, 200 MB decompressed in all,
/// a compression ratio of 100 for any entry over 1 MB, 64 MiB of PDF page content in all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractionLimits {
    /// Largest document accepted, in bytes (default 50,000,000).
    pub max_input_bytes: u64,
    /// Most entries a zip container may hold (default 10,000).
    pub max_entries: u64,
    /// Most bytes all entries of a zip may decompress to, declared or actual (default 200,000,000).
    pub max_total_uncompressed: u64,
    /// Highest decompressed/compressed ratio allowed for an entry over 1 MB decompressed (default 100).
    pub max_ratio: u64,
    /// Most bytes a PDF's page content may inflate to in all: every page's content streams and every form or
    /// image XObject each time a page draws it (default 67,108,864, 64 MiB). A page whose content would pass
    /// what is left is not extracted, and neither is any page after it (its text would take longer than a call
    /// may run: the PDF extractor interprets content at a few megabytes a second).
    pub max_pdf_content_bytes: u64,
}

impl Default for ExtractionLimits {
    fn default() -> Self {
        ExtractionLimits {
            max_input_bytes: 50_000_000,
            max_entries: 10_000,
            max_total_uncompressed: 200_000_000,
            max_ratio: 100,
            max_pdf_content_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Extracts the document in `bytes` named `name`: detection by content, then name. `Ok(None)`: not a document
/// (a zip that is no office file, JSON that is no notebook), read it as a file. Errors: `TooLarge` over a cap of
/// `limits`; `Malformed` for a file whose name promises a format its content does not hold (naming what was
/// found) or a corrupt document; `Encrypted`; `Unsupported` for legacy `.doc`/`.ppt`.
#[cfg(feature = "documents")]
pub fn extract(
    bytes: &[u8],
    name: &str,
    limits: &ExtractionLimits,
) -> Result<Option<ExtractedDocument>, DocumentError> {
    let promised = format_of_name(name);
    if bytes.len() as u64 > limits.max_input_bytes {
        return Err(DocumentError::too_large(format!(
            "{name} is {} bytes, over the cap of {} bytes for documents, so it is not extracted",
            bytes.len(),
            limits.max_input_bytes
        )));
    }
    if bytes.starts_with(ZIP_MAGIC) || bytes.starts_with(EMPTY_ZIP_MAGIC) {
        return extract_zip(bytes, name, promised, limits);
    }
    if bytes.starts_with(OLE_MAGIC) {
        return match promised {
            // An encrypted .xlsx is an OLE container too (`EncryptedPackage`): extract_sheets names it Encrypted.
            Some((format @ (DocumentFormat::Xls | DocumentFormat::Xlsx), _)) => {
                extract_by_h7(bytes, format, limits).map(Some)
            }
            _ if ole_encrypted_package(bytes) => Err(DocumentError::new(
                DocumentErrorKind::Encrypted,
                format!("{name} is a password-protected Office document (an OLE compound file holding `EncryptionInfo` and `EncryptedPackage`): its text cannot be read without the password"),
            )),
            _ => {
                let lower = name.to_ascii_lowercase();
                let what = if lower.ends_with(".doc") {
                    Some("a legacy Word 97-2003 document (.doc)")
                } else if lower.ends_with(".ppt") {
                    Some("a legacy PowerPoint 97-2003 deck (.ppt)")
                } else {
                    None
                };
                match what {
                    Some(what) => Err(DocumentError::new(
                        DocumentErrorKind::Unsupported,
                        format!("{name} is {what}, an OLE compound file read-window does not extract; convert it to .docx/.pptx or PDF (for example `soffice --headless --convert-to docx`) and read that"),
                    )),
                    None => Ok(None),
                }
            }
        };
    }
    if pdf_header(bytes) {
        return extract_by_h7(bytes, DocumentFormat::Pdf, limits).map(Some);
    }
    let starts_json = bytes.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'{');
    if starts_json {
        match notebook::extract_notebook(bytes) {
            Ok(Some(document)) => return Ok(Some(document)),
            Ok(None) if promised.is_none() => return Ok(None),
            Ok(None) => {}
            Err(error) if promised.is_some_and(|(format, _)| format == DocumentFormat::Ipynb) => {
                return Err(error)
            }
            Err(_) if promised.is_none() => return Ok(None),
            Err(_) => {}
        }
    }
    match promised {
        Some((format, what)) => Err(DocumentError::malformed(format!(
            "{name} is named as {what} (.{}) but its content is {}, not {what}",
            format.name(),
            found_description(bytes)
        ))),
        None => Ok(None),
    }
}

/// Whether the OLE compound file `bytes` is an encrypted Office Open XML document: Office writes a password-protected
/// `.docx`, `.xlsx` or `.pptx` as an OLE file holding the streams `EncryptionInfo` and `EncryptedPackage`
/// ([MS-OFFCRYPTO] 2.3.4). An unreadable compound file is not.
#[cfg(feature = "documents")]
fn ole_encrypted_package(bytes: &[u8]) -> bool {
    cfb::CompoundFile::open(Cursor::new(bytes))
        .map(|file| file.is_stream("/EncryptedPackage") || file.is_stream("/EncryptionInfo"))
        .unwrap_or(false)
}

/// What `bytes` are, in words, for a file whose name promised something else.
#[cfg(feature = "documents")]
fn found_description(bytes: &[u8]) -> &'static str {
    let sample = bytes.get(..4096).unwrap_or(bytes);
    let utf8 = match std::str::from_utf8(sample) {
        Ok(_) => true,
        // A sample cut inside a character is still text.
        Err(error) => error.error_len().is_none(),
    };
    if bytes.is_empty() {
        "empty"
    } else if bytes.starts_with(ZIP_MAGIC) {
        "a zip archive"
    } else if bytes.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'{') {
        "JSON"
    } else if utf8 && !sample.contains(&0) {
        "plain text"
    } else {
        "binary data of no known document format"
    }
}

/// The zip containers: which format the parts say, then its extractor.
#[cfg(feature = "documents")]
fn extract_zip(
    bytes: &[u8],
    name: &str,
    promised: Option<(DocumentFormat, &'static str)>,
    limits: &ExtractionLimits,
) -> Result<Option<ExtractedDocument>, DocumentError> {
    check_zip(bytes, limits)
        .map_err(|error| DocumentError::new(error.kind, format!("{name}: {}", error.message)))?;
    let mut archive = open_zip(bytes)?;
    let has = |archive: &zip::ZipArchive<Cursor<&[u8]>>, part: &str| {
        archive.index_for_name(part).is_some()
    };
    let mimetype = match read_zip_entry(&mut archive, "mimetype", limits)? {
        Some(bytes) => String::from_utf8_lossy(&bytes).trim().to_string(),
        None => String::new(),
    };
    let format = if has(&archive, "word/document.xml") {
        Some(DocumentFormat::Docx)
    } else if has(&archive, "xl/workbook.xml") {
        Some(DocumentFormat::Xlsx)
    } else if has(&archive, "ppt/presentation.xml") {
        Some(DocumentFormat::Pptx)
    } else if mimetype == "application/vnd.oasis.opendocument.text" {
        Some(DocumentFormat::Odt)
    } else if mimetype == "application/vnd.oasis.opendocument.spreadsheet" {
        Some(DocumentFormat::Ods)
    } else if mimetype == "application/vnd.oasis.opendocument.presentation" {
        Some(DocumentFormat::Odp)
    } else if mimetype == "application/epub+zip" || has(&archive, "META-INF/container.xml") {
        Some(DocumentFormat::Epub)
    } else {
        None
    };
    let Some(format) = format else {
        return match promised {
            Some((promised, what)) => Err(DocumentError::malformed(format!(
                "{name} is named as {what} (.{}) and is a zip archive, but it holds none of the parts that format needs (for .{} the part {})",
                promised.name(),
                promised.name(),
                required_part(promised)
            ))),
            None => Ok(None),
        };
    };
    let document = match format {
        DocumentFormat::Docx => office::extract_docx(&mut archive, limits)?,
        DocumentFormat::Odt => office::extract_odt(&mut archive, limits)?,
        DocumentFormat::Pptx => office::extract_pptx(&mut archive, limits)?,
        DocumentFormat::Odp => office::extract_odp(&mut archive, limits)?,
        DocumentFormat::Epub => epub::extract_epub(&mut archive, limits)?,
        DocumentFormat::Xlsx | DocumentFormat::Ods => extract_by_h7(bytes, format, limits)?,
        DocumentFormat::Xls | DocumentFormat::Pdf | DocumentFormat::Ipynb => {
            return Err(DocumentError::malformed(format!(
                "{name} is a zip archive of no known document format"
            )))
        }
    };
    Ok(Some(document))
}

/// The part a zip format needs, for messages.
#[cfg(feature = "documents")]
fn required_part(format: DocumentFormat) -> &'static str {
    match format {
        DocumentFormat::Docx => "word/document.xml",
        DocumentFormat::Xlsx => "xl/workbook.xml",
        DocumentFormat::Pptx => "ppt/presentation.xml",
        DocumentFormat::Odt | DocumentFormat::Ods | DocumentFormat::Odp => {
            "mimetype and content.xml"
        }
        DocumentFormat::Epub => "META-INF/container.xml",
        _ => "(none: it is not a zip format)",
    }
}

/// Spreadsheets and PDF: the extractors of `sheets.rs` and `pdf.rs`.
#[cfg(feature = "documents")]
fn extract_by_h7(
    bytes: &[u8],
    format: DocumentFormat,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    match format {
        DocumentFormat::Xlsx | DocumentFormat::Xls | DocumentFormat::Ods => {
            sheets::extract_sheets(bytes, format, limits)
        }
        DocumentFormat::Pdf => pdf::extract_pdf(bytes, limits),
        _ => Err(DocumentError::new(
            DocumentErrorKind::Unsupported,
            format!("{} is not a spreadsheet or PDF format", format.name()),
        )),
    }
}
