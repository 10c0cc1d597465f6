#!/usr/bin/env bash
# The crates as crates.io would serve them: packages read-window, read-window-wasm and read-window-host
# (tools/package-crates), checks what each .crate holds, then unpacks them into a fresh workspace that resolves
# them from each other ([patch.crates-io]) and builds the CLI there, as `cargo install read-window-host` would,
# with no repository around it: the component must come from the packaged prebuilt file, not a wasm32 build.
# It reuses this repository's Cargo.lock (the versions CI tested) and target directory (the dependencies are
# already compiled), offline. One PASS/FAIL line per check; exit status 1 when one failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
started=$SECONDS
failed=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

version=$(sed -n 's/^package read-window:reader@\(.*\);$/\1/p' wit/read-window.wit)
if ! tools/package-crates --allow-dirty >"${TMPDIR:-/tmp}/package-crates.$$.log" 2>&1; then
  cat "${TMPDIR:-/tmp}/package-crates.$$.log" >&2
  echo "FAIL tools/package-crates"
  exit 1
fi
rm -f "${TMPDIR:-/tmp}/package-crates.$$.log"
wasm=$(cargo run -q -p read-window-host -- wasm-path)
digest=$(sha256sum "$wasm" | cut -d' ' -f1)

listing() { tar -tzf "target/package/$1-$version.crate" | sed "s|^$1-$version/||" | sort; }
check_listing() { # crate, expected files (sorted, one per line)
  local got
  got=$(listing "$1" | grep -v -e '^Cargo.toml.orig$' -e '^.cargo_vcs_info.json$' -e '^Cargo.lock$' || true)
  if [ "$got" = "$2" ]; then pass "$1-$version.crate holds $(echo "$got" | wc -l) files"; else
    fail "$1-$version.crate's files" "$(diff <(echo "$2") <(echo "$got") | grep '^[<>]' | head -5 | tr '\n' ' ')"; fi
}
check_listing read-window-wasm "$(printf '%s\n' Cargo.toml README.md build.rs prebuilt/read_window.wasm src/lib.rs wit/read-window.wit)"
check_listing read-window-host "$( (cd host && { git ls-files --cached --others --exclude-standard src build.rs README.md; echo Cargo.toml; echo wit/read-window.wit; }) | sort)"
check_listing read-window "$( { git ls-files --cached --others --exclude-standard src README.md; echo Cargo.toml; echo wit/read-window.wit; } | sort)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for crate in read-window read-window-wasm read-window-host; do
  tar -xzf "target/package/$crate-$version.crate" -C "$work"
done
packed=$(tar -xzOf "target/package/read-window-wasm-$version.crate" "read-window-wasm-$version/prebuilt/read_window.wasm" | sha256sum | cut -d' ' -f1)
if [ "$packed" = "$digest" ]; then pass "the packaged component is the one this build made"; else
  fail "the packaged component" "SHA-256 $packed, the build's is $digest"; fi

# The component ships: the build's paths (this checkout, cargo's registry) must not be in it (wasm/build.rs remaps
# them in panic locations).
cargo_home=${CARGO_HOME:-$HOME/.cargo}
leaked=$(grep -c -a -F -e "$repo/" -e "$cargo_home/" "$wasm" || true)
if [ "$leaked" = 0 ]; then pass "the component names no path of this machine"; else
  fail "the component's paths" "$leaked places name $repo/ or $cargo_home/"; fi

# A workspace of the three unpacked crates, with this repository's lock file and profiles.
profiles=$(sed -n '/^\[profile\./,$p' Cargo.toml)
cat > "$work/Cargo.toml" <<TOML
[workspace]
members = ["read-window-$version", "read-window-wasm-$version", "read-window-host-$version"]
resolver = "2"

[patch.crates-io]
read-window = { path = "read-window-$version" }
read-window-wasm = { path = "read-window-wasm-$version" }
read-window-host = { path = "read-window-host-$version" }
# The repository's lock file holds the patched pdf-extract (vendor/pdf-extract/PATCHES.md); a crates.io user gets
# the registry's, which extracts the same text, slower.
pdf-extract = { path = "$repo/vendor/pdf-extract" }

$profiles
TOML
cp Cargo.lock "$work/Cargo.lock"
if (cd "$work" && cargo build -q --offline --locked -p read-window-host --bin read-window --target-dir "$repo/target") 2>"$work/build.log"; then
  pass "the packaged crates build the CLI offline with the repository's lock file"
else
  fail "building the packaged crates" "$(tail -5 "$work/build.log" | tr '\n' ' ')"
fi
cli="$repo/target/debug/read-window"
took=$("$cli" wasm-path 2>/dev/null || true)
case "$took" in
  */read-window-wasm-$version/prebuilt/read_window.wasm) pass "the packaged CLI embeds the prebuilt component" ;;
  *) fail "the packaged CLI's component" "wasm-path is ${took:-nothing}, not the crate's prebuilt file" ;;
esac
printf 'one\ntwo\nthree\n' > "$work/three.txt"
got=$("$cli" --root "$work" read "$work/three.txt" --limit 2 2>&1 || true)
expected=$(printf '1|one\n2|two\n\nShowing lines 1-2 of 3 in %s (the limit of 2 lines). Use offset=3 to continue.' "$work/three.txt")
if [ "$got" = "$expected" ]; then pass "the packaged CLI reads a window"; else fail "the packaged CLI's window" "$got"; fi

# Give the repository its own CLI back (the packaged build wrote target/debug/read-window).
cargo build -q -p read-window-host --bin read-window
case "$(cargo run -q -p read-window-host -- wasm-path)" in
  "$wasm") pass "the repository's CLI is back" ;;
  *) fail "the repository's CLI" "wasm-path is not $wasm after the rebuild" ;;
esac
echo "crates: $((SECONDS - started)) s"
exit $failed
