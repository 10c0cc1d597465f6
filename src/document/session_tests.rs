//! Native tests of documents read through a session (windows, cursors, hints, changes, errors, `check_write`), of
//! the hints of their facts, and of a scenario run natively.

use std::path::PathBuf;

use super::samples;
use super::tests::{docx_of, extracted};
use super::*;
use crate::config::ConfigInput;
use crate::error::ErrorKind;
use crate::native_fs::NativeFileSystem;
use crate::read::{ReadOutcome, ReadRequest, ReadResult, Reader};

fn session(files: &[(&str, Vec<u8>)]) -> (tempfile::TempDir, NativeFileSystem, Reader) {
    let directory = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        std::fs::write(directory.path().join(name), bytes).unwrap();
    }
    let fs = NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]);
    (directory, fs, Reader::new(ConfigInput::default()))
}

fn window(
    reader: &mut Reader,
    fs: &mut NativeFileSystem,
    path: &str,
    offset: u64,
    limit: u64,
) -> ReadResult {
    let request = ReadRequest {
        path: path.to_string(),
        offset: Some(offset),
        limit: Some(limit),
        ..ReadRequest::default()
    };
    match reader.read(fs, &request, 0) {
        Ok(ReadOutcome::Window(result)) => result,
        other => panic!("expected a window, got {other:?}"),
    }
}

#[test]
fn a_deck_is_paged_through_its_cursors_with_every_line_once() {
    let (_dir, mut fs, mut reader) = session(&[("deck.pptx", samples::pptx())]);
    let mut lines = Vec::new();
    let mut offset = 1;
    loop {
        let result = window(&mut reader, &mut fs, "deck.pptx", offset, 3);
        assert_eq!(result.window.total_lines, 7);
        let facts = result.document.as_ref().expect("document facts");
        assert_eq!(facts.format, DocumentFormat::Pptx);
        assert_eq!(facts.parts.len(), 2);
        for line in result.window.content.lines() {
            lines.push(
                line.split_once('|')
                    .map(|(_, text)| text.to_string())
                    .unwrap(),
            );
        }
        match result.window.next_offset {
            Some(next) => offset = next,
            None => break,
        }
    }
    let expected: Vec<&str> = samples::PPTX_TEXT.lines().collect();
    assert_eq!(lines, expected);
}

#[test]
fn the_hint_says_where_the_next_part_starts() {
    let (_dir, mut fs, mut reader) = session(&[("deck.pptx", samples::pptx())]);
    let result = window(&mut reader, &mut fs, "deck.pptx", 1, 3);
    assert!(
        result.hint.ends_with(" This is the text extracted from a pptx document of 2 slides; this window is in slide 1; slide 2 starts at line 6 (offset=6). Where each slide starts: 1 at line 1, 2 at line 6."),
        "{}",
        result.hint
    );
    assert_eq!(result.file_size, samples::pptx().len() as u64);
}

/// A PDF of `pages` pages of 10 lines each (a marker and 9 lines of text), `empty` of them with no text.
fn pdf_facts(pages: u32, empty: &[u32]) -> DocumentFacts {
    let parts = (1..=pages)
        .map(|number| DocumentPart {
            kind: PartKind::Page,
            number,
            name: None,
            first_line: u64::from(number - 1) * 10 + 1,
            characters: if empty.contains(&number) { 0 } else { 400 },
            not_extracted: false,
        })
        .collect();
    let document = ExtractedDocument {
        format: DocumentFormat::Pdf,
        text: String::new(),
        parts,
    };
    DocumentFacts::of(&document, "/w/report.pdf")
}

#[test]
fn the_hint_maps_every_part_of_a_short_document_and_reaches_across_a_long_one() {
    assert_eq!(
        [2, 3, 5, 11, 12, 21, 112, 150].map(super::ordinal),
        ["2nd", "3rd", "5th", "11th", "12th", "21st", "112th", "150th"].map(String::from)
    );
    let short = pdf_facts(3, &[]);
    assert_eq!(
        short.hint_clause(1, 10, 400),
        " This is the text extracted from a pdf document of 3 pages; this window is in page 1; page 2 starts at line 11 (offset=11). Where each page starts: 1 at line 1, 2 at line 11, 3 at line 21."
    );
    let long = pdf_facts(100, &[]);
    let clause = long.hint_clause(395, 420, 100_000);
    let line = |page: u32| format!("{page} at line {}", (page - 1) * 10 + 1);
    let near: Vec<String> = (40..60).map(line).collect();
    let far: Vec<String> = [
        5, 10, 15, 20, 25, 30, 35, 60, 65, 70, 75, 80, 85, 90, 95, 100,
    ]
    .into_iter()
    .map(line)
    .collect();
    assert_eq!(
        clause,
        format!(
            " This is the text extracted from a pdf document of 100 pages; this window holds pages 40-42; page 43 starts at line 421 (offset=421). Where each page starts: {}; and every 5th: {} (each page opens with its marker line: --- page N of 100 ---).",
            near.join(", "),
            far.join(", ")
        )
    );
}

#[test]
fn a_short_window_of_a_long_document_says_where_the_map_is_instead_of_repeating_it() {
    let long = pdf_facts(100, &[]);
    // Five lines of page 40: the map of 36 pages would be longer than the window.
    assert_eq!(
        long.hint_clause(395, 399, 300),
        " This is the text extracted from a pdf document of 100 pages; this window is in page 40; page 41 starts at line 401 (offset=401). Where each page starts is in the hint of the first window: read offset=1 limit=1 for the map."
    );
    // The first window carries the map however short it is.
    assert!(long
        .hint_clause(1, 5, 300)
        .contains("Where each page starts: 1 at line 1, 2 at line 11,"));
    // A window ten times the map's length carries it too.
    assert!(long
        .hint_clause(395, 420, 100_000)
        .contains("Where each page starts: 40 at line 391,"));
}

#[test]
fn a_page_with_no_text_is_named_even_under_the_warning_threshold() {
    // 1 empty page of 30 is under the coverage warning's threshold (2 pages and 10%): no warning, but a note.
    let one = pdf_facts(30, &[7]);
    assert_eq!(one.warning, None);
    assert_eq!(one.empty_pages, vec![(7, 7)]);
    assert!(one.hint_clause(1, 10, 400).ends_with(
        " Page 7 has little or no text (under 20 characters extracted): if it should hold more, look at it rendered."
    ));
    let two = pdf_facts(30, &[7, 20]);
    assert_eq!(two.warning, None);
    assert!(two.hint_clause(1, 10, 400).ends_with(
        " Pages 7, 20 have little or no text (under 20 characters extracted): if they should hold more, look at them rendered."
    ));
}

#[test]
fn a_document_replaced_under_the_same_size_and_time_is_extracted_again() {
    let contract = |amount: &str| {
        docx_of(
            &format!("<w:p><w:r><w:t>Contract amount: {amount} dollars</w:t></w:r></w:p>"),
            &[],
        )
    };
    let (first, second) = (contract("1000"), contract("9999"));
    assert_eq!(first.len(), second.len());
    let (dir, mut fs, mut reader) = session(&[("contract.docx", first)]);
    let path = dir.path().join("contract.docx");
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    let before = window(&mut reader, &mut fs, "contract.docx", 1, 10);
    assert_eq!(before.window.content, "1|Contract amount: 1000 dollars\n");
    std::fs::write(&path, second).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(modified).unwrap();
    drop(file);
    let after = window(&mut reader, &mut fs, "contract.docx", 1, 10);
    assert_eq!(after.window.content, "1|Contract amount: 9999 dollars\n");
}

#[test]
fn document_errors_are_typed_read_errors() {
    let (_dir, mut fs, mut reader) = session(&[
        ("bomb.docx", samples::zip_bomb()),
        ("notes.docx", b"plain notes\n".to_vec()),
        ("old.doc", b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest".to_vec()),
    ]);
    let kind = |reader: &mut Reader, fs: &mut NativeFileSystem, path: &str| {
        let request = ReadRequest {
            path: path.to_string(),
            ..ReadRequest::default()
        };
        reader.read(fs, &request, 0).expect_err("refused").kind
    };
    assert_eq!(kind(&mut reader, &mut fs, "bomb.docx"), ErrorKind::TooLarge);
    assert_eq!(
        kind(&mut reader, &mut fs, "notes.docx"),
        ErrorKind::MalformedDocument
    );
    assert_eq!(kind(&mut reader, &mut fs, "old.doc"), ErrorKind::Binary);
}

#[test]
fn check_write_refuses_text_over_every_container_kind() {
    let (_dir, mut fs, mut reader) = session(&[
        ("report.docx", samples::docx()),
        ("scan.pdf", b"%PDF-1.7\n%...".to_vec()),
        ("old.xls", b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest".to_vec()),
        ("notes.docx", b"plain notes\n".to_vec()),
        ("notes.txt", b"plain notes\n".to_vec()),
    ]);
    for path in ["report.docx", "scan.pdf", "old.xls"] {
        let error = reader
            .check_write(&mut fs, path, "# Report\n")
            .expect_err(path);
        assert_eq!(error.kind, ErrorKind::BinaryDocument, "{path}");
        assert!(
            error.message.contains("is an extraction"),
            "{}",
            error.message
        );
    }
    for path in ["notes.docx", "notes.txt", "new.docx"] {
        assert!(
            reader.check_write(&mut fs, path, "text\n").is_ok(),
            "{path}"
        );
    }
}

#[test]
fn check_write_refuses_notebook_json_whose_cells_hold_returned_gutter_lines() {
    let (_dir, mut fs, mut reader) = session(&[("analysis.ipynb", samples::ipynb())]);
    let shown = window(&mut reader, &mut fs, "analysis.ipynb", 1, 20);
    assert!(
        shown.window.content.contains("5|print('hi')\n6|plot()\n"),
        "{}",
        shown.window.content
    );
    let with_cell_2 = |source: serde_json::Value| {
        let mut notebook: serde_json::Value = serde_json::from_slice(&samples::ipynb()).unwrap();
        notebook["cells"][1]["source"] = source;
        notebook.to_string()
    };
    // The notebook's own JSON, and JSON whose lines only look numbered, pass.
    let clean = String::from_utf8(samples::ipynb()).unwrap();
    assert!(reader
        .check_write(&mut fs, "analysis.ipynb", &clean)
        .is_ok());
    let numbered = with_cell_2(serde_json::json!(["1|Alice|30\n", "2|Bob|25"]));
    assert!(reader
        .check_write(&mut fs, "analysis.ipynb", &numbered)
        .is_ok());
    // The cell's source pasted back with its gutters, as a list of lines or as one string, to the notebook or a
    // new one.
    for (path, source) in [
        (
            "analysis.ipynb",
            serde_json::json!(["5|print('hi')\n", "6|plot()"]),
        ),
        ("copy.ipynb", serde_json::json!("5|print('hi')\n6|plot()\n")),
    ] {
        let error = reader
            .check_write(&mut fs, path, &with_cell_2(source))
            .expect_err(path);
        assert_eq!(error.kind, ErrorKind::EchoedOutput);
        assert_eq!(
            error.message,
            format!("Lines 1-2 of cell 2 in the notebook JSON for {path} are lines this session returned with their `N|` line numbers (the first is `5|print('hi')`); writing them would put the gutters into the cell. Write the cell's source without the `N|` prefixes.")
        );
    }
}

/// Whether `answer` matches `expect` as the scenario runners match (`tests/scenarios/README.md`): an object names
/// keys to check, `{"$absent": true}` a key the answer lacks, and anything else an equal value.
fn matches_expectation(expect: &serde_json::Value, answer: Option<&serde_json::Value>) -> bool {
    use serde_json::Value;
    match expect {
        Value::Object(fields) if fields.contains_key("$absent") => {
            answer.is_none() == (fields.get("$absent") == Some(&Value::Bool(true)))
        }
        Value::Object(fields) => fields
            .iter()
            .all(|(key, value)| matches_expectation(value, answer.and_then(|a| a.get(key)))),
        Value::Array(items) => answer.and_then(Value::as_array).is_some_and(|answers| {
            answers.len() == items.len()
                && items
                    .iter()
                    .zip(answers)
                    .all(|(item, answer)| matches_expectation(item, Some(answer)))
        }),
        other => answer == Some(other),
    }
}

/// The scenario `changes/a_notebook_read_as_text_then_as_json_is_no_change` run natively, step by step, through a
/// protocol session at `/scenario` (its files and `write_file` contents are text): every answer matches what the
/// scenario expects, so its expectations are what the component answers.
#[test]
fn a_notebook_read_as_text_then_as_json_is_no_change_as_its_scenario_says() {
    use crate::protocol::{Environment, ProtocolSession};
    let scenario: serde_json::Value = serde_json::from_str(include_str!(
        "../../tests/scenarios/changes/a_notebook_read_as_text_then_as_json_is_no_change.json"
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in scenario["files"].as_object().unwrap() {
        std::fs::write(dir.path().join(name), text.as_str().unwrap()).unwrap();
    }
    let fs = NativeFileSystem::mount(&[(dir.path().to_path_buf(), "/scenario".to_string())]);
    let environment = Environment {
        now_ms: || 0,
        memory_bytes: || 4096,
    };
    let mut session = ProtocolSession::new(fs, "", Vec::new(), environment);
    let mut reads = 0;
    for step in scenario["steps"].as_array().unwrap() {
        let mut request = step.clone();
        let expect = request.as_object_mut().unwrap().remove("expect");
        if request["op"] == "write_file" {
            let path = dir.path().join(request["path"].as_str().unwrap());
            std::fs::write(path, request["content"].as_str().unwrap()).unwrap();
            continue;
        }
        let answer: serde_json::Value =
            serde_json::from_str(&session.answer(&request.to_string())).unwrap();
        let expect = expect.unwrap();
        assert!(
            matches_expectation(&expect, Some(&answer)),
            "{request}\nexpected {expect}\nanswered {answer}"
        );
        reads += 1;
    }
    assert_eq!(reads, 6);
}

/// A notebook of one code cell (`x = {n}`, `print(x)`, its output `{n}`) written as JSON of 8 lines.
fn one_cell_notebook(n: u32) -> Vec<u8> {
    format!(
        "{{\n \"nbformat\": 4,\n \"nbformat_minor\": 5,\n \"metadata\": {{}},\n \"cells\": [\n  {{\"cell_type\": \"code\", \"execution_count\": 1, \"metadata\": {{}}, \"source\": \"x = {n}\\nprint(x)\", \"outputs\": [{{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"{n}\\n\"]}}]}}\n ]\n}}\n"
    )
    .into_bytes()
}

#[test]
fn a_notebooks_text_and_its_json_are_two_views_each_compared_with_itself() {
    let (dir, mut fs, mut reader) = session(&[("nb.ipynb", one_cell_notebook(1))]);
    let mut read = |reader: &mut Reader, extract: Option<bool>| {
        let request = ReadRequest {
            path: "nb.ipynb".to_string(),
            limit: Some(3),
            extract,
            ..ReadRequest::default()
        };
        reader.read(&mut fs, &request, 0).unwrap()
    };
    let window = |outcome: ReadOutcome| match outcome {
        ReadOutcome::Window(result) => (result.window.content, result.warnings),
        other => panic!("expected a window, got {other:?}"),
    };
    let stub = |outcome: ReadOutcome| match outcome {
        ReadOutcome::Unchanged(stub) => stub.message,
        other => panic!("expected a stub, got {other:?}"),
    };
    let text = "1|# [cell 1] code (execution 1)\n2|x = 1\n3|print(x)\n";
    let json = "1|{\n2| \"nbformat\": 4,\n3| \"nbformat_minor\": 5,\n";
    // Back and forth between the views of the untouched file: no notice, and each repeat is a stub of its view.
    assert_eq!(window(read(&mut reader, None)), (text.to_string(), vec![]));
    assert_eq!(
        window(read(&mut reader, Some(false))),
        (json.to_string(), vec![])
    );
    let unchanged = |total: u64| {
        format!("[read-window: unchanged] Lines 1-3 of {total} in /w/nb.ipynb have not changed since you read them earlier in this session; that result is still current, so it is not sent again (if it is no longer in your context, repeat this call with fresh=true). Use offset=4 to continue.")
    };
    assert_eq!(stub(read(&mut reader, None)), unchanged(5));
    assert_eq!(stub(read(&mut reader, Some(false))), unchanged(8));
    // Each view keeps its own index.
    assert_eq!(
        reader
            .stats(&mut NativeFileSystem::mount(&[]))
            .indexed_files,
        2
    );
    // A real change is told once in each view, in that view's lines.
    std::fs::write(dir.path().join("nb.ipynb"), one_cell_notebook(2)).unwrap();
    let changed = |from: &str, total: u64, unchanged: &str| {
        format!("[read-window: file changed] /w/nb.ipynb changed since your previous read of it in this session: the first changed line is {from} (it now has {total} lines); {unchanged}. Windows of it you read earlier are stale from line {from} on: their line numbers and content may no longer match the file.")
    };
    assert_eq!(
        window(read(&mut reader, None)),
        (
            text.replace("x = 1", "x = 2"),
            vec![changed("2", 5, "line 1 is unchanged")]
        )
    );
    assert_eq!(
        stub(read(&mut reader, Some(false))),
        format!(
            "{} {}",
            unchanged(8),
            changed("6", 8, "lines 1-5 are unchanged")
        )
    );
    assert_eq!(stub(read(&mut reader, None)), unchanged(5));
    assert_eq!(stub(read(&mut reader, Some(false))), unchanged(8));
}

#[test]
fn the_hint_names_each_kinds_marker_line_as_the_text_writes_it() {
    let pdf = super::fixtures::pdf(&[
        super::fixtures::PdfPage::Text(vec!["One".to_string()]),
        super::fixtures::PdfPage::Text(vec!["Two".to_string()]),
    ]);
    for (bytes, name) in [
        (pdf, "a.pdf"),
        (samples::pptx(), "deck.pptx"),
        (samples::odp(), "deck.odp"),
        (super::fixtures::xlsx_two_sheets(), "book.xlsx"),
        (samples::ipynb(), "analysis.ipynb"),
        (samples::epub(), "book.epub"),
    ] {
        let document = extracted(&bytes, name);
        let lines: Vec<&str> = document.text.lines().collect();
        assert!(!document.parts.is_empty(), "{name}");
        for part in &document.parts {
            let (shape, whole) = super::facts::marker_shape(part.kind, document.parts.len());
            let shape = shape.replace('N', &part.number.to_string());
            let line = lines[part.first_line as usize - 1];
            assert!(
                if whole {
                    line == shape
                } else {
                    line.starts_with(&shape)
                },
                "{name}: {line:?} is not {shape:?}"
            );
        }
    }
    // A notebook of 40 cells: the hint says how a cell's marker line starts.
    let cells: Vec<serde_json::Value> = (1..=40)
        .map(|n| serde_json::json!({"cell_type": "code", "execution_count": n, "metadata": {}, "source": format!("x = {n}"), "outputs": []}))
        .collect();
    let notebook =
        serde_json::json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells});
    let document = extracted(notebook.to_string().as_bytes(), "many.ipynb");
    let clause = DocumentFacts::of(&document, "/w/many.ipynb").hint_clause(1, 2, 100);
    assert!(
        clause.ends_with(" (each cell opens with its marker line, which starts # [cell N])."),
        "{clause}"
    );
}

#[test]
fn a_plain_zip_over_the_entry_cap_is_an_archive_not_a_document() {
    // A `.jar` of 10,001 entries (over the cap of 10,000 entries for documents): an archive to list.
    let names: Vec<String> = (0..=10_000).map(|n| format!("pkg/C{n}.class")).collect();
    let parts: Vec<(&str, &[u8])> = names
        .iter()
        .map(|name| (name.as_str(), &b"x"[..]))
        .collect();
    let (_dir, mut fs, mut reader) = session(&[("lib.jar", super::fixtures::zip_parts(&parts))]);
    let request = ReadRequest {
        path: "lib.jar".to_string(),
        ..ReadRequest::default()
    };
    let error = reader.read(&mut fs, &request, 0).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Binary);
    assert!(error.message.contains("unzip -l"), "{}", error.message);
}
