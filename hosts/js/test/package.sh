#!/usr/bin/env bash
# The npm package as a user gets it: `npm pack` in hosts/js, the tarball's contents checked, then installed from
# the file into a fresh Node project in a temporary directory, and everything below run from that project, never
# from the source tree: `import { ReadWindow } from "read-window"`, its types under `tsc --strict`, the scenario
# files (tests/scenarios) through the installed scenarios.mjs, and tests/mcp-clients/client.mjs (the TypeScript
# SDK's client, which the package brings as a dependency) against the installed `read-window-mcp`.
#
#   READ_WINDOW_WASM=path/to/read_window.wasm hosts/js/test/package.sh
#
# Needs `npm ci` and `npm run transpile` in hosts/js first (the tarball ships generated/; its prepack says so), and
# the npm registry for the package's dependencies. One `PASS name` or `FAIL name: why` line per check, then
# `N passed, M failed` and the time taken; exit 1 when any check failed.
set -uo pipefail

js=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$js/../.." && pwd)
started=$(date +%s)
passed=0
failed=0

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
# check NAME COMMAND...: PASS when the command exits 0, else FAIL with the last lines it printed.
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(printf '%s' "$out" | tail -n 8 | tr '\n' ' ')"; fi
}
finish() {
  echo "$passed passed, $failed failed"
  echo "package.sh: $(($(date +%s) - started)) s"
  [ "$failed" -eq 0 ]
  exit
}

if [ -z "${READ_WINDOW_WASM:-}" ] || [ ! -f "$READ_WINDOW_WASM" ]; then
  fail "READ_WINDOW_WASM" "set it to the component (.wasm) generated/ was transpiled from"
  finish
fi
version=$(node -p "require('$js/package.json').version")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- the tarball -------------------------------------------------------------------------------------------------
if ! (cd "$js" && npm pack --silent --pack-destination "$work" >"$work/pack.out" 2>&1); then
  fail "npm pack" "$(tail -n 5 "$work/pack.out" | tr '\n' ' ')"
  finish
fi
tarball="$work/read-window-$version.tgz"
check "npm pack writes read-window-$version.tgz" test -f "$tarball"
[ -f "$tarball" ] || finish
mkdir "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked"
package="$work/unpacked/package"

listed=$(tar -tzf "$tarball" | sed 's|^package/||' | sort)
allowed='^(index\.js|index\.d\.ts|beneath\.js|errors\.js|grants\.js|json\.js|links\.js|mcp\.mjs|scenarios\.mjs|README\.md|package\.json|generated/.+)$'
required='index.js index.d.ts mcp.mjs scenarios.mjs README.md package.json generated/read_window.js generated/read_window.core.wasm generated/source.json generated/package.json'
missing=$(for f in $required; do grep -qxF "$f" <<<"$listed" || echo "$f"; done)
extra=$(grep -vE "$allowed" <<<"$listed")
if [ -z "$missing" ] && [ -z "$extra" ]; then
  pass "the tarball holds the host modules, index.d.ts, the bin, README and generated/ ($(wc -l <<<"$listed") files), no tests"
else
  fail "the tarball's files" "missing: ${missing:-none}; not to ship: ${extra:-none}"
fi

wasm_sha=$(sha256sum "$READ_WINDOW_WASM" | cut -d' ' -f1)
check "generated/source.json records the SHA-256 of READ_WINDOW_WASM, its size and jco's version, no path" \
  node -e '
    const source = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const keys = Object.keys(source).sort().join(",");
    if (keys !== "bytes,jco,sha256") throw new Error(`keys ${keys}`);
    if (source.sha256 !== process.argv[2]) throw new Error(`sha256 ${source.sha256}, the wasm has ${process.argv[2]}`);
    if (source.bytes !== require("fs").statSync(process.argv[3]).size) throw new Error(`bytes ${source.bytes}`);
  ' "$package/generated/source.json" "$wasm_sha" "$READ_WINDOW_WASM"

# A machine path: this checkout, cargo's home, a temporary or home directory (the Rust build's panic locations
# among them).
tmp=${TMPDIR:-/tmp}
machine=(-e "$repo/" -e "${CARGO_HOME:-$HOME/.cargo}/" -e "${tmp%/}/" -e "$HOME/")
paths=$(grep -rlF "${machine[@]}" --exclude='*.wasm' "$package" | sed "s|^$package/||")
if [ -z "$paths" ]; then pass "no text file of the package names a machine path"; else fail "machine paths" "in $paths"; fi
paths=$(grep -rlF "${machine[@]}" --include='*.wasm' "$package" | sed "s|^$package/||")
if [ -z "$paths" ]; then
  pass "the transpiled component names no machine path"
else
  fail "the transpiled component names machine paths" "$(for f in $paths; do
    printf '%s: %s paths, as %s; ' "$f" "$(grep -aoF "${machine[@]}" "$package/$f" | wc -l)" \
      "$(grep -aoF "${machine[@]}" "$package/$f" | head -n 1)"; done)"
fi

wit=$(sed -n 's/^package read-window:reader@\([0-9.]*\);.*/\1/p' "$repo"/wit/*.wit | head -n 1)
crate=$(sed -n 's/^version = "\(.*\)"/\1/p' "$repo/Cargo.toml" | head -n 1)
if [ "$version" = "0.3.0" ] && [ "$version" = "$wit" ] && [ "$version" = "$crate" ]; then
  pass "version $version: the package's, the WIT's and the crates'"
else
  fail "versions" "package $version, WIT ${wit:-none}, crates ${crate:-none}"
fi

# --- a fresh project, the package installed from the tarball -------------------------------------------------------
project="$work/project"
mkdir "$project"
cp "$repo/tests/mcp-clients/client.mjs" "$project/client.mjs"
if ! (cd "$project" && npm init -y >/dev/null && npm pkg set type=module >/dev/null \
    && npm install --silent --no-audit --no-fund "$tarball" >"$work/install.out" 2>&1); then
  fail "npm install the tarball into a fresh project" "$(tail -n 5 "$work/install.out" | tr '\n' ' ')"
  finish
fi
pass "npm install the tarball into a fresh project"
installed="$project/node_modules/read-window"

mkdir "$project/files"
printf 'one\ntwo\nthree\nfour\nfive\n' >"$project/files/five.txt"
cat >"$project/read.mjs" <<'EOF'
import { ReadWindow } from 'read-window';
const where = import.meta.resolve('read-window');
const expected = new URL('./node_modules/read-window/index.js', import.meta.url).href;
if (where !== expected) throw new Error(`read-window resolved to ${where}, not ${expected}`);
const reader = await ReadWindow.load();
const dir = process.argv[2];
const session = reader.session(dir);
const window = session.read('five.txt', { limit: 2 });
const text = `1|one\n2|two\n\nShowing lines 1-2 of 5 in ${dir}/five.txt (the limit of 2 lines). Use offset=3 to continue.`;
if (window.text !== text) throw new Error(`the window's text is ${JSON.stringify(window.text)}`);
if (window.next_offset !== 3) throw new Error(`next_offset is ${window.next_offset}`);
const served = reader.request({ op: 'mcp_server' });
if (served.version !== process.argv[3]) throw new Error(`mcp_server's version is ${served.version}`);
EOF
check "import { ReadWindow } from \"read-window\" reads lines 1-2 of five.txt, next_offset 3" \
  bash -c "cd '$project' && node read.mjs \"\$(realpath files)\" '$version'"

cat >"$project/check.ts" <<'EOF'
import { ReadWindow, type ReadAnswer } from 'read-window';
const reader = await ReadWindow.load();
const answer: ReadAnswer = reader.session('.').read('five.txt', { limit: 2 });
export const cursor: number | null = answer.status === 'ok' && answer.image === undefined && answer.listing === undefined && answer.next_offset !== null ? answer.next_offset + answer.clamped_lines.length : null;
// @ts-expect-error read() takes a path or a request object
reader.session('.').read(5);
EOF
check "the installed types (exports.types) compile a .ts importing \"read-window\" under tsc --strict" \
  bash -c "cd '$project' && node '$js/node_modules/typescript/bin/tsc' --noEmit --strict --target es2022 \
    --module nodenext --moduleResolution nodenext check.ts"

scenarios=$(cd "$project" && node "$installed/scenarios.mjs" "$repo/tests/scenarios" 2>&1)
status=$?
summary=$(tail -n 1 <<<"$scenarios")
if [ $status -eq 0 ] && grep -qE '^[0-9]+ passed, 0 failed$' <<<"$summary" && ! grep -q '^FAIL' <<<"$scenarios"; then
  pass "the scenario files through the installed package: $summary"
else
  fail "the scenario files through the installed package" "$(grep '^FAIL' <<<"$scenarios" | head -n 3 | tr '\n' ' ') $summary"
fi

client=$(cd "$project" && node client.mjs --command "$project/node_modules/.bin/read-window-mcp" 2>&1)
status=$?
sed 's/^/  client.mjs: /' <<<"$client"
if [ $status -eq 0 ] && grep -qE '^[0-9]+ passed, 0 failed$' <<<"$client"; then
  pass "client.mjs (the TypeScript SDK's client) against the installed read-window-mcp: $(tail -n 1 <<<"$client")"
else
  fail "client.mjs against the installed read-window-mcp" "$(grep '^FAIL' <<<"$client" | head -n 3 | tr '\n' ' ')"
fi

finish
