"""Parity with the Rust host: the same requests through the Rust CLI's session mode (`read-window session`) and
through the Python ``Session`` must give byte-identical JSON, key order included (``peak_memory_bytes`` aside: each
instance's linear memory is its own).

Skipped when no Rust CLI is built: set ``READ_WINDOW_CLI`` or build ``target/debug/read-window`` (or release).
"""

import codecs
import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

from read_window import ReadWindow

REPO = Path(__file__).resolve().parents[3]


def find_cli():
    """The Rust CLI to compare with, or None."""
    candidates = [os.environ.get("READ_WINDOW_CLI")] + [
        str(REPO / "target" / profile / "read-window") for profile in ("release", "debug")
    ]
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


FILES = {
    "a.txt": b"alpha\nbeta\ngamma\n",
    "crlf.txt": b"one\r\ntwo\r\nthree",
    "u16.txt": codecs.BOM_UTF16_LE + "h\u00e9llo\nw\u00f6rld\n".encode("utf-16-le"),
    "long.txt": b"x" * 5000 + b"\n" + b"y" * 10 + b"\n",
    "bad.txt": b"ok\n\xff\xfe bad\n",
    "bin.dat": bytes(range(256)),
    "many.txt": "".join(f"line {i}\n" for i in range(1, 3001)).encode(),
    "emoji.txt": ("\U0001F469\u200D\U0001F469\u200D\U0001F467" * 800 + "\n").encode(),
    "empty.txt": b"",
    ".ssh/id_rsa": b"key\n",
}

REQUESTS = [{"op": "read", "path": path} for path in list(FILES) + ["missing.txt", "sub", "/etc/passwd", "../x", ""]] + [
    {"op": "read", "path": "a.txt", "offset": 2, "limit": 1},
    {"op": "read", "path": "a.txt", "offset": 2, "limit": 1},
    {"op": "read", "path": "a.txt", "offset": 2, "limit": 1},
    {"op": "read", "path": "a.txt", "offset": 2, "limit": 1},
    {"op": "read", "path": "long.txt", "offset": 1, "column": 2000, "limit": 1},
    {"op": "read", "path": "many.txt", "offset": 2990},
    {"op": "read", "path": "a.txt", "limit": 0},
    {"op": "read", "path": "a.txt", "offset": 99},
    {"op": "read", "path": "long.txt", "column": 99999},
    {"op": "other_tool"},
    {"op": "reset_dedup"},
    {"op": "wrote", "path": "a.txt"},
    {"op": "check_write", "path": "a.txt", "text": "hi"},
    {"op": "check_write", "path": "a.txt", "text": "[read-window: x]"},
    {"op": "report_tokens", "path": "a.txt", "offset": 1, "lines": 3, "tokens": 9},
    {"op": "token_refusal", "path": "many.txt", "offset": 1, "limit": 2000,
     "message": "File content (31204 tokens) exceeds maximum allowed tokens (25000)"},
    {"op": "token_refusal", "path": "many.txt", "offset": 1, "limit": 2000, "message": "nonsense"},
    {"op": "stats"},
]

CONFIGS = [
    ([], None),
    (["--max-tokens", "1000"], {"budget": {"tokens": {"cap": 1000}}}),
    (["--max-chars", "300", "--max-line-length", "40"], {"budget": {"characters": 300}, "max_line_length": 40}),
    (["--no-dedup"], {"dedup": False}),
]


@unittest.skipIf(find_cli() is None, "no Rust read-window CLI built (set READ_WINDOW_CLI)")
class ParityTest(unittest.TestCase):
    def test_every_answer_is_byte_identical_to_the_rust_host(self):
        reader = ReadWindow()
        with tempfile.TemporaryDirectory() as temp:
            root = os.path.realpath(temp)
            os.mkdir(os.path.join(root, "sub"))
            for name, data in FILES.items():
                path = Path(root, name)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            lines = "".join(json.dumps(request) + "\n" for request in REQUESTS)
            for flags, config in CONFIGS:
                process = subprocess.run(
                    [find_cli(), "--root", root, *flags, "session"],
                    input=lines, capture_output=True, text=True, cwd=root, check=True,
                )
                rust = [json.loads(line) for line in process.stdout.splitlines()]
                self.assertEqual(len(rust), len(REQUESTS), process.stderr)
                session = reader.session([root], config)
                for request, want in zip(REQUESTS, rust):
                    fields = {key: value for key, value in request.items() if key != "op"}
                    got = getattr(session, request["op"])(**fields)
                    if request["op"] == "stats":
                        want.pop("peak_memory_bytes")
                        self.assertIsInstance(got.pop("peak_memory_bytes"), int)
                    self.assertEqual(json.dumps(got), json.dumps(want), f"{flags} {request}")
                session.close()


if __name__ == "__main__":
    unittest.main()
