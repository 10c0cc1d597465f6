//! Document fixtures built in code, for the native tests here and the component tests of the host (no binary blobs
//! are committed): spreadsheets written as zip parts, PDFs written with lopdf.
//!
//! Not part of the reading API: hidden from the docs, and dropped from the component by the linker (nothing
//! exported calls them).

use std::io::{Cursor, Write};

use lopdf::content::{Content, Operation};
use lopdf::encryption::{EncryptionState, EncryptionVersion, Permissions};
use lopdf::{dictionary, Document, Object, Stream};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// Writes `parts` (name, bytes) into a zip, in order, the first stored and the others deflated.
///
/// Errors: none in practice (writing to memory); a failure yields the zip written so far.
pub fn zip_parts(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (index, (name, bytes)) in parts.iter().enumerate() {
        let method = if index == 0 {
            CompressionMethod::Stored
        } else {
            CompressionMethod::Deflated
        };
        let options = SimpleFileOptions::default().compression_method(method);
        if writer.start_file(*name, options).is_err() || writer.write_all(bytes).is_err() {
            break;
        }
    }
    match writer.finish() {
        Ok(cursor) => cursor.into_inner(),
        Err(_) => Vec::new(),
    }
}

/// An `.xlsx` with two sheets. `Data` (A1:C5): a header row, `alpha 1 2024-03-15` (the date a serial styled with
/// the built-in date format 14), `beta 2.5`, an empty row 4, and `total =SUM(B2:B3)` cached as 3.5. `Notes`
/// (B2:C17): `see B17` in B2, `found` in B17 and `tab<TAB>here` in C17.
pub fn xlsx_two_sheets() -> Vec<u8> {
    xlsx(&[
        (
            "Data",
            r#"<row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1" t="inlineStr"><is><t>Amount</t></is></c><c r="C1" t="inlineStr"><is><t>Date</t></is></c></row>
<row r="2"><c r="A2" t="inlineStr"><is><t>alpha</t></is></c><c r="B2"><v>1</v></c><c r="C2" s="1"><v>45366</v></c></row>
<row r="3"><c r="A3" t="inlineStr"><is><t>beta</t></is></c><c r="B3"><v>2.5</v></c></row>
<row r="5"><c r="A5" t="inlineStr"><is><t>total</t></is></c><c r="B5"><f>SUM(B2:B3)</f><v>3.5</v></c></row>"#,
        ),
        (
            "Notes",
            "<row r=\"2\"><c r=\"B2\" t=\"inlineStr\"><is><t>see B17</t></is></c></row>
<row r=\"17\"><c r=\"B17\" t=\"inlineStr\"><is><t>found</t></is></c><c r=\"C17\" t=\"inlineStr\"><is><t>tab\there</t></is></c></row>",
        ),
    ])
}

/// An `.xlsx` of `sheets` (name, the XML rows inside `<sheetData>`), in order. Style 1 is the built-in date
/// format 14 (`s="1"` makes a serial a date).
pub fn xlsx(sheets: &[(&str, &str)]) -> Vec<u8> {
    let mut overrides = String::new();
    let mut entries = String::new();
    let mut rels = String::new();
    let mut parts: Vec<(String, String)> = Vec::new();
    for (index, (name, rows)) in sheets.iter().enumerate() {
        let n = index + 1;
        overrides.push_str(&format!(
            r#"<Override PartName="/xl/worksheets/sheet{n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>"#
        ));
        entries.push_str(&format!(
            r#"<sheet name="{name}" sheetId="{n}" r:id="rId{n}"/>"#
        ));
        rels.push_str(&format!(
            r#"<Relationship Id="rId{n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{n}.xml"/>"#
        ));
        parts.push((
            format!("xl/worksheets/sheet{n}.xml"),
            format!(
                r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>
{rows}
</sheetData></worksheet>"#
            ),
        ));
    }
    let styles_id = sheets.len() + 1;
    let content_types = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>
{overrides}
</Types>"#
    );
    let root_rels = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>
</Relationships>"#;
    let workbook = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<sheets>{entries}</sheets>
</workbook>"#
    );
    let workbook_rels = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
{rels}<Relationship Id="rId{styles_id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
</Relationships>"#
    );
    let styles = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs>
</styleSheet>"#;
    let mut all: Vec<(&str, &[u8])> = vec![
        ("[Content_Types].xml", content_types.as_bytes()),
        ("_rels/.rels", root_rels.as_bytes()),
        ("xl/workbook.xml", workbook.as_bytes()),
        ("xl/_rels/workbook.xml.rels", workbook_rels.as_bytes()),
        ("xl/styles.xml", styles.as_bytes()),
    ];
    for (name, xml) in &parts {
        all.push((name.as_str(), xml.as_bytes()));
    }
    zip_parts(&all)
}

/// An `.ods` with one sheet `Budget` (A1:C3): row 1 `item cost when`, row 2 `rent 1200 2024-03-15` (a date
/// cell), row 3 `sum` and the formula `of:=SUM([.B2:.B2])` cached as 1200.
pub fn ods_one_sheet() -> Vec<u8> {
    ods(r#"<table:table table:name="Budget">
<table:table-row><table:table-cell office:value-type="string"><text:p>item</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>cost</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>when</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell office:value-type="string"><text:p>rent</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="1200"><text:p>1200</text:p></table:table-cell><table:table-cell office:value-type="date" office:date-value="2024-03-15"><text:p>03/15/24</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell office:value-type="string"><text:p>sum</text:p></table:table-cell><table:table-cell table:formula="of:=SUM([.B2:.B2])" office:value-type="float" office:value="1200"><text:p>1200</text:p></table:table-cell></table:table-row>
</table:table>"#)
}

/// An `.ods` whose spreadsheet body is `tables` (`<table:table>` elements, with the `office`, `table`, `text` and
/// `of` namespaces declared).
pub fn ods(tables: &str) -> Vec<u8> {
    let manifest = br#"<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>"#;
    let content = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.2">
<office:body><office:spreadsheet>
{tables}
</office:spreadsheet></office:body>
</office:document-content>"#
    );
    zip_parts(&[
        (
            "mimetype",
            b"application/vnd.oasis.opendocument.spreadsheet",
        ),
        ("META-INF/manifest.xml", manifest),
        ("content.xml", content.as_bytes()),
    ])
}

/// What one page of a generated PDF carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdfPage {
    /// Lines of text in Helvetica, one under the other.
    Text(Vec<String>),
    /// Only an image (a 2×2 grey bitmap drawn over most of the page): no text layer.
    Image,
}

/// A PDF of `pages` (US Letter, Helvetica with WinAnsiEncoding), written with lopdf. Text must be ASCII without
/// backslashes or parentheses.
pub fn pdf(pages: &[PdfPage]) -> Vec<u8> {
    save(pdf_document(pages))
}

/// `doc` written out (empty when lopdf cannot write it).
pub fn save(mut doc: Document) -> Vec<u8> {
    let mut out = Vec::new();
    if doc.save_to(&mut out).is_err() {
        return Vec::new();
    }
    out
}

/// The lopdf document [`pdf`] writes, for tests that alter it before saving: `Pages` holds the shared
/// `Resources` (`F1` Helvetica, `Im1` the image) and the `MediaBox`; each page has one content stream.
pub fn pdf_document(pages: &[PdfPage]) -> Document {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let image_id = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject",
            "Subtype" => "Image",
            "Width" => 2,
            "Height" => 2,
            "ColorSpace" => "DeviceGray",
            "BitsPerComponent" => 8,
        },
        vec![0x40, 0x80, 0xC0, 0xFF],
    ));
    let resources_id = doc.add_object(dictionary! {
        "Font" => dictionary! { "F1" => font_id },
        "XObject" => dictionary! { "Im1" => image_id },
    });
    let mut kids = Vec::with_capacity(pages.len());
    for page in pages {
        let operations = match page {
            PdfPage::Text(lines) => {
                let mut ops = vec![
                    Operation::new("BT", vec![]),
                    Operation::new("Tf", vec!["F1".into(), 12.into()]),
                    Operation::new("Td", vec![72.into(), 720.into()]),
                ];
                for (index, line) in lines.iter().enumerate() {
                    if index > 0 {
                        ops.push(Operation::new("Td", vec![0.into(), (-16).into()]));
                    }
                    ops.push(Operation::new(
                        "Tj",
                        vec![Object::string_literal(line.as_str())],
                    ));
                }
                ops.push(Operation::new("ET", vec![]));
                ops
            }
            PdfPage::Image => vec![
                Operation::new("q", vec![]),
                Operation::new(
                    "cm",
                    vec![
                        468.into(),
                        0.into(),
                        0.into(),
                        648.into(),
                        72.into(),
                        72.into(),
                    ],
                ),
                Operation::new("Do", vec!["Im1".into()]),
                Operation::new("Q", vec![]),
            ],
        };
        let content = Content { operations }.encode().unwrap_or_default();
        let content_id = doc.add_object(Stream::new(dictionary! {}, content));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
        });
        kids.push(Object::Reference(page_id));
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => count,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! {
        "Type" => "Catalog",
        "Pages" => pages_id,
    });
    doc.trailer.set("Root", catalog_id);
    doc.trailer.set(
        "ID",
        vec![
            Object::string_literal("read-window-fixture-id"),
            Object::string_literal("read-window-fixture-id"),
        ],
    );
    doc
}

/// A 3-page text PDF: page N carries `Page N heading` and `Body text of page N.`.
pub fn pdf_three_pages() -> Vec<u8> {
    let pages: Vec<PdfPage> = (1..=3)
        .map(|n| {
            PdfPage::Text(vec![
                format!("Page {n} heading"),
                format!("Body text of page {n}."),
            ])
        })
        .collect();
    pdf(&pages)
}

/// A 12-page PDF whose pages 4-9 carry only an image; the others `Page N heading` and `Body text of page N.`.
pub fn pdf_scanned_middle() -> Vec<u8> {
    let pages: Vec<PdfPage> = (1..=12)
        .map(|n| {
            if (4..=9).contains(&n) {
                PdfPage::Image
            } else {
                PdfPage::Text(vec![
                    format!("Page {n} heading"),
                    format!("Body text of page {n}."),
                ])
            }
        })
        .collect();
    pdf(&pages)
}

/// A 1-page text PDF encrypted (RC4, 128-bit key) with the user password `secret`.
pub fn pdf_encrypted() -> Vec<u8> {
    let mut doc = pdf_document(&[PdfPage::Text(vec!["Secret page".to_string()])]);
    let version = EncryptionVersion::V2 {
        document: &doc,
        owner_password: "owner",
        user_password: "secret",
        key_length: 128,
        permissions: Permissions::all(),
    };
    let Ok(state) = EncryptionState::try_from(version) else {
        return Vec::new();
    };
    if doc.encrypt(&state).is_err() {
        return Vec::new();
    }
    save(doc)
}
