//! What a line costs in the budget's unit: characters, or estimated tokens times the learned density.

use super::sink::TokenStop;
use super::{decimal_digits, WindowSettings};
use crate::config::Budget;
use crate::invisible::LineInvisibles;
use crate::tokens::{gutter_tokens, TokenEstimator};

/// What a line costs in the budget's unit.
#[derive(Debug, Clone, Copy)]
pub(super) enum Meter {
    Characters,
    Tokens { density: f64 },
}

impl Meter {
    pub(super) fn of(settings: &WindowSettings) -> Meter {
        match settings.budget {
            Budget::Characters(_) => Meter::Characters,
            Budget::Tokens { .. } => Meter::Tokens {
                density: settings.density,
            },
        }
    }

    /// The cost of the formatted line `N|text marker\n`, where `text` is a prefix of a line's text, `text_chars`
    /// its character count, and `invisibles` the line's invisible characters: the text is priced as the window
    /// shows it (each escaped invisible character as its visible form).
    pub(super) fn line_cost(
        self,
        line: u64,
        text: &str,
        text_chars: u64,
        marker: &str,
        invisibles: &LineInvisibles,
    ) -> u64 {
        match self {
            Meter::Characters => chars_cost(
                line,
                text_chars
                    + invisibles.extra_chars_before(text.len())
                    + marker.chars().count() as u64,
            ),
            Meter::Tokens { density } => {
                let mut estimator = TokenEstimator::new();
                estimator.push_str(&invisibles.shown(text));
                estimator.push_str(marker);
                tokens_cost(line, &estimator, density)
            }
        }
    }

    /// Whether a plain line priced by [`Meter::plain_line_cost`] is placed where the general path places it:
    /// always in character mode, and in token mode with a density of at least 0.5 (the session keeps it in 0.5-3),
    /// which [`Meter::chars_bound`] assumes.
    pub(super) fn prices_plain_lines(self) -> bool {
        match self {
            Meter::Characters => true,
            Meter::Tokens { density } => density.is_finite() && density >= 0.5,
        }
    }

    /// [`Meter::line_cost`] of a whole line `N|text\n` whose text holds no invisible character (so it is shown as
    /// it is) and carries no marker; `text_chars` is its character count.
    pub(super) fn plain_line_cost(self, line: u64, text: &str, text_chars: u64) -> u64 {
        match self {
            Meter::Characters => chars_cost(line, text_chars),
            Meter::Tokens { density } => {
                let mut estimator = TokenEstimator::new();
                estimator.push_str(text);
                tokens_cost(line, &estimator, density)
            }
        }
    }

    /// [`Meter::line_cost`] of a whole line with no marker, given `estimate`, the sink's estimate of exactly
    /// `text` as the window shows it (see `TokenStop::estimate_of_kept`): the text is not priced again. The same
    /// cost (`a_line_costs_the_same_from_the_sinks_estimate`).
    pub(super) fn line_cost_known(
        self,
        line: u64,
        text: &str,
        text_chars: u64,
        invisibles: &LineInvisibles,
        estimate: Option<&TokenEstimator>,
    ) -> u64 {
        match (self, estimate) {
            (Meter::Tokens { density }, Some(estimate)) => tokens_cost(line, estimate, density),
            _ => self.line_cost(line, text, text_chars, "", invisibles),
        }
    }

    /// An upper bound on the characters of the text of line `line` that can cost at most `units` behind its gutter
    /// and before `marker`: exact in character mode, unbounded in token mode (where `chars_bound` and the sink's
    /// [`TokenStop`] bound the text instead).
    pub(super) fn text_chars_within(self, line: u64, marker: &str, units: u64) -> u64 {
        match self {
            Meter::Characters => {
                units.saturating_sub(decimal_digits(line) + 1 + marker.chars().count() as u64 + 1)
            }
            Meter::Tokens { .. } => u64::MAX,
        }
    }

    /// Token mode: the stop that keeps a line's kept text near what `units` can show (`escape`: invisible
    /// characters are priced as their visible forms); `None` in character mode, where `chars_bound` is exact.
    pub(super) fn token_stop(self, units: u64, escape: bool) -> Option<TokenStop> {
        match self {
            Meter::Characters => None,
            Meter::Tokens { density } if density.is_finite() && density > 0.0 => Some(TokenStop {
                estimator: TokenEstimator::new(),
                remaining_units: units,
                density,
                over_at: None,
                escape,
                priced_visible_forms: false,
            }),
            Meter::Tokens { .. } => None,
        }
    }

    /// An upper bound on the characters of a line that can cost at most `units`.
    pub(super) fn chars_bound(self, units: u64) -> u64 {
        match self {
            Meter::Characters => units,
            // No character is estimated below 1/8 of a token, and the density is at least 0.5.
            Meter::Tokens { .. } => units.saturating_mul(16),
        }
    }
}

/// The characters of the formatted line `N|...\n` of line `line` whose text and marker show `shown_chars`.
fn chars_cost(line: u64, shown_chars: u64) -> u64 {
    decimal_digits(line) + 1 + shown_chars + 1
}

/// The cost in tokens of the formatted line `N|...\n` of line `line` whose text and marker `estimate` priced, at
/// `density`.
fn tokens_cost(line: u64, estimate: &TokenEstimator, density: f64) -> u64 {
    let raw = gutter_tokens(line) + estimate.tokens() + 1;
    ((raw as f64) * density).ceil() as u64
}
