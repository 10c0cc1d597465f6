"""One version everywhere: the WIT package, the three crates (and the exact versions they require of each
other), the Python packages (read-window and read-window-mcp), the npm package (and its lock file) and the README's install lines. Prints one
PASS or FAIL line per file, then exits 1 when one disagrees with the WIT.

Usage: python3 tests/packages/versions.py
"""

import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def wit_version() -> str:
    text = (ROOT / "wit" / "read-window.wit").read_text()
    found = re.search(r"^package read-window:reader@([0-9A-Za-z.+-]+);$", text, re.M)
    if not found:
        sys.exit("FAIL wit/read-window.wit: no `package read-window:reader@X;` line")
    return found.group(1)


def versions_found() -> list[tuple[str, str]]:
    """(where, version) for every place that states the version."""
    found = []
    for manifest in ["Cargo.toml", "wasm/Cargo.toml", "host/Cargo.toml"]:
        data = tomllib.loads((ROOT / manifest).read_text())
        found.append((f"{manifest} [package] version", data["package"]["version"]))
        for name, spec in data.get("dependencies", {}).items():
            if name.startswith("read-window") and isinstance(spec, dict):
                found.append((f"{manifest} {name} requirement", spec.get("version", "<none>").lstrip("=")))
    init = (ROOT / "hosts/python/read_window/__init__.py").read_text()
    stated = re.search(r'^__version__ = "([^"]+)"$', init, re.M)
    wheel_version = stated.group(1) if stated else "<none>"
    found.append(("hosts/python/read_window/__init__.py __version__ (the wheel's)", wheel_version))
    mcp = tomllib.loads((ROOT / "hosts/python/mcp-package/pyproject.toml").read_text())
    found.append(("hosts/python/mcp-package/pyproject.toml version", mcp["project"]["version"]))
    for requirement in mcp["project"]["dependencies"]:
        if requirement.startswith("read-window=="):
            found.append(("hosts/python/mcp-package read-window requirement", requirement.split("==", 1)[1]))
    package = json.loads((ROOT / "hosts/js/package.json").read_text())
    found.append(("hosts/js/package.json version", package["version"]))
    lock = json.loads((ROOT / "hosts/js/package-lock.json").read_text())
    found.append(("hosts/js/package-lock.json version", lock["packages"][""]["version"]))
    readme = (ROOT / "README.md").read_text()
    for line in re.findall(r"read-window:(?:reader|component)@([0-9A-Za-z.+-]+)", readme):
        found.append(("README.md wkg reference", line))
    return found


def main() -> int:
    expected = wit_version()
    failed = 0
    for where, version in versions_found():
        if version == expected:
            print(f"PASS {where}: {version}")
        else:
            print(f"FAIL {where}: {version}, the WIT package is {expected}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
