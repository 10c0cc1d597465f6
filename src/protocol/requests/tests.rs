//! Tests of request parsing: every op, numbers the way models send them, and the refusals of malformed requests.

use super::*;
use crate::protocol::json_in::parse_strict;

fn read(path: &str) -> ReadRequest {
    ReadRequest {
        path: path.to_owned(),
        ..ReadRequest::default()
    }
}

fn parse(line: &str) -> Result<(Request, Vec<String>), ReadError> {
    let value = parse_strict(line)
        .map_err(|e| ReadError::invalid(format!("the request is not valid JSON: {e}")))?;
    parse_request(&value)
}

fn parsed(line: &str) -> Request {
    match parse(line) {
        Ok((request, _)) => request,
        Err(error) => panic!("{line}: {}", error.message),
    }
}

fn invalid(line: &str) -> String {
    match parse(line) {
        Ok((request, _)) => panic!("{line} parsed as {request:?}"),
        Err(error) => error.message,
    }
}

#[test]
fn parses_every_op() {
    assert_eq!(
        parsed(r#"{"op":"read","path":"a","offset":2,"limit":3,"column":4}"#),
        Request::Read(ReadRequest {
            offset: Some(2),
            limit: Some(3),
            column: Some(4),
            ..read("a")
        })
    );
    assert_eq!(parsed(r#"{"path":"a"}"#), Request::Read(read("a")));
    assert_eq!(
        parsed(r#"{"op":"read_once","path":"a"}"#),
        Request::ReadOnce(read("a"))
    );
    assert_eq!(parsed(r#"{"op":"other_tool"}"#), Request::OtherTool);
    assert_eq!(
        parsed(r#"{"op":"reset_dedup","id":7}"#),
        Request::ResetDedup
    );
    assert_eq!(parsed(r#"{"op":"stats"}"#), Request::Stats);
    assert_eq!(parsed(r#"{"op":"config"}"#), Request::Config);
    assert_eq!(
        parsed(r#"{"op":"tools","format":"mcp"}"#),
        Request::Tools("mcp".into())
    );
    assert_eq!(
        parsed(r#"{"op":"wrote","path":"a"}"#),
        Request::Wrote("a".into())
    );
    assert_eq!(
        parsed(r#"{"op":"check_write","path":"a","text":"t"}"#),
        Request::CheckWrite {
            path: "a".into(),
            text: "t".into()
        }
    );
    assert_eq!(
        parsed(r#"{"op":"report_tokens","path":"a","offset":1,"lines":2,"tokens":3}"#),
        Request::ReportTokens {
            path: "a".into(),
            offset: 1,
            lines: 2,
            tokens: 3
        }
    );
    assert_eq!(
        parsed(r#"{"op":"token_refusal","path":"a","offset":1,"limit":2,"message":"m"}"#),
        Request::TokenRefusal {
            path: "a".into(),
            offset: 1,
            limit: 2,
            message: "m".into()
        }
    );
    assert_eq!(
        parsed(r#"{"path":"a","offset":5.0,"limit":1e3,"column":18446744073709551615}"#),
        Request::Read(ReadRequest {
            offset: Some(5),
            limit: Some(1000),
            column: Some(u64::MAX),
            ..read("a")
        })
    );
    assert_eq!(
        parsed(r#"{"op":"capture_chunk","base64":"aGk"}"#),
        Request::CaptureChunk(b"hi".to_vec())
    );
    assert_eq!(
        parsed(r#"{"op":"tool_call","name":"read_file","arguments":{"path":"a","limit":"2"}}"#),
        Request::ToolCall(Box::new(Request::Read(ReadRequest {
            limit: Some(2),
            ..read("a")
        })))
    );
}

#[test]
fn optional_numbers_are_taken_the_way_models_send_them() {
    let noted = |line: &str| match parse(line) {
        Ok(parsed) => parsed,
        Err(error) => panic!("{line}: {}", error.message),
    };
    assert_eq!(
        noted(r#"{"op":"read","path":"a.txt","offset":"","limit":null,"column":" "}"#),
        (Request::Read(read("a.txt")), Vec::new())
    );
    assert_eq!(
        noted(r#"{"path":"a.txt","offset":"40","tail":null}"#),
        (
            Request::Read(ReadRequest {
                offset: Some(40),
                ..read("a.txt")
            }),
            vec!["`offset` was the string \"40\"; it was read as the number 40. Send numbers as JSON numbers."
                .to_string()]
        )
    );
    assert_eq!(
        noted(r#"{"path":"nb.ipynb","extract":"false"}"#),
        (
            Request::Read(ReadRequest {
                extract: Some(false),
                ..read("nb.ipynb")
            }),
            vec!["`extract` was the string \"false\"; it was read as the boolean false. Send booleans as JSON true or false."
                .to_string()]
        )
    );
    assert_eq!(
        noted(r#"{"path":"nb.ipynb","extract":""}"#).0,
        Request::Read(read("nb.ipynb"))
    );
}

#[test]
fn refuses_malformed_requests_naming_the_field() {
    assert!(invalid("{").contains("not valid JSON"));
    // A key given twice is refused, not settled by the last one (serde_json's way).
    assert_eq!(
        invalid(r#"{"op":"configure","max_lines":5,"max_lines":10}"#),
        "the request is not valid JSON: the key `max_lines` is given twice at line 1 column 43"
    );
    assert_eq!(
        invalid(r#"{"path":"a","extract":"no"}"#),
        "`extract` must be true or false, as a JSON boolean, not the string \"no\""
    );
    assert!(invalid("[1]").contains("JSON object"));
    assert_eq!(
        invalid(r#"{"op":"fly"}"#),
        "unknown `op` \"fly\": expected one of read, read_once, other_tool, reset_dedup, wrote, check_write, \
         report_tokens, token_refusal, stats, config, configure, tools, tool_call, mcp_server, mcp_roots, options, read_many, \
         search, capture_begin, capture_chunk, capture_end"
    );
    assert_eq!(
        invalid(r#"{"op":3}"#),
        "`op` must be a string, not a number"
    );
    assert_eq!(
        invalid(r#"{"op":"read"}"#),
        "`path` is missing: the `read` op needs a `path` (a string)"
    );
    assert!(invalid(r#"{"path":"a","offset":-1}"#).contains("`offset` must not be negative"));
    assert!(invalid(r#"{"path":"a","limit":1.5}"#).contains("`limit` must be an integer"));
    assert!(invalid(r#"{"path":"a","column":18446744073709551616}"#).contains("`column` is beyond"));
    assert_eq!(
        invalid(r#"{"path":"a","offset":"3a"}"#),
        "`offset` must be a line number from 1 (0 is read as 1) up to the file's line count, as a JSON number; got the string \"3a\""
    );
    assert_eq!(
        invalid(r#"{"path":"a","tail":4294967296}"#),
        "`tail` must be a count of last lines from 1 to 4294967295 (got 4294967296)"
    );
    assert!(
        invalid(r#"{"op":"report_tokens","path":"a","offset":1,"lines":2}"#)
            .contains("`tokens` is missing")
    );
    assert_eq!(
        invalid(r#"{"op":"capture_chunk","text":"a","base64":"YQ=="}"#),
        "give `text` or `base64`, not both"
    );
    assert!(invalid(r#"{"op":"capture_chunk","base64":"*"}"#)
        .starts_with("`base64` is not valid base64"));
    assert_eq!(
        invalid(r#"{"op":"capture_end","exit_status":4294967296}"#),
        "`exit_status` must be a 32-bit integer, not 4294967296"
    );
    assert_eq!(
        invalid(r#"{"op":"tool_call","name":"read_file","arguments":[]}"#),
        "`arguments` must be an object, not an array"
    );
}
