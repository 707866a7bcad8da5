"""Docstrings and comments cite only what the repository holds: every ``.md`` path they name
(``docs/measurement.md``, ``benchmarks/README.md`` …) exists. Files of other projects are cited
by their URL, which this test leaves alone, as it leaves file names in command-line examples."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "tokcheck"
URL = re.compile(r"https?://\S+")
OPTION_VALUE = re.compile(r"--[\w-]+[ =]$")
MD_PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)\b")


def _texts(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every docstring and comment of a module."""
    source = path.read_text(encoding="utf-8")
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append((node.body[0].lineno, doc))
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    return out


def cited_md_paths() -> list[tuple[str, str]]:
    """(``file:line``, cited path) for every ``.md`` path in a docstring or comment under src."""
    cites = []
    for f in sorted(SRC.rglob("*.py")):
        for line, text in _texts(f):
            text = URL.sub(" ", text)
            for m in MD_PATH.finditer(text):
                if OPTION_VALUE.search(text[: m.start()]):
                    continue  # a command-line example (``--md out.md``), not a citation
                cites.append((f"{f.relative_to(ROOT)}:{line}", m.group(1)))
    return cites


def test_the_scanner_finds_citations():
    found = {p for _, p in cited_md_paths()}
    assert {"docs/measurement.md", "docs/guide.md"} <= found



def test_every_cited_md_file_exists():
    missing = [f"{where}: {path}" for where, path in cited_md_paths() if not (ROOT / path).is_file()]
    assert missing == []


def test_links_between_docs_resolve():
    docs = ROOT / "docs"
    assert {"measurement.md", "run-directory.md", "engines.md", "guide.md", "sources.md"} <= {
        p.name for p in docs.glob("*.md")}
    for page in docs.glob("*.md"):
        for target in re.findall(r"\]\(([^)#\s]+)\)", page.read_text(encoding="utf-8")):
            if not URL.match(target):
                assert (page.parent / target).is_file(), f"{page.name} links to {target}"
