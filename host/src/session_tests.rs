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
    std::fs::write(granted.join("a.txt"), "one\ntwo\n").unwrap();
    let path = format!("{}/a.txt", grants.dirs()[0].guest());
    // Starts a session and reads a.txt in it: the session must not only start but answer.
    let start_and_read = || {
        let mut live = Live::start(
            reader.shared(),
            &grants,
            Some(&cache_grant),
            SessionLimits::default(),
            Start::Bare,
        )
        .map_err(|error| format!("{error:#}"))?;
        let read = live.bindings.read_window_reader_reader().call_read_once(
            &mut live.store,
            &Config::default(),
            &ReadRequest::new(path.as_str()),
        );
        match read {
            Ok(Ok(ReadOutcome::Window(window))) => Ok(window.content().to_owned()),
            Ok(Ok(other)) => Err(format!("{other:?}")),
            Ok(Err(error)) => Err(format!("{error:?}")),
            Err(error) => Err(format!("{error:#}")),
        }
    };
    let read = Ok("1|one\n2|two\n".to_owned());
    assert_eq!(start_and_read(), read);
    std::fs::remove_dir_all(&documents).unwrap();
    assert_eq!(start_and_read(), read);
    assert!(cache.is_dir());
    std::fs::remove_dir(&cache).unwrap();
    std::fs::write(&cache, b"a file where the cache was").unwrap();
    assert_eq!(start_and_read(), read);
}
