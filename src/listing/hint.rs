//! The hint of a listing window: the span shown, the census, what stopped the window and the call that continues.

use std::fmt::Write as _;

use super::{EntryCounts, ListingWindow};
use crate::config::Budget;
use crate::prose::{grouped, path_in_prose, plural};

/// The hint of `window`; `directories_at_depth`: directories at its last level a deeper listing would open.
///
/// `Entries 1-200 of 5,000 in /p/dir (4,990 files, 10 directories). Read on with offset=201.`; at the end
/// `... This is the whole listing.` (or `the end of the listing` past the first page).
pub(super) fn hint(window: &ListingWindow, directories_at_depth: u64, budget: &Budget) -> String {
    let path = path_in_prose(&window.path);
    let depth = if window.depth > 1 {
        format!(" to depth {}", window.depth)
    } else {
        String::new()
    };
    if window.total_entries == 0 {
        return format!("{path} is an empty directory: it has no entries{depth}.");
    }
    let mut out = String::new();
    let first = window.offset;
    let last = first.saturating_add(window.entries_returned.saturating_sub(1));
    if window.entries_returned == 1 {
        let _ = write!(out, "Entry {}", grouped(first));
    } else {
        let _ = write!(out, "Entries {}-{}", grouped(first), grouped(last));
    }
    let _ = write!(
        out,
        " of {} in {path}{depth} ({}).",
        grouped(window.total_entries),
        census(&window.counts)
    );
    if window.truncated_by.contains(&"budget") {
        let _ = write!(
            out,
            " The window stopped at the budget of {}.",
            budget_words(budget)
        );
    }
    match window.next_offset {
        Some(next) => {
            let _ = write!(out, " Read on with offset={next}.");
        }
        None if first == 1 => out.push_str(" This is the whole listing."),
        None => out.push_str(" This is the end of the listing."),
    }
    if directories_at_depth > 0 {
        let which = if directories_at_depth == 1 {
            "the directory".to_string()
        } else {
            format!("the {} directories", grouped(directories_at_depth))
        };
        let _ = write!(
            out,
            " depth={} lists what is inside {which}.",
            window.depth.saturating_add(1)
        );
    }
    out
}

/// The counts by kind in words, the kinds present only: `4,990 files, 10 directories, 1 link; 2 not readable`.
fn census(counts: &EntryCounts) -> String {
    let kinds = [
        (counts.files, "file", "files"),
        (counts.directories, "directory", "directories"),
        (counts.links, "link", "links"),
        (counts.other, "special file", "special files"),
    ];
    let mut words = kinds
        .iter()
        .filter(|(count, _, _)| *count > 0)
        .map(|(count, one, many)| plural(*count, one, many))
        .collect::<Vec<_>>()
        .join(", ");
    if counts.not_readable > 0 {
        let _ = write!(words, "; {} not readable", grouped(counts.not_readable));
    }
    words
}

/// The budget in words: `200 characters`, `900 estimated tokens`.
fn budget_words(budget: &Budget) -> String {
    match budget {
        Budget::Characters(limit) => plural(*limit, "character", "characters"),
        Budget::Tokens { .. } => plural(budget.limit(), "estimated token", "estimated tokens"),
    }
}
