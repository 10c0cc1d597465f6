//! `read_many`: several files in one call, in order, under one shared budget. Each file is read by the session's
//! own read (the same guards, ignore rules, session memory and stubs), with the budget the files before it left;
//! a file that did not fit at all is left out and named with the call that reads it. The budget covers all the
//! text the files put in the answer: each window and its frame (the `==> path <==` line, the hint and warnings, a
//! stub's or an error's message), with a share kept for the call's own hint.

use super::*;
use crate::image::ImageBudget;
use crate::prose::{grouped, plural};
use crate::text::window_tail;
use crate::tokens::estimate_tokens;

/// Paths a `read_many` call may name, glob matches included.
pub const MAX_MANY_FILES: usize = 200;

/// What separates one file's text from the next in the answer's text: a blank line.
pub const FILE_SEPARATOR: &str = "\n\n";

/// A file is still tried while this share of the call's budget is left (1/40: 2,500 of 100,000 characters), and
/// the same share is kept for the call's hint.
const MIN_SHARE_DIVISOR: u64 = 40;

/// What a file's hint and warnings are assumed to cost before it is read, in characters: its window is read with
/// the budget left less this and its `==> path <==` line, then its frame is charged as it came out.
const FRAME_ALLOWANCE_CHARS: u64 = 320;

/// The images of one call share one picture's base64 ([`MAX_BASE64_BYTES`](crate::image::MAX_BASE64_BYTES)):
/// each is read with what the images before it left, and once less than this sixteenth is left the files after
/// are left out.
const MIN_IMAGE_SHARE_DIVISOR: u64 = 16;

/// Pixels a model token stands for in a picture (Anthropic's `width * height / 750`): what an image costs in
/// token mode.
const PIXELS_PER_TOKEN: u64 = 750;

/// Names listed in the call's hint for the files read in part and for those left out, at most, and characters
/// of names a list holds at most; the rest are counted.
const MAX_NAMED_IN_HINT: usize = 10;
const MAX_NAMED_CHARS: usize = 400;

/// One `read_many` call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadManyRequest {
    /// Paths, each as a read takes it, or a glob pattern (`*`, `?`, `[...]`, `{a,b}`, `**`) matched against the
    /// files under the grants. Read in the order given; a pattern's matches in name order.
    pub paths: Vec<String>,
    /// Lines of each file at most (clamped to max-lines); `None` for max-lines.
    pub limit: Option<u64>,
    /// Content even for a window the session already returned unchanged (no stubs).
    pub fresh: bool,
}

/// One file of a `read_many` answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ManyFile {
    /// The path as asked for (a glob's match as an absolute path).
    pub requested: String,
    /// The read's answer: a window, a stub, an image, or the error a single read of it gives.
    pub outcome: Result<ReadOutcome, ReadError>,
}

impl ManyFile {
    /// The line the answer's text shows this file under: `==> path <==` and a line break, the path the answer
    /// names (its window's, stub's or error's absolute path), else the path as asked.
    pub fn header(&self) -> String {
        let named = match &self.outcome {
            Ok(ReadOutcome::Window(result)) => Some(result.path.as_str()),
            Ok(ReadOutcome::Unchanged(stub)) => Some(stub.path.as_str()),
            Ok(ReadOutcome::Image(image)) => Some(image.path.as_str()),
            Ok(ReadOutcome::Listing(listing)) => Some(listing.path.as_str()),
            Err(error) => error.path.as_deref(),
        };
        header_line(named.unwrap_or(&self.requested))
    }

    /// The file's text in the answer without its window: the header, the blank line after the window, the hint
    /// and warnings (a stub's or an error's message in their place) and the blank line before the next file.
    fn frame(&self) -> String {
        let tail = match &self.outcome {
            Ok(ReadOutcome::Window(result)) => {
                window_tail(&result.window.content, &result.hint, &result.warnings)
            }
            Ok(ReadOutcome::Listing(listing)) => {
                window_tail(&listing.content, &listing.hint, &listing.warnings)
            }
            Ok(ReadOutcome::Image(image)) => window_tail("", &image.hint, &image.warnings),
            Ok(ReadOutcome::Unchanged(stub)) => stub.message.clone(),
            Err(error) => error.message.clone(),
        };
        format!("{}{tail}{FILE_SEPARATOR}", self.header())
    }
}

/// `==> path <==` and a line break, the path as prose writes it (a name holding a line feed is quoted, so it
/// cannot start a line that looks like another file's).
fn header_line(path: &str) -> String {
    format!("==> {} <==\n", crate::prose::path_in_prose(path))
}

/// A file `read_many` did not read because the budget was spent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The path as asked for (a glob's match as an absolute path).
    pub path: String,
}

/// What a `read_many` call returns.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadManyResult {
    /// The files read, in order.
    pub files: Vec<ManyFile>,
    /// The files left out for the budget, in order: each is read by a read of its path.
    pub left_out: Vec<LeftOut>,
    /// The shared budget: its limit and what the files' text (windows and frames) used of it.
    pub budget: BudgetReport,
    /// The census and what to do next, in words.
    pub hint: String,
    /// Notes on how the paths were taken (a glob's refused matches, config warnings).
    pub warnings: Vec<String>,
}

/// What a path of the request names: a file to read, or a pattern's matches.
pub(crate) enum Named {
    /// A path, read as asked.
    Path(String),
    /// A glob pattern's matches (absolute paths, in name order) and the notes on what it matched but refused.
    Matches(Vec<String>, Vec<String>),
}

impl Reader {
    /// Reads each path of `request` in order under one budget, expanding glob patterns with `expand`.
    ///
    /// Errors: no paths, or more than [`MAX_MANY_FILES`] once patterns are expanded (`invalid_request`, naming the
    /// count), a limit of 0. A file's own error is its answer in `files`, not the call's.
    pub fn read_many<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        request: &ReadManyRequest,
        now_ms: u64,
    ) -> Result<ReadManyResult, ReadError> {
        check_many(request)?;
        let (paths, mut warnings) = self.expanded_paths(fs, &request.paths)?;
        self.begin_counted_call(fs, &paths, request);
        let budget = self.config.budget;
        let limit = budget.limit();
        let min_share = (limit / MIN_SHARE_DIVISOR).max(1);
        // The files' text shares the budget but for the share kept for the call's hint.
        let files_limit = limit.saturating_sub(min_share);
        let mut used = 0u64;
        let mut image_left = crate::image::MAX_BASE64_BYTES;
        let min_image_share = image_left / MIN_IMAGE_SHARE_DIVISOR;
        // Whether the files left out were left out because the images had spent their share.
        let mut images_spent = false;
        let mut files = Vec::new();
        let mut left_out = Vec::new();
        for path in paths {
            let remaining = files_limit.saturating_sub(used);
            let allowance = text_cost(&budget, &header_line(&path))
                .saturating_add(chars_in_unit(&budget, FRAME_ALLOWANCE_CHARS));
            // A file is read with at least the minimum share for its window. Once one file is left out, so is every
            // file after it: the budget left only shrinks.
            let window_budget = remaining.saturating_sub(allowance);
            if !left_out.is_empty() || window_budget < min_share || image_left < min_image_share {
                if left_out.is_empty() {
                    images_spent = window_budget >= min_share;
                }
                left_out.push(LeftOut { path });
                continue;
            }
            let file_request = ReadRequest {
                path: path.clone(),
                limit: request.limit,
                fresh: request.fresh,
                ..ReadRequest::default()
            };
            let outcome = self.read_under(
                fs,
                &file_request,
                now_ms,
                (
                    remaining_budget(&budget, window_budget),
                    image_budget(&budget, window_budget, image_left),
                ),
            );
            image_left = image_left.saturating_sub(base64_of(&outcome));
            let file = ManyFile {
                requested: path,
                outcome,
            };
            let cost = outcome_cost(&budget, &file.outcome)
                .saturating_add(text_cost(&budget, &file.frame()));
            used = used.saturating_add(cost);
            files.push(file);
        }
        self.memory.end_call();
        warnings.append(&mut self.pending_warnings);
        let report = BudgetReport::of(&budget, limit, used);
        Ok(ReadManyResult {
            hint: many_hint(&files, &left_out, &report, images_spent),
            files,
            left_out,
            budget: report,
            warnings,
        })
    }

    /// Opens the call in the tripwire: the same call again and again is a loop, whatever its number of files, and
    /// so is a cycle of it with other reads. A cycle in which a window changed is never a cycle, but the call judges
    /// its files in order, and a file judged before the one that changed would count the run as unchanged (a model
    /// reading its files again after editing one got `loop_blocked` for a file it never touched): when a file of
    /// `paths` may have changed, no file of this call is warned or blocked.
    fn begin_counted_call<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        paths: &[String],
        request: &ReadManyRequest,
    ) {
        let asked = crate::tripwire::print_of(&(paths, request.limit));
        let maybe_changed = self.any_may_have_changed(fs, paths);
        self.memory.begin_call(asked, request.fresh, maybe_changed);
    }

    /// One read with the budget and the image budget of `limits` in place of the session's.
    fn read_under<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        request: &ReadRequest,
        now_ms: u64,
        limits: (Budget, ImageBudget),
    ) -> Result<ReadOutcome, ReadError> {
        let kept = std::mem::replace(&mut self.config.budget, limits.0);
        let kept_image = std::mem::replace(&mut self.image_budget, limits.1);
        let outcome = self.read(fs, request, now_ms);
        self.config.budget = kept;
        self.image_budget = kept_image;
        outcome
    }

    /// Whether a file among `paths` may have changed since this session read it: it was indexed and has since
    /// changed size or modification time, or is gone; or it was missing and is there now. A path never read or
    /// outside the grants is not. One stat a file, of the path it was last read by, for those two kinds alone.
    fn any_may_have_changed<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        paths: &[String],
    ) -> bool {
        paths.iter().any(|path| {
            let resolved = self.resolved_alias(fs, path);
            let missed = self.memory.missed(&resolved);
            // A file with no kept index is not stat'ed: there is nothing to compare it with.
            let kept = self.memory.kept_identities(&resolved);
            if kept.is_empty() && !missed {
                return false;
            }
            let Some((root, relative)) = crate::sandbox::find_root(fs.roots(), &resolved) else {
                return false;
            };
            let Ok(stat) = fs.stat(root, &relative) else {
                return !missed;
            };
            if missed {
                return true;
            }
            let now = crate::index::FileIdentity {
                size: stat.size,
                modified_ns: stat.modified_ns,
            };
            kept.iter().any(|identity| *identity != now)
        })
    }

    /// The request's paths with each glob pattern replaced by its matches; refused when there are more than
    /// [`MAX_MANY_FILES`].
    fn expanded_paths<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        paths: &[String],
    ) -> Result<(Vec<String>, Vec<String>), ReadError> {
        let mut expanded = Vec::new();
        let mut notes = Vec::new();
        for path in paths {
            match self.named(fs, path) {
                Ok(Named::Path(path)) => expanded.push(path),
                Ok(Named::Matches(matches, refused)) => {
                    if matches.is_empty() {
                        notes.push(format!(
                            "The pattern {} matched no file that can be read.",
                            crate::prose::path_in_prose(path)
                        ));
                    }
                    expanded.extend(matches);
                    notes.extend(refused);
                }
                // One pattern that cannot be expanded (a link out of the grant on its way, a bad pattern) is a
                // note: the call's other paths are still read.
                Err(error) => notes.push(format!(
                    "The pattern {} was not expanded: {}",
                    crate::prose::path_in_prose(path),
                    error.message
                )),
            }
            if expanded.len() > MAX_MANY_FILES {
                return Err(ReadError::invalid(format!(
                    "the paths name more than {MAX_MANY_FILES} files; one call reads at most {MAX_MANY_FILES}. \
                     Name fewer files, or a narrower pattern."
                )));
            }
        }
        Ok((expanded, notes))
    }

    /// What `path` names: itself, or (a glob pattern) its matches under the grants.
    fn named<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        path: &str,
    ) -> Result<Named, ReadError> {
        if !crate::glob::is_glob(path) {
            return Ok(Named::Path(path.to_owned()));
        }
        let base = working_directory(&self.config, fs);
        crate::glob::matches(
            fs,
            &self.policy,
            &mut self.ignore,
            path,
            &base,
            MAX_MANY_FILES,
        )
        .map(|(matches, refused)| Named::Matches(matches, refused))
    }
}

/// What `text` costs in `budget`'s unit: its characters, or its estimated tokens.
fn text_cost(budget: &Budget, text: &str) -> u64 {
    match budget {
        Budget::Characters(_) => text.chars().count() as u64,
        Budget::Tokens { .. } => estimate_tokens(text),
    }
}

/// `chars` characters of prose in `budget`'s unit (in token mode two characters a token, more than prose costs).
fn chars_in_unit(budget: &Budget, chars: u64) -> u64 {
    match budget {
        Budget::Characters(_) => chars,
        Budget::Tokens { .. } => chars.div_ceil(2),
    }
}

/// Refuses a `read_many` request with no paths or a limit of 0.
fn check_many(request: &ReadManyRequest) -> Result<(), ReadError> {
    if request.paths.is_empty() {
        return Err(ReadError::invalid(
            "`paths` is empty: name at least one file (or a glob pattern such as src/*.rs) to read.",
        ));
    }
    if request.limit == Some(0) {
        return Err(ReadError::invalid(
            "limit 0 asks for no lines; give a limit of at least 1, or leave it out for the default.",
        ));
    }
    Ok(())
}

/// The characters of an image answer's base64 (four for each three bytes); 0 for any other answer.
fn base64_of(outcome: &Result<ReadOutcome, ReadError>) -> u64 {
    match outcome {
        Ok(ReadOutcome::Image(image)) => (image.window.data.len() as u64).div_ceil(3) * 4,
        _ => 0,
    }
}

/// What an image among a call's files may return: the base64 the images before it left and, in token mode, the
/// pixels the `remaining` tokens pay for (at [`PIXELS_PER_TOKEN`]), each at most the default.
fn image_budget(budget: &Budget, remaining: u64, base64_left: u64) -> ImageBudget {
    let default = ImageBudget::default();
    let max_pixels = match budget {
        Budget::Tokens { .. } => remaining.saturating_mul(PIXELS_PER_TOKEN),
        Budget::Characters(_) => default.max_pixels,
    };
    ImageBudget {
        max_base64_bytes: base64_left.min(default.max_base64_bytes),
        max_pixels: max_pixels.min(default.max_pixels),
        ..default
    }
}

/// `budget` with `remaining` as its limit, in the same unit.
fn remaining_budget(budget: &Budget, remaining: u64) -> Budget {
    match *budget {
        Budget::Characters(_) => Budget::Characters(remaining),
        Budget::Tokens { .. } => Budget::Tokens {
            cap: remaining,
            headroom: 1.0,
        },
    }
}

/// What an answer's window cost of `budget` (its frame is charged apart): a window's or a listing's used budget,
/// in token mode an image's pixels at [`PIXELS_PER_TOKEN`] (in character mode a picture holds no characters),
/// nothing for a stub or an error.
fn outcome_cost(budget: &Budget, outcome: &Result<ReadOutcome, ReadError>) -> u64 {
    match outcome {
        Ok(ReadOutcome::Window(result)) => result.budget.used,
        Ok(ReadOutcome::Listing(listing)) => listing.budget.used,
        Ok(ReadOutcome::Image(image)) => match budget {
            Budget::Tokens { .. } => (u64::from(image.window.width)
                * u64::from(image.window.height))
            .div_ceil(PIXELS_PER_TOKEN),
            Budget::Characters(_) => 0,
        },
        Ok(ReadOutcome::Unchanged(_)) | Err(_) => 0,
    }
}

/// How a call's files came out: read whole, read in part (their paths), unchanged, blocked as a loop, refused or
/// failed.
#[derive(Default)]
struct Tally<'a> {
    whole: u64,
    partial: Vec<&'a str>,
    unchanged: u64,
    blocked: u64,
    failed: u64,
}

impl<'a> Tally<'a> {
    /// Counts `files` by how each came out.
    fn of(files: &'a [ManyFile]) -> Tally<'a> {
        let mut tally = Tally::default();
        for file in files {
            match &file.outcome {
                // A clamped line is read in part too: its clamp marker names the column that continues it.
                Ok(ReadOutcome::Window(result))
                    if result.window.next_offset.is_some()
                        || !result.window.clamped_lines.is_empty() =>
                {
                    tally.partial.push(result.path.as_str())
                }
                Ok(ReadOutcome::Listing(listing)) if listing.next_offset.is_some() => {
                    tally.partial.push(listing.path.as_str())
                }
                Ok(ReadOutcome::Unchanged(_)) => tally.unchanged += 1,
                Ok(_) => tally.whole += 1,
                Err(error) if error.kind == ErrorKind::LoopBlocked => tally.blocked += 1,
                Err(_) => tally.failed += 1,
            }
        }
        tally
    }
}

/// The call's hint: how many files were answered whole, in part, unchanged, blocked or refused, what the budget
/// left out and the call that reads it.
fn many_hint(
    files: &[ManyFile],
    left_out: &[LeftOut],
    budget: &BudgetReport,
    images_spent: bool,
) -> String {
    let Tally {
        whole,
        partial,
        unchanged,
        blocked,
        failed,
    } = Tally::of(files);
    let total = files.len() + left_out.len();
    if files.is_empty() && left_out.is_empty() {
        return "No file was read in this call: its patterns matched no file that can be read (the warnings say \
                which)."
            .to_owned();
    }
    let mut counts = Vec::new();
    if whole > 0 {
        counts.push(format!("{} whole", grouped(whole)));
    }
    if !partial.is_empty() {
        counts.push(format!("{} in part", grouped(partial.len() as u64)));
    }
    if unchanged > 0 {
        counts.push(format!(
            "{} unchanged since an earlier read",
            grouped(unchanged)
        ));
    }
    if blocked > 0 {
        counts.push(format!(
            "{} blocked, asked again with nothing changed",
            grouped(blocked)
        ));
    }
    if failed > 0 {
        counts.push(format!("{} refused or failed", grouped(failed)));
    }
    let counted = if counts.is_empty() {
        String::new()
    } else {
        format!(" ({})", counts.join(", "))
    };
    let mut hint = format!(
        "{} of {} answered in this call{counted}",
        grouped(files.len() as u64),
        plural(total as u64, "file", "files"),
    );
    hint.push_str(&format!(
        "; their text used {} of the budget of {}.",
        grouped(budget.used),
        unit_count(budget)
    ));
    if !partial.is_empty() {
        hint.push_str(&format!(
            " Each file read in part says in its own hint the offset (or the column) that continues it ({}).",
            named_list(&partial)
        ));
    }
    if left_out.is_empty() {
        hint.push_str(" Nothing was left out.");
    } else {
        hint.push_str(&left_out_sentence(files.is_empty(), left_out, images_spent));
    }
    hint
}

/// The hint's sentence on the files left out: which (the last of the call, or all when `none_read`), why (the
/// budget, or the images' share when `images_spent`) and the call that reads them.
fn left_out_sentence(none_read: bool, left_out: &[LeftOut], images_spent: bool) -> String {
    let names: Vec<&str> = left_out.iter().map(|file| file.path.as_str()).collect();
    let which = match (none_read, left_out.len()) {
        (true, 1) => "the one file".to_owned(),
        (true, count) => format!("all {} files", grouped(count as u64)),
        (false, 1) => "the last file".to_owned(),
        (false, count) => format!("the last {} files", grouped(count as u64)),
    };
    let why = if images_spent {
        "once the call's images had used their shared 5 MiB of base64"
    } else {
        "for the budget"
    };
    let next = match (none_read, left_out.len()) {
        (true, _) => {
            "Read each on its own: the budget has no room for the frames of several files."
        }
        (false, 1) => "Read it on its own, or in another call for several files.",
        (false, _) => "Read them in another call for several files, or each on its own.",
    };
    format!(
        " Left out {why}, not read at all: {which} of the call ({}). {next}",
        named_list(&names)
    )
}

/// `names` as prose writes them, joined with commas: the first [`MAX_NAMED_IN_HINT`] within [`MAX_NAMED_CHARS`]
/// (always the first), then how many more: `a, b, then 3 more`.
fn named_list(names: &[&str]) -> String {
    let mut listed = String::new();
    let mut shown = 0usize;
    for name in names.iter().take(MAX_NAMED_IN_HINT) {
        let name = crate::prose::path_in_prose(name);
        if shown > 0 && listed.len() + name.len() > MAX_NAMED_CHARS {
            break;
        }
        if shown > 0 {
            listed.push_str(", ");
        }
        listed.push_str(&name);
        shown += 1;
    }
    match names.len().saturating_sub(shown) {
        0 => listed,
        more => format!("{listed}, then {} more", grouped(more as u64)),
    }
}

/// The budget's limit with its unit: `100,000 characters`, `22,500 tokens`.
fn unit_count(budget: &BudgetReport) -> String {
    match budget.unit {
        BudgetUnit::Characters => plural(budget.limit, "character", "characters"),
        BudgetUnit::Tokens => plural(budget.limit, "token", "tokens"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_that_read_nothing_counts_what_it_left_out_without_empty_counts() {
        let left_out: Vec<LeftOut> = ["/w/a", "/w/b"]
            .into_iter()
            .map(|path| LeftOut { path: path.into() })
            .collect();
        let budget = BudgetReport {
            unit: BudgetUnit::Characters,
            limit: 100,
            used: 0,
            cap: None,
        };
        assert_eq!(
            many_hint(&[], &left_out, &budget, false),
            "0 of 2 files answered in this call; their text used 0 of the budget of 100 characters. Left out for the \
             budget, not read at all: all 2 files of the call (/w/a, /w/b). Read each on its own: the budget has no \
             room for the frames of several files."
        );
    }

    #[test]
    fn the_hint_names_ten_files_within_400_characters_then_counts_the_rest() {
        let short: Vec<String> = (0..25).map(|n| format!("/w/f{n:02}")).collect();
        let short: Vec<&str> = short.iter().map(String::as_str).collect();
        assert_eq!(
            named_list(&short),
            "/w/f00, /w/f01, /w/f02, /w/f03, /w/f04, /w/f05, /w/f06, /w/f07, /w/f08, /w/f09, then 15 more"
        );
        let long = "x".repeat(300);
        let long = [long.as_str(), long.as_str(), "/w/last"];
        assert_eq!(named_list(&long), format!("{}, then 2 more", long[0]));
        assert_eq!(named_list(&["a\nb"]), "\"a\\nb\"");
    }
}
