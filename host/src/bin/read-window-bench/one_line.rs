//! Section 4: the one-line JSON, windows by column.

use super::*;

pub(super) struct OneLinerReport {
    pub(super) rows: Vec<Row>,
    pub(super) total_chars: u64,
    pub(super) last_column: u64,
    pub(super) step: u64,
    pub(super) last_verified: bool,
}

/// The one-line JSON's first window and its last window reached by cursor (a column read near the end).
pub(super) fn one_liner(
    ctx: &mut Ctx<'_>,
    file: &Fixture,
    runs: usize,
    warm_runs: usize,
) -> OneLinerReport {
    let config = no_dedup();
    let label_first = format!(
        "first window of a {} single-line JSON",
        fmt_size(file.bytes)
    );
    let first_request = ReadRequest::new(file.guest.clone());

    // Learn the cursor chain's step and the line's length from a first read.
    let mut probe = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    let first = window(probe.read(&first_request), "one-liner first window");
    drop(probe);
    let clamp = first
        .clamped_lines
        .first()
        .expect("the one-liner's line is clamped");
    let total_chars = clamp.total_chars;
    let step = clamp.next_column;
    assert!(
        step > 0 && step < total_chars,
        "the first window's cursor: {clamp:?}"
    );
    // The cursor chain visits columns 0, step, 2*step, ...: the last window starts at the last multiple of step.
    let last_column = (total_chars - 1) / step * step;
    let last_request = ReadRequest::new(file.guest.clone())
        .offset(1)
        .column(last_column);
    let label_last =
        format!("last window by cursor (line 1, column {last_column}) of the same JSON");

    let mut check_session = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    let last = window(check_session.read(&last_request), "one-liner last window");
    let last_verified = last.next_offset.is_none()
        && last.next_column.is_none()
        && last.clamped_lines.is_empty()
        && last.content.trim_end().ends_with(']');
    if !last_verified {
        eprintln!(
            "read-window-bench: the last window by cursor did not end the file: next_offset {:?}, next_column {:?}, clamped {:?}, content ends {:?}",
            last.next_offset,
            last.next_column,
            last.clamped_lines,
            last.content.get(last.content.len().saturating_sub(120)..)
        );
    }
    drop(check_session);

    let mut rows = Vec::new();
    let rss = RssMark::start();
    let mut cold = Vec::new();
    let mut cold_last = Vec::new();
    let mut cold_reads = 0;
    let mut cold_last_reads = 0;
    let mut peak = 0;
    for _ in 0..runs {
        let mut session = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let start = Instant::now();
        window(session.read(&first_request), "first window");
        cold.push(start.elapsed());
        cold_reads += session.stats().expect("stats").positioned_reads;
        peak = peak.max(session.peak_memory_bytes());
        drop(session);
        let mut session = ctx
            .component
            .session(&ctx.grants, config.clone())
            .expect("session");
        let start = Instant::now();
        window(session.read(&last_request), "last window");
        cold_last.push(start.elapsed());
        cold_last_reads += session.stats().expect("stats").positioned_reads;
        peak = peak.max(session.peak_memory_bytes());
    }
    let mut session = ctx
        .component
        .session(&ctx.grants, config.clone())
        .expect("session");
    window(session.read(&first_request), "warm-up");
    let before = session.stats().expect("stats").positioned_reads;
    let mut warm_first = Vec::new();
    let mut warm_last = Vec::new();
    for _ in 0..warm_runs {
        let start = Instant::now();
        window(session.read(&last_request), "last window");
        warm_last.push(start.elapsed());
        let start = Instant::now();
        window(session.read(&first_request), "first window");
        warm_first.push(start.elapsed());
    }
    let after = session.stats().expect("stats").positioned_reads;
    peak = peak.max(session.peak_memory_bytes());
    let component_rss = rss.end();
    let per_read = reads_per_call(after - before, warm_runs * 2);
    let base_first = median(&warm_first).as_secs_f64();
    let base_last = median(&warm_last).as_secs_f64();
    rows.push(
        Row::new(
            &label_first,
            "component, first read in a fresh session (index built)",
            cold,
        )
        .linear(peak)
        .rss(component_rss)
        .reads(reads_per_call(cold_reads, runs)),
    );
    rows.push(
        Row::new(
            &label_first,
            "component, second read (index reused)",
            warm_first,
        )
        .linear(peak)
        .rss(component_rss)
        .reads(per_read.clone()),
    );
    rows.push(
        Row::new(
            &label_last,
            "component, first read in a fresh session (index built)",
            cold_last,
        )
        .linear(peak)
        .rss(component_rss)
        .reads(reads_per_call(cold_last_reads, runs)),
    );
    rows.push(
        Row::new(
            &label_last,
            "component, second read (index reused)",
            warm_last,
        )
        .linear(peak)
        .rss(component_rss)
        .reads(per_read),
    );
    for row in &mut rows {
        let base = if row.read == label_first {
            base_first
        } else {
            base_last
        };
        row.ratio = Some(row.median().as_secs_f64() / base);
    }

    let rss = RssMark::start();
    let samples = time_runs(runs, |_| {
        let out = sed_cut(&file.host, 1, 1);
        assert_eq!(
            out.len(),
            CUT_BYTES + 1,
            "sed | cut keeps 8001 bytes of the line"
        );
    });
    let mut row = Row::new(
        &label_first,
        "`sed -n '1,1p' FILE \\| cut -b1-8001` (sh -c subprocess; no cursor reaches the rest)",
        samples,
    )
    .rss(rss.end());
    row.ratio = Some(row.median().as_secs_f64() / base_first);
    rows.push(row);

    let rss = RssMark::start();
    let samples = time_runs(warm_runs, |_| {
        let out = native_column_window(&file.host, 0, step);
        assert_eq!(out.len() as u64, step, "native first window");
    });
    let mut row = Row::new(
        &label_first,
        "native floor: `BufReader`, first characters of the line",
        samples,
    )
    .rss(rss.end());
    row.ratio = Some(row.median().as_secs_f64() / base_first);
    rows.push(row);
    let rss = RssMark::start();
    let samples = time_runs(runs, |_| {
        let out = native_column_window(&file.host, last_column, step);
        assert_eq!(
            out.len() as u64,
            total_chars - last_column,
            "native last window"
        );
    });
    let mut row = Row::new(
        &label_last,
        "native floor: `BufReader` counting characters to the column",
        samples,
    )
    .rss(rss.end());
    row.ratio = Some(row.median().as_secs_f64() / base_last);
    rows.push(row);

    // The same core natively.
    let rss = RssMark::start();
    let mut reader = core::Reader::new(no_dedup_core());
    let now = ctx.now_ms();
    core_window(
        reader.read(
            &mut ctx.native_fs,
            &core_request(&file.guest, 1, 2_000, None),
            now,
        ),
        "warm-up",
    );
    let mut first = Vec::new();
    let mut last = Vec::new();
    for _ in 0..warm_runs {
        let now = ctx.now_ms();
        let start = Instant::now();
        core_window(
            reader.read(
                &mut ctx.native_fs,
                &core_request(&file.guest, 1, 2_000, Some(last_column)),
                now,
            ),
            "native core",
        );
        last.push(start.elapsed());
        let now = ctx.now_ms();
        let start = Instant::now();
        core_window(
            reader.read(
                &mut ctx.native_fs,
                &core_request(&file.guest, 1, 2_000, None),
                now,
            ),
            "native core",
        );
        first.push(start.elapsed());
    }
    let core_rss = rss.end();
    let mut row =
        Row::new(&label_first, "same Rust core natively, index reused", first).rss(core_rss);
    row.ratio = Some(row.median().as_secs_f64() / base_first);
    rows.push(row);
    let mut row =
        Row::new(&label_last, "same Rust core natively, index reused", last).rss(core_rss);
    row.ratio = Some(row.median().as_secs_f64() / base_last);
    rows.push(row);

    OneLinerReport {
        rows,
        total_chars,
        last_column,
        step,
        last_verified,
    }
}
