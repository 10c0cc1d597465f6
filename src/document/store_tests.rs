//! Native tests of the document store through sessions: a later session windows what an earlier one extracted,
//! byte for byte, without extracting it again, and the store's directory is no path a request can name.

use std::path::{Path, PathBuf};

use super::fixtures;
use crate::config::ConfigInput;
use crate::native_fs::NativeFileSystem;
use crate::read::{ReadOutcome, ReadRequest, ReadResult, Reader};
use crate::sandbox::FileSystem;

/// A directory `/w` holding `book.pdf` (three text pages), and a store directory `/cache` beside it.
fn book_and_store() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let top = tempfile::tempdir().unwrap();
    let (work, cache) = (top.path().join("w"), top.path().join("cache"));
    std::fs::create_dir(&work).unwrap();
    std::fs::create_dir(&cache).unwrap();
    std::fs::write(work.join("book.pdf"), fixtures::pdf_three_pages()).unwrap();
    (top, work, cache)
}

/// A file system of `/w`, with the store attached when `cache` is given.
fn mounted(work: &Path, cache: Option<&Path>) -> NativeFileSystem {
    let mut mounts = vec![(work.to_path_buf(), "/w".to_string())];
    mounts.extend(cache.map(|cache| (cache.to_path_buf(), "/cache".to_string())));
    let mut fs = NativeFileSystem::mount(&mounts);
    if cache.is_some() {
        fs.attach_document_store("/cache").unwrap();
    }
    fs
}

fn read(reader: &mut Reader, fs: &mut NativeFileSystem, path: &str) -> Result<ReadResult, String> {
    let request = ReadRequest {
        path: path.to_string(),
        offset: Some(2),
        limit: Some(4),
        ..ReadRequest::default()
    };
    match reader.read(fs, &request, 0) {
        Ok(ReadOutcome::Window(result)) => Ok(result),
        Ok(other) => Err(format!("not a window: {other:?}")),
        Err(error) => Err(error.message),
    }
}

fn entries(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_later_session_windows_the_stored_extraction_byte_for_byte_without_extracting() {
    let (_top, work, cache) = book_and_store();
    let mut plain = Reader::new(ConfigInput::default());
    let expected = read(&mut plain, &mut mounted(&work, None), "/w/book.pdf").unwrap();
    assert_eq!(
        expected.window.content,
        "2|Page 1 heading\n3|Body text of page 1.\n4|--- page 2 of 3 ---\n5|Page 2 heading\n"
    );

    let mut first = Reader::new(ConfigInput::default());
    let mut fs = mounted(&work, Some(&cache));
    assert_eq!(fs.roots(), ["/w"], "the store's preopen is no root");
    assert_eq!(read(&mut first, &mut fs, "/w/book.pdf").unwrap(), expected);
    assert_eq!(first.extractions(), 1);
    let name = super::entry_name(&fixtures::pdf_three_pages(), "pdf");
    assert_eq!(entries(&cache), std::slice::from_ref(&name));

    let mut later = Reader::new(ConfigInput::default());
    let mut fs = mounted(&work, Some(&cache));
    assert_eq!(read(&mut later, &mut fs, "/w/book.pdf").unwrap(), expected);
    assert_eq!(later.extractions(), 0);
    assert_eq!(fs.document_store().map(|store| store.hits), Some(1));

    let refused = read(&mut later, &mut fs, &format!("/cache/{name}")).unwrap_err();
    assert!(refused.contains("outside"), "{refused}");

    // The same bytes under a name that promises another format are another entry: a name decides some cases.
    std::fs::copy(work.join("book.pdf"), work.join("book.docx")).unwrap();
    let renamed = read(&mut later, &mut fs, "/w/book.docx").unwrap();
    assert_eq!(renamed.window.content, expected.window.content);
    let other = super::entry_name(&fixtures::pdf_three_pages(), "docx");
    assert_eq!(entries(&cache), [other, name]);
}

#[test]
fn a_damaged_entry_is_extracted_again_and_replaced() {
    let (_top, work, cache) = book_and_store();
    let mut first = Reader::new(ConfigInput::default());
    let expected = read(&mut first, &mut mounted(&work, Some(&cache)), "/w/book.pdf").unwrap();
    let entry = cache.join(super::entry_name(&fixtures::pdf_three_pages(), "pdf"));
    let mut damaged = std::fs::read(&entry).unwrap();
    let last = damaged.len() - 2;
    damaged[last] = b'#';
    std::fs::write(&entry, &damaged).unwrap();

    let mut later = Reader::new(ConfigInput::default());
    let mut fs = mounted(&work, Some(&cache));
    assert_eq!(read(&mut later, &mut fs, "/w/book.pdf").unwrap(), expected);
    assert_eq!(later.extractions(), 1);
    assert_ne!(
        std::fs::read(&entry).unwrap(),
        damaged,
        "the entry was written again"
    );
    assert_eq!(entries(&cache).len(), 1);
}

#[test]
fn a_store_path_that_names_no_preopen_is_refused_with_a_sentence() {
    let (_top, work, _cache) = book_and_store();
    let mut fs = mounted(&work, None);
    assert_eq!(
        fs.attach_document_store("/elsewhere/"),
        Err(
            "document_cache_dir \"/elsewhere\" is not a directory the host granted, so no document cache is kept"
                .to_string()
        )
    );
    assert_eq!(fs.roots(), ["/w"]);
}

#[test]
fn a_store_inside_a_granted_directory_is_hidden_there() {
    let (_top, work, _cache) = book_and_store();
    let cache = work.join(".cache").join("documents");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(work.join(".cache").join("kept.txt"), "kept\n").unwrap();
    let mut fs = NativeFileSystem::mount(&[
        (work.clone(), "/w".to_string()),
        (cache.clone(), "/w/.cache/documents".to_string()),
    ]);
    fs.attach_document_store("/w/.cache/documents").unwrap();
    let mut reader = Reader::new(ConfigInput::default());
    read(&mut reader, &mut fs, "/w/book.pdf").unwrap();
    let name = super::entry_name(&fixtures::pdf_three_pages(), "pdf");
    assert_eq!(
        entries(&cache),
        std::slice::from_ref(&name),
        "stored in the hidden directory"
    );

    let refused = read(&mut reader, &mut fs, &format!("/w/.cache/documents/{name}")).unwrap_err();
    assert!(refused.contains("does not exist"), "{refused}");
    let listing = |reader: &mut Reader, fs: &mut NativeFileSystem, path: &str| {
        let request = ReadRequest {
            path: path.to_string(),
            ..ReadRequest::default()
        };
        match reader.read(fs, &request, 0) {
            Ok(ReadOutcome::Listing(listing)) => (listing.total_entries, listing.content),
            other => panic!("a listing was expected, not {other:?}"),
        }
    };
    let (total, content) = listing(&mut reader, &mut fs, "/w/.cache");
    assert_eq!(total, 1, "{content}");
    assert!(
        content.contains("kept.txt") && !content.contains("documents"),
        "{content}"
    );
    let refused = listing_error(&mut reader, &mut fs, "/w/.cache/documents");
    assert!(refused.contains("does not exist"), "{refused}");
}

fn listing_error(reader: &mut Reader, fs: &mut NativeFileSystem, path: &str) -> String {
    let request = ReadRequest {
        path: path.to_string(),
        ..ReadRequest::default()
    };
    match reader.read(fs, &request, 0) {
        Err(error) => error.message,
        other => panic!("an error was expected, not {other:?}"),
    }
}
