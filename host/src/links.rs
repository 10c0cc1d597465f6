//! Absolute links, resolved on the host.
//!
//! WASI runtimes never follow a symbolic link whose target is absolute (wasmtime refuses even to read it: it would
//! show host paths), so to the component `/usr/share/X11/rgb.txt -> /etc/X11/rgb.txt` leads outside the sandbox
//! even when `/` is granted. The host can see the target, so it resolves what WASI cannot, by one rule that every
//! host of this repository implements (docs/hosts.md, "Absolute links"):
//!
//! 1. The requested path is made absolute against the working directory (the config's, else the first grant's
//!    guest path) and normalized lexically (`.` dropped, `..` removes the previous name), as the component does.
//!    A path under `/dev` or `/proc` is left to the component (whose guards refuse devices and process files by
//!    the name asked for, before any link: `/dev/stdin` is a link to `/proc/self/fd/0`), and so is a walk that
//!    arrives there.
//! 2. It is walked one name at a time through the grant with the longest guest-path prefix, with `lstat` on the
//!    host. A link with a relative target is spliced in (resolved against the link's directory) and the walk
//!    starts over; a link with an absolute target (a host path) is mapped back to a guest path through the grant
//!    whose host directory holds it (the longest), and the walk starts over. At most 40 links are followed.
//! 3. An absolute target under no grant ends the read: `outside_sandbox`, naming the link and its target. More
//!    than 40 links, an absolute one among them, end it too: `not_found`, a link loop (a loop of relative links
//!    alone is left to the component, which says the same). The host does not word these refusals: a protocol
//!    line goes to the component with the request's `link_refusal` ([`Refusal::field`]), which the component
//!    answers in its own words; the typed API takes the same words from the component's code compiled into the
//!    host ([`Refusal::error`]: `read_window::outside_link_error` and `link_loop_error`).
//! 4. When the walk crossed at least one absolute link, the component is handed the resolved guest path (with
//!    the request's trailing `/` kept) and, as the request's `asked-via`, the path asked for and each link the
//!    walk followed, on which it checks the credential rules; otherwise the request goes to the component
//!    unchanged. A walk that
//!    cannot go on (a missing name, a file in the middle, a relative link out of every grant, a non-UTF-8
//!    target) stops there and hands over what it resolved so far: the component answers for the rest, and still
//!    checks every step of the path it is given.

use std::path::{Component, Path, PathBuf};

use read_window::protocol::LinkRefusal;
use serde_json::{json, Value};

use crate::{Config, Grant, Grants, ReadError, ReadRequest};

/// Links followed in one resolution at most (Linux's `MAXSYMLINKS`, as the component).
const MAX_LINK_HOPS: u32 = 40;

/// What the host does with a requested path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Resolution {
    /// No absolute link on the way: hand the request to the component as it is.
    AsAsked,
    /// Absolute links were resolved: hand the component `resolved` (a guest path) instead, with `passed` as the
    /// request's `asked-via`, so the component checks the credential rules on every name the host went through.
    Guest {
        /// The guest path the links lead to.
        resolved: String,
        /// The path asked for (absolute and normalized), then the guest path of each link followed, in order.
        passed: Vec<String>,
    },
    /// An absolute link leads out of every grant, or links that include an absolute one go round in a loop: the
    /// read is refused (`outside_sandbox`, or `not_found` for the loop), in the component's words.
    Refused(LinkRefusal),
}

/// A path the walk of absolute links refused: the path as the request gave it (moved onto a root's guest path, see
/// [`Grants::onto_guest`]) and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    /// The requested path, which the refusal names.
    pub(crate) requested: String,
    /// What the walk found: a link out of every grant, or a loop.
    pub(crate) why: LinkRefusal,
}

impl Refusal {
    /// The request's `link_refusal` field for the protocol (`docs/protocol.md`): `{"outside": {"link": L,
    /// "target": T}}` or `"loop"`; the component answers it in its own words.
    pub(crate) fn field(&self) -> Value {
        match &self.why {
            LinkRefusal::Outside { link, target } => {
                json!({"outside": {"link": link, "target": target}})
            }
            LinkRefusal::Loop => json!("loop"),
        }
    }

    /// The typed API's answer (no protocol line to carry the field): the error the component answers a
    /// `link_refusal` with, worded by its own functions (`outside_link_error`, naming the link, its target and the
    /// guest paths of `grants`; `link_loop_error`).
    pub(crate) fn error(&self, grants: &Grants) -> ReadError {
        use read_window::{link_loop_error, outside_link_error};
        let core = match &self.why {
            LinkRefusal::Outside { link, target } => {
                let roots: Vec<String> = grants
                    .dirs()
                    .iter()
                    .map(|grant| grant.guest().to_owned())
                    .collect();
                outside_link_error(&self.requested, link, target, &roots).at_path(link)
            }
            LinkRefusal::Loop => link_loop_error(&self.requested),
        };
        ReadError::from_core(core)
    }
}

/// Resolves the absolute links on the way of `requested` (a guest path, relative to `working_directory` or the
/// first grant) inside `grants`; see the module documentation for the rule.
pub(crate) fn resolve_absolute_links(
    grants: &Grants,
    working_directory: Option<&str>,
    requested: &str,
) -> Resolution {
    if requested.is_empty() || requested.contains('\0') || grants.is_empty() {
        return Resolution::AsAsked;
    }
    let asked = normalize(requested, &walk_base(grants, working_directory));
    let mut walk = Walk {
        grants,
        current: asked.clone(),
        passed: vec![asked],
        crossed: false,
        hops: 0,
    };
    loop {
        match walk.pass() {
            Pass::Followed => {}
            Pass::Stopped => break,
            Pass::Refused(why) => return Resolution::Refused(why),
        }
    }
    if !walk.crossed {
        return Resolution::AsAsked;
    }
    let mut resolved = walk.current;
    if requested.ends_with('/') || requested.ends_with("/.") {
        resolved.push('/');
    }
    Resolution::Guest {
        resolved,
        passed: walk.passed,
    }
}

/// The absolute guest directory a relative requested path starts from: `working_directory`, else the first
/// grant's guest path, else `/`; normalized.
fn walk_base(grants: &Grants, working_directory: Option<&str>) -> String {
    match working_directory {
        Some(directory) => normalize(directory, "/"),
        None => grants
            .dirs()
            .first()
            .map_or_else(|| "/".to_string(), |grant| normalize(grant.guest(), "/")),
    }
}

/// How one pass of a [`Walk`] over the current path ended.
enum Pass {
    /// A link was followed: the walk starts over from its new current path.
    Followed,
    /// The walk cannot go on, or reached the end of the path: it hands over what it resolved so far.
    Stopped,
    /// The walk ends the read: an absolute link out of every grant, or a loop.
    Refused(LinkRefusal),
}

/// The state of one resolution (step 2 of the module's rule): the path it has reached and what it went through.
struct Walk<'a> {
    /// The grants the walk may go through.
    grants: &'a Grants,
    /// The guest path (absolute, normalized) the walk has reached.
    current: String,
    /// The path asked for (absolute, normalized), then the guest path of each link followed, in order.
    passed: Vec<String>,
    /// Whether an absolute link was crossed.
    crossed: bool,
    /// Links followed so far.
    hops: u32,
}

/// Whether every name of `relative` under the (canonical) directory `grant` exists and none is a link, known in
/// one system call on Linux (`openat2` with `RESOLVE_NO_SYMLINKS`, the path only looked up); `false` when a name is
/// a link or missing, or the call cannot tell (another system, an older kernel): the walk asks name by name.
#[cfg(target_os = "linux")]
fn no_link_on(relative: &Path, grant: &Path) -> bool {
    use rustix::fs::{openat2, Mode, OFlags, ResolveFlags, CWD};
    // Not `NOFOLLOW`: with `PATH` it would open a link at the last name instead of failing.
    let flags = OFlags::PATH | OFlags::CLOEXEC;
    openat2(
        CWD,
        grant.join(relative),
        flags,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS,
    )
    .is_ok()
}

/// Never known in one call here: the walk asks name by name.
#[cfg(not(target_os = "linux"))]
fn no_link_on(_relative: &Path, _grant: &Path) -> bool {
    false
}

impl Walk<'_> {
    /// Walks `current` one name at a time through the grant that holds it, with `lstat` on the host, up to the
    /// first link (which it follows) or the first name it cannot pass.
    fn pass(&mut self) -> Pass {
        if is_guarded(&self.current) {
            return Pass::Stopped;
        }
        let Some((grant, relative)) = find_grant(self.grants, &self.current) else {
            return Pass::Stopped;
        };
        let names: Vec<&str> = relative
            .split('/')
            .filter(|name| !name.is_empty())
            .collect();
        // A path with no link at all ends the walk as a walk to its end would, without a `lstat` per name.
        if names.len() > 1 && no_link_on(&names.iter().collect::<PathBuf>(), grant.host()) {
            return Pass::Stopped;
        }
        let mut host = grant.host().to_path_buf();
        for (position, name) in names.iter().enumerate() {
            host.push(name);
            let Ok(metadata) = std::fs::symlink_metadata(&host) else {
                return Pass::Stopped;
            };
            if metadata.file_type().is_symlink() {
                return self.follow(grant, &host, &names, position);
            }
            let is_last = position + 1 == names.len();
            if !is_last && !metadata.is_dir() {
                return Pass::Stopped;
            }
        }
        Pass::Stopped
    }

    /// Follows the link `host` (the host path of `names[..=position]` under `grant`): splices its target into the
    /// current path, mapping an absolute target back to a guest path; refuses a target under no grant, and more
    /// than [`MAX_LINK_HOPS`] links once an absolute one was crossed.
    fn follow(&mut self, grant: &Grant, host: &Path, names: &[&str], position: usize) -> Pass {
        self.hops += 1;
        if self.hops > MAX_LINK_HOPS {
            // Past an absolute link the component would see that link and call it outside the sandbox: the loop
            // is refused here (in the component's words), as the component refuses a loop of relative links.
            return if self.crossed {
                Pass::Refused(LinkRefusal::Loop)
            } else {
                Pass::Stopped
            };
        }
        let Some(target) = std::fs::read_link(host)
            .ok()
            .and_then(|target| target.to_str().map(str::to_owned))
        else {
            return Pass::Stopped;
        };
        let directory = join_guest(grant.guest(), &names[..position]);
        let link = join_guest(grant.guest(), &names[..=position]);
        if self.passed.last() != Some(&link) {
            self.passed.push(link.clone());
        }
        let target_guest = if target.starts_with('/') {
            match host_to_guest(self.grants, &target) {
                Some(guest) => {
                    self.crossed = true;
                    guest
                }
                None => return Pass::Refused(LinkRefusal::Outside { link, target }),
            }
        } else {
            normalize(&target, &directory)
        };
        let rest = names[position + 1..].join("/");
        self.current = if rest.is_empty() {
            target_guest
        } else {
            normalize(&rest, &target_guest)
        };
        Pass::Followed
    }
}

/// Whether `path` (absolute, normalized) lies in a namespace the component guards by name: `/dev`, `/proc`.
fn is_guarded(path: &str) -> bool {
    ["/dev", "/proc"].iter().any(|prefix| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// `path` made absolute against `base` (an absolute guest path) and normalized: the component's own rule, from
/// the core crate, so host and component agree on every path.
fn normalize(path: &str, base: &str) -> String {
    read_window::normalize(path, base)
}

/// The guest path of `names` under the guest directory `guest`.
fn join_guest(guest: &str, names: &[&str]) -> String {
    normalize(&names.join("/"), &normalize(guest, "/"))
}

/// The grant with the longest guest path holding `path` (absolute, normalized), and the path relative to it.
fn find_grant<'a>(grants: &'a Grants, path: &str) -> Option<(&'a Grant, String)> {
    grants
        .dirs()
        .iter()
        .filter_map(|grant| {
            let root = normalize(grant.guest(), "/");
            let relative = if root == "/" {
                Some(path.trim_start_matches('/').to_string())
            } else if path == root {
                Some(String::new())
            } else {
                path.strip_prefix(&root)
                    .and_then(|rest| rest.strip_prefix('/'))
                    .map(str::to_owned)
            }?;
            Some((grant, relative, root.len()))
        })
        .max_by_key(|(_, _, length)| *length)
        .map(|(grant, relative, _)| (grant, relative))
}

/// The guest path of the host path `target` (absolute), through the grant whose host directory holds it (the
/// longest); `None` when no grant does.
fn host_to_guest(grants: &Grants, target: &str) -> Option<String> {
    let target = PathBuf::from(normalize(target, "/"));
    grants
        .dirs()
        .iter()
        .filter_map(|grant| {
            let rest = target.strip_prefix(grant.host()).ok()?;
            let names: Vec<&str> = rest
                .components()
                .filter_map(|component| match component {
                    Component::Normal(name) => name.to_str(),
                    _ => None,
                })
                .collect();
            Some((grant, names, grant.host().as_os_str().len()))
        })
        .max_by_key(|(_, _, length)| *length)
        .map(|(grant, names, _)| join_guest(grant.guest(), &names))
}

/// `request` with a path under a root given through a link rewritten onto its guest path ([`Grants::onto_guest`]),
/// then the absolute links on the way of its path resolved on the host (WASI cannot follow them); `working_directory`
/// starts a relative path. Errors: the [`Refusal`] of a link out of every grant, or of a loop.
pub(crate) fn walk_links(
    grants: &Grants,
    working_directory: Option<&str>,
    request: &ReadRequest,
) -> Result<ReadRequest, Refusal> {
    let request = &match grants.onto_guest(&request.path) {
        Some(path) => ReadRequest {
            path,
            ..request.clone()
        },
        None => request.clone(),
    };
    match resolve_absolute_links(grants, working_directory, &request.path) {
        Resolution::AsAsked => Ok(request.clone()),
        Resolution::Guest { resolved, passed } => Ok(ReadRequest {
            path: resolved,
            asked_via: Some(passed),
            ..request.clone()
        }),
        Resolution::Refused(why) => Err(Refusal {
            requested: request.path.clone(),
            why,
        }),
    }
}

/// [`walk_links`] for the typed API, with `config`'s working directory; a refusal is the `outside-sandbox` (or
/// link loop `not-found`) error in the component's words ([`Refusal::error`]).
pub(crate) fn through_links(
    grants: &Grants,
    config: &Config,
    request: &ReadRequest,
) -> Result<ReadRequest, ReadError> {
    walk_links(grants, config.working_directory.as_deref(), request)
        .map_err(|refusal| refusal.error(grants))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_matches_the_component() {
        assert_eq!(normalize("a/./b/../c", "/project"), "/project/a/c");
        assert_eq!(normalize("/x//y/", "/ignored"), "/x/y");
        assert_eq!(normalize("../../..", "/a"), "/");
    }

    #[test]
    fn host_paths_map_to_the_longest_grant() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let grants = Grants::new()
            .dir_at(&root, "/w")
            .unwrap()
            .dir_at(root.join("sub"), "/s")
            .unwrap();
        let inside = format!("{}/sub/a.txt", root.display());
        assert_eq!(host_to_guest(&grants, &inside).as_deref(), Some("/s/a.txt"));
        let top = format!("{}/b.txt", root.display());
        assert_eq!(host_to_guest(&grants, &top).as_deref(), Some("/w/b.txt"));
        assert_eq!(host_to_guest(&grants, "/nowhere/else"), None);
    }

    #[test]
    fn a_link_out_of_every_grant_is_refused_with_the_field_and_the_words_of_the_component() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::os::unix::fs::symlink("/elsewhere/x.txt", root.join("out")).unwrap();
        let grants = Grants::new().dir_at(&root, "/w").unwrap();
        let refusal = walk_links(&grants, None, &ReadRequest::new("out")).unwrap_err();
        assert_eq!(
            refusal.field(),
            json!({"outside": {"link": "/w/out", "target": "/elsewhere/x.txt"}})
        );
        let error = refusal.error(&grants);
        assert_eq!(error.kind, crate::ErrorKind::OutsideSandbox);
        assert_eq!(error.path.as_deref(), Some("/w/out"));
        assert_eq!(
            error.message,
            "out goes through the link /w/out, which points to /elsewhere/x.txt: outside the directories \
             read-window may read (/w). Read the file under a granted directory instead."
        );
    }

    #[test]
    fn a_rewritten_path_lists_the_path_asked_for_and_each_link_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::write(root.join("real/b.txt"), "b\n").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join(".env")).unwrap();
        std::os::unix::fs::symlink(".env", root.join("note")).unwrap();
        let grants = Grants::new().dir_at(&root, "/w").unwrap();
        assert_eq!(
            resolve_absolute_links(&grants, None, "note/b.txt"),
            Resolution::Guest {
                resolved: "/w/real/b.txt".to_string(),
                passed: vec![
                    "/w/note/b.txt".to_string(),
                    "/w/note".to_string(),
                    "/w/.env".to_string()
                ],
            }
        );
    }
}
