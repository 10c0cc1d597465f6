//! PowerPoint (`.pptx`) and OpenDocument (`.odp`) presentations: a slide a part, its title in the marker, its
//! body text, then its speaker notes.

use super::{join_path, part, picture_label, picture_marker, required, Archive};
use crate::document::xml::Node;
use crate::document::{
    DocumentError, DocumentFormat, ExtractedDocument, ExtractionLimits, PartKind, TextBuilder,
};

/// The relationships of a part (`Id` to `Target`, `Type`), from its `.rels` part.
fn relationships(
    archive: &mut Archive<'_>,
    rels: &str,
    limits: &ExtractionLimits,
) -> Result<Vec<(String, String, String)>, DocumentError> {
    let Some(nodes) = part(archive, rels, limits)? else {
        return Ok(Vec::new());
    };
    Ok(nodes
        .iter()
        .filter(|node| matches!(node, Node::Open { name, .. } if name == "Relationship"))
        .map(|node| {
            (
                node.attribute("Id").unwrap_or_default().to_string(),
                node.attribute("Target").unwrap_or_default().to_string(),
                node.attribute("Type").unwrap_or_default().to_string(),
            )
        })
        .collect())
}

/// The paragraphs of a DrawingML shape tree: `(is_title, lines)` per shape, in order.
fn drawing_shapes(nodes: &[Node], notes: bool) -> Vec<(bool, Vec<String>)> {
    let mut walk = ShapeWalk {
        notes,
        ..ShapeWalk::default()
    };
    for node in nodes {
        match node {
            Node::Open { name, .. } => walk.open(name, node),
            Node::Close(name) => walk.close(name),
            Node::Text(text) if walk.in_text => {
                if let Some(p) = walk.paragraph.as_mut() {
                    p.push_str(text);
                }
            }
            Node::Text(_) => {}
        }
    }
    walk.shapes
}

/// A shape being read: whether it is the title, its lines, and whether it is a placeholder that is skipped.
type Shape = (bool, Vec<String>, bool);

/// One walk over a slide's shapes ([`drawing_shapes`]): a method per kind of element.
#[derive(Default)]
struct ShapeWalk {
    /// The part is a notes page (only its body placeholder is kept).
    notes: bool,
    shapes: Vec<(bool, Vec<String>)>,
    /// Depth inside `p:sp` and `p:graphicFrame`.
    depth: usize,
    current: Option<Shape>,
    paragraph: Option<String>,
    in_text: bool,
    /// A table row being read (its cells), and the cell being read: a row becomes one line, cells joined by ` | `.
    row: Option<Vec<String>>,
    cell: Option<String>,
    /// A picture being read (`p:pic`) and its label (from its `p:cNvPr`).
    picture: Option<Option<String>>,
}

impl ShapeWalk {
    fn open(&mut self, name: &str, node: &Node) {
        match name {
            "pic" if self.depth == 0 => self.picture = Some(None),
            "cNvPr" => {
                if let Some(label @ None) = self.picture.as_mut() {
                    *label = picture_label(node);
                }
            }
            "sp" | "graphicFrame" => {
                self.depth += 1;
                if self.depth == 1 {
                    self.current = Some((false, Vec::new(), false));
                }
            }
            "ph" => {
                if let Some(shape) = self.current.as_mut() {
                    let kind = node.attribute("type").unwrap_or("body");
                    shape.0 = kind == "title" || kind == "ctrTitle";
                    shape.2 = self.notes && kind != "body";
                    shape.2 |= matches!(kind, "sldNum" | "dt" | "ftr" | "hdr" | "sldImg");
                }
            }
            "p" => self.paragraph = Some(String::new()),
            "t" => self.in_text = true,
            "br" => {
                if let Some(p) = self.paragraph.as_mut() {
                    p.push('\n');
                }
            }
            "tr" => self.row = Some(Vec::new()),
            "tc" => self.cell = Some(String::new()),
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "pic" if self.depth == 0 => {
                if let Some(label) = self.picture.take() {
                    self.shapes
                        .push((false, vec![picture_marker(label.as_deref())]));
                }
            }
            "sp" | "graphicFrame" => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    if let Some((title, lines, skip)) = self.current.take() {
                        if !skip && !lines.is_empty() {
                            self.shapes.push((title, lines));
                        }
                    }
                }
            }
            "p" => self.close_paragraph(),
            "tc" => {
                if let (Some(done), Some(row)) = (self.cell.take(), self.row.as_mut()) {
                    row.push(done);
                }
            }
            "tr" => {
                if let (Some(done), Some(shape)) = (self.row.take(), self.current.as_mut()) {
                    if done.iter().any(|cell| !cell.is_empty()) {
                        shape.1.push(done.join(" | "));
                    }
                }
            }
            "t" => self.in_text = false,
            _ => {}
        }
    }

    /// A paragraph ends: its text joins the table cell being read (a `|` of it escaped), else the shape's lines.
    fn close_paragraph(&mut self) {
        let (Some(p), Some(shape)) = (self.paragraph.take(), self.current.as_mut()) else {
            return;
        };
        let p = p.trim().to_string();
        if p.is_empty() {
            return;
        }
        match self.cell.as_mut() {
            Some(cell) => {
                if !cell.is_empty() {
                    cell.push(' ');
                }
                cell.push_str(&p.replace('\n', " ").replace('|', "\\|"));
            }
            None => shape.1.push(p),
        }
    }
}

/// Writes one slide: marker with its title (and `(hidden)` for a slide hidden in the show), the other shapes'
/// lines (a table a row a line, cells separated by ` | `), then `[notes]` and the notes.
fn write_slide(
    out: &mut TextBuilder,
    number: u32,
    count: usize,
    title: Option<String>,
    body: Vec<String>,
    notes: Vec<String>,
    hidden: bool,
) {
    let shown = if hidden { " (hidden)" } else { "" };
    let marker = match &title {
        Some(title) => format!(
            "--- slide {number} of {count}: {}{shown} ---",
            title.replace('\n', " ")
        ),
        None => format!("--- slide {number} of {count}{shown} ---"),
    };
    out.begin_part(PartKind::Slide, number, title, &marker);
    for line in body {
        out.line(&line);
    }
    if !notes.is_empty() {
        out.line("[notes]");
        for line in notes {
            out.line(&line);
        }
    }
}

/// A `.pptx`: slides in the order of `ppt/presentation.xml`, each with its notes slide.
pub(in crate::document) fn extract_pptx(
    archive: &mut Archive<'_>,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let presentation = required(archive, "ppt/presentation.xml", limits)?;
    let rels = relationships(archive, "ppt/_rels/presentation.xml.rels", limits)?;
    let slide_ids: Vec<String> = presentation
        .iter()
        .filter(|node| matches!(node, Node::Open { name, .. } if name == "sldId"))
        .filter_map(node_rid)
        .collect();
    let targets: Vec<String> = slide_ids
        .iter()
        .filter_map(|rid| rels.iter().find(|(id, _, _)| id == rid))
        .map(|(_, target, _)| join_path("ppt", target))
        .collect();
    let mut out = TextBuilder::new();
    let count = targets.len();
    for (index, target) in targets.iter().enumerate() {
        let nodes = required(archive, target, limits)?;
        let shapes = drawing_shapes(&nodes, false);
        let title = shapes
            .iter()
            .find(|(title, _)| *title)
            .map(|(_, lines)| lines.join(" "));
        let body: Vec<String> = shapes
            .into_iter()
            .filter(|(title, _)| !title)
            .flat_map(|(_, lines)| lines)
            .collect();
        let (folder, file) = target.rsplit_once('/').unwrap_or(("", target));
        let slide_rels = relationships(archive, &format!("{folder}/_rels/{file}.rels"), limits)?;
        let mut notes = Vec::new();
        if let Some((_, notes_target, _)) = slide_rels
            .iter()
            .find(|(_, _, kind)| kind.ends_with("/notesSlide"))
        {
            if let Some(nodes) = part(archive, &join_path(folder, notes_target), limits)? {
                notes = drawing_shapes(&nodes, true)
                    .into_iter()
                    .flat_map(|(_, lines)| lines)
                    .collect();
            }
        }
        // A slide hidden in the show (`<p:sld show="0">`) is extracted all the same, its marker saying so.
        let hidden = nodes
            .iter()
            .find(|node| matches!(node, Node::Open { .. }))
            .and_then(|root| root.attribute("show"))
            .is_some_and(|show| show == "0" || show == "false");
        write_slide(
            &mut out,
            index as u32 + 1,
            count,
            title,
            body,
            notes,
            hidden,
        );
    }
    Ok(out.finish(DocumentFormat::Pptx))
}

/// The `r:id` of a `sldId` (its relationship attribute, local name `id` after the plain `id`).
fn node_rid(node: &Node) -> Option<String> {
    match node {
        Node::Open { attributes, .. } => attributes
            .iter()
            .filter(|(key, _)| key == "id")
            .map(|(_, value)| value.clone())
            .find(|value| value.starts_with("rId") || value.parse::<u64>().is_err()),
        _ => None,
    }
}

/// An `.odp`: `draw:page` elements of `content.xml` in order; the frame of class `title` is the title,
/// `presentation:notes` the notes.
pub(in crate::document) fn extract_odp(
    archive: &mut Archive<'_>,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let content = required(archive, "content.xml", limits)?;
    let slides = odp_slides(&content);
    let mut out = TextBuilder::new();
    let count = slides.len();
    for (index, slide) in slides.into_iter().enumerate() {
        let title = (!slide.title.is_empty()).then(|| slide.title.join(" "));
        write_slide(
            &mut out,
            index as u32 + 1,
            count,
            title,
            slide.body,
            slide.notes,
            false,
        );
    }
    Ok(out.finish(DocumentFormat::Odp))
}

/// One `draw:page` of an `.odp`: the trimmed, non-empty paragraphs of its title frame, of its other frames and of
/// its notes.
#[derive(Default)]
struct OdpSlide {
    title: Vec<String>,
    body: Vec<String>,
    notes: Vec<String>,
}

/// The pages of an `.odp`'s `content.xml` nodes, in order.
fn odp_slides(nodes: &[Node]) -> Vec<OdpSlide> {
    let mut walk = OdpWalk::default();
    for node in nodes {
        match node {
            Node::Open { name, .. } => walk.open(name, node),
            Node::Close(name) => walk.close(name),
            Node::Text(text) => {
                if let Some(p) = walk.paragraph.as_mut() {
                    p.push_str(text);
                }
            }
        }
    }
    walk.slides
}

/// One walk over an `.odp`'s `content.xml` ([`odp_slides`]): where it is (a page, its notes, a title frame) and
/// the paragraph being read.
#[derive(Default)]
struct OdpWalk {
    slides: Vec<OdpSlide>,
    in_page: bool,
    in_notes: bool,
    frame_is_title: bool,
    paragraph: Option<String>,
}

impl OdpWalk {
    /// An element opens: a page starts a slide, a paragraph inside a page starts one, `text:s` is a space and
    /// `text:line-break` a line break in the paragraph.
    fn open(&mut self, name: &str, node: &Node) {
        match name {
            "page" => {
                self.in_page = true;
                self.slides.push(OdpSlide::default());
            }
            "notes" => self.in_notes = true,
            "frame" => self.frame_is_title = node.attribute("class") == Some("title"),
            "p" | "h" if self.in_page => self.paragraph = Some(String::new()),
            "s" => {
                if let Some(p) = self.paragraph.as_mut() {
                    p.push(' ');
                }
            }
            "line-break" => {
                if let Some(p) = self.paragraph.as_mut() {
                    p.push('\n');
                }
            }
            _ => {}
        }
    }

    /// An element closes: a paragraph goes, trimmed, to the last slide's notes, title or body.
    fn close(&mut self, name: &str) {
        match name {
            "page" => self.in_page = false,
            "notes" => self.in_notes = false,
            "frame" => self.frame_is_title = false,
            "p" | "h" => self.close_paragraph(),
            _ => {}
        }
    }

    /// A paragraph ends: its trimmed text, when not empty, joins the last slide's notes, title or body.
    fn close_paragraph(&mut self) {
        let (Some(p), Some(slide)) = (self.paragraph.take(), self.slides.last_mut()) else {
            return;
        };
        let p = p.trim().to_string();
        if p.is_empty() {
            return;
        }
        if self.in_notes {
            slide.notes.push(p);
        } else if self.frame_is_title {
            slide.title.push(p);
        } else {
            slide.body.push(p);
        }
    }
}
