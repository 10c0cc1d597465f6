//! `check_write`: whether text a model wants to write back holds anything this component put into a read.

use super::*;

/// What the existing file at `path` is when it is a binary document container (a zip, an OLE compound file, a
/// PDF), in words; `None` for text, a missing file, or anything that cannot be read.
pub(super) fn binary_container<F: FileSystem + ?Sized>(
    fs: &mut F,
    working_directory: &str,
    path: &str,
) -> Option<&'static str> {
    let absolute = normalize(path, working_directory);
    let resolved = resolve(fs, path, &absolute).ok()?;
    if resolved.stat.kind != FileKind::Regular {
        return None;
    }
    let mut file = fs.open(resolved.root, &resolved.relative).ok()?;
    let mut head = Vec::new();
    file.read_at(0, 1024, &mut head).ok()?;
    document::is_binary_container(&head)
}

/// The size in bytes of the existing regular file at `path` when it is a Jupyter notebook (JSON with `nbformat`
/// and its cells, whatever its name), read whole up to the documents' input cap; `None` for anything else.
pub(super) fn existing_notebook<F: FileSystem + ?Sized>(
    fs: &mut F,
    working_directory: &str,
    path: &str,
) -> Option<u64> {
    let absolute = normalize(path, working_directory);
    let resolved = resolve(fs, path, &absolute).ok()?;
    let size = resolved.stat.size;
    if resolved.stat.kind != FileKind::Regular || size > ExtractionLimits::default().max_input_bytes
    {
        return None;
    }
    let mut file = fs.open(resolved.root, &resolved.relative).ok()?;
    let mut head = Vec::new();
    file.read_at(0, 64, &mut head).ok()?;
    if head.iter().find(|byte| !byte.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let bytes = read_whole(&mut file, size).ok()?;
    document::is_notebook(&bytes).then_some(size)
}

/// One check of text to write, after the document guard: `None` when the text passes it.
type Check = fn(&Reader, &WriteText<'_>) -> Option<ReadError>;

/// Text a model wants written to `path`, as the checks of [`Reader::check_write`] see it.
struct WriteText<'a> {
    /// The path as the model gave it (the messages name it so).
    path: &'a str,
    /// The text to write.
    text: &'a str,
    /// Each cell's source when the text is notebook JSON, else empty.
    cell_sources: &'a [String],
    /// The file the path resolves to as a read resolves it (empty until resolved).
    resolved: String,
}

/// `BinaryDocument` when `path` is an existing binary document container (a zip or OLE container, a PDF), or a
/// Jupyter notebook and the text is not notebook JSON (`is_notebook_json` false): the text the model holds of
/// either is an extraction.
fn refuse_document<F: FileSystem + ?Sized>(
    fs: &mut F,
    working: &str,
    path: &str,
    is_notebook_json: bool,
) -> Result<(), ReadError> {
    let shown = crate::prose::path_in_prose(path);
    if let Some(what) = binary_container(fs, working, path) {
        return Err(ReadError::new(
            ErrorKind::BinaryDocument,
            format!(
                "{shown} is {what}, not a text file: any text you hold of it is an extraction (what read-window shows of it), and writing it over the file would destroy the document. Leave {shown} as it is: write the text to a new file (for example a .md or .txt beside it), or change the document with a tool made for its format (python-docx, openpyxl, python-pptx, a PDF editor)."
            ),
        )
        .at_path(path));
    }
    if let Some(size) = existing_notebook(fs, working, path) {
        if !is_notebook_json {
            return Err(ReadError::new(
                ErrorKind::BinaryDocument,
                format!(
                    "{shown} is a Jupyter notebook ({size} bytes of JSON) and the text for it is not notebook JSON: what read-window showed you of it (`# [cell N]` headers, outputs) is an extraction, and writing it would replace the notebook's cells, outputs and metadata. To change the notebook, read its JSON with extract=false and write back the whole JSON with your edit, or edit it with a notebook tool (nbformat, jupytext, jq)."
                ),
            )
            .at_path(path));
        }
    }
    Ok(())
}

impl Reader {
    /// Checks text the model wants written to `path` (`EchoedOutput` when refused). `BinaryDocument`: `path` is an
    /// existing binary document (a zip or OLE container, a PDF), or a Jupyter notebook and the text is not notebook
    /// JSON (the text the model holds of either is an extraction). Refused: text holding two or
    /// more consecutive lines equal to `N|line` lines this session returned (of any file, anywhere in the text,
    /// whatever is around them; the message names the lines of the text); text holding output of this component
    /// (a stub, a block message, a warning, a clamp or budget marker: all start with `MARKER_PREFIX`); and text
    /// holding U+FFFD for a file whose read in this session replaced invalid bytes with it (the message names the
    /// line of the text); and text holding the visible form `⟪U+XXXX⟫` of an invisible character for a file
    /// whose read in this session showed its invisible characters so (the message names the line of the text).
    /// Numbered text this session never returned is accepted. `Unencodable`: text for a file
    /// this session read in a legacy encoding that holds a character that encoding cannot encode (the message
    /// names the first one, its line and column); text that passes must be written back in that encoding.
    /// `Stale`: `path` is a file this session read and its content changed since the session last read it (or
    /// was told by `wrote` that it was written); the message names what changed.
    pub fn check_write<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        path: &str,
        text: &str,
    ) -> Result<(), ReadError> {
        let working = working_directory(&self.config, fs);
        // The text parsed once as notebook JSON: for the notebook guard and the cells' echo check.
        let cell_sources = document::notebook_cell_sources(text.as_bytes());
        refuse_document(fs, &working, path, cell_sources.is_some())?;
        let mut write = WriteText {
            path,
            text,
            cell_sources: cell_sources.as_deref().unwrap_or_default(),
            resolved: String::new(),
        };
        let echoes: [Check; 3] = [
            Self::echoed_gutters,
            Self::echoed_cells,
            Self::component_output,
        ];
        if let Some(error) = echoes.iter().find_map(|check| check(self, &write)) {
            return Err(error);
        }
        // Resolved as a read resolves it (links followed), so a link to a file read, or the file under a linked
        // directory, is checked against what this session knows of that file; a path that does not resolve (a
        // new file) is taken as asked.
        let absolute = normalize(path, &working);
        if let Some(error) = self.stale_text(fs, path, &absolute) {
            return Err(error);
        }
        write.resolved = match crate::sandbox::resolve(fs, path, &absolute) {
            Ok(resolved) => resolved.path,
            Err(_) => self.resolved_alias(fs, path),
        };
        let decodes: [Check; 4] = [
            Self::partial_line,
            Self::lossy_text,
            Self::visible_forms,
            Self::unencodable_text,
        ];
        match decodes.iter().find_map(|check| check(self, &write)) {
            Some(error) => Err(error),
            None => {
                self.announce_write(&write.resolved, text);
                Ok(())
            }
        }
    }

    /// Refused: two or more consecutive lines equal to `N|line` lines this session returned.
    fn echoed_gutters(&self, write: &WriteText<'_>) -> Option<ReadError> {
        let path = crate::prose::path_in_prose(write.path);
        let run = self.returned.echoed_run(write.text)?;
        Some(ReadError::new(
            ErrorKind::EchoedOutput,
            format!(
                "Lines {}-{} of the text for {path} are lines this session returned with their `N|` line numbers (the first is `{}`); writing them would put the gutters into the file. Write the lines without the `N|` prefixes.",
                run.first, run.last, run.quote
            ),
        ))
    }

    /// Notebook JSON keeps each cell's lines inside JSON strings, where no line starts with a gutter: the lines
    /// of each cell's source are checked as they would be written to the cell.
    fn echoed_cells(&self, write: &WriteText<'_>) -> Option<ReadError> {
        let path = crate::prose::path_in_prose(write.path);
        write.cell_sources.iter().enumerate().find_map(|(index, source)| {
            let run = self.returned.echoed_run(source)?;
            Some(ReadError::new(
                ErrorKind::EchoedOutput,
                format!(
                    "Lines {}-{} of cell {} in the notebook JSON for {path} are lines this session returned with their `N|` line numbers (the first is `{}`); writing them would put the gutters into the cell. Write the cell's source without the `N|` prefixes.",
                    run.first,
                    run.last,
                    index + 1,
                    run.quote
                ),
            ))
        })
    }

    /// Refused: output of this component (a stub, a block message, a warning, a clamp or budget marker).
    fn component_output(&self, write: &WriteText<'_>) -> Option<ReadError> {
        let path = crate::prose::path_in_prose(write.path);
        contains_component_output(write.text).then(|| {
            ReadError::new(
                ErrorKind::EchoedOutput,
                format!(
                    "The text for {path} contains `{MARKER_PREFIX}...]`: a stub, a block message or a clamp marker of the read tool, not file content. Read the file again for its real content and write that."
                ),
            )
        })
    }

    /// Refused: a line of the text for a file that is only the piece of a longer line of that file a read showed
    /// (clamped, cut by the budget, or read from a column inside it), its marker taken off: written, it would cut
    /// that line. A piece in text for another file is an excerpt, and passes.
    fn partial_line(&self, write: &WriteText<'_>) -> Option<ReadError> {
        let found = self
            .returned
            .partial
            .first_in(write.text, &write.resolved)?;
        let (piece, line) = (&found.piece, found.piece.line);
        let (path, read) = (
            crate::prose::path_in_prose(write.path),
            crate::prose::path_in_prose(&piece.path),
        );
        let first = line.from_column.saturating_add(1);
        let last = line.from_column.saturating_add(line.shown_chars);
        let rest = if line.from_column == 0 {
            format!(
                "read the rest of it with offset={} column={last} limit=1",
                line.line
            )
        } else {
            format!("read it from its start with offset={} limit=1", line.line)
        };
        Some(ReadError::new(
            ErrorKind::EchoedOutput,
            format!(
                "Line {} of the text for {path} is only part of line {} of {read}: characters {first}-{last} of its {}, as a read showed it (the rest was not shown). Writing it would cut that line in the file for good. To keep the line, {rest} and write it whole, or change only the lines you mean with an edit that leaves line {} as it is.",
                found.text_line,
                line.line,
                crate::prose::grouped(line.total_chars),
                line.line
            ),
        ))
    }

    /// Refused: U+FFFD in text for a file whose read in this session replaced invalid bytes with it.
    fn lossy_text(&self, write: &WriteText<'_>) -> Option<ReadError> {
        let (path, resolved) = (write.path, write.resolved.as_str());
        if !self.returned.is_lossy(resolved) {
            return None;
        }
        let (shown_path, shown_resolved) = (
            crate::prose::path_in_prose(path),
            crate::prose::path_in_prose(resolved),
        );
        let line = replacement_line(write.text)?;
        Some(ReadError::new(
            ErrorKind::EchoedOutput,
            format!(
                "Line {line} of the text for {shown_path} holds U+FFFD, the replacement character: this session's read of {shown_resolved} replaced bytes that are not valid text with it, so this text is the damaged decode, and writing it would replace the file's original bytes for good. Change only the lines you mean with a tool that keeps the other bytes as they are (a byte-level edit or sed on those lines), or convert the file to UTF-8 first (iconv -f ITS-ENCODING -t UTF-8) and read it again."
            ),
        ))
    }

    /// Refused: the visible form `⟪U+XXXX⟫` of an invisible character in text for a file whose read in this
    /// session showed its invisible characters in that form.
    fn visible_forms(&self, write: &WriteText<'_>) -> Option<ReadError> {
        let (path, resolved) = (write.path, write.resolved.as_str());
        if !self.returned.showed_invisible(resolved) {
            return None;
        }
        let (shown_path, shown_resolved) = (
            crate::prose::path_in_prose(path),
            crate::prose::path_in_prose(resolved),
        );
        let (line, form, character) =
            write
                .text
                .split('\n')
                .enumerate()
                .find_map(|(index, line)| {
                    crate::invisible::find_visible_form(line)
                        .map(|(form, character)| (index as u64 + 1, form, character))
                })?;
        let code = u32::from(character);
        Some(ReadError::new(
            ErrorKind::EchoedOutput,
            format!(
                "Line {line} of the text for {shown_path} holds `{form}`, the visible form read-window showed in place of the invisible character U+{code:04X}: {shown_resolved} holds invisible characters, and writing this text would put the form into the file instead of the character. Write the real character (U+{code:04X}) or remove it on purpose, or leave that line unchanged with a byte-level edit (sed on the other lines) that keeps the file's own characters."
            ),
        ))
    }

    /// `Unencodable`: a character the legacy encoding this session read the file in cannot encode.
    fn unencodable_text(&self, write: &WriteText<'_>) -> Option<ReadError> {
        let (path, resolved) = (write.path, write.resolved.as_str());
        let (shown_path, shown_resolved) = (
            crate::prose::path_in_prose(path),
            crate::prose::path_in_prose(resolved),
        );
        let (encoding, runner_up) = self.legacy.encoding_of(resolved)?;
        let Unencodable {
            character,
            line,
            column,
            becomes,
        } = first_unencodable(write.text, encoding)?;
        let name = encoding.name();
        let code = u32::from(character);
        let what = match becomes {
            None => format!("which {name} cannot encode"),
            Some(back) => format!(
                "which {name} cannot hold: it would be written as the bytes of `{back}` and read back as `{back}`"
            ),
        };
        let guess = match runner_up {
            Some(other) => format!(
                " ({name} is a guess from the file's content: it could also be {}, so check which before converting)",
                crate::decode::legacy_label(other)
            ),
            None => String::new(),
        };
        Some(ReadError::new(
            ErrorKind::Unencodable,
            format!(
                "Line {line} of the text for {shown_path} holds U+{code:04X} `{character}` (column {column}), {what}: this session read {shown_resolved} as {name}{guess}, so the text must be written back encoded in {name}, and this character would be lost or changed, or the file would mix two encodings. Use a character {name} has, or convert the file to UTF-8 first (iconv -f {name} -t UTF-8) and read it again."
            ),
        ))
    }
}
