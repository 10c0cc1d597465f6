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
import base64
import json
import os
import re
import sys
from pathlib import Path
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


#: ``read``'s own options: each takes a value (a read argument, or the component file).
_READ_VALUED = ("--offset", "--limit", "--column", "--tail", "--region", "--out", "--wasm")
#: ``read``'s own flags.
_READ_FLAGS = ("--no-extract", "--json")
#: What ``read --help`` adds to the component's usage text.
_READ_HELP = """
read options (FILE: absolute, or relative to the working directory):
  --offset N              the first line, 1-based
  --limit N               lines at most
  --column C              where to start inside the first line, in characters, 0-based
  --tail N                read the last N lines instead
  --no-extract            read a document's own bytes instead of its extracted text
  --region X,Y,W,H        for an image: the part to show, in original pixels
  --out FILE              for an image: write the picture shown to FILE (the hint is printed)
  --json                  print the answer as one JSON object
  --wasm PATH             the component (default: $READ_WINDOW_WASM, else the packaged one, else the Rust build's)
"""


def _scenarios_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m read_window scenarios",
                                     description="Run scenario files (JSON) through the component.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a scenario file or a directory searched recursively")
    parser.add_argument("--wasm", metavar="PATH", help="the component (default: $READ_WINDOW_WASM, else the "
                        "packaged one, else the Rust build's)")
    return parser


def read(argv: List[str]) -> int:
    """``read``: one window through the ``read_once`` op; returns the exit status. The config options are the
    component's (its ``options`` op); the read's own are taken out first."""
    try:
        own, rest = _options.split_own(argv, _READ_VALUED, _READ_FLAGS)
        reader = read_window.ReadWindow(own.get("wasm"))
        line = _options.read_command_line(reader, "python -m read_window read FILE", rest, positionals=1)
    except _options.UsageError as error:
        print(f"error: {error}\n{error.usage}", file=sys.stderr)
        return 2
    except (OSError, read_window.HostError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if line.help:
        print(line.usage + _READ_HELP)
        return 0
    if line.version:
        print(f"read-window {read_window.__version__}")
        return 0
    if len(line.positionals) != 1:
        print(f"error: read needs a FILE\n{line.usage}", file=sys.stderr)
        return 2
    roots = line.roots or [os.path.realpath(os.getcwd())]
    config = dict(line.config)
    if "working_directory" not in config:
        # Where relative paths start, as the component rules for every host: the current directory under a root,
        # else the first root.
        with reader.session([]) as plain:
            placed = plain.request({"op": "mcp_roots", "roots": roots, "cwd": os.path.realpath(os.getcwd())})
        if placed.get("working_directory"):
            config["working_directory"] = placed["working_directory"]
    request = {"op": "read_once", "path": line.positionals[0], "offset": _argument(own.get("offset")),
               "limit": _argument(own.get("limit")), "column": _argument(own.get("column")),
               "tail": _argument(own.get("tail")), "extract": False if own.get("no_extract") else None,
               "region": _region(own.get("region"))}
    request = {key: value for key, value in request.items() if value is not None}
    try:
        with reader.session(roots, config) as session:
            answer = session.request(request)
    except (OSError, read_window.HostError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2 if isinstance(error, OSError) else 1
    if isinstance(answer.get("data"), str):
        if own.get("out"):
            try:
                Path(own["out"]).write_bytes(base64.b64decode(answer["data"]))
            except OSError as error:
                print(f"error: --out {own['out']}: cannot write the image ({error})", file=sys.stderr)
                return 2
        elif not own.get("json"):
            print("read-window: the image is not printed: pass --out FILE to write it", file=sys.stderr)
    elif own.get("out"):
        print(f"read-window: --out {own['out']}: nothing written, the answer is not an image", file=sys.stderr)
    if own.get("json"):
        print(json.dumps(answer, ensure_ascii=False, separators=(",", ":")))
    else:
        text = answer.get("text", "")
        for warning in answer.get("warnings") or []:
            if isinstance(warning, str) and warning not in text:  # left out of the model's text: for whoever runs it
                print(f"read-window: warning: {warning}", file=sys.stderr)
        print(text)
    return 0 if answer.get("status") == "ok" else 1


def _region(text: Optional[str]) -> Any:
    """``--region X,Y,W,H`` as the protocol's object; any other text as it is, for the component to refuse."""
    if text is None:
        return None
    parts = text.split(",")
    if len(parts) == 4 and all(part.strip().isdigit() for part in parts):
        return dict(zip(("x", "y", "width", "height"), (int(part) for part in parts)))
    return text


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
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("read", "scenarios"):
        print("usage: python -m read_window read FILE [options] | scenarios PATH... (--help after either)",
              file=sys.stderr)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    if read_window.WASMTIME_MISSING is not None:
        print(read_window.INSTALL_HINT, file=sys.stderr)
        return 2
    if args[0] == "read":
        return read(args[1:])
    return scenarios(_scenarios_parser().parse_args(args[1:]))


if __name__ == "__main__":
    sys.exit(main())
