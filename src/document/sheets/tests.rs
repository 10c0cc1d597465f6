//! Tests of the spreadsheet extraction: sheet markers and rows, cell values and escapes, hidden and empty sheets,
//! the caps on grids and text, and the errors of files that are no workbook.

use super::*;
use crate::document::{fixtures, DocumentPart};

fn extract(bytes: &[u8], format: DocumentFormat) -> Result<ExtractedDocument, DocumentError> {
    extract_sheets(bytes, format, &ExtractionLimits::default())
}

fn sheet(number: u32, name: &str, first_line: u64, characters: u64) -> DocumentPart {
    DocumentPart {
        kind: PartKind::Sheet,
        number,
        name: Some(name.to_string()),
        first_line,
        characters,
        not_extracted: false,
    }
}

#[test]
fn xlsx_sheets_become_numbered_rows_with_dates_and_formulas() {
    let doc =
        extract(&fixtures::xlsx_two_sheets(), DocumentFormat::Xlsx).expect("the fixture reads");
    assert_eq!(doc.format, DocumentFormat::Xlsx);
    assert_eq!(
        doc.text,
        "=== sheet 1 of 2: Data (A1:C5) ===\n\
         1\tName\tAmount\tDate\n\
         2\talpha\t1\t2024-03-15\n\
         3\tbeta\t2.5\n\
         5\ttotal\t=SUM(B2:B3) → 3.5\n\
         === sheet 2 of 2: Notes (B2:C17) ===\n\
         2\t\tsee B17\n\
         17\t\tfound\ttab\\there\n"
    );
    assert_eq!(
        doc.parts,
        vec![sheet(1, "Data", 1, 73), sheet(2, "Notes", 6, 29)]
    );
}

#[test]
fn b17_is_the_second_field_after_row_number_17() {
    let doc =
        extract(&fixtures::xlsx_two_sheets(), DocumentFormat::Xlsx).expect("the fixture reads");
    let row = doc
        .text
        .lines()
        .find(|l| l.starts_with("17\t"))
        .expect("row 17 is there");
    assert_eq!(row.split('\t').nth(2), Some("found"));
}

#[test]
fn ods_sheet_has_iso_date_and_formula() {
    let doc = extract(&fixtures::ods_one_sheet(), DocumentFormat::Ods).expect("the fixture reads");
    assert_eq!(
        doc.text,
        "=== sheet 1 of 1: Budget (A1:C3) ===\n\
         1\titem\tcost\twhen\n\
         2\trent\t1200\t2024-03-15\n\
         3\tsum\t=SUM([.B2:.B2]) → 1200\n"
    );
    assert_eq!(doc.parts, vec![sheet(1, "Budget", 1, 66)]);
}

/// A row of `cells` non-empty cells (`x` strings) repeated `rows` times, then the trailing empty rows and
/// cells LibreOffice writes to fill the sheet.
fn ods_repeated(rows: u64, cells: u64) -> Vec<u8> {
    fixtures::ods(&format!(
        r#"<table:table table:name="Big">
<table:table-row table:number-rows-repeated="{rows}"><table:table-cell table:number-columns-repeated="{cells}" office:value-type="string"><text:p>x</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1000"/></table:table-row>
<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>
</table:table>"#
    ))
}

#[test]
fn ods_repeats_that_expand_past_the_cap_are_too_large_before_calamine() {
    let bytes = ods_repeated(1_000_000, 16_384);
    assert!(bytes.len() < 2_000, "a tiny file: {} bytes", bytes.len());
    let err = extract(&bytes, DocumentFormat::Ods).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::TooLarge);
    assert_eq!(
        err.message,
        "the .ods sheet `Big` repeats its rows and cells to 1000000 rows by 16384 columns \
         (16384016384 cells to hold), over the cap of 1500000 cells"
    );
}

#[test]
fn ods_repeats_under_the_cap_are_expanded_and_trailing_empty_repeats_cost_nothing() {
    let doc = extract(&ods_repeated(3, 2), DocumentFormat::Ods).expect("reads");
    assert_eq!(
        doc.text,
        "=== sheet 1 of 1: Big (A1:B3) ===\n1\tx\tx\n2\tx\tx\n3\tx\tx\n"
    );
    // At the cap: the row element's 2 cells as read, plus 749,999 rows × 2 columns expanded, is 1,500,000.
    let rows = (MAX_ODS_GRID_CELLS - 2) / 2;
    assert!(check_ods_grid(&ods_repeated(rows, 2), &ExtractionLimits::default()).is_ok());
    let err = check_ods_grid(&ods_repeated(rows + 1, 2), &ExtractionLimits::default()).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::TooLarge);
}

#[test]
fn hidden_sheets_are_marked_and_escapes_stay_unambiguous() {
    // The fixture writes the name into `<sheet name="...">`: the second sheet carries `state="hidden"`.
    let bytes = fixtures::xlsx(&[
        (
            "Shown",
            r#"<row r="1"><c r="A1" t="inlineStr"><is><t>C:\new\data</t></is></c><c r="B1" t="inlineStr"><is><t>a\b</t></is></c></row>"#,
        ),
        (
            r#"Secret" state="hidden"#,
            r#"<row r="1"><c r="A1"><f>1+1</f><v></v></c></row>"#,
        ),
    ]);
    let doc = extract(&bytes, DocumentFormat::Xlsx).expect("reads");
    assert_eq!(
        doc.text,
        "=== sheet 1 of 2: Shown (A1:B1) ===\n1\tC:\\\\new\\data\ta\\b\n=== sheet 2 of 2: Secret (A1) (hidden) ===\n1\t=1+1\n"
    );
}

#[test]
fn sparse_corners_cost_two_cells_not_a_grid() {
    let bytes = fixtures::xlsx(&[(
        "Wide",
        r#"<row r="1"><c r="A1"><v>1</v></c></row><row r="1048576"><c r="XFD1048576"><v>2</v></c></row>"#,
    )]);
    let doc = extract(&bytes, DocumentFormat::Xlsx).expect("the sparse sheet reads");
    let lines: Vec<&str> = doc.text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], "=== sheet 1 of 1: Wide (A1:XFD1048576) ===");
    assert_eq!(lines[1], "1\t1");
    // Row 1048576: its number, 16,383 empty fields (A..XFC), then XFD.
    assert_eq!(lines[2].len(), "1048576".len() + 16_384 + 1);
    assert!(lines[2].starts_with("1048576\t\t"));
    assert!(lines[2].ends_with("\t2"));
}

#[test]
fn empty_sheet_says_empty_and_has_no_rows() {
    let bytes = fixtures::xlsx(&[
        ("Blank", ""),
        ("One", r#"<row r="3"><c r="C3"><v>7</v></c></row>"#),
    ]);
    let doc = extract(&bytes, DocumentFormat::Xlsx).expect("reads");
    assert_eq!(
        doc.text,
        "=== sheet 1 of 2: Blank (empty) ===\n=== sheet 2 of 2: One (C3) ===\n3\t\t\t7\n"
    );
    assert_eq!(
        doc.parts,
        vec![sheet(1, "Blank", 1, 0), sheet(2, "One", 2, 5)]
    );
}

#[test]
fn cell_line_breaks_are_escaped_so_a_row_stays_one_line() {
    let bytes = fixtures::xlsx(&[(
        "S",
        "<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>two\nlines</t></is></c><c r=\"B1\" t=\"b\"><v>1</v></c><c r=\"C1\" t=\"e\"><v>#DIV/0!</v></c></row>",
    )]);
    let doc = extract(&bytes, DocumentFormat::Xlsx).expect("reads");
    assert_eq!(
        doc.text,
        "=== sheet 1 of 1: S (A1:C1) ===\n1\ttwo\\nlines\tTRUE\t#DIV/0!\n"
    );
}

#[test]
fn input_over_the_cap_is_too_large_before_reading() {
    let limits = ExtractionLimits {
        max_input_bytes: 100,
        ..ExtractionLimits::default()
    };
    let err =
        extract_sheets(&fixtures::xlsx_two_sheets(), DocumentFormat::Xlsx, &limits).unwrap_err();
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
        max_total_uncompressed: 10_000,
        ..ExtractionLimits::default()
    };
    let bytes = fixtures::xlsx(&[(
        "Wide",
        r#"<row r="1"><c r="A1"><v>1</v></c><c r="XFD1"><v>2</v></c></row>"#,
    )]);
    let err = extract_sheets(&bytes, DocumentFormat::Xlsx, &limits).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::TooLarge);
    assert_eq!(
        err.message,
        "the spreadsheet's text passes the cap of 10000 bytes (at sheet 1, `Wide`)"
    );
}

#[test]
fn text_that_is_not_a_zip_is_malformed() {
    let err = extract(b"Name,Amount\nalpha,1\n", DocumentFormat::Xlsx).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::Malformed);
    let err = extract(b"Name,Amount\nalpha,1\n", DocumentFormat::Ods).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::Malformed);
    let err = extract(b"Name,Amount\nalpha,1\n", DocumentFormat::Xls).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::Malformed);
    assert!(
        err.message
            .starts_with("the .xls is not a readable OLE compound file: "),
        "{}",
        err.message
    );
}

#[test]
fn zip_without_a_workbook_is_malformed() {
    let bytes = fixtures::zip_parts(&[("word/document.xml", b"<w:document/>")]);
    let err = extract(&bytes, DocumentFormat::Xlsx).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::Malformed);
    assert!(
        err.message
            .starts_with("the .xlsx workbook cannot be read: "),
        "{}",
        err.message
    );
    let err = extract(&bytes, DocumentFormat::Ods).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::Malformed);
    assert!(
        err.message
            .starts_with("the .ods spreadsheet cannot be read: "),
        "{}",
        err.message
    );
}

#[test]
fn a_format_that_is_no_spreadsheet_is_unsupported() {
    let err = extract(&fixtures::xlsx_two_sheets(), DocumentFormat::Docx).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::Unsupported);
    assert_eq!(err.message, "`Docx` is not a spreadsheet format");
}

#[test]
fn encrypted_ods_is_encrypted() {
    let manifest = br#"<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"><manifest:encryption-data manifest:checksum-type="SHA1"/></manifest:file-entry>
</manifest:manifest>"#;
    let bytes = fixtures::zip_parts(&[
        (
            "mimetype",
            b"application/vnd.oasis.opendocument.spreadsheet",
        ),
        ("META-INF/manifest.xml", manifest),
        ("content.xml", b"\x01\x02\x03 not xml"),
    ]);
    let err = extract(&bytes, DocumentFormat::Ods).unwrap_err();
    assert_eq!(err.kind, DocumentErrorKind::Encrypted);
}

#[test]
fn column_names_run_a_to_xfd() {
    assert_eq!(column_name(0), "A");
    assert_eq!(column_name(25), "Z");
    assert_eq!(column_name(26), "AA");
    assert_eq!(column_name(701), "ZZ");
    assert_eq!(column_name(702), "AAA");
    assert_eq!(column_name(16_383), "XFD");
}

#[test]
fn values_format_as_a_spreadsheet_shows_them() {
    use calamine::{ExcelDateTime, ExcelDateTimeType};
    let date = |v: f64| Data::DateTime(ExcelDateTime::new(v, ExcelDateTimeType::DateTime, false));
    assert_eq!(format_value(&date(45366.0)), "2024-03-15");
    assert_eq!(format_value(&date(45366.5)), "2024-03-15T12:00:00");
    assert_eq!(format_value(&date(0.25)), "06:00:00");
    let duration = Data::DateTime(ExcelDateTime::new(1.5, ExcelDateTimeType::TimeDelta, false));
    assert_eq!(format_value(&duration), "PT36H0M0S");
    assert_eq!(format_value(&Data::Float(6.0)), "6");
    assert_eq!(format_value(&Data::Float(0.1)), "0.1");
    assert_eq!(format_value(&Data::Float(1e20)), "100000000000000000000");
    assert_eq!(format_value(&Data::Int(-3)), "-3");
    assert_eq!(format_value(&Data::Bool(false)), "FALSE");
    assert_eq!(
        format_value(&Data::DateTimeIso("2024-03-15".into())),
        "2024-03-15"
    );
}
