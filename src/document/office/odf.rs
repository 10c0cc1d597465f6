//! OpenDocument text (`.odt`): headings, paragraphs, lists and tables of `content.xml`, then its notes and
//! comments.

use super::{required, Archive, Flow, Paragraph};
use crate::document::xml::Node;
use crate::document::{
    DocumentError, DocumentFormat, ExtractedDocument, ExtractionLimits, TextBuilder,
};

/// Walks OpenDocument text (`text:h`, `text:p`, `text:list`, `table:*`, `text:note`, `office:annotation`):
/// body lines, notes and comments.
#[derive(Default)]
struct OdfText {
    flow: Flow,
    notes: Vec<String>,
    comments: Vec<String>,
}

fn odf_text(nodes: &[Node]) -> OdfText {
    let mut walk = OdfWalk::default();
    for node in nodes {
        match node {
            Node::Open { name, .. } => walk.open(name, node),
            Node::Close(name) => walk.close(name),
            Node::Text(text) => walk.push(text),
        }
    }
    walk.out
}

/// One walk over the XML nodes of an OpenDocument text ([`odf_text`]): a method per kind of element.
#[derive(Default)]
struct OdfWalk {
    out: OdfText,
    /// Paragraphs open inside one another (a note's body inside a paragraph): a stack.
    paragraphs: Vec<Paragraph>,
    list_depth: usize,
    /// Inside a note: its citation and its body's text.
    note: Option<(String, String)>,
    in_citation: bool,
    /// Inside an annotation: its author and its text.
    annotation: Option<(String, String)>,
    in_creator: bool,
}

impl OdfWalk {
    fn open(&mut self, name: &str, node: &Node) {
        match name {
            "h" => self.paragraphs.push(Paragraph {
                heading: Some(
                    node.attribute("outline-level")
                        .and_then(|l| l.parse().ok())
                        .unwrap_or(1),
                ),
                ..Paragraph::default()
            }),
            "p" => self.paragraphs.push(Paragraph {
                list: (self.list_depth > 0).then(|| self.list_depth - 1),
                ..Paragraph::default()
            }),
            "list" => self.list_depth += 1,
            "s" => {
                let count = node
                    .attribute("c")
                    .and_then(|c| c.parse::<usize>().ok())
                    .unwrap_or(1)
                    .min(100);
                self.push(&" ".repeat(count));
            }
            "tab" => self.push("\t"),
            "line-break" => self.push("\n"),
            "note" => self.note = Some((String::new(), String::new())),
            "note-citation" => self.in_citation = true,
            "annotation" => self.annotation = Some((String::new(), String::new())),
            "creator" if self.annotation.is_some() => self.in_creator = true,
            "table" => self.out.flow.open_table(),
            "table-cell" => self.out.flow.open_cell(),
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "h" | "p" => self.close_paragraph(),
            "list" => self.list_depth = self.list_depth.saturating_sub(1),
            "note-citation" => self.in_citation = false,
            "note" => {
                if let Some((citation, body)) = self.note.take() {
                    let citation = citation.trim().to_string();
                    if let Some(p) = self.paragraphs.last_mut() {
                        p.text.push_str(&format!("[^{citation}]"));
                    }
                    self.out
                        .notes
                        .push(format!("[^{citation}] {}", body.trim()));
                }
            }
            "creator" => self.in_creator = false,
            "annotation" => self.close_annotation(),
            "table-cell" => self.out.flow.close_cell(),
            "table-row" => self.out.flow.close_row(),
            "table" => self.out.flow.close_table(),
            _ => {}
        }
    }

    /// A paragraph ends: its line joins the note or annotation it is in, else the flow.
    fn close_paragraph(&mut self) {
        let Some(p) = self.paragraphs.pop() else {
            return;
        };
        let line = p.line("-");
        let held = match (self.note.as_mut(), self.annotation.as_mut()) {
            (Some((_, body)), _) => Some(body),
            (None, Some((_, text))) => Some(text),
            (None, None) => None,
        };
        match held {
            Some(held) if !line.is_empty() => {
                if !held.is_empty() {
                    held.push(' ');
                }
                held.push_str(&line);
            }
            Some(_) => {}
            None => self.out.flow.paragraph(line),
        }
    }

    /// An annotation ends: it becomes a numbered comment, marked where it was.
    fn close_annotation(&mut self) {
        let Some((author, text)) = self.annotation.take() else {
            return;
        };
        let number = self.out.comments.len() + 1;
        let author = author.trim();
        self.out.comments.push(if author.is_empty() {
            format!("[comment {number}] {}", text.trim())
        } else {
            format!("[comment {number} by {author}] {}", text.trim())
        });
        if let Some(p) = self.paragraphs.last_mut() {
            p.text.push_str(&format!("[comment {number}]"));
        }
    }

    /// Text goes to the note's citation, the annotation's author, or the open paragraph.
    fn push(&mut self, text: &str) {
        if self.in_citation {
            if let Some((citation, _)) = self.note.as_mut() {
                citation.push_str(text);
            }
        } else if self.in_creator {
            if let Some((author, _)) = self.annotation.as_mut() {
                author.push_str(text);
            }
        } else if let Some(p) = self.paragraphs.last_mut() {
            p.text.push_str(text);
        }
    }
}

/// An `.odt`: `content.xml`, body, then notes and comments.
pub(in crate::document) fn extract_odt(
    archive: &mut Archive<'_>,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let content = required(archive, "content.xml", limits)?;
    let text = odf_text(&content);
    let mut out = TextBuilder::new();
    for line in text.flow.lines {
        out.line(&line);
    }
    if !text.notes.is_empty() {
        out.line("--- footnotes ---");
        for line in text.notes {
            out.line(&line);
        }
    }
    if !text.comments.is_empty() {
        out.line("--- comments ---");
        for line in text.comments {
            out.line(&line);
        }
    }
    Ok(out.finish(DocumentFormat::Odt))
}
