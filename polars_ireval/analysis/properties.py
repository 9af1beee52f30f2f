"""``properties``: Moffat's seven numeric properties of a measure, audited by enumeration.

Moffat (``../shared/seeds/004_*``, "Seven numeric properties of effectiveness metrics")
characterises a measure evaluated to depth k by seven yes/no properties. :func:`properties`
decides each one for any measure string, from the measure's own implementation: it builds
every ranking of a small universe (below), scores all of them with one
:func:`polars_ireval.evaluate` call (each ranking with its collection is one synthetic
query), and reads each property off those values as the seed defines it. Nothing is looked
up in a table: a "no" comes with the rankings, R and values that decided it (a
counterexample), and a "yes" means no ranking of the universe violates the property.

The universe at depth k
    Rankings of length k + 1 (one document beyond the depth). Each position holds a
    document judged with a grade of ``grades`` (default 0, 1, 2) or an unjudged document
    (``unjudged=True``): every such ranking when there are at most ``max_queries`` of them
    (with their collections), else every binary ranking (grades 0 and the measure's
    ``rel``) and, when they fit, the rankings with one position holding another state.
    Each ranking is scored in collections with 0 to
    ``unretrieved`` (default 2) relevant documents (grade 1) that it does not retrieve, so
    R lies below, at and above k. Every query's qrels also judge one unretrieved document
    non-relevant, so that a query without relevant documents is still judged.

The properties (seed 004, section 4), as decided here
    bounded
        Every score of a binary ranking (grades 0 and ``rel``: the seed's utilities lie in
        [0, 1]) lies in
        ``bounds`` (default [0, 1], the seed's "usually"), at depths k and k + 1 and for
        the ideal ranking at depths 2k, 10k and 100k (at most 1000): DCG and SP grow with
        the depth.
    monotonic
        Extending a ranking of length k by one document never lowers the score: the
        measure at depth k + 1 on each ranking is at least the measure at depth k.
    convergent
        Swapping the document beyond the top k with a less relevant one inside the top k
        strictly raises the score at depth k.
    top_weighted
        Swapping a document inside the top k with a less relevant one above it strictly
        raises the score at depth k.
    localized
        Rankings with the same top k (grades and unjudged positions) score the same,
        whatever lies beyond k and whatever R.
    complete
        A query without relevant documents has a score: the implementation gives it a
        finite one, and (``no_relevant="forced"``, below) that score is forced.
    realizable
        In every binary collection with R >= 1 (R from 1 to k + 1 + ``unretrieved``; R
        counts the grades >= ``rel``), some ranking reaches the highest score of all binary
        rankings at depth k.

"Less relevant" is read from the measure itself: two grades are the same to a measure when
raising one to the other never changes any of its scores (P@k sees grades 1 and 2 as
relevant alike, nDCG does not), so a swap of equally relevant documents is no swap; grades
on either side of the measure's ``rel`` (the seed's binary relevance) always differ.
Unjudged documents are never swapped. Two scores closer than :data:`TOLERANCE` times the
larger of their magnitudes are equal (rounding error), so that a rise as small as RBP(p=0.1)'s
9e-10 at rank 10 counts.

The seed's footnotes are options:

- ``residual="lower"`` (footnote a): a measure with a residual (RBP, P, SDCG, the C/W/L
  measures) scores the lower end of its range, the value :func:`evaluate` reports;
  ``"upper"`` scores value + residual, the other end (RBP then is not monotonic).
- ``no_relevant="forced"`` (section 4(6), footnotes c and d): a query without relevant
  documents has a score only when that score is forced, that is when raising any
  judgment (a retrieved document's grade, or one more relevant document unretrieved)
  never lowers the score, so that the query without relevant documents is the worst one
  and scores the measure's least value (0 for RR@k, footnote c). A measure normalised by
  the query (AP, R, nDCG, RPrec) or by its own top k (SN-DCG, SN-AP: footnote d) loses
  score when a relevant document appears, so its score with none is only a convention
  ("a score of 1.0 is no less appropriate", seed) and it is not complete.
  ``"scored"`` takes the implementation's value at R = 0 (trec_eval's 0) as a score: every
  measure that returns one is complete. This is not :func:`evaluate`'s ``no_relevant``
  policy, though related: the audit always evaluates with ``no_relevant="zero"`` (the
  convention ``"scored"`` accepts, and the finite values every other property compares),
  and ``"forced"`` finds incomplete the measures whose value at R = 0 is a convention,
  among them every measure declared normalised by R (``by_r``), the measures for which
  ``evaluate(..., no_relevant="nan" | "skip" | "error")`` changes something.

The universe is :mod:`polars_ireval.analysis.property_universe`, the seven checks
:mod:`polars_ireval.analysis.property_checks`; this module is the front door, the audit of
each depth (one :func:`evaluate` of the universe) and the result, :class:`Properties`.

Examples
--------
>>> import polars_ireval as ir
>>> ir.properties(["P@5", "RR@5"]).frame
shape: (2, 8)
┌─────────┬─────────┬───────────┬────────────┬──────────────┬───────────┬──────────┬────────────┐
│ measure ┆ bounded ┆ monotonic ┆ convergent ┆ top_weighted ┆ localized ┆ complete ┆ realizable │
│ ---     ┆ ---     ┆ ---       ┆ ---        ┆ ---          ┆ ---       ┆ ---      ┆ ---        │
│ str     ┆ bool    ┆ bool      ┆ bool       ┆ bool         ┆ bool      ┆ bool     ┆ bool       │
╞═════════╪═════════╪═══════════╪════════════╪══════════════╪═══════════╪══════════╪════════════╡
│ P@5     ┆ true    ┆ false     ┆ true       ┆ false        ┆ true      ┆ true     ┆ false      │
│ RR@5    ┆ true    ┆ true      ┆ false      ┆ false        ┆ true      ┆ true     ┆ true       │
└─────────┴─────────┴───────────┴────────────┴──────────────┴───────────┴──────────┴────────────┘
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_ireval._base.resources import require
from polars_ireval.analysis.property_checks import (
    CHECKS,
    PROPERTIES,
    TOLERANCE,
    VIOLATION_SCHEMA,
    at_depth,
    scores_on,
)
from polars_ireval.analysis.property_universe import (
    UNJUDGED,
    probe_depths,
    universe,
    universe_inputs,
)
from polars_ireval.errors import ParameterError
from polars_ireval.evaluate import evaluate
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.registry import Measure

__all__ = ["PROPERTIES", "TOLERANCE", "UNJUDGED", "Properties", "explain_row", "properties", "show"]

Residual = Literal["lower", "upper"]
NoRelevant = Literal["forced", "scored"]


@dataclass(frozen=True, repr=False)
class Properties:
    """What :func:`properties` decided.

    Attributes
    ----------
    frame : polars.DataFrame
        One row per measure: ``measure`` (the string asked for), then one boolean per
        property (:data:`PROPERTIES`; null for a property not audited).
    counterexamples : polars.DataFrame
        One row per failing (measure, property): the violation that decided it (the
        worst one found). A violation compares scenario ``a`` with scenario ``b``: each is a
        ranking (a string of grades, :data:`UNJUDGED` for an unjudged document, of length
        k + 1), the depth it is scored at, the number of relevant documents the collection
        holds unretrieved (grade 1), R (documents judged with a grade >= the measure's
        ``rel``, 1 by default) and the score; ``a_measure``/``b_measure`` are the measure
        strings at those depths, so ``evaluate`` reproduces each value. ``margin`` is how
        badly the property fails (0 for a tie where a strict rise was required). Bounded
        and complete failures with a single scenario leave ``b_*`` null. With
        ``residual="upper"`` the scores are value + residual (``evaluate(...,
        residuals=True)``).
    violations : polars.DataFrame
        Every violation found (same columns), worst first per (measure, property), at most
        ``max_violations`` of each.
    options : dict
        The options of the audit.
    explain : bool
        Whether the text renderings list each counterexample.
    """

    frame: pl.DataFrame
    counterexamples: pl.DataFrame
    violations: pl.DataFrame
    options: Mapping[str, Any] = field(default_factory=dict)
    explain: bool = False

    def verdict(self, measure: str, prop: str) -> bool | None:
        """The verdict on ``prop`` for ``measure`` (the string asked for)."""
        _check_properties([prop])
        rows = self.frame.filter(pl.col("measure") == measure)
        if rows.height == 0:
            raise ParameterError(
                f"measure {measure!r} was not audited; audited: {self.frame['measure'].to_list()}"
            )
        return rows[prop].item()

    def counterexample(self, measure: str, prop: str) -> dict[str, Any] | None:
        """The counterexample of a failing ``prop`` for ``measure`` (None when it holds)."""
        self.verdict(measure, prop)
        rows = self.counterexamples.filter(
            (pl.col("measure") == measure) & (pl.col("property") == prop)
        )
        return rows.row(0, named=True) if rows.height else None

    def to_text(self, explain: bool | None = None) -> str:
        """An aligned table of yes/no, then (with ``explain``) one sentence per failure."""
        table = _aligned(self._cells())
        return table + self._explanations(explain, bullet="")

    def to_markdown(self, explain: bool | None = None) -> str:
        """A Markdown table, then (with ``explain``) one bullet per failure."""
        cells = self._cells()
        lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * len(cells[0])]
        lines += ["| " + " | ".join([f"`{r[0]}`", *r[1:]]) + " |" for r in cells[1:]]
        return "\n".join(lines) + self._explanations(explain, bullet="- ")

    def to_json(self) -> str:
        """The verdicts, the counterexamples and the options as one JSON document."""
        return json.dumps(
            {
                "options": dict(self.options),
                "properties": self.frame.to_dicts(),
                "counterexamples": self.counterexamples.to_dicts(),
            },
            indent=2,
        )

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return self.to_text()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _cells(self) -> list[list[str]]:
        header = ["measure", *PROPERTIES]
        rows = [header]
        for row in self.frame.iter_rows(named=True):
            rows.append([row["measure"], *(_yes_no(row[p]) for p in PROPERTIES)])
        return rows

    def _explanations(self, explain: bool | None, bullet: str) -> str:
        if not (self.explain if explain is None else explain):
            return ""
        lines = [bullet + explain_row(r) for r in self.counterexamples.iter_rows(named=True)]
        return ("\n\n" + "\n".join(lines)) if lines else ""


def _yes_no(v: bool | None) -> str:
    return "—" if v is None else ("yes" if v else "no")


def _aligned(cells: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells
    )


def show(ranking: str, depth: int) -> str:
    """A ranking with a bar after its top ``depth`` documents: ``"11111|0"``."""
    return ranking if depth >= len(ranking) else f"{ranking[:depth]}|{ranking[depth:]}"


def explain_row(r: Mapping[str, Any]) -> str:
    """One sentence for one counterexample (a row of :attr:`Properties.counterexamples`)."""
    a = f"{show(r['a_ranking'], r['a_depth'])} (R={r['a_R']})"
    va = _num(r["a_value"])
    prop, m = r["property"], r["measure"]
    if r["b_ranking"] is None:
        if prop == "bounded":
            return f"{m} is not bounded: {r['a_measure']} of {a} is {va}, outside the bounds"
        return f"{m} is not complete: {r['a_measure']} of {a}, without relevant document, is {va}"
    b = f"{show(r['b_ranking'], r['b_depth'])} (R={r['b_R']})"
    vb = _num(r["b_value"])
    text = {
        "monotonic": f"{r['a_measure']} of {a} is {va}; extended, {r['b_measure']} of {b} is "
        f"{vb}, lower",
        "convergent": f"swapping a more relevant document from beyond the top "
        f"{r['a_depth']} into it, {a} -> {b}, moves {r['a_measure']} from {va} to {vb}, "
        "not higher",
        "top_weighted": f"swapping a more relevant document up within the top "
        f"{r['a_depth']}, {a} -> {b}, moves {r['a_measure']} from {va} to {vb}, not higher",
        "localized": f"{a} and {b} share their top {r['a_depth']} but {r['a_measure']} scores "
        f"them {va} and {vb}",
        "complete": f"raising a judgment, {a} -> {b}, lowers {r['a_measure']} from {va} to "
        f"{vb}, so the score of a query without relevant documents is not forced",
        "realizable": f"with R={r['a_R']} the best ranking, {a}, scores {va} with "
        f"{r['a_measure']}, below its maximum {vb} ({b})",
    }[prop]
    return f"{m} is not {prop.replace('_', '-')}: {text}"


def _num(v: float | None) -> str:
    return "null" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.6g}"


# --------------------------------------------------------------------------- checks


def _check_properties(props: Iterable[str]) -> list[str]:
    out = []
    for p in props:
        if p not in PROPERTIES:
            raise ParameterError(
                f"unknown property {p!r}; the properties are {', '.join(PROPERTIES)}"
            )
        out.append(p)
    if not out:
        raise ParameterError(
            f"properties=[]: name at least one of {', '.join(PROPERTIES)} (or None for all)"
        )
    return out


def _depth(m: Measure) -> int:
    if m.defn.cutoff != "k":
        raise ParameterError(
            f"{m.label}: {m.name} has no depth cutoff (@k), and the audit scores a measure at "
            "a depth k and at k + 1; audit a measure with one, e.g. 'P@5' or 'nDCG@5'"
        )
    k = m.params.get("k")
    if not isinstance(k, int) or isinstance(k, bool):
        raise ParameterError(
            f"{m.label}: the audit scores the measure at a depth k and at k + 1; give its "
            f"cutoff, e.g. '{m.label}@5'"
        )
    return k


# --------------------------------------------------------------------------- the audit


def properties(
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    properties: str | Sequence[str] | None = None,
    explain: bool = False,
    grades: Sequence[int] = (0, 1, 2),
    unjudged: bool = True,
    unretrieved: int = 2,
    bounds: tuple[float, float] = (0.0, 1.0),
    residual: Residual = "lower",
    no_relevant: NoRelevant = "forced",
    max_queries: int = 100_000,
    max_violations: int = 100_000,
) -> Properties:
    """Decide Moffat's seven properties (seed 004) of each measure by enumeration.

    Parameters
    ----------
    measures
        Measure strings with a depth cutoff (``"nDCG@5"``, ``"RBP(p=0.8)@5"``), as a list
        or one whitespace-separated string. Each is audited at its own depth k.
    properties
        The properties to decide (default: all seven, :data:`PROPERTIES`); the others are
        null in the frame.
    explain
        Render each failing property's counterexample in the text and Markdown outputs
        (the counterexamples are in the result either way).
    grades
        The grades a judged document takes in the universe (default 0, 1, 2; single
        digits, 0 and 1 included).
    unjudged
        Also place unjudged documents in the rankings (default True).
    unretrieved
        The most relevant documents (grade 1) a collection holds unretrieved (default 2):
        R then ranges from 0 to k + 1 + ``unretrieved``.
    bounds
        The interval a bounded measure stays in (default [0, 1]).
    residual
        ``"lower"`` (default, seed footnote a): a measure with a residual scores the lower
        end of its range (the value); ``"upper"``: value + residual.
    no_relevant
        ``"forced"`` (default, the seed): a query without relevant documents has a score
        only when raising a judgment never lowers the measure; ``"scored"``: the value the
        implementation gives it (trec_eval's 0) counts.
    max_queries
        The most synthetic queries per depth (see the module's notes on the universe).
    max_violations
        The most violations kept per measure and property.

    Returns
    -------
    Properties
        ``.frame`` (``measure`` and one boolean per property), ``.counterexamples``,
        ``.violations``; ``str()`` is an aligned table, ``.to_markdown()``, ``.to_json()``.

    Raises
    ------
    ParameterError
        A measure without a depth cutoff (``"AP"``, ``"Bpref"``), an unknown property, or a
        bad option.
    ResourceError
        When a depth's synthetic queries (up to ``max_queries``) would exceed the memory
        budget (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``).

    Examples
    --------
    Seed 004, section 4(3): SN-AP@5 of "10000" is 1, of "10001" 0.7, so SN-AP is not
    convergent; RR@5 is not either ("01000" and "01100" score the same).

    >>> import polars as pl, polars_ireval as ir
    >>> out = ir.properties(["AP(norm='self')@5", "RR@5"], properties="convergent")
    >>> print(out)
    measure            bounded  monotonic  convergent  top_weighted  localized  complete  realizable
    AP(norm='self')@5  —        —          no          —             —          —         —
    RR@5               —        —          no          —             —          —         —
    >>> cx = out.counterexample("AP(norm='self')@5", "convergent")
    >>> [cx[c] for c in ("a_ranking", "a_value", "b_ranking", "b_value")]
    ['100001', 1.0, '100010', 0.7]

    ``explain=True`` (or ``to_text(explain=True)``) adds a sentence per failure:

    >>> print(out.to_text(explain=True).splitlines()[4][:72])
    AP(norm='self')@5 is not convergent: swapping a more relevant document f

    Every violation is kept: the seed's own RR pair is among them.

    >>> seed = out.violations.filter(
    ...     pl.col("measure") == "RR@5", pl.col("a_ranking").str.starts_with("01000"),
    ...     pl.col("b_ranking").str.starts_with("01100"), pl.col("a_R") == 2)
    >>> seed.select("a_ranking", "b_ranking", "a_value", "b_value").row(0)
    ('010001', '011000', 0.5, 0.5)
    """
    wanted = _check_properties(
        PROPERTIES if properties is None else [properties] if isinstance(properties, str)
        else properties
    )  # fmt: skip
    options = _check_options(
        grades, unjudged, unretrieved, bounds, residual, no_relevant, max_queries, max_violations
    )
    parsed = parse_measures(measures)
    depths = {m.label: _depth(m) for m in parsed}
    rows: list[dict[str, Any]] = []
    found: list[pl.DataFrame] = []
    for k in sorted(set(depths.values())):
        group = [m for m in parsed if depths[m.label] == k]
        verdicts, at_k = _audit_depth(k, group, wanted, options)
        rows += verdicts
        found += at_k
    order = {m.label: i for i, m in enumerate(parsed)}
    frame = pl.DataFrame(
        sorted(rows, key=lambda r: order[r["measure"]]),
        schema={"measure": pl.String, **{p: pl.Boolean for p in PROPERTIES}},
    )
    violations = (
        (pl.concat(found) if found else pl.DataFrame(schema=VIOLATION_SCHEMA))
        .with_columns(
            pl.col("measure").replace_strict(order, return_dtype=pl.Int64).alias("_m"),
            pl.col("property")
            .replace_strict({p: i for i, p in enumerate(PROPERTIES)}, return_dtype=pl.Int64)
            .alias("_p"),
        )
        .sort("_m", "_p", maintain_order=True)
        .drop("_m", "_p")
    )
    counter = violations.group_by("measure", "property", maintain_order=True).head(1)
    return Properties(frame, counter, violations, options, explain)


def _check_options(
    grades: Sequence[int],
    unjudged: bool,
    unretrieved: int,
    bounds: tuple[float, float],
    residual: str,
    no_relevant: str,
    max_queries: int,
    max_violations: int,
) -> dict[str, Any]:
    gs = tuple(grades) if not isinstance(grades, (str, bytes)) else ()
    if (
        not gs
        or not all(isinstance(g, int) and not isinstance(g, bool) and 0 <= g <= 9 for g in gs)
        or len(set(gs)) != len(gs)
        or 0 not in gs
        or 1 not in gs
    ):
        raise ParameterError(
            f"grades={grades!r} is invalid; give distinct single-digit grades including 0 "
            "and 1, e.g. (0, 1, 2)"
        )
    if not isinstance(unjudged, bool):
        raise ParameterError(f"unjudged={unjudged!r} is invalid; it must be True or False")
    for name, v, least in (
        ("unretrieved", unretrieved, 1),
        ("max_queries", max_queries, 1),
        ("max_violations", max_violations, 1),
    ):
        if not isinstance(v, int) or isinstance(v, bool) or v < least:
            raise ParameterError(f"{name}={v!r} is invalid; it must be an integer >= {least}")
    ok = (
        isinstance(bounds, (tuple, list))
        and len(bounds) == 2
        and all(isinstance(b, (int, float)) and math.isfinite(b) for b in bounds)
        and bounds[0] < bounds[1]
    )
    if not ok:
        raise ParameterError(f"bounds={bounds!r} is invalid; give (low, high), e.g. (0.0, 1.0)")
    if residual not in ("lower", "upper"):
        raise ParameterError(f"residual={residual!r} is invalid; it must be 'lower' or 'upper'")
    if no_relevant not in ("forced", "scored"):
        raise ParameterError(
            f"no_relevant={no_relevant!r} is invalid; it must be 'forced' or 'scored'"
        )
    return {
        "grades": sorted(gs),
        "unjudged": unjudged,
        "unretrieved": unretrieved,
        "bounds": [float(bounds[0]), float(bounds[1])],
        "residual": residual,
        "no_relevant": no_relevant,
        "max_queries": max_queries,
        "max_violations": max_violations,
    }


#: Bytes per ranked document of the universe (the run, the qrels, two evaluations and
#: their pivot): nDCG@9 on 2,097,152 queries of 10 ranks (max_queries=10**7) took 8.9 GB
#: of peak RSS; each further measure of the same depth adds a half or less (nDCG, P and AP
#: at depth 9 on 22,528 queries: 280 MB, nDCG alone 208 MB).
_UNIVERSE_ROW_BYTES = 450


def _audit_depth(
    k: int, group: list[Measure], wanted: list[str], options: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[pl.DataFrame]]:
    """Every measure of ``group`` (all at depth k) scored on one universe in one call (and
    the ideal rankings of the probe depths in another)."""
    rels = [m.params.get("rel", 1) for m in group]
    u = universe(
        k, options["grades"], options["unjudged"], options["unretrieved"], options["max_queries"],
        [r if isinstance(r, int) and not isinstance(r, bool) else 1 for r in rels],
    )  # fmt: skip
    rows = u.queries * u.n
    require(
        f"the audit of {', '.join(m.label for m in group)} at depth {k} on {u.queries:,} "
        "synthetic queries",
        rows * _UNIVERSE_ROW_BYTES * (1 + (len(group) - 1) / 2),
        how=f"{rows:,} ranked documents x {_UNIVERSE_ROW_BYTES} bytes, half more a measure more",
        fix="lower max_queries (default 100,000) or the depth",
    )
    probes = probe_depths(k) if "bounded" in wanted else []
    asked: list[Measure] = []
    probed: list[Measure] = []
    for i, m in enumerate(group):
        asked += [at_depth(m, k, f"m{i}@{k}"), at_depth(m, k + 1, f"m{i}@{k + 1}")]
        probed += [at_depth(m, d, f"m{i}@{d}") for d in probes]
    run, qrels = universe_inputs(u, probes)
    upper = options["residual"] == "upper"

    def scored(measures: list[Measure], probe: bool) -> pl.DataFrame:
        # the universe at depths k and k + 1, and apart the few ideal rankings at the probe
        # depths (up to 1000: scoring every query there would cost far more)
        keep = (pl.col("query_id").cast(pl.Int64) >= u.queries) == probe
        # trec_eval's 0 at R = 0 is the score under audit (see ``no_relevant`` in the notes)
        return evaluate(run.filter(keep), qrels.filter(keep), measures, per_query=True,
                        residuals=upper, no_relevant="zero")  # fmt: skip

    long = scored(asked, probe=False)
    if probes:
        long = pl.concat([long, scored(probed, probe=True)], how="diagonal_relaxed")
    score = pl.col("value")
    if upper:
        score = score + pl.col("residual").fill_null(0.0)
    wide = (
        long.select(pl.col("query_id").cast(pl.Int64), "measure", score.alias("v"))
        .pivot(on="measure", index="query_id", values="v")
        .sort("query_id")
    )
    total = u.queries + len(probes)
    if wide.height != total or wide["query_id"].to_list()[-1] != total - 1:  # pragma: no cover
        raise RuntimeError("the audit lost synthetic queries; please report this")
    strings = u.strings()
    verdicts, found = [], []
    for i, m in enumerate(group):

        def values(depth: int, i: int = i) -> np.ndarray:
            return wide[f"m{i}@{depth}"].cast(pl.Float64).fill_null(np.nan).to_numpy()

        scores = scores_on(
            u,
            m,
            values(k),
            values(k + 1),
            probes={d: values(d)[u.queries + j] for j, d in enumerate(probes)},
            strings=strings,
            options=options,
        )
        row: dict[str, Any] = {"measure": m.label, **dict.fromkeys(PROPERTIES)}
        for prop in wanted:
            got = CHECKS[prop](scores)
            row[prop] = got is None
            if got is not None:
                found.append(got.with_columns(pl.lit(prop).alias("property")))
        verdicts.append(row)
    return verdicts, [f.select(list(VIOLATION_SCHEMA)) for f in found]
