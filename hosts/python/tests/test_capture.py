"""Captures through the component's protocol (the capture ops; issue 14): a command's output as head,
marker and tail, spilled to a file in the one directory granted read-write, read back at the lines the marker
names."""

import os
import tempfile
import unittest

from read_window import ReadWindow, Session


class CaptureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.reader = ReadWindow()

    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.root = os.path.realpath(self.temp.name)
        self.spill = os.path.join(self.root, "spill")
        os.mkdir(self.spill)

    def tearDown(self):
        self.temp.cleanup()

    def test_an_overflowing_output_is_spilled_and_read_back_at_the_marker_lines(self):
        with Session(self.reader, [self.root], writable=[self.spill]) as session:
            self.assertEqual(session.capture_begin({"window_chars": 200, "spill_dir": self.spill}), {"status": "ok"})
            for n in range(1, 101):
                self.assertEqual(session.capture_chunk(f"line {n:04}\n".encode())["status"], "ok")
            # "é" split across two chunks.
            session.capture_chunk(b"end\n\xc3")
            session.capture_chunk(b"\xa9")
            end = session.capture_end(2, content=True)
            path = os.path.join(self.spill, "capture-1.log")
            self.assertEqual(end["spill_path"], path)
            self.assertEqual((end["omitted_first_line"], end["omitted_last_line"]), (9, 89))
            self.assertEqual(end["omitted_chars"], 810)
            self.assertEqual(end["total_lines"], 102)
            self.assertEqual(end["exit_status"], 2)
            self.assertTrue(end["content"].endswith("line 0100\nend\n\u00e9"))
            self.assertIn(f"they are lines 9-89 of the spill {path}]\n", end["content"])
            self.assertEqual(session.read(path, offset=9, limit=1, content=True)["content"], "9|line 0009\n")

    def test_without_a_spill_dir_the_one_writable_directory_takes_the_spill(self):
        own = os.path.join(self.root, "own")
        os.mkdir(own)
        with Session(self.reader, [self.root], writable=[own]) as session:
            session.capture_begin({"window_chars": 200})
            session.capture_chunk("".join(f"line {n:04}\n" for n in range(1, 101)))
            end = session.capture_end()
            self.assertEqual(end["spill_path"], os.path.join(own, "capture-1.log"))
            self.assertEqual(end["omitted_first_line"], 9)

    def test_a_read_only_spill_directory_keeps_the_window_and_says_why(self):
        with Session(self.reader, [self.root]) as session:
            session.capture_begin({"window_chars": 200, "spill_dir": self.spill})
            session.capture_chunk("row\n" * 1000)
            end = session.capture_end(content=True)
            self.assertEqual(
                end["spill_error"],
                f"the spill directory {self.spill} is not writable (permission denied; the host must grant it "
                "read-write)",
            )
            self.assertNotIn("spill_path", end)
            self.assertTrue(end["content"].startswith("row\n"))
            self.assertTrue(end["content"].endswith("row\n"))

    def test_bad_input_is_an_invalid_request(self):
        with Session(self.reader, [self.root]) as session:
            self.assertEqual(
                session.capture_chunk(b"x")["error"]["message"], "no capture is open; send capture_begin first."
            )
            self.assertEqual(session.capture_begin({"window": 5})["error"]["kind"], "invalid_request")
            self.assertEqual(session.capture_begin({"head_share": "half"})["error"]["kind"], "invalid_request")
            session.capture_begin()
            self.assertEqual(
                session.capture_end("one")["error"]["message"], '`exit_status` must be a 32-bit integer, not "one"'
            )
            self.assertEqual(session.capture_chunk(3)["error"]["kind"], "invalid_request")


if __name__ == "__main__":
    unittest.main()
