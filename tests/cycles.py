#!/usr/bin/env python3
"""Fails when the top-level modules of a crate depend on each other in a cycle.

For each crate of the workspace (the component in src/, the host library, the host's CLI and its other binaries in
host/src/), the modules are found by following `mod` declarations from the crate root. A module is a file or a
folder's mod.rs; a folder's submodules count as the folder, so only cycles between top-level modules are found.
An edge A -> B is a `crate::B` or `super::B` path (in a `use` or in code) inside A. Test code is left out: files
named tests.rs or *_tests.rs, and every item under `#[cfg(test)]`. Comments and string literals are ignored. The
crate root is a node of its own ("(root)"), except that its `mod` and `pub use` lines are not edges: a root that
only declares and re-exports is a facade, and a path through one of its re-exports leads to the module that
defines the item.

A cycle that is known and not yet broken is listed in tests/cycles-allowed.txt (one line a cycle: the crate, a
colon, its modules, then `#` and why it remains). The check fails on any cycle not listed there exactly (a new one,
or a listed one that gained a module) and on a listed one that no longer exists (so the list stays honest).
Exit 0 prints one line: `N modules, no cycle` (or `..., only the K allowed cycles`). Python 3 standard library only.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = Path(__file__).resolve().parent / "cycles-allowed.txt"
ROOT_NODE = "(root)"


def strip(text):
    """The text with comments, string and char literals blanked (lengths and line breaks kept)."""
    out = []
    i, n = 0, len(text)

    def blank(chunk):
        return "".join("\n" if c == "\n" else " " for c in chunk)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif (c == "r" or c == "b") and re.match(r'(br|r)#*"', text[i:i + 300]) and not re.match(
            r"\w", text[i - 1:i] or " "
        ):
            m = re.match(r'(br|r)(#*)"', text[i:])
            close = '"' + m.group(2)
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            out.append(blank(text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(blank(text[i:j + 1]))
            i = j + 1
        elif c == "'":
            if text.startswith("\\", i + 1):
                j = text.find("'", i + 2)
                j = n if j < 0 else j
                out.append(blank(text[i:j + 1]))
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":
                out.append(blank(text[i:i + 3]))
                i += 3
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching(text, open_at):
    """The index just past the brace that closes the one at `open_at`."""
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


CFG_TEST = re.compile(r"#\[cfg\((?:all\()?\s*test\b[^\]]*\]")
ATTRIBUTE = re.compile(r"\s*#\[[^\]]*\]")


def without_test_items(text):
    """The stripped text with every item under `#[cfg(test)]` blanked."""
    chars = list(text)
    pos = 0
    while True:
        m = CFG_TEST.search(text, pos)
        if not m:
            break
        j = m.end()
        while True:
            a = ATTRIBUTE.match(text, j)
            if not a:
                break
            j = a.end()
        semi = text.find(";", j)
        brace = text.find("{", j)
        if brace >= 0 and (semi < 0 or brace < semi):
            end = matching(text, brace)
        else:
            end = len(text) if semi < 0 else semi + 1
        for k in range(m.start(), end):
            if chars[k] != "\n":
                chars[k] = " "
        pos = end
    return "".join(chars)


MOD = re.compile(r"\bmod\s+(\w+)\s*([;{])")


class File:
    """One source file of a crate: its module path, its code with tests blanked, its inline modules."""

    def __init__(self, path, module):
        self.path = path
        self.module = module
        self.code = without_test_items(strip(path.read_text(encoding="utf-8")))
        # (start, end, name) of each inline `mod name { ... }`.
        self.inline = []
        self.children = []
        for m in MOD.finditer(self.code):
            if m.group(2) == "{":
                self.inline.append((m.end() - 1, matching(self.code, m.end() - 1), m.group(1)))
            else:
                self.children.append(m.group(1))

    def module_at(self, pos):
        """The module path of the code at `pos`, counting the inline modules around it."""
        path = list(self.module)
        for start, end, name in sorted(self.inline):
            if start <= pos < end:
                path.append(name)
        return path

    def line_of(self, pos):
        return self.code.count("\n", 0, pos) + 1


def is_test_file(path):
    return path.name == "tests.rs" or path.name.endswith("_tests.rs")


def crate_files(root_file):
    """Every non-test file of the crate whose root is `root_file`, found through `mod` declarations."""
    files = []
    todo = [(root_file, [])]
    while todo:
        path, module = todo.pop()
        if is_test_file(path):
            continue
        f = File(path, module)
        files.append(f)
        if module:
            folder = path.parent if path.name == "mod.rs" else path.with_suffix("")
        else:
            folder = path.parent
        for child in f.children:
            for candidate in (folder / f"{child}.rs", folder / child / "mod.rs"):
                if candidate.exists():
                    todo.append((candidate, module + [child]))
                    break
    return files


USE_ITEM = re.compile(r"\b(pub(\s*\([^)]*\))?\s+)?use\s+([^;]*);")


def split_group(body):
    """The top-level items of a use group's body `a::X, b::{Y, Z}, c`."""
    items, depth, start = [], 0, 0
    for j, c in enumerate(body):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(body[start:j])
            start = j + 1
    items.append(body[start:])
    return [item.strip() for item in items if item.strip()]


def first_segments(tree):
    """For a path or use tree `crate::{a::X, b}` after its prefix, the first segment of each path it names."""
    tree = tree.strip()
    if tree.startswith("{"):
        inner = tree[1:matching(tree, 0) - 1]
        names = []
        for item in split_group(inner):
            names.extend(first_segments(item))
        return names
    m = re.match(r"(\w+|\*)", tree)
    if not m:
        return []
    rest = tree[m.end():].lstrip()
    return [(m.group(1), rest.startswith("::"))]


def reexports(root, modules):
    """Names the crate root re-exports with `pub use`, each mapped to the top-level module it comes from."""
    names = {}
    for m in USE_ITEM.finditer(root.code):
        if not m.group(1):
            continue
        tree = re.sub(r"^(crate|self)\s*::\s*", "", m.group(3).strip())
        head = re.match(r"(\w+)\s*::\s*(.*)", tree, re.S)
        if not head or head.group(1) not in modules:
            continue
        for item in re.findall(r"(\w+)(?:\s+as\s+(\w+))?\s*(?=[,}]|$)", head.group(2)):
            names[item[1] or item[0]] = head.group(1)
    return names


PATH = re.compile(r"(?<![\w$:])(crate|super)\s*::\s*")


def edges_of(files):
    """The top-level modules of a crate and its edges {(a, b): [file:line, ...]}."""
    root = files[0]
    modules = set(root.children) | {name for _, _, name in root.inline}
    names = reexports(root, modules)
    edges = {}

    def node(path):
        return path[0] if path else ROOT_NODE

    def add(f, pos, source, target):
        if source != target:
            where = f"{f.path.relative_to(ROOT)}:{f.line_of(pos)}"
            edges.setdefault((source, target), []).append(where)

    for f in files:
        code = f.code
        # The root's `pub use` lines (the facade) are not edges.
        facade = []
        if f is root:
            facade = [(m.start(), m.end()) for m in USE_ITEM.finditer(code) if m.group(1)]
            facade += [(m.start(), m.end()) for m in MOD.finditer(code) if m.group(2) == ";"]
        for m in PATH.finditer(code):
            if any(start <= m.start() < end for start, end in facade):
                continue
            here = f.module_at(m.start())
            if m.group(1) == "crate":
                base = []
            else:
                base = here[:-1]
                # `super::super::...`
                rest = code[m.end():]
                while re.match(r"super\s*::\s*", rest):
                    base = base[:-1]
                    rest = rest[re.match(r"super\s*::\s*", rest).end():]
            tail = code[m.end():]
            while re.match(r"super\s*::\s*", tail):
                tail = tail[re.match(r"super\s*::\s*", tail).end():]
            for segment, is_module in first_segments(tail):
                if base:
                    target = base[0]
                elif segment in modules:
                    target = segment
                elif segment in names:
                    target = names[segment]
                else:
                    target = ROOT_NODE
                add(f, m.start(), node(here), target)
        if f is root:
            # Inside the root, a module is named without `crate::`.
            for m in re.finditer(r"(?<![\w$:])(\w+)\s*::", code):
                if m.group(1) not in modules or any(start <= m.start() < end for start, end in facade):
                    continue
                add(f, m.start(), node(f.module_at(m.start())), m.group(1))
    nodes = modules | {ROOT_NODE}
    return nodes, edges


def components(nodes, edges):
    """The strongly connected components with more than one module (Tarjan)."""
    graph = {n: sorted({b for (a, b) in edges if a == n}) for n in nodes}
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def shortest_cycle(group, edges):
    """One shortest cycle through the first module of `group`, as a list of modules."""
    start = group[0]
    members = set(group)
    previous = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for (a, b) in sorted(edges):
            if a != v or b not in members:
                continue
            if b == start:
                path = [v]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return list(reversed(path)) + [start]
            if b not in previous:
                previous[b] = v
                queue.append(b)
    return group


def crate_roots():
    """(crate name, root file) for each crate checked."""
    roots = [("read-window", ROOT / "src" / "lib.rs")]
    host = ROOT / "host" / "src"
    if (host / "lib.rs").exists():
        roots.append(("read-window-host", host / "lib.rs"))
    if (host / "main.rs").exists():
        roots.append(("read-window-host bin read-window", host / "main.rs"))
    for path in sorted((host / "bin").glob("*.rs")):
        roots.append((f"read-window-host bin {path.stem}", path))
    for path in sorted((host / "bin").glob("*/main.rs")):
        roots.append((f"read-window-host bin {path.parent.name}", path))
    return roots


def allowed_cycles():
    """{(crate, frozenset(modules)): line number} from the allow-list, and the problems with its lines."""
    allowed, problems = {}, []
    if not ALLOWED.exists():
        return allowed, problems
    for number, line in enumerate(ALLOWED.read_text(encoding="utf-8").splitlines(), 1):
        entry, _, why = line.partition("#")
        if not entry.strip():
            continue
        crate, colon, members = entry.partition(":")
        if not colon or len(members.split()) < 2:
            problems.append(f"{ALLOWED.name}:{number}: expected `crate: module module ... # why`")
        elif not why.strip():
            problems.append(f"{ALLOWED.name}:{number}: an allowed cycle needs a comment saying why it remains")
        else:
            allowed[(crate.strip(), frozenset(members.split()))] = number
    return allowed, problems


def main():
    allowed, problems = allowed_cycles()
    used = set()
    total = 0
    for crate, root_file in crate_roots():
        files = crate_files(root_file)
        nodes, edges = edges_of(files)
        total += len(nodes)
        for group in components(nodes, edges):
            key = (crate, frozenset(group))
            if key in allowed:
                used.add(key)
                continue
            cycle = shortest_cycle(group, edges)
            problems.append(f"{crate}: cycle among {{{', '.join(group)}}}: {' -> '.join(cycle)}")
            for a, b in zip(cycle, cycle[1:]):
                where = edges.get((a, b), [])
                more = f" (and {len(where) - 1} more)" if len(where) > 1 else ""
                problems.append(f"    {a} -> {b}: {where[0] if where else '?'}{more}")
    for key, number in sorted(allowed.items(), key=lambda item: item[1]):
        if key not in used:
            problems.append(
                f"{ALLOWED.name}:{number}: {key[0]}: {' '.join(sorted(key[1]))} is no longer a cycle: remove the line"
            )
    if problems:
        print("\n".join(problems))
        return 1
    if used:
        print(f"{total} modules, no cycle but the {len(used)} allowed in {ALLOWED.name}")
    else:
        print(f"{total} modules, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
