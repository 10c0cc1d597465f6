#!/usr/bin/env bash
# tools/publish-oci against a real OCI registry (Debian's docker-registry, CNCF distribution) on a free loopback
# port, then what a user does: `wkg get` of both packages, compared byte for byte with what was published. Also a
# second publish of the same bytes (nothing changes, exit 0), a publish of other bytes at the same version (refused,
# exit 1, nothing changes), a version mismatch between wit/ and Cargo.toml, an unreachable registry and --dry-run.
# The component: $READ_WINDOW_WASM, else the Rust build's (`cargo run -q -p read-window-host -- wasm-path`).
# One PASS/FAIL line per check, then "oci: N passed, N failed" and the time taken; exit 1 when a check failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
started=$(date +%s)

missing() {
  echo "tests/packages/oci.sh: $1 is not on PATH: install $2, then run this again" >&2
  exit 1
}
command -v wkg >/dev/null || missing wkg "it with \`cargo install wkg --locked\`"
command -v docker-registry >/dev/null || missing docker-registry "Debian's docker-registry package (apt-get install docker-registry)"
command -v curl >/dev/null || missing curl "curl"
command -v python3 >/dev/null || missing python3 "Python 3"

wasm=${READ_WINDOW_WASM:-}
if [ -z "$wasm" ]; then
  wasm=$(cargo run -q -p read-window-host -- wasm-path) || { echo "tests/packages/oci.sh: cannot find the component" >&2; exit 1; }
fi
[ -f "$wasm" ] || { echo "tests/packages/oci.sh: no component at $wasm" >&2; exit 1; }

work=$(mktemp -d)
registry_pid=
cleanup() {
  [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null && wait "$registry_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# free_port: a TCP port on 127.0.0.1 that nothing listens on (the kernel's pick).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

port=$(free_port)
registry=127.0.0.1:$port
cat >"$work/registry.yml" <<EOF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $work/registry-data
http:
  addr: $registry
EOF
docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
registry_pid=$!
for _ in $(seq 50); do
  curl -s -o /dev/null "http://$registry/v2/" && break
  sleep 0.1
done
curl -s -o /dev/null "http://$registry/v2/" ||
  { echo "tests/packages/oci.sh: the registry did not start: $(cat "$work/registry.log")" >&2; exit 1; }

passed=0 failed=0
# check NAME EXPECTED ACTUAL: one PASS or FAIL line; a FAIL shows both values.
check() {
  if [ "$2" = "$3" ]; then
    echo "PASS $1"
    passed=$((passed + 1))
  else
    printf 'FAIL %s\n  expected: %s\n  actual:   %s\n' "$1" "$2" "$3"
    failed=$((failed + 1))
  fi
}

# sha FILE: the SHA-256 of FILE, as OCI writes a digest.
sha() {
  echo "sha256:$(sha256sum "$1" | cut -d' ' -f1)"
}

# manifest_digest REPOSITORY TAG: the registry's digest of the manifest REPOSITORY:TAG.
manifest_digest() {
  curl -s -I -H 'Accept: application/vnd.oci.image.manifest.v1+json' "http://$registry/v2/$1/manifests/$2" |
    tr -d '\r' | sed -n 's/^[Dd]ocker-[Cc]ontent-[Dd]igest: //p'
}

# manifest_summary REPOSITORY TAG: the layer's media type and title and the manifest's version annotation.
manifest_summary() {
  curl -s -H 'Accept: application/vnd.oci.image.manifest.v1+json' "http://$registry/v2/$1/manifests/$2" |
    python3 -c 'import json, sys; m = json.load(sys.stdin); l = m["layers"][0]
print(len(m["layers"]), l["mediaType"], l["annotations"]["org.opencontainers.image.title"], m["annotations"]["org.opencontainers.image.version"])'
}

ns=acme
version=$(sed -n 's/^package read-window:reader@\([^;]*\);.*/\1/p' wit/*.wit)
# What a user's wkg config says to fetch read-window:* from this registry under the namespace (docs/registries.md).
cat >"$work/config.toml" <<EOF
[namespace_registries]
read-window = { registry = "$registry", metadata = { preferredProtocol = "oci", oci = { registry = "$registry", namespacePrefix = "$ns/" } } }

[registry."$registry".oci]
protocol = "http"
EOF
# get PACKAGE OUTPUT: `wkg get` as a user types it, with an empty cache (wkg serves a cached release without asking
# the registry, which would hide what the registry holds).
get() {
  rm -rf "$work/cache"
  (cd "$work/got" && WKG_CONFIG_FILE="$work/config.toml" WKG_CACHE_DIR="$work/cache" wkg get "$1" -o "$2") >"$work/get.log" 2>&1
}
mkdir -p "$work/got"

# The WIT package as wkg builds it from wit/, independently of the script.
repo=$(pwd)
(cd "$work" && wkg build -d "$repo/wit" -o reader.wasm) >/dev/null 2>&1
reader_sha=$(sha "$work/reader.wasm")
component_sha=$(sha "$wasm")
ref_reader="$registry/$ns/read-window/reader:$version"
ref_component="$registry/$ns/read-window/component:$version"

echo "== first publish"
tools/publish-oci --registry "$registry" --namespace "$ns" --insecure-http --wasm "$wasm" >"$work/out1" 2>"$work/err1"
check "publish exits 0" 0 "$?"
check "publish prints what it published" \
  "published      read-window:reader@$version  $ref_reader  $reader_sha
published      read-window:component@$version  $ref_component  $component_sha" "$(cat "$work/out1")"
check "publish prints no error" "" "$(cat "$work/err1")"
check "the catalog lists both repositories" \
  '{"repositories":["acme/read-window/component","acme/read-window/reader"]}' \
  "$(curl -s "http://$registry/v2/_catalog")"
check "each repository has the one version tag" \
  "{\"name\":\"acme/read-window/reader\",\"tags\":[\"$version\"]} {\"name\":\"acme/read-window/component\",\"tags\":[\"$version\"]}" \
  "$(curl -s "http://$registry/v2/acme/read-window/reader/tags/list") $(curl -s "http://$registry/v2/acme/read-window/component/tags/list")"
check "the WIT package's manifest: one wasm layer named reader.wasm, version annotated" \
  "1 application/wasm reader.wasm $version" "$(manifest_summary acme/read-window/reader "$version")"
check "the component's manifest: one wasm layer named for the file, version annotated" \
  "1 application/wasm $(basename "$wasm") $version" "$(manifest_summary acme/read-window/component "$version")"

echo "== wkg get"
get "read-window:component@$version" ./read_window.wasm
check "wkg get read-window:component@$version exits 0" 0 "$?"
check "the fetched component is the published file (SHA-256)" "$component_sha" "$(sha "$work/got/read_window.wasm" 2>&1)"
get "read-window:reader@$version" ./reader.wasm
check "wkg get read-window:reader@$version exits 0" 0 "$?"
check "the fetched WIT package is the one wkg builds from wit/ (SHA-256)" "$reader_sha" "$(sha "$work/got/reader.wasm" 2>&1)"
get "read-window:reader@$version" ./
check "wkg get into a directory writes the WIT text" \
  "package read-window:reader@$version;" "$(grep -m1 '^package ' "$work/got/read-window_reader@$version.wit" 2>&1)"
get "read-window:reader" ./latest.wasm
check "wkg get without a version fetches $version" "$reader_sha" "$(sha "$work/got/latest.wasm" 2>&1)"

digests="$(manifest_digest acme/read-window/reader "$version") $(manifest_digest acme/read-window/component "$version")"
echo "== second publish, same bytes"
tools/publish-oci --registry "$registry" --namespace "$ns" --insecure-http --wasm "$wasm" >"$work/out2" 2>"$work/err2"
check "a second publish of the same bytes exits 0" 0 "$?"
check "it says both are unchanged" \
  "unchanged      read-window:reader@$version  $ref_reader  $reader_sha  (already published with these bytes)
unchanged      read-window:component@$version  $ref_component  $component_sha  (already published with these bytes)" \
  "$(cat "$work/out2")"
check "the manifests are untouched" "$digests" \
  "$(manifest_digest acme/read-window/reader "$version") $(manifest_digest acme/read-window/component "$version")"

echo "== publish of other bytes at the same version"
# The same component with one more custom section (id 0, 3 bytes: name "t", payload "x"): valid, other bytes.
cp "$wasm" "$work/other.wasm" && printf '\000\003\001tx' >>"$work/other.wasm"
tools/publish-oci --registry "$registry" --namespace "$ns" --insecure-http --wasm "$work/other.wasm" >"$work/out3" 2>"$work/err3"
check "publishing other bytes at a published version exits 1" 1 "$?"
check "it says why and publishes nothing" \
  "tools/publish-oci: read-window:component@$version is already in the registry with other bytes (${component_sha}; this build is $(sha "$work/other.wasm")): a published version is never replaced, so bump the version|" \
  "$(cat "$work/err3")|$(cat "$work/out3")"
check "the manifests are still untouched" "$digests" \
  "$(manifest_digest acme/read-window/reader "$version") $(manifest_digest acme/read-window/component "$version")"

echo "== --dry-run"
tools/publish-oci --registry "$registry" --namespace other --insecure-http --wasm "$wasm" --dry-run >"$work/out4" 2>"$work/err4"
check "a dry run exits 0" 0 "$?"
check "a dry run says what it would publish" \
  "would publish  read-window:reader@$version  $registry/other/read-window/reader:$version  $reader_sha
would publish  read-window:component@$version  $registry/other/read-window/component:$version  $component_sha" \
  "$(cat "$work/out4")"
check "a dry run publishes nothing" \
  '{"repositories":["acme/read-window/component","acme/read-window/reader"]}' \
  "$(curl -s "http://$registry/v2/_catalog")"

echo "== refusals"
unused=$(free_port)
tools/publish-oci --registry "127.0.0.1:$unused" --insecure-http --wasm "$wasm" >/dev/null 2>"$work/err5"
check "an unreachable registry: exit 1 and a line saying so" \
  "1 tools/publish-oci: the registry does not answer at http://127.0.0.1:$unused/v2/ (is it running, is the address right?)" \
  "$? $(cat "$work/err5")"
# A copy of what the script reads, with Cargo.toml at another version.
mkdir -p "$work/tree/tools" && cp -r wit "$work/tree/" && cp tools/publish-oci "$work/tree/tools/"
sed '/^\[package\]/,/^\[/s/^version = ".*"/version = "9.9.9"/' Cargo.toml >"$work/tree/Cargo.toml"
"$work/tree/tools/publish-oci" --registry "$registry" --insecure-http --wasm "$wasm" >/dev/null 2>"$work/err6"
check "wit/ and Cargo.toml at other versions: exit 1 and a line saying so" \
  "1 tools/publish-oci: the WIT package is at $version but Cargo.toml's package is at 9.9.9: make them agree" \
  "$? $(cat "$work/err6")"

echo "oci: $passed passed, $failed failed"
echo "tests/packages/oci.sh took $(($(date +%s) - started)) s"
[ "$failed" -eq 0 ]
