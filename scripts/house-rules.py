#!/usr/bin/env python3
"""The house rules that a compiler does not check, checked (scripts/test runs
this; exit 1 and a line for each breach):

- no source file under crates/*/src or tools/*/src longer than 850 lines
  (split it by job);
- the rename that makes a write atomic only in alq-fs (`crates/fs`): other
  crates call `alq_fs::write_atomic`, `copy_atomic` or `replace_dir`;
- every file of a crate's tests/ named in its tests/main.rs where the crate
  has one (`autotests = false`: an unnamed file would never run);
- no import circle between the modules of a crate.

A module `a` depends on `b` when a line of `src/a.rs` (or `src/a/…`),
comments aside, names `crate::b`. A circle (a strongly connected set of two
or more modules) usually means a type sits in the wrong file;
ARCHITECTURE.md ("Module circles") says how they were cut. Circles listed
in ALLOWED below are the right shape and explained there.

    scripts/house-rules.py
"""

import re
import sys
from pathlib import Path

# (crate directory, sorted modules): circles that are the right shape.
ALLOWED: set[tuple[str, tuple[str, ...]]] = set()

REFERENCE = re.compile(r"\bcrate::([a-z_][a-z0-9_]*)")


def modules(src: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path in sorted(src.rglob("*.rs")):
        rel = path.relative_to(src)
        name = rel.parts[0].removesuffix(".rs")
        if name in ("lib", "main"):
            continue
        found.setdefault(name, []).append(path)
    return found


def edges(files: dict[str, list[Path]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, paths in files.items():
        for path in paths:
            for line in path.read_text().splitlines():
                if line.lstrip().startswith("//"):
                    continue
                for target in REFERENCE.findall(line):
                    if target in files and target != name:
                        graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of two or more nodes."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


MAX_LINES = 850


def long_files(root: Path) -> list[str]:
    found = []
    for path in sorted(root.glob("crates/*/src/**/*.rs")) + sorted(root.glob("tools/*/src/**/*.rs")):
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            found.append(f"{path.relative_to(root)}: {lines} lines, over {MAX_LINES}: split it by job")
    return found


RENAME = re.compile(r"\brename\(")


def renames(root: Path) -> list[str]:
    found = []
    for path in sorted(root.glob("crates/*/src/**/*.rs")) + sorted(root.glob("tools/*/src/**/*.rs")):
        if path.is_relative_to(root / "crates/fs"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if RENAME.search(line) and not line.lstrip().startswith("//"):
                found.append(f"{path.relative_to(root)}:{number}: a rename outside alq-fs (use alq_fs::write_atomic, copy_atomic or replace_dir)")
    return found


DECLARED = re.compile(r"^\s*(?:pub\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", re.M)


def undeclared_tests(root: Path) -> list[str]:
    found = []
    for main in sorted(root.glob("crates/*/tests/main.rs")) + sorted(root.glob("tools/*/tests/main.rs")):
        declared = set(DECLARED.findall(main.read_text()))
        tests = main.parent
        names = {p.stem for p in tests.glob("*.rs") if p.name != "main.rs"}
        names |= {p.parent.name for p in tests.glob("*/mod.rs")}
        for name in sorted(names - declared):
            found.append(f"{tests.relative_to(root)}/{name}: not named in {main.relative_to(root)}, so it never runs")
    return found


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    problems = long_files(root) + renames(root) + undeclared_tests(root)
    for problem in problems:
        print(problem)
    bad = len(problems)
    for src in sorted(root.glob("crates/*/src")) + sorted(root.glob("tools/*/src")):
        crate = str(src.parent.relative_to(root))
        for circle in circles(edges(modules(src))):
            if (crate, tuple(circle)) in ALLOWED:
                continue
            bad += 1
            print(f"{crate}: import circle between {', '.join(circle)}: move the type that sits in the wrong file")
    if bad:
        print(f"house rules: {bad} problem(s) (scripts/house-rules.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
