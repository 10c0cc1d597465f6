//! The checks a page passes before pdf-extract sees it: the content budget and inflated sizes, the token and
//! saved-state caps, and a walk over its resources, forms and fonts for the preconditions pdf-extract assumes.

use std::collections::HashSet;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::fonts::check_font;
use super::tokens::count_tokens;
use super::{deref, is_number, lossy};

/// Most objects one page's validation walks (resources, fonts, forms) before it gives up on the page.
const MAX_VISITED_OBJECTS: usize = 100_000;

/// Deepest `Parent` chain or nesting of form XObjects followed.
const MAX_DEPTH: usize = 64;

/// Most bytes one content stream (a page's, or a form XObject's) may inflate to. Decoding happens in memory, and
/// the parsed operations take several times the bytes, so a 300 KB file holding a 300 MB stream would exhaust the
/// component's memory: such a page is reported as not extracted instead. Real pages hold a few hundred kilobytes.
pub(super) const MAX_CONTENT_STREAM_BYTES: u64 = 32 * 1024 * 1024;

/// Tokens (operators and operands) one page may hold in all (its content and the forms it draws), counted before
/// its content is decoded: lopdf decodes every operator and operand into memory (a hundred bytes and more each,
/// so a 3 KB stream that inflates to a million `q Q`, or to 1.5 million bare numbers, would take the session past
/// its memory cap), and pdf-extract decodes them again. A page of text or drawing holds a few thousand to a few
/// hundred thousand.
pub(super) const MAX_PAGE_TOKENS: usize = 400_000;

/// Graphics states (`q`) a page may save without restoring them (`Q`): pdf-extract copies the whole state on
/// each `q`, about a kilobyte, so a megabyte of `q` would take the session past its memory cap. ISO 32000-1
/// (Annex C) names 28 as the usual limit of conforming readers.
pub(super) const MAX_SAVED_STATES: usize = 1_024;

/// What is left of a PDF's content budget ([`ExtractionLimits::max_pdf_content_bytes`]) as its pages are checked.
///
/// [`ExtractionLimits::max_pdf_content_bytes`]: crate::document::ExtractionLimits::max_pdf_content_bytes
#[derive(Debug, Clone, Copy)]
pub(super) struct ContentBudget {
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

/// Checks the preconditions pdf-extract assumes without checking for page `page_id`: the page is a dictionary with
/// an inherited `MediaBox` of 4 numbers (and an `ArtBox`, if any, of 4), its content streams load and decode, every
/// operator pdf-extract interprets has operands of the kinds it indexes, every font, graphics state, colour space
/// and XObject the content names exists in the resources, every font is of a shape pdf-extract reads (known
/// encodings, `DescendantFonts` for Type0, a `W` array of whole entries), and every reference reached resolves.
/// Errors: one sentence naming the first problem found.
pub(super) fn validate_page(
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

fn first_name(operands: &[Object]) -> Option<&[u8]> {
    match operands.first() {
        Some(Object::Name(n)) => Some(n.as_slice()),
        _ => None,
    }
}
