"""``python -m read_window scenarios [--wasm PATH] PATH...``: run scenario files (JSON; ``tests/scenarios/README.md``)
through the component: ``PASS name`` or ``FAIL name: why`` each, then ``N passed, M failed``. Exit status 0 when every
scenario passed, 1 when one failed, 2 for a usage problem (no such path, no scenario files, no component or wasmtime).
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

import read_window


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m read_window", description="read-window's Python host.")
    run = parser.add_subparsers(dest="command", required=True, metavar="COMMAND").add_parser(
        "scenarios", help="run scenario files through the component", description=__doc__.split(": ", 1)[1])
    run.add_argument("paths", nargs="+", metavar="PATH", help="a scenario file or a directory searched recursively")
    run.add_argument("--wasm", metavar="PATH", help="the component (default: $READ_WINDOW_WASM, else the Rust build's)")
    args = parser.parse_args(argv)
    if read_window.WASMTIME_MISSING is not None:
        print(read_window.INSTALL_HINT, file=sys.stderr)
        return 2
    from read_window import scenarios

    try:
        files = scenarios.collect_files(args.paths)
        if not files:
            raise OSError("no scenario files (*.json) under the given paths")
        reader = read_window.ReadWindow(args.wasm)
    except (OSError, read_window.HostError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 1 if scenarios.run_paths(reader, files, sys.stdout)[1] else 0


if __name__ == "__main__":
    sys.exit(main())
