//! The capture window's words for the model: the marker line that stands for the omitted text, the hint (what
//! is shown, what is omitted and where the spill holds it, the noise removed, the exit status), one function a
//! sentence.

use super::{CaptureSummary, SpillReport, READ_LIMIT_LINES};
use crate::prose::{grouped, line_span, plural};

/// Where a binary output's raw bytes are, in words: the marker's clause (`it is in the spill /s/capture-1.log, for a
/// binary tool (file, xxd), not the reader`) and the hint's sentence, with a leading space.
pub(super) fn binary_spill_words(spill: &SpillReport) -> (String, String) {
    match (&spill.path, &spill.error) {
        (Some(path), None) => {
            let capped = if spill.capped {
                format!(" (its start: the spill {})", cap_words(spill.cap_chars))
            } else {
                String::new()
            };
            (
                format!("it is in the spill {path}{capped}, for a binary tool (file, xxd), not the reader"),
                format!(
                    " The raw bytes are in {path}{capped}: inspect them with a binary tool (`file {path}`, \
                     `xxd {path} | head`), not with the reader."
                ),
            )
        }
        (_, Some(error)) => (
            format!("the spill failed ({error}), so the bytes are gone"),
            format!(
                " The raw bytes were not kept: {}.",
                spill_failed_words(error)
            ),
        ),
        (None, None) => (
            format!("{NO_SPILL}, so the bytes are gone"),
            format!(" The raw bytes were not kept: {NO_SPILL}."),
        ),
    }
}

/// The lines of the omitted range the spill holds, or why it holds none.
enum SpillCover {
    /// The spill holds lines up to `.0` of the range (all of it, or up to its cap).
    Holds(String, u64),
    /// Nothing of the range is on disk.
    Gone(String),
}

/// What the spill holds of the omitted lines `first` to `last` (1-based): the lines it holds them up to, or why
/// they are gone.
fn spill_cover(spill: &SpillReport, last: u64, first: u64) -> SpillCover {
    let why = spill.error.clone();
    match (&spill.path, why) {
        (Some(path), None) if !spill.capped => SpillCover::Holds(path.clone(), last),
        (Some(path), error) => {
            // A capped or failed spill holds its complete lines, and the fragment after them when it ends inside
            // a line.
            let held = spill.newlines_held + u64::from(spill.cut_line);
            if held >= first {
                SpillCover::Holds(path.clone(), held.min(last))
            } else {
                SpillCover::Gone(match error {
                    Some(error) => format!("the spill {path} failed ({error}) before line {first}"),
                    None => format!(
                        "the spill {path} {} before line {first}",
                        cap_words(spill.cap_chars)
                    ),
                })
            }
        }
        (None, Some(error)) => SpillCover::Gone(spill_failed_words(&error)),
        (None, None) => SpillCover::Gone(NO_SPILL.to_string()),
    }
}

/// The marker line that stands for the omitted lines `first` to `last` (1-based) in the window, without its line
/// break: what is omitted and where the spill holds it, or that it is gone.
pub(super) fn marker_line(
    summary: &CaptureSummary,
    spill: &SpillReport,
    first: u64,
    last: u64,
) -> String {
    // Line numbers are plain (`offset=19970` takes them as they are); counts are grouped.
    let lines = line_span(first, last);
    let omitted = format!(
        "[read-window: {} in {} omitted ({lines} of {})",
        plural(summary.omitted_chars, "character", "characters"),
        plural(summary.omitted_lines, "line", "lines"),
        summary.total_lines
    );
    match spill_cover(spill, last, first) {
        SpillCover::Holds(path, held) if held >= last => {
            format!("{omitted}; they are {lines} of the spill {path}]")
        }
        SpillCover::Holds(path, held) => format!(
            "{omitted}; the spill {path} holds them up to line {held}{} ({}); lines after it are gone]",
            cut_words(spill, held),
            spill_stop(spill)
        ),
        SpillCover::Gone(why) => format!("{omitted}; {why}, so they are gone]"),
    }
}

/// `, whose end is cut off` when the spill's last line `held` is a fragment (the spill stays a byte-prefix of the
/// stream, so the cut is said here, not marked in the file).
fn cut_words(spill: &SpillReport, held: u64) -> &'static str {
    if spill.cut_line && held == spill.newlines_held + 1 {
        " (cut short: the spill ends inside it)"
    } else {
        ""
    }
}

/// Why a spill holds only the start of the omitted lines: `it failed: ...` or `it stopped at its cap of ...`.
fn spill_stop(spill: &SpillReport) -> String {
    match &spill.error {
        Some(error) => format!("it failed: {error}"),
        None => format!("it {}", cap_words(spill.cap_chars)),
    }
}

/// The words for a spill that was never started (its report has neither a path nor an error).
const NO_SPILL: &str = "no spill was made";

/// `the spill failed: {error}`: why the text a failed spill does not hold is gone.
fn spill_failed_words(error: &str) -> String {
    format!("the spill failed: {error}")
}

/// `stopped at its cap of {cap_chars} characters` (grouped), for a spill that reached its cap.
fn cap_words(cap_chars: u64) -> String {
    format!("stopped at its cap of {} characters", grouped(cap_chars))
}

/// `{count} {one or many} collapsed to the line's final state`: the redraws collapsed, `one` and `many` naming
/// them with their verb (`carriage-return redraw was`).
fn collapsed_words(count: u64, one: &str, many: &str) -> String {
    format!(
        "{} collapsed to the line's final state",
        plural(count, one, many)
    )
}

/// The name of POSIX signal `number` (Linux numbering for the common ones), when it has a well-known one.
pub fn signal_name(number: i32) -> Option<&'static str> {
    Some(match number {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => return None,
    })
}

/// The exit status in words: a status from 129 to 159 is how shells report a death by signal `status - 128`
/// (`exit status 137: killed by signal 9 (SIGKILL)`).
pub(super) fn exit_sentence(exit_status: Option<i32>) -> String {
    match exit_status {
        Some(0) => " The command exited with status 0.".to_string(),
        Some(status @ 129..=159) => {
            let signal = status - 128;
            let name = signal_name(signal).map_or(String::new(), |name| format!(" ({name})"));
            format!(" The command failed: exit status {status}, killed by signal {signal}{name}.")
        }
        Some(status) => format!(" The command failed: exit status {status}."),
        None => String::new(),
    }
}

/// The sentences on the noise removed or reinterpreted (lone carriage returns as line breaks, redraws collapsed,
/// invalid bytes replaced), each with a leading space; empty when there was none.
fn noise_sentence(summary: &CaptureSummary) -> String {
    let mut out = String::new();
    if summary.cr_count > 0 {
        out.push_str(&format!(
            " The output has no line feed: its {} split it into lines, as the reader splits a CR-only file.",
            plural(summary.cr_count, "carriage return", "carriage returns")
        ));
    }
    if summary.collapsed_redraws > 0 {
        out.push_str(&format!(
            " {}.",
            collapsed_words(
                summary.collapsed_redraws,
                "carriage-return redraw was",
                "carriage-return redraws were"
            )
        ));
    }
    if summary.replaced_invalid > 0 {
        out.push_str(&format!(
            " {} replaced by U+FFFD.",
            plural(
                summary.replaced_invalid,
                "invalid byte sequence was",
                "invalid byte sequences were"
            )
        ));
    }
    out
}

/// The hint of an output that fit the window. When redraws were collapsed, the window is not the whole output: the
/// hint says so and where the raw stream (every redraw) is, instead of "the whole output".
pub(super) fn whole_hint(
    summary: &CaptureSummary,
    spill: &SpillReport,
    exit_status: Option<i32>,
) -> String {
    let size = format!(
        "{} ({})",
        plural(summary.total_lines, "line", "lines"),
        plural(summary.total_chars, "character", "characters")
    );
    let mut hint = if summary.collapsed_redraws > 0 {
        let mut hint = format!(
            "The output after redraws were collapsed: {size}; {}.",
            collapsed_words(
                summary.collapsed_redraws,
                "carriage-return or erase-line redraw was",
                "carriage-return or erase-line redraws were"
            )
        );
        match (&spill.path, &spill.error) {
            (Some(path), None) => hint.push_str(&format!(
                " The raw output, every redraw included, is in {path} (offset=1)."
            )),
            (_, Some(error)) => hint.push_str(&format!(
                " The raw output with the redraws was not kept: {}.",
                spill_failed_words(error)
            )),
            (None, None) => hint.push_str(" The raw output with the redraws was not kept."),
        }
        if summary.total_lines <= 1 && summary.lf_count + summary.crlf_count == 0 {
            hint.push_str(
                " The output has no line feed at all: if its carriage returns separate records, the reader \
                 splits the raw output on them.",
            );
        }
        hint
    } else {
        let mut hint = format!("The whole output: {size}.");
        if let Some(path) = &spill.path {
            hint.push_str(&format!(" The raw output is also in {path}."));
        }
        hint
    };
    let mut noise = summary.clone();
    noise.collapsed_redraws = 0;
    hint.push_str(&noise_sentence(&noise));
    hint.push_str(&exit_sentence(exit_status));
    hint
}

/// The hint of an overflowed output. `column` is where the omitted text starts inside line `first` when the head
/// ends inside that line (the reader's `column`, 0-based characters); the hint's call then continues there.
pub(super) fn overflow_hint(
    summary: &CaptureSummary,
    spill: &SpillReport,
    exit_status: Option<i32>,
    (head_last, tail_first): (u64, u64),
    (first, last): (u64, u64),
    column: Option<u64>,
) -> String {
    let total = summary.total_lines;
    let head = if head_last == 0 {
        String::new()
    } else {
        format!("{} (head) and ", line_span(1, head_last))
    };
    let mut hint = format!(
        "Output of {} ({}): showing {head}{} (tail, the end of the output); {} in {} are omitted.",
        plural(total, "line", "lines"),
        plural(summary.total_chars, "character", "characters"),
        line_span(tail_first, total),
        plural(summary.omitted_chars, "character", "characters"),
        line_span(first, last),
    );
    let read_to = match spill_cover(spill, last, first) {
        SpillCover::Holds(path, held) => Some((path, held)),
        SpillCover::Gone(why) => {
            hint.push_str(&format!(" They are gone: {why}."));
            None
        }
    };
    if let Some((path, held)) = read_to {
        let lines = held - first + 1;
        let limit = lines.min(READ_LIMIT_LINES);
        let column = column.map_or(String::new(), |column| format!(" column={column}"));
        hint.push_str(&format!(
            " Read them from the spill, not by running the command again: path={path} offset={first}{column} \
             limit={limit}"
        ));
        if lines > limit {
            hint.push_str(", then page on with the cursor");
        }
        hint.push('.');
        if held < last {
            hint.push_str(&format!(
                " The spill holds them only up to line {held}{} ({}).",
                cut_words(spill, held),
                spill_stop(spill)
            ));
        }
    }
    hint.push_str(&noise_sentence(summary));
    hint.push_str(&exit_sentence(exit_status));
    hint
}
