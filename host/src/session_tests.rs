//! The host session's own tests: what only a store of the host can show.

use super::*;

/// A session starts whether its document cache directory is there, was removed by a process of another build
/// (made again), or cannot be made (a file stands where it was: the session starts without it).
#[test]
fn a_session_starts_without_a_document_cache_it_cannot_open() {
    let reader = crate::ReadWindow::load().expect("the component loads");
    let top = tempfile::tempdir().unwrap();
    let (granted, documents) = (top.path().join("granted"), top.path().join("documents"));
    let cache = documents.join("0123456789abcdef");
    std::fs::create_dir_all(&granted).unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    let grants = Grants::new().dir(&granted).unwrap();
    let cache_grant = Grants::new()
        .dir_at(&cache, "/read-window-documents")
        .unwrap()
        .dirs()[0]
        .clone();
    let start = || {
        Live::start(
            reader.shared(),
            &grants,
            Some(&cache_grant),
            SessionLimits::default(),
            Start::Bare,
        )
        .map(|_| ())
        .map_err(|error| format!("{error:#}"))
    };
    assert_eq!(start(), Ok(()));
    std::fs::remove_dir_all(&documents).unwrap();
    assert_eq!(start(), Ok(()));
    assert!(cache.is_dir());
    std::fs::remove_dir(&cache).unwrap();
    std::fs::write(&cache, b"a file where the cache was").unwrap();
    assert_eq!(start(), Ok(()));
}
