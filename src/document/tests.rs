//! Native tests of the extractors (text formats and bad containers) and of documents read through a session.

use std::path::PathBuf;

use super::samples;
use super::*;
use crate::config::ConfigInput;
use crate::error::ErrorKind;
use crate::native_fs::NativeFileSystem;
use crate::read::{ReadOutcome, ReadRequest, ReadResult, Reader};

fn extracted(bytes: &[u8], name: &str) -> ExtractedDocument {
    extract(bytes, name, &ExtractionLimits::default())
        .expect("extracts")
        .expect("is a document")
}

fn refused(bytes: &[u8], name: &str) -> DocumentError {
    extract(bytes, name, &ExtractionLimits::default()).expect_err("is refused")
}

#[test]
fn docx_has_headings_lists_a_table_in_place_footnotes_and_comments() {
    let document = extracted(&samples::docx(), "report.docx");
    assert_eq!(document.format, DocumentFormat::Docx);
    assert_eq!(document.text, samples::DOCX_TEXT);
    assert!(document.parts.is_empty());
}

/// A `.docx` of `body` (inside `<w:body>`) and `parts` besides `word/document.xml`.
fn docx_of(body: &str, parts: &[(&str, &str)]) -> Vec<u8> {
    const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006""#;
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:document {W}><w:body>{body}</w:body></w:document>"#
    );
    let wrapped: Vec<(String, String)> = parts
        .iter()
        .map(|(name, xml)| (name.to_string(), xml.replace("{W}", W)))
        .collect();
    let mut all: Vec<(&str, &[u8])> = vec![("word/document.xml", document.as_bytes())];
    all.extend(
        wrapped
            .iter()
            .map(|(name, xml)| (name.as_str(), xml.as_bytes())),
    );
    super::fixtures::zip_parts(&all)
}

/// The text of a `.docx` of `items` (list, level, text: see [`list_item`]) numbered by `numbering`.
fn list_text(numbering: &str, items: &[(u32, u32, &str)]) -> String {
    let body: String = items
        .iter()
        .map(|(list, level, text)| list_item(*list, *level, text))
        .collect();
    extracted(
        &docx_of(&body, &[("word/numbering.xml", numbering)]),
        "list.docx",
    )
    .text
}

/// A Word paragraph `text` at `level` (0-based) of the list `w:numId` `list`.
fn list_item(list: u32, level: u32, text: &str) -> String {
    format!(
        r#"<w:p><w:pPr><w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="{list}"/></w:numPr></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"#
    )
}

#[test]
fn docx_numbers_lists_keeps_text_boxes_once_and_reads_headers_symbols_and_tracked_changes() {
    let numbering = r#"<w:numbering {W}>
<w:abstractNum w:abstractNumId="5"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="lowerLetter"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="6"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="5"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="6"/></w:num>
</w:numbering>"#;
    let body = [
        list_item(1, 0, "Plan"),
        list_item(1, 1, "draft"),
        list_item(1, 1, "review"),
        list_item(1, 0, "Ship"),
        list_item(1, 1, "tag"),
        list_item(2, 0, "a bullet"),
        r#"<w:p><w:pPr><w:pStyle w:val="ListNumber"/></w:pPr><w:r><w:t>First step</w:t></w:r></w:p>"#.to_string(),
        r#"<w:p><w:pPr><w:pStyle w:val="ListNumber"/></w:pPr><w:r><w:t>Second step</w:t></w:r></w:p>"#.to_string(),
        r#"<w:p><w:pPr><w:pStyle w:val="ListBullet2"/></w:pPr><w:r><w:t>sub point</w:t></w:r></w:p>"#.to_string(),
        // A text box: DrawingML in mc:Choice, the same text again in the VML mc:Fallback.
        r#"<w:p><w:r><w:t xml:space="preserve">Caption: </w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>Boxed note</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Boxed note</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>figure 1</w:t></w:r></w:p>"#.to_string(),
        r#"<w:p><w:r><w:t>well</w:t></w:r><w:r><w:noBreakHyphen/><w:t>known </w:t></w:r><w:r><w:sym w:font="Symbol" w:char="03B1"/><w:sym w:font="Wingdings" w:char="F0FC"/></w:r></w:p>"#.to_string(),
        r#"<w:p><w:r><w:t xml:space="preserve">Price </w:t></w:r><w:del w:id="1" w:author="Bo"><w:r><w:delText>10</w:delText></w:r></w:del><w:ins w:id="2" w:author="Bo"><w:r><w:t>12</w:t></w:r></w:ins><w:r><w:t xml:space="preserve"> euros</w:t></w:r></w:p>"#.to_string(),
    ]
    .concat();
    let header = r#"<w:hdr {W}><w:p><w:r><w:t>ACME confidential</w:t></w:r></w:p></w:hdr>"#;
    let footer = r#"<w:ftr {W}><w:p><w:r><w:t>Page footer</w:t></w:r></w:p></w:ftr>"#;
    let bytes = docx_of(
        &body,
        &[
            ("word/numbering.xml", numbering),
            ("word/footer1.xml", footer),
            ("word/header2.xml", header),
            ("word/header1.xml", header),
        ],
    );
    let document = extracted(&bytes, "plan.docx");
    assert_eq!(
        document.text,
        "1. Plan\n  a. draft\n  b. review\n2. Ship\n  a. tag\n- a bullet\n1. First step\n2. Second step\n  - sub point\nCaption: figure 1\nBoxed note\nwell-known α\nPrice 12 euros\n\
         --- headers and footers ---\nACME confidential\nPage footer\n\
         --- tracked changes: 1 insertion and 1 deletion not yet accepted; the text above shows them accepted (inserted text in, deleted text out) ---\n"
    );
}

#[test]
fn docx_list_markers_follow_each_levels_text() {
    // Legal numbering: `1.`, `1.1.`, `1.1.1.` (`%1.%2.%3.`); a second list of `1)`, `(a)`, `(ii)`; zero-padded
    // numbers; a bullet level whose text is its glyph; a `%` that names no level.
    let numbering = r#"<w:numbering {W}>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2."/></w:lvl><w:lvl w:ilvl="2"><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2.%3."/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="2"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/><w:lvlText w:val="%1)"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%2)"/></w:lvl><w:lvl w:ilvl="2"><w:lvlText w:val="(%3)"/><w:numFmt w:val="lowerRoman"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="3"><w:lvl w:ilvl="0"><w:numFmt w:val="decimalZero"/><w:lvlText w:val="Step %1 of 100%"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="2"/></w:num><w:num w:numId="3"><w:abstractNumId w:val="3"/></w:num>
</w:numbering>"#;
    let items = [
        (1, 0, "Scope"),
        (1, 1, "Terms"),
        (1, 2, "Definitions"),
        (1, 2, "Notices"),
        (1, 1, "Payment"),
        (1, 0, "Term"),
        (1, 2, "Skipped level"),
        (2, 0, "first"),
        (2, 1, "alpha"),
        (2, 2, "one"),
        (2, 2, "two"),
        (2, 1, "beta"),
        (3, 0, "Unpack"),
        (3, 1, "carefully"),
        (3, 0, "Install"),
    ];
    assert_eq!(
        list_text(numbering, &items),
        "1. Scope\n  1.1. Terms\n    1.1.1. Definitions\n    1.1.2. Notices\n  1.2. Payment\n2. Term\n    2.1.1. Skipped level\n\
         1) first\n  (a) alpha\n    (i) one\n    (ii) two\n  (b) beta\n\
         Step 01 of 100% Unpack\n  - carefully\nStep 02 of 100% Install\n"
    );
}

#[test]
fn docx_list_numbers_start_where_the_level_or_the_list_says() {
    // Level starts (`w:start`), a list's own start (`w:startOverride`), and a legal-style level (`w:isLgl`) under an
    // upper-roman one.
    let numbering = r#"<w:numbering {W}>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:start w:val="3"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="2"><w:lvl w:ilvl="0"><w:start w:val="4"/><w:numFmt w:val="upperRoman"/><w:lvlText w:val="Article %1"/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:isLgl/><w:lvlText w:val="Section %1.%2"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="3"><w:lvl w:ilvl="0"><w:start w:val="25"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1)"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="2"/></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="3"/></w:num>
<w:num w:numId="4"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="10"/></w:lvlOverride></w:num>
</w:numbering>"#;
    let items = [
        (1, 0, "third"),
        (1, 0, "fourth"),
        (2, 0, "Scope"),
        (2, 1, "Terms"),
        (2, 1, "Payment"),
        (2, 0, "Law"),
        (2, 1, "Venue"),
        (3, 0, "y"),
        (3, 0, "z"),
        (3, 0, "aa"),
        (4, 0, "tenth"),
        (4, 0, "eleventh"),
    ];
    assert_eq!(
        list_text(numbering, &items),
        "3. third\n4. fourth\n\
         Article IV Scope\n  Section 4.1 Terms\n  Section 4.2 Payment\nArticle V Law\n  Section 5.1 Venue\n\
         y) y\nz) z\naa) aa\n\
         10. tenth\n11. eleventh\n"
    );
}

#[test]
fn a_bar_inside_a_table_cell_is_escaped_so_cells_stay_apart() {
    let body = r#"<w:tbl><w:tr><w:tc><w:p><w:r><w:t>x | y</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>z</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"#;
    let document = extracted(&docx_of(body, &[]), "t.docx");
    assert_eq!(document.text, "x \\| y | z\n");
}

#[test]
fn a_nested_tables_rows_stay_inside_their_outer_cell() {
    let cell = |text: &str| format!("<w:tc><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>");
    let nested = format!(
        "<w:tc><w:tbl><w:tr>{}{}</w:tr><w:tr>{}{}</w:tr></w:tbl></w:tc>",
        cell("a"),
        cell("b | c"),
        cell("d"),
        cell("e")
    );
    let body = format!(
        "<w:tbl><w:tr>{}{nested}{}</w:tr></w:tbl>",
        cell("left"),
        cell("right")
    );
    let document = extracted(&docx_of(&body, &[]), "t.docx");
    // Three outer cells: `left`, the nested table's two rows, `right`.
    assert_eq!(document.text, "left | a \\| b \\| c d \\| e | right\n");
}

#[test]
fn a_slide_table_is_a_row_a_line_a_picture_is_named_and_a_hidden_slide_says_so() {
    let p = r#"xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
    let presentation = format!(
        r#"<p:presentation {p}><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>"#
    );
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>"#;
    let cell = |text: &str| {
        format!("<a:tc><a:txBody><a:p><a:r><a:t>{text}</a:t></a:r></a:p></a:txBody></a:tc>")
    };
    let table = format!(
        "<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr>{}{}</a:tr><a:tr>{}{}</a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>",
        cell("Region"),
        cell("Sales"),
        cell("North | East"),
        cell("12")
    );
    let picture = r#"<p:pic><p:nvPicPr><p:cNvPr id="4" name="Picture 3" descr="Sales chart"/></p:nvPicPr></p:pic>"#;
    let slide = format!(
        r#"<p:sld {p} show="0"><p:cSld><p:spTree>{table}{picture}</p:spTree></p:cSld></p:sld>"#
    );
    let bytes = super::fixtures::zip_parts(&[
        ("ppt/presentation.xml", presentation.as_bytes()),
        ("ppt/_rels/presentation.xml.rels", rels.as_bytes()),
        ("ppt/slides/slide1.xml", slide.as_bytes()),
    ]);
    let document = extracted(&bytes, "deck.pptx");
    assert_eq!(
        document.text,
        "--- slide 1 of 1 (hidden) ---\nRegion | Sales\nNorth \\| East | 12\n[picture: Sales chart]\n"
    );
}

#[test]
fn pictures_leave_a_line_naming_them() {
    let body = r#"<w:p><w:r><w:t>Scan:</w:t></w:r></w:p><w:p><w:r><w:drawing><wp:inline xmlns:wp="x"><wp:docPr id="1" name="Picture 1" descr="Signed contract, page 1"/><a:graphic xmlns:a="y"><a:graphicData><pic:pic xmlns:pic="z"><pic:nvPicPr><pic:cNvPr id="0" name="scan.png"/></pic:nvPicPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p><w:p><w:r><w:drawing><wp:inline xmlns:wp="x"><wp:docPr id="2" name=""/><a:graphic xmlns:a="y"><a:graphicData><pic:pic xmlns:pic="z"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>"#;
    let document = extracted(&docx_of(body, &[]), "scan.docx");
    assert_eq!(
        document.text,
        "Scan:\n[picture: Signed contract, page 1]\n[picture]\n"
    );
}

#[test]
fn list_markers_count_in_each_format() {
    assert_eq!(super::office::list_marker("decimal", 12), "12.");
    assert_eq!(super::office::list_marker("lowerLetter", 28), "ab.");
    assert_eq!(super::office::list_marker("upperRoman", 14), "XIV.");
    assert_eq!(super::office::list_marker("bullet", 3), "-");
}

#[test]
fn odt_reads_like_docx() {
    let document = extracted(&samples::odt(), "plan.odt");
    assert_eq!(document.format, DocumentFormat::Odt);
    assert_eq!(document.text, samples::ODT_TEXT);
}

#[test]
fn pptx_slides_come_in_presentation_order_with_titles_and_notes() {
    let document = extracted(&samples::pptx(), "deck.pptx");
    assert_eq!(document.text, samples::PPTX_TEXT);
    let starts: Vec<(u32, u64, Option<String>)> = document
        .parts
        .iter()
        .map(|part| (part.number, part.first_line, part.name.clone()))
        .collect();
    assert_eq!(
        starts,
        vec![(1, 1, Some("Quarterly results".to_string())), (2, 6, None)]
    );
}

#[test]
fn odp_slides_have_titles_and_notes() {
    let document = extracted(&samples::odp(), "deck.odp");
    assert_eq!(document.format, DocumentFormat::Odp);
    assert_eq!(document.text, samples::ODP_TEXT);
}

#[test]
fn epub_chapters_follow_the_spine() {
    let document = extracted(&samples::epub(), "book.epub");
    assert_eq!(document.text, samples::EPUB_TEXT);
    let starts: Vec<(PartKind, u64)> = document
        .parts
        .iter()
        .map(|p| (p.kind, p.first_line))
        .collect();
    assert_eq!(starts, vec![(PartKind::Chapter, 1), (PartKind::Chapter, 6)]);
}

#[test]
fn notebook_outputs_are_text_and_images_are_one_line() {
    let document = extracted(&samples::ipynb(), "analysis.ipynb");
    assert_eq!(document.text, samples::IPYNB_TEXT);
    let starts: Vec<u64> = document.parts.iter().map(|p| p.first_line).collect();
    assert_eq!(starts, vec![1, 4, 12]);
    // Detected by content too: the same notebook named .json.
    assert_eq!(
        extracted(&samples::ipynb(), "analysis.json").format,
        DocumentFormat::Ipynb
    );
}

#[test]
fn json_that_is_no_notebook_is_read_as_a_file() {
    let limits = ExtractionLimits::default();
    assert_eq!(extract(br#"{"cells": 1}"#, "data.json", &limits), Ok(None));
    assert_eq!(
        extract(&samples::plain_zip(), "files.zip", &limits),
        Ok(None)
    );
}

#[test]
fn a_zip_bomb_is_too_large_before_it_is_inflated() {
    let started = std::time::Instant::now();
    let error = refused(&samples::zip_bomb(), "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::TooLarge);
    assert!(
        error.message.contains("over the cap of 100"),
        "{}",
        error.message
    );
    assert!(started.elapsed().as_secs() < 1);
}

#[test]
fn entry_count_and_total_size_caps_are_named() {
    let limits = ExtractionLimits {
        max_entries: 2,
        ..ExtractionLimits::default()
    };
    let error = check_zip(&samples::docx(), &limits).expect_err("4 entries");
    assert_eq!(error.kind, DocumentErrorKind::TooLarge);
    assert_eq!(
        error.message,
        "the zip holds 4 entries, over the cap of 2 entries"
    );
    let limits = ExtractionLimits {
        max_total_uncompressed: 100,
        ..ExtractionLimits::default()
    };
    let error = check_zip(&samples::docx(), &limits).expect_err("over 100 bytes");
    assert!(
        error.message.contains("more than 100 bytes"),
        "{}",
        error.message
    );
}

#[test]
fn read_zip_entry_stops_at_the_cap_whatever_the_declared_size() {
    let bytes = samples::zip_bomb();
    let mut archive = open_zip(&bytes).unwrap();
    let limits = ExtractionLimits {
        max_total_uncompressed: 1_000,
        ..ExtractionLimits::default()
    };
    let error = read_zip_entry(&mut archive, "word/document.xml", &limits).expect_err("capped");
    assert_eq!(error.kind, DocumentErrorKind::TooLarge);
    assert_eq!(
        read_zip_entry(&mut archive, "missing.xml", &limits),
        Ok(None)
    );
}

#[test]
fn a_docx_that_is_not_one_is_reported_for_what_it_is() {
    let error = refused(b"just some notes\n", "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::Malformed);
    assert_eq!(
        error.message,
        "report.docx is named as a Word document (.docx) but its content is plain text, not a Word document"
    );
    let error = refused(&samples::plain_zip(), "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::Malformed);
    assert!(
        error.message.contains("word/document.xml"),
        "{}",
        error.message
    );
    let error = refused(&samples::corrupt_docx(), "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::Malformed);
    assert!(
        error.message.contains("word/document.xml"),
        "{}",
        error.message
    );
    let error = refused(b"PK\x03\x04garbage", "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::Malformed);
}

#[test]
fn legacy_doc_and_ppt_are_refused_by_name() {
    let ole = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest";
    let error = refused(ole, "old.doc");
    assert_eq!(error.kind, DocumentErrorKind::Unsupported);
    assert!(error
        .message
        .contains("legacy Word 97-2003 document (.doc)"));
    assert!(refused(ole, "old.ppt").message.contains(".ppt"));
}

#[test]
fn password_protected_office_files_are_encrypted_whatever_their_name() {
    use std::io::Write;
    let mut file = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).expect("cfb");
    for name in ["/EncryptionInfo", "/EncryptedPackage"] {
        file.create_stream(name)
            .and_then(|mut stream| stream.write_all(b"\x04\x00\x04\x00"))
            .expect("cfb stream");
    }
    file.flush().expect("cfb flushes");
    let bytes = file.into_inner().into_inner();
    for name in ["secret.docx", "secret.pptx", "secret.doc", "secret.bin"] {
        let error = refused(&bytes, name);
        assert_eq!(error.kind, DocumentErrorKind::Encrypted, "{name}");
        assert_eq!(
            error.message,
            format!("{name} is a password-protected Office document (an OLE compound file holding `EncryptionInfo` and `EncryptedPackage`): its text cannot be read without the password")
        );
    }
}

#[test]
fn coverage_warning_names_each_empty_range_with_the_text_before_it() {
    let mut out = TextBuilder::new();
    for page in 1..=12u32 {
        out.begin_part(
            PartKind::Page,
            page,
            None,
            &format!("--- page {page} of 12 ---"),
        );
        if !(4..=9).contains(&page) {
            out.line(&format!("Page {page} has a full line of real text on it."));
        }
    }
    let document = out.finish(DocumentFormat::Pdf);
    assert_eq!(empty_page_ranges(&document), vec![(4, 9)]);
    let facts = DocumentFacts::of(&document, "/w/scan.pdf");
    assert_eq!(facts.pages, Some(12));
    assert_eq!(
        facts.warning.as_deref(),
        Some("[read-window: no text layer] 6 of the 12 pages of /w/scan.pdf have no extractable text, or almost none (under 20 characters each): pages 4-9 (after \"Page 3 has a full line of real text on it.\"). Their text layer is missing or nearly empty (scanned or image-only pages, or pages that are mostly pictures, such as title slides), so this extraction may not hold what they show. Render those pages as images and look at them before relying on this document.")
    );
    // One empty page of 12 is no warning.
    let mut out = TextBuilder::new();
    for page in 1..=12u32 {
        out.begin_part(
            PartKind::Page,
            page,
            None,
            &format!("--- page {page} of 12 ---"),
        );
        if page != 5 {
            out.line("Enough text on this page to count.");
        }
    }
    assert_eq!(
        coverage_warning(&out.finish(DocumentFormat::Pdf), "x.pdf"),
        None
    );
}

#[test]
fn the_cache_keeps_one_version_per_path_and_evicts_the_oldest() {
    let mut cache = DocumentCache::new();
    let document = std::sync::Arc::new(extracted(&samples::pptx(), "a.pptx"));
    for index in 0..(MAX_CACHED_DOCUMENTS + 2) {
        cache.put(
            &format!("/w/{index}.pptx"),
            (1, None, 0),
            Ok(document.clone()),
        );
    }
    assert_eq!(cache.len(), MAX_CACHED_DOCUMENTS);
    assert!(cache.get("/w/0.pptx", (1, None, 0)).is_none());
    assert!(cache.get("/w/9.pptx", (1, None, 0)).is_some());
    assert!(cache.get("/w/9.pptx", (2, None, 0)).is_none());
    cache.put("/w/9.pptx", (2, None, 0), Ok(document));
    assert!(cache.get("/w/9.pptx", (1, None, 0)).is_none());
}

fn session(files: &[(&str, Vec<u8>)]) -> (tempfile::TempDir, NativeFileSystem, Reader) {
    let directory = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        std::fs::write(directory.path().join(name), bytes).unwrap();
    }
    let fs = NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]);
    (directory, fs, Reader::new(ConfigInput::default()))
}

fn window(
    reader: &mut Reader,
    fs: &mut NativeFileSystem,
    path: &str,
    offset: u64,
    limit: u64,
) -> ReadResult {
    let request = ReadRequest {
        path: path.to_string(),
        offset: Some(offset),
        limit: Some(limit),
        ..ReadRequest::default()
    };
    match reader.read(fs, &request, 0) {
        Ok(ReadOutcome::Window(result)) => result,
        other => panic!("expected a window, got {other:?}"),
    }
}

#[test]
fn a_deck_is_paged_through_its_cursors_with_every_line_once() {
    let (_dir, mut fs, mut reader) = session(&[("deck.pptx", samples::pptx())]);
    let mut lines = Vec::new();
    let mut offset = 1;
    loop {
        let result = window(&mut reader, &mut fs, "deck.pptx", offset, 3);
        assert_eq!(result.window.total_lines, 7);
        let facts = result.document.as_ref().expect("document facts");
        assert_eq!(facts.format, DocumentFormat::Pptx);
        assert_eq!(facts.parts.len(), 2);
        for line in result.window.content.lines() {
            lines.push(
                line.split_once('|')
                    .map(|(_, text)| text.to_string())
                    .unwrap(),
            );
        }
        match result.window.next_offset {
            Some(next) => offset = next,
            None => break,
        }
    }
    let expected: Vec<&str> = samples::PPTX_TEXT.lines().collect();
    assert_eq!(lines, expected);
}

#[test]
fn the_hint_says_where_the_next_part_starts() {
    let (_dir, mut fs, mut reader) = session(&[("deck.pptx", samples::pptx())]);
    let result = window(&mut reader, &mut fs, "deck.pptx", 1, 3);
    assert!(
        result.hint.ends_with(" This is the text extracted from a pptx document of 2 slides; this window is in slide 1; slide 2 starts at line 6 (offset=6). Where each slide starts: 1 at line 1, 2 at line 6."),
        "{}",
        result.hint
    );
    assert_eq!(result.file_size, samples::pptx().len() as u64);
}

/// A PDF of `pages` pages of 10 lines each (a marker and 9 lines of text), `empty` of them with no text.
fn pdf_facts(pages: u32, empty: &[u32]) -> DocumentFacts {
    let parts = (1..=pages)
        .map(|number| DocumentPart {
            kind: PartKind::Page,
            number,
            name: None,
            first_line: u64::from(number - 1) * 10 + 1,
            characters: if empty.contains(&number) { 0 } else { 400 },
            not_extracted: false,
        })
        .collect();
    let document = ExtractedDocument {
        format: DocumentFormat::Pdf,
        text: String::new(),
        parts,
    };
    DocumentFacts::of(&document, "/w/report.pdf")
}

#[test]
fn the_hint_maps_every_part_of_a_short_document_and_reaches_across_a_long_one() {
    assert_eq!(
        [2, 3, 5, 11, 12, 21, 112, 150].map(super::ordinal),
        ["2nd", "3rd", "5th", "11th", "12th", "21st", "112th", "150th"].map(String::from)
    );
    let short = pdf_facts(3, &[]);
    assert_eq!(
        short.hint_clause(1, 10, 400),
        " This is the text extracted from a pdf document of 3 pages; this window is in page 1; page 2 starts at line 11 (offset=11). Where each page starts: 1 at line 1, 2 at line 11, 3 at line 21."
    );
    let long = pdf_facts(100, &[]);
    let clause = long.hint_clause(395, 420, 100_000);
    let line = |page: u32| format!("{page} at line {}", (page - 1) * 10 + 1);
    let near: Vec<String> = (40..60).map(line).collect();
    let far: Vec<String> = [
        5, 10, 15, 20, 25, 30, 35, 60, 65, 70, 75, 80, 85, 90, 95, 100,
    ]
    .into_iter()
    .map(line)
    .collect();
    assert_eq!(
        clause,
        format!(
            " This is the text extracted from a pdf document of 100 pages; this window holds pages 40-42; page 43 starts at line 421 (offset=421). Where each page starts: {}; and every 5th: {} (each page opens with its marker line: --- page N of 100 ---).",
            near.join(", "),
            far.join(", ")
        )
    );
}

#[test]
fn a_short_window_of_a_long_document_says_where_the_map_is_instead_of_repeating_it() {
    let long = pdf_facts(100, &[]);
    // Five lines of page 40: the map of 36 pages would be longer than the window.
    assert_eq!(
        long.hint_clause(395, 399, 300),
        " This is the text extracted from a pdf document of 100 pages; this window is in page 40; page 41 starts at line 401 (offset=401). Where each page starts is in the hint of the first window: read offset=1 limit=1 for the map."
    );
    // The first window carries the map however short it is.
    assert!(long
        .hint_clause(1, 5, 300)
        .contains("Where each page starts: 1 at line 1, 2 at line 11,"));
    // A window ten times the map's length carries it too.
    assert!(long
        .hint_clause(395, 420, 100_000)
        .contains("Where each page starts: 40 at line 391,"));
}

#[test]
fn a_page_with_no_text_is_named_even_under_the_warning_threshold() {
    // 1 empty page of 30 is under the coverage warning's threshold (2 pages and 10%): no warning, but a note.
    let one = pdf_facts(30, &[7]);
    assert_eq!(one.warning, None);
    assert_eq!(one.empty_pages, vec![(7, 7)]);
    assert!(one.hint_clause(1, 10, 400).ends_with(
        " Page 7 has little or no text (under 20 characters extracted): if it should hold more, look at it rendered."
    ));
    let two = pdf_facts(30, &[7, 20]);
    assert_eq!(two.warning, None);
    assert!(two.hint_clause(1, 10, 400).ends_with(
        " Pages 7, 20 have little or no text (under 20 characters extracted): if they should hold more, look at them rendered."
    ));
}

#[test]
fn a_document_replaced_under_the_same_size_and_time_is_extracted_again() {
    let contract = |amount: &str| {
        docx_of(
            &format!("<w:p><w:r><w:t>Contract amount: {amount} dollars</w:t></w:r></w:p>"),
            &[],
        )
    };
    let (first, second) = (contract("1000"), contract("9999"));
    assert_eq!(first.len(), second.len());
    let (dir, mut fs, mut reader) = session(&[("contract.docx", first)]);
    let path = dir.path().join("contract.docx");
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    let before = window(&mut reader, &mut fs, "contract.docx", 1, 10);
    assert_eq!(before.window.content, "1|Contract amount: 1000 dollars\n");
    std::fs::write(&path, second).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(modified).unwrap();
    drop(file);
    let after = window(&mut reader, &mut fs, "contract.docx", 1, 10);
    assert_eq!(after.window.content, "1|Contract amount: 9999 dollars\n");
}

#[test]
fn document_errors_are_typed_read_errors() {
    let (_dir, mut fs, mut reader) = session(&[
        ("bomb.docx", samples::zip_bomb()),
        ("notes.docx", b"plain notes\n".to_vec()),
        ("old.doc", b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest".to_vec()),
    ]);
    let kind = |reader: &mut Reader, fs: &mut NativeFileSystem, path: &str| {
        let request = ReadRequest {
            path: path.to_string(),
            ..ReadRequest::default()
        };
        reader.read(fs, &request, 0).expect_err("refused").kind
    };
    assert_eq!(kind(&mut reader, &mut fs, "bomb.docx"), ErrorKind::TooLarge);
    assert_eq!(
        kind(&mut reader, &mut fs, "notes.docx"),
        ErrorKind::MalformedDocument
    );
    assert_eq!(kind(&mut reader, &mut fs, "old.doc"), ErrorKind::Binary);
}

#[test]
fn check_write_refuses_text_over_every_container_kind() {
    let (_dir, mut fs, mut reader) = session(&[
        ("report.docx", samples::docx()),
        ("scan.pdf", b"%PDF-1.7\n%...".to_vec()),
        ("old.xls", b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest".to_vec()),
        ("notes.docx", b"plain notes\n".to_vec()),
        ("notes.txt", b"plain notes\n".to_vec()),
    ]);
    for path in ["report.docx", "scan.pdf", "old.xls"] {
        let error = reader
            .check_write(&mut fs, path, "# Report\n")
            .expect_err(path);
        assert_eq!(error.kind, ErrorKind::BinaryDocument, "{path}");
        assert!(
            error.message.contains("is an extraction"),
            "{}",
            error.message
        );
    }
    for path in ["notes.docx", "notes.txt", "new.docx"] {
        assert!(
            reader.check_write(&mut fs, path, "text\n").is_ok(),
            "{path}"
        );
    }
}

#[test]
fn check_write_refuses_notebook_json_whose_cells_hold_returned_gutter_lines() {
    let (_dir, mut fs, mut reader) = session(&[("analysis.ipynb", samples::ipynb())]);
    let shown = window(&mut reader, &mut fs, "analysis.ipynb", 1, 20);
    assert!(
        shown.window.content.contains("5|print('hi')\n6|plot()\n"),
        "{}",
        shown.window.content
    );
    let with_cell_2 = |source: serde_json::Value| {
        let mut notebook: serde_json::Value = serde_json::from_slice(&samples::ipynb()).unwrap();
        notebook["cells"][1]["source"] = source;
        notebook.to_string()
    };
    // The notebook's own JSON, and JSON whose lines only look numbered, pass.
    let clean = String::from_utf8(samples::ipynb()).unwrap();
    assert!(reader
        .check_write(&mut fs, "analysis.ipynb", &clean)
        .is_ok());
    let numbered = with_cell_2(serde_json::json!(["1|Alice|30\n", "2|Bob|25"]));
    assert!(reader
        .check_write(&mut fs, "analysis.ipynb", &numbered)
        .is_ok());
    // The cell's source pasted back with its gutters, as a list of lines or as one string, to the notebook or a
    // new one.
    for (path, source) in [
        (
            "analysis.ipynb",
            serde_json::json!(["5|print('hi')\n", "6|plot()"]),
        ),
        ("copy.ipynb", serde_json::json!("5|print('hi')\n6|plot()\n")),
    ] {
        let error = reader
            .check_write(&mut fs, path, &with_cell_2(source))
            .expect_err(path);
        assert_eq!(error.kind, ErrorKind::EchoedOutput);
        assert_eq!(
            error.message,
            format!("Lines 1-2 of cell 2 in the notebook JSON for {path} are lines this session returned with their `N|` line numbers (the first is `5|print('hi')`); writing them would put the gutters into the cell. Write the cell's source without the `N|` prefixes.")
        );
    }
}

/// Writes the samples to the directory named by `READ_WINDOW_DUMP_SAMPLES` (when set): the base64 fixtures of
/// `tests/scenarios/documents/` were made from them.
#[test]
fn dump_samples_for_scenarios() {
    let Ok(dir) = std::env::var("READ_WINDOW_DUMP_SAMPLES") else {
        return;
    };
    for (name, bytes) in [
        ("report.docx", samples::docx()),
        ("plan.odt", samples::odt()),
        ("deck.pptx", samples::pptx()),
        ("deck.odp", samples::odp()),
        ("book.epub", samples::epub()),
        ("bomb.docx", samples::zip_bomb()),
        ("corrupt.docx", samples::corrupt_docx()),
    ] {
        std::fs::write(format!("{dir}/{name}"), bytes).unwrap();
    }
    // A 100-page text PDF, for timing extraction and paging.
    let pages: Vec<super::fixtures::PdfPage> = (1..=100)
        .map(|page| {
            super::fixtures::PdfPage::Text(
                (1..=40)
                    .map(|line| format!("Page {page} line {line} of the report text"))
                    .collect(),
            )
        })
        .collect();
    std::fs::write(format!("{dir}/hundred.pdf"), super::fixtures::pdf(&pages)).unwrap();
}

/// Whether `answer` matches `expect` as the scenario runners match (`tests/scenarios/README.md`): an object names
/// keys to check, `{"$absent": true}` a key the answer lacks, and anything else an equal value.
fn matches_expectation(expect: &serde_json::Value, answer: Option<&serde_json::Value>) -> bool {
    use serde_json::Value;
    match expect {
        Value::Object(fields) if fields.contains_key("$absent") => {
            answer.is_none() == (fields.get("$absent") == Some(&Value::Bool(true)))
        }
        Value::Object(fields) => fields
            .iter()
            .all(|(key, value)| matches_expectation(value, answer.and_then(|a| a.get(key)))),
        Value::Array(items) => answer.and_then(Value::as_array).is_some_and(|answers| {
            answers.len() == items.len()
                && items
                    .iter()
                    .zip(answers)
                    .all(|(item, answer)| matches_expectation(item, Some(answer)))
        }),
        other => answer == Some(other),
    }
}

/// The scenario `changes/a_notebook_read_as_text_then_as_json_is_no_change` run natively, step by step, through a
/// protocol session at `/scenario` (its files and `write_file` contents are text): every answer matches what the
/// scenario expects, so its expectations are what the component answers.
#[test]
fn a_notebook_read_as_text_then_as_json_is_no_change_as_its_scenario_says() {
    use crate::protocol::{Environment, ProtocolSession};
    let scenario: serde_json::Value = serde_json::from_str(include_str!(
        "../../tests/scenarios/changes/a_notebook_read_as_text_then_as_json_is_no_change.json"
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in scenario["files"].as_object().unwrap() {
        std::fs::write(dir.path().join(name), text.as_str().unwrap()).unwrap();
    }
    let fs = NativeFileSystem::mount(&[(dir.path().to_path_buf(), "/scenario".to_string())]);
    let environment = Environment {
        now_ms: || 0,
        memory_bytes: || 4096,
    };
    let mut session = ProtocolSession::new(fs, "", Vec::new(), environment);
    let mut reads = 0;
    for step in scenario["steps"].as_array().unwrap() {
        let mut request = step.clone();
        let expect = request.as_object_mut().unwrap().remove("expect");
        if request["op"] == "write_file" {
            let path = dir.path().join(request["path"].as_str().unwrap());
            std::fs::write(path, request["content"].as_str().unwrap()).unwrap();
            continue;
        }
        let answer: serde_json::Value =
            serde_json::from_str(&session.answer(&request.to_string())).unwrap();
        let expect = expect.unwrap();
        assert!(
            matches_expectation(&expect, Some(&answer)),
            "{request}\nexpected {expect}\nanswered {answer}"
        );
        reads += 1;
    }
    assert_eq!(reads, 6);
}

/// A notebook of one code cell (`x = {n}`, `print(x)`, its output `{n}`) written as JSON of 8 lines.
fn one_cell_notebook(n: u32) -> Vec<u8> {
    format!(
        "{{\n \"nbformat\": 4,\n \"nbformat_minor\": 5,\n \"metadata\": {{}},\n \"cells\": [\n  {{\"cell_type\": \"code\", \"execution_count\": 1, \"metadata\": {{}}, \"source\": \"x = {n}\\nprint(x)\", \"outputs\": [{{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"{n}\\n\"]}}]}}\n ]\n}}\n"
    )
    .into_bytes()
}

#[test]
fn a_notebooks_text_and_its_json_are_two_views_each_compared_with_itself() {
    let (dir, mut fs, mut reader) = session(&[("nb.ipynb", one_cell_notebook(1))]);
    let mut read = |reader: &mut Reader, extract: Option<bool>| {
        let request = ReadRequest {
            path: "nb.ipynb".to_string(),
            limit: Some(3),
            extract,
            ..ReadRequest::default()
        };
        reader.read(&mut fs, &request, 0).unwrap()
    };
    let window = |outcome: ReadOutcome| match outcome {
        ReadOutcome::Window(result) => (result.window.content, result.warnings),
        other => panic!("expected a window, got {other:?}"),
    };
    let stub = |outcome: ReadOutcome| match outcome {
        ReadOutcome::Unchanged(stub) => stub.message,
        other => panic!("expected a stub, got {other:?}"),
    };
    let text = "1|# [cell 1] code (execution 1)\n2|x = 1\n3|print(x)\n";
    let json = "1|{\n2| \"nbformat\": 4,\n3| \"nbformat_minor\": 5,\n";
    // Back and forth between the views of the untouched file: no notice, and each repeat is a stub of its view.
    assert_eq!(window(read(&mut reader, None)), (text.to_string(), vec![]));
    assert_eq!(
        window(read(&mut reader, Some(false))),
        (json.to_string(), vec![])
    );
    let unchanged = |total: u64| {
        format!("[read-window: unchanged] Lines 1-3 of {total} in /w/nb.ipynb have not changed since you read them earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true). Use offset=4 to continue.")
    };
    assert_eq!(stub(read(&mut reader, None)), unchanged(5));
    assert_eq!(stub(read(&mut reader, Some(false))), unchanged(8));
    // Each view keeps its own index.
    assert_eq!(
        reader
            .stats(&mut NativeFileSystem::mount(&[]))
            .indexed_files,
        2
    );
    // A real change is told once in each view, in that view's lines.
    std::fs::write(dir.path().join("nb.ipynb"), one_cell_notebook(2)).unwrap();
    let changed = |from: &str, total: u64, unchanged: &str| {
        format!("[read-window: file changed] /w/nb.ipynb changed since your previous read of it in this session: the first changed line is {from} (it now has {total} lines); {unchanged}. Windows of it you read earlier are stale from line {from} on: their line numbers and content may no longer match the file.")
    };
    assert_eq!(
        window(read(&mut reader, None)),
        (
            text.replace("x = 1", "x = 2"),
            vec![changed("2", 5, "line 1 is unchanged")]
        )
    );
    assert_eq!(
        stub(read(&mut reader, Some(false))),
        format!(
            "{} {}",
            unchanged(8),
            changed("6", 8, "lines 1-5 are unchanged")
        )
    );
    assert_eq!(stub(read(&mut reader, None)), unchanged(5));
    assert_eq!(stub(read(&mut reader, Some(false))), unchanged(8));
}

#[test]
fn the_hint_names_each_kinds_marker_line_as_the_text_writes_it() {
    let pdf = super::fixtures::pdf(&[
        super::fixtures::PdfPage::Text(vec!["One".to_string()]),
        super::fixtures::PdfPage::Text(vec!["Two".to_string()]),
    ]);
    for (bytes, name) in [
        (pdf, "a.pdf"),
        (samples::pptx(), "deck.pptx"),
        (samples::odp(), "deck.odp"),
        (super::fixtures::xlsx_two_sheets(), "book.xlsx"),
        (samples::ipynb(), "analysis.ipynb"),
        (samples::epub(), "book.epub"),
    ] {
        let document = extracted(&bytes, name);
        let lines: Vec<&str> = document.text.lines().collect();
        assert!(!document.parts.is_empty(), "{name}");
        for part in &document.parts {
            let (shape, whole) = super::facts::marker_shape(part.kind, document.parts.len());
            let shape = shape.replace('N', &part.number.to_string());
            let line = lines[part.first_line as usize - 1];
            assert!(
                if whole {
                    line == shape
                } else {
                    line.starts_with(&shape)
                },
                "{name}: {line:?} is not {shape:?}"
            );
        }
    }
    // A notebook of 40 cells: the hint says how a cell's marker line starts.
    let cells: Vec<serde_json::Value> = (1..=40)
        .map(|n| serde_json::json!({"cell_type": "code", "execution_count": n, "metadata": {}, "source": format!("x = {n}"), "outputs": []}))
        .collect();
    let notebook =
        serde_json::json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells});
    let document = extracted(notebook.to_string().as_bytes(), "many.ipynb");
    let clause = DocumentFacts::of(&document, "/w/many.ipynb").hint_clause(1, 2, 100);
    assert!(
        clause.ends_with(" (each cell opens with its marker line, which starts # [cell N])."),
        "{clause}"
    );
}

#[test]
fn a_plain_zip_over_the_entry_cap_is_an_archive_not_a_document() {
    // A `.jar` of 10,001 entries (over the cap of 10,000 entries for documents): an archive to list.
    let names: Vec<String> = (0..=10_000).map(|n| format!("pkg/C{n}.class")).collect();
    let parts: Vec<(&str, &[u8])> = names
        .iter()
        .map(|name| (name.as_str(), &b"x"[..]))
        .collect();
    let (_dir, mut fs, mut reader) = session(&[("lib.jar", super::fixtures::zip_parts(&parts))]);
    let request = ReadRequest {
        path: "lib.jar".to_string(),
        ..ReadRequest::default()
    };
    let error = reader.read(&mut fs, &request, 0).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Binary);
    assert!(error.message.contains("unzip -l"), "{}", error.message);
}
