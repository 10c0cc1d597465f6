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

mod assemble;
mod fonts;
mod tokens;
mod validate;

use assemble::PageAssembler;
use lopdf::{Document, Object, ObjectId};

use super::{
    DocumentError, DocumentErrorKind, DocumentFormat, ExtractedDocument, ExtractionLimits,
};
#[cfg(test)]
use tokens::count_tokens;
use validate::{validate_page, ContentBudget};
#[cfg(test)]
use validate::{MAX_CONTENT_STREAM_BYTES, MAX_PAGE_TOKENS, MAX_SAVED_STATES};

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
    // Every page is checked first, in order, against the content budget. When all pass (the usual case),
    // pdf-extract reads the document in one `output_doc`, which walks the page tree once; `output_doc_page` walks
    // it again for each page, so a 300-page PDF walked it 300 times.
    let mut budget = ContentBudget::new(limits.max_pdf_content_bytes);
    let checks: Vec<Result<(), String>> = pages
        .values()
        .map(|&page_id| validate_page(&doc, page_id, &mut budget))
        .collect();
    let whole = if checks.iter().all(Result::is_ok) {
        whole_document(&doc, count, limits)
    } else {
        None
    };
    let assembled = match whole {
        Some(assembled) => assembled,
        None => page_by_page(&doc, &pages, checks, limits),
    };
    if let Some(number) = assembled.capped_at {
        return Err(error(
            DocumentErrorKind::TooLarge,
            format!(
                "the PDF's text passes the cap of {} bytes (at page {number} of {count})",
                limits.max_total_uncompressed
            ),
        ));
    }
    Ok(ExtractedDocument {
        format: DocumentFormat::Pdf,
        text: assembled.text,
        parts: assembled.parts,
    })
}

/// The document's text in one `output_doc`, when it runs to its end (or stops at the text's cap); `None` when
/// pdf-extract fails on some page (or, natively, panics): the caller then reads page by page, so that one page's
/// failure costs only that page.
fn whole_document(
    doc: &Document,
    count: usize,
    limits: &ExtractionLimits,
) -> Option<PageAssembler> {
    let mut assembler = PageAssembler::new(count, limits.max_total_uncompressed);
    let run = std::panic::AssertUnwindSafe(|| pdf_extract::output_doc(doc, &mut assembler));
    let finished = std::panic::catch_unwind(run).ok()?;
    match finished {
        Ok(()) if assembler.parts.len() == count => Some(assembler),
        Err(_) if assembler.capped_at.is_some() => Some(assembler),
        _ => None,
    }
}

/// The document's text a page at a time: each page that passed its check read by pdf-extract on its own, each
/// other page (or one pdf-extract fails on) written as a `[page N: text not extracted: REASON]` line.
fn page_by_page(
    doc: &Document,
    pages: &std::collections::BTreeMap<u32, ObjectId>,
    checks: Vec<Result<(), String>>,
    limits: &ExtractionLimits,
) -> PageAssembler {
    let mut assembler = PageAssembler::new(pages.len(), limits.max_total_uncompressed);
    for (&number, check) in pages.keys().zip(checks) {
        if assembler.capped_at.is_some() {
            break;
        }
        if let Err(reason) = check.and_then(|()| page_text(doc, number, &mut assembler)) {
            assembler.not_extracted(number, &reason);
        }
    }
    assembler
}

/// Page `number`, read by pdf-extract into `assembler`, after [`validate_page`] passed. Errors: pdf-extract's
/// error (or, natively, its panic).
fn page_text(doc: &Document, number: u32, assembler: &mut PageAssembler) -> Result<(), String> {
    let run = std::panic::AssertUnwindSafe(|| pdf_extract::output_doc_page(doc, assembler, number));
    // On the component (panic = abort) this cannot catch anything; natively it turns a missed precondition into
    // a page error instead of a crash.
    match std::panic::catch_unwind(run) {
        Ok(Ok(())) => Ok(()),
        // The cap stops the page after it was written: the caller says so.
        Ok(Err(_)) if assembler.capped_at.is_some() => Ok(()),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err("the PDF extractor failed on this page".to_string()),
    }
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

/// `object` itself, or the object it references. Errors: a dangling reference.
fn deref<'d>(doc: &'d Document, object: &'d Object) -> Result<&'d Object, String> {
    match object {
        Object::Reference(id) => doc
            .get_object(*id)
            .map_err(|_| format!("the object {} {} R is missing", id.0, id.1)),
        other => Ok(other),
    }
}

fn is_number(object: &Object) -> bool {
    matches!(object, Object::Integer(_) | Object::Real(_))
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
mod tests;
