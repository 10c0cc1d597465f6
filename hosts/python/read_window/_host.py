"""The wasmtime-py embedding: load the component once, one store per session, calls bounded in time and memory."""

from __future__ import annotations

import json
import math
import os
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import wasmtime
from wasmtime import Engine, Store, WasiConfig, WasmtimeError
from wasmtime.component import Component, Linker

from . import _links as links
from . import _values as values

PathLike = Union[str, "os.PathLike[str]"]
#: Granted directories: one host directory, a list of them (each seen by the guest at its own absolute path), or a
#: mapping of guest path to host directory.
Dirs = Union[PathLike, List[PathLike], Tuple[PathLike, ...], Mapping]

#: The environment variable naming the component file.
WASM_ENV = "READ_WINDOW_WASM"

#: Where the Rust build (``cargo build -p read-window-host``) writes the component, from the repository root.
BUILT_WASM = Path("target/component-build/wasm32-wasip2/component/read_window.wasm")

#: The component path the Rust build produces, resolved from this package (``hosts/python/read_window``).
REPO_WASM = Path(__file__).resolve().parents[3] / BUILT_WASM

#: The exported interface (``package read-window:reader@0.3.0``, ``interface reader``).
INTERFACE = "read-window:reader/reader@0.3.0"

#: Default wall-clock deadline of one call into the component, in seconds.
DEFAULT_DEADLINE = 60.0

#: Default cap on a store's linear memory, in bytes (256 MiB).
DEFAULT_MEMORY_BYTES = 256 * 1024 * 1024

#: How often the background thread advances the engine's epoch, in seconds; deadlines are counted in these ticks.
EPOCH_TICK = 0.010

#: How much of the guest's stderr a store keeps (its last bytes) to explain a trap.
_STDERR_TAIL_BYTES = 4096

_STATE_LOST = (
    "its state (dedup memory, loop counts, not-found cache, line indexes) is lost and later calls start fresh"
)

_FUNCTIONS = {
    "read_once": "read-once",
    "constructor": "[constructor]session",
    "read": "[method]session.read",
    "note_other_tool": "[method]session.note-other-tool",
    "reset_dedup": "[method]session.reset-dedup",
    "wrote": "[method]session.wrote",
    "check_write": "[method]session.check-write",
    "report_tokens": "[method]session.report-tokens",
    "token_refusal": "[method]session.token-refusal",
    "stats": "[method]session.stats",
    "capture_constructor": "[constructor]capture",
    "capture_push": "[method]capture.push",
    "capture_finish": "[method]capture.finish",
}

_CAUSES = ("trap", "deadline", "memory_limit", "start")


class ComponentNotFoundError(FileNotFoundError):
    """The component file (``read_window.wasm``) was not found; the message names the three ways to give it."""


class HostError(Exception):
    """A host-side failure of a call into the component (as opposed to a read error, which is an answer).

    Attributes:
        cause: ``"trap"`` (the guest trapped: a panic, ``unreachable``, an out-of-bounds access), ``"deadline"``
            (the call ran past its deadline and was interrupted), ``"memory_limit"`` (the guest reported an
            allocation failure on its stderr under the store's memory cap) or ``"start"`` (the component could
            not be loaded, or a session or store could not be started). Note: wasmtime-py gives no hook on memory
            growth, so a guest that hits the cap and aborts silently is reported as ``"trap"`` (an ``unreachable``
            trap, whose message says the cap may be the reason).
        message: one paragraph saying what failed and what state was lost.
        session_restarted: True when the session was replaced by a fresh one after the failure (it works again,
            with its state lost).
    """

    def __init__(self, cause: str, message: str, session_restarted: bool = False) -> None:
        if cause not in _CAUSES:
            raise ValueError(f"unknown host error cause {cause!r}; expected one of {', '.join(_CAUSES)}")
        super().__init__(message)
        self.cause = cause
        self.message = message
        self.session_restarted = session_restarted

    def to_json(self) -> Dict[str, Any]:
        """The failure in the JSON shape of json.rs: ``{"status": "error", "content_returned": false, "text",
        "error": {"kind": "host_error", "cause", "message", "session_restarted"}}`` (``text`` is the message)."""
        return {
            "status": "error",
            "content_returned": False,
            "text": self.message,
            "error": {
                "kind": "host_error",
                "cause": self.cause,
                "message": self.message,
                "session_restarted": self.session_restarted,
            },
        }


def find_component(wasm: Optional[PathLike] = None) -> Path:
    """The component file to load: ``wasm`` when given, else ``$READ_WINDOW_WASM`` when set, else the file the Rust
    build produced (``target/component-build/wasm32-wasip2/component/read_window.wasm`` at the repository root).

    Raises ``ComponentNotFoundError`` when the chosen file does not exist; the message names all three ways.
    """
    if wasm is not None:
        path, source = Path(wasm), "the path given to ReadWindow"
    elif os.environ.get(WASM_ENV):
        path, source = Path(os.environ[WASM_ENV]), f"${WASM_ENV}"
    else:
        path, source = REPO_WASM, "the Rust build's output"
    if not path.is_file():
        raise ComponentNotFoundError(
            f"the read-window component was not found at {path} ({source}). Give its path in one of three ways: "
            f"ReadWindow(wasm=PATH) (or --wasm PATH on the command line), the environment variable {WASM_ENV}, or "
            f"build it where the Python host looks by default: `cargo build -p read-window-host` in the repository "
            f"writes {BUILT_WASM}."
        )
    return path


def _grants(dirs: Dirs) -> List[Tuple[str, str]]:
    """``(guest path, host directory)`` pairs for the granted directories; host directories are made absolute and
    must exist. A bare path or a list grants each directory at its canonical absolute path."""
    if isinstance(dirs, (str, os.PathLike)):
        pairs = [(None, dirs)]
    elif isinstance(dirs, Mapping):
        pairs = list(dirs.items())
    else:
        pairs = [(None, host) for host in dirs]
    grants = []
    for guest, host in pairs:
        canonical = os.path.realpath(os.fspath(host))
        if not os.path.exists(canonical):
            raise FileNotFoundError(f"{os.fspath(host)}: the granted directory does not exist")
        if not os.path.isdir(canonical):
            raise NotADirectoryError(f"{os.fspath(host)}: the granted path is not a directory")
        if guest is None:
            guest = canonical
        if not isinstance(guest, str) or not guest:
            raise ValueError(f"{os.fspath(host)}: its guest path must be a non-empty string, not {guest!r}")
        grants.append((guest, canonical))
    return grants


def _given_roots(dirs: Dirs) -> List[Tuple[str, str]]:
    """``(given path, guest path)`` pairs for the directories granted at their canonical path (no guest path of
    their own) whose absolute given path differs from it: a root given through a link (README, "Absolute
    links")."""
    if isinstance(dirs, (str, os.PathLike)):
        hosts = [dirs]
    elif isinstance(dirs, Mapping):
        return []
    else:
        hosts = list(dirs)
    given = []
    for host in hosts:
        absolute = os.path.abspath(os.fspath(host))
        canonical = os.path.realpath(absolute)
        if isinstance(absolute, str) and absolute != canonical:
            given.append((absolute, canonical))
    return given


def _through_links(
    grants: List[Tuple[str, str]], config: Any, request: Any, given: Optional[List[Tuple[str, str]]] = None
) -> Optional[Dict[str, Any]]:
    """Resolves the absolute links on the way of ``request``'s path on the host (README, "Absolute links"; WASI
    cannot follow them): rewrites the request's path to the resolved guest path and sets its ``asked-via`` (the
    path asked for and each link crossed, ``None`` when the path goes as asked), or returns the ``outside_sandbox``
    answer for a link out of every grant (``None`` otherwise). A path under a root's ``given`` path
    (``_given_roots``) is first rewritten onto the root's guest path."""
    fields = request.__dict__
    if given:
        fields["path"] = links.onto_guest(given, fields["path"])
    working_directory = config.__dict__.get("working-directory")
    resolution = links.resolve_absolute_links(grants, working_directory, fields["path"])
    if resolution.outcome == "outside":
        return resolution.value
    if resolution.outcome == "guest":
        fields["path"] = resolution.value
        fields["asked-via"] = resolution.asked_via
    return None


def _deadline_ticks(deadline: float) -> int:
    if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not deadline > 0:
        raise ValueError(f"deadline must be a positive number of seconds, not {deadline!r}")
    return math.ceil(deadline / EPOCH_TICK) + 1


def _check_memory(memory_bytes: int) -> int:
    if isinstance(memory_bytes, bool) or not isinstance(memory_bytes, int) or memory_bytes <= 0:
        raise ValueError(f"memory_bytes must be a positive integer, not {memory_bytes!r}")
    return memory_bytes


def _describe(error: BaseException) -> str:
    """A wasmtime error in one line: its causes without the wasm backtrace."""
    text = str(error).strip()
    if "Caused by:" in text:
        head, _, causes = text.partition("Caused by:")
        parts = [line.strip() for line in causes.splitlines() if line.strip()]
        first = head.strip().splitlines()[0] if head.strip() else ""
        if first and not first.startswith("error while executing at wasm backtrace"):
            parts.insert(0, first.rstrip(":"))
        return ": ".join(parts)
    return " ".join(text.split())


def _epoch_ticker(reader: "weakref.ref[ReadWindow]") -> None:
    """Advances the engine's epoch every ``EPOCH_TICK`` until the ``ReadWindow`` is gone."""
    while True:
        time.sleep(EPOCH_TICK)
        owner = reader()
        if owner is None:
            return
        owner._engine.increment_epoch()
        del owner


class _Tail:
    """The last bytes written to the guest's stderr."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data = b""

    def write(self, chunk: bytes) -> None:
        self.data = (self.data + chunk)[-self.size :]

    def text(self) -> str:
        """The tail as one line of text."""
        return " ".join(self.data.decode("utf-8", "replace").split())


class _Live:
    """One store with one instance of the component (and, for sessions, one ``session`` resource)."""

    def __init__(
        self,
        reader: "ReadWindow",
        grants: List[Tuple[str, str]],
        ticks: int,
        memory_bytes: int,
        config: Optional[Any],
        writable: Tuple[str, ...] = (),
    ) -> None:
        self.ticks = ticks
        self.memory_bytes = memory_bytes
        self.stderr = _Tail(_STDERR_TAIL_BYTES)
        self.store = Store(reader._engine)
        self.store.set_limits(memory_size=memory_bytes)
        wasi = WasiConfig()
        for guest, host in grants:
            # Read-only (no file or directory can be created or changed), but for a capture's spill directory.
            wasi.preopen_dir(host, guest, host in writable)
        wasi.stderr_custom = self.stderr.write
        self.store.set_wasi(wasi)
        self.store.set_epoch_deadline(ticks)
        instance = reader._linker.instantiate(self.store, reader._component)
        self.funcs: Dict[str, Any] = {}
        for key, index in reader._exports.items():
            func = instance.get_func(self.store, index)
            if func is None:
                raise WasmtimeError(f"the component's export `{_FUNCTIONS[key]}` is not a function")
            self.funcs[key] = func
        self.session = None if config is None else self.call("constructor", config)
        self.capture: Any = None

    def call(self, name: str, *args: Any) -> Any:
        self.store.set_epoch_deadline(self.ticks)
        return self.funcs[name](self.store, *args)

    def call_session(self, name: str, *args: Any) -> Any:
        return self.call(name, self.session, *args)

    def drop_capture(self) -> None:
        """Drops the open capture resource, if any."""
        if self.capture is not None:
            try:
                self.capture.drop(self.store)
            except WasmtimeError:
                pass  # a store that trapped cannot run the destructor; closing the store frees it all the same
            self.capture.close()
            self.capture = None

    def classify(self, error: BaseException, deadline: float) -> Tuple[str, str]:
        """The cause of a failed call and a sentence saying it, with the guest's last stderr output if any."""
        stderr = self.stderr.text()
        detail = _describe(error)
        if "memory allocation of" in stderr:
            cause = "memory_limit"
            detail = f"it ran out of linear memory under the store's cap of {self.memory_bytes} bytes ({detail})"
        elif "wasm trap: interrupt" in str(error):
            cause = "deadline"
            detail = f"the call ran past its deadline of {deadline:.3f} s and was interrupted"
        else:
            cause = "trap"
            if "unreachable" in detail and not stderr:
                # wasmtime-py's store limiter makes `memory.grow` fail quietly (no limiter callback, no
                # trap-on-grow-failure), and the guest then aborts like this: the cap cannot be told apart.
                detail += (
                    f" (with no panic message this is also how the guest stops when it reaches the store's "
                    f"memory cap of {self.memory_bytes} bytes)"
                )
        if stderr:
            detail += f" (guest stderr: {stderr})"
        return cause, detail

    def close(self) -> None:
        self.drop_capture()
        if self.session is not None:
            try:
                self.session.drop(self.store)
            except WasmtimeError:
                pass  # a store that trapped cannot run the destructor; closing the store frees it all the same
            self.session.close()
            self.session = None
        self.store.close()


class ReadWindow:
    """The loaded component: one engine, the compiled component and a linker with WASI preview 2.

    Load it once per process and open any number of sessions from it; each session has its own store (its own
    linear memory, dedup memory, loop tripwire and line indexes). Compiling takes a fraction of a second. A
    background daemon thread advances the engine's epoch every ``EPOCH_TICK`` seconds so that calls can be given a
    deadline. A ``ReadWindow`` may be shared by threads; each ``Session`` must be used by one thread at a time.

    Args:
        wasm: the component file; default ``$READ_WINDOW_WASM``, else the Rust build's output (see
            ``find_component``).

    Attributes:
        path: the component file that was loaded (a ``pathlib.Path``).

    Raises:
        ComponentNotFoundError: the file does not exist.
        HostError: (cause ``start``) the file is not a valid component or lacks the ``reader`` exports.
    """

    def __init__(self, wasm: Optional[PathLike] = None) -> None:
        self.path = find_component(wasm)
        config = wasmtime.Config()
        config.epoch_interruption = True
        config.cranelift_opt_level = "speed"
        self._engine = Engine(config)
        wasm_bytes = self.path.read_bytes()
        if not wasm_bytes.startswith(b"\0asm"):
            raise HostError("start", f"{self.path} is not a WebAssembly component (it lacks the `\\0asm` header)")
        try:
            self._component = Component(self._engine, wasm_bytes)
            self._linker = Linker(self._engine)
            self._linker.add_wasip2()
        except WasmtimeError as error:
            raise HostError("start", f"could not load the component {self.path}: {_describe(error)}") from error
        interface = self._component.get_export_index(INTERFACE)
        if interface is None:
            raise HostError("start", f"the component {self.path} does not export the interface {INTERFACE}")
        self._exports = {}
        for key, name in _FUNCTIONS.items():
            index = self._component.get_export_index(name, interface)
            if index is None:
                raise HostError("start", f"the component {self.path} lacks `{name}` in {INTERFACE}")
            self._exports[key] = index
        threading.Thread(
            target=_epoch_ticker, args=(weakref.ref(self),), name="read-window-epoch", daemon=True
        ).start()

    def session(
        self,
        dirs: Dirs,
        config: Optional[Mapping] = None,
        *,
        deadline: float = DEFAULT_DEADLINE,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
    ) -> "Session":
        """Starts a session over ``dirs`` with ``config``; see ``Session``."""
        return Session(self, dirs, config, deadline=deadline, memory_bytes=memory_bytes)

    def read_once(
        self,
        dirs: Dirs,
        path: Any,
        offset: Any = None,
        limit: Any = None,
        column: Any = None,
        tail: Any = None,
        extract: Any = None,
        *,
        config: Optional[Mapping] = None,
        deadline: float = DEFAULT_DEADLINE,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
    ) -> Dict[str, Any]:
        """Reads one window with no session memory (no stubs, no tripwire, no line index kept), in a store of its
        own that is dropped afterwards.

        Args and answers as ``Session.read`` (a window or an error, never a stub); ``dirs`` and ``config`` as
        ``Session``.

        Raises:
            HostError: the store could not be set up, or the call trapped, ran past ``deadline`` or over
                ``memory_bytes`` (``session_restarted`` is False: there is no session).
            ValueError: ``config`` is malformed (``InvalidValue``), or ``deadline``/``memory_bytes`` are not
                positive.
            OSError: a granted directory does not exist or is not a directory.
        """
        grants = _grants(dirs)
        record = values.config_record(config)
        ticks = _deadline_ticks(deadline)
        memory_bytes = _check_memory(memory_bytes)
        notes: list = []
        try:
            request = values.read_request(path, offset, limit, column, tail, notes, extract)
        except values.InvalidValue as error:
            return values.invalid_request_json(str(error))
        refused = _through_links(grants, record, request, _given_roots(dirs))
        if refused is not None:
            return values.with_notes(refused, notes)
        try:
            live = _Live(self, grants, ticks, memory_bytes, None)
        except WasmtimeError as error:
            raise HostError("start", f"could not start a read-window store: {_describe(error)}") from error
        try:
            return values.with_notes(values.once_json(live.call("read_once", record, request)), notes)
        except WasmtimeError as error:
            cause, detail = live.classify(error, deadline)
            raise HostError(cause, f"the read-window component trapped: {detail}") from error
        finally:
            live.close()


class Session:
    """A reading session: one store, one instance of the component and its ``session`` resource.

    The session remembers what it returned (dedup stubs, the loop tripwire, the count of misses) and each file's
    sparse line index. Sessions share nothing.

    Args:
        reader: the loaded component.
        dirs: the directories the component may read, each preopened **read-only**: a host directory or a list of
            them (the guest sees each at its canonical absolute host path), or a mapping of guest path to host
            directory (``{"/workspace": "/home/me/project"}``). The first is the default working directory.
        config: the component's config, a dict with the WIT ``config`` field names in snake_case, every field
            optional: ``max_lines``, ``max_line_length`` (characters), ``budget`` (``{"characters": N}`` or
            ``{"tokens": {"cap": N, "headroom": F}}``), ``working_directory`` (a guest path), ``dedup``,
            ``loop_warn_at``, ``loop_block_at``, ``not_found_ttl_ms``, ``deny_patterns``, ``allow_patterns``.
            Values in range but invalid (``max_lines: 0``) are replaced by the component's defaults and reported
            once as a warning on the first window.
        deadline: wall-clock seconds one call may take before it is interrupted (exact to about ``EPOCH_TICK``).
        memory_bytes: the most linear memory the guest may use, in bytes.
        writable: directories granted **read-write** (given like ``dirs``), for a capture's spill file
            (``capture_begin({"spill_dir": ...})``); every other directory stays read-only.

    Every method returns a dict in the JSON shape of ``host-test/src/json.rs``; a read error is such an answer,
    not an exception. Malformed arguments (a negative offset, a path that is not a string) are answered with an
    ``invalid_request`` error naming the field, as the Rust session protocol answers them.

    Raises (every method):
        HostError: the call trapped, ran past ``deadline`` or over ``memory_bytes``. The session has then been
            restarted (``session_restarted`` True) with its state lost; if the restart failed too, the next call
            tries again.

    The constructor raises ``HostError`` (cause ``start``) when the store or the session cannot be started,
    ``ValueError`` (``InvalidValue``) for a malformed config, and ``OSError`` for a granted directory that does
    not exist or is not a directory.
    """

    def __init__(
        self,
        reader: ReadWindow,
        dirs: Dirs,
        config: Optional[Mapping] = None,
        *,
        deadline: float = DEFAULT_DEADLINE,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
        writable: Optional[Dirs] = None,
    ) -> None:
        self._reader = reader
        self._grants = _grants(dirs)
        self._given = _given_roots(dirs)
        extra = _grants(writable) if writable else []
        self._grants += extra
        self._writable = tuple(host for _, host in extra)
        self._writable_guests = tuple(guest for guest, _ in extra)
        self._config = values.config_record(config)
        self._deadline = deadline
        self._ticks = _deadline_ticks(deadline)
        self._memory_bytes = _check_memory(memory_bytes)
        self._live: Optional[_Live] = None
        self._closed = False
        self.restarts = 0
        """How many times the session was restarted after a trap, a deadline or the memory cap."""
        self._live = self._start()

    @property
    def grants(self) -> List[Tuple[str, str]]:
        """The granted directories as ``(guest path, host directory)`` pairs, in order."""
        return list(self._grants)

    def _start(self) -> _Live:
        try:
            return _Live(self._reader, self._grants, self._ticks, self._memory_bytes, self._config, self._writable)
        except WasmtimeError as error:
            raise HostError("start", f"could not start a read-window session: {_describe(error)}") from error

    def _call(self, name: str, *args: Any) -> Any:
        return self._invoke(lambda live: live.call_session(name, *args))

    def _invoke(self, call: Any) -> Any:
        if self._closed:
            raise ValueError("the session is closed")
        if self._live is None:
            self._live = self._start()
        live = self._live
        try:
            return call(live)
        except WasmtimeError as error:
            cause, detail = live.classify(error, self._deadline)
            self._live = None
            live.close()
            self.restarts += 1
            try:
                self._live = self._start()
            except HostError as restart:
                raise HostError(
                    cause,
                    f"the read-window component trapped: {detail}; restarting the session failed too "
                    f"({restart.message}); the next call tries again, and the session's state is lost",
                ) from error
            raise HostError(
                cause,
                f"the read-window component trapped: {detail}; the session was restarted: {_STATE_LOST}",
                session_restarted=True,
            ) from error

    def read(
        self,
        path: Any,
        offset: Any = None,
        limit: Any = None,
        column: Any = None,
        tail: Any = None,
        extract: Any = None,
    ) -> Dict[str, Any]:
        """Reads a window of ``path``.

        Args:
            path: a guest path (a ``str`` or an ``os.PathLike``), absolute (under a granted directory) or relative to
                the working directory.
            offset: the first line, 1-based (default 1; 0 is read as 1).
            limit: lines at most (default and maximum ``max_lines``; 0 is an ``invalid_request`` error).
            column: where to start inside the first line, 0-based, in characters (Unicode scalar values).
            tail: read the last ``tail`` lines instead (the window ends at the last line; not with ``offset`` or
                ``column``). Optional numbers are taken as models send them: ``None`` and ``""`` are absent, a
                string of digits (``"40"``) is read as that number with a note in ``warnings``.
            extract: whether a document (notebook, Word, Excel, PowerPoint, OpenDocument, EPUB, PDF) is read as its
                extracted text (``None``: yes); ``False`` reads the file's own bytes, a notebook as its JSON.

        Returns one of:
            a window: ``{"status": "ok", "content_returned": True, "content", "path", "start_line",
            "start_column", "end_line", "lines_returned", "total_lines", "truncated", "truncated_by", "next_offset",
            "next_column", "clamped_lines", "hint", "file_size", "encoding", "budget"}`` plus ``"warnings"`` when
            there are any (lines 1-based, columns 0-based characters, ``file_size`` in bytes, ``budget`` numbers
            in its ``unit``, ``budget.cap`` only in token mode);
            a dedup stub: ``{"status": "unchanged", "content_returned": False, "dedup": True, "path",
            "start_line", "end_line", "total_lines", "next_offset", "next_column", "message"}`` (no ``content``
            key; the cursor of the window it stands for, ``None`` when nothing after it is left, and a message
            that ends with the call that continues);
            an error: ``{"status": "error", "content_returned": False, "error": {"kind", "message"}}`` with
            ``"already_read"`` in ``error`` for ``loop_blocked``.
        """
        notes: list = []
        try:
            request = values.read_request(path, offset, limit, column, tail, notes, extract)
        except values.InvalidValue as error:
            return values.invalid_request_json(str(error))
        refused = _through_links(self._grants, self._config, request, self._given)
        if refused is not None:
            return values.with_notes(refused, notes)
        return values.with_notes(values.read_json(self._call("read", request)), notes)

    def other_tool(self) -> Dict[str, Any]:
        """Notes that the agent ran a tool other than a read: the loop tripwire starts over (identical reads, cycles,
        the count of misses of each missing path), the dedup memory stays. Returns ``{"status": "ok"}``."""
        self._call("note_other_tool")
        return values.note_json()

    def reset_dedup(self) -> Dict[str, Any]:
        """Notes that the model's context was compacted: the next read of any window returns full content, and
        the count of misses of each missing path starts over. Returns ``{"status": "ok"}``."""
        self._call("reset_dedup")
        return values.note_json()

    def wrote(self, path: Any) -> Dict[str, Any]:
        """Notes that the host wrote or patched ``path`` (a guest path): its dedup entries, count of misses and
        line index are forgotten. Returns ``{"status": "ok"}`` (or an ``invalid_request`` error for a path that is
        not a string)."""
        try:
            path = values.guest_path(path, "wrote")
        except values.InvalidValue as error:
            return values.invalid_request_json(str(error))
        self._call("wrote", path)
        return values.note_json()

    def check_write(self, path: Any, text: Any) -> Dict[str, Any]:
        """Checks ``text`` the model wants written to ``path``. Returns ``{"status": "ok"}``, or an error of kind
        ``echoed_output`` when the text holds a stub, a block message or a marker this component produced, two or
        more ``N|`` lines this session returned in a row (numbered text it never returned passes), or U+FFFD for a
        file whose read in this session replaced invalid bytes; ``binary_document`` over an existing binary document
        or, with text that is not notebook JSON, a notebook. ``path`` goes through the absolute links on its way as
        a read's path does; a link out of every grant is the ``outside_sandbox`` error."""
        try:
            path = values.guest_path(path, "check_write")
            text = values.text("text", text, "check_write")
        except values.InvalidValue as error:
            return values.invalid_request_json(str(error))
        request = values.read_request(path, None, None, None)
        refused = _through_links(self._grants, self._config, request, self._given)
        if refused is not None:
            return refused
        return values.unit_json(self._call("check_write", request.__dict__["path"], text))

    def report_tokens(self, path: Any, offset: Any, lines: Any, tokens: Any) -> Dict[str, Any]:
        """Reports the real token count ``tokens`` of the window of ``path`` starting at line ``offset`` (1-based)
        with ``lines`` lines (``start_line`` and ``lines_returned`` of a result), so later windows of that file
        are estimated at the learned density. Returns ``{"status": "ok"}`` or an error."""
        try:
            path = values.guest_path(path, "report_tokens")
            offset = values.required_number("offset", offset, "report_tokens")
            lines = values.required_number("lines", lines, "report_tokens")
            tokens = values.required_number("tokens", tokens, "report_tokens")
        except values.InvalidValue as error:
            return values.invalid_request_json(str(error))
        return values.unit_json(self._call("report_tokens", path, offset, lines, tokens))

    def token_refusal(self, path: Any, offset: Any, limit: Any, message: Any) -> Dict[str, Any]:
        """Hands the session an engine's refusal ``message`` (like ``"(N tokens) exceeds maximum allowed tokens
        (M)"``) for the window ``offset`` (1-based) / ``limit`` (lines) of ``path`` that failed; records the
        density. Returns the window that fits: ``{"status": "ok", "offset", "limit", "refused_tokens",
        "cap_tokens", "hint"}``, or an error."""
        try:
            path = values.guest_path(path, "token_refusal")
            offset = values.required_number("offset", offset, "token_refusal")
            limit = values.required_number("limit", limit, "token_refusal")
            message = values.text("message", message, "token_refusal")
        except values.InvalidValue as error:
            return values.invalid_request_json(str(error))
        return values.token_refusal_json(self._call("token_refusal", path, offset, limit, message))

    def stats(self) -> Dict[str, Any]:
        """The session's counters since its last (re)start: ``{"status": "ok", "positioned_reads" (reads issued
        to the file system), "indexed_files", "index_bytes" (bytes the line indexes occupy),
        "peak_memory_bytes"}``. ``peak_memory_bytes`` is always ``None``: wasmtime-py exposes neither a memory
        growth hook nor a component instance's linear memory, so the peak cannot be measured from Python."""
        return values.stats_json(self._call("stats"), None)

    def capture_begin(self, config: Optional[Mapping] = None) -> Dict[str, Any]:
        """Begins capturing a command's output in this session's store (the component's ``capture`` resource), so
        reads of its spill can be interleaved; a capture still open is dropped. ``config`` has the WIT
        ``capture-config`` fields in snake_case, every one optional: ``window_chars`` (characters of head and tail,
        default 50,000), ``head_share`` (0 to 0.9, default 0.4), ``spill_dir`` (a guest path inside a directory
        granted with ``writable``), ``spill_cap_chars`` (default 5,000,000). Returns ``{"status": "ok"}`` or an
        ``invalid_request`` error for a malformed config. Without ``spill_dir``, the spill goes to the session's
        writable directory when it has exactly one (as the Rust host does)."""
        if (config is None or isinstance(config, Mapping)) and len(self._writable_guests) == 1:
            if config is None or config.get("spill_dir") is None:
                config = {**(config or {}), "spill_dir": self._writable_guests[0]}
        try:
            record = values.capture_config_record(config)
        except values.InvalidValue as error:
            return values.invalid_request_json(str(error))

        def begin(live: _Live) -> None:
            live.drop_capture()
            live.capture = live.call("capture_constructor", record)

        self._invoke(begin)
        return values.note_json()

    def capture_chunk(self, data: Union[bytes, bytearray, str]) -> Dict[str, Any]:
        """Pushes a chunk of the command's raw output (``bytes``, or ``str`` sent as UTF-8; split anywhere) into
        the open capture. Returns ``{"status": "ok"}``, or an ``invalid_request`` error when no capture is open."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray)):
            return values.invalid_request_json(f"a chunk must be bytes or a string, not {values.type_name(data)}")
        if self._live is None or self._live.capture is None:
            return values.invalid_request_json(values.NO_CAPTURE)
        return values.unit_json(self._invoke(lambda live: live.call("capture_push", live.capture, bytes(data))))

    def capture_end(self, exit_status: Any = None) -> Dict[str, Any]:
        """Ends the open capture with the command's exit status (an ``int`` or ``None``) and returns its window in
        the JSON shape of ``host-test/src/capture.rs`` (``content``, ``total_chars``, ``total_lines``,
        ``total_bytes``, ``omitted_chars``, ``omitted_lines``, ``spill_path``, ``spill_capped``, ``spill_error``,
        ``exit_status``, ``hint``, ``collapsed_redraws``, ``encoding``, ``text``, ...). The capture is closed."""
        if exit_status is not None and (
            isinstance(exit_status, bool) or not isinstance(exit_status, int) or not -(2**31) <= exit_status < 2**31
        ):
            return values.invalid_request_json(
                f"`exit_status` must be a 32-bit integer, not {json.dumps(exit_status, default=repr)}"
            )
        if self._live is None or self._live.capture is None:
            return values.invalid_request_json(values.NO_CAPTURE)

        def finish(live: _Live) -> Any:
            try:
                return live.call("capture_finish", live.capture, exit_status)
            finally:
                live.drop_capture()

        return values.capture_json(self._invoke(finish))

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
