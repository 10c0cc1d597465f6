//! The extracted text of a PDF, put together page by page as pdf-extract lays each page out.
//!
//! [`PageAssembler`] is a pdf-extract `OutputDev`: it lays characters out with the rules of pdf-extract's
//! `PlainTextOutput` (the same thresholds, a fresh layout at each page, as a new `PlainTextOutput` a page had),
//! and at the end of each page tidies the page's text and appends its marker and lines to the document's text.
//! So a whole document is extracted in one `output_doc` (one walk of the page tree, instead of one a page) and
//! the text is built as it comes, with the cap on its size checked after each page as before.

use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

use super::tidy;
use crate::document::{DocumentPart, PartKind};

/// The document's text and parts so far, and the layout of the page being written.
pub(super) struct PageAssembler {
    /// The pages of the document.
    count: usize,
    /// The most bytes the text may hold (the extraction limits' `max_total_uncompressed`).
    max_text_bytes: u64,
    /// The text so far: each page's marker line, then its lines.
    pub text: String,
    /// One part a page done.
    pub parts: Vec<DocumentPart>,
    /// The 1-based line the next page's marker takes.
    line: u64,
    /// The page being written: its number and raw text.
    page: Option<(u32, String)>,
    /// The page at which the text passed `max_text_bytes`, once it did: the assembler then refuses more.
    pub capped_at: Option<u32>,
    layout: Layout,
}

/// `PlainTextOutput`'s state: where the last character ended, its baseline, whether a word just began, and the
/// page's flip into top-down coordinates.
struct Layout {
    last_end: f64,
    last_y: f64,
    first_char: bool,
    flip_ctm: Transform,
}

impl Layout {
    /// A fresh layout, as `PlainTextOutput::new` starts one.
    fn new() -> Self {
        Layout {
            last_end: 100000.,
            last_y: 0.,
            first_char: false,
            flip_ctm: Transform::identity(),
        }
    }
}

/// The stop signal of [`PageAssembler::end_page`] once the text passed its cap.
fn capped() -> OutputError {
    OutputError::FormatError(std::fmt::Error)
}

impl PageAssembler {
    /// An empty text for a document of `count` pages whose text may take `max_text_bytes`.
    pub fn new(count: usize, max_text_bytes: u64) -> Self {
        PageAssembler {
            count,
            max_text_bytes,
            text: String::new(),
            parts: Vec::with_capacity(count),
            line: 1,
            page: None,
            capped_at: None,
            layout: Layout::new(),
        }
    }

    /// Page `number` was not extracted: its one line says why, and it counts 0 characters.
    pub fn not_extracted(&mut self, number: u32, reason: &str) {
        self.page = None;
        let lines = vec![format!("[page {number}: text not extracted: {reason}]")];
        self.append(number, &lines, 0, true);
    }

    /// Appends page `number`'s marker and `lines`, and checks the cap.
    fn append(&mut self, number: u32, lines: &[String], characters: u64, not_extracted: bool) {
        if self.capped_at.is_some() {
            return;
        }
        let count = self.count;
        self.text
            .push_str(&format!("--- page {number} of {count} ---\n"));
        let first_line = self.line;
        self.line += 1 + lines.len() as u64;
        for line in lines {
            self.text.push_str(line);
            self.text.push('\n');
        }
        if self.text.len() as u64 > self.max_text_bytes {
            self.capped_at = Some(number);
            return;
        }
        self.parts.push(DocumentPart {
            kind: PartKind::Page,
            number,
            name: None,
            first_line,
            characters,
            not_extracted,
        });
    }
}

impl OutputDev for PageAssembler {
    fn begin_page(
        &mut self,
        page_num: u32,
        media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        if self.capped_at.is_some() {
            return Err(capped());
        }
        self.layout = Layout::new();
        self.layout.flip_ctm =
            Transform::row_major(1., 0., 0., -1., 0., media_box.ury - media_box.lly);
        self.page = Some((page_num, String::new()));
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        if let Some((number, raw)) = self.page.take() {
            let lines = tidy(&raw);
            let characters = lines.iter().map(|l| l.chars().count() as u64).sum();
            self.append(number, &lines, characters, false);
        }
        match self.capped_at {
            Some(_) => Err(capped()),
            None => Ok(()),
        }
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        char: &str,
    ) -> Result<(), OutputError> {
        let Some((_, raw)) = self.page.as_mut() else {
            return Ok(());
        };
        let layout = &mut self.layout;
        let position = trm.post_transform(&layout.flip_ctm);
        let size_vector = trm.transform_vector(euclid::vec2(font_size, font_size));
        // The side of the square with the area of the transformed font size's rectangle.
        let size = (size_vector.x * size_vector.y).sqrt();
        let (x, y) = (position.m31, position.m32);
        if layout.first_char {
            if (y - layout.last_y).abs() > size * 1.5 {
                raw.push('\n');
            }
            // Moved to the left and down.
            if x < layout.last_end && (y - layout.last_y).abs() > size * 0.5 {
                raw.push('\n');
            }
            if x > layout.last_end + size * 0.1 {
                raw.push(' ');
            }
        }
        raw.push_str(char);
        layout.first_char = false;
        layout.last_y = y;
        layout.last_end = x + width * size;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.layout.first_char = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}
