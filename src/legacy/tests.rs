//! Tests of legacy encodings: detection on real texts and look-alikes, mostly-UTF-8 files kept UTF-8, and the
//! characters text to be written back cannot hold.

use super::*;

fn encoded(text: &str, encoding: &'static Encoding) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "{text} in {}", encoding.name());
    bytes.into_owned()
}

#[test]
fn the_files_of_the_issue_are_detected() {
    let cases: [(&str, &'static Encoding); 11] = [
        ("Привет мир, это тест\n", encoding_rs::WINDOWS_1251),
        ("你好，世界\n", encoding_rs::GBK),
        (
            "こんにちは、世界。日本語のテキストです。\n",
            encoding_rs::SHIFT_JIS,
        ),
        (
            "// O objetivo é testar operações\n",
            encoding_rs::WINDOWS_1252,
        ),
        ("café naïve résumé\n", encoding_rs::WINDOWS_1252),
        ("naïve\n", encoding_rs::WINDOWS_1252),
        ("é\n", encoding_rs::WINDOWS_1252),
        ("Zażółć gęślą jaźń\n", encoding_rs::WINDOWS_1250),
        ("Γειά σου Κόσμε\n", encoding_rs::WINDOWS_1253),
        (
            "こんにちは、世界。日本語のテキストです。\n",
            encoding_rs::EUC_JP,
        ),
        (
            "안녕하세요, 세계. 한국어 텍스트입니다.\n",
            encoding_rs::EUC_KR,
        ),
    ];
    for (text, encoding) in cases {
        let bytes = encoded(text, encoding);
        assert_eq!(
            detect(&bytes, true).map(Encoding::name),
            Some(encoding.name()),
            "{text}"
        );
    }
}

#[test]
fn a_few_characters_are_below_what_detection_can_tell() {
    // Three CJK characters (6 bytes) are too few: the guess is another encoding, not what was written.
    let short = encoded("日本語\n", encoding_rs::SHIFT_JIS);
    assert_ne!(detect(&short, true), Some(encoding_rs::SHIFT_JIS));
    // Russian in KOI8-R decodes the same in KOI8-U: it is named koi8-r.
    let koi = encoded("Привет мир, это тест\n", encoding_rs::KOI8_R);
    assert_eq!(detect(&koi, true), Some(encoding_rs::KOI8_R));
}

/// A Russian text with a box-drawn table, as a KOI8-R man page has: `rows` box lines.
fn russian_with_box(rows: usize) -> String {
    let mut text = String::from(".TH \"chage\" \"1\" \"Пользовательские команды\"\n");
    text.push_str("Команда chage изменяет количество дней между сменами пароля и дату\n");
    text.push_str("последней смены пароля. Эта информация используется системой.\n");
    text.push_str("┌────────────┬──────────────┐\n");
    for row in 0..rows {
        text.push_str(&format!("│ строка {row:<3} │ значение     │\n"));
        text.push_str("├────────────┼──────────────┤\n");
    }
    text.push_str("└────────────┴──────────────┘\n");
    text.push_str("Параметры: -d, --lastday ПОСЛЕДНИЙ_ДЕНЬ; -E, --expiredate ДАТА_ОКОНЧАНИЯ.\n");
    text
}

#[test]
fn koi8_r_with_box_drawing_is_koi8_r() {
    for rows in [0, 1, 2, 5, 40] {
        let bytes = encoded(&russian_with_box(rows), encoding_rs::KOI8_R);
        assert_eq!(
            detect_with_runner_up(&bytes, true),
            Some((encoding_rs::KOI8_R, None)),
            "{rows} rows"
        );
    }
    // Box drawing where KOI8-U has Ukrainian letters (0xA4 is `╓` in KOI8-R, `є` in KOI8-U).
    let table = russian_with_box(2).replace('┌', "╓").replace('┐', "╖");
    let bytes = encoded(&table, encoding_rs::KOI8_R);
    assert!(encoding_rs::KOI8_U
        .decode_without_bom_handling(&bytes)
        .0
        .contains('є'));
    assert_eq!(detect(&bytes, true), Some(encoding_rs::KOI8_R));
    // Ukrainian letters in Ukrainian words are KOI8-U.
    let bytes = encoded(
        "Їжак і єнот ґрунтовно досліджують історію України.\n",
        encoding_rs::KOI8_U,
    );
    assert_eq!(detect(&bytes, true), Some(encoding_rs::KOI8_U));
}

#[test]
fn korean_prose_in_euc_kr_is_not_euc_jp() {
    let text = "◎ 파이썬(Python)은 배우기 쉽고, 강력한 프로그래밍 언어입니다. 파이썬은\n\
                효율적인 고수준 데이터 구조와 간단하지만 효율적인 객체지향프로그래밍을\n\
                지원합니다. 파이썬의 우아(優雅)한 문법과 동적 타이핑, 그리고 인터프리팅\n";
    let bytes = encoded(text, encoding_rs::EUC_KR);
    assert_eq!(detect(&bytes, true), Some(encoding_rs::EUC_KR));
    // Japanese prose (kana with its kanji) stays EUC-JP.
    let japanese = encoded(
        "日本語の文章には、ひらがなとカタカナと漢字が混ざっています。\n",
        encoding_rs::EUC_JP,
    );
    assert_eq!(detect(&japanese, true), Some(encoding_rs::EUC_JP));
}

#[test]
fn esperanto_is_iso_8859_3_and_euro_with_oe_is_iso_8859_15() {
    let esperanto = "Ĉiuj homoj estas denaskiĝe liberaj kaj egalaj laŭ digno kaj rajtoj. Ili \
                     estas dotitaj per racio kaj konscienco, kaj devus konduti unu al alia en \
                     spirito de frateco. Ankaŭ la ŝipo ĉe la haveno, aŭ la ĥoro de ĵurnalistoj.\n";
    let bytes = encoded(esperanto, encoding_rs::ISO_8859_3);
    assert_eq!(
        detect_with_runner_up(&bytes, true),
        Some((encoding_rs::ISO_8859_3, None))
    );
    let french = "Le prix du billet est de 12 € pour un adulte.\n\
                  Ma sœur a le cœur sur la main ; son œuvre est célèbre.\n\
                  Un bœuf et un œuf.\n";
    let bytes = encoded(french, encoding_rs::ISO_8859_15);
    assert_eq!(
        detect_with_runner_up(&bytes, true),
        Some((encoding_rs::ISO_8859_15, None))
    );
    // One œ is weak evidence: windows-1252 is kept, ISO-8859-15 named as the runner-up.
    let bytes = encoded("Le cœur est là.\n", encoding_rs::ISO_8859_15);
    assert_eq!(
        detect_with_runner_up(&bytes, true),
        Some((encoding_rs::WINDOWS_1252, Some(encoding_rs::ISO_8859_15)))
    );
    // Latin-1 French without those bytes is windows-1252, no guess to name.
    let bytes = encoded("café naïve résumé, très bien\n", encoding_rs::WINDOWS_1252);
    assert_eq!(
        detect_with_runner_up(&bytes, true),
        Some((encoding_rs::WINDOWS_1252, None))
    );
}

#[test]
fn characters_that_change_on_the_way_back_are_named() {
    let sjis = TextEncoding::Legacy(encoding_rs::SHIFT_JIS);
    assert_eq!(first_unencodable("日本語\nかな", sjis), None);
    assert_eq!(
        first_unencodable("値段 ¥100", sjis),
        Some(Unencodable {
            character: '¥',
            line: 1,
            column: 3,
            becomes: Some("\\".to_string())
        })
    );
    assert_eq!(
        first_unencodable("a\n5 − 3", sjis),
        Some(Unencodable {
            character: '−',
            line: 2,
            column: 2,
            becomes: Some("－".to_string())
        })
    );
    let jis = TextEncoding::Legacy(encoding_rs::ISO_2022_JP);
    assert_eq!(first_unencodable("日本語です", jis), None);
    assert_eq!(
        first_unencodable("ｱｲ", jis),
        Some(Unencodable {
            character: 'ｱ',
            line: 1,
            column: 0,
            becomes: Some("ア".to_string())
        })
    );
    let korean = TextEncoding::Legacy(encoding_rs::EUC_KR);
    assert_eq!(first_unencodable("한국어", korean), None);
    assert_eq!(
        first_unencodable("한 똠", korean),
        Some(Unencodable {
            character: '똠',
            line: 1,
            column: 2,
            becomes: None
        })
    );
}

#[test]
fn utf8_ascii_and_damaged_utf8_are_not_legacy() {
    assert_eq!(detect(b"plain ascii\n", true), None);
    assert_eq!(detect("déjà vu, naïve\n".as_bytes(), true), None);
    let mut damaged = "déjà vu, naïve, très bien\n".as_bytes().to_vec();
    damaged.push(0xff);
    assert_eq!(detect(&damaged, true), None);
}

#[test]
fn mostly_utf8_with_a_few_stray_bytes_stays_utf8() {
    // A Word smart quote pasted into Markdown (two stray windows-1252 bytes, one valid `é`).
    assert_eq!(
        detect(b"# Notes\nShe said \x93hello\x94.\nCaf\xc3\xa9 ok\n", true),
        None
    );
    // A Latin-1 `e acute` pasted into UTF-8 text, and one stray 0xFF.
    assert_eq!(detect(b"R\xc3\xa9sum\xc3\xa9 of the caf\xe9\n", true), None);
    assert_eq!(detect(b"h\xc3\xa9llo \xff world\n", true), None);
    // One valid dash in the title, and a pasted windows-1252 sentence of five stray bytes further down: more
    // invalid bytes than valid ones, but few, so the dash is never re-decoded (it became `ā€“` in windows-1257).
    let mut readme = "# Mio \u{2013} Metal I/O\n".as_bytes().to_vec();
    readme.extend_from_slice(&b"Plain text.\n".repeat(40));
    readme.extend_from_slice(b" \x93Mio\x94 doesn\x92t block \x96 it\x92s fast.\n");
    assert_eq!(detect(&readme, true), None);
    // Two pasted sentences (14 stray bytes) in a 5 KB README: still few for its size.
    let mut longer = "# Mio \u{2013} Metal I/O\n".as_bytes().to_vec();
    longer.extend_from_slice(&b"A line of plain English text in the README.\n".repeat(110));
    for _ in 0..2 {
        longer.extend_from_slice(
            b"\x93Mio\x94 doesn\x92t block \x96 it\x92s fast, \x93really\x94 \x96 ok.\n",
        );
    }
    assert_eq!(detect(&longer, true), None);
}

#[test]
fn ascii_with_a_few_utf8_characters_cut_short_stays_utf8() {
    // A smart quote that lost its last byte in ASCII text was read as ibm866 (`тА`); a cut four-byte emoji too.
    let mut log = b"line of plain text\n".repeat(20);
    log.extend_from_slice(b"it said \xe2\x80 hello\n");
    log.extend_from_slice(b"and then \xf0\x9f\x98 bye\n");
    assert_eq!(detect(&log, true), None);
    // A check mark and an arrow cut short (`E2 9C`, `E2 87`): windows-1251 read them as `вњ`.
    let mut marks = b"build step ok\n".repeat(30);
    marks.extend_from_slice(b"done \xe2\x9c and \xe2\x87 next\n");
    assert_eq!(detect(&marks, true), None);
    // Stray bytes that are no cut mark (a Latin-1 `e acute` then `e grave`, a 0xFF) are left to detection, and so
    // is a letter then punctuation in windows-1252, which looks like a cut character (`José’s café—`: E9 92, E9 97).
    let mut latin = b"line of plain text\n".repeat(20);
    latin.extend_from_slice(b"un caf\xe9\xe8 \xff\n");
    assert!(detect(&latin, true).is_some());
    let mut word =
        b"Notes: Jos\xe9\x92s caf\xe9\x97open daily; the fianc\xe9\x92s list.\n".to_vec();
    word.extend_from_slice(&b"line of plain text\n".repeat(20));
    assert_eq!(detect(&word, true), Some(encoding_rs::WINDOWS_1252));
    // Many cut characters are not a few damaged ones.
    let many = b"a \xe2\x80 b ".repeat(40);
    assert!(detect(&many, true).is_some());
}

#[test]
fn legacy_text_with_accidental_utf8_pairs_is_legacy() {
    // Without one valid UTF-8 character a Latin-1 file is windows-1252 as before.
    assert_eq!(
        detect(b"un caf\xe9 cr\xe8me\n", true),
        Some(encoding_rs::WINDOWS_1252)
    );
    // A windows-1252 file with a few UTF-8 sequences by accident (a pasted `é` and `–`).
    let mut cp1252 = encoded(
        &"Le café où l'élève déjà très âgé s'arrête. ".repeat(6),
        encoding_rs::WINDOWS_1252,
    );
    cp1252.extend_from_slice("pasted: é – done\n".as_bytes());
    assert_eq!(detect(&cp1252, true), Some(encoding_rs::WINDOWS_1252));
    // Russian in windows-1251 holds valid UTF-8 pairs by accident (`Тё` is D2 B8).
    let russian = encoded(
        "Тёма и Лёша пошли домой, потому что было поздно.\n",
        encoding_rs::WINDOWS_1251,
    );
    assert!(std::str::from_utf8(&russian).is_err());
    assert_eq!(detect(&russian, true), Some(encoding_rs::WINDOWS_1251));
}

#[test]
fn unencodable_text_names_its_first_character() {
    let cyrillic = TextEncoding::Legacy(encoding_rs::WINDOWS_1251);
    assert_eq!(first_unencodable("Привет\nмир", cyrillic), None);
    assert_eq!(
        first_unencodable("Привет\nмир 😀", cyrillic),
        Some(Unencodable {
            character: '😀',
            line: 2,
            column: 4,
            becomes: None
        })
    );
    assert_eq!(first_unencodable("😀", TextEncoding::Utf8), None);
}

#[test]
fn utf8_cut_inside_its_last_character_stays_utf8() {
    // A file cut by `head -c` inside `é`, or inside an emoji, is UTF-8 with one broken character.
    assert_eq!(detect(b"Copyright: (C) 2022, Camale\xc3", true), None);
    assert_eq!(
        detect(
            "Camaleón et café, cut inside \u{e9}"
                .as_bytes()
                .split_last()
                .map_or(&[][..], |(_, rest)| rest),
            true
        ),
        None
    );
    assert_eq!(detect(b"status: ok \xf0\x9f\x98", true), None);
    // A lone high byte after ASCII stays a question for detection (Latin-1 `café` without a line break).
    assert_eq!(cut_short_utf8(b"caf\xe9"), None);
    assert_eq!(cut_short_utf8(b"ok \xf0\x9f\x98"), Some(&b"ok "[..]));
}
