//! The sink of one line: skips the start column, keeps what can be shown, counts the rest.

use super::cut::prefix_of_chars;
use crate::tokens::TokenEstimator;

/// Characters kept past the clamp, so a grapheme boundary at the clamp can be told from the inside of a cluster.
pub(super) const LOOKAHEAD_CHARS: u64 = 8;
/// Characters of the line before the start column kept as context: enough to tell whether the first characters
/// shown are inside a subdivision flag (U+1F3F4, up to six tags, CANCEL TAG) or after an emoji and its modifiers.
pub(super) const CONTEXT_CHARS: usize = 8;
/// Bytes of kept text after which its capacity is reserved by projection (see `LineSink::grow_for`) instead of
/// doubling.
pub(super) const PROJECT_FROM_BYTES: usize = 64 * 1024;

/// Receives the decoded text of one line: skips the start column, keeps the first characters, counts the rest,
/// and holds back a carriage return until it knows whether a line feed follows.
///
/// Memory: `kept` holds at most `keep_chars` characters, however long the line. In token mode the sink also stops
/// keeping [`LOOKAHEAD_CHARS`] characters after the kept text alone costs more than the budget left (see
/// [`TokenStop`]), so a dense line keeps about what can be shown, not the 16 characters a token the bound allows.
pub(super) struct LineSink {
    pub(super) skip: u64,
    pub(super) keep_chars: u64,
    pub(super) kept: String,
    pub(super) kept_chars: u64,
    pub(super) total_chars: u64,
    pub(super) pending_cr: bool,
    /// Token mode: the running estimate of `kept` and where it first went over the budget.
    pub(super) token_stop: Option<TokenStop>,
    /// Characters of the line from the start column to its end, when the index knows the line's length (a long
    /// line read before): then `kept`'s capacity is projected rather than doubled (see `grow_for`).
    pub(super) chars_left: Option<u64>,
    /// The last [`CONTEXT_CHARS`] characters skipped before the start column (empty from column 0).
    pub(super) before: String,
}

/// Token mode: stops a [`LineSink`] from keeping characters once no prefix that long can fit the budget.
///
/// The estimate never decreases as text is pushed, and a line costs at least `estimate(text) * density`, so once
/// `estimate(kept) * density` is over `remaining_units`, no cut at or after the last kept character fits.
pub(super) struct TokenStop {
    pub(super) estimator: TokenEstimator,
    /// The budget left for this line, in tokens.
    pub(super) remaining_units: u64,
    /// The token density multiplier (at least 0.5).
    pub(super) density: f64,
    /// Kept characters (counting the one that crossed) when the estimate first went over the budget.
    pub(super) over_at: Option<u64>,
    /// Invisible characters are shown as visible forms: the estimate prices each as its form (all of them, even
    /// the few an emoji sequence keeps as text: the estimate may only err high).
    pub(super) escape: bool,
    /// Whether the estimate priced a character as its visible form (then it is not the estimate of the text as
    /// the window shows it, and [`TokenStop::estimate_of_kept`] gives none).
    pub(super) priced_visible_forms: bool,
}

impl TokenStop {
    /// The estimate of exactly the kept text as the window shows it, when the sink has one: it never went over
    /// (every kept character was pushed) and priced no character as a visible form.
    pub(super) fn estimate_of_kept(&self) -> Option<&TokenEstimator> {
        (self.over_at.is_none() && !self.priced_visible_forms).then_some(&self.estimator)
    }
}

impl LineSink {
    pub(super) fn new(skip: u64, keep_chars: u64, token_stop: Option<TokenStop>) -> Self {
        LineSink {
            skip,
            keep_chars,
            kept: String::new(),
            kept_chars: 0,
            total_chars: 0,
            pending_cr: false,
            token_stop,
            chars_left: None,
            before: String::new(),
        }
    }

    /// Kept characters (counting the one that crossed) when the token estimate of the kept text went over the
    /// budget; `None` in character mode or when it never did.
    pub(super) fn over_budget_at(&self) -> Option<u64> {
        self.token_stop.as_ref().and_then(|stop| stop.over_at)
    }

    pub(super) fn push(&mut self, piece: &str) {
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
    pub(super) fn finish(&mut self, ended_by_line_feed: bool) {
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

    /// Keeps the last [`CONTEXT_CHARS`] characters of `skipped` and what was skipped before it.
    fn note_skipped(&mut self, skipped: &str) {
        let tail = skipped
            .char_indices()
            .rev()
            .nth(CONTEXT_CHARS - 1)
            .map_or(0, |(byte, _)| byte);
        self.before
            .push_str(skipped.get(tail..).unwrap_or_default());
        let excess = self.before.chars().count().saturating_sub(CONTEXT_CHARS);
        if excess > 0 {
            let cut = self
                .before
                .char_indices()
                .nth(excess)
                .map_or(self.before.len(), |(byte, _)| byte);
            self.before.drain(..cut);
        }
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
                    self.note_skipped(text.get(..byte).unwrap_or_default());
                    self.total_chars += self.skip;
                    self.skip = 0;
                    text = text.get(byte..).unwrap_or_default();
                }
                None => {
                    self.note_skipped(text);
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
                    let kept = self.kept_chars;
                    keep_within_tokens(stop, text, room, kept, &mut self.keep_chars)
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

/// Token mode, before the estimate has gone over: the bytes and characters of `text` to keep (at most `room`),
/// pushing them into the estimate. When the estimate of all `room` characters is within the budget, every shorter
/// prefix is too (the estimate never falls as text grows), so they are kept at once; otherwise
/// [`keep_by_character`] finds the crossing. Both answer the same (`the_chunked_token_keep_is_the_per_character_keep`).
fn keep_within_tokens(
    stop: &mut TokenStop,
    text: &str,
    room: u64,
    kept_chars: u64,
    keep_chars: &mut u64,
) -> (usize, u64) {
    let mut trial = stop.estimator.clone();
    let (byte, taken) = prefix_of_chars(text, room);
    let priced_visible_forms = push_shown_text(
        &mut trial,
        text.get(..byte).unwrap_or_default(),
        stop.escape,
    );
    if !over_budget(&trial, stop) {
        stop.estimator = trial;
        stop.priced_visible_forms |= priced_visible_forms;
        return (byte, taken);
    }
    keep_by_character(stop, text, room, kept_chars, keep_chars)
}

/// Keeps character by character while the estimate is within the budget, then the look-ahead: where it first
/// goes over sets `over_at` and shrinks `keep_chars` to [`LOOKAHEAD_CHARS`] past it.
pub(super) fn keep_by_character(
    stop: &mut TokenStop,
    text: &str,
    room: u64,
    kept_chars: u64,
    keep_chars: &mut u64,
) -> (usize, u64) {
    let mut byte = 0usize;
    let mut taken = 0u64;
    for character in text.chars() {
        if taken >= room {
            break;
        }
        byte += character.len_utf8();
        taken += 1;
        if stop.over_at.is_none() {
            stop.priced_visible_forms |= push_shown(&mut stop.estimator, character, stop.escape);
            if over_budget(&stop.estimator, stop) {
                let over_at = kept_chars + taken;
                stop.over_at = Some(over_at);
                *keep_chars = (*keep_chars).min(over_at.saturating_add(LOOKAHEAD_CHARS));
            }
        }
        if kept_chars + taken >= *keep_chars {
            break;
        }
    }
    (byte, taken)
}

/// Prices `character` as it is shown: an invisible one as its visible form when they are escaped (then true).
fn push_shown(estimator: &mut TokenEstimator, character: char, escape: bool) -> bool {
    match crate::invisible::InvisibleKind::of(character) {
        Some(_) if escape => {
            estimator.push_str(&crate::invisible::visible_form(character));
            true
        }
        _ => {
            estimator.push(character);
            false
        }
    }
}

/// Prices `text` as it is shown, as [`push_shown`] does a character at a time, with the stretches between the
/// invisible characters it escapes pushed whole (`TokenEstimator::push_str` estimates a text as its characters):
/// whether it priced a visible form.
fn push_shown_text(estimator: &mut TokenEstimator, text: &str, escape: bool) -> bool {
    if !escape {
        estimator.push_str(text);
        return false;
    }
    let mut priced_visible_forms = false;
    let mut stretch_start = 0;
    for (at, character) in text.char_indices() {
        if crate::invisible::InvisibleKind::of(character).is_some() {
            estimator.push_str(text.get(stretch_start..at).unwrap_or_default());
            estimator.push_str(&crate::invisible::visible_form(character));
            priced_visible_forms = true;
            stretch_start = at + character.len_utf8();
        }
    }
    estimator.push_str(text.get(stretch_start..).unwrap_or_default());
    priced_visible_forms
}

/// Whether `estimator`'s text costs more than the budget `stop` has left.
fn over_budget(estimator: &TokenEstimator, stop: &TokenStop) -> bool {
    estimator.tokens() as f64 * stop.density > stop.remaining_units as f64
}
