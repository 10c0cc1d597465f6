//! Tests of the PDF extractor: pages and their markers, the text each pass writes, and the limits and refusals
//! for hostile, broken, encrypted or oversized files.

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
use crate::document::{DocumentPart, PartKind};

/// The text of `doc` as the per-page pass with pdf-extract's own `PlainTextOutput` wrote it before the page
/// assembler: each page's marker, then its tidied lines.
fn plain_text_output_text(doc: &Document) -> String {
    let pages = doc.get_pages();
    let mut text = String::new();
    for &number in pages.keys() {
        let mut raw = String::new();
        let mut output = pdf_extract::PlainTextOutput::new(&mut raw);
        pdf_extract::output_doc_page(doc, &mut output, number).unwrap();
        text.push_str(&format!("--- page {number} of {} ---\n", pages.len()));
        for line in tidy(&raw) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    text
}

/// The 40-page PDF of the documents scenarios (fpdf2's output, several fonts and sizes).
fn scenario_report_pdf() -> Vec<u8> {
    use base64::Engine as _;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/scenarios/documents/a_short_window_of_a_long_document_gets_a_short_map.json"
    );
    let scenario: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let encoded = scenario["files"]["report.pdf"]["base64"].as_str().unwrap();
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap()
}

#[test]
fn the_whole_document_pass_writes_what_the_page_by_page_pass_and_plain_text_output_write() {
    let limits = ExtractionLimits::default();
    for bytes in [
        fixtures::pdf_three_pages(),
        fixtures::pdf_scanned_middle(),
        scenario_report_pdf(),
    ] {
        let doc = Document::load_mem(&bytes).unwrap();
        let pages = doc.get_pages();
        let whole = whole_document(&doc, pages.len(), &limits).expect("read in one pass");
        let each = page_by_page(&doc, &pages, vec![Ok(()); pages.len()], &limits);
        assert_eq!(whole.text, plain_text_output_text(&doc));
        assert_eq!(each.text, whole.text);
        assert_eq!(each.parts, whole.parts);
        assert_eq!(whole.parts.len(), pages.len());
        assert!(
            whole.text.lines().count() > pages.len() + 3,
            "{}",
            whole.text
        );
        // Under a cap both passes stop at the same page.
        let small = ExtractionLimits {
            max_total_uncompressed: whole.text.len() as u64 / 2,
            ..limits
        };
        let whole_capped = whole_document(&doc, pages.len(), &small).unwrap();
        let each_capped = page_by_page(&doc, &pages, vec![Ok(()); pages.len()], &small);
        assert!(whole_capped.capped_at.is_some());
        assert_eq!(whole_capped.capped_at, each_capped.capped_at);
    }
}
use lopdf::dictionary;

#[test]
fn a_content_stream_that_inflates_past_the_cap_is_a_page_not_extracted() {
    use std::io::Write;
    let doc = fixtures::pdf_document(&[
        PdfPage::Text(vec!["First page".into()]),
        PdfPage::Text(vec!["Second page text".into()]),
    ]);
    // Page 1's content becomes 40 MB of spaces, deflated to a few kilobytes.
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
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
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
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
