//! Section 1: small reads through every reader.

use read_window as core;
use read_window_host::{Config, ReadRequest};

use crate::fixtures::Fixture;
use crate::floor::{floor_row, line_range, BLOCK_BYTES};
use crate::measure::{fmt_size, positioned_reads, reads_per_call, time_runs, Row, RssMark};
use crate::readers::{
    check_core, check_lines, core_request, core_window, count_lines, native_window, no_dedup,
    no_dedup_core, sed_cut, window, Ctx, NATIVE_FLOOR_METHOD, SED_CUT_METHOD,
};

pub(super) struct SmallCounts {
    pub(super) warm: usize,
    pub(super) fresh: usize,
    pub(super) subprocess: usize,
    pub(super) native: usize,
}

/// A small window (`lines` lines from `offset`; alternately from `offset + 1`, so no two consecutive reads are
/// identical; the config keeps the tripwire out of reach of the cycle they make) of `file`, by every method: the
/// rows of section 1-2, each with its ratio to the warm session's median.
pub(super) fn small_read(
    ctx: &mut Ctx<'_>,
    file: &Fixture,
    offset: u64,
    lines: u64,
    counts: &SmallCounts,
) -> Vec<Row> {
    let mut small = SmallRead {
        label: format!(
            "lines {offset}-{} of a {}-line file ({})",
            offset + lines - 1,
            file.lines,
            fmt_size(file.bytes)
        ),
        ctx,
        file,
        offset,
        lines,
        counts,
        config: no_dedup(),
    };
    let mut rows = vec![
        small.warm_session(),
        small.read_once_warm_store(),
        small.read_once_new_store(),
        small.fresh_session(),
        small.sed_cut(),
        small.native_floor(),
    ];
    rows.extend(small.sandbox_floor());
    rows.extend(small.native_core());
    ratios_to_first(rows)
}

/// `rows`, each with its ratio to the first row's median (the warm session's).
fn ratios_to_first(rows: Vec<Row>) -> Vec<Row> {
    let Some(base) = rows.first().map(|row| row.median().as_secs_f64()) else {
        return rows;
    };
    rows.into_iter().map(|row| row.ratio_to(base)).collect()
}

/// The same window of `file` (a copy of the source file under directories) by the warm session and the sandbox
/// floor only: what each directory on the way costs a read.
pub(super) fn deep_read(
    ctx: &mut Ctx<'_>,
    file: &Fixture,
    depth: usize,
    counts: &SmallCounts,
) -> Vec<Row> {
    let mut deep = SmallRead {
        label: format!(
            "lines 40-60 of the {}-line file {depth} directories deep",
            file.lines
        ),
        ctx,
        file,
        offset: 40,
        lines: 21,
        counts,
        config: no_dedup(),
    };
    let mut rows = vec![deep.warm_session()];
    rows.extend(deep.sandbox_floor());
    ratios_to_first(rows)
}

/// One small read of section 1-2 (see [`small_read`]), with a method per reader.
struct SmallRead<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    file: &'c Fixture,
    /// The first line of the even reads (the odd ones start a line further).
    offset: u64,
    /// Lines a read asks for.
    lines: u64,
    counts: &'c SmallCounts,
    /// The rows' `read` cell.
    label: String,
    config: Config,
}

impl SmallRead<'_, '_> {
    /// The first line of read `i`.
    fn at(&self, i: usize) -> u64 {
        self.offset + (i % 2) as u64
    }

    /// The component's request for read `i`.
    fn request(&self, i: usize) -> ReadRequest {
        ReadRequest::new(self.file.guest.clone())
            .offset(self.at(i))
            .limit(self.lines)
    }

    /// The native core's request for read `i`.
    fn core_request(&self, i: usize) -> core::ReadRequest {
        core_request(&self.file.guest, self.at(i), self.lines, None)
    }

    /// Warm session: one session, its index kept between reads (after 10 warm-up reads).
    fn warm_session(&mut self) -> Row {
        let rss = RssMark::start();
        let mut session = self.ctx.session(&self.config);
        for i in 0..10 {
            let result = window(session.read(&self.request(i)), "warm-up");
            check_lines(&result, self.at(i), self.lines, "warm-up");
        }
        let before = positioned_reads(&mut session);
        let samples = time_runs(self.counts.warm, |i| {
            let result = window(session.read(&self.request(i)), "warm session");
            check_lines(&result, self.at(i), self.lines, "warm session");
        });
        let after = positioned_reads(&mut session);
        Row::new(
            &self.label,
            "component, warm session (`Session::read`)",
            samples,
        )
        .linear(session.peak_memory_bytes())
        .rss(rss.end())
        .reads(reads_per_call(after - before, self.counts.warm))
    }

    /// Stateless read-once in a warm store: no session memory, so no index is kept.
    fn read_once_warm_store(&mut self) -> Row {
        let rss = RssMark::start();
        let mut session = self.ctx.session(&self.config);
        for i in 0..5 {
            window(session.read_once(&self.config, &self.request(i)), "warm-up");
        }
        let samples = time_runs(self.counts.warm, |i| {
            let result = window(
                session.read_once(&self.config, &self.request(i)),
                "read_once",
            );
            check_lines(&result, self.at(i), self.lines, "read_once");
        });
        Row::new(
            &self.label,
            "component, stateless `read-once` in a warm store (`Session::read_once`)",
            samples,
        )
        .linear(session.peak_memory_bytes())
        .rss(rss.end())
    }

    /// Stateless read-once, a new store and instance per call.
    fn read_once_new_store(&mut self) -> Row {
        let rss = RssMark::start();
        let ctx = &*self.ctx;
        let samples = time_runs(self.counts.fresh, |i| {
            let result = window(
                ctx.component
                    .read_once(&ctx.grants, &self.config, &self.request(i)),
                "read_once",
            );
            check_lines(&result, self.at(i), self.lines, "fresh read_once");
        });
        Row::new(&self.label, "component, stateless `read-once`, new store + instance per call (`ReadWindow::read_once`)", samples)
            .rss(rss.end())
    }

    /// A fresh session (store, instance, session resource) per request.
    fn fresh_session(&mut self) -> Row {
        let rss = RssMark::start();
        let mut peak = 0;
        let samples = time_runs(self.counts.fresh, |i| {
            let mut session = self.ctx.session(&self.config);
            let result = window(session.read(&self.request(i)), "fresh session");
            peak = peak.max(session.peak_memory_bytes());
            drop(session);
            check_lines(&result, self.at(i), self.lines, "fresh session");
        });
        Row::new(&self.label, "component, fresh session per request", samples)
            .linear(peak)
            .rss(rss.end())
    }

    /// `sed | cut` in a subprocess.
    fn sed_cut(&mut self) -> Row {
        let rss = RssMark::start();
        let samples = time_runs(self.counts.subprocess, |i| {
            let out = sed_cut(&self.file.host, self.at(i), self.at(i) + self.lines - 1);
            assert_eq!(count_lines(&out), self.lines, "sed | cut");
        });
        Row::new(&self.label, SED_CUT_METHOD, samples).rss(rss.end())
    }

    /// The physical floor.
    fn native_floor(&mut self) -> Row {
        let rss = RssMark::start();
        let samples = time_runs(self.counts.native, |i| {
            let out = native_window(&self.file.host, self.at(i), self.lines);
            assert_eq!(count_lines(&out), self.lines, "native floor");
        });
        Row::new(&self.label, NATIVE_FLOOR_METHOD, samples).rss(rss.end())
    }

    /// The sandbox floor: the bytes read-window reads for this window (the whole file when it fits in a block,
    /// else the window's lines, which are all the same length in the log).
    fn sandbox_floor(&mut self) -> Option<Row> {
        let range = if self.file.bytes <= BLOCK_BYTES {
            (0, self.file.bytes)
        } else {
            line_range(self.offset, self.lines, self.file.bytes / self.file.lines)
        };
        let lines = if range.0 == 0 {
            self.file.lines
        } else {
            self.lines
        };
        floor_row(
            self.ctx.floor.as_mut(),
            &self.label,
            self.file,
            range,
            lines,
            self.counts.warm,
        )
    }

    /// The same core compiled natively (no wasm), a warm `Reader` and then `read_once`: where the component's
    /// time goes.
    fn native_core(&mut self) -> [Row; 2] {
        let rss = RssMark::start();
        let mut reader = core::Reader::new(no_dedup_core());
        for i in 0..10 {
            let request = self.core_request(i);
            self.ctx.core_read(&mut reader, &request, "warm-up");
        }
        let before = reader
            .stats(&mut core::NativeFileSystem::mount(&[]))
            .positioned_reads;
        let samples = time_runs(self.counts.warm, |i| {
            let request = self.core_request(i);
            let result = self.ctx.core_read(&mut reader, &request, "native core");
            check_core(&result, self.at(i), self.lines, "native core");
        });
        let after = reader
            .stats(&mut core::NativeFileSystem::mount(&[]))
            .positioned_reads;
        let warm = Row::new(
            &self.label,
            "same Rust core compiled natively, warm `Reader` (no wasm)",
            samples,
        )
        .rss(rss.end())
        .reads(reads_per_call(after - before, self.counts.warm));
        let samples = time_runs(self.counts.warm, |i| {
            let request = self.core_request(i);
            let result = core_window(
                core::read_once(no_dedup_core(), &mut self.ctx.native_fs, &request),
                "native read_once",
            );
            check_core(&result, self.at(i), self.lines, "native read_once");
        });
        let once = Row::new(
            &self.label,
            "same Rust core compiled natively, `read_once` (no wasm)",
            samples,
        );
        [warm, once]
    }
}
