//! Native tests of the extractors (text formats and bad containers) and of documents read through a session.

use std::path::PathBuf;

use super::samples;
use super::*;
use crate::config::ConfigInput;
use crate::error::ErrorKind;
use crate::native_fs::NativeFileSystem;
use crate::reader::{ReadOutcome, ReadRequest, ReadResult, Reader};

fn extracted(bytes: &[u8], name: &str) -> ExtractedDocument {
    extract(bytes, name, &ExtractionLimits::default())
        .expect("extracts")
        .expect("is a document")
}

fn refused(bytes: &[u8], name: &str) -> DocumentError {
    extract(bytes, name, &ExtractionLimits::default()).expect_err("is refused")
}

#[test]
fn docx_has_headings_lists_a_table_in_place_footnotes_and_comments() {
    let document = extracted(&samples::docx(), "report.docx");
    assert_eq!(document.format, DocumentFormat::Docx);
    assert_eq!(document.text, samples::DOCX_TEXT);
    assert!(document.parts.is_empty());
}

#[test]
fn odt_reads_like_docx() {
    let document = extracted(&samples::odt(), "plan.odt");
    assert_eq!(document.format, DocumentFormat::Odt);
    assert_eq!(document.text, samples::ODT_TEXT);
}

#[test]
fn pptx_slides_come_in_presentation_order_with_titles_and_notes() {
    let document = extracted(&samples::pptx(), "deck.pptx");
    assert_eq!(document.text, samples::PPTX_TEXT);
    let starts: Vec<(u32, u64, Option<String>)> = document
        .parts
        .iter()
        .map(|part| (part.number, part.first_line, part.name.clone()))
        .collect();
    assert_eq!(
        starts,
        vec![(1, 1, Some("Quarterly results".to_string())), (2, 6, None)]
    );
}

#[test]
fn odp_slides_have_titles_and_notes() {
    let document = extracted(&samples::odp(), "deck.odp");
    assert_eq!(document.format, DocumentFormat::Odp);
    assert_eq!(document.text, samples::ODP_TEXT);
}

#[test]
fn epub_chapters_follow_the_spine() {
    let document = extracted(&samples::epub(), "book.epub");
    assert_eq!(document.text, samples::EPUB_TEXT);
    let starts: Vec<(PartKind, u64)> = document
        .parts
        .iter()
        .map(|p| (p.kind, p.first_line))
        .collect();
    assert_eq!(starts, vec![(PartKind::Chapter, 1), (PartKind::Chapter, 6)]);
}

#[test]
fn notebook_outputs_are_text_and_images_are_one_line() {
    let document = extracted(&samples::ipynb(), "analysis.ipynb");
    assert_eq!(document.text, samples::IPYNB_TEXT);
    let starts: Vec<u64> = document.parts.iter().map(|p| p.first_line).collect();
    assert_eq!(starts, vec![1, 4, 12]);
    // Detected by content too: the same notebook named .json.
    assert_eq!(
        extracted(&samples::ipynb(), "analysis.json").format,
        DocumentFormat::Ipynb
    );
}

#[test]
fn json_that_is_no_notebook_is_read_as_a_file() {
    let limits = ExtractionLimits::default();
    assert_eq!(extract(br#"{"cells": 1}"#, "data.json", &limits), Ok(None));
    assert_eq!(
        extract(&samples::plain_zip(), "files.zip", &limits),
        Ok(None)
    );
}

#[test]
fn a_zip_bomb_is_too_large_before_it_is_inflated() {
    let started = std::time::Instant::now();
    let error = refused(&samples::zip_bomb(), "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::TooLarge);
    assert!(
        error.message.contains("over the cap of 100"),
        "{}",
        error.message
    );
    assert!(started.elapsed().as_secs() < 1);
}

#[test]
fn entry_count_and_total_size_caps_are_named() {
    let limits = ExtractionLimits {
        max_entries: 2,
        ..ExtractionLimits::default()
    };
    let error = check_zip(&samples::docx(), &limits).expect_err("4 entries");
    assert_eq!(error.kind, DocumentErrorKind::TooLarge);
    assert_eq!(
        error.message,
        "the zip holds 4 entries, over the cap of 2 entries"
    );
    let limits = ExtractionLimits {
        max_total_uncompressed: 100,
        ..ExtractionLimits::default()
    };
    let error = check_zip(&samples::docx(), &limits).expect_err("over 100 bytes");
    assert!(
        error.message.contains("more than 100 bytes"),
        "{}",
        error.message
    );
}

#[test]
fn read_zip_entry_stops_at_the_cap_whatever_the_declared_size() {
    let bytes = samples::zip_bomb();
    let mut archive = open_zip(&bytes).unwrap();
    let limits = ExtractionLimits {
        max_total_uncompressed: 1_000,
        ..ExtractionLimits::default()
    };
    let error = read_zip_entry(&mut archive, "word/document.xml", &limits).expect_err("capped");
    assert_eq!(error.kind, DocumentErrorKind::TooLarge);
    assert_eq!(
        read_zip_entry(&mut archive, "missing.xml", &limits),
        Ok(None)
    );
}

#[test]
fn a_docx_that_is_not_one_is_reported_for_what_it_is() {
    let error = refused(b"just some notes\n", "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::Malformed);
    assert_eq!(
        error.message,
        "report.docx is named as a Word document (.docx) but its content is plain text, not a Word document"
    );
    let error = refused(&samples::plain_zip(), "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::Malformed);
    assert!(
        error.message.contains("word/document.xml"),
        "{}",
        error.message
    );
    let error = refused(&samples::corrupt_docx(), "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::Malformed);
    assert!(
        error.message.contains("word/document.xml"),
        "{}",
        error.message
    );
    let error = refused(b"PK\x03\x04garbage", "report.docx");
    assert_eq!(error.kind, DocumentErrorKind::Malformed);
}

#[test]
fn legacy_doc_and_ppt_are_refused_by_name() {
    let ole = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest";
    let error = refused(ole, "old.doc");
    assert_eq!(error.kind, DocumentErrorKind::Unsupported);
    assert!(error
        .message
        .contains("legacy Word 97-2003 document (.doc)"));
    assert!(refused(ole, "old.ppt").message.contains(".ppt"));
}

#[test]
fn coverage_warning_names_each_empty_range_with_the_text_before_it() {
    let mut out = TextBuilder::new();
    for page in 1..=12u32 {
        out.begin_part(
            PartKind::Page,
            page,
            None,
            &format!("--- page {page} of 12 ---"),
        );
        if !(4..=9).contains(&page) {
            out.line(&format!("Page {page} has a full line of real text on it."));
        }
    }
    let document = out.finish(DocumentFormat::Pdf);
    assert_eq!(empty_page_ranges(&document), vec![(4, 9)]);
    let facts = DocumentFacts::of(&document, "/w/scan.pdf");
    assert_eq!(facts.pages, Some(12));
    assert_eq!(
        facts.warning.as_deref(),
        Some("[read-window: no text layer] 6 of the 12 pages of /w/scan.pdf have no extractable text (under 20 characters each): pages 4-9 (after \"Page 3 has a full line of real text on it.\"). Their text layer is missing (scanned or image-only pages), so this extraction does not hold what they show. Render those pages as images and look at them before relying on this document.")
    );
    // One empty page of 12 is no warning.
    let mut out = TextBuilder::new();
    for page in 1..=12u32 {
        out.begin_part(
            PartKind::Page,
            page,
            None,
            &format!("--- page {page} of 12 ---"),
        );
        if page != 5 {
            out.line("Enough text on this page to count.");
        }
    }
    assert_eq!(
        coverage_warning(&out.finish(DocumentFormat::Pdf), "x.pdf"),
        None
    );
}

#[test]
fn the_cache_keeps_one_version_per_path_and_evicts_the_oldest() {
    let mut cache = DocumentCache::new();
    let document = std::sync::Arc::new(extracted(&samples::pptx(), "a.pptx"));
    for index in 0..(MAX_CACHED_DOCUMENTS + 2) {
        cache.put(&format!("/w/{index}.pptx"), (1, None), Ok(document.clone()));
    }
    assert_eq!(cache.len(), MAX_CACHED_DOCUMENTS);
    assert!(cache.get("/w/0.pptx", (1, None)).is_none());
    assert!(cache.get("/w/9.pptx", (1, None)).is_some());
    assert!(cache.get("/w/9.pptx", (2, None)).is_none());
    cache.put("/w/9.pptx", (2, None), Ok(document));
    assert!(cache.get("/w/9.pptx", (1, None)).is_none());
}

fn session(files: &[(&str, Vec<u8>)]) -> (tempfile::TempDir, NativeFileSystem, Reader) {
    let directory = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        std::fs::write(directory.path().join(name), bytes).unwrap();
    }
    let fs = NativeFileSystem::new(&[(PathBuf::from(directory.path()), "/w".to_string())]);
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
        result.hint.ends_with(" This is the text extracted from a pptx document of 2 slides; this window is in slide 1; slide 2 starts at line 6 (offset=6). document.parts gives the first line of every slide."),
        "{}",
        result.hint
    );
    assert_eq!(result.file_size, samples::pptx().len() as u64);
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
    let (_dir, mut fs, reader) = session(&[
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

/// Writes the samples to the directory named by `READ_WINDOW_DUMP_SAMPLES` (when set): the base64 fixtures of
/// `tests/scenarios/documents/` were made from them.
#[test]
fn dump_samples_for_scenarios() {
    let Ok(dir) = std::env::var("READ_WINDOW_DUMP_SAMPLES") else {
        return;
    };
    for (name, bytes) in [
        ("report.docx", samples::docx()),
        ("plan.odt", samples::odt()),
        ("deck.pptx", samples::pptx()),
        ("deck.odp", samples::odp()),
        ("book.epub", samples::epub()),
        ("bomb.docx", samples::zip_bomb()),
        ("corrupt.docx", samples::corrupt_docx()),
    ] {
        std::fs::write(format!("{dir}/{name}"), bytes).unwrap();
    }
    // A 100-page text PDF, for timing extraction and paging.
    let pages: Vec<super::fixtures::PdfPage> = (1..=100)
        .map(|page| {
            super::fixtures::PdfPage::Text(
                (1..=40)
                    .map(|line| format!("Page {page} line {line} of the report text"))
                    .collect(),
            )
        })
        .collect();
    std::fs::write(format!("{dir}/hundred.pdf"), super::fixtures::pdf(&pages)).unwrap();
}
