//! The hint: one or two sentences a model follows. They always state the lines shown and the file's total, and,
//! when anything is left, the exact call that continues (Hermes Agent's "Use offset=53 to continue.").

use std::fmt::Write;

use crate::config::Budget;
use crate::window::{Truncation, Window};

/// Files larger than this get a note to page with the cursor (DESIGN.md: large-file hint over 512 KiB).
pub const LARGE_FILE_BYTES: u64 = 512 * 1024;
/// Clamped lines named one by one in the hint; the rest are counted.
const CLAMPED_NAMED: usize = 3;

/// The hint for `window` of `path` (`file_size` bytes) read under `budget`.
pub fn hint(path: &str, window: &Window, budget: &Budget, file_size: u64) -> String {
    let mut out = String::new();
    if window.total_lines == 0 {
        let _ = write!(out, "{path} is empty (0 lines).");
        return out;
    }
    if window.start_line == window.end_line {
        let _ = write!(
            out,
            "Showing line {} of {} in {path}",
            window.start_line, window.total_lines
        );
    } else {
        let _ = write!(
            out,
            "Showing lines {}-{} of {} in {path}",
            window.start_line, window.end_line, window.total_lines
        );
    }
    if window.start_column > 0 {
        let _ = write!(
            out,
            " (line {} from column {})",
            window.start_line, window.start_column
        );
    }
    let stopped_by_budget = window.truncated_by.contains(&Truncation::Budget);
    if stopped_by_budget {
        match *budget {
            Budget::Characters(limit) => {
                let _ = write!(out, "; stopped at the {limit}-character budget");
            }
            Budget::Tokens { cap, .. } => {
                let _ = write!(
                    out,
                    "; stopped at the token budget ({} estimated tokens, under the {cap}-token cap)",
                    window.budget_limit
                );
            }
        }
    } else if window.truncated_by.contains(&Truncation::Limit) {
        let plural = if window.lines_returned == 1 { "" } else { "s" };
        let _ = write!(
            out,
            " (the limit of {} line{plural})",
            window.lines_returned
        );
    }
    match (window.next_offset, window.next_column) {
        (Some(offset), Some(column)) => {
            let _ = write!(
                out,
                ". Line {offset} continues: use offset={offset} column={column} to continue."
            );
        }
        (Some(offset), None) => {
            let _ = write!(out, ". Use offset={offset} to continue.");
        }
        (None, _) => {
            if window.start_line == 1 && window.start_column == 0 && window.clamped_lines.is_empty()
            {
                out.push_str(": the whole file.");
            } else {
                out.push_str(": the end of the file.");
            }
        }
    }
    match window.clamped_lines.as_slice() {
        [] => {}
        [only] => {
            let _ = write!(
                out,
                " Line {} was clamped at {} of {} characters; read the rest with offset={} column={}.",
                only.line, only.shown_chars, only.total_chars, only.line, only.next_column
            );
        }
        clamped => {
            let named: Vec<String> = clamped
                .iter()
                .take(CLAMPED_NAMED)
                .map(|line| format!("offset={} column={}", line.line, line.next_column))
                .collect();
            let _ = write!(
                out,
                " {} lines were clamped; read their rest with {}",
                clamped.len(),
                named.join(", ")
            );
            if clamped.len() > CLAMPED_NAMED {
                let _ = write!(
                    out,
                    " and {} more (see clamped_lines)",
                    clamped.len() - CLAMPED_NAMED
                );
            }
            out.push('.');
        }
    }
    if file_size > LARGE_FILE_BYTES && window.truncated() {
        let _ = write!(
            out,
            " The file is large ({file_size} bytes): page on with the cursor rather than re-reading from line 1."
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::ClampedLine;

    fn window(start: u64, end: u64, total: u64) -> Window {
        Window {
            content: String::new(),
            start_line: start,
            start_column: 0,
            end_line: end,
            lines_returned: end + 1 - start,
            total_lines: total,
            truncated_by: Vec::new(),
            next_offset: None,
            next_column: None,
            clamped_lines: Vec::new(),
            budget_limit: 100_000,
            budget_used: 0,
            estimated_tokens: None,
            replaced_invalid: 0,
        }
    }

    #[test]
    fn budget_hint_names_lines_total_and_the_call() {
        let mut page = window(1, 52, 60);
        page.truncated_by = vec![Truncation::Budget];
        page.next_offset = Some(53);
        assert_eq!(
            hint("a.txt", &page, &Budget::Characters(100_000), 114_000),
            "Showing lines 1-52 of 60 in a.txt; stopped at the 100000-character budget. Use offset=53 to continue."
        );
    }

    #[test]
    fn whole_file_and_clamp_hints() {
        assert_eq!(
            hint("a.txt", &window(1, 3, 3), &Budget::Characters(100_000), 10),
            "Showing lines 1-3 of 3 in a.txt: the whole file."
        );
        let mut clamped = window(1, 1, 1);
        clamped.truncated_by = vec![Truncation::LineLength];
        clamped.clamped_lines = vec![ClampedLine {
            line: 1,
            shown_chars: 2_000,
            total_chars: 160_000,
            next_column: 2_000,
        }];
        assert_eq!(
            hint("m.json", &clamped, &Budget::Characters(100_000), 160_000),
            "Showing line 1 of 1 in m.json: the end of the file. Line 1 was clamped at 2000 of 160000 characters; read the rest with offset=1 column=2000."
        );
    }
}
