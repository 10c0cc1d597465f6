//! What a read reports about a document (`DocumentFacts`: its format, its parts, its empty pages) and the warning
//! about pages without a text layer.

use super::{DocumentFormat, DocumentPart, ExtractedDocument, PartKind};

/// A page with fewer extracted characters than this (its marker line excluded) is empty: it has no text layer.
const EMPTY_PAGE_CHARS: u64 = 20;

/// The empty pages of `document` as ranges of page numbers (`(first, last)`, 1-based, inclusive), in order.
pub(super) fn empty_page_ranges(document: &ExtractedDocument) -> Vec<(u32, u32)> {
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
pub(super) fn coverage_warning(document: &ExtractedDocument, path: &str) -> Option<String> {
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

/// Characters of a part map every window's hint carries (a few parts' map is short).
const MAP_ALWAYS_CHARS: u64 = 200;
/// A window's content is at least this many times its part map's length for the map to go with it.
const MAP_CONTENT_RATIO: u64 = 10;

/// Whether a part map of `map_chars` goes with a window of `content_chars` that does not start at line 1: when
/// the map is short ([`MAP_ALWAYS_CHARS`]) or small beside the content ([`MAP_CONTENT_RATIO`]).
fn map_fits(map_chars: u64, content_chars: u64) -> bool {
    map_chars <= MAP_ALWAYS_CHARS || content_chars >= map_chars.saturating_mul(MAP_CONTENT_RATIO)
}

/// Parts a hint lists all of; a document with more lists [`PART_MAP_AROUND`] from the window on.
const PART_MAP_ALL: usize = 30;
/// Parts a hint lists of a document with more than [`PART_MAP_ALL`], from the part the window starts in (and
/// about as many again across the whole document).
const PART_MAP_AROUND: usize = 20;
/// Sheets a hint lists all of (a sheet is found by its name).
const SHEET_MAP_ALL: usize = 100;

/// The marker line a part of `kind` opens with in a document of `count` such parts, as the hint names it, and
/// whether that is the whole line (`--- page N of 100 ---`) or its start, for the kinds whose marker goes on with
/// a title or a cell's type (`--- slide N of 100`).
pub(super) fn marker_shape(kind: PartKind, count: usize) -> (String, bool) {
    match kind {
        PartKind::Page => (format!("--- page N of {count} ---"), true),
        PartKind::Slide => (format!("--- slide N of {count}"), false),
        PartKind::Sheet => (format!("=== sheet N of {count}:"), false),
        PartKind::Cell => ("# [cell N]".to_string(), false),
        PartKind::Chapter => ("--- chapter N".to_string(), false),
    }
}

/// How the parts of a document of `count` parts of `kind` are found in its text, for the hint (which the model
/// reads without the JSON fields): by the marker line each opens with, as [`marker_shape`] names it.
/// `each page opens with its marker line: --- page N of 100 ---`
fn marker_clause(kind: Option<PartKind>, count: usize) -> String {
    let Some(kind) = kind else {
        return "each part opens with its marker line".to_string();
    };
    let name = kind.name();
    match marker_shape(kind, count) {
        (shape, true) => format!("each {name} opens with its marker line: {shape}"),
        (shape, false) => format!("each {name} opens with its marker line, which starts {shape}"),
    }
}

/// `n` as an English ordinal for "every 5th part": `2nd`, `3rd`, `11th`, `21st`.
pub(super) fn ordinal(n: usize) -> String {
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

    /// The hint's clause for a window of lines `start_line..=end_line` of this document, whose content is
    /// `content_chars` characters: what it is, the parts in the window, and the offset of the next part (` A pdf
    /// document of 12 pages: this window holds pages 1-3; page 4 starts at line 120 (offset=120). Where each page
    /// starts: 1 at line 1, 2 at line 41, ...`), and a note on pages with no text. The map of where each part
    /// starts goes with the first window (at line 1), and with any window when it is short or small beside the
    /// content ([`map_fits`]); another window says where the map is instead, so a short window of a long document
    /// does not carry a map longer than itself.
    pub fn hint_clause(&self, start_line: u64, end_line: u64, content_chars: u64) -> String {
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
        let map = self.part_map(start_line);
        if start_line == 1 || map_fits(map.len() as u64, content_chars) {
            clause.push_str(&format!(". {map}"));
        } else {
            clause.push_str(&format!(
                ". Where each {kind} starts is in the hint of the first window: read offset=1 limit=1 for the map."
            ));
        }
        clause.push_str(&self.empty_pages_note());
        clause
    }

    /// The hint's note on pages with no text layer or little text, with a leading space; empty when none.
    fn empty_pages_note(&self) -> String {
        let mut note = String::new();
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
            note.push_str(&format!(
                " Pages {} have no text layer (scanned or image-only): see the warning.",
                ranges.join(", ")
            ));
        } else if empty > 0 {
            let (noun, verb) = if empty == 1 {
                ("Page", "has")
            } else {
                ("Pages", "have")
            };
            note.push_str(&format!(
                " {noun} {} {verb} little or no text (under {EMPTY_PAGE_CHARS} characters extracted): if {} should hold more, look at {} rendered.",
                ranges.join(", "),
                if empty == 1 { "it" } else { "they" },
                if empty == 1 { "it" } else { "them" },
            ));
        }
        note
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
            "Where each {kind} starts: {}; and every {}: {} ({}).",
            near.join(", "),
            ordinal(stride),
            far.join(", "),
            marker_clause(self.parts.first().map(|part| part.kind), self.parts.len())
        )
    }
}
