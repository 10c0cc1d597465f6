//! The tokens of a content stream counted before it is decoded (ISO 32000-1, 7.2): a bound on what decoding it
//! costs, not a parse.

/// The tokens of the content stream `content` (ISO 32000-1, 7.2: operators, numbers, names, strings, `true`,
/// `false`, `null`, and each `[`, `]`, `<<` and `>>`; comments are not tokens), counted up to `cap + 1`: a bound on
/// what decoding it costs, not a parse (an inline image's data is skipped from `ID` to the `EI` after it).
pub(super) fn count_tokens(content: &[u8], cap: usize) -> usize {
    let mut count = 0;
    let mut at = 0;
    while at < content.len() && count <= cap {
        let byte = content.get(at).copied().unwrap_or(b' ');
        // The byte offset past what starts at `at`, and whether it is a token.
        let (end, token) = match byte {
            _ if is_pdf_space(byte) => (at + 1, false),
            b'%' => (comment_end(content, at), false),
            b'(' => (literal_string_end(content, at), true),
            b'<' | b'>' if content.get(at + 1) == Some(&byte) => (at + 2, true),
            b'<' => (hex_string_end(content, at), true),
            b'[' | b']' => (at + 1, true),
            _ if is_pdf_delimiter(byte) && byte != b'/' => (at + 1, false),
            _ => (regular_token_end(content, at), true),
        };
        count += usize::from(token);
        at = end;
    }
    count
}

/// Whether `byte` is PDF white space (ISO 32000-1, 7.2.2, table 1).
fn is_pdf_space(byte: u8) -> bool {
    matches!(byte, 0 | b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

/// Whether `byte` is a PDF delimiter (ISO 32000-1, 7.2.2, table 2).
fn is_pdf_delimiter(byte: u8) -> bool {
    matches!(
        byte,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// The byte offset of the line break that ends the comment starting at byte `at` (`content`'s length when none
/// does).
fn comment_end(content: &[u8], mut at: usize) -> usize {
    while at < content.len() && !matches!(content.get(at), Some(b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The byte offset past the literal string whose `(` is at byte `at`: balanced parentheses, a backslash escapes
/// the byte after it (past `content`'s end when it is unterminated).
fn literal_string_end(content: &[u8], mut at: usize) -> usize {
    let mut nesting = 0usize;
    while let Some(&next) = content.get(at) {
        at += 1;
        match next {
            b'\\' => at += 1,
            b'(' => nesting += 1,
            b')' => {
                nesting = nesting.saturating_sub(1);
                if nesting == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    at
}

/// The byte offset past the `>` of the hex string whose `<` is at byte `at` (past `content`'s end when it is
/// unterminated).
fn hex_string_end(content: &[u8], mut at: usize) -> usize {
    while at < content.len() && content.get(at) != Some(&b'>') {
        at += 1;
    }
    at + 1
}

/// The byte offset past the regular token (an operator, a number, a name, a keyword) starting at byte `start`; past
/// the inline image data too when the token is the `ID` operator.
fn regular_token_end(content: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while let Some(&next) = content.get(at) {
        if is_pdf_space(next) || is_pdf_delimiter(next) {
            break;
        }
        at += 1;
    }
    if content.get(start..at) == Some(b"ID".as_slice()) {
        at += inline_image_bytes(content.get(at..).unwrap_or_default());
    }
    at
}

/// Bytes of inline image data at the start of `rest` (after its `ID` operator): up to the `EI` that follows white
/// space and ends a token, `EI` excluded (all of `rest` when there is none).
fn inline_image_bytes(rest: &[u8]) -> usize {
    rest.windows(4)
        .position(|window| {
            matches!(window, [before, b'E', b'I', after]
                if is_pdf_space(*before) && (is_pdf_space(*after) || is_pdf_delimiter(*after)))
        })
        .map_or(rest.len(), |position| position + 3)
}
