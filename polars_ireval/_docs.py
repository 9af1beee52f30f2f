"""Render ``docs/measures.md`` from the measure registry.

``python -m polars_ireval._docs > docs/measures.md`` regenerates it; a test fails when the
file is out of date, so the documentation cannot drift from the declarations.

Each measure's seven numeric properties come from ``docs/properties.json``, the audit's
data that ``tests/tools/make_properties_page.py`` computes once (the enumeration takes
seconds) and ``docs/properties.md`` is rendered from as well; that script rewrites this page
too.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from polars_ireval import measures as _measures  # noqa: F401  (registers every measure)
from polars_ireval.analysis.properties import PROPERTIES, explain_row
from polars_ireval.registry import MeasureDef, definitions

#: The properties audit's data, in a source checkout (see the module notes).
PROPERTIES_DATA = Path(__file__).resolve().parents[1] / "docs" / "properties.json"
_REMAKE = "run `python tests/tools/make_properties_page.py`"

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


def _markdown(doc: str) -> list[str]:
    """A numpy docstring as Markdown: section headings in bold, parameters as a list,
    doctest sessions fenced (so ``x[0]`` in an example is code, not a link)."""
    lines = doc.splitlines()
    out: list[str] = []
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and nxt.strip() and set(nxt.strip()) == {"-"}:
            section = line.strip()
            out += [f"**{section}**", ""]
            i += 2
            continue
        if line.startswith(">>>"):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += ["```pycon", *block, "```"]
            continue
        if section == "Parameters" and line.strip() and not line.startswith(" "):
            desc = []
            i += 1
            while i < len(lines) and lines[i].startswith(" "):
                desc.append(lines[i].strip())
                i += 1
            out.append(f"- `{line.strip()}`: {' '.join(desc)}")
            continue
        out.append(line)
        i += 1
    return out


def _properties(defn: MeasureDef, data: Mapping[str, Any]) -> list[str]:
    """The measure's verdicts at the audited depth, each "no" with its counterexample, or
    why it was not audited."""
    depth = data["depth"]
    skipped = {s["name"]: s["why"] for s in data["not_audited"]}
    if defn.name in skipped:
        why = skipped[defn.name]
        how = (
            "the audit scores a measure at a depth k and at k + 1"
            if why == "no depth cutoff"
            else "the audit takes every parameter but the depth at its default"
        )
        return [
            f"Properties: not audited ({why}: {how}; see "
            "[Seven numeric properties](properties.md))."
        ]
    label = f"{defn.name}@{depth}"
    rows = [r for r in data["measures"] if r["measure"] == label]
    if len(rows) != 1:
        raise RuntimeError(f"{PROPERTIES_DATA} has no verdicts for {label!r}: {_REMAKE}")
    out = [
        f"Properties at depth {depth} (`{label}`, every other parameter at its default; what "
        "each one means and how it is decided: [Seven numeric properties]"
        "(properties.md#the-properties-as-decided)):",
        "",
        "| " + " | ".join(PROPERTIES) + " |",
        "|" + "---|" * len(PROPERTIES),
        "| " + " | ".join("yes" if rows[0][p] else "no" for p in PROPERTIES) + " |",
    ]
    found = [c for c in data["counterexamples"] if c["measure"] == label]
    if found:
        out += ["", "Counterexamples (rankings of grades, `?` unjudged, `|` after the depth):", ""]
        out += [f"- {explain_row(c)}" for c in found]
    return out


def render(properties_data: Mapping[str, Any] | None = None) -> str:
    """The Markdown text of ``docs/measures.md``.

    ``properties_data``: the properties audit's data (default: ``docs/properties.json``).
    """
    data = json.loads(PROPERTIES_DATA.read_text()) if properties_data is None else properties_data
    out = [
        "# Measures",
        "",
        "Generated from the measure registry by `python -m polars_ireval._docs`; do not edit.",
        "",
        "Each measure is declared once (`polars_ireval/measures/`). A measure string names it",
        "in ir_measures' grammar (`Name(param=value)@cutoff`) or by its trec_eval name; the",
        "free function of the same Python name returns its per-query `pl.Expr`. The first",
        "column is the ir_measures name; trec_eval names are accepted as aliases. How each",
        "measure behaves numerically (bounded, realizable, monotone...) is audited in",
        "[Seven numeric properties of a measure](properties.md).",
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
        out += _markdown(d.doc)
        out += ["", "| parameter | default |", "|---|---|"]
        out += [f"| `{p.name}` | {_default(p.default)} |" for p in d.params] or ["| — | |"]
        cutoff = f"`@` sets `{d.cutoff}`" if d.cutoff else "no `@` cutoff"
        out += ["", f"Aggregate: {_AGG[d.aggregate]}; {cutoff}; trec_eval: {_trec_names(d)}."]
        residual = "yes" if d.residual is not None else "none"
        sql = (
            "not yet (Polars engine only)"
            if d.sql is None
            else "DuckDB and Spark, every parameter (`sql/`; see [SQL](sql.md))"
        )
        out += ["", f"Residual (`residuals=True`): {residual}. SQL engines: {sql}."]
        out += ["", f"Unjudged retrieved documents: {_unjudged(d)}."]
        ir_name = f"`{d.name}@{{{d.cutoff}}}`" if d.cutoff else f"`{d.name}`"
        out += ["", f"ir_measures string: {ir_name} (parameters as `{d.name}(name=value)`)."]
        out += ["", *_properties(d, data)]
        if d.cite:
            out += ["", f"Reference: {d.cite}."]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(), end="")
