//! A JSON-RPC 2.0 client over a child process's stdin and stdout (MCP's stdio transport: one JSON object a line),
//! the one client section 6 drives every MCP server with.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long one request may take before the server is given up on.
const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// An MCP server running as a child process, initialized.
pub(super) struct McpServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
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
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let mut server = McpServer {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "read-window-bench", "version": env!("CARGO_PKG_VERSION")},
        });
        server.request("initialize", init)?;
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(server)
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
        self.send(&message)?;
        loop {
            let left = REPLY_TIMEOUT.saturating_sub(start.elapsed());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no reply to {method} in {REPLY_TIMEOUT:?}"))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("the server exited before it answered {method}"))
                }
            };
            let Ok(reply) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if reply["id"].as_u64() != Some(id) || reply.get("method").is_some() {
                continue;
            }
            let elapsed = start.elapsed();
            let result = match reply.get("error") {
                Some(error) => json!({
                    "isError": true,
                    "content": [{"type": "text", "text": error["message"].as_str().unwrap_or("error")}],
                }),
                None => reply["result"].clone(),
            };
            return Ok(Reply { result, elapsed });
        }
    }

    /// Calls tool `name` with `arguments`.
    pub(super) fn call(&mut self, name: &str, arguments: Value) -> Result<Reply, String> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// The server process's peak resident set (`VmHWM`), in bytes, when the system reports it.
    pub(super) fn peak_rss_bytes(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
