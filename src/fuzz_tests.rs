//! The no-trap rule, fuzzed natively: random bytes, random requests and random configs through the whole read
//! path (`read_once` and a session) over real files; every outcome is a result or a typed error, never a panic.

use std::path::PathBuf;

use proptest::prelude::*;

use crate::config::ConfigInput;
use crate::native_fs::NativeFileSystem;
use crate::read::{read_once, ReadOutcome, ReadRequest, Reader};

/// The case count of a property test whose usual count is `default`: `$READ_WINDOW_FUZZ_CASES` when it is set to a
/// whole number, else `$PROPTEST_CASES`, else `default`. Lets one long run (`READ_WINDOW_FUZZ_CASES=100000 cargo
/// test --release ...`) reuse the fixed-count property tests.
pub(crate) fn fuzz_cases(default: u32) -> u32 {
    ["READ_WINDOW_FUZZ_CASES", "PROPTEST_CASES"]
        .iter()
        .find_map(|name| std::env::var(name).ok()?.trim().parse().ok())
        .unwrap_or(default)
}

fn bytes_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..2_000),
        // Mostly text with stray bytes: line feeds, carriage returns, NULs, invalid UTF-8, BOMs.
        proptest::collection::vec(
            prop_oneof![
                8 => b'a'..=b'z',
                2 => Just(b'\n'),
                1 => Just(b'\r'),
                1 => Just(0u8),
                1 => Just(0xffu8),
                1 => Just(0xfeu8),
                1 => Just(0xe4u8),
                1 => Just(0x80u8),
            ],
            0..3_000,
        ),
        "[\\PC\n\r\t]{0,400}".prop_map(String::into_bytes),
    ]
}

fn number() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        Just(None),
        (0u64..50).prop_map(Some),
        any::<u64>().prop_map(Some),
        Just(Some(u64::MAX)),
    ]
}

fn config_strategy() -> impl Strategy<Value = ConfigInput> {
    (
        proptest::option::of(0u64..5_000),
        proptest::option::of(0u64..5_000),
        proptest::option::of(0u64..200_000),
        any::<bool>(),
        proptest::option::of(0u64..40_000),
        proptest::option::of(-1.0f64..2.0),
        proptest::option::of(any::<bool>()),
        proptest::option::of(0u32..8),
        proptest::option::of(0u32..8),
    )
        .prop_map(
            |(
                max_lines,
                max_line_chars,
                budget_chars,
                token_mode,
                token_cap,
                token_headroom,
                dedup,
                warn,
                block,
            )| {
                ConfigInput {
                    max_lines,
                    max_line_chars,
                    budget_chars,
                    token_mode,
                    token_cap,
                    token_headroom,
                    dedup,
                    loop_warn_at: warn,
                    loop_block_at: block,
                    ..ConfigInput::default()
                }
            },
        )
}

fn path_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just("f.txt".to_string()),
        1 => Just(String::new()),
        1 => Just("../f.txt".to_string()),
        1 => Just("./sub/../f.txt".to_string()),
        1 => Just("/dev/zero".to_string()),
        1 => "[a-z./\\x00]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fuzz_cases(2_000)))]

    #[test]
    fn no_input_makes_the_reader_panic(
        bytes in bytes_strategy(),
        config in config_strategy(),
        path in path_strategy(),
        offset in number(),
        limit in number(),
        column in number(),
    ) {
        let directory = tempfile::tempdir().expect("temp dir");
        std::fs::write(directory.path().join("f.txt"), &bytes).expect("write");
        let mut fs = NativeFileSystem::mount(&[(PathBuf::from(directory.path()), "/w".to_string())]);
        let request = ReadRequest { path, offset, limit, column, tail: None, extract: None, asked_via: Vec::new(), fresh: false, region: None, depth: None };
        let once = read_once(config.clone(), &mut fs, &request);
        if let Ok(ReadOutcome::Window(result)) = &once {
            prop_assert!(result.window.budget_used <= result.window.budget_limit);
        }
        let mut session = Reader::new(config);
        for _ in 0..3 {
            match session.read(&mut fs, &request, 0) {
                Ok(ReadOutcome::Window(result)) => prop_assert!(result.window.budget_used <= result.window.budget_limit),
                Ok(ReadOutcome::Unchanged(_) | ReadOutcome::Image(_) | ReadOutcome::Listing(_)) | Err(_) => {}
            }
        }
    }
}
