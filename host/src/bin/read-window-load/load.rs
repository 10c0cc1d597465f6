//! The load run: live sessions read windows from a pool of threads; start-up, memory and throughput tables.

use super::*;

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

pub(super) fn load(options: &Options, dir: &TempDir) -> Result<(), String> {
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
