"""The host's walk of absolute links (``read_window/_links.py``) and the ``asked_via`` list it adds to a request whose
path it rewrote: the path asked for, then each link crossed, in order. ``AskedViaTest`` is pure Python (no component
is loaded); ``CredentialThroughLinkTest`` checks that the component refuses by the names on the list."""

import json
import os
import tempfile
import unittest
from pathlib import Path

from read_window import ReadWindow, _links


class AskedViaTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        root = Path(os.path.realpath(temp.name))
        self.work, self.data, outside = root / "work", root / "data", root / "outside"
        self.outside = str(outside)
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
        self.assertEqual(self.resolve("/w/out/z"),
                         ("refused", {"outside": {"link": "/w/out", "target": self.outside}}, None))

    def linked(self, request, working_directory=None):
        return _links.linked_line(self.grants, [], working_directory, json.dumps(request))

    def test_a_read_through_an_absolute_link_is_rewritten_with_its_asked_via(self):
        line = self.linked({"id": 1, "op": "read", "path": "/w/a/x.txt", "limit": "4"})
        self.assertEqual(
            json.loads(line),
            {"id": 1, "op": "read", "path": "/w/real/x.txt", "limit": "4", "asked_via": ["/w/a/x.txt", "/w/a", "/w/b"]},
        )

    def test_a_relative_path_is_walked_from_the_working_directory(self):
        line = self.linked({"path": "x.txt"}, working_directory="/w/b")
        self.assertEqual(json.loads(line), {"path": "/w/real/x.txt", "asked_via": ["/w/b/x.txt", "/w/b"]})

    def test_check_write_gets_the_resolved_path_without_the_list(self):
        line = self.linked({"op": "check_write", "path": "/w/a/x.txt", "text": "t"})
        self.assertEqual(json.loads(line), {"op": "check_write", "path": "/w/real/x.txt", "text": "t"})

    def test_a_tool_call_has_its_arguments_path_rewritten_and_the_list_beside_them(self):
        line = self.linked({"op": "tool_call", "name": "read_file", "arguments": {"path": "/w/a/x.txt"}})
        self.assertEqual(
            json.loads(line),
            {"op": "tool_call", "name": "read_file", "arguments": {"path": "/w/real/x.txt"},
             "asked_via": ["/w/a/x.txt", "/w/a", "/w/b"]},
        )
        line = self.linked({"op": "tool_call", "name": "check_write", "arguments": {"path": "/w/a/x.txt"}})
        self.assertEqual(json.loads(line)["arguments"], {"path": "/w/real/x.txt"})
        self.assertNotIn("asked_via", json.loads(line))

    def test_a_link_out_of_every_grant_goes_to_the_component_as_a_link_refusal(self):
        for op in ("read", "read_once", "check_write"):
            line = json.loads(self.linked({"id": "r", "op": op, "path": "/w/out/z"}))
            self.assertEqual(line["link_refusal"], {"outside": {"link": "/w/out", "target": self.outside}})
            self.assertEqual((line["id"], line["path"]), ("r", "/w/out/z"))

    def test_numbers_in_a_rewritten_line_keep_their_own_text(self):
        line = _links.linked_line(
            self.grants, [], None,
            '{"id":1E2,"op":"read","path":"/w/a/x.txt","offset":-0,"limit":1e400,"column":18446744073709551615}',
        )
        self.assertEqual(
            line,
            '{"id":1E2,"op":"read","path":"/w/real/x.txt","offset":-0,"limit":1e400,"column":18446744073709551615,'
            '"asked_via":["/w/a/x.txt","/w/a","/w/b"]}',
        )
        refused = _links.linked_line(self.grants, [], None, '{"id":1.0,"path":"/w/out/z"}')
        self.assertTrue(refused.startswith('{"id":1.0,"path":"/w/out/z","link_refusal":'), refused)

    def test_a_line_the_walk_leaves_alone_goes_as_it_is(self):
        for line in [
            '{"op":"read","path":"/w/rel/x.txt"}',
            '{"path":"/w/a/x.txt","asked_via":[]}',
            '{"op":"wrote","path":"/w/a/x.txt"}',
            '{"path":"/w/a/x.txt","path":"/w/real/x.txt"}',
            '{"path":3}',
            '{"op":"tool_call","name":"other","arguments":{"path":"/w/a/x.txt"}}',
            '{"op":"tool_call","name":"read_file","arguments":"/w/a/x.txt"}',
            "not json",
            "[1]",
        ]:
            self.assertEqual(_links.linked_line(self.grants, [], None, line), line)


class CredentialThroughLinkTest(unittest.TestCase):
    def test_a_link_named_env_to_an_absolute_path_is_refused_as_env(self):
        with tempfile.TemporaryDirectory() as temp:
            root = Path(os.path.realpath(temp))
            (root / "config").mkdir()
            (root / "config" / "settings").write_text("KEY=1\n", encoding="utf-8")
            (root / ".env").symlink_to(root / "config" / "settings")
            with ReadWindow().session({"/w": root}) as session:
                answer = session.read("/w/.env")
                # A model's tool call gets the same walk: its path is among the arguments.
                called = session.request({"op": "tool_call", "name": "read_file", "arguments": {"path": "/w/.env"}})
        self.assertEqual((answer["status"], answer["error"]["kind"]), ("error", "credential"))
        self.assertEqual(called["error"], answer["error"])
        self.assertEqual(answer["error"]["message"].split(";")[0],
                         "/w/.env holds environment secrets (.env) (credential rule `**/.env`)")


if __name__ == "__main__":
    unittest.main()
