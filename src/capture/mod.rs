//! The capture window: a command's output stream, pushed as bytes in chunks of any size, becomes a *head*, one
//! *marker* line and a rolling *tail*, in memory bounded by the window whatever the stream's length.
//!
//! This module is pure (no I/O): decoding (UTF-8 with invalid sequences replaced and counted, a character or a
//! `\r\n` split across chunks handled), terminal noise (ANSI escape sequences removed, carriage-return redraws
//! collapsed to the line's final state), the head and the tail, the counts, the marker and the hint. The spill of
//! the raw stream to a file is the job of [`crate::spill`], which tells [`StreamWindow::finish`] how it went.
//!
//! Units: characters are Unicode scalar values of the cleaned text (a line break counts as one character), lines
//! are 1-based and split on `\n` exactly as the reader splits a file (a last line without a line break counts),
//! bytes are bytes of the raw stream. Noise removal never adds or removes a line break, so a line number of the
//! window is the same line number in the spill.
//!
//! Its files: `clean` removes the terminal noise, `head_tail` keeps the head and the rolling tail and chooses
//! where the tail starts, `sentences` writes the marker line and the hint; this file holds the settings, the
//! summary and the window that drives them.

use crate::config::CONFIG_WARNING_PREFIX;
use crate::decode::{Decoder, TextEncoding};
use crate::prose::plural;

mod clean;
mod head_tail;
mod sentences;

use clean::Cleaner;
use head_tail::{count_newlines, lines_in, HeadTail};
use sentences::{binary_spill_words, exit_sentence, marker_line, overflow_hint, whole_hint};

/// The default window: 50,000 characters of head and tail together.
pub const DEFAULT_WINDOW_CHARS: u64 = 50_000;
/// The smallest window a config may ask for, in characters.
pub const MIN_WINDOW_CHARS: u64 = 200;
/// The largest window a config may ask for, in characters (about 40 MiB of linear memory at most).
pub const MAX_WINDOW_CHARS: u64 = 10_000_000;
/// The default share of the window given to the head (the rest is the tail).
pub const DEFAULT_HEAD_SHARE: f64 = 0.4;
/// The largest head share: the tail always keeps at least a tenth of the window.
pub const MAX_HEAD_SHARE: f64 = 0.9;
/// The default cap on the spill file, in characters of the raw stream.
pub const DEFAULT_SPILL_CAP_CHARS: u64 = 5_000_000;
/// The smallest spill cap a config may ask for, in characters.
pub const MIN_SPILL_CAP_CHARS: u64 = 1_000;
/// Lines one read returns at most by default: the limit the hint names for reading the omitted lines.
pub const READ_LIMIT_LINES: u64 = 2_000;
/// A capture's settings, validated. Build it with [`CaptureConfig::from_input`].
#[derive(Debug, Clone, PartialEq)]
pub struct CaptureConfig {
    /// Characters of head, marker-free, plus tail at most; from [`MIN_WINDOW_CHARS`] to [`MAX_WINDOW_CHARS`].
    pub window_chars: u64,
    /// The head's share of the window, from 0 to [`MAX_HEAD_SHARE`].
    pub head_share: f64,
    /// The guest directory the spill file is created in; `None` when the host gave none (nothing can be spilled).
    pub spill_dir: Option<String>,
    /// Characters of the raw stream the spill file keeps at most; from [`MIN_SPILL_CAP_CHARS`] on.
    pub spill_cap_chars: u64,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        CaptureConfig {
            window_chars: DEFAULT_WINDOW_CHARS,
            head_share: DEFAULT_HEAD_SHARE,
            spill_dir: None,
            spill_cap_chars: DEFAULT_SPILL_CAP_CHARS,
        }
    }
}

/// A capture's settings as the host gave them: every field optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaptureInput {
    /// See [`CaptureConfig::window_chars`].
    pub window_chars: Option<u64>,
    /// See [`CaptureConfig::head_share`].
    pub head_share: Option<f64>,
    /// See [`CaptureConfig::spill_dir`].
    pub spill_dir: Option<String>,
    /// See [`CaptureConfig::spill_cap_chars`].
    pub spill_cap_chars: Option<u64>,
}

impl CaptureConfig {
    /// Validates `input`: a value out of its range is replaced by its default and named in a warning
    /// (`config window-chars 5 is invalid (from 200 to 10000000); using the default 50000.`), as for reads.
    pub fn from_input(input: CaptureInput) -> (CaptureConfig, Vec<String>) {
        let mut warnings = Vec::new();
        let mut config = CaptureConfig {
            spill_dir: input.spill_dir.filter(|dir| !dir.trim().is_empty()),
            ..CaptureConfig::default()
        };
        if let Some(chars) = input.window_chars {
            if (MIN_WINDOW_CHARS..=MAX_WINDOW_CHARS).contains(&chars) {
                config.window_chars = chars;
            } else {
                warnings.push(format!(
                    "{CONFIG_WARNING_PREFIX}window-chars {chars} is invalid (from {MIN_WINDOW_CHARS} to \
                     {MAX_WINDOW_CHARS}); using the default {DEFAULT_WINDOW_CHARS}."
                ));
            }
        }
        if let Some(share) = input.head_share {
            if (0.0..=MAX_HEAD_SHARE).contains(&share) {
                config.head_share = share;
            } else {
                warnings.push(format!(
                    "{CONFIG_WARNING_PREFIX}head-share {share} is invalid (from 0 to {MAX_HEAD_SHARE}); using the \
                     default {DEFAULT_HEAD_SHARE}."
                ));
            }
        }
        if let Some(cap) = input.spill_cap_chars {
            if cap >= MIN_SPILL_CAP_CHARS {
                config.spill_cap_chars = cap;
            } else {
                warnings.push(format!(
                    "{CONFIG_WARNING_PREFIX}spill-cap-chars {cap} is invalid (at least {MIN_SPILL_CAP_CHARS}); \
                     using the default {DEFAULT_SPILL_CAP_CHARS}."
                ));
            }
        }
        (config, warnings)
    }

    /// Characters of the window given to the head (rounded down).
    pub fn head_chars(&self) -> usize {
        let window = self.window_chars as f64;
        usize::try_from((window * self.head_share).floor() as u64).unwrap_or(0)
    }

    /// Characters of the window given to the tail: the window less the head.
    pub fn tail_chars(&self) -> usize {
        usize::try_from(self.window_chars)
            .unwrap_or(usize::MAX)
            .saturating_sub(self.head_chars())
    }
}

/// What became of the spill, as [`crate::spill`] reports it to [`StreamWindow::finish`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpillReport {
    /// The guest path of the spill file, when one was created.
    pub path: Option<String>,
    /// Why the spill failed or was never made, when it did (the omitted text it does not hold is gone).
    pub error: Option<String>,
    /// The spill stopped at its cap in characters.
    pub capped: bool,
    /// Line breaks (`\n`) the spill file holds: its lines 1 to this are complete.
    pub newlines_held: u64,
    /// The spill file ends inside a line (its last line, `newlines_held + 1`, is a fragment cut at the cap or at a
    /// failed write); false when it ends with a line break or is empty.
    pub cut_line: bool,
    /// The cap, in characters, for the marker.
    pub cap_chars: u64,
}

/// The finished window of a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureSummary {
    /// The window: the whole cleaned output when it fit, else the head, the marker line and the tail.
    pub content: String,
    /// Characters of the cleaned output (line breaks included).
    pub total_chars: u64,
    /// Lines of the output (a last line without a line break counts; an empty output has 0).
    pub total_lines: u64,
    /// Bytes of the raw stream.
    pub total_bytes: u64,
    /// Characters of the cleaned output that are not in `content` (0 when it fit).
    pub omitted_chars: u64,
    /// Lines with at least one omitted character: `omitted_last - omitted_first + 1`, 0 when none.
    pub omitted_lines: u64,
    /// The first and the last line (1-based) with an omitted character; `None` when nothing was omitted.
    pub omitted_range: Option<(u64, u64)>,
    /// Carriage-return redraws collapsed to the line's final state (`\r` followed by text, not by `\n`).
    pub collapsed_redraws: u64,
    /// Invalid UTF-8 sequences replaced by U+FFFD.
    pub replaced_invalid: u64,
    /// Line breaks that were `\n` alone and that were `\r\n`.
    pub lf_count: u64,
    /// See `lf_count`.
    pub crlf_count: u64,
    /// Line breaks that were a lone `\r`: set when the stream had no `\n` at all and was split on `\r` (a
    /// CR-separated output, see [`crate::spill`]); 0 otherwise.
    pub cr_count: u64,
    /// A sentence for the model: what is shown, what is omitted and where it is, the exit status.
    pub hint: String,
}

impl CaptureSummary {
    /// The line endings the output used: `none`, `lf`, `crlf`, `mixed`, or `cr` (only CRs that were not redraws).
    pub fn line_endings(&self) -> crate::index::LineEndings {
        use crate::index::LineEndings;
        match (self.lf_count, self.crlf_count) {
            (0, 0) if self.cr_count > 0 => LineEndings::Cr,
            (0, 0) => LineEndings::None,
            (_, 0) => LineEndings::Lf,
            (0, _) => LineEndings::Crlf,
            _ => LineEndings::Mixed,
        }
    }
}

/// The pure capture window: push raw chunks, then [`finish`](StreamWindow::finish).
#[derive(Debug)]
pub struct StreamWindow {
    config: CaptureConfig,
    decoder: Decoder,
    cleaner: Cleaner,
    out: HeadTail,
    total_bytes: u64,
    /// The stream was a CR-separated output fed with its `\r` as `\n` (see [`StreamWindow::split_on_cr`]).
    cr_split: bool,
}

impl StreamWindow {
    /// An empty capture window for `config`.
    pub fn new(config: CaptureConfig) -> Self {
        let out = HeadTail::new(&config);
        let hold = out.window;
        StreamWindow {
            decoder: Decoder::new(TextEncoding::Utf8),
            cleaner: Cleaner::new(hold),
            out,
            total_bytes: 0,
            cr_split: false,
            config,
        }
    }

    /// The config in force.
    pub fn config(&self) -> &CaptureConfig {
        &self.config
    }

    /// Redraws collapsed so far (carriage returns followed by text, erase-line and cursor-to-column-1 sequences
    /// that cleared a line).
    pub fn collapsed_redraws(&self) -> u64 {
        self.cleaner.redraws
    }

    /// Marks this window as a CR-separated output whose `\r` the caller turned into `\n` before pushing: the line
    /// breaks are reported as lone `\r` (`cr_count`) and the hint says the output was split on them.
    pub fn split_on_cr(&mut self) {
        self.cr_split = true;
    }

    /// Line breaks (`\n` and `\r\n`) seen so far.
    pub fn line_feeds(&self) -> u64 {
        self.cleaner.lf + self.cleaner.crlf
    }

    /// Decodes and cleans one chunk of the raw stream (any size, split anywhere). Returns true when this chunk
    /// made the output overflow the window: the caller starts the spill then.
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        self.total_bytes += chunk.len() as u64;
        let StreamWindow {
            decoder,
            cleaner,
            out,
            ..
        } = self;
        let mut overflowed = false;
        decoder.feed(chunk, &mut |piece: &str| {
            overflowed |= cleaner.feed(piece, out);
        });
        overflowed
    }

    /// Ends the stream: an open UTF-8 sequence becomes U+FFFD, a line without a final line break is kept, a
    /// trailing `\r` or an unfinished escape sequence is dropped. Returns true when this made the output overflow.
    fn end_stream(&mut self) -> bool {
        let StreamWindow {
            decoder,
            cleaner,
            out,
            ..
        } = self;
        let mut overflowed = false;
        decoder.finish(&mut |piece: &str| {
            overflowed |= cleaner.feed(piece, out);
        });
        cleaner.pending_cr = false;
        if !cleaner.line.is_empty() {
            overflowed |= cleaner.flush(out);
        }
        overflowed
    }

    /// Ends the stream without a spill decision yet: returns true when the last bytes made the output overflow
    /// (the caller then starts the spill before calling [`StreamWindow::finish`]).
    pub fn close(&mut self) -> bool {
        self.end_stream()
    }

    /// The finished result of a binary output (`kind` as [`crate::sniff`] names it): no text window, one line
    /// saying it is binary, its size in bytes and where the raw bytes are, for a binary tool (`file`, `xxd`) and not
    /// the reader. The character and line counts are 0: the output is not text.
    pub fn finish_binary(
        &self,
        kind: &str,
        spill: &SpillReport,
        exit_status: Option<i32>,
    ) -> CaptureSummary {
        let size = plural(self.total_bytes, "byte", "bytes");
        let (line, kept) = binary_spill_words(spill);
        CaptureSummary {
            content: format!("[read-window: the output is binary ({kind}), {size}; {line}]\n"),
            total_chars: 0,
            total_lines: 0,
            total_bytes: self.total_bytes,
            omitted_chars: 0,
            omitted_lines: 0,
            omitted_range: None,
            collapsed_redraws: 0,
            replaced_invalid: self.decoder.replaced(),
            lf_count: 0,
            crlf_count: 0,
            cr_count: 0,
            hint: format!(
                "The output is binary ({kind}), {size}, so no text window is shown.{kept}{}",
                exit_sentence(exit_status)
            ),
        }
    }

    /// The finished window, with the spill's outcome for the marker and the hint, and the command's exit status.
    /// Call [`StreamWindow::close`] first.
    pub fn finish(&self, spill: &SpillReport, exit_status: Option<i32>) -> CaptureSummary {
        let mut summary = self.counts();
        let out = &self.out;
        if !out.overflowed {
            summary.content = out.all.clone();
            summary.hint = whole_hint(&summary, spill, exit_status);
            return summary;
        }
        let ring = out.ring_chars();
        let start = ring.tail_start(self.config.tail_chars(), out.keep);
        let tail = ring.text_from(start);
        let tail_chars = ring.len() - start;
        let tail_starts_line = start > 0 && ring.is_newline(start - 1);
        let (head, head_chars) = out.head(tail_chars);
        let first_omitted = count_newlines(head) + 1;
        let tail_start_line = out.newlines - count_newlines(tail) + 1;
        let last_omitted = if tail_starts_line {
            tail_start_line - 1
        } else {
            tail_start_line
        };
        let last_omitted = last_omitted.max(first_omitted);
        summary.omitted_chars = out.total_chars - (head_chars + tail_chars) as u64;
        summary.omitted_range = Some((first_omitted, last_omitted));
        summary.omitted_lines = last_omitted - first_omitted + 1;
        let marker = marker_line(&summary, spill, first_omitted, last_omitted);
        summary.content = window_content(head, &marker, tail);
        summary.hint = overflow_hint(
            &summary,
            spill,
            exit_status,
            (lines_in(head), tail_start_line),
            (first_omitted, last_omitted),
            self.omitted_column(head),
        );
        summary
    }

    /// The summary's counts (characters, lines, bytes, redraws, replacements, line breaks), with no content, no
    /// omission and no hint yet. A CR-split window reports its line breaks as lone `\r` (`cr_count`).
    fn counts(&self) -> CaptureSummary {
        let out = &self.out;
        let mut summary = CaptureSummary {
            content: String::new(),
            total_chars: out.total_chars,
            total_lines: out.newlines + u64::from(out.total_chars > 0 && !out.ends_in_newline),
            total_bytes: self.total_bytes,
            omitted_chars: 0,
            omitted_lines: 0,
            omitted_range: None,
            collapsed_redraws: self.cleaner.redraws,
            replaced_invalid: self.decoder.replaced(),
            lf_count: self.cleaner.lf,
            crlf_count: self.cleaner.crlf,
            cr_count: 0,
            hint: String::new(),
        };
        if self.cr_split {
            summary.cr_count = summary.lf_count;
            summary.lf_count = 0;
        }
        summary
    }

    /// Where the omitted text starts inside its first line when the head ends inside that line: the column the
    /// reader continues at (0-based, in characters). `None` when the head is empty or ends with a line break, and
    /// when an escape sequence or a redraw was removed (the spill keeps the raw bytes, so the column would be off).
    fn omitted_column(&self, head: &str) -> Option<u64> {
        if head.is_empty() || head.ends_with('\n') {
            None
        } else if self.cleaner.escapes == 0 && self.cleaner.redraws == 0 {
            let line_start = head.rfind('\n').map_or(0, |newline| newline + 1);
            head.get(line_start..)
                .map(|part| part.chars().count() as u64)
        } else {
            None
        }
    }
}

/// The overflowed window: the head (ended with a line break when it ends inside a line), the marker line, the
/// tail.
fn window_content(head: &str, marker: &str, tail: &str) -> String {
    let mut content = String::with_capacity(head.len() + marker.len() + tail.len() + 2);
    content.push_str(head);
    if !head.is_empty() && !head.ends_with('\n') {
        content.push('\n');
    }
    content.push_str(marker);
    content.push('\n');
    content.push_str(tail);
    content
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn config(window: u64) -> CaptureConfig {
        CaptureConfig {
            window_chars: window,
            ..CaptureConfig::default()
        }
    }

    fn run(config: CaptureConfig, chunks: &[&[u8]], spill: &SpillReport) -> CaptureSummary {
        let mut window = StreamWindow::new(config);
        for chunk in chunks {
            window.push(chunk);
        }
        window.close();
        window.finish(spill, None)
    }

    fn spilled(path: &str) -> SpillReport {
        SpillReport {
            path: Some(path.to_string()),
            cap_chars: DEFAULT_SPILL_CAP_CHARS,
            ..SpillReport::default()
        }
    }

    #[test]
    fn output_under_the_window_is_shown_whole() {
        let summary = run(config(200), &[b"one\ntwo\nthree"], &SpillReport::default());
        assert_eq!(summary.content, "one\ntwo\nthree");
        assert_eq!(
            (
                summary.total_chars,
                summary.total_lines,
                summary.total_bytes
            ),
            (13, 3, 13)
        );
        assert_eq!(summary.omitted_chars, 0);
        assert_eq!(summary.omitted_range, None);
        assert_eq!(summary.hint, "The whole output: 3 lines (13 characters).");
    }

    #[test]
    fn overflow_keeps_head_marker_and_tail_on_line_boundaries() {
        // 100 lines of 10 characters ("line NNNN\n"), window 200: head 80 characters, tail 120.
        let text: String = (1..=100).map(|n| format!("line {n:04}\n")).collect();
        let summary = run(
            config(200),
            &[text.as_bytes()],
            &spilled("/spill/capture-1.log"),
        );
        let head: String = (1..=8).map(|n| format!("line {n:04}\n")).collect();
        let tail: String = (89..=100).map(|n| format!("line {n:04}\n")).collect();
        let marker = "[read-window: 800 characters in 80 lines omitted (lines 9-88 of 100); they are lines 9-88 of \
                      the spill /spill/capture-1.log]\n";
        assert_eq!(summary.content, format!("{head}{marker}{tail}"));
        assert_eq!(summary.omitted_chars, 800);
        assert_eq!(summary.omitted_lines, 80);
        assert_eq!(summary.omitted_range, Some((9, 88)));
        assert_eq!(
            summary.hint,
            "Output of 100 lines (1,000 characters): showing lines 1-8 (head) and lines 89-100 (tail, the end of \
             the output); 800 characters in lines 9-88 are omitted. Read them from the spill, not by running the \
             command again: path=/spill/capture-1.log offset=9 limit=80."
        );
    }

    #[test]
    fn an_error_line_just_before_the_tail_is_pulled_into_it() {
        let mut text: String = (1..=80).map(|n| format!("line {n:04}\n")).collect();
        text.push_str("error: E0308\n");
        text.extend((82..=93).map(|n| format!("line {n:04}\n")));
        let summary = run(config(200), &[text.as_bytes()], &spilled("/s/c.log"));
        let head: String = (1..=6).map(|n| format!("line {n:04}\n")).collect();
        let mut tail = "error: E0308\n".to_string();
        tail.extend((82..=93).map(|n| format!("line {n:04}\n")));
        let marker = "[read-window: 740 characters in 74 lines omitted (lines 7-80 of 93); they are lines 7-80 of \
                      the spill /s/c.log]\n";
        assert_eq!(summary.content, format!("{head}{marker}{tail}"));
        assert_eq!(summary.omitted_range, Some((7, 80)));
    }

    #[test]
    fn a_progress_bar_collapses_to_its_final_state() {
        let mut bar = Vec::new();
        for n in 1..=10_000 {
            bar.extend_from_slice(format!("\rprogress {n}%").as_bytes());
        }
        bar.extend_from_slice(b"\ndone\n");
        let summary = run(config(50_000), &[&bar], &SpillReport::default());
        assert_eq!(summary.content, "progress 10000%\ndone\n");
        assert_eq!(summary.collapsed_redraws, 10_000);
        assert_eq!(summary.total_lines, 2);
    }

    #[test]
    fn ansi_colours_and_titles_are_removed() {
        let input = b"\x1b[1;31merror\x1b[0m: bad\n\x1b]0;title\x07ok \x1b(Bdone\r\n";
        let summary = run(config(200), &[input], &SpillReport::default());
        assert_eq!(summary.content, "error: bad\nok done\n");
        assert_eq!((summary.lf_count, summary.crlf_count), (1, 1));
    }

    #[test]
    fn invalid_utf8_is_replaced_and_counted() {
        let summary = run(config(200), &[b"a\xffb\n"], &SpillReport::default());
        assert_eq!(summary.content, "a\u{fffd}b\n");
        assert_eq!(summary.replaced_invalid, 1);
    }

    #[test]
    fn invalid_config_values_fall_back_with_warnings() {
        let (config, warnings) = CaptureConfig::from_input(CaptureInput {
            window_chars: Some(5),
            head_share: Some(1.5),
            spill_dir: Some(" ".into()),
            spill_cap_chars: Some(10),
        });
        assert_eq!(config, CaptureConfig::default());
        assert_eq!(warnings.len(), 3);
        assert_eq!(
            warnings[0],
            "config window-chars 5 is invalid (from 200 to 10000000); using the default 50000."
        );
    }

    #[test]
    fn a_failed_spill_says_the_middle_is_gone() {
        let text: String = (1..=100).map(|n| format!("line {n:04}\n")).collect();
        let spill = SpillReport {
            error: Some("permission denied".into()),
            ..SpillReport::default()
        };
        let summary = run(config(200), &[text.as_bytes()], &spill);
        assert!(summary.content.contains(
            "[read-window: 800 characters in 80 lines omitted (lines 9-88 of 100); the spill failed: permission \
             denied, so they are gone]"
        ));
        assert!(summary
            .hint
            .contains("They are gone: the spill failed: permission denied."));
    }

    #[test]
    fn a_line_longer_than_the_window_gives_the_head_its_start() {
        let text = format!("{}\nerror: late\n", "x".repeat(1_000));
        let summary = run(config(200), &[text.as_bytes()], &spilled("/s/c.log"));
        assert_eq!(
            summary.content,
            format!(
                "{}\n[read-window: 813 characters in 1 line omitted (line 1 of 2); they are line 1 of the spill \
                 /s/c.log]\n{}\nerror: late\n",
                "x".repeat(80),
                "x".repeat(107)
            )
        );
    }

    #[test]
    fn erase_line_spinners_collapse_and_string_sequences_are_removed_whole() {
        let input = b"\x1b[2K\x1b[1G- a\x1b[2K\x1b[1G\\ b\x1b[2K\x1b[Gdone\n\
                      x\x1bPq#0;2;0;0;0#0~~@@vv\x1b\\y\x1b_apc\x1b\\z\x1b]8;;http://e\x07!\n";
        let summary = run(config(200), &[input], &SpillReport::default());
        assert_eq!(summary.content, "done\nxyz!\n");
        assert_eq!(summary.collapsed_redraws, 2);
    }

    #[test]
    fn a_single_line_over_the_window_gives_the_column_of_its_omitted_middle() {
        let summary = run(config(200), &[&[b'x'; 1_000]], &spilled("/s/c.log"));
        assert_eq!(summary.omitted_range, Some((1, 1)));
        assert_eq!(
            summary.hint,
            "Output of 1 line (1,000 characters): showing line 1 (head) and line 1 (tail, the end of the output); \
             800 characters in line 1 are omitted. Read them from the spill, not by running the command again: \
             path=/s/c.log offset=1 column=80 limit=1."
        );
    }

    #[test]
    fn an_exit_status_over_128_names_the_signal() {
        let mut window = StreamWindow::new(config(200));
        window.push(b"x\n");
        window.close();
        let summary = window.finish(&SpillReport::default(), Some(137));
        assert_eq!(
            summary.hint,
            "The whole output: 1 line (2 characters). The command failed: exit status 137, killed by signal 9 \
             (SIGKILL)."
        );
    }

    fn stream() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\x1b[31m".to_vec()),
            Just(b"\x1b]0;t\x07".to_vec()),
            Just("é€😀".as_bytes().to_vec()),
            Just(b"\xff\xc3".to_vec()),
            Just(b"error: x\n".to_vec()),
            "[a-z ]{0,40}".prop_map(String::into_bytes),
            "[a-z]{150,450}".prop_map(String::into_bytes),
        ];
        proptest::collection::vec(piece, 0..120).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_result(
            bytes in stream(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
            window in 200u64..400,
        ) {
            let spill = spilled("/s/capture-1.log");
            let whole = run(config(window), &[&bytes], &spill);
            let mut points: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
            points.sort_unstable();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut from = 0;
            for point in points {
                chunks.push(&bytes[from..point]);
                from = point;
            }
            chunks.push(&bytes[from..]);
            let split = run(config(window), &chunks, &spill);
            prop_assert_eq!(&whole, &split);
            // The window never exceeds its size (the marker line aside), and the counts add up.
            let marker_chars = whole.content.lines().find(|line| line.starts_with("[read-window: "))
                .map_or(0, |line| line.chars().count() + 1 + usize::from(whole.omitted_range.is_some()));
            prop_assert!(whole.content.chars().count() <= window as usize + marker_chars);
            if whole.omitted_range.is_none() {
                prop_assert_eq!(whole.content.chars().count() as u64, whole.total_chars);
            }
            // The last line is always in the window.
            let cleaned_last = whole.content.trim_end_matches('\n').rsplit('\n').next().unwrap_or("");
            prop_assert!(!cleaned_last.starts_with("[read-window: ") || whole.total_chars == 0);
        }
    }
}
