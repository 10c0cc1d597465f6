//! The document store: extracted documents kept on disk between sessions and processes, so a second CLI read of a
//! 300-page PDF windows the text it extracted before instead of extracting it again.
//!
//! The host grants one private directory for it, read-write, and names it in the config (`document_cache_dir`).
//! The component takes that preopen away from the model's file system and hides it inside any other preopen
//! ([`crate::beneath::Beneath`]), so no read, listing or search reaches it. Each entry is named by the SHA-256 of
//! the document's bytes and the format its name promises (`<64 hex digits>.pdf.extracted`), written to a
//! temporary name created exclusively and renamed into place, and checked on the way back in: its header names
//! this component's version and the entry's own name, its text has the length the header gives, a fingerprint
//! covers the name, format, parts and text, and its parts lie inside the text. An entry that fails a check is
//! removed and the document extracted again. The directory is bounded ([`MAX_STORE_BYTES`],
//! [`MAX_STORE_ENTRIES`]): after each write the least recently used entries (by modification time; a hit sets it
//! to now) are removed.
//! docs/behaviour/documents.md says what a host does for it.

use std::hash::Hasher;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::{DocumentFormat, DocumentPart, ExtractedDocument, PartKind};
use crate::error::FsError;

/// Bytes the store's directory holds at most (256 MiB); the least recently used entries go first.
pub const MAX_STORE_BYTES: u64 = 256 * 1024 * 1024;
/// Entries the store's directory holds at most.
pub const MAX_STORE_ENTRIES: usize = 512;
/// Bytes of one entry at most (64 MiB of text and its header): a larger extraction is not stored.
pub const MAX_ENTRY_BYTES: u64 = 64 * 1024 * 1024;
/// What an entry's file name ends in.
const ENTRY_SUFFIX: &str = ".extracted";
/// The first line of every entry: the format and the component version that wrote it.
const MAGIC: &str = concat!(
    "read-window extracted document 1 ",
    env!("CARGO_PKG_VERSION")
);

/// One regular file of the store's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFile {
    /// Its name in the directory.
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, nanoseconds since the epoch (0 when unknown).
    pub modified_ns: u128,
}

/// The operations the store makes in its directory, each naming one entry (a name without `/`) and never
/// following a link at that name. The component implements it over the WASI preopen; native tests over a host
/// directory.
pub trait StoreDirectory {
    /// The bytes of the regular file `name` when it holds at most `max_bytes`; `Ok(None)` when it is missing,
    /// not a regular file or larger.
    fn read_file(&self, name: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, FsError>;
    /// Creates the regular file `name` exclusively and writes `bytes` to it; `Ok(false)` when the name is taken.
    fn write_new(&self, name: &str, bytes: &[u8]) -> Result<bool, FsError>;
    /// Renames `from` to `to`, replacing a file at `to`.
    fn rename(&self, from: &str, to: &str) -> Result<(), FsError>;
    /// Removes the file `name`.
    fn remove(&self, name: &str) -> Result<(), FsError>;
    /// Sets the modification time of `name` to now (the entry was used).
    fn touch(&self, name: &str) -> Result<(), FsError>;
    /// The regular files of the directory, at most `max` of them.
    fn files(&self, max: usize) -> Result<Vec<StoredFile>, FsError>;
}

/// The document store over its directory: entries found, written and pruned.
pub struct DocumentStore {
    directory: Box<dyn StoreDirectory>,
    /// The guest path of the directory (for messages and the config).
    guest: String,
    /// Entries found (hits), for tests and stats.
    pub hits: u64,
}

impl std::fmt::Debug for DocumentStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocumentStore")
            .field("guest", &self.guest)
            .field("hits", &self.hits)
            .finish_non_exhaustive()
    }
}

/// The name of the entry of a document whose bytes are `bytes`, read under a name that promises `promised` (a
/// format's JSON name, or `none`: [`super::promised_by_name`]): the bytes' SHA-256 in lowercase hex, a dot, the
/// promise, then the suffix (`<64 hex>.pdf.extracted`).
pub fn entry_name(bytes: &[u8], promised: &str) -> String {
    let digest = Sha256::digest(bytes);
    let mut name = String::with_capacity(80 + ENTRY_SUFFIX.len());
    for byte in digest {
        name.push_str(&format!("{byte:02x}"));
    }
    name.push('.');
    name.push_str(promised);
    name.push_str(ENTRY_SUFFIX);
    name
}

impl DocumentStore {
    /// A store over `directory`, granted at the guest path `guest`.
    pub fn new(directory: Box<dyn StoreDirectory>, guest: String) -> Self {
        DocumentStore {
            directory,
            guest,
            hits: 0,
        }
    }

    /// The guest path of the store's directory.
    pub fn guest(&self) -> &str {
        &self.guest
    }

    /// The document stored as `name` ([`entry_name`]), when a valid entry exists. An entry that is unreadable or
    /// fails a check is removed; a hit marks the entry used.
    pub fn load(&mut self, name: &str) -> Option<ExtractedDocument> {
        let bytes = self.directory.read_file(name, MAX_ENTRY_BYTES).ok()??;
        match decode(&bytes, name) {
            Some(document) => {
                self.hits += 1;
                let _ = self.directory.touch(name);
                Some(document)
            }
            None => {
                let _ = self.directory.remove(name);
                None
            }
        }
    }

    /// Stores `document` as `name`: written to a temporary name, renamed into place, then the directory pruned
    /// to its bounds. A failure leaves no entry (the document is extracted again next time); it is not an error
    /// of the read.
    pub fn save(&mut self, name: &str, document: &ExtractedDocument) {
        let bytes = encode(document, name);
        if bytes.len() as u64 > MAX_ENTRY_BYTES {
            return;
        }
        let temporary = format!(".{name}.tmp");
        // A file at the temporary name is a write that died, or another process's: it is removed and the name
        // taken once more, so a leftover never keeps a document out of the store. Should the other process then
        // rename this one's half-written file into place, the entry fails its checks when read and is redone.
        let mut created = self.directory.write_new(&temporary, &bytes);
        if matches!(created, Ok(false)) && self.directory.remove(&temporary).is_ok() {
            created = self.directory.write_new(&temporary, &bytes);
        }
        match created {
            Ok(true) => {
                if self.directory.rename(&temporary, name).is_err() {
                    let _ = self.directory.remove(&temporary);
                }
            }
            Ok(false) => return,
            Err(_) => {
                let _ = self.directory.remove(&temporary);
                return;
            }
        }
        self.prune(name);
    }

    /// Removes the least recently used files beyond [`MAX_STORE_BYTES`] and [`MAX_STORE_ENTRIES`], never `keep`.
    fn prune(&mut self, keep: &str) {
        let Ok(mut files) = self.directory.files(MAX_STORE_ENTRIES * 4) else {
            return;
        };
        files.sort_by_key(|file| std::cmp::Reverse(file.modified_ns));
        if let Some(at) = files.iter().position(|file| file.name == keep) {
            let kept = files.remove(at);
            files.insert(0, kept);
        }
        let mut bytes = 0u64;
        for (index, file) in files.iter().enumerate() {
            bytes = bytes.saturating_add(file.size);
            let over = index >= MAX_STORE_ENTRIES || bytes > MAX_STORE_BYTES;
            if over && index > 0 {
                let _ = self.directory.remove(&file.name);
            }
        }
    }
}

/// The fingerprint an entry's header records: of the entry's name, the document's format, its parts (as the
/// header's JSON gives them) and its text, so an entry renamed or edited in any of them is no entry.
fn entry_fingerprint(name: &str, format: &str, parts: &Value, text: &str) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    for field in [name, format, &parts.to_string()] {
        hasher.write(field.as_bytes());
        hasher.write_u8(0);
    }
    hasher.write(text.as_bytes());
    hasher.finish()
}

/// `document` as the entry `name`: the magic line, a JSON line of its name, format, parts, text length and
/// fingerprint, then its text.
pub fn encode(document: &ExtractedDocument, name: &str) -> Vec<u8> {
    let parts: Vec<Value> = document
        .parts
        .iter()
        .map(|part| {
            json!([
                part.kind.name(),
                part.number,
                part.name,
                part.first_line,
                part.characters,
                part.not_extracted
            ])
        })
        .collect();
    let parts = Value::Array(parts);
    let format = document.format.name();
    let header = json!({
        "entry": name,
        "format": format,
        "text_bytes": document.text.len(),
        "fingerprint": entry_fingerprint(name, format, &parts, &document.text).to_string(),
        "parts": parts,
    });
    let mut bytes = Vec::with_capacity(MAGIC.len() + document.text.len() + 256);
    bytes.extend_from_slice(MAGIC.as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(header.to_string().as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(document.text.as_bytes());
    bytes
}

/// The document the entry `name` holds, when every check passes (see the module doc); `None` otherwise.
pub fn decode(bytes: &[u8], name: &str) -> Option<ExtractedDocument> {
    let rest = bytes.strip_prefix(MAGIC.as_bytes())?.strip_prefix(b"\n")?;
    let end = memchr::memchr(b'\n', rest)?;
    let header: Value = serde_json::from_slice(rest.get(..end)?).ok()?;
    let text = std::str::from_utf8(rest.get(end + 1..)?).ok()?;
    let text_bytes = header.get("text_bytes")?.as_u64()?;
    let fingerprint = header.get("fingerprint")?.as_str()?;
    let format_name = header.get("format")?.as_str()?;
    let parts = header.get("parts")?;
    if header.get("entry")?.as_str()? != name
        || text.len() as u64 != text_bytes
        || entry_fingerprint(name, format_name, parts, text).to_string() != fingerprint
    {
        return None;
    }
    let format = format_named(format_name)?;
    let lines = text.bytes().filter(|&byte| byte == b'\n').count() as u64 + 1;
    let parts = parts
        .as_array()?
        .iter()
        .map(|part| decode_part(part, lines))
        .collect::<Option<Vec<_>>>()?;
    Some(ExtractedDocument {
        format,
        text: text.to_string(),
        parts,
    })
}

/// One part of an entry's header, when its line lies inside the text's `lines`.
fn decode_part(part: &Value, lines: u64) -> Option<DocumentPart> {
    let fields = part.as_array()?;
    let kind = match fields.first()?.as_str()? {
        "cell" => PartKind::Cell,
        "page" => PartKind::Page,
        "sheet" => PartKind::Sheet,
        "slide" => PartKind::Slide,
        "chapter" => PartKind::Chapter,
        _ => return None,
    };
    let name = match fields.get(2)? {
        Value::Null => None,
        Value::String(name) => Some(name.clone()),
        _ => return None,
    };
    let first_line = fields.get(3)?.as_u64()?;
    if first_line == 0 || first_line > lines {
        return None;
    }
    Some(DocumentPart {
        kind,
        number: u32::try_from(fields.get(1)?.as_u64()?).ok()?,
        name,
        first_line,
        characters: fields.get(4)?.as_u64()?,
        not_extracted: fields.get(5)?.as_bool()?,
    })
}

/// The format whose JSON name is `name`.
fn format_named(name: &str) -> Option<DocumentFormat> {
    use DocumentFormat::*;
    [Ipynb, Docx, Xlsx, Xls, Ods, Pptx, Odp, Odt, Epub, Pdf]
        .into_iter()
        .find(|format| format.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::rc::Rc;

    /// Files by name: their bytes and modification time, and the clock that ticks at each write.
    type Files = (BTreeMap<String, (Vec<u8>, u128)>, u128);

    /// A store directory in memory, with a clock that ticks at each write.
    #[derive(Default, Clone)]
    struct Memory(Rc<RefCell<Files>>);

    impl StoreDirectory for Memory {
        fn read_file(&self, name: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, FsError> {
            let state = self.0.borrow();
            Ok(state
                .0
                .get(name)
                .filter(|(bytes, _)| bytes.len() as u64 <= max_bytes)
                .map(|(bytes, _)| bytes.clone()))
        }
        fn write_new(&self, name: &str, bytes: &[u8]) -> Result<bool, FsError> {
            let mut state = self.0.borrow_mut();
            state.1 += 1;
            let now = state.1;
            if state.0.contains_key(name) {
                return Ok(false);
            }
            state.0.insert(name.to_string(), (bytes.to_vec(), now));
            Ok(true)
        }
        fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
            let mut state = self.0.borrow_mut();
            let entry = state.0.remove(from).ok_or(FsError::NotFound)?;
            state.0.insert(to.to_string(), entry);
            Ok(())
        }
        fn remove(&self, name: &str) -> Result<(), FsError> {
            self.0
                .borrow_mut()
                .0
                .remove(name)
                .map(drop)
                .ok_or(FsError::NotFound)
        }
        fn touch(&self, name: &str) -> Result<(), FsError> {
            let mut state = self.0.borrow_mut();
            state.1 += 1;
            let now = state.1;
            let entry = state.0.get_mut(name).ok_or(FsError::NotFound)?;
            entry.1 = now;
            Ok(())
        }
        fn files(&self, max: usize) -> Result<Vec<StoredFile>, FsError> {
            let state = self.0.borrow();
            Ok(state
                .0
                .iter()
                .take(max)
                .map(|(name, (bytes, modified_ns))| StoredFile {
                    name: name.clone(),
                    size: bytes.len() as u64,
                    modified_ns: *modified_ns,
                })
                .collect())
        }
    }

    fn book() -> ExtractedDocument {
        ExtractedDocument {
            format: DocumentFormat::Pdf,
            text: "--- page 1 of 2 ---\nfirst\n--- page 2 of 2 ---\nsecond \"quoted\"\n"
                .to_string(),
            parts: vec![
                DocumentPart {
                    kind: PartKind::Page,
                    number: 1,
                    name: None,
                    first_line: 1,
                    characters: 5,
                    not_extracted: false,
                },
                DocumentPart {
                    kind: PartKind::Page,
                    number: 2,
                    name: Some("Two".to_string()),
                    first_line: 3,
                    characters: 15,
                    not_extracted: true,
                },
            ],
        }
    }

    #[test]
    fn an_entry_decodes_to_the_document_it_encodes() {
        assert_eq!(decode(&encode(&book(), "a"), "a"), Some(book()));
    }

    #[test]
    fn the_entry_name_is_the_sha256_of_the_bytes() {
        assert_eq!(
            entry_name(b"abc", "pdf"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.pdf.extracted"
        );
    }

    #[test]
    fn an_entry_that_fails_a_check_is_not_a_document() {
        let good = encode(&book(), "a");
        let text_at = good.len() - book().text.len();
        let mut changed = good.clone();
        changed[text_at] = b'X';
        let truncated = good[..good.len() - 1].to_vec();
        let other_version = [
            b"read-window extracted document 1 0.0.0\n".as_slice(),
            &good[MAGIC.len() + 1..],
        ]
        .concat();
        let part_past_the_end = String::from_utf8(good.clone())
            .unwrap()
            .replacen(",3,15,", ",9,15,", 1)
            .into_bytes();
        let other_format = String::from_utf8(good.clone())
            .unwrap()
            .replacen("\"format\":\"pdf\"", "\"format\":\"odt\"", 1)
            .into_bytes();
        assert_eq!(
            decode(&good, "b"),
            None,
            "an entry under another document's name"
        );
        for bad in [
            changed,
            truncated,
            other_version,
            part_past_the_end,
            other_format,
            b"garbage".to_vec(),
            Vec::new(),
        ] {
            assert_ne!(bad, good);
            assert_eq!(decode(&bad, "a"), None, "{}", String::from_utf8_lossy(&bad));
        }
    }

    #[test]
    fn a_saved_document_loads_and_a_bad_entry_is_removed() {
        let memory = Memory::default();
        let mut store = DocumentStore::new(Box::new(memory.clone()), "/cache".to_string());
        let name = entry_name(b"the pdf", "pdf");
        assert_eq!(store.load(&name), None);
        store.save(&name, &book());
        assert_eq!(
            memory.0.borrow().0.keys().collect::<Vec<_>>(),
            vec![&name],
            "no temporary file is left"
        );
        assert_eq!(store.load(&name), Some(book()));
        assert_eq!(store.hits, 1);
        memory.0.borrow_mut().0.get_mut(&name).unwrap().0.push(b'!');
        assert_eq!(store.load(&name), None);
        assert!(memory.0.borrow().0.is_empty(), "the bad entry was removed");
        // A write that died left its temporary file: the next write takes the name anyway.
        let leftover = format!(".{name}.tmp");
        memory.0.borrow_mut().0.insert(leftover, (Vec::new(), 0));
        store.save(&name, &book());
        assert_eq!(memory.0.borrow().0.keys().collect::<Vec<_>>(), vec![&name]);
        assert_eq!(store.load(&name), Some(book()));
    }

    #[test]
    fn the_store_keeps_its_most_recently_used_entries_within_its_bounds() {
        let memory = Memory::default();
        let mut store = DocumentStore::new(Box::new(memory.clone()), "/cache".to_string());
        let names: Vec<String> = (0..MAX_STORE_ENTRIES + 3)
            .map(|index| entry_name(index.to_string().as_bytes(), "none"))
            .collect();
        for name in &names {
            store.save(name, &book());
            if name == &names[0] {
                continue;
            }
            // The first entry is used after every write, so it is never the least recently used.
            assert!(store.load(&names[0]).is_some());
        }
        let state = memory.0.borrow();
        assert_eq!(state.0.len(), MAX_STORE_ENTRIES);
        assert!(state.0.contains_key(&names[0]));
        assert!(!state.0.contains_key(&names[1]));
        assert!(!state.0.contains_key(&names[3]));
        assert!(state.0.contains_key(&names[4]));
        assert!(state.0.contains_key(names.last().unwrap()));
    }
}
