//! Tests of the private key blocks: markers in any split and encoding, look-alikes, and the bounds on blocks.

use super::*;

/// `text` with `PRIVATE_KEY` spelled `PRIVATE KEY`: the fixtures below are written so that this source file,
/// read through read-window, holds no key blocks of its own.
fn k(text: &str) -> String {
    text.replace("PRIVATE_KEY", "PRIVATE KEY")
}

/// The key blocks of `text` scanned in pieces of `piece` bytes, as the index feeds them.
fn blocks_of(text: &[u8], encoding: TextEncoding, piece: usize) -> KeyBlocks {
    let mut blocks = KeyBlocks::new();
    blocks.restart();
    let mut line = 1;
    for chunk in text.chunks(piece.max(1)) {
        blocks.scan(chunk, encoding, line);
        line += count_line_feeds(chunk, encoding);
    }
    blocks.finish(encoding, line);
    blocks
}

const CERT: &str =
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\nAbCd\n-----END CERTIFICATE-----\n";
const KEY: &str =
    "-----BEGIN RSA PRIVATE_KEY-----\nMIIEpAIBAAKCAQEA\nZm9vYmFy\n-----END RSA PRIVATE_KEY-----\n";

#[test]
fn a_key_after_a_certificate_is_found_by_its_lines_in_any_split() {
    let text = format!("{CERT}{}tail\n", k(KEY));
    let expected = [KeyBlock {
        begin_line: 5,
        end_line: Some(8),
        kind: KeyKind::Pem,
    }];
    for piece in 1..text.len() + 1 {
        let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, piece);
        assert_eq!(blocks.blocks(), expected, "piece {piece}");
    }
    let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, 7);
    // The certificate and the tail are readable; any window that touches lines 5-8 is not.
    assert!(blocks.check_window("/p/b.pem", 1, 4, 9).is_ok());
    assert!(blocks.check_window("/p/b.pem", 9, 9, 9).is_ok());
    for (first, last) in [(1, 9), (4, 5), (6, 6), (7, 9), (8, 8)] {
        let error = blocks.check_window("/p/b.pem", first, last, 9).unwrap_err();
        let window = if first == last {
            format!("line {first}")
        } else {
            format!("lines {first}-{last}")
        };
        assert_eq!(error.kind, ErrorKind::Credential);
        assert_eq!(
            error.message,
            format!("Lines 5-8 of /p/b.pem are a PEM private key (it begins at line 5); read-window does not show private keys, so the window of {window} is refused. Readable next to it: lines 1-4 (offset=1 limit=4) and line 9 (offset=9 limit=1). If you need the key's identity, read its certificate or public key.")
        );
    }
}

#[test]
fn openssh_pgp_and_one_line_keys_are_found_and_certificates_are_not() {
    let text = k("a\n-----BEGIN OPENSSH PRIVATE_KEY-----\nb3Bl\n-----END OPENSSH PRIVATE_KEY-----\n\
        -----BEGIN PGP PRIVATE_KEY BLOCK-----\n\nlQOY\n-----END PGP PRIVATE_KEY BLOCK-----\n\
        {\"private_key\": \"-----BEGIN PRIVATE_KEY-----\\nMIIE\\n-----END PRIVATE_KEY-----\\n\"}\n\
        -----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n-----BEGIN ENCRYPTED PRIVATE_KEY-----\nMIIF\n");
    let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, 64 * 1024);
    assert_eq!(
        blocks.blocks(),
        [
            KeyBlock {
                begin_line: 2,
                end_line: Some(4),
                kind: KeyKind::OpenSsh
            },
            KeyBlock {
                begin_line: 5,
                end_line: Some(8),
                kind: KeyKind::Pgp
            },
            KeyBlock {
                begin_line: 9,
                end_line: Some(9),
                kind: KeyKind::Pem
            },
            KeyBlock {
                begin_line: 13,
                end_line: None,
                kind: KeyKind::Pem
            },
        ]
    );
    assert!(blocks.check_window("/p/k", 10, 12, 14).is_ok());
    let open = blocks.check_window("/p/k", 14, 14, 14).unwrap_err().message;
    assert!(
        open.contains("begins at line 13 and has no END line"),
        "{open}"
    );
    assert!(open.contains("lines 10-12 (offset=10 limit=3)"), "{open}");
    let json = blocks.check_window("/p/k", 9, 9, 14).unwrap_err().message;
    assert!(
        json.starts_with("Line 9 of /p/k holds a PEM private key (it begins at line 9)"),
        "{json}"
    );
}

#[test]
fn keys_in_utf16_and_utf32_are_found() {
    let text = format!("x\n{}", k(KEY));
    for encoding in [
        TextEncoding::Utf16Le,
        TextEncoding::Utf16Be,
        TextEncoding::Utf32Le,
        TextEncoding::Utf32Be,
    ] {
        let bytes = encode_ascii(text.as_bytes(), encoding);
        let unit = encoding.unit_bytes();
        for piece in [unit, 3 * unit, 40 * unit, bytes.len()] {
            let blocks = blocks_of(&bytes, encoding, piece);
            assert_eq!(
                blocks.blocks(),
                [KeyBlock {
                    begin_line: 2,
                    end_line: Some(5),
                    kind: KeyKind::Pem
                }],
                "{encoding:?} {piece}"
            );
        }
    }
}

#[test]
fn a_rescan_of_the_last_line_records_nothing_twice() {
    let mut blocks = KeyBlocks::new();
    blocks.restart();
    blocks.scan(
        k("a\n-----BEGIN EC PRIVATE_KEY-----").as_bytes(),
        TextEncoding::Utf8,
        1,
    );
    // The BEGIN line ends the data: it is judged at the end of the scan.
    assert_eq!(blocks.blocks().len(), 0);
    blocks.finish(TextEncoding::Utf8, 2);
    assert_eq!(blocks.blocks().len(), 1);
    // The file grew: the index rescans from the start of its last line (line 2).
    blocks.restart();
    blocks.scan(
        k("-----BEGIN EC PRIVATE_KEY-----\nMHc\n-----END EC PRIVATE_KEY-----\nz").as_bytes(),
        TextEncoding::Utf8,
        2,
    );
    blocks.finish(TextEncoding::Utf8, 5);
    assert_eq!(
        blocks.blocks(),
        [KeyBlock {
            begin_line: 2,
            end_line: Some(4),
            kind: KeyKind::Pem
        }]
    );
    blocks.restart();
    blocks.scan(b"z and more\n", TextEncoding::Utf8, 5);
    blocks.finish(TextEncoding::Utf8, 6);
    assert_eq!(blocks.blocks().len(), 1);
}

#[test]
fn look_alikes_are_not_keys() {
    let text = k("PRIVATE_KEY\n--BEGIN PRIVATE_KEY\n-----BEGIN private key-----\nthe PRIVATE_KEY-----\n-----BEGINPRIVATE_KEY-----\n\
        /// A BEGIN line is `-----BEGIN OPENSSH PRIVATE_KEY-----`, then the body.\n\
        const BEGIN: &str = \"-----BEGIN RSA PRIVATE_KEY-----\";\n\
        -----BEGIN PRIVATE_KEY-----and more\n\
        -----END RSA PRIVATE_KEY-----\n");
    for piece in [5, 64, text.len()] {
        assert!(
            blocks_of(text.as_bytes(), TextEncoding::Utf8, piece)
                .blocks()
                .is_empty(),
            "{piece}"
        );
    }
}

#[test]
fn a_begin_whose_end_does_not_come_within_the_longest_key_starts_no_block() {
    let mut text = k("-----BEGIN PRIVATE_KEY-----\n");
    for _ in 0..MAX_KEY_LINES {
        text.push_str("prose\n");
    }
    text.push_str(&k(
        "-----END PRIVATE_KEY-----\nafter\n-----BEGIN PRIVATE_KEY-----\nQQ\n",
    ));
    let total = MAX_KEY_LINES + 5;
    let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, 4096);
    // The first BEGIN was dropped when its END came too late; the last one is cut by the end of the file.
    assert_eq!(
        blocks.blocks(),
        [KeyBlock {
            begin_line: total - 1,
            end_line: None,
            kind: KeyKind::Pem
        }]
    );
    assert!(blocks.check_window("/p/doc", 1, total - 2, total).is_ok());
    assert!(blocks.check_window("/p/doc", total, total, total).is_err());
    // A BEGIN with no END and more than MAX_KEY_LINES lines after it is no key either.
    let mut open = k("-----BEGIN PRIVATE_KEY-----\n");
    for _ in 0..MAX_KEY_LINES + 1 {
        open.push_str("prose\n");
    }
    let blocks = blocks_of(open.as_bytes(), TextEncoding::Utf8, 4096);
    assert!(blocks
        .check_window("/p/doc", 1, 3, MAX_KEY_LINES + 2)
        .is_ok());
}

#[test]
fn too_many_keys_turn_the_rest_of_the_file_into_one_block() {
    let mut text = String::new();
    for _ in 0..MAX_KEY_BLOCKS + 2 {
        text.push_str(&k(
            "-----BEGIN PRIVATE_KEY-----\nQQ\n-----END PRIVATE_KEY-----\nok\n",
        ));
    }
    let blocks = blocks_of(text.as_bytes(), TextEncoding::Utf8, 64 * 1024);
    assert_eq!(blocks.blocks().len(), MAX_KEY_BLOCKS + 1);
    let last_begin = (MAX_KEY_BLOCKS as u64) * 4 + 1;
    assert_eq!(
        blocks.blocks().last().map(|block| block.end_line),
        Some(None)
    );
    let total = (MAX_KEY_BLOCKS as u64 + 2) * 4;
    let message = blocks
        .check_window("/p/many", total, total, total)
        .unwrap_err()
        .message;
    assert!(
        message.contains(&format!("from line {last_begin} on")),
        "{message}"
    );
    assert!(blocks.check_window("/p/many", 4, 4, total).is_ok());
}
