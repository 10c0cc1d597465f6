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
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut prefix = String::new();
    let mut skip = 0usize;
    let mut head_title: Option<String> = None;
    let mut in_title = false;
    let mut first_heading: Option<String> = None;
    let mut heading_level: Option<usize> = None;
    let mut list_depth = 0usize;
    let mut in_pre = false;
    let flush =
        |current: &mut String, prefix: &mut String, lines: &mut Vec<String>, in_pre: bool| {
            let text = if in_pre {
                current.trim_end().to_string()
            } else {
                current.split_whitespace().collect::<Vec<_>>().join(" ")
            };
            if !text.is_empty() {
                lines.push(format!("{prefix}{text}"));
            }
            current.clear();
            prefix.clear();
        };
    for node in nodes {
        match node {
            Node::Open { name, .. } => {
                let name = name.to_ascii_lowercase();
                match name.as_str() {
                    "script" | "style" => skip += 1,
                    "title" => in_title = true,
                    _ if skip > 0 => {}
                    "br" => {
                        flush(&mut current, &mut prefix, &mut lines, in_pre);
                    }
                    "td" | "th" if !current.trim().is_empty() => current.push_str(" | "),
                    "ul" | "ol" => {
                        flush(&mut current, &mut prefix, &mut lines, in_pre);
                        list_depth += 1;
                    }
                    block if BLOCKS.contains(&block) => {
                        flush(&mut current, &mut prefix, &mut lines, in_pre);
                        if let Some(level) = block
                            .strip_prefix('h')
                            .and_then(|l| l.parse::<usize>().ok())
                        {
                            heading_level = Some(level);
                            prefix = format!("{} ", "#".repeat(level));
                        } else if block == "li" {
                            prefix = format!("{}- ", "  ".repeat(list_depth.saturating_sub(1)));
                        } else if block == "pre" {
                            in_pre = true;
                        }
                    }
                    _ => {}
                }
            }
            Node::Close(name) => {
                let name = name.to_ascii_lowercase();
                match name.as_str() {
                    "script" | "style" => skip = skip.saturating_sub(1),
                    "title" => in_title = false,
                    _ if skip > 0 => {}
                    "ul" | "ol" => {
                        flush(&mut current, &mut prefix, &mut lines, in_pre);
                        list_depth = list_depth.saturating_sub(1);
                    }
                    block if BLOCKS.contains(&block) => {
                        if heading_level.is_some() && first_heading.is_none() {
                            let text = current.split_whitespace().collect::<Vec<_>>().join(" ");
                            if !text.is_empty() {
                                first_heading = Some(text);
                            }
                        }
                        flush(&mut current, &mut prefix, &mut lines, in_pre);
                        heading_level = None;
                        if block == "pre" {
                            in_pre = false;
                        }
                    }
                    _ => {}
                }
            }
            Node::Text(text) => {
                if in_title {
                    head_title.get_or_insert_with(String::new).push_str(text);
                } else if skip == 0 {
                    if in_pre {
                        for (index, piece) in text.split('\n').enumerate() {
                            if index > 0 {
                                lines.push(format!("{prefix}{}", current.trim_end()));
                                current.clear();
                                prefix.clear();
                            }
                            current.push_str(piece);
                        }
                    } else {
                        current.push_str(text);
                    }
                }
            }
        }
    }
    flush(&mut current, &mut prefix, &mut lines, in_pre);
    let head_title = head_title
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty());
    Chapter {
        title: first_heading.or(head_title),
        lines,
    }
}
