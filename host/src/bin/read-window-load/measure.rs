//! Measurement helpers of `read-window-load`: resident memory, percentiles, the thread's CPU time, the load
//! average and the formats of the tables. A leaf of the binary.

use std::time::Duration;

/// Bytes in a mebibyte.
pub(crate) const MIB: f64 = 1024.0 * 1024.0;

/// The resident memory of this process (`VmRSS` of `/proc/self/status`), in bytes; 0 where it cannot be read.
pub(crate) fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kib| kib.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// The value at `fraction` (0.5 = median) of sorted samples.
pub(crate) fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`); zero where it cannot be read.
pub(crate) fn thread_cpu_time() -> Duration {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable timespec for the duration of the call.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0 {
            return Duration::new(
                u64::try_from(now.tv_sec).unwrap_or(0),
                u32::try_from(now.tv_nsec).unwrap_or(0),
            );
        }
    }
    Duration::ZERO
}

/// The 1-minute load average from `/proc/loadavg`, or `n/a`.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "n/a".to_string())
}

/// `d` in µs, ms or s, whichever reads best.
pub(crate) fn fmt_duration(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1_000.0 {
        format!("{micros:.1} µs")
    } else if micros < 1_000_000.0 {
        format!("{:.2} ms", micros / 1e3)
    } else {
        format!("{:.2} s", micros / 1e6)
    }
}

/// `n` with a comma between groups of three digits (`20,000`).
pub(crate) fn fmt_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `delta` bytes shared over `sessions` sessions, in KiB or MiB.
pub(crate) fn fmt_per_session(delta: i64, sessions: usize) -> String {
    let per = delta as f64 / sessions.max(1) as f64;
    if per.abs() >= MIB {
        format!("{:.2} MiB", per / MIB)
    } else {
        format!("{:.0} KiB", per / 1024.0)
    }
}
