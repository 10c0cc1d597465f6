"""The scenario runner: the language-neutral scenario files of ``tests/scenarios/`` (format in its README) through
the real component, as the Rust and JavaScript hosts run them.

Each scenario runs in a fresh temporary directory: its ``files`` in ``scenario/``, granted read-only at the guest path
``/scenario`` (the working directory), its ``outside`` files in ``outside/``, not granted. Named sessions
(``"session"`` on a step, default ``"main"``) start at their first step with the scenario's config. A step less its
``expect`` and ``session`` keys is a request handed to ``Session.request``; ``write_file`` and ``remove_file`` are
the runner's own ops.
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

from ._host import HostError, ReadWindow, Session

#: The guest path the scenario's directory is granted at, on every host.
GUEST_ROOT = "/scenario"
#: The session a step without a ``"session"`` key runs in.
DEFAULT_SESSION = "main"
#: The keys of a step that are the runner's, not the request's.
STEP_KEYS = ("expect", "session")
#: The ops the runner answers itself, and their fields.
RUNNER_OPS = {"write_file": ("op", "id", "path", "content"), "remove_file": ("op", "id", "path")}

_SCENARIO_KEYS = ("name", "description", "files", "outside", "config", "spill", "steps")
_FILE_KINDS = ("base64", "repeat", "numbered", "concat", "encode", "symlink", "symlink_absolute", "dir", "fifo")
_MISSING = object()


class ScenarioFailure(Exception):
    """Why a scenario failed: the step, the place in the answer, the values."""


def compact(value: Any) -> str:
    """``value`` as compact JSON (as the Rust runner prints answers in failure messages)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def collect_files(paths: Iterable[os.PathLike]) -> List[Path]:
    """The scenario files under ``paths``: each file as given, each directory searched recursively for ``*.json``
    files, in sorted order. Raises ``FileNotFoundError`` naming a path that does not exist."""
    files: List[Path] = []
    for path in map(Path, paths):
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or directory")
        files.extend(sorted(p for p in path.rglob("*.json") if p.is_file()) if path.is_dir() else [path])
    return files


def _shown(actual: Any) -> str:
    return "no key" if actual is _MISSING else compact(actual)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def match_value(expected: Any, actual: Any, place: str = "") -> None:
    """Checks ``actual`` (``_MISSING`` for a missing key) against ``expected``; raises ``ScenarioFailure`` saying
    where (a JSON pointer such as ``/error/kind``) and what differs. Objects match as subsets, lists item by item
    with the same length, numbers by value (a boolean is never a number), ``{"$contains": "t" | [...]}`` a string
    containing each text, ``{"$absent": true}`` a missing key (``false``: a present one)."""
    at = place or "/"
    if isinstance(expected, Mapping) and "$absent" in expected:
        if (expected["$absent"] is True) != (actual is _MISSING):
            raise ScenarioFailure(f"at {at}: " + ("expected no key, got " + compact(actual) if actual is not _MISSING
                                                  else "expected a key, found none"))
    elif isinstance(expected, Mapping) and "$contains" in expected:
        needles = expected["$contains"]
        if not isinstance(actual, str):
            raise ScenarioFailure(f"at {at}: expected a string containing {compact(needles)}, got {_shown(actual)}")
        for needle in needles if isinstance(needles, list) else [needles]:
            if not isinstance(needle, str):
                raise ScenarioFailure(f"at {at}: `$contains` takes strings")
            if needle not in actual:
                raise ScenarioFailure(f"at {at}: expected a string containing {compact(needle)}, got {compact(actual)}")
    elif isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            raise ScenarioFailure(f"at {at}: expected an object, got {_shown(actual)}")
        for key, want in expected.items():
            match_value(want, actual.get(key, _MISSING), f"{place}/{key}")
    elif actual is _MISSING:
        raise ScenarioFailure(f"at {at}: expected {compact(expected)}, found no key")
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            raise ScenarioFailure(
                f"at {at}: expected a list of {len(expected)} items, got {len(actual)} items: {compact(actual)}")
        for index, (want, got) in enumerate(zip(expected, actual)):
            match_value(want, got, f"{place}/{index}")
    elif not (expected == actual and (type(expected) is type(actual) or _is_number(expected) and _is_number(actual))):
        raise ScenarioFailure(f"at {at}: expected {compact(expected)}, got {compact(actual)}")


def fixture_path(root: Path, name: Any) -> Path:
    """``name`` (relative, ``/``-separated, no ``..``) under ``root``."""
    if not isinstance(name, str):
        raise ScenarioFailure(f"a fixture path must be a string, not {compact(name)}")
    relative = PurePosixPath(name)
    if not name or relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise ScenarioFailure(f"fixture path {compact(name)} must be relative to the scenario's directory, without "
                              "`..`")
    return root.joinpath(*relative.parts)


def _field(spec: Mapping, key: str, kind: type, default: Any = None) -> Any:
    value = spec.get(key, default)
    if not isinstance(value, kind) or isinstance(value, bool) or kind is int and value < 0:
        raise ScenarioFailure(f"`{key}` must be {'a non-negative integer' if kind is int else 'a string'}")
    return value


def file_bytes(content: Any) -> bytes:
    """The bytes of a file value: text (UTF-8), ``{"base64"}``, ``{"repeat", "count"}``, ``{"numbered", "count",
    "from", "width", "suffix"}`` (lines: prefix, the number zero-padded to ``width``, suffix), ``{"concat": [...]}``
    or ``{"encode": value, "encoding": label}`` (``value``'s text in Python's codec for the WHATWG ``label``)."""
    if isinstance(content, str):
        return content.encode("utf-8")
    if not isinstance(content, Mapping):
        raise ScenarioFailure("a file is a string or an object")
    if "base64" in content:  # standard base64, with or without `=` padding, whitespace ignored
        cleaned = "".join(_field(content, "base64", str).split()).rstrip("=")
        try:
            return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4), validate=True)
        except (binascii.Error, ValueError) as error:
            raise ScenarioFailure(f"`base64` is not valid base64: {error}") from None
    if "repeat" in content:
        return _field(content, "repeat", str).encode("utf-8") * _field(content, "count", int)
    if "numbered" in content:
        prefix, suffix = _field(content, "numbered", str), _field(content, "suffix", str, "")
        start, width = _field(content, "from", int, 1), _field(content, "width", int, 0)
        numbers = range(start, start + _field(content, "count", int))
        return "".join(f"{prefix}{str(n).zfill(width)}{suffix}\n" for n in numbers).encode("utf-8")
    if "encode" in content:
        label = content.get("encoding")
        if not isinstance(label, str):
            raise ScenarioFailure('`encode` needs an `encoding` (a WHATWG label such as "windows-1251")')
        try:
            return file_bytes(content["encode"]).decode("utf-8").encode(label)
        except UnicodeDecodeError:
            raise ScenarioFailure("the text to `encode` is not UTF-8") from None
        except LookupError:
            raise ScenarioFailure(f"`encoding` {label!r} is not an encoding Python knows") from None
        except UnicodeEncodeError as error:
            raise ScenarioFailure(f"{label} cannot encode the text to `encode`: {error}") from None
    if "concat" in content:
        if not isinstance(content["concat"], list):
            raise ScenarioFailure("`concat` must be a list of file values")
        return b"".join(file_bytes(part) for part in content["concat"])
    raise ScenarioFailure(f"a file object needs one of the keys {', '.join(_FILE_KINDS)}")


def write_one(path: Path, content: Any, scenario_dir: Path) -> None:
    """Writes one fixture, replacing what was there: a file value (``file_bytes``), ``{"symlink"}`` (the target as
    given), ``{"symlink_absolute"}`` (a link to the absolute host path of a path relative to ``scenario_dir``, ``.``
    and ``..`` resolved by name), ``{"dir": true}`` or ``{"fifo": true}``."""
    kinds = ("symlink", "symlink_absolute", "dir", "fifo") if isinstance(content, Mapping) else ()
    kind = next((key for key in kinds if key in content), None)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.is_symlink() or path.exists():
            path.unlink()
        if kind == "symlink":
            os.symlink(_field(content, "symlink", str), path)
        elif kind == "symlink_absolute":
            parts = os.path.realpath(scenario_dir).split("/")
            for part in _field(content, "symlink_absolute", str).split("/"):
                parts = parts[:-1] if part == ".." else parts + [part] if part not in ("", ".") else parts
            os.symlink("/" + "/".join(part for part in parts if part), path)
        elif kind == "dir":
            path.mkdir()
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            path.write_bytes(file_bytes(content))
    except UnicodeEncodeError as error:
        raise ScenarioFailure(f"the text is not valid Unicode: {error}") from None
    except OSError as error:
        raise ScenarioFailure(f"cannot write {path}: {error}") from None


def answer_step(session: Session, step: Any) -> Dict[str, Any]:
    """The answer of ``session`` to one step (a dict such as ``{"op": "read", "path": "/race/f.txt"}``): the step
    less its ``expect`` and ``session`` keys, through ``Session.request`` (a host failure is its ``host_error``
    answer). Raises ``ScenarioFailure`` for a step that is not an object."""
    if not isinstance(step, Mapping):
        raise ScenarioFailure("a step must be a JSON object")
    return session.request({key: value for key, value in step.items() if key not in STEP_KEYS})


class _Runner:
    def __init__(self, reader: ReadWindow, root: Path, config: Any, spill: Optional[Dict[str, str]]) -> None:
        self.reader, self.root, self.config, self.spill = reader, root, config, spill
        self.sessions: Dict[str, Session] = {}

    def session(self, name: Any) -> Session:
        if not isinstance(name, str):
            raise ScenarioFailure("`session` must be a string")
        if name not in self.sessions:
            try:
                self.sessions[name] = Session(self.reader, {GUEST_ROOT: self.root}, self.config, writable=self.spill)
            except HostError as error:
                raise ScenarioFailure(f"session `{name}` did not start: {error.message}") from None
        return self.sessions[name]

    def runner_op(self, step: Mapping) -> Dict[str, Any]:
        fields = RUNNER_OPS[step["op"]]
        extra = next((key for key in step if key not in fields + STEP_KEYS), None)
        if extra is not None:
            raise ScenarioFailure(f"unknown field `{extra}`; the fields are {', '.join(fields)}")
        path = fixture_path(self.root, step.get("path"))
        if step["op"] == "remove_file":
            try:
                os.remove(path)
            except OSError as error:
                raise ScenarioFailure(f"cannot remove {path}: {error}") from None
        elif "content" not in step:
            raise ScenarioFailure("`content` is missing")
        else:
            write_one(path, step["content"], self.root)
        return {"id": step["id"], "status": "ok"} if "id" in step else {"status": "ok"}

    def step(self, step: Any) -> None:
        if not isinstance(step, Mapping):
            raise ScenarioFailure("a step must be a JSON object")
        if isinstance(step.get("op"), str) and step["op"] in RUNNER_OPS:
            answer = self.runner_op(step)
        else:
            answer = answer_step(self.session(step.get("session", DEFAULT_SESSION)), step)
        if isinstance(answer.get("error"), Mapping) and answer["error"].get("kind") == "host_error":
            raise ScenarioFailure(f"host failure: {compact(answer)}")
        if "expect" in step:
            try:
                match_value(step["expect"], answer)
            except ScenarioFailure as failure:
                raise ScenarioFailure(f"{failure}; the answer was {compact(answer)}") from None


def run_scenario(reader: ReadWindow, scenario: Any) -> None:
    """Runs one scenario given as parsed JSON; raises ``ScenarioFailure`` saying why it failed (a config the
    component cannot use fails it before the first step, with the component's reason)."""
    if not isinstance(scenario, Mapping):
        raise ScenarioFailure("a scenario must be a JSON object")
    for key in scenario:
        if key not in _SCENARIO_KEYS:
            raise ScenarioFailure(f"unknown scenario key `{key}`; the keys are {', '.join(_SCENARIO_KEYS)}")
    steps, spill = scenario.get("steps"), scenario.get("spill")
    if not isinstance(steps, list):
        raise ScenarioFailure("`steps` must be a list of steps")
    if spill is not None and not isinstance(spill, str):
        raise ScenarioFailure("`spill` must be a directory name (a string)")
    with tempfile.TemporaryDirectory(prefix="read-window-scenario-") as temp:
        root = Path(temp) / "scenario"
        for directory, key in ((root, "files"), (Path(temp) / "outside", "outside")):
            directory.mkdir()
            files = {} if scenario.get(key) is None else scenario[key]
            if not isinstance(files, Mapping):
                raise ScenarioFailure(f"`{key}` must be an object of path: content")
            for name, content in files.items():
                try:
                    write_one(fixture_path(directory, name), content, root)
                except ScenarioFailure as error:
                    raise ScenarioFailure(f"{key}: {name}: {error}") from None
        writable = None
        if spill is not None:
            fixture_path(root, spill).mkdir(parents=True, exist_ok=True)
            writable = {f"{GUEST_ROOT}/{spill.strip('/')}": fixture_path(root, spill)}
        runner = _Runner(reader, root, scenario.get("config"), writable)
        try:
            if runner.config is not None:
                checked = runner.session(DEFAULT_SESSION).request({"op": "config"})
                if checked.get("status") == "error":
                    raise ScenarioFailure(f"config: {checked['error']['message']}")
            for index, step in enumerate(steps, start=1):
                try:
                    runner.step(step)
                except ScenarioFailure as failure:
                    op = step.get("op") if isinstance(step, Mapping) and isinstance(step.get("op"), str) else "read"
                    path = step.get("path") if isinstance(step, Mapping) else None
                    described = f"{op} {path}" if isinstance(path, str) else op
                    raise ScenarioFailure(f"step {index} ({described}): {failure}") from None
        finally:
            for session in runner.sessions.values():
                session.close()


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
    if seen is not None and name in seen:
        return name, f"the name is already used by {seen[name]}"
    if seen is not None:
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
        passed, failed = passed + (why is None), failed + (why is not None)
        print(f"PASS {name}" if why is None else f"FAIL {name}: {why}", file=out, flush=True)
    print(f"{passed} passed, {failed} failed", file=out, flush=True)
    return passed, failed
