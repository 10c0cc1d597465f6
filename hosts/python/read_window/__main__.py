"""``python -m read_window``: read one window of a file, or run scenario files through the component.

- ``read FILE [--offset N] [--limit N] [--column C] [--tail N] [--no-extract] [--json] [--root DIR]...`` prints
  the window's ``text`` (its content, a blank line, the hint; an error's message), or the whole answer as one JSON
  object with ``--json``. The component sees only the ``--root`` directories (default: the current directory),
  read-only. Exit status 0 for a window, 1 for an error answer (a read error or a host failure), 2 for a usage
  problem.
- ``scenarios [--wasm PATH] PATH...`` runs scenario files (JSON; ``tests/scenarios/README.md``): ``PASS name`` or
  ``FAIL name: why`` each, then ``N passed, M failed``. Exit status 0 when every scenario passed, 1 when one failed,
  2 for a usage problem (no such path, no scenario files, no component or wasmtime).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any, List, Optional

import read_window
from read_window import _options

_INTEGER = re.compile(r"[+-]?[0-9]+")


def _argument(text: Optional[str]) -> Any:
    """A read argument as the request carries it: an integer when the text is one, else the text itself, which the
    component refuses with a message naming the field (it checks every argument)."""
    if text is None or not _INTEGER.fullmatch(text):
        return text
    return int(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m read_window", description="read-window's Python host.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    read = commands.add_parser("read", help="print one window of a file", description="Print one window of FILE: "
                               "its content with line numbers, a blank line, then the hint.")
    read.add_argument("path", metavar="FILE", help="the file: absolute, or relative to the working directory")
    read.add_argument("--offset", metavar="N", help="the first line, 1-based")
    read.add_argument("--limit", metavar="N", help="lines at most")
    read.add_argument("--column", metavar="C", help="where to start inside the first line, in characters, 0-based")
    read.add_argument("--tail", metavar="N", help="read the last N lines instead")
    read.add_argument("--no-extract", action="store_true",
                      help="read a document's own bytes instead of its extracted text")
    read.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    _options.add_root_option(read, "a directory the component may read (repeatable; default: the current one)")
    _options.add_config_options(read)
    read.add_argument("--wasm", metavar="PATH", help="the component (default: $READ_WINDOW_WASM, else the packaged "
                      "one, else the Rust build's)")
    run = commands.add_parser("scenarios", help="run scenario files through the component",
                              description="Run scenario files (JSON) through the component.")
    run.add_argument("paths", nargs="+", metavar="PATH", help="a scenario file or a directory searched recursively")
    run.add_argument("--wasm", metavar="PATH", help="the component (default: $READ_WINDOW_WASM, else the packaged "
                     "one, else the Rust build's)")
    return parser


def read(args: argparse.Namespace) -> int:
    """``read``: one window through the ``read_once`` op; returns the exit status."""
    roots = _options.grant_list(args.roots)
    try:
        config = _options.config_from(args)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if "working_directory" not in config:
        here = _options.working_directory(roots)
        if here is not None:
            config["working_directory"] = here
    request = {"op": "read_once", "path": args.path, "offset": _argument(args.offset),
               "limit": _argument(args.limit), "column": _argument(args.column), "tail": _argument(args.tail),
               "extract": False if args.no_extract else None}
    request = {key: value for key, value in request.items() if value is not None}
    try:
        reader = read_window.ReadWindow(args.wasm)
        with reader.session(roots, config) as session:
            answer = session.request(request)
    except (OSError, read_window.HostError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2 if isinstance(error, OSError) else 1
    if args.json:
        print(json.dumps(answer, ensure_ascii=False, separators=(",", ":")))
    else:
        text = answer.get("text", "")
        for warning in answer.get("warnings") or []:
            if isinstance(warning, str) and warning not in text:  # left out of the model's text: for whoever runs it
                print(f"read-window: warning: {warning}", file=sys.stderr)
        print(text)
    return 0 if answer.get("status") == "ok" else 1


def scenarios(args: argparse.Namespace) -> int:
    """``scenarios``: runs the files; returns the exit status."""
    from read_window import scenarios as runner

    try:
        files = runner.collect_files(args.paths)
        if not files:
            raise OSError("no scenario files (*.json) under the given paths")
        reader = read_window.ReadWindow(args.wasm)
    except (OSError, read_window.HostError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 1 if runner.run_paths(reader, files, sys.stdout)[1] else 0


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    if read_window.WASMTIME_MISSING is not None:
        print(read_window.INSTALL_HINT, file=sys.stderr)
        return 2
    return read(args) if args.command == "read" else scenarios(args)


if __name__ == "__main__":
    sys.exit(main())
