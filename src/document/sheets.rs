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
mod tests {
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
        let doc =
            extract(&fixtures::ods_one_sheet(), DocumentFormat::Ods).expect("the fixture reads");
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
        let err =
            check_ods_grid(&ods_repeated(rows + 1, 2), &ExtractionLimits::default()).unwrap_err();
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
        let err = extract_sheets(&fixtures::xlsx_two_sheets(), DocumentFormat::Xlsx, &limits)
            .unwrap_err();
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
        let date =
            |v: f64| Data::DateTime(ExcelDateTime::new(v, ExcelDateTimeType::DateTime, false));
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
}

/// OLE fixtures (a BIFF8 `.xls`, an encrypted `.xlsx`) written with the `cfb` crate (a dev-dependency).
#[cfg(test)]
mod ole_tests {
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
        let mut file = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new()))
            .expect("cfb creates in memory");
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
}
