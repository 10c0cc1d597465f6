"""Tests of ``read-window-mcp`` (``read_window/mcp_server.py``) over raw JSON-RPC on its stdio, for what an SDK
client cannot send or does not show: ``arguments`` as a string of JSON, an unknown tool, the roots a client lists and
changes, a ``--root`` that cannot be granted. ``tests/mcp-clients/client.py --command read-window-mcp`` runs the
shared checks through the official SDK's client.

Run: ``PYTHONPATH=hosts/python python -m unittest discover -s hosts/python/tests`` (with wasmtime and mcp installed).
"""

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import unittest
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

try:
    import mcp  # noqa: F401

    MCP_MISSING = None
except ImportError as error:  # Python 3.9, or the SDK not installed
    MCP_MISSING = str(error)

#: How long one answer may take, in seconds (the first start may compile the component).
TIMEOUT = 60


class RawClient:
    """``read-window-mcp ARGS`` in ``cwd``, spoken to in JSON lines. ``roots`` answers the server's ``roots/list``
    (None: the client declares no roots capability)."""

    def __init__(self, args: List[str], cwd: str, roots: Optional[Callable[[], List[str]]] = None,
                 env: Optional[Dict[str, str]] = None) -> None:
        self.roots, self.next_id, self.lines = roots, 0, queue.Queue()
        self.roots_asked = 0
        self.process = subprocess.Popen([sys.executable, "-m", "read_window.mcp_server", *args], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=env)
        threading.Thread(target=self._read, daemon=True).start()
        capabilities = {"roots": {"listChanged": True}} if roots is not None else {}
        self.info = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": capabilities,
                                                "clientInfo": {"name": "raw", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, message: Dict[str, Any]) -> None:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: Any) -> Dict[str, Any]:
        """The response (``result`` or ``error``) to the request, answering the server's requests meanwhile."""
        self.next_id += 1
        ident = self.next_id
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            message = self.lines.get(timeout=TIMEOUT)
            if message is None:
                raise AssertionError(f"the server exited: {self.process.stderr.read()}")
            if message.get("method") == "roots/list":
                self.roots_asked += 1
                roots = [{"uri": uri} for uri in self.roots()]
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": {"roots": roots}})
            elif message.get("id") == ident:
                return message

    def call(self, name: Any, arguments: Any) -> Dict[str, Any]:
        """The ``result`` of a ``tools/call``."""
        response = self.request("tools/call", {"name": name, "arguments": arguments})
        if "result" not in response:
            raise AssertionError(f"tools/call answered {response}")
        return response["result"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=TIMEOUT)
        self.process.stdout.close()
        self.process.stderr.close()


@unittest.skipIf(MCP_MISSING is not None, f"the MCP SDK is missing: {MCP_MISSING}")
class McpServerTest(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.dir = Path(os.path.realpath(temp.name))
        for name in ("a", "b"):
            (self.dir / name).mkdir()
            (self.dir / name / f"{name}.txt").write_text(f"{name} one\n{name} two\n", encoding="utf-8")
        python_path = str(Path(__file__).resolve().parents[1])
        # HOME is the temporary directory (the server refuses to read it whole); the compiled component's cache stays.
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        self.env = {**os.environ, "PYTHONPATH": python_path, "HOME": str(self.dir), "XDG_CACHE_HOME": cache}

    def client(self, args, cwd=None, roots=None):
        client = RawClient(args, str(cwd or self.dir), roots, self.env)
        self.addCleanup(client.close)
        return client

    def text(self, result):
        self.assertEqual([block["type"] for block in result["content"]], ["text"])
        return result["content"][0]["text"]

    def test_initialize_and_tools_come_from_the_component(self):
        client = self.client(["--root", str(self.dir / "a")])
        result = client.info["result"]
        self.assertEqual(result["serverInfo"]["name"], "read-window")
        self.assertEqual(result["serverInfo"]["version"], "0.3.0")
        self.assertTrue(result["instructions"].startswith("read-window reads text files for you in bounded windows"))
        self.assertIn("tools", result["capabilities"])
        tools = client.request("tools/list", {})["result"]["tools"]
        self.assertEqual([tool["name"] for tool in tools], ["read_file", "list_directory", "read_files", "search", "check_write"])

    def test_arguments_given_as_a_string_of_json_reach_the_component(self):
        client = self.client(["--root", str(self.dir / "a")], cwd=self.dir / "a")
        result = client.call("read_file", json.dumps({"path": "a.txt", "limit": 1}))
        self.assertFalse(result["isError"])
        path = self.dir / "a" / "a.txt"
        self.assertEqual(self.text(result).split("\n\n")[0], "1|a one")
        self.assertEqual(result["structuredContent"]["path"], str(path))
        self.assertEqual(result["structuredContent"]["next_offset"], 2)

    def test_an_unknown_tool_is_the_components_refusal(self):
        client = self.client(["--root", str(self.dir / "a")])
        result = client.call("write_file", {"path": "a.txt"})
        self.assertTrue(result["isError"])
        self.assertIn("write_file", self.text(result))

    def test_the_clients_roots_are_read_and_a_change_starts_a_new_session(self):
        roots = [(self.dir / "a").as_uri()]
        client = self.client([], cwd=self.dir, roots=lambda: roots)
        first = client.call("read_file", {"path": str(self.dir / "a" / "a.txt")})
        self.assertFalse(first["isError"], first)
        self.assertEqual(client.roots_asked, 1)
        again = client.call("read_file", {"path": str(self.dir / "a" / "a.txt")})
        self.assertEqual(again["structuredContent"]["status"], "unchanged")
        outside = client.call("read_file", {"path": str(self.dir / "b" / "b.txt")})
        self.assertTrue(outside["isError"])
        roots[:] = [(self.dir / "b").as_uri(), (self.dir / "a").as_uri()]
        client.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        after = client.call("read_file", {"path": str(self.dir / "b" / "b.txt")})
        self.assertFalse(after["isError"], after)
        self.assertEqual(client.roots_asked, 2)
        # A new session: the window read before is content again, not a stub.
        fresh = client.call("read_file", {"path": str(self.dir / "a" / "a.txt")})
        self.assertEqual(fresh["structuredContent"]["status"], "ok")

    def test_a_root_the_client_lists_that_is_no_directory_is_named(self):
        client = self.client([], cwd=self.dir, roots=lambda: [(self.dir / "gone").as_uri()])
        result = client.call("read_file", {"path": "a.txt"})
        self.assertTrue(result["isError"])
        self.assertEqual(result["structuredContent"]["error"]["kind"], "host_error")
        self.assertEqual(result["structuredContent"]["error"]["cause"], "start")
        self.assertIn(f'"{(self.dir / "gone").as_uri()}" (no such directory)', self.text(result))

    def test_a_root_option_that_is_no_directory_stops_the_server_at_start(self):
        for root, why in [(self.dir / "gone", "no such directory"), (self.dir / "a" / "a.txt", "not a directory")]:
            done = subprocess.run([sys.executable, "-m", "read_window.mcp_server", "--root", str(root)],
                                  input="", capture_output=True, text=True, timeout=TIMEOUT, env=os.environ.copy())
            self.assertEqual((done.returncode, done.stderr), (2, f"read-window-mcp: --root {root}: {why}\n"))

    def test_an_option_the_component_refuses_stops_the_server_naming_it(self):
        for args, message in [(["--max-tokens", "10"], "--max-tokens 10 is out of range: from 100 to 1000000."),
                              (["--bogus"], 'unknown option "--bogus"')]:
            done = subprocess.run([sys.executable, "-m", "read_window.mcp_server", *args],
                                  input="", capture_output=True, text=True, timeout=TIMEOUT, env=os.environ.copy())
            self.assertEqual(done.returncode, 2)
            self.assertTrue(done.stderr.startswith(f"read-window-mcp: {message}\nusage: read-window-mcp [--root DIR]"),
                            done.stderr)

    def test_the_home_directory_is_not_read_without_a_root(self):
        client = self.client([], cwd=self.dir)
        result = client.call("read_file", {"path": "a/a.txt"})
        self.assertTrue(result["isError"])
        self.assertIn(f"the server was started in {self.dir} (your home directory) with no --root", self.text(result))

    def test_the_current_directory_is_read_without_roots_or_options(self):
        client = self.client([], cwd=self.dir / "a")
        result = client.call("read_file", {"path": "a.txt"})
        self.assertFalse(result["isError"], result)
        self.assertEqual(result["structuredContent"]["path"], str(self.dir / "a" / "a.txt"))


if __name__ == "__main__":
    unittest.main()
