"""The host's walk of absolute links (``read_window/_links.py``) and the ``asked-via`` list it hands the component
with a rewritten path: the path asked for, then each link crossed, in order. ``AskedViaTest`` is pure Python (no
component is loaded); ``CredentialThroughLinkTest`` checks that the component refuses by the names on the list."""

import os
import re
import tempfile
import unittest
from pathlib import Path

from read_window import ReadWindow, _host, _links, _values

#: The WIT file, from the repository root.
WIT = Path(__file__).resolve().parents[3] / "wit" / "read-window.wit"


class AskedViaTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        root = Path(os.path.realpath(temp.name))
        self.work, self.data, outside = root / "work", root / "data", root / "outside"
        for directory in (self.work / "real", self.work / "config", self.data, outside):
            directory.mkdir(parents=True)
        (self.work / "real" / "x.txt").write_text("x\n", encoding="utf-8")
        (self.work / "config" / "settings").write_text("KEY=1\n", encoding="utf-8")
        (self.data / "y.txt").write_text("y\n", encoding="utf-8")
        (self.work / "a").symlink_to("b")  # relative, then
        (self.work / "b").symlink_to(self.work / "real")  # absolute
        (self.work / ".env").symlink_to(self.work / "config" / "settings")
        (self.work / "o").symlink_to(self.data)  # into the other grant
        (self.work / "rel").symlink_to("real")  # relative only
        (self.work / "out").symlink_to(outside)
        self.grants = [("/w", str(self.work)), ("/d", str(self.data))]

    def resolve(self, path, working_directory=None):
        return _links.resolve_absolute_links(self.grants, working_directory, path)

    def test_a_link_named_env_with_an_absolute_target_is_listed(self):
        self.assertEqual(
            self.resolve("/w/.env"), ("guest", "/w/config/settings", ["/w/.env", "/w/.env"])
        )

    def test_every_link_crossed_is_listed_in_order_relative_ones_too(self):
        self.assertEqual(
            self.resolve("a/x.txt"), ("guest", "/w/real/x.txt", ["/w/a/x.txt", "/w/a", "/w/b"])
        )

    def test_the_asked_path_is_absolute_and_normalized(self):
        resolution = self.resolve("./real/../a/./x.txt", working_directory="/w")
        self.assertEqual(resolution.asked_via, ["/w/a/x.txt", "/w/a", "/w/b"])

    def test_a_trailing_slash_stays_on_the_path_not_on_the_asked_path(self):
        self.assertEqual(self.resolve("/w/a/"), ("guest", "/w/real/", ["/w/a", "/w/a", "/w/b"]))

    def test_a_link_into_another_grant_is_listed_by_its_guest_path(self):
        self.assertEqual(self.resolve("/w/o/y.txt"), ("guest", "/d/y.txt", ["/w/o/y.txt", "/w/o"]))

    def test_no_list_when_the_path_goes_as_asked_or_is_refused(self):
        self.assertEqual(self.resolve("/w/rel/x.txt"), ("as_asked", None, None))
        self.assertEqual(self.resolve("/w/real/x.txt"), ("as_asked", None, None))
        outcome, answer, asked_via = self.resolve("/w/out/z")
        self.assertEqual((outcome, answer["error"]["kind"], answer["error"]["path"], asked_via),
                         ("outside", "outside_sandbox", "/w/out", None))

    def test_the_request_record_carries_the_list_only_when_its_path_was_rewritten(self):
        config = _values.config_record(None)
        rewritten = _values.read_request("/w/a/x.txt", None, None, None)
        self.assertIsNone(_host._through_links(self.grants, config, rewritten))
        self.assertEqual(
            (rewritten.path, getattr(rewritten, "asked-via")), ("/w/real/x.txt", ["/w/a/x.txt", "/w/a", "/w/b"])
        )
        as_asked = _values.read_request("/w/rel/x.txt", None, None, None)
        self.assertIsNone(_host._through_links(self.grants, config, as_asked))
        self.assertEqual((as_asked.path, getattr(as_asked, "asked-via")), ("/w/rel/x.txt", None))

    def test_the_request_record_has_the_fields_of_the_wit_record(self):
        body = re.search(r"record read-request \{(.*?)\n    \}", WIT.read_text(encoding="utf-8"), re.S).group(1)
        wit_fields = re.findall(r"^\s*([a-z][a-z-]*):", body, re.M)
        self.assertEqual(list(vars(_values.read_request("a", None, None, None))), wit_fields)


class CredentialThroughLinkTest(unittest.TestCase):
    def test_a_link_named_env_to_an_absolute_path_is_refused_as_env(self):
        with tempfile.TemporaryDirectory() as temp:
            root = Path(os.path.realpath(temp))
            (root / "config").mkdir()
            (root / "config" / "settings").write_text("KEY=1\n", encoding="utf-8")
            (root / ".env").symlink_to(root / "config" / "settings")
            with ReadWindow().session({"/w": root}) as session:
                answer = session.read("/w/.env")
        self.assertEqual((answer["status"], answer["error"]["kind"]), ("error", "credential"))
        self.assertEqual(answer["error"]["message"].split(";")[0],
                         "/w/.env holds environment secrets (.env) (credential rule `**/.env`)")


if __name__ == "__main__":
    unittest.main()
