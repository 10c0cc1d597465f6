//! The command line of `read-window-load` ([`Options`]) and the temporary directory its files go in: a leaf of the
//! binary, used by `main` and by the load and fuzz runs.

use std::path::{Path, PathBuf};

/// The command line's options.
pub(crate) struct Options {
    /// Live sessions (`--sessions`).
    pub(crate) sessions: usize,
    /// Reads at each thread count (`--reads`).
    pub(crate) reads: usize,
    /// The thread counts to run (`--threads`).
    pub(crate) threads: Vec<usize>,
    /// Wasmtime's instance allocator (`--allocator`).
    pub(crate) allocation: AllocatorChoice,
    /// Where the files are generated (`--dir`; default: the system temp directory).
    pub(crate) dir: Option<PathBuf>,
    /// Random requests of a fuzz run instead of the load run (`--fuzz`).
    pub(crate) fuzz: Option<u64>,
    /// The fuzz run's random seed (`--seed`).
    pub(crate) seed: u64,
}

/// Wasmtime's instance allocator, as `--allocator` names it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum AllocatorChoice {
    OnDemand,
    Pooling,
}

impl AllocatorChoice {
    /// The allocator's name, as `--allocator` takes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AllocatorChoice::OnDemand => "on-demand",
            AllocatorChoice::Pooling => "pooling",
        }
    }
}

/// The cores this process may use (available parallelism), at least 1.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Options {
    /// The options of the command line; exits with status 2 (after a message) on a bad one, and with status 0 after
    /// printing the help for `--help`.
    pub(crate) fn parse() -> Self {
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
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--quick" => quick = true,
                "--sessions" => sessions = Some(whole_number("--sessions", args.next()) as usize),
                "--reads" => reads = Some(whole_number("--reads", args.next()) as usize),
                "--threads" => threads = Some(thread_counts(&args.next().unwrap_or_default())),
                "--allocator" => options.allocation = allocator(args.next().as_deref()),
                "--dir" => options.dir = args.next().map(PathBuf::from),
                "--fuzz" => options.fuzz = Some(whole_number("--fuzz", args.next())),
                "--seed" => options.seed = whole_number("--seed", args.next()),
                "--help" | "-h" => print_help(),
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

/// The whole number `value` of the option `flag` (`_` separators allowed); exits through [`usage`] when it is
/// missing or not one.
fn whole_number(flag: &str, value: Option<String>) -> u64 {
    match value.as_deref().map(|v| v.replace('_', "").parse::<u64>()) {
        Some(Ok(n)) => n,
        _ => usage(&format!("{flag} takes a whole number")),
    }
}

/// The thread counts of `--threads` (`1,2`); exits through [`usage`] when `list` is empty, not numbers, or has a 0.
fn thread_counts(list: &str) -> Vec<usize> {
    let parsed: Result<Vec<usize>, _> =
        list.split(',').map(|n| n.trim().parse::<usize>()).collect();
    match parsed {
        Ok(list) if !list.is_empty() && list.iter().all(|&n| n > 0) => list,
        _ => usage("--threads takes a comma-separated list of thread counts, e.g. 1,2"),
    }
}

/// The instance allocator `--allocator` names; exits through [`usage`] for another word.
fn allocator(value: Option<&str>) -> AllocatorChoice {
    match value {
        Some("on-demand") => AllocatorChoice::OnDemand,
        Some("pooling") => AllocatorChoice::Pooling,
        _ => usage("--allocator takes on-demand or pooling"),
    }
}

/// Prints the help of `--help` and exits with status 0.
fn print_help() -> ! {
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

/// Prints `message` (a usage error) on stderr and exits with status 2.
fn usage(message: &str) -> ! {
    eprintln!("read-window-load: {message} (see --help)");
    std::process::exit(2);
}

/// A directory removed when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    /// A new directory `read-window-load-PID-NANOS` under `base` (default: the system temp directory); exits
    /// through `usage` when it cannot be made.
    pub(crate) fn create(base: Option<&Path>) -> Self {
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
