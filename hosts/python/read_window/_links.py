"""Absolute links, resolved on the host: the shared rule of README.md ("Absolute links"), as the Rust host's
``links`` module implements it.

WASI never follows a link whose target is absolute (wasmtime refuses even to read it), so the component would
report ``/usr/share/X11/rgb.txt -> /etc/X11/rgb.txt`` as leading outside the sandbox even with ``/`` granted. The
host can read the target: it walks the requested path through the grants, maps each absolute target back to a
guest path through the grant whose host directory holds it, and hands the component the resolved guest path (or
answers ``outside_sandbox`` naming the link and its target when no grant holds it). With the resolved path it
hands the component the ``asked-via`` list of the read request: the path asked for and each link the walk
crossed, so the component checks its credential rules on every name the model asked through (a link named
``.env`` pointing to an absolute path is refused like the file ``.env``).
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

#: Links followed in one resolution at most (Linux's ``MAXSYMLINKS``, as the component).
MAX_LINK_HOPS = 40

#: Guest namespaces the component guards by name (devices, process files): left to it as asked.
_GUARDED = ("/dev", "/proc")


def normalize(path: str, base: str) -> str:
    """``path`` made absolute against ``base`` (an absolute guest path) and normalized: no empty or ``.`` names,
    ``..`` removes the previous name (and stays at ``/``). The component's own rule."""
    parts: List[str] = []
    joined_base = "" if path.startswith("/") else base
    for part in joined_base.split("/") + path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def onto_guest(given: List[Tuple[str, str]], path: Any) -> Any:
    """``path`` rewritten onto a root's guest path when it lies under the path the root was given by:
    ``given`` holds ``(given path, guest path)`` pairs, the longest given path wins, whole names at a time
    (``/tmp/x/linkroot/a.txt`` becomes ``/tmp/x/L/a.txt`` for a root given as ``/tmp/x/linkroot``, a link to
    ``/tmp/x/L``). Anything else is returned as it is."""
    if not isinstance(path, str) or not path.startswith("/"):
        return path
    best = None
    for given_path, guest in given:
        given_path = given_path.rstrip("/")
        if path == given_path or path.startswith(given_path + "/"):
            if best is None or len(given_path) > len(best[0]):
                best = (given_path, guest)
    if best is None:
        return path
    return best[1].rstrip("/") + path[len(best[0]):] or "/"


def _is_guarded(path: str) -> bool:
    return any(path == prefix or path.startswith(prefix + "/") for prefix in _GUARDED)


def _find_grant(grants: List[Tuple[str, str]], path: str) -> Optional[Tuple[str, str, str]]:
    """The grant (guest, host) with the longest guest path holding ``path``, and the path relative to it."""
    best = None
    for guest, host in grants:
        root = normalize(guest, "/")
        if root == "/":
            relative = path.lstrip("/")
        elif path == root:
            relative = ""
        elif path.startswith(root + "/"):
            relative = path[len(root) + 1 :]
        else:
            continue
        if best is None or len(root) > len(best[0]):
            best = (root, host, relative)
    return best


def _host_to_guest(grants: List[Tuple[str, str]], target: str) -> Optional[str]:
    """The guest path of the absolute host path ``target`` through the grant whose host directory holds it (the
    longest), or ``None``."""
    target = normalize(target, "/")
    best = None
    for guest, host in grants:
        host = host.rstrip("/") or "/"
        if host == "/":
            rest = target.lstrip("/")
        elif target == host:
            rest = ""
        elif target.startswith(host + "/"):
            rest = target[len(host) + 1 :]
        else:
            continue
        if best is None or len(host) > best[0]:
            best = (len(host), normalize(rest, normalize(guest, "/")))
    return None if best is None else best[1]


def _outside(requested: str, link: str, target: str, grants: List[Tuple[str, str]]) -> Dict[str, Any]:
    roots = ", ".join(normalize(guest, "/") for guest, _ in grants)
    message = (
        f"{requested} goes through the link {link}, which points to {target}: outside the directories "
        f"read-window may read ({roots}). Read the file under a granted directory instead."
    )
    return {
        "status": "error",
        "content_returned": False,
        "text": message,
        "error": {"kind": "outside_sandbox", "message": message, "path": link, "suggestions": []},
    }


def _link_loop(requested: str) -> Dict[str, Any]:
    """The answer to a path whose links, an absolute one among them, go round in a loop (the component's words)."""
    message = (
        f"{requested} goes through more than {MAX_LINK_HOPS} links (a link loop?); read the target directly."
    )
    return {
        "status": "error",
        "content_returned": False,
        "text": message,
        "error": {"kind": "not_found", "message": message, "suggestions": []},
    }


class Resolution(NamedTuple):
    """What the host hands the component for one requested path.

    Attributes:
        outcome: ``"as_asked"`` (no absolute link crossed: the request goes as it was), ``"guest"`` (absolute links
            were resolved: ``value`` is the resolved guest path) or ``"outside"`` (``value`` is the answer).
        value: ``None``, the resolved guest path (a trailing ``/`` kept) or the error answer in the JSON shape.
        asked_via: for ``"guest"``, the WIT ``asked-via`` list: the absolute, normalized guest path asked for, then
            the guest path of each link the walk followed (relative or absolute), in order; ``None`` otherwise.
    """

    outcome: str
    value: Any
    asked_via: Optional[List[str]]


def _next_link(grants: List[Tuple[str, str]], current: str) -> Optional[Tuple[str, Optional[str], str, str]]:
    """The first link on the way of the guest path ``current``, walked by name with ``lstat`` through the grant that
    holds it: ``(the link's guest path, its target or None when it cannot be read, the guest path of its
    directory, the rest of the path after it)``. ``None`` when the walk ends before any link: a guarded or
    ungranted path, a missing name, a file in the middle."""
    found = None if _is_guarded(current) else _find_grant(grants, current)
    if found is None:
        return None
    root, host_path, relative = found
    names = [name for name in relative.split("/") if name]
    for position, name in enumerate(names):
        host_path = os.path.join(host_path, name)
        try:
            is_link = os.path.islink(host_path)
            exists = is_link or os.path.lexists(host_path)
        except (OSError, ValueError):
            exists = False
        if not exists:
            return None
        if is_link:
            try:
                target: Optional[str] = os.readlink(host_path)
            except OSError:
                target = None
            link = normalize("/".join(names[: position + 1]), root)
            directory = normalize("/".join(names[:position]), root)
            return link, target, directory, "/".join(names[position + 1 :])
        if position + 1 < len(names) and not os.path.isdir(host_path):
            return None
    return None


def resolve_absolute_links(
    grants: List[Tuple[str, str]], working_directory: Optional[str], requested: Any
) -> Resolution:
    """What to hand the component for ``requested`` (a guest path, relative to ``working_directory`` or else to
    the first grant's guest path): the request as asked, the resolved guest path with the ``asked-via`` list (when
    an absolute link was crossed), or the answer that ends the read (an absolute link out of every grant:
    ``outside_sandbox``; more than ``MAX_LINK_HOPS`` links with an absolute one among them: ``not_found``). See
    ``Resolution``. Never raises: a path that is not a non-empty string without NUL goes as asked."""
    if not isinstance(requested, str) or not requested or "\0" in requested or not grants:
        return Resolution("as_asked", None, None)
    base = normalize(working_directory if working_directory is not None else grants[0][0], "/")
    asked = current = normalize(requested, base)
    followed: List[str] = []
    crossed = False
    while True:
        step = _next_link(grants, current)
        if step is None:
            break
        link, target, directory, rest = step
        if len(followed) >= MAX_LINK_HOPS:
            # Past an absolute link the component would see that link and call it outside the sandbox.
            if crossed:
                return Resolution("outside", _link_loop(requested), None)
            break
        if target is None:
            break
        followed.append(link)
        if target.startswith("/"):
            mapped = _host_to_guest(grants, target)
            if mapped is None:
                return Resolution("outside", _outside(requested, link, target, grants), None)
            crossed, target = True, mapped
        else:
            target = normalize(target, directory)
        current = normalize(rest, target) if rest else target
    if not crossed:
        return Resolution("as_asked", None, None)
    if requested.endswith("/") or requested.endswith("/."):
        current += "/"
    return Resolution("guest", current, [asked] + followed)
