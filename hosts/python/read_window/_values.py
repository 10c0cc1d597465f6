"""Conversions between Python values and the component's WIT values, and the JSON shape of every answer.

Everything here mirrors ``host-test/src/json.rs`` (the reference shape): the same keys in the same order, the same
snake_case names, the same rules and wording for malformed values. Nothing here decides behaviour; the component
does.

wasmtime-py 50 hands records over as ``Record`` objects whose attributes carry the WIT (kebab-case) field names,
and returns a variant either *tagged* (a ``Variant(tag, payload)``) or *bare* (the payload alone), depending on
whether the Python types of its cases overlap. The helpers below accept both forms, so a change in that rule cannot
silently change an answer.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Tuple

from wasmtime.component import Record, Variant

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

#: The config fields, in WIT order, with snake_case names (the WIT names with ``-`` replaced by ``_``).
CONFIG_FIELDS = (
    "max_lines",
    "max_line_length",
    "budget",
    "working_directory",
    "dedup",
    "loop_warn_at",
    "loop_block_at",
    "not_found_ttl_ms",
    "deny_patterns",
    "allow_patterns",
)

_U32_FIELDS = ("max_lines", "max_line_length", "loop_warn_at", "loop_block_at")
_BUDGET_SHAPE = '`budget` must be {"characters": N} or {"tokens": {"cap": N, "headroom": F}}'


class InvalidValue(ValueError):
    """A value given for a request or a config is malformed; the message names the field at fault."""


# ---------------------------------------------------------------------------------------------------------------
# Checking values (the rules of json.rs: null is absent, integral floats count as integers, no booleans as numbers)
# ---------------------------------------------------------------------------------------------------------------


def type_name(value: Any) -> str:
    """The JSON type of ``value`` in words (``a string``, ``a number``, ...), for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


def number(field: str, value: Any) -> int:
    """``value`` as an integer in ``0..=u64::MAX``; an integral float such as ``5.0`` counts as an integer.

    Raises ``InvalidValue`` naming ``field`` for anything else (booleans included).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidValue(f"`{field}` must be a non-negative integer, not {type_name(value)}")
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise InvalidValue(f"`{field}` must be an integer (got {value!r})")
    if value < 0:
        raise InvalidValue(f"`{field}` must not be negative (got {value!r})")
    if value > U64_MAX:
        raise InvalidValue(f"`{field}` is beyond the largest supported value {U64_MAX} (got {value!r})")
    return int(value)


def optional_number(field: str, value: Any) -> Optional[int]:
    """``None`` for ``None``, else ``number(field, value)``."""
    return None if value is None else number(field, value)


def u32(field: str, value: Any) -> int:
    """``number(field, value)`` that also fits in 32 bits."""
    n = number(field, value)
    if n > U32_MAX:
        raise InvalidValue(f"`{field}` is beyond the largest supported value {U32_MAX} (got {n})")
    return n


def text(field: str, value: Any, op: str) -> str:
    """``value`` as a string for the ``op`` that needs it; ``None`` is reported as missing."""
    if value is None:
        raise InvalidValue(f"`{field}` is missing: the `{op}` op needs a `{field}` (a string)")
    if not isinstance(value, str):
        raise InvalidValue(f"`{field}` must be a string, not {type_name(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidValue(f"`{field}` is not valid Unicode text (it holds a lone surrogate)") from None
    return value


def guest_path(value: Any, op: str) -> str:
    """A guest path for the ``op`` that needs it: a string, or an ``os.PathLike`` whose path is a string."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    return text("path", value, op)


def required_number(field: str, value: Any, op: str) -> int:
    """``number(field, value)`` for the ``op`` that needs it; ``None`` is reported as missing."""
    if value is None:
        raise InvalidValue(f"`{field}` is missing: the `{op}` op needs a `{field}` (a non-negative integer)")
    return number(field, value)


#: The valid range of each optional number of a read, in words (as json.rs words it).
READ_RANGES = {
    "offset": "a line number from 1 (0 is read as 1) up to the file's line count",
    "limit": "a count of lines from 1 (larger values are clamped to max-lines)",
    "column": "a character position from 0 inside the first line",
    "tail": "a count of last lines from 1 to 4294967295",
}


def lenient_number(field: str, value: Any, notes: List[str]) -> Optional[int]:
    """An optional number of a read as models send it (json.rs ``lenient_u64``): ``None`` and ``""`` (or only
    spaces) are absent; a string of ASCII digits is read as its integer and a note is added to ``notes``; a number
    is checked by ``number``; anything else raises ``InvalidValue`` naming ``field`` and its valid range."""
    valid = READ_RANGES[field]
    if value is None:
        return None
    if isinstance(value, str):
        digits = value.strip()
        if not digits:
            return None
        if digits.isascii() and digits.isdigit() and int(digits) <= U64_MAX:
            n = int(digits)
            notes.append(
                f"`{field}` was the string {_debug_str(value)}; it was read as the number {n}. "
                "Send numbers as JSON numbers."
            )
            return n
        raise InvalidValue(f"`{field}` must be {valid}, as a JSON number; got the string {_debug_str(value)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidValue(f"`{field}` must be {valid}, as a JSON number, not {type_name(value)}")
    try:
        return number(field, value)
    except InvalidValue as error:
        raise InvalidValue(f"{error} ({field} must be {valid})") from None


def _debug_str(text: str) -> str:
    """``text`` quoted as Rust's ``{:?}`` quotes a string (for the ASCII and plain text of arguments)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def lenient_bool(field: str, value: Any, notes: List[str]) -> Optional[bool]:
    """An optional boolean of a read as models send it (json.rs ``lenient_bool``): ``None`` and ``""`` (or only
    spaces) are absent; the strings ``"true"`` and ``"false"`` are read as their boolean and a note is added to
    ``notes``; anything else but a bool raises ``InvalidValue`` naming ``field``."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if text in ("true", "false"):
            flag = text == "true"
            notes.append(
                f"`{field}` was the string {_debug_str(value)}; it was read as the boolean {str(flag).lower()}. "
                "Send booleans as JSON true or false."
            )
            return flag
        raise InvalidValue(f"`{field}` must be true or false, as a JSON boolean, not the string {_debug_str(value)}")
    raise InvalidValue(f"`{field}` must be true or false, as a JSON boolean, not {type_name(value)}")


def read_request(
    path: Any,
    offset: Any,
    limit: Any,
    column: Any,
    tail: Any = None,
    notes: Optional[List[str]] = None,
    extract: Any = None,
) -> Record:
    """The WIT ``read-request`` record, every field set (absent options as ``None``; ``asked-via`` is set later by
    the walk of absolute links). Optional numbers and the ``extract`` boolean are taken as models send them
    (``lenient_number``, ``lenient_bool``); how they were read is added to ``notes``."""
    notes = [] if notes is None else notes
    request = Record()
    fields = request.__dict__
    fields["path"] = guest_path(path, "read")
    fields["offset"] = lenient_number("offset", offset, notes)
    fields["limit"] = lenient_number("limit", limit, notes)
    fields["column"] = lenient_number("column", column, notes)
    tail = lenient_number("tail", tail, notes)
    if tail is not None and tail > U32_MAX:
        raise InvalidValue(f"`tail` must be {READ_RANGES['tail']} (got {tail})")
    fields["tail"] = tail
    fields["extract"] = lenient_bool("extract", extract, notes)
    # Set by the host's walk of absolute links (``_links.Resolution.asked_via``) when it rewrote the path.
    fields["asked-via"] = None
    return request


def with_notes(answer: Dict[str, Any], notes: List[str]) -> Dict[str, Any]:
    """``answer`` with ``notes`` (how arguments were read) added to its ``warnings`` and, a line each, to the end of
    its ``text`` (json.rs ``with_notes``)."""
    if notes:
        answer.setdefault("warnings", []).extend(notes)
        if isinstance(answer.get("text"), str):
            answer["text"] += "".join("\n" + note for note in notes)
    return answer


def config_record(config: Optional[Mapping]) -> Record:
    """The WIT ``config`` record for a config dict with snake_case field names (``None``: every default).

    ``budget`` is ``{"characters": N}`` or ``{"tokens": {"cap": N, "headroom": F}}`` (both inner fields optional).
    A field set to ``None`` is absent. Raises ``InvalidValue`` naming the field: an unknown field, a wrong type, a
    negative or fractional number, a number beyond the field's range. Values in range but invalid for the component
    (``max_lines: 0``) are not refused here: the component replaces them by defaults and says so in a warning.
    """
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise InvalidValue(f"the config must be a JSON object, not {type_name(config)}")
    for key in config:
        if key not in CONFIG_FIELDS:
            raise InvalidValue(f"unknown config field `{key}`; the fields are: {', '.join(CONFIG_FIELDS)}")
    record = Record()
    fields = record.__dict__
    for name in _U32_FIELDS:
        value = config.get(name)
        fields[name.replace("_", "-")] = None if value is None else u32(name, value)
    ttl = config.get("not_found_ttl_ms")
    fields["not-found-ttl-ms"] = None if ttl is None else number("not_found_ttl_ms", ttl)
    budget = config.get("budget")
    fields["budget"] = None if budget is None else _budget(budget)
    directory = config.get("working_directory")
    fields["working-directory"] = None if directory is None else text("working_directory", directory, "config")
    dedup = config.get("dedup")
    if dedup is not None and not isinstance(dedup, bool):
        raise InvalidValue(f"`dedup` must be a boolean, not {type_name(dedup)}")
    fields["dedup"] = dedup
    for name in ("deny_patterns", "allow_patterns"):
        fields[name.replace("_", "-")] = _strings(name, config.get(name))
    return record


def _budget(value: Any) -> Any:
    """The WIT ``budget`` variant. With wasmtime-py 50 its cases (``u32`` and a record) have distinct Python types,
    so the variant is passed bare: an ``int`` for ``characters``, a ``Record`` for ``tokens``."""
    if not isinstance(value, Mapping):
        raise InvalidValue(f"{_BUDGET_SHAPE}, not {type_name(value)}")
    if len(value) != 1:
        raise InvalidValue(f"{_BUDGET_SHAPE}: exactly one key")
    ((unit, inner),) = value.items()
    if unit == "characters":
        return u32("budget.characters", inner)
    if unit != "tokens":
        raise InvalidValue(f"{_BUDGET_SHAPE}, not a `{unit}` key")
    if not isinstance(inner, Mapping):
        raise InvalidValue(
            f"`budget.tokens` must be an object with optional `cap` and `headroom`, not {type_name(inner)}"
        )
    for key in inner:
        if key not in ("cap", "headroom"):
            raise InvalidValue(f"unknown field `{key}` in `budget.tokens`; its fields are: cap, headroom")
    cap = inner.get("cap")
    headroom = inner.get("headroom")
    if headroom is not None and (isinstance(headroom, bool) or not isinstance(headroom, (int, float))):
        raise InvalidValue(f"`budget.tokens.headroom` must be a number, not {type_name(headroom)}")
    tokens = Record()
    tokens.__dict__["cap"] = None if cap is None else u32("cap", cap)
    tokens.__dict__["headroom"] = None if headroom is None else float(headroom)
    return tokens


def _strings(field: str, value: Any) -> Optional[List[str]]:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise InvalidValue(f"`{field}` must be a list of strings, not {type_name(value)}")
    return [text(field, item, "config") for item in value]


# ---------------------------------------------------------------------------------------------------------------
# Reading the component's answers (tagged or bare variants alike)
# ---------------------------------------------------------------------------------------------------------------


def _is_read_error(value: Any) -> bool:
    return isinstance(value, Record) and hasattr(value, "kind") and hasattr(value, "already-read")


def split_result(value: Any) -> Tuple[str, Any]:
    """A WIT ``result<T, read-error>`` as ``("ok", payload)`` or ``("err", read_error_record)``.

    Accepts a tagged ``Variant("ok"|"err", payload)`` and a bare payload (a bare ``read-error`` record is an error:
    no ``T`` of this interface has both ``kind`` and ``already-read``)."""
    if isinstance(value, Variant) and value.tag in ("ok", "err"):
        return value.tag, value.payload
    if _is_read_error(value):
        return "err", value
    return "ok", value


def split_outcome(value: Any) -> Tuple[str, Any]:
    """A WIT ``read-outcome`` as ``("window", read_result)`` or ``("unchanged", unchanged_stub)``."""
    if isinstance(value, Variant):
        return value.tag, value.payload
    return ("window" if hasattr(value, "content") else "unchanged"), value


def _name(kebab: str) -> str:
    """A WIT enum case as JSON names it (``not-found`` -> ``not_found``)."""
    return kebab.replace("-", "_")


def _encoding_name(value: Any) -> str:
    """The ``text-encoding`` variant as JSON names it: ``utf8`` ... ``utf32be``, or a legacy encoding's WHATWG name
    (the payload of ``legacy``, kept as it is)."""
    if isinstance(value, Variant):
        return value.payload if value.tag == "legacy" else _name(value.tag)
    return value if isinstance(value, str) else str(value)


# ---------------------------------------------------------------------------------------------------------------
# The JSON shape of json.rs
# ---------------------------------------------------------------------------------------------------------------


def note_json() -> Dict[str, Any]:
    """``{"status": "ok"}``: a note was taken or a check passed."""
    return {"status": "ok"}


def window_json(result: Record) -> Dict[str, Any]:
    """A ``read-result`` as json.rs renders a window (``warnings`` only when not empty, ``budget.cap`` only in
    token mode)."""
    f = result.__dict__
    encoding = f["encoding"].__dict__
    budget = f["budget"].__dict__
    budget_json: Dict[str, Any] = {"unit": _name(budget["unit"]), "limit": budget["limit"], "used": budget["used"]}
    if budget["cap"] is not None:
        budget_json["cap"] = budget["cap"]
    value: Dict[str, Any] = {
        "status": "ok",
        "content_returned": True,
        "content": f["content"],
        "path": f["path"],
        "start_line": f["start-line"],
        "start_column": f["start-column"],
        "end_line": f["end-line"],
        "lines_returned": f["lines-returned"],
        "total_lines": f["total-lines"],
        "truncated": f["truncated"],
        "truncated_by": [_name(reason) for reason in f["truncated-by"]],
        "next_offset": f["next-offset"],
        "next_column": f["next-column"],
        "clamped_lines": [
            {
                "line": line.__dict__["line"],
                "shown_chars": line.__dict__["shown-chars"],
                "total_chars": line.__dict__["total-chars"],
                "next_column": line.__dict__["next-column"],
            }
            for line in f["clamped-lines"]
        ],
        "hint": f["hint"],
        "file_size": f["file-size"],
        "encoding": {
            "encoding": _encoding_name(encoding["encoding"]),
            "bom": encoding["bom"],
            "origin": _name(encoding["origin"]),
            "line_endings": _name(encoding["line-endings"]),
            "replaced_invalid": encoding["replaced-invalid"],
        },
        "budget": budget_json,
    }
    if f["warnings"]:
        value["warnings"] = list(f["warnings"])
    if f.get("document") is not None:
        value["document"] = document_json(f["document"])
    value["text"] = f["text"]
    return value


def document_json(document: Record) -> Dict[str, Any]:
    """A ``document-facts`` as json.rs renders it: ``format``, ``parts`` (``name`` only when present), and for PDFs
    ``pages`` and ``empty_pages`` as ``[first, last]`` lists."""
    f = document.__dict__
    parts = []
    for part in f["parts"]:
        p = part.__dict__
        value: Dict[str, Any] = {
            "kind": _name(p["kind"]),
            "number": p["number"],
            "first_line": p["first-line"],
            "characters": p["characters"],
        }
        if p["name"] is not None:
            value["name"] = p["name"]
        parts.append(value)
    answer: Dict[str, Any] = {"format": _name(f["format"]), "parts": parts}
    if f["pages"] is not None:
        answer["pages"] = f["pages"]
        answer["empty_pages"] = [[r.__dict__["first"], r.__dict__["last"]] for r in f["empty-pages"]]
    return answer


def stub_json(stub: Record) -> Dict[str, Any]:
    """An ``unchanged-stub`` as json.rs renders it: ``status`` ``unchanged``, no ``content`` key; the window's
    lines, the file's ``total_lines``, the window's cursor (``next_offset``/``next_column``, ``None`` when absent)
    and the message with the call that continues."""
    f = stub.__dict__
    return {
        "status": "unchanged",
        "content_returned": False,
        "dedup": True,
        "path": f["path"],
        "start_line": f["start-line"],
        "end_line": f["end-line"],
        "total_lines": f["total-lines"],
        "next_offset": f["next-offset"],
        "next_column": f["next-column"],
        "message": f["message"],
        "text": f["message"],
    }


def error_json(error: Record) -> Dict[str, Any]:
    """A ``read-error`` as json.rs renders it: ``text`` is the message; ``already_read``, ``path`` and
    ``total_lines`` only when present, ``suggestions`` always a list."""
    f = error.__dict__
    inner: Dict[str, Any] = {"kind": _name(f["kind"]), "message": f["message"]}
    if f["already-read"] is not None:
        inner["already_read"] = f["already-read"]
    if f["path"] is not None:
        inner["path"] = f["path"]
    inner["suggestions"] = list(f["suggestions"])
    if f["total-lines"] is not None:
        inner["total_lines"] = f["total-lines"]
    return {"status": "error", "content_returned": False, "text": f["message"], "error": inner}


def invalid_request_json(message: str) -> Dict[str, Any]:
    """An ``invalid_request`` error answer with ``message`` (for malformed call arguments caught by the host)."""
    return {
        "status": "error",
        "content_returned": False,
        "text": message,
        "error": {"kind": "invalid_request", "message": message, "suggestions": []},
    }


def retry_json(retry: Record) -> Dict[str, Any]:
    """A ``retry-window`` as json.rs renders it."""
    f = retry.__dict__
    return {
        "status": "ok",
        "offset": f["offset"],
        "limit": f["limit"],
        "refused_tokens": f["refused-tokens"],
        "cap_tokens": f["cap-tokens"],
        "hint": f["hint"],
    }


def read_json(value: Any) -> Dict[str, Any]:
    """The answer to ``session.read``: a window, a stub or an error."""
    tag, payload = split_result(value)
    if tag == "err":
        return error_json(payload)
    case, inner = split_outcome(payload)
    return window_json(inner) if case == "window" else stub_json(inner)


def once_json(value: Any) -> Dict[str, Any]:
    """The answer to ``read-once``: a window or an error."""
    tag, payload = split_result(value)
    return error_json(payload) if tag == "err" else window_json(payload)


def unit_json(value: Any) -> Dict[str, Any]:
    """The answer to a ``result<_, read-error>`` call: ``{"status": "ok"}`` or an error."""
    tag, payload = split_result(value)
    return error_json(payload) if tag == "err" else note_json()


def token_refusal_json(value: Any) -> Dict[str, Any]:
    """The answer to ``token-refusal``: a retry window or an error."""
    tag, payload = split_result(value)
    return error_json(payload) if tag == "err" else retry_json(payload)


def stats_json(stats: Record, peak_memory_bytes: Optional[int]) -> Dict[str, Any]:
    """Session counters, with ``peak_memory_bytes`` as the session protocol adds it."""
    f = stats.__dict__
    return {
        "status": "ok",
        "positioned_reads": f["positioned-reads"],
        "indexed_files": f["indexed-files"],
        "index_bytes": f["index-bytes"],
        "peak_memory_bytes": peak_memory_bytes,
    }


# ---------------------------------------------------------------------------------------------------------------
# Capture (host-test/src/capture.rs)
# ---------------------------------------------------------------------------------------------------------------

#: The fields of ``capture_begin``: the WIT ``capture-config`` record in snake_case.
CAPTURE_CONFIG_FIELDS = ("window_chars", "head_share", "spill_dir", "spill_cap_chars")

#: The error of a capture op with no capture open.
NO_CAPTURE = "no capture is open; send capture_begin first."


def capture_config_record(config: Optional[Mapping]) -> Record:
    """The WIT ``capture-config`` record for a dict with snake_case field names (``None``: every default). Raises
    ``InvalidValue`` naming the field: an unknown field or a wrong type. Ranges are the component's to check."""
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise InvalidValue(f"the capture config must be a JSON object, not {type_name(config)}")
    for key in config:
        if key not in CAPTURE_CONFIG_FIELDS:
            raise InvalidValue(f"unknown field `{key}` for op `capture_begin`; its fields are: {', '.join(CAPTURE_CONFIG_FIELDS)}")
    record = Record()
    fields = record.__dict__
    window = config.get("window_chars")
    fields["window-chars"] = None if window is None else u32("window_chars", window)
    share = config.get("head_share")
    if share is not None and (isinstance(share, bool) or not isinstance(share, (int, float))):
        raise InvalidValue(f"`head_share` must be a number from 0 to 0.9, not {type_name(share)}")
    fields["head-share"] = None if share is None else float(share)
    spill_dir = config.get("spill_dir")
    fields["spill-dir"] = None if spill_dir is None else text("spill_dir", spill_dir, "capture_begin")
    cap = config.get("spill_cap_chars")
    fields["spill-cap-chars"] = None if cap is None else number("spill_cap_chars", cap)
    return record


def capture_json(value: Any) -> Dict[str, Any]:
    """The answer to ``capture.finish``: the capture in the JSON shape of ``capture.rs``, or an error."""
    tag, payload = split_result(value)
    if tag == "err":
        return error_json(payload)
    f = payload.__dict__
    encoding = f["encoding"].__dict__
    answer: Dict[str, Any] = {
        "status": "ok",
        "content": f["content"],
        "total_chars": f["total-chars"],
        "total_lines": f["total-lines"],
        "total_bytes": f["total-bytes"],
        "omitted_chars": f["omitted-chars"],
        "omitted_lines": f["omitted-lines"],
    }
    if f["omitted-first-line"] is not None and f["omitted-last-line"] is not None:
        answer["omitted_first_line"] = f["omitted-first-line"]
        answer["omitted_last_line"] = f["omitted-last-line"]
    if f["spill-path"] is not None:
        answer["spill_path"] = f["spill-path"]
    answer["spill_capped"] = f["spill-capped"]
    if f["spill-error"] is not None:
        answer["spill_error"] = f["spill-error"]
    answer["exit_status"] = f["exit-status"]
    answer["hint"] = f["hint"]
    answer["collapsed_redraws"] = f["collapsed-redraws"]
    answer["encoding"] = {
        "encoding": _encoding_name(encoding["encoding"]),
        "bom": encoding["bom"],
        "origin": _name(encoding["origin"]),
        "line_endings": _name(encoding["line-endings"]),
        "replaced_invalid": encoding["replaced-invalid"],
    }
    if f["warnings"]:
        answer["warnings"] = list(f["warnings"])
    answer["text"] = f["text"]
    return answer
