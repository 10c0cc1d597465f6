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

mod fuzz;
mod load;

use fuzz::fuzz;
use load::{load, load_component};
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
