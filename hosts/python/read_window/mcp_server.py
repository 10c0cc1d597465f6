"""``read-window-mcp``: the reader as an MCP (Model Context Protocol) server over stdio, on the official Python MCP
SDK (``mcp``, its low-level ``Server``).

The server is a pipe, like the Rust one (``read-window mcp``): everything it says comes from the component. Its name,
version, instructions and its tools (``read_file``, ``list_directory``, ``read_files``, ``search`` and ``check_write``, with their input and output schemas) are
the answer to the protocol's ``mcp_server`` op, which also gives the session the MCP default budget (a token cap under
Claude Code's output cap) when the options set none. A ``tools/call`` goes to the component as a ``tool_call`` line
with ``"reply": "mcp"`` and the ``name`` and ``arguments`` exactly as the client sent them (an object, or a string of
JSON as some clients send it: the SDK would refuse that one, so a middleware hands the raw params past its
validation), and the component's ``CallToolResult`` is the result as it is, refusals included.

One connection is one session (dedup stubs, the loop tripwire and the line indexes last while the client stays
connected). Which directories it reads is the component's ``mcp_roots`` answer: the ``--root`` options, else the
roots the client lists (``roots/list``, asked at the first tool call when the client declares the capability, and
again after ``notifications/roots/list_changed``; a new set of roots starts a new session), else the current
directory, but never ``/`` or the home directory. When nothing may be granted, every tool call is answered with
the component's ``host_error`` result (cause ``start``) saying why and naming ``--root``.

Usage: ``read-window-mcp [--root DIR]... [config options]`` (``read-window-mcp --help``). Needs the ``mcp`` package
(installed with read-window on Python 3.10 and later).
"""

from __future__ import annotations

import contextvars
import json
import os
import sys
import warnings
from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

import read_window
from read_window import _options

#: How long the server waits for the client's answer to ``roots/list``, in seconds.
ROOTS_TIMEOUT = 10.0

#: The raw params of the ``tools/call`` being handled, as the client sent them (set by ``_raw_tool_calls``).
_RAW_CALL: "contextvars.ContextVar[Mapping[str, Any]]" = contextvars.ContextVar("read_window_raw_call")


def _log(message: str) -> None:
    """One line on stderr, which MCP clients show in their server logs."""
    print(f"read-window-mcp: {message}", file=sys.stderr, flush=True)


def _call_line(params: Mapping[str, Any]) -> str:
    """The protocol line of a ``tools/call`` with ``params``: its ``name`` and ``arguments`` as they came (an absent
    or null ``arguments`` left out), answered as an MCP ``CallToolResult``."""
    line: Dict[str, Any] = {"op": "tool_call", "name": params.get("name"), "reply": "mcp"}
    if params.get("arguments") is not None:
        line["arguments"] = params["arguments"]
    return json.dumps(line, separators=(",", ":"))


def _grant_problem(root: str) -> Optional[str]:
    """Why the directory ``root`` cannot be granted (``no such directory``, ``not a directory``), or None."""
    try:
        if os.path.isdir(os.path.realpath(root)):
            return None
        return "not a directory" if os.path.exists(root) else "no such directory"
    except (OSError, ValueError) as error:
        return str(error)


class Connection:
    """The connection's read-window session and where its directories come from.

    ``reader`` is the loaded component, ``options`` the ``--root`` directories as given (may be empty), ``config``
    the config the options describe. ``describe`` is the component's ``mcp_server`` answer (name, version,
    instructions, tools), from a session that grants nothing and also answers ``mcp_roots``. Raises ``HostError``
    when the component cannot start or refuses the config (the answer's text says why)."""

    def __init__(self, reader: "read_window.ReadWindow", options: List[str], config: Dict[str, Any]) -> None:
        self.reader, self.options, self.config = reader, list(options), dict(config)
        unplaced = {key: value for key, value in self.config.items() if key != "working_directory"}
        self._plain = reader.session([], unplaced)
        self.describe = self._plain.request({"op": "mcp_server"})
        if self.describe.get("status") != "ok":
            raise read_window.HostError("start", f"the component cannot serve MCP with this config: "
                                        f"{self.describe.get('text', self.describe)}")
        self.session: Optional[read_window.Session] = None
        self.granted: Optional[List[str]] = None
        self.roots_changed = False
        # Where relative paths start, as the last `mcp_roots` answer says (the current directory under a root,
        # else the first root).
        self.working_directory: Optional[str] = None

    def plan(self, client_roots: Optional[List[str]]) -> Tuple[Optional[List[str]], Optional[str]]:
        """The directories to grant (``(roots, None)``), or why none may be (``(None, message)``), from the
        component's ``mcp_roots`` answer for ``client_roots`` (the URIs the client listed; None when it has no roots
        capability or did not answer). A client root that cannot be granted is handed back to the component as
        ``ungrantable`` and the question asked again, so its answer names it among the refused."""
        request: Dict[str, Any] = {"op": "mcp_roots", "roots": self.options, "cwd": os.path.realpath(os.getcwd())}
        if os.environ.get("HOME"):
            request["home"] = os.path.realpath(os.environ["HOME"])
        if client_roots is not None:
            request["client_roots"] = client_roots
        while True:
            answer = self._plain.request(request)
            if answer.get("status") != "ok":
                return None, answer.get("text", json.dumps(answer))
            if answer.get("refusal"):
                return None, answer["refusal"]
            failed = [{"root": root, "reason": why} for root in answer["roots"] if (why := _grant_problem(root))]
            if not failed:
                self.working_directory = answer.get("working_directory")
                return answer["roots"], None
            if answer.get("from") != "client":
                named = "; ".join(f"{item['root']} ({item['reason']})" for item in failed)
                return None, f"read-window cannot read any file: a directory to grant cannot be granted: {named}."
            request["ungrantable"] = request.get("ungrantable", []) + failed

    def start(self, roots: List[str]) -> None:
        """Replaces the session with one over ``roots`` (read-only, each at its canonical path) that serves MCP,
        working where the last ``mcp_roots`` answer said (the current directory when it lies under a root, else the
        first root). Raises ``HostError`` or
        ``OSError`` when the session cannot start."""
        self.close()
        config = dict(self.config)
        if "working_directory" not in config and self.working_directory is not None:
            config["working_directory"] = self.working_directory
        session = self.reader.session(roots, config)
        answer = session.request({"op": "mcp_server"})
        if answer.get("status") != "ok":
            session.close()
            raise read_window.HostError("start", answer.get("text", json.dumps(answer)))
        self.session, self.granted = session, list(roots)

    def host_error(self, line: str, cause: str, message: str) -> Dict[str, Any]:
        """The component's ``host_error`` result for the call ``line``."""
        return json.loads(self.reader.host_error_answer(line, cause, message))

    def answer(self, line: str) -> Dict[str, Any]:
        """The session's answer to the call ``line``: a ``CallToolResult`` (a host failure is answered by the
        component's ``host_error`` result, the session restarted)."""
        assert self.session is not None
        return json.loads(self.session.answer(line))

    def close(self) -> None:
        """Closes the session, if any."""
        if self.session is not None:
            self.session.close()
        self.session, self.granted = None, None


class Handlers:
    """The MCP handlers over ``connection``, for the SDK's low-level ``Server``: one tool call at a time (the
    session is used by one thread at a time), each call into the component on a worker thread so the connection
    keeps being read (the client's answer to ``roots/list`` arrives while a call waits for it)."""

    def __init__(self, connection: Connection) -> None:
        import anyio

        self.connection, self.lock = connection, anyio.Lock()

    async def list_tools(self, ctx: Any, params: Any) -> Dict[str, Any]:
        """``tools/list``: the component's tools, as the ``mcp_server`` op gave them."""
        return {"tools": self.connection.describe["tools"]}

    async def client_roots(self, ctx: Any) -> Optional[List[str]]:
        """The URIs the client lists, or None when it has no roots capability, fails or does not answer."""
        import anyio

        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.roots is None:
            return None
        try:
            with anyio.fail_after(ROOTS_TIMEOUT), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # roots are deprecated from the 2026 revision on
                listed = await ctx.session.list_roots()
        except TimeoutError:
            _log(f"no answer to roots/list within {ROOTS_TIMEOUT:g} s; taking it as no roots listed")
            return None
        except Exception as error:  # the client's error answer, a closed channel: no roots offered
            _log(f"roots/list failed ({error}); taking it as no roots listed")
            return None
        return [str(root.uri) for root in listed.roots]

    async def session_refusal(self, ctx: Any) -> Optional[str]:
        """Starts (or replaces) the connection's session when it has none or the client's roots changed; returns
        why no session can read anything, or None when one can."""
        import anyio

        connection = self.connection
        if connection.session is not None and (connection.options or not connection.roots_changed):
            return None
        connection.roots_changed = False
        listed = None if connection.options else await self.client_roots(ctx)
        roots, refusal = await anyio.to_thread.run_sync(connection.plan, listed)
        if refusal is not None:
            _log(refusal)
            connection.close()  # nothing is read until the roots change
            return refusal
        if roots == connection.granted:
            return None
        if connection.granted is not None:
            _log(f"the roots changed; a new session starts over {', '.join(roots)}")
        try:
            await anyio.to_thread.run_sync(connection.start, roots)
        except (OSError, read_window.HostError) as error:
            connection.close()
            return str(error)
        return None

    async def call_tool(self, ctx: Any, params: Any) -> Dict[str, Any]:
        """``tools/call``: the component's ``CallToolResult`` for the raw params (``raw_tool_calls``)."""
        import anyio

        line = _call_line(_RAW_CALL.get({"name": params.name, "arguments": params.arguments}))
        async with self.lock:
            refusal = await self.session_refusal(ctx)
            if refusal is not None:
                return await anyio.to_thread.run_sync(self.connection.host_error, line, "start", refusal)
            return await anyio.to_thread.run_sync(self.connection.answer, line)

    async def raw_tool_calls(self, ctx: Any, call_next: Any) -> Any:
        """A middleware: hands a ``tools/call``'s raw params to ``call_tool`` past the SDK's validation of them
        (which refuses ``arguments`` given as a string of JSON), keeping the SDK's handshake gate and its check of
        the result."""
        if ctx.method != "tools/call" or not isinstance(ctx.params, Mapping):
            return await call_next(ctx)
        token = _RAW_CALL.set(ctx.params)
        try:
            stand_in = {"name": ctx.params.get("name") if isinstance(ctx.params.get("name"), str) else ""}
            return await call_next(replace(ctx, params=stand_in))
        finally:
            _RAW_CALL.reset(token)

    async def roots_list_changed(self, ctx: Any, params: Any) -> None:
        """``notifications/roots/list_changed``: the next tool call asks for the roots again."""
        self.connection.roots_changed = True


def build_server(connection: Connection) -> Any:
    """The SDK's low-level ``Server`` over ``connection``: ``initialize`` from the component's ``mcp_server``
    answer, ``tools/list`` its tools, ``tools/call`` through the component (see the module doc)."""
    import mcp.types as types
    from mcp.server.lowlevel import Server

    handlers, describe = Handlers(connection), connection.describe
    server = Server(describe["name"], version=describe["version"], instructions=describe["instructions"],
                    on_list_tools=handlers.list_tools, on_call_tool=handlers.call_tool)
    server.middleware.append(handlers.raw_tool_calls)
    server.add_notification_handler("notifications/roots/list_changed", types.NotificationParams,
                                    handlers.roots_list_changed)
    return server


#: What ``read-window-mcp --help`` says before the component's usage text.
_ABOUT = ("Serves read-window's tools read_file, list_directory, read_files, search and check_write over MCP on stdio: one session per connection. "
          "The directories are the --root options (read-only); without any, the roots the client offers, else the "
          "current directory, but never / or the home directory. Without --max-chars or --max-tokens, windows get "
          "the MCP default token budget (under Claude Code's 25,000-token output cap).\n")
#: This host's own option.
_WASM_HELP = "  --wasm PATH             the component (default: $READ_WINDOW_WASM, else the packaged one)\n"


def _root_problem(root: str) -> Optional[str]:
    """Why the ``--root`` directory ``root`` cannot be granted (no such directory, not a directory), or None."""
    if not os.path.exists(root):
        return f"--root {root}: no such directory"
    if not os.path.isdir(root):
        return f"--root {root}: not a directory"
    return None


async def serve(server: Any) -> None:
    """Serves ``server`` on stdin and stdout until the client disconnects."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(argv: Optional[List[str]] = None) -> int:
    """Runs ``read-window-mcp``; returns the exit status: 0 when the client disconnected, 1 when the component
    could not start or serve, 2 for a usage problem (a bad option or config file, the ``mcp`` SDK missing)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if read_window.WASMTIME_MISSING is not None:
        print(read_window.INSTALL_HINT, file=sys.stderr)
        return 2
    try:
        import anyio
        import mcp.server.lowlevel  # noqa: F401
    except ImportError as error:
        print(f"read-window-mcp needs the MCP SDK (`mcp`, Python 3.10 or later; pip install read-window brings it "
              f"there): {error}", file=sys.stderr)
        return 2
    try:
        own, rest = _options.split_own(argv, ("--wasm",))
        reader = read_window.ReadWindow(own.get("wasm"))
        line = _options.read_command_line(reader, "read-window-mcp", rest)
    except _options.UsageError as error:
        print(f"read-window-mcp: {error}\n{error.usage}", file=sys.stderr)
        return 2
    except (OSError, read_window.HostError) as error:
        print(f"read-window-mcp: {error}", file=sys.stderr)
        return 1
    if line.help:
        print(_ABOUT + "\n" + line.usage + _WASM_HELP)
        return 0
    if line.version:
        print(f"read-window-mcp {read_window.__version__}")
        return 0
    problems = [problem for problem in map(_root_problem, line.roots) if problem]
    if problems:
        print(f"read-window-mcp: {'; '.join(problems)}", file=sys.stderr)
        return 2
    try:
        connection = Connection(reader, line.roots, line.config)
    except (OSError, read_window.HostError) as error:
        print(f"read-window-mcp: {error}", file=sys.stderr)
        return 1
    source = f"reading {', '.join(line.roots)} (read-only, from --root)" if line.roots else (
        "no --root given: reading the roots the client offers, else the current directory (never / or the home "
        "directory)")
    _log(f"{connection.describe['name']} {connection.describe['version']} on stdio; {source}")
    try:
        anyio.run(serve, build_server(connection))
    except KeyboardInterrupt:
        pass
    finally:
        connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
