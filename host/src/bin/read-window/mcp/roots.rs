//! Where an MCP session's directories come from ([`Roots`]): the `--root` options, or the client's roots
//! (`roots/list`, `file://` URIs) with the current directory as the fallback.

use read_window::protocol::mcp_server::{cwd_refusal, resolve_roots, RootsFrom, RootsInput};
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
    /// The client lists roots and none can be granted: the message for the model, each root named with why.
    Unusable(String),
}

/// The client's roots as grants, see [`ClientRoots`]: the component's rule
/// ([`read_window::protocol::mcp_server::resolve_roots`]) names them; a root this host cannot grant is named
/// back to it, which then says whether any is left.
// Roots are deprecated from the 2026 revision on (SEP-2577); this server speaks the revisions before it.
#[allow(deprecated)]
pub(super) async fn client_grants(peer: &Peer<RoleServer>) -> ClientRoots {
    // A client that lists no roots offers none: the server reads its current directory, by the fallback rule.
    let Some(listed) = listed_roots(peer).await.filter(|listed| !listed.is_empty()) else {
        return ClientRoots::NotOffered;
    };
    let mut input = RootsInput {
        client_roots: Some(listed),
        cwd: "/".to_owned(),
        ..RootsInput::default()
    };
    loop {
        let answer = resolve_roots(&input);
        if let Some(refusal) = answer.refusal {
            return ClientRoots::Unusable(refusal);
        }
        if answer.from != RootsFrom::Client {
            return ClientRoots::NotOffered;
        }
        let mut grants = Grants::new();
        let failed = input.ungrantable.len();
        for root in answer.roots {
            match grants.clone().dir(&root) {
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
                Err(error) => input.ungrantable.push((root, error.to_string())),
            }
        }
        if input.ungrantable.len() == failed {
            for (root, why) in &answer.refused {
                eprintln!("read-window mcp: skipping the root {root:?}: {why}");
            }
            return ClientRoots::Granted(grants);
        }
    }
}

/// The URIs the client lists, or `None` when it does not declare the roots capability or does not answer
/// `roots/list` in time.
#[allow(deprecated)]
async fn listed_roots(peer: &Peer<RoleServer>) -> Option<Vec<String>> {
    let declared = peer
        .peer_info()
        .is_some_and(|info| info.capabilities.roots.is_some());
    if !declared {
        return None;
    }
    match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
        Ok(Ok(result)) => Some(result.roots.into_iter().map(|root| root.uri).collect()),
        Ok(Err(error)) => {
            eprintln!(
                "read-window mcp: roots/list failed ({error}); taking it as no roots offered"
            );
            None
        }
        Err(_) => {
            eprintln!(
                "read-window mcp: no answer to roots/list within {} s; taking it as no roots offered",
                ROOTS_TIMEOUT.as_secs()
            );
            None
        }
    }
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
            Err(message) => format!(
                "no --root given: reading the roots the client offers; when it offers none, every call is \
                 answered: {message}"
            ),
        },
    }
}

/// Refuses a fallback grant that would open a whole file system or home directory to the model without anyone
/// having asked for it: with no `--root`, the current directory is read when the client offers no roots, and
/// a server started from `/` or `$HOME` (as some clients start servers) would read everything there. The server
/// starts anyway (the client may offer roots); the calls are refused only when it offers none.
///
/// Errors: the message for the model, naming the directory, when `roots` is [`Roots::ClientOr`] and a fallback directory is `/`
/// or the home directory (`$HOME`, compared canonically).
pub fn check_fallback(roots: &Roots) -> Result<(), String> {
    let Roots::ClientOr(fallback) = roots else {
        return Ok(());
    };
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .and_then(|home| std::path::PathBuf::from(home).canonicalize().ok());
    let home = home.as_deref().and_then(std::path::Path::to_str);
    for grant in fallback.dirs() {
        if let Some(message) = grant.host().to_str().and_then(|cwd| cwd_refusal(cwd, home)) {
            return Err(message);
        }
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
