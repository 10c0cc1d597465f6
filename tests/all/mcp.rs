//! `read-window mcp`: the MCP server over stdio, driven by rmcp's client over a real child process and by plain
//! JSON-RPC lines. The structured content of every answer is the session's JSON answer, checked against the
//! tool's output schema.

// Roots are deprecated from the 2026 MCP revision on (SEP-2577); the server speaks the revisions before it.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::common::Sandbox;
use read_window_host::Config;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ListRootsResult, Root, Tool,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_read-window");

/// A client that offers `roots` (file:// URIs) and can change them.
#[derive(Clone)]
struct RootsClient {
    roots: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for RootsClient {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"roots": {"listChanged": true}})).unwrap();
        ClientConfig::new(capabilities, Implementation::new("roots-test", "0"))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let roots = self.roots.lock().unwrap().clone();
        Ok(ListRootsResult::new(
            roots.into_iter().map(Root::new).collect(),
        ))
    }
}

fn command(args: &[&str], cwd: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(BIN);
    command.args(args).current_dir(cwd);
    command
}

/// Starts `read-window ARGS mcp` in `cwd` and connects rmcp's client (no roots) to it.
async fn connect(args: &[&str], cwd: &Path) -> RunningService<RoleClient, ()> {
    let args: Vec<&str> = args.iter().copied().chain(["mcp"]).collect();
    let transport = TokioChildProcess::new(command(&args, cwd)).unwrap();
    ().serve(transport).await.unwrap()
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display()).replace(' ', "%20")
}

/// Calls `tool` with `arguments` (an object).
async fn call<S: rmcp::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    tool: &'static str,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
        .await
        .unwrap()
}

/// The one text block of a result.
fn text(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "{result:?}");
    &result.content[0].as_text().expect("a text block").text
}

fn structured(result: &CallToolResult) -> &Value {
    result
        .structured_content
        .as_ref()
        .expect("structured content")
}

/// Checks `value` against the subset of JSON Schema the output schemas use: `type` (a name or a list),
/// `enum`, `properties` (no other key allowed), `required` and `items`.
fn conforms(value: &Value, schema: &Value, at: &str) {
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().map(|t| t.as_str().unwrap()).collect(),
            other => panic!("bad type {other}"),
        };
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        assert!(
            types.contains(&actual) || (actual == "integer" && types.contains(&"number")),
            "{at}: {value} is not {types:?}"
        );
    }
    if let Some(Value::Array(allowed)) = schema.get("enum") {
        assert!(allowed.contains(value), "{at}: {value} not in {allowed:?}");
    }
    if let (Value::Object(fields), Some(Value::Object(properties))) =
        (value, schema.get("properties"))
    {
        for (key, field) in fields {
            let property = properties
                .get(key)
                .unwrap_or_else(|| panic!("{at}: `{key}` is not in the schema"));
            conforms(field, property, &format!("{at}.{key}"));
        }
        for required in schema["required"].as_array().into_iter().flatten() {
            let required = required.as_str().unwrap();
            assert!(fields.contains_key(required), "{at}: `{required}` missing");
        }
    }
    if let (Value::Array(items), Some(item_schema)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            conforms(item, item_schema, &format!("{at}[{i}]"));
        }
    }
}

fn output_schema(tools: &[Tool], name: &str) -> Value {
    let tool = tools.iter().find(|tool| tool.name == name).unwrap();
    Value::Object(tool.output_schema.as_deref().unwrap().clone())
}

#[tokio::test]
async fn lists_read_file_and_check_write_with_their_schemas() {
    let sandbox = Sandbox::new();
    let client = connect(&["--root", sandbox.root.to_str().unwrap()], &sandbox.root).await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "read-window");
    assert!(info.capabilities.tools.is_some());
    assert!(info.instructions.as_deref().unwrap().contains("read_file"));

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "list_directory",
            "read_files",
            "search",
            "check_write"
        ]
    );

    let read = &tools[0];
    let input = Value::Object((*read.input_schema).clone());
    assert_eq!(input["type"], "object");
    assert_eq!(input["required"], json!(["path"]));
    assert_eq!(input["additionalProperties"], false);
    assert_eq!(input["properties"]["path"]["type"], "string");
    // The schema `read-window tool-schema` prints: a limit of 0 or a tail of 0 is refused, an offset of 0 reads as 1.
    assert_eq!(
        input,
        read_window::protocol::tools::read_input_schema_for(read_window::DEFAULT_MAX_LINES)
    );
    for (field, minimum) in [("offset", 0), ("limit", 1), ("column", 0), ("tail", 1)] {
        assert_eq!(input["properties"][field]["type"], "integer", "{field}");
        assert_eq!(input["properties"][field]["minimum"], minimum, "{field}");
        assert!(input["properties"][field]["description"].is_string());
    }
    let description = read.description.as_deref().unwrap();
    for words in [
        "1-based",
        "The hint names the call that continues, e.g. offset=2001",
        "offset=7 column=2000",
        "unchanged",
        "loop_blocked",
    ] {
        assert!(description.contains(words), "{words}");
    }
    assert!(input["properties"]["column"]["description"]
        .as_str()
        .unwrap()
        .contains("0-based"));
    let output = output_schema(&tools, "read_file");
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["status", "content_returned"]));
    assert!(read.annotations.as_ref().unwrap().read_only_hint == Some(true));
    // Claude Code shows a result inline up to the characters a tool declares: 18,000 tokens of window at most 16
    // characters each, the hint and the fields.
    assert_eq!(
        serde_json::to_value(&read.meta).unwrap(),
        json!({"anthropic/maxResultSizeChars": 304_384})
    );
    assert_eq!(input["properties"]["fresh"]["type"], "boolean");

    let check = &tools[4];
    let input = Value::Object((*check.input_schema).clone());
    assert_eq!(input["required"], json!(["path", "text"]));
    assert_eq!(input["properties"]["text"]["type"], "string");
    assert_eq!(output_schema(&tools, "check_write")["type"], "object");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn read_file_is_a_session_window_stub_and_error() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("notes.txt", "alpha\nbeta\ngamma\ndelta\nepsilon\n");
    let client = connect(&["--root", sandbox.root.to_str().unwrap()], &sandbox.root).await;
    let tools = client.list_all_tools().await.unwrap();
    let schema = output_schema(&tools, "read_file");

    // A window from line 2, two lines: the text is the content, a blank line and the hint.
    let window = call(
        &client,
        "read_file",
        json!({"path": path, "offset": 2, "limit": 2}),
    )
    .await;
    assert_eq!(window.is_error, Some(false));
    let hint = format!(
        "Showing lines 2-3 of 5 in {path} (the limit of 2 lines). Use offset=4 to continue."
    );
    assert_eq!(text(&window), format!("2|beta\n3|gamma\n\n{hint}"));
    let answer = structured(&window);
    conforms(answer, &schema, "window");
    // The window travels once: in the text, never again in the structured content.
    for key in ["content", "text", "hint", "message", "warnings"] {
        assert!(answer.get(key).is_none(), "{key} in {answer}");
    }
    assert_eq!(answer["status"], "ok");
    assert_eq!(answer["content_returned"], true);
    assert_eq!(answer["start_line"], 2);
    assert_eq!(answer["end_line"], 3);
    assert_eq!(answer["lines_returned"], 2);
    assert_eq!(answer["total_lines"], 5);
    assert_eq!(answer["truncated_by"], json!(["limit"]));
    assert_eq!(answer["next_offset"], 4);
    assert_eq!(answer["next_column"], Value::Null);
    // The server's default budget: a token cap under Claude Code's 25,000-token output cap.
    assert_eq!(
        answer["budget"],
        json!({"unit": "tokens", "limit": 18000, "used": 10, "cap": 20000})
    );
    // Exactly the component's MCP reply to the same call (the sync host must not run on an async thread).
    let mut session = sandbox.session(Config {
        working_directory: Some(sandbox.root.display().to_string()),
        budget: Some(read_window_host::Budget::Tokens(
            read_window_host::TokenBudget {
                cap: Some(20_000),
                headroom: None,
            },
        )),
        ..Config::default()
    });
    let request = json!({"op": "tool_call", "name": "read_file", "reply": "mcp",
                         "arguments": {"path": path, "offset": 2, "limit": 2}});
    let direct = tokio::task::spawn_blocking(move || crate::common::ask(&mut session, request))
        .await
        .unwrap();
    assert_eq!(serde_json::to_value(&window).unwrap(), direct);

    // The same window again: the unchanged stub, no content.
    let stub = call(
        &client,
        "read_file",
        json!({"path": path, "offset": 2, "limit": 2}),
    )
    .await;
    assert_eq!(stub.is_error, Some(false));
    let answer = structured(&stub);
    conforms(answer, &schema, "stub");
    assert_eq!(answer["status"], "unchanged");
    assert_eq!(answer["content_returned"], false);
    assert!(answer.get("message").is_none());
    assert_eq!(
        text(&stub),
        format!(
            "[read-window: unchanged] Lines 2-3 of 5 in {path} have not changed since you read them earlier in \
             this session; that result is still current, so it is not sent again (if it is no longer in your \
             context, repeat this call with fresh=true). Use offset=4 to continue."
        )
    );

    // The way back after compaction: `fresh` returns the content, as the read the stub answered.
    let fresh = call(
        &client,
        "read_file",
        json!({"path": path, "offset": 2, "limit": 2, "fresh": true}),
    )
    .await;
    assert_eq!(fresh.is_error, Some(false));
    assert_eq!(text(&fresh), format!("2|beta\n3|gamma\n\n{hint}"));
    assert_eq!(structured(&fresh)["status"], "ok");

    // Fresh again: the third read in a row warns; the fourth is blocked.
    let again = json!({"path": path, "offset": 2, "limit": 2, "fresh": true});
    let warned = call(&client, "read_file", again.clone()).await;
    assert_eq!(
        text(&warned),
        format!(
            "2|beta\n3|gamma\n\n{hint}\n[read-window: loop warning] This is identical read 3 in a row of lines \
             2-3 of {path}, unchanged. Use what you already have; read 4 will be blocked."
        )
    );
    let blocked = call(&client, "read_file", again).await;
    assert_eq!(blocked.is_error, Some(true));
    conforms(structured(&blocked), &schema, "blocked");
    assert_eq!(structured(&blocked)["error"]["kind"], "loop_blocked");
    assert_eq!(structured(&blocked)["error"]["already_read"], 4);
    assert_eq!(text(&blocked), structured(&blocked)["error"]["message"]);
    assert_eq!(structured(&blocked)["error"]["path"], json!(path));

    // Following the cursor (a relative path, against the working directory) reads the rest.
    let rest = call(
        &client,
        "read_file",
        json!({"path": "notes.txt", "offset": 4}),
    )
    .await;
    assert_eq!(
        text(&rest),
        format!("4|delta\n5|epsilon\n\nShowing lines 4-5 of 5 in {path}: the end of the file.")
    );
    assert_eq!(structured(&rest)["next_offset"], Value::Null);
    assert_eq!(structured(&rest)["truncated"], false);

    // A missing file and a path outside the root are error results with the session's kinds.
    let missing = call(
        &client,
        "read_file",
        json!({"path": sandbox.guest("nope.txt")}),
    )
    .await;
    assert_eq!(missing.is_error, Some(true));
    conforms(structured(&missing), &schema, "missing");
    assert_eq!(structured(&missing)["status"], "error");
    assert_eq!(structured(&missing)["error"]["kind"], "not_found");
    assert_eq!(text(&missing), structured(&missing)["error"]["message"]);
    assert_eq!(
        structured(&missing)["error"]["path"],
        json!(sandbox.guest("nope.txt"))
    );
    assert_eq!(
        structured(&missing)["error"]["suggestions"],
        json!(["notes.txt"])
    );
    let outside = call(&client, "read_file", json!({"path": "/etc/hostname"})).await;
    assert_eq!(outside.is_error, Some(true));
    assert_eq!(structured(&outside)["error"]["kind"], "outside_sandbox");

    // Malformed arguments are invalid_request results naming the field; the session goes on.
    let bad = call(&client, "read_file", json!({"path": path, "limit": -1})).await;
    assert_eq!(bad.is_error, Some(true));
    assert_eq!(structured(&bad)["error"]["kind"], "invalid_request");
    assert!(text(&bad).contains("`limit` must not be negative"));
    let unknown = call(&client, "read_file", json!({"path": path, "lines": 3})).await;
    assert!(text(&unknown).contains("unknown argument `lines`"));
    let zero = call(&client, "read_file", json!({"path": path, "limit": 0})).await;
    assert_eq!(structured(&zero)["error"]["kind"], "invalid_request");
    // An unknown tool is the component's refusal, as on every MCP server.
    let no_tool = client
        .call_tool(CallToolRequestParams::new("write_file"))
        .await
        .unwrap();
    assert_eq!(no_tool.is_error, Some(true));
    assert_eq!(structured(&no_tool)["error"]["kind"], "invalid_request");
    assert_eq!(
        text(&no_tool),
        "unknown tool \"write_file\": the tools are read_file, list_directory, read_files, search and check_write"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn check_write_refuses_a_pasted_stub_and_accepts_plain_text() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\ntwo\n");
    let client = connect(&["--root", sandbox.root.to_str().unwrap()], &sandbox.root).await;
    let tools = client.list_all_tools().await.unwrap();
    let schema = output_schema(&tools, "check_write");
    call(&client, "read_file", json!({"path": path})).await;
    let stub = call(&client, "read_file", json!({"path": path})).await;
    let message = text(&stub).to_owned();
    assert!(message.starts_with("[read-window: unchanged]"));

    let refused = call(
        &client,
        "check_write",
        json!({"path": path, "text": format!("one\n{message}\n")}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true));
    conforms(structured(&refused), &schema, "refused");
    assert_eq!(structured(&refused)["error"]["kind"], "echoed_output");
    assert_eq!(text(&refused), structured(&refused)["error"]["message"]);

    let pasted = call(
        &client,
        "check_write",
        json!({"path": path, "text": "1|one\n2|two\n"}),
    )
    .await;
    assert_eq!(structured(&pasted)["error"]["kind"], "echoed_output");
    assert!(text(&pasted).starts_with("Lines 1-2 of the text for "));

    // Numbered data that never came from read_file passes.
    let data = call(
        &client,
        "check_write",
        json!({"path": path, "text": "1|Alice|30\n2|Bob|25\n"}),
    )
    .await;
    assert_eq!(structured(&data), &json!({"status": "ok"}));

    let ok = call(
        &client,
        "check_write",
        json!({"path": path, "text": "one\ntwo\nthree\n"}),
    )
    .await;
    assert_eq!(ok.is_error, Some(false));
    assert_eq!(text(&ok), "ok");
    assert_eq!(structured(&ok), &json!({"status": "ok"}));
    conforms(structured(&ok), &schema, "ok");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn without_root_the_clients_roots_are_granted_and_follow_its_changes() {
    let granted = Sandbox::new();
    let other = Sandbox::new();
    let inside = granted.write("in.txt", "granted\n");
    let elsewhere = other.write("out.txt", "other\n");
    let roots = Arc::new(Mutex::new(vec![
        file_uri(&granted.root),
        "https://example.com/not-a-directory".to_owned(),
    ]));
    let handler = RootsClient {
        roots: Arc::clone(&roots),
    };
    // The server runs in `other`: without the client's roots it would read there.
    let transport = TokioChildProcess::new(command(&["mcp"], &other.root)).unwrap();
    let client = handler.serve(transport).await.unwrap();

    let read = call(&client, "read_file", json!({"path": inside})).await;
    assert_eq!(read.is_error, Some(false), "{read:?}");
    assert_eq!(
        text(&read),
        format!("1|granted\n\nShowing line 1 of 1 in {inside}: the whole file.")
    );
    let refused = call(&client, "read_file", json!({"path": elsewhere})).await;
    assert_eq!(structured(&refused)["error"]["kind"], "outside_sandbox");
    // A relative path resolves against the first root (the current directory is not under it).
    let relative = call(&client, "read_file", json!({"path": "in.txt"})).await;
    assert_eq!(structured(&relative)["status"], "unchanged");

    // The client changes its roots: the next call lists them again and reads in a new session.
    *roots.lock().unwrap() = vec![file_uri(&other.root)];
    client.notify_roots_list_changed().await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let now = call(&client, "read_file", json!({"path": elsewhere})).await;
    assert_eq!(now.is_error, Some(false), "{now:?}");
    let before = call(&client, "read_file", json!({"path": inside})).await;
    assert_eq!(structured(&before)["error"]["kind"], "outside_sandbox");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn without_root_or_client_roots_the_current_directory_is_granted() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("here.txt", "here\n");
    let client = connect(&[], &sandbox.root).await;
    let read = call(&client, "read_file", json!({"path": "here.txt"})).await;
    assert_eq!(
        text(&read),
        format!("1|here\n\nShowing line 1 of 1 in {path}: the whole file.")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_that_lists_no_roots_gets_the_current_directory() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("here.txt", "here\n");
    let handler = RootsClient {
        roots: Arc::new(Mutex::new(Vec::new())),
    };
    let transport = TokioChildProcess::new(command(&["mcp"], &sandbox.root)).unwrap();
    let client = handler.serve(transport).await.unwrap();
    let read = call(&client, "read_file", json!({"path": "here.txt"})).await;
    assert_eq!(
        text(&read),
        format!("1|here\n\nShowing line 1 of 1 in {path}: the whole file.")
    );
    client.cancel().await.unwrap();
}

/// `read-window mcp` with no `--root`, started in `cwd` with `home` as `$HOME` (the compiled component stays
/// cached where it is, whatever HOME says).
fn started_in(cwd: &Path, home: &Path) -> tokio::process::Command {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let mut command = command(&["mcp"], cwd);
    command.env("HOME", home).env("XDG_CACHE_HOME", cache);
    command
}

#[tokio::test]
async fn started_in_home_or_the_file_system_root_it_reads_only_the_clients_roots() {
    let home = Sandbox::new();
    let project = Sandbox::new();
    let inside = project.write("p.txt", "project\n");
    let home_dir = home.root.canonicalize().unwrap();
    // A client that offers its project as a root is served, though the server started in $HOME.
    let handler = RootsClient {
        roots: Arc::new(Mutex::new(vec![file_uri(&project.root)])),
    };
    let transport = TokioChildProcess::new(started_in(&home_dir, &home_dir)).unwrap();
    let client = handler.serve(transport).await.unwrap();
    let read = call(&client, "read_file", json!({"path": inside})).await;
    assert_eq!(
        text(&read),
        format!("1|project\n\nShowing line 1 of 1 in {inside}: the whole file.")
    );
    client.cancel().await.unwrap();

    // A client with no roots: the server starts, and every call says why it reads nothing, naming --root.
    for (cwd, what) in [
        (home_dir.as_path(), "(your home directory)"),
        (Path::new("/"), "(the root of the file system)"),
    ] {
        let transport = TokioChildProcess::new(started_in(cwd, &home_dir)).unwrap();
        let client = ().serve(transport).await.unwrap();
        let refused = call(&client, "read_file", json!({"path": "p.txt"})).await;
        assert_eq!(refused.is_error, Some(true));
        assert_eq!(structured(&refused)["error"]["kind"], "host_error");
        assert_eq!(structured(&refused)["error"]["cause"], "start");
        assert_eq!(
            text(&refused),
            format!(
                "read-window cannot read any file: the client offers no roots, and the server was started in {} \
                 {what} with no --root, which it does not open to the model whole. In the client's settings, add \
                 `--root /path/to/project` to the server's arguments (a JSON config: \"args\": [..., \"--root\", \
                 \"/path/to/project\"]), or have the client offer the project as a root.",
                cwd.display()
            )
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn the_command_line_config_applies_to_the_session() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("three.txt", "a\nb\nc\n");
    let root = sandbox.root.to_str().unwrap();
    let client = connect(
        &["--root", root, "--max-lines", "1", "--no-dedup"],
        &sandbox.root,
    )
    .await;
    let expected = format!(
        "1|a\n\nShowing line 1 of 3 in {path} (the limit of 1 line). Use offset=2 to continue."
    );
    let first = call(&client, "read_file", json!({"path": path})).await;
    assert_eq!(text(&first), expected);
    // Dedup is off: the repeat carries the content again, not a stub.
    let second = call(&client, "read_file", json!({"path": path})).await;
    assert_eq!(text(&second), expected);
    client.cancel().await.unwrap();
}

/// Reads answers from the server until the one with `id`.
fn answer(lines: &mut impl Iterator<Item = std::io::Result<String>>, id: u64) -> Value {
    for line in lines {
        let value: Value = serde_json::from_str(&line.unwrap()).unwrap();
        assert_eq!(value["jsonrpc"], "2.0");
        if value["id"] == id {
            return value;
        }
        // A request from the server (none is expected without the roots capability) would have a method.
        assert!(value.get("method").is_none(), "unexpected {value}");
    }
    panic!("no answer with id {id}");
}

#[test]
fn plain_json_rpc_lines_on_stdin_and_stdout() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\ntwo\nthree\n");
    let mut child = Command::new(BIN)
        .args(["--root", sandbox.root.to_str().unwrap(), "mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |value: Value| {
        writeln!(stdin, "{value}").unwrap();
        stdin.flush().unwrap();
    };

    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "plain", "version": "0"}}}),
    );
    let init = answer(&mut lines, 1);
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "read-window");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = answer(&mut lines, 2);
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "read_file");
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["path"]));
    assert_eq!(tools[0]["outputSchema"]["type"], "object");
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "read_file",
            "list_directory",
            "read_files",
            "search",
            "check_write"
        ]
    );

    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "read_file", "arguments": {"path": path, "limit": 2}}}),
    );
    let call = answer(&mut lines, 3);
    let result = &call["result"];
    assert_eq!(result["isError"], false);
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": format!(
            "1|one\n2|two\n\nShowing lines 1-2 of 3 in {path} (the limit of 2 lines). Use offset=3 to continue."
        )}])
    );
    assert_eq!(result["structuredContent"]["next_offset"], 3);
    assert_eq!(result["structuredContent"].get("content"), None);

    send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "read_file", "arguments": {"path": "missing.txt"}}}),
    );
    let missing = answer(&mut lines, 4);
    assert_eq!(missing["result"]["isError"], true);
    assert_eq!(
        missing["result"]["structuredContent"]["error"]["kind"],
        "not_found"
    );

    // Arguments sent as a string of JSON (rmcp cannot read those params) are read by the component, with a note.
    send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "read_file", "arguments": json!({"path": path, "offset": 3}).to_string()}}),
    );
    let stringly = answer(&mut lines, 5);
    assert_eq!(
        stringly["result"]["content"][0]["text"],
        format!(
            "3|three\n\nShowing line 3 of 3 in {path}: the end of the file.\n`arguments` was a string holding a \
             JSON object; it was read as that object. Send the arguments as a JSON object."
        )
    );
    // A method the server does not have (one MCP defines, or not) says which it has.
    for (id, method) in [(6, "tools/run"), (7, "resources/list"), (8, "prompts/list")] {
        send(json!({"jsonrpc": "2.0", "id": id, "method": method}));
        assert_eq!(
            answer(&mut lines, id)["error"],
            json!({"code": -32601, "message": format!(
                "this server has no method {method:?}: it answers initialize, ping, tools/list and tools/call"
            )})
        );
    }

    // The client goes away: the server exits 0.
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[tokio::test]
async fn when_no_offered_root_can_be_granted_reads_say_so_and_list_them() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("here.txt", "here\n");
    let roots = Arc::new(Mutex::new(vec![
        "https://example.com/repo".to_owned(),
        "file:///no/such/rw-root".to_owned(),
    ]));
    let handler = RootsClient {
        roots: Arc::clone(&roots),
    };
    // The server runs in `sandbox` with --max-lines 50: it must not quietly read there instead.
    let transport =
        TokioChildProcess::new(command(&["--max-lines", "50", "mcp"], &sandbox.root)).unwrap();
    let client = handler.serve(transport).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let read_tool = tools.iter().find(|tool| tool.name == "read_file").unwrap();
    assert_eq!(read_tool.input_schema["properties"]["limit"]["maximum"], 50);

    let refused = call(&client, "read_file", json!({"path": path})).await;
    assert_eq!(refused.is_error, Some(true));
    let message = "read-window cannot read any file: none of the roots the client offers could be granted: \
                   \"https://example.com/repo\" (not a local file:// URI); \"file:///no/such/rw-root\" \
                   (/no/such/rw-root: No such file or directory (os error 2)). Offer a local directory as a root \
                   (a file:// URI), or start the server with --root DIR.";
    assert_eq!(text(&refused), message);
    assert_eq!(structured(&refused)["error"]["kind"], "host_error");
    assert_eq!(structured(&refused)["error"]["cause"], "start");

    // Once the client offers a usable root, reads work.
    *roots.lock().unwrap() = vec![file_uri(&sandbox.root)];
    client.notify_roots_list_changed().await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let read = call(&client, "read_file", json!({"path": path})).await;
    assert_eq!(read.is_error, Some(false), "{read:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_image_is_an_image_block_after_its_hint() {
    let sandbox = Sandbox::new();
    // A 3 x 2 PNG, written by hand: the file fits, so its own bytes are the picture.
    let png = base64_decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR42mP4z8DAAMFwFgA72AX7NhGY6gAAAABJRU5ErkJggg==",
    );
    let path = sandbox.write("dot.png", &png);
    let client = connect(&["--root", sandbox.root.to_str().unwrap()], &sandbox.root).await;
    let tools = client.list_all_tools().await.unwrap();
    let schema = output_schema(&tools, "read_file");
    let result = call(&client, "read_file", json!({"path": path})).await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.content.len(), 2, "{result:?}");
    let hint = &result.content[0].as_text().expect("the hint first").text;
    assert!(
        hint.starts_with(&format!("{path}: a 3 x 2 PNG image")),
        "{hint}"
    );
    let image = result.content[1].as_image().expect("an image block");
    assert_eq!(image.mime_type, "image/png");
    assert_eq!(base64_decode(&image.data), png);
    let answer = structured(&result);
    conforms(answer, &schema, "image");
    assert!(answer.get("data").is_none(), "{answer}");
    assert_eq!(answer["image"]["width"], 3);
    client.cancel().await.unwrap();
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

/// A server whose stdin and stdout are one end of a socket pair (as Node's `child_process` starts one), and the
/// other end: its reply lines, and a writer of request lines.
fn over_a_socket_pair(
    root: &Path,
) -> (
    std::process::Child,
    impl Iterator<Item = std::io::Result<String>>,
    std::os::unix::net::UnixStream,
) {
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let child = Command::new(BIN)
        .args(["--root", root.to_str().unwrap(), "mcp"])
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(
            theirs.try_clone().unwrap(),
        )))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .spawn()
        .unwrap();
    let writer = ours.try_clone().unwrap();
    (child, BufReader::new(ours).lines(), writer)
}

#[test]
fn over_a_socket_pair_reads_and_a_cancelled_call_gets_no_answer() {
    let sandbox = Sandbox::new();
    let path = sandbox.write("a.txt", "one\ntwo\nthree\n");
    // A search through 4 MB that finds nothing: long enough for the cancellation to come while it runs.
    for n in 0..400 {
        sandbox.write(
            &format!("tree/{n}.txt"),
            "some words on a line\n".repeat(500),
        );
    }
    let (mut child, mut lines, mut writer) = over_a_socket_pair(&sandbox.root);
    let mut send = |value: Value| writeln!(writer, "{value}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "socket", "version": "0"}}}),
    );
    assert_eq!(
        answer(&mut lines, 1)["result"]["serverInfo"]["name"],
        "read-window"
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let read = |offset: u64| {
        json!({"jsonrpc": "2.0", "id": 10 + offset, "method": "tools/call", "params": {
        "name": "read_file", "arguments": {"path": path, "offset": offset, "limit": 2}}})
    };
    send(read(1));
    assert_eq!(
        answer(&mut lines, 11)["result"]["content"][0]["text"],
        format!("1|one\n2|two\n\nShowing lines 1-2 of 3 in {path} (the limit of 2 lines). Use offset=3 to continue.")
    );

    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "search", "arguments": {"pattern": "zzqq", "path": "tree"}}}),
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
    );
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    // The ping is answered, and the cancelled search never is (whether it was cancelled before or while it ran).
    let mut ids = Vec::new();
    for line in lines.by_ref() {
        let value: Value = serde_json::from_str(&line.unwrap()).unwrap();
        ids.push(value["id"].clone());
        if value["id"] == 3 {
            assert_eq!(value["result"], json!({}));
            break;
        }
    }
    assert_eq!(ids, [json!(3)]);
    // The session goes on.
    send(read(3));
    assert_eq!(
        answer(&mut lines, 13)["result"]["content"][0]["text"],
        format!("3|three\n\nShowing line 3 of 3 in {path}: the end of the file.")
    );

    writer.shutdown(std::net::Shutdown::Write).unwrap();
    assert!(child.wait().unwrap().success());
}
