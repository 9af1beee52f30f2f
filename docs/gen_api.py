"""Write ``docs/reference/api.md``, the reference of ``polars_ireval``'s public names
(``polars_ireval.__all__``), in the order a user reads them: evaluate, the readers, measure
strings, comparing systems, curves, judgments, agreement, the measure expressions, errors.
Each section opens with a table of its names and their one-line summaries, then each name's
docstring (mkdocstrings, from the module that defines it). ``python docs/gen_api.py``;
``tests/test_site.py`` fails when the page is stale or a public name is missing from it.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent / "reference" / "api.md"

#: (section, what it holds, names). Every name of ``polars_ireval.__all__`` is in exactly
#: one (the measure expressions: every name not listed elsewhere that the registry knows).
SECTIONS: list[tuple[str, str, list[str]]] = [
    (
        "Evaluate",
        "Runs scored against qrels: one lazy query per engine.",
        ["evaluate", "evaluate_out_of_core", "evaluate_table", "judge", "coverage", "condense"],
    ),
    (
        "Read and write",
        "TREC text, gzip, Parquet and frames in; checked frames out.",
        [
            "read_run",
            "read_qrels",
            "validate_run",
            "validate_qrels",
            "read_preferences",
            "write_run",
            "read_pool",
            "write_pool",
            "run_tag",
            "example_path",
            "fetch",
            "datasets",
        ],
    ),
    (
        "Measure strings",
        "ir_measures-style strings and trec_eval names, parsed, never evaluated.",
        ["parse_measure", "parse_measures", "known_names", "definitions", "Measure", "MeasureDef"],
    ),
    (
        "Compare systems",
        "Significance tests, corrections, power and the tables a paper prints.",
        [
            "compare",
            "report",
            "Report",
            "compare_bounds",
            "adjust_p_values",
            "topic_set_size",
            "tie_sensitivity",
        ],
    ),
    (
        "Fuse runs",
        "Several runs into one (the Comb family, RRF and the rank-based methods), and the "
        "normalisations of a run's scores.",
        ["fuse", "normalize", "optimize_fusion", "FusionTuning"],
    ),
    (
        "Curves",
        "Recall-precision, ROC, confusion counts and measures by evaluation depth.",
        ["pr_curve", "roc_curve", "confusion", "depth_curve"],
    ),
    (
        "Judgments and pools",
        "What to judge next, what a budget buys, how deep the judgments go.",
        [
            "pool",
            "pool_depths",
            "simulate_judging",
            "JudgingSimulation",
            "judged_depth",
            "depth_qrels",
            "ap_pooled",
            "volatility",
            "Volatility",
        ],
    ),
    (
        "Agreement, properties and users",
        "Orderings compared, seed 004's seven properties, agreement with user preferences.",
        [
            "agreement",
            "Agreement",
            "rbo",
            "RBO",
            "properties",
            "Properties",
            "pir",
            "simulate_sessions",
            "Sessions",
        ],
    ),
]
MEASURES = (
    "Measure expressions",
    "Each measure as a Polars expression over the evaluation table (`ir.judge`), the same "
    "declaration `evaluate`'s strings name (docs/measures.md lists the strings).",
)
ERRORS = (
    "Errors and warnings",
    "Every error the package raises is an `IrevalError` (a `ValueError`), named for what went "
    "wrong; each message names the file, line or value and the way out.",
)


def _members(name: str) -> list[str]:
    """A class's public methods and properties, in source order: not its fields, whose
    default values (an int, a bool) would be documented by Python's own docstrings of
    ``int`` or ``bool``; the class docstring's Attributes section describes them."""
    import polars_ireval as ir

    cls = getattr(ir, name)
    return [
        m for m, v in vars(cls).items()
        if not m.startswith("_")
        and (inspect.isfunction(v) or isinstance(v, (property, classmethod, staticmethod)))
    ]  # fmt: skip


def _is_class(name: str) -> bool:
    import polars_ireval as ir

    return inspect.isclass(getattr(ir, name))


def _is_error(obj: object) -> bool:
    return inspect.isclass(obj) and issubclass(obj, (Exception, Warning))


def sections() -> list[tuple[str, str, list[str]]]:
    """Every public name in its section (the listed ones, then measures and errors)."""
    import polars_ireval as ir

    public = [n for n in ir.__all__ if n != "REGISTRY"]
    listed = {n for _, _, names in SECTIONS for n in names}
    errors = [n for n in public if n not in listed and _is_error(getattr(ir, n))]
    errors.sort(key=lambda n: (n != "IrevalError", n))
    measures = [n for n in public if n not in listed and n not in errors]
    return [*SECTIONS, (*MEASURES, measures), (*ERRORS, errors)]


def _path(name: str) -> str:
    """Where mkdocstrings finds ``name``: its defining module (the package's re-export
    would hide the functions named like their modules, as ``evaluate``)."""
    import polars_ireval as ir

    obj = getattr(ir, name)
    module = getattr(obj, "__module__", "polars_ireval")
    return f"{module}.{getattr(obj, '__qualname__', name)}"


_ROLE = re.compile(r":(?:func|class|meth|attr|mod|data|exc):`~?([^`]+)`")


def _summary(name: str) -> str:
    """The docstring's first sentence, in Markdown (reST roles and double backticks gone)."""
    import polars_ireval as ir

    doc = inspect.getdoc(getattr(ir, name)) or ""
    text = doc.split("\n\n")[0].replace("\n", " ").strip()
    text = _ROLE.sub(lambda m: f"`{m.group(1).split('.')[-1]}`", text).replace("``", "`")
    sentence = re.match(r"(.+?\.)(\s|$)", text)
    if sentence is not None and len(text) > 110:
        text = sentence.group(1)
    return text.replace("|", "\\|")


def _anchor(path: str) -> str:
    return path.replace(" ", "-")


def render() -> str:
    """The Markdown text of ``docs/reference/api.md``."""
    out = [
        "# API: `polars_ireval`",
        "",
        "Generated from `polars_ireval.__all__` and the docstrings by `python "
        "docs/gen_api.py`; do not edit. In the order a user reads them; every name is "
        "`ir.NAME` after `import polars_ireval as ir`.",
        "",
        "```python",
        "import polars_ireval as ir",
        "",
        'runs = ir.read_run(ir.example_path("runs"), run_id="file")',
        'qrels = ir.read_qrels(ir.example_path("qrels.txt"))',
        'results = ir.evaluate(runs, qrels, ["nDCG@10", "AP"], per_query=True)',
        'cmp = ir.compare(results, baseline="bm25", correction="holm")',
        "print(ir.report(results, cmp).to_text())",
        "```",
    ]
    for title, what, names in sections():
        out += ["", f"## {title}", "", what, "", "| name | what it does |", "|---|---|"]
        out += [f"| [`{n}`](#{_anchor(_path(n))}) | {_summary(n)} |" for n in names]
        for n in names:
            out += ["", f"::: {_path(n)}", "    options:", "      heading_level: 3"]
            if _is_class(n):  # a field's default value is not its documentation
                members = _members(n)
                out += (
                    ["      members:", *(f"        - {m}" for m in members)]
                    if members
                    else ["      members: false"]
                )
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(PAGE.parent.parent.parent))
    PAGE.write_text(render(), encoding="utf-8")
    print(PAGE)
