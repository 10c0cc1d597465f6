"""The wasmtime-py embedding: a pipe to the component's ``protocol`` interface (``docs/protocol.md``), which parses
every request and renders every answer. What stays here is what only a host can do: the grants (preopens), the
deadline and memory cap of each call, the restart after a trap, and the walk of absolute links (``_links.py``)."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import wasmtime
from wasmtime import Engine, Store, WasiConfig, WasmtimeError
from wasmtime.component import Component, Linker

from . import _cache
from . import _links as links

PathLike = Union[str, "os.PathLike[str]"]
#: Granted directories: a host directory, a list of them, or a mapping of guest path to host directory.
Dirs = Union[PathLike, List[PathLike], Tuple[PathLike, ...], Mapping]

#: The environment variable naming the component file.
WASM_ENV = "READ_WINDOW_WASM"
#: Where the Rust build (``cargo build -p read-window-host``) writes the component, from the repository root.
BUILT_WASM = Path("target/component-build/wasm32-wasip2/component/read_window.wasm")
#: The component the wheel carries, beside this module (absent in a source checkout).
PACKAGED_WASM = Path(__file__).resolve().parent / "read_window.wasm"
#: The component path the Rust build produces, resolved from this package (``hosts/python/read_window``) in a
#: source checkout.
REPO_WASM = Path(__file__).resolve().parents[3] / BUILT_WASM
#: The engine settings a compiled component depends on, as the cache key names them (see ``_engine_config``).
ENGINE_SETTINGS = "epoch_interruption=true;cranelift_opt_level=speed"
#: The exported interface this host speaks.
INTERFACE = "read-window:reader/protocol@0.3.0"
#: Default wall-clock deadline of one call into the component, in seconds.
DEFAULT_DEADLINE = 60.0
#: Default cap on a store's linear memory, in bytes (256 MiB).
DEFAULT_MEMORY_BYTES = 256 * 1024 * 1024
#: How often the background thread advances the engine's epoch, in seconds; deadlines are counted in these ticks.
EPOCH_TICK = 0.010

_STDERR_TAIL_BYTES = 4096  # how much of the guest's stderr a store keeps (its last bytes) to explain a trap
_STATE_LOST = "its state (dedup memory, loop counts, not-found cache, line indexes) is lost and later calls start fresh"
_FUNCTIONS = {"constructor": "[constructor]session", "answer": "[method]session.answer",
              "push_output": "[method]session.push-output", "config": "[method]session.config",
              "host_error": "host-error"}
_CAUSES = ("trap", "deadline", "memory_limit", "start")


class ComponentNotFoundError(FileNotFoundError):
    """The component file (``read_window.wasm``) was not found; the message names the three ways to give it."""


class HostError(Exception):
    """A host-side failure of a call into the component (a read error is an answer): its ``cause`` (``trap``,
    ``deadline``, ``memory_limit``, or ``start`` when the component or a session could not be started), its
    ``message`` and ``session_restarted`` (the session was replaced by a fresh one, its state lost). A guest that hits
    the memory cap and aborts silently is a ``trap`` whose message says the cap may be why."""

    def __init__(self, cause: str, message: str, session_restarted: bool = False) -> None:
        if cause not in _CAUSES:
            raise ValueError(f"unknown host error cause {cause!r}; expected one of {', '.join(_CAUSES)}")
        super().__init__(message)
        self.cause, self.message, self.session_restarted = cause, message, session_restarted

    def to_json(self) -> Dict[str, Any]:
        """The failure as the component's ``host-error`` answers it, without an ``id``: ``{"status": "error",
        "content_returned": false, "text", "error": {"kind": "host_error", "cause", "message",
        "session_restarted"}}``."""
        error = {"kind": "host_error", "cause": self.cause, "message": self.message,
                 "session_restarted": self.session_restarted}
        return {"status": "error", "content_returned": False, "text": self.message, "error": error}


def find_component(wasm: Optional[PathLike] = None) -> Path:
    """The component file to load: ``wasm`` when given, else ``$READ_WINDOW_WASM`` when set, else the one the
    package carries (``read_window/read_window.wasm``, in an installed wheel), else the file the Rust build produced
    (``target/component-build/wasm32-wasip2/component/read_window.wasm`` at the root of a source checkout). Raises
    ``ComponentNotFoundError`` when the chosen file does not exist; the message names every way to give it."""
    if wasm is not None:
        path, source = Path(wasm), "the path given to ReadWindow"
    elif os.environ.get(WASM_ENV):
        path, source = Path(os.environ[WASM_ENV]), f"${WASM_ENV}"
    elif PACKAGED_WASM.is_file():
        path, source = PACKAGED_WASM, "the package's own component"
    else:
        path, source = REPO_WASM, "the Rust build's output"
    if not path.is_file():
        raise ComponentNotFoundError(
            f"the read-window component was not found at {path} ({source}). Give its path in one of these ways: "
            f"ReadWindow(wasm=PATH) (or --wasm PATH on the command line), the environment variable {WASM_ENV}, "
            f"install the package (`pip install read-window` carries it), or build it where the Python host looks "
            f"in a source checkout: `cargo build -p read-window-host` in the repository writes {BUILT_WASM}."
        )
    return path


def _engine_config() -> "wasmtime.Config":
    """The engine's settings, which ``ENGINE_SETTINGS`` names for the cache key: epoch interruption (the
    deadlines) and Cranelift's ``speed`` optimization."""
    config = wasmtime.Config()
    config.epoch_interruption = True
    config.cranelift_opt_level = "speed"
    return config


def _grants(dirs: Dirs) -> List[Tuple[str, str]]:
    """``(guest path, host directory)`` pairs for the granted directories; host directories are made canonical and
    must exist. A bare path or a list grants each directory at its canonical absolute path."""
    if isinstance(dirs, (str, os.PathLike)):
        dirs = [dirs]
    grants = []
    for guest, host in dirs.items() if isinstance(dirs, Mapping) else [(None, host) for host in dirs]:
        canonical = os.path.realpath(os.fspath(host))
        if not os.path.exists(canonical):
            raise FileNotFoundError(f"{os.fspath(host)}: the granted directory does not exist")
        if not os.path.isdir(canonical):
            raise NotADirectoryError(f"{os.fspath(host)}: the granted path is not a directory")
        guest = canonical if guest is None else guest
        if not isinstance(guest, str) or not guest:
            raise ValueError(f"{os.fspath(host)}: its guest path must be a non-empty string, not {guest!r}")
        grants.append((guest, canonical))
    return grants


def _given_roots(dirs: Dirs) -> List[Tuple[str, str]]:
    """``(given path, guest path)`` for each directory granted at its canonical path whose absolute given path
    differs from it: a root given through a link (docs/hosts.md, "Absolute links")."""
    if isinstance(dirs, Mapping):
        return []
    given = [os.path.abspath(os.fspath(host)) for host in ([dirs] if isinstance(dirs, (str, os.PathLike)) else dirs)]
    return [(path, os.path.realpath(path)) for path in given if path != os.path.realpath(path)]


def _positive(name: str, value: Any, kinds: tuple) -> Any:
    if isinstance(value, bool) or not isinstance(value, kinds) or not value > 0:
        raise ValueError(f"{name} must be a positive number, not {value!r}")
    return value


def _describe(error: BaseException) -> str:
    """A wasmtime error in one line: its causes without the wasm backtrace."""
    text = str(error).strip()
    if "Caused by:" not in text:
        return " ".join(text.split())
    head, _, causes = text.partition("Caused by:")
    parts = [line.strip() for line in causes.splitlines() if line.strip()]
    first = head.strip().splitlines()[0] if head.strip() else ""
    if first and not first.startswith("error while executing at wasm backtrace"):
        parts.insert(0, first.rstrip(":"))
    return ": ".join(parts)


def dumps(value: Any) -> str:
    """``value`` as one compact line of JSON (path objects as strings), as requests are sent."""
    return json.dumps(value, separators=(",", ":"), default=os.fspath)


def _epoch_ticker(reader: "weakref.ref[ReadWindow]") -> None:
    """Advances the engine's epoch every ``EPOCH_TICK`` until the ``ReadWindow`` is gone."""
    while True:
        time.sleep(EPOCH_TICK)
        owner = reader()
        if owner is None:
            return
        owner._engine.increment_epoch()
        del owner


class _Live:
    """One store with one instance of the component and, unless ``config`` is None, one ``session`` resource."""

    def __init__(self, reader: "ReadWindow", grants: List[Tuple[str, str]], ticks: int, memory_bytes: int,
                 config: Optional[str], writable: List[Tuple[str, str]] = (),
                 document_cache: Optional[str] = None) -> None:
        self.ticks, self.memory_bytes, self.stderr, self.session = ticks, memory_bytes, b"", None
        self.store = Store(reader._engine)
        self.store.set_limits(memory_size=memory_bytes)
        wasi = WasiConfig()
        for guest, host in grants:  # read-only (nothing can be created or changed), but for a spill directory
            if host != document_cache:
                wasi.preopen_dir(host, guest, (guest, host) in writable)
            # The document cache is only a cache: made again when a process of another build removed it (as it may
            # have at any time since the session started), and left out when it cannot be opened. The session then
            # starts, or restarts, without it (the component keeps no documents) rather than not at all.
            elif _cache.ensure_dir(Path(host)):
                try:
                    wasi.preopen_dir(host, guest, True)
                except (WasmtimeError, OSError):
                    pass
        wasi.stderr_custom = self._stderr
        self.store.set_wasi(wasi)
        self.store.set_epoch_deadline(ticks)
        instance = reader._linker.instantiate(self.store, reader._component)
        self.funcs = {key: instance.get_func(self.store, index) for key, index in reader._exports.items()}
        if config is not None:
            self.session = self.call("constructor", config, [guest for guest, _ in writable])

    def _stderr(self, chunk: bytes) -> None:
        self.stderr = (self.stderr + chunk)[-_STDERR_TAIL_BYTES:]

    def call(self, name: str, *args: Any) -> Any:
        """Calls an export within the deadline."""
        self.store.set_epoch_deadline(self.ticks)
        return self.funcs[name](self.store, *args)

    def classify(self, error: BaseException, deadline: float) -> Tuple[str, str]:
        """The cause of a failed call and a sentence saying it, with the guest's last stderr output if any."""
        stderr = " ".join(self.stderr.decode("utf-8", "replace").split())
        detail = _describe(error)
        if "memory allocation of" in stderr:
            cause = "memory_limit"
            detail = f"it ran out of linear memory under the store's cap of {self.memory_bytes} bytes ({detail})"
        elif "wasm trap: interrupt" in str(error):
            cause, detail = "deadline", f"the call ran past its deadline of {deadline:.3f} s and was interrupted"
        else:
            cause = "trap"
            if "unreachable" in detail and not stderr:
                # wasmtime-py's store limiter makes `memory.grow` fail quietly (no limiter callback, no
                # trap-on-grow-failure), and the guest then aborts like this: the cap cannot be told apart.
                detail += (f" (with no panic message this is also how the guest stops when it reaches the store's "
                           f"memory cap of {self.memory_bytes} bytes)")
        return cause, detail + (f" (guest stderr: {stderr})" if stderr else "")

    def close(self) -> None:
        """Drops the session resource and the store."""
        if self.session is not None:
            try:
                self.session.drop(self.store)
            except WasmtimeError:
                pass  # a store that trapped cannot run the destructor; closing the store frees it all the same
            self.session.close()
            self.session = None
        self.store.close()


class ReadWindow:
    """The component ``wasm`` (see ``find_component``; its path in ``path``) compiled once, or loaded from the
    on-disk cache of compiled components (``_cache.py``: ``cache`` None uses ``$READ_WINDOW_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/read-window``, else ``~/.cache/read-window``, unless ``$READ_WINDOW_NO_CACHE`` is set; False
    turns it off; a path names the directory), with a linker for WASI preview 2 and a daemon thread advancing the
    engine's epoch every ``EPOCH_TICK`` s (the deadlines). ``cache_status`` says where the compiled component came
    from. Open any number of sessions from it; it may be shared by threads, a ``Session`` used by one at a time.
    Raises ``ComponentNotFoundError``, or ``HostError`` (cause ``start``) for a file that is not the component."""

    def __init__(self, wasm: Optional[PathLike] = None, *, cache: Union[None, bool, PathLike] = None) -> None:
        self.path = find_component(wasm)
        self._engine = Engine(_engine_config())
        wasm_bytes = self.path.read_bytes()
        if not wasm_bytes.startswith(b"\0asm"):
            raise HostError("start", f"{self.path} is not a WebAssembly component (it lacks the `\\0asm` header)")
        digest = hashlib.sha256(wasm_bytes).hexdigest()
        self.document_cache: Optional[Path] = None
        """The directory sessions keep extracted documents in (``_cache.document_cache_dir``), or ``None``."""
        if cache is not False:
            base = None if cache is None or cache is True else Path(cache)
            self.document_cache = _cache.document_cache_dir(digest, base)
        try:
            self._component, self.cache_status = self._load(wasm_bytes, cache, digest)
            self._linker = Linker(self._engine)
            self._linker.add_wasip2()
        except WasmtimeError as error:
            raise HostError("start", f"could not load the component {self.path}: {_describe(error)}") from error
        interface = self._component.get_export_index(INTERFACE)
        if interface is None:
            raise HostError("start", f"the component {self.path} does not export the interface {INTERFACE}")
        self._exports = {key: self._component.get_export_index(name, interface) for key, name in _FUNCTIONS.items()}
        for key, index in self._exports.items():
            if index is None:
                raise HostError("start", f"the component {self.path} lacks `{_FUNCTIONS[key]}` in {INTERFACE}")
        threading.Thread(target=_epoch_ticker, args=(weakref.ref(self),), name="read-window-epoch", daemon=True).start()

    def _load(self, wasm_bytes: bytes, cache: Union[None, bool, PathLike],
              digest: str) -> Tuple[Component, "_cache.CacheStatus"]:
        """The compiled component (whose SHA-256 is ``digest``), through the cache unless ``cache`` is False."""
        if cache is False:
            return Component(self._engine, wasm_bytes), _cache.CacheStatus("disabled", None, "cache=False")
        directory = None if cache is None or cache is True else Path(cache)
        return _cache.load_component(self._engine, wasm_bytes, ENGINE_SETTINGS, directory=directory,
                                     wasm_sha256_hex=digest)

    def host_error_answer(self, request: str, cause: str, message: str) -> str:
        """The component's ``host-error`` answer (text) for the request line ``request`` (an MCP ``tool_call``
        line is answered as a ``CallToolResult``), for a failure of ``cause`` (see ``HostError``) that no session
        could answer, such as a grant that failed; ``session_restarted`` is false. Raises ``HostError`` (cause
        ``start``) when no instance of the component can be started."""
        try:
            live = _Live(self, [], math.ceil(DEFAULT_DEADLINE / EPOCH_TICK) + 1, DEFAULT_MEMORY_BYTES, None)
            try:
                return live.call("host_error", request, cause, message, False)
            finally:
                live.close()
        except WasmtimeError as error:
            raise HostError("start", f"could not start the read-window component: {_describe(error)}") from error

    def session(self, dirs: Dirs, config: Optional[Mapping] = None, *, deadline: float = DEFAULT_DEADLINE,
                memory_bytes: int = DEFAULT_MEMORY_BYTES) -> "Session":
        """Starts a session over ``dirs`` with ``config``; see ``Session``."""
        return Session(self, dirs, config, deadline=deadline, memory_bytes=memory_bytes)

    def read_once(self, dirs: Dirs, path: Any, offset: Any = None, limit: Any = None, column: Any = None,
                  tail: Any = None, extract: Any = None, *, region: Any = None, content: Any = None,
                  config: Optional[Mapping] = None,
                  deadline: float = DEFAULT_DEADLINE, memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Dict[str, Any]:
        """One window with no session memory (the ``read_once`` op), in a session of its own that is closed
        afterwards; arguments as ``Session.read`` and ``Session``. Raises ``HostError`` (``session_restarted``
        False: nothing is restarted) when the store could not be set up or the call failed."""
        with Session(self, dirs, config, deadline=deadline, memory_bytes=memory_bytes) as session:
            session._restart = False
            return session.read_once(path, offset, limit, column, tail, extract, region, content)


def _with_document_cache(store: Optional[Path], grants: List[Tuple[str, str]],
                         config: Optional[Mapping]) -> Optional[Mapping]:
    """``config`` naming the reader's document cache ``store`` as its ``document_cache_dir`` (granted read-write
    beside ``grants`` by the caller), when there is one, the config names none of its own, no grant is at that
    path already and the directory is there (made again when another build's process removed it); else ``config``
    as given."""
    if store is None or (config is not None and not isinstance(config, Mapping)):
        return config
    if config is not None and "document_cache_dir" in config:
        return config
    if any(guest == str(store) for guest, _ in grants):
        return config
    # A process of another build removes this build's directory as it starts: made again here, else this session
    # keeps no documents (it does not fail to start).
    if not _cache.ensure_dir(store):
        return config
    return {**(config or {}), "document_cache_dir": str(store)}


class Session:
    """A reading session: a store with one instance of the component and its protocol ``session`` resource.

    ``answer`` (text) and ``request`` (a dict or text) take any request of the protocol (``docs/protocol.md``); each
    named method sends one built from its arguments as given (the component checks them) and returns the answer.
    ``dirs`` are preopened **read-only** (a directory or a list of them, each seen at its canonical path, or a
    mapping of guest path to host directory; the first is the working directory), ``writable`` ones read-write (for
    a capture's spill). ``config`` (the WIT ``config`` fields in snake_case) goes to the component as JSON. A call
    may take ``deadline`` seconds and ``memory_bytes`` of linear memory; past them (or after a trap) the session
    restarts with the config in force, its state lost, and the request is answered with the ``host_error`` answer,
    which the named methods raise as ``HostError``. The constructor raises ``HostError`` (cause ``start``) and
    ``OSError`` (a granted directory is missing or not a directory).
    """

    def __init__(self, reader: ReadWindow, dirs: Dirs, config: Optional[Mapping] = None, *,
                 deadline: float = DEFAULT_DEADLINE, memory_bytes: int = DEFAULT_MEMORY_BYTES,
                 writable: Optional[Dirs] = None) -> None:
        self._reader, self._given = reader, _given_roots(dirs)
        self._writable = _grants(writable) if writable else []
        self._grants = _grants(dirs) + self._writable
        config = _with_document_cache(reader.document_cache, self._grants, config)
        self._document_cache: Optional[str] = None
        if reader.document_cache is not None and config is not None and "document_cache_dir" in config:
            store = str(reader.document_cache)
            if config["document_cache_dir"] == store:
                self._writable = self._writable + [(store, store)]
                self._grants = self._grants + [(store, store)]
                self._document_cache = store
        self._set_config("" if config is None else dumps(config))
        self._deadline = _positive("deadline", deadline, (int, float))
        self._ticks = math.ceil(deadline / EPOCH_TICK) + 1
        self._memory_bytes = _positive("memory_bytes", memory_bytes, (int,))
        self._live: Optional[_Live] = None
        self._closed, self._restart = False, True
        self.restarts = 0
        """How many times the session was restarted after a trap, a deadline or the memory cap."""
        self._live = self._start()

    def _set_config(self, text: str) -> None:
        """Keeps the config text a restart starts with, and its working directory for the walk of links."""
        self._config = text
        try:
            working_directory = json.loads(text).get("working_directory")
        except (ValueError, AttributeError):
            working_directory = None
        self._working_directory = working_directory if isinstance(working_directory, str) else None

    def _start(self) -> _Live:
        try:
            return _Live(self._reader, self._grants, self._ticks, self._memory_bytes, self._config, self._writable,
                         self._document_cache)
        except WasmtimeError as error:
            raise HostError("start", f"could not start a read-window session: {_describe(error)}") from error

    def _invoke(self, call: Callable[[_Live], Any]) -> Any:
        """Runs ``call`` on the live instance (starting one if a restart failed); after a failure, restarts the
        session and raises the ``HostError`` that says so."""
        if self._closed:
            raise ValueError("the session is closed")
        live = self._live = self._live or self._start()
        try:
            return call(live)
        except WasmtimeError as error:
            cause, detail = live.classify(error, self._deadline)
            self._live = None
            live.close()
            if not self._restart:
                raise HostError(cause, f"the read-window component trapped: {detail}") from error
            self.restarts += 1
            try:
                self._live = self._start()
            except HostError as restart:
                raise HostError(cause, f"the read-window component trapped: {detail}; restarting the session failed "
                                f"too ({restart.message}); the next call tries again, and the session's state is "
                                "lost") from error
            raise HostError(cause, f"the read-window component trapped: {detail}; the session was restarted: "
                            f"{_STATE_LOST}", session_restarted=True) from error

    def _host_error(self, request: str, error: HostError) -> str:
        """The component's ``host-error`` answer for ``request``, from the restarted instance or a fresh one;
        raises ``error`` when no instance can give it."""
        live = self._live
        try:
            live = live or _Live(self._reader, [], self._ticks, self._memory_bytes, None)
            return live.call("host_error", request, error.cause, error.message, error.session_restarted)
        except WasmtimeError:
            raise error from None
        finally:
            if live is not None and live is not self._live:
                live.close()

    def answer(self, request: str) -> str:
        """Answers one request (a JSON object as text) with the component's answer (text), after the host's walk of
        absolute links on the way of its path (``_links.linked_line``). A host failure is answered with the
        ``host_error`` answer once the session restarted. Raises ``ValueError`` once the session is closed."""
        if self._closed:
            raise ValueError("the session is closed")
        request = links.linked_line(self._grants, self._given, self._working_directory, request)

        def run(live: _Live) -> Tuple[str, Optional[str]]:
            answer = live.call("answer", live.session, request)
            # `configure` and `mcp_server` (its default budget) may have changed the config: a restart starts with it.
            changed = "configure" in request or "mcp_server" in request
            return answer, live.call("config", live.session) if changed else None

        try:
            answer, config = self._invoke(run)
        except HostError as error:
            return self._host_error(request, error)
        if config is not None:
            self._set_config(config)
        return answer

    def request(self, request: Any) -> Dict[str, Any]:
        """Answers one request, a dict (sent as JSON) or JSON text, with the component's answer as a dict (see
        ``answer``): ``session.request({"op": "tools", "format": "openai"})`` reaches any op of the protocol."""
        return json.loads(self.answer(request if isinstance(request, str) else dumps(request)))

    def push_output(self, chunk: bytes) -> str:
        """Pushes a command's raw output bytes into the open capture (the component's ``push-output``): the answer
        text, ``{"status":"ok"}`` or an error (no capture open, a host failure)."""
        try:
            return self._invoke(lambda live: live.call("push_output", live.session, bytes(chunk)))
        except HostError as error:
            return self._host_error("", error)

    @staticmethod
    def _raised(answer: Dict[str, Any]) -> Dict[str, Any]:
        error = answer.get("error")
        if isinstance(error, dict) and error.get("kind") == "host_error":
            raise HostError(error["cause"], error["message"], error["session_restarted"])
        return answer

    def _call(self, op: str, **fields: Any) -> Dict[str, Any]:
        """The answer to the op ``op`` with ``fields`` (those of the read ops left out when None)."""
        if op in ("read", "read_once", "capture_end", "read_many", "search"):
            fields = {key: value for key, value in fields.items() if value is not None or key == "path"}
        return self._raised(self.request({"op": op, **fields}))

    def _read(self, op: str, region: Any, **fields: Any) -> Dict[str, Any]:
        """``read`` or ``read_once``: ``region`` as the protocol takes it, an image's ``data`` as bytes."""
        if isinstance(region, (tuple, list)) and len(region) == 4:
            region = dict(zip(("x", "y", "width", "height"), region))
        answer = self._call(op, region=region, **fields)
        if isinstance(answer.get("data"), str):
            answer["data"] = base64.b64decode(answer["data"])
        return answer

    def read(self, path: Any, offset: Any = None, limit: Any = None, column: Any = None, tail: Any = None,
             extract: Any = None, fresh: Any = None, region: Any = None, depth: Any = None,
             content: Any = None) -> Dict[str, Any]:
        """A window of ``path`` (absolute, or relative to the working directory) from line ``offset`` (1-based), at
        most ``limit`` lines, from character ``column`` of its first line, or its last ``tail`` lines;
        ``extract=False`` reads a document's own bytes; ``fresh=True`` returns the content even when it is
        unchanged (never a stub). A window, a dedup stub or an error (``docs/protocol.md``). An image's window
        has ``image`` (its sizes, scale and region) and ``data``, the picture as ``bytes``; ``region`` (a dict
        ``{"x", "y", "width", "height"}`` or a tuple of the four, in original pixels) shows a part of it. A
        directory's answer is its listing (``total_entries``, ``entries`` by kind, ``next_offset``), ``depth``
        levels deep (default 1). The window is in ``text`` once; ``content=True`` adds it on its own as
        ``content``."""
        return self._read("read", region, path=path, offset=offset, limit=limit, column=column, tail=tail,
                          extract=extract, fresh=fresh, depth=depth, content=content)

    def read_many(self, paths: Any, limit: Any = None, fresh: Any = None, content: Any = None) -> Dict[str, Any]:
        """Several files in order under one budget: ``paths`` a list of paths or glob patterns. The answer's
        ``files`` holds each file's read answer (an image's ``data`` as ``bytes``), ``left_out`` the files the
        budget had no room for (each with the ``arguments`` of the read that gets it). The answer's ``text`` holds
        each file's window; ``content=True`` adds each file's ``content`` and ``text`` as well."""
        answer = self._call("read_many", paths=paths, limit=limit, fresh=fresh, content=content)
        for file in answer.get("files", []):
            if isinstance(file.get("data"), str):
                file["data"] = base64.b64decode(file["data"])
        return answer

    def search(self, pattern: Any, path: Any = None, regex: Any = None, case_sensitive: Any = None,
               context: Any = None, offset: Any = None, limit: Any = None, content: Any = None) -> Dict[str, Any]:
        """The lines matching ``pattern`` (literal text, a regular expression with ``regex=True``) in the file or
        tree ``path`` (default the working directory), a page at a time from match ``offset``, with the census:
        ``total_matches``, ``files_with_matches``, ``files_searched``, ``skipped`` by kind, ``next_offset``;
        ``content=True`` adds the page's lines on their own as ``content``."""
        return self._call("search", pattern=pattern, path=path, regex=regex, case_sensitive=case_sensitive,
                          context=context, offset=offset, limit=limit, content=content)

    def read_once(self, path: Any, offset: Any = None, limit: Any = None, column: Any = None, tail: Any = None,
                  extract: Any = None, region: Any = None, content: Any = None) -> Dict[str, Any]:
        """As ``read``, with the session's config and none of its memory: a window or an error, never a stub."""
        return self._read("read_once", region, path=path, offset=offset, limit=limit, column=column, tail=tail,
                          extract=extract, content=content)

    def other_tool(self) -> Dict[str, Any]:
        """Notes that the agent ran another tool: the loop tripwire starts over. Returns ``{"status": "ok"}``."""
        return self._call("other_tool")

    def reset_dedup(self) -> Dict[str, Any]:
        """Notes that the model's context was compacted: the next read of any window returns full content."""
        return self._call("reset_dedup")

    def wrote(self, path: Any) -> Dict[str, Any]:
        """Notes that the host wrote or patched ``path``: what the session knew of it is forgotten."""
        return self._call("wrote", path=path)

    def check_write(self, path: Any, text: Any) -> Dict[str, Any]:
        """Checks ``text`` the model wants written to ``path``: ``{"status": "ok"}`` or an error (``echoed_output``
        for text this component produced, ``stale`` when the file changed since this session read it,
        ``binary_document``, ``outside_sandbox`` for a link out of the grants)."""
        return self._call("check_write", path=path, text=text)

    def report_tokens(self, path: Any, offset: Any, lines: Any, tokens: Any) -> Dict[str, Any]:
        """Reports the real token count of a window (``start_line`` and ``lines_returned`` of a result)."""
        return self._call("report_tokens", path=path, offset=offset, lines=lines, tokens=tokens)

    def token_refusal(self, path: Any, offset: Any, limit: Any, message: Any) -> Dict[str, Any]:
        """Hands the session an engine's refusal ``message`` for a window: the window that fits, or an error."""
        return self._call("token_refusal", path=path, offset=offset, limit=limit, message=message)

    def stats(self) -> Dict[str, Any]:
        """The session's counters since its last (re)start, ``peak_memory_bytes`` the instance's linear memory."""
        return self._call("stats")

    def capture_begin(self, config: Optional[Mapping] = None) -> Dict[str, Any]:
        """Begins capturing a command's output (dropping a capture still open) with the optional ``window_chars``,
        ``head_share``, ``spill_dir`` and ``spill_cap_chars`` of ``config``."""
        return self._call("capture_begin", **(config or {}))

    def capture_chunk(self, data: Any) -> Dict[str, Any]:
        """Pushes a chunk of the command's output into the open capture: ``bytes`` as they are (split anywhere), a
        ``str`` as its text."""
        if isinstance(data, (bytes, bytearray, memoryview)):
            return self._raised(json.loads(self.push_output(data)))
        return self._call("capture_chunk", text=data)

    def capture_end(self, exit_status: Any = None, content: Any = None) -> Dict[str, Any]:
        """Ends the open capture with the command's exit status; returns its window (``text``, ``spill_path``,
        ``omitted_first_line``, ...; ``content=True`` adds the window on its own as ``content``)."""
        return self._call("capture_end", exit_status=exit_status, content=content)

    def close(self) -> None:
        """Drops the session resource and its store; later calls raise ``ValueError``. Closing twice is harmless."""
        self._closed = True
        live, self._live = self._live, None
        if live is not None:
            live.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
