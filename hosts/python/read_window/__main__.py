"""``python -m read_window scenarios [--wasm PATH] PATH...``: run scenario files through the component.

Prints ``PASS name`` or ``FAIL name: why`` per scenario, then ``N passed, M failed``. Exit status: 0 when every
scenario passed, 1 when one failed, 2 for a usage problem (a path that does not exist, no scenario files, the
component or wasmtime missing).
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

import read_window


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m read_window", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser(
        "scenarios",
        help="run scenario files (tests/scenarios/README.md) through the component",
        description="Run scenario files (JSON; see tests/scenarios/README.md) through the component: one "
        "`PASS name` or `FAIL name: why` line each, then `N passed, M failed`. Exit 0 only when every scenario "
        "passed.",
    )
    run.add_argument("paths", nargs="+", metavar="PATH", help="a scenario file or a directory searched recursively")
    run.add_argument(
        "--wasm",
        metavar="PATH",
        help="the component file (default: $READ_WINDOW_WASM, else the Rust build's output under target/)",
    )
    args = parser.parse_args(argv)

    if read_window.WASMTIME_MISSING is not None:
        print(read_window.INSTALL_HINT, file=sys.stderr)
        return 2
    from read_window import scenarios

    try:
        files = scenarios.collect_files(args.paths)
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not files:
        print("error: no scenario files (*.json) under the given paths", file=sys.stderr)
        return 2
    try:
        reader = read_window.ReadWindow(args.wasm)
    except (read_window.ComponentNotFoundError, read_window.HostError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    _, failed = scenarios.run_paths(reader, files, sys.stdout)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
