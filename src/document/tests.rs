//! Native tests of the extractors (text formats and bad containers), and the dump of their samples.

use super::samples;
use super::*;

pub(super) fn extracted(bytes: &[u8], name: &str) -> ExtractedDocument {
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
pub(super) fn docx_of(body: &str, parts: &[(&str, &str)]) -> Vec<u8> {
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
