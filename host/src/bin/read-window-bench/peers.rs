//! Section 6: the peers. read-window's MCP server and the two MCP file servers people install instead (npm's
//! `@modelcontextprotocol/server-filesystem` and `@wonderwhy-er/desktop-commander`, pinned in [`PEERS`]), driven
//! through one JSON-RPC client ([`crate::rpc`]) on the same files and windows, each server granted the same
//! directory, the calls of a task interleaved across the servers ([`measure_task`]). Per task: the median latency,
//! its ratio to read-window's, the characters returned and what the answer said of the rest. `--setup-peers` installs the peers with npm into `target/bench-peers`; without them (or
//! without Node) the section says so and is skipped.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use crate::fixtures::{write_json_one_liner, write_log, write_source, Fixture, TempDir};
use crate::measure::{fmt_mib, fmt_ratio, median};
use crate::rpc::{McpServer, Reply};

/// The npm packages compared, pinned, with the script each one's `bin` runs.
pub(super) const PEERS: [(&str, &str, &str); 2] = [
    (
        "@modelcontextprotocol/server-filesystem",
        "2026.8.31",
        "dist/index.js",
    ),
    ("@wonderwhy-er/desktop-commander", "0.2.52", "dist/index.js"),
];

/// The first line of the generated source file: in an answer to a window that starts later, it shows a head.
const SOURCE_FIRST_LINE: &str = "//! A generated sample source file for read-window-bench.";
/// Timed calls of each task per server (after one warm-up call): at least `MIN_CALLS`, then more while the task's
/// calls have taken less than `CALLS_TIME`, up to `MAX_CALLS` (a fast server's median is then one of steady
/// state, a slow one's still ends in seconds).
const MIN_CALLS: usize = 5;
/// The most timed calls of a task per server.
const MAX_CALLS: usize = 31;
/// How long a server's timed calls of one task may go on past `MIN_CALLS`.
const CALLS_TIME: Duration = Duration::from_secs(2);
/// A server whose warm-up call of a task takes less than this is timed interleaved with the other fast ones; a
/// slower one is timed on its own after them ([`measure_task`]).
const PACED_TOGETHER: Duration = Duration::from_millis(10);
/// Lines of the big log: 100 bytes each, 100 MB.
const BIG_LOG_LINES: u64 = 1_000_000;
/// The middle window's first line and length.
const MIDDLE: (u64, u64) = (500_000, 100);
/// The tail's length in lines.
const TAIL_LINES: u64 = 100;

/// Where `--setup-peers` installs the peers: `target/bench-peers` of the repository.
pub(super) fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .join("target")
        .join("bench-peers")
}

/// `--setup-peers`: installs [`PEERS`] with npm into [`peers_dir`] (Puppeteer's browser download skipped).
/// Errors: npm is missing or the install failed.
pub(super) fn setup_peers() -> Result<(), String> {
    let dir = peers_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let packages: Vec<String> = PEERS
        .iter()
        .map(|(name, version, _)| format!("{name}@{version}"))
        .collect();
    let status = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--prefix",
        ])
        .arg(&dir)
        .args(&packages)
        .env("PUPPETEER_SKIP_DOWNLOAD", "1")
        .status()
        .map_err(|e| format!("cannot run npm (install Node.js and npm): {e}"))?;
    if status.success() {
        println!("installed {} into {}", packages.join(", "), dir.display());
        Ok(())
    } else {
        Err(format!("npm install failed ({status})"))
    }
}

/// One task: its name, the file it reads and how to tell what came back.
struct Task {
    name: &'static str,
    path: PathBuf,
    kind: TaskKind,
}

#[derive(Clone, Copy)]
enum TaskKind {
    /// Lines `first..first + count` of a numbered file.
    Window { first: u64, count: u64 },
    /// The whole (small) file.
    Whole,
    /// The first page: as much of the start as the server returns by default.
    FirstPage,
    /// The last `count` lines.
    Tail { count: u64 },
    /// A file that is not UTF-8 text (UTF-16, binary) or not in the grant, read with the defaults.
    Default,
}

/// The files of section 6, in their own directory (the one every server is granted), and a file outside it.
struct PeerFiles {
    dir: TempDir,
    outside: PathBuf,
    log: Fixture,
}

fn write_files(bench_dir: &TempDir) -> Result<(PeerFiles, Vec<Task>), String> {
    let dir = TempDir(bench_dir.0.join("granted"));
    std::fs::create_dir_all(&dir.0)
        .map_err(|e| format!("cannot create {}: {e}", dir.0.display()))?;
    let outside = bench_dir.0.join("outside-the-grant.txt");
    std::fs::write(&outside, "a file beside the granted directory, not in it\n")
        .map_err(|e| e.to_string())?;
    let source = write_source(&dir);
    let log = write_log(&dir, "big.log", BIG_LOG_LINES);
    let json = write_json_one_liner(&dir, 3_700_000);
    let (utf16_path, binary_path) = write_odd_files(&dir)?;
    let tasks = vec![
        Task {
            name: "lines 40-60 of a 100-line file",
            path: source.host.clone(),
            kind: TaskKind::Window {
                first: 40,
                count: 21,
            },
        },
        Task {
            name: "the whole 100-line file",
            path: source.host.clone(),
            kind: TaskKind::Whole,
        },
        Task {
            name: "first page of a 100 MB log",
            path: log.host.clone(),
            kind: TaskKind::FirstPage,
        },
        Task {
            name: "lines 500000-500099 of the 100 MB log",
            path: log.host.clone(),
            kind: TaskKind::Window {
                first: MIDDLE.0,
                count: MIDDLE.1,
            },
        },
        Task {
            name: "the last 100 lines of the 100 MB log",
            path: log.host.clone(),
            kind: TaskKind::Tail { count: TAIL_LINES },
        },
        Task {
            name: "a 3.7 MB JSON on one line",
            path: json.host.clone(),
            kind: TaskKind::FirstPage,
        },
        Task {
            name: "a UTF-16 text file",
            path: utf16_path,
            kind: TaskKind::Default,
        },
        Task {
            name: "64 KiB of binary",
            path: binary_path,
            kind: TaskKind::Default,
        },
        Task {
            name: "a path outside the grant",
            path: outside.clone(),
            kind: TaskKind::Default,
        },
    ];
    Ok((PeerFiles { dir, outside, log }, tasks))
}

/// A UTF-16LE file with its byte order mark (200 lines of accented text) and 64 KiB of pseudo-random bytes in
/// `dir`: their paths.
fn write_odd_files(dir: &TempDir) -> Result<(PathBuf, PathBuf), String> {
    let mut utf16 = vec![0xFF, 0xFE];
    for n in 1..=200 {
        let line = format!("línea {n}: texto en UTF-16 con acentos, ñ y €\n");
        utf16.extend(line.encode_utf16().flat_map(u16::to_le_bytes));
    }
    let utf16_path = dir.0.join("utf16.txt");
    std::fs::write(&utf16_path, utf16).map_err(|e| e.to_string())?;
    let binary_path = dir.0.join("blob.bin");
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    let binary: Vec<u8> = (0..65_536)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    std::fs::write(&binary_path, binary).map_err(|e| e.to_string())?;
    Ok((utf16_path, binary_path))
}

/// A server of the comparison: how to start it and how it asks for each task.
struct Contender {
    name: String,
    server: McpServer,
    /// The tool name and arguments of `task`.
    arguments: fn(&Task) -> (&'static str, Value),
}

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// read-window's `read_file`: offset/limit windows, its tail, defaults otherwise.
fn read_window_arguments(task: &Task) -> (&'static str, Value) {
    let path = path_string(&task.path);
    let arguments = match task.kind {
        TaskKind::Window { first, count } => json!({"path": path, "offset": first, "limit": count}),
        TaskKind::Tail { count } => json!({"path": path, "tail": count}),
        TaskKind::Whole | TaskKind::FirstPage | TaskKind::Default => json!({"path": path}),
    };
    ("read_file", arguments)
}

/// The filesystem server's `read_text_file` has `head` and `tail` but no offset: a window is the head that ends
/// with it.
fn filesystem_arguments(task: &Task) -> (&'static str, Value) {
    let path = path_string(&task.path);
    let arguments = match task.kind {
        TaskKind::Window { first, count } => json!({"path": path, "head": first + count - 1}),
        TaskKind::Tail { count } => json!({"path": path, "tail": count}),
        TaskKind::Whole | TaskKind::FirstPage | TaskKind::Default => json!({"path": path}),
    };
    ("read_text_file", arguments)
}

/// Desktop Commander's `read_file`: `offset` (0-based lines; negative counts from the end) and `length` lines.
fn desktop_commander_arguments(task: &Task) -> (&'static str, Value) {
    let path = path_string(&task.path);
    let arguments = match task.kind {
        TaskKind::Window { first, count } => {
            json!({"path": path, "offset": first - 1, "length": count})
        }
        TaskKind::Tail { count } => json!({"path": path, "offset": -(count as i64)}),
        TaskKind::Whole | TaskKind::FirstPage | TaskKind::Default => json!({"path": path}),
    };
    ("read_file", arguments)
}

/// Starts the three servers over `granted`: read-window's (the release CLI `cli`, dedup off and the tripwire out of
/// reach so repeated calls return content; its compiled component comes from the user's cache as always) and the
/// two peers under `node`; `home` is Desktop Commander's `$HOME`, holding its config (the grant, telemetry off). Errors: a server did not start.
fn contenders(
    cli: &Path,
    node: &Path,
    peers: &Path,
    granted: &Path,
    home: &Path,
) -> Result<Vec<Contender>, String> {
    let config = home.join("read-window.json");
    std::fs::create_dir_all(home.join(".claude-server-commander")).map_err(|e| e.to_string())?;
    std::fs::write(
        &config,
        json!({"dedup": false, "loop_warn_at": u32::MAX - 1, "loop_block_at": u32::MAX})
            .to_string(),
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(
        home.join(".claude-server-commander").join("config.json"),
        json!({
            "allowedDirectories": [path_string(granted)],
            "telemetryEnabled": false,
            "pendingWelcomeOnboarding": false,
            "welcomeOnboardingEligible": false,
            "fileReadLineLimit": 1000,
        })
        .to_string(),
    )
    .map_err(|e| e.to_string())?;
    let script = |index: usize| {
        let (name, _, script) = PEERS[index];
        path_string(&peers.join("node_modules").join(name).join(script))
    };
    // Desktop Commander: its config under this `$HOME`, telemetry off, its feature-flag fetch sent to a closed
    // port (it would go to the network at start), no onboarding prompt.
    let home_env = [
        ("HOME", path_string(home)),
        ("DESKTOP_COMMANDER_DISABLE_TELEMETRY", "1".to_string()),
        ("DC_FLAG_URL", "http://127.0.0.1:9/flags.json".to_string()),
    ];
    Ok(vec![
        Contender {
            name: "read-window (`read-window mcp`)".to_string(),
            server: McpServer::start(
                cli,
                &[
                    "mcp".into(),
                    "--root".into(),
                    path_string(granted),
                    "--config".into(),
                    path_string(&config),
                ],
                &[],
                granted,
            )?,
            arguments: read_window_arguments,
        },
        Contender {
            name: format!("{} {}", PEERS[0].0, PEERS[0].1),
            server: McpServer::start(node, &[script(0), path_string(granted)], &[], granted)?,
            arguments: filesystem_arguments,
        },
        Contender {
            name: format!("{} {}", PEERS[1].0, PEERS[1].1),
            server: McpServer::start(
                node,
                &[script(1), "--no-onboarding".into()],
                &home_env,
                granted,
            )?,
            arguments: desktop_commander_arguments,
        },
    ])
}

/// What a reply to `task` holds, in words: characters, where a window started, what it did with text that is
/// not UTF-8, and whether it said what it left out.
fn describe(task: &Task, files: &PeerFiles, reply: &Reply) -> String {
    let text = reply.text();
    let chars = text.chars().count();
    if reply.is_error() {
        let first = text
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(90)
            .collect::<String>();
        return format!("refused ({chars} characters): {first}");
    }
    let mut said = format!("{chars} characters");
    let file_bytes = std::fs::metadata(&task.path).map_or(0, |meta| meta.len());
    match task.kind {
        TaskKind::Window { first, .. } if task.path == files.log.host => {
            match first_log_line(&text) {
                Some(line) if line == first => said.push_str(", starts at the line asked"),
                Some(line) => {
                    let _ = write!(said, ", starts at line {line}, not {first}");
                }
                None => said.push_str(", no log line found"),
            }
        }
        TaskKind::Window { first, .. } if first > 1 && text.contains(SOURCE_FIRST_LINE) => {
            said.push_str(", from line 1: a head, not the window");
        }
        TaskKind::Default if task.path == files.outside => {
            said.push_str(", READ IT: the grant did not hold")
        }
        TaskKind::Default if text.contains('\u{FFFD}') || text.contains('\0') => {
            said.push_str(", replacement characters or NULs: the bytes shown as text");
        }
        TaskKind::Default if task.path.extension().is_some_and(|ext| ext == "txt") => {
            said.push_str(if text.contains("línea 1:") {
                ", decoded"
            } else {
                ", not decoded (mojibake)"
            });
        }
        TaskKind::Default => said.push_str(", binary returned as text"),
        _ => {}
    }
    // Files of ASCII lines: characters returned ≥ the file's bytes means all of it came back.
    let part_expected = task.path == files.log.host || matches!(task.kind, TaskKind::FirstPage);
    if part_expected && chars as u64 >= file_bytes {
        said.push_str(", the whole file");
    } else if part_expected {
        said.push_str(if says_more_is_left(&text) {
            "; says what is left"
        } else {
            "; NOT SAID what is left out"
        });
    }
    said
}

/// Whether an answer mentions that the file goes on: a cursor, a truncation or the remaining lines.
fn says_more_is_left(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "offset=",
        "truncat",
        "remaining",
        "more lines",
        "lines left",
        "of 1000000",
        "1,000,000",
    ]
    .iter()
    .any(|needle| lower.contains(needle))
}

/// The line number of the first log line in `text` (each log line names its number as `/items/NNNNNNNN`).
fn first_log_line(text: &str) -> Option<u64> {
    let at = text.find("/items/")? + "/items/".len();
    text.get(at..at + 8)?.parse().ok()
}

/// One server's answers to one task: the median time and the last reply, or why it failed.
struct Measured {
    median_ms: f64,
    said: String,
}

/// One server's calls of a task so far: their times and the last reply, or why a call failed.
struct Calls {
    times: Vec<Duration>,
    last: Result<Reply, String>,
}

impl Calls {
    /// Whether this server is called again: until `MIN_CALLS`, then while its calls have taken less than
    /// `CALLS_TIME` in all, up to `MAX_CALLS`; never after a failure.
    fn wants_more(&self) -> bool {
        let taken: Duration = self.times.iter().sum();
        self.last.is_ok()
            && (self.times.len() < MIN_CALLS
                || (self.times.len() < MAX_CALLS && taken < CALLS_TIME))
    }
}

/// Times `task` on every server. After one warm-up call each, the servers whose warm-up took less than
/// [`PACED_TOGETHER`] are timed interleaved, each round calling every one of them that still
/// [`Calls::wants_more`] once (the first of a round going round in turn), so a drift in the machine's state while
/// the task runs falls on them alike; then each slower server is timed on its own, so its calls of a tenth of a
/// second and more do not leave the fast servers idle between theirs (on this VM an idle process's next call is
/// slower, and the fast servers would pay it on every call).
fn measure_task(contenders: &mut [Contender], task: &Task, files: &PeerFiles) -> Vec<Measured> {
    let mut calls: Vec<Calls> = contenders
        .iter_mut()
        .map(|contender| {
            let (tool, arguments) = (contender.arguments)(task);
            Calls {
                times: Vec::with_capacity(MAX_CALLS),
                last: contender.server.call(tool, arguments),
            }
        })
        .collect();
    let (fast, slow): (Vec<usize>, Vec<usize>) = (0..calls.len()).partition(|&index| {
        calls
            .get(index)
            .and_then(|calls| calls.last.as_ref().ok())
            .is_some_and(|reply| reply.elapsed < PACED_TOGETHER)
    });
    time_in_rounds(contenders, &mut calls, &fast, task);
    for index in slow {
        time_in_rounds(contenders, &mut calls, &[index], task);
    }
    calls
        .into_iter()
        .map(|calls| match calls.last {
            Ok(reply) => Measured {
                median_ms: median(&calls.times).as_secs_f64() * 1e3,
                said: describe(task, files, &reply),
            },
            Err(why) => Measured {
                median_ms: f64::NAN,
                said: format!("failed: {why}"),
            },
        })
        .collect()
}

/// Calls `task` on the servers at `indices` in rounds, one call each a round while it [`Calls::wants_more`], the
/// first of a round going round in turn; each call's time goes into its server's `calls`.
fn time_in_rounds(
    contenders: &mut [Contender],
    calls: &mut [Calls],
    indices: &[usize],
    task: &Task,
) {
    for round in 0.. {
        if !indices
            .iter()
            .any(|&index| calls.get(index).is_some_and(Calls::wants_more))
        {
            break;
        }
        for turn in 0..indices.len() {
            let Some(&index) = indices.get((round + turn) % indices.len()) else {
                continue;
            };
            let (Some(contender), Some(calls)) = (contenders.get_mut(index), calls.get_mut(index))
            else {
                continue;
            };
            if calls.wants_more() {
                let (tool, arguments) = (contender.arguments)(task);
                calls.last = contender.server.call(tool, arguments);
                if let Ok(reply) = &calls.last {
                    calls.times.push(reply.elapsed);
                }
            }
        }
    }
}

/// Section 6. `cli` is the release `read-window` binary. Prints the table, the targets (at least 3× faster than
/// the fastest peer on every task, at most a fifth of its peak RSS) and returns; prints why when it is skipped.
pub(super) fn peers_section(bench_dir: &TempDir, cli: &Path) {
    println!("## 6. The peers: three MCP servers, one JSON-RPC client, the same files\n");
    let node = match which("node") {
        Some(node) => node,
        None => return println!("Skipped: `node` is not on PATH (install Node.js 20 or newer).\n"),
    };
    let peers = peers_dir();
    if let Some((name, version, _)) = PEERS
        .iter()
        .find(|(name, _, script)| !peers.join("node_modules").join(name).join(script).is_file())
    {
        return println!(
            "Skipped: {name}@{version} is not installed under target/bench-peers (run `read-window-bench --setup-peers`).\n"
        );
    }
    if let Err(why) = run_peers(bench_dir, cli, &node, &peers) {
        println!("Stopped: {why}\n");
    }
}

fn run_peers(bench_dir: &TempDir, cli: &Path, node: &Path, peers: &Path) -> Result<(), String> {
    let (files, tasks) = write_files(bench_dir)?;
    let home = bench_dir.0.join("home");
    let mut servers = contenders(cli, node, peers, &files.dir.0, &home)?;
    println!(
        "Each server is granted one directory (read-window `--root`, the filesystem server its argument, Desktop \
         Commander `allowedDirectories` in its config, telemetry off) and asked with its own tool's defaults; the \
         filesystem server has no offset, so a window is the `head` that ends with it. {MIN_CALLS} to {MAX_CALLS} timed calls a task \
         after one warm-up (more while they take under {CALLS_TIME:?}), the servers whose warm-up took under {PACED_TOGETHER:?} interleaved (each round calls each once), a slower one on its own after them, medians; read-window runs with dedup off so each call returns the window. ⏱ times; ÷ is the \
         median ÷ read-window's on the same task.\n"
    );
    println!("| task | server | median ⏱ | ÷ read-window ⏱ | what came back |");
    println!("|---|---|---:|---:|---|");
    let mut ratios = Vec::new();
    for task in &tasks {
        let cells = measure_task(&mut servers, task, &files);
        let medians: Vec<f64> = cells.iter().map(|cell| cell.median_ms).collect();
        for (contender, cell) in servers.iter().zip(&cells) {
            println!(
                "| {} | {} | {:.2} ms | {} | {} |",
                task.name,
                contender.name,
                cell.median_ms,
                fmt_ratio(cell.median_ms / medians[0]),
                cell.said
            );
        }
        let fastest_peer = medians[1..]
            .iter()
            .copied()
            .filter(|ms| ms.is_finite())
            .fold(f64::INFINITY, f64::min);
        ratios.push((task.name, fastest_peer / medians[0]));
    }
    print_peer_targets(&ratios, &servers);
    Ok(())
}

fn print_peer_targets(ratios: &[(&str, f64)], servers: &[Contender]) {
    println!("\nTargets of this run ⏱ (read-window at least 3× faster than the fastest peer on every task):\n");
    for (task, ratio) in ratios {
        println!(
            "- {task}: fastest peer ÷ read-window = **{}** {}",
            fmt_ratio(*ratio),
            if *ratio >= 3.0 {
                "holds"
            } else {
                "DOES NOT HOLD"
            }
        );
    }
    let rss: Vec<Option<u64>> = servers.iter().map(|c| c.server.peak_rss_bytes()).collect();
    let cells: Vec<String> = servers
        .iter()
        .zip(&rss)
        .map(|(c, bytes)| format!("{} {}", c.name, bytes.map_or("n/a".to_string(), fmt_mib)))
        .collect();
    let smallest_peer = rss[1..].iter().flatten().copied().min();
    let verdict = match (rss[0], smallest_peer) {
        (Some(ours), Some(peer)) => format!(
            "{} of the smallest peer's (target at most 0.20): {}",
            fmt_ratio(ours as f64 / peer as f64),
            if ours * 5 <= peer {
                "holds"
            } else {
                "DOES NOT HOLD"
            }
        ),
        _ => "n/a".to_string(),
    };
    println!(
        "- Peak RSS (VmHWM of each server process): {}; read-window's is **{verdict}**\n",
        cells.join(", ")
    );
}

/// `program` found on `$PATH`.
fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    })
}
