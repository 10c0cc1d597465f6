//! `read`: one stateless window, as text or JSON: a `read_once` line through the component's protocol.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use read_window::CONFIG_WARNING_PREFIX;
use read_window_host::timings;
use read_window_host::{Config, Grants, PixelRegion, ReadRequest, ReadWindow, SessionLimits};
use serde_json::{json, Map, Value};

use crate::failure::{host_error_answers, Failure};

/// `read`: one stateless window. With `as_json` the component's answer is printed as it is; else its `text`
/// (config warnings to stderr). An image's picture is written to `out` when given (else stderr says how). Exit 1
/// for a read error, whose text is still what the model should see.
pub(crate) fn read(
    reader: &ReadWindow,
    grants: &Grants,
    config: &Config,
    request: &ReadRequest,
    out: Option<&Path>,
    as_json: bool,
) -> Result<ExitCode, Failure> {
    let (answer, value) = match answer_once(
        reader,
        grants,
        config,
        &request_line("read_once", request).to_string(),
        as_json,
    )? {
        Answered::Answer(answer, value) => (answer, value),
        Answered::Printed(code) => return Ok(code),
    };
    write_image(&value, out, as_json)?;
    print_answer(&answer, &value, as_json)
}

/// What [`answer_once`] did: the answer's JSON line and its value, or (a host failure with `--json`) printed it
/// already, with the exit code.
pub(crate) enum Answered {
    /// The answer line and its parsed value, not yet printed.
    Answer(String, Value),
    /// The host failure was printed as JSON answers; exit with this code.
    Printed(ExitCode),
}

/// Answers the protocol request `line` in a session of its own, dropped before the answer is printed.
pub(crate) fn answer_once(
    reader: &ReadWindow,
    grants: &Grants,
    config: &Config,
    line: &str,
    as_json: bool,
) -> Result<Answered, Failure> {
    let mut session = match reader.protocol_session(grants, config, SessionLimits::default()) {
        Ok(session) => session,
        // With --json a host failure is still one JSON object on stdout (`host_error`), then exit 1.
        Err(host) if as_json => return host_error_answers(&host, 1).map(Answered::Printed),
        Err(host) => return Err(host.into()),
    };
    let answer = session.answer(line);
    drop(session);
    timings::mark("drop_store");
    let value = parse_answer(&answer)?;
    Ok(Answered::Answer(answer, value))
}

/// Prints an answer: its `text` (config warnings to stderr), or with `as_json` the JSON line as it is. Exit 1
/// for an error answer.
pub(crate) fn print_answer(
    answer: &str,
    value: &Value,
    as_json: bool,
) -> Result<ExitCode, Failure> {
    let mut stdout = io::stdout().lock();
    if as_json {
        writeln!(stdout, "{answer}")?;
    } else {
        write_text(&mut stdout, value)?;
    }
    stdout.flush()?;
    timings::mark("print");
    Ok(if value["status"] == "ok" {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The protocol line of `op` (`read` or `read_once`) for `request`: its fields, the absent ones left out.
pub(crate) fn request_line(op: &str, request: &ReadRequest) -> Value {
    let mut line = Map::new();
    line.insert("op".into(), json!(op));
    line.insert("path".into(), json!(request.path));
    let numbers = [
        ("offset", request.offset),
        ("limit", request.limit),
        ("column", request.column),
        ("tail", request.tail.map(u64::from)),
    ];
    for (field, value) in numbers {
        if let Some(value) = value {
            line.insert(field.into(), json!(value));
        }
    }
    if let Some(depth) = request.depth {
        line.insert("depth".into(), json!(depth));
    }
    if let Some(extract) = request.extract {
        line.insert("extract".into(), json!(extract));
    }
    if let Some(region) = &request.region {
        line.insert(
            "region".into(),
            json!({"x": region.x, "y": region.y, "width": region.width, "height": region.height}),
        );
    }
    Value::Object(line)
}

/// `--region X,Y,W,H`: four whole numbers, in original pixels.
pub(crate) fn parse_region(text: &str) -> Result<PixelRegion, String> {
    let numbers: Option<Vec<u32>> = text
        .split(',')
        .map(|part| part.trim().parse::<u32>().ok())
        .collect();
    match numbers.as_deref() {
        Some(&[x, y, width, height]) => Ok(PixelRegion {
            x,
            y,
            width,
            height,
        }),
        _ => Err(format!(
            "{text:?} is not a region: give X,Y,W,H, four whole numbers in original pixels (0,0,1200,800)"
        )),
    }
}

/// Writes the picture of an image answer (its base64 `data`) to `out`; without `out` (and without `--json`, whose
/// answer carries the data), says on stderr how to get it. For any other answer `out` is left alone, and stderr
/// says so.
fn write_image(answer: &Value, out: Option<&Path>, as_json: bool) -> Result<(), Failure> {
    use base64::Engine as _;
    let Some(data) = answer["data"].as_str() else {
        if let Some(path) = out {
            eprintln!(
                "read-window: --out {}: nothing written, the answer is not an image",
                path.display()
            );
        }
        return Ok(());
    };
    let Some(path) = out else {
        if !as_json {
            eprintln!("read-window: the image is not printed: pass --out FILE to write it");
        }
        return Ok(());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| Failure::Host(format!("the component's image data is not base64 ({e})")))?;
    std::fs::write(path, bytes).map_err(|e| {
        Failure::Usage(format!(
            "--out {}: cannot write the image ({e})",
            path.display()
        ))
    })
}

/// An answer line of the component as JSON. Errors: a line that is not JSON, a fault of the host or component.
pub(crate) fn parse_answer(answer: &str) -> Result<Value, Failure> {
    serde_json::from_str(answer).map_err(|e| {
        Failure::Host(format!(
            "the component's answer is not JSON ({e}): {answer}"
        ))
    })
}

/// An answer as text: its `text` (a window's content, a blank line, the hint and the warnings for the model, or
/// an error's message) and a line feed. Warnings about the config are for whoever runs the CLI, not the model:
/// they go to stderr.
pub(crate) fn write_text(out: &mut impl Write, answer: &Value) -> io::Result<()> {
    let warnings = answer["warnings"].as_array().map(Vec::as_slice);
    for warning in warnings
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_str)
    {
        if warning.starts_with(CONFIG_WARNING_PREFIX) {
            eprintln!("read-window: warning: {warning}");
        }
    }
    writeln!(out, "{}", answer["text"].as_str().unwrap_or_default())
}
