//! Issue 15, many agents at once: sessions move between threads, and a deadline overrun or a memory-cap hit in some
//! sessions, under load, restarts those sessions only while the others keep reading. Stays in Rust: it needs host
//! control (threads, limits), which a scenario file cannot express. The throughput figures are the load bench's
//! (`read-window-load`), never a timed test.

use std::time::Duration;

use crate::common::{component, Sandbox};
use read_window_host::{
    Allocation, Budget, Config, HostErrorKind, ReadOutcome, ReadRequest, ReadWindow, Session,
    SessionLimits,
};

/// Sessions in the test, read from `THREADS` threads.
const SESSIONS: usize = 100;
const THREADS: usize = 2;
/// Rounds of reads: every session reads once a round; the injected sessions are hit in round `INJECT_AT`.
const ROUNDS: u64 = 6;
const INJECT_AT: u64 = 2;
/// Lines of each session's own file.
const OWN_LINES: u64 = 60;

#[test]
fn sessions_are_send_and_the_component_is_shared() {
    fn send<T: Send>() {}
    fn shared<T: Send + Sync + Clone>() {}
    send::<Session>();
    shared::<ReadWindow>();
}

#[test]
fn a_pooled_component_starts_as_many_sessions_as_it_has_slots() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "alpha\nbravo\n");
    let pooled = ReadWindow::load_with_allocation(Allocation::Pooling { sessions: 2 })
        .expect("a pool of two slots loads");
    let grants = sandbox.grants();
    let mut first = pooled.session(&grants, Config::default()).unwrap();
    let second = pooled.session(&grants, Config::default()).unwrap();
    let refused = pooled
        .session(&grants, Config::default())
        .expect_err("a third live session has no slot");
    assert_eq!(refused.kind(), HostErrorKind::Start, "{refused}");
    assert!(
        refused
            .message()
            .contains("maximum concurrent limit of 2 for component instances reached"),
        "{refused}"
    );
    drop(second);
    let mut third = pooled.session(&grants, Config::default()).unwrap();
    for session in [&mut first, &mut third] {
        match session.read(&ReadRequest::new(path.clone()).offset(2)) {
            Ok(Ok(ReadOutcome::Window(window))) => assert_eq!(window.content(), "2|bravo\n"),
            other => panic!("expected line 2, got {other:?}"),
        }
    }
}

/// What each session is made to do in round `INJECT_AT`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// Only reads its own file.
    Reader,
    /// Reads a 100 MB log with a deadline of 1 ms: the call is interrupted one or two epoch ticks later (10-20 ms).
    Deadline,
    /// Reads a 2 MB window with its memory capped 1.5 MiB above what it has.
    MemoryCap,
}

fn role(index: usize) -> Role {
    match index % 10 {
        3 => Role::Deadline,
        7 => Role::MemoryCap,
        _ => Role::Reader,
    }
}

fn own_line(index: usize, n: u64) -> String {
    format!("session {index} line {n}")
}

struct Agent {
    index: usize,
    session: Session,
    own: String,
}

/// The agent's read of its own file in round `round`: a window that differs every round, checked line by line.
fn read_own(agent: &mut Agent, round: u64) -> Result<(), String> {
    let offset = 1 + (round * 7 + agent.index as u64) % (OWN_LINES - 10);
    let limit = 3 + round % 5;
    let expected: String = (offset..offset + limit)
        .map(|n| format!("{n}|{}\n", own_line(agent.index, n)))
        .collect();
    match agent.session.read(
        &ReadRequest::new(agent.own.clone())
            .offset(offset)
            .limit(limit),
    ) {
        Ok(Ok(ReadOutcome::Window(window))) if window.content() == expected => Ok(()),
        other => Err(format!(
            "session {} round {round}: expected lines {offset}+{limit}, got {other:?}",
            agent.index
        )),
    }
}

#[test]
fn a_deadline_and_a_memory_cap_in_some_sessions_leave_the_others_reading() {
    let sandbox = Sandbox::new();
    let big = sandbox.write(
        "big.log",
        format!("{}\n", "0123456789".repeat(10)).repeat(1_000_000),
    );
    let wide = sandbox.write("wide.txt", format!("{}\n", "w".repeat(1_000)).repeat(2_000));
    let grants = sandbox.grants();
    let mut agents: Vec<Agent> = (0..SESSIONS)
        .map(|index| {
            let own = sandbox.write(
                &format!("own/{index}.txt"),
                (1..=OWN_LINES)
                    .map(|n| format!("{}\n", own_line(index, n)))
                    .collect::<String>(),
            );
            // The memory-cap sessions allow a window of 2,000 lines of 1,000 characters, so the window, not the
            // budget, is what runs into the cap.
            let config = match role(index) {
                Role::MemoryCap => Config {
                    budget: Some(Budget::Characters(4_000_000)),
                    ..Config::default()
                },
                _ => Config::default(),
            };
            let session = component()
                .session(&grants, config)
                .expect("a session starts");
            Agent {
                index,
                session,
                own,
            }
        })
        .collect();

    let mut shares: Vec<Vec<&mut Agent>> = (0..THREADS).map(|_| Vec::new()).collect();
    for agent in agents.iter_mut() {
        shares[agent.index % THREADS].push(agent);
    }
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .into_iter()
            .map(|mut share| {
                let (big, wide) = (&big, &wide);
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for round in 0..ROUNDS {
                        for agent in share.iter_mut() {
                            let role = role(agent.index);
                            if round == INJECT_AT && role != Role::Reader {
                                if let Err(failure) = inject(agent, role, big, wide) {
                                    failures.push(failure);
                                }
                            }
                            if let Err(failure) = read_own(agent, round) {
                                failures.push(failure);
                            }
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("no reading thread panics"))
            .collect()
    });
    assert_eq!(failures, Vec::<String>::new());
    for agent in &agents {
        let expected = match role(agent.index) {
            Role::Reader => 0,
            Role::Deadline | Role::MemoryCap => 1,
        };
        assert_eq!(
            agent.session.restarts(),
            expected,
            "session {} ({:?}) restarts",
            agent.index,
            role(agent.index)
        );
    }
}

/// Hits `agent` with a deadline overrun or the memory cap, checks the host error and the restart, and gives the
/// session back its default limits.
fn inject(agent: &mut Agent, role: Role, big: &str, wide: &str) -> Result<(), String> {
    let (limits, path, kind) = match role {
        Role::Deadline => (
            SessionLimits {
                deadline: Duration::from_millis(1),
                ..SessionLimits::default()
            },
            big,
            HostErrorKind::Deadline,
        ),
        Role::MemoryCap => (
            SessionLimits {
                memory_bytes: usize::try_from(agent.session.peak_memory_bytes()).unwrap()
                    + 1_536 * 1024,
                ..SessionLimits::default()
            },
            wide,
            HostErrorKind::MemoryLimit,
        ),
        Role::Reader => return Ok(()),
    };
    agent.session.set_limits(limits);
    let mut answer = agent.session.read(&ReadRequest::new(path));
    // A scan that beat the deadline (a fast machine) is made again: `wrote` forgets the file's line index.
    for _ in 0..4 {
        if answer.is_err() {
            break;
        }
        let _ = agent.session.wrote(path);
        answer = agent.session.read(&ReadRequest::new(path));
    }
    agent.session.set_limits(SessionLimits::default());
    match answer {
        Err(error) if error.kind() == kind && error.session_restarted() => Ok(()),
        other => Err(format!(
            "session {} ({role:?}): expected a {kind:?} host error and a restart, got {other:?}",
            agent.index
        )),
    }
}
