//! `read-window-bench`: reads windows of generated files through the read-window component and, side by side in
//! the same process, through the tools it replaces (`sed -n 'A,Bp' FILE | cut -b1-8001` in a subprocess) and a
//! native Rust reader of the same window (a plain `BufReader` skipping lines: the physical floor on this
//! machine). It prints Markdown tables of medians, with peak linear memory of the component and peak RSS of this
//! process for each scenario.
//!
//! ```text
//! cargo run --release -p read-window-host --bin read-window-bench            # the full run: a 1 GB log
//! cargo run --release -p read-window-host --bin read-window-bench -- --quick # a 100 MB log instead
//! ```
//!
//! Options: `--quick` (or `READ_WINDOW_BENCH_QUICK=1`) makes the big log 100 MB instead of 1 GB; `--dir DIR`
//! generates the files under DIR instead of the system temp directory; `--only
//! small|pages|one-line|one-shot|peers|documents` runs one section (repeatable); `one-shot` (section 5) and
//! `documents` (section 7: a 300-page PDF, the CLI's first and second read against `pdftotext`) run the release
//! `read-window` binary beside this one (or `$READ_WINDOW_BENCH_CLI`) as a whole process; `READ_WINDOW_BENCH_WASM=path.wasm` loads another build of the component (an unstripped
//! one lets `perf` name its functions, with `READ_WINDOW_PROFILE=perfmap` so wasmtime writes the perf map). The generated files are removed at exit. See docs/benchmarks.md.

use std::path::PathBuf;
use std::time::Instant;

use read_window::NativeFileSystem;
use read_window_host::{Grants, ReadWindow};

mod documents;
mod fixtures;
mod floor;
mod measure;
mod one_line;
mod one_shot;
mod pages;
mod peers;
mod readers;
mod rpc;
mod small;

use fixtures::{
    write_deep_source, write_json_one_liner, write_log, write_source, Fixture, TempDir,
    DEEP_DIRECTORIES,
};
use measure::{fmt_duration, fmt_ratio, fmt_size, print_table, Row, MIB};
use one_line::one_liner;
use one_shot::one_shot;
use pages::{big_log, BigLogReport, PAGE_BUDGET_CHARS, PAGE_LINES};
use readers::Ctx;
use small::{deep_read, small_read, SmallCounts};

fn main() {
    let options = Options::parse();
    let dir = TempDir::create(options.dir.as_deref());
    if let Err(message) = run(&options, &dir) {
        eprintln!("read-window-bench: {message}");
        drop(dir);
        std::process::exit(1);
    }
}

struct Options {
    quick: bool,
    dir: Option<PathBuf>,
    /// Run only these sections (`small`, `pages`, `one-line`, `one-shot`, `peers`, `documents`); all when empty.
    only: Vec<String>,
}

impl Options {
    fn wants(&self, section: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|s| s == section)
    }
}

impl Options {
    fn parse() -> Self {
        let mut options = Options {
            quick: std::env::var("READ_WINDOW_BENCH_QUICK")
                .is_ok_and(|v| !v.is_empty() && v != "0"),
            dir: None,
            only: Vec::new(),
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--dir" => options.dir = args.next().map(PathBuf::from),
                "--only" => {
                    let section = args.next().unwrap_or_default();
                    if ![
                        "small",
                        "pages",
                        "one-line",
                        "one-shot",
                        "peers",
                        "documents",
                    ]
                    .contains(&section.as_str())
                    {
                        eprintln!(
                            "read-window-bench: --only takes small, pages, one-line, one-shot, peers or documents"
                        );
                        std::process::exit(2);
                    }
                    options.only.push(section);
                }
                "--setup-peers" => {
                    let code = match peers::setup_peers() {
                        Ok(()) => 0,
                        Err(why) => {
                            eprintln!("read-window-bench: {why}");
                            1
                        }
                    };
                    std::process::exit(code);
                }
                "-h" | "--help" => {
                    println!(
                        "read-window-bench [--quick] [--dir DIR] [--only small|pages|one-line|one-shot|peers|documents]...\n\
                         read-window-bench --setup-peers\n\n  --quick    a 100 MB \
                         log instead of 1 GB (also READ_WINDOW_BENCH_QUICK=1)\n  --dir DIR  generate the files under \
                         DIR (default: the system temp directory); they are removed at exit\n  --only S   run only \
                         section S (repeatable): small (1-2), pages (3), one-line (4), one-shot (5), peers (6), documents (7)\n  \
                         --setup-peers  install the peers of section 6 with npm into target/bench-peers, then exit"
                    );
                    std::process::exit(0);
                }
                other => {
                    eprintln!("read-window-bench: unknown argument {other:?} (try --help)");
                    std::process::exit(2);
                }
            }
        }
        options
    }
}

// ---------------------------------------------------------------------------------------------------------------

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// The files the sections read.
struct Fixtures {
    /// The 100-line source file.
    source: Fixture,
    /// The 100,000-line log.
    log: Fixture,
    /// The big log (1 GB, or 100 MB with `--quick`; empty when the pages section does not run).
    big: Fixture,
    /// The 50 MB one-line JSON.
    json: Fixture,
    /// A copy of the source file [`DEEP_DIRECTORIES`] directories down.
    deep: Fixture,
}

/// Runs the sections `options` asks for over files generated in `dir`, printing the Markdown report. Errors: the
/// component does not load, the grants cannot be made, the CLI binary of sections 5-7 is missing, or a check of
/// section 7 fails.
fn run(options: &Options, dir: &TempDir) -> Result<(), String> {
    print_machine(options);
    let fixtures = write_fixtures(options, dir);
    let component = load_component()?;
    print_measure_notes();

    let grants = Grants::new().dir(&dir.0).map_err(|e| e.to_string())?;
    let guest_root = dir.0.to_string_lossy().into_owned();
    let mut ctx = Ctx {
        component: &component,
        grants,
        native_fs: NativeFileSystem::mount(&[(dir.0.clone(), guest_root)]),
        started: Instant::now(),
        floor: start_floor(&component, &dir.0),
    };
    if options.wants("small") {
        small_section(&mut ctx, &fixtures);
    }
    if options.wants("pages") {
        pages_section(&mut ctx, &fixtures.big);
    }
    if options.wants("one-shot") {
        let two_thousand = write_log(dir, "two-thousand.log", 2_000);
        one_shot(&[&fixtures.source, &two_thousand], 51)?;
    }
    if options.wants("one-line") {
        one_line_section(&mut ctx, &fixtures.json);
    }
    if options.wants("peers") {
        peers::peers_section(dir, &one_shot::cli_binary()?);
    }
    if options.wants("documents") {
        documents::documents_section(dir)?;
    }
    Ok(())
}

/// Bytes of the big log: 1 GB, or 100 MB with `--quick`.
fn big_log_bytes(options: &Options) -> u64 {
    if options.quick {
        100_000_000
    } else {
        1_000_000_000
    }
}

/// Prints the report's title, the machine and the mode.
fn print_machine(options: &Options) {
    println!("# read-window benchmarks\n");
    println!(
        "- Machine: {}, {} cores (available parallelism), {} RAM; kernel {}",
        cpu_model(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        proc_meminfo_total().map_or("unknown".to_string(), |b| format!(
            "{:.1} GiB",
            b as f64 / MIB / 1024.0
        )),
        std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map_or("unknown".into(), |s| s.trim().to_string()),
    );
    println!(
        "- Mode: {} (big log {}); files generated in {}",
        if options.quick { "--quick" } else { "full" },
        fmt_size(big_log_bytes(options)),
        if options.dir.is_some() {
            "the --dir directory"
        } else {
            "the system temp directory"
        }
    );
}

/// Generates the four files in `dir` (the big log only when the pages section runs) and prints their sizes and the
/// time it took.
fn write_fixtures(options: &Options, dir: &TempDir) -> Fixtures {
    let big_lines = big_log_bytes(options) / 100;
    let start = Instant::now();
    let source = write_source(dir);
    let fixtures = Fixtures {
        deep: write_deep_source(dir, &source),
        source,
        log: write_log(dir, "service.log", 100_000),
        big: write_log(
            dir,
            "big.log",
            if options.wants("pages") { big_lines } else { 0 },
        ),
        json: write_json_one_liner(dir, 50_000_000),
    };
    let generated = start.elapsed();
    let Fixtures {
        source,
        log,
        big,
        json,
        deep: _,
    } = &fixtures;
    println!(
        "- Files: {} lines ({}), {} lines ({}), {} lines ({}), a {} JSON on one line; generated in {}",
        source.lines,
        fmt_size(source.bytes),
        log.lines,
        fmt_size(log.bytes),
        big.lines,
        fmt_size(big.bytes),
        fmt_size(json.bytes),
        fmt_duration(generated)
    );
    fixtures
}

/// Loads the component (`$READ_WINDOW_BENCH_WASM`, else the one this build made) and prints its size, load time
/// and whether its compiled code came from the disk cache. Errors: it does not load.
fn load_component() -> Result<ReadWindow, String> {
    let start = Instant::now();
    // READ_WINDOW_BENCH_WASM loads another build of the component (an unstripped one, to profile it by name).
    let wasm_path = std::env::var("READ_WINDOW_BENCH_WASM")
        .unwrap_or_else(|_| read_window_host::COMPONENT_PATH.to_string());
    let component = ReadWindow::from_file(&wasm_path)
        .map_err(|e| format!("cannot load the component {wasm_path}: {e:#}"))?;
    let wasm_bytes = std::fs::metadata(&wasm_path)
        .map(|meta| meta.len())
        .unwrap_or(0);
    let wasm_name = std::path::Path::new(&wasm_path)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    println!(
        "- Component: {wasm_name} ({wasm_bytes} bytes) loaded in {} ({})",
        fmt_duration(start.elapsed()),
        if component.loaded_from_cache() {
            "compiled code from the disk cache"
        } else {
            "compiled now"
        }
    );
    Ok(component)
}

/// The sandbox floor over `dir`, or `None` with a line saying why it is left out.
fn start_floor(component: &ReadWindow, dir: &std::path::Path) -> Option<floor::Floor> {
    match floor::Floor::start(component, dir) {
        Ok(floor) => {
            println!("- Sandbox floor: bench-floor/ (stat, open, stat, positioned reads, close; the bytes as a string) in the same engine and host\n");
            Some(floor)
        }
        Err(why) => {
            println!("- Sandbox floor: left out ({why})\n");
            None
        }
    }
}

/// Prints how the host's peak RSS is measured (resetting its high-water mark once to find out whether it can be)
/// and which figures depend on the machine.
fn print_measure_notes() {
    let rss_reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    println!(
        "- Peak host RSS: VmHWM of this process{}; the sed pipeline runs in child processes, so its memory is not in it",
        if rss_reset {
            ", its high-water mark reset (`/proc/self/clear_refs` = 5) before each row; (+x) is the growth over the RSS at the reset"
        } else {
            " (the high-water mark could not be reset: figures are cumulative)"
        }
    );
    println!(
        "- The files are written and fsynced before any timing, then read from the page cache: times are warm-cache times."
    );
    println!("- ⏱ marks machine-dependent figures (times and time ratios). Memory and positioned reads do not depend on the machine's speed.\n");
}

/// Runs of each page and one-line measurement.
const RUNS: usize = 7;
/// Times a session alternates between the deep page and page 1 in each run of section 3.
const ALTERNATIONS: usize = 10;

/// Sections 1-2: the small reads of the source file and of the log, their table and their targets.
fn small_section(ctx: &mut Ctx<'_>, fixtures: &Fixtures) {
    let counts = SmallCounts {
        warm: 301,
        fresh: 101,
        subprocess: 101,
        native: 301,
    };
    println!("## 1-2. A small read: warm session, stateless read-once, fresh session; sed | cut and the native floor\n");
    println!(
        "Dedup is off (`Config {{ dedup: Some(false), .. }}`) so repeats return content, and the loop tripwire's \
         thresholds are out of reach (`loop_warn_at: u32::MAX - 1`, `loop_block_at: u32::MAX`): consecutive reads \
         alternate between the offset shown and the next line, which the cycle tripwire would otherwise block. Ratio = median ÷ the \
         component's warm-session median for the same window (above 1: slower than the warm session).\n"
    );
    let mut rows = small_read(ctx, &fixtures.source, 40, 21, &counts);
    rows.extend(small_read(ctx, &fixtures.log, 50_000, 100, &counts));
    rows.extend(deep_read(ctx, &fixtures.deep, DEEP_DIRECTORIES, &counts));
    print_table(&rows, "÷ warm session");
    print_small_targets(&rows);
}

/// Section 3: the pages of the big log, their table, their targets and the whole-file scan speeds.
fn pages_section(ctx: &mut Ctx<'_>, big: &Fixture) {
    println!("## 3. Pages of the {} log\n", fmt_size(big.bytes));
    let report = big_log(ctx, big, RUNS, ALTERNATIONS);
    println!(
        "Pages are {PAGE_LINES} lines (`limit` {PAGE_LINES}, the default `max-lines`) with a budget of {PAGE_BUDGET_CHARS} \
         characters so the whole page fits (a line is 100 bytes). Page 1 starts at line {}; the tenth-from-last page \
         at line {}. A first read is the first read of the file in a fresh session: it scans the whole file to count \
         its lines and build the sparse index. A second read reuses the index (in each of {RUNS} runs: page 1 twice \
         in one session, then the deep page and page 1 alternately {ALTERNATIONS} times; and a second session that \
         reads the deep page first and then again). Ratio = median ÷ the component's second read of the same page. \
         Index size: {} bytes.\n",
        report.first_offset, report.deep_offset, report.index_bytes
    );
    print_table(&report.rows, "÷ component second read");
    print_page_targets(&report);
    let throughput = |method: &str| {
        report
            .rows
            .iter()
            .find(|row| row.read.starts_with("page 1 ") && row.method.starts_with(method))
            .map_or("n/a".to_string(), |row| {
                format!(
                    "{:.2} GB/s",
                    big.bytes as f64 / row.median().as_secs_f64() / 1e9
                )
            })
    };
    println!(
        "Whole-file scan speed (file size ÷ median) ⏱: component first read {}, the same core natively {}, sed | cut {}.\n",
        throughput("component, first read"),
        throughput("same Rust core natively, first read"),
        throughput("`sed"),
    );
}

/// Section 4: the windows of the one-line JSON and their table.
fn one_line_section(ctx: &mut Ctx<'_>, json: &Fixture) {
    println!("## 4. The {} single-line JSON\n", fmt_size(json.bytes));
    let one = one_liner(ctx, json, RUNS, 51);
    println!(
        "The line has {} characters; a window shows {} of them (the default `max-line-length`) and its cursor moves \
         {} columns on, so the last window of the cursor chain starts at column {}{}. Ratio = median ÷ the \
         component's second read of the same window.\n",
        one.total_chars,
        one.step,
        one.step,
        one.last_column,
        if one.last_verified { " (checked: it returns no further cursor)" } else { " (CHECK FAILED: it returned a further cursor)" }
    );
    print_table(&one.rows, "÷ component second read");
}

/// The median of `a` ÷ the median of `b`, the rows found by the start of their read label and method.
fn median_ratio(rows: &[Row], read: &str, a: &str, b: &str) -> Option<f64> {
    let find = |method: &str| {
        rows.iter()
            .find(|row| row.read.starts_with(read) && row.method.starts_with(method))
            .map(|row| row.median().as_secs_f64())
    };
    Some(find(a)? / find(b)?)
}

/// `x.xx× (target ≤ t×): holds`, or `n/a` when a row is missing.
fn target_cell(ratio: Option<f64>, target: f64, at_most: bool) -> String {
    match ratio {
        Some(ratio) => {
            let holds = if at_most {
                ratio <= target
            } else {
                ratio >= target
            };
            format!(
                "**{}** (target {} {target}×): {}",
                fmt_ratio(ratio),
                if at_most { "≤" } else { "≥" },
                if holds { "holds" } else { "DOES NOT HOLD" }
            )
        }
        None => "n/a".to_string(),
    }
}

/// The small-read target from one run: the warm component read ÷ the sandbox floor (issue 30; at most 1.5×), then
/// ÷ the native `BufReader` floor and where the rest goes (the same core natively ÷ the floor: the core; the component ÷ the core natively: wasm and the
/// boundary).
fn print_small_targets(rows: &[Row]) {
    const WARM: &str = "component, warm session";
    const FLOOR: &str = "native floor";
    const CORE: &str = "same Rust core compiled natively, warm";
    println!("Ratios of this run ⏱:\n");
    // The row labels' starts, and the name each ratio is printed under.
    for (read, name) in [
        ("lines 40-60 of a", "lines 40-60"),
        ("lines 50000-50099 ", "lines 50000-50099"),
    ] {
        let sandbox = median_ratio(rows, read, WARM, floor::FLOOR_METHOD);
        let sandbox = if read.starts_with("lines 40-60") {
            target_cell(sandbox, 1.5, true)
        } else {
            sandbox.map_or("n/a (no floor)".to_string(), fmt_ratio)
        };
        println!(
            "- {}: component warm session ÷ sandbox floor = {sandbox}; ÷ native floor = {}; same core natively ÷ native floor = {}; component ÷ same core natively = {}",
            name,
            median_ratio(rows, read, WARM, FLOOR).map_or("n/a".to_string(), fmt_ratio),
            median_ratio(rows, read, CORE, FLOOR).map_or("n/a".to_string(), fmt_ratio),
            median_ratio(rows, read, WARM, CORE).map_or("n/a".to_string(), fmt_ratio),
        );
    }
    if let Some(ratio) = median_ratio(rows, "lines 40-60 of the", WARM, floor::FLOOR_METHOD) {
        println!(
            "- the same lines {DEEP_DIRECTORIES} directories deep: component warm session ÷ sandbox floor = {} (the \
             floor opens the whole path in one call; read-window checks each directory on the way with a stat)",
            fmt_ratio(ratio)
        );
    }
    println!();
}

/// The page targets from one run: page 1's second read ÷ the sandbox floor's read of the same bytes (at most
/// 1.5×), ÷ the native floor, the deep page ÷ page 1, and the first scan's rate ÷ the rate of the same core natively.
fn print_page_targets(report: &BigLogReport) {
    let rows = &report.rows;
    let page_1 = median_ratio(rows, "page 1 ", "component, second read", "native floor");
    // Rates are inverse to times: the component's scan rate ÷ the native core's = native time ÷ component time.
    let scan = median_ratio(
        rows,
        "page 1 ",
        "same Rust core natively, first read",
        "component, first read",
    );
    let deep_core = rows
        .iter()
        .find(|row| {
            !row.read.starts_with("page 1 ")
                && row
                    .method
                    .starts_with("same Rust core natively, index reused")
        })
        .zip(rows.iter().find(|row| {
            !row.read.starts_with("page 1 ") && row.method.starts_with("component, second read")
        }))
        .map(|(core, component)| component.median().as_secs_f64() / core.median().as_secs_f64());
    let page_1_sandbox = median_ratio(
        rows,
        "page 1 ",
        "component, second read",
        floor::FLOOR_METHOD,
    );
    println!("Ratios of this run ⏱:\n");
    println!(
        "- Page 1, second read (index reused) ÷ sandbox floor (the same bytes) = {}",
        target_cell(page_1_sandbox, 1.5, true)
    );
    println!(
        "- Page 1, second read (index reused) ÷ native floor = {}",
        page_1.map_or("n/a".to_string(), fmt_ratio)
    );
    println!(
        "- Deep page, second read ÷ page 1, second read = {}",
        target_cell(Some(report.deep_ratio), 1.1, true)
    );
    println!(
        "- Deep page, second read ÷ the same core natively (index reused) = {}",
        deep_core.map_or("n/a".to_string(), fmt_ratio)
    );
    println!(
        "- First scan (page 1, index built): component scan rate ÷ the same core's native scan rate = {}\n",
        target_cell(scan, 0.6, false)
    );
}

fn proc_meminfo_total() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|line| line.starts_with("MemTotal:"))?;
    line.split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()
        .map(|kib| kib * 1024)
}
