//! The MCP server's replies under the caps of the clients people use: with the server's defaults, the first
//! windows of large files of every kind the token estimator was tuned on (`tools/token-report/corpus`), of a
//! one-line minified JSON and of clamped lines fit Claude Code's 25,000-token cap by the component's own estimate
//! and by tiktoken's cl100k_base, counting everything the reply carries (the text and the structured content);
//! and a reply is at most 1.1 times its text plus the fixed allowance for the fields; a `read_files` reply of 200
//! files too, its frames and its fields counted.

use std::path::Path;

use read_window::protocol::mcp::{CLAUDE_CODE_CAP_TOKENS, FIELDS_ALLOWANCE_BYTES};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::common::Sandbox;

const BIN: &str = env!("CARGO_BIN_EXE_read-window");

/// The corpus the token estimator was measured on, a file a kind.
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools/token-report/corpus");

/// The text of `seed` repeated to at least `bytes` bytes, whole lines.
fn grown(seed: &str, bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + seed.len());
    while text.len() < bytes {
        text.push_str(seed);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

/// The fixtures: every corpus kind grown to 600 KB, a 3 MB one-line JSON, and lines clamped at 2,000 characters.
fn fixtures(sandbox: &Sandbox) -> Vec<String> {
    let mut paths = Vec::new();
    let mut kinds: Vec<_> = std::fs::read_dir(CORPUS)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    kinds.sort();
    for kind in kinds {
        let seed = std::fs::read_to_string(&kind).unwrap();
        let name = kind.file_name().unwrap().to_str().unwrap().to_owned();
        paths.push(sandbox.write(&name, grown(&seed, 600 * 1024)));
    }
    let items: Vec<String> = (0..60_000)
        .map(|n| format!("{{\"id\":{n},\"name\":\"item-{n}\",\"tags\":[\"a\",\"b\"]}}"))
        .collect();
    paths.push(sandbox.write("minified.json", format!("[{}]\n", items.join(","))));
    let wide = format!("{}\n", "0123456789abcdef€😀".repeat(400));
    paths.push(sandbox.write("wide.txt", wide.repeat(200)));
    paths
}

/// One reply's sizes: the tokens of everything it carries by the estimate and by cl100k_base, its bytes and its
/// text's bytes.
struct Measured {
    estimated_tokens: u64,
    cl100k_tokens: usize,
    reply_bytes: usize,
    text_bytes: usize,
}

fn measure(reply: &Value, bpe: &tiktoken_rs::CoreBPE) -> Measured {
    let text = reply["content"][0]["text"].as_str().unwrap_or_default();
    let structured = reply["structuredContent"].to_string();
    Measured {
        estimated_tokens: read_window::estimate_tokens(text)
            + read_window::estimate_tokens(&structured),
        cl100k_tokens: bpe.encode_ordinary(text).len() + bpe.encode_ordinary(&structured).len(),
        reply_bytes: reply.to_string().len(),
        text_bytes: text.len(),
    }
}

/// The MCP server over `sandbox`'s root with its defaults, and a client of it.
async fn client_of(sandbox: &Sandbox) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let mut command = tokio::process::Command::new(BIN);
    command
        .args(["--root", sandbox.root.to_str().unwrap(), "mcp"])
        .current_dir(Path::new(&sandbox.root));
    ().serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

/// Asserts that a reply fits Claude Code's cap by both counts, and is at most 1.1 times its text plus the
/// allowance for the fields.
fn assert_fits(label: &str, sizes: &Measured) {
    let cap = u64::from(CLAUDE_CODE_CAP_TOKENS);
    assert!(
        sizes.estimated_tokens <= cap,
        "{label}: {} estimated",
        sizes.estimated_tokens
    );
    assert!(
        sizes.cl100k_tokens as u64 <= cap,
        "{label}: {} cl100k",
        sizes.cl100k_tokens
    );
    let allowed = sizes.text_bytes + sizes.text_bytes / 10 + FIELDS_ALLOWANCE_BYTES;
    assert!(
        sizes.reply_bytes <= allowed,
        "{label}: {} of {allowed} bytes",
        sizes.reply_bytes
    );
}

#[tokio::test]
async fn default_replies_fit_claude_codes_cap_by_the_estimate_and_by_cl100k() {
    let sandbox = Sandbox::new();
    let paths = fixtures(&sandbox);
    let bpe = tiktoken_rs::cl100k_base().unwrap();
    let client = client_of(&sandbox).await;
    for path in &paths {
        // The first window and the one after it.
        let mut arguments = json!({"path": path});
        for _ in 0..2 {
            let params = CallToolRequestParams::new("read_file")
                .with_arguments(arguments.as_object().unwrap().clone());
            let reply = serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap();
            assert_eq!(reply["isError"], false, "{path}: {reply}");
            let sizes = measure(&reply, &bpe);
            eprintln!(
                "{path}: {} estimated tokens, {} cl100k tokens, {} reply bytes for {} text bytes",
                sizes.estimated_tokens, sizes.cl100k_tokens, sizes.reply_bytes, sizes.text_bytes
            );
            assert_fits(path, &sizes);
            let structured = &reply["structuredContent"];
            arguments = match (
                structured["next_offset"].as_u64(),
                structured["next_column"].as_u64(),
            ) {
                (Some(offset), column) => json!({"path": path, "offset": offset, "column": column}),
                (None, _) => break,
            };
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_read_files_reply_of_200_files_fits_claude_codes_cap_frames_and_fields_counted() {
    let sandbox = Sandbox::new();
    let manifest: String = (0..60)
        .map(|line| {
            format!("dependency-{line:02} = {{ version = \"0.{line}.3\", features = [\"std\"] }}\n")
        })
        .collect();
    let paths: Vec<String> = (0..200)
        .map(|n| sandbox.write(&format!("crates/crate-{n:03}/Cargo.toml"), &manifest))
        .collect();
    let bpe = tiktoken_rs::cl100k_base().unwrap();
    let client = client_of(&sandbox).await;
    for limit in [1, 40] {
        let arguments = json!({"paths": paths, "limit": limit});
        let params = CallToolRequestParams::new("read_files")
            .with_arguments(arguments.as_object().unwrap().clone());
        let reply = serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap();
        assert_eq!(reply["isError"], false, "{reply}");
        let sizes = measure(&reply, &bpe);
        let structured = &reply["structuredContent"];
        let listed = structured["files"].as_array().map_or(0, Vec::len);
        let read = structured["files_total"].as_u64().unwrap_or(listed as u64);
        let left_out = structured["left_out_total"]
            .as_u64()
            .or_else(|| {
                structured["left_out"]
                    .as_array()
                    .map(|list| list.len() as u64)
            })
            .unwrap_or(0);
        eprintln!(
            "read_files limit {limit}: {read} read ({listed} listed), {left_out} left out; {} estimated tokens, {} \
             cl100k tokens, {} reply bytes for {} text bytes",
            sizes.estimated_tokens, sizes.cl100k_tokens, sizes.reply_bytes, sizes.text_bytes
        );
        assert_eq!(read + left_out, 200);
        assert_fits(&format!("read_files limit {limit}"), &sizes);
        // Each file's window is under its `==> path <==` line; the files left out are named, the first ten.
        let text = reply["content"][0]["text"].as_str().unwrap_or_default();
        assert_eq!(text.matches("==> ").count() as u64, read);
        if left_out > 0 {
            assert!(
                text.contains(&format!("the last {left_out} files of the call")),
                "{text}"
            );
        }
    }
    client.cancel().await.unwrap();
}
