"""Tests of ``python -m read_window read``: the window's text, the exit status, the grants and the arguments handed
to the component as they were given.

Run: ``PYTHONPATH=hosts/python python -m unittest discover -s hosts/python/tests`` (with wasmtime installed).
"""

import contextlib
import io
import json
import os
import tempfile
import unittest
from pathlib import Path

from read_window.__main__ import main


class ReadCommandTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.dir = Path(os.path.realpath(temp.name))
        (self.dir / "sub").mkdir()
        (self.dir / "sub" / "five.txt").write_text("one\ntwo\nthree\nfour\nfive\n", encoding="utf-8")
        here = os.getcwd()
        os.chdir(self.dir / "sub")
        self.addCleanup(os.chdir, here)

    def run_main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["read", *argv])
        return status, out.getvalue(), err.getvalue()

    def test_a_window_is_its_text_and_exit_0(self):
        path = self.dir / "sub" / "five.txt"
        self.assertEqual(self.run_main("five.txt", "--offset", "2", "--limit", "2"), (0, (
            f"2|two\n3|three\n\nShowing lines 2-3 of 5 in {path} (the limit of 2 lines). Use offset=4 to "
            "continue.\n"), ""))

    def test_the_current_directory_under_a_root_is_the_working_directory(self):
        status, out, _ = self.run_main("five.txt", "--root", str(self.dir), "--tail", "1", "--json")
        answer = json.loads(out)
        self.assertEqual((status, answer["path"], answer["start_line"], answer["text"].split("\n\n")[0]),
                         (0, str(self.dir / "sub" / "five.txt"), 5, "5|five"))

    def test_an_error_answer_is_its_text_and_exit_1(self):
        self.assertEqual(self.run_main("/etc/hostname"), (1, (
            f"/etc/hostname is outside the directories read-window may read ({self.dir / 'sub'}). Read a file under "
            "one of them.\n"), ""))

    def test_a_bad_argument_is_the_components_refusal(self):
        self.assertEqual(self.run_main("five.txt", "--limit", "abc"), (1, (
            '`limit` must be a count of lines from 1 (larger values are clamped to max-lines), as a JSON number; got '
            'the string "abc"\n'), ""))

    def test_a_config_option_out_of_range_is_refused_as_the_rust_cli_refuses_it(self):
        status, out, err = self.run_main("five.txt", "--limit", "1", "--max-lines", "0")
        self.assertEqual((status, out), (2, ""))
        self.assertTrue(err.startswith("error: --max-lines 0 is out of range: from 1 to 1000000.\n"
                                       "usage: python -m read_window read FILE [--root DIR]... [options]\n"), err)

    def test_config_options_and_the_file_go_in_any_order(self):
        status, out, err = self.run_main("--max-lines", "2", "five.txt", "--no-dedup")
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(out.startswith("1|one\n2|two\n\nShowing lines 1-2 of 5"), out)
        self.assertEqual(self.run_main("five.txt", "six.txt")[0], 2)


if __name__ == "__main__":
    unittest.main()
