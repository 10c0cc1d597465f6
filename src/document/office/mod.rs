//! Word and OpenDocument text (paragraphs in order, headings `#` by outline level, list items indented by level
//! behind `- ` or, in a numbered Word list, their number (`2.`, `b.`, `iv.`), tables in place with a row a line and
//! cells separated by ` | `; after the body a Word file's headers and footers, then footnotes and comments, and a
//! count of tracked changes not yet accepted)
//! and PowerPoint and OpenDocument presentations (a slide a part: its title in the marker, then its body text,
//! then its speaker notes after a `[notes]` line).

mod docx;
mod numbering;
mod odf;
mod slides;

use std::io::Cursor;

use super::xml::{parse, Node};
use super::{read_zip_entry, DocumentError, ExtractionLimits};

pub(super) use docx::extract_docx;
#[cfg(test)]
pub(super) use numbering::list_marker;
pub(super) use odf::extract_odt;
pub(super) use slides::{extract_odp, extract_pptx};

type Archive<'a> = zip::ZipArchive<Cursor<&'a [u8]>>;

/// The XML part `name`, parsed; `Ok(None)` when the zip has no such part.
fn part(
    archive: &mut Archive<'_>,
    name: &str,
    limits: &ExtractionLimits,
) -> Result<Option<Vec<Node>>, DocumentError> {
    match read_zip_entry(archive, name, limits)? {
        Some(bytes) => parse(&bytes, name).map(Some),
        None => Ok(None),
    }
}

/// The XML part `name`, which the format requires. Errors: `Malformed` naming the missing part.
fn required(
    archive: &mut Archive<'_>,
    name: &str,
    limits: &ExtractionLimits,
) -> Result<Vec<Node>, DocumentError> {
    part(archive, name, limits)?
        .ok_or_else(|| DocumentError::malformed(format!("the zip holds no `{name}` part")))
}

/// Paragraph text gathered while walking a body: text, its heading level, its list level and, for a list item,
/// the numbering it belongs to (`w:numId`).
#[derive(Default)]
struct Paragraph {
    text: String,
    heading: Option<usize>,
    list: Option<usize>,
    numbering: Option<String>,
    /// The lines of paragraphs inside this one (a text box's), written after it: the box belongs to the
    /// paragraph it is anchored in, which reads first.
    boxed: Vec<String>,
}

impl Paragraph {
    /// The paragraph as a line: `# ` by heading level, a list item indented by level behind its `marker` (`- `
    /// for bullets, `3. ` for numbered items).
    fn line(&self, marker: &str) -> String {
        let text = self.text.trim();
        if text.is_empty() {
            return String::new();
        }
        match (self.heading, self.list) {
            (Some(level), _) => format!("{} {text}", "#".repeat(level.clamp(1, 6))),
            (None, Some(level)) => format!("{}{marker} {text}", "  ".repeat(level)),
            (None, None) => text.to_string(),
        }
    }
}

/// Where finished paragraphs go: the body, or the cell of the table being read.
#[derive(Default)]
struct Flow {
    lines: Vec<String>,
    /// Tables being read, innermost last: rows of cells, the current row, the current cell.
    tables: Vec<(Vec<String>, Option<String>)>,
    /// Tracked insertions (`w:ins`) and deletions (`w:del`) in the part.
    insertions: u32,
    deletions: u32,
}

impl Flow {
    fn paragraph(&mut self, line: String) {
        if line.is_empty() {
            return;
        }
        match self.tables.last_mut() {
            Some((_, Some(cell))) => {
                if !cell.is_empty() {
                    cell.push(' ');
                }
                // A `|` of the cell's text is written `\|` (as Markdown tables do): ` | ` separates cells.
                cell.push_str(&line.replace('\n', " ").replace('|', "\\|"));
            }
            _ => self.lines.push(line),
        }
    }
    fn open_table(&mut self) {
        self.tables.push((Vec::new(), None));
    }
    fn open_cell(&mut self) {
        if let Some((_, cell)) = self.tables.last_mut() {
            *cell = Some(String::new());
        }
    }
    fn close_cell(&mut self) {
        if let Some((row, cell)) = self.tables.last_mut() {
            row.push(cell.take().unwrap_or_default());
        }
    }
    fn close_row(&mut self) {
        let Some((row, _)) = self.tables.last_mut() else {
            return;
        };
        let line = std::mem::take(row).join(" | ");
        if self.tables.len() > 1 {
            // A nested table's row is text of the outer cell: its separators are escaped like any `|` of a cell,
            // so only the outer table's ` | ` separates the outer cells.
            let outer = self.tables.len() - 2;
            if let Some((_, Some(cell))) = self.tables.get_mut(outer) {
                if !cell.is_empty() {
                    cell.push(' ');
                }
                cell.push_str(&line.replace(" | ", " \\| "));
            }
        } else if !line.replace('|', "").trim().is_empty() {
            self.lines.push(line);
        }
    }
    fn close_table(&mut self) {
        self.tables.pop();
    }
}
/// The label of a drawing or picture from its non-visual properties (`wp:docPr`, `p:cNvPr`): its description (alt
/// text) when it has one, else its name.
fn picture_label(node: &Node) -> Option<String> {
    node.attribute("descr")
        .filter(|text| !text.trim().is_empty())
        .or_else(|| {
            node.attribute("name")
                .filter(|text| !text.trim().is_empty())
        })
        .map(|text| text.trim().replace('\n', " "))
}

/// The line a picture leaves in the text: `[picture: Chart of sales]`, or `[picture]` without a label.
fn picture_marker(label: Option<&str>) -> String {
    match label {
        Some(label) if !label.is_empty() => format!("[picture: {label}]"),
        _ => "[picture]".to_string(),
    }
}

/// Adds `text` to the innermost open paragraph (text outside any paragraph is not body text).
fn push(paragraphs: &mut [Paragraph], text: &str) {
    if let Some(p) = paragraphs.last_mut() {
        p.text.push_str(text);
    }
}
/// `target` resolved against the folder `base` (`ppt/slides` + `../notesSlides/n.xml`), leading `/` from the root.
pub(super) fn join_path(base: &str, target: &str) -> String {
    let mut parts: Vec<&str> = if target.starts_with('/') {
        Vec::new()
    } else {
        base.split('/').filter(|part| !part.is_empty()).collect()
    };
    for piece in target.split('/') {
        match piece {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            piece => parts.push(piece),
        }
    }
    parts.join("/")
}
