//! Section 5: the one-shot CLI as a whole process.

use super::*;

/// The `read-window` binary section 5 runs: `$READ_WINDOW_BENCH_CLI`, else the one beside this bench binary (the
/// same cargo profile: `cargo build --release -p read-window-host` builds both).
pub(super) fn cli_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("READ_WINDOW_BENCH_CLI") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let cli = exe.with_file_name(format!("read-window{}", std::env::consts::EXE_SUFFIX));
    if cli.is_file() {
        Ok(cli)
    } else {
        Err(format!(
            "{} is missing: build it (`cargo build --release -p read-window-host`) or set READ_WINDOW_BENCH_CLI",
            cli.display()
        ))
    }
}

/// One run of the CLI: its wall time, and with `timings` its phases (`name`, microseconds) from the
/// `READ_WINDOW_TIMINGS` line plus `before main` and `after the last mark` measured against this process's clock.
pub(super) fn cli_run(
    cli: &Path,
    file: &Fixture,
    first: u64,
    lines: u64,
    timings: bool,
) -> (Duration, Vec<(String, f64)>) {
    let mut command = Command::new(cli);
    command
        .current_dir(file.host.parent().unwrap_or(Path::new("/")))
        .env_remove("READ_WINDOW_WASM")
        .args([
            "read",
            &file.guest,
            "--offset",
            &first.to_string(),
            "--limit",
            &lines.to_string(),
        ]);
    if timings {
        command.env(read_window_host::timings::TIMINGS_ENV, "1");
    } else {
        command.env_remove(read_window_host::timings::TIMINGS_ENV);
    }
    let spawned_ns = read_window_host::timings::monotonic_ns();
    let start = Instant::now();
    let output = command.output().expect("run read-window read");
    let wall = start.elapsed();
    let exited_ns = read_window_host::timings::monotonic_ns();
    assert!(
        output.status.success(),
        "read-window read: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with(&format!("{first}|")) && count_lines(&output.stdout) >= lines,
        "read-window read printed {stdout:?}"
    );
    let mut phases = Vec::new();
    if timings {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .find(|line| line.starts_with("read-window: timings:"))
            .unwrap_or_default();
        let field = |name: &str| {
            line.split_whitespace()
                .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
                .and_then(|value| value.parse::<u64>().ok())
        };
        if let (Some(spawned), Some(started)) = (spawned_ns, field("started_ns")) {
            phases.push((
                "before main (exec, dynamic linking)".to_string(),
                started.saturating_sub(spawned) as f64 / 1e3,
            ));
        }
        for pair in line.split_whitespace() {
            let Some((name, value)) = pair.split_once("_us=") else {
                continue;
            };
            if name == "total" {
                continue;
            }
            if let Ok(micros) = value.parse::<f64>() {
                // The cache phase is named for its outcome; one row for both.
                let name = match name.strip_prefix("cache_") {
                    Some(outcome) => format!("cache ({outcome})"),
                    None => name.to_string(),
                };
                phases.push((name, micros));
            }
        }
        if let (Some(exited), Some(ended)) = (exited_ns, field("ended_ns")) {
            phases.push((
                "after the last mark (exit, reaped)".to_string(),
                exited.saturating_sub(ended) as f64 / 1e3,
            ));
        }
    }
    (wall, phases)
}

/// Section 5: `read-window read FILE --offset 40 --limit 21` as a whole process, against `sed -n 40,60p FILE | cut
/// -b1-8001` in `sh -c`, `runs` times each (interleaved, after one warm-up of each), on each of `files`; then the
/// median of each start-up phase from `READ_WINDOW_TIMINGS` runs.
pub(super) fn one_shot(files: &[&Fixture], runs: usize) -> Result<(), String> {
    let cli = cli_binary()?;
    println!("## 5. One-shot CLI: `read-window read` as a whole process\n");
    println!(
        "`{}` (the compiled component from the disk cache) against `sh -c 'sed -n 40,60p FILE | cut -b1-8001'`, each \
         spawned and reaped {runs} times, interleaved (a warm-up run of each first); wall time from spawn to exit, \
         output captured through pipes for both. Ratio = median ÷ the sed pipeline's median. Phases: {runs} more runs \
         with `READ_WINDOW_TIMINGS=1`; `before main` and `after the last mark` are measured against this process's \
         `CLOCK_MONOTONIC`. ⏱\n",
        cli.display()
    );
    let (first, lines) = (40, 21);
    let mut rows = Vec::new();
    let mut phase_table: Vec<(String, Vec<Vec<f64>>)> = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let label = format!(
            "lines {first}-{} of a {}-line file ({})",
            first + lines - 1,
            file.lines,
            fmt_size(file.bytes)
        );
        cli_run(&cli, file, first, lines, false);
        sed_cut(&file.host, first, first + lines - 1);
        let mut cli_samples = Vec::new();
        let mut sed_samples = Vec::new();
        let mut timed = Vec::new();
        for _ in 0..runs {
            cli_samples.push(cli_run(&cli, file, first, lines, false).0);
            let start = Instant::now();
            let out = sed_cut(&file.host, first, first + lines - 1);
            sed_samples.push(start.elapsed());
            assert_eq!(count_lines(&out), lines, "sed | cut");
            timed.push(cli_run(&cli, file, first, lines, true).1);
        }
        let sed_median = median(&sed_samples).as_secs_f64();
        let mut cli_row = Row::new(&label, "`read-window read` (whole process)", cli_samples);
        cli_row.ratio = Some(cli_row.median().as_secs_f64() / sed_median);
        let mut sed_row = Row::new(
            &label,
            "`sed -n 'A,Bp' FILE \\| cut -b1-8001` (sh -c subprocess)",
            sed_samples,
        );
        sed_row.ratio = Some(1.0);
        rows.push(cli_row);
        rows.push(sed_row);
        for phases in timed {
            for (name, micros) in phases {
                let slot = match phase_table.iter().position(|(known, _)| *known == name) {
                    Some(slot) => slot,
                    None => {
                        phase_table.push((name, vec![Vec::new(); files.len()]));
                        phase_table.len() - 1
                    }
                };
                phase_table[slot].1[index].push(micros);
            }
        }
    }
    print_table(&rows, "÷ sed \\| cut");
    let targets: Vec<String> = rows
        .chunks(2)
        .map(|pair| format!("{:.2}", pair[0].ratio.unwrap_or(f64::NAN)))
        .collect();
    println!(
        "**One-shot `read-window read` ÷ `sed | cut` = {}** (the issue's target: at most 1.0) ⏱\n",
        targets.join(", ")
    );
    let mut header = String::from("| phase |");
    let mut rule = String::from("|---|");
    for file in files {
        let _ = write!(header, " median µs, {}-line file |", file.lines);
        rule.push_str("---:|");
    }
    println!("{header}\n{rule}");
    let mut sums = vec![0.0; files.len()];
    for (name, per_file) in &phase_table {
        let mut line = format!("| {name} |");
        for (index, samples) in per_file.iter().enumerate() {
            let mut sorted = samples.clone();
            sorted.sort_by(f64::total_cmp);
            let mid = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
            sums[index] += mid;
            let _ = write!(line, " {mid:.1} |");
        }
        println!("{line}");
    }
    let mut line = String::from("| sum of the medians |");
    for sum in sums {
        let _ = write!(line, " {sum:.1} |");
    }
    println!("{line}\n");
    Ok(())
}
