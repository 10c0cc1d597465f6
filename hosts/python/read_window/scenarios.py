"""The scenario runner: the language-neutral scenario files of ``tests/scenarios/`` through the real component.

The format is ``tests/scenarios/README.md``; the Rust and JavaScript hosts run the same files and compare answers in
the same JSON shape. Each scenario runs in a fresh temporary directory: its ``files`` in ``scenario/``, granted
read-only at the guest path ``/scenario`` (also the working directory), its ``outside`` files in ``outside/``, not
granted. Named sessions (``"session"`` on a step, default ``"main"``) start at their first step with the
scenario's config.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Dict, Iterable, List, Optional, TextIO, Tuple

from . import _values as values
from ._host import HostError, ReadWindow, Session

#: The guest path the scenario's directory is granted at, on every host.
GUEST_ROOT = "/scenario"

#: The session a step without a ``"session"`` key runs in.
DEFAULT_SESSION = "main"

_SCENARIO_KEYS = ("name", "description", "files", "outside", "config", "spill", "steps")

#: The fields of each op besides ``op`` and ``id`` (the session protocol's, plus the scenario format's own ops).
_OP_FIELDS: Dict[str, Tuple[str, ...]] = {
    "read": ("path", "offset", "limit", "column", "tail", "extract"),
    "other_tool": (),
    "reset_dedup": (),
    "stats": (),
    "wrote": ("path",),
    "check_write": ("path", "text"),
    "report_tokens": ("path", "offset", "lines", "tokens"),
    "token_refusal": ("path", "offset", "limit", "message"),
    "read_once": ("path", "offset", "limit", "column", "tail", "extract"),
    "write_file": ("path", "content"),
    "remove_file": ("path",),
    "capture_begin": values.CAPTURE_CONFIG_FIELDS,
    "capture_chunk": ("text", "base64"),
    "capture_end": ("exit_status",),
}

_FILE_KINDS = ("base64", "repeat", "numbered", "concat", "encode", "symlink", "symlink_absolute", "dir", "fifo")


class ScenarioFailure(Exception):
    """Why a scenario failed: the step, the place in the answer, the values."""


def compact(value: Any) -> str:
    """``value`` as compact JSON (as the Rust runner prints answers in failure messages)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------------------------------------------------------
# Finding files
# ---------------------------------------------------------------------------------------------------------------


def collect_files(paths: Iterable[os.PathLike]) -> List[Path]:
    """The scenario files under ``paths``: each file as given, each directory searched recursively for ``*.json``
    files, in sorted order. Raises ``FileNotFoundError`` naming a path that does not exist."""
    files: List[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        elif path.exists():
            files.append(path)
        else:
            raise FileNotFoundError(f"{path}: no such file or directory")
    return files


# ---------------------------------------------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------------------------------------------

_MISSING = object()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def match_value(expected: Any, actual: Any, place: str = "") -> None:
    """Checks ``actual`` (``_MISSING`` for a missing key) against ``expected`` by the rules of the format; raises
    ``ScenarioFailure`` saying where (a JSON pointer such as ``/error/kind``) and what differs.

    Objects match as subsets (keys not named are not checked), lists item by item with the same length, numbers
    by value (``3`` equals ``3.0``; a boolean is never a number), ``{"$contains": "t" | ["a", "b"]}`` a string
    containing each text, ``{"$absent": true}`` a missing key (``{"$absent": false}`` a present one).
    """
    at = place or "/"
    if isinstance(expected, Mapping):
        if "$absent" in expected:
            absent = expected["$absent"]
            if absent is True and actual is _MISSING:
                return
            if absent is False and actual is not _MISSING:
                return
            if absent is True:
                raise ScenarioFailure(f"at {at}: expected no key, got {compact(actual)}")
            raise ScenarioFailure(f"at {at}: expected a key, found none")
        if "$contains" in expected:
            needles = expected["$contains"]
            if not isinstance(actual, str):
                shown = "no key" if actual is _MISSING else compact(actual)
                raise ScenarioFailure(f"at {at}: expected a string containing {compact(needles)}, got {shown}")
            for needle in needles if isinstance(needles, list) else [needles]:
                if not isinstance(needle, str):
                    raise ScenarioFailure(f"at {at}: `$contains` takes strings")
                if needle not in actual:
                    raise ScenarioFailure(
                        f"at {at}: expected a string containing {compact(needle)}, got {compact(actual)}"
                    )
            return
        if not isinstance(actual, Mapping):
            shown = "no key" if actual is _MISSING else compact(actual)
            raise ScenarioFailure(f"at {at}: expected an object, got {shown}")
        for key, want in expected.items():
            match_value(want, actual.get(key, _MISSING), f"{place}/{key}")
        return
    if actual is _MISSING:
        raise ScenarioFailure(f"at {at}: expected {compact(expected)}, found no key")
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            raise ScenarioFailure(
                f"at {at}: expected a list of {len(expected)} items, got {len(actual)} items: {compact(actual)}"
            )
        for index, (want, got) in enumerate(zip(expected, actual)):
            match_value(want, got, f"{place}/{index}")
        return
    if _is_number(expected) and _is_number(actual):
        equal = expected == actual
    else:
        equal = type(expected) is type(actual) and expected == actual
    if not equal:
        raise ScenarioFailure(f"at {at}: expected {compact(expected)}, got {compact(actual)}")


# ---------------------------------------------------------------------------------------------------------------
# Fixture files
# ---------------------------------------------------------------------------------------------------------------


def fixture_path(root: Path, name: Any) -> Path:
    """``name`` (relative, ``/``-separated, no ``..``) under ``root``."""
    if not isinstance(name, str):
        raise ScenarioFailure(f"a fixture path must be a string, not {values.type_name(name)}")
    relative = PurePosixPath(name)
    if not name or relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise ScenarioFailure(
            f"fixture path {compact(name)} must be relative to the scenario's directory, without `..`"
        )
    return root.joinpath(*relative.parts)


def _decode_base64(encoded: str) -> bytes:
    """Standard base64 (RFC 4648), with or without ``=`` padding, whitespace ignored."""
    cleaned = "".join(encoded.split()).rstrip("=")
    try:
        return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4), validate=True)
    except (binascii.Error, ValueError) as error:
        raise ScenarioFailure(f"`base64` is not valid base64: {error}") from None


def _count(spec: Mapping, key: str = "count", default: Any = None) -> int:
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ScenarioFailure(f"`{key}` must be a non-negative integer")
    return value


def file_bytes(content: Any) -> bytes:
    """The bytes of a file value: text (UTF-8), ``{"base64"}``, ``{"repeat", "count"}``, ``{"numbered", "count",
    "from", "width", "suffix"}`` (lines: prefix, the number zero-padded to ``width``, suffix), ``{"concat": [...]}``
    or ``{"encode": value, "encoding": label}`` (the UTF-8 text of ``value`` encoded with Python's codec for the
    WHATWG ``label``)."""
    if isinstance(content, str):
        return values.text("content", content, "write_file").encode("utf-8")
    if not isinstance(content, Mapping):
        raise ScenarioFailure("a file is a string or an object")
    if "base64" in content:
        if not isinstance(content["base64"], str):
            raise ScenarioFailure("`base64` must be a string")
        return _decode_base64(content["base64"])
    if "repeat" in content:
        if not isinstance(content["repeat"], str):
            raise ScenarioFailure("`repeat` must be a string")
        return values.text("repeat", content["repeat"], "write_file").encode("utf-8") * _count(content)
    if "numbered" in content:
        prefix, suffix = content["numbered"], content.get("suffix", "")
        if not isinstance(prefix, str) or not isinstance(suffix, str):
            raise ScenarioFailure("`numbered` and `suffix` must be strings")
        start, width = _count(content, "from", 1), _count(content, "width", 0)
        lines = (f"{prefix}{str(n).zfill(width)}{suffix}\n" for n in range(start, start + _count(content)))
        return "".join(lines).encode("utf-8")
    if "encode" in content:
        label = content.get("encoding")
        if not isinstance(label, str):
            raise ScenarioFailure('`encode` needs an `encoding` (a WHATWG label such as "windows-1251")')
        try:
            decoded = file_bytes(content["encode"]).decode("utf-8")
        except UnicodeDecodeError:
            raise ScenarioFailure("the text to `encode` is not UTF-8") from None
        try:
            return decoded.encode(label)
        except LookupError:
            raise ScenarioFailure(f"`encoding` {label!r} is not an encoding Python knows") from None
        except UnicodeEncodeError as error:
            raise ScenarioFailure(f"{label} cannot encode the text to `encode`: {error}") from None
    if "concat" in content:
        if not isinstance(content["concat"], list):
            raise ScenarioFailure("`concat` must be a list of file values")
        return b"".join(file_bytes(part) for part in content["concat"])
    raise ScenarioFailure(f"a file object needs one of the keys {', '.join(_FILE_KINDS)}")


def _lexical_join(base: str, relative: str) -> str:
    """``relative`` joined to the absolute ``base``, ``.`` and ``..`` resolved by name (no file system access)."""
    parts = [part for part in base.split("/") if part]
    for part in relative.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def write_one(path: Path, content: Any, scenario_dir: Path) -> None:
    """Writes one fixture, replacing what was there: a file value (see ``file_bytes``), ``{"symlink"}`` (the
    target written as given), ``{"symlink_absolute"}`` (a link to the absolute host path of a path relative to
    ``scenario_dir``, the scenario's directory), ``{"dir": true}`` or ``{"fifo": true}``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.is_symlink() or path.exists():
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        if isinstance(content, Mapping) and "symlink" in content:
            if not isinstance(content["symlink"], str):
                raise ScenarioFailure("`symlink` must be a string")
            os.symlink(content["symlink"], path)
        elif isinstance(content, Mapping) and "symlink_absolute" in content:
            if not isinstance(content["symlink_absolute"], str):
                raise ScenarioFailure("`symlink_absolute` must be a string (a path relative to the scenario's directory)")
            os.symlink(_lexical_join(os.path.realpath(scenario_dir), content["symlink_absolute"]), path)
        elif isinstance(content, Mapping) and "dir" in content:
            path.mkdir()
        elif isinstance(content, Mapping) and "fifo" in content:
            os.mkfifo(path)
        else:
            path.write_bytes(file_bytes(content))
    except values.InvalidValue as error:
        raise ScenarioFailure(str(error)) from None
    except OSError as error:
        raise ScenarioFailure(f"cannot write {path}: {error}") from None


def _write_files(root: Path, files: Any, key: str, scenario_dir: Path) -> None:
    if files is None:
        return
    if not isinstance(files, Mapping):
        raise ScenarioFailure(f"`{key}` must be an object of path: content")
    for name, content in files.items():
        try:
            write_one(fixture_path(root, name), content, scenario_dir)
        except ScenarioFailure as error:
            raise ScenarioFailure(f"{key}: {name}: {error}") from None


# ---------------------------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------------------------


def _parse_step(step: Any) -> Tuple[str, str, Dict[str, Any]]:
    """A step as ``(op, session name, fields)``, the fields checked as the session protocol checks a request
    (unknown, missing or mistyped fields are a malformed step)."""
    if not isinstance(step, Mapping):
        raise ScenarioFailure("a step must be a JSON object")
    op = step.get("op")
    if op is None:
        op = "read"
    if not isinstance(op, str):
        raise ScenarioFailure(f"malformed step: `op` must be a string, not {values.type_name(op)}")
    if op not in _OP_FIELDS:
        raise ScenarioFailure(f"malformed step: unknown `op` {compact(op)}: expected one of {', '.join(_OP_FIELDS)}")
    allowed = _OP_FIELDS[op]
    for key in step:
        if key not in ("op", "id", "expect", "session") and key not in allowed:
            expected = ", ".join(allowed) if allowed else "none"
            raise ScenarioFailure(f"malformed step: unknown field `{key}` for op `{op}`; its fields are: {expected}")
    session = step.get("session", DEFAULT_SESSION)
    if not isinstance(session, str):
        raise ScenarioFailure("`session` must be a string")
    fields = {key: step.get(key) for key in allowed}
    if op.startswith("capture_"):
        # Checked by the session's capture methods, which answer a malformed one with `invalid_request`.
        return op, session, {key: step[key] for key in allowed if key in step}
    try:
        if op in ("write_file", "remove_file"):
            return op, session, fields
        if "path" in fields:
            fields["path"] = values.text("path", fields["path"], op)
        for key in ("text", "message"):
            if key in fields:
                fields[key] = values.text(key, fields[key], op)
        # A read's optional numbers go to the host as the step has them (it takes them as models send them);
        # a step the host would refuse is malformed, as in the Rust runner.
        if op in ("read", "read_once"):
            values.read_request(fields.get("path"), fields.get("offset"), fields.get("limit"), fields.get("column"), fields.get("tail"), None, fields.get("extract"))
        for key in ("offset", "lines", "tokens", "limit"):
            if key in fields and op in ("report_tokens", "token_refusal"):
                fields[key] = values.required_number(key, fields[key], op)
    except values.InvalidValue as error:
        raise ScenarioFailure(f"malformed step: {error}") from None
    return op, session, fields


def _describe(step: Any) -> str:
    """A step in a few words for failure messages: its op and path."""
    if not isinstance(step, Mapping):
        return "read"
    op = step.get("op") if isinstance(step.get("op"), str) else "read"
    path = step.get("path")
    return f"{op} {path}" if isinstance(path, str) else op


def _capture_chunk(session: Session, fields: Dict[str, Any]) -> Dict[str, Any]:
    """``capture_chunk``: ``text`` or ``base64``, exactly one (the messages of host-test/src/capture.rs)."""
    text, encoded = fields.get("text"), fields.get("base64")
    if "text" in fields and "base64" in fields:
        return values.invalid_request_json("give `text` or `base64`, not both")
    if isinstance(text, str) and "base64" not in fields:
        return session.capture_chunk(text.encode("utf-8"))
    if isinstance(encoded, str) and "text" not in fields:
        try:
            data = base64.b64decode("".join(encoded.split()) + "=" * (-len("".join(encoded.split())) % 4), validate=True)
        except (binascii.Error, ValueError) as error:
            return values.invalid_request_json(f"`base64` is not valid base64: {error}")
        return session.capture_chunk(data)
    if not fields:
        return values.invalid_request_json("`capture_chunk` needs `text` (a string) or `base64` (the bytes in base64)")
    return values.invalid_request_json("`text` and `base64` must be strings")


def _session_answer(session: Session, op: str, fields: Dict[str, Any]) -> Dict[str, Any]:
    """The answer of ``session`` to a parsed session op (``_parse_step``), a host failure as its ``host_error``
    answer."""
    try:
        if op == "read":
            return session.read(**fields)
        if op == "other_tool":
            return session.other_tool()
        if op == "reset_dedup":
            return session.reset_dedup()
        if op == "stats":
            return session.stats()
        if op == "wrote":
            return session.wrote(**fields)
        if op == "check_write":
            return session.check_write(**fields)
        if op == "report_tokens":
            return session.report_tokens(**fields)
        if op == "capture_begin":
            return session.capture_begin(fields)
        if op == "capture_chunk":
            return _capture_chunk(session, fields)
        if op == "capture_end":
            return session.capture_end(fields.get("exit_status"))
        return session.token_refusal(**fields)
    except HostError as error:
        return error.to_json()


#: The ops of the scenario format that are not answered by a session.
_NOT_SESSION_OPS = ("read_once", "write_file", "remove_file")


def answer_step(session: Session, step: Any) -> Dict[str, Any]:
    """The JSON answer of ``session`` to one step (a dict such as ``{"op": "read", "path": "/race/f.txt"}``),
    parsed and answered as the scenario runner does; its ``session`` and ``expect`` keys are ignored. A host
    failure is its ``host_error`` answer. Raises ``ScenarioFailure`` for a malformed step or an op no session
    answers (``read_once``, ``write_file``, ``remove_file``)."""
    op, _, fields = _parse_step(step)
    if op in _NOT_SESSION_OPS:
        raise ScenarioFailure(f"`{op}` is not answered by a session")
    return _session_answer(session, op, fields)


class _Runner:
    def __init__(self, reader: ReadWindow, root: Path, config: Optional[Mapping], spill: Optional[Dict[str, str]] = None) -> None:
        self.reader = reader
        self.root = root
        self.dirs = {GUEST_ROOT: str(root)}
        self.config = config
        self.spill = spill
        self.sessions: Dict[str, Session] = {}

    def session(self, name: str) -> Session:
        if name not in self.sessions:
            try:
                self.sessions[name] = Session(self.reader, self.dirs, self.config, writable=self.spill)
            except HostError as error:
                raise ScenarioFailure(f"session `{name}` did not start: {error.message}") from None
        return self.sessions[name]

    def answer(self, op: str, session_name: str, fields: Dict[str, Any]) -> Dict[str, Any]:
        if op == "write_file":
            if fields["content"] is None:
                raise ScenarioFailure("`content` is missing")
            write_one(fixture_path(self.root, fields["path"]), fields["content"], self.root)
            return values.note_json()
        if op == "remove_file":
            path = fixture_path(self.root, fields["path"])
            try:
                os.remove(path)
            except OSError as error:
                raise ScenarioFailure(f"cannot remove {path}: {error}") from None
            return values.note_json()
        if op == "read_once":
            try:
                return self.reader.read_once(self.dirs, config=self.config, **fields)
            except HostError as error:
                return error.to_json()
        return _session_answer(self.session(session_name), op, fields)

    def step(self, step: Any) -> None:
        op, session_name, fields = _parse_step(step)
        answer = self.answer(op, session_name, fields)
        if "id" in step:
            answer = {"id": step["id"], **answer}
        error = answer.get("error")
        if isinstance(error, Mapping) and error.get("kind") == "host_error":
            raise ScenarioFailure(f"host failure: {compact(answer)}")
        if "expect" in step:
            try:
                match_value(step["expect"], answer)
            except ScenarioFailure as failure:
                raise ScenarioFailure(f"{failure}; the answer was {compact(answer)}") from None

    def close(self) -> None:
        for session in self.sessions.values():
            session.close()


def run_scenario(reader: ReadWindow, scenario: Any) -> None:
    """Runs one scenario given as parsed JSON; raises ``ScenarioFailure`` saying why it failed."""
    if not isinstance(scenario, Mapping):
        raise ScenarioFailure("a scenario must be a JSON object")
    for key in scenario:
        if key not in _SCENARIO_KEYS:
            raise ScenarioFailure(f"unknown scenario key `{key}`; the keys are {', '.join(_SCENARIO_KEYS)}")
    config = scenario.get("config")
    try:
        values.config_record(config)
    except values.InvalidValue as error:
        raise ScenarioFailure(f"config: {error}") from None
    steps = scenario.get("steps")
    if not isinstance(steps, list):
        raise ScenarioFailure("`steps` must be a list of steps")
    with tempfile.TemporaryDirectory(prefix="read-window-scenario-") as temp:
        root = Path(temp) / "scenario"
        outside = Path(temp) / "outside"
        root.mkdir()
        outside.mkdir()
        _write_files(root, scenario.get("files"), "files", root)
        _write_files(outside, scenario.get("outside"), "outside", root)
        spill = scenario.get("spill")
        if spill is not None and not isinstance(spill, str):
            raise ScenarioFailure("`spill` must be a directory name (a string)")
        writable = None
        if spill is not None:
            spill_dir = fixture_path(root, spill)
            spill_dir.mkdir(parents=True, exist_ok=True)
            writable = {f"{GUEST_ROOT}/{spill.strip('/')}": str(spill_dir)}
        runner = _Runner(reader, root, config, writable)
        try:
            for index, step in enumerate(steps, start=1):
                try:
                    runner.step(step)
                except ScenarioFailure as failure:
                    raise ScenarioFailure(f"step {index} ({_describe(step)}): {failure}") from None
        finally:
            runner.close()


def run_file(reader: ReadWindow, file: Path, seen: Optional[Dict[str, Path]] = None) -> Tuple[str, Optional[str]]:
    """Runs one scenario file: ``(name, None)`` when it passed, ``(name, why)`` when it failed. The name is the
    file's path when the file cannot be read or has no ``name``. ``seen`` (name to file) catches duplicate names."""
    name = str(file)
    try:
        scenario = json.loads(file.read_text(encoding="utf-8"))
    except OSError as error:
        return name, f"cannot read the scenario file: {error}"
    except ValueError as error:
        return name, f"the scenario file is not valid JSON: {error}"
    if not isinstance(scenario, Mapping) or not isinstance(scenario.get("name"), str) or not scenario["name"]:
        return name, "`name` is missing: every scenario needs a unique `name` (a non-empty string)"
    name = scenario["name"]
    if seen is not None:
        if name in seen:
            return name, f"the name is already used by {seen[name]}"
        seen[name] = file
    try:
        run_scenario(reader, scenario)
    except ScenarioFailure as failure:
        return name, str(failure)
    return name, None


def run_paths(reader: ReadWindow, files: Iterable[Path], out: TextIO) -> Tuple[int, int]:
    """Runs every file, writing ``PASS name`` or ``FAIL name: why`` for each and the closing ``N passed, M
    failed`` line to ``out``; returns ``(passed, failed)``."""
    passed = failed = 0
    seen: Dict[str, Path] = {}
    for file in files:
        name, why = run_file(reader, file, seen)
        if why is None:
            passed += 1
            print(f"PASS {name}", file=out, flush=True)
        else:
            failed += 1
            print(f"FAIL {name}: {why}", file=out, flush=True)
    print(f"{passed} passed, {failed} failed", file=out, flush=True)
    return passed, failed
