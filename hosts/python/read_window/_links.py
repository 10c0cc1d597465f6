"""Absolute links, resolved on the host (docs/hosts.md, "Absolute links"; the Rust host's ``links`` and ``linked_line``).

WASI never follows a link whose target is absolute, so the component would call ``/usr/share/X11/rgb.txt ->
/etc/X11/rgb.txt`` outside the sandbox even with ``/`` granted. The host walks the path through the grants, maps each
absolute target back to a guest path through the grant whose host directory holds it, and hands the component the
resolved guest path with ``asked_via`` (the path asked for and each link crossed, for the credential rules), or
answers ``outside_sandbox`` naming the link and its target when no grant holds it.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

Grants = List[Tuple[str, str]]

#: Links followed in one resolution at most (Linux's ``MAXSYMLINKS``, as the component).
MAX_LINK_HOPS = 40

#: Guest namespaces the component guards by name (devices, process files): left to it as asked.
_GUARDED = ("/dev", "/proc")

#: The ops whose ``path`` the host walks before the component sees the request.
WALKED_OPS = ("read", "read_once", "check_write")

#: The op each tool of a ``tool_call`` stands for.
_TOOL_OPS = {"read_file": "read", "list_directory": "read", "check_write": "check_write"}


def normalize(path: str, base: str) -> str:
    """``path`` made absolute against the absolute guest path ``base`` and normalized (the component's rule): no
    empty or ``.`` names, ``..`` removes the name before it (and stays at ``/``)."""
    parts: List[str] = []
    for part in ("" if path.startswith("/") else base).split("/") + path.split("/"):
        if part == "..":
            parts = parts[:-1]
        elif part not in ("", "."):
            parts.append(part)
    return "/" + "/".join(parts)


def _under(root: str, path: str) -> Optional[str]:
    """What of ``path`` lies under ``root`` (both normalized): ``""`` for the root itself, None when not under it."""
    if root == "/":
        return path[1:]
    if path == root:
        return ""
    return path[len(root) + 1:] if path.startswith(root + "/") else None


def onto_guest(given: List[Tuple[str, str]], path: Any) -> Any:
    """``path`` rewritten onto a root's guest path when it lies under the path the root was given by (``given``
    holds ``(given path, guest path)`` pairs; the longest wins, whole names at a time): ``/tmp/x/linkroot/a.txt``
    becomes ``/tmp/x/L/a.txt`` for a root given as ``/tmp/x/linkroot``, a link to ``/tmp/x/L``. Anything else is
    returned as it is."""
    if not isinstance(path, str) or not path.startswith("/"):
        return path
    best = None
    for given_path, guest in given:
        given_path = given_path.rstrip("/")
        under = path == given_path or path.startswith(given_path + "/")
        if under and (best is None or len(given_path) > len(best[0])):
            best = (given_path, guest)
    return path if best is None else best[1].rstrip("/") + path[len(best[0]):] or "/"


def _find_grant(grants: Grants, path: str) -> Optional[Tuple[str, str, str]]:
    """The grant with the longest guest path holding ``path``: ``(root, host, relative)``, or None."""
    best = None
    for guest, host in grants:
        root = normalize(guest, "/")
        relative = _under(root, path)
        if relative is not None and (best is None or len(root) > len(best[0])):
            best = (root, host, relative)
    return best


def _host_to_guest(grants: Grants, target: str) -> Optional[str]:
    """The guest path of the absolute host path ``target`` through the grant whose host directory holds it (the
    longest), or None."""
    best = None
    for guest, host in grants:
        root = normalize(host, "/")
        rest = _under(root, normalize(target, "/"))
        if rest is not None and (best is None or len(root) > best[0]):
            best = (len(root), normalize(rest, normalize(guest, "/")))
    return None if best is None else best[1]


class Resolution(NamedTuple):
    """What the host hands the component for one path: ``outcome`` ``"as_asked"`` (no absolute link crossed),
    ``"guest"`` (``value`` is the resolved guest path, a trailing ``/`` kept, and ``asked_via`` the normalized path
    asked for, then each link followed, in order) or ``"refused"`` (``value`` is the request's ``link_refusal``
    field, which the component words: ``{"outside": {"link", "target"}}`` or ``"loop"``)."""

    outcome: str
    value: Any
    asked_via: Optional[List[str]]


def _next_link(grants: Grants, current: str) -> Optional[Tuple[str, Optional[str], str, str]]:
    """The first link on the way of the guest path ``current``, walked by name with ``lstat`` through the grant that
    holds it: ``(the link's guest path, its target or None when it cannot be read, the guest path of its
    directory, the rest of the path after it)``. None when the walk ends before any link: a guarded or ungranted
    path, a missing name, a file in the middle."""
    guarded = any(_under(prefix, current) is not None for prefix in _GUARDED)
    found = None if guarded else _find_grant(grants, current)
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
            return link, target, normalize("/".join(names[:position]), root), "/".join(names[position + 1:])
        if position + 1 < len(names) and not os.path.isdir(host_path):
            return None
    return None


def resolve_absolute_links(grants: Grants, working_directory: Optional[str], requested: Any) -> Resolution:
    """What to hand the component for ``requested`` (a guest path, relative to ``working_directory`` or else to
    the first grant's guest path): the request as asked, the resolved guest path with the ``asked_via`` list (when
    an absolute link was crossed), or the refusal that ends the read (an absolute link out of every grant; more
    than ``MAX_LINK_HOPS`` links with an absolute one among them). Never raises: a path that is not a non-empty
    string without NUL goes as asked."""
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
                return Resolution("refused", "loop", None)
            break
        if target is None:
            break
        followed.append(link)
        if target.startswith("/"):
            mapped = _host_to_guest(grants, target)
            if mapped is None:
                return Resolution("refused", {"outside": {"link": link, "target": target}}, None)
            crossed, target = True, mapped
        else:
            target = normalize(target, directory)
        current = normalize(rest, target) if rest else target
    if not crossed:
        return Resolution("as_asked", None, None)
    return Resolution("guest", current + "/" if requested.endswith(("/", "/.")) else current, [asked] + followed)


#: The random part of a number's tag (see ``linked_line``): drawn once a process, so a request cannot know one.
_NONCE = secrets.token_hex(8)


class _Number(str):
    """A number of a request line, held as its tag while the line is rewritten (see ``linked_line``)."""


def _unique(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    """An object's keys as a dict; a key given twice is left for the component to refuse."""
    if len({key for key, _ in pairs}) != len(pairs):
        raise ValueError("a key given twice")
    return dict(pairs)


def linked_line(grants: Grants, given: List[Tuple[str, str]], working_directory: Optional[str],
                line: str) -> str:
    """What the host hands the component for the request ``line``: the line as it is, or rewritten. The path of an op in ``WALKED_OPS`` (or of a ``tool_call``'s
    ``arguments``) is moved onto a root's guest path (``onto_guest``) and walked (``resolve_absolute_links``):
    through an absolute link into a grant it becomes the resolved path, with ``asked_via`` beside it but for
    ``check_write``; through one out of every grant (or round a loop) the line carries the ``link_refusal`` the
    component answers (for ``check_write`` only a link out of every grant stops it). Anything else, ``asked_via``
    given included, goes as it is."""
    # Numbers travel as their own text (`1E2`, `-0`, `1e400`, integers past 2^53): each is read as a tag, a
    # string with the process's random nonce, which the rewritten line then carries back as the text it stood for.
    nonce, numbers = _NONCE, []
    def tag(text: str) -> _Number:
        numbers.append(text)
        return _Number(f"\0{nonce}:{len(numbers) - 1}")
    try:
        request = json.loads(line, object_pairs_hook=_unique, parse_int=tag, parse_float=tag, parse_constant=tag)
    except (TypeError, ValueError):
        return line
    if not isinstance(request, dict):
        return line
    op, fields = "read" if request.get("op") is None else request["op"], request
    if op == "tool_call":
        name, fields = request.get("name"), request.get("arguments")
        op = _TOOL_OPS.get(name) if isinstance(name, str) and isinstance(fields, dict) else None
    path = fields.get("path") if op in WALKED_OPS else None
    if not isinstance(path, str) or isinstance(path, _Number) or "asked_via" in request:
        return line
    moved = onto_guest(given, path)
    outcome, value, asked_via = resolve_absolute_links(grants, working_directory, moved)
    if outcome == "refused":
        if op == "check_write" and value == "loop":
            return line
        fields["path"] = moved
        request["link_refusal"] = value
        return _untagged(json.dumps(request, separators=(",", ":")), nonce, numbers)
    if outcome == "as_asked" and moved == path:
        return line
    fields["path"] = value if outcome == "guest" else moved
    if outcome == "guest" and op != "check_write":
        request["asked_via"] = asked_via
    return _untagged(json.dumps(request, separators=(",", ":")), nonce, numbers)


def _untagged(text: str, nonce: str, numbers: List[str]) -> str:
    """``text`` with each number's tag (see ``linked_line``) replaced by the number's own text."""
    return re.sub(rf'"\\u0000{nonce}:(\d+)"', lambda found: numbers[int(found.group(1))], text)
