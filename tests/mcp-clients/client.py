"""Drives `read-window mcp` with the official MCP Python SDK (mcp, pinned in requirements.txt).

Usage: python client.py path/to/read-window       (starts `read-window [ARGS] mcp`)
       python client.py --command "read-window-mcp"  (starts that command line with the check's ARGS, no `mcp`)

It writes its own fixture files into a temporary directory, starts the server over stdio through the SDK's
`stdio_client` and checks: the two tools and their schemas; the SDK's output-schema validation being live (every
result, error results too, is validated against the tool's outputSchema); a window (one text block, the structured
fields without the body); the unchanged stub and `fresh`; a clamped line and its continuation; a missing file;
`check_write`; an image (its hint and an image block, then a region); the roots a client offers when the server has no --root (started in $HOME), and the error without
them; the serialized size of a large reply; the token budget under Claude Code's cap. One `PASS name` or
`FAIL name: why` line per check, then `N passed, M failed`; exit status 1 when any check failed, after at most
60 seconds.
"""

import json
import os
import shlex
import signal
import sys
import tempfile
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import base64
import struct
import zlib

import mcp.types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

COUNTS = {"passed": 0, "failed": 0}
#: How to start the server: the command line before a check's args, and what comes after them.
SERVER = {"command": [], "after": ["mcp"]}
WINDOW = "1|one\n2|two\n\n"
FORBIDDEN = ("content", "text", "hint", "message", "warnings")


def report(name: str, problems: list[str]) -> None:
    COUNTS["failed" if problems else "passed"] += 1
    print(f"FAIL {name}: {'; '.join(problems)}" if problems else f"PASS {name}", flush=True)


def no_error(result) -> list[str]:
    return ["isError is true"] if result.is_error else []


def an_error(result) -> list[str]:
    return [] if result.is_error else ["isError is not true"]


def fields(sc, expected: dict) -> list[str]:
    """The fields of structuredContent `sc` that differ from `expected`."""
    if not isinstance(sc, dict):
        return [f"structuredContent is {sc!r}"]
    return [f"{k} is {sc.get(k, '<absent>')!r}, not {v!r}" for k, v in expected.items() if sc.get(k, "<absent>") != v]


def mixed_text(total: int = 200_000) -> str:
    """`total` characters: ASCII words, CJK and emoji lines around one minified JSON line of 150,000 characters."""
    records, size = [], 1
    while size < 150_000:
        record = {"id": len(records), "name": f"item-{len(records)}", "tags": ["a", "b"], "ok": True}
        records.append(json.dumps(record, separators=(",", ":")))
        size += len(records[-1]) + 1
    body = "[" + ",".join(records) + "]"
    block = "the quick brown fox reads a bounded window of lines\n窗口读取文件的时候每一行都有行号\n" + "📄🔍🚀🧪✅" * 6 + "\n"
    room = total - len(body) - 1
    blocks = [block] * (room // len(block))
    half = len(blocks) // 2
    pad = "." * (room - len(block) * len(blocks) - 1) + "\n"
    return "".join(blocks[:half]) + body + "\n" + "".join(blocks[half:]) + pad


def make_fixtures(root: Path) -> None:
    (root / "five.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    (root / "long.txt").write_text("x" * 5000 + "\nend\n")
    (root / "big.txt").write_text("".join(f"{i:06d} " + "a" * 73 + "\n" for i in range(3000)))
    (root / "mixed.txt").write_text(mixed_text(), encoding="utf-8")
    (root / "screen.png").write_bytes(banded_png(3000, 2000))
    tree = root / "tree"
    for i in range(250):
        (tree / f"d{i % 5}").mkdir(parents=True, exist_ok=True)
        (tree / f"d{i % 5}" / f"f{i:03d}.txt").write_text(f"line one\nneedle {i}\n")


def banded_png(width: int, height: int) -> bytes:
    """A `width` x `height` grey PNG of bands 100 rows high, written with zlib."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes([40 if y // 100 % 2 else 220]) * width for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6))
            + chunk(b"IEND", b""))


@asynccontextmanager
async def connect(args: list[str], cwd: Path, log: Path, env=None, roots=None):
    """A ClientSession to the server started with `args` (`read-window ARGS mcp`, or `COMMAND ARGS`) in `cwd`, initialized and with its tools listed (which arms the SDK's
    output-schema validation). With `roots` (file:// URIs) the client offers the roots capability."""
    callback = None
    if roots is not None:

        async def callback(context):
            return types.ListRootsResult(roots=[types.Root(uri=uri) for uri in roots])

    command, *before = SERVER["command"]
    params = StdioServerParameters(command=command, args=[*before, *args, *SERVER["after"]], cwd=cwd, env=env)
    with log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=20, list_roots_callback=callback) as session:
                await session.initialize()
                await session.list_tools()
                yield session


async def call(session: ClientSession, tool: str, arguments: dict):
    result = await session.call_tool(tool, arguments)
    # call_tool validates structuredContent only when isError is false: validate error results too.
    await session.validate_tool_result(tool, result)
    return result


def only_text(result) -> str:
    """The text of the result's one text block (a ValueError names what came instead)."""
    kinds = [block.type for block in result.content]
    if kinds != ["text"]:
        raise ValueError(f"content blocks are {kinds}, not one text block")
    return result.content[0].text


async def check_tools(session: ClientSession) -> None:
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    names = ["check_write", "list_directory", "read_file", "read_files", "search"]
    problems = [] if sorted(tools) == names else [f"tools are {sorted(tools)}"]
    for name, tool in tools.items():
        problems += [f"{name} has no {key}" for key in ("input_schema", "output_schema") if not getattr(tool, key)]
    props = (tools["read_file"].input_schema or {}).get("properties", {}) if "read_file" in tools else {}
    missing = {"path", "offset", "limit", "column", "tail", "extract", "fresh", "region"} - set(props)
    problems += [f"read_file's inputSchema lacks {sorted(missing)}"] if missing else []
    if props.get("fresh", {}).get("type") != "boolean":
        problems.append(f"fresh is {props.get('fresh')!r}, not a boolean")
    # The characters a reply carries at most under the default budget, declared for Claude Code.
    meta = (tools["read_file"].meta or {}) if "read_file" in tools else {}
    if meta.get("anthropic/maxResultSizeChars") != 304_384:
        problems.append(f"read_file's _meta is {meta!r}")
    report("tools/list: read_file, list_directory, read_files, search and check_write with their schemas", problems)


async def check_validation_is_live(session: ClientSession) -> None:
    bogus = types.CallToolResult(content=[], structured_content={"status": 0, "content_returned": "no"})
    try:
        await session.validate_tool_result("read_file", bogus)
        problems = ["the SDK accepted structuredContent that breaks read_file's outputSchema"]
    except RuntimeError as error:
        problems = [] if "Invalid structured content" in str(error) else [f"unexpected error: {error}"]
    report("python SDK validates structuredContent against the outputSchema", problems)


async def check_window_stub_fresh(session: ClientSession, root: Path) -> None:
    path = root / "five.txt"
    hint = f"Showing lines 1-2 of 5 in {path} (the limit of 2 lines). Use offset=3 to continue."
    result = await call(session, "read_file", {"path": "five.txt", "limit": 2})
    text, sc = only_text(result), result.structured_content
    problems = no_error(result) + ([] if text == WINDOW + hint else [f"text is {text!r}"])
    problems += fields(sc, {"status": "ok", "content_returned": True, "start_line": 1, "end_line": 2,
                            "total_lines": 5, "next_offset": 3, "next_column": None, "path": str(path)})
    problems += [f"structuredContent has {k!r}" for k in FORBIDDEN if k in (sc or {})]
    report("read_file: one text block (window, blank line, hint); structuredContent without the body", problems)

    result = await call(session, "read_file", {"path": "five.txt", "limit": 2})
    text = only_text(result)
    start = (f"[read-window: unchanged] Lines 1-2 of 5 in {path} have not changed since you read them earlier"
             " in this session")
    problems = [] if text.startswith(start) else [f"text is {text!r}"]
    problems += [f"text lacks {s!r}" for s in ("fresh=true", "Use offset=3 to continue.") if s not in text]
    problems += fields(result.structured_content, {"status": "unchanged", "next_offset": 3})
    report("read_file again: the unchanged stub", problems)

    result = await call(session, "read_file", {"path": "five.txt", "limit": 2, "fresh": True})
    text = only_text(result)
    problems = [] if text.startswith(WINDOW + hint) else [f"text is {text!r}"]
    report("read_file fresh=true: the window again", problems + fields(result.structured_content, {"status": "ok"}))


def first_line(result) -> str:
    return only_text(result).split("\n")[0]


async def check_clamped(session: ClientSession) -> None:
    result = await call(session, "read_file", {"path": "long.txt"})
    first = first_line(result)
    ok = first.startswith("1|" + "x" * 2000) and first[2002:2003] != "x"
    problems = [] if ok else [f"line 1 starts {first[:12]!r} and has {first.count('x')} x"]
    marker = " [read-window: line 1 clamped, 3000 more characters; read them with offset=1 column=2000 limit=1]"
    if first[2002:] != marker:
        problems.append(f"the marker is {first[2002:]!r}, not {marker!r}")
    clamped = (result.structured_content or {}).get("clamped_lines")
    if clamped != [{"line": 1, "shown_chars": 2000, "total_chars": 5000, "next_column": 2000}]:
        problems.append(f"clamped_lines is {clamped!r}")
    report("read_file: a clamped line and its marker naming offset=1 column=2000 limit=1", problems)

    first = first_line(await call(session, "read_file", {"path": "long.txt", "offset": 1, "column": 2000, "limit": 1}))
    ok = first.startswith("1|x") and first.count("x") == 3000
    problems = [] if ok else [f"line 1 starts {first[:12]!r} and has {first.count('x')} x"]
    report("read_file offset=1 column=2000 limit=1: the rest of the line, 3000 x", problems)


async def check_errors(session: ClientSession) -> None:
    result = await call(session, "read_file", {"path": "missing.txt"})
    text, sc = only_text(result), result.structured_content or {}
    problems = an_error(result) + ([] if "does not exist" in text else [f"text is {text!r}"])
    problems += fields(sc, {"status": "error"}) + fields(sc.get("error"), {"kind": "not_found"})
    report("read_file missing.txt: an error result, not_found", problems)

    result = await call(session, "check_write", {"path": "five.txt", "text": "1|one\n2|two\n"})
    problems = an_error(result) + fields((result.structured_content or {}).get("error"), {"kind": "echoed_output"})
    report("check_write of pasted read_file output: echoed_output", problems)

    result = await call(session, "check_write", {"path": "five.txt", "text": "plain text\n"})
    text = only_text(result)
    report("check_write of plain text: ok", no_error(result) + ([] if text == "ok" else [f"text is {text!r}"]))


async def check_image(session: ClientSession, root: Path) -> None:
    result = await call(session, "read_file", {"path": "screen.png"})
    kinds = [block.type for block in result.content]
    problems = no_error(result) + ([] if kinds == ["text", "image"] else [f"content blocks are {kinds}"])
    if kinds == ["text", "image"]:
        text, image = result.content[0].text, result.content[1]
        sentence = ("shown at 0.44 scale (1,313 x 875); 3 x 3 regions of 1,000 x 667 show it at full resolution, "
                    "the first is region=0,0,1000,667")
        problems += [] if sentence in text else [f"text is {text!r}"]
        problems += [] if image.mime_type == "image/png" else [f"mimeType is {image.mime_type!r}"]
        data = base64.b64decode(image.data)
        size = struct.unpack(">II", data[16:24]) if data[:8] == b"\x89PNG\r\n\x1a\n" else None
        problems += [] if size == (1313, 875) else [f"the picture is not a 1313 x 875 PNG: {data[:24]!r}"]
    sc = result.structured_content or {}
    problems += [] if "data" not in sc else ["structuredContent repeats the data"]
    problems += fields(sc.get("image"), {"width": 1313, "height": 875, "original_width": 3000, "frames": 1})
    report("read_file of a 3000 x 2000 PNG: its hint, then an image block of 1313 x 875", problems)

    result = await call(session, "read_file", {"path": "screen.png",
                                               "region": {"x": 0, "y": 0, "width": 1000, "height": 667}})
    sc = result.structured_content or {}
    problems = no_error(result) + fields(sc.get("image"), {"width": 1000, "height": 667, "scale": 1.0})
    report("read_file with region=0,0,1000,667: that part at full resolution", problems)


async def check_size(session: ClientSession) -> None:
    result = await call(session, "read_file", {"path": "big.txt"})
    text = only_text(result).encode("utf-8")
    dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    reply = json.dumps(dumped, ensure_ascii=False).encode("utf-8")
    allowed = 1.1 * len(text) + 2048
    print(f"  size: reply {len(reply)} bytes, text {len(text)} bytes, allowed {allowed:.0f}", flush=True)
    problems = [] if len(reply) <= allowed else [f"the reply is {len(reply)} bytes, over {allowed:.0f}"]
    report("read_file of 3000 lines: the reply is at most 1.1 x its text + 2048 bytes", problems)


async def check_budget(session: ClientSession) -> None:
    result = await call(session, "read_file", {"path": "mixed.txt"})
    text, budget = only_text(result), (result.structured_content or {}).get("budget") or {}
    print(f"  budget: {budget}; text {len(text)} characters, {len(text.encode())} bytes", flush=True)
    problems = [] if budget.get("unit") == "tokens" else [f"budget.unit is {budget.get('unit')!r}"]
    cap, used, limit = budget.get("cap"), budget.get("used"), budget.get("limit")
    problems += [] if isinstance(cap, int) and cap <= 25000 else [f"budget.cap is {cap!r}"]
    within = isinstance(used, int) and isinstance(limit, int) and used <= limit
    problems += [] if within else [f"budget.used is {used!r}, budget.limit {limit!r}"]
    report("read_file of 200,000 mixed characters: a token budget under Claude Code's 25,000 cap", problems)


def home_env(home: Path) -> dict[str, str]:
    """HOME set to `home`, the compiled-component cache kept where it was (compiling takes seconds)."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return {"HOME": str(home), "XDG_CACHE_HOME": cache}


def homes(work: Path) -> tuple[Path, Path]:
    """A home directory (with h.txt) and a project directory (with p.txt) outside it."""
    home, proj = work / "home", work / "proj"
    for folder, name in ((home, "h.txt"), (proj, "p.txt")):
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(f"{name}\n")
    return home, proj


async def check_roots(work: Path, log: Path) -> None:
    home, proj = homes(work)
    async with connect([], home, log, env=home_env(home), roots=[proj.as_uri()]) as session:
        result = await call(session, "read_file", {"path": str(proj / "p.txt")})
        problems = no_error(result) + fields(result.structured_content, {"status": "ok"})
    report("roots: no --root, started in $HOME, reads a file under the client's root", problems)


async def check_no_roots(work: Path, log: Path) -> None:
    home, _ = homes(work)
    async with connect([], home, log, env=home_env(home)) as session:
        result = await call(session, "read_file", {"path": str(home / "h.txt")})
        text = only_text(result)
    problems = an_error(result) + ([] if "--root" in text else [f"text is {text!r}"])
    report("no roots, no --root, started in $HOME: the first read_file is an error naming --root", problems)


async def check_census(session: ClientSession) -> None:
    """list_directory, search and read_files: each page carries the census, and its cursor pages on."""
    result = await call(session, "list_directory", {"path": "tree", "depth": 2, "limit": 100})
    sc = result.structured_content or {}
    problems = no_error(result) + fields(sc, {"total_entries": 255, "entries_returned": 100, "next_offset": 101})
    text = only_text(result)
    problems += [] if text.startswith("1|d0/\n2|d0/f000.txt  18 bytes\n") else [f"the listing starts {text[:60]!r}"]
    last = await call(session, "list_directory", {"path": "tree", "depth": 2, "offset": 201, "limit": 100})
    problems += fields(last.structured_content, {"entries_returned": 55, "next_offset": None})
    report("list_directory depth=2: 255 entries in all on every page, offset=201 ends the listing", problems)

    first = await call(session, "search", {"pattern": "needle", "path": "tree", "limit": 100})
    sc = first.structured_content or {}
    problems = no_error(first) + fields(sc, {"total_matches": 250, "files_with_matches": 250, "files_searched": 250,
                                             "matches_returned": 100, "next_offset": 101, "complete": True})
    seen = set()
    offset = 1
    while offset is not None:
        page = await call(session, "search", {"pattern": "needle", "path": "tree", "offset": offset, "limit": 100})
        for line in only_text(page).splitlines():
            if ":" in line.split("|", 1)[0]:
                seen.add(line.split("|", 1)[0])
        offset = (page.structured_content or {}).get("next_offset")
    problems += [] if len(seen) == 250 else [f"the cursor reached {len(seen)} matches, not 250"]
    none = await call(session, "search", {"pattern": "(a+)+$", "regex": True, "path": "tree"})
    problems += [] if only_text(none).startswith("No matches") else [f"a pathological regex: {only_text(none)[:80]!r}"]
    report("search: 250 matches on the first page's census, every match once by its cursor, a linear regex", problems)

    many = await call(session, "read_files", {"paths": ["five.txt", "tree/d0/*.txt"]})
    sc = many.structured_content or {}
    # The lists end at their allowance; `files_total` and `left_out_total` count them then.
    files = sc.get("files_total", len(sc.get("files", [])))
    left_out = sc.get("left_out_total", len(sc.get("left_out", [])))
    problems = no_error(many)
    problems += [] if files + left_out == 51 else [f"{files} files and {left_out} left out"]
    problems += [] if only_text(many).count("==> ") == files else ["not one ==> path <== line a file read"]
    problems += [] if only_text(many).startswith("==> ") else ["the text does not start with a ==> path <== line"]
    report("read_files: a path and a pattern, 51 files read or named in left_out", problems)


async def guarded(name: str, log: Path, check, *args) -> None:
    """Runs one check; an exception (or 20 s) becomes a FAIL line with the last server's last stderr lines."""
    try:
        with anyio.fail_after(20):
            await check(*args)
    except Exception as error:
        while isinstance(error, ExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        tail = " | ".join(log.read_text().strip().splitlines()[-2:]) if log.exists() else ""
        why = f"{type(error).__name__}: {error or 'no answer within 20 seconds'}"
        report(name, [why + (f" (server stderr: {tail})" if tail else "")])


async def with_root(root: Path, log: Path) -> None:
    """The checks on one session of `read-window --root ROOT mcp`."""
    async with connect(["--root", str(root)], root, log) as session:
        await guarded("tools/list", log, check_tools, session)
        await guarded("output-schema validation", log, check_validation_is_live, session)
        await guarded("window, stub, fresh", log, check_window_stub_fresh, session, root)
        await guarded("clamped line", log, check_clamped, session)
        await guarded("errors and check_write", log, check_errors, session)
        await guarded("image", log, check_image, session, root)
        await guarded("census", log, check_census, session)
        await guarded("size", log, check_size, session)
        await guarded("budget", log, check_budget, session)


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="read-window-mcp-py-") as tmp:
        work = Path(os.path.realpath(tmp))
        root, log = work / "root", work / "server-stderr.log"
        root.mkdir()
        make_fixtures(root)
        await guarded("a session with --root", log, with_root, root, log)
        await guarded("roots", log, check_roots, work, log)
        await guarded("no roots", log, check_no_roots, work, log)


def timed_out(*_) -> None:
    print("FAIL client.py: no end after 60 seconds", flush=True)
    os._exit(1)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--command" and shlex.split(sys.argv[2]):
        SERVER.update(command=shlex.split(sys.argv[2]), after=[])
    elif len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        SERVER["command"] = [os.path.abspath(sys.argv[1])]
    else:
        sys.exit('usage: client.py path/to/read-window | client.py --command "read-window-mcp"')
    signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(60)
    anyio.run(main)
    print(f"{COUNTS['passed']} passed, {COUNTS['failed']} failed", flush=True)
    sys.exit(1 if COUNTS["failed"] else 0)
