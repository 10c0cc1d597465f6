//! Section 1: small reads through every reader.

use super::*;

pub(super) struct Ctx<'a> {
    pub(super) component: &'a ReadWindow,
    pub(super) grants: Grants,
    pub(super) native_fs: NativeFileSystem,
    pub(super) started: Instant,
}

impl Ctx<'_> {
    pub(super) fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

/// Dedup off (repeats return content) and the loop tripwire out of reach: a bench reads windows again and
/// again (alternating offsets, which the cycle tripwire would count as a cycle of two), and every answer must be a
/// window, or the bench panics.
pub(super) fn no_dedup() -> Config {
    Config {
        dedup: Some(false),
        loop_warn_at: Some(u32::MAX - 1),
        loop_block_at: Some(u32::MAX),
        ..Config::default()
    }
}

/// [`no_dedup`] for the native core.
pub(super) fn no_dedup_core() -> ConfigInput {
    ConfigInput {
        dedup: Some(false),
        loop_warn_at: Some(u32::MAX - 1),
        loop_block_at: Some(u32::MAX),
        ..ConfigInput::default()
    }
}

pub(super) struct SmallCounts {
    pub(super) warm: usize,
    pub(super) fresh: usize,
    pub(super) subprocess: usize,
    pub(super) native: usize,
}

/// A small window (`lines` lines from `offset`; alternately from `offset + 1`, so no two consecutive reads are
/// identical; the config keeps the tripwire out of reach of the cycle they make) of `file`, by every method.
pub(super) fn small_read(
    ctx: &mut Ctx<'_>,
    file: &Fixture,
    offset: u64,
    lines: u64,
    counts: &SmallCounts,
) -> Vec<Row> {
    let label = format!(
        "lines {offset}-{} of a {}-line file ({})",
        offset + lines - 1,
        file.lines,
        fmt_size(file.bytes)
    );
    let at = |i: usize| offset + (i % 2) as u64;
    let request = |i: usize| {
        ReadRequest::new(file.guest.clone())
            .offset(at(i))
            .limit(lines)
    };
    let config = no_dedup();
    let mut rows = Vec::new();

    // Warm session: one session, its index kept between reads.
    let rss = RssMark::start();
    let mut session = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    for i in 0..10 {
        check_lines(
            &window(session.read(&request(i)), "warm-up"),
            at(i),
            lines,
            "warm-up",
        );
    }
    let before = session.stats().expect("stats").positioned_reads;
    let samples = time_runs(counts.warm, |i| {
        let result = window(session.read(&request(i)), "warm session");
        check_lines(&result, at(i), lines, "warm session");
    });
    let after = session.stats().expect("stats").positioned_reads;
    rows.push(
        Row::new(&label, "component, warm session (`Session::read`)", samples)
            .linear(session.peak_memory_bytes())
            .rss(rss.end())
            .reads(reads_per_call(after - before, counts.warm)),
    );
    drop(session);

    // Stateless read-once in a warm store: no session memory, so no index is kept.
    let rss = RssMark::start();
    let mut session = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    for i in 0..5 {
        once(session.read_once(&config, &request(i)), "warm-up");
    }
    let samples = time_runs(counts.warm, |i| {
        let result = once(session.read_once(&config, &request(i)), "read_once");
        check_lines(&result, at(i), lines, "read_once");
    });
    rows.push(
        Row::new(
            &label,
            "component, stateless `read-once` in a warm store (`Session::read_once`)",
            samples,
        )
        .linear(session.peak_memory_bytes())
        .rss(rss.end()),
    );
    drop(session);

    // Stateless read-once, a new store and instance per call.
    let rss = RssMark::start();
    let samples = time_runs(counts.fresh, |i| {
        let result = once(
            ctx.component.read_once(&ctx.grants, &config, &request(i)),
            "read_once",
        );
        check_lines(&result, at(i), lines, "fresh read_once");
    });
    rows.push(
        Row::new(&label, "component, stateless `read-once`, new store + instance per call (`ReadWindow::read_once`)", samples)
            .rss(rss.end()),
    );

    // A fresh session (store, instance, session resource) per request.
    let rss = RssMark::start();
    let mut peak = 0;
    let samples = time_runs(counts.fresh, |i| {
        let mut session = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let result = window(session.read(&request(i)), "fresh session");
        peak = peak.max(session.peak_memory_bytes());
        drop(session);
        check_lines(&result, at(i), lines, "fresh session");
    });
    rows.push(
        Row::new(&label, "component, fresh session per request", samples)
            .linear(peak)
            .rss(rss.end()),
    );

    // sed | cut in a subprocess.
    let rss = RssMark::start();
    let samples = time_runs(counts.subprocess, |i| {
        let out = sed_cut(&file.host, at(i), at(i) + lines - 1);
        assert_eq!(count_lines(&out), lines, "sed | cut");
    });
    rows.push(
        Row::new(
            &label,
            "`sed -n 'A,Bp' FILE \\| cut -b1-8001` (sh -c subprocess)",
            samples,
        )
        .rss(rss.end()),
    );

    // The physical floor.
    let rss = RssMark::start();
    let samples = time_runs(counts.native, |i| {
        let out = native_window(&file.host, at(i), lines);
        assert_eq!(count_lines(&out), lines, "native floor");
    });
    rows.push(
        Row::new(
            &label,
            "native floor: `BufReader` skipping lines (no index)",
            samples,
        )
        .rss(rss.end()),
    );

    // The same core compiled natively (no wasm): where the component's time goes.
    let rss = RssMark::start();
    let mut reader = core::Reader::new(no_dedup_core());
    let core_req = |i: usize| core_request(&file.guest, at(i), lines, None);
    for i in 0..10 {
        let now = ctx.now_ms();
        core_window(
            reader.read(&mut ctx.native_fs, &core_req(i), now),
            "warm-up",
        );
    }
    let before = reader.stats().positioned_reads;
    let samples = time_runs(counts.warm, |i| {
        let now = ctx.now_ms();
        let result = core_window(
            reader.read(&mut ctx.native_fs, &core_req(i), now),
            "native core",
        );
        check_core(&result, at(i), lines, "native core");
    });
    let after = reader.stats().positioned_reads;
    rows.push(
        Row::new(
            &label,
            "same Rust core compiled natively, warm `Reader` (no wasm)",
            samples,
        )
        .rss(rss.end())
        .reads(reads_per_call(after - before, counts.warm)),
    );
    let samples = time_runs(counts.warm, |i| {
        let result = core::read_once(no_dedup_core(), &mut ctx.native_fs, &core_req(i))
            .expect("native read_once");
        check_core(&result, at(i), lines, "native read_once");
    });
    rows.push(Row::new(
        &label,
        "same Rust core compiled natively, `read_once` (no wasm)",
        samples,
    ));

    let base = rows[0].median().as_secs_f64();
    for row in &mut rows {
        row.ratio = Some(row.median().as_secs_f64() / base);
    }
    rows
}
