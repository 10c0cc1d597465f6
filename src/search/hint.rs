//! The words of a search's hint: the census (matches, files with matches, files searched and skipped), which
//! matches the page shows, and the call that continues; "No matches" only for a scope searched whole.

use super::{SearchResult, SkippedCounts};
use crate::prose::{grouped, path_in_prose, plural};

/// `skipped: 3 binary, 1 credential` (the kinds with a count), or empty when nothing was skipped.
fn skipped_words(skipped: &SkippedCounts) -> String {
    let kinds = [
        (skipped.binary, "binary"),
        (skipped.credential, "credential"),
        (skipped.ignored, "ignored"),
        (skipped.too_large, "too large"),
        (
            skipped.unreadable,
            "unreadable (links, special files, read errors)",
        ),
    ];
    let named: Vec<String> = kinds
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, kind)| format!("{} {kind}", grouped(*count)))
        .collect();
    if named.is_empty() {
        String::new()
    } else {
        format!("; skipped, not searched: {}", named.join(", "))
    }
}

/// The hint of `result`: the census first, then the page and the call that continues. `budget` says the budget,
/// not the limit, ended the page.
pub(super) fn search_hint(result: &SearchResult, budget: bool) -> String {
    let scope = path_in_prose(&result.path);
    let searched = format!(
        "{} searched in {scope}{}",
        plural(result.files_searched, "file", "files"),
        skipped_words(&result.skipped)
    );
    let stop = match &result.stopped_before {
        Some(place) => format!(
            " The search stopped at its time limit before {place}: the counts cover what was searched before it \
             only. Search a narrower path (a subdirectory, a file) for the rest."
        ),
        None => String::new(),
    };
    let total = grouped(result.total_matches);
    let files = plural(result.files_with_matches, "file", "files");
    if result.total_matches == 0 {
        let so_far = if result.complete { "" } else { " so far" };
        return format!(
            "No matches{so_far} for {:?} ({searched}).{stop}",
            result.pattern
        );
    }
    if result.matches_returned == 0 {
        return format!(
            "Match {} is past the last: the search found {total} in {files} ({searched}). Use an offset from 1 \
             to {total}.{stop}",
            grouped(result.offset)
        );
    }
    let last = result.offset + result.matches_returned - 1;
    let shown = if result.matches_returned == 1 {
        format!("Match {}", grouped(result.offset))
    } else {
        format!("Matches {}-{}", grouped(result.offset), grouped(last))
    };
    let next = match result.next_offset {
        Some(next) if budget => {
            format!(" The page stopped at the budget. Read on with offset={next}.")
        }
        Some(next) => format!(" Read on with offset={next}."),
        None if result.offset == 1 && result.complete => " This is every match.".to_owned(),
        None => " No match comes after these.".to_owned(),
    };
    format!("{shown} of {total} in {files} ({searched}).{next}{stop}")
}
