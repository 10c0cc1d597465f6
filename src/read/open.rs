//! Stage 4: the file (or the text extracted from a document) opened, fingerprinted and indexed, reusing a kept index.

use super::*;

/// An open file: the scanner over it (holding its last block) and its index.
pub(super) struct Opened<File: ByteSource> {
    /// The scanner over the file, read through [`CrAsLf`] (active when the index splits on `\r`).
    pub(super) scanner: Scanner<CrAsLf<File>>,
    pub(super) index: LineIndex,
    /// The document whose extracted text `scanner` reads, when the file is one.
    pub(super) document: Option<std::sync::Arc<ExtractedDocument>>,
}

impl<File: ByteSource> Opened<File> {
    /// The view `scanner` reads: the document's extracted text, or the file's bytes.
    pub(super) fn view(&self) -> View {
        View::of(self.document.is_some())
    }
}

/// Fingerprints the bytes `[start, end)` (at most `FINGERPRINT_BYTES`) read through `scanner`.
pub(super) fn region_print<S: ByteSource>(
    scanner: &mut Scanner<S>,
    start: u64,
    end: u64,
) -> Result<u64, FsError> {
    let mut bytes = Vec::with_capacity(FINGERPRINT_BYTES);
    scanner.seek(start);
    while scanner.position() < end {
        let wanted = (end - scanner.position()) as usize;
        let available = scanner.fill()?;
        if available.is_empty() {
            break;
        }
        let take = wanted.min(available.len());
        bytes.extend_from_slice(available.get(..take).unwrap_or_default());
        scanner.advance(take);
    }
    Ok(fingerprint(&[&bytes]))
}

/// Sniffs the file from its first block and scans all of it into a new index: split on `\n`, or, when the file
/// has no `\n` at all but has `\r` (and 1-byte code units), split on `\r` (scanned again through an active
/// [`CrAsLf`]).
pub(super) fn build_index<S: ByteSource>(
    scanner: &mut Scanner<CrAsLf<S>>,
    resolved: &Resolved,
    requested: &str,
) -> Result<LineIndex, ReadError> {
    let io = |error: FsError| error.into_read_error(requested);
    if scanner.source_mut().is_active() {
        scanner.source_mut().set_active(false);
        scanner.forget_block();
    }
    scanner.seek(0);
    scanner.set_encoding(TextEncoding::Utf8);
    let block = scanner.fill().map_err(io)?;
    let whole_file = resolved.stat.size > 0 && block.len() as u64 >= resolved.stat.size;
    let verdict = sniff_block(block, whole_file);
    let runner_up = match verdict {
        Verdict::Text {
            encoding: TextEncoding::Legacy(legacy),
            ..
        } if legacy.is_single_byte() => crate::legacy::detect_with_runner_up(block, whole_file)
            .filter(|(detected, _)| *detected == legacy)
            .and_then(|(_, runner_up)| runner_up),
        _ => None,
    };
    let mut index = match verdict {
        Verdict::Binary { kind } => {
            return Err(ReadError::new(
                ErrorKind::Binary,
                format!(
                    "{} is {}, detected from its content (the file name is not trusted); read-window returns text only. {}",
                    crate::prose::path_in_prose(requested),
                    crate::prose::with_article(kind),
                    binary_advice(kind, requested)
                ),
            ));
        }
        Verdict::Text {
            encoding,
            bom_bytes,
        } => {
            scanner.set_encoding(encoding);
            LineIndex::new(encoding, bom_bytes)
        }
    };
    index.extend(scanner).map_err(io)?;
    if index.wants_split_on_cr() {
        scanner.source_mut().set_active(true);
        scanner.forget_block();
        index = LineIndex::new_split_on_cr(index.encoding(), index.data_start());
        index.extend(scanner).map_err(io)?;
    }
    index.identity = Some(identity_of(resolved));
    index.runner_up = runner_up;
    Ok(index)
}

pub(super) fn identity_of(resolved: &Resolved) -> FileIdentity {
    FileIdentity {
        size: resolved.stat.size,
        modified_ns: resolved.stat.modified_ns,
    }
}

/// Opens `resolved` and brings its index up to date: the index `cached` gives for the view read (a document's
/// extracted text, or the file's bytes) is kept when that view is the same version or only grew, and the bytes
/// before the end of its scanned lines still have the fingerprint they had (so a rewrite under the same size and
/// modification time, or an edit before the part that grew, is rescanned from the start).
pub(super) fn open_and_index<S: ByteSource>(
    file: ReadAhead<S>,
    resolved: &Resolved,
    requested: &str,
    cached: impl FnOnce(View) -> Option<LineIndex>,
    documents: &mut DocumentCache,
    store: Option<&mut DocumentStore>,
    extract: bool,
) -> Result<Opened<FileOrText<ReadAhead<S>>>, ReadError> {
    let io = |error: FsError| error.into_read_error(requested);
    let (file, document) = if extract {
        document_source(file, resolved, requested, documents, store)?
    } else {
        (FileOrText::File(file), None)
    };
    let cached = cached(View::of(document.is_some()));
    // A document's lines are those of its extracted text: the index is built over the text, and kept only for the
    // same version of the file (the cache gives the same text for it).
    let text_resolved = document.as_deref().map(|document| Resolved {
        stat: crate::sandbox::FileStat {
            size: document.text.len() as u64,
            ..resolved.stat
        },
        ..resolved.clone()
    });
    let (resolved, cached) = match &text_resolved {
        Some(text) => {
            let identity = identity_of(text);
            (
                text,
                cached.filter(|index| index.identity == Some(identity)),
            )
        }
        None => (resolved, cached),
    };
    let identity = identity_of(resolved);
    let mut scanner = Scanner::new(CrAsLf::new(file), TextEncoding::Utf8);
    scanner.set_size_hint(resolved.stat.size);
    let index = match verified_reuse(&mut scanner, cached, identity).map_err(io)? {
        Some(mut index) => {
            if index.identity != Some(identity) {
                index.extend(&mut scanner).map_err(io)?;
                index.identity = Some(identity);
            }
            if index.wants_split_on_cr() {
                build_index(&mut scanner, resolved, requested)?
            } else {
                index
            }
        }
        None => build_index(&mut scanner, resolved, requested)?,
    };
    Ok(Opened {
        scanner,
        index,
        document,
    })
}

/// The kept index `cached` when it still describes the file `scanner` reads, now at `identity`; `None` when the
/// file is to be indexed again. A file of one block indexed at the same version is checked by its content print (a
/// read of the block the window needs anyway, hashed 8 bytes a step) rather than sniffed and scanned again; a
/// larger one at the same version, or grown, by the print of its resume region. A print that differs (a rewrite
/// under the same size and modification time) rescans it. Sets the scanner's encoding and `\r` splitting to the
/// index's when it checks a print.
fn verified_reuse<S: ByteSource>(
    scanner: &mut Scanner<CrAsLf<S>>,
    cached: Option<LineIndex>,
    identity: FileIdentity,
) -> Result<Option<LineIndex>, FsError> {
    let Some(index) = cached else {
        return Ok(None);
    };
    let known = index.identity;
    if identity.size <= BLOCK_BYTES as u64 && known == Some(identity) {
        scanner.set_encoding(index.encoding());
        scanner.source_mut().set_active(index.splits_on_cr());
        let print = print_prefix(
            scanner,
            index.encoding(),
            index.data_start(),
            index.splits_on_cr(),
            index.scanned_bytes(),
        )?;
        let same = index.scanned_bytes() == identity.size && print == index.content_print();
        return Ok(same.then_some(index));
    }
    let resumable = known.is_some_and(|known| {
        known == identity
            // A file split on `\r` that changed may have gained a `\n`: it is indexed again.
            || (identity.size > known.size && known.size > BLOCK_BYTES as u64 && !index.splits_on_cr())
    }) && identity.size > BLOCK_BYTES as u64;
    if !resumable {
        return Ok(None);
    }
    scanner.set_encoding(index.encoding());
    scanner.source_mut().set_active(index.splits_on_cr());
    let unchanged = match index.resume_region() {
        Some((start, end, print)) => region_print(scanner, start, end)? == print,
        None => true,
    };
    Ok(unchanged.then_some(index))
}

/// Bytes of a file's start read first to tell a document from any other file: a container's magic number and a
/// PDF's `%PDF-` header lie within them (see [`document::candidate`]); only a JSON object is read further (its first
/// block), for a notebook's `"nbformat"`.
pub(super) const HEAD_PROBE_BYTES: usize = 1024;

/// The first bytes of `file` that [`document::candidate`] needs, read once and kept by `file` for the reads after
/// it: [`HEAD_PROBE_BYTES`], or the first block when the probe may start a notebook (a JSON object, or a probe of
/// whitespace only), whose `"nbformat"` key is looked for in the whole block. A file of `size` bytes smaller than a
/// block is read whole and a byte more (what the window's scan asks for), so that one read serves both. The verdict
/// is the one the first block gives.
pub(super) fn document_head<S: ByteSource>(
    file: &mut ReadAhead<S>,
    size: u64,
) -> Result<&[u8], FsError> {
    let whole = usize::try_from(size.saturating_add(1))
        .ok()
        .filter(|&length| length <= BLOCK_BYTES);
    let asked = whole.unwrap_or(HEAD_PROBE_BYTES).max(HEAD_PROBE_BYTES);
    let head = file.read_head(asked)?;
    let first = head.iter().find(|byte| !byte.is_ascii_whitespace());
    if head.len() == asked && asked < BLOCK_BYTES && matches!(first, None | Some(b'{')) {
        file.read_head(BLOCK_BYTES)?;
    }
    Ok(file.head())
}

/// What [`document_source`] gives for a file `S`: the bytes a read windows, and the document extracted from it.
pub(super) type SourceOf<S> = (
    FileOrText<ReadAhead<S>>,
    Option<std::sync::Arc<ExtractedDocument>>,
);

/// The source a read windows: the file, or, when its content (then its name) says it is a document, the text
/// extracted from it (from `documents` when this version was extracted before). Errors: the document's typed
/// error (`too_large`, `malformed_document`, `encrypted_document`; `binary` for a format not extracted). With a
/// `store`, a version this session has not seen is looked up there (by its SHA-256) before it is extracted, and
/// an extraction is kept there for the sessions after.
pub(super) fn document_source<S: ByteSource>(
    mut file: ReadAhead<S>,
    resolved: &Resolved,
    requested: &str,
    documents: &mut DocumentCache,
    store: Option<&mut DocumentStore>,
) -> Result<SourceOf<S>, ReadError> {
    // An empty file holds no document, whatever its name: it reads as the empty file it is (`is empty (0 lines)`),
    // as an empty `.txt` or `.png` does, not as a malformed document.
    if resolved.stat.size == 0 {
        return Ok((FileOrText::File(file), None));
    }
    let io = |error: FsError| error.into_read_error(requested);
    let head = document_head(&mut file, resolved.stat.size).map_err(io)?;
    if document::candidate(head, &resolved.path) == Candidate::No {
        return Ok((FileOrText::File(file), None));
    }
    let limits = ExtractionLimits::default();
    let size = resolved.stat.size;
    // A plain zip (a `.jar`, a JDK's `src.zip`) is an archive whatever its size or entry count: it is refused as
    // `binary` and listed with `unzip -l`, never taken for a document over a cap.
    if document::plain_zip(head, &resolved.path) {
        return Ok((FileOrText::File(file), None));
    }
    // The content's fingerprint is part of the version: a document replaced by another of the same size and
    // modification time (`cp -p`, `rsync -a`, an unzip) is extracted again, not shown from the cache.
    let (fingerprint, whole) = if size > limits.max_input_bytes {
        (0, None)
    } else {
        document_fingerprint(&mut file, size).map_err(io)?
    };
    let version = (size, resolved.stat.modified_ns, fingerprint);
    let extraction = match documents.get(&resolved.path, version) {
        Some(extraction) => Some(extraction),
        None => {
            let extraction = if size > limits.max_input_bytes {
                Err(document::DocumentError::too_large(format!(
                    "{} is {size} bytes, over the cap of {} bytes for documents, so it is not extracted",
                    crate::prose::path_in_prose(requested),
                    limits.max_input_bytes
                )))
            } else {
                let bytes = match whole {
                    Some(bytes) => bytes,
                    None => read_whole(&mut file, size).map_err(io)?,
                };
                stored_or_extracted(&bytes, &resolved.path, &limits, documents, store)
            };
            match extraction {
                Ok(None) => None,
                Ok(Some(document)) => {
                    let extraction = Ok(std::sync::Arc::new(document));
                    documents.put(&resolved.path, version, extraction.clone());
                    Some(extraction)
                }
                Err(error) => {
                    documents.put(&resolved.path, version, Err(error.clone()));
                    Some(Err(error))
                }
            }
        }
    };
    match extraction {
        None => Ok((FileOrText::File(file), None)),
        Some(Ok(document)) => Ok((
            FileOrText::Text(MemorySource::new(document.text.as_bytes())),
            Some(document),
        )),
        Some(Err(error)) => Err(document_error(
            error,
            requested,
            &resolved.path,
            document::is_binary_container(file.head()).is_some(),
        )),
    }
}

/// Files of at most this many bytes are fingerprinted whole; larger ones by their first and last
/// `DOCUMENT_FINGERPRINT_BYTES / 2` (a zip's central directory, at its end, holds the CRC-32 of every part).
pub(super) const DOCUMENT_FINGERPRINT_BYTES: u64 = 16 * 1024 * 1024;

/// The fingerprint of a document file of `size` bytes (FxHash of its bytes, or of its head and tail when it is
/// over [`DOCUMENT_FINGERPRINT_BYTES`]), and its bytes when they were read whole.
pub(super) fn document_fingerprint<S: ByteSource>(
    file: &mut S,
    size: u64,
) -> Result<(u64, Option<Vec<u8>>), FsError> {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    if size <= DOCUMENT_FINGERPRINT_BYTES {
        let bytes = read_whole(file, size)?;
        hasher.write(&bytes);
        return Ok((hasher.finish(), Some(bytes)));
    }
    let half = DOCUMENT_FINGERPRINT_BYTES / 2;
    let mut chunk = Vec::new();
    for start in [0, size - half] {
        let mut at = start;
        while at < start + half {
            file.read_at(at, BLOCK_BYTES, &mut chunk)?;
            if chunk.is_empty() {
                break;
            }
            let take = chunk.len().min((start + half - at) as usize);
            hasher.write(chunk.get(..take).unwrap_or_default());
            at += take as u64;
        }
    }
    Ok((hasher.finish(), None))
}

/// The document in `bytes`: the entry `store` holds for them, else extracted (counted in `documents`) and, when
/// it is a document, kept in `store`.
fn stored_or_extracted(
    bytes: &[u8],
    path: &str,
    limits: &ExtractionLimits,
    documents: &mut DocumentCache,
    store: Option<&mut DocumentStore>,
) -> Result<Option<ExtractedDocument>, document::DocumentError> {
    let Some(store) = store else {
        documents.extractions += 1;
        return extract_document(bytes, path, limits);
    };
    let name = document::entry_name(bytes, document::promised_by_name(path));
    if let Some(document) = store.load(&name) {
        return Ok(Some(document));
    }
    documents.extractions += 1;
    let extraction = extract_document(bytes, path, limits);
    if let Ok(Some(document)) = &extraction {
        store.save(&name, document);
    }
    extraction
}

/// Extracts a document (see [`document::extract`]); without the `documents` feature nothing is a document.
#[cfg(feature = "documents")]
pub(super) fn extract_document(
    bytes: &[u8],
    name: &str,
    limits: &ExtractionLimits,
) -> Result<Option<ExtractedDocument>, document::DocumentError> {
    document::extract(bytes, name, limits)
}

#[cfg(not(feature = "documents"))]
pub(super) fn extract_document(
    _bytes: &[u8],
    _name: &str,
    _limits: &ExtractionLimits,
) -> Result<Option<ExtractedDocument>, document::DocumentError> {
    Ok(None)
}

/// The read error of a document that could not be extracted, with the next move for the model.
/// `container`: the file is a zip, OLE or PDF container, whose bytes read with extract=false are binary too, so the
/// advice for a malformed document leaves that out.
pub(super) fn document_error(
    error: document::DocumentError,
    requested: &str,
    path: &str,
    container: bool,
) -> ReadError {
    let (kind, advice) = match error.kind {
        DocumentErrorKind::Malformed if container => (
            ErrorKind::MalformedDocument,
            "It cannot be extracted as it is: check what the file really is (`file` on it), or ask for a good copy.",
        ),
        DocumentErrorKind::TooLarge => (
            ErrorKind::TooLarge,
            "Extract the part you need with a tool outside read-window (or split the file), then read that.",
        ),
        DocumentErrorKind::Malformed => (
            ErrorKind::MalformedDocument,
            "It cannot be extracted as it is: read its bytes as a file with extract=false (a file named like a document that holds text or JSON reads that way), check what it really is (`file` on it), or ask for a good copy.",
        ),
        DocumentErrorKind::Encrypted => (
            ErrorKind::EncryptedDocument,
            "It needs its password: ask the user for a decrypted copy.",
        ),
        DocumentErrorKind::Unsupported => (ErrorKind::Binary, ""),
    };
    let message = error.message;
    let requested_in_prose = crate::prose::path_in_prose(requested);
    let message = if message.starts_with(&*requested_in_prose) || message.starts_with(path) {
        message
    } else {
        format!("{requested_in_prose}: {message}")
    };
    ReadError::new(kind, format!("{message}. {advice}").trim_end().to_string())
}

/// Adds what a read of a document reports to `result`: the document facts, and the hint's clause on its parts.
pub(super) fn attach_document(result: &mut ReadResult, document: Option<&ExtractedDocument>) {
    if let Some(document) = document {
        let facts = DocumentFacts::of(document, &result.path);
        result.hint.push_str(&facts.hint_clause(
            result.window.start_line,
            result.window.end_line.max(result.window.start_line),
            result.window.content.chars().count() as u64,
        ));
        result.document = Some(facts);
    }
}

/// Opens the file `resolved` and routes it by its first bytes ([`route`]): read by lines, or as an image.
pub(super) fn open_routed<F: FileSystem + ?Sized>(
    fs: &mut F,
    resolved: &Resolved,
    config: &Config,
    request: &ReadRequest,
) -> Result<Routed<F::File>, ReadError> {
    let file = open_file(fs, resolved, &request.path)?;
    route(file, resolved, config, request)
}

/// Opens the file `resolved` (asked for as `requested`), nothing read yet.
pub(super) fn open_file<F: FileSystem + ?Sized>(
    fs: &mut F,
    resolved: &Resolved,
    requested: &str,
) -> Result<ReadAhead<F::File>, ReadError> {
    fs.open(resolved.root, &resolved.relative)
        .map(ReadAhead::new)
        .map_err(|error| error.into_read_error(requested))
}

/// What a read of an opened file gives: a text window with the version of the view it saw, or an image.
#[allow(clippy::large_enum_variant)] // One per read, moved once: boxing would only add an allocation.
pub(super) enum Windowed {
    /// A window of lines, and the version of the view read with its change notice.
    Lines(ReadResult, VersionChange),
    /// A window of an image.
    Image(ImageResult),
}

impl Reader {
    /// [`open_and_index`] of `resolved`, opened, with the index this session kept for the view read.
    pub(super) fn open_with_kept_index<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        resolved: &Resolved,
        requested: &str,
        extract: bool,
    ) -> Result<Opened<FileOrText<ReadAhead<F::File>>>, ReadError> {
        let file = open_file(fs, resolved, requested)?;
        self.index_with_kept(file, resolved, requested, extract, fs.document_store())
    }

    /// [`open_and_index`] of the opened `file` with the index this session kept for the view read.
    pub(super) fn index_with_kept<S: ByteSource>(
        &mut self,
        file: ReadAhead<S>,
        resolved: &Resolved,
        requested: &str,
        extract: bool,
        store: Option<&mut DocumentStore>,
    ) -> Result<Opened<FileOrText<ReadAhead<S>>>, ReadError> {
        let memory = &mut self.memory;
        open_and_index(
            file,
            resolved,
            requested,
            |view| memory.take_file(&resolved.path, view),
            &mut self.documents,
            store,
            extract,
        )
    }

    /// The window of the file `resolved`: opened (or the kept index of the view read reused) and read, the change
    /// against this session's previous read of that view noted, the index kept for the next read. Returns the
    /// result and the version of the view it saw with its change notice. Errors: opening or reading fails (a
    /// change since the previous read named).
    pub(super) fn open_and_window<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        request: &ReadRequest,
        prepared: &Prepared,
        resolved: &Resolved,
    ) -> Result<Windowed, ReadError> {
        let requested = request.path.as_str();
        let file = match open_routed(fs, resolved, &self.config, request)
            .map_err(|error| error.at_path(&resolved.path))?
        {
            Routed::Lines(file) => file,
            Routed::Image(file, format) => {
                return image_result(file, format, resolved, request, &self.image_budget)
                    .map(Windowed::Image)
                    .map_err(|error| error.at_path(&resolved.path));
            }
        };
        let mut opened = self
            .index_with_kept(
                file,
                resolved,
                requested,
                request.extract != Some(false),
                fs.document_store(),
            )
            .map_err(|error| error.at_path(&resolved.path))?;
        let density = self.memory.density(&resolved.path);
        let outcome = window_result(
            &mut opened,
            &self.config,
            density,
            &prepared.request,
            prepared.tail.as_ref(),
            resolved,
            requested,
        );
        let seen = version_change(&self.versions, &resolved.path, &mut opened);
        // Told of a change, the model drops what it had of the file: no stub may stand for a stale window.
        if let Some(through) = seen.unchanged_through {
            self.memory.file_changed(&resolved.path, seen.view, through);
        }
        self.memory.positioned_reads += opened.scanner.reads();
        let view = opened.view();
        self.memory.store_file(&resolved.path, view, opened.index);
        match outcome {
            Ok(mut result) => {
                attach_document(&mut result, opened.document.as_deref());
                Ok(Windowed::Lines(result, seen))
            }
            Err(error) => {
                let error = changed_error(error, &seen, prepared.request.offset, requested);
                Err(error.at_path(&resolved.path))
            }
        }
    }
}
