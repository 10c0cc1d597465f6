//! The XML parts of documents as a flat list of nodes (open, close, text) with local names, so each extractor is
//! a small state machine over them. Entities are resolved (the five of XML, character references, and `nbsp` for
//! XHTML); end names are not checked (XHTML in the wild is loose).

use quick_xml::events::{BytesStart, Event};

use super::DocumentError;

/// One node of an XML part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// An element opens (an empty element is an `Open` followed by its `Close`).
    Open {
        /// The local name (no prefix): `p`, `t`, `tbl`.
        name: String,
        /// The attributes by local name (no prefix), values unescaped.
        attributes: Vec<(String, String)>,
    },
    /// An element closes, by local name.
    Close(String),
    /// Text (CDATA included).
    Text(String),
}

impl Node {
    /// The value of the attribute `name` (local name) of an `Open` node.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        match self {
            Node::Open { attributes, .. } => attributes
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.as_str()),
            _ => None,
        }
    }
}

fn local(name: &[u8]) -> String {
    let local = name.rsplit(|byte| *byte == b':').next().unwrap_or(name);
    String::from_utf8_lossy(local).into_owned()
}

fn open(start: &BytesStart<'_>, decoder: quick_xml::encoding::Decoder) -> Node {
    let attributes = start
        .attributes()
        .with_checks(false)
        .flatten()
        .map(|attribute| {
            let value = attribute
                .decode_and_unescape_value(decoder)
                .map(|value| value.into_owned())
                .unwrap_or_else(|_| String::from_utf8_lossy(&attribute.value).into_owned());
            (local(attribute.key.as_ref()), value)
        })
        .collect();
    Node::Open {
        name: local(start.name().as_ref()),
        attributes,
    }
}

/// Parses the XML part `part` (named in errors). Errors: `Malformed` naming the part and the position.
pub fn parse(bytes: &[u8], part: &str) -> Result<Vec<Node>, DocumentError> {
    let mut reader = quick_xml::Reader::from_reader(bytes);
    reader.config_mut().check_end_names = false;
    let mut nodes = Vec::new();
    let mut buffer = Vec::new();
    let mut depth = 0usize;
    loop {
        let event = reader.read_event_into(&mut buffer).map_err(|error| {
            DocumentError::malformed(format!(
                "the part `{part}` is not well-formed XML (at byte {}): {error}",
                reader.buffer_position()
            ))
        })?;
        match event {
            Event::Start(start) => {
                depth += 1;
                nodes.push(open(&start, reader.decoder()));
            }
            Event::Empty(start) => {
                let node = open(&start, reader.decoder());
                let name = match &node {
                    Node::Open { name, .. } => name.clone(),
                    _ => String::new(),
                };
                nodes.push(node);
                nodes.push(Node::Close(name));
            }
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                nodes.push(Node::Close(local(end.name().as_ref())));
            }
            Event::Text(text) => {
                let text = text
                    .decode()
                    .map(|text| text.into_owned())
                    .unwrap_or_default();
                push_text(&mut nodes, &text);
            }
            Event::CData(data) => {
                let text = String::from_utf8_lossy(&data).into_owned();
                push_text(&mut nodes, &text);
            }
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref() {
                    Ok(Some(character)) => character.to_string(),
                    _ => {
                        let name = String::from_utf8_lossy(&reference).into_owned();
                        match name.as_str() {
                            "amp" => "&".into(),
                            "lt" => "<".into(),
                            "gt" => ">".into(),
                            "quot" => "\"".into(),
                            "apos" => "'".into(),
                            "nbsp" => " ".into(),
                            "mdash" => "\u{2014}".into(),
                            "ndash" => "\u{2013}".into(),
                            "hellip" => "\u{2026}".into(),
                            _ => format!("&{name};"),
                        }
                    }
                };
                push_text(&mut nodes, &resolved);
            }
            Event::Eof if depth > 0 => {
                return Err(DocumentError::malformed(format!(
                    "the part `{part}` ends with {depth} element(s) still open: it is cut off or corrupt"
                )))
            }
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    Ok(nodes)
}

/// Appends text, merged with a text node just before it.
fn push_text(nodes: &mut Vec<Node>, text: &str) {
    if let Some(Node::Text(previous)) = nodes.last_mut() {
        previous.push_str(text);
    } else {
        nodes.push(Node::Text(text.to_string()));
    }
}
