//! Section 5: the one-shot CLI as a whole process.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::fixtures::Fixture;
use crate::measure::{fmt_size, median, print_table, Row};
use crate::readers::{count_lines, sed_cut, SED_CUT_METHOD};

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
/// Panics (a fixture error) when the CLI fails or prints another window.
pub(super) fn cli_run(
    cli: &Path,
    file: &Fixture,
    first: u64,
    lines: u64,
    timings: bool,
) -> (Duration, Vec<(String, f64)>) {
    let mut command = cli_command(cli, file, first, lines, timings);
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
    let phases = if timings {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .find(|line| line.starts_with("read-window: timings:"))
            .unwrap_or_default();
        timing_phases(line, spawned_ns, exited_ns)
    } else {
        Vec::new()
    };
    (wall, phases)
}

/// `read-window read FILE --offset FIRST --limit LINES` in the file's directory, with `READ_WINDOW_TIMINGS=1`
/// when `timings`, else without it.
fn cli_command(cli: &Path, file: &Fixture, first: u64, lines: u64, timings: bool) -> Command {
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
    command
}

/// The phases (`name`, microseconds) of the CLI's `read-window: timings:` `line`: `before main` (from
/// `spawned_ns`, this process's `CLOCK_MONOTONIC` at the spawn, to its `started_ns`), each `NAME_us` field but
/// `total`, and `after the last mark` (from its `ended_ns` to `exited_ns`). A field missing or unreadable is left
/// out.
fn timing_phases(
    line: &str,
    spawned_ns: Option<u64>,
    exited_ns: Option<u64>,
) -> Vec<(String, f64)> {
    let field = |name: &str| {
        line.split_whitespace()
            .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
            .and_then(|value| value.parse::<u64>().ok())
    };
    let mut phases = Vec::new();
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
    phases
}

/// The first line and the line count of section 5's window.
const ONE_SHOT_WINDOW: (u64, u64) = (40, 21);

/// Section 5: `read-window read FILE --offset 40 --limit 21` as a whole process, against `sed -n 40,60p FILE | cut
/// -b1-8001` in `sh -c`, `runs` times each (interleaved, after one warm-up of each), on each of `files`; then the
/// median of each start-up phase from `READ_WINDOW_TIMINGS` runs. Errors: the CLI binary is missing.
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
    let mut rows = Vec::new();
    let mut phases = PhaseTable::new(files.len());
    for (index, file) in files.iter().enumerate() {
        let timed = one_shot_rows(&cli, file, runs, &mut rows);
        for run in timed {
            phases.add(index, run);
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
    phases.print(files);
    Ok(())
}

/// Times the CLI and the sed pipeline on `file` `runs` times each (interleaved, after a warm-up of each), pushes
/// their two rows onto `rows` (ratios to the sed pipeline's median) and returns the phases of `runs` more CLI runs
/// with timings on.
fn one_shot_rows(
    cli: &Path,
    file: &Fixture,
    runs: usize,
    rows: &mut Vec<Row>,
) -> Vec<Vec<(String, f64)>> {
    let (first, lines) = ONE_SHOT_WINDOW;
    let label = format!(
        "lines {first}-{} of a {}-line file ({})",
        first + lines - 1,
        file.lines,
        fmt_size(file.bytes)
    );
    cli_run(cli, file, first, lines, false);
    sed_cut(&file.host, first, first + lines - 1);
    let mut cli_samples = Vec::new();
    let mut sed_samples = Vec::new();
    let mut timed = Vec::new();
    for _ in 0..runs {
        cli_samples.push(cli_run(cli, file, first, lines, false).0);
        let start = Instant::now();
        let out = sed_cut(&file.host, first, first + lines - 1);
        sed_samples.push(start.elapsed());
        assert_eq!(count_lines(&out), lines, "sed | cut");
        timed.push(cli_run(cli, file, first, lines, true).1);
    }
    let sed_median = median(&sed_samples).as_secs_f64();
    rows.push(
        Row::new(&label, "`read-window read` (whole process)", cli_samples).ratio_to(sed_median),
    );
    let mut sed_row = Row::new(&label, SED_CUT_METHOD, sed_samples);
    sed_row.ratio = Some(1.0);
    rows.push(sed_row);
    timed
}

/// The start-up phases of the CLI runs: for each phase (in the order first seen), its samples (microseconds) on
/// each file.
struct PhaseTable {
    /// Each phase's name and, for each file, its samples in microseconds.
    phases: Vec<(String, Vec<Vec<f64>>)>,
    /// The count of files.
    files: usize,
}

impl PhaseTable {
    /// An empty table over `files` files.
    fn new(files: usize) -> Self {
        PhaseTable {
            phases: Vec::new(),
            files,
        }
    }

    /// Adds one run's `phases` (`name`, microseconds) on the file at `index`.
    fn add(&mut self, index: usize, phases: Vec<(String, f64)>) {
        for (name, micros) in phases {
            let slot = match self.phases.iter().position(|(known, _)| *known == name) {
                Some(slot) => slot,
                None => {
                    self.phases.push((name, vec![Vec::new(); self.files]));
                    self.phases.len() - 1
                }
            };
            if let Some(samples) = self
                .phases
                .get_mut(slot)
                .and_then(|(_, per_file)| per_file.get_mut(index))
            {
                samples.push(micros);
            }
        }
    }

    /// Prints the table: a line per phase with its median on each of `files`, then the sum of the medians.
    fn print(&self, files: &[&Fixture]) {
        let mut header = String::from("| phase |");
        let mut rule = String::from("|---|");
        for file in files {
            let _ = write!(header, " median µs, {}-line file |", file.lines);
            rule.push_str("---:|");
        }
        println!("{header}\n{rule}");
        let mut sums = vec![0.0; files.len()];
        for (name, per_file) in &self.phases {
            let mut line = format!("| {name} |");
            for (sum, samples) in sums.iter_mut().zip(per_file) {
                let mut sorted = samples.clone();
                sorted.sort_by(f64::total_cmp);
                let mid = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
                *sum += mid;
                let _ = write!(line, " {mid:.1} |");
            }
            println!("{line}");
        }
        let mut line = String::from("| sum of the medians |");
        for sum in sums {
            let _ = write!(line, " {sum:.1} |");
        }
        println!("{line}\n");
    }
}
