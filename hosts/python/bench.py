#!/usr/bin/env python3
"""Per-read latency of the Python host: a warm session reading lines 40-60 of a 100-line file.

Loads the component once, opens one session (dedup off and the loop tripwire out of reach, so every call returns
the full window rather than a stub or a refusal), warms it up, then times ``Session.read(path, offset=40,
limit=21)`` (Python arguments in, the JSON-shaped dict out) call by call, and prints the median with the 10th and
90th percentiles. Also prints the load time, the median of ``ReadWindow.read_once`` (a fresh store per call), and
the median of a 2,000-line page (200 kB) with its window once (in ``text``) and, ``content=True``, twice (``text``
and ``content``, as every answer was before issue 30).

Usage: PYTHONPATH=hosts/python python hosts/python/bench.py [reads]     (default 5000 reads)
"""

import os
import statistics
import sys
import tempfile
import time

from read_window import ReadWindow

U32_MAX = 2**32 - 1


def percentiles(seconds):
    """``(median, p10, p90)`` in microseconds."""
    micros = sorted(s * 1e6 for s in seconds)
    return statistics.median(micros), micros[len(micros) // 10], micros[len(micros) * 9 // 10]


def main() -> None:
    """Builds the sample file, times the reads and prints the figures."""
    reads = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "sample.rs"), "w", encoding="utf-8") as sample:
            for number in range(1, 101):
                sample.write(f'    let value_{number} = compute({number}, "text {number}"); // line {number}\n')
        with open(os.path.join(root, "page.log"), "w", encoding="utf-8") as page_file:
            for number in range(1, 2001):
                page_file.write(f"{number:08} " + "x" * 90 + "\n")

        started = time.perf_counter()
        reader = ReadWindow()
        loaded = time.perf_counter() - started
        # No stubs and no tripwire, so each call returns its window; a budget the 2,000-line page fits in.
        config = {
            "dedup": False,
            "loop_warn_at": U32_MAX - 1,
            "loop_block_at": U32_MAX,
            "budget": {"characters": 1000000},
        }
        session = reader.session({"/w": root}, config)

        def read():
            answer = session.read("sample.rs", offset=40, limit=21)
            if answer["status"] != "ok" or "warnings" in answer or (answer["start_line"], answer["end_line"]) != (40, 60):
                raise SystemExit(f"unexpected answer: {answer}")

        for _ in range(200):
            read()
        timings = []
        for _ in range(reads):
            began = time.perf_counter()
            read()
            timings.append(time.perf_counter() - began)

        once = []
        for _ in range(200):
            began = time.perf_counter()
            answer = reader.read_once({"/w": root}, "sample.rs", offset=40, limit=21)
            once.append(time.perf_counter() - began)
            if answer["status"] != "ok":
                raise SystemExit(f"unexpected answer: {answer}")

        pages = {}
        for content in (False, True):
            page_times = []
            for _ in range(100):
                began = time.perf_counter()
                answer = session.read("page.log", limit=2000, content=content)
                page_times.append(time.perf_counter() - began)
                if answer["status"] != "ok" or answer["lines_returned"] != 2000 or ("content" in answer) != content:
                    raise SystemExit(f"unexpected page answer: {str(answer)[:400]}")
            pages[content] = percentiles(page_times)[0]

    median, p10, p90 = percentiles(timings)
    once_median, _, _ = percentiles(once)
    print(f"component load (compile, link): {loaded * 1e3:.0f} ms")
    print(f"Session.read, lines 40-60 of 100, warm, {reads} reads: median {median:.1f} us (p10 {p10:.1f}, p90 {p90:.1f})")
    print(f"ReadWindow.read_once (a fresh store per call), 200 reads: median {once_median:.1f} us")
    print(f"Session.read, a 2,000-line page (200 kB), 100 reads: median {pages[False]:.0f} us with the window once; "
          f"{pages[True]:.0f} us with content=True (twice): {pages[True] / pages[False]:.2f}x")


if __name__ == "__main__":
    main()
