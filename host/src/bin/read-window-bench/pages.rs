//! Sections 2 and 3: pages of the big log.

use std::time::{Duration, Instant};

use read_window as core;
use read_window::ConfigInput;
use read_window_host::{Budget, Config, ReadRequest, Session};

use crate::fixtures::Fixture;
use crate::floor::{floor_row, line_range};
use crate::measure::{
    fmt_size, median, positioned_reads, time_runs, Row, Rss, RssMark, TimedReads,
};
use crate::readers::{
    check_core, check_lines, core_request, count_lines, native_window, no_dedup, no_dedup_core,
    sed_cut, window, Ctx, CORE_REUSED_METHOD, FIRST_READ_METHOD, NATIVE_FLOOR_METHOD,
    SECOND_READ_METHOD, SED_CUT_METHOD,
};

/// Lines of a page of the big log.
pub(super) const PAGE_LINES: u64 = 2_000;
/// The character budget of the big-log pages: room for 2,000 lines of about 100 characters plus gutters.
pub(super) const PAGE_BUDGET_CHARS: u32 = 400_000;

pub(super) struct BigLogReport {
    pub(super) rows: Vec<Row>,
    pub(super) deep_ratio: f64,
    pub(super) first_offset: u64,
    pub(super) deep_offset: u64,
    pub(super) index_bytes: u64,
}

/// Page 1 and the tenth-from-last page of the big log: first read (index built) and second read (index reused),
/// by the component, `sed | cut`, the native floor and the same core natively; each row with its ratio to the
/// component's second read of the same page.
pub(super) fn big_log(
    ctx: &mut Ctx<'_>,
    file: &Fixture,
    runs: usize,
    alternations: usize,
) -> BigLogReport {
    let pages = file.lines.div_ceil(PAGE_LINES);
    let mut big = BigLog {
        ctx,
        file,
        runs,
        alternations,
        first_offset: 1,
        deep_offset: (pages - 10) * PAGE_LINES + 1,
        config: Config {
            budget: Some(Budget::Characters(PAGE_BUDGET_CHARS)),
            ..no_dedup()
        },
    };
    let sessions = big.component_sessions();
    let warm_first_median = median(&sessions.warm_first.times).as_secs_f64();
    let warm_deep_median = median(&sessions.warm_deep.times).as_secs_f64();
    let deep_ratio = warm_deep_median / warm_first_median;
    let index_bytes = sessions.index_bytes;
    let mut rows = big.component_rows(sessions);
    rows.push(big.read_once_row().ratio_to(warm_deep_median));
    for (offset, base) in [
        (big.first_offset, warm_first_median),
        (big.deep_offset, warm_deep_median),
    ] {
        rows.extend(big.pipeline_rows(offset).map(|row| row.ratio_to(base)));
    }
    let [cold, warm] = big.native_core_rows();
    rows.push(cold.ratio_to(warm_first_median));
    rows.push(warm.ratio_to(warm_deep_median));
    for (offset, base) in [
        (big.first_offset, warm_first_median),
        (big.deep_offset, warm_deep_median),
    ] {
        rows.extend(big.floor_row(offset).map(|row| row.ratio_to(base)));
    }
    BigLogReport {
        rows,
        deep_ratio,
        first_offset: big.first_offset,
        deep_offset: big.deep_offset,
        index_bytes,
    }
}

/// What the component's sessions measured: each page's first and second reads, the peak linear memory (bytes),
/// the index size (bytes) and the host's RSS over them.
struct PageSessions {
    /// Page 1, first read in a fresh session.
    cold_first: TimedReads,
    /// Page 1, index reused.
    warm_first: TimedReads,
    /// The deep page, first read in a fresh session.
    cold_deep: TimedReads,
    /// The deep page, index reused.
    warm_deep: TimedReads,
    /// The largest linear memory of the sessions, in bytes.
    peak: u64,
    /// The size of session A's index, in bytes.
    index_bytes: u64,
    /// The host's RSS over all the sessions.
    rss: Rss,
}

/// Section 3's measurements of the big log (see [`big_log`]), with a method per reader.
struct BigLog<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    file: &'c Fixture,
    /// Runs of each measurement.
    runs: usize,
    /// Times a session alternates between the deep page and page 1 in each run.
    alternations: usize,
    /// The first line of page 1.
    first_offset: u64,
    /// The first line of the tenth-from-last page.
    deep_offset: u64,
    config: Config,
}

impl BigLog<'_, '_> {
    /// The component's request for the page at `offset`.
    fn request(&self, offset: u64) -> ReadRequest {
        ReadRequest::new(self.file.guest.clone())
            .offset(offset)
            .limit(PAGE_LINES)
    }

    /// The native core's request for the page at `offset`.
    fn core_request(&self, offset: u64) -> core::ReadRequest {
        core_request(&self.file.guest, offset, PAGE_LINES, None)
    }

    /// The `read` cell of the page at `offset`.
    fn page_label(&self, offset: u64) -> String {
        format!(
            "page {} (lines {offset}-{}) of {} lines, {}",
            (offset - 1) / PAGE_LINES + 1,
            offset + PAGE_LINES - 1,
            self.file.lines,
            fmt_size(self.file.bytes)
        )
    }

    /// One checked read of the page at `offset` in `session`: its time and its positioned reads.
    fn timed_read(&self, session: &mut Session, offset: u64, what: &str) -> (Duration, u64) {
        let before = positioned_reads(session);
        let start = Instant::now();
        let outcome = session.read(&self.request(offset));
        let elapsed = start.elapsed();
        let result = window(outcome, what);
        check_lines(&result, offset, PAGE_LINES, what);
        assert_eq!(result.total_lines, self.file.lines, "{what}: total lines");
        (elapsed, positioned_reads(session) - before)
    }

    /// `runs` times two sessions: A reads page 1, page 1 again, then the deep page and page 1 alternately; B reads
    /// the deep page, then again.
    fn component_sessions(&mut self) -> PageSessions {
        let (first, deep) = (self.first_offset, self.deep_offset);
        let mut cold_first = TimedReads::default();
        let mut warm_first = TimedReads::default();
        let mut cold_deep = TimedReads::default();
        let mut warm_deep = TimedReads::default();
        let mut peak = 0;
        let mut index_bytes = 0;
        let rss = RssMark::start();
        for _ in 0..self.runs {
            // Session A: page 1 first, then page 1 again, then the two pages alternately (the index is reused).
            let mut a = self.ctx.session(&self.config);
            cold_first.push(self.timed_read(&mut a, first, "page 1, first read"));
            warm_first.push(self.timed_read(&mut a, first, "page 1, second read"));
            for _ in 0..self.alternations {
                warm_deep.push(self.timed_read(&mut a, deep, "deep page, index reused"));
                warm_first.push(self.timed_read(&mut a, first, "page 1, index reused"));
            }
            index_bytes = a.stats().expect("stats").index_bytes;
            peak = peak.max(a.peak_memory_bytes());
            drop(a);
            // Session B: the deep page first, then again.
            let mut b = self.ctx.session(&self.config);
            cold_deep.push(self.timed_read(&mut b, deep, "deep page, first read"));
            warm_deep.push(self.timed_read(&mut b, deep, "deep page, second read"));
            peak = peak.max(b.peak_memory_bytes());
        }
        PageSessions {
            cold_first,
            warm_first,
            cold_deep,
            warm_deep,
            peak,
            index_bytes,
            rss: rss.end(),
        }
    }

    /// The four rows of the component's sessions, each with its ratio to the second read of the same page.
    fn component_rows(&self, sessions: PageSessions) -> Vec<Row> {
        let warm_first_median = median(&sessions.warm_first.times).as_secs_f64();
        let warm_deep_median = median(&sessions.warm_deep.times).as_secs_f64();
        let (first, deep) = (
            self.page_label(self.first_offset),
            self.page_label(self.deep_offset),
        );
        let (peak, rss) = (sessions.peak, sessions.rss);
        vec![
            sessions
                .cold_first
                .row(first.clone(), FIRST_READ_METHOD, peak, rss)
                .ratio_to(warm_first_median),
            sessions
                .warm_first
                .row(first, SECOND_READ_METHOD, peak, rss)
                .ratio_to(warm_first_median),
            sessions
                .cold_deep
                .row(deep.clone(), FIRST_READ_METHOD, peak, rss)
                .ratio_to(warm_deep_median),
            sessions
                .warm_deep
                .row(deep, SECOND_READ_METHOD, peak, rss)
                .ratio_to(warm_deep_median),
        ]
    }

    /// Stateless read-once of the deep page: no index survives the call, so every call scans the file to count
    /// its lines.
    fn read_once_row(&mut self) -> Row {
        let rss = RssMark::start();
        let ctx = &*self.ctx;
        let samples = time_runs(self.runs, |_| {
            let result = window(
                ctx.component
                    .read_once(&ctx.grants, &self.config, &self.request(self.deep_offset)),
                "read_once",
            );
            check_lines(&result, self.deep_offset, PAGE_LINES, "read_once deep");
        });
        Row::new(
            self.page_label(self.deep_offset),
            "component, stateless `read-once`, new store + instance per call",
            samples,
        )
        .rss(rss.end())
    }

    /// `sed | cut` and the native floor on the page at `offset`.
    fn pipeline_rows(&self, offset: u64) -> [Row; 2] {
        let rss = RssMark::start();
        let samples = time_runs(self.runs, |_| {
            let out = sed_cut(&self.file.host, offset, offset + PAGE_LINES - 1);
            assert_eq!(count_lines(&out), PAGE_LINES, "sed | cut");
        });
        let sed = Row::new(self.page_label(offset), SED_CUT_METHOD, samples).rss(rss.end());
        let rss = RssMark::start();
        let samples = time_runs(self.runs, |_| {
            let out = native_window(&self.file.host, offset, PAGE_LINES);
            assert_eq!(count_lines(&out), PAGE_LINES, "native floor");
        });
        let floor = Row::new(self.page_label(offset), NATIVE_FLOOR_METHOD, samples).rss(rss.end());
        [sed, floor]
    }

    /// The sandbox floor's read of the page at `offset`: the same 200,000 bytes, as a string.
    fn floor_row(&mut self, offset: u64) -> Option<Row> {
        let range = line_range(offset, PAGE_LINES, self.file.bytes / self.file.lines.max(1));
        let label = self.page_label(offset);
        let runs = self.runs * (self.alternations + 1);
        floor_row(
            self.ctx.floor.as_mut(),
            &label,
            self.file,
            range,
            PAGE_LINES,
            runs,
        )
    }

    /// The same core natively: index build (page 1 in a new reader) and an indexed deep page, without wasm.
    fn native_core_rows(&mut self) -> [Row; 2] {
        let core_config = ConfigInput {
            budget_chars: Some(u64::from(PAGE_BUDGET_CHARS)),
            ..no_dedup_core()
        };
        let (first, deep) = (
            self.core_request(self.first_offset),
            self.core_request(self.deep_offset),
        );
        let rss = RssMark::start();
        let mut cold = Vec::new();
        let mut warm = Vec::new();
        for _ in 0..self.runs {
            let mut reader = core::Reader::new(core_config.clone());
            let start = Instant::now();
            let result = self.ctx.core_read(&mut reader, &first, "native core");
            cold.push(start.elapsed());
            check_core(&result, self.first_offset, PAGE_LINES, "native core page 1");
            for _ in 0..self.alternations.min(5) {
                let start = Instant::now();
                let result = self.ctx.core_read(&mut reader, &deep, "native core");
                warm.push(start.elapsed());
                check_core(&result, self.deep_offset, PAGE_LINES, "native core deep");
                self.ctx.core_read(&mut reader, &first, "native core");
            }
        }
        let core_rss = rss.end();
        [
            Row::new(
                self.page_label(self.first_offset),
                "same Rust core natively, first read (index built)",
                cold,
            )
            .rss(core_rss),
            Row::new(self.page_label(self.deep_offset), CORE_REUSED_METHOD, warm).rss(core_rss),
        ]
    }
}
