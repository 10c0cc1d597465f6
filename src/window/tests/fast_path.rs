//! The fast paths (plain lines, and decoded plain lines) against the general path: the same windows, the same
//! positioned reads, and the prints the session memory takes of each line.

use super::*;

/// Reads `request` of `text` twice, through the fast path and through the general path alone, each in a scanner
/// and index of its own: the windows (or errors) and the positioned reads must be the same.
fn fast_and_general(
    text: &[u8],
    request: &WindowRequest,
    settings: &WindowSettings,
) -> [(Result<Window, ReadError>, u64); 2] {
    fast_and_general_in(TextEncoding::Utf8, text, request, settings)
}

/// [`fast_and_general`] of `text` in `encoding` (with no byte order mark).
fn fast_and_general_in(
    encoding: TextEncoding,
    text: &[u8],
    request: &WindowRequest,
    settings: &WindowSettings,
) -> [(Result<Window, ReadError>, u64); 2] {
    let once = |fast: bool| {
        let mut source = MemorySource::new(text.to_vec());
        let mut scanner = Scanner::new(&mut source, encoding);
        let mut index = LineIndex::new(encoding, 0);
        index.extend(&mut scanner).unwrap();
        let before = scanner.reads();
        let window = walk::walk_window(&mut scanner, &mut index, request, settings, "f.txt", fast);
        if let Ok(window) = &window {
            assert_eq!(window.prints, prints_of(&window.content));
        }
        (window, scanner.reads() - before)
    };
    [once(true), once(false)]
}

/// The prints of `content`'s lines taken again from the finished text, which the prints a window took as it wrote
/// each line must equal; and the returned lines `check-write` compares are those it finds in the text.
fn prints_of(content: &str) -> prints::LinePrints {
    let mut prints = prints::LinePrints::default();
    for line in content.split_terminator('\n') {
        prints.note(line);
    }
    assert_eq!(
        prints.compared,
        crate::returned::compared_prints_of(content)
    );
    prints
}

/// The window of `request` through the fast path, and how many of its lines the fast path showed.
fn shown_by_the_fast_path(
    text: &[u8],
    request: &WindowRequest,
    settings: &WindowSettings,
) -> (Window, u64) {
    shown_by_the_fast_path_in(TextEncoding::Utf8, text, request, settings)
}

/// [`shown_by_the_fast_path`] of `text` in `encoding` (with no byte order mark).
fn shown_by_the_fast_path_in(
    encoding: TextEncoding,
    text: &[u8],
    request: &WindowRequest,
    settings: &WindowSettings,
) -> (Window, u64) {
    walk::PLAIN_LINES_SHOWN.with(|count| count.set(0));
    let mut source = MemorySource::new(text.to_vec());
    let mut scanner = Scanner::new(&mut source, encoding);
    let mut index = LineIndex::new(encoding, 0);
    index.extend(&mut scanner).unwrap();
    let window =
        walk::walk_window(&mut scanner, &mut index, request, settings, "f.txt", true).unwrap();
    (window, walk::PLAIN_LINES_SHOWN.with(std::cell::Cell::get))
}

#[test]
fn plain_lines_take_the_fast_path_and_the_others_do_not() {
    // 100 lines: line 50 holds a zero-width space (reported), line 70 an invalid byte (shown as U+FFFD), line 90 is
    // past the clamp; every other line is plain, ASCII or not.
    let mut text = Vec::new();
    for number in 1..=100u32 {
        match number {
            50 => text.extend_from_slice(format!("zero\u{200b}width {number}\n").as_bytes()),
            70 => text.extend_from_slice(b"bad \xff byte\n"),
            90 => text.extend_from_slice(format!("{}\n", "x".repeat(300)).as_bytes()),
            _ if number % 3 == 0 => {
                text.extend_from_slice(format!("caf\u{e9} \u{2014} {number}\n").as_bytes())
            }
            _ => text.extend_from_slice(format!("plain line {number}\r\n").as_bytes()),
        }
    }
    let request = WindowRequest {
        offset: 1,
        column: 0,
        limit: 100,
    };
    let characters = settings(200, 1_000_000);
    let tokens = WindowSettings {
        budget: Budget::Tokens {
            cap: 100_000,
            headroom: 1.0,
        },
        ..settings(200, 1_000_000)
    };
    for settings in [characters, tokens] {
        let (window, fast) = shown_by_the_fast_path(&text, &request, &settings);
        assert_eq!((window.lines_returned, window.end_line), (100, 100));
        assert_eq!(
            window
                .clamped_lines
                .iter()
                .map(|clamped| clamped.line)
                .collect::<Vec<_>>(),
            [90]
        );
        assert_eq!(fast, 97, "{:?}", settings.budget);
    }
    // A window from line 71 with room for 5 lines: all five are the fast path's.
    let request = WindowRequest {
        offset: 71,
        column: 0,
        limit: 5,
    };
    let (window, fast) = shown_by_the_fast_path(&text, &request, &settings(200, 1_000_000));
    assert_eq!((window.start_line, window.end_line, fast), (71, 75, 5));
}

#[test]
fn the_plain_line_fast_path_answers_what_the_general_path_answers_across_blocks() {
    // Short ASCII lines across several 64 KiB blocks, with CRLF endings, a lone CR, a control character, non-ASCII
    // and invisible characters, and ASCII lines past the clamp and past LONG_LINE_BYTES among them.
    let mut text = Vec::new();
    for number in 0..6_000u32 {
        let line = match number % 11 {
            0 => format!("line {number}\r\n"),
            1 => format!("caf\u{e9} {number}\n"),
            2 => format!("zero\u{200b}width {number}\n"),
            3 => format!("a lone\rreturn {number}\n"),
            4 => format!("bell\u{7} tab\t{number}\n"),
            5 if number % 2_000 == 5 => format!("{}\n", "y".repeat(70_000)),
            6 => format!("{}\n", "z".repeat(150)),
            7 => format!("\u{4e2d}\u{6587} {number} \u{1f600} \u{2014} \u{2019}quoted\u{2019}\n"),
            8 => format!("{}\n", "\u{4e2d}".repeat(90)),
            _ => format!("plain ascii line number {number}\n"),
        };
        text.extend_from_slice(line.as_bytes());
        // An invalid byte now and then, in the middle of a line of plain text.
        if number % 97 == 3 {
            text.extend_from_slice(b"bad \xff byte\n");
        }
    }
    text.extend_from_slice(b"last line without a line feed\r");
    for (offset, limit, max_line_chars, budget) in [
        (1, 2_000, 100, 400_000),
        (1_990, 2_000, 100, 400_000),
        (3_000, 3_001, 2_000, 10_000_000),
        (5_990, 100, 2_000, 400_000),
        (1, 2_000, 100, 5_000),
        (4_000, 2_000, 40, 2_345),
    ] {
        let request = WindowRequest {
            offset,
            column: 0,
            limit,
        };
        for density in [None, Some(1.0), Some(1.37)] {
            let settings = settings_in(max_line_chars, budget, density);
            let [fast, general] = fast_and_general(&text, &request, &settings);
            assert_eq!(
                fast, general,
                "offset {offset}, limit {limit}, density {density:?}"
            );
            assert!(fast.0.unwrap().lines_returned > 0);
        }
    }
}

proptest::proptest! {
    /// The plain-line fast path answers byte for byte what the general path answers: the same content, cursor,
    /// clamped lines, budget used, invisible and replacement reports, and the same positioned reads.
    #[test]
    fn the_plain_line_fast_path_answers_what_the_general_path_answers(
        lines in proptest::collection::vec(
            "[a-z \t]{0,30}(\r|\u{e9}|\u{4e2d}|\u{1f600}|\u{1f1fa}\u{1f1f8}|e\u{301}|\u{200b}|\u{200d}|\u{202e}|\u{2066}|\u{2060}|\u{feff}|\u{fffd}|\u{2014}|\u{2019}|\u{206a}|\u{61c}|\u{600}|\u{2028}|\u{e0041}|\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}|\u{1f468}\u{200d}\u{1f469}|\u{0}|\u{1b}|\u{ff}|x{40})*[a-z]{0,5}",
            1..40,
        ),
        endings in proptest::collection::vec(0u8..3, 40),
        offset in 1u64..45,
        column in proptest::prop_oneof![4 => proptest::strategy::Just(0u64), 1 => 1u64..8],
        limit in 1u64..50,
        max_line_chars in 1u64..60,
        budget in 1u64..600,
        escape in proptest::bool::ANY,
        density in proptest::option::of(0.5f64..3.0),
    ) {
        let mut text = Vec::new();
        for (line, ending) in lines.iter().zip(&endings) {
            text.extend_from_slice(line.as_bytes());
            text.extend_from_slice(match ending { 0 => b"\n".as_slice(), 1 => b"\r\n", _ => b"\xff\n" });
        }
        let mut settings = WindowSettings { escape_invisible: escape, ..settings(max_line_chars, budget) };
        if let Some(density) = density {
            // Token mode: the budget read as tokens, a line priced by its estimate times the density.
            settings.budget = Budget::Tokens { cap: budget / 4 + 1, headroom: 1.0 };
            settings.density = density;
        }
        let request = WindowRequest { offset, column, limit };
        let [fast, general] = fast_and_general(&text, &request, &settings);
        proptest::prop_assert_eq!(fast, general);
    }
}

/// The encodings the fast path decodes a stretch at a time, and ISO-2022-JP, which it leaves to the general path.
const DECODED_ENCODINGS: [TextEncoding; 9] = [
    TextEncoding::Utf16Le,
    TextEncoding::Utf16Be,
    TextEncoding::Utf32Le,
    TextEncoding::Utf32Be,
    TextEncoding::Legacy(encoding_rs::WINDOWS_1252),
    TextEncoding::Legacy(encoding_rs::SHIFT_JIS),
    TextEncoding::Legacy(encoding_rs::GBK),
    TextEncoding::Legacy(encoding_rs::EUC_KR),
    TextEncoding::Legacy(encoding_rs::ISO_2022_JP),
];

/// `text` in `encoding`, with no byte order mark (a legacy encoding writes what it cannot map as `&#N;`).
fn encoded(encoding: TextEncoding, text: &str) -> Vec<u8> {
    match encoding {
        TextEncoding::Utf8 => text.as_bytes().to_vec(),
        TextEncoding::Utf16Le => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        TextEncoding::Utf16Be => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        TextEncoding::Utf32Le => text
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect(),
        TextEncoding::Utf32Be => text
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect(),
        TextEncoding::Legacy(legacy) => legacy.encode(text).0.into_owned(),
    }
}

/// A sequence that is invalid in `encoding` (UTF-16: an unpaired high surrogate; UTF-32: a unit past U+10FFFF;
/// a legacy encoding: byte 0xFF, invalid in each multi-byte one and `ÿ` in windows-1252).
fn invalid_in(encoding: TextEncoding) -> Vec<u8> {
    match encoding {
        TextEncoding::Utf8 | TextEncoding::Legacy(_) => vec![0xFF],
        TextEncoding::Utf16Le => vec![0x00, 0xD8],
        TextEncoding::Utf16Be => vec![0xD8, 0x00],
        TextEncoding::Utf32Le => 0x11_0000u32.to_le_bytes().to_vec(),
        TextEncoding::Utf32Be => 0x11_0000u32.to_be_bytes().to_vec(),
    }
}

#[test]
fn plain_lines_of_every_encoding_take_the_fast_path_and_the_others_do_not() {
    // 100 lines: line 50 holds a zero-width space (reported, or `&#8203;` in the legacy encodings, which cannot
    // write it), line 70 an invalid sequence, line 90 is past the clamp; every other line is plain.
    for encoding in DECODED_ENCODINGS {
        let mut text = Vec::new();
        for number in 1..=100u32 {
            let line = match number {
                50 => format!("zero\u{200b}width {number}\n"),
                90 => format!("{}\n", "x".repeat(300)),
                _ if number % 3 == 0 => format!("caf\u{e9} \u{5b57} {number}\r\n"),
                _ => format!("plain line {number}\n"),
            };
            if number == 70 {
                text.extend(encoded(encoding, "bad "));
                text.extend(invalid_in(encoding));
            }
            text.extend(encoded(encoding, &line));
        }
        let request = WindowRequest {
            offset: 1,
            column: 0,
            limit: 100,
        };
        let (window, fast) =
            shown_by_the_fast_path_in(encoding, &text, &request, &settings(200, 1_000_000));
        assert_eq!(
            (window.lines_returned, window.end_line),
            (100, 100),
            "{encoding:?}"
        );
        let zero_width_kept = !matches!(encoding, TextEncoding::Legacy(_));
        let invalid = encoding != TextEncoding::Legacy(encoding_rs::WINDOWS_1252);
        let expected = match encoding {
            TextEncoding::Legacy(legacy) if legacy == encoding_rs::ISO_2022_JP => 0,
            _ => 99 - u64::from(zero_width_kept) - u64::from(invalid),
        };
        assert_eq!(fast, expected, "{encoding:?}");
        assert_eq!(window.replaced_invalid, u64::from(invalid), "{encoding:?}");
        let [fast, general] =
            fast_and_general_in(encoding, &text, &request, &settings(200, 1_000_000));
        assert_eq!(fast, general, "{encoding:?}");
    }
}

#[test]
fn the_decoding_fast_path_answers_what_the_general_path_answers_across_blocks() {
    // Lines of every length up to past a 16 KiB stretch, so the decoded stretches and the 64 KiB blocks end
    // everywhere: at a line feed, inside a line, inside a character of two or four bytes.
    for encoding in DECODED_ENCODINGS {
        let mut text = Vec::new();
        for number in 0..3_000u32 {
            let line = match number % 7 {
                0 => format!("{} {number}\r\n", "\u{1f600}".repeat(number as usize % 40)),
                1 => format!("{}\n", "w".repeat(number as usize * 7 % 20_000)),
                2 => format!("ni\u{f1}o \u{5b57}\u{5b57} {number}\n"),
                _ => format!("plain line {number}\n"),
            };
            text.extend(encoded(encoding, &line));
        }
        for (offset, limit, max_line_chars, budget) in [
            (1, 3_000, 30_000, 10_000_000),
            (1_500, 2_000, 100, 400_000),
            (2_990, 100, 2_000, 4_000),
        ] {
            let request = WindowRequest {
                offset,
                column: 0,
                limit,
            };
            for density in [None, Some(1.37)] {
                let settings = settings_in(max_line_chars, budget, density);
                let [fast, general] = fast_and_general_in(encoding, &text, &request, &settings);
                assert_eq!(
                    fast, general,
                    "{encoding:?} offset {offset}, density {density:?}"
                );
                assert!(fast.0.unwrap().lines_returned > 0);
            }
        }
    }
}

proptest::proptest! {
    /// The fast path answers what the general path answers in every encoding it decodes: the lines of the UTF-8
    /// property above, with an invalid sequence of the encoding at the end of some.
    #[test]
    fn the_decoding_fast_path_answers_what_the_general_path_answers(
        which in 0usize..DECODED_ENCODINGS.len(),
        lines in proptest::collection::vec(
            "[a-z \t]{0,30}(\r|\u{e9}|\u{4e2d}|\u{1f600}|e\u{301}|\u{200b}|\u{202e}|\u{feff}|\u{fffd}|\u{2014}|\u{3042}|\u{0}|\u{1b}|\u{ff}|x{40})*[a-z]{0,5}",
            1..40,
        ),
        endings in proptest::collection::vec(0u8..3, 40),
        offset in 1u64..45,
        limit in 1u64..50,
        max_line_chars in 1u64..60,
        budget in 1u64..600,
        escape in proptest::bool::ANY,
        density in proptest::option::of(0.5f64..3.0),
    ) {
        let encoding = DECODED_ENCODINGS[which];
        let mut text = Vec::new();
        for (line, ending) in lines.iter().zip(&endings) {
            text.extend(encoded(encoding, line));
            match ending {
                0 => text.extend(encoded(encoding, "\n")),
                1 => text.extend(encoded(encoding, "\r\n")),
                _ => {
                    text.extend(invalid_in(encoding));
                    text.extend(encoded(encoding, "\n"));
                }
            }
        }
        let mut settings = WindowSettings { escape_invisible: escape, ..settings(max_line_chars, budget) };
        if let Some(density) = density {
            settings.budget = Budget::Tokens { cap: budget / 4 + 1, headroom: 1.0 };
            settings.density = density;
        }
        let request = WindowRequest { offset, column: 0, limit };
        let [fast, general] = fast_and_general_in(encoding, &text, &request, &settings);
        proptest::prop_assert_eq!(fast, general);
    }
}

/// Every text file under `READ_WINDOW_REAL_FILES` (a directory; files up to 4 MiB), read at its first line, a
/// middle line and its last 2,000 lines, in characters and in tokens, through the fast path and the general path
/// alone, as it is and (when it is UTF-8) in UTF-16: the same windows. Run
/// on demand: `READ_WINDOW_REAL_FILES=DIR cargo test -p read-window --lib real_files -- --ignored`.
#[test]
#[ignore = "reads the files of a directory named by READ_WINDOW_REAL_FILES"]
fn the_plain_line_fast_path_answers_what_the_general_path_answers_on_real_files() {
    let root = std::env::var_os("READ_WINDOW_REAL_FILES")
        .expect("READ_WINDOW_REAL_FILES names the directory whose files this test reads");
    let mut pending = vec![std::path::PathBuf::from(root)];
    let (mut files, mut windows) = (0u64, 0u64);
    while let Some(path) = pending.pop() {
        let Ok(metadata) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if metadata.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                pending.extend(entries.flatten().map(|entry| entry.path()));
            }
            continue;
        }
        if !metadata.is_file() || metadata.len() > 4 << 20 {
            continue;
        }
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        if text.contains(&0) {
            continue;
        }
        files += 1;
        let lines = text.iter().filter(|&&byte| byte == b'\n').count() as u64 + 1;
        let utf16 = std::str::from_utf8(&text)
            .ok()
            .map(|text| encoded(TextEncoding::Utf16Le, text));
        for (offset, max_line_chars, budget) in [
            (1, 2_000, 100_000),
            (lines / 2 + 1, 2_000, 100_000),
            (lines.saturating_sub(1_999).max(1), 120, 40_000),
        ] {
            let request = WindowRequest {
                offset,
                column: 0,
                limit: 2_000,
            };
            let mut tokens = settings(max_line_chars, budget);
            tokens.budget = Budget::Tokens {
                cap: budget / 4,
                headroom: 0.9,
            };
            for settings in [settings(max_line_chars, budget), tokens] {
                let [fast, general] = fast_and_general(&text, &request, &settings);
                assert_eq!(fast, general, "{} at line {offset}", path.display());
                windows += 1;
                // The same text in UTF-16, which the fast path decodes a stretch at a time.
                if let Some(utf16) = utf16.as_deref() {
                    let [fast, general] =
                        fast_and_general_in(TextEncoding::Utf16Le, utf16, &request, &settings);
                    assert_eq!(
                        fast,
                        general,
                        "{} in UTF-16 at line {offset}",
                        path.display()
                    );
                    windows += 1;
                }
            }
        }
    }
    eprintln!("{files} files, {windows} windows: the same through both paths");
}
