//! Spreadsheets (`.xlsx`, `.xls`, `.ods`) reduced to text through calamine.
//!
//! Each sheet opens with its marker line `=== sheet 2 of 3: Totals (A1:D17) ===` (the used range: the smallest
//! rectangle holding every non-empty cell, or `(empty)`), then one line a non-empty row: the row's 1-based number,
//! a tab, and its cells from column A separated by tabs, so the second field after the row number is column B and
//! `B17` is findable. Empty rows are skipped, the row numbers of the others kept; trailing empty cells are dropped.
//! Dates are ISO dates (`2024-03-15`, `2024-03-15T08:30:00`, a time alone `08:30:00`), durations ISO durations,
//! formulas their text and cached value (`=SUM(A1:A3) → 6`) where the format keeps both. A tab, newline or carriage
//! return inside a cell is written as `\t`, `\n`, `\r` so a row stays one line (a backslash that would read as such an
//! escape is doubled). A hidden sheet is extracted too, its marker ending in `(hidden)`.
//!
//! Memory: `.xlsx` sheets are read cell by cell (a sheet with cells at `A1` and `XFD1048576` costs two cells, not a
//! dense grid); `.xls` and `.ods` sheets come from calamine as dense ranges. The extracted text is capped at
//! `max_total_uncompressed` bytes of [`ExtractionLimits`].

use std::collections::BTreeMap;
use std::io::Cursor;

use calamine::{Data, DataType, Ods, OdsError, Reader, Xls, XlsError, Xlsx, XlsxError};

use super::{
    check_zip, DocumentError, DocumentErrorKind, DocumentFormat, ExtractedDocument,
    ExtractionLimits, PartKind, TextBuilder,
};

/// The first 8 bytes of an OLE compound file (legacy `.xls`, and an encrypted `.xlsx`).
const OLE_MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// One sheet's non-empty cells as text, keyed by 0-based (row, column).
type SheetCells = BTreeMap<(u32, u32), String>;

/// Extracts a spreadsheet into text, one part (kind `Sheet`, named by the sheet) a sheet, in workbook order.
///
/// `format` is `Xlsx`, `Xls` or `Ods`; any other is `Unsupported`. Errors: `TooLarge` when `bytes` is over
/// `limits.max_input_bytes`, when the zip container fails [`check_zip`], or when the text passes
/// `limits.max_total_uncompressed` bytes; `Encrypted` for a password-protected workbook (an encrypted `.xlsx` is an
/// OLE container holding `EncryptedPackage`); `Malformed` when calamine cannot read the workbook or a sheet.
pub fn extract_sheets(
    bytes: &[u8],
    format: DocumentFormat,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    if bytes.len() as u64 > limits.max_input_bytes {
        return Err(DocumentError {
            kind: DocumentErrorKind::TooLarge,
            message: format!(
                "the spreadsheet is {} bytes, over the cap of {} bytes",
                bytes.len(),
                limits.max_input_bytes
            ),
        });
    }
    let ole = bytes.starts_with(&OLE_MAGIC);
    let hidden: Vec<String>;
    let sheets = match format {
        DocumentFormat::Xlsx if ole => {
            // An encrypted .xlsx is an OLE container: calamine's xlsx reader names it as password-protected.
            let workbook = calamine::open_workbook_from_rs::<Xlsx<_>, _>(Cursor::new(bytes));
            return Err(match workbook {
                Err(e) => xlsx_error(e),
                Ok(_) => malformed("the .xlsx is an OLE compound file, not a zip"),
            });
        }
        DocumentFormat::Xlsx => {
            check_zip(bytes, limits)?;
            let mut workbook = calamine::open_workbook_from_rs::<Xlsx<_>, _>(Cursor::new(bytes))
                .map_err(xlsx_error)?;
            hidden = hidden_sheets(workbook.sheets_metadata());
            read_xlsx(&mut workbook)?
        }
        DocumentFormat::Xls => {
            check_xls(bytes, limits)?;
            let mut workbook = calamine::open_workbook_from_rs::<Xls<_>, _>(Cursor::new(bytes))
                .map_err(xls_error)?;
            hidden = hidden_sheets(workbook.sheets_metadata());
            read_dense(&mut workbook, xls_error)?
        }
        DocumentFormat::Ods => {
            check_zip(bytes, limits)?;
            check_ods_grid(bytes, limits)?;
            let mut workbook = calamine::open_workbook_from_rs::<Ods<_>, _>(Cursor::new(bytes))
                .map_err(ods_error)?;
            hidden = hidden_sheets(workbook.sheets_metadata());
            read_dense(&mut workbook, ods_error)?
        }
        other => {
            return Err(DocumentError {
                kind: DocumentErrorKind::Unsupported,
                message: format!("`{other:?}` is not a spreadsheet format"),
            })
        }
    };
    render(sheets, &hidden, format, limits)
}

/// The names of the sheets a workbook hides (hidden, or "very hidden" in Excel): their text is extracted all
/// the same, and their marker says `hidden`.
fn hidden_sheets(sheets: &[calamine::Sheet]) -> Vec<String> {
    sheets
        .iter()
        .filter(|sheet| sheet.visible != calamine::SheetVisible::Visible)
        .map(|sheet| sheet.name.clone())
        .collect()
}

/// Most cells the rectangle of an `.xls` sheet may span (its `DIMENSIONS` record, and the cells it holds): calamine
/// reserves and fills a dense grid of that many cells (40 bytes each), so more is `TooLarge`, not an allocation
/// failure. 2,000,000 cells is 80 MB of grid; a 65,536-row sheet of 30 columns fits.
pub const MAX_XLS_GRID_CELLS: u64 = 2_000_000;

/// BIFF record types whose data starts with a cell's 0-based row and column (`u16` each).
const XLS_CELL_RECORDS: [u16; 9] = [
    0x0006, // Formula
    0x0201, // Blank
    0x0203, // Number
    0x0204, // Label
    0x0205, // BoolErr
    0x027E, // Rk
    0x00FD, // LabelSst
    0x00BD, // MulRk (last column in its last 2 bytes)
    0x00BE, // MulBlank
];

/// Checks an `.xls` before calamine reads it, for what calamine's `.xls` reader indexes or allocates without
/// checking: the compound file opens and holds a `Workbook` (or `Book`) stream and no `EncryptedPackage`; every
/// `BoundSheet` record is whole and points inside the stream; every sheet's `DIMENSIONS` has its last row and column
/// at or after its first, and neither it nor the cells present span more than [`MAX_XLS_GRID_CELLS`].
///
/// Errors: `Encrypted` for an encrypted workbook (an encrypted `.xlsx` is such an OLE file); `Malformed` naming
/// the broken structure; `TooLarge` naming the cap.
fn check_xls(bytes: &[u8], limits: &ExtractionLimits) -> Result<(), DocumentError> {
    use std::io::Read;
    let mut file = cfb::CompoundFile::open(Cursor::new(bytes))
        .map_err(|e| malformed(format!("the .xls is not a readable OLE compound file: {e}")))?;
    if file.is_stream("/EncryptedPackage") {
        return Err(encrypted());
    }
    let name = ["/Workbook", "/Book", "/WORKBOOK", "/BOOK"]
        .into_iter()
        .find(|name| file.is_stream(name))
        .ok_or_else(|| {
            malformed("the OLE compound file holds no Workbook stream: it is no .xls workbook")
        })?;
    let mut stream = Vec::new();
    file.open_stream(name)
        .and_then(|s| s.take(limits.max_input_bytes).read_to_end(&mut stream))
        .map_err(|e| malformed(format!("the .xls Workbook stream cannot be read: {e}")))?;
    let mut sheet_starts = Vec::new();
    for (typ, data) in biff_records(&stream) {
        match typ {
            0x0085 => {
                // BoundSheet8: position (4), visibility and type (2), then a short string of at least 2 bytes.
                let position = data
                    .get(..4)
                    .filter(|_| data.len() >= 8)
                    .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize)
                    .ok_or_else(|| malformed("the .xls has a truncated BoundSheet record"))?;
                if position >= stream.len() {
                    return Err(malformed(
                        "the .xls has a sheet that starts past the end of its Workbook stream",
                    ));
                }
                sheet_starts.push(position);
            }
            0x000A => break,
            _ => {}
        }
    }
    for start in sheet_starts {
        let mut bounds: Option<(u32, u32, u32, u32)> = None;
        for (typ, data) in biff_records(stream.get(start..).unwrap_or_default()) {
            if typ == 0x000A {
                break;
            }
            if typ == 0x0200 {
                check_xls_dimensions(data)?;
                continue;
            }
            if !XLS_CELL_RECORDS.contains(&typ) || data.len() < 4 {
                continue;
            }
            let row = u32::from(u16::from_le_bytes([data[0], data[1]]));
            let first = u32::from(u16::from_le_bytes([data[2], data[3]]));
            let last = if matches!(typ, 0x00BD | 0x00BE) && data.len() >= 6 {
                u32::from(u16::from_le_bytes([
                    data[data.len() - 2],
                    data[data.len() - 1],
                ]))
            } else {
                first
            };
            bounds = Some(match bounds {
                None => (row, first.min(last), row, first.max(last)),
                Some((r0, c0, r1, c1)) => (r0.min(row), c0.min(first), r1.max(row), c1.max(last)),
            });
        }
        if let Some((r0, c0, r1, c1)) = bounds {
            let cells = u64::from(r1 - r0 + 1) * u64::from(c1 - c0 + 1);
            if cells > MAX_XLS_GRID_CELLS {
                return Err(xls_grid_too_large(cells));
            }
        }
    }
    Ok(())
}

/// Checks a `DIMENSIONS` record as calamine reads it (10 bytes: `u16` rows; 14 bytes: `u32` rows; the last row
/// and column exclusive). Errors: `Malformed` when it ends before it starts, `TooLarge` over the grid cap.
fn check_xls_dimensions(data: &[u8]) -> Result<(), DocumentError> {
    let u16_at = |at: usize| {
        data.get(at..at + 2)
            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let u32_at = |at: usize| {
        data.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (first_row, end_row, first_col, end_col) = match data.len() {
        10 => (u16_at(0), u16_at(2), u16_at(4), u16_at(6)),
        14 => (u32_at(0), u32_at(4), u16_at(8), u16_at(10)),
        // calamine refuses other lengths with an error of its own.
        _ => return Ok(()),
    };
    let (Some(first_row), Some(end_row), Some(mut first_col), Some(end_col)) =
        (first_row, end_row, first_col, end_col)
    else {
        return Ok(());
    };
    // calamine's own repair: a first column past 255 or after the end column starts at 0.
    if first_col > 0xFF || end_col < first_col {
        first_col = 0;
    }
    if end_row == 0 || end_col == 0 {
        return Ok(());
    }
    if end_row - 1 < first_row || end_col - 1 < first_col {
        return Err(malformed(
            "the .xls has a sheet whose DIMENSIONS end before they start",
        ));
    }
    let cells = u64::from(end_row - first_row) * u64::from(end_col - first_col);
    if cells > MAX_XLS_GRID_CELLS {
        return Err(xls_grid_too_large(cells));
    }
    Ok(())
}

fn xls_grid_too_large(cells: u64) -> DocumentError {
    DocumentError {
        kind: DocumentErrorKind::TooLarge,
        message: format!("the .xls has a sheet spanning {cells} cells, over the cap of {MAX_XLS_GRID_CELLS} cells"),
    }
}

/// Most cells an `.ods` sheet may make calamine hold once its repeated rows and columns are expanded: the cells
/// of each row element up to its last non-empty one, plus the dense rectangle from the first to the last non-empty
/// row (repeats included). calamine keeps each cell twice (a 32-byte value and a 24-byte formula string), so the cap
/// is about 84 MB of memory; a sheet of 65,536 rows by 11 columns fits.
pub const MAX_ODS_GRID_CELLS: u64 = 1_500_000;

/// calamine's caps on an `.ods` sheet: rows and columns past them are dropped, so they bound the count too.
const ODS_MAX_ROWS: u64 = 1_048_576;
const ODS_MAX_COLUMNS: u64 = 16_384;

/// One row of an `.ods` sheet as [`check_ods_grid`] counts it.
#[derive(Debug, Clone, Copy, Default)]
struct OdsRow {
    /// `table:number-rows-repeated` (1 when absent).
    repeats: u64,
    /// The first and last non-empty column (0-based, repeats expanded), when the row has a non-empty cell.
    span: Option<(u64, u64)>,
}

/// Checks an `.ods` before calamine reads it: a few bytes of XML can repeat a cell 16,384 times and a row a million
/// times (`table:number-columns-repeated`, `table:number-rows-repeated`), and calamine expands both into dense
/// vectors. Counts, per sheet, the cells calamine would hold (as [`MAX_ODS_GRID_CELLS`] describes) while streaming
/// `content.xml` (a sheet is counted when it ends, so XML that breaks later is left to calamine's own error).
/// Errors: `TooLarge` naming the sheet, its expanded rows and columns and the cap, or a zip entry over the caps of
/// `limits`; `Malformed` when the zip cannot be read.
fn check_ods_grid(bytes: &[u8], limits: &ExtractionLimits) -> Result<(), DocumentError> {
    use quick_xml::events::Event;
    let mut archive = super::open_zip(bytes)?;
    // Without content.xml, or past XML that is not well-formed, calamine stops with an error of its own.
    let Some(content) = super::read_zip_entry(&mut archive, "content.xml", limits)? else {
        return Ok(());
    };
    let mut reader = quick_xml::Reader::from_reader(content.as_slice());
    reader.config_mut().check_end_names = false;
    let mut buffer = Vec::new();
    let mut grid = OdsGrid::default();
    loop {
        let Ok(event) = reader.read_event_into(&mut buffer) else {
            return Ok(());
        };
        match &event {
            Event::Start(start) => grid.start(start, false),
            Event::Empty(start) => grid.start(start, true),
            Event::Text(text) if !text.iter().all(u8::is_ascii_whitespace) => grid.cell_holds(),
            Event::End(end) => grid.end(end.name().as_ref())?,
            Event::Eof => return Ok(()),
            _ => {}
        }
        buffer.clear();
    }
}

/// The cells of the sheet being streamed by [`check_ods_grid`].
#[derive(Default)]
struct OdsGrid {
    sheet: String,
    rows: Vec<OdsRow>,
    row: Option<(OdsRow, u64)>,
    /// The open cell: its column repeats and whether it holds anything yet.
    cell: Option<(u64, bool)>,
}

impl OdsGrid {
    /// An element starts (`empty`: it ends there too).
    fn start(&mut self, start: &quick_xml::events::BytesStart, empty: bool) {
        let attribute = |name: &[u8]| {
            start
                .attributes()
                .flatten()
                .find(|attribute| attribute.key.as_ref() == name)
                .map(|attribute| String::from_utf8_lossy(&attribute.value).into_owned())
        };
        let repeats = |name: &[u8]| {
            attribute(name)
                .and_then(|value| value.trim().parse::<u64>().ok())
                .unwrap_or(1)
                .max(1)
        };
        match start.name().as_ref() {
            b"table:table" => {
                self.sheet = attribute(b"table:name").unwrap_or_default();
                self.rows.clear();
            }
            b"table:table-row" => {
                let counted = OdsRow {
                    repeats: repeats(b"table:number-rows-repeated"),
                    span: None,
                };
                if empty {
                    self.rows.push(counted);
                } else {
                    self.row = Some((counted, 0));
                }
            }
            b"table:table-cell" | b"table:covered-table-cell" => {
                let holds = attribute(b"office:value-type").is_some()
                    || attribute(b"table:formula").is_some();
                let columns = repeats(b"table:number-columns-repeated");
                if empty {
                    close_ods_cell(&mut self.row, columns, holds);
                } else {
                    self.cell = Some((columns, holds));
                }
            }
            _ => self.cell_holds(),
        }
    }

    /// The open cell holds something (text, or an element inside it).
    fn cell_holds(&mut self) {
        if let Some((_, holds)) = self.cell.as_mut() {
            *holds = true;
        }
    }

    /// An element ends; a sheet that ends is checked against the cap.
    fn end(&mut self, name: &[u8]) -> Result<(), DocumentError> {
        match name {
            b"table:table-cell" | b"table:covered-table-cell" => {
                if let Some((columns, holds)) = self.cell.take() {
                    close_ods_cell(&mut self.row, columns, holds);
                }
            }
            b"table:table-row" => {
                if let Some((counted, _)) = self.row.take() {
                    self.rows.push(counted);
                }
            }
            b"table:table" => ods_sheet_fits(&self.sheet, &self.rows)?,
            _ => {}
        }
        Ok(())
    }
}

/// Ends a cell of `row` spanning `columns` columns: a cell that holds anything widens the row's non-empty span.
fn close_ods_cell(row: &mut Option<(OdsRow, u64)>, columns: u64, holds: bool) {
    if let Some((counted, column)) = row.as_mut() {
        let first = (*column).min(ODS_MAX_COLUMNS);
        let end = column.saturating_add(columns).min(ODS_MAX_COLUMNS);
        if holds && end > first {
            let span = counted.span.get_or_insert((first, end - 1));
            span.1 = end - 1;
        }
        *column = column.saturating_add(columns);
    }
}

/// Whether the sheet `name` of `rows` stays under [`MAX_ODS_GRID_CELLS`] once calamine expands it.
fn ods_sheet_fits(name: &str, rows: &[OdsRow]) -> Result<(), DocumentError> {
    // What calamine pushes while reading: each row's cells up to its last non-empty one, once per row element.
    let read: u64 = rows
        .iter()
        .filter_map(|row| row.span.map(|(_, last)| last + 1))
        .sum();
    // What it then expands: every row from the first to the last non-empty one, repeats included, as wide as
    // the widest span.
    let filled = || {
        rows.iter()
            .enumerate()
            .filter(|(_, row)| row.span.is_some())
    };
    let (Some((first, _)), Some((last, _))) = (filled().next(), filled().next_back()) else {
        return Ok(());
    };
    let first_column = filled()
        .filter_map(|(_, row)| row.span.map(|span| span.0))
        .min()
        .unwrap_or(0);
    let last_column = filled()
        .filter_map(|(_, row)| row.span.map(|span| span.1))
        .max()
        .unwrap_or(0);
    let columns = last_column - first_column + 1;
    let expanded_rows = rows
        .get(first..=last)
        .unwrap_or_default()
        .iter()
        .fold(0u64, |sum, row| sum.saturating_add(row.repeats))
        .min(ODS_MAX_ROWS);
    let cells = read.saturating_add(expanded_rows.saturating_mul(columns));
    if cells > MAX_ODS_GRID_CELLS {
        return Err(DocumentError {
            kind: DocumentErrorKind::TooLarge,
            message: format!(
                "the .ods sheet `{name}` repeats its rows and cells to {expanded_rows} rows by {columns} columns \
                 ({cells} cells to hold), over the cap of {MAX_ODS_GRID_CELLS} cells"
            ),
        });
    }
    Ok(())
}

/// The BIFF records of `stream` as (type, data), stopping at the first truncated one.
fn biff_records(stream: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
    let mut rest = stream;
    std::iter::from_fn(move || {
        let header = rest.get(..4)?;
        let typ = u16::from_le_bytes([header[0], header[1]]);
        let len = usize::from(u16::from_le_bytes([header[2], header[3]]));
        let data = rest.get(4..4 + len)?;
        rest = rest.get(4 + len..).unwrap_or_default();
        Some((typ, data))
    })
}

/// Reads every sheet of an `.xlsx` cell by cell (values, then formulas), never as a dense grid.
fn read_xlsx(
    workbook: &mut Xlsx<Cursor<&[u8]>>,
) -> Result<Vec<(String, SheetCells)>, DocumentError> {
    let names = workbook.sheet_names();
    let mut sheets = Vec::with_capacity(names.len());
    for name in names {
        let mut cells = SheetCells::new();
        {
            let mut reader = workbook.worksheet_cells_reader(&name).map_err(xlsx_error)?;
            while let Some(cell) = reader.next_cell().map_err(xlsx_error)? {
                let value = Data::from(cell.get_value().clone());
                if !value.is_empty() {
                    cells.insert(cell.get_position(), format_value(&value));
                }
            }
        }
        let mut formulas = SheetCells::new();
        {
            let mut reader = workbook.worksheet_cells_reader(&name).map_err(xlsx_error)?;
            while let Some(cell) = reader.next_formula().map_err(xlsx_error)? {
                if !cell.get_value().is_empty() {
                    formulas.insert(cell.get_position(), cell.get_value().clone());
                }
            }
        }
        sheets.push((name, merge_formulas(cells, formulas)));
    }
    Ok(sheets)
}

/// Reads every sheet of a workbook whose reader hands out dense ranges (`.xls`, `.ods`); formulas where the reader
/// has them (a sheet whose formulas cannot be read keeps its values).
fn read_dense<RS, R>(
    workbook: &mut R,
    error: fn(R::Error) -> DocumentError,
) -> Result<Vec<(String, SheetCells)>, DocumentError>
where
    RS: std::io::Read + std::io::Seek,
    R: Reader<RS>,
{
    let names = workbook.sheet_names();
    let mut sheets = Vec::with_capacity(names.len());
    for name in names {
        let range = workbook.worksheet_range(&name).map_err(error)?;
        let (row0, column0) = range.start().unwrap_or((0, 0));
        let mut cells = SheetCells::new();
        for (row, column, value) in range.used_cells() {
            let (Ok(row), Ok(column)) = (u32::try_from(row), u32::try_from(column)) else {
                continue;
            };
            cells.insert(
                (row0.saturating_add(row), column0.saturating_add(column)),
                format_value(value),
            );
        }
        let mut formulas = SheetCells::new();
        if let Ok(range) = workbook.worksheet_formula(&name) {
            let (row0, column0) = range.start().unwrap_or((0, 0));
            for (row, column, formula) in range.used_cells() {
                let (Ok(row), Ok(column)) = (u32::try_from(row), u32::try_from(column)) else {
                    continue;
                };
                formulas.insert(
                    (row0.saturating_add(row), column0.saturating_add(column)),
                    formula.clone(),
                );
            }
        }
        sheets.push((name, merge_formulas(cells, formulas)));
    }
    Ok(sheets)
}

/// Joins a sheet's values and formulas: a cell with a formula reads `=FORMULA → value` (or `=FORMULA` without a
/// cached value).
fn merge_formulas(mut cells: SheetCells, formulas: SheetCells) -> SheetCells {
    for (position, formula) in formulas {
        // OpenDocument keeps formulas with their namespace (`of:=SUM([.B2:.B3])`).
        let bare = formula.strip_prefix("of:").unwrap_or(&formula);
        let formula = if bare.starts_with('=') {
            bare.to_string()
        } else {
            format!("={bare}")
        };
        let text = match cells.remove(&position) {
            Some(value) if !value.is_empty() => format!("{formula} → {value}"),
            _ => formula,
        };
        cells.insert(position, text);
    }
    cells
}

/// Writes the sheets as text with their markers and builds the parts. Errors: `TooLarge` when the text passes
/// `limits.max_total_uncompressed` bytes.
fn render(
    sheets: Vec<(String, SheetCells)>,
    hidden: &[String],
    format: DocumentFormat,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let count = sheets.len();
    let mut builder = TextBuilder::new();
    // Bytes of the text so far (row numbers counted as 8), checked against the cap as each cell is added.
    let mut bytes: u64 = 0;
    for (index, (name, cells)) in sheets.into_iter().enumerate() {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let marker = format!(
            "=== sheet {number} of {count}: {} ({}){} ===",
            escape(&name),
            used_range(&cells),
            if hidden.contains(&name) {
                " (hidden)"
            } else {
                ""
            }
        );
        bytes += marker.len() as u64 + 1;
        builder.begin_part(PartKind::Sheet, number, Some(name.clone()), &marker);
        let mut row_text = String::new();
        let mut current_row: Option<u32> = None;
        let mut next_column: u32 = 0;
        for ((row, column), cell) in cells {
            if current_row != Some(row) {
                if let Some(done) = current_row {
                    bytes += row_text.len() as u64 + 8;
                    builder.line(&format!("{}{row_text}", u64::from(done) + 1));
                }
                current_row = Some(row);
                row_text.clear();
                next_column = 0;
            }
            // Pad skipped columns with empty cells so each cell sits in its column's field.
            for _ in next_column..column {
                row_text.push('\t');
            }
            row_text.push('\t');
            row_text.push_str(&escape(&cell));
            next_column = column.saturating_add(1);
            if bytes.saturating_add(row_text.len() as u64) > limits.max_total_uncompressed {
                return Err(DocumentError {
                    kind: DocumentErrorKind::TooLarge,
                    message: format!(
                        "the spreadsheet's text passes the cap of {} bytes (at sheet {number}, `{}`)",
                        limits.max_total_uncompressed,
                        escape(&name)
                    ),
                });
            }
        }
        if let Some(done) = current_row {
            builder.line(&format!("{}{row_text}", u64::from(done) + 1));
        }
    }
    Ok(builder.finish(format))
}

/// The used range of a sheet in A1 notation (`A1:D17`, a single cell `B2`), or `empty`.
fn used_range(cells: &SheetCells) -> String {
    let mut bounds: Option<(u32, u32, u32, u32)> = None;
    for &(row, column) in cells.keys() {
        bounds = Some(match bounds {
            None => (row, column, row, column),
            Some((r0, c0, r1, c1)) => (r0.min(row), c0.min(column), r1.max(row), c1.max(column)),
        });
    }
    match bounds {
        None => "empty".to_string(),
        Some((r0, c0, r1, c1)) if r0 == r1 && c0 == c1 => cell_name(r0, c0),
        Some((r0, c0, r1, c1)) => format!("{}:{}", cell_name(r0, c0), cell_name(r1, c1)),
    }
}

/// The A1 name of the cell at 0-based (`row`, `column`): (16, 1) is `B17`.
fn cell_name(row: u32, column: u32) -> String {
    format!("{}{}", column_name(column), u64::from(row) + 1)
}

/// The letters of the 0-based `column`: 0 is `A`, 25 `Z`, 26 `AA`, 16383 `XFD`.
pub fn column_name(column: u32) -> String {
    let mut letters = Vec::new();
    let mut n = u64::from(column) + 1;
    while n > 0 {
        let rem = ((n - 1) % 26) as u8;
        letters.push(char::from(b'A' + rem));
        n = (n - 1) / 26;
    }
    letters.iter().rev().collect()
}

/// A cell's value as text: integers without a fraction, floats in their shortest form, booleans `TRUE`/`FALSE`,
/// dates ISO, errors as Excel shows them (`#DIV/0!`).
fn format_value(value: &Data) -> String {
    match value {
        Data::Int(i) => i.to_string(),
        Data::Float(f) => format_float(*f),
        Data::String(s) => s.clone(),
        Data::Bool(true) => "TRUE".to_string(),
        Data::Bool(false) => "FALSE".to_string(),
        Data::DateTime(dt) if dt.is_duration() => iso_duration(dt.as_f64()),
        Data::DateTime(dt) => {
            let (year, month, day, hour, minute, second, milli) = dt.to_ymd_hms_milli();
            let date = format!("{year:04}-{month:02}-{day:02}");
            let mut time = format!("{hour:02}:{minute:02}:{second:02}");
            if milli > 0 {
                time.push_str(&format!(".{milli:03}"));
            }
            let value = dt.as_f64();
            if (0.0..1.0).contains(&value) {
                time
            } else if hour == 0 && minute == 0 && second == 0 && milli == 0 {
                date
            } else {
                format!("{date}T{time}")
            }
        }
        Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Error(e) => e.to_string(),
        Data::Empty => String::new(),
    }
}

/// A float as a spreadsheet shows it: `6` for 6.0, `0.1` for 0.1 (Rust's shortest round-trip form otherwise).
fn format_float(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

/// A duration of `days` (fractional) as an ISO 8601 duration, `PT36H30M0S` for 1.5208333 days.
fn iso_duration(days: f64) -> String {
    if !days.is_finite() {
        return format!("{days}");
    }
    let total = (days.abs() * 86_400.0).round() as u64;
    let sign = if days < 0.0 { "-" } else { "" };
    format!(
        "{sign}PT{}H{}M{}S",
        total / 3600,
        (total % 3600) / 60,
        total % 60
    )
}

/// A cell's text on one line: a tab, newline or carriage return becomes `\t`, `\n`, `\r`, and a backslash that
/// would read as one of those escapes (followed by `t`, `n`, `r` or a backslash) is doubled, so `C:\new` reads
/// `C:\\new`; other backslashes stay as they are.
fn escape(text: &str) -> String {
    if !text.contains(['\t', '\n', '\r', '\\']) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' if matches!(characters.peek(), Some('t' | 'n' | 'r' | '\\')) => {
                out.push_str("\\\\")
            }
            other => out.push(other),
        }
    }
    out
}

fn malformed(message: impl Into<String>) -> DocumentError {
    DocumentError {
        kind: DocumentErrorKind::Malformed,
        message: message.into(),
    }
}

fn encrypted() -> DocumentError {
    DocumentError {
        kind: DocumentErrorKind::Encrypted,
        message:
            "the workbook is password-protected (encrypted); it cannot be read without its password"
                .to_string(),
    }
}

/// Maps calamine's `.xlsx` error: `Password` is `Encrypted`, anything else `Malformed` naming calamine's reason.
fn xlsx_error(e: XlsxError) -> DocumentError {
    match e {
        XlsxError::Password => encrypted(),
        other => malformed(format!("the .xlsx workbook cannot be read: {other}")),
    }
}

/// Maps calamine's `.xls` error: `Password` is `Encrypted`, anything else `Malformed` naming calamine's reason.
fn xls_error(e: XlsError) -> DocumentError {
    match e {
        XlsError::Password => encrypted(),
        other => malformed(format!("the .xls workbook cannot be read: {other}")),
    }
}

/// Maps calamine's `.ods` error: `Password` is `Encrypted`, anything else `Malformed` naming calamine's reason.
fn ods_error(e: OdsError) -> DocumentError {
    match e {
        OdsError::Password => encrypted(),
        other => malformed(format!("the .ods spreadsheet cannot be read: {other}")),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod ole_tests;
