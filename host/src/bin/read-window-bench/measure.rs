//! Measurement helpers: medians, formatting, resident memory, the result rows and their table.

use std::time::{Duration, Instant};

use read_window_host::Session;

/// Bytes in a mebibyte.
pub(super) const MIB: f64 = 1024.0 * 1024.0;

/// `bytes` in B, kB, MB or GB (powers of 1,000), whichever reads best.
pub(super) fn fmt_size(bytes: u64) -> String {
    if bytes >= 1_000_000_000 {
        format!("{:.2} GB", bytes as f64 / 1e9)
    } else if bytes >= 1_000_000 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else if bytes >= 1_000 {
        format!("{:.1} kB", bytes as f64 / 1e3)
    } else {
        format!("{bytes} B")
    }
}

pub(super) fn median(samples: &[Duration]) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

pub(super) fn fmt_duration(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1_000.0 {
        format!("{micros:.1} µs")
    } else if micros < 1_000_000.0 {
        format!("{:.2} ms", micros / 1e3)
    } else {
        format!("{:.2} s", micros / 1e6)
    }
}

pub(super) fn fmt_mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / MIB)
}

pub(super) fn fmt_ratio(ratio: f64) -> String {
    if ratio < 0.01 {
        format!("{ratio:.5}×")
    } else if ratio >= 100.0 {
        format!("{ratio:.0}×")
    } else if ratio >= 10.0 {
        format!("{ratio:.1}×")
    } else {
        format!("{ratio:.2}×")
    }
}

pub(super) fn proc_status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The host's peak RSS over a scenario: resets the high-water mark (`/proc/self/clear_refs` = 5) at the start
/// and reads `VmHWM` at the end.
pub(super) struct RssMark {
    pub(super) start_rss: Option<u64>,
    pub(super) reset: bool,
}

impl RssMark {
    pub(super) fn start() -> Self {
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        RssMark {
            start_rss: proc_status_kib("VmRSS:").map(|kib| kib * 1024),
            reset,
        }
    }

    pub(super) fn end(&self) -> Rss {
        Rss {
            peak: proc_status_kib("VmHWM:").map(|kib| kib * 1024),
            start: self.start_rss,
            reset: self.reset,
        }
    }
}

#[derive(Clone, Copy)]
pub(super) struct Rss {
    pub(super) peak: Option<u64>,
    pub(super) start: Option<u64>,
    pub(super) reset: bool,
}

impl Rss {
    pub(super) fn cell(&self) -> String {
        match (self.peak, self.start) {
            (Some(peak), Some(start)) if self.reset => {
                format!(
                    "{} (+{})",
                    fmt_mib(peak),
                    fmt_mib(peak.saturating_sub(start))
                )
            }
            (Some(peak), _) => format!("{} (not reset)", fmt_mib(peak)),
            _ => "n/a".to_string(),
        }
    }
}

/// One row of a table.
pub(super) struct Row {
    pub(super) read: String,
    pub(super) method: String,
    pub(super) samples: Vec<Duration>,
    pub(super) ratio: Option<f64>,
    pub(super) linear: Option<u64>,
    pub(super) rss: Option<Rss>,
    pub(super) reads: Option<String>,
}

impl Row {
    pub(super) fn new(
        read: impl Into<String>,
        method: impl Into<String>,
        samples: Vec<Duration>,
    ) -> Self {
        Row {
            read: read.into(),
            method: method.into(),
            samples,
            ratio: None,
            linear: None,
            rss: None,
            reads: None,
        }
    }

    pub(super) fn median(&self) -> Duration {
        median(&self.samples)
    }

    pub(super) fn linear(mut self, bytes: u64) -> Self {
        self.linear = Some(bytes);
        self
    }

    pub(super) fn rss(mut self, rss: Rss) -> Self {
        self.rss = Some(rss);
        self
    }

    pub(super) fn reads(mut self, reads: impl Into<String>) -> Self {
        self.reads = Some(reads.into());
        self
    }

    /// The row with its ratio: its median ÷ `base_seconds` (the median, in seconds, of the row it is compared to).
    pub(super) fn ratio_to(mut self, base_seconds: f64) -> Self {
        self.ratio = Some(self.median().as_secs_f64() / base_seconds);
        self
    }
}

/// The positioned reads `session` has made so far (its stats); panics (a fixture error) when the call fails.
pub(super) fn positioned_reads(session: &mut Session) -> u64 {
    session.stats().expect("stats").positioned_reads
}

/// The times of one kind of component read and the positioned reads they made in all.
#[derive(Default)]
pub(super) struct TimedReads {
    /// The time of each read.
    pub(super) times: Vec<Duration>,
    /// The positioned reads of all of them.
    pub(super) positioned_reads: u64,
}

impl TimedReads {
    /// Adds one read: its time and its positioned reads.
    pub(super) fn push(&mut self, (time, positioned_reads): (Duration, u64)) {
        self.times.push(time);
        self.positioned_reads += positioned_reads;
    }

    /// A row of these reads labelled `read` and `method`: the positioned reads per call, `peak` linear memory
    /// and `rss`.
    pub(super) fn row(self, read: String, method: &str, peak: u64, rss: Rss) -> Row {
        let reads = reads_per_call(self.positioned_reads, self.times.len());
        Row::new(read, method, self.times)
            .linear(peak)
            .rss(rss)
            .reads(reads)
    }
}

pub(super) fn reads_per_call(total: u64, calls: usize) -> String {
    let calls = calls.max(1) as u64;
    if total % calls == 0 {
        format!("{}", total / calls)
    } else {
        format!("{:.2}", total as f64 / calls as f64)
    }
}

pub(super) fn print_table(rows: &[Row], ratio_header: &str) {
    println!(
        "| Read | Method | Median time ⏱ | {ratio_header} ⏱ | Runs | Peak linear memory | Peak host RSS (+ growth) | Positioned reads / call |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for row in rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            row.read,
            row.method,
            fmt_duration(row.median()),
            row.ratio.map_or("—".to_string(), fmt_ratio),
            row.samples.len(),
            row.linear.map_or("—".to_string(), fmt_mib),
            row.rss.map_or("—".to_string(), |rss| rss.cell()),
            row.reads.as_deref().unwrap_or("—"),
        );
    }
    println!();
}

pub(super) fn time_runs(runs: usize, mut f: impl FnMut(usize)) -> Vec<Duration> {
    (0..runs)
        .map(|i| {
            let start = Instant::now();
            f(i);
            start.elapsed()
        })
        .collect()
}
