//! The text builder: an extracted text written line by line, with the marker and start of each part.

use super::{DocumentFormat, DocumentPart, ExtractedDocument, PartKind};

/// Builds an extracted text line by line and records where each part starts: the text conventions of this module
/// (lines end in `\n`, no trailing whitespace, control characters other than tab removed) in one place.
#[derive(Debug, Clone, Default)]
pub(super) struct TextBuilder {
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
