//! Section 7: documents. A 300-page text PDF, written here by a small PDF writer (uncompressed content streams
//! in the standard Helvetica font), read by the release `read-window` CLI as a whole process — the first read
//! (extraction each time: `READ_WINDOW_DOCUMENT_CACHE=off`) and a second read (the extraction cache on disk) —
//! side by side with `pdftotext FILE -` (poppler) when it is on PATH.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::fixtures::{fixture, Fixture, TempDir};
use crate::measure::{fmt_duration, fmt_ratio, fmt_size, median, print_table, Row};
use crate::one_shot::cli_binary;

/// Pages of the generated PDF.
const PAGES: usize = 300;
/// Text lines drawn on each page.
const LINES_PER_PAGE: usize = 50;
/// Words on each line.
const WORDS_PER_LINE: usize = 14;
/// The words the lines are drawn from: lower-case ASCII, so nothing needs escaping in a PDF string.
const WORDS: [&str; 32] = [
    "window", "budget", "reader", "offset", "line", "page", "cursor", "extract", "token", "agent",
    "file", "bounded", "index", "sparse", "session", "cache", "hint", "marker", "stream", "object",
    "table", "font", "text", "limit", "column", "chunk", "model", "prompt", "answer", "engine",
    "module", "host",
];
/// The lines the CLI is asked for (`--limit`).
const CLI_LIMIT: u64 = 40;
/// The variable that turns the CLI's on-disk cache of extracted documents off.
const DOCUMENT_CACHE_ENV: &str = "READ_WINDOW_DOCUMENT_CACHE";
/// The first read's target: at most this many times `pdftotext`'s median.
const FIRST_READ_TARGET: f64 = 1.5;
/// The second read's target, in milliseconds.
const SECOND_READ_TARGET_MS: f64 = 50.0;

/// Runs of each row (after the untimed warm-ups).
const RUNS: usize = 5;
/// The first read's row label.
const FIRST_READ: &str = "300-page PDF, first read (extraction)";
/// The second CLI read's row label.
const SECOND_READ: &str = "same, second CLI read (extraction cache on disk)";
/// The `pdftotext` row label.
const POPPLER: &str = "pdftotext (poppler), the same file";

/// A linear congruential generator (Knuth's MMIX constants): the same words on every run.
struct Lcg(u64);

impl Lcg {
    /// The next word of [`WORDS`], from the generator's high bits.
    fn next_word(&mut self) -> &'static str {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        WORDS[(self.0 >> 33) as usize % WORDS.len()]
    }
}

/// The text of every page: [`PAGES`] pages of [`LINES_PER_PAGE`] lines of [`WORDS_PER_LINE`] words.
fn page_texts() -> Vec<Vec<String>> {
    let mut lcg = Lcg(0x5eed_d0c5);
    (0..PAGES)
        .map(|_| {
            (0..LINES_PER_PAGE)
                .map(|_| {
                    let words: Vec<&str> = (0..WORDS_PER_LINE).map(|_| lcg.next_word()).collect();
                    words.join(" ")
                })
                .collect()
        })
        .collect()
}

/// A page's content stream: its lines in 10-point Helvetica, 14 points apart, from the top left of a Letter page.
fn content_stream(lines: &[String]) -> String {
    let mut stream = String::from("BT\n/F1 10 Tf\n50 760 Td\n");
    for (index, line) in lines.iter().enumerate() {
        if index > 0 {
            stream.push_str("0 -14 Td\n");
        }
        let _ = writeln!(stream, "({line}) Tj");
    }
    stream.push_str("ET");
    stream
}

/// A PDF being written: its bytes so far and the byte offset of each object (object `n` at index `n - 1`).
struct PdfWriter {
    /// The file's bytes so far.
    bytes: Vec<u8>,
    /// The byte offset of each object written, in object-number order.
    offsets: Vec<usize>,
}

impl PdfWriter {
    /// A PDF 1.4 header, with the binary comment line that marks the file as binary.
    fn new() -> Self {
        PdfWriter {
            bytes: b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec(),
            offsets: Vec::new(),
        }
    }

    /// Writes the next object (numbered in the order written, from 1) with `body`.
    fn object(&mut self, body: &str) {
        self.offsets.push(self.bytes.len());
        let number = self.offsets.len();
        self.bytes
            .extend_from_slice(format!("{number} 0 obj\n{body}\nendobj\n").as_bytes());
    }

    /// Writes the next object as an uncompressed stream of `data`.
    fn stream(&mut self, data: &str) {
        self.object(&format!(
            "<< /Length {} >>\nstream\n{data}\nendstream",
            data.len()
        ));
    }

    /// The whole file: the objects, then the cross-reference table (20-byte entries), the trailer naming object
    /// `root` as the catalog, and `startxref`.
    fn finish(mut self, root: usize) -> Vec<u8> {
        let xref = self.bytes.len();
        let size = self.offsets.len() + 1;
        let mut tail = format!("xref\n0 {size}\n0000000000 65535 f \n");
        for offset in &self.offsets {
            // Each entry is 20 bytes: 10 digits, a space, 5 digits, a space, `n`, a space and the line feed.
            let _ = writeln!(tail, "{offset:010} 00000 n ");
        }
        let _ = write!(
            tail,
            "trailer\n<< /Size {size} /Root {root} 0 R >>\nstartxref\n{xref}\n%%EOF\n"
        );
        self.bytes.extend_from_slice(tail.as_bytes());
        self.bytes
    }
}

/// The PDF of `pages`: object 1 the catalog, 2 the page tree, 3 the font (Type1 Helvetica, WinAnsiEncoding), then
/// each page (`4 + 2i`) followed by its content stream (`5 + 2i`).
fn pdf_bytes(pages: &[Vec<String>]) -> Vec<u8> {
    let mut pdf = PdfWriter::new();
    let kids: Vec<String> = (0..pages.len())
        .map(|i| format!("{} 0 R", 4 + 2 * i))
        .collect();
    pdf.object("<< /Type /Catalog /Pages 2 0 R >>");
    pdf.object(&format!(
        "<< /Type /Pages /Kids [{}] /Count {} >>",
        kids.join(" "),
        pages.len()
    ));
    pdf.object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    for (i, lines) in pages.iter().enumerate() {
        pdf.object(&format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> \
             /Contents {} 0 R >>",
            5 + 2 * i
        ));
        pdf.stream(&content_stream(lines));
    }
    pdf.finish(1)
}

/// Writes `document.pdf` in `dir` and returns it (synced to disk) with the text of its pages. Panics (a fixture
/// error) when it cannot be written.
fn write_pdf(dir: &TempDir) -> (Fixture, Vec<Vec<String>>) {
    let pages = page_texts();
    let path = dir.0.join("document.pdf");
    std::fs::write(&path, pdf_bytes(&pages))
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    let pdf = fixture(dir, "document.pdf", (PAGES * LINES_PER_PAGE) as u64);
    (pdf, pages)
}

/// A fresh directory `name` under `dir` that only its owner may read or write (mode 0700), for `XDG_CACHE_HOME`.
fn private_dir(dir: &TempDir, name: &str) -> Result<PathBuf, String> {
    let path = dir.0.join(name);
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(&path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    Ok(path)
}

/// Runs `command` (named `what` in messages) to its exit: its wall time and its standard output. Errors: it cannot
/// be started or fails.
fn timed_output(mut command: Command, what: &str) -> Result<(Duration, Vec<u8>), String> {
    let start = Instant::now();
    let output = command
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    let wall = start.elapsed();
    if !output.status.success() {
        return Err(format!(
            "{what} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        ));
    }
    Ok((wall, output.stdout))
}

/// A read of `pdf` by the CLI (`read-window read FILE --limit 40`) as a whole process, with `XDG_CACHE_HOME` at
/// `cache` and the document cache off unless `document_cache`: its wall time. Errors: the CLI fails, or its output
/// does not begin with page 1's marker line and then `first_line` (see [`check_cli_output`]).
fn cli_read(
    cli: &Path,
    pdf: &Fixture,
    first_line: &str,
    cache: &Path,
    document_cache: bool,
) -> Result<Duration, String> {
    let mut command = Command::new(cli);
    command
        .current_dir(pdf_dir(pdf))
        .env_remove("READ_WINDOW_WASM")
        .env_remove(read_window_host::timings::TIMINGS_ENV)
        .env("XDG_CACHE_HOME", cache)
        .args(["read", &pdf.guest, "--limit", &CLI_LIMIT.to_string()]);
    if document_cache {
        command.env_remove(DOCUMENT_CACHE_ENV);
    } else {
        command.env(DOCUMENT_CACHE_ENV, "off");
    }
    let (wall, stdout) = timed_output(command, "read-window read")?;
    check_cli_output(&String::from_utf8_lossy(&stdout), first_line)
        .map_err(|why| format!("the CLI's read of {}: {why}", pdf.guest))?;
    Ok(wall)
}

/// Checks the CLI's `stdout`: it begins with page 1's marker line `1|--- page 1 of 300 ---`, then line 2 holds
/// the words of `first_line` (the first line drawn on page 1). Errors: what it printed instead.
fn check_cli_output(stdout: &str, first_line: &str) -> Result<(), String> {
    let marker = format!("1|--- page 1 of {PAGES} ---\n");
    let head = || stdout.chars().take(400).collect::<String>();
    if !stdout.starts_with(&marker) {
        return Err(format!(
            "its output does not begin with {:?}: it printed {:?}",
            marker.trim_end(),
            head()
        ));
    }
    let second = stdout
        .lines()
        .nth(1)
        .and_then(|line| line.strip_prefix("2|"));
    if !second.is_some_and(|line| line.split_whitespace().eq(first_line.split_whitespace())) {
        return Err(format!(
            "its line 2 is not page 1's first line {first_line:?}: it printed {:?}",
            head()
        ));
    }
    Ok(())
}

/// The directory holding `pdf` (the CLI's working directory, so its default root grants it).
fn pdf_dir(pdf: &Fixture) -> PathBuf {
    pdf.host
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf)
}

/// True when `pdftotext` can be started (it is on PATH).
fn poppler_installed() -> bool {
    Command::new("pdftotext").arg("-v").output().is_ok()
}

/// `pdftotext FILE -` of `pdf` as a whole process: its wall time and its text. Errors: it fails.
fn pdftotext(pdf: &Fixture) -> Result<(Duration, String), String> {
    let mut command = Command::new("pdftotext");
    command.arg(&pdf.host).arg("-");
    let (wall, stdout) = timed_output(command, "pdftotext")?;
    Ok((wall, String::from_utf8_lossy(&stdout).into_owned()))
}

/// Checks `pdftotext`'s `text` of the PDF: [`PAGES`] pages (each ended by a form feed), each holding the words of
/// its lines in `pages`, in order. Errors: the first page that differs.
fn check_pdftotext(text: &str, pages: &[Vec<String>]) -> Result<(), String> {
    let read: Vec<&str> = text.split('\u{c}').collect();
    if read.len() != pages.len() + 1 || read.last().is_some_and(|rest| !rest.trim().is_empty()) {
        return Err(format!(
            "pdftotext read {} pages of the generated PDF, not {}",
            read.len().saturating_sub(1),
            pages.len()
        ));
    }
    for (number, (got, lines)) in read.iter().zip(pages).enumerate() {
        let expected = lines.iter().flat_map(|line| line.split_whitespace());
        if !got.split_whitespace().eq(expected) {
            return Err(format!(
                "pdftotext's page {} of the generated PDF is not the words drawn on it: {:?}",
                number + 1,
                got.chars().take(200).collect::<String>()
            ));
        }
    }
    Ok(())
}

/// The samples of the three rows.
#[derive(Default)]
struct Samples {
    /// The CLI with the document cache off.
    first: Vec<Duration>,
    /// The CLI with the document cache filled.
    second: Vec<Duration>,
    /// `pdftotext`, when it is installed.
    poppler: Vec<Duration>,
}

/// Section 7: writes the PDF, checks it with `pdftotext` (when installed) and the CLI, then times the CLI's first
/// read, its second read and `pdftotext` [`RUNS`] times each, interleaved, and prints the table and the targets.
/// Errors: the CLI binary is missing, a private cache directory cannot be made, a run fails or a check does not
/// hold.
pub(super) fn documents_section(dir: &TempDir) -> Result<(), String> {
    let cli = cli_binary()?;
    println!("## 7. Documents: a {PAGES}-page PDF, extracted by the CLI and by pdftotext\n");
    let start = Instant::now();
    let (pdf, pages) = write_pdf(dir);
    println!(
        "- The PDF: {PAGES} pages of {LINES_PER_PAGE} lines of {WORDS_PER_LINE} words in Helvetica (Type1, \
         WinAnsiEncoding), uncompressed content streams, {} written by the bench's own writer in {}",
        fmt_size(pdf.bytes),
        fmt_duration(start.elapsed())
    );
    let poppler = poppler_installed();
    if poppler {
        check_pdftotext(&pdftotext(&pdf)?.1, &pages)?;
        println!("- `pdftotext` reads it back as {PAGES} pages of the words drawn (checked)");
    } else {
        println!("- The row `{POPPLER}` is skipped: poppler is not installed (`pdftotext` is not on PATH)");
    }
    // Each XDG_CACHE_HOME gets one untimed run first: it compiles the component into that directory's cache (and,
    // for the second read's, fills the extraction cache), so the timed runs measure extraction alone.
    let cold_cache = private_dir(dir, "xdg-cache-first-read")?;
    let warm_cache = private_dir(dir, "xdg-cache-second-read")?;
    let first_line = pages
        .first()
        .and_then(|lines| lines.first())
        .map_or("", String::as_str);
    let read = |cache: &Path, document_cache: bool| {
        cli_read(&cli, &pdf, first_line, cache, document_cache)
    };
    read(&cold_cache, false)?;
    read(&warm_cache, true)?;
    let mut samples = Samples::default();
    for _ in 0..RUNS {
        samples.first.push(read(&cold_cache, false)?);
        samples.second.push(read(&warm_cache, true)?);
        if poppler {
            samples.poppler.push(pdftotext(&pdf)?.0);
        }
    }
    println!(
        "- Every CLI run's output begins with `1|--- page 1 of {PAGES} ---`, then page 1's first line (checked)\n\n\
         `{} read FILE --limit {CLI_LIMIT}` as a whole process, and `pdftotext FILE -` when installed, each {RUNS} times, \
         interleaved, after one untimed run of each CLI row. First read: `{DOCUMENT_CACHE_ENV}=off`, so it extracts \
         the PDF each time. Second read: its own fresh `XDG_CACHE_HOME` (mode 0700), whose extraction cache the \
         untimed run filled. Both rows' compiled component comes from their `XDG_CACHE_HOME`'s disk cache. Ratio = \
         median ÷ pdftotext's median. ⏱\n",
        cli.display()
    );
    print_rows(samples);
    Ok(())
}

/// Prints the table of `samples` (ratios to `pdftotext`'s median, when it ran) and the two targets.
fn print_rows(samples: Samples) {
    let poppler = (!samples.poppler.is_empty()).then(|| median(&samples.poppler).as_secs_f64());
    let first_method = format!("`read-window read` (whole process, `{DOCUMENT_CACHE_ENV}=off`)");
    let mut rows = vec![
        Row::new(FIRST_READ, first_method, samples.first),
        Row::new(
            SECOND_READ,
            "`read-window read` (whole process, cache filled)",
            samples.second,
        ),
    ];
    if let Some(base) = poppler {
        rows = rows.into_iter().map(|row| row.ratio_to(base)).collect();
        let mut row = Row::new(
            POPPLER,
            "`pdftotext FILE -` (whole process)",
            samples.poppler,
        );
        row.ratio = Some(1.0);
        rows.push(row);
    }
    print_table(&rows, "÷ pdftotext");
    let verdict = |holds: bool| if holds { "holds" } else { "does not hold" };
    println!("Targets of this run ⏱:\n");
    match rows[0].ratio {
        Some(ratio) => println!(
            "- first read ≤ {FIRST_READ_TARGET}× pdftotext: {} ({})",
            fmt_ratio(ratio),
            verdict(ratio <= FIRST_READ_TARGET)
        ),
        None => println!(
            "- first read ≤ {FIRST_READ_TARGET}× pdftotext: n/a (poppler is not installed)"
        ),
    }
    let second_ms = rows[1].median().as_secs_f64() * 1e3;
    println!(
        "- second CLI read ≤ {SECOND_READ_TARGET_MS} ms: {second_ms:.1} ms ({})\n",
        verdict(second_ms <= SECOND_READ_TARGET_MS)
    );
}
