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

mod fuzz;
mod load;
mod measure;
mod options;

use fuzz::fuzz;
use load::load;
use options::{Options, TempDir};

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
