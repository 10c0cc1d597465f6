//! Start-up phase timings of the `read-window` CLI, for finding where a one-shot read spends its time.
//!
//! With [`TIMINGS_ENV`] (`READ_WINDOW_TIMINGS`) set to anything but empty or `0`, the CLI calls [`start`] first
//! thing in `main`, the library calls [`mark`] at the end of each phase of loading the component and of a
//! one-shot read, and the CLI prints [`report`] to stderr just before it exits. Without the variable (and in
//! every embedder that never calls [`start`]) [`mark`] does nothing but load one atomic flag.
//!
//! The report is one line, `read-window: timings: ` followed by space-separated `name=value` pairs:
//! `started_ns=N` (the `CLOCK_MONOTONIC` time when `main` began, in nanoseconds; Unix only), then one
//! `PHASE_us=F` per phase in the order they ended (the wall time since the previous mark, in microseconds with
//! three decimals), then `total_us=F` (from `main` to the last mark) and `ended_ns=N` (the `CLOCK_MONOTONIC` time
//! of the last mark; Unix only). A process that reads the clock with [`monotonic_ns`] before it spawns the CLI
//! and after it exits can so tell the time before `main` (exec, dynamic linking) and after the last mark (exit).
//!
//! The phases of `read-window read`: `args` (argument parsing), `setup` (roots and settings), `engine`
//! (`wasmtime::Engine` configuration), `cache` (finding, checking and mapping the compiled component),
//! `linker` (WASI preview 2 linker and `InstancePre`), `ticker` (the epoch thread), `instantiate` (WASI context,
//! store and instance), `read` (the call into the component), `print` (rendering and writing stdout).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The environment variable that turns the timings on: set and neither empty nor `0`.
pub const TIMINGS_ENV: &str = "READ_WINDOW_TIMINGS";

/// The phases recorded so far, when [`start`] turned recording on.
struct Recording {
    started: Instant,
    started_ns: Option<u64>,
    last: Instant,
    phases: Vec<(&'static str, Duration)>,
}

static RECORDING: Mutex<Option<Recording>> = Mutex::new(None);

/// Whether [`start`] turned recording on: lets [`mark`] return without taking the lock, so threads of an embedder
/// reading in parallel never contend on it.
static ON: AtomicBool = AtomicBool::new(false);

/// Turns recording on when [`TIMINGS_ENV`] asks for it, and starts the clock. Call it first thing in `main`;
/// a second call starts over.
pub fn start() {
    let wanted =
        std::env::var_os(TIMINGS_ENV).is_some_and(|value| !value.is_empty() && value != "0");
    if !wanted {
        return;
    }
    let now = Instant::now();
    if let Ok(mut recording) = RECORDING.lock() {
        *recording = Some(Recording {
            started: now,
            started_ns: monotonic_ns(),
            last: now,
            phases: Vec::new(),
        });
        ON.store(true, Ordering::Release);
    }
}

/// Ends the phase `name`: records the time since the previous mark (or [`start`]). Does nothing (one atomic
/// load) when recording is off.
pub fn mark(name: &'static str) {
    if !ON.load(Ordering::Acquire) {
        return;
    }
    if let Ok(mut guard) = RECORDING.lock() {
        if let Some(recording) = guard.as_mut() {
            let now = Instant::now();
            recording.phases.push((name, now - recording.last));
            recording.last = now;
        }
    }
}

/// The report line (see the module docs), or `None` when recording is off.
pub fn report() -> Option<String> {
    let guard = RECORDING.lock().ok()?;
    let recording = guard.as_ref()?;
    let mut line = String::from("read-window: timings:");
    if let Some(ns) = recording.started_ns {
        line.push_str(&format!(" started_ns={ns}"));
    }
    for (name, took) in &recording.phases {
        line.push_str(&format!(" {name}_us={:.3}", micros(*took)));
    }
    let total = recording.last - recording.started;
    line.push_str(&format!(" total_us={:.3}", micros(total)));
    if let Some(ns) = recording.started_ns {
        let ended = ns.saturating_add(u64::try_from(total.as_nanos()).unwrap_or(u64::MAX));
        line.push_str(&format!(" ended_ns={ended}"));
    }
    Some(line)
}

fn micros(took: Duration) -> f64 {
    took.as_secs_f64() * 1e6
}

/// The `CLOCK_MONOTONIC` time in nanoseconds (the clock `std::time::Instant` reads on Linux), comparable between
/// processes on one machine; `None` where it cannot be read (not Unix).
pub fn monotonic_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable timespec; clock_gettime writes only into it.
        let status = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
        if status != 0 {
            return None;
        }
        let secs = u64::try_from(now.tv_sec).ok()?;
        let nanos = u64::try_from(now.tv_nsec).ok()?;
        secs.checked_mul(1_000_000_000)?.checked_add(nanos)
    }
    #[cfg(not(unix))]
    {
        None
    }
}
