//! Sections 2 and 3: pages of the big log.

use super::*;

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

pub(super) struct BigLogReport {
    pub(super) rows: Vec<Row>,
    pub(super) deep_ratio: f64,
    pub(super) first_offset: u64,
    pub(super) deep_offset: u64,
    pub(super) index_bytes: u64,
}

/// Page 1 and the tenth-from-last page of the big log: first read (index built) and second read (index reused).
pub(super) fn big_log(
    ctx: &mut Ctx<'_>,
    file: &Fixture,
    runs: usize,
    alternations: usize,
) -> BigLogReport {
    let pages = file.lines.div_ceil(PAGE_LINES);
    let first_offset = 1;
    let deep_offset = (pages - 10) * PAGE_LINES + 1;
    let config = Config {
        budget: Some(Budget::Characters(PAGE_BUDGET_CHARS)),
        ..no_dedup()
    };
    let request = |offset: u64| {
        ReadRequest::new(file.guest.clone())
            .offset(offset)
            .limit(PAGE_LINES)
    };
    let page_label = |offset: u64| {
        format!(
            "page {} (lines {offset}-{}) of {} lines, {}",
            (offset - 1) / PAGE_LINES + 1,
            offset + PAGE_LINES - 1,
            file.lines,
            fmt_size(file.bytes)
        )
    };
    let timed =
        |session: &mut read_window_host::Session, offset: u64, what: &str| -> (Duration, u64) {
            let before = session.stats().expect("stats").positioned_reads;
            let start = Instant::now();
            let outcome = session.read(&request(offset));
            let elapsed = start.elapsed();
            let result = window(outcome, what);
            check_lines(&result, offset, PAGE_LINES, what);
            assert_eq!(result.total_lines, file.lines, "{what}: total lines");
            let after = session.stats().expect("stats").positioned_reads;
            (elapsed, after - before)
        };

    let mut cold_first = Vec::new();
    let mut warm_first = Vec::new();
    let mut cold_deep = Vec::new();
    let mut warm_deep = Vec::new();
    let (mut reads_cold_first, mut reads_warm_first, mut reads_cold_deep, mut reads_warm_deep) =
        (0, 0, 0, 0);
    let mut peak = 0;
    let mut index_bytes = 0;
    let rss = RssMark::start();
    for _ in 0..runs {
        // Session A: page 1 first, then page 1 again, then the two pages alternately (the index is reused).
        let mut a = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let (t, r) = timed(&mut a, first_offset, "page 1, first read");
        cold_first.push(t);
        reads_cold_first += r;
        let (t, r) = timed(&mut a, first_offset, "page 1, second read");
        warm_first.push(t);
        reads_warm_first += r;
        for _ in 0..alternations {
            let (t, r) = timed(&mut a, deep_offset, "deep page, index reused");
            warm_deep.push(t);
            reads_warm_deep += r;
            let (t, r) = timed(&mut a, first_offset, "page 1, index reused");
            warm_first.push(t);
            reads_warm_first += r;
        }
        index_bytes = a.stats().expect("stats").index_bytes;
        peak = peak.max(a.peak_memory_bytes());
        drop(a);
        // Session B: the deep page first, then again.
        let mut b = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let (t, r) = timed(&mut b, deep_offset, "deep page, first read");
        cold_deep.push(t);
        reads_cold_deep += r;
        let (t, r) = timed(&mut b, deep_offset, "deep page, second read");
        warm_deep.push(t);
        reads_warm_deep += r;
        peak = peak.max(b.peak_memory_bytes());
    }
    let session_rss = rss.end();
    let n_cold = cold_first.len();
    let n_warm_first = warm_first.len();
    let n_warm_deep = warm_deep.len();

    let warm_first_median = median(&warm_first).as_secs_f64();
    let warm_deep_median = median(&warm_deep).as_secs_f64();
    let deep_ratio = warm_deep_median / warm_first_median;

    let mut rows = vec![
        Row::new(
            page_label(first_offset),
            "component, first read in a fresh session (index built)",
            cold_first,
        )
        .linear(peak)
        .rss(session_rss)
        .reads(reads_per_call(reads_cold_first, n_cold)),
        Row::new(
            page_label(first_offset),
            "component, second read (index reused)",
            warm_first,
        )
        .linear(peak)
        .rss(session_rss)
        .reads(reads_per_call(reads_warm_first, n_warm_first)),
        Row::new(
            page_label(deep_offset),
            "component, first read in a fresh session (index built)",
            cold_deep,
        )
        .linear(peak)
        .rss(session_rss)
        .reads(reads_per_call(reads_cold_deep, n_cold)),
        Row::new(
            page_label(deep_offset),
            "component, second read (index reused)",
            warm_deep,
        )
        .linear(peak)
        .rss(session_rss)
        .reads(reads_per_call(reads_warm_deep, n_warm_deep)),
    ];
    for row in &mut rows {
        let base = if row.read.starts_with("page 1 ") {
            warm_first_median
        } else {
            warm_deep_median
        };
        row.ratio = Some(row.median().as_secs_f64() / base);
    }

    // Stateless read-once: no index survives the call, so every call scans the file to count its lines.
    let rss = RssMark::start();
    let samples = time_runs(runs, |_| {
        let result = once(
            ctx.component
                .read_once(&ctx.grants, &config, &request(deep_offset)),
            "read_once",
        );
        check_lines(&result, deep_offset, PAGE_LINES, "read_once deep");
    });
    let mut row = Row::new(
        page_label(deep_offset),
        "component, stateless `read-once`, new store + instance per call",
        samples,
    )
    .rss(rss.end());
    row.ratio = Some(row.median().as_secs_f64() / warm_deep_median);
    rows.push(row);

    for (offset, base) in [
        (first_offset, warm_first_median),
        (deep_offset, warm_deep_median),
    ] {
        let rss = RssMark::start();
        let samples = time_runs(runs, |_| {
            let out = sed_cut(&file.host, offset, offset + PAGE_LINES - 1);
            assert_eq!(count_lines(&out), PAGE_LINES, "sed | cut");
        });
        let mut row = Row::new(
            page_label(offset),
            "`sed -n 'A,Bp' FILE \\| cut -b1-8001` (sh -c subprocess)",
            samples,
        )
        .rss(rss.end());
        row.ratio = Some(row.median().as_secs_f64() / base);
        rows.push(row);
        let rss = RssMark::start();
        let samples = time_runs(runs, |_| {
            let out = native_window(&file.host, offset, PAGE_LINES);
            assert_eq!(count_lines(&out), PAGE_LINES, "native floor");
        });
        let mut row = Row::new(
            page_label(offset),
            "native floor: `BufReader` skipping lines (no index)",
            samples,
        )
        .rss(rss.end());
        row.ratio = Some(row.median().as_secs_f64() / base);
        rows.push(row);
    }

    // The same core natively: index build and an indexed deep page, without wasm.
    let core_config = ConfigInput {
        budget_chars: Some(u64::from(PAGE_BUDGET_CHARS)),
        ..no_dedup_core()
    };
    let rss = RssMark::start();
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    for _ in 0..runs {
        let mut reader = core::Reader::new(core_config.clone());
        let start = Instant::now();
        let now = ctx.now_ms();
        let result = core_window(
            reader.read(
                &mut ctx.native_fs,
                &core_request(&file.guest, first_offset, PAGE_LINES, None),
                now,
            ),
            "native core",
        );
        cold.push(start.elapsed());
        check_core(&result, first_offset, PAGE_LINES, "native core page 1");
        for _ in 0..alternations.min(5) {
            let start = Instant::now();
            let now = ctx.now_ms();
            let result = core_window(
                reader.read(
                    &mut ctx.native_fs,
                    &core_request(&file.guest, deep_offset, PAGE_LINES, None),
                    now,
                ),
                "native core",
            );
            warm.push(start.elapsed());
            check_core(&result, deep_offset, PAGE_LINES, "native core deep");
            let now = ctx.now_ms();
            core_window(
                reader.read(
                    &mut ctx.native_fs,
                    &core_request(&file.guest, first_offset, PAGE_LINES, None),
                    now,
                ),
                "native core",
            );
        }
    }
    let core_rss = rss.end();
    let mut row = Row::new(
        page_label(first_offset),
        "same Rust core natively, first read (index built)",
        cold,
    )
    .rss(core_rss);
    row.ratio = Some(row.median().as_secs_f64() / warm_first_median);
    rows.push(row);
    let mut row = Row::new(
        page_label(deep_offset),
        "same Rust core natively, index reused",
        warm,
    )
    .rss(core_rss);
    row.ratio = Some(row.median().as_secs_f64() / warm_deep_median);
    rows.push(row);

    BigLogReport {
        rows,
        deep_ratio,
        first_offset,
        deep_offset,
        index_bytes,
    }
}
