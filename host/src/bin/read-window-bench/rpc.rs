//! A JSON-RPC 2.0 client over a child process's stdin and stdout (MCP's stdio transport: one JSON object a line),
//! the one client section 6 drives every MCP server with.
//!
//! Replies are read on the calling thread, so a call's time has no hand-off of the client's own in it (a reader
//! thread added one to every server's time alike, which shrank the ratios). A watchdog thread kills a server that
//! has not answered within [`REPLY_TIMEOUT`]; the read then ends.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long one request may take before the server is given up on.
const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// An MCP server running as a child process, initialized.
pub(super) struct McpServer {
    child: Arc<Mutex<Child>>,
    pid: u32,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    /// When the request in flight must be answered by (`None` between requests), for the watchdog.
    deadline: Arc<Mutex<Option<Instant>>>,
    /// Set by the watchdog when it killed the server for a late reply.
    timed_out: Arc<AtomicBool>,
    /// Set on drop: the watchdog ends.
    dropped: Arc<AtomicBool>,
}

/// One `tools/call` answer: its `result` (or the JSON-RPC `error` as `{"isError": true, "content": [..]}`) and
/// the wall time from the request written to the reply read.
pub(super) struct Reply {
    pub(super) result: Value,
    pub(super) elapsed: Duration,
}

impl Reply {
    /// The text of every `text` item of `content`, joined by line breaks.
    pub(super) fn text(&self) -> String {
        self.result["content"]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| item["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    }

    /// Whether the server answered with an error (`isError`, or a JSON-RPC error).
    pub(super) fn is_error(&self) -> bool {
        self.result["isError"].as_bool() == Some(true)
    }
}

impl McpServer {
    /// Starts `program` with `args` (and `envs`) in `cwd`, stderr discarded, and runs MCP's `initialize`
    /// handshake. Errors: it does not start, or does not answer `initialize`.
    pub(super) fn start(
        program: &Path,
        args: &[String],
        envs: &[(&str, String)],
        cwd: &Path,
    ) -> Result<McpServer, String> {
        let mut child = Command::new(program)
            .args(args)
            .envs(envs.iter().map(|(key, value)| (key, value)))
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut server = McpServer {
            pid: child.id(),
            child: Arc::new(Mutex::new(child)),
            stdin,
            stdout,
            next_id: 1,
            deadline: Arc::new(Mutex::new(None)),
            timed_out: Arc::new(AtomicBool::new(false)),
            dropped: Arc::new(AtomicBool::new(false)),
        };
        server.watch();
        let init = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "read-window-bench", "version": env!("CARGO_PKG_VERSION")},
        });
        server.request("initialize", init)?;
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(server)
    }

    /// Starts the watchdog: every 50 ms, it kills the server when the request in flight is past its deadline.
    fn watch(&self) {
        let (child, deadline) = (Arc::clone(&self.child), Arc::clone(&self.deadline));
        let (timed_out, dropped) = (Arc::clone(&self.timed_out), Arc::clone(&self.dropped));
        std::thread::spawn(move || {
            while !dropped.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                let late = deadline
                    .lock()
                    .map(|deadline| deadline.is_some_and(|at| Instant::now() > at))
                    .unwrap_or(false);
                if late {
                    timed_out.store(true, Ordering::Relaxed);
                    if let Ok(mut child) = child.lock() {
                        let _ = child.kill();
                    }
                    return;
                }
            }
        });
    }

    /// Sets (or, with `None`, clears) the deadline the watchdog holds the server to.
    fn set_deadline(&self, at: Option<Instant>) {
        if let Ok(mut deadline) = self.deadline.lock() {
            *deadline = at;
        }
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        writeln!(self.stdin, "{message}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("the server closed its input: {e}"))
    }

    /// Sends request `method` with `params` and waits for its reply (skipping notifications, requests from the
    /// server and lines that are not JSON): the `result`, or the `error` as an `isError` result.
    fn request(&mut self, method: &str, params: Value) -> Result<Reply, String> {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let start = Instant::now();
        self.set_deadline(Some(start + REPLY_TIMEOUT));
        let reply = self
            .send(&message)
            .and_then(|()| self.read_reply(id, method));
        let elapsed = start.elapsed();
        self.set_deadline(None);
        let reply = reply?;
        let result = match reply.get("error") {
            Some(error) => json!({
                "isError": true,
                "content": [{"type": "text", "text": error["message"].as_str().unwrap_or("error")}],
            }),
            None => reply["result"].clone(),
        };
        Ok(Reply { result, elapsed })
    }

    /// Reads lines until the reply to request `id`, skipping notifications, requests from the server and lines
    /// that are not JSON.
    fn read_reply(&mut self, id: u64, method: &str) -> Result<Value, String> {
        let mut line = String::new();
        loop {
            line.clear();
            let read = self.stdout.read_line(&mut line);
            if !matches!(read, Ok(count) if count > 0) {
                return Err(if self.timed_out.load(Ordering::Relaxed) {
                    format!("no reply to {method} in {REPLY_TIMEOUT:?}")
                } else {
                    format!("the server exited before it answered {method}")
                });
            }
            let Ok(reply) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if reply["id"].as_u64() == Some(id) && reply.get("method").is_none() {
                return Ok(reply);
            }
        }
    }

    /// Calls tool `name` with `arguments`.
    pub(super) fn call(&mut self, name: &str, arguments: Value) -> Result<Reply, String> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// The server process's peak resident set (`VmHWM`), in bytes, when the system reports it.
    pub(super) fn peak_rss_bytes(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid)).ok()?;
        let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::Relaxed);
        if let Ok(mut child) = self.child.lock() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
