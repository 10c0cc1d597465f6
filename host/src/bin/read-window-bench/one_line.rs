//! Section 4: the one-line JSON, windows by column.

use std::time::{Duration, Instant};

use read_window as core;
use read_window_host::{Config, ReadRequest, Session};

use crate::fixtures::Fixture;
use crate::measure::{
    fmt_size, median, positioned_reads, reads_per_call, time_runs, Row, RssMark, TimedReads,
};
use crate::readers::{
    core_request, core_window, native_column_window, no_dedup, no_dedup_core, sed_cut, window, Ctx,
    CORE_REUSED_METHOD, CUT_BYTES, FIRST_READ_METHOD, SECOND_READ_METHOD,
};

pub(super) struct OneLinerReport {
    pub(super) rows: Vec<Row>,
    pub(super) total_chars: u64,
    pub(super) last_column: u64,
    pub(super) step: u64,
    pub(super) last_verified: bool,
}

/// The one-line JSON's first window and its last window reached by cursor (a column read near the end), by the
/// component, `sed | cut`, the native floor and the same core natively; each row with its ratio to the component's
/// second read of the same window.
pub(super) fn one_liner(
    ctx: &mut Ctx<'_>,
    file: &Fixture,
    runs: usize,
    warm_runs: usize,
) -> OneLinerReport {
    let config = no_dedup();
    let first_request = ReadRequest::new(file.guest.clone());
    let (total_chars, step) = cursor_step(ctx, &config, &first_request);
    // The cursor chain visits columns 0, step, 2*step, ...: the last window starts at the last multiple of step.
    let last_column = (total_chars - 1) / step * step;
    let mut one = OneLiner {
        label_first: format!(
            "first window of a {} single-line JSON",
            fmt_size(file.bytes)
        ),
        label_last: format!(
            "last window by cursor (line 1, column {last_column}) of the same JSON"
        ),
        last_request: ReadRequest::new(file.guest.clone())
            .offset(1)
            .column(last_column),
        first_request,
        ctx,
        file,
        runs,
        warm_runs,
        config,
        total_chars,
        step,
        last_column,
    };
    let last_verified = one.last_window_ends_the_file();
    let (mut rows, base_first, base_last) = one.component_rows();
    rows.push(one.sed_cut_row().ratio_to(base_first));
    let [floor_first, floor_last] = one.native_floor_rows();
    rows.push(floor_first.ratio_to(base_first));
    rows.push(floor_last.ratio_to(base_last));
    let [core_first, core_last] = one.native_core_rows();
    rows.push(core_first.ratio_to(base_first));
    rows.push(core_last.ratio_to(base_last));
    OneLinerReport {
        rows,
        total_chars,
        last_column,
        step,
        last_verified,
    }
}

/// The line's length in characters and the cursor chain's step (the columns a window shows), learned from a
/// first read of `first_request` in a session of its own; panics (a fixture error) when the line is not clamped.
fn cursor_step(ctx: &Ctx<'_>, config: &Config, first_request: &ReadRequest) -> (u64, u64) {
    let mut probe = ctx.session(config);
    let first = window(probe.read(first_request), "one-liner first window");
    drop(probe);
    let clamp = first
        .clamped_lines
        .first()
        .expect("the one-liner's line is clamped");
    let (total_chars, step) = (clamp.total_chars, clamp.next_column);
    assert!(
        step > 0 && step < total_chars,
        "the first window's cursor: {clamp:?}"
    );
    (total_chars, step)
}

/// Section 4's measurements of the one-line JSON (see [`one_liner`]), with a method per reader.
struct OneLiner<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    file: &'c Fixture,
    /// Runs of the first reads, `sed | cut` and the native floor's last window.
    runs: usize,
    /// Runs of the second reads and the native floor's first window.
    warm_runs: usize,
    config: Config,
    /// The first window (line 1, column 0).
    first_request: ReadRequest,
    /// The last window of the cursor chain (line 1, `last_column`).
    last_request: ReadRequest,
    /// The `read` cell of the first window's rows.
    label_first: String,
    /// The `read` cell of the last window's rows.
    label_last: String,
    /// The line's length, in characters.
    total_chars: u64,
    /// Characters a window shows, and the columns its cursor moves on.
    step: u64,
    /// The column the last window starts at.
    last_column: u64,
}

impl OneLiner<'_, '_> {
    /// Whether the last window by cursor ends the file (no further cursor, nothing clamped, the JSON's closing
    /// `]`); says on stderr what it returned when it does not.
    fn last_window_ends_the_file(&self) -> bool {
        let mut session = self.ctx.session(&self.config);
        let last = window(session.read(&self.last_request), "one-liner last window");
        let verified = last.next_offset.is_none()
            && last.next_column.is_none()
            && last.clamped_lines.is_empty()
            && last.content().trim_end().ends_with(']');
        if !verified {
            eprintln!(
                "read-window-bench: the last window by cursor did not end the file: next_offset {:?}, next_column {:?}, clamped {:?}, content ends {:?}",
                last.next_offset,
                last.next_column,
                last.clamped_lines,
                last.content().get(last.content().len().saturating_sub(120)..)
            );
        }
        verified
    }

    /// One timed read of `request` in `session`: its time.
    fn timed_read(session: &mut Session, request: &ReadRequest, what: &str) -> Duration {
        let start = Instant::now();
        window(session.read(request), what);
        start.elapsed()
    }

    /// The component's four rows (each window's first read in a fresh session, and its second read), with their
    /// ratios, and the medians of the second reads (seconds) of the first and the last window.
    fn component_rows(&self) -> (Vec<Row>, f64, f64) {
        let rss = RssMark::start();
        let mut cold_first = TimedReads::default();
        let mut cold_last = TimedReads::default();
        let mut peak = 0;
        for _ in 0..self.runs {
            for (request, reads, what) in [
                (&self.first_request, &mut cold_first, "first window"),
                (&self.last_request, &mut cold_last, "last window"),
            ] {
                let mut session = self.ctx.session(&self.config);
                let time = Self::timed_read(&mut session, request, what);
                reads.push((time, positioned_reads(&mut session)));
                peak = peak.max(session.peak_memory_bytes());
            }
        }
        let mut session = self.ctx.session(&self.config);
        window(session.read(&self.first_request), "warm-up");
        let before = positioned_reads(&mut session);
        let mut warm_first = Vec::new();
        let mut warm_last = Vec::new();
        for _ in 0..self.warm_runs {
            warm_last.push(Self::timed_read(
                &mut session,
                &self.last_request,
                "last window",
            ));
            warm_first.push(Self::timed_read(
                &mut session,
                &self.first_request,
                "first window",
            ));
        }
        let after = positioned_reads(&mut session);
        peak = peak.max(session.peak_memory_bytes());
        let rss = rss.end();
        let per_read = reads_per_call(after - before, self.warm_runs * 2);
        let base_first = median(&warm_first).as_secs_f64();
        let base_last = median(&warm_last).as_secs_f64();
        let warm_row = |label: &str, samples| {
            Row::new(label, SECOND_READ_METHOD, samples)
                .linear(peak)
                .rss(rss)
                .reads(per_read.clone())
        };
        let rows = vec![
            cold_first
                .row(self.label_first.clone(), FIRST_READ_METHOD, peak, rss)
                .ratio_to(base_first),
            warm_row(&self.label_first, warm_first).ratio_to(base_first),
            cold_last
                .row(self.label_last.clone(), FIRST_READ_METHOD, peak, rss)
                .ratio_to(base_last),
            warm_row(&self.label_last, warm_last).ratio_to(base_last),
        ];
        (rows, base_first, base_last)
    }

    /// `sed | cut` of line 1: the first 8,001 bytes, and no cursor to the rest.
    fn sed_cut_row(&self) -> Row {
        let rss = RssMark::start();
        let samples = time_runs(self.runs, |_| {
            let out = sed_cut(&self.file.host, 1, 1);
            assert_eq!(
                out.len(),
                CUT_BYTES + 1,
                "sed | cut keeps 8001 bytes of the line"
            );
        });
        Row::new(
            &self.label_first,
            "`sed -n '1,1p' FILE \\| cut -b1-8001` (sh -c subprocess; no cursor reaches the rest)",
            samples,
        )
        .rss(rss.end())
    }

    /// The native floor's first window and its last (counting characters to the column).
    fn native_floor_rows(&self) -> [Row; 2] {
        let rss = RssMark::start();
        let samples = time_runs(self.warm_runs, |_| {
            let out = native_column_window(&self.file.host, 0, self.step);
            assert_eq!(out.len() as u64, self.step, "native first window");
        });
        let first = Row::new(
            &self.label_first,
            "native floor: `BufReader`, first characters of the line",
            samples,
        )
        .rss(rss.end());
        let rss = RssMark::start();
        let samples = time_runs(self.runs, |_| {
            let out = native_column_window(&self.file.host, self.last_column, self.step);
            assert_eq!(
                out.len() as u64,
                self.total_chars - self.last_column,
                "native last window"
            );
        });
        let last = Row::new(
            &self.label_last,
            "native floor: `BufReader` counting characters to the column",
            samples,
        )
        .rss(rss.end());
        [first, last]
    }

    /// The same core natively, index reused: the first window and the last, alternately after a warm-up.
    fn native_core_rows(&mut self) -> [Row; 2] {
        let first_request = core_request(&self.file.guest, 1, 2_000, None);
        let last_request = core_request(&self.file.guest, 1, 2_000, Some(self.last_column));
        let rss = RssMark::start();
        let mut reader = core::Reader::new(no_dedup_core());
        self.ctx.core_read(&mut reader, &first_request, "warm-up");
        let mut first = Vec::new();
        let mut last = Vec::new();
        for _ in 0..self.warm_runs {
            for (request, samples) in [(&last_request, &mut last), (&first_request, &mut first)] {
                let now = self.ctx.now_ms();
                let start = Instant::now();
                core_window(
                    reader.read(&mut self.ctx.native_fs, request, now),
                    "native core",
                );
                samples.push(start.elapsed());
            }
        }
        let rss = rss.end();
        [
            Row::new(&self.label_first, CORE_REUSED_METHOD, first).rss(rss),
            Row::new(&self.label_last, CORE_REUSED_METHOD, last).rss(rss),
        ]
    }
}
