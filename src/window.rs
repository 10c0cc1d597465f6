//! The window: the lines of one read, each behind its gutter `N|`, clamped at `max_line_chars` on a grapheme
//! boundary, the whole held under the budget; and the cursor that continues.
//!
//! The window streams: each line is decoded piece by piece; only the characters that can be shown (the clamp plus a
//! few characters of look-ahead to find a grapheme boundary) are kept, the rest of a long line is only counted.

use unicode_segmentation::GraphemeCursor;

use crate::config::Budget;
use crate::decode::Decoder;
use crate::error::{FsError, ReadError};
use crate::index::{LineIndex, LongLineRecorder};
use crate::prose::MARKER_PREFIX;
use crate::scan::{LineEnd, Scanner};
use crate::source::ByteSource;
use crate::tokens::{gutter_tokens, TokenEstimator};

/// Characters kept past the clamp, so a grapheme boundary at the clamp can be told from the inside of a cluster.
const LOOKAHEAD_CHARS: u64 = 8;
/// Bytes of kept text after which its capacity is reserved by projection (see `LineSink::grow_for`) instead of
/// doubling.
const PROJECT_FROM_BYTES: usize = 64 * 1024;

/// Which window to read, after normalization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WindowRequest {
    /// The first line, 1-based, at least 1.
    pub offset: u64,
    /// Characters (Unicode scalar values) to skip in the first line, 0-based.
    pub column: u64,
    /// Lines at most, at least 1.
    pub limit: u64,
}

/// The settings that shape a window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowSettings {
    /// Characters of a line shown before it is clamped.
    pub max_line_chars: u64,
    /// The budget of the formatted content.
    pub budget: Budget,
    /// Token mode: a multiplier on the estimate learned from the host's real counts (1.0 when nothing is known).
    pub density: f64,
}

/// Why a window holds less than the request covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Truncation {
    /// Stopped at `limit` lines with lines left.
    Limit,
    /// Stopped because the next line did not fit the budget.
    Budget,
    /// At least one line was clamped.
    LineLength,
    /// The window ends inside a line.
    MidLine,
}

impl Truncation {
    /// The snake_case name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Truncation::Limit => "limit",
            Truncation::Budget => "budget",
            Truncation::LineLength => "line_length",
            Truncation::MidLine => "mid_line",
        }
    }
}

/// A line cut at the clamp; its rest is read with `offset = line`, `column = next_column`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClampedLine {
    /// The line, 1-based.
    pub line: u64,
    /// Characters shown.
    pub shown_chars: u64,
    /// Characters in the whole line.
    pub total_chars: u64,
    /// The column (0-based) where the unshown rest begins.
    pub next_column: u64,
}

/// One window of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// The formatted lines, each `N|text\n`; a cut line ends in a marker before its `\n`.
    pub content: String,
    /// The first line shown, 1-based.
    pub start_line: u64,
    /// The column the first line starts at, 0-based characters.
    pub start_column: u64,
    /// The last line shown (whole or in part); 0 when nothing was shown.
    pub end_line: u64,
    /// Lines shown (a line cut by the budget counts).
    pub lines_returned: u64,
    /// Lines in the file.
    pub total_lines: u64,
    /// Every reason something was left out, in the order first met.
    pub truncated_by: Vec<Truncation>,
    /// The next line to read, when anything after the window is left.
    pub next_offset: Option<u64>,
    /// The column inside `next_offset` when the window ends inside a line.
    pub next_column: Option<u64>,
    /// The lines cut at the clamp.
    pub clamped_lines: Vec<ClampedLine>,
    /// The budget's limit, in its unit.
    pub budget_limit: u64,
    /// What the content costs, in the budget's unit.
    pub budget_used: u64,
    /// Estimated tokens of the content (computed in token mode only).
    pub estimated_tokens: Option<u64>,
    /// Invalid sequences replaced by U+FFFD in the content's lines.
    pub replaced_invalid: u64,
}

impl Window {
    /// True exactly when something from the requested position to the end of the file is not in the content.
    pub fn truncated(&self) -> bool {
        !self.truncated_by.is_empty()
    }

    fn mark(&mut self, reason: Truncation) {
        if !self.truncated_by.contains(&reason) {
            self.truncated_by.push(reason);
        }
    }
}

/// The marker that ends a line cut at the clamp.
pub fn clamp_marker(line: u64, remaining_chars: u64, next_column: u64) -> String {
    format!(
        " {MARKER_PREFIX}line {line} clamped, {remaining_chars} more characters; read them with offset={line} column={next_column}]"
    )
}

/// The marker that ends a line cut by the budget.
pub fn budget_marker(line: u64, remaining_chars: u64, next_column: u64) -> String {
    format!(
        " {MARKER_PREFIX}budget reached in line {line}, {remaining_chars} more characters; continue with offset={line} column={next_column}]"
    )
}

/// What a line costs in the budget's unit.
#[derive(Debug, Clone, Copy)]
enum Meter {
    Characters,
    Tokens { density: f64 },
}

impl Meter {
    fn of(settings: &WindowSettings) -> Meter {
        match settings.budget {
            Budget::Characters(_) => Meter::Characters,
            Budget::Tokens { .. } => Meter::Tokens {
                density: settings.density,
            },
        }
    }

    /// The cost of the formatted line `N|text marker\n`, where `text_chars` is the character count of `text`.
    fn line_cost(self, line: u64, text: &str, text_chars: u64, marker: &str) -> u64 {
        match self {
            Meter::Characters => {
                decimal_digits(line) + 1 + text_chars + marker.chars().count() as u64 + 1
            }
            Meter::Tokens { density } => {
                let mut estimator = TokenEstimator::new();
                estimator.push_str(text);
                estimator.push_str(marker);
                let raw = gutter_tokens(line) + estimator.tokens() + 1;
                ((raw as f64) * density).ceil() as u64
            }
        }
    }

    /// An upper bound on the characters of the text of line `line` that can cost at most `units` behind its gutter
    /// and before `marker`: exact in character mode, unbounded in token mode (where `chars_bound` and the sink's
    /// [`TokenStop`] bound the text instead).
    fn text_chars_within(self, line: u64, marker: &str, units: u64) -> u64 {
        match self {
            Meter::Characters => {
                units.saturating_sub(decimal_digits(line) + 1 + marker.chars().count() as u64 + 1)
            }
            Meter::Tokens { .. } => u64::MAX,
        }
    }

    /// Token mode: the stop that keeps a line's kept text near what `units` can show; `None` in character mode,
    /// where `chars_bound` is exact.
    fn token_stop(self, units: u64) -> Option<TokenStop> {
        match self {
            Meter::Characters => None,
            Meter::Tokens { density } if density.is_finite() && density > 0.0 => Some(TokenStop {
                estimator: TokenEstimator::new(),
                remaining_units: units,
                density,
                over_at: None,
            }),
            Meter::Tokens { .. } => None,
        }
    }

    /// An upper bound on the characters of a line that can cost at most `units`.
    fn chars_bound(self, units: u64) -> u64 {
        match self {
            Meter::Characters => units,
            // No character is estimated below 1/8 of a token, and the density is at least 0.5.
            Meter::Tokens { .. } => units.saturating_mul(16),
        }
    }
}

/// Digits in the decimal form of `number`.
pub fn decimal_digits(number: u64) -> u64 {
    u64::from(number.checked_ilog10().unwrap_or(0)) + 1
}

/// Appends the gutter `N|` of line `line` to `content`: the digits as `format!("{line}|")` writes them, without
/// the formatting machinery (a page writes 2,000 of them).
fn push_gutter(content: &mut String, line: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = line;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &digit in digits.get(at..).unwrap_or_default() {
        content.push(char::from(digit));
    }
    content.push('|');
}

/// Receives the decoded text of one line: skips the start column, keeps the first characters, counts the rest,
/// and holds back a carriage return until it knows whether a line feed follows.
///
/// Memory: `kept` holds at most `keep_chars` characters, however long the line. In token mode the sink also stops
/// keeping [`LOOKAHEAD_CHARS`] characters after the kept text alone costs more than the budget left (see
/// [`TokenStop`]), so a dense line keeps about what can be shown, not the 16 characters a token the bound allows.
struct LineSink {
    skip: u64,
    keep_chars: u64,
    kept: String,
    kept_chars: u64,
    total_chars: u64,
    pending_cr: bool,
    /// Token mode: the running estimate of `kept` and where it first went over the budget.
    token_stop: Option<TokenStop>,
    /// Characters of the line from the start column to its end, when the index knows the line's length (a long
    /// line read before): then `kept`'s capacity is projected rather than doubled (see `grow_for`).
    chars_left: Option<u64>,
}

/// Token mode: stops a [`LineSink`] from keeping characters once no prefix that long can fit the budget.
///
/// The estimate never decreases as text is pushed, and a line costs at least `estimate(text) * density`, so once
/// `estimate(kept) * density` is over `remaining_units`, no cut at or after the last kept character fits.
struct TokenStop {
    estimator: TokenEstimator,
    /// The budget left for this line, in tokens.
    remaining_units: u64,
    /// The token density multiplier (at least 0.5).
    density: f64,
    /// Kept characters (counting the one that crossed) when the estimate first went over the budget.
    over_at: Option<u64>,
}

impl LineSink {
    fn new(skip: u64, keep_chars: u64, token_stop: Option<TokenStop>) -> Self {
        LineSink {
            skip,
            keep_chars,
            kept: String::new(),
            kept_chars: 0,
            total_chars: 0,
            pending_cr: false,
            token_stop,
            chars_left: None,
        }
    }

    /// Kept characters (counting the one that crossed) when the token estimate of the kept text went over the
    /// budget; `None` in character mode or when it never did.
    fn over_budget_at(&self) -> Option<u64> {
        self.token_stop.as_ref().and_then(|stop| stop.over_at)
    }

    fn push(&mut self, piece: &str) {
        if piece.is_empty() {
            return;
        }
        if self.pending_cr {
            self.pending_cr = false;
            self.take("\r");
        }
        match piece.strip_suffix('\r') {
            Some(body) => {
                self.take(body);
                self.pending_cr = true;
            }
            None => self.take(piece),
        }
    }

    /// Ends the line; a held carriage return is part of the text unless a line feed followed it.
    fn finish(&mut self, ended_by_line_feed: bool) {
        if self.pending_cr {
            self.pending_cr = false;
            if !ended_by_line_feed {
                self.take("\r");
            }
        }
    }

    /// Makes room in `kept` for `more` bytes without the waste of plain doubling (up to twice the text, three times
    /// while it is copied). Once the text holds [`PROJECT_FROM_BYTES`], its goal is projected: the characters it
    /// can keep (`keep_chars`, the line's rest when the index knows it, and in token mode what the budget's tokens
    /// hold at the estimate so far) at the bytes a character seen so far, with 2% to spare. When the line's length
    /// is known, the capacity is reserved once at the goal; when it is not (its first read: the line may end
    /// soon), the capacity doubles but never past the goal. Text denser later than at its start grows past the goal
    /// by a quarter at a time.
    fn grow_for(&mut self, more: usize) {
        let needed = self.kept.len().saturating_add(more);
        let capacity = self.kept.capacity();
        if needed <= capacity || self.kept.len() < PROJECT_FROM_BYTES {
            return;
        }
        let kept_chars = self.kept_chars.max(1) as f64;
        let mut goal_chars = self.keep_chars.min(self.chars_left.unwrap_or(u64::MAX)) as f64;
        // Once over the token budget, `keep_chars` is exact (the look-ahead past the crossing).
        if let Some(stop) = self
            .token_stop
            .as_ref()
            .filter(|stop| stop.over_at.is_none())
        {
            let tokens = stop.estimator.tokens().max(1) as f64;
            goal_chars =
                goal_chars.min(kept_chars * (stop.remaining_units as f64 / stop.density) / tokens);
        }
        let bytes_per_char = self.kept.len() as f64 / kept_chars;
        // A float beyond usize saturates in the cast; the goal is only a capacity hint.
        let goal = ((goal_chars * bytes_per_char * 1.02) as usize).saturating_add(64);
        let doubled = capacity.saturating_mul(2);
        let target = if goal < needed {
            // The projection fell short (denser text later): grow by a quarter, not by doubling.
            needed.saturating_add(needed / 4)
        } else if self.chars_left.is_some() {
            goal
        } else {
            doubled.min(goal)
        };
        self.kept
            .reserve_exact(target.max(needed) - self.kept.len());
    }

    fn take(&mut self, mut text: &str) {
        if text.is_empty() {
            return;
        }
        if self.skip > 0 {
            // Skip `skip` characters: all of `text` when it holds no more than that.
            // On wasm32 a skip of 2^32 characters or more must not wrap: no piece holds that many.
            let skip = usize::try_from(self.skip).unwrap_or(usize::MAX);
            match text.char_indices().nth(skip) {
                Some((byte, _)) => {
                    self.total_chars += self.skip;
                    self.skip = 0;
                    text = text.get(byte..).unwrap_or_default();
                }
                None => {
                    let chars = text.chars().count() as u64;
                    self.skip -= chars;
                    self.total_chars += chars;
                    return;
                }
            }
        }
        let room = self.keep_chars.saturating_sub(self.kept_chars);
        if room > 0 {
            let (byte, taken) = match self.token_stop.as_mut() {
                Some(stop) if stop.over_at.is_none() => {
                    // Keep character by character while the estimate is within the budget, then the look-ahead.
                    let mut byte = 0usize;
                    let mut taken = 0u64;
                    for character in text.chars() {
                        if taken >= room {
                            break;
                        }
                        byte += character.len_utf8();
                        taken += 1;
                        if stop.over_at.is_none() {
                            stop.estimator.push(character);
                            if stop.estimator.tokens() as f64 * stop.density
                                > stop.remaining_units as f64
                            {
                                let over_at = self.kept_chars + taken;
                                stop.over_at = Some(over_at);
                                self.keep_chars =
                                    self.keep_chars.min(over_at.saturating_add(LOOKAHEAD_CHARS));
                            }
                        }
                        if self.kept_chars + taken >= self.keep_chars {
                            break;
                        }
                    }
                    (byte, taken)
                }
                _ => prefix_of_chars(text, room),
            };
            let taken_text = text.get(..byte).unwrap_or_default();
            self.grow_for(taken_text.len());
            self.kept.push_str(taken_text);
            self.kept_chars += taken;
            self.total_chars += taken;
            text = text.get(byte..).unwrap_or_default();
        }
        if !text.is_empty() {
            self.total_chars += text.chars().count() as u64;
        }
    }
}

/// The byte length and character count of the first `chars` characters of `text` (all of it when shorter).
fn prefix_of_chars(text: &str, chars: u64) -> (usize, u64) {
    if (text.len() as u64) <= chars {
        return (text.len(), text.chars().count() as u64);
    }
    match text.char_indices().nth(chars as usize) {
        Some((byte, _)) => (byte, chars),
        None => (text.len(), text.chars().count() as u64),
    }
}

/// The largest grapheme boundary of `text` at or below `byte` (a character boundary of `text`), as a byte index;
/// 0 when there is none above 0. The end of `text` is a boundary only when `complete` (the text is the whole rest
/// of the line): otherwise the characters after it are unknown.
///
/// Streams over the text with a [`GraphemeCursor`]: no list of boundaries is built, so a cut costs no memory per
/// character. `text` is the kept text, which runs [`LOOKAHEAD_CHARS`] past any cut that can be asked for, so the
/// boundary at `byte` is known.
fn grapheme_floor(text: &str, complete: bool, byte: usize) -> usize {
    if byte == 0 {
        return 0;
    }
    if byte >= text.len() {
        if complete {
            return text.len();
        }
    } else {
        let mut cursor = GraphemeCursor::new(byte, text.len(), true);
        if cursor.is_boundary(text, 0) == Ok(true) {
            return byte;
        }
    }
    let mut cursor = GraphemeCursor::new(byte.min(text.len()), text.len(), true);
    match cursor.prev_boundary(text, 0) {
        Ok(Some(boundary)) => boundary,
        _ => 0,
    }
}

/// A prefix of `text` that is a candidate cut: (byte index, characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    byte: usize,
    chars: u64,
}

/// The text `text` with its character count, for cuts by character count.
struct CutText<'a> {
    text: &'a str,
    chars: u64,
    complete: bool,
}

impl<'a> CutText<'a> {
    fn new(text: &'a str, complete: bool) -> Self {
        CutText {
            text,
            chars: text.chars().count() as u64,
            complete,
        }
    }

    /// The prefix of `chars` characters (all of the text when it is shorter), cut at a character boundary.
    fn at_char(&self, chars: u64) -> Cut {
        if chars >= self.chars {
            return Cut {
                byte: self.text.len(),
                chars: self.chars,
            };
        }
        // ASCII text: a character is a byte.
        if self.text.len() as u64 == self.chars {
            return Cut {
                byte: chars as usize,
                chars,
            };
        }
        let byte = usize::try_from(chars)
            .ok()
            .and_then(|chars| self.text.char_indices().nth(chars))
            .map_or(self.text.len(), |(byte, _)| byte);
        Cut { byte, chars }
    }

    /// The longest prefix of at most `chars` characters that ends on a grapheme boundary (empty when none does).
    fn grapheme_at_or_below(&self, chars: u64) -> Cut {
        let at = self.at_char(chars);
        let byte = grapheme_floor(self.text, self.complete, at.byte);
        if byte == at.byte {
            return at;
        }
        let dropped = self
            .text
            .get(byte..at.byte)
            .map_or(at.chars, |slice| slice.chars().count() as u64);
        Cut {
            byte,
            chars: at.chars.saturating_sub(dropped),
        }
    }

    fn prefix(&self, cut: Cut) -> &'a str {
        self.text.get(..cut.byte).unwrap_or_default()
    }
}

/// The largest `chars` in `0..=upper` for which `holds(chars)` is true, where `holds` is true up to some point and
/// false after it; `None` when it does not hold even at 0. Tries `upper` first (in character mode the caller's
/// bound is exact, so one test decides), then bisects: `O(log upper)` tests and no memory.
fn last_holding(upper: u64, holds: &mut dyn FnMut(u64) -> bool) -> Option<u64> {
    if holds(upper) {
        return Some(upper);
    }
    if !holds(0) {
        return None;
    }
    // holds(low) and !holds(high).
    let (mut low, mut high) = (0u64, upper);
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        if holds(middle) {
            low = middle;
        } else {
            high = middle;
        }
    }
    Some(low)
}

/// The longest prefix of `text` of at most `max_chars` characters ending on a grapheme boundary for which
/// `fits(prefix, chars)` holds: (byte index, characters). Falls back to a character boundary when a single
/// grapheme cluster is longer than what fits. `fits` must hold for every shorter prefix when it holds for one
/// (the cost of a line grows with its text).
///
/// Memory: none per character (the boundaries are found by bisection, not listed).
fn best_cut(
    text: &str,
    complete: bool,
    max_chars: u64,
    fits: &dyn Fn(&str, u64) -> bool,
) -> (usize, u64) {
    let cut_text = CutText::new(text, complete);
    let upper = max_chars.min(cut_text.chars);
    let on_grapheme = last_holding(upper, &mut |chars| {
        let cut = cut_text.grapheme_at_or_below(chars);
        fits(cut_text.prefix(cut), cut.chars)
    })
    .map(|chars| cut_text.grapheme_at_or_below(chars))
    .filter(|cut| cut.chars > 0);
    if let Some(cut) = on_grapheme {
        return (cut.byte, cut.chars);
    }
    // No grapheme boundary fits: cut at the longest character boundary that does.
    match last_holding(upper, &mut |chars| {
        let cut = cut_text.at_char(chars);
        fits(cut_text.prefix(cut), cut.chars)
    }) {
        Some(chars) => {
            let cut = cut_text.at_char(chars);
            (cut.byte, cut.chars)
        }
        None => (0, 0),
    }
}

/// Reads the window `request` of the file indexed by `index` through `scanner`.
///
/// `decoder_encoding` comes from the index. Errors: an offset past the last line, or a column past the end of the
/// first line, is `invalid-request`; a failed read is `io` (described by `FsError`, turned into a `ReadError` with
/// `path`).
pub fn read_window<S: ByteSource>(
    scanner: &mut Scanner<S>,
    index: &mut LineIndex,
    request: &WindowRequest,
    settings: &WindowSettings,
    path: &str,
) -> Result<Window, ReadError> {
    let shown = crate::prose::path_in_prose(path);
    let path: &str = &shown;
    let total_lines = index.total_lines();
    let meter = Meter::of(settings);
    let limit_units = settings.budget.limit();
    let mut window = Window {
        content: String::new(),
        start_line: request.offset,
        start_column: request.column,
        end_line: 0,
        lines_returned: 0,
        total_lines,
        truncated_by: Vec::new(),
        next_offset: None,
        next_column: None,
        clamped_lines: Vec::new(),
        budget_limit: limit_units,
        budget_used: 0,
        estimated_tokens: None,
        replaced_invalid: 0,
    };
    if total_lines == 0 {
        if request.offset == 1 && request.column == 0 {
            window.start_line = 1;
            return Ok(window);
        }
        return Err(ReadError::invalid(format!(
            "offset {} is past the end of {path}: the file is empty (0 lines).",
            request.offset
        ))
        .with_total_lines(0));
    }
    if request.offset > total_lines {
        return Err(ReadError::invalid(format!(
            "offset {} is past the end of {path}, which has {}. Use an offset from 1 to {total_lines}.",
            request.offset,
            crate::prose::line_count(total_lines)
        ))
        .with_total_lines(total_lines));
    }
    let io = |error: FsError| error.into_read_error(path);
    let (checkpoint_line, checkpoint_offset) = index.locate(request.offset);
    scanner.seek(checkpoint_offset);
    let skipped = scanner
        .skip_lines(request.offset - checkpoint_line)
        .map_err(io)?;
    if skipped < request.offset - checkpoint_line {
        return Err(ReadError::new(
            crate::error::ErrorKind::Io,
            format!("{path} changed while it was being read (it has fewer lines than its index says). Read it again."),
        ));
    }

    let mut decoder = Decoder::new(index.encoding());
    let mut line = request.offset;
    let mut column = request.column;
    // The kept text of a line shown whole, cleared and handed to the next line's sink: one allocation a window,
    // not one a line.
    let mut spare = String::new();
    while line <= total_lines {
        if window.lines_returned >= request.limit {
            window.mark(Truncation::Limit);
            window.next_offset = Some(line);
            break;
        }
        let remaining_units = limit_units.saturating_sub(window.budget_used);
        // A window that starts inside a line (a cursor with a column) is a continuation: its first line shows as
        // much as the budget allows. Every other line is clamped at max-line-length, which protects the lines
        // after it.
        let max_line_chars = if column > 0 {
            u64::MAX
        } else {
            settings.max_line_chars
        };
        let keep = max_line_chars
            .min(meter.chars_bound(remaining_units))
            .saturating_add(LOOKAHEAD_CHARS);
        let line_start = scanner.position();
        let known = index.long_line(line).map(|long| {
            let (base_chars, base_byte) = long
                .checkpoint_at_or_below(column)
                .unwrap_or((0, line_start));
            (
                long.total_chars,
                long.next_line_offset,
                base_chars,
                base_byte,
            )
        });
        let (mut sink, line_replaced) = match known {
            Some((total_chars, next_line_offset, base_chars, base_byte)) => {
                // A long line read before: start at the column checkpoint, stop once the window has its
                // characters, and take the length and the next line's start from what was learned.
                if column > total_chars {
                    return Err(column_past_end(column, line, total_chars, path));
                }
                scanner.seek(base_byte);
                let mut sink =
                    LineSink::new(column - base_chars, keep, meter.token_stop(remaining_units));
                sink.total_chars = base_chars;
                sink.chars_left = Some(total_chars - column);
                let mut line_decoder = Decoder::new(index.encoding());
                let end = scanner
                    .read_line_until(&mut |bytes| {
                        line_decoder.feed(bytes, &mut |piece| sink.push(piece));
                        sink.skip > 0 || sink.kept_chars < sink.keep_chars
                    })
                    .map_err(io)?;
                if end != LineEnd::Stopped {
                    line_decoder.finish(&mut |piece| sink.push(piece));
                    sink.finish(end == LineEnd::LineFeed);
                }
                sink.total_chars = total_chars;
                scanner.seek(next_line_offset);
                (sink, line_decoder.replaced())
            }
            None => {
                let mut sink = LineSink::new(column, keep, meter.token_stop(remaining_units));
                sink.kept = std::mem::take(&mut spare);
                let mut recorder = LongLineRecorder::new(line_start);
                let mut consumed = 0u64;
                let replaced_before = decoder.replaced();
                let ended_by_line_feed = scanner
                    .read_line(&mut |bytes| {
                        decoder.feed(bytes, &mut |piece| sink.push(piece));
                        consumed += bytes.len() as u64;
                        if decoder.at_boundary() && !sink.pending_cr {
                            recorder.offer(sink.total_chars, line_start + consumed);
                        }
                    })
                    .map_err(io)?;
                decoder.finish(&mut |piece| sink.push(piece));
                sink.finish(ended_by_line_feed);
                if sink.skip > 0 {
                    return Err(column_past_end(column, line, sink.total_chars, path));
                }
                if let Some(long_line) =
                    recorder.finish(sink.total_chars, line_start + consumed, scanner.position())
                {
                    index.remember_long_line(line, long_line);
                }
                (sink, decoder.replaced() - replaced_before)
            }
        };
        let rest_chars = sink.total_chars - column;
        let complete = sink.kept_chars == rest_chars;
        let text = sink.kept.as_str();

        if rest_chars <= max_line_chars {
            if complete {
                let cost = meter.line_cost(line, text, rest_chars, "");
                if window.budget_used + cost <= limit_units {
                    push_line(&mut window, limit_units, line, text, "");
                    window.budget_used += cost;
                    window.replaced_invalid += line_replaced;
                    window.lines_returned += 1;
                    window.end_line = line;
                    line += 1;
                    column = 0;
                    spare = std::mem::take(&mut sink.kept);
                    spare.clear();
                    continue;
                }
            }
        } else if sink
            .over_budget_at()
            .is_none_or(|over_at| over_at > max_line_chars)
        {
            // Clamp at a grapheme boundary at or below the limit, if the clamped line fits the budget. (In token
            // mode the sink may have stopped keeping before the clamp: then the clamped line cannot fit.)
            let (byte, shown) = best_cut(text, complete, max_line_chars, &|_: &str, _: u64| true);
            let shown_text = text.get(..byte).unwrap_or_default();
            let next = column + shown;
            let marker = clamp_marker(line, rest_chars - shown, next);
            let cost = meter.line_cost(line, shown_text, shown, &marker);
            // It is the line-length cut only when the clamped line fits the budget; else the budget cuts it.
            if shown > 0 && window.budget_used + cost <= limit_units {
                push_line(&mut window, limit_units, line, shown_text, &marker);
                window.budget_used += cost;
                window.replaced_invalid += line_replaced;
                window.lines_returned += 1;
                window.end_line = line;
                window.clamped_lines.push(ClampedLine {
                    line,
                    shown_chars: shown,
                    total_chars: sink.total_chars,
                    next_column: next,
                });
                window.mark(Truncation::LineLength);
                line += 1;
                column = 0;
                continue;
            }
        }

        // The line does not fit the budget. Later lines wait for the next window; the first line is cut inside.
        if window.lines_returned > 0 {
            window.mark(Truncation::Budget);
            window.next_offset = Some(line);
            window.next_column = (column > 0).then_some(column);
            break;
        }
        let marker_reserve = budget_marker(line, sink.total_chars, sink.total_chars);
        let fits = |prefix: &str, chars: u64| {
            meter.line_cost(line, prefix, chars, &marker_reserve) <= remaining_units
        };
        let max_shown =
            max_line_chars.min(meter.text_chars_within(line, &marker_reserve, remaining_units));
        let (byte, shown) = best_cut(text, complete, max_shown, &fits);
        if shown == 0 {
            return Err(ReadError::invalid(format!(
                "the budget of {limit_units} is too small to show any of line {line} of {path}; raise the budget."
            )));
        }
        let next = column + shown;
        let marker = budget_marker(line, rest_chars - shown, next);
        let shown_text = text.get(..byte).unwrap_or_default();
        window.budget_used += meter.line_cost(line, shown_text, shown, &marker);
        push_line(&mut window, limit_units, line, shown_text, &marker);
        window.replaced_invalid += line_replaced;
        window.lines_returned += 1;
        window.end_line = line;
        window.mark(Truncation::Budget);
        window.mark(Truncation::MidLine);
        window.next_offset = Some(line);
        window.next_column = Some(next);
        break;
    }
    if let Budget::Tokens { .. } = settings.budget {
        window.estimated_tokens = Some(window.budget_used);
    }
    Ok(window)
}

fn column_past_end(column: u64, line: u64, line_chars: u64, path: &str) -> ReadError {
    let path = crate::prose::path_in_prose(path);
    ReadError::invalid(format!(
        "column {column} is past the end of line {line} of {path}, which has {line_chars} characters. Use a column from 0 to {line_chars}."
    ))
}

/// Appends `N|text marker\n` to the window's content (before its cost is added to `budget_used`).
///
/// The content grows without the waste of plain doubling: the first line gets exactly what it needs (so a window
/// of one long line holds no spare capacity); later, once the content holds [`PROJECT_FROM_BYTES`], its capacity
/// doubles but never past the goal projected from the budget left (`limit_units - budget_used`) at the bytes a
/// unit of budget has cost so far, with 2% to spare. A window that stops early (its limit, the end of the file)
/// holds at most twice its content, as with doubling.
fn push_line(window: &mut Window, limit_units: u64, line: u64, text: &str, marker: &str) {
    let gutter = usize::try_from(decimal_digits(line)).unwrap_or(20) + 1;
    let content = &mut window.content;
    let needed = content
        .len()
        .saturating_add(gutter + text.len() + marker.len() + 1);
    let capacity = content.capacity();
    if needed > capacity {
        let doubled = capacity.saturating_mul(2);
        let used = window.budget_used;
        let goal = if used > 0 && content.len() >= PROJECT_FROM_BYTES {
            let bytes_per_unit = content.len() as f64 / used as f64;
            // A float beyond usize saturates in the cast; the goal is only a capacity hint.
            content
                .len()
                .saturating_add(
                    (limit_units.saturating_sub(used) as f64 * bytes_per_unit * 1.02) as usize,
                )
                .saturating_add(64)
        } else {
            doubled
        };
        let target = if goal < needed {
            doubled
        } else {
            doubled.min(goal)
        };
        content.reserve_exact(target.max(needed) - content.len());
    }
    push_gutter(content, line);
    content.push_str(text);
    content.push_str(marker);
    content.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::TextEncoding;
    use crate::source::MemorySource;

    #[test]
    fn the_gutter_is_written_as_format_writes_it() {
        let mut numbers = vec![0, 1, 9, 10, 99, 100, 2_000, 999_999, u64::MAX - 1, u64::MAX];
        numbers.extend((0..64).map(|shift| 1u64 << shift));
        numbers.extend((1..20).map(|power| 10u64.pow(power) - 1));
        for number in numbers {
            let mut content = String::from("x");
            push_gutter(&mut content, number);
            assert_eq!(content, format!("x{number}|"));
        }
    }

    #[test]
    fn lines_after_a_long_clamped_line_read_as_they_do_alone() {
        // The kept text of each line is reused by the next: a short line after a long one, a long one after short
        // ones, and multibyte text give the lines they give when each is read alone.
        let lines = [
            "short".to_string(),
            "é".repeat(3_000),
            "tail".to_string(),
            "日本語".repeat(10),
            String::new(),
            "x".repeat(1_999),
        ];
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        let whole = read(&text, 1, 0, 2_000, &settings(2_000, 100_000)).unwrap();
        let mut joined = String::new();
        for number in 1..=lines.len() as u64 {
            joined.push_str(
                &read(&text, number, 0, 1, &settings(2_000, 100_000))
                    .unwrap()
                    .content,
            );
        }
        assert_eq!(whole.content, joined);
        assert_eq!(whole.clamped_lines.len(), 1);
        assert_eq!(whole.clamped_lines[0].line, 2);
    }

    fn settings(max_line_chars: u64, budget_chars: u64) -> WindowSettings {
        WindowSettings {
            max_line_chars,
            budget: Budget::Characters(budget_chars),
            density: 1.0,
        }
    }

    fn read(
        text: &str,
        offset: u64,
        column: u64,
        limit: u64,
        settings: &WindowSettings,
    ) -> Result<Window, ReadError> {
        let mut source = MemorySource::new(text.as_bytes().to_vec());
        let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
        let mut index = LineIndex::new(TextEncoding::Utf8, 0);
        index.extend(&mut scanner).unwrap();
        read_window(
            &mut scanner,
            &mut index,
            &WindowRequest {
                offset,
                column,
                limit,
            },
            settings,
            "f.txt",
        )
    }

    #[test]
    fn sixty_lines_of_1900_chars_stop_at_line_52_by_budget() {
        let line = "x".repeat(1_900);
        let text: String = (0..60).map(|_| format!("{line}\n")).collect();
        let window = read(&text, 1, 0, 2_000, &settings(2_000, 100_000)).unwrap();
        assert_eq!(
            (window.start_line, window.end_line, window.lines_returned),
            (1, 52, 52)
        );
        assert_eq!(window.next_offset, Some(53));
        assert_eq!(window.next_column, None);
        assert_eq!(window.truncated_by, vec![Truncation::Budget]);
        assert_eq!(window.content.chars().count() as u64, window.budget_used);
        assert!(window.budget_used <= 100_000);
    }

    #[test]
    fn crlf_is_shown_without_the_carriage_return() {
        let window = read("a\r\nb\r\nc", 1, 0, 10, &settings(2_000, 1_000)).unwrap();
        assert_eq!(window.content, "1|a\n2|b\n3|c\n");
        assert!(!window.truncated());
    }

    #[test]
    fn clamp_lands_on_a_grapheme_boundary_before_a_zwj_emoji() {
        let family = "👨\u{200d}👩\u{200d}👧";
        let text = format!("{}{family}tail\n", "a".repeat(14));
        let window = read(&text, 1, 0, 10, &settings(16, 1_000)).unwrap();
        let clamped = window.clamped_lines[0];
        assert_eq!(clamped.shown_chars, 14);
        assert_eq!(clamped.next_column, 14);
        assert_eq!(clamped.total_chars, 14 + 5 + 4);
        assert!(window
            .content
            .starts_with(&format!("1|{} {MARKER_PREFIX}", "a".repeat(14))));
        assert_eq!(window.next_offset, None);
        assert_eq!(window.truncated_by, vec![Truncation::LineLength]);
        let rest = read(&text, 1, 14, 1, &settings(16, 1_000)).unwrap();
        assert_eq!(rest.content, format!("1|{family}tail\n"));
    }

    #[test]
    fn first_line_over_the_budget_is_cut_inside_with_a_column_cursor() {
        let text = "y".repeat(5_000);
        let window = read(&text, 1, 0, 10, &settings(100_000, 1_000)).unwrap();
        assert!(window.budget_used <= 1_000);
        let next = window.next_column.unwrap();
        assert_eq!(window.next_offset, Some(1));
        assert_eq!(
            window.truncated_by,
            vec![Truncation::Budget, Truncation::MidLine]
        );
        let second = read(&text, 1, next, 10, &settings(100_000, 1_000)).unwrap();
        assert_eq!(second.next_column, Some(next * 2));
    }

    #[test]
    fn offset_past_the_end_names_the_line_count() {
        let error = read("a\nb\n", 5, 0, 10, &settings(2_000, 1_000)).unwrap_err();
        assert!(error.message.contains("has 2 lines"), "{}", error.message);
        let empty = read("", 1, 0, 10, &settings(2_000, 1_000)).unwrap();
        assert_eq!(
            (
                empty.total_lines,
                empty.lines_returned,
                empty.content.as_str()
            ),
            (0, 0, "")
        );
    }

    #[test]
    fn limit_stops_with_a_cursor() {
        let window = read("1\n2\n3\n4\n", 2, 0, 2, &settings(2_000, 1_000)).unwrap();
        assert_eq!(window.content, "2|2\n3|3\n");
        assert_eq!(window.next_offset, Some(4));
        assert_eq!(window.truncated_by, vec![Truncation::Limit]);
    }
    #[test]
    fn windows_inside_a_long_line_use_its_checkpoints_and_match_a_fresh_read() {
        // A 2 MB line of mixed widths (so column checkpoints fall between multibyte characters), then two lines.
        let pieces = ["ab", "é", "中文", "😀", "e\u{301}", "x"];
        let mut long = String::new();
        let mut index_of_piece = 0usize;
        while long.len() < 2_000_000 {
            long.push_str(pieces[index_of_piece % pieces.len()]);
            index_of_piece = index_of_piece * 7 + 3;
            index_of_piece %= 1_000_003;
        }
        let text = format!("first\r\n{long}\r\nafter\nend");
        let chars: Vec<char> = long.chars().collect();
        let settings = settings(1_000, 5_000);
        let mut source = MemorySource::new(text.as_bytes().to_vec());
        let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
        let mut index = LineIndex::new(TextEncoding::Utf8, 0);
        index.extend(&mut scanner).unwrap();
        let mut cold_reads = 0;
        for (round, column) in [
            0u64,
            123_457,
            400_000,
            800_001,
            chars.len() as u64 - 10,
            250_001,
            0,
        ]
        .into_iter()
        .enumerate()
        {
            let before = scanner.reads();
            let window = read_window(
                &mut scanner,
                &mut index,
                &WindowRequest {
                    offset: 2,
                    column,
                    limit: 3,
                },
                &settings,
                "long.txt",
            )
            .unwrap();
            let reads = scanner.reads() - before;
            if round == 0 {
                cold_reads = reads;
                assert!(index.long_line(2).is_some(), "the long line is remembered");
            } else {
                assert!(
                    reads * 4 < cold_reads,
                    "column {column}: {reads} reads, the first read took {cold_reads}"
                );
            }
            let shown_chars = match (window.clamped_lines.first(), window.next_column) {
                (Some(clamped), _) => {
                    assert_eq!(column, 0, "only a read from column 0 is clamped");
                    assert_eq!(clamped.total_chars, chars.len() as u64);
                    clamped.shown_chars
                }
                // A continuation shows what the budget allows, then its cursor.
                (None, Some(next)) => {
                    assert_eq!(window.next_offset, Some(2));
                    assert!(next - column > 1_000, "column {column}: {next}");
                    next - column
                }
                (None, None) => chars.len() as u64 - column,
            };
            let shown: String = window.content["2|".len()..]
                .chars()
                .take(shown_chars as usize)
                .collect();
            let expected: String = chars[column as usize..(column + shown_chars) as usize]
                .iter()
                .collect();
            assert_eq!(shown, expected, "column {column}");
            // The lines after the long one are found from what was learned.
            if column + shown_chars >= chars.len() as u64 - 10 {
                assert!(
                    window.content.ends_with("3|after\n4|end\n"),
                    "{}",
                    &window.content[window.content.len() - 40..]
                );
            }
        }
        let past = read_window(
            &mut scanner,
            &mut index,
            &WindowRequest {
                offset: 2,
                column: chars.len() as u64 + 1,
                limit: 1,
            },
            &settings,
            "long.txt",
        );
        assert!(past.is_err());
    }
}
