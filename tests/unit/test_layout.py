"""The package layout shows the architecture: imports run one way, down the layers.

Every import counts, including imports inside functions (walked with :mod:`ast`). Layers,
lowest first; a module may import from its own layer or any layer below, never above:

    errors < core < record < loadgen < engines < machine < analysis < report < flows < cli

``tokcheck.__main__`` is the program's entry point and sits above ``cli``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PKG = SRC / "tokcheck"
LAYERS = ("errors", "core", "record", "loadgen", "engines", "machine", "analysis", "report", "flows", "cli")


def _modules() -> dict[str, Path]:
    mods = {}
    for f in PKG.rglob("*.py"):
        name = ".".join(f.relative_to(SRC).with_suffix("").parts)
        if name.endswith(".__init__"):
            name = name[: -len(".__init__")]
        mods[name] = f
    return mods


def _edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        tree = ast.parse(f.read_text(encoding="utf-8"))
        pkg = m if f.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != m and t.startswith("tokcheck"):
                    edges[m].add(t)
    return edges


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 2:
        return None  # the package root (``__version__``)
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else None


def test_top_level_has_at_most_twelve_entries():
    entries = sorted(p.name for p in PKG.iterdir() if p.name != "__pycache__")
    assert len(entries) <= 12, entries
    for e in entries:
        stem = e.removesuffix(".py")
        assert stem in LAYERS or stem in ("__init__", "__main__"), f"{e} is not a layer"


def test_no_import_cycles():
    edges = _edges(_modules())
    sys.setrecursionlimit(10_000)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            visit(v)
    assert cycles == []


def test_imports_run_down_the_layers():
    up = []
    for m, targets in _edges(_modules()).items():
        if m == "tokcheck.__main__":
            continue
        lm = _layer(m)
        for t in targets:
            lt = _layer(t)
            if lm is not None and lt is not None and lt > lm:
                up.append(f"{m} -> {t}")
    assert sorted(up) == []


def test_nothing_outside_cli_imports_cli():
    bad = [f"{m} -> {t}" for m, ts in _edges(_modules()).items() for t in ts
           if t.startswith("tokcheck.cli") and not m.startswith("tokcheck.cli") and m != "tokcheck.__main__"]
    assert bad == []


def test_test_modules_have_unique_names():
    """pytest imports test modules by basename (no packages under tests/): two files with one name
    in different folders stop `bash scripts/test.sh` at collection ("import file mismatch")."""
    from collections import Counter

    tests = Path(__file__).resolve().parents[1]
    names = Counter(p.name for p in tests.rglob("test_*.py"))
    assert [n for n, k in names.items() if k > 1] == []
