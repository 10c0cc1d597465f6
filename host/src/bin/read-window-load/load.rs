//! The load run: live sessions read windows from a pool of threads; start-up, memory and throughput tables.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use read_window_host::{
    Allocation, Config, Grants, HostError, ReadError, ReadOutcome, ReadRequest, ReadWindow, Session,
};

use crate::measure::{
    fmt_count, fmt_duration, fmt_per_session, load_average, percentile, rss_bytes, thread_cpu_time,
};
use crate::options::{cores, AllocatorChoice, Options, TempDir};

/// Lines of each session's two files.
const FILE_LINES: [u64; 2] = [200, 120];
/// Names of each session's two files.
const FILE_NAMES: [&str; 2] = ["notes.txt", "step.rs"];
/// Window sizes run from `MIN_LIMIT` lines to `MIN_LIMIT + LIMITS - 1`.
const MIN_LIMIT: u64 = 5;
/// The count of window sizes (see `MIN_LIMIT`).
const LIMITS: u64 = 20;
/// The text lines are cut from (a prefix of varying length of it).
const FILLER: &str =
    "the quick brown fox jumps over the lazy dog while the agent pages through its files; ";

/// What a read of the typed API answers.
pub(crate) type Outcome = Result<Result<ReadOutcome, ReadError>, HostError>;

/// The text of line `n` (1-based) of file `file` of session `session`: distinct in every session and file, of
/// varying length.
fn line_text(session: usize, file: usize, n: u64) -> String {
    let filler_chars = (n as usize * 13 + session * 7 + file * 5) % FILLER.len();
    format!(
        "s{session} {} line {n}: {}",
        FILE_NAMES[file],
        &FILLER[..filler_chars]
    )
}

/// One agent: its session, its files (guest paths) and how many reads it made.
struct Agent {
    index: usize,
    session: Session,
    files: [String; 2],
    reads: u64,
}

/// The window of an agent's `k`-th read: (file, first line, line count). Distinct for k below
/// 2 × min(span) × `LIMITS` (3,800 with the default files): k alternates between the files; within a file,
/// j = k / 2 walks every first line (a stride coprime to the span) and then the next line count.
fn window_of(agent: usize, k: u64) -> (usize, u64, u64) {
    let file = (k % 2) as usize;
    let j = k / 2;
    let span = FILE_LINES[file] - (MIN_LIMIT + LIMITS);
    let offset = 1 + (j.wrapping_mul(37).wrapping_add(agent as u64 * 11)) % span;
    let limit = MIN_LIMIT + (j / span) % LIMITS;
    (file, offset, limit)
}

fn expected_content(agent: usize, file: usize, offset: u64, limit: u64) -> String {
    let mut content = String::new();
    for n in offset..offset + limit {
        let _ = writeln!(content, "{n}|{}", line_text(agent, file, n));
    }
    content
}

/// Reads the agent's next window and checks it; `Err` says what was wrong.
fn read_next(agent: &mut Agent) -> Result<(), String> {
    let (file, offset, limit) = window_of(agent.index, agent.reads);
    agent.reads += 1;
    let request = ReadRequest::new(agent.files[file].clone())
        .offset(offset)
        .limit(limit);
    let outcome: Outcome = agent.session.read(&request);
    let what = format!(
        "session {} read {} (lines {offset}+{limit} of {})",
        agent.index, agent.reads, FILE_NAMES[file]
    );
    match outcome {
        Ok(Ok(ReadOutcome::Window(window))) => {
            if window.start_line == offset
                && window.lines_returned == limit
                && window.content() == expected_content(agent.index, file, offset, limit)
            {
                Ok(())
            } else {
                Err(format!(
                    "{what}: a wrong window: lines {}+{}, content starts {:?}",
                    window.start_line,
                    window.lines_returned,
                    window.content().get(..60).unwrap_or(window.content())
                ))
            }
        }
        Ok(Ok(ReadOutcome::Unchanged(stub))) => Err(format!("{what}: a stub: {}", stub.message)),
        Ok(Ok(ReadOutcome::Image(image))) => Err(format!("{what}: an image: {}", image.hint)),
        Ok(Ok(ReadOutcome::Listing(listing))) => {
            Err(format!("{what}: a listing: {}", listing.hint))
        }
        Ok(Err(error)) => Err(format!("{what}: {:?}: {}", error.kind, error.message)),
        Err(error) => Err(format!("{what}: host error: {error}")),
    }
}

pub(super) fn load_component(
    choice: AllocatorChoice,
    sessions: usize,
) -> Result<ReadWindow, String> {
    let allocation = match choice {
        AllocatorChoice::OnDemand => Allocation::OnDemand,
        // Room for every session plus one restart per thread.
        AllocatorChoice::Pooling => Allocation::Pooling {
            sessions: u32::try_from(sessions + 2 * cores()).unwrap_or(u32::MAX),
        },
    };
    ReadWindow::load_with_allocation(allocation)
        .map_err(|e| format!("cannot load the component: {e:#}"))
}

struct RunRow {
    threads: usize,
    reads: usize,
    wall: Duration,
    latencies: Vec<Duration>,
    /// The CPU time of the reading thread for each read: the latency without the time the thread was preempted.
    cpu: Vec<Duration>,
    errors: usize,
}

/// Reads a session can make before its windows repeat (see [`window_of`]).
const DISTINCT_WINDOWS: u64 = 2 * (FILE_LINES[1] - (MIN_LIMIT + LIMITS)) * LIMITS;

/// The load run: starts `options.sessions` sessions over files generated under `dir`, reads a window of each file
/// in each, runs `options.reads` reads at each thread count and prints the start-up, memory and throughput tables
/// and the issue 15 targets.
///
/// Errors: the reads would repeat a session's windows, the component or a session does not start, a file cannot be
/// written, or an answer was wrong (the first ones are printed on stderr).
pub(super) fn load(options: &Options, dir: &TempDir) -> Result<(), String> {
    let sessions = options.sessions;
    check_reads_fit(options)?;
    let component = load_component(options.allocation, sessions)?;
    // Generate every session's files first, so the RSS deltas below count sessions, not file generation.
    let (grants, paths) = write_session_files(dir, sessions)?;
    let mut memory = Memory {
        before: rss_bytes(),
        ..Memory::default()
    };
    let (mut agents, mut starts) = start_agents(&component, &grants, paths)?;
    memory.idle = rss_bytes();
    let mut errors = warm_up(&mut agents);
    memory.active = rss_bytes();
    let mut rows = Vec::new();
    for &threads in &options.threads {
        let (row, run_errors) = run(&mut agents, threads, options.reads);
        errors.extend(run_errors);
        rows.push(row);
    }
    memory.after = rss_bytes();

    starts.sort();
    print_startup(options, &starts, &memory);
    let runs = print_runs(&mut rows);
    print_targets(&runs, &memory, sessions, errors.len());
    if errors.is_empty() {
        println!("\nErrors: 0 (every answer was the expected window).");
        Ok(())
    } else {
        for error in errors.iter().take(10) {
            eprintln!("{error}");
        }
        Err(format!(
            "{} errors (the first ones above)",
            fmt_count(errors.len() as u64)
        ))
    }
}

/// Checks that the warm-up reads and every run's share fit in the [`DISTINCT_WINDOWS`] a session reads without a
/// repeat. Errors: they do not (the message says what to change).
fn check_reads_fit(options: &Options) -> Result<(), String> {
    let sessions = options.sessions;
    // The warm-up reads, then each run's share, rounded up.
    let per_session = 2 + options
        .threads
        .iter()
        .map(|_| options.reads.div_ceil(sessions) as u64 + 1)
        .sum::<u64>();
    if per_session > DISTINCT_WINDOWS {
        return Err(format!(
            "{} reads over {} sessions make {per_session} reads a session, past the {DISTINCT_WINDOWS} distinct \
             windows a session reads; use more sessions or fewer reads",
            options.reads, sessions
        ));
    }
    Ok(())
}

/// Writes the two files of each of `sessions` sessions, each in a directory of its own under `dir`: the grants of
/// each session's directory and the guest paths of its files. Errors: a directory or file that cannot be written.
fn write_session_files(
    dir: &TempDir,
    sessions: usize,
) -> Result<(Vec<Grants>, Vec<[String; 2]>), String> {
    let mut grants = Vec::with_capacity(sessions);
    let mut paths = Vec::with_capacity(sessions);
    for index in 0..sessions {
        let root = dir.0.join(format!("s{index:05}"));
        std::fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
        let mut files: [String; 2] = Default::default();
        for (file, slot) in files.iter_mut().enumerate() {
            let text: String = (1..=FILE_LINES[file])
                .map(|n| format!("{}\n", line_text(index, file, n)))
                .collect();
            let path = root.join(FILE_NAMES[file]);
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            *slot = path.to_string_lossy().into_owned();
        }
        grants.push(Grants::new().dir(&root).map_err(|e| e.to_string())?);
        paths.push(files);
    }
    Ok((grants, paths))
}

/// Starts one session (default config) per grant: the agents and each session's start-up time, in order.
/// Errors: a session that did not start.
fn start_agents(
    component: &ReadWindow,
    grants: &[Grants],
    paths: Vec<[String; 2]>,
) -> Result<(Vec<Agent>, Vec<Duration>), String> {
    let mut starts = Vec::with_capacity(grants.len());
    let mut agents = Vec::with_capacity(grants.len());
    for (index, (grants, files)) in grants.iter().zip(paths).enumerate() {
        let started = Instant::now();
        let session = component
            .session(grants, Config::default())
            .map_err(|e| format!("session {index} did not start: {e}"))?;
        starts.push(started.elapsed());
        agents.push(Agent {
            index,
            session,
            files,
            reads: 0,
        });
    }
    Ok((agents, starts))
}

/// Every session reads a window of each of its files: its memory grows to what a read needs and both files' line
/// indexes are built, so the timed runs compare like with like. Returns what was wrong with the answers.
fn warm_up(agents: &mut [Agent]) -> Vec<String> {
    let mut errors = Vec::new();
    for agent in agents {
        for _ in FILE_NAMES {
            if let Err(error) = read_next(agent) {
                errors.push(error);
            }
        }
    }
    errors
}

/// The resident memory of the process (`VmRSS`, bytes) at each stage of the load run.
#[derive(Default)]
struct Memory {
    /// Before any session started (the files already written).
    before: u64,
    /// Every session started, none read yet.
    idle: u64,
    /// After the warm-up read of each file.
    active: u64,
    /// After every run.
    after: u64,
}

impl Memory {
    /// The growth from `before` to `stage` (bytes, negative when it shrank).
    fn growth(&self, stage: u64) -> i64 {
        stage as i64 - self.before as i64
    }
}

/// Prints the heading, the setup sentence and the table of session start-up times (`starts`, sorted) and memory
/// per session.
fn print_startup(options: &Options, starts: &[Duration], memory: &Memory) {
    let sessions = options.sessions;
    let start_total: Duration = starts.iter().sum();
    println!(
        "## read-window-load: {} sessions in one process\n",
        fmt_count(sessions as u64)
    );
    println!(
        "{} cores; wasmtime {} instance allocator; each session: its own directory with a {}-line and a {}-line \
         file, default config (dedup on; every window of a session distinct), windows of {}-{} lines checked \
         line by line.\n",
        cores(),
        options.allocation.name(),
        FILE_LINES[0],
        FILE_LINES[1],
        MIN_LIMIT,
        MIN_LIMIT + LIMITS - 1
    );
    println!(
        "| Session start p50 | Session start p99 | All sessions started in | RSS per idle session | RSS per \
         active session (after a read of each file) | RSS per session after the runs |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {} | {} | {} | {} | {} |\n",
        fmt_duration(percentile(starts, 0.5)),
        fmt_duration(percentile(starts, 0.99)),
        fmt_duration(start_total),
        fmt_per_session(memory.growth(memory.idle), sessions),
        fmt_per_session(memory.growth(memory.active), sessions),
        fmt_per_session(memory.growth(memory.after), sessions),
    );
}

/// What the targets need from the table of runs.
struct RunSummary {
    /// Reads per second at 2 threads ÷ at 1 thread, when both ran.
    two_thread_scaling: Option<f64>,
    /// The largest p99 ÷ p50 of wall-clock latency over the thread counts.
    worst_tail: f64,
}

/// The mean CPU time of a read in `row`, in seconds.
fn mean_cpu_seconds(row: &RunRow) -> f64 {
    row.cpu.iter().sum::<Duration>().as_secs_f64() / row.cpu.len().max(1) as f64
}

/// Prints the table of runs, one line per thread count (sorting each row's samples), and the sentences under it.
fn print_runs(rows: &mut [RunRow]) -> RunSummary {
    println!(
        "| Threads | Reads | Wall time | Reads per second | Scaling (vs 1 thread) | p50 latency | p99 latency | \
         p99 / p50 | CPU p50 | CPU p99 | CPU p99 / p50 | CPU-bound scaling | Errors |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    // Reads per second and the mean CPU seconds of a read at 1 thread.
    let one_thread = rows.iter().find(|row| row.threads == 1).map(|row| {
        (
            row.reads as f64 / row.wall.as_secs_f64(),
            mean_cpu_seconds(row),
        )
    });
    let mut summary = RunSummary {
        two_thread_scaling: None,
        worst_tail: 0.0,
    };
    for row in rows.iter_mut() {
        row.latencies.sort();
        row.cpu.sort();
        let per_second = row.reads as f64 / row.wall.as_secs_f64().max(1e-9);
        let p50 = percentile(&row.latencies, 0.5);
        let p99 = percentile(&row.latencies, 0.99);
        if let (2, Some((one, _))) = (row.threads, one_thread) {
            summary.two_thread_scaling = Some(per_second / one);
        }
        summary.worst_tail = summary
            .worst_tail
            .max(p99.as_secs_f64() / p50.as_secs_f64().max(1e-12));
        print_run_line(row, per_second, one_thread);
    }
    println!(
        "\nCPU-bound scaling: the thread count times the mean CPU time of a read at 1 thread over that at this count, \
         the scaling when every thread has a core to itself (the wall-clock scaling and p99 are lower when other \
         processes hold the cores; the load average was {} when the runs ended).",
        load_average()
    );
    println!(
        "It cannot exceed the thread count, and it is only a measure up to the number of cores ({}).",
        cores()
    );
    summary
}

/// Prints one line of the table of runs: `row` (its samples sorted), its `per_second` reads, and the scalings
/// against `one_thread` (reads per second, mean CPU seconds a read) when a 1-thread run was made.
fn print_run_line(row: &RunRow, per_second: f64, one_thread: Option<(f64, f64)>) {
    let p50 = percentile(&row.latencies, 0.5);
    let p99 = percentile(&row.latencies, 0.99);
    let cpu_p50 = percentile(&row.cpu, 0.5);
    let cpu_p99 = percentile(&row.cpu, 0.99);
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {:.1}× | {} | {} | {:.1}× | {} | {} |",
        row.threads,
        fmt_count(row.reads as u64),
        fmt_duration(row.wall),
        fmt_count(per_second.round() as u64),
        one_thread.map_or("—".to_string(), |(one, _)| format!(
            "{:.2}×",
            per_second / one
        )),
        fmt_duration(p50),
        fmt_duration(p99),
        p99.as_secs_f64() / p50.as_secs_f64().max(1e-12),
        fmt_duration(cpu_p50),
        fmt_duration(cpu_p99),
        cpu_p99.as_secs_f64() / cpu_p50.as_secs_f64().max(1e-12),
        one_thread.map_or("—".to_string(), |(_, cpu_one)| format!(
            "{:.2}×",
            row.threads as f64 * cpu_one / mean_cpu_seconds(row).max(1e-12)
        )),
        row.errors,
    );
}

/// Prints the issue 15 targets, each with holds or DOES NOT HOLD: the 2-thread scaling, the memory per idle
/// session, the latency tail and the count of wrong answers (`errors`).
fn print_targets(runs: &RunSummary, memory: &Memory, sessions: usize, errors: usize) {
    let verdict = |holds: bool| if holds { "holds" } else { "DOES NOT HOLD" };
    let idle_per_session = memory.growth(memory.idle) as f64 / sessions.max(1) as f64;
    println!("\nTargets (issue 15):");
    match runs.two_thread_scaling {
        Some(scaling) => println!(
            "- reads per second at 2 threads ÷ at 1 thread ≥ 1.7×: {scaling:.2}×, {} (wall clock: it needs 2 idle \
             cores)",
            verdict(scaling >= 1.7)
        ),
        None => println!(
            "- reads per second at 2 threads ÷ at 1 thread ≥ 1.7×: not measured (run with --threads 1,2)"
        ),
    }
    println!(
        "- resident memory per idle session ≤ 1 MiB: {}, {}",
        fmt_per_session(memory.growth(memory.idle), sessions),
        verdict(idle_per_session <= 1024.0 * 1024.0)
    );
    println!(
        "- p99 ≤ 10× p50 at every thread count: at most {:.1}×, {}",
        runs.worst_tail,
        verdict(runs.worst_tail <= 10.0)
    );
    println!(
        "- no errors: {}, {}",
        fmt_count(errors as u64),
        verdict(errors == 0)
    );
}

/// `reads` reads on `threads` threads; thread t reads round-robin over the agents i with i mod threads = t.
fn run(agents: &mut [Agent], threads: usize, reads: usize) -> (RunRow, Vec<String>) {
    let mut shares: Vec<Vec<&mut Agent>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, agent) in agents.iter_mut().enumerate() {
        shares[i % threads].push(agent);
    }
    let started = Instant::now();
    let results: Vec<(Vec<Duration>, Vec<Duration>, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .into_iter()
            .enumerate()
            .map(|(t, mut share)| {
                let count = reads / threads + usize::from(t < reads % threads);
                scope.spawn(move || {
                    let mut latencies = Vec::with_capacity(count);
                    let mut cpu = Vec::with_capacity(count);
                    let mut errors = Vec::new();
                    if share.is_empty() {
                        return (latencies, cpu, errors);
                    }
                    for i in 0..count {
                        let len = share.len();
                        let agent = &mut share[i % len];
                        let cpu_started = thread_cpu_time();
                        let started = Instant::now();
                        let result = read_next(agent);
                        latencies.push(started.elapsed());
                        cpu.push(thread_cpu_time().saturating_sub(cpu_started));
                        if let Err(error) = result {
                            errors.push(error);
                        }
                    }
                    (latencies, cpu, errors)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap_or_default())
            .collect()
    });
    let wall = started.elapsed();
    let mut latencies = Vec::with_capacity(reads);
    let mut cpu = Vec::with_capacity(reads);
    let mut errors = Vec::new();
    for (l, c, e) in results {
        latencies.extend(l);
        cpu.extend(c);
        errors.extend(e);
    }
    let row = RunRow {
        threads,
        reads: latencies.len(),
        wall,
        latencies,
        cpu,
        errors: errors.len(),
    };
    (row, errors)
}
