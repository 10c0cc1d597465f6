//! Word list numbering (`word/numbering.xml`): each list level's format, text and start, and the marker of an
//! item (`2.`, `b.`, `iv.`, `1.2.`).

use crate::document::xml::Node;

/// The prefix of the list id of items numbered by a `List Number` paragraph style (no `w:numId` of their own).
pub(super) const STYLE_NUMBERING: &str = "style:";

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
pub(super) struct Numbering {
    formats: std::collections::HashMap<String, Vec<(usize, Level)>>,
    /// A list's own start for one of its levels (`w:lvlOverride`/`w:startOverride` of its `w:num`), by list
    /// and level.
    starts: std::collections::HashMap<(String, usize), u32>,
}

impl Numbering {
    /// Reads `word/numbering.xml`'s nodes.
    pub(super) fn of(nodes: &[Node]) -> Self {
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
    pub(super) fn marker(
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
pub(in crate::document) fn list_marker(format: &str, count: u32) -> String {
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
