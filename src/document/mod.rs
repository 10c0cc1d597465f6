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
use std::io::{Cursor, Read};

#[cfg(feature = "documents")]
mod epub;
#[cfg(feature = "documents")]
#[cfg(test)]
mod fixtures;
#[cfg(feature = "documents")]
mod notebook;
#[cfg(feature = "documents")]
mod office;
#[cfg(feature = "documents")]
pub mod pdf;
#[cfg(feature = "documents")]
#[cfg(test)]
mod samples;
#[cfg(feature = "documents")]
pub mod sheets;
#[cfg(all(test, feature = "documents"))]
mod tests;
#[cfg(feature = "documents")]
mod xml;

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

#[cfg(feature = "documents")]
/// Entries at most this size (bytes, decompressed) are exempt from the ratio cap: small XML parts compress well.
const RATIO_EXEMPT_BYTES: u64 = 1_000_000;

#[cfg(feature = "documents")]
/// Checks a zip's central directory against `limits` before anything is decompressed (entry count, declared
/// sizes, ratio). Errors: TooLarge naming the cap; Malformed when it is not a readable zip.
pub fn check_zip(bytes: &[u8], limits: &ExtractionLimits) -> Result<(), DocumentError> {
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

#[cfg(feature = "documents")]
/// Opens `bytes` as a zip archive. Errors: Malformed when it is not a readable zip.
pub fn open_zip(bytes: &[u8]) -> Result<zip::ZipArchive<Cursor<&[u8]>>, DocumentError> {
    zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| DocumentError::malformed(format!("not a readable zip archive: {e}")))
}

#[cfg(feature = "documents")]
/// Reads the entry `name` of `archive`, inflating at most `limits.max_total_uncompressed` bytes and stopping as soon
/// as an entry over 1 MB exceeds `limits.max_ratio` (declared sizes may lie). Returns `Ok(None)` when there is no
/// such entry. Errors: TooLarge naming the cap; Encrypted for a password-protected entry; Malformed when the entry
/// cannot be inflated.
pub fn read_zip_entry(
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

/// Builds an extracted text line by line and records where each part starts: the text conventions of this module
/// (lines end in `\n`, no trailing whitespace, control characters other than tab removed) in one place.
#[derive(Debug, Clone, Default)]
pub struct TextBuilder {
    text: String,
    lines: u64,
    parts: Vec<DocumentPart>,
}

impl TextBuilder {
    /// An empty text.
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens a part: `marker` becomes its marker line (the next line of the text), and the lines added after it
    /// count towards its `characters`.
    pub fn begin_part(&mut self, kind: PartKind, number: u32, name: Option<String>, marker: &str) {
        self.push_lines(marker);
        let first_line = self.lines;
        self.parts.push(DocumentPart {
            kind,
            number,
            name,
            first_line,
            characters: 0,
            not_extracted: false,
        });
    }

    /// Adds `text` as one or more lines (split on `\n`; `\r` and control characters other than tab removed,
    /// trailing whitespace trimmed). Its characters (line breaks excluded) count towards the open part.
    pub fn line(&mut self, text: &str) {
        let added = self.push_lines(text);
        if let Some(part) = self.parts.last_mut() {
            part.characters += added;
        }
    }

    fn push_lines(&mut self, text: &str) -> u64 {
        let mut characters = 0;
        for raw in text.split('\n') {
            let start = self.text.len();
            for character in raw.chars() {
                if character == '\t' || !character.is_control() {
                    self.text.push(character);
                }
            }
            let trimmed = self.text.trim_end().len().max(start);
            self.text.truncate(trimmed);
            characters += self
                .text
                .get(start..)
                .map_or(0, |line| line.chars().count() as u64);
            self.text.push('\n');
            self.lines += 1;
        }
        characters
    }

    /// The finished document of `format`.
    pub fn finish(self, format: DocumentFormat) -> ExtractedDocument {
        ExtractedDocument {
            format,
            text: self.text,
            parts: self.parts,
        }
    }
}

/// A page with fewer extracted characters than this (its marker line excluded) is empty: it has no text layer.
pub const EMPTY_PAGE_CHARS: u64 = 20;

/// The empty pages of `document` as ranges of page numbers (`(first, last)`, 1-based, inclusive), in order.
pub fn empty_page_ranges(document: &ExtractedDocument) -> Vec<(u32, u32)> {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for part in document
        .parts
        .iter()
        .filter(|part| part.kind == PartKind::Page)
    {
        if part.characters >= EMPTY_PAGE_CHARS || part.not_extracted {
            continue;
        }
        match ranges.last_mut() {
            Some((_, last)) if last.saturating_add(1) == part.number => *last = part.number,
            _ => ranges.push((part.number, part.number)),
        }
    }
    ranges
}

/// The coverage warning of a document whose pages lack a text layer: when at least 2 pages are empty and they are
/// at least 10% of the pages, one warning naming each empty range, the last text extracted before it, and what to
/// do. `None` otherwise (and for documents without pages).
pub fn coverage_warning(document: &ExtractedDocument, path: &str) -> Option<String> {
    let pages = document
        .parts
        .iter()
        .filter(|part| part.kind == PartKind::Page)
        .count() as u64;
    let ranges = empty_page_ranges(document);
    let empty: u64 = ranges
        .iter()
        .map(|(first, last)| u64::from(last - first) + 1)
        .sum();
    if empty < 2 || empty.saturating_mul(10) < pages {
        return None;
    }
    let lines: Vec<&str> = document.text.lines().collect();
    let described: Vec<String> = ranges
        .iter()
        .map(|&(first, last)| {
            let span = if first == last {
                format!("page {first}")
            } else {
                format!("pages {first}-{last}")
            };
            match last_text_before(document, &lines, first) {
                Some(text) => format!("{span} (after \"{text}\")"),
                None => format!("{span} (at the start)"),
            }
        })
        .collect();
    Some(format!(
        "{}no text layer] {empty} of the {pages} pages of {path} have no extractable text, or almost none (under {EMPTY_PAGE_CHARS} characters each): {}. Their text layer is missing or nearly empty (scanned or image-only pages, or pages that are mostly pictures, such as title slides), so this extraction may not hold what they show. Render those pages as images and look at them before relying on this document.",
        crate::prose::MARKER_PREFIX,
        described.join("; ")
    ))
}

/// The last non-empty line of text (not a marker line) before page `page`, cut to its last 60 characters.
fn last_text_before(document: &ExtractedDocument, lines: &[&str], page: u32) -> Option<String> {
    let first_line = document
        .parts
        .iter()
        .find(|part| part.kind == PartKind::Page && part.number == page)?
        .first_line;
    let markers: Vec<u64> = document.parts.iter().map(|part| part.first_line).collect();
    let before = usize::try_from(first_line.saturating_sub(1)).ok()?;
    let (_, line) = lines
        .get(..before)?
        .iter()
        .enumerate()
        .rev()
        .find(|(index, line)| !line.trim().is_empty() && !markers.contains(&(*index as u64 + 1)))?;
    let characters: Vec<char> = line.trim().chars().collect();
    let start = characters.len().saturating_sub(60);
    let tail: String = characters.get(start..).unwrap_or_default().iter().collect();
    Some(if start > 0 {
        format!("...{tail}")
    } else {
        tail
    })
}

/// What a read of a document reports about it: the format, its parts and the empty pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentFacts {
    /// The format.
    pub format: DocumentFormat,
    /// Every part in order, with its first line.
    pub parts: Vec<DocumentPart>,
    /// For a PDF, its page count.
    pub pages: Option<u32>,
    /// For a PDF, the pages without a text layer as `(first, last)` ranges (1-based, inclusive).
    pub empty_pages: Vec<(u32, u32)>,
    /// The coverage warning, when it applies (see `coverage_warning`).
    pub warning: Option<String>,
}

/// The indefinite article before a format's name as it is read aloud: `an xlsx`, `an ipynb`, `an epub`, `a docx`.
fn article(format: &str) -> &'static str {
    if format.starts_with(['a', 'e', 'i', 'o', 'u', 'x']) {
        "an"
    } else {
        "a"
    }
}

/// Parts a hint lists all of; a document with more lists [`PART_MAP_AROUND`] from the window on.
pub const PART_MAP_ALL: usize = 30;
/// Parts a hint lists of a document with more than [`PART_MAP_ALL`], from the part the window starts in (and
/// about as many again across the whole document).
pub const PART_MAP_AROUND: usize = 20;
/// Sheets a hint lists all of (a sheet is found by its name).
pub const SHEET_MAP_ALL: usize = 100;

/// `n` as an English ordinal for "every 5th part": `2nd`, `3rd`, `11th`, `21st`.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

impl DocumentFacts {
    /// The facts of `document` read at `path`.
    pub fn of(document: &ExtractedDocument, path: &str) -> Self {
        let is_pdf = document.format == DocumentFormat::Pdf;
        DocumentFacts {
            format: document.format,
            parts: document.parts.clone(),
            pages: is_pdf.then(|| {
                document
                    .parts
                    .iter()
                    .filter(|part| part.kind == PartKind::Page)
                    .count() as u32
            }),
            empty_pages: if is_pdf {
                empty_page_ranges(document)
            } else {
                Vec::new()
            },
            warning: coverage_warning(document, path),
        }
    }

    /// The hint's clause for a window of lines `start_line..=end_line` of this document: what it is, the parts in
    /// the window, and the offset of the next part (` A pdf document of 12 pages: this window holds pages 1-3;
    /// page 4 starts at line 120 (offset=120). Where each page starts: 1 at line 1, 2 at line 41, ...`), and a
    /// note on pages with no text.
    pub fn hint_clause(&self, start_line: u64, end_line: u64) -> String {
        let Some(first) = self.parts.first() else {
            return format!(
                " This is the text extracted from {} {} document.",
                article(self.format.name()),
                self.format.name()
            );
        };
        let kind = first.kind.name();
        let count = self.parts.len();
        let plural = if count == 1 {
            kind.to_string()
        } else {
            format!("{kind}s")
        };
        let mut clause = format!(
            " This is the text extracted from {} {} document of {count} {plural}",
            article(self.format.name()),
            self.format.name()
        );
        let inside: Vec<u32> = self
            .parts
            .iter()
            .enumerate()
            .filter(|(index, part)| {
                let next = self
                    .parts
                    .get(index + 1)
                    .map_or(u64::MAX, |next| next.first_line);
                part.first_line <= end_line && next > start_line
            })
            .map(|(_, part)| part.number)
            .collect();
        match (inside.first(), inside.last()) {
            (Some(a), Some(b)) if a == b => {
                clause.push_str(&format!("; this window is in {kind} {a}"))
            }
            (Some(a), Some(b)) => clause.push_str(&format!("; this window holds {kind}s {a}-{b}")),
            _ => {}
        }
        if let Some(next) = self.parts.iter().find(|part| part.first_line > end_line) {
            clause.push_str(&format!(
                "; {kind} {} starts at line {} (offset={})",
                next.number, next.first_line, next.first_line
            ));
        }
        clause.push_str(&format!(". {}", self.part_map(start_line)));
        let ranges: Vec<String> = self
            .empty_pages
            .iter()
            .map(|&(a, b)| {
                if a == b {
                    format!("{a}")
                } else {
                    format!("{a}-{b}")
                }
            })
            .collect();
        let empty: u32 = self.empty_pages.iter().map(|&(a, b)| b - a + 1).sum();
        if self.warning.is_some() {
            clause.push_str(&format!(
                " Pages {} have no text layer (scanned or image-only): see the warning.",
                ranges.join(", ")
            ));
        } else if empty > 0 {
            let (noun, verb) = if empty == 1 {
                ("Page", "has")
            } else {
                ("Pages", "have")
            };
            clause.push_str(&format!(
                " {noun} {} {verb} little or no text (under {EMPTY_PAGE_CHARS} characters extracted): if {} should hold more, look at {} rendered.",
                ranges.join(", "),
                if empty == 1 { "it" } else { "they" },
                if empty == 1 { "it" } else { "them" },
            ));
        }
        clause
    }

    /// Where the parts start, for the hint (models that see only the text see no `document.parts`): every part
    /// when there are at most [`PART_MAP_ALL`] (or every sheet, up to [`SHEET_MAP_ALL`]: a sheet is looked for by
    /// name); else [`PART_MAP_AROUND`] from the one holding `start_line` on, and every k-th part of the rest so
    /// that about [`PART_MAP_AROUND`] more reach across the whole document (a call lands within k parts of any
    /// part, and the next hint lists those exactly).
    /// `Where each sheet starts: 1 (Budget) at line 1, 2 (Totals) at line 40.`
    fn part_map(&self, start_line: u64) -> String {
        let kind = self.parts.first().map_or("part", |part| part.kind.name());
        let entry = |part: &DocumentPart| match &part.name {
            Some(name) if part.kind == PartKind::Sheet => {
                format!("{} ({name}) at line {}", part.number, part.first_line)
            }
            _ => format!("{} at line {}", part.number, part.first_line),
        };
        let all = self.parts.len() <= PART_MAP_ALL
            || (kind == PartKind::Sheet.name() && self.parts.len() <= SHEET_MAP_ALL);
        if all {
            let entries: Vec<String> = self.parts.iter().map(entry).collect();
            return format!("Where each {kind} starts: {}.", entries.join(", "));
        }
        let from = self
            .parts
            .iter()
            .rposition(|part| part.first_line <= start_line)
            .unwrap_or(0);
        let to = (from + PART_MAP_AROUND).min(self.parts.len());
        let near: Vec<String> = self
            .parts
            .get(from..to)
            .unwrap_or_default()
            .iter()
            .map(entry)
            .collect();
        let stride = self.parts.len().div_ceil(PART_MAP_AROUND);
        let far: Vec<String> = self
            .parts
            .iter()
            .enumerate()
            .filter(|(index, _)| (index + 1) % stride == 0 && !(from..to).contains(index))
            .map(|(_, part)| entry(part))
            .collect();
        format!(
            "Where each {kind} starts: {}; and every {}: {} (each {kind} opens with its marker line; document.parts lists all {}).",
            near.join(", "),
            ordinal(stride),
            far.join(", "),
            self.parts.len()
        )
    }
}

/// What the first bytes and the name of a file say about it being a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Candidate {
    /// Not a document: read it as a file.
    No,
    /// Perhaps a document: read all of it and call [`extract`].
    Yes,
}

/// The formats a file name's extension promises (lower-cased), with the words that name them in messages.
pub fn format_of_name(name: &str) -> Option<(DocumentFormat, &'static str)> {
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

const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
const EMPTY_ZIP_MAGIC: &[u8] = b"PK\x05\x06";
const OLE_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";
const PDF_MAGIC: &[u8] = b"%PDF-";

/// Whether `head` (the first bytes of a file, up to 64 KiB) named `name` may be a document: a zip or OLE container,
/// a `%PDF-` header, a JSON object that mentions `nbformat` or is named `.ipynb`, or any file whose name promises a
/// document (so a `.docx` that is not one is reported for what it is). Without the `documents` feature: never.
pub fn candidate(head: &[u8], name: &str) -> Candidate {
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

/// Whether `head` is a PDF: `%PDF-` within its first 1,024 bytes (as readers accept it).
fn pdf_header(head: &[u8]) -> bool {
    memchr::memmem::find(head.get(..1024).unwrap_or(head), PDF_MAGIC).is_some()
}

/// Whether `head` (a file's first bytes) is a binary document container: a zip, an OLE compound file or a PDF.
/// Text written over such a file destroys it (the write guard of `check-write`).
pub fn is_binary_container(head: &[u8]) -> Option<&'static str> {
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
pub fn is_notebook(bytes: &[u8]) -> bool {
    #[cfg(feature = "documents")]
    {
        notebook::is_notebook(bytes)
    }
    #[cfg(not(feature = "documents"))]
    {
        let _ = bytes;
        false
    }
}

/// The source of each cell of the notebook whose JSON is `bytes`, in order; `None` when `bytes` are not a
/// notebook's JSON. Without the `documents` feature: always `None`.
pub fn notebook_cell_sources(bytes: &[u8]) -> Option<Vec<String>> {
    #[cfg(feature = "documents")]
    {
        notebook::cell_sources(bytes)
    }
    #[cfg(not(feature = "documents"))]
    {
        let _ = bytes;
        None
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

/// Extracted documents a session keeps at most.
pub const MAX_CACHED_DOCUMENTS: usize = 8;
/// Bytes of extracted text a session keeps at most (the last document stays even when it alone is larger).
pub const MAX_CACHED_TEXT_BYTES: u64 = 64 * 1024 * 1024;

/// A file version: its size in bytes, its modification time (nanoseconds since the epoch, when known) and the
/// fingerprint of its content (the reader's `document_fingerprint`: all of it up to 16 MiB, else its head and tail).
pub type Version = (u64, Option<u128>, u64);

/// The extractions of a session, per path and file version, least recently used first out: extraction runs once
/// per file version, so paging a 300-page PDF does not extract it again. Failed extractions are kept too (a zip
/// bomb is refused once, then answered from here). Bounded by [`MAX_CACHED_DOCUMENTS`] and
/// [`MAX_CACHED_TEXT_BYTES`].
#[derive(Debug, Default)]
pub struct DocumentCache {
    entries: Vec<(
        String,
        Version,
        Result<std::sync::Arc<ExtractedDocument>, DocumentError>,
    )>,
    /// Extractions run (cache misses), for tests and stats.
    pub extractions: u64,
}

impl DocumentCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The cached extraction of `path` at `version`, moved to the back (most recently used).
    pub fn get(
        &mut self,
        path: &str,
        version: Version,
    ) -> Option<Result<std::sync::Arc<ExtractedDocument>, DocumentError>> {
        let position = self
            .entries
            .iter()
            .position(|(p, v, _)| p == path && *v == version)?;
        let entry = self.entries.remove(position);
        let answer = entry.2.clone();
        self.entries.push(entry);
        Some(answer)
    }

    /// Keeps `extraction` of `path` at `version` (replacing any other version of `path`) and evicts the least
    /// recently used beyond the bounds.
    pub fn put(
        &mut self,
        path: &str,
        version: Version,
        extraction: Result<std::sync::Arc<ExtractedDocument>, DocumentError>,
    ) {
        self.entries.retain(|(p, _, _)| p != path);
        self.entries.push((path.to_string(), version, extraction));
        while self.entries.len() > MAX_CACHED_DOCUMENTS
            || (self.text_bytes() > MAX_CACHED_TEXT_BYTES && self.entries.len() > 1)
        {
            let _evicted = self.entries.remove(0);
        }
    }

    /// Forgets `path` (it was written).
    pub fn forget(&mut self, path: &str) {
        self.entries.retain(|(p, _, _)| p != path);
    }

    #[cfg(test)]
    /// Documents kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    fn text_bytes(&self) -> u64 {
        self.entries
            .iter()
            .map(|(_, _, extraction)| {
                extraction
                    .as_ref()
                    .map_or(0, |document| document.text.len() as u64)
            })
            .sum()
    }
}
