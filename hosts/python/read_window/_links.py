"""Absolute links, resolved on the host: the shared rule of README.md ("Absolute links"), as the Rust host's
``links`` module implements it.

WASI never follows a link whose target is absolute (wasmtime refuses even to read it), so the component would
report ``/usr/share/X11/rgb.txt -> /etc/X11/rgb.txt`` as leading outside the sandbox even with ``/`` granted. The
host can read the target: it walks the requested path through the grants, maps each absolute target back to a
guest path through the grant whose host directory holds it, and hands the component the resolved guest path (or
answers ``outside_sandbox`` naming the link and its target when no grant holds it).
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

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


def resolve_absolute_links(
    grants: List[Tuple[str, str]], working_directory: Optional[str], requested: Any
) -> Tuple[str, Any]:
    """What to hand the component for ``requested`` (a guest path): ``("as_asked", None)``, ``("guest", path)``
    (absolute links were resolved) or ``("outside", answer)`` (an absolute link out of every grant, or a loop of
    links with an absolute one among them; ``answer`` is the ``outside_sandbox`` or ``not_found`` error in the JSON
    shape)."""
    if not isinstance(requested, str) or not requested or "\0" in requested or not grants:
        return ("as_asked", None)
    if working_directory is not None:
        base = normalize(working_directory, "/")
    else:
        base = normalize(grants[0][0], "/")
    current = normalize(requested, base)
    crossed = False
    hops = 0
    while not _is_guarded(current):
        found = _find_grant(grants, current)
        if found is None:
            break
        root, host, relative = found
        names = [name for name in relative.split("/") if name]
        restarted = False
        stop = False
        host_path = host
        for position, name in enumerate(names):
            host_path = os.path.join(host_path, name)
            try:
                is_link = os.path.islink(host_path)
                exists = is_link or os.path.lexists(host_path)
            except (OSError, ValueError):
                exists = False
            if not exists:
                stop = True
                break
            if is_link:
                hops += 1
                if hops > MAX_LINK_HOPS:
                    # Past an absolute link the component would see that link and call it outside the sandbox.
                    if crossed:
                        return ("outside", _link_loop(requested))
                    stop = True
                    break
                try:
                    target = os.readlink(host_path)
                except OSError:
                    stop = True
                    break
                directory = normalize("/".join(names[:position]), root)
                rest = "/".join(names[position + 1 :])
                if target.startswith("/"):
                    mapped = _host_to_guest(grants, target)
                    if mapped is None:
                        link = normalize("/".join(names[: position + 1]), root)
                        return ("outside", _outside(requested, link, target, grants))
                    crossed = True
                    target_guest = mapped
                else:
                    target_guest = normalize(target, directory)
                current = normalize(rest, target_guest) if rest else target_guest
                restarted = True
                break
            if position + 1 < len(names) and not os.path.isdir(host_path):
                stop = True
                break
        if stop or not restarted:
            break
    if not crossed:
        return ("as_asked", None)
    if requested.endswith("/") or requested.endswith("/."):
        current += "/"
    return ("guest", current)
