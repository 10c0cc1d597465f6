//! `read-window-load`: many agents at once. One process loads the read-window component once, starts 1,000 live
//! sessions (each over a directory of its own with two small files, generated in a temporary directory and
//! removed at exit), and reads windows through them from a pool of threads, for a fixed count of reads. It prints
//! Markdown: session start-up time, resident memory per idle and per active session (`VmRSS` deltas from
//! `/proc/self/status`), and for each thread count the reads per second, the scaling against one thread, p50/p99
//! latency (wall clock, and the reading thread's CPU time, which leaves out the time other processes held the
//! core) and errors.
//!
//! ```text
//! cargo run --release -p read-window-host --bin read-window-load                  # 1,000 sessions, 1 and 2 threads
//! cargo run --release -p read-window-host --bin read-window-load -- --quick       # 100 sessions, fewer reads
//! cargo run --release -p read-window-host --bin read-window-load -- --fuzz 100000 # the long run (see below)
//! ```
//!
//! Options: `--sessions N` (default 1,000; `--quick` 100), `--reads N` (reads per thread count, default 20,000;
//! `--quick` 2,000), `--threads LIST` (comma-separated thread counts, default `1,C` where C is the number of
//! cores), `--allocator on-demand|pooling` (wasmtime's instance allocator, see `read_window_host::Allocation`),
//! `--dir DIR` (generate the files under DIR instead of the system temp directory), `--seed N` (the fuzz run's
//! seed). `READ_WINDOW_WASM=path.wasm` loads another build of the component.
//!
//! Every answer is checked: a session's k-th read asks for a window no other read of that session asked for
//! (file, first line and line count follow from k by a bijection, for its first 3,800 reads), so dedup stays on
//! and never answers with a stub and the loop tripwire never counts a repeat; the window must be exactly the
//! expected lines (`N|text\n` each). A stub, a typed error, a host error or a wrong window counts as an error.
//! Thread t owns the sessions i with i mod T = t (a [`Session`] is `Send`, used by one thread at a time) and reads
//! its share of the reads round-robin over them.
//!
//! `--fuzz N` runs N requests instead through the real component, spread over random files (text, long lines,
//! CRLF, lone CR, UTF-16, legacy bytes, binary, empty), random configs (limits, clamps, character and token
//! budgets, dedup, tripwire levels), random requests (offsets, limits, columns, tails, bad values, missing and
//! outside paths) and sessions replaced every few requests, on every core. Every answer must be a valid window
//! (budget kept, gutters numbered from `start-line`, `lines-returned` lines, `truncated` exactly when a cursor
//! is returned and a reason is named), a stub or a typed error with a message; a host error (a trap, a
//! deadline, the memory cap) is a failure. It prints the count, the time, the answers by kind and the failures,
//! and exits with status 1 when there is any.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use read_window_host::{
    Allocation, Budget, Config, ErrorKind, Grants, HostError, ReadError, ReadOutcome, ReadRequest,
    ReadResult, ReadWindow, Session, TokenBudget,
};

const MIB: f64 = 1024.0 * 1024.0;
/// Lines of each session's two files.
const FILE_LINES: [u64; 2] = [200, 120];
/// Names of each session's two files.
const FILE_NAMES: [&str; 2] = ["notes.txt", "step.rs"];
/// Window sizes run from `MIN_LIMIT` lines to `MIN_LIMIT + LIMITS - 1`.
const MIN_LIMIT: u64 = 5;
const LIMITS: u64 = 20;
const FILLER: &str =
    "the quick brown fox jumps over the lazy dog while the agent pages through its files; ";

type Outcome = Result<Result<ReadOutcome, ReadError>, HostError>;

fn main() {
    let options = Options::parse();
    let dir = TempDir::create(options.dir.as_deref());
    let result = match options.fuzz {
        Some(requests) => fuzz(&options, &dir, requests),
        None => load(&options, &dir),
    };
    drop(dir);
    if let Err(message) = result {
        eprintln!("read-window-load: {message}");
        std::process::exit(1);
    }
}

struct Options {
    sessions: usize,
    reads: usize,
    threads: Vec<usize>,
    allocation: AllocatorChoice,
    dir: Option<PathBuf>,
    fuzz: Option<u64>,
    seed: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum AllocatorChoice {
    OnDemand,
    Pooling,
}

impl AllocatorChoice {
    fn name(self) -> &'static str {
        match self {
            AllocatorChoice::OnDemand => "on-demand",
            AllocatorChoice::Pooling => "pooling",
        }
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Options {
    fn parse() -> Self {
        let mut sessions = None;
        let mut reads = None;
        let mut threads = None;
        let mut quick = false;
        let mut options = Options {
            sessions: 1_000,
            reads: 20_000,
            threads: Vec::new(),
            allocation: AllocatorChoice::OnDemand,
            dir: None,
            fuzz: None,
            seed: 0x5eed,
        };
        let mut args = std::env::args().skip(1);
        let number = |flag: &str, value: Option<String>| -> u64 {
            match value.as_deref().map(|v| v.replace('_', "").parse::<u64>()) {
                Some(Ok(n)) => n,
                _ => usage(&format!("{flag} takes a whole number")),
            }
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--quick" => quick = true,
                "--sessions" => sessions = Some(number("--sessions", args.next()) as usize),
                "--reads" => reads = Some(number("--reads", args.next()) as usize),
                "--threads" => {
                    let list = args.next().unwrap_or_default();
                    let parsed: Result<Vec<usize>, _> =
                        list.split(',').map(|n| n.trim().parse::<usize>()).collect();
                    match parsed {
                        Ok(list) if !list.is_empty() && list.iter().all(|&n| n > 0) => {
                            threads = Some(list)
                        }
                        _ => usage(
                            "--threads takes a comma-separated list of thread counts, e.g. 1,2",
                        ),
                    }
                }
                "--allocator" => {
                    options.allocation = match args.next().as_deref() {
                        Some("on-demand") => AllocatorChoice::OnDemand,
                        Some("pooling") => AllocatorChoice::Pooling,
                        _ => usage("--allocator takes on-demand or pooling"),
                    }
                }
                "--dir" => options.dir = args.next().map(PathBuf::from),
                "--fuzz" => options.fuzz = Some(number("--fuzz", args.next())),
                "--seed" => options.seed = number("--seed", args.next()),
                "--help" | "-h" => {
                    println!(
                        "read-window-load [--quick] [--sessions N] [--reads N] [--threads LIST] \
                         [--allocator on-demand|pooling] [--dir DIR] [--fuzz N [--seed N]]\n\n\
                         Starts N sessions in one process and reads windows of their files from a pool of threads,\n\
                         checking every answer; prints session start times, resident memory per session, reads per\n\
                         second, latency percentiles and the issue 15 targets with holds or DOES NOT HOLD.\n\n\
                         \x20 --quick           100 sessions and 2,000 reads per thread count\n\
                         \x20 --sessions N      live sessions (default 1,000; at least 1)\n\
                         \x20 --reads N         reads at each thread count, spread over the sessions (default 20,000)\n\
                         \x20 --threads LIST    thread counts to run, comma-separated (default 1 and the core count)\n\
                         \x20 --allocator A     wasmtime's instance allocator: on-demand (default) or pooling\n\
                         \x20 --dir DIR         generate the files under DIR (default: the system temp directory)\n\
                         \x20 --fuzz N          instead: send N random requests (random files, configs and sessions)\n\
                         \x20                   through the component and check every answer\n\
                         \x20 --seed N          the fuzz run's random seed"
                    );
                    std::process::exit(0);
                }
                other => usage(&format!("unknown option {other}")),
            }
        }
        if sessions == Some(0) {
            usage("--sessions takes at least 1");
        }
        if reads == Some(0) {
            usage("--reads takes at least 1");
        }
        options.sessions = sessions.unwrap_or(if quick { 100 } else { 1_000 });
        options.reads = reads.unwrap_or(if quick { 2_000 } else { 20_000 });
        options.threads = threads.unwrap_or_else(|| {
            let mut list = vec![1, cores()];
            list.dedup();
            list
        });
        options
    }
}

fn usage(message: &str) -> ! {
    eprintln!("read-window-load: {message} (see --help)");
    std::process::exit(2);
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn create(base: Option<&Path>) -> Self {
        let base = base.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = base.join(format!("read-window-load-{}-{nanos}", std::process::id()));
        if let Err(e) = std::fs::create_dir_all(&path) {
            usage(&format!("cannot create {}: {e}", path.display()));
        }
        TempDir(path.canonicalize().unwrap_or(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Measurement helpers

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kib| kib.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// The value at `fraction` (0.5 = median) of sorted samples.
fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`); zero where it cannot be read.
fn thread_cpu_time() -> Duration {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable timespec for the duration of the call.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0 {
            return Duration::new(
                u64::try_from(now.tv_sec).unwrap_or(0),
                u32::try_from(now.tv_nsec).unwrap_or(0),
            );
        }
    }
    Duration::ZERO
}

/// The 1-minute load average from `/proc/loadavg`, or `n/a`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "n/a".to_string())
}

fn fmt_duration(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1_000.0 {
        format!("{micros:.1} µs")
    } else if micros < 1_000_000.0 {
        format!("{:.2} ms", micros / 1e3)
    } else {
        format!("{:.2} s", micros / 1e6)
    }
}

fn fmt_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn fmt_per_session(delta: i64, sessions: usize) -> String {
    let per = delta as f64 / sessions.max(1) as f64;
    if per.abs() >= MIB {
        format!("{:.2} MiB", per / MIB)
    } else {
        format!("{:.0} KiB", per / 1024.0)
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The load run

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
                && window.content == expected_content(agent.index, file, offset, limit)
            {
                Ok(())
            } else {
                Err(format!(
                    "{what}: a wrong window: lines {}+{}, content starts {:?}",
                    window.start_line,
                    window.lines_returned,
                    window.content.get(..60).unwrap_or(&window.content)
                ))
            }
        }
        Ok(Ok(ReadOutcome::Unchanged(stub))) => Err(format!("{what}: a stub: {}", stub.message)),
        Ok(Err(error)) => Err(format!("{what}: {:?}: {}", error.kind, error.message)),
        Err(error) => Err(format!("{what}: host error: {error}")),
    }
}

fn load_component(choice: AllocatorChoice, sessions: usize) -> Result<ReadWindow, String> {
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

fn load(options: &Options, dir: &TempDir) -> Result<(), String> {
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
    let component = load_component(options.allocation, sessions)?;
    // Generate every session's files first, so the RSS deltas below count sessions, not file generation.
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

    let rss_before = rss_bytes();
    let mut starts = Vec::with_capacity(sessions);
    let mut agents = Vec::with_capacity(sessions);
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
    let rss_idle = rss_bytes();
    // Every session reads a window of each of its files: its memory grows to what a read needs and both files'
    // line indexes are built, so the timed runs below compare like with like.
    let mut errors: Vec<String> = Vec::new();
    for agent in &mut agents {
        for _ in FILE_NAMES {
            if let Err(error) = read_next(agent) {
                errors.push(error);
            }
        }
    }
    let rss_active = rss_bytes();

    let mut rows = Vec::new();
    for &threads in &options.threads {
        let (row, run_errors) = run(&mut agents, threads, options.reads);
        errors.extend(run_errors);
        rows.push(row);
    }
    let rss_after = rss_bytes();

    starts.sort();
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
        fmt_duration(percentile(&starts, 0.5)),
        fmt_duration(percentile(&starts, 0.99)),
        fmt_duration(start_total),
        fmt_per_session(rss_idle as i64 - rss_before as i64, sessions),
        fmt_per_session(rss_active as i64 - rss_before as i64, sessions),
        fmt_per_session(rss_after as i64 - rss_before as i64, sessions),
    );
    println!(
        "| Threads | Reads | Wall time | Reads per second | Scaling (vs 1 thread) | p50 latency | p99 latency | \
         p99 / p50 | CPU p50 | CPU p99 | CPU p99 / p50 | CPU-bound scaling | Errors |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mean_cpu =
        |row: &RunRow| row.cpu.iter().sum::<Duration>().as_secs_f64() / row.cpu.len().max(1) as f64;
    let one_thread = rows
        .iter()
        .find(|row| row.threads == 1)
        .map(|row| (row.reads as f64 / row.wall.as_secs_f64(), mean_cpu(row)));
    let mut two_thread_scaling = None;
    let mut worst_tail = 0.0f64;
    for row in &mut rows {
        row.latencies.sort();
        row.cpu.sort();
        let per_second = row.reads as f64 / row.wall.as_secs_f64().max(1e-9);
        let p50 = percentile(&row.latencies, 0.5);
        let p99 = percentile(&row.latencies, 0.99);
        let cpu_p50 = percentile(&row.cpu, 0.5);
        let cpu_p99 = percentile(&row.cpu, 0.99);
        if let (2, Some((one, _))) = (row.threads, one_thread) {
            two_thread_scaling = Some(per_second / one);
        }
        worst_tail = worst_tail.max(p99.as_secs_f64() / p50.as_secs_f64().max(1e-12));
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
                row.threads as f64 * cpu_one / mean_cpu(row).max(1e-12)
            )),
            row.errors,
        );
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
    let verdict = |holds: bool| if holds { "holds" } else { "DOES NOT HOLD" };
    let idle_per_session = (rss_idle as i64 - rss_before as i64) as f64 / sessions.max(1) as f64;
    println!("\nTargets (issue 15):");
    match two_thread_scaling {
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
        fmt_per_session(rss_idle as i64 - rss_before as i64, sessions),
        verdict(idle_per_session <= 1024.0 * 1024.0)
    );
    println!(
        "- p99 ≤ 10× p50 at every thread count: at most {worst_tail:.1}×, {}",
        verdict(worst_tail <= 10.0)
    );
    println!(
        "- no errors: {}, {}",
        fmt_count(errors.len() as u64),
        verdict(errors.is_empty())
    );
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

// ---------------------------------------------------------------------------------------------------------------
// The long fuzz run

/// SplitMix64: a small, fast, seedable generator (no dependency for a bench).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when n is 0).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const PIECES: &[&str] = &[
    "a",
    "b",
    " ",
    "é",
    "e\u{301}",
    "中",
    "😀",
    "👨\u{200d}👩\u{200d}👧",
    "🇫🇷",
    "\t",
    "x",
    "fn",
    "{",
    "}",
    "\u{feff}",
    "\u{2028}",
];

/// Random text of about `lines` lines, some of them long, joined by `ending`.
fn random_text(rng: &mut Rng, lines: u64, ending: &str) -> String {
    let mut text = String::new();
    for _ in 0..lines {
        let pieces = if rng.chance(5) {
            rng.below(20_000)
        } else {
            rng.below(40)
        };
        for _ in 0..pieces {
            text.push_str(rng.pick::<&str>(PIECES));
        }
        text.push_str(ending);
    }
    if rng.chance(30) {
        let _ = text.pop();
    }
    text
}

/// The bytes of one random file.
fn random_file(rng: &mut Rng) -> Vec<u8> {
    let lines = rng.below(300);
    match rng.below(10) {
        0 => Vec::new(),
        1 => random_text(rng, lines, "\r\n").into_bytes(),
        2 => random_text(rng, lines, "\r").into_bytes(),
        3 => {
            let text = random_text(rng, lines, "\n");
            let mut bytes = vec![0xff, 0xfe];
            bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
            bytes
        }
        4 => (0..rng.below(20_000)).map(|_| rng.next() as u8).collect(),
        5 => (0..rng.below(5_000))
            .map(|_| {
                // Latin-1-like bytes: legacy text.
                let b = rng.below(96) as u8;
                if b < 64 {
                    b'a' + b % 26
                } else if b < 80 {
                    b'\n'
                } else {
                    0xc0 + b
                }
            })
            .collect(),
        6 => "x".repeat(rng.below(300_000) as usize).into_bytes(),
        _ => random_text(rng, lines, "\n").into_bytes(),
    }
}

fn random_config(rng: &mut Rng) -> Config {
    let maybe = |rng: &mut Rng, n: u64| -> Option<u32> {
        rng.chance(60)
            .then(|| u32::try_from(rng.below(n)).unwrap_or(u32::MAX))
    };
    let budget = match rng.below(4) {
        0 => None,
        1 => Some(Budget::Characters(rng.below(6_000) as u32)),
        2 => Some(Budget::Tokens(TokenBudget {
            cap: maybe(rng, 4_000),
            headroom: rng.chance(50).then(|| rng.below(200) as f64 / 100.0),
        })),
        _ => Some(Budget::Characters(rng.below(200_000) as u32)),
    };
    Config {
        max_lines: maybe(rng, 80),
        max_line_length: maybe(rng, 400),
        budget,
        working_directory: None,
        dedup: rng.chance(70).then(|| rng.chance(50)),
        loop_warn_at: maybe(rng, 6),
        loop_block_at: maybe(rng, 8),
        not_found_ttl_ms: rng.chance(30).then(|| rng.below(100_000)),
        deny_patterns: rng
            .chance(5)
            .then(|| vec!["**/f1*".to_string(), "[".to_string()]),
        allow_patterns: None,
    }
}

fn random_request(rng: &mut Rng, files: &[String], root: &str) -> ReadRequest {
    let path = match rng.below(20) {
        0 => "missing.txt".to_string(),
        1 => "../outside.txt".to_string(),
        2 => String::new(),
        3 => root.to_string(),
        4 => format!("{root}/../{}", rng.below(9)),
        _ => rng.pick(files).clone(),
    };
    let mut request = ReadRequest::new(path);
    let number = |rng: &mut Rng| -> Option<u64> {
        match rng.below(10) {
            0..=3 => None,
            4..=7 => Some(1 + rng.below(60)),
            8 => Some(rng.below(400)),
            _ => Some(if rng.chance(50) { 0 } else { rng.next() }),
        }
    };
    if rng.chance(10) {
        request.tail = Some(rng.below(40) as u32);
        if rng.chance(10) {
            request.offset = number(rng);
        }
    } else {
        request.offset = number(rng);
        request.limit = number(rng);
        if rng.chance(30) {
            request.column = number(rng);
        }
    }
    request
}

/// Checks a window against the page rule's visible promises; `Err` names the first broken one. A `tail` window
/// that shows fewer lines than asked is `truncated` with no forward cursor (what it left out comes before it, and
/// its hint names the call that reads it), so the cursor check is a forward read's only.
fn check_window(window: &ReadResult, tail: bool) -> Result<(), String> {
    if window.budget.used > window.budget.limit {
        return Err(format!(
            "budget used {} over its limit {}",
            window.budget.used, window.budget.limit
        ));
    }
    // What a window left out is reachable: from its cursor, or (for a line cut by the clamp) from the clamped
    // line's own cursor.
    let reachable = window.next_offset.is_some() || !window.clamped_lines.is_empty();
    if window.truncated != reachable && !(tail && window.truncated) {
        return Err(format!(
            "truncated {} (by {:?}) but next_offset {:?} and {} clamped lines",
            window.truncated,
            window.truncated_by,
            window.next_offset,
            window.clamped_lines.len()
        ));
    }
    if let Some(clamped) = window
        .clamped_lines
        .iter()
        .find(|clamped| clamped.line < window.start_line || clamped.line > window.end_line)
    {
        return Err(format!(
            "clamped line {} outside the window {}-{}",
            clamped.line, window.start_line, window.end_line
        ));
    }
    if window.truncated == window.truncated_by.is_empty() {
        return Err(format!(
            "truncated {} but truncated_by {:?}",
            window.truncated, window.truncated_by
        ));
    }
    let mut count = 0u64;
    for (i, line) in window.content.split_terminator('\n').enumerate() {
        let number = window.start_line + i as u64;
        if !line.starts_with(&format!("{number}|")) {
            return Err(format!(
                "content line {} does not start with the gutter {number}|: {:?}",
                i + 1,
                line.get(..40).unwrap_or(line)
            ));
        }
        count += 1;
    }
    if count != window.lines_returned {
        return Err(format!(
            "{count} content lines but lines_returned {}",
            window.lines_returned
        ));
    }
    if window.lines_returned > 0 && window.end_line != window.start_line + window.lines_returned - 1
    {
        return Err(format!(
            "end_line {} after {} lines from {}",
            window.end_line, window.lines_returned, window.start_line
        ));
    }
    if window.end_line > window.total_lines {
        return Err(format!(
            "end_line {} past total_lines {}",
            window.end_line, window.total_lines
        ));
    }
    if window.text.is_empty() {
        return Err("empty text".to_string());
    }
    Ok(())
}

#[derive(Default)]
struct Tally {
    requests: u64,
    windows: u64,
    stubs: u64,
    errors: std::collections::BTreeMap<String, u64>,
    /// The first message of each kind of error, as an example.
    examples: std::collections::BTreeMap<String, String>,
    sessions: u64,
    failures: Vec<String>,
    failure_count: u64,
}

impl Tally {
    fn fail(&mut self, message: String) {
        self.failure_count += 1;
        if self.failures.len() < 10 {
            self.failures.push(message);
        }
    }

    fn merge(&mut self, other: Tally) {
        self.requests += other.requests;
        self.windows += other.windows;
        self.stubs += other.stubs;
        self.sessions += other.sessions;
        for (kind, n) in other.errors {
            *self.errors.entry(kind).or_default() += n;
        }
        for (kind, message) in other.examples {
            self.examples.entry(kind).or_insert(message);
        }
        self.failure_count += other.failure_count;
        self.failures.extend(other.failures);
    }
}

fn error_name(kind: &ErrorKind) -> &'static str {
    kind.as_str()
}

fn fuzz(options: &Options, dir: &TempDir, requests: u64) -> Result<(), String> {
    const FILES: usize = 256;
    let component = load_component(options.allocation, 64)?;
    let mut rng = Rng(options.seed);
    let root = dir.0.to_string_lossy().into_owned();
    let mut files = Vec::with_capacity(FILES);
    let mut bytes_total = 0u64;
    for i in 0..FILES {
        let bytes = random_file(&mut rng);
        bytes_total += bytes.len() as u64;
        let path = dir.0.join(format!("f{i:03}.txt"));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push(path.to_string_lossy().into_owned());
    }
    let grants = Grants::new().dir(&dir.0).map_err(|e| e.to_string())?;
    let threads = cores();
    let started = Instant::now();
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let count =
                    requests / threads as u64 + u64::from((t as u64) < requests % threads as u64);
                let mut rng =
                    Rng(options.seed ^ (t as u64 + 1).wrapping_mul(0x1234_5678_9abc_def1));
                let (component, grants, files, root) = (&component, &grants, &files, &root);
                scope.spawn(move || {
                    let mut tally = Tally::default();
                    let mut session: Option<(Session, u64)> = None;
                    for _ in 0..count {
                        let (live, left) = match session.as_mut() {
                            Some((live, left)) if *left > 0 => (live, left),
                            _ => {
                                tally.sessions += 1;
                                match component.session(grants, random_config(&mut rng)) {
                                    Ok(live) => {
                                        let (live, left) =
                                            session.insert((live, 1 + rng.below(60)));
                                        (live, left)
                                    }
                                    Err(error) => {
                                        tally.requests += 1;
                                        tally.fail(format!("a session did not start: {error}"));
                                        continue;
                                    }
                                }
                            }
                        };
                        *left -= 1;
                        tally.requests += 1;
                        let request = random_request(&mut rng, files, root);
                        let outcome = if rng.chance(5) {
                            live.read_once(&random_config(&mut rng), &request)
                                .map(|result| result.map(ReadOutcome::Window))
                        } else {
                            live.read(&request)
                        };
                        match outcome {
                            Ok(Ok(ReadOutcome::Window(window))) => {
                                tally.windows += 1;
                                if let Err(problem) = check_window(&window, request.tail.is_some())
                                {
                                    tally
                                        .fail(format!("{request:?}: an invalid window: {problem}"));
                                }
                            }
                            Ok(Ok(ReadOutcome::Unchanged(stub))) => {
                                tally.stubs += 1;
                                if stub.message.is_empty() {
                                    tally.fail(format!("{request:?}: a stub without a message"));
                                }
                            }
                            Ok(Err(error)) => {
                                let kind = error_name(&error.kind).to_string();
                                *tally.errors.entry(kind.clone()).or_default() += 1;
                                tally
                                    .examples
                                    .entry(kind)
                                    .or_insert_with(|| error.message.clone());
                                if error.message.is_empty() {
                                    tally.fail(format!("{request:?}: an error without a message"));
                                }
                            }
                            Err(error) => {
                                tally.fail(format!("{request:?}: host error: {error}"));
                            }
                        }
                        if rng.chance(2) {
                            let _ = live.note_other_tool();
                        }
                    }
                    tally
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle.join().unwrap_or_else(|_| {
                    let mut tally = Tally::default();
                    tally.fail("a fuzz thread panicked".to_string());
                    tally
                })
            })
            .collect()
    });
    let wall = started.elapsed();
    let mut total = Tally::default();
    for tally in tallies {
        total.merge(tally);
    }
    println!("## read-window-load --fuzz: random requests through the real component\n");
    println!(
        "Seed {:#x}; {} random files ({}); {} threads; {} sessions, each with a random config, replaced every 1-60 \
         requests.\n",
        options.seed,
        FILES,
        format_args!("{:.1} MiB", bytes_total as f64 / MIB),
        threads,
        fmt_count(total.sessions)
    );
    println!(
        "| Requests | Time | Requests per second | Windows | Stubs | Typed errors | Failures |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let typed: u64 = total.errors.values().sum();
    println!(
        "| {} | {} | {} | {} | {} | {} | {} |\n",
        fmt_count(total.requests),
        fmt_duration(wall),
        fmt_count((total.requests as f64 / wall.as_secs_f64().max(1e-9)).round() as u64),
        fmt_count(total.windows),
        fmt_count(total.stubs),
        fmt_count(typed),
        fmt_count(total.failure_count),
    );
    let kinds: Vec<String> = total
        .errors
        .iter()
        .map(|(kind, n)| format!("{kind} {}", fmt_count(*n)))
        .collect();
    println!("Typed errors by kind: {}.\n", kinds.join(", "));
    println!("| Kind | First message |\n|---|---|");
    for (kind, message) in &total.examples {
        let message: String = message.chars().take(160).collect();
        println!(
            "| {kind} | {} |",
            message.replace('|', "\\|").replace('\n', " ")
        );
    }
    if total.failure_count == 0 {
        println!("\nEvery answer was a valid window, a stub or a typed error; nothing trapped.");
        Ok(())
    } else {
        for failure in &total.failures {
            eprintln!("{failure}");
        }
        Err(format!(
            "{} failures (the first ones above)",
            fmt_count(total.failure_count)
        ))
    }
}
