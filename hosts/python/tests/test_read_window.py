"""Tests of the Python host: the named methods' requests and the component's answers to them, grants, finding the
component, host failures and restarts. What the component does is tested by the scenario files (``python -m
read_window scenarios``).

Run: ``PYTHONPATH=hosts/python python -m unittest discover -s hosts/python/tests`` (with wasmtime installed).
"""

import base64
import io
import json
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from read_window import ComponentNotFoundError, HostError, ReadWindow, scenarios
from read_window import _host
from read_window._host import WASM_ENV, find_component

#: How the component begins the error of every answer of a session started with a config it could not use.
MALFORMED_CONFIG = "the host started this session with a config it could not use, so it answers no request: "

#: A 3 x 2 RGB PNG.
TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR42mP4z8DAAMFwFgA72AX7NhGY6gAAAABJRU5ErkJggg=="

WINDOW_KEYS = [
    "status", "content_returned", "path", "start_line", "start_column", "end_line", "lines_returned",
    "total_lines", "truncated", "truncated_by", "next_offset", "next_column", "clamped_lines", "hint", "file_size",
    "encoding", "budget", "text",
]


class HostTest(unittest.TestCase):
    reader: ReadWindow

    @classmethod
    def setUpClass(cls):
        cls.reader = ReadWindow()

    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.dir = Path(temp.name)
        (self.dir / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
        (self.dir / "wide.txt").write_text("x" * 50 + "\n", encoding="utf-8")

    def session(self, config=None, **limits):
        session = self.reader.session({"/w": self.dir}, config, **limits)
        self.addCleanup(session.close)
        return session

    def test_window_has_exactly_the_keys_of_json_rs_in_order(self):
        session = self.session()
        answer = session.read("a.txt")
        self.assertEqual(list(answer), WINDOW_KEYS)
        self.assertEqual(answer["text"], "1|alpha\n2|beta\n\nShowing lines 1-2 of 2 in /w/a.txt: the whole file.")
        # Asked for, the window comes on its own too, in its place after `content_returned`.
        both = session.read("a.txt", content=True, fresh=True)
        self.assertEqual(list(both), WINDOW_KEYS[:2] + ["content"] + WINDOW_KEYS[2:])
        self.assertEqual(both["content"], "1|alpha\n2|beta\n")
        self.assertEqual(answer["path"], "/w/a.txt")
        self.assertEqual(list(answer["encoding"]), ["encoding", "bom", "origin", "line_endings", "replaced_invalid"])
        self.assertEqual(answer["budget"], {"unit": "characters", "limit": 100000, "used": 15})

    def test_an_image_is_bytes_and_a_region_is_a_dict_or_a_tuple(self):
        png = base64.b64decode(TINY_PNG)
        (self.dir / "dot.png").write_bytes(png)
        session = self.session()
        answer = session.read("dot.png")
        self.assertEqual(answer["data"], png)
        self.assertEqual(answer["image"]["mime_type"], "image/png")
        self.assertEqual((answer["image"]["width"], answer["image"]["height"]), (3, 2))
        part = session.read("dot.png", region=(1, 0, 2, 2))
        self.assertEqual(part["image"]["region"], {"x": 1, "y": 0, "width": 2, "height": 2})
        self.assertIsInstance(part["data"], bytes)
        self.assertEqual(part["data"][:8], b"\x89PNG\r\n\x1a\n")
        once = self.reader.read_once({"/w": self.dir}, "dot.png", region={"x": 0, "y": 0, "width": 1, "height": 1})
        self.assertEqual(once["image"]["width"], 1)
        # The raw protocol answer keeps the base64 text.
        self.assertEqual(session.request({"op": "read_once", "path": "dot.png"})["data"], TINY_PNG)

    def test_clamped_lines_truncation_names_and_token_cap(self):
        answer = self.session({"max_line_length": 16, "budget": {"tokens": {"cap": 1000}}}).read("wide.txt")
        self.assertEqual(answer["truncated_by"], ["line_length"])
        self.assertEqual(
            answer["clamped_lines"], [{"line": 1, "shown_chars": 16, "total_chars": 50, "next_column": 16}]
        )
        self.assertEqual(answer["budget"]["unit"], "tokens")
        self.assertEqual(answer["budget"]["cap"], 1000)

    def test_warnings_appear_only_when_there_are_some(self):
        answer = self.session({"max_lines": 0}).read("a.txt")
        self.assertEqual(list(answer)[-2:], ["warnings", "text"])
        self.assertTrue(answer["warnings"])
        # A warning about the config is for the host: the model's text leaves it out.
        self.assertEqual(
            answer["text"], "1|alpha\n2|beta\n\nShowing lines 1-2 of 2 in /w/a.txt: the whole file."
        )

    def test_stub_error_and_loop_block_shapes(self):
        session = self.session()
        session.read("a.txt")
        stub = session.read("a.txt")
        self.assertEqual(
            stub,
            {"status": "unchanged", "content_returned": False, "dedup": True, "path": "/w/a.txt",
             "start_line": 1, "end_line": 2, "total_lines": 2, "next_offset": None, "next_column": None,
             "message": stub["message"], "text": stub["message"]},
        )
        self.assertEqual(
            list(stub),
            ["status", "content_returned", "dedup", "path", "start_line", "end_line", "total_lines", "next_offset",
             "next_column", "message", "text"],
        )
        # The way back after compaction: fresh returns the content the stub stands for.
        fresh = session.read("a.txt", fresh=True)
        self.assertEqual((fresh["status"], fresh["start_line"], fresh["end_line"]), ("ok", 1, 2))
        blocked = session.read("a.txt")
        self.assertEqual(blocked["error"]["kind"], "loop_blocked")
        self.assertIsInstance(blocked["error"]["already_read"], int)
        missing = session.read("missing.txt")
        self.assertEqual(list(missing), ["status", "content_returned", "text", "error"])
        self.assertEqual(list(missing["error"]), ["kind", "message", "path", "suggestions"])
        self.assertEqual(missing["error"]["kind"], "not_found")
        self.assertEqual(missing["error"]["path"], "/w/missing.txt")
        self.assertEqual(missing["error"]["suggestions"], [])
        self.assertEqual(missing["text"], missing["error"]["message"])

    def test_notes_checks_retry_and_stats(self):
        session = self.session()
        self.assertEqual(session.other_tool(), {"status": "ok"})
        self.assertEqual(session.reset_dedup(), {"status": "ok"})
        self.assertEqual(session.wrote("a.txt"), {"status": "ok"})
        self.assertEqual(session.check_write("a.txt", "fine\n"), {"status": "ok"})
        echoed = session.check_write("a.txt", "[read-window: line 1 clamped]")
        self.assertEqual(echoed["error"]["kind"], "echoed_output")
        self.assertEqual(session.report_tokens("a.txt", 1, 2, 5)["error"]["kind"], "invalid_request")
        retry = session.token_refusal("a.txt", 1, 2, "File content (30000 tokens) exceeds maximum allowed tokens (25000)")
        self.assertEqual(list(retry), ["status", "offset", "limit", "refused_tokens", "cap_tokens", "hint"])
        session.read("a.txt")
        stats = session.stats()
        self.assertEqual(list(stats), ["status", "positioned_reads", "indexed_files", "index_bytes", "documents_extracted", "documents_from_store", "peak_memory_bytes"])
        self.assertEqual(stats["indexed_files"], 1)
        # The component reports its own linear memory (a whole number of 64 KiB pages).
        self.assertGreater(stats["peak_memory_bytes"], 0)
        self.assertEqual(stats["peak_memory_bytes"] % 65536, 0)

    def test_read_once_keeps_no_memory(self):
        for _ in range(5):
            answer = self.reader.read_once({"/w": self.dir}, "a.txt", limit=1, content=True)
            self.assertEqual(answer["content"], "1|alpha\n")
        self.assertEqual(self.reader.read_once(self.dir, "missing")["error"]["kind"], "not_found")

    def test_a_list_grants_each_directory_at_its_own_path(self):
        canonical = os.path.realpath(self.dir)
        session = self.reader.session([self.dir])
        self.addCleanup(session.close)
        self.assertEqual(session.read(f"{canonical}/a.txt")["path"], f"{canonical}/a.txt")
        self.assertEqual(session.read("a.txt", limit=1)["status"], "ok")  # the first grant is the working directory

    def test_a_root_given_through_a_link_reads_its_own_absolute_paths(self):
        canonical = os.path.realpath(self.dir)
        link = self.dir.parent / (self.dir.name + "-link")
        os.symlink(self.dir, link)
        self.addCleanup(os.unlink, link)
        session = self.reader.session(str(link))
        self.addCleanup(session.close)
        answer = session.read(f"{link}/a.txt", limit=1, content=True)
        self.assertEqual((answer["status"], answer["path"]), ("ok", f"{canonical}/a.txt"))
        self.assertEqual(answer["content"], "1|alpha\n")
        once = self.reader.read_once([link], f"{link}/a.txt", limit=1)
        self.assertEqual(once["path"], f"{canonical}/a.txt")
        # A name that only begins like the link is not under it.
        beside = session.read(f"{link}x/a.txt")
        self.assertEqual(beside["error"]["kind"], "outside_sandbox")

    def test_grants_are_read_only_and_checked(self):
        with self.assertRaises(FileNotFoundError):
            self.reader.session(self.dir / "missing")
        with self.assertRaises(NotADirectoryError):
            self.reader.session(self.dir / "a.txt")

    def test_malformed_arguments_are_passed_on_and_answered_by_the_component(self):
        session = self.session()
        cases = [
            (
                lambda: session.read("a.txt", offset=-1),
                "`offset` must not be negative (got -1) (offset must be a line number from 1 (0 is read as 1) up to "
                "the file's line count)",
            ),
            (
                lambda: session.read("a.txt", limit=1.5),
                "`limit` must be an integer (got 1.5) (limit must be a count of lines from 1 (larger values are "
                "clamped to max-lines))",
            ),
            (
                lambda: session.read("a.txt", column=True),
                "`column` must be a character position from 0 inside the first line, as a JSON number, not a boolean",
            ),
            (
                lambda: session.read("a.txt", offset="forty"),
                "`offset` must be a line number from 1 (0 is read as 1) up to the file's line count, as a JSON number; "
                'got the string "forty"',
            ),
            (
                lambda: session.read("a.txt", tail=2**32),
                "`tail` must be a count of last lines from 1 to 4294967295 (got 4294967296)",
            ),
            (
                lambda: session.read("a.txt", offset=2**64),
                "`offset` is beyond the largest supported value 18446744073709551615 (got 1.8446744073709552e+19) "
                "(offset must be a line number from 1 (0 is read as 1) up to the file's line count)",
            ),
            (lambda: session.read(3), "`path` must be a string, not a number"),
            # A lone surrogate goes as JSON escapes it, which is not valid JSON for the component.
            (
                lambda: session.read("\ud800"),
                "the request is not valid JSON: unexpected end of hex escape at line 1 column 28",
            ),
            (
                lambda: session.report_tokens("a.txt", 1, None, 2),
                "`lines` is missing: the `report_tokens` op needs a `lines` (a non-negative integer)",
            ),
            (lambda: session.wrote(None), "`path` is missing: the `wrote` op needs a `path` (a string)"),
        ]
        for call, message in cases:
            answer = call()
            self.assertEqual(answer["error"]["kind"], "invalid_request", message)
            self.assertEqual(answer["error"]["message"], message)
        self.assertEqual(session.read("a.txt", offset=2.0, limit=1, content=True)["content"], "2|beta\n")

    def test_an_op_only_the_component_knows_reaches_python(self):
        answer = self.session().request({"op": "tools", "format": "anthropic", "id": 7})
        self.assertEqual((answer["id"], answer["status"]), (7, "ok"))
        self.assertEqual(list(answer)[:2], ["id", "status"])
        self.assertEqual([tool["name"] for tool in answer["tools"]], ["read_file", "list_directory", "read_files", "search", "check_write"])
        self.assertEqual(answer["tools"][0]["input_schema"]["properties"]["limit"]["maximum"], 2000)

    def test_request_and_answer_take_text_and_an_unknown_op_is_the_components_refusal(self):
        session = self.session()
        self.assertEqual(json.loads(session.answer('{"id":"a","op":"read","path":"a.txt","limit":1,"content":true}'))["content"],
                         "1|alpha\n")
        fly = session.request('{"op": "fly", "id": 1}')
        self.assertEqual(
            fly["error"]["message"],
            'unknown `op` "fly": expected one of read, read_once, other_tool, reset_dedup, wrote, check_write, '
            "report_tokens, token_refusal, stats, config, configure, tools, tool_call, mcp_server, mcp_roots, options, "
            "read_many, search, capture_begin, capture_chunk, capture_end",
        )
        self.assertEqual(fly["id"], 1)
        self.assertEqual(session.request("not json")["error"]["kind"], "invalid_request")

    def test_optional_numbers_are_taken_the_way_models_send_them(self):
        session = self.session()
        plain = session.read("a.txt", offset="", limit=None, column=" ")
        self.assertEqual(plain["start_line"], 1)
        self.assertNotIn("warnings", plain)
        noted = session.read("a.txt", offset="2", limit="1", content=True)
        self.assertEqual(noted["content"], "2|beta\n")
        self.assertEqual(
            noted["warnings"],
            [
                '`offset` was the string "2"; it was read as the number 2. Send numbers as JSON numbers.',
                '`limit` was the string "1"; it was read as the number 1. Send numbers as JSON numbers.',
            ],
        )
        tail = self.reader.read_once([self.dir], "a.txt", tail=1)
        self.assertEqual(tail["end_line"], tail["total_lines"])
        raw = self.reader.read_once([self.dir], "a.txt", extract="false", content=True)
        self.assertEqual(raw["content"], "1|alpha\n2|beta\n")
        self.assertEqual(
            raw["warnings"],
            ['`extract` was the string "false"; it was read as the boolean false. Send booleans as JSON true or false.'],
        )
        refused = session.read("a.txt", extract="no")
        self.assertEqual(refused["error"]["kind"], "invalid_request")
        self.assertEqual(
            refused["error"]["message"], '`extract` must be true or false, as a JSON boolean, not the string "no"'
        )

    def test_a_malformed_config_makes_every_answer_the_error_naming_the_field(self):
        cases = [
            ({"max_lines": -1}, "`max_lines` must not be negative (got -1)"),
            ({"max_lines": 2**32}, "`max_lines` is beyond the largest supported value 4294967295 (got 4294967296)"),
            ({"dedup": 1}, "`dedup` must be a boolean, not a number"),
            (
                {"budget": 500},
                '`budget` must be {"characters": N} or {"tokens": {"cap": N, "headroom": F}}, not a number',
            ),
            (
                {"budget": {"characters": 500, "tokens": {}}},
                '`budget` must be {"characters": N} or {"tokens": {"cap": N, "headroom": F}}: exactly one key',
            ),
            (
                {"budget": {"tokens": {"cap": 1, "head": 2}}},
                "unknown field `head` in `budget.tokens`; its fields are: cap, headroom",
            ),
            ({"deny_patterns": "*.key"}, "`deny_patterns` must be a list of strings, not a string"),
            (
                {"max-lines": 5},
                "unknown config field `max-lines`; the fields are: max_lines, max_line_length, budget, "
                "working_directory, dedup, loop_warn_at, loop_block_at, not_found_ttl_ms, deny_patterns, "
                "allow_patterns, ignore_files, escape_invisible, images, document_cache_dir",
            ),
        ]
        for config, message in cases:
            session = self.session(config)
            for answer in (session.read("a.txt"), session.stats()):
                self.assertEqual(answer["error"]["kind"], "invalid_request")
                self.assertEqual(answer["error"]["message"], MALFORMED_CONFIG + message)

    def test_configure_is_kept_across_a_restart_and_a_trapped_request_is_answered_with_its_id(self):
        (self.dir / "line.txt").write_text("y" * 30_000_000, encoding="utf-8")
        session = self.session(deadline=0.001)
        self.assertEqual(session.request({"op": "configure", "max_lines": 1}), {"status": "ok"})
        trapped = session.request({"id": "t", "path": "line.txt"})
        self.assertEqual(list(trapped), ["id", "status", "content_returned", "text", "error"])
        self.assertEqual((trapped["id"], trapped["error"]["kind"]), ("t", "host_error"))
        self.assertEqual((trapped["error"]["cause"], trapped["error"]["session_restarted"]), ("deadline", True))
        self.assertEqual(session.restarts, 1)
        # The restarted session has the configured max_lines, and `configure` is refused no more than before.
        self.assertEqual(session.request({"op": "config"})["config"]["max_lines"], 1)
        self.assertEqual(session.read("a.txt", content=True)["content"], "1|alpha\n")

    def test_the_mcp_budget_is_kept_across_a_restart(self):
        (self.dir / "line.txt").write_text("y" * 30_000_000, encoding="utf-8")
        session = self.session(deadline=0.001)
        self.assertEqual(session.request({"op": "mcp_server"})["status"], "ok")
        mcp_budget = {"tokens": {"cap": 20000, "headroom": 0.9}}
        self.assertEqual(session.request({"op": "config"})["config"]["budget"], mcp_budget)
        self.assertEqual(session.request({"path": "line.txt"})["error"]["cause"], "deadline")
        self.assertEqual(session.restarts, 1)
        self.assertEqual(session.request({"op": "config"})["config"]["budget"], mcp_budget)
        self.assertEqual(session.read("a.txt")["budget"], {"unit": "tokens", "limit": 18000, "used": 10,
                                                           "cap": 20000})

    def test_a_deadline_interrupts_and_the_session_restarts(self):
        (self.dir / "line.txt").write_text("y" * 30_000_000, encoding="utf-8")
        session = self.session(deadline=0.001)
        with self.assertRaises(HostError) as caught:
            session.read("line.txt")
        self.assertEqual(caught.exception.cause, "deadline")
        self.assertTrue(caught.exception.session_restarted)
        self.assertEqual(session.restarts, 1)
        error = caught.exception.to_json()
        self.assertEqual(error["error"]["kind"], "host_error")
        self.assertEqual(list(error["error"]), ["kind", "cause", "message", "session_restarted"])
        self.assertEqual(session.read("a.txt")["status"], "ok")  # the fresh session works
        with self.assertRaises(HostError) as once:
            self.reader.read_once(self.dir, "line.txt", deadline=0.001)
        self.assertEqual(once.exception.cause, "deadline")
        self.assertFalse(once.exception.session_restarted)

    def test_the_memory_cap_traps_and_the_session_restarts(self):
        (self.dir / "lines.txt").write_text(("y" * 100 + "\n") * 2000, encoding="utf-8")
        # Enough to start and read a line (the component needs 35 pages with the document extractors, the image
        # codecs and the regex tables), too little for a window of 100,000 characters.
        session = self.session(memory_bytes=36 * 65536)
        with self.assertRaises(HostError) as caught:
            session.read("lines.txt")
        # "memory_limit" when the guest says so on stderr, "trap" when it aborts silently (see HostError).
        self.assertIn(caught.exception.cause, ("memory_limit", "trap"))
        self.assertIn("cap of 2359296 bytes", caught.exception.message)
        self.assertTrue(caught.exception.session_restarted)
        self.assertEqual(session.read("a.txt")["status"], "ok")

    def test_a_closed_session_refuses_calls(self):
        session = self.session()
        session.close()
        session.close()
        with self.assertRaises(ValueError):
            session.read("a.txt")


class FindComponentTest(unittest.TestCase):
    def test_a_missing_file_names_all_three_ways(self):
        for kwargs, env in [({"wasm": "/nope/a.wasm"}, {}), ({}, {WASM_ENV: "/nope/b.wasm"})]:
            with mock.patch.dict(os.environ, env):
                with self.assertRaises(ComponentNotFoundError) as caught:
                    find_component(**kwargs)
            message = str(caught.exception)
            for way in ("/nope/", "ReadWindow(wasm=PATH)", WASM_ENV, "cargo build -p read-window-host"):
                self.assertIn(way, message)

    def test_the_explicit_path_wins_over_the_environment(self):
        built = find_component()
        with mock.patch.dict(os.environ, {WASM_ENV: "/nope.wasm"}):
            self.assertEqual(find_component(built), built)

    def test_the_packaged_component_comes_after_the_environment_and_before_the_rust_build(self):
        with tempfile.TemporaryDirectory() as temp:
            packaged, built, named = (Path(temp, name) for name in ("packaged.wasm", "built.wasm", "named.wasm"))
            for path in (packaged, built, named):
                path.write_bytes(b"\0asm")
            environ = {key: value for key, value in os.environ.items() if key != WASM_ENV}
            with mock.patch.object(_host, "PACKAGED_WASM", packaged), mock.patch.object(_host, "REPO_WASM", built), \
                    mock.patch.dict(os.environ, environ, clear=True):
                self.assertEqual(find_component(), packaged)
                with mock.patch.dict(os.environ, {WASM_ENV: str(named)}):
                    self.assertEqual(find_component(), named)
                packaged.unlink()
                self.assertEqual(find_component(), built)
                built.unlink()
                with self.assertRaises(ComponentNotFoundError) as caught:
                    find_component()
                self.assertIn("pip install read-window", str(caught.exception))


class MatchTest(unittest.TestCase):
    def check(self, expected, actual):
        scenarios.match_value(expected, actual)

    def fails(self, expected, actual, message):
        with self.assertRaises(scenarios.ScenarioFailure) as caught:
            scenarios.match_value(expected, actual)
        self.assertEqual(str(caught.exception), message)

    def test_rules(self):
        answer = {"status": "error", "error": {"kind": "not_found", "message": "m"}, "n": 3.0, "flag": True}
        self.check({"error": {"kind": "not_found"}, "n": 3}, answer)
        self.fails({"error": {"kind": "binary"}}, answer, 'at /error/kind: expected "binary", got "not_found"')
        self.fails({"flag": 1}, answer, "at /flag: expected 1, got true")
        self.fails({"n": True}, {"n": 1}, "at /n: expected true, got 1")
        self.fails({"a": [1]}, {"a": [1, 2]}, "at /a: expected a list of 1 items, got 2 items: [1,2]")
        self.check({"a": [{"x": 1}]}, {"a": [{"x": 1, "y": 2}]})
        self.check({"content": {"$absent": True}, "error": {"message": {"$contains": ["m"]}}}, answer)
        self.fails({"status": {"$absent": True}}, answer, 'at /status: expected no key, got "error"')
        self.fails({"gone": {"$absent": False}}, answer, "at /gone: expected a key, found none")
        self.fails({"status": {"$contains": "ok"}}, answer, 'at /status: expected a string containing "ok", got "error"')
        self.fails({"gone": None}, answer, "at /gone: expected null, found no key")


class RunnerTest(unittest.TestCase):
    def run_text(self, scenario):
        with tempfile.TemporaryDirectory() as temp:
            path = Path(temp) / "s.json"
            path.write_text(json.dumps(scenario), encoding="utf-8")
            out = io.StringIO()
            counts = scenarios.run_paths(HostTest.reader, [path], out)
        return counts, out.getvalue()

    @classmethod
    def setUpClass(cls):
        if not hasattr(HostTest, "reader"):
            HostTest.reader = ReadWindow()

    def test_a_step_is_answered_by_the_component_and_a_malformed_runner_step_fails(self):
        for step, message in [
            (
                {"op": "read", "path": "a", "offset": -1},
                "`offset` must not be negative (got -1) (offset must be a line number from 1 (0 is read as 1) up to "
                "the file's line count)",
            ),
            (
                {"op": "read", "path": "a", "ofset": 3},
                "unknown field `ofset` for op `read`; its fields are: path, offset, limit, column, tail, extract, fresh, region, depth, content",
            ),
            # `read_once` is an op of the component's too, answered by the step's session.
            ({"op": "read_once", "path": "a"}, "a (resolved to /scenario/a) does not exist."),
        ]:
            expect = {"status": "error", "error": {"message": {"$contains": message}}}
            counts, text = self.run_text({"name": "answered", "steps": [dict(step, expect=expect)]})
            self.assertEqual(counts, (1, 0), text)
        for step, why in [
            ({"op": "write_file", "path": "../x", "content": "y"}, "without `..`"),
            ({"op": "remove_file", "path": "x", "content": 1}, "unknown field `content`; the fields are op, id, path"),
            ({"op": "read", "path": "a", "session": 3}, "`session` must be a string"),
            ({"op": "other_tool", "expect": {"status": "error"}}, 'at /status: expected "error", got "ok"'),
        ]:
            counts, text = self.run_text({"name": "bad", "steps": [step]})
            self.assertEqual(counts, (0, 1), text)
            self.assertIn(why, text)

    def test_missing_name_and_unknown_keys_fail(self):
        self.assertIn("`name` is missing", self.run_text({"steps": []})[1])
        self.assertIn("unknown scenario key `step`", self.run_text({"name": "x", "step": []})[1])
        failed = self.run_text({"name": "x", "config": {"x": 1}, "steps": []})[1]
        self.assertIn(f"FAIL x: config: {MALFORMED_CONFIG}unknown config field `x`", failed)

    def test_a_pass_and_the_closing_line(self):
        step = {"path": "a.txt", "content": True, "expect": {"content": "1|hi\n"}}
        counts, text = self.run_text({"name": "ok", "files": {"a.txt": "hi\n"}, "steps": [step]})
        self.assertEqual(counts, (1, 0))
        self.assertEqual(text, "PASS ok\n1 passed, 0 failed\n")


if __name__ == "__main__":
    unittest.main()
