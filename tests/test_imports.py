"""The package's import graph: no circle, and no import from a lower layer to a higher one.

Every ``import`` of the package's modules is read with :mod:`ast`, including the imports
inside functions (a deferred import is still a dependency). ``from polars_ireval.x import
name`` depends on the module ``polars_ireval.x.name`` when there is one, else on
``polars_ireval.x``; the implicit import of a package's ``__init__`` by its submodules is
not counted (as import linters do). Run it alone with ``pytest tests/test_imports.py``; on
failure it prints the offending chain.

``benchmarks/`` is read the same way: its scripts, run from that folder, import each other
by bare name (``from bench.layout import workload``). There, no circle either, no module
imports an entry point (a script, with ``if __name__ == "__main__":``; what scripts share
lives in the library ``benchmarks/bench/``), and no private name (``_x``) is taken from
another module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "polars_ireval"
BENCHMARKS = ROOT / "benchmarks"

#: The layers, lowest first: a module may import modules of its own layer or below.
#: ``polars_ireval`` itself (the public surface) is above everything.
LAYERS: list[tuple[str, ...]] = [
    ("errors", "_version", "_base", "_base.*"),
    ("registry",),
    ("measures", "measures.*"),
    ("parse",),
    ("io", "io.*", "judge"),
    ("fusion", "fusion.*"),
    ("sql.options", "sql.templates", "sql", "sql.compile", "sql.dialects", "sql.__main__"),
    ("results",),
    (
        "engines.base", "engines.average", "engines.polars", "engines.duckdb", "engines.spark",
        "engines.spark_polars", "engines.fusion",
        "engines",
    ),
    ("evaluate", "outofcore"),
    ("namespace", "analysis", "analysis.*", "trec_eval", "trec_eval.*", "_docs"),
    ("plot", "plot.*"),
    ("cli", "cli.*"),
]  # fmt: skip


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module under ``root`` by dotted name relative to it (``""`` is the package)."""
    out = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(path: Path, known: set[str], package: str = "polars_ireval") -> set[str]:
    """The modules of ``package`` that ``path`` imports, named relative to it; with
    ``package=""``, the top-level modules of ``known`` (as the benchmarks' scripts import)."""
    prefix = f"{package}." if package else ""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            base = node.module
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}"[len(prefix) :] in known else base
                for a in node.names
            ]
        else:
            continue
        for name in names:
            if not package:
                found.add(name)
            elif name == package or name.startswith(prefix):
                found.add(name[len(prefix) :] if "." in name else "")
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


def circle(graph: dict[str, set[str]]) -> list[str]:
    """An import circle of ``graph`` as its chain of modules (the first one again at the
    end), or ``[]`` if there is none."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep not in state and (found := visit(dep)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def is_entry_point(path: Path) -> bool:
    """Whether ``path`` is a script: ``if __name__ == "__main__":`` at its top level."""
    return any(
        isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'"
        for node in ast.parse(path.read_text(encoding="utf-8")).body
    )


def private_imports(path: Path, known: set[str]) -> list[tuple[int, str]]:
    """Each private name (``_x``, not a module) that ``path`` takes from a top-level module
    of ``known``: ``from m import _x``, or ``m._x`` after ``import m``; as (line, what)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound: set[str] = set()  # local names of the modules of ``known``
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound |= {a.asname or a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in known:
            for a in node.names:
                if f"{node.module}.{a.name}" in known:
                    bound.add(a.asname or a.name)
                elif a.name.startswith("_"):
                    found.append((a.lineno, f"from {node.module} import {a.name}"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def benchmark_problems(root: Path) -> list[str]:
    """What is wrong with the imports of the scripts under ``root`` (``benchmarks/``): an
    import circle, an import of an entry point, a private name taken from another module
    (``root/file.py:line: what``)."""
    found = modules(root)
    graph = {name: imports(path, set(found), package="") - {name} for name, path in found.items()}
    chain = circle(graph)
    problems = ["import circle: " + " -> ".join(chain)] if chain else []
    scripts = {name for name, path in found.items() if is_entry_point(path)}
    problems += [
        f"{a} imports the entry point {b}"
        for a, deps in sorted(graph.items())
        for b in sorted(deps & scripts)
    ]
    for _, path in sorted(found.items()):
        where = f"{root.name}/{path.relative_to(root)}"
        problems += [f"{where}:{line}: {what}" for line, what in private_imports(path, set(found))]
    return problems


def test_benchmarks_have_no_circle_and_no_private_imports() -> None:
    scripts = {name for name, path in modules(BENCHMARKS).items() if is_entry_point(path)}
    assert {"run", "engines", "charts", "outofcore", "generate"} <= scripts  # read them all
    problems = benchmark_problems(BENCHMARKS)
    assert not problems, "\n".join(problems)


def test_the_benchmark_checks_see_a_circle_and_a_private_import(tmp_path: Path) -> None:
    """A deferred import closing a circle, an entry point imported, a private name taken
    either way: each is reported with its line."""
    (tmp_path / "lib.py").write_text("def f():\n    import run\n")
    (tmp_path / "run.py").write_text(
        "import lib\nfrom lib import _g, f\n\nlib._h()\n\nif __name__ == '__main__':\n    f()\n"
    )
    assert benchmark_problems(tmp_path) == [
        "import circle: lib -> run -> lib",
        "lib imports the entry point run",
        f"{tmp_path.name}/run.py:2: from lib import _g",
        f"{tmp_path.name}/run.py:4: lib._h",
    ]


# --------------------------------------------------------------------------- the package's rooms

#: The most lines a module of the package may hold, and a function's lines of code.
MAX_MODULE_LINES = 1000
MAX_FUNCTION_LINES = 150


def package_private_imports(root: Path = PACKAGE) -> list[str]:
    """Each private name (``_x``) a module of the package takes from another module that is
    not in its own folder (``from polars_ireval.x import _y``, or ``x._y`` after importing
    the module ``x``), as ``path:line: what``. Files of one folder (``analysis/significance/``)
    may share private names; what crosses a folder gets a public name in the module that
    owns it."""
    found = modules(root)
    dotted = {f"polars_ireval.{name}" if name else "polars_ireval": name for name in found}
    problems = []
    for name, path in sorted(found.items()):
        folder = name.rpartition(".")[0] if path.name != "__init__.py" else name
        for line, what in private_imports(path, set(dotted)):
            if what.rpartition(" ")[2].rpartition(".")[2].startswith("__"):
                continue  # __version__, __all__: dunders are no private names
            source = what.split()[1] if what.startswith("from ") else what.rpartition(".")[0]
            owner = dotted.get(source, source)
            owner_folder = (
                owner.rpartition(".")[0]
                if found.get(owner, Path()).name != "__init__.py"
                else owner
            )
            if not (folder and owner_folder == folder):
                problems.append(f"polars_ireval/{path.relative_to(root)}:{line}: {what}")
    return problems


def test_no_private_name_crosses_a_folder() -> None:
    problems = package_private_imports()
    assert not problems, "private names taken across modules:\n" + "\n".join(problems)


def test_the_private_name_check_sees_both_forms(tmp_path: Path) -> None:
    """``from x import _y`` and ``x._y`` are reported across folders, not inside one."""
    pkg = tmp_path / "polars_ireval"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("")
    (pkg / "a" / "one.py").write_text("_x = 1\n")
    (pkg / "a" / "two.py").write_text("from polars_ireval.a.one import _x\n")
    (pkg / "top.py").write_text(
        "from polars_ireval.a.one import _x\nfrom polars_ireval.a import one\n\none._y\n"
    )
    assert package_private_imports(pkg) == [
        "polars_ireval/top.py:1: from polars_ireval.a.one import _x",
        "polars_ireval/top.py:4: one._y",
    ]


def code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> int:
    """A function's lines of code: not blank, not only a comment, its docstring left out."""
    body = node.body
    doc = set()
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        doc = set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return sum(
        1
        for n in range(node.lineno, (node.end_lineno or node.lineno) + 1)
        if n not in doc and lines[n - 1].strip() and not lines[n - 1].strip().startswith("#")
    )


def test_no_module_over_1000_lines() -> None:
    big = [
        f"polars_ireval/{path.relative_to(PACKAGE)}: {n} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert not big, f"modules over {MAX_MODULE_LINES} lines (split them by idea):\n" + "\n".join(
        big
    )


def test_no_function_over_150_lines_of_code() -> None:
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            functions = (ast.FunctionDef, ast.AsyncFunctionDef)
            if isinstance(node, functions) and (n := code_lines(node, lines)) > MAX_FUNCTION_LINES:
                long.append(
                    f"polars_ireval/{path.relative_to(PACKAGE)}:{node.lineno}: {node.name} {n}"
                )
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines of code:\n" + "\n".join(long)
