//! Tests of the line index: counts, endings, checkpoints, prints and the resumed scan of a grown file.

use super::*;
use crate::source::MemorySource;

fn index_of(text: &[u8]) -> LineIndex {
    let mut source = MemorySource::new(text.to_vec());
    let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
    let mut index = LineIndex::new(TextEncoding::Utf8, 0);
    index.extend(&mut scanner).unwrap();
    index
}

#[test]
fn line_counts_are_exact() {
    assert_eq!(index_of(b"").total_lines(), 0);
    assert_eq!(index_of(b"a\nb\nc").total_lines(), 3);
    assert_eq!(index_of(b"line1\nline2\nline3\n").total_lines(), 3);
    assert_eq!(index_of(b"\n").total_lines(), 1);
    assert_eq!(index_of(b"\n\n").total_lines(), 2);
}

#[test]
fn line_endings_are_classified() {
    assert_eq!(index_of(b"a\r\nb\r\n").line_endings(), LineEndings::Crlf);
    assert_eq!(index_of(b"a\r\nb\n").line_endings(), LineEndings::Mixed);
    assert_eq!(index_of(b"a\nb").line_endings(), LineEndings::Lf);
    assert_eq!(index_of(b"ab").line_endings(), LineEndings::None);
}

#[test]
fn checkpoints_point_at_line_starts_and_spacing_grows_when_full() {
    let lines = INITIAL_SPACING * 3 + 5;
    let text: String = (1..=lines).map(|n| format!("{n}\n")).collect();
    let index = index_of(text.as_bytes());
    assert_eq!(index.total_lines(), lines);
    let (line, offset) = index.locate(INITIAL_SPACING * 2 + 10);
    assert_eq!(line, INITIAL_SPACING * 2 + 1);
    assert!(text[offset as usize..].starts_with(&format!("{line}\n")));

    let mut small = LineIndex::new(TextEncoding::Utf8, 0);
    small.spacing = 1;
    let many: String = (1..=(MAX_CHECKPOINTS as u64 * 2 + 3))
        .map(|n| format!("{n}\n"))
        .collect();
    let mut source = MemorySource::new(many.clone().into_bytes());
    let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
    small.extend(&mut scanner).unwrap();
    assert!(small.checkpoints.len() <= MAX_CHECKPOINTS);
    for probe in [1, 2, 3, 1000, 70_000, 131_000] {
        let (line, offset) = small.locate(probe);
        assert!(line <= probe);
        assert!(
            many[offset as usize..].starts_with(&format!("{line}\n")),
            "line {line}"
        );
    }
}

#[test]
fn extending_a_grown_file_matches_a_fresh_scan() {
    let first = b"a\nb\nc".to_vec();
    let mut grown = first.clone();
    grown.extend_from_slice(b"d\ne\r\n");
    let mut index = index_of(&first);
    let mut source = MemorySource::new(grown.clone());
    let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
    index.extend(&mut scanner).unwrap();
    assert_eq!(
        index.grown_from(),
        Some((5, index_of(&first).content_print()))
    );
    index.grown_from = None;
    assert_eq!(index, index_of(&grown));
    assert_eq!(index.total_lines(), 4);
}

#[test]
fn the_content_print_does_not_depend_on_how_the_bytes_are_split() {
    let text: Vec<u8> = (0..1_000u32)
        .flat_map(|n| format!("line {n}\n").into_bytes())
        .collect();
    let mut whole = StreamPrint::new(3);
    whole.update(&text);
    for split in [0, 1, 7, 8, 9, 31, 32, 33, 500, text.len()] {
        let mut parts = StreamPrint::new(3);
        parts.update(&text[..split]);
        parts.update(&text[split..]);
        assert_eq!(parts.finish(), whole.finish(), "split at {split}");
    }
    // Byte by byte, and in pieces of every size up to two stripes.
    for piece in 1..=64 {
        let mut parts = StreamPrint::new(3);
        for chunk in text.chunks(piece) {
            parts.update(chunk);
        }
        assert_eq!(parts.finish(), whole.finish(), "pieces of {piece}");
    }
    // A word moved to another lane, or trailing zeros, changes the print.
    let mut swapped = text.clone();
    swapped.swap(0, 8);
    let mut other = StreamPrint::new(3);
    other.update(&swapped);
    assert_ne!(other.finish(), whole.finish());
    let mut zeros = StreamPrint::new(3);
    zeros.update(&[0; 5]);
    let mut fewer_zeros = StreamPrint::new(3);
    fewer_zeros.update(&[0; 4]);
    assert_ne!(zeros.finish(), fewer_zeros.finish());
    let mut longer = StreamPrint::new(3);
    longer.update(&text);
    longer.update(&[0]);
    assert_ne!(longer.finish(), whole.finish());
}

#[test]
fn line_prints_name_the_first_changed_line_and_the_whole_print_sees_any_change() {
    let old = index_of(b"a\nb\nc\nd\n");
    let same = index_of(b"a\nb\nc\nd\n");
    assert_eq!(old.content_print(), same.content_print());
    assert_eq!(old.line_prints().len(), 4);
    assert_eq!(old.line_prints().last(), Some(&old.content_print()));
    let edited = index_of(b"a\nb\nX\nd\n");
    assert_ne!(old.content_print(), edited.content_print());
    let first = old
        .line_prints()
        .iter()
        .zip(edited.line_prints())
        .position(|(a, b)| a != b);
    assert_eq!(first, Some(2));
    // The print of the first four lines of a grown file is the old file's print.
    let grown = index_of(b"a\nb\nc\nd\ne\n");
    assert_eq!(grown.line_prints()[3], old.content_print());
    let mut source = MemorySource::new(b"a\nb\nc\nd\ne\n".to_vec());
    let mut scanner = Scanner::new(&mut source, TextEncoding::Utf8);
    assert_eq!(
        print_prefix(&mut scanner, TextEncoding::Utf8, 0, false, 8).unwrap(),
        old.content_print()
    );
    // Only the first LINE_PRINT_LINES lines are printed one by one.
    let many: String = (0..LINE_PRINT_LINES + 10)
        .map(|n| format!("{n}\n"))
        .collect();
    assert_eq!(
        index_of(many.as_bytes()).line_prints().len(),
        LINE_PRINT_LINES
    );
}
