//! The long fuzz run: random files, configs and requests through the real component, every answer checked.

use std::time::{Duration, Instant};

use read_window_host::{
    Budget, Config, ErrorKind, Grants, ReadOutcome, ReadRequest, ReadResult, ReadWindow, Session,
    TokenBudget,
};

use crate::load::{load_component, Outcome};
use crate::measure::{fmt_count, fmt_duration, MIB};
use crate::options::{cores, Options, TempDir};

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
                    // A lead byte of a two-byte sequence with no continuation: invalid UTF-8.
                    0xc0 + (b - 80)
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
        ignore_files: rng
            .chance(10)
            .then(|| vec![".gitignore".to_string(), "a/b".to_string()]),
        escape_invisible: None,
        images: None,
        document_cache_dir: None,
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
    for (i, line) in window.content().split_terminator('\n').enumerate() {
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

    /// Counts the answer `outcome` to `request` by its kind, and records it as a failure when it breaks a rule: an
    /// invalid window, a stub or an error without a message, a host error.
    fn answer(&mut self, request: &ReadRequest, outcome: Outcome) {
        match outcome {
            Ok(Ok(ReadOutcome::Window(window))) => {
                self.windows += 1;
                if let Err(problem) = check_window(&window, request.tail.is_some()) {
                    self.fail(format!("{request:?}: an invalid window: {problem}"));
                }
            }
            Ok(Ok(ReadOutcome::Listing(listing))) => {
                self.windows += 1;
                if listing.hint.is_empty() {
                    self.fail(format!("{request:?}: a listing without a hint"));
                }
            }
            Ok(Ok(ReadOutcome::Image(image))) => {
                self.windows += 1;
                if image.data.is_empty() || image.hint.is_empty() {
                    self.fail(format!("{request:?}: an image without data or a hint"));
                }
            }
            Ok(Ok(ReadOutcome::Unchanged(stub))) => {
                self.stubs += 1;
                if stub.message.is_empty() {
                    self.fail(format!("{request:?}: a stub without a message"));
                }
            }
            Ok(Err(error)) => {
                let kind = error_name(&error.kind).to_string();
                *self.errors.entry(kind.clone()).or_default() += 1;
                self.examples
                    .entry(kind)
                    .or_insert_with(|| error.message.clone());
                if error.message.is_empty() {
                    self.fail(format!("{request:?}: an error without a message"));
                }
            }
            Err(error) => {
                self.fail(format!("{request:?}: host error: {error}"));
            }
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

/// Random files the fuzz run writes and reads.
const FUZZ_FILES: usize = 256;

/// The fuzz run: `requests` random requests through the component over [`FUZZ_FILES`] random files written under
/// `dir`, spread over every core, every answer checked; prints the counts by kind of answer.
///
/// Errors: the component does not load, a file cannot be written, or an answer failed its check (the first
/// failures are printed on stderr).
pub(super) fn fuzz(options: &Options, dir: &TempDir, requests: u64) -> Result<(), String> {
    let component = load_component(options.allocation, 64)?;
    let mut rng = Rng(options.seed);
    let root = dir.0.to_string_lossy().into_owned();
    let (files, bytes_total) = write_random_files(dir, &mut rng)?;
    let grants = Grants::new().dir(&dir.0).map_err(|e| e.to_string())?;
    let threads = cores();
    let started = Instant::now();
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let count =
                    requests / threads as u64 + u64::from((t as u64) < requests % threads as u64);
                let worker = Worker {
                    component: &component,
                    grants: &grants,
                    files: &files,
                    root: &root,
                    rng: Rng(options.seed ^ (t as u64 + 1).wrapping_mul(0x1234_5678_9abc_def1)),
                };
                scope.spawn(move || worker.run(count))
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
    print_fuzz_report(options, &total, wall, bytes_total, threads);
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

/// Writes [`FUZZ_FILES`] random files (`f000.txt`, ...) under `dir`: their host paths (the guest paths too) and
/// their total size in bytes. Errors: a file that cannot be written.
fn write_random_files(dir: &TempDir, rng: &mut Rng) -> Result<(Vec<String>, u64), String> {
    let mut files = Vec::with_capacity(FUZZ_FILES);
    let mut bytes_total = 0u64;
    for i in 0..FUZZ_FILES {
        let bytes = random_file(rng);
        bytes_total += bytes.len() as u64;
        let path = dir.0.join(format!("f{i:03}.txt"));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push(path.to_string_lossy().into_owned());
    }
    Ok((files, bytes_total))
}

/// One fuzz thread: what it reads through and its own random generator.
struct Worker<'a> {
    component: &'a ReadWindow,
    grants: &'a Grants,
    /// The random files' guest paths.
    files: &'a [String],
    /// The guest path of the directory that holds them.
    root: &'a str,
    rng: Rng,
}

impl Worker<'_> {
    /// Sends `count` random requests, each to the current session (replaced with a random config every 1-60
    /// requests, or when it did not start), and tallies the answers.
    fn run(mut self, count: u64) -> Tally {
        let mut tally = Tally::default();
        let mut session: Option<(Session, u64)> = None;
        for _ in 0..count {
            let (live, left) = match session.as_mut() {
                Some((live, left)) if *left > 0 => (live, left),
                _ => {
                    tally.sessions += 1;
                    match self
                        .component
                        .session(self.grants, random_config(&mut self.rng))
                    {
                        Ok(live) => {
                            let (live, left) = session.insert((live, 1 + self.rng.below(60)));
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
            let request = random_request(&mut self.rng, self.files, self.root);
            let outcome = if self.rng.chance(5) {
                live.read_once(&random_config(&mut self.rng), &request)
            } else {
                live.read(&request)
            };
            tally.answer(&request, outcome);
            if self.rng.chance(2) {
                let _ = live.note_other_tool();
            }
        }
        tally
    }
}

/// Prints the fuzz run's heading and tables: the counts by kind of answer over `wall`, the typed errors by kind
/// and the first message of each.
fn print_fuzz_report(
    options: &Options,
    total: &Tally,
    wall: Duration,
    bytes_total: u64,
    threads: usize,
) {
    println!("## read-window-load --fuzz: random requests through the real component\n");
    println!(
        "Seed {:#x}; {} random files ({}); {} threads; {} sessions, each with a random config, replaced every 1-60 \
         requests.\n",
        options.seed,
        FUZZ_FILES,
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
}
