//! Word and OpenDocument text (paragraphs in order, headings `#` by outline level, list items indented by level
//! behind `- ` or, in a numbered Word list, their number (`2.`, `b.`, `iv.`), tables in place with a row a line and
//! cells separated by ` | `; after the body a Word file's headers and footers, then footnotes and comments, and a
//! count of tracked changes not yet accepted)
//! and PowerPoint and OpenDocument presentations (a slide a part: its title in the marker, then its body text,
//! then its speaker notes after a `[notes]` line).

use std::io::Cursor;

use super::xml::{parse, Node};
use super::{
    read_zip_entry, DocumentError, DocumentFormat, ExtractedDocument, ExtractionLimits, PartKind,
    TextBuilder,
};

type Archive<'a> = zip::ZipArchive<Cursor<&'a [u8]>>;

/// The XML part `name`, parsed; `Ok(None)` when the zip has no such part.
fn part(
    archive: &mut Archive<'_>,
    name: &str,
    limits: &ExtractionLimits,
) -> Result<Option<Vec<Node>>, DocumentError> {
    match read_zip_entry(archive, name, limits)? {
        Some(bytes) => parse(&bytes, name).map(Some),
        None => Ok(None),
    }
}

/// The XML part `name`, which the format requires. Errors: `Malformed` naming the missing part.
fn required(
    archive: &mut Archive<'_>,
    name: &str,
    limits: &ExtractionLimits,
) -> Result<Vec<Node>, DocumentError> {
    part(archive, name, limits)?
        .ok_or_else(|| DocumentError::malformed(format!("the zip holds no `{name}` part")))
}

/// Paragraph text gathered while walking a body: text, its heading level, its list level and, for a list item,
/// the numbering it belongs to (`w:numId`).
#[derive(Default)]
struct Paragraph {
    text: String,
    heading: Option<usize>,
    list: Option<usize>,
    numbering: Option<String>,
    /// The lines of paragraphs inside this one (a text box's), written after it: the box belongs to the
    /// paragraph it is anchored in, which reads first.
    boxed: Vec<String>,
}

impl Paragraph {
    /// The paragraph as a line: `# ` by heading level, a list item indented by level behind its `marker` (`- `
    /// for bullets, `3. ` for numbered items).
    fn line(&self, marker: &str) -> String {
        let text = self.text.trim();
        if text.is_empty() {
            return String::new();
        }
        match (self.heading, self.list) {
            (Some(level), _) => format!("{} {text}", "#".repeat(level.clamp(1, 6))),
            (None, Some(level)) => format!("{}{marker} {text}", "  ".repeat(level)),
            (None, None) => text.to_string(),
        }
    }
}

/// The prefix of the list id of items numbered by a `List Number` paragraph style (no `w:numId` of their own).
const STYLE_NUMBERING: &str = "style:";

/// One level of a `.docx` list: its `w:numFmt` (`decimal`, `bullet`, `lowerLetter`...), its `w:lvlText` (`%1.`,
/// `%2)`, `%1.%2.`: `%k` stands for the number of level `k`, 1-based) when it has one, its `w:start` (the number
/// of its first item; 1 when absent) and whether it is `w:isLgl` (every number in its text shown in decimal).
#[derive(Debug, Clone, Default)]
struct Level {
    format: String,
    text: Option<String>,
    start: Option<u32>,
    legal: bool,
}

/// The list formats of a `.docx` (`word/numbering.xml`): for each `w:numId`, each level's format and text,
/// through its abstract numbering.
#[derive(Default)]
struct Numbering {
    formats: std::collections::HashMap<String, Vec<(usize, Level)>>,
    /// A list's own start for one of its levels (`w:lvlOverride`/`w:startOverride` of its `w:num`), by list
    /// and level.
    starts: std::collections::HashMap<(String, usize), u32>,
}

impl Numbering {
    /// Reads `word/numbering.xml`'s nodes.
    fn of(nodes: &[Node]) -> Self {
        let mut abstracts: std::collections::HashMap<String, Vec<(usize, Level)>> =
            std::collections::HashMap::new();
        let mut links: Vec<(String, String)> = Vec::new();
        let mut current_abstract: Option<String> = None;
        let mut current_level: Option<usize> = None;
        let mut current_num: Option<String> = None;
        let mut current_override: Option<usize> = None;
        let mut starts = std::collections::HashMap::new();
        for node in nodes {
            match node {
                Node::Open { name, .. } => match name.as_str() {
                    "abstractNum" => {
                        current_abstract = node.attribute("abstractNumId").map(str::to_string)
                    }
                    "lvl" => current_level = node.attribute("ilvl").and_then(|v| v.parse().ok()),
                    "lvlOverride" => {
                        current_override = node.attribute("ilvl").and_then(|v| v.parse().ok())
                    }
                    "startOverride" => {
                        if let (Some(num), Some(level), Some(start)) = (
                            &current_num,
                            current_override,
                            node.attribute("val").and_then(|v| v.parse().ok()),
                        ) {
                            starts.insert((num.clone(), level), start);
                        }
                    }
                    "numFmt" | "lvlText" | "start" | "isLgl" if current_num.is_none() => {
                        let value = match name.as_str() {
                            // `<w:isLgl/>` is on unless its value says off.
                            "isLgl" => Some(node.attribute("val").unwrap_or("1")),
                            _ => node.attribute("val"),
                        };
                        if let (Some(id), Some(level), Some(value)) =
                            (&current_abstract, current_level, value)
                        {
                            let levels = abstracts.entry(id.clone()).or_default();
                            let index = match levels.iter().position(|(l, _)| *l == level) {
                                Some(index) => index,
                                None => {
                                    levels.push((level, Level::default()));
                                    levels.len() - 1
                                }
                            };
                            if let Some((_, found)) = levels.get_mut(index) {
                                match name.as_str() {
                                    "numFmt" => found.format = value.to_string(),
                                    "lvlText" => found.text = Some(value.to_string()),
                                    "start" => found.start = value.parse().ok(),
                                    _ => found.legal = !matches!(value, "0" | "false" | "off"),
                                }
                            }
                        }
                    }
                    "num" => current_num = node.attribute("numId").map(str::to_string),
                    "abstractNumId" => {
                        if let (Some(num), Some(id)) = (&current_num, node.attribute("val")) {
                            links.push((num.clone(), id.to_string()));
                        }
                    }
                    _ => {}
                },
                Node::Close(name) => match name.as_str() {
                    "abstractNum" => current_abstract = None,
                    "lvl" => current_level = None,
                    "num" => current_num = None,
                    "lvlOverride" => current_override = None,
                    _ => {}
                },
                Node::Text(_) => {}
            }
        }
        let formats = links
            .into_iter()
            .filter_map(|(num, id)| Some((num, abstracts.get(&id)?.clone())))
            .collect();
        Numbering { formats, starts }
    }

    /// Level `level` of list `numbering`; absent when unknown (a bullet), `decimal` for a list numbered by its
    /// paragraph style.
    fn level(&self, numbering: &str, level: usize) -> Option<Level> {
        if numbering.starts_with(STYLE_NUMBERING) {
            return Some(Level {
                format: "decimal".to_string(),
                ..Level::default()
            });
        }
        self.formats
            .get(numbering)
            .and_then(|levels| levels.iter().find(|(l, _)| *l == level))
            .map(|(_, found)| found.clone())
    }

    /// The marker of an item at `level` of list `numbering`, whose levels have counted `counters` items so far
    /// (this item included): its level's text with each `%k` replaced by the number of level `k` in that level's
    /// format (`1.2.`, `b)`, `(iv)`); without a text, the number and a period (`3.`); `-` for a bullet, a format
    /// without a number, or a text that comes out empty.
    fn marker(
        &self,
        numbering: &str,
        level: usize,
        counters: &std::collections::HashMap<(String, usize), u32>,
    ) -> String {
        // The number an item shows: the level's start (the list's own override first) and the items before it.
        let count_of = |level: usize| {
            let start = self
                .starts
                .get(&(numbering.to_string(), level))
                .copied()
                .or_else(|| self.level(numbering, level).and_then(|found| found.start))
                .unwrap_or(1);
            let items = counters
                .get(&(numbering.to_string(), level))
                .copied()
                .unwrap_or(1);
            start.saturating_add(items.saturating_sub(1))
        };
        let Some(found) = self.level(numbering, level) else {
            return "-".to_string();
        };
        let Some(text) = found
            .text
            .filter(|_| number_text(&found.format, 1).is_some())
        else {
            return list_marker(&found.format, count_of(level));
        };
        let mut marker = String::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find('%') {
            marker.push_str(rest.get(..at).unwrap_or_default());
            let after = rest.get(at + 1..).unwrap_or_default();
            match after.chars().next().and_then(|digit| digit.to_digit(10)) {
                Some(k @ 1..=9) => {
                    let of = k as usize - 1;
                    // A legal-style level shows every number in decimal (`Section 4.1` under `Article IV`).
                    let format = match self.level(numbering, of) {
                        Some(_) if found.legal => "decimal".to_string(),
                        Some(upper) => upper.format,
                        None => String::new(),
                    };
                    let count = count_of(of);
                    marker.push_str(
                        &number_text(&format, count).unwrap_or_else(|| count.to_string()),
                    );
                    rest = after.get(1..).unwrap_or_default();
                }
                _ => {
                    marker.push('%');
                    rest = after;
                }
            }
        }
        marker.push_str(rest);
        let marker = marker.trim();
        if marker.is_empty() {
            "-".to_string()
        } else {
            marker.to_string()
        }
    }
}

/// The marker of the `count`th (1-based) item in a list level of `format`: `3.`, `c.`, `C.`, `iii.`, `III.`;
/// `-` for bullets and formats without a number.
pub(super) fn list_marker(format: &str, count: u32) -> String {
    match number_text(format, count) {
        Some(number) => format!("{number}."),
        None => "-".to_string(),
    }
}

/// The `count`th (1-based) number of a list level of `format`: `3`, `03`, `c`, `C`, `iii`, `III`; `None` for
/// bullets and formats without a number.
fn number_text(format: &str, count: u32) -> Option<String> {
    let letters = |upper: bool| {
        let mut n = count.max(1);
        let mut text = Vec::new();
        while n > 0 {
            n -= 1;
            let base = if upper { b'A' } else { b'a' };
            text.push(char::from(base + (n % 26) as u8));
            n /= 26;
        }
        text.into_iter().rev().collect::<String>()
    };
    let roman = |upper: bool| {
        const NUMERALS: [(u32, &str); 13] = [
            (1000, "m"),
            (900, "cm"),
            (500, "d"),
            (400, "cd"),
            (100, "c"),
            (90, "xc"),
            (50, "l"),
            (40, "xl"),
            (10, "x"),
            (9, "ix"),
            (5, "v"),
            (4, "iv"),
            (1, "i"),
        ];
        let mut n = count;
        let mut text = String::new();
        for (value, numeral) in NUMERALS {
            while n >= value {
                text.push_str(numeral);
                n -= value;
            }
        }
        if upper {
            text.to_ascii_uppercase()
        } else {
            text
        }
    };
    match format {
        "decimal" => Some(count.to_string()),
        "decimalZero" => Some(format!("{count:02}")),
        "lowerLetter" => Some(letters(false)),
        "upperLetter" => Some(letters(true)),
        "lowerRoman" => Some(roman(false)),
        "upperRoman" => Some(roman(true)),
        _ => None,
    }
}

/// Where finished paragraphs go: the body, or the cell of the table being read.
#[derive(Default)]
struct Flow {
    lines: Vec<String>,
    /// Tables being read, innermost last: rows of cells, the current row, the current cell.
    tables: Vec<(Vec<String>, Option<String>)>,
    /// Tracked insertions (`w:ins`) and deletions (`w:del`) in the part.
    insertions: u32,
    deletions: u32,
}

impl Flow {
    fn paragraph(&mut self, line: String) {
        if line.is_empty() {
            return;
        }
        match self.tables.last_mut() {
            Some((_, Some(cell))) => {
                if !cell.is_empty() {
                    cell.push(' ');
                }
                // A `|` of the cell's text is written `\|` (as Markdown tables do): ` | ` separates cells.
                cell.push_str(&line.replace('\n', " ").replace('|', "\\|"));
            }
            _ => self.lines.push(line),
        }
    }
    fn open_table(&mut self) {
        self.tables.push((Vec::new(), None));
    }
    fn open_cell(&mut self) {
        if let Some((_, cell)) = self.tables.last_mut() {
            *cell = Some(String::new());
        }
    }
    fn close_cell(&mut self) {
        if let Some((row, cell)) = self.tables.last_mut() {
            row.push(cell.take().unwrap_or_default());
        }
    }
    fn close_row(&mut self) {
        let Some((row, _)) = self.tables.last_mut() else {
            return;
        };
        let line = std::mem::take(row).join(" | ");
        if self.tables.len() > 1 {
            // A nested table's row is text of the outer cell: its separators are escaped like any `|` of a cell,
            // so only the outer table's ` | ` separates the outer cells.
            let outer = self.tables.len() - 2;
            if let Some((_, Some(cell))) = self.tables.get_mut(outer) {
                if !cell.is_empty() {
                    cell.push(' ');
                }
                cell.push_str(&line.replace(" | ", " \\| "));
            }
        } else if !line.replace('|', "").trim().is_empty() {
            self.lines.push(line);
        }
    }
    fn close_table(&mut self) {
        self.tables.pop();
    }
}

/// A `.docx`: `word/document.xml` (list items numbered through `word/numbering.xml`), then the headers and
/// footers (`word/header*.xml`, `word/footer*.xml`, each distinct line once), `word/footnotes.xml` and
/// `word/comments.xml`, and a closing line counting tracked changes when there are any.
pub fn extract_docx(
    archive: &mut Archive<'_>,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let body = required(archive, "word/document.xml", limits)?;
    let numbering = part(archive, "word/numbering.xml", limits)?
        .map(|nodes| Numbering::of(&nodes))
        .unwrap_or_default();
    let mut out = TextBuilder::new();
    let flow = docx_flow(&body, None, &numbering);
    for line in &flow.lines {
        out.line(line);
    }
    let mut page_parts: Vec<String> = archive
        .file_names()
        .filter(|name| {
            let stem = name
                .strip_prefix("word/header")
                .or_else(|| name.strip_prefix("word/footer"));
            stem.and_then(|stem| stem.strip_suffix(".xml"))
                .is_some_and(|number| number.bytes().all(|byte| byte.is_ascii_digit()))
        })
        .map(str::to_string)
        .collect();
    // header1, header2, ..., then the footers, by number.
    page_parts.sort_by_key(|name| {
        let digits: String = name.chars().filter(char::is_ascii_digit).collect();
        (name.contains("footer"), digits.parse::<u32>().unwrap_or(0))
    });
    let mut page_lines: Vec<String> = Vec::new();
    for name in page_parts {
        if let Some(nodes) = part(archive, &name, limits)? {
            for line in docx_flow(&nodes, None, &numbering).lines {
                if !page_lines.contains(&line) {
                    page_lines.push(line);
                }
            }
        }
    }
    if !page_lines.is_empty() {
        out.line("--- headers and footers ---");
        for line in page_lines {
            out.line(&line);
        }
    }
    if let Some(notes) = part(archive, "word/footnotes.xml", limits)? {
        let notes = docx_flow(&notes, Some("footnote"), &numbering).lines;
        if !notes.is_empty() {
            out.line("--- footnotes ---");
            for line in notes {
                out.line(&line);
            }
        }
    }
    if let Some(comments) = part(archive, "word/comments.xml", limits)? {
        let comments = docx_flow(&comments, Some("comment"), &numbering).lines;
        if !comments.is_empty() {
            out.line("--- comments ---");
            for line in comments {
                out.line(&line);
            }
        }
    }
    if flow.insertions + flow.deletions > 0 {
        out.line(&format!(
            "--- tracked changes: {} and {} not yet accepted; the text above shows them accepted (inserted text in, deleted text out) ---",
            crate::prose::plural(u64::from(flow.insertions), "insertion", "insertions"),
            crate::prose::plural(u64::from(flow.deletions), "deletion", "deletions")
        ));
    }
    Ok(out.finish(DocumentFormat::Docx))
}

/// The lines of a WordprocessingML part. `notes`: the element (`footnote`, `comment`) whose paragraphs are
/// numbered `[^N]` / `[comment N by A]`; separator footnotes are skipped. The content of `mc:Fallback` is skipped
/// (it repeats its `mc:Choice` for older readers); a paragraph inside another (a text box) becomes its own line
/// before the one that holds it; deleted text (`w:delText`) is left out and insertions and deletions are counted.
fn docx_flow(nodes: &[Node], notes: Option<&str>, numbering: &Numbering) -> Flow {
    let mut walk = DocxWalk {
        notes,
        numbering,
        flow: Flow::default(),
        paragraphs: Vec::new(),
        in_text: false,
        in_properties: 0,
        in_list: false,
        in_fallback: 0,
        note_label: None,
        skip_note: false,
        drawing_label: None,
        counters: std::collections::HashMap::new(),
    };
    for node in nodes {
        walk.node(node);
    }
    walk.flow
}

/// One walk over the XML nodes of a Word part ([`docx_flow`]): where the text goes, and a method per kind of
/// element.
struct DocxWalk<'a> {
    /// The element of a note or comment in this part (`footnote`, `comment`), if it holds them.
    notes: Option<&'a str>,
    numbering: &'a Numbering,
    flow: Flow,
    /// The paragraphs open, innermost last (a text box's paragraphs sit inside one).
    paragraphs: Vec<Paragraph>,
    in_text: bool,
    in_properties: usize,
    in_list: bool,
    /// Depth inside `mc:Fallback` (the copy of content an older reader would show: skipped).
    in_fallback: usize,
    note_label: Option<String>,
    skip_note: bool,
    /// The name or description of the last drawing seen (`wp:docPr`), for the picture it holds.
    drawing_label: Option<String>,
    /// Items seen so far of each list and level, for numbered markers.
    counters: std::collections::HashMap<(String, usize), u32>,
}

impl DocxWalk<'_> {
    fn node(&mut self, node: &Node) {
        if self.in_fallback > 0 {
            match node {
                Node::Open { name, .. } if name == "Fallback" => self.in_fallback += 1,
                Node::Close(name) if name == "Fallback" => self.in_fallback -= 1,
                _ => {}
            }
            return;
        }
        match node {
            Node::Open { name, .. } => self.open(name, node),
            Node::Close(name) => self.close(name),
            Node::Text(text) if self.in_text => push(&mut self.paragraphs, text),
            Node::Text(_) => {}
        }
    }

    fn open(&mut self, name: &str, node: &Node) {
        let plain = self.in_properties == 0;
        match name {
            "Fallback" => self.in_fallback = 1,
            n if Some(n) == self.notes => self.open_note(node),
            "p" => self.paragraphs.push(Paragraph::default()),
            "pPr" | "rPr" => self.in_properties += 1,
            "ins" if plain => self.flow.insertions += 1,
            "del" if plain => self.flow.deletions += 1,
            "pStyle" => self.paragraph_style(node),
            "outlineLvl" => {
                let level = node.attribute("val").and_then(|v| v.parse::<usize>().ok());
                if let (Some(p), Some(level)) = (self.paragraphs.last_mut(), level) {
                    if level < 9 {
                        p.heading = Some(level + 1);
                    }
                }
            }
            "numPr" => {
                self.in_list = true;
                if let Some(p) = self.paragraphs.last_mut() {
                    p.list = Some(p.list.unwrap_or(0));
                }
            }
            "ilvl" if self.in_list => {
                let level = node.attribute("val").and_then(|v| v.parse::<usize>().ok());
                if let (Some(p), Some(level)) = (self.paragraphs.last_mut(), level) {
                    p.list = Some(level.min(8));
                }
            }
            "numId" if self.in_list => {
                if let Some(p) = self.paragraphs.last_mut() {
                    // numId 0 takes the paragraph out of any list.
                    match node.attribute("val") {
                        Some("0") => p.list = None,
                        Some(id) => p.numbering = Some(id.to_string()),
                        None => {}
                    }
                }
            }
            "docPr" => self.drawing_label = picture_label(node),
            // A picture leaves a line saying so: a document of scanned pages is not an empty file.
            "pic" => {
                let marker = picture_marker(self.drawing_label.take().as_deref());
                push(&mut self.paragraphs, &marker);
            }
            "imagedata" => push(
                &mut self.paragraphs,
                &picture_marker(node.attribute("title")),
            ),
            "t" => self.in_text = true,
            "tab" if plain => push(&mut self.paragraphs, "\t"),
            "br" | "cr" if plain => push(&mut self.paragraphs, "\n"),
            "noBreakHyphen" if plain => push(&mut self.paragraphs, "-"),
            "sym" if plain => {
                // A symbol-font character: its code in hex; the font's private-use codes name no character.
                if let Some(character) = node
                    .attribute("char")
                    .and_then(|code| u32::from_str_radix(code, 16).ok())
                    .filter(|code| !(0xE000..=0xF8FF).contains(code))
                    .and_then(char::from_u32)
                {
                    push(&mut self.paragraphs, &character.to_string());
                }
            }
            "footnoteReference" => {
                let id = node.attribute("id").unwrap_or("?");
                push(&mut self.paragraphs, &format!("[^{id}]"));
            }
            "commentReference" => {
                let id = node.attribute("id").unwrap_or("?");
                push(&mut self.paragraphs, &format!("[comment {id}]"));
            }
            "tbl" => self.flow.open_table(),
            "tc" => self.flow.open_cell(),
            _ => {}
        }
    }

    /// A footnote or comment begins: the label its first paragraph gets; separators are skipped.
    fn open_note(&mut self, node: &Node) {
        let id = node.attribute("id").unwrap_or("?");
        self.skip_note = matches!(
            node.attribute("type"),
            Some("separator" | "continuationSeparator" | "continuationNotice")
        );
        self.note_label = Some(match (self.notes, node.attribute("author")) {
            (Some("comment"), Some(author)) => format!("[comment {id} by {author}] "),
            (Some("comment"), None) => format!("[comment {id}] "),
            _ => format!("[^{id}] "),
        });
    }

    /// A paragraph style: a title or heading level, or one of Word's built-in list styles.
    fn paragraph_style(&mut self, node: &Node) {
        let (Some(p), Some(style)) = (self.paragraphs.last_mut(), node.attribute("val")) else {
            return;
        };
        let lower = style.to_ascii_lowercase();
        if lower == "title" {
            p.heading = Some(1);
        } else if let Some(level) = lower
            .strip_prefix("heading")
            .and_then(|l| l.trim().parse::<usize>().ok())
        {
            p.heading = Some(level);
        } else if lower.contains("list") {
            // Word's built-in list styles: `List Bullet 2`, `ListNumber3` (the digit is the level, 1-based); a
            // `Number` style numbers its items where no `w:numPr` says more.
            let level = lower
                .trim_end()
                .chars()
                .last()
                .and_then(|c| c.to_digit(10))
                .map_or(0, |digit| digit.saturating_sub(1) as usize);
            p.list = p.list.or(Some(level.min(8)));
            if lower.contains("number") && p.numbering.is_none() {
                p.numbering = Some(format!("{STYLE_NUMBERING}{lower}"));
            }
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            n if Some(n) == self.notes => {
                self.note_label = None;
                self.skip_note = false;
            }
            "p" => self.close_paragraph(),
            "pPr" | "rPr" => self.in_properties = self.in_properties.saturating_sub(1),
            "numPr" => self.in_list = false,
            "t" => self.in_text = false,
            "tc" => self.flow.close_cell(),
            "tr" => self.flow.close_row(),
            "tbl" => self.flow.close_table(),
            _ => {}
        }
    }

    /// A paragraph ends: its line (with its list marker) goes to the flow, or into the paragraph around it when it
    /// sits in a text box; a note's first line carries the note's label.
    fn close_paragraph(&mut self) {
        let Some(p) = self.paragraphs.pop() else {
            return;
        };
        if self.skip_note {
            return;
        }
        let marker = match (&p.numbering, p.list) {
            (Some(id), Some(level)) => {
                *self.counters.entry((id.clone(), level)).or_insert(0) += 1;
                // A new item restarts the levels under it.
                self.counters
                    .retain(|(list, l), _| list != id || *l <= level);
                self.numbering.marker(id, level, &self.counters)
            }
            _ => "-".to_string(),
        };
        let line = p.line(&marker);
        if let Some(outer) = self.paragraphs.last_mut() {
            // A paragraph of a text box: kept for after the paragraph the box sits in.
            if !line.is_empty() {
                outer.boxed.push(line);
            }
            outer.boxed.extend(p.boxed);
            return;
        }
        match self.note_label.take() {
            Some(label) if !line.is_empty() => self.flow.paragraph(format!("{label}{line}")),
            Some(label) => self.note_label = Some(label),
            None => self.flow.paragraph(line),
        }
        for boxed in p.boxed {
            self.flow.paragraph(boxed);
        }
    }
}

/// The label of a drawing or picture from its non-visual properties (`wp:docPr`, `p:cNvPr`): its description (alt
/// text) when it has one, else its name.
fn picture_label(node: &Node) -> Option<String> {
    node.attribute("descr")
        .filter(|text| !text.trim().is_empty())
        .or_else(|| {
            node.attribute("name")
                .filter(|text| !text.trim().is_empty())
        })
        .map(|text| text.trim().replace('\n', " "))
}

/// The line a picture leaves in the text: `[picture: Chart of sales]`, or `[picture]` without a label.
fn picture_marker(label: Option<&str>) -> String {
    match label {
        Some(label) if !label.is_empty() => format!("[picture: {label}]"),
        _ => "[picture]".to_string(),
    }
}

/// Adds `text` to the innermost open paragraph (text outside any paragraph is not body text).
fn push(paragraphs: &mut [Paragraph], text: &str) {
    if let Some(p) = paragraphs.last_mut() {
        p.text.push_str(text);
    }
}

/// Walks OpenDocument text (`text:h`, `text:p`, `text:list`, `table:*`, `text:note`, `office:annotation`):
/// body lines, notes and comments.
#[derive(Default)]
struct OdfText {
    flow: Flow,
    notes: Vec<String>,
    comments: Vec<String>,
}

fn odf_text(nodes: &[Node]) -> OdfText {
    let mut walk = OdfWalk::default();
    for node in nodes {
        match node {
            Node::Open { name, .. } => walk.open(name, node),
            Node::Close(name) => walk.close(name),
            Node::Text(text) => walk.push(text),
        }
    }
    walk.out
}

/// One walk over the XML nodes of an OpenDocument text ([`odf_text`]): a method per kind of element.
#[derive(Default)]
struct OdfWalk {
    out: OdfText,
    /// Paragraphs open inside one another (a note's body inside a paragraph): a stack.
    paragraphs: Vec<Paragraph>,
    list_depth: usize,
    /// Inside a note: its citation and its body's text.
    note: Option<(String, String)>,
    in_citation: bool,
    /// Inside an annotation: its author and its text.
    annotation: Option<(String, String)>,
    in_creator: bool,
}

impl OdfWalk {
    fn open(&mut self, name: &str, node: &Node) {
        match name {
            "h" => self.paragraphs.push(Paragraph {
                heading: Some(
                    node.attribute("outline-level")
                        .and_then(|l| l.parse().ok())
                        .unwrap_or(1),
                ),
                ..Paragraph::default()
            }),
            "p" => self.paragraphs.push(Paragraph {
                list: (self.list_depth > 0).then(|| self.list_depth - 1),
                ..Paragraph::default()
            }),
            "list" => self.list_depth += 1,
            "s" => {
                let count = node
                    .attribute("c")
                    .and_then(|c| c.parse::<usize>().ok())
                    .unwrap_or(1)
                    .min(100);
                self.push(&" ".repeat(count));
            }
            "tab" => self.push("\t"),
            "line-break" => self.push("\n"),
            "note" => self.note = Some((String::new(), String::new())),
            "note-citation" => self.in_citation = true,
            "annotation" => self.annotation = Some((String::new(), String::new())),
            "creator" if self.annotation.is_some() => self.in_creator = true,
            "table" => self.out.flow.open_table(),
            "table-cell" => self.out.flow.open_cell(),
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "h" | "p" => self.close_paragraph(),
            "list" => self.list_depth = self.list_depth.saturating_sub(1),
            "note-citation" => self.in_citation = false,
            "note" => {
                if let Some((citation, body)) = self.note.take() {
                    let citation = citation.trim().to_string();
                    if let Some(p) = self.paragraphs.last_mut() {
                        p.text.push_str(&format!("[^{citation}]"));
                    }
                    self.out
                        .notes
                        .push(format!("[^{citation}] {}", body.trim()));
                }
            }
            "creator" => self.in_creator = false,
            "annotation" => self.close_annotation(),
            "table-cell" => self.out.flow.close_cell(),
            "table-row" => self.out.flow.close_row(),
            "table" => self.out.flow.close_table(),
            _ => {}
        }
    }

    /// A paragraph ends: its line joins the note or annotation it is in, else the flow.
    fn close_paragraph(&mut self) {
        let Some(p) = self.paragraphs.pop() else {
            return;
        };
        let line = p.line("-");
        let held = match (self.note.as_mut(), self.annotation.as_mut()) {
            (Some((_, body)), _) => Some(body),
            (None, Some((_, text))) => Some(text),
            (None, None) => None,
        };
        match held {
            Some(held) if !line.is_empty() => {
                if !held.is_empty() {
                    held.push(' ');
                }
                held.push_str(&line);
            }
            Some(_) => {}
            None => self.out.flow.paragraph(line),
        }
    }

    /// An annotation ends: it becomes a numbered comment, marked where it was.
    fn close_annotation(&mut self) {
        let Some((author, text)) = self.annotation.take() else {
            return;
        };
        let number = self.out.comments.len() + 1;
        let author = author.trim();
        self.out.comments.push(if author.is_empty() {
            format!("[comment {number}] {}", text.trim())
        } else {
            format!("[comment {number} by {author}] {}", text.trim())
        });
        if let Some(p) = self.paragraphs.last_mut() {
            p.text.push_str(&format!("[comment {number}]"));
        }
    }

    /// Text goes to the note's citation, the annotation's author, or the open paragraph.
    fn push(&mut self, text: &str) {
        if self.in_citation {
            if let Some((citation, _)) = self.note.as_mut() {
                citation.push_str(text);
            }
        } else if self.in_creator {
            if let Some((author, _)) = self.annotation.as_mut() {
                author.push_str(text);
            }
        } else if let Some(p) = self.paragraphs.last_mut() {
            p.text.push_str(text);
        }
    }
}

/// An `.odt`: `content.xml`, body, then notes and comments.
pub fn extract_odt(
    archive: &mut Archive<'_>,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let content = required(archive, "content.xml", limits)?;
    let text = odf_text(&content);
    let mut out = TextBuilder::new();
    for line in text.flow.lines {
        out.line(&line);
    }
    if !text.notes.is_empty() {
        out.line("--- footnotes ---");
        for line in text.notes {
            out.line(&line);
        }
    }
    if !text.comments.is_empty() {
        out.line("--- comments ---");
        for line in text.comments {
            out.line(&line);
        }
    }
    Ok(out.finish(DocumentFormat::Odt))
}

/// The relationships of a part (`Id` to `Target`, `Type`), from its `.rels` part.
fn relationships(
    archive: &mut Archive<'_>,
    rels: &str,
    limits: &ExtractionLimits,
) -> Result<Vec<(String, String, String)>, DocumentError> {
    let Some(nodes) = part(archive, rels, limits)? else {
        return Ok(Vec::new());
    };
    Ok(nodes
        .iter()
        .filter(|node| matches!(node, Node::Open { name, .. } if name == "Relationship"))
        .map(|node| {
            (
                node.attribute("Id").unwrap_or_default().to_string(),
                node.attribute("Target").unwrap_or_default().to_string(),
                node.attribute("Type").unwrap_or_default().to_string(),
            )
        })
        .collect())
}

/// `target` resolved against the folder `base` (`ppt/slides` + `../notesSlides/n.xml`), leading `/` from the root.
pub(super) fn join_path(base: &str, target: &str) -> String {
    let mut parts: Vec<&str> = if target.starts_with('/') {
        Vec::new()
    } else {
        base.split('/').filter(|part| !part.is_empty()).collect()
    };
    for piece in target.split('/') {
        match piece {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            piece => parts.push(piece),
        }
    }
    parts.join("/")
}

/// The paragraphs of a DrawingML shape tree: `(is_title, lines)` per shape, in order.
fn drawing_shapes(nodes: &[Node], notes: bool) -> Vec<(bool, Vec<String>)> {
    let mut walk = ShapeWalk {
        notes,
        ..ShapeWalk::default()
    };
    for node in nodes {
        match node {
            Node::Open { name, .. } => walk.open(name, node),
            Node::Close(name) => walk.close(name),
            Node::Text(text) if walk.in_text => {
                if let Some(p) = walk.paragraph.as_mut() {
                    p.push_str(text);
                }
            }
            Node::Text(_) => {}
        }
    }
    walk.shapes
}

/// A shape being read: whether it is the title, its lines, and whether it is a placeholder that is skipped.
type Shape = (bool, Vec<String>, bool);

/// One walk over a slide's shapes ([`drawing_shapes`]): a method per kind of element.
#[derive(Default)]
struct ShapeWalk {
    /// The part is a notes page (only its body placeholder is kept).
    notes: bool,
    shapes: Vec<(bool, Vec<String>)>,
    /// Depth inside `p:sp` and `p:graphicFrame`.
    depth: usize,
    current: Option<Shape>,
    paragraph: Option<String>,
    in_text: bool,
    /// A table row being read (its cells), and the cell being read: a row becomes one line, cells joined by ` | `.
    row: Option<Vec<String>>,
    cell: Option<String>,
    /// A picture being read (`p:pic`) and its label (from its `p:cNvPr`).
    picture: Option<Option<String>>,
}

impl ShapeWalk {
    fn open(&mut self, name: &str, node: &Node) {
        match name {
            "pic" if self.depth == 0 => self.picture = Some(None),
            "cNvPr" => {
                if let Some(label @ None) = self.picture.as_mut() {
                    *label = picture_label(node);
                }
            }
            "sp" | "graphicFrame" => {
                self.depth += 1;
                if self.depth == 1 {
                    self.current = Some((false, Vec::new(), false));
                }
            }
            "ph" => {
                if let Some(shape) = self.current.as_mut() {
                    let kind = node.attribute("type").unwrap_or("body");
                    shape.0 = kind == "title" || kind == "ctrTitle";
                    shape.2 = self.notes && kind != "body";
                    shape.2 |= matches!(kind, "sldNum" | "dt" | "ftr" | "hdr" | "sldImg");
                }
            }
            "p" => self.paragraph = Some(String::new()),
            "t" => self.in_text = true,
            "br" => {
                if let Some(p) = self.paragraph.as_mut() {
                    p.push('\n');
                }
            }
            "tr" => self.row = Some(Vec::new()),
            "tc" => self.cell = Some(String::new()),
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "pic" if self.depth == 0 => {
                if let Some(label) = self.picture.take() {
                    self.shapes
                        .push((false, vec![picture_marker(label.as_deref())]));
                }
            }
            "sp" | "graphicFrame" => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    if let Some((title, lines, skip)) = self.current.take() {
                        if !skip && !lines.is_empty() {
                            self.shapes.push((title, lines));
                        }
                    }
                }
            }
            "p" => self.close_paragraph(),
            "tc" => {
                if let (Some(done), Some(row)) = (self.cell.take(), self.row.as_mut()) {
                    row.push(done);
                }
            }
            "tr" => {
                if let (Some(done), Some(shape)) = (self.row.take(), self.current.as_mut()) {
                    if done.iter().any(|cell| !cell.is_empty()) {
                        shape.1.push(done.join(" | "));
                    }
                }
            }
            "t" => self.in_text = false,
            _ => {}
        }
    }

    /// A paragraph ends: its text joins the table cell being read (a `|` of it escaped), else the shape's lines.
    fn close_paragraph(&mut self) {
        let (Some(p), Some(shape)) = (self.paragraph.take(), self.current.as_mut()) else {
            return;
        };
        let p = p.trim().to_string();
        if p.is_empty() {
            return;
        }
        match self.cell.as_mut() {
            Some(cell) => {
                if !cell.is_empty() {
                    cell.push(' ');
                }
                cell.push_str(&p.replace('\n', " ").replace('|', "\\|"));
            }
            None => shape.1.push(p),
        }
    }
}

/// Writes one slide: marker with its title (and `(hidden)` for a slide hidden in the show), the other shapes'
/// lines (a table a row a line, cells separated by ` | `), then `[notes]` and the notes.
fn write_slide(
    out: &mut TextBuilder,
    number: u32,
    count: usize,
    title: Option<String>,
    body: Vec<String>,
    notes: Vec<String>,
    hidden: bool,
) {
    let shown = if hidden { " (hidden)" } else { "" };
    let marker = match &title {
        Some(title) => format!(
            "--- slide {number} of {count}: {}{shown} ---",
            title.replace('\n', " ")
        ),
        None => format!("--- slide {number} of {count}{shown} ---"),
    };
    out.begin_part(PartKind::Slide, number, title, &marker);
    for line in body {
        out.line(&line);
    }
    if !notes.is_empty() {
        out.line("[notes]");
        for line in notes {
            out.line(&line);
        }
    }
}

/// A `.pptx`: slides in the order of `ppt/presentation.xml`, each with its notes slide.
pub fn extract_pptx(
    archive: &mut Archive<'_>,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let presentation = required(archive, "ppt/presentation.xml", limits)?;
    let rels = relationships(archive, "ppt/_rels/presentation.xml.rels", limits)?;
    let slide_ids: Vec<String> = presentation
        .iter()
        .filter(|node| matches!(node, Node::Open { name, .. } if name == "sldId"))
        .filter_map(node_rid)
        .collect();
    let targets: Vec<String> = slide_ids
        .iter()
        .filter_map(|rid| rels.iter().find(|(id, _, _)| id == rid))
        .map(|(_, target, _)| join_path("ppt", target))
        .collect();
    let mut out = TextBuilder::new();
    let count = targets.len();
    for (index, target) in targets.iter().enumerate() {
        let nodes = required(archive, target, limits)?;
        let shapes = drawing_shapes(&nodes, false);
        let title = shapes
            .iter()
            .find(|(title, _)| *title)
            .map(|(_, lines)| lines.join(" "));
        let body: Vec<String> = shapes
            .into_iter()
            .filter(|(title, _)| !title)
            .flat_map(|(_, lines)| lines)
            .collect();
        let (folder, file) = target.rsplit_once('/').unwrap_or(("", target));
        let slide_rels = relationships(archive, &format!("{folder}/_rels/{file}.rels"), limits)?;
        let mut notes = Vec::new();
        if let Some((_, notes_target, _)) = slide_rels
            .iter()
            .find(|(_, _, kind)| kind.ends_with("/notesSlide"))
        {
            if let Some(nodes) = part(archive, &join_path(folder, notes_target), limits)? {
                notes = drawing_shapes(&nodes, true)
                    .into_iter()
                    .flat_map(|(_, lines)| lines)
                    .collect();
            }
        }
        // A slide hidden in the show (`<p:sld show="0">`) is extracted all the same, its marker saying so.
        let hidden = nodes
            .iter()
            .find(|node| matches!(node, Node::Open { .. }))
            .and_then(|root| root.attribute("show"))
            .is_some_and(|show| show == "0" || show == "false");
        write_slide(
            &mut out,
            index as u32 + 1,
            count,
            title,
            body,
            notes,
            hidden,
        );
    }
    Ok(out.finish(DocumentFormat::Pptx))
}

/// The `r:id` of a `sldId` (its relationship attribute, local name `id` after the plain `id`).
fn node_rid(node: &Node) -> Option<String> {
    match node {
        Node::Open { attributes, .. } => attributes
            .iter()
            .filter(|(key, _)| key == "id")
            .map(|(_, value)| value.clone())
            .find(|value| value.starts_with("rId") || value.parse::<u64>().is_err()),
        _ => None,
    }
}

/// An `.odp`: `draw:page` elements of `content.xml` in order; the frame of class `title` is the title,
/// `presentation:notes` the notes.
pub fn extract_odp(
    archive: &mut Archive<'_>,
    limits: &ExtractionLimits,
) -> Result<ExtractedDocument, DocumentError> {
    let content = required(archive, "content.xml", limits)?;
    let slides = odp_slides(&content);
    let mut out = TextBuilder::new();
    let count = slides.len();
    for (index, slide) in slides.into_iter().enumerate() {
        let title = (!slide.title.is_empty()).then(|| slide.title.join(" "));
        write_slide(
            &mut out,
            index as u32 + 1,
            count,
            title,
            slide.body,
            slide.notes,
            false,
        );
    }
    Ok(out.finish(DocumentFormat::Odp))
}

/// One `draw:page` of an `.odp`: the trimmed, non-empty paragraphs of its title frame, of its other frames and of
/// its notes.
#[derive(Default)]
struct OdpSlide {
    title: Vec<String>,
    body: Vec<String>,
    notes: Vec<String>,
}

/// The pages of an `.odp`'s `content.xml` nodes, in order.
fn odp_slides(nodes: &[Node]) -> Vec<OdpSlide> {
    let mut walk = OdpWalk::default();
    for node in nodes {
        match node {
            Node::Open { name, .. } => walk.open(name, node),
            Node::Close(name) => walk.close(name),
            Node::Text(text) => {
                if let Some(p) = walk.paragraph.as_mut() {
                    p.push_str(text);
                }
            }
        }
    }
    walk.slides
}

/// One walk over an `.odp`'s `content.xml` ([`odp_slides`]): where it is (a page, its notes, a title frame) and
/// the paragraph being read.
#[derive(Default)]
struct OdpWalk {
    slides: Vec<OdpSlide>,
    in_page: bool,
    in_notes: bool,
    frame_is_title: bool,
    paragraph: Option<String>,
}

impl OdpWalk {
    /// An element opens: a page starts a slide, a paragraph inside a page starts one, `text:s` is a space and
    /// `text:line-break` a line break in the paragraph.
    fn open(&mut self, name: &str, node: &Node) {
        match name {
            "page" => {
                self.in_page = true;
                self.slides.push(OdpSlide::default());
            }
            "notes" => self.in_notes = true,
            "frame" => self.frame_is_title = node.attribute("class") == Some("title"),
            "p" | "h" if self.in_page => self.paragraph = Some(String::new()),
            "s" => {
                if let Some(p) = self.paragraph.as_mut() {
                    p.push(' ');
                }
            }
            "line-break" => {
                if let Some(p) = self.paragraph.as_mut() {
                    p.push('\n');
                }
            }
            _ => {}
        }
    }

    /// An element closes: a paragraph goes, trimmed, to the last slide's notes, title or body.
    fn close(&mut self, name: &str) {
        match name {
            "page" => self.in_page = false,
            "notes" => self.in_notes = false,
            "frame" => self.frame_is_title = false,
            "p" | "h" => self.close_paragraph(),
            _ => {}
        }
    }

    /// A paragraph ends: its trimmed text, when not empty, joins the last slide's notes, title or body.
    fn close_paragraph(&mut self) {
        let (Some(p), Some(slide)) = (self.paragraph.take(), self.slides.last_mut()) else {
            return;
        };
        let p = p.trim().to_string();
        if p.is_empty() {
            return;
        }
        if self.in_notes {
            slide.notes.push(p);
        } else if self.frame_is_title {
            slide.title.push(p);
        } else {
            slide.body.push(p);
        }
    }
}
