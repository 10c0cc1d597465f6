//! The export glue of the answers with a census: a listing, `read-many` and `search`, core types to WIT types.

use super::exports::read_window::reader::reader::{
    EntryCounts, ListingWindow, ReadError, ReadManyFile, ReadManyRequest, ReadManyResult,
    SearchRequest, SearchResult, SkippedFiles, Truncation,
};
use super::{wit_budget, wit_error, wit_outcome};
use crate::read::{ReadManyRequest as CoreManyRequest, ReadManyResult as CoreManyResult};
use crate::search::{SearchRequest as CoreSearchRequest, SearchResult as CoreSearchResult};

/// A core listing as the WIT record.
pub(super) fn wit_listing(listing: crate::listing::ListingWindow) -> ListingWindow {
    let counts = listing.counts;
    ListingWindow {
        path: listing.path,
        depth: listing.depth,
        total_entries: listing.total_entries,
        counts: EntryCounts {
            files: counts.files,
            directories: counts.directories,
            links: counts.links,
            other: counts.other,
            not_readable: counts.not_readable,
        },
        offset: listing.offset,
        entries_returned: listing.entries_returned,
        next_offset: listing.next_offset,
        truncated_by: listing
            .truncated_by
            .iter()
            .map(|reason| match *reason {
                "budget" => Truncation::Budget,
                _ => Truncation::Limit,
            })
            .collect(),
        content: listing.content,
        hint: listing.hint,
        budget: wit_budget(listing.budget),
        warnings: listing.warnings,
    }
}

/// The WIT request as the core's.
pub(super) fn core_many_request(request: ReadManyRequest) -> CoreManyRequest {
    CoreManyRequest {
        paths: request.paths,
        limit: request.limit,
        fresh: request.fresh.unwrap_or(false),
    }
}

/// A core `read_many` result as the WIT record.
pub(super) fn wit_many_result(result: CoreManyResult) -> ReadManyResult {
    ReadManyResult {
        files: result
            .files
            .into_iter()
            .map(|file| ReadManyFile {
                requested: file.requested,
                outcome: file.outcome.map(wit_outcome).map_err(wit_error),
            })
            .collect(),
        left_out: result.left_out.into_iter().map(|file| file.path).collect(),
        budget: wit_budget(result.budget),
        hint: result.hint,
        warnings: result.warnings,
    }
}

/// The WIT request as the core's (`path` default `.`, the working directory).
pub(super) fn core_search_request(request: SearchRequest) -> CoreSearchRequest {
    CoreSearchRequest {
        pattern: request.pattern,
        path: request.path.unwrap_or_else(|| ".".to_owned()),
        regex: request.regex.unwrap_or(false),
        case_sensitive: request.case_sensitive,
        context_lines: request.context.unwrap_or(0),
        offset: request.offset,
        limit: request.limit,
    }
}

/// A core search result as the WIT record.
pub(super) fn wit_search_result(result: CoreSearchResult) -> SearchResult {
    let skipped = result.skipped;
    SearchResult {
        path: result.path,
        pattern: result.pattern,
        total_matches: result.total_matches,
        files_with_matches: result.files_with_matches,
        files_searched: result.files_searched,
        skipped: SkippedFiles {
            binary: skipped.binary,
            credential: skipped.credential,
            ignored: skipped.ignored,
            too_large: skipped.too_large,
            unreadable: skipped.unreadable,
        },
        complete: result.complete,
        stopped_before: result.stopped_before,
        offset: result.offset,
        matches_returned: result.matches_returned,
        next_offset: result.next_offset,
        content: result.content,
        hint: result.hint,
        warnings: result.warnings,
    }
}

/// A search's outcome as the WIT result.
pub(super) fn wit_search(
    outcome: Result<CoreSearchResult, crate::error::ReadError>,
) -> Result<SearchResult, ReadError> {
    outcome.map(wit_search_result).map_err(wit_error)
}
