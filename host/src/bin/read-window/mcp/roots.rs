//! Where an MCP session's directories come from ([`Roots`]): the `--root` options, or the client's roots
//! (`roots/list`, `file://` URIs) with the current directory as the fallback.

use std::path::PathBuf;

use read_window_host::Grants;
use rmcp::{Peer, RoleServer};

use super::ROOTS_TIMEOUT;

/// Where the session's directories come from.
#[derive(Clone, Debug)]
pub enum Roots {
    /// `--root` options: these directories, whatever the client offers.
    Fixed(Grants),
    /// No `--root`: the client's roots when it offers some, else these (the current directory).
    ClientOr(Grants),
}

/// What the client's roots come to.
pub(super) enum ClientRoots {
    /// The usable roots the client offers (a `file://` URI of a directory, UTF-8), as grants.
    Granted(Grants),
    /// The client does not declare the roots capability, does not answer `roots/list` in time, or lists none:
    /// the server reads its current directory.
    NotOffered,
    /// The client lists roots and none can be granted: each root with why (`"https://x" (not a local file://
    /// URI)`).
    Unusable(Vec<String>),
}

/// The client's roots as grants, see [`ClientRoots`].
// Roots are deprecated from the 2026 revision on (SEP-2577); this server speaks the revisions before it.
#[allow(deprecated)]
pub(super) async fn client_grants(peer: &Peer<RoleServer>) -> ClientRoots {
    let declared = peer
        .peer_info()
        .is_some_and(|info| info.capabilities.roots.is_some());
    if !declared {
        return ClientRoots::NotOffered;
    }
    let listed = match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
        Ok(Ok(result)) => result.roots,
        Ok(Err(error)) => {
            eprintln!(
                "read-window mcp: roots/list failed ({error}); taking it as no roots offered"
            );
            return ClientRoots::NotOffered;
        }
        Err(_) => {
            eprintln!(
                "read-window mcp: no answer to roots/list within {} s; taking it as no roots offered",
                ROOTS_TIMEOUT.as_secs()
            );
            return ClientRoots::NotOffered;
        }
    };
    let mut grants = Grants::new();
    let mut reasons = Vec::new();
    for root in &listed {
        let Some(path) = file_uri_path(&root.uri) else {
            eprintln!(
                "read-window mcp: skipping the root {:?}: not a local file:// URI",
                root.uri
            );
            reasons.push(format!("{:?} (not a local file:// URI)", root.uri));
            continue;
        };
        match grants.clone().dir(&path) {
            Ok(more) => {
                let is_new = more.dirs().last().is_some_and(|added| {
                    grants
                        .dirs()
                        .iter()
                        .all(|grant| grant.host() != added.host())
                });
                if is_new {
                    grants = more;
                }
            }
            Err(error) => {
                eprintln!("read-window mcp: skipping the root {:?}: {error}", root.uri);
                reasons.push(format!("{:?} ({error})", root.uri));
            }
        }
    }
    if grants.is_empty() {
        if listed.is_empty() {
            return ClientRoots::NotOffered;
        }
        return ClientRoots::Unusable(reasons);
    }
    ClientRoots::Granted(grants)
}

/// What the server will read, in one line for stderr at start.
pub fn describe_roots(roots: &Roots) -> String {
    match roots {
        Roots::Fixed(grants) => format!(
            "reading {} (read-only, from --root)",
            describe_grants(grants)
        ),
        Roots::ClientOr(fallback) => match check_fallback(roots) {
            Ok(()) => format!(
                "no --root given: reading the roots the client offers, or, when it offers none, the current \
                 directory {} (read-only)",
                describe_grants(fallback)
            ),
            Err(why) => format!(
                "no --root given: reading the roots the client offers; {why} When the client offers none, every \
                 call is refused: give --root DIR"
            ),
        },
    }
}

/// Refuses a fallback grant that would open a whole file system or home directory to the model without anyone
/// having asked for it: with no `--root`, the current directory is read when the client offers no roots, and
/// a server started from `/` or `$HOME` (as some clients start servers) would read everything there. The server
/// starts anyway (the client may offer roots); the calls are refused only when it offers none.
///
/// Errors: a sentence naming the directory, when `roots` is [`Roots::ClientOr`] and a fallback directory is `/`
/// or the home directory (`$HOME`, compared canonically).
pub fn check_fallback(roots: &Roots) -> Result<(), String> {
    let Roots::ClientOr(fallback) = roots else {
        return Ok(());
    };
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .and_then(|home| std::path::PathBuf::from(home).canonicalize().ok());
    for grant in fallback.dirs() {
        let what = if grant.host() == std::path::Path::new("/") {
            "the root of the file system"
        } else if home.as_deref() == Some(grant.host()) {
            "your home directory"
        } else {
            continue;
        };
        return Err(format!(
            "the server was started in {} ({what}) with no --root, which it does not open to the model whole.",
            grant.host().display()
        ));
    }
    Ok(())
}

pub(super) fn describe_grants(grants: &Grants) -> String {
    grants
        .dirs()
        .iter()
        .map(|grant| grant.host().display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The local path of a `file://` URI (`file:///abs/path` or `file://localhost/abs/path`, percent-decoded, any
/// query or fragment dropped); `None` for another scheme, a remote host or a malformed escape.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let scheme = uri.get(..7)?;
    if !scheme.eq_ignore_ascii_case("file://") {
        return None;
    }
    let rest = uri.get(7..)?;
    let slash = rest.find('/')?;
    let (host, path) = rest.split_at(slash);
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = path.split(['?', '#']).next()?;
    let bytes = percent_decode(path)?;
    path_from_bytes(bytes)
}

/// Decodes `%XX` escapes; `None` when a `%` is not followed by two hex digits.
fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let high = hex_value(*bytes.get(i + 1)?)?;
            let low = hex_value(*bytes.get(i + 2)?)?;
            out.push(high << 4 | low);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    let text = String::from_utf8(bytes).ok()?;
    // `file:///C:/dir` names `C:/dir`.
    let trimmed = match text.as_bytes() {
        [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => &text[1..],
        _ => text.as_str(),
    };
    Some(PathBuf::from(trimmed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/me/proj"),
            Some(PathBuf::from("/home/me/proj"))
        );
        assert_eq!(
            file_uri_path("FILE://localhost/a%20b/c%2Fd?x#y"),
            Some(PathBuf::from("/a b/c/d"))
        );
        assert_eq!(file_uri_path("file://server/share"), None);
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(file_uri_path("file:///bad%2"), None);
        assert_eq!(file_uri_path("file:///bad%zz"), None);
        assert_eq!(file_uri_path("file://"), None);
        assert_eq!(file_uri_path("fil"), None);
    }
}
