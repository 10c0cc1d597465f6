//! EPUB books: the chapters (spine items) in spine order, each opened by `--- chapter N: Title ---` (the title is
//! the chapter's first heading, else its `<title>`), its XHTML reduced to text: a block element a line, headings
//! marked `#` by level, list items `- `, table rows with cells separated by ` | `; `head`, `script` and `style`
//! left out.

use std::io::Cursor;

use super::office::join_path;
use super::xml::{parse, Node};
use super::{
    read_zip_entry, DocumentError, DocumentFormat, ExtractedDocument, ExtractionLimits, PartKind,
    TextBuilder,
};

type Archive<'a> = zip::ZipArchive<Cursor<&'a [u8]>>;

fn xml_part(
    archive: &mut Archive<'_>,
    name: &str,
    limits: &ExtractionLimits,
) -> Result<Vec<Node>, DocumentError> {
    let bytes = read_zip_entry(archive, name, limits)?
        .ok_or_else(|| DocumentError::malformed(format!("the EPUB holds no `{name}` part")))?;
    parse(&bytes, name)
}

/// An `.epub`: `META-INF/container.xml` names the package (OPF), whose spine orders the chapters.
pub fn extract_epub(
    archive: &mut Archive<'_>,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let container = xml_part(archive, "META-INF/container.xml", limits)?;
    let package = container
        .iter()
        .find(|node| matches!(node, Node::Open { name, .. } if name == "rootfile"))
        .and_then(|node| node.attribute("full-path"))
        .ok_or_else(|| {
            DocumentError::malformed("the EPUB's META-INF/container.xml names no rootfile")
        })?
        .to_string();
    let opf = xml_part(archive, &package, limits)?;
    let base = package
        .rsplit_once('/')
        .map_or("", |(folder, _)| folder)
        .to_string();
    let manifest: Vec<(String, String)> = opf
        .iter()
        .filter(|node| matches!(node, Node::Open { name, .. } if name == "item"))
        .filter_map(|node| {
            Some((
                node.attribute("id")?.to_string(),
                node.attribute("href")?.to_string(),
            ))
        })
        .collect();
    let spine: Vec<String> = opf
        .iter()
        .filter(|node| matches!(node, Node::Open { name, .. } if name == "itemref"))
        .filter_map(|node| node.attribute("idref"))
        .filter_map(|idref| manifest.iter().find(|(id, _)| id == idref))
        .map(|(_, href)| {
            join_path(
                &base,
                &percent_decoded(href.split('#').next().unwrap_or(href)),
            )
        })
        .collect();
    let mut out = TextBuilder::new();
    for (index, href) in spine.iter().enumerate() {
        let nodes = xml_part(archive, href, limits)?;
        let chapter = xhtml_text(&nodes);
        let number = index as u32 + 1;
        let title = chapter.title.clone();
        let marker = match &title {
            Some(title) => format!("--- chapter {number}: {title} ---"),
            None => format!("--- chapter {number} ---"),
        };
        out.begin_part(PartKind::Chapter, number, title, &marker);
        for line in chapter.lines {
            out.line(&line);
        }
    }
    Ok(out.finish(DocumentFormat::Epub))
}

/// `%20` and the like decoded (hrefs are URLs).
fn percent_decoded(href: &str) -> String {
    let bytes = href.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        if byte == b'%' {
            if let Some(value) = bytes
                .get(index + 1..index + 3)
                .and_then(|hex| std::str::from_utf8(hex).ok())
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            {
                out.push(value);
                index += 3;
                continue;
            }
        }
        out.push(byte);
        index += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

struct Chapter {
    title: Option<String>,
    lines: Vec<String>,
}

const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "blockquote",
    "pre",
    "li",
    "dt",
    "dd",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "body",
    "figcaption",
    "table",
    "ul",
    "ol",
    "dl",
    "header",
    "footer",
    "aside",
    "nav",
];

/// XHTML reduced to text lines and its title.
fn xhtml_text(nodes: &[Node]) -> Chapter {
    let mut walk = XhtmlWalk::default();
    for node in nodes {
        match node {
            Node::Open { name, .. } => walk.open(&name.to_ascii_lowercase()),
            Node::Close(name) => walk.close(&name.to_ascii_lowercase()),
            Node::Text(text) => walk.text(text),
        }
    }
    walk.flush();
    let head_title = walk
        .head_title
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty());
    Chapter {
        title: walk.first_heading.or(head_title),
        lines: walk.lines,
    }
}

/// One walk over a chapter's XHTML ([`xhtml_text`]): the lines so far, the line being built, and where it is.
#[derive(Default)]
struct XhtmlWalk {
    lines: Vec<String>,
    current: String,
    /// What the line being built starts with: a heading's `#`s, a list item's `- `.
    prefix: String,
    /// Depth inside `script` and `style`, whose text is not the chapter's.
    skip: usize,
    head_title: Option<String>,
    in_title: bool,
    first_heading: Option<String>,
    heading_level: Option<usize>,
    list_depth: usize,
    in_pre: bool,
}

impl XhtmlWalk {
    /// Ends the line being built (collapsing its white space, but inside `pre`).
    fn flush(&mut self) {
        let text = if self.in_pre {
            self.current.trim_end().to_string()
        } else {
            self.current
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        if !text.is_empty() {
            self.lines.push(format!("{}{text}", self.prefix));
        }
        self.current.clear();
        self.prefix.clear();
    }

    fn open(&mut self, name: &str) {
        match name {
            "script" | "style" => self.skip += 1,
            "title" => self.in_title = true,
            _ if self.skip > 0 => {}
            "br" => self.flush(),
            "td" | "th" if !self.current.trim().is_empty() => self.current.push_str(" | "),
            "ul" | "ol" => {
                self.flush();
                self.list_depth += 1;
            }
            block if BLOCKS.contains(&block) => {
                self.flush();
                if let Some(level) = block
                    .strip_prefix('h')
                    .and_then(|l| l.parse::<usize>().ok())
                {
                    self.heading_level = Some(level);
                    self.prefix = format!("{} ", "#".repeat(level));
                } else if block == "li" {
                    self.prefix = format!("{}- ", "  ".repeat(self.list_depth.saturating_sub(1)));
                } else if block == "pre" {
                    self.in_pre = true;
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "script" | "style" => self.skip = self.skip.saturating_sub(1),
            "title" => self.in_title = false,
            _ if self.skip > 0 => {}
            "ul" | "ol" => {
                self.flush();
                self.list_depth = self.list_depth.saturating_sub(1);
            }
            block if BLOCKS.contains(&block) => {
                if self.heading_level.is_some() && self.first_heading.is_none() {
                    let text = self
                        .current
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ");
                    if !text.is_empty() {
                        self.first_heading = Some(text);
                    }
                }
                self.flush();
                self.heading_level = None;
                if block == "pre" {
                    self.in_pre = false;
                }
            }
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        if self.in_title {
            self.head_title
                .get_or_insert_with(String::new)
                .push_str(text);
            return;
        }
        if self.skip > 0 {
            return;
        }
        if !self.in_pre {
            self.current.push_str(text);
            return;
        }
        // Inside `pre` each line break ends a line, white space kept.
        for (index, piece) in text.split('\n').enumerate() {
            if index > 0 {
                self.lines
                    .push(format!("{}{}", self.prefix, self.current.trim_end()));
                self.current.clear();
                self.prefix.clear();
            }
            self.current.push_str(piece);
        }
    }
}
