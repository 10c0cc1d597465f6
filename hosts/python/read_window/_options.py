"""The command line of ``python -m read_window read`` and ``read-window-mcp``. The component's ``options`` op reads
it (docs/protocol.md, "Options"), so the options, their checks and their words are the component's, the same as
the npm package's server and the Rust CLI's: ``--root DIR``, one option per config field, ``--config FILE``. This
module does only what needs the file system: it reads the ``--config`` file the answer names, and makes ``--cwd``
canonical. A command's own options (``--wasm``, a read's ``--offset``) are taken out first by :func:`split_own`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import read_window


class UsageError(Exception):
    """A command line that cannot be used: ``str(error)`` says why (the component's words for an option), and
    ``usage`` is the usage text to print after it."""

    def __init__(self, message: str, usage: str = "") -> None:
        super().__init__(message)
        self.usage = usage


@dataclass
class CommandLine:
    """A command line as the component read it: ``roots`` (``--root`` values, canonical), ``positionals`` (the
    arguments that are no option's, such as a read's ``FILE``), ``config`` (the ``--config`` file's fields under the
    options, ``working_directory`` from ``--cwd``), ``help``, ``version`` and the ``usage`` text."""

    roots: List[str]
    positionals: List[str]
    config: Dict[str, Any]
    help: bool = False
    version: bool = False
    usage: str = ""


def split_own(args: Sequence[str], valued: Sequence[str],
              flags: Sequence[str] = ()) -> Tuple[Dict[str, Any], List[str]]:
    """Takes the options of the command itself out of ``args``: each of ``valued`` with the value after it (``--wasm
    PATH`` or ``--wasm=PATH``; the last one given wins), each of ``flags`` as True. Returns them, keyed by name
    without the dashes, and the other arguments in order (for the component). Everything after ``--`` is left.
    Raises ``UsageError`` when a valued option has no value."""
    own: Dict[str, Any] = {}
    rest: List[str] = []
    items = iter(args)
    for arg in items:
        if arg == "--":
            rest.append(arg)
            rest.extend(items)
            break
        name, eq, inline = arg.partition("=")
        if name in valued:
            value = inline if eq else next(items, None)
            if value is None:
                raise UsageError(f"{name} needs a value")
            own[name.lstrip("-").replace("-", "_")] = value
        elif arg in flags:
            own[arg.lstrip("-").replace("-", "_")] = True
        else:
            rest.append(arg)
    return own, rest


def read_command_line(reader: "read_window.ReadWindow", program: str, args: Sequence[str],
                      positionals: int = 0) -> CommandLine:
    """``args`` (the component's options, after :func:`split_own`) read by the component for ``program`` (named in
    the usage text), with at most ``positionals`` arguments that are no option's. Raises ``UsageError`` with the
    component's message and usage text, or when the config file cannot be read or ``--cwd`` is not a directory."""
    request: Dict[str, Any] = {"op": "options", "program": program, "args": list(args), "positionals": positionals}
    with reader.session([]) as plain:
        answer = plain.request(request)
        if answer.get("status") == "ok" and not answer.get("config_complete", True):
            path = answer["config_file"]
            try:
                text = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise UsageError(f"--config {path}: {error}", answer.get("usage", "")) from None
            answer = plain.request({**request, "config_file_text": text})
    usage = answer.get("usage", "")
    if answer.get("status") != "ok":
        raise UsageError((answer.get("error") or {}).get("message") or answer.get("text", str(answer)), usage)
    config = dict(answer["config"])
    if answer.get("cwd") is not None:
        cwd = os.path.realpath(answer["cwd"])
        if not os.path.isdir(cwd):
            raise UsageError(f"--cwd {answer['cwd']}: not a directory", usage)
        config["working_directory"] = cwd
    return CommandLine([os.path.realpath(root) for root in answer["roots"]], list(answer["positionals"]), config,
                       bool(answer["help"]), bool(answer["version"]), usage)
