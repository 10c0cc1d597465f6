//! Tail reads: the last lines of a file, fitted to the budget, and the hint clause that says what was cut.

use super::*;

/// A tail window that shows fewer lines than asked while the file has more lines before it left them out: it is
/// truncated (`limit` when the limit or max-lines capped the tail, `budget` when the budget held fewer), and the
/// hint says how many of the lines asked for are shown and why, before its pointer to the lines before them.
pub(super) fn declare_tail_cut(
    mut result: ReadResult,
    tail: &TailRequest,
    budget: &Budget,
) -> ReadResult {
    let window = &mut result.window;
    if window.lines_returned == 0 || window.start_line <= 1 || window.lines_returned >= tail.asked {
        return result;
    }
    let mut causes = Vec::new();
    if tail.lines < tail.asked {
        window
            .truncated_by
            .retain(|reason| *reason != Truncation::Limit);
        window.truncated_by.push(Truncation::Limit);
        causes.push(tail.capped_by.clone());
    }
    if window.lines_returned < tail.lines {
        if !window.truncated_by.contains(&Truncation::Budget) {
            window.truncated_by.push(Truncation::Budget);
        }
        causes.push(match *budget {
            Budget::Characters(limit) => {
                format!("the {limit}-character budget holds no more")
            }
            Budget::Tokens { cap, .. } => format!("the {cap}-token budget holds no more"),
        });
    }
    let shown = window.lines_returned;
    let verb = if shown == 1 { "is" } else { "are" };
    let clause = format!(
        " You asked for the last {}; {shown} {verb} shown ({}).",
        crate::prose::line_count(tail.asked),
        causes.join("; ")
    );
    // The clause goes right after the first sentence (lines shown, the end of the file), else at the end.
    const END: &str = ": the end of the file.";
    let at = result
        .hint
        .find(END)
        .map_or(result.hint.len(), |at| at + END.len());
    result.hint.insert_str(at, &clause);
    result
}

/// Tail reads that do not fit the budget are tried again with fewer lines at most this many times.
pub(super) const TAIL_ATTEMPTS: u32 = 8;

/// The hint's pointer from a tail window to the lines before it (` The N lines before them are read with
/// offset=A limit=N.`); empty when the window starts at line 1.
pub(super) fn tail_clause(window: &Window, tail: u64) -> String {
    if window.start_line <= 1 || window.lines_returned == 0 {
        return String::new();
    }
    let before = window.start_line - 1;
    let count = before.min(tail.max(1));
    let offset = window.start_line - count;
    let them = if window.lines_returned == 1 {
        "it"
    } else {
        "them"
    };
    if count == 1 {
        format!(" The line before {them} is read with offset={offset} limit=1.")
    } else {
        format!(" The {count} lines before {them} are read with offset={offset} limit={count}.")
    }
}
