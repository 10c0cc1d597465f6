//! OLE fixtures (a BIFF8 `.xls`, an encrypted `.xlsx`) written with the `cfb` crate (a dev-dependency).

use super::*;
use std::io::Write;

/// One BIFF record: type, length, data.
fn record(out: &mut Vec<u8>, typ: u16, data: &[u8]) {
    out.extend_from_slice(&typ.to_le_bytes());
    out.extend_from_slice(&(data.len() as u16).to_le_bytes());
    out.extend_from_slice(data);
}

fn bof(kind: u16) -> Vec<u8> {
    let mut d = Vec::new();
    d.extend_from_slice(&0x0600u16.to_le_bytes());
    d.extend_from_slice(&kind.to_le_bytes());
    d.extend_from_slice(&[0; 12]);
    d
}

fn cell_head(row: u16, col: u16, xf: u16) -> Vec<u8> {
    [row.to_le_bytes(), col.to_le_bytes(), xf.to_le_bytes()].concat()
}

/// A compound file holding `streams` (name, bytes).
pub(super) fn compound(streams: &[(&str, &[u8])]) -> Vec<u8> {
    let mut file =
        cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).expect("cfb creates in memory");
    for (name, bytes) in streams {
        let mut stream = file.create_stream(format!("/{name}")).expect("cfb stream");
        stream.write_all(bytes).expect("cfb writes");
    }
    file.flush().expect("cfb flushes");
    file.into_inner().into_inner()
}

/// A BIFF8 workbook with one sheet `Legacy`: `name` / `qty` in row 1, `bolt` / 12 in row 2, a date (serial
/// 45366, XF 1 = format 14) in A4, and `=SUM($B$2:$B$2)` cached as 12 in B5.
fn xls_one_sheet() -> Vec<u8> {
    xls(&legacy_sheet(), 0)
}

/// The records of the `Legacy` sheet of [`xls_one_sheet`], BOF to EOF.
fn legacy_sheet() -> Vec<u8> {
    let mut sheet = Vec::new();
    record(&mut sheet, 0x0809, &bof(0x0010));
    let label = |row: u16, col: u16, text: &str| {
        let mut d = cell_head(row, col, 0);
        d.extend_from_slice(&(text.len() as u16).to_le_bytes());
        d.push(0);
        d.extend_from_slice(text.as_bytes());
        d
    };
    let number = |row: u16, col: u16, xf: u16, value: f64| {
        let mut d = cell_head(row, col, xf);
        d.extend_from_slice(&value.to_le_bytes());
        d
    };
    record(&mut sheet, 0x0204, &label(0, 0, "name"));
    record(&mut sheet, 0x0204, &label(0, 1, "qty"));
    record(&mut sheet, 0x0204, &label(1, 0, "bolt"));
    record(&mut sheet, 0x0203, &number(1, 1, 0, 12.0));
    record(&mut sheet, 0x0203, &number(3, 0, 1, 45366.0));
    // FORMULA: cached 12, then SUM over the absolute area $B$2:$B$2 (tAreaR, tFuncVar of 1 argument, function 4).
    let mut formula = number(4, 1, 0, 12.0);
    formula.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    let rgce: Vec<u8> = [
        vec![0x25],
        1u16.to_le_bytes().to_vec(),
        1u16.to_le_bytes().to_vec(),
        1u16.to_le_bytes().to_vec(),
        1u16.to_le_bytes().to_vec(),
        vec![0x22, 1],
        4u16.to_le_bytes().to_vec(),
    ]
    .concat();
    formula.extend_from_slice(&(rgce.len() as u16).to_le_bytes());
    formula.extend_from_slice(&rgce);
    record(&mut sheet, 0x0006, &formula);
    record(&mut sheet, 0x000A, &[]);
    sheet
}

/// A BIFF8 workbook of one sheet `Legacy` whose records are `sheet`; its BoundSheet position is off by `shift`.
fn xls(sheet: &[u8], shift: u32) -> Vec<u8> {
    let xf = |format: u16| {
        let mut d = vec![0u8; 20];
        d[2..4].copy_from_slice(&format.to_le_bytes());
        d
    };
    let name = b"Legacy";
    // The BoundSheet record: a 4-byte header, then position (4), state and type (2), length and flags (2), name.
    let boundsheet_len = 4 + 4 + 2 + 2 + name.len();
    let mut globals = Vec::new();
    record(&mut globals, 0x0809, &bof(0x0005));
    record(&mut globals, 0x00E0, &xf(0));
    record(&mut globals, 0x00E0, &xf(14));
    let sheet_pos = (globals.len() + boundsheet_len + 4) as u32;
    let mut boundsheet = (sheet_pos + shift).to_le_bytes().to_vec();
    boundsheet.extend_from_slice(&[0, 0, name.len() as u8, 0]);
    boundsheet.extend_from_slice(name);
    record(&mut globals, 0x0085, &boundsheet);
    record(&mut globals, 0x000A, &[]);
    assert_eq!(globals.len() as u32, sheet_pos);
    globals.extend_from_slice(sheet);
    // Under 4096 bytes the stream lives in the mini stream, which calamine's compound-file reader requires.
    compound(&[("Workbook", &globals)])
}

#[test]
fn xls_sheet_reads_like_xlsx() {
    let doc = extract_sheets(
        &xls_one_sheet(),
        DocumentFormat::Xls,
        &ExtractionLimits::default(),
    )
    .expect("the fixture reads");
    assert_eq!(
        doc.text,
        "=== sheet 1 of 1: Legacy (A1:B5) ===\n\
         1\tname\tqty\n\
         2\tbolt\t12\n\
         4\t2024-03-15\n\
         5\t\t=SUM($B$2:$B$2) → 12\n"
    );
}

fn xls_error(bytes: &[u8]) -> DocumentError {
    extract_sheets(bytes, DocumentFormat::Xls, &ExtractionLimits::default()).unwrap_err()
}

/// A sheet of BOF, one `extra` record, and EOF.
fn sheet_with(typ: u16, data: &[u8]) -> Vec<u8> {
    let mut sheet = Vec::new();
    record(&mut sheet, 0x0809, &bof(0x0010));
    record(&mut sheet, typ, data);
    record(&mut sheet, 0x000A, &[]);
    sheet
}

fn dimensions(first_row: u32, end_row: u32, first_col: u16, end_col: u16) -> Vec<u8> {
    [
        first_row.to_le_bytes().to_vec(),
        end_row.to_le_bytes().to_vec(),
        first_col.to_le_bytes().to_vec(),
        end_col.to_le_bytes().to_vec(),
        vec![0, 0],
    ]
    .concat()
}

#[test]
fn xls_dimensions_that_end_before_they_start_are_malformed() {
    let err = xls_error(&xls(&sheet_with(0x0200, &dimensions(10, 5, 0, 3)), 0));
    assert_eq!(err.kind, DocumentErrorKind::Malformed);
    assert_eq!(
        err.message,
        "the .xls has a sheet whose DIMENSIONS end before they start"
    );
}

#[test]
fn xls_dimensions_over_the_grid_cap_are_too_large() {
    let err = xls_error(&xls(&sheet_with(0x0200, &dimensions(0, 65_536, 0, 256)), 0));
    assert_eq!(err.kind, DocumentErrorKind::TooLarge);
    assert_eq!(
        err.message,
        "the .xls has a sheet spanning 16777216 cells, over the cap of 2000000 cells"
    );
}

#[test]
fn xls_cells_at_far_corners_are_too_large() {
    let mut sheet = Vec::new();
    record(&mut sheet, 0x0809, &bof(0x0010));
    record(
        &mut sheet,
        0x0203,
        &[cell_head(0, 0, 0), 1f64.to_le_bytes().to_vec()].concat(),
    );
    record(
        &mut sheet,
        0x0203,
        &[cell_head(65_535, 255, 0), 2f64.to_le_bytes().to_vec()].concat(),
    );
    record(&mut sheet, 0x000A, &[]);
    let err = xls_error(&xls(&sheet, 0));
    assert_eq!(err.kind, DocumentErrorKind::TooLarge);
}

#[test]
fn xls_sheet_past_the_stream_end_is_malformed() {
    let err = xls_error(&xls(&legacy_sheet(), 100_000));
    assert_eq!(err.kind, DocumentErrorKind::Malformed);
    assert_eq!(
        err.message,
        "the .xls has a sheet that starts past the end of its Workbook stream"
    );
}

#[test]
fn ole_file_without_a_workbook_is_malformed() {
    let err = xls_error(&compound(&[("WordDocument", &[0u8; 100])]));
    assert_eq!(err.kind, DocumentErrorKind::Malformed);
    assert_eq!(
        err.message,
        "the OLE compound file holds no Workbook stream: it is no .xls workbook"
    );
}

#[test]
fn encrypted_xlsx_is_encrypted_whatever_it_is_detected_as() {
    let bytes = compound(&[
        ("EncryptionInfo", &[0u8; 64]),
        ("EncryptedPackage", &[0u8; 5000]),
    ]);
    for format in [DocumentFormat::Xlsx, DocumentFormat::Xls] {
        let err = extract_sheets(&bytes, format, &ExtractionLimits::default()).unwrap_err();
        assert_eq!(err.kind, DocumentErrorKind::Encrypted, "{format:?}");
        assert_eq!(
            err.message,
            "the workbook is password-protected (encrypted); it cannot be read without its password"
        );
    }
}
