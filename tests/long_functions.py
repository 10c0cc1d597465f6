#!/usr/bin/env python3
"""Fails when a non-test function of a crate is longer than the limit (80 lines, from `fn` to its closing brace).

The crates and files are the ones tests/cycles.py checks (found through `mod` declarations, test files and
`#[cfg(test)]` items left out, comments and literals blanked). A function that is a data table, or one not yet
split, is listed in tests/long-functions-allowed.txt (a line: the file, a colon, the function's name, then `#`
and why it remains). The check fails on a long function not listed and on a listed one that is no longer long.
`--list N` prints every function longer than N lines, longest first, and never fails.
Python 3 standard library only.
"""

import re
import sys
from pathlib import Path

from cycles import ROOT, crate_files, crate_roots, matching

LIMIT = 80
ALLOWED = Path(__file__).resolve().parent / "long-functions-allowed.txt"
FN = re.compile(r"\bfn\s+(\w+)")


def functions(files):
    """(file, name, lines) of every function with a body, nested ones included."""
    found = []
    for f in files:
        code = f.code
        for m in FN.finditer(code):
            # The body is the first `{` after the signature, unless a `;` (a declaration) comes first.
            depth, j = 0, m.end()
            while j < len(code):
                c = code[j]
                if c in "(<[":
                    depth += 1
                elif c in ")>]" and depth:
                    depth -= 1
                elif c == ";" and depth == 0:
                    j = -1
                    break
                elif c == "{" and depth == 0:
                    break
                j += 1
            if j < 0 or j >= len(code):
                continue
            end = matching(code, j)
            lines = code.count("\n", m.start(), end) + 1
            found.append((str(f.path.relative_to(ROOT)), m.group(1), lines))
    return found


def main():
    everything = []
    for _, root in crate_roots():
        everything.extend(functions(crate_files(root)))
    if len(sys.argv) == 3 and sys.argv[1] == "--list":
        floor = int(sys.argv[2])
        for path, name, lines in sorted(everything, key=lambda t: -t[2]):
            if lines > floor:
                print(f"{lines:5} {path}:{name}")
        return 0
    allowed = {}
    if ALLOWED.exists():
        for line in ALLOWED.read_text(encoding="utf-8").splitlines():
            entry, _, why = line.partition("#")
            if entry.strip():
                allowed[entry.strip()] = why.strip()
    long = {f"{path}:{name}": lines for path, name, lines in everything if lines > LIMIT}
    problems = [f"{key} is {lines} lines (the limit is {LIMIT}): split it by phase or list it with its reason"
                for key, lines in sorted(long.items()) if key not in allowed]
    problems += [f"{key} is listed in {ALLOWED.name} but is not over {LIMIT} lines: remove the line"
                 for key in sorted(allowed) if key not in long]
    problems += [f"{key}: an allowed long function needs a comment saying why" for key, why in allowed.items()
                 if not why]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"{len(everything)} functions, none over {LIMIT} lines but the {len(allowed)} listed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
