"""The package's import graph: no circle, and no import from a lower layer to a higher one.

Every ``import`` of the package's modules is read with :mod:`ast`, including the imports
inside functions (a deferred import is still a dependency). ``from polars_ireval.x import
name`` depends on the module ``polars_ireval.x.name`` when there is one, else on
``polars_ireval.x``; the implicit import of a package's ``__init__`` by its submodules is
not counted (as import linters do). Run it alone with ``pytest tests/test_imports.py``; on
failure it prints the offending chain.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "polars_ireval"

#: The layers, lowest first: a module may import modules of its own layer or below.
#: ``polars_ireval`` itself (the public surface) is above everything.
LAYERS: list[tuple[str, ...]] = [
    ("errors", "schema", "example", "_version", "_progress", "_collect", "_numeric"),
    ("registry",),
    ("measures", "measures.*"),
    ("parse",),
    ("validation", "io", "judge"),
    ("sql.options", "sql.templates", "sql", "sql.compile", "sql.dialects", "sql.__main__"),
    ("results",),
    (
        "engines.base", "engines.average", "engines.polars", "engines.duckdb", "engines.spark",
        "engines.spark_polars",
        "engines",
    ),
    ("evaluate", "outofcore"),
    (
        "namespace", "significance", "reporting", "agreement", "pooling", "judging", "prefs",
        "judgment_groups", "trec_eval", "curves", "stability", "properties", "pir",
        "ties", "_docs",
    ),
    ("plot",),
    ("cli", "cli.*"),
]  # fmt: skip


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name relative to it (``""`` is the package)."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(path: Path, known: set[str]) -> set[str]:
    """The package modules ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            base = node.module
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}"[len("polars_ireval.") :] in known else base
                for a in node.names
            ]
        else:
            continue
        for name in names:
            if name == "polars_ireval" or name.startswith("polars_ireval."):
                found.add(name[len("polars_ireval.") :] if "." in name else "")
    return found & known


def layer(name: str) -> int:
    if name == "":
        return len(LAYERS)
    for i, members in enumerate(LAYERS):
        for m in members:
            if name == m or (m.endswith(".*") and name.startswith(m[:-1])):
                return i
    raise AssertionError(f"polars_ireval.{name} is in no layer of tests/test_imports.py")


GRAPH = {name: imports(path, set(modules())) - {name} for name, path in modules().items()}


def test_every_module_has_a_layer() -> None:
    for name in GRAPH:
        layer(name)


def test_no_upward_import() -> None:
    upward = [
        f"polars_ireval.{a or ''} (layer {layer(a)}) imports polars_ireval.{b} (layer {layer(b)})"
        for a, deps in sorted(GRAPH.items())
        for b in sorted(deps)
        if layer(b) > layer(a)
    ]
    assert not upward, "\n".join(upward)


def test_no_import_circle() -> None:
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for dep in sorted(GRAPH[node]):
            if state.get(dep) == 1:
                circle = [*path[path.index(dep) :], dep]
                pytest.fail("import circle: " + " -> ".join(f"polars_ireval.{m}" for m in circle))
            if dep not in state:
                visit(dep)
        path.pop()
        state[node] = 2

    for node in sorted(GRAPH):
        if node not in state:
            visit(node)


def test_the_checker_sees_deferred_imports(tmp_path: Path) -> None:
    """The reader counts an import inside a function, and a submodule named in a ``from``."""
    source = tmp_path / "m.py"
    source.write_text(
        "def f():\n    from polars_ireval.evaluate import evaluate\n"
        "from polars_ireval import schema as S\n"
    )
    assert imports(source, {"evaluate", "schema", ""}) == {"evaluate", "schema"}
