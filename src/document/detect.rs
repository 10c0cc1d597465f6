//! Detection: what a file's first bytes (the zip, OLE and PDF magic numbers, a notebook's JSON) and its name say
//! about it being a document.

use super::DocumentFormat;

/// What the first bytes and the name of a file say about it being a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Candidate {
    /// Not a document: read it as a file.
    No,
    /// Perhaps a document: read all of it and call [`extract`].
    Yes,
}

/// The formats a file name's extension promises (lower-cased), with the words that name them in messages.
pub(super) fn format_of_name(name: &str) -> Option<(DocumentFormat, &'static str)> {
    let extension = name
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase())?;
    Some(match extension.as_str() {
        "ipynb" => (DocumentFormat::Ipynb, "a Jupyter notebook"),
        "docx" => (DocumentFormat::Docx, "a Word document"),
        "xlsx" | "xlsm" => (DocumentFormat::Xlsx, "an Excel workbook"),
        "xls" => (DocumentFormat::Xls, "a legacy Excel workbook"),
        "ods" => (DocumentFormat::Ods, "an OpenDocument spreadsheet"),
        "pptx" => (DocumentFormat::Pptx, "a PowerPoint deck"),
        "odp" => (DocumentFormat::Odp, "an OpenDocument presentation"),
        "odt" => (DocumentFormat::Odt, "an OpenDocument text"),
        "epub" => (DocumentFormat::Epub, "an EPUB book"),
        "pdf" => (DocumentFormat::Pdf, "a PDF file"),
        _ => return None,
    })
}

pub(super) const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
pub(super) const EMPTY_ZIP_MAGIC: &[u8] = b"PK\x05\x06";
pub(super) const OLE_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";
const PDF_MAGIC: &[u8] = b"%PDF-";

/// Whether `head` (the first bytes of a file, up to 64 KiB) named `name` may be a document: a zip or OLE container,
/// a `%PDF-` header, a JSON object that mentions `nbformat` or is named `.ipynb`, or any file whose name promises a
/// document (so a `.docx` that is not one is reported for what it is). Without the `documents` feature: never.
pub(crate) fn candidate(head: &[u8], name: &str) -> Candidate {
    if !cfg!(feature = "documents") {
        return Candidate::No;
    }
    let container = head.starts_with(ZIP_MAGIC)
        || head.starts_with(EMPTY_ZIP_MAGIC)
        || head.starts_with(OLE_MAGIC)
        || pdf_header(head);
    let notebook = head.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'{')
        && memchr::memmem::find(head, b"\"nbformat\"").is_some();
    if container || notebook || format_of_name(name).is_some() {
        Candidate::Yes
    } else {
        Candidate::No
    }
}

/// The first entry names of the zip-based documents read-window extracts: OOXML (`[Content_Types].xml`, or its
/// parts first when a writer orders them so) and OpenDocument and EPUB, whose specifications put `mimetype` first.
const DOCUMENT_FIRST_ENTRIES: [&str; 8] = [
    "[Content_Types].xml",
    "mimetype",
    "_rels/",
    "docProps/",
    "word/",
    "xl/",
    "ppt/",
    "customXml/",
];

/// Whether `head` (a file's first bytes) named `name` is a plain zip archive: a zip whose name promises no document
/// and whose first entry is none of a document's ([`DOCUMENT_FIRST_ENTRIES`]), as a JDK's `src.zip` or a `.jar`.
/// Such a zip is not extracted (nor read whole to look inside): it is an archive (`binary`, listed with `unzip
/// -l`) whatever its size or entry count, not a document over a cap. False when the head cannot tell.
pub(crate) fn plain_zip(head: &[u8], name: &str) -> bool {
    if !head.starts_with(ZIP_MAGIC) || format_of_name(name).is_some() {
        return false;
    }
    // The local file header: the name's length at offset 26 (little-endian), the name at offset 30.
    let Some(&[low, high]) = head.get(26..28) else {
        return false;
    };
    let length = usize::from(u16::from_le_bytes([low, high]));
    match head.get(30..30 + length) {
        Some(first) => !DOCUMENT_FIRST_ENTRIES
            .iter()
            .any(|entry| first.starts_with(entry.as_bytes())),
        None => false,
    }
}

/// Whether `head` is a PDF: `%PDF-` within its first 1,024 bytes (as readers accept it).
pub(super) fn pdf_header(head: &[u8]) -> bool {
    memchr::memmem::find(head.get(..1024).unwrap_or(head), PDF_MAGIC).is_some()
}

/// Whether `head` (a file's first bytes) is a binary document container: a zip, an OLE compound file or a PDF.
/// Text written over such a file destroys it (the write guard of `check-write`).
pub(crate) fn is_binary_container(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(ZIP_MAGIC) || head.starts_with(EMPTY_ZIP_MAGIC) {
        Some("a zip container (Word, Excel, PowerPoint, OpenDocument or EPUB files are zips)")
    } else if head.starts_with(OLE_MAGIC) {
        Some("an OLE compound file (legacy Word, Excel or PowerPoint)")
    } else if pdf_header(head) {
        Some("a PDF file")
    } else {
        None
    }
}

/// Whether `bytes` are a Jupyter notebook's JSON (nbformat 3 or 4), which read-window shows as an extraction.
/// Without the `documents` feature notebooks are read as their JSON, so: never.
pub(crate) fn is_notebook(bytes: &[u8]) -> bool {
    #[cfg(feature = "documents")]
    {
        super::notebook::is_notebook(bytes)
    }
    #[cfg(not(feature = "documents"))]
    {
        let _ = bytes;
        false
    }
}

/// The source of each cell of the notebook whose JSON is `bytes`, in order; `None` when `bytes` are not a
/// notebook's JSON. Without the `documents` feature: always `None`.
pub(crate) fn notebook_cell_sources(bytes: &[u8]) -> Option<Vec<String>> {
    #[cfg(feature = "documents")]
    {
        super::notebook::cell_sources(bytes)
    }
    #[cfg(not(feature = "documents"))]
    {
        let _ = bytes;
        None
    }
}
