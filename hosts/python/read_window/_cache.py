"""The on-disk cache of the compiled component, with the Rust host's safety rules (``host/src/cache.rs``).

Compiling the component with Cranelift takes seconds; loading a compiled artifact takes milliseconds. The artifact
is kept in a private per-user directory, in a file named by its key: the SHA-256 of the component's SHA-256, the
wasmtime-py version, the engine settings this host compiles with and the platform. So an entry for other bytes,
another wasmtime or other settings is never looked up (and wasmtime checks the artifact's header against the engine
again and refuses a mismatch).

Deserializing runs the artifact as native code, so an entry is used only when it cannot have been planted or changed
by anyone else, nor changed since it was written:

- the directory is a real directory owned by the current user that neither group nor others can write (it is made
  with mode 0700 when missing);
- the entry is a regular file (not a link) owned by the current user that neither group nor others can write
  (entries are written with mode 0600);
- the entry's modification time is the stamp derived from its key (a whole, even second in 2001), which this module
  sets before it renames the finished file into place: any later write moves the modification time to the present,
  so an entry whose time is not its stamp is recompiled and replaced without being read;
- a file wasmtime refuses (truncated, not an artifact, built by another wasmtime) is recompiled and replaced too.

Every failure of the cache falls back to compiling: loading never fails because of it. ``$READ_WINDOW_CACHE_DIR``
names the directory instead of the defaults; ``READ_WINDOW_NO_CACHE=1`` turns the cache off.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import stat
import sys
import threading
from pathlib import Path
from typing import Callable, Mapping, NamedTuple, Optional, Tuple

import wasmtime
from wasmtime import Engine, WasmtimeError
from wasmtime.component import Component

#: The environment variable naming the cache directory (absolute), instead of ``$XDG_CACHE_HOME/read-window``.
CACHE_DIR_ENV = "READ_WINDOW_CACHE_DIR"
#: The environment variable that turns the cache off when set to anything but empty or ``0``.
NO_CACHE_ENV = "READ_WINDOW_NO_CACHE"
#: The environment variable that turns the document cache off, as in the Rust host (see ``DOCUMENT_CACHE_OFF``).
DOCUMENT_CACHE_ENV = "READ_WINDOW_DOCUMENT_CACHE"
#: The values of ``$READ_WINDOW_DOCUMENT_CACHE`` that turn the document cache off (any case, spaces around).
DOCUMENT_CACHE_OFF = ("off", "0", "false", "no", "none", "disabled")
#: How many compiled components the cache directory keeps (each rebuild of the component adds one).
KEEP_ENTRIES = 8
#: The suffix of an entry's file name, as the Rust host's (the two hosts share the directory and its bound).
ENTRY_SUFFIX = ".cwasm"
#: What the key hashes first, so this host's keys never name the Rust host's entries.
_KEY_DOMAIN = b"read-window compiled component, wasmtime-py v1\0"
#: The first modification time a stamp can be: 1,000,000,000 s after the Unix epoch (September 2001).
_STAMP_BASE_SECONDS = 1_000_000_000

_WRITES = itertools.count()  # a serial per write, so concurrent loads never share a temporary file
_WRITES_LOCK = threading.Lock()


class CacheStatus(NamedTuple):
    """Where the compiled component came from: ``kind`` is ``hit`` (deserialized from ``path``), ``written``
    (compiled, and written to ``path``), ``unwritten`` (compiled; writing ``path`` failed, ``detail`` says why) or
    ``disabled`` (compiled; no cache directory was usable or the cache is off, ``detail`` says which)."""

    kind: str
    path: Optional[Path] = None
    detail: str = ""


class Key(NamedTuple):
    """A cache key: the SHA-256 (``digest``, 32 bytes) of the component's SHA-256 and what the artifact depends on."""

    digest: bytes

    @classmethod
    def for_component(cls, wasm_sha256_hex: str, engine_settings: str) -> "Key":
        """The key of the component whose SHA-256 is ``wasm_sha256_hex`` (64 hex digits), compiled by this
        wasmtime-py with ``engine_settings`` (a text naming every engine setting that changes the artifact)."""
        hasher = hashlib.sha256(_KEY_DOMAIN)
        for part in (wasm_sha256_hex, wasmtime_version(), engine_settings, sys.platform, _machine()):
            hasher.update(part.encode("utf-8") + b"\0")
        return cls(hasher.digest())

    def file_name(self) -> str:
        """``<64 hex digits>.cwasm``."""
        return self.digest.hex() + ENTRY_SUFFIX

    def stamp_ns(self) -> int:
        """The modification time an entry is written with, in nanoseconds since the epoch: 1,000,000,000 s plus an
        even count of seconds below 2^24 taken from the key. A whole, even second is stored exactly by every
        filesystem, and no write can produce it: a write sets the present time."""
        offset = (int.from_bytes(self.digest[:3], "little") & 0x7F_FFFF) * 2
        return (_STAMP_BASE_SECONDS + offset) * 1_000_000_000


def wasmtime_version() -> str:
    """The installed wasmtime-py's version (``50.0.1``), read from its ``wasmtime-<version>.dist-info`` directory
    beside the package (``importlib.metadata`` would take longer to import than a warm start takes), else from
    ``importlib.metadata``; ``unknown`` when neither has it."""
    site = Path(wasmtime.__file__).resolve().parent.parent
    try:
        for name in os.listdir(site):
            if name.startswith("wasmtime-") and name.endswith(".dist-info"):
                return name[len("wasmtime-"):-len(".dist-info")]
    except OSError:
        pass
    try:
        from importlib.metadata import version

        return version("wasmtime")
    except Exception:  # no metadata at all: the key still holds the bytes, the settings and the platform
        return "unknown"


def _machine() -> str:
    """The machine's architecture (``x86_64``), without importing ``platform`` (slow to import)."""
    return os.uname().machine if hasattr(os, "uname") else os.environ.get("PROCESSOR_ARCHITECTURE", "unknown")


def cache_disabled(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``$READ_WINDOW_NO_CACHE`` turns the cache off (any value but empty or ``0``)."""
    return environ.get(NO_CACHE_ENV, "") not in ("", "0")


def cache_dir(environ: Mapping[str, str] = os.environ) -> Tuple[Optional[Path], str]:
    """The cache directory and an empty reason, or ``None`` and why there is none. ``$READ_WINDOW_CACHE_DIR`` when
    set (it must be absolute and private), else the first usable of ``$XDG_CACHE_HOME/read-window``,
    ``$HOME/.cache/read-window`` and ``<temp dir>/read-window``; a missing directory is made (mode 0700)."""
    if cache_disabled(environ):
        return None, f"${NO_CACHE_ENV} is set"
    named = environ.get(CACHE_DIR_ENV)
    if named:
        path = Path(named)
        if not path.is_absolute():
            return None, f"${CACHE_DIR_ENV} {named!r} is not an absolute path"
        if not private_dir(path):
            return None, f"${CACHE_DIR_ENV} {named!r} is not a directory of yours that only you can write"
        return path, ""
    candidates = []
    for variable, tail in (("XDG_CACHE_HOME", ("read-window",)), ("HOME", (".cache", "read-window"))):
        base = environ.get(variable)
        if base and os.path.isabs(base):
            candidates.append(Path(base).joinpath(*tail))
    import tempfile  # only here: it is slow to import, and a warm start seldom gets this far

    candidates.append(Path(tempfile.gettempdir()) / "read-window")
    for path in candidates:
        if private_dir(path):
            return path, ""
    return None, "no private cache directory could be used or made: " + ", ".join(map(str, candidates))


def _owned_privately(meta: os.stat_result) -> bool:
    """Owned by the current user, and neither group nor others can write it (always true where there are no uids)."""
    if not hasattr(os, "geteuid"):
        return True
    return meta.st_mode & 0o022 == 0 and meta.st_uid == os.geteuid()


def private_dir(path: Path) -> bool:
    """Makes ``path`` (mode 0700) when it is missing; true when it is a real directory (not a link) owned by the
    current user that neither group nor others can write."""
    try:
        meta = os.lstat(path)
    except FileNotFoundError:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            meta = os.lstat(path)
        except OSError:
            return False
    except OSError:
        return False
    return stat.S_ISDIR(meta.st_mode) and _owned_privately(meta)


def trusted_entry(path: Path, stamp_ns: int) -> bool:
    """True when ``path`` is a regular file (not a link) owned by the current user that neither group nor others can
    write, whose modification time is ``stamp_ns``."""
    try:
        meta = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(meta.st_mode) and _owned_privately(meta) and meta.st_mtime_ns == stamp_ns


def _write_entry(directory: Path, path: Path, artifact: bytes, stamp_ns: int) -> None:
    """Writes ``artifact`` to a temporary file of mode 0600 beside ``path``, stamps its modification time last,
    syncs it, then renames it into place. Raises ``OSError``; the temporary file is removed then."""
    with _WRITES_LOCK:
        serial = next(_WRITES)
    temp = directory / f".entry-{os.getpid()}-{threading.get_ident()}-{serial}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(temp, flags, 0o600)
        try:
            view = memoryview(artifact)
            while view:
                view = view[os.write(fd, view):]
            if os.utime in os.supports_fd:
                os.utime(fd, ns=(stamp_ns, stamp_ns))  # last: no write may follow the stamp
            os.fsync(fd)
        finally:
            os.close(fd)
        if os.utime not in os.supports_fd:
            os.utime(temp, ns=(stamp_ns, stamp_ns))
        os.replace(temp, path)
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _prune(directory: Path, keep: Path) -> None:
    """Removes all but the ``KEEP_ENTRIES`` most recently written entries (by status-change time: the modification
    time is the stamp); ``keep`` is never removed. Best effort."""
    try:
        names = [name for name in os.listdir(directory) if name.endswith(ENTRY_SUFFIX)]
    except OSError:
        return
    found = []
    for name in names:
        path = directory / name
        if path == keep:
            continue
        try:
            found.append((os.lstat(path).st_ctime_ns, path))
        except OSError:
            continue
    found.sort(reverse=True)
    for _, path in found[KEEP_ENTRIES - 1:]:
        try:
            os.unlink(path)
        except OSError:
            pass


def document_cache_dir(wasm_sha256_hex: str, base: Optional[Path] = None,
                       environ: Mapping[str, str] = os.environ) -> Optional[Path]:
    """The directory the component keeps extracted documents in (the config's ``document_cache_dir``, the document
    store: docs/behaviour/documents.md), as the Rust host picks it: ``<base>/documents/<the first 16 hex digits of
    the component's SHA-256>``, each directory private (see ``private_dir``), its real path. ``base`` is the cache
    directory (``None`` looks it up with ``cache_dir``). The directories of other builds are removed: the component
    hides only its own. ``None`` when ``$READ_WINDOW_DOCUMENT_CACHE`` turns it off or no private directory can be
    had."""
    if environ.get(DOCUMENT_CACHE_ENV, "").strip().lower() in DOCUMENT_CACHE_OFF:
        return None
    if base is None:
        base, _ = cache_dir(environ)
    if base is None:
        return None
    documents, build = base / "documents", wasm_sha256_hex[:16]
    if not (private_dir(base) and private_dir(documents) and private_dir(documents / build)):
        return None
    import shutil  # only here: a start without documents to cache need not import it

    try:
        with os.scandir(documents) as entries:
            for entry in entries:
                other = entry.name != build and len(entry.name) == 16
                if other and all(c in "0123456789abcdef" for c in entry.name) and entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
    except OSError:
        pass
    return Path(os.path.realpath(documents / build))


def ensure_dir(directory: Path) -> bool:
    """``directory``, a document cache directory ``document_cache_dir`` returned, made again when it is gone (a
    process running another build removed it, as this one removes theirs); True when it is there and private. A
    session whose cache directory this says False for keeps no documents."""
    return directory.is_dir() or (private_dir(directory.parent) and private_dir(directory))


def load_component(engine: Engine, wasm: bytes, engine_settings: str, *,
                   directory: Optional[Path] = None, wasm_sha256_hex: Optional[str] = None,
                   compile: Callable[[Engine, bytes], Component] = Component) -> Tuple[Component, CacheStatus]:
    """The compiled component of ``wasm`` for ``engine`` (configured as ``engine_settings`` says), deserialized
    from the cache when a trusted entry exists, else compiled (by ``compile``) and cached. ``directory`` is the
    cache directory (it must be private: see ``private_dir``); ``None`` looks it up with ``cache_dir``.
    ``wasm_sha256_hex`` is the SHA-256 of ``wasm`` when the caller has it (else it is computed). Raises
    ``WasmtimeError`` only when compiling fails; a failure of the cache is never raised."""
    reason = ""
    if directory is None:
        directory, reason = cache_dir()
    elif not private_dir(directory):
        directory, reason = None, f"{directory} is not a directory of yours that only you can write"
    if directory is None:
        return compile(engine, wasm), CacheStatus("disabled", None, reason)
    key = Key.for_component(wasm_sha256_hex or hashlib.sha256(wasm).hexdigest(), engine_settings)
    path = directory / key.file_name()
    if trusted_entry(path, key.stamp_ns()):
        try:
            return Component.deserialize_file(engine, str(path)), CacheStatus("hit", path)
        except WasmtimeError:
            pass  # not an artifact of this engine (truncated, zeroed, another wasmtime): recompile and replace
    component = compile(engine, wasm)
    try:
        _write_entry(directory, path, bytes(component.serialize()), key.stamp_ns())
    except (OSError, WasmtimeError) as error:
        return component, CacheStatus("unwritten", path, str(error))
    _prune(directory, path)
    return component, CacheStatus("written", path)
