"""The build hook that puts the component into the wheel and the sdist as ``read_window/read_window.wasm``.

The component is taken from ``$READ_WINDOW_WASM`` when it is set, else from ``read_window/read_window.wasm`` (an
sdist carries it there), else from the Rust build's output in the source checkout
(``target/component-build/wasm32-wasip2/component/read_window.wasm`` at the repository root). Without one of them
the build stops with an error that names all three: a wheel without its component would install and then fail at
its first use.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: Where the component goes inside the package.
PACKAGED = "read_window/read_window.wasm"
#: The Rust build's output, from the repository root (two levels above this project).
BUILT = "target/component-build/wasm32-wasip2/component/read_window.wasm"


class ComponentHook(BuildHookInterface):
    """Force-includes the component (see the module doc) in every build target."""

    PLUGIN_NAME = "custom"

    def component(self) -> Path:
        """The component file to package. Raises ``RuntimeError`` naming the three places when none is found, or
        when the file found is not a WebAssembly binary."""
        root = Path(self.root)
        named = os.environ.get("READ_WINDOW_WASM")
        candidates = [Path(named)] if named else [root / PACKAGED, root.parent.parent / BUILT]
        for path in candidates:
            if path.is_file():
                with path.open("rb") as wasm:
                    if wasm.read(4) != b"\0asm":
                        raise RuntimeError(f"read-window: {path} is not a WebAssembly component (no `\\0asm` header)")
                return path.resolve()
        raise RuntimeError(
            "read-window: no component to package. Set READ_WINDOW_WASM to the built read_window.wasm "
            f"(`cargo build -p read-window-host` writes {BUILT} at the repository root, the third place looked in), "
            f"or put it at {PACKAGED}. Looked at: " + ", ".join(str(path) for path in candidates)
        )

    def initialize(self, version: str, build_data: Dict[str, Any]) -> None:
        """Adds the component to the build's files."""
        build_data["force_include"][str(self.component())] = PACKAGED
