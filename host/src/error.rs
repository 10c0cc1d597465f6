//! What can go wrong on the host side of a call ([`HostError`], [`HostErrorKind`]), the per-session bounds that
//! cause some of it ([`SessionLimits`]), and the words that say which bound a failed call ran into.

use std::fmt;
use std::time::Duration;

use wasmtime::Trap;

/// How often the background thread advances the engine's epoch; deadlines are counted in these ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The default deadline of one call into the component: 60 seconds.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);

/// The default cap on a session's linear memory: 256 MiB, in bytes.
pub const DEFAULT_MEMORY_BYTES: usize = 256 * 1024 * 1024;

/// Per-session bounds on the guest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// Wall-clock time one call into the component may take before it is interrupted (measured in
    /// [`EPOCH_TICK`]s, so it is exact to about 10 ms). Default [`DEFAULT_DEADLINE`].
    pub deadline: Duration,
    /// The most linear memory the guest may grow to, in bytes. Default [`DEFAULT_MEMORY_BYTES`].
    pub memory_bytes: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            deadline: DEFAULT_DEADLINE,
            memory_bytes: DEFAULT_MEMORY_BYTES,
        }
    }
}

impl SessionLimits {
    pub(crate) fn deadline_ticks(&self) -> u64 {
        let tick = EPOCH_TICK.as_nanos().max(1);
        let ticks = self.deadline.as_nanos().div_ceil(tick).saturating_add(1);
        u64::try_from(ticks).unwrap_or(u64::MAX).min(u64::MAX / 2)
    }
}

/// What went wrong on the host side of a call (as opposed to a [`ReadError`](crate::ReadError), the component's
/// typed answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostErrorKind {
    /// The guest trapped: a panic, an `unreachable`, an out-of-bounds access.
    Trap,
    /// The call ran past its deadline and was interrupted.
    Deadline,
    /// The guest asked for more linear memory than [`SessionLimits::memory_bytes`].
    MemoryLimit,
    /// A session could not be started: a granted directory could not be opened, or instantiation or the
    /// session constructor failed.
    Start,
}

impl HostErrorKind {
    /// The snake_case name used in JSON: `trap`, `deadline`, `memory_limit`, `start`.
    pub fn as_str(&self) -> &'static str {
        match self {
            HostErrorKind::Trap => "trap",
            HostErrorKind::Deadline => "deadline",
            HostErrorKind::MemoryLimit => "memory_limit",
            HostErrorKind::Start => "start",
        }
    }
}

/// A host-side failure of a call into the component.
///
/// After a trap, a deadline or the memory cap, the session has already been restarted when this is returned
/// ([`HostError::session_restarted`]), and its state is lost. If the restart itself failed, the next call tries
/// again.
#[derive(Clone, Debug)]
pub struct HostError {
    pub(crate) kind: HostErrorKind,
    pub(crate) message: String,
    pub(crate) restarted: bool,
}

impl HostError {
    /// What failed.
    pub fn kind(&self) -> HostErrorKind {
        self.kind
    }

    /// One paragraph saying what failed and what state was lost, e.g. `the read-window component trapped: wasm
    /// trap: wasm `unreachable` instruction executed; the session was restarted: its state (...) is lost ...`.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// True when the session was replaced by a fresh one (it works again, with its state lost).
    pub fn session_restarted(&self) -> bool {
        self.restarted
    }

    /// The error of a component that could not be loaded ([`ReadWindow::load`](crate::ReadWindow::load) failed):
    /// cause
    /// [`HostErrorKind::Start`], the message saying why.
    pub fn load_failed(error: &wasmtime::Error) -> Self {
        HostError {
            kind: HostErrorKind::Start,
            message: format!("could not load the read-window component: {error:#}"),
            restarted: false,
        }
    }

    pub(crate) fn start(error: &wasmtime::Error) -> Self {
        HostError {
            kind: HostErrorKind::Start,
            message: format!("could not start a read-window session: {}", describe(error)),
            restarted: false,
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HostError {}

/// The chain of an error's messages, `outer: inner: root`, without a backtrace.
pub(crate) fn describe(error: &wasmtime::Error) -> String {
    if let Some(trap) = error.downcast_ref::<Trap>() {
        return trap.to_string();
    }
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let text = cause.to_string();
        // A wasm backtrace is attached as context; it is noise in a one-line message.
        if text.starts_with("error while executing at wasm backtrace") {
            continue;
        }
        if parts.last() != Some(&text) {
            parts.push(text);
        }
    }
    if parts.is_empty() {
        error.root_cause().to_string()
    } else {
        parts.join(": ")
    }
}

/// Names what a failed call ran into and says it in words, with the guest's last stderr output if any: the memory
/// cap when the limiter refused a growth (`refused`, over `cap` bytes), the deadline when the call was interrupted,
/// else a trap.
pub(crate) fn classify(
    error: &wasmtime::Error,
    limits: &SessionLimits,
    refused: Option<usize>,
    cap: usize,
    stderr: &str,
) -> (HostErrorKind, String) {
    let (kind, mut detail) = if let Some(asked) = refused {
        (
            HostErrorKind::MemoryLimit,
            format!(
                "it asked for {asked} bytes of linear memory, over the session's cap of {cap} bytes"
            ),
        )
    } else if error.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
        (
            HostErrorKind::Deadline,
            format!(
                "the call ran past its deadline of {:.3} s and was interrupted",
                limits.deadline.as_secs_f64()
            ),
        )
    } else {
        (HostErrorKind::Trap, describe(error))
    };
    if !stderr.is_empty() {
        detail.push_str(&format!(" (guest stderr: {stderr})"));
    }
    (kind, detail)
}
