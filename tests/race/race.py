#!/usr/bin/env python3
"""The race test's fixture and its swapper, shared by the Rust, Python and JavaScript hosts.

    race.py setup DIR      builds the tree under DIR and prints the plan (JSON) a host's race test follows
    race.py swap DIR       exchanges every pair of the plan with renameat2(RENAME_EXCHANGE), each pair every
                           SWAP_INTERVAL seconds, until its standard input closes (or --seconds pass); then
                           prints {"swaps": N}

The tree (docs/behaviour/guards.md, "The sandbox under races"):

    DIR/grant          granted read-only at /race
      d/file           inside; swapped with a relative link to DIR/outside/d
      e/file           inside; swapped with an absolute link to DIR/outside/d
      f.txt, g.txt     inside files; swapped with a relative and an absolute link to DIR/outside/canary.txt
      c/credentials    a plain file; c is swapped with a relative link to .aws (inside the grant)
      k/credentials    a plain file; k is swapped with an absolute link to DIR/grant/.aws
      .aws/credentials the secret, refused by the built-in credential rules
    DIR/spill          granted read-write at /spill: the spill directories s and t, swapped with a relative and
                       an absolute link to DIR/outside-spill
    DIR/outside        not granted: the canary, and names that must never be listed
    DIR/outside-spill  not granted: must hold no file when the test ends

Every answer a host gives (content, hint, messages, suggestions, spill paths) must hold none of the plan's
`forbidden` strings, and `outside_spill` must stay empty.
"""

import ctypes
import json
import os
import select
import sys
import time

#: Seconds between two exchanges of the same pair (0.3 ms: the rate that found the leaks).
SWAP_INTERVAL = 0.0003
#: The swapper stops by itself after this many seconds even if nobody closes its input.
DEFAULT_SECONDS = 600

CANARY = "CANARY-outside-7f3a"
SECRET = "SECRET-aws-9c1e"
#: A name in the outside directory close to the missing name `fille`: listing the outside directory would offer it.
OUTSIDE_NAME = "fille-outside"

RENAME_EXCHANGE = 2
AT_FDCWD = -100


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def setup(root):
    root = os.path.realpath(root)
    grant, spill = os.path.join(root, "grant"), os.path.join(root, "spill")
    outside, outside_spill = os.path.join(root, "outside"), os.path.join(root, "outside-spill")
    for directory in (grant, spill, outside, outside_spill):
        os.makedirs(directory, exist_ok=True)
    write(os.path.join(outside, "canary.txt"), f"{CANARY} file\n")
    write(os.path.join(outside, "d", "file"), f"{CANARY} in d\n")
    write(os.path.join(outside, "d", OUTSIDE_NAME), f"{CANARY} listed\n")
    write(os.path.join(grant, "d", "file"), "inside d\n")
    write(os.path.join(grant, "e", "file"), "inside e\n")
    write(os.path.join(grant, "f.txt"), "inside f\n")
    write(os.path.join(grant, "g.txt"), "inside g\n")
    write(os.path.join(grant, "c", "credentials"), "plain notes in c\n")
    write(os.path.join(grant, "k", "credentials"), "plain notes in k\n")
    write(os.path.join(grant, ".aws", "credentials"), f"[default]\naws_secret_access_key = {SECRET}\n")
    os.makedirs(os.path.join(spill, "s"), exist_ok=True)
    os.makedirs(os.path.join(spill, "t"), exist_ok=True)
    links = [
        (os.path.join(grant, "d"), "../outside/d"),
        (os.path.join(grant, "e"), os.path.join(outside, "d")),
        (os.path.join(grant, "f.txt"), "../outside/canary.txt"),
        (os.path.join(grant, "g.txt"), os.path.join(outside, "canary.txt")),
        (os.path.join(grant, "c"), ".aws"),
        (os.path.join(grant, "k"), os.path.join(grant, ".aws")),
        (os.path.join(spill, "s"), "../outside-spill"),
        (os.path.join(spill, "t"), outside_spill),
    ]
    pairs = []
    for path, target in links:
        swap = os.path.join(os.path.dirname(path), ".swap-" + os.path.basename(path))
        if not os.path.lexists(swap):
            os.symlink(target, swap)
        pairs.append([path, swap])
    paths = ["d/file", "e/file", "f.txt", "g.txt", "c/credentials", "k/credentials", "d/fille", "e/fille"]
    plan = {
        "grants": {"/race": grant},
        "writable_grants": {"/spill": spill},
        "config": {"dedup": False, "loop_warn_at": 1_000_000, "loop_block_at": 1_000_001, "not_found_ttl_ms": 0},
        "reads": [{"op": "read", "path": f"/race/{path}"} for path in paths],
        "captures": [
            [
                {"op": "capture_begin", "spill_dir": spill_dir, "window_chars": 200},
                {"op": "capture_chunk", "text": "".join(f"captured line {n}\n" for n in range(120))},
                {"op": "capture_end", "exit_status": 0},
            ]
            for spill_dir in ("/spill/s", "/spill/t")
        ],
        "forbidden": [CANARY, SECRET, OUTSIDE_NAME],
        "outside_spill": outside_spill,
        "pairs": pairs,
    }
    with open(os.path.join(root, "plan.json"), "w", encoding="utf-8") as handle:
        json.dump(plan, handle, indent=1)
    return plan


def swap(root, seconds):
    with open(os.path.join(os.path.realpath(root), "plan.json"), encoding="utf-8") as handle:
        pairs = json.load(handle)["pairs"]
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = libc.renameat2
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    encoded = [(a.encode(), b.encode()) for a, b in pairs]
    swaps = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for a, b in encoded:
            if renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
                error = ctypes.get_errno()
                raise OSError(error, f"renameat2 {a!r} {b!r}: {os.strerror(error)}")
            swaps += 1
        # Standard input closed (or a line on it) ends the run.
        if select.select([sys.stdin], [], [], SWAP_INTERVAL)[0]:
            break
    # Leave each pair as it was set up (the real entry at its own name).
    for a, b in encoded:
        if os.path.islink(a):
            renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    print(json.dumps({"swaps": swaps}), flush=True)


def main(argv):
    if len(argv) >= 2 and argv[0] == "setup":
        json.dump(setup(argv[1]), sys.stdout)
        print()
        return 0
    if len(argv) >= 2 and argv[0] == "swap":
        seconds = float(argv[3]) if len(argv) >= 4 and argv[2] == "--seconds" else DEFAULT_SECONDS
        swap(argv[1], seconds)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
