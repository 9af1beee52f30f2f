"""Render ``docs/measures.md`` from the measure registry.

``python -m polars_ireval._docs > docs/measures.md`` regenerates it; a test fails when the
file is out of date, so the documentation cannot drift from the declarations.
"""

from __future__ import annotations

import inspect

from polars_ireval import measures as _measures  # noqa: F401  (registers every measure)
from polars_ireval.registry import MeasureDef, definitions

_AGG = {
    "mean": "mean over queries",
    "sum": "sum over queries",
    "gmean": "geometric mean over queries (values floored at 1e-5)",
}


def _default(value: object) -> str:
    if value is inspect.Parameter.empty:
        return "required"
    return f"``{value!r}``"


def _trec_names(defn: MeasureDef) -> str:
    names = []
    for t in defn.trec:
        if t.kind == "list":
            shown = ",".join(t.fmt(v) for v in t.defaults)
            names.append(f"`{t.name}` (`{t.name}.{shown}`)")
        elif t.kind == "whole":
            names.append(f"`{t.name}`, `{t.name}.<params>`")
        else:
            names.append(f"`{t.name}`")
    return ", ".join(names) or "—"


def _unjudged(defn: MeasureDef) -> str:
    flag = defn.unjudged
    if callable(flag):
        why = " ".join((inspect.getdoc(flag) or "").split())
        return f"needed for some parameter values ({why.rstrip('.')})"
    if flag:
        return "needed (their number or ranks change the value)"
    return (
        "not needed (the value comes from the judged documents and their ranks; "
        "`evaluate` then builds the evaluation table of the judged documents only)"
    )


def render() -> str:
    """The Markdown text of ``docs/measures.md``."""
    out = [
        "# Measures",
        "",
        "Generated from the measure registry by `python -m polars_ireval._docs`; do not edit.",
        "",
        "Each measure is declared once (`polars_ireval/measures/`). A measure string names it",
        "in ir_measures' grammar (`Name(param=value)@cutoff`) or by its trec_eval name; the",
        "free function of the same Python name returns its per-query `pl.Expr`.",
        "",
        "| measure | trec_eval names | aliases | aggregate | residual | SQL | summary |",
        "|---|---|---|---|---|---|---|",
    ]
    defs = list(definitions())
    for d in defs:
        aliases = ", ".join(f"`{a}`" for a in d.aliases) or "—"
        out.append(
            f"| [`{d.name}`](#{d.name.lower()}) | {_trec_names(d)} | {aliases} | "
            f"{d.aggregate} | {'yes' if d.residual is not None else '—'} | "
            f"{'—' if d.sql is None else 'yes'} | {d.summary} |"
        )
    for d in defs:
        out += ["", f"## {d.name}", "", f"Python: `polars_ireval.{d.build.__name__}`", ""]
        out += [line for line in d.doc.splitlines()]
        out += ["", "| parameter | default |", "|---|---|"]
        out += [f"| `{p.name}` | {_default(p.default)} |" for p in d.params] or ["| — | |"]
        cutoff = f"`@` sets `{d.cutoff}`" if d.cutoff else "no `@` cutoff"
        out += ["", f"Aggregate: {_AGG[d.aggregate]}; {cutoff}; trec_eval: {_trec_names(d)}."]
        residual = "yes" if d.residual is not None else "none"
        sql = (
            "not yet (Polars engine only)"
            if d.sql is None
            else "DuckDB and Spark, every parameter (`sql/`; see docs/sql.md)"
        )
        out += ["", f"Residual (`residuals=True`): {residual}. SQL engines: {sql}."]
        out += ["", f"Unjudged retrieved documents: {_unjudged(d)}."]
        if d.cite:
            out += ["", f"Reference: {d.cite}."]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(), end="")
