//! PDF files reduced to text, page by page, through pdf-extract (over lopdf).
//!
//! Each page opens with its marker line `--- page 3 of 12 ---`, then the page's text as pdf-extract lays it out,
//! each line's trailing whitespace and the page's leading and trailing blank lines removed. A page whose text layer
//! is missing (scanned, image-only) has no lines after its marker and counts 0 characters; the coverage warning is
//! computed from the parts by the caller.
//!
//! pdf-extract panics on many malformed inputs (about 120 `unwrap`/`expect`/`panic!` sites: a dangling reference, a
//! missing `MediaBox`, a content operator with the wrong operands, an unknown font encoding), and the component is
//! built with `panic = "abort"`, so catching the unwind is no defence there. Each page is therefore pre-validated
//! with lopdf against the preconditions pdf-extract assumes (see [`validate_page`]); a page that fails is not handed
//! to pdf-extract and is written as one line `[page 5: text not extracted: REASON]` with 0 characters, so it counts
//! as empty. Residual risk: embedded font programs (Type1 `FontFile`, CFF `FontFile3`, CMap streams) are parsed by
//! pdf-extract's dependencies with `unwrap`s this validation does not reproduce, and lopdf's own parser is trusted.

use std::collections::HashSet;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::{
    DocumentError, DocumentErrorKind, DocumentFormat, DocumentPart, ExtractedDocument,
    ExtractionLimits, PartKind,
};

/// Most objects one page's validation walks (resources, fonts, forms) before it gives up on the page.
const MAX_VISITED_OBJECTS: usize = 100_000;

/// Deepest `Parent` chain or nesting of form XObjects followed.
const MAX_DEPTH: usize = 64;

/// Most bytes one content stream (a page's, or a form XObject's) may inflate to. Decoding happens in memory, and
/// the parsed operations take several times the bytes, so a 300 KB file holding a 300 MB stream would exhaust the
/// component's memory: such a page is reported as not extracted instead. Real pages hold a few hundred kilobytes.
pub const MAX_CONTENT_STREAM_BYTES: u64 = 32 * 1024 * 1024;

/// Tokens (operators and operands) one page may hold in all (its content and the forms it draws), counted before
/// its content is decoded: lopdf decodes every operator and operand into memory (a hundred bytes and more each,
/// so a 3 KB stream that inflates to a million `q Q`, or to 1.5 million bare numbers, would take the session past
/// its memory cap), and pdf-extract decodes them again. A page of text or drawing holds a few thousand to a few
/// hundred thousand.
pub const MAX_PAGE_TOKENS: usize = 400_000;

/// Graphics states (`q`) a page may save without restoring them (`Q`): pdf-extract copies the whole state on
/// each `q`, about a kilobyte, so a megabyte of `q` would take the session past its memory cap. ISO 32000-1
/// (Annex C) names 28 as the usual limit of conforming readers.
pub const MAX_SAVED_STATES: usize = 1_024;

/// The tokens of the content stream `content` (ISO 32000-1, 7.2: operators, numbers, names, strings, `true`,
/// `false`, `null`, and each `[`, `]`, `<<` and `>>`; comments are not tokens), counted up to `cap + 1`: a bound on
/// what decoding it costs, not a parse (an inline image's data is skipped from `ID` to the `EI` after it).
fn count_tokens(content: &[u8], cap: usize) -> usize {
    let mut count = 0;
    let mut at = 0;
    while at < content.len() && count <= cap {
        let byte = content.get(at).copied().unwrap_or(b' ');
        // The byte offset past what starts at `at`, and whether it is a token.
        let (end, token) = match byte {
            _ if is_pdf_space(byte) => (at + 1, false),
            b'%' => (comment_end(content, at), false),
            b'(' => (literal_string_end(content, at), true),
            b'<' | b'>' if content.get(at + 1) == Some(&byte) => (at + 2, true),
            b'<' => (hex_string_end(content, at), true),
            b'[' | b']' => (at + 1, true),
            _ if is_pdf_delimiter(byte) && byte != b'/' => (at + 1, false),
            _ => (regular_token_end(content, at), true),
        };
        count += usize::from(token);
        at = end;
    }
    count
}

/// Whether `byte` is PDF white space (ISO 32000-1, 7.2.2, table 1).
fn is_pdf_space(byte: u8) -> bool {
    matches!(byte, 0 | b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

/// Whether `byte` is a PDF delimiter (ISO 32000-1, 7.2.2, table 2).
fn is_pdf_delimiter(byte: u8) -> bool {
    matches!(
        byte,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// The byte offset of the line break that ends the comment starting at byte `at` (`content`'s length when none
/// does).
fn comment_end(content: &[u8], mut at: usize) -> usize {
    while at < content.len() && !matches!(content.get(at), Some(b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The byte offset past the literal string whose `(` is at byte `at`: balanced parentheses, a backslash escapes
/// the byte after it (past `content`'s end when it is unterminated).
fn literal_string_end(content: &[u8], mut at: usize) -> usize {
    let mut nesting = 0usize;
    while let Some(&next) = content.get(at) {
        at += 1;
        match next {
            b'\\' => at += 1,
            b'(' => nesting += 1,
            b')' => {
                nesting = nesting.saturating_sub(1);
                if nesting == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    at
}

/// The byte offset past the `>` of the hex string whose `<` is at byte `at` (past `content`'s end when it is
/// unterminated).
fn hex_string_end(content: &[u8], mut at: usize) -> usize {
    while at < content.len() && content.get(at) != Some(&b'>') {
        at += 1;
    }
    at + 1
}

/// The byte offset past the regular token (an operator, a number, a name, a keyword) starting at byte `start`; past
/// the inline image data too when the token is the `ID` operator.
fn regular_token_end(content: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while let Some(&next) = content.get(at) {
        if is_pdf_space(next) || is_pdf_delimiter(next) {
            break;
        }
        at += 1;
    }
    if content.get(start..at) == Some(b"ID".as_slice()) {
        at += inline_image_bytes(content.get(at..).unwrap_or_default());
    }
    at
}

/// Bytes of inline image data at the start of `rest` (after its `ID` operator): up to the `EI` that follows white
/// space and ends a token, `EI` excluded (all of `rest` when there is none).
fn inline_image_bytes(rest: &[u8]) -> usize {
    rest.windows(4)
        .position(|window| {
            matches!(window, [before, b'E', b'I', after]
                if is_pdf_space(*before) && (is_pdf_space(*after) || is_pdf_delimiter(*after)))
        })
        .map_or(rest.len(), |position| position + 3)
}

/// What is left of a PDF's content budget ([`ExtractionLimits::max_pdf_content_bytes`]) as its pages are checked.
#[derive(Debug, Clone, Copy)]
pub struct ContentBudget {
    /// The budget, in bytes.
    cap: u64,
    /// Bytes of it not yet used.
    left: u64,
}

impl ContentBudget {
    /// A budget of `cap` bytes, none used.
    pub fn new(cap: u64) -> Self {
        ContentBudget { cap, left: cap }
    }

    /// The reason a stream of `what` is not read once the budget is spent.
    fn spent(&self, what: &str) -> String {
        format!(
            "{what} would take the document's page content past the cap of {} bytes in all (the pages before it used the rest), so no page from here on is read",
            self.cap
        )
    }
}

/// Checks that `stream` inflates to at most [`MAX_CONTENT_STREAM_BYTES`] and to no more than `budget` has left,
/// and takes its size from `budget` (inflating it into nothing, up to one byte past the smaller cap). Only leading
/// `FlateDecode` stages are inflated; a stream with no filter counts its own length. Errors: one sentence naming
/// `what` and the cap it passes; once a stream passes the budget, the budget is spent and every later stream
/// with content passes it too.
fn check_inflated_size(
    stream: &lopdf::Stream,
    what: &str,
    budget: &mut ContentBudget,
) -> Result<(), String> {
    use std::io::Read;
    // Every leading FlateDecode stage of the chain (`[/FlateDecode /FlateDecode]` nests one bomb in another): each
    // stage is inflated under the cap, the last one into nothing.
    let stages = stream.filters().map_or(0, |filters| {
        filters
            .iter()
            .take_while(|filter| **filter == b"FlateDecode".as_slice())
            .count()
    });
    let too_large = || {
        format!(
            "{what} inflates past the cap of {MAX_CONTENT_STREAM_BYTES} bytes (a decompression bomb, or a page too large to read)"
        )
    };
    let limit = MAX_CONTENT_STREAM_BYTES.min(budget.left);
    let mut charge = |size: u64| {
        if size > MAX_CONTENT_STREAM_BYTES {
            return Err(too_large());
        }
        if size > budget.left {
            budget.left = 0;
            return Err(budget.spent(what));
        }
        budget.left -= size;
        Ok(())
    };
    if stages == 0 {
        return charge(stream.content.len() as u64);
    }
    let mut input: Vec<u8> = Vec::new();
    for stage in 0..stages {
        let source = if stage == 0 {
            stream.content.as_slice()
        } else {
            input.as_slice()
        };
        let cap = if stage + 1 == stages {
            limit
        } else {
            MAX_CONTENT_STREAM_BYTES
        };
        let mut inflated = flate2::read::ZlibDecoder::new(source).take(cap + 1);
        if stage + 1 == stages {
            let size = std::io::copy(&mut inflated, &mut std::io::sink()).unwrap_or(0);
            return charge(size);
        } else {
            let mut output = Vec::new();
            // A stage that does not inflate is left to lopdf, as a single stage is.
            if inflated.read_to_end(&mut output).is_err() {
                return Ok(());
            }
            if output.len() as u64 > MAX_CONTENT_STREAM_BYTES {
                return Err(too_large());
            }
            input = output;
        }
    }
    Ok(())
}

/// Extracts a PDF's text, one part (kind `Page`, numbered from 1) a page, in page order.
///
/// Errors: `TooLarge` when `bytes` is over `limits.max_input_bytes` or the text passes
/// `limits.max_total_uncompressed` bytes; `Encrypted` when the PDF needs a password (one readable with the empty
/// user password is read); `Malformed` when lopdf cannot parse it. A page pdf-extract cannot read is no error: it
/// is written as a `[page N: text not extracted: REASON]` line and counts 0 characters.
pub fn extract_pdf(
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    if bytes.len() as u64 > limits.max_input_bytes {
        return Err(error(
            DocumentErrorKind::TooLarge,
            format!(
                "the PDF is {} bytes, over the cap of {} bytes",
                bytes.len(),
                limits.max_input_bytes
            ),
        ));
    }
    let mut doc = Document::load_mem(bytes).map_err(load_error)?;
    if doc.is_encrypted() && doc.decrypt("").is_err() {
        return Err(encrypted());
    }
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err(error(
            DocumentErrorKind::Malformed,
            "the PDF's page tree leads to no page (it is empty, broken or cyclic), so no page can be read"
                .to_string(),
        ));
    }
    let count = pages.len();
    let mut budget = ContentBudget::new(limits.max_pdf_content_bytes);
    let mut text = String::new();
    let mut parts = Vec::with_capacity(count);
    let mut line: u64 = 1;
    for (&number, &page_id) in &pages {
        text.push_str(&format!("--- page {number} of {count} ---\n"));
        let first_line = line;
        line += 1;
        let (lines, characters, not_extracted) = match page_text(&doc, number, page_id, &mut budget)
        {
            Ok(raw) => {
                let lines = tidy(&raw);
                let characters = lines.iter().map(|l| l.chars().count() as u64).sum();
                (lines, characters, false)
            }
            Err(reason) => (
                vec![format!("[page {number}: text not extracted: {reason}]")],
                0,
                true,
            ),
        };
        for l in &lines {
            text.push_str(l);
            text.push('\n');
        }
        line += lines.len() as u64;
        if text.len() as u64 > limits.max_total_uncompressed {
            return Err(error(
                DocumentErrorKind::TooLarge,
                format!(
                    "the PDF's text passes the cap of {} bytes (at page {number} of {count})",
                    limits.max_total_uncompressed
                ),
            ));
        }
        parts.push(DocumentPart {
            kind: PartKind::Page,
            number,
            name: None,
            first_line,
            characters,
            not_extracted,
        });
    }
    Ok(ExtractedDocument {
        format: DocumentFormat::Pdf,
        text,
        parts,
    })
}

/// The raw text of page `number` (object `page_id`) by pdf-extract, after [`validate_page`]. Errors: the reason the
/// page was not handed to pdf-extract, or pdf-extract's error (or, natively, its panic).
fn page_text(
    doc: &Document,
    number: u32,
    page_id: ObjectId,
    budget: &mut ContentBudget,
) -> Result<String, String> {
    validate_page(doc, page_id, budget)?;
    let run = || {
        let mut raw = String::new();
        let result = {
            let mut output = pdf_extract::PlainTextOutput::new(&mut raw);
            pdf_extract::output_doc_page(doc, &mut output, number)
        };
        result.map(|()| raw).map_err(|e| e.to_string())
    };
    // On the component (panic = abort) this cannot catch anything; natively it turns a missed precondition into
    // a page error instead of a crash.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
        .unwrap_or_else(|_| Err("the PDF extractor failed on this page".to_string()))
}

/// A page's lines: control characters other than tab dropped (`\r` and form feeds among them), trailing whitespace
/// trimmed, leading and trailing blank lines removed, a run of blank lines kept as one, and no blank line at all
/// on a page where one stands between every two lines of text.
fn tidy(raw: &str) -> Vec<String> {
    let lines: Vec<String> = raw
        .split('\n')
        .map(|l| {
            let kept: String = l
                .chars()
                .filter(|&c| c == '\t' || !c.is_control())
                .collect();
            kept.trim_end().to_string()
        })
        .collect();
    let start = lines.iter().position(|l| !l.is_empty());
    let end = lines.iter().rposition(|l| !l.is_empty());
    let mut kept: Vec<String> = match (start, end) {
        (Some(start), Some(end)) => lines
            .get(start..=end)
            .map(<[String]>::to_vec)
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    // pdf-extract writes a blank line or two between lines it sees apart: a run of blank lines is kept as one.
    kept.dedup_by(|line, previous| line.is_empty() && previous.is_empty());
    // And some writers' text comes out with a blank line between every two lines: those blanks say nothing and
    // would take half the budget, so a page whose every gap is blank loses them.
    let blank = kept.iter().filter(|line| line.is_empty()).count();
    let text = kept.len() - blank;
    if text >= 3 && blank + 1 >= text {
        kept.retain(|line| !line.is_empty());
    }
    kept
}

/// Checks the preconditions pdf-extract assumes without checking for page `page_id`: the page is a dictionary with
/// an inherited `MediaBox` of 4 numbers (and an `ArtBox`, if any, of 4), its content streams load and decode, every
/// operator pdf-extract interprets has operands of the kinds it indexes, every font, graphics state, colour space
/// and XObject the content names exists in the resources, every font is of a shape pdf-extract reads (known
/// encodings, `DescendantFonts` for Type0, a `W` array of whole entries), and every reference reached resolves.
/// Errors: one sentence naming the first problem found.
pub fn validate_page(
    doc: &Document,
    page_id: ObjectId,
    budget: &mut ContentBudget,
) -> Result<(), String> {
    let page = match doc.get_object(page_id) {
        Ok(Object::Dictionary(dict)) => dict,
        Ok(_) => return Err("the page object is not a dictionary".to_string()),
        Err(_) => return Err("the page object is missing".to_string()),
    };
    let media_box = inherited(doc, page, b"MediaBox")?.ok_or("the page has no MediaBox")?;
    check_numbers(doc, media_box, 4, "MediaBox")?;
    if let Ok(art_box) = page.get(b"ArtBox") {
        check_numbers(doc, art_box, 4, "ArtBox")?;
    }
    let empty = Dictionary::new();
    let resources = match inherited(doc, page, b"Resources")? {
        Some(object) => deref(doc, object)?.as_dict().unwrap_or(&empty),
        None => &empty,
    };
    for id in doc.get_page_contents(page_id) {
        if let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) {
            check_inflated_size(stream, "the page's content stream", budget)?;
        }
    }
    let content = doc
        .get_page_content(page_id)
        .map_err(|e| format!("the page's content cannot be read: {e}"))?;
    let mut checker = Checker {
        doc,
        budget,
        tokens: 0,
        saved_states: 0,
        visited: HashSet::new(),
        font_set: false,
    };
    checker.references(&Object::Dictionary(resources.clone()), 0)?;
    checker.content(&content, resources, 0)
}

/// Walks a page's content and resources for [`validate_page`].
struct Checker<'a> {
    doc: &'a Document,
    /// The document's content budget, which each XObject a page draws is taken from.
    budget: &'a mut ContentBudget,
    /// References already checked (bounded by [`MAX_VISITED_OBJECTS`]).
    visited: HashSet<ObjectId>,
    /// Tokens counted in the page's content and the forms it drew so far (at most [`MAX_PAGE_TOKENS`]).
    tokens: usize,
    /// Graphics states saved and not yet restored (at most [`MAX_SAVED_STATES`]).
    saved_states: usize,
    /// Whether a `Tf` has set a font yet (pdf-extract unwraps the font on every text-showing operator).
    font_set: bool,
}

impl<'a> Checker<'a> {
    /// Checks that every reference reachable from `object` resolves (streams' dictionaries included).
    fn references(&mut self, object: &Object, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("the page's resources nest too deeply".to_string());
        }
        match object {
            Object::Reference(id) => {
                if self.visited.contains(id) {
                    return Ok(());
                }
                if self.visited.len() >= MAX_VISITED_OBJECTS {
                    return Err("the page's resources reach too many objects".to_string());
                }
                self.visited.insert(*id);
                let target = self
                    .doc
                    .get_object(*id)
                    .map_err(|_| format!("the object {} {} R is missing", id.0, id.1))?;
                self.references(target, depth + 1)
            }
            Object::Array(items) => items
                .iter()
                .try_for_each(|item| self.references(item, depth + 1)),
            Object::Dictionary(dict) => self.dictionary(dict, depth),
            Object::Stream(stream) => self.dictionary(&stream.dict, depth),
            _ => Ok(()),
        }
    }

    fn dictionary(&mut self, dict: &Dictionary, depth: usize) -> Result<(), String> {
        for (key, value) in dict.iter() {
            // A page's or form's Parent leads back up the page tree: not what pdf-extract reads.
            if key.as_slice() == b"Parent" {
                continue;
            }
            self.references(value, depth + 1)?;
        }
        Ok(())
    }

    /// Decodes `content` and checks each interpreted operator against `resources`.
    fn content(
        &mut self,
        content: &[u8],
        resources: &Dictionary,
        depth: usize,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("the page's forms nest too deeply".to_string());
        }
        let left = MAX_PAGE_TOKENS.saturating_sub(self.tokens);
        let tokens = count_tokens(content, left);
        if tokens > left {
            return Err(format!(
                "the page's content holds more than {MAX_PAGE_TOKENS} operators and operands, more than its text extraction may hold in memory"
            ));
        }
        self.tokens += tokens;
        let content = Content::decode(content)
            .map_err(|e| format!("the page's content does not decode: {e}"))?;
        for operation in &content.operations {
            self.operation(
                operation.operator.as_str(),
                &operation.operands,
                resources,
                depth,
            )?;
        }
        Ok(())
    }

    /// Checks one operator `op` with its `operands` as pdf-extract will interpret it.
    fn operation(
        &mut self,
        op: &str,
        operands: &[Object],
        resources: &Dictionary,
        depth: usize,
    ) -> Result<(), String> {
        match op {
            "q" => {
                self.saved_states += 1;
                if self.saved_states > MAX_SAVED_STATES {
                    return Err(format!(
                        "the page saves more than {MAX_SAVED_STATES} graphics states (`q`) without restoring them, more than its text extraction may hold in memory"
                    ));
                }
            }
            "Q" => self.saved_states = self.saved_states.saturating_sub(1),
            _ => {}
        }
        let bad = || format!("the operator `{op}` has operands pdf-extract cannot read");
        let numbers = |n: usize, exact: bool| -> Result<(), String> {
            let count_ok = if exact {
                operands.len() == n
            } else {
                operands.len() >= n
            };
            if count_ok && operands.iter().take(n).all(is_number) {
                Ok(())
            } else {
                Err(bad())
            }
        };
        match op {
            "cm" | "Tm" => numbers(6, true),
            "Td" | "TD" => numbers(2, true),
            "c" => numbers(6, false),
            "v" | "y" | "re" => numbers(4, false),
            "m" | "l" => numbers(2, false),
            "Tc" | "Tw" | "Tz" | "TL" | "Ts" | "w" => numbers(1, false),
            "SC" | "SCN" | "sc" | "scn"
                if !operands
                    .iter()
                    .all(|o| is_number(o) || matches!(o, Object::Name(_))) =>
            {
                Err(bad())
            }
            "CS" | "cs" => {
                let name = first_name(operands).ok_or_else(bad)?;
                self.colour_space_named(name, resources)
            }
            "gs" => {
                let name = first_name(operands).ok_or_else(bad)?;
                self.graphics_state(name, resources)
            }
            "Tf" => {
                let name = first_name(operands).ok_or_else(bad)?;
                if operands.len() < 2 || operands.get(1).is_none_or(|o| !is_number(o)) {
                    return Err(bad());
                }
                self.font(name, resources)
            }
            "Tj" | "'" | "\"" | "TJ" => {
                if !self.font_set {
                    return Err(format!(
                        "the operator `{op}` shows text before any font is set"
                    ));
                }
                match (op, operands.first()) {
                    ("Tj", Some(Object::String(..))) => Ok(()),
                    ("Tj", _) | ("TJ", None) => Err(bad()),
                    _ => Ok(()),
                }
            }
            "Do" => {
                let name = first_name(operands).ok_or_else(bad)?;
                self.xobject(name, resources, depth)
            }
            _ => Ok(()),
        }
    }

    /// `CS`/`cs` with the colour space `name`: a device space, or one the resources define and pdf-extract reads.
    fn colour_space_named(&mut self, name: &[u8], resources: &Dictionary) -> Result<(), String> {
        if matches!(
            name,
            b"DeviceGray" | b"DeviceRGB" | b"DeviceCMYK" | b"Pattern"
        ) {
            return Ok(());
        }
        let spaces = self.resource_dict(resources, b"ColorSpace")?;
        let space = spaces
            .and_then(|d| d.get(name).ok())
            .ok_or_else(|| format!("the colour space `{}` is not in the resources", lossy(name)))?;
        self.colour_space(space)
    }

    /// `gs` with the graphics state `name`: a dictionary of the resources.
    fn graphics_state(&self, name: &[u8], resources: &Dictionary) -> Result<(), String> {
        let states = self.resource_dict(resources, b"ExtGState")?;
        let state = states.and_then(|d| d.get(name).ok()).ok_or_else(|| {
            format!(
                "the graphics state `{}` is not in the resources",
                lossy(name)
            )
        })?;
        if deref(self.doc, state)?.as_dict().is_err() {
            return Err(format!(
                "the graphics state `{}` is not a dictionary",
                lossy(name)
            ));
        }
        Ok(())
    }

    /// `Tf` with the font `name`: a font of the resources that pdf-extract can read ([`check_font`]).
    fn font(&mut self, name: &[u8], resources: &Dictionary) -> Result<(), String> {
        let fonts = self.resource_dict(resources, b"Font")?;
        let font = fonts
            .and_then(|d| d.get(name).ok())
            .ok_or_else(|| format!("the font `{}` is not in the resources", lossy(name)))?;
        let font = deref(self.doc, font)?
            .as_dict()
            .map_err(|_| format!("the font `{}` is not a dictionary", lossy(name)))?;
        check_font(self.doc, font).map_err(|e| format!("the font `{}` {e}", lossy(name)))?;
        self.font_set = true;
        Ok(())
    }

    /// `Do` with the XObject `name`: a stream of the resources under the inflation budget, whose data (run as
    /// content by pdf-extract, images included) is checked as content in turn.
    fn xobject(&mut self, name: &[u8], resources: &Dictionary, depth: usize) -> Result<(), String> {
        let objects = self.resource_dict(resources, b"XObject")?;
        let object = objects
            .and_then(|d| d.get(name).ok())
            .ok_or_else(|| format!("the XObject `{}` is not in the resources", lossy(name)))?;
        let stream = deref(self.doc, object)?
            .as_stream()
            .map_err(|_| format!("the XObject `{}` is not a stream", lossy(name)))?;
        let form_resources = match stream.dict.get(b"Resources") {
            Ok(r) => deref(self.doc, r)?.as_dict().unwrap_or(resources),
            Err(_) => resources,
        };
        check_inflated_size(
            stream,
            &format!("the XObject `{}`", lossy(name)),
            self.budget,
        )?;
        // pdf-extract runs every XObject's data as content, images included: only forms decode.
        let data = if stream.filters().is_ok() {
            stream
                .decompressed_content()
                .unwrap_or_else(|_| stream.content.clone())
        } else {
            stream.content.clone()
        };
        let is_form =
            matches!(stream.dict.get(b"Subtype"), Ok(Object::Name(n)) if n.as_slice() == b"Form");
        if !is_form && Content::decode(&data).is_err() {
            return Err(format!(
                "the XObject `{}` cannot be read as content",
                lossy(name)
            ));
        }
        self.content(&data, form_resources, depth + 1)
    }

    /// The resource sub-dictionary `key` (`Font`, `XObject`, ...), `None` when absent. Errors: present but not a
    /// dictionary, or a dangling reference.
    fn resource_dict<'r>(
        &self,
        resources: &'r Dictionary,
        key: &[u8],
    ) -> Result<Option<&'r Dictionary>, String>
    where
        'a: 'r,
    {
        match resources.get(key) {
            Err(_) => Ok(None),
            Ok(object) => match object {
                Object::Dictionary(d) => Ok(Some(d)),
                Object::Reference(id) => match self.doc.get_object(*id) {
                    Ok(Object::Dictionary(d)) => Ok(Some(d)),
                    _ => Err(format!(
                        "the resources' `{}` is not a dictionary",
                        lossy(key)
                    )),
                },
                _ => Err(format!(
                    "the resources' `{}` is not a dictionary",
                    lossy(key)
                )),
            },
        }
    }

    /// Checks a colour space array as pdf-extract indexes it (a name first; its second and third entries where the
    /// family reads them).
    fn colour_space(&self, space: &Object) -> Result<(), String> {
        let space = deref(self.doc, space)?;
        let Ok(items) = space.as_array() else {
            return Ok(());
        };
        let family = match items.first() {
            Some(Object::Name(n)) => n.as_slice(),
            _ => return Err("a colour space array does not start with a name".to_string()),
        };
        let needed = match family {
            b"Separation" => 4,
            b"DeviceN" => 4,
            b"ICCBased" | b"CalRGB" | b"CalGray" | b"Lab" | b"Indexed" | b"Pattern" => 2,
            _ => 1,
        };
        if items.len() < needed {
            return Err(format!(
                "the colour space `{}` is missing entries",
                lossy(family)
            ));
        }
        Ok(())
    }
}

/// Checks a font dictionary as pdf-extract reads it. Errors: what is wrong, as the end of a sentence that starts
/// with the font's name.
fn check_font(doc: &Document, font: &Dictionary) -> Result<(), String> {
    let subtype = name_of(doc, font, b"Subtype").ok_or("has no Subtype name")?;
    if subtype != b"Type3" && name_of(doc, font, b"BaseFont").is_none() {
        return Err("has no BaseFont name".to_string());
    }
    if let Ok(to_unicode) = font.get(b"ToUnicode") {
        match deref(doc, to_unicode)? {
            Object::Stream(_) => {}
            Object::Name(n) if n.as_slice() == b"Identity-H" => {}
            _ => return Err("has a ToUnicode pdf-extract cannot read".to_string()),
        }
    }
    if subtype == b"Type0" {
        return check_composite_font(doc, font);
    }
    check_simple_encoding(doc, font)?;
    check_simple_widths(doc, font)?;
    if let Ok(descriptor) = font.get(b"FontDescriptor") {
        if let Ok(descriptor) = deref(doc, descriptor)?.as_dict() {
            if let Ok(file3) = descriptor.get(b"FontFile3") {
                if let Object::Stream(stream) = deref(doc, file3)? {
                    if !matches!(stream.dict.get(b"Subtype"), Ok(Object::Name(_))) {
                        return Err("has a FontFile3 without a Subtype name".to_string());
                    }
                }
            }
        }
    }
    Ok(())
}

/// A `Type0` font: a descendant font dictionary with a `FontDescriptor`, an Identity or embedded CMap encoding,
/// and widths pdf-extract can read.
fn check_composite_font(doc: &Document, font: &Dictionary) -> Result<(), String> {
    let descendants = font
        .get(b"DescendantFonts")
        .ok()
        .map(|d| deref(doc, d))
        .transpose()?
        .and_then(|d| d.as_array().ok())
        .ok_or("has no DescendantFonts")?;
    let cid = descendants
        .first()
        .map(|d| deref(doc, d))
        .transpose()?
        .and_then(|d| d.as_dict().ok())
        .ok_or("has no descendant font dictionary")?;
    match font.get(b"Encoding").map(|e| deref(doc, e)) {
        Ok(Ok(Object::Name(n))) if matches!(n.as_slice(), b"Identity-H" | b"Identity-V") => {}
        Ok(Ok(Object::Stream(_))) => {}
        Ok(Err(e)) => return Err(e),
        _ => return Err("has an encoding pdf-extract cannot read".to_string()),
    }
    let descriptor = cid
        .get(b"FontDescriptor")
        .ok()
        .map(|d| deref(doc, d))
        .transpose()?
        .ok_or("has no FontDescriptor")?;
    if descriptor.as_dict().is_err() {
        return Err("has a FontDescriptor that is not a dictionary".to_string());
    }
    if let Ok(w) = cid.get(b"W") {
        check_cid_widths(doc, deref(doc, w)?)?;
    }
    Ok(())
}

/// A simple font's `Encoding`: absent, a name pdf-extract knows, or a dictionary of a known base encoding and
/// differences inside codes 0-255.
fn check_simple_encoding(doc: &Document, font: &Dictionary) -> Result<(), String> {
    let encoding = match font.get(b"Encoding").map(|e| deref(doc, e)) {
        Err(_) => return Ok(()),
        Ok(Err(e)) => return Err(e),
        Ok(Ok(Object::Name(n))) => return check_encoding_name(n),
        Ok(Ok(Object::Dictionary(encoding))) => encoding,
        Ok(Ok(_)) => return Err("has an encoding pdf-extract cannot read".to_string()),
    };
    if let Ok(base) = encoding.get(b"BaseEncoding") {
        if let Object::Name(n) = deref(doc, base)? {
            check_encoding_name(n)?;
        }
    }
    let Ok(differences) = encoding.get(b"Differences") else {
        return Ok(());
    };
    let Object::Array(items) = deref(doc, differences)? else {
        return Ok(());
    };
    let mut code: i64 = 0;
    for item in items {
        match deref(doc, item)? {
            Object::Integer(i) => code = *i,
            Object::Name(_) => {
                if !(0..256).contains(&code) {
                    return Err("has an encoding difference outside codes 0-255".to_string());
                }
                code += 1;
            }
            _ => {
                return Err(
                    "has an encoding difference that is neither a code nor a name".to_string(),
                )
            }
        }
    }
    Ok(())
}

/// A simple font's `Widths`: absent, or an array of numbers with a `FirstChar`.
fn check_simple_widths(doc: &Document, font: &Dictionary) -> Result<(), String> {
    let Ok(widths) = font.get(b"Widths") else {
        return Ok(());
    };
    let items = deref(doc, widths)?
        .as_array()
        .map_err(|_| "has Widths that are not an array".to_string())?;
    if !items
        .iter()
        .all(|w| deref(doc, w).map(is_number).unwrap_or(false))
    {
        return Err("has Widths that are not all numbers".to_string());
    }
    match font.get(b"FirstChar").map(|f| deref(doc, f)) {
        Ok(Ok(Object::Integer(_))) => Ok(()),
        _ => Err("has Widths without a FirstChar".to_string()),
    }
}

/// pdf-extract knows three named simple-font encodings and panics on any other.
fn check_encoding_name(name: &[u8]) -> Result<(), String> {
    match name {
        b"WinAnsiEncoding" | b"MacRomanEncoding" | b"MacExpertEncoding" => Ok(()),
        other => Err(format!(
            "has the encoding `{}`, which pdf-extract cannot read",
            lossy(other)
        )),
    }
}

/// A CIDFont's `W` array: entries `c [w1 w2 ...]` or `c_first c_last w`, read by index without bounds checks.
fn check_cid_widths(doc: &Document, w: &Object) -> Result<(), String> {
    let items = w
        .as_array()
        .map_err(|_| "has a W that is not an array".to_string())?;
    let mut i = 0;
    while i < items.len() {
        let first = items.get(i).map(|o| deref(doc, o)).transpose()?;
        let second = items.get(i + 1).map(|o| deref(doc, o)).transpose()?;
        match (first, second) {
            (Some(Object::Integer(_)), Some(Object::Array(_))) => i += 2,
            (Some(Object::Integer(_)), Some(Object::Integer(_))) if items.get(i + 2).is_some() => {
                i += 3
            }
            _ => return Err("has a W array pdf-extract cannot read".to_string()),
        }
    }
    Ok(())
}

/// The value of `key` in `dict` or the nearest ancestor in the page tree (`Parent` chain, at most [`MAX_DEPTH`]).
/// Errors: a dangling `Parent` reference.
fn inherited<'d>(
    doc: &'d Document,
    dict: &'d Dictionary,
    key: &[u8],
) -> Result<Option<&'d Object>, String> {
    let mut current = dict;
    for _ in 0..MAX_DEPTH {
        if let Ok(value) = current.get(key) {
            return Ok(Some(value));
        }
        match current.get(b"Parent") {
            Ok(Object::Reference(id)) => match doc.get_dictionary(*id) {
                Ok(parent) => current = parent,
                Err(_) => return Ok(None),
            },
            _ => return Ok(None),
        }
    }
    Ok(None)
}

/// `object` itself, or the object it references. Errors: a dangling reference.
fn deref<'d>(doc: &'d Document, object: &'d Object) -> Result<&'d Object, String> {
    match object {
        Object::Reference(id) => doc
            .get_object(*id)
            .map_err(|_| format!("the object {} {} R is missing", id.0, id.1)),
        other => Ok(other),
    }
}

/// Checks that `object` is (or references) an array of at least `n` numbers.
fn check_numbers(doc: &Document, object: &Object, n: usize, what: &str) -> Result<(), String> {
    let items = deref(doc, object)?
        .as_array()
        .map_err(|_| format!("the page's {what} is not an array"))?;
    let all_numbers = items
        .iter()
        .all(|o| deref(doc, o).map(is_number).unwrap_or(false));
    if items.len() < n || !all_numbers {
        return Err(format!("the page's {what} is not {n} numbers"));
    }
    Ok(())
}

fn is_number(object: &Object) -> bool {
    matches!(object, Object::Integer(_) | Object::Real(_))
}

fn first_name(operands: &[Object]) -> Option<&[u8]> {
    match operands.first() {
        Some(Object::Name(n)) => Some(n.as_slice()),
        _ => None,
    }
}

fn name_of<'d>(doc: &'d Document, dict: &'d Dictionary, key: &[u8]) -> Option<&'d [u8]> {
    match dict.get(key).ok().map(|o| deref(doc, o)) {
        Some(Ok(Object::Name(n))) => Some(n.as_slice()),
        _ => None,
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn error(kind: DocumentErrorKind, message: String) -> DocumentError {
    DocumentError { kind, message }
}

fn encrypted() -> DocumentError {
    error(
        DocumentErrorKind::Encrypted,
        "the PDF is encrypted with a password; it cannot be read without it".to_string(),
    )
}

/// Maps lopdf's load error: a decryption failure is `Encrypted`, anything else `Malformed`.
fn load_error(e: lopdf::Error) -> DocumentError {
    match e {
        lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword => encrypted(),
        other => error(
            DocumentErrorKind::Malformed,
            format!("the PDF cannot be parsed: {other}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tidy_trims_lines_and_keeps_one_blank_line_of_a_run() {
        assert_eq!(
            super::tidy("\n\nTitle  \n\n\n\nBody\x0c\nmore\n\nEnd\n\n"),
            vec!["Title", "", "Body", "more", "", "End"]
        );
        // A blank line between every two lines: they go.
        assert_eq!(
            super::tidy("one\n\ntwo\n\nthree\n\nfour\n"),
            vec!["one", "two", "three", "four"]
        );
    }

    use super::*;
    use crate::document::fixtures::{self, PdfPage};
    use lopdf::dictionary;

    #[test]
    fn a_content_stream_that_inflates_past_the_cap_is_a_page_not_extracted() {
        use std::io::Write;
        let doc = fixtures::pdf_document(&[
            PdfPage::Text(vec!["First page".into()]),
            PdfPage::Text(vec!["Second page text".into()]),
        ]);
        // Page 1's content becomes 40 MB of spaces, deflated to a few kilobytes.
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        let spaces = vec![b' '; 1024 * 1024];
        for _ in 0..40 {
            encoder.write_all(&spaces).unwrap();
        }
        let bomb = encoder.finish().unwrap();
        assert!(bomb.len() < 200_000, "{} bytes", bomb.len());
        // And the same bomb deflated again, behind a chain of two FlateDecode filters.
        let mut outer = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        outer.write_all(&bomb).unwrap();
        let chained = outer.finish().unwrap();
        let first = *doc.get_pages().get(&1).unwrap();
        let content = doc.get_page_contents(first)[0];
        for (filter, data) in [
            (Object::Name(b"FlateDecode".to_vec()), bomb),
            (
                Object::Array(vec![
                    Object::Name(b"FlateDecode".to_vec()),
                    Object::Name(b"FlateDecode".to_vec()),
                ]),
                chained,
            ),
        ] {
            let mut doc = doc.clone();
            doc.objects.insert(
                content,
                Object::Stream(lopdf::Stream::new(dictionary! {"Filter" => filter}, data)),
            );
            let text = extract_pdf(&fixtures::save(doc), &ExtractionLimits::default())
                .expect("extracts")
                .text;
            assert_eq!(
                text,
                format!(
                    "--- page 1 of 2 ---\n[page 1: text not extracted: the page's content stream inflates past the cap of {MAX_CONTENT_STREAM_BYTES} bytes (a decompression bomb, or a page too large to read)]\n--- page 2 of 2 ---\nSecond page text\n"
                )
            );
        }
    }

    #[test]
    fn tokens_are_counted_whole_and_comments_and_inline_image_data_are_not() {
        let cases: [(&[u8], usize); 8] = [
            (b"q Q q Q", 4),
            (b"BT /F1 12 Tf (a (nested) \\) str) Tj ET", 7),
            (b"[(a) 12 (b) -3.5 true] TJ", 8),
            (b"/P <</MCID 0 /Alt (x) /K [1 2]>> BDC EMC", 14),
            (b"% q Q Tj\nQ", 1),
            (b"<48656C6C6F> Tj 0 0 m 10 10 l S", 9),
            (b"BI /W 1 /H 1 /BPC 8 ID \x00EIQ\x01 EI Q", 9),
            (b"1 0 0 1 0 0 cm true false null", 10),
        ];
        for (content, expected) in cases {
            assert_eq!(
                count_tokens(content, usize::MAX - 1),
                expected,
                "{}",
                String::from_utf8_lossy(content)
            );
            // Counting stops one past the cap.
            assert_eq!(count_tokens(content, 0), expected.min(1));
        }
        assert_eq!(count_tokens(&b"q Q\n".repeat(1_000_000), 10), 11);
    }

    #[test]
    fn a_page_of_more_tokens_than_memory_allows_is_not_extracted() {
        use std::io::Write;
        let mut doc = fixtures::pdf_document(&[
            PdfPage::Text(vec!["One".into()]),
            PdfPage::Text(vec!["Two".into()]),
        ]);
        // Page 1 becomes 700,000 bare numbers, operands of no operator: 1.4 MB deflated to about 2 KB.
        let first = doc.get_page_contents(*doc.get_pages().get(&1).unwrap())[0];
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(&b"1 ".repeat(700_000)).unwrap();
        let data = encoder.finish().unwrap();
        assert!(data.len() < 20_000, "{} bytes", data.len());
        doc.objects.insert(
            first,
            Object::Stream(lopdf::Stream::new(
                dictionary! {"Filter" => "FlateDecode"},
                data,
            )),
        );
        let text = extract_pdf(&fixtures::save(doc), &ExtractionLimits::default())
            .expect("extracts")
            .text;
        assert_eq!(
            text,
            format!("--- page 1 of 2 ---\n[page 1: text not extracted: the page's content holds more than {MAX_PAGE_TOKENS} operators and operands, more than its text extraction may hold in memory]\n--- page 2 of 2 ---\nTwo\n")
        );
    }

    #[test]
    fn a_page_that_saves_too_many_graphics_states_is_not_extracted() {
        let deep = format!(
            "{}BT /F1 12 Tf 72 700 Td (Deep) Tj ET{}",
            "q ".repeat(2_000),
            " Q".repeat(2_000)
        );
        let shallow = format!(
            "{}BT /F1 12 Tf 72 700 Td (Shallow) Tj ET{}",
            "q Q ".repeat(2_000),
            ""
        );
        for (content, expected) in [
            (
                deep,
                format!("[page 1: text not extracted: the page saves more than {MAX_SAVED_STATES} graphics states (`q`) without restoring them, more than its text extraction may hold in memory]"),
            ),
            (shallow, "Shallow".to_string()),
        ] {
            let bytes = one_page(&content, |_| {});
            let text = extract(&bytes).expect("extracts").text;
            assert_eq!(text, format!("--- page 1 of 1 ---\n{expected}\n"));
        }
    }

    #[test]
    fn pages_past_the_documents_content_budget_are_not_extracted() {
        use std::io::Write;
        let mut doc = fixtures::pdf_document(&[
            PdfPage::Text(vec!["One".into()]),
            PdfPage::Text(vec!["Two".into()]),
            PdfPage::Text(vec!["Three".into()]),
            PdfPage::Text(vec!["Four".into()]),
        ]);
        // Pages 1 to 3 each draw their text after 1 MiB of spaces (deflated to about a kilobyte); page 4 is small.
        let pages = doc.get_pages();
        for number in 1..=3 {
            let content = doc.get_page_contents(*pages.get(&number).unwrap())[0];
            let text = doc
                .get_object(content)
                .and_then(Object::as_stream)
                .unwrap()
                .decompressed_content()
                .unwrap();
            let mut encoder =
                flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            encoder.write_all(&vec![b' '; 1024 * 1024]).unwrap();
            encoder.write_all(&text).unwrap();
            let data = encoder.finish().unwrap();
            doc.objects.insert(
                content,
                Object::Stream(lopdf::Stream::new(
                    dictionary! {"Filter" => "FlateDecode"},
                    data,
                )),
            );
        }
        let bytes = fixtures::save(doc);
        // 2.5 MiB: pages 1 and 2 fit, page 3 passes what is left, and page 4 comes after the budget is spent.
        let limits = ExtractionLimits {
            max_pdf_content_bytes: 5 * 512 * 1024,
            ..ExtractionLimits::default()
        };
        let document = extract_pdf(&bytes, &limits).expect("extracts");
        // Pages left out by a cap are not pages without a text layer: the coverage warning does not send the
        // model to render them.
        let not_extracted: Vec<u32> = document
            .parts
            .iter()
            .filter(|part| part.not_extracted)
            .map(|part| part.number)
            .collect();
        assert_eq!(not_extracted, [3, 4]);
        // Pages 1 and 2 hold a word each: empty; 3 and 4 are not.
        assert_eq!(crate::document::empty_page_ranges(&document), [(1, 2)]);
        let text = document.text;
        let reason = |number: u32| {
            format!("[page {number}: text not extracted: the page's content stream would take the document's page content past the cap of 2621440 bytes in all (the pages before it used the rest), so no page from here on is read]")
        };
        assert_eq!(
            text,
            format!(
                "--- page 1 of 4 ---\nOne\n--- page 2 of 4 ---\nTwo\n--- page 3 of 4 ---\n{}\n--- page 4 of 4 ---\n{}\n",
                reason(3),
                reason(4)
            )
        );
        // With the default budget every page is read.
        let text = extract_pdf(&bytes, &ExtractionLimits::default())
            .expect("extracts")
            .text;
        assert!(
            text.ends_with("--- page 3 of 4 ---\nThree\n--- page 4 of 4 ---\nFour\n"),
            "{text}"
        );
    }

    fn page(number: u32, first_line: u64, characters: u64) -> DocumentPart {
        DocumentPart {
            kind: PartKind::Page,
            number,
            name: None,
            first_line,
            characters,
            not_extracted: false,
        }
    }

    /// Page `number`, whose text was not extracted, its reason on line `first_line + 1`.
    fn not_extracted(number: u32, first_line: u64) -> DocumentPart {
        DocumentPart {
            not_extracted: true,
            ..page(number, first_line, 0)
        }
    }

    fn extract(bytes: &[u8]) -> Result<ExtractedDocument, DocumentError> {
        extract_pdf(bytes, &ExtractionLimits::default())
    }

    /// A one-page PDF whose page content is `content` and whose shared resources are altered by `alter`.
    fn one_page(content: &str, alter: impl FnOnce(&mut Document)) -> Vec<u8> {
        let mut doc = fixtures::pdf_document(&[PdfPage::Text(vec!["placeholder".to_string()])]);
        let page_id = doc
            .get_pages()
            .get(&1)
            .copied()
            .expect("the fixture has a page");
        let content_id = doc.add_object(lopdf::Stream::new(
            dictionary! {},
            content.as_bytes().to_vec(),
        ));
        if let Ok(Object::Dictionary(page)) = doc.get_object_mut(page_id) {
            page.set("Contents", content_id);
        }
        alter(&mut doc);
        fixtures::save(doc)
    }

    #[test]
    fn three_page_pdf_has_a_marker_line_a_page() {
        let doc = extract(&fixtures::pdf_three_pages()).expect("the fixture reads");
        assert_eq!(doc.format, DocumentFormat::Pdf);
        assert_eq!(
            doc.text,
            "--- page 1 of 3 ---\nPage 1 heading\nBody text of page 1.\n\
             --- page 2 of 3 ---\nPage 2 heading\nBody text of page 2.\n\
             --- page 3 of 3 ---\nPage 3 heading\nBody text of page 3.\n"
        );
        assert_eq!(
            doc.parts,
            vec![page(1, 1, 34), page(2, 4, 34), page(3, 7, 34)]
        );
    }

    #[test]
    fn image_only_pages_4_to_9_have_no_text_and_count_zero() {
        let doc = extract(&fixtures::pdf_scanned_middle()).expect("the fixture reads");
        let lines: Vec<&str> = doc.text.lines().collect();
        assert_eq!(lines.len(), 12 + 6 * 2);
        assert_eq!(
            &lines[9..15],
            &[
                "--- page 4 of 12 ---",
                "--- page 5 of 12 ---",
                "--- page 6 of 12 ---",
                "--- page 7 of 12 ---",
                "--- page 8 of 12 ---",
                "--- page 9 of 12 ---",
            ]
        );
        assert_eq!(lines[15], "--- page 10 of 12 ---");
        assert_eq!(lines[16], "Page 10 heading");
        let characters: Vec<u64> = doc.parts.iter().map(|p| p.characters).collect();
        assert_eq!(characters, vec![34, 34, 34, 0, 0, 0, 0, 0, 0, 36, 36, 36]);
        let first_lines: Vec<u64> = doc.parts.iter().map(|p| p.first_line).collect();
        assert_eq!(
            first_lines,
            vec![1, 4, 7, 10, 11, 12, 13, 14, 15, 16, 19, 22]
        );
    }

    #[test]
    fn encrypted_pdf_is_encrypted() {
        let err = extract(&fixtures::pdf_encrypted()).unwrap_err();
        assert_eq!(err.kind, DocumentErrorKind::Encrypted);
        assert_eq!(
            err.message,
            "the PDF is encrypted with a password; it cannot be read without it"
        );
    }

    #[test]
    fn corrupt_and_truncated_pdfs_are_malformed() {
        let err = extract(b"%PDF-1.4\nnot really a pdf\n").unwrap_err();
        assert_eq!(err.kind, DocumentErrorKind::Malformed);
        assert!(
            err.message.starts_with("the PDF cannot be parsed: "),
            "{}",
            err.message
        );
        let whole = fixtures::pdf_three_pages();
        let err = extract(&whole[..whole.len() / 2]).unwrap_err();
        assert_eq!(err.kind, DocumentErrorKind::Malformed);
    }

    #[test]
    fn input_over_the_cap_is_too_large() {
        let limits = ExtractionLimits {
            max_input_bytes: 100,
            ..ExtractionLimits::default()
        };
        let err = extract_pdf(&fixtures::pdf_three_pages(), &limits).unwrap_err();
        assert_eq!(err.kind, DocumentErrorKind::TooLarge);
        assert!(
            err.message.contains("over the cap of 100 bytes"),
            "{}",
            err.message
        );
    }

    #[test]
    fn text_over_the_cap_is_too_large() {
        let limits = ExtractionLimits {
            max_total_uncompressed: 60,
            ..ExtractionLimits::default()
        };
        let err = extract_pdf(&fixtures::pdf_three_pages(), &limits).unwrap_err();
        assert_eq!(err.kind, DocumentErrorKind::TooLarge);
        assert_eq!(
            err.message,
            "the PDF's text passes the cap of 60 bytes (at page 2 of 3)"
        );
    }

    /// An empty page tree, or one that points back to itself, leaves no page to read: said, not an empty text.
    #[test]
    fn a_pdf_whose_page_tree_leads_to_no_page_is_malformed() {
        let err = extract(&fixtures::pdf(&[])).unwrap_err();
        assert_eq!(err.kind, DocumentErrorKind::Malformed);
        assert_eq!(
            err.message,
            "the PDF's page tree leads to no page (it is empty, broken or cyclic), so no page can be read"
        );
    }

    /// Each of these would make pdf-extract panic (an abort in the component): the page is skipped with its reason.
    #[test]
    fn pages_pdf_extract_would_panic_on_are_skipped_with_a_reason() {
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            (
                "Tj before Tf",
                one_page("BT 72 720 Td (no font) Tj ET", |_| {}),
                "the operator `Tj` shows text before any font is set",
            ),
            (
                "cm with five operands",
                one_page("1 0 0 1 0 cm", |_| {}),
                "the operator `cm` has operands pdf-extract cannot read",
            ),
            (
                "unknown font",
                one_page("BT /F9 12 Tf (x) Tj ET", |_| {}),
                "the font `F9` is not in the resources",
            ),
            (
                "Tj with a number",
                one_page("BT /F1 12 Tf 5 Tj ET", |_| {}),
                "the operator `Tj` has operands pdf-extract cannot read",
            ),
            (
                "unknown colour space",
                one_page("/CS0 cs", |_| {}),
                "the colour space `CS0` is not in the resources",
            ),
            (
                "unknown XObject",
                one_page("/Im9 Do", |_| {}),
                "the XObject `Im9` is not in the resources",
            ),
            (
                "unknown encoding",
                one_page("BT /F2 12 Tf (x) Tj ET", |doc| {
                    let font = doc.add_object(dictionary! {
                        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
                        "Encoding" => "StandardEncoding",
                    });
                    set_font(doc, "F2", font.into());
                }),
                "the font `F2` has the encoding `StandardEncoding`, which pdf-extract cannot read",
            ),
            (
                "dangling font reference",
                one_page("BT /F2 12 Tf (x) Tj ET", |doc| {
                    set_font(doc, "F2", Object::Reference((999, 0)))
                }),
                "the object 999 0 R is missing",
            ),
            (
                "Type0 font without descendants",
                one_page("BT /F2 12 Tf (x) Tj ET", |doc| {
                    let font = doc.add_object(dictionary! {
                        "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "X", "Encoding" => "Identity-H",
                    });
                    set_font(doc, "F2", font.into());
                }),
                "the font `F2` has no DescendantFonts",
            ),
            (
                "no MediaBox",
                one_page("BT /F1 12 Tf (x) Tj ET", |doc| {
                    if let Ok(Object::Dictionary(pages)) = doc.get_object_mut(pages_id(doc)) {
                        pages.remove(b"MediaBox");
                    }
                }),
                "the page has no MediaBox",
            ),
            (
                "short MediaBox",
                one_page("BT /F1 12 Tf (x) Tj ET", |doc| {
                    if let Ok(Object::Dictionary(pages)) = doc.get_object_mut(pages_id(doc)) {
                        pages.set("MediaBox", vec![0.into(), 0.into(), 612.into()]);
                    }
                }),
                "the page's MediaBox is not 4 numbers",
            ),
        ];
        for (what, bytes, reason) in cases {
            let doc = extract(&bytes).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            assert_eq!(
                doc.text,
                format!("--- page 1 of 1 ---\n[page 1: text not extracted: {reason}]\n"),
                "{what}"
            );
            assert_eq!(doc.parts, vec![not_extracted(1, 1)], "{what}");
        }
    }

    fn pages_id(doc: &Document) -> ObjectId {
        doc.catalog()
            .and_then(|c| c.get(b"Pages"))
            .and_then(Object::as_reference)
            .unwrap_or_default()
    }

    /// Adds font `name` = `font` to the shared resources of a fixture document.
    fn set_font(doc: &mut Document, name: &str, font: Object) {
        let resources_id = match doc
            .get_dictionary(pages_id(doc))
            .and_then(|p| p.get(b"Resources"))
        {
            Ok(Object::Reference(id)) => *id,
            _ => return,
        };
        if let Ok(Object::Dictionary(resources)) = doc.get_object_mut(resources_id) {
            if let Ok(Object::Dictionary(fonts)) = resources.get_mut(b"Font") {
                fonts.set(name, font);
            }
        }
    }

    #[test]
    fn a_valid_page_next_to_a_broken_one_keeps_its_text() {
        let mut doc = fixtures::pdf_document(&[
            PdfPage::Text(vec!["First page text here".to_string()]),
            PdfPage::Text(vec!["Second".to_string()]),
        ]);
        let second = doc.get_pages().get(&2).copied().expect("two pages");
        let broken = doc.add_object(lopdf::Stream::new(dictionary! {}, b"BT (x) Tj ET".to_vec()));
        if let Ok(Object::Dictionary(page)) = doc.get_object_mut(second) {
            page.set("Contents", broken);
        }
        let doc = extract(&fixtures::save(doc)).expect("reads");
        assert_eq!(
            doc.text,
            "--- page 1 of 2 ---\nFirst page text here\n--- page 2 of 2 ---\n\
             [page 2: text not extracted: the operator `Tj` shows text before any font is set]\n"
        );
        assert_eq!(doc.parts, vec![page(1, 1, 20), not_extracted(2, 3)]);
    }

    #[test]
    fn tidy_drops_control_characters_and_blank_edges() {
        assert_eq!(
            tidy("\n\n  a \r\n\x0cb\t\n\n"),
            vec!["  a".to_string(), "b".to_string()]
        );
        assert!(tidy("\n \n").is_empty());
    }
}
