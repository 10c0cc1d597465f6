//! Word documents (`.docx`): the body with its lists, tables, text boxes and pictures, then headers and footers,
//! footnotes and comments, and the count of tracked changes.

use super::numbering::{Numbering, STYLE_NUMBERING};
use super::{part, picture_label, picture_marker, push, required, Archive, Flow, Paragraph};
use crate::document::xml::Node;
use crate::document::{
    DocumentError, DocumentFormat, ExtractedDocument, ExtractionLimits, TextBuilder,
};

/// A `.docx`: `word/document.xml` (list items numbered through `word/numbering.xml`), then the headers and
/// footers (`word/header*.xml`, `word/footer*.xml`, each distinct line once), `word/footnotes.xml` and
/// `word/comments.xml`, and a closing line counting tracked changes when there are any.
pub(in crate::document) fn extract_docx(
    archive: &mut Archive<'_>,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let body = required(archive, "word/document.xml", limits)?;
    let numbering = part(archive, "word/numbering.xml", limits)?
        .map(|nodes| Numbering::of(&nodes))
        .unwrap_or_default();
    let mut out = TextBuilder::new();
    let flow = docx_flow(&body, None, &numbering);
    for line in &flow.lines {
        out.line(line);
    }
    let mut page_parts: Vec<String> = archive
        .file_names()
        .filter(|name| {
            let stem = name
                .strip_prefix("word/header")
                .or_else(|| name.strip_prefix("word/footer"));
            stem.and_then(|stem| stem.strip_suffix(".xml"))
                .is_some_and(|number| number.bytes().all(|byte| byte.is_ascii_digit()))
        })
        .map(str::to_string)
        .collect();
    // header1, header2, ..., then the footers, by number.
    page_parts.sort_by_key(|name| {
        let digits: String = name.chars().filter(char::is_ascii_digit).collect();
        (name.contains("footer"), digits.parse::<u32>().unwrap_or(0))
    });
    let mut page_lines: Vec<String> = Vec::new();
    for name in page_parts {
        if let Some(nodes) = part(archive, &name, limits)? {
            for line in docx_flow(&nodes, None, &numbering).lines {
                if !page_lines.contains(&line) {
                    page_lines.push(line);
                }
            }
        }
    }
    if !page_lines.is_empty() {
        out.line("--- headers and footers ---");
        for line in page_lines {
            out.line(&line);
        }
    }
    if let Some(notes) = part(archive, "word/footnotes.xml", limits)? {
        let notes = docx_flow(&notes, Some("footnote"), &numbering).lines;
        if !notes.is_empty() {
            out.line("--- footnotes ---");
            for line in notes {
                out.line(&line);
            }
        }
    }
    if let Some(comments) = part(archive, "word/comments.xml", limits)? {
        let comments = docx_flow(&comments, Some("comment"), &numbering).lines;
        if !comments.is_empty() {
            out.line("--- comments ---");
            for line in comments {
                out.line(&line);
            }
        }
    }
    if flow.insertions + flow.deletions > 0 {
        out.line(&format!(
            "--- tracked changes: {} and {} not yet accepted; the text above shows them accepted (inserted text in, deleted text out) ---",
            crate::prose::plural(u64::from(flow.insertions), "insertion", "insertions"),
            crate::prose::plural(u64::from(flow.deletions), "deletion", "deletions")
        ));
    }
    Ok(out.finish(DocumentFormat::Docx))
}

/// The lines of a WordprocessingML part. `notes`: the element (`footnote`, `comment`) whose paragraphs are
/// numbered `[^N]` / `[comment N by A]`; separator footnotes are skipped. The content of `mc:Fallback` is skipped
/// (it repeats its `mc:Choice` for older readers); a paragraph inside another (a text box) becomes its own line
/// before the one that holds it; deleted text (`w:delText`) is left out and insertions and deletions are counted.
fn docx_flow(nodes: &[Node], notes: Option<&str>, numbering: &Numbering) -> Flow {
    let mut walk = DocxWalk {
        notes,
        numbering,
        flow: Flow::default(),
        paragraphs: Vec::new(),
        in_text: false,
        in_properties: 0,
        in_list: false,
        in_fallback: 0,
        note_label: None,
        skip_note: false,
        drawing_label: None,
        counters: std::collections::HashMap::new(),
    };
    for node in nodes {
        walk.node(node);
    }
    walk.flow
}

/// One walk over the XML nodes of a Word part ([`docx_flow`]): where the text goes, and a method per kind of
/// element.
struct DocxWalk<'a> {
    /// The element of a note or comment in this part (`footnote`, `comment`), if it holds them.
    notes: Option<&'a str>,
    numbering: &'a Numbering,
    flow: Flow,
    /// The paragraphs open, innermost last (a text box's paragraphs sit inside one).
    paragraphs: Vec<Paragraph>,
    in_text: bool,
    in_properties: usize,
    in_list: bool,
    /// Depth inside `mc:Fallback` (the copy of content an older reader would show: skipped).
    in_fallback: usize,
    note_label: Option<String>,
    skip_note: bool,
    /// The name or description of the last drawing seen (`wp:docPr`), for the picture it holds.
    drawing_label: Option<String>,
    /// Items seen so far of each list and level, for numbered markers.
    counters: std::collections::HashMap<(String, usize), u32>,
}

impl DocxWalk<'_> {
    fn node(&mut self, node: &Node) {
        if self.in_fallback > 0 {
            match node {
                Node::Open { name, .. } if name == "Fallback" => self.in_fallback += 1,
                Node::Close(name) if name == "Fallback" => self.in_fallback -= 1,
                _ => {}
            }
            return;
        }
        match node {
            Node::Open { name, .. } => self.open(name, node),
            Node::Close(name) => self.close(name),
            Node::Text(text) if self.in_text => push(&mut self.paragraphs, text),
            Node::Text(_) => {}
        }
    }

    fn open(&mut self, name: &str, node: &Node) {
        let plain = self.in_properties == 0;
        match name {
            "Fallback" => self.in_fallback = 1,
            n if Some(n) == self.notes => self.open_note(node),
            "p" => self.paragraphs.push(Paragraph::default()),
            "pPr" | "rPr" => self.in_properties += 1,
            "ins" if plain => self.flow.insertions += 1,
            "del" if plain => self.flow.deletions += 1,
            "pStyle" => self.paragraph_style(node),
            "outlineLvl" => {
                let level = node.attribute("val").and_then(|v| v.parse::<usize>().ok());
                if let (Some(p), Some(level)) = (self.paragraphs.last_mut(), level) {
                    if level < 9 {
                        p.heading = Some(level + 1);
                    }
                }
            }
            "numPr" => {
                self.in_list = true;
                if let Some(p) = self.paragraphs.last_mut() {
                    p.list = Some(p.list.unwrap_or(0));
                }
            }
            "ilvl" if self.in_list => {
                let level = node.attribute("val").and_then(|v| v.parse::<usize>().ok());
                if let (Some(p), Some(level)) = (self.paragraphs.last_mut(), level) {
                    p.list = Some(level.min(8));
                }
            }
            "numId" if self.in_list => {
                if let Some(p) = self.paragraphs.last_mut() {
                    // numId 0 takes the paragraph out of any list.
                    match node.attribute("val") {
                        Some("0") => p.list = None,
                        Some(id) => p.numbering = Some(id.to_string()),
                        None => {}
                    }
                }
            }
            "docPr" => self.drawing_label = picture_label(node),
            // A picture leaves a line saying so: a document of scanned pages is not an empty file.
            "pic" => {
                let marker = picture_marker(self.drawing_label.take().as_deref());
                push(&mut self.paragraphs, &marker);
            }
            "imagedata" => push(
                &mut self.paragraphs,
                &picture_marker(node.attribute("title")),
            ),
            "t" => self.in_text = true,
            "tab" if plain => push(&mut self.paragraphs, "\t"),
            "br" | "cr" if plain => push(&mut self.paragraphs, "\n"),
            "noBreakHyphen" if plain => push(&mut self.paragraphs, "-"),
            "sym" if plain => {
                // A symbol-font character: its code in hex; the font's private-use codes name no character.
                if let Some(character) = node
                    .attribute("char")
                    .and_then(|code| u32::from_str_radix(code, 16).ok())
                    .filter(|code| !(0xE000..=0xF8FF).contains(code))
                    .and_then(char::from_u32)
                {
                    push(&mut self.paragraphs, &character.to_string());
                }
            }
            "footnoteReference" => {
                let id = node.attribute("id").unwrap_or("?");
                push(&mut self.paragraphs, &format!("[^{id}]"));
            }
            "commentReference" => {
                let id = node.attribute("id").unwrap_or("?");
                push(&mut self.paragraphs, &format!("[comment {id}]"));
            }
            "tbl" => self.flow.open_table(),
            "tc" => self.flow.open_cell(),
            _ => {}
        }
    }

    /// A footnote or comment begins: the label its first paragraph gets; separators are skipped.
    fn open_note(&mut self, node: &Node) {
        let id = node.attribute("id").unwrap_or("?");
        self.skip_note = matches!(
            node.attribute("type"),
            Some("separator" | "continuationSeparator" | "continuationNotice")
        );
        self.note_label = Some(match (self.notes, node.attribute("author")) {
            (Some("comment"), Some(author)) => format!("[comment {id} by {author}] "),
            (Some("comment"), None) => format!("[comment {id}] "),
            _ => format!("[^{id}] "),
        });
    }

    /// A paragraph style: a title or heading level, or one of Word's built-in list styles.
    fn paragraph_style(&mut self, node: &Node) {
        let (Some(p), Some(style)) = (self.paragraphs.last_mut(), node.attribute("val")) else {
            return;
        };
        let lower = style.to_ascii_lowercase();
        if lower == "title" {
            p.heading = Some(1);
        } else if let Some(level) = lower
            .strip_prefix("heading")
            .and_then(|l| l.trim().parse::<usize>().ok())
        {
            p.heading = Some(level);
        } else if lower.contains("list") {
            // Word's built-in list styles: `List Bullet 2`, `ListNumber3` (the digit is the level, 1-based); a
            // `Number` style numbers its items where no `w:numPr` says more.
            let level = lower
                .trim_end()
                .chars()
                .last()
                .and_then(|c| c.to_digit(10))
                .map_or(0, |digit| digit.saturating_sub(1) as usize);
            p.list = p.list.or(Some(level.min(8)));
            if lower.contains("number") && p.numbering.is_none() {
                p.numbering = Some(format!("{STYLE_NUMBERING}{lower}"));
            }
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            n if Some(n) == self.notes => {
                self.note_label = None;
                self.skip_note = false;
            }
            "p" => self.close_paragraph(),
            "pPr" | "rPr" => self.in_properties = self.in_properties.saturating_sub(1),
            "numPr" => self.in_list = false,
            "t" => self.in_text = false,
            "tc" => self.flow.close_cell(),
            "tr" => self.flow.close_row(),
            "tbl" => self.flow.close_table(),
            _ => {}
        }
    }

    /// A paragraph ends: its line (with its list marker) goes to the flow, or into the paragraph around it when it
    /// sits in a text box; a note's first line carries the note's label.
    fn close_paragraph(&mut self) {
        let Some(p) = self.paragraphs.pop() else {
            return;
        };
        if self.skip_note {
            return;
        }
        let marker = match (&p.numbering, p.list) {
            (Some(id), Some(level)) => {
                *self.counters.entry((id.clone(), level)).or_insert(0) += 1;
                // A new item restarts the levels under it.
                self.counters
                    .retain(|(list, l), _| list != id || *l <= level);
                self.numbering.marker(id, level, &self.counters)
            }
            _ => "-".to_string(),
        };
        let line = p.line(&marker);
        if let Some(outer) = self.paragraphs.last_mut() {
            // A paragraph of a text box: kept for after the paragraph the box sits in.
            if !line.is_empty() {
                outer.boxed.push(line);
            }
            outer.boxed.extend(p.boxed);
            return;
        }
        match self.note_label.take() {
            Some(label) if !line.is_empty() => self.flow.paragraph(format!("{label}{line}")),
            Some(label) => self.note_label = Some(label),
            None => self.flow.paragraph(line),
        }
        for boxed in p.boxed {
            self.flow.paragraph(boxed);
        }
    }
}
