#!/usr/bin/env python3
"""Median time of a small read through the CLI's JSON Lines session mode.

Starts `read-window session` once, then sends small reads one at a time (a 20-line window of a 100-line file, at a
different offset each time, with --no-dedup so a revisited offset returns content rather than a stub) and times each from writing the request line
to reading the answer line. Prints the median, the 10th and 90th percentiles, and the startup time (process start to
the first answer, which includes loading the compiled component from the disk cache).

Usage: python3 tools/session-latency.py [path/to/read-window] [requests]
Default binary: target/release/read-window (build it with `cargo build --release -p read-window-host`).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/read-window"
    requests = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "sample.rs")
        with open(path, "w", encoding="utf-8") as sample:
            for number in range(1, 101):
                sample.write(f"    let value_{number} = compute({number}, \"text {number}\"); // line {number}\n")
        started = time.perf_counter()
        process = subprocess.Popen(
            [binary, "--root", root, "--no-dedup", "session"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        timings = []
        startup = None
        for index in range(requests + 1):
            offset = 1 + index % 80
            line = json.dumps({"op": "read", "path": path, "offset": offset, "limit": 20})
            sent = time.perf_counter()
            process.stdin.write(line + "\n")
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            now = time.perf_counter()
            if answer.get("status") != "ok":
                raise SystemExit(f"unexpected answer: {answer}")
            if index == 0:
                startup = now - started
            else:
                timings.append(now - sent)
        process.stdin.close()
        process.wait()
    timings.sort()
    micros = [t * 1e6 for t in timings]
    print(f"reads: {len(micros)}")
    print(f"median: {statistics.median(micros):.1f} us")
    print(f"p10: {micros[len(micros) // 10]:.1f} us, p90: {micros[len(micros) * 9 // 10]:.1f} us")
    print(f"startup to first answer: {startup * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
