"""read-window for Python: a file-reading tool for LLM agents, run as a WebAssembly component on wasmtime-py.

The component (``read_window.wasm``, carried by the wheel) does all the work through its JSON protocol (interface
``read-window:reader/protocol@0.3.0``, ``docs/protocol.md``): it parses each request and renders each answer. This
package loads it (compiled once, then from an on-disk cache), grants it directories, bounds each call in time and
memory, and pipes requests to it::

    from read_window import ReadWindow

    reader = ReadWindow()                                  # the packaged component (or $READ_WINDOW_WASM)
    session = reader.session({"/work": "."}, {"budget": {"characters": 20000}})
    answer = session.read("README.md", offset=1, limit=40)  # lines are 1-based
    print(answer["text"])                                  # what the model should see
    tools = session.request({"op": "tools", "format": "openai"})  # any op of the protocol

Read errors are answers (``"status": "error"``); only host failures (a trap, a deadline, the memory cap, a
session that cannot start) raise ``HostError`` from the named methods. ``python -m read_window read FILE`` prints
one window; ``python -m read_window scenarios tests/scenarios`` runs the scenario files; ``read-window-mcp`` serves
the tools over MCP (``read_window.mcp_server``).

Requires ``wasmtime>=50.0.1,<51`` (``pip install read-window`` brings it).
"""

#: The package's version: the component's, the crates', the npm package's and the WIT package's.
__version__ = "0.3.0"

#: What to install when wasmtime is missing.
INSTALL_HINT = ("read_window needs wasmtime>=50.0.1,<51: pip install read-window (or, in a source checkout, "
                "pip install -r hosts/python/requirements.txt)")

__all__ = ["CacheStatus", "ComponentNotFoundError", "DEFAULT_DEADLINE", "DEFAULT_MEMORY_BYTES", "HostError",
           "ReadWindow", "Session", "find_component"]

try:
    from ._cache import CacheStatus
    from ._host import (DEFAULT_DEADLINE, DEFAULT_MEMORY_BYTES, ComponentNotFoundError, HostError, ReadWindow, Session,
                        find_component)

    WASMTIME_MISSING = None
except ModuleNotFoundError as _error:
    if _error.name != "wasmtime":
        raise
    #: The ImportError raised when wasmtime is not installed (None when it is); public names then raise it.
    WASMTIME_MISSING = _error

    def __getattr__(name: str):
        """Every public name raises an ImportError saying what to install when wasmtime is missing."""
        if name in __all__:
            raise ImportError(INSTALL_HINT) from WASMTIME_MISSING
        raise AttributeError(f"module 'read_window' has no attribute {name!r}")
