#!/usr/bin/env bash
# The Python packages, tested as a user gets them: builds the wheels of `read-window` (with the component) and
# `read-window-mcp`, installs them from the local files into a fresh virtual environment (their dependencies from
# the package index), leaves the source tree, and runs the installed package: `import read_window`,
# `python -m read_window read`, the compiled-component cache, the scenario files, and `read-window-mcp` through a
# real MCP client (tests/mcp-clients/client.py, the official Python SDK).
#
# Usage: READ_WINDOW_WASM=path/to/read_window.wasm hosts/python/tests/test_wheel.sh
#   PYTHON names the interpreter the environment is made with (default: python3).
# Prints one `PASS check` or `FAIL check: why` line per check, then `N passed, M failed` and the time taken;
# exits 1 when a check failed.
set -u

started=$SECONDS
repo=$(cd "$(dirname "$0")/../../.." && pwd)
python=${PYTHON:-python3}
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
finish() {
    echo "$passed passed, $failed failed"
    echo "test_wheel.sh: $((SECONDS - started)) s"
    [ "$failed" -eq 0 ]
    exit $?
}

if [ -z "${READ_WINDOW_WASM:-}" ] || [ ! -f "$READ_WINDOW_WASM" ]; then
    fail "the component" "set READ_WINDOW_WASM to the built read_window.wasm (it is '${READ_WINDOW_WASM:-}')"
    finish
fi
wasm=$(cd "$(dirname "$READ_WINDOW_WASM")" && pwd)/$(basename "$READ_WINDOW_WASM")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
venv=$work/venv
dist=$work/dist
log=$work/log

# --- build --------------------------------------------------------------------------------------------------
if ! "$python" -m venv "$venv" >"$log" 2>&1; then
    fail "a fresh virtual environment" "$python -m venv failed: $(tail -3 "$log")"
    finish
fi
if READ_WINDOW_WASM=$wasm "$venv/bin/pip" wheel --no-deps -q -w "$dist" "$repo/hosts/python" \
    "$repo/hosts/python/mcp-package" >"$log" 2>&1; then
    pass "pip wheel hosts/python hosts/python/mcp-package"
else
    fail "pip wheel hosts/python hosts/python/mcp-package" "$(tail -5 "$log")"
    finish
fi

# The wheels' names, tags, versions, dependencies and the component inside, against the repository's versions.
if "$venv/bin/python" - "$dist" "$wasm" "$repo" <<'EOF'; then
import hashlib, json, re, sys, zipfile
from pathlib import Path

dist, wasm, repo = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
problems = []
names = sorted(path.name for path in dist.glob("*.whl"))
expected = ["read_window-0.3.0-py3-none-any.whl", "read_window_mcp-0.3.0-py3-none-any.whl"]
if names != expected:
    sys.exit(f"the wheels are {names}, not {expected}")
with zipfile.ZipFile(dist / expected[0]) as wheel:
    meta = wheel.read("read_window-0.3.0.dist-info/METADATA").decode()
    tags = wheel.read("read_window-0.3.0.dist-info/WHEEL").decode()
    packaged = hashlib.sha256(wheel.read("read_window/read_window.wasm")).hexdigest()
    scripts = wheel.read("read_window-0.3.0.dist-info/entry_points.txt").decode()
built = hashlib.sha256(wasm.read_bytes()).hexdigest()
if packaged != built:
    problems.append(f"read_window/read_window.wasm has SHA-256 {packaged}, $READ_WINDOW_WASM {built}")
print(f"  read_window/read_window.wasm: SHA-256 {packaged}, {wasm.stat().st_size} bytes")
for line in ("Tag: py3-none-any", "Root-Is-Purelib: true"):
    if line not in tags.splitlines():
        problems.append(f"WHEEL lacks {line!r}")
for line in ("Version: 0.3.0", "Requires-Dist: wasmtime<51,>=50.0.1", "Requires-Python: >=3.9"):
    if line not in meta.splitlines():
        problems.append(f"METADATA lacks {line!r}")
if not re.search(r"^Requires-Dist: mcp<2\.4,>=2\.3\.0; python_version >= ['\"]3\.10['\"]$", meta, re.M):
    problems.append("METADATA lacks the mcp dependency")
if "read-window-mcp = read_window.mcp_server:main" not in scripts:
    problems.append(f"entry_points.txt is {scripts!r}")
with zipfile.ZipFile(dist / expected[1]) as wheel:
    shim = wheel.read("read_window_mcp-0.3.0.dist-info/METADATA").decode()
if "Requires-Dist: read-window==0.3.0" not in shim.splitlines():
    problems.append("read-window-mcp does not pin read-window==0.3.0")
versions = {
    "the wheel": "0.3.0",
    "the crates (Cargo.toml)": re.search(r'^version = "([^"]+)"', (repo / "Cargo.toml").read_text(), re.M).group(1),
    "the WIT": re.search(r"^package read-window:reader@(\S+);", (repo / "wit/read-window.wit").read_text(),
                         re.M).group(1),
    "the npm package": json.loads((repo / "hosts/js/package.json").read_text())["version"],
}
if len(set(versions.values())) != 1:
    problems.append(f"the versions disagree: {versions}")
if problems:
    sys.exit("; ".join(problems))
EOF
    pass "the wheels: py3-none-any, version 0.3.0 as the crates, the WIT and the npm package; the component inside"
else
    fail "the wheels" "see above"
fi

# uv, for `uvx read-window-mcp` at the end.
if "$venv/bin/pip" install -q "$dist"/read_window-0.3.0-py3-none-any.whl \
    "$dist"/read_window_mcp-0.3.0-py3-none-any.whl uv >"$log" 2>&1; then
    pass "pip install the wheel files (dependencies from the index)"
else
    status=$?
    # pip says nothing when it cannot write: name the exit status and the free space (a full disk failed CI once).
    fail "pip install the wheel files" "pip exited with $status; $(tail -5 "$log") (free in $work: $(df -h --output=avail "$work" | tail -1 | tr -d ' '))"
    finish
fi

# --- the installed package, away from the source tree ---------------------------------------------------------
unset PYTHONPATH READ_WINDOW_WASM READ_WINDOW_CACHE_DIR READ_WINDOW_NO_CACHE XDG_CACHE_HOME
# A home of its own, so the caches (the compiled component's, uv's) start empty and are the same for every server
# client.py starts, whatever environment it gives them.
export HOME=$work/home
mkdir -p "$HOME"
away=$work/away
mkdir -p "$away"
cd "$away" || finish
py=$venv/bin/python
printf 'one\ntwo\nthree\nfour\nfive\n' >five.txt

where=$("$py" -c 'import read_window; print(read_window.__file__)' 2>&1)
case $where in
    "$venv"/lib/*/site-packages/read_window/__init__.py) pass "import read_window (from $where)" ;;
    *) fail "import read_window" "it came from $where" ;;
esac

text=$("$py" -m read_window read five.txt --limit 2 2>"$log")
status=$?
expected="1|one
2|two

Showing lines 1-2 of 5 in $away/five.txt (the limit of 2 lines). Use offset=3 to continue."
if [ "$status" -eq 0 ] && [ "$text" = "$expected" ]; then
    pass "python -m read_window read five.txt --limit 2: the exact window"
else
    fail "python -m read_window read five.txt --limit 2" "exit $status, text $(printf %q "$text") $(cat "$log")"
fi
text=$("$py" -m read_window read missing.txt 2>"$log")
status=$?
if [ "$status" -eq 1 ] && [[ $text == *"does not exist"* ]]; then
    pass "python -m read_window read missing.txt: exit 1 and the error's text"
else
    fail "python -m read_window read missing.txt" "exit $status, text $(printf %q "$text")"
fi

# The compiled-component cache, in a directory of its own: the first start compiles and writes the entry, the
# second loads it.
probe='import time; t = time.perf_counter(); import read_window; r = read_window.ReadWindow()
print(r.cache_status.kind, r.cache_status.path, round((time.perf_counter() - t) * 1000))'
fresh=$work/fresh-cache
read -r cold_kind cold_path cold_ms < <(XDG_CACHE_HOME=$fresh "$py" -c "$probe" 2>&1)
read -r warm_kind warm_path warm_ms < <(XDG_CACHE_HOME=$fresh "$py" -c "$probe" 2>&1)
mode=$(stat -c %a "$warm_path" 2>/dev/null)
echo "  start (import read_window; ReadWindow()): cold ${cold_ms} ms ($cold_kind), warm ${warm_ms} ms ($warm_kind)"
if [ "$cold_kind" = written ] && [ "$warm_kind" = hit ] && [ "$warm_path" = "$cold_path" ] && [ "$mode" = 600 ] &&
    [[ $warm_path == "$fresh"/read-window/*.cwasm ]]; then
    pass "the cache: written at the first start, loaded at the second, mode 0600, in \$XDG_CACHE_HOME/read-window"
else
    fail "the cache" "first $cold_kind $cold_path, second $warm_kind $warm_path, mode $mode"
fi

"$py" -m read_window scenarios "$repo/tests/scenarios" >"$log" 2>&1
status=$?
summary=$(tail -1 "$log")
if [ "$status" -eq 0 ] && [[ $summary =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
    pass "python -m read_window scenarios tests/scenarios: $summary"
else
    fail "python -m read_window scenarios tests/scenarios" "exit $status: $(grep -m 5 '^FAIL' "$log") $summary"
fi

"$py" "$repo/tests/mcp-clients/client.py" --command "$venv/bin/read-window-mcp" >"$log" 2>&1
status=$?
summary=$(tail -1 "$log")
sed 's/^/  client.py: /' "$log"
if [ "$status" -eq 0 ] && [[ $summary =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
    pass "client.py against the installed read-window-mcp: $summary"
else
    fail "client.py against the installed read-window-mcp" "exit $status: $summary"
fi

# The issue's command: `uvx read-window-mcp`, the package found by the command's name (here from the wheel files,
# its dependencies from the index). The first run fetches them into uv's cache (in $HOME/.cache); the servers
# client.py starts then run from it offline, since it hands them only the environment a client would (no proxy or
# certificate settings).
uvx="$venv/bin/uvx --find-links $dist read-window-mcp"
if $uvx --version >"$log" 2>&1; then
    "$py" "$repo/tests/mcp-clients/client.py" --command "$venv/bin/uvx --offline --find-links $dist read-window-mcp" \
        >"$log" 2>&1
    status=$?
    summary=$(tail -1 "$log")
    if [ "$status" -eq 0 ] && [[ $summary =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
        pass "client.py against uvx read-window-mcp: $summary"
    else
        fail "client.py against uvx read-window-mcp" "exit $status: $(grep -m 3 '^FAIL' "$log") $summary"
    fi
else
    fail "uvx read-window-mcp --version" "$(tail -3 "$log")"
fi

finish
