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

import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_ireval._base.numeric import RELATIVE_TOLERANCE
from polars_ireval._base.resources import require
from polars_ireval.errors import ParameterError
from polars_ireval.evaluate import evaluate
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.registry import JUDGED_ONLY, Measure

#: The seven properties, in the seed's order (the columns of :attr:`Properties.frame`).
PROPERTIES = (
    "bounded",
    "monotonic",
    "convergent",
    "top_weighted",
    "localized",
    "complete",
    "realizable",
)
#: Two scores closer than this times the larger of their magnitudes are equal (relative,
#: :data:`polars_ireval._base.numeric.RELATIVE_TOLERANCE`).
TOLERANCE = RELATIVE_TOLERANCE
#: The character of an unjudged document in a ranking string ("01?10").
UNJUDGED = "?"

Residual = Literal["lower", "upper"]
NoRelevant = Literal["forced", "scored"]

_VIOLATION_SCHEMA = {
    "measure": pl.String,
    "property": pl.String,
    "a_measure": pl.String,
    "a_ranking": pl.String,
    "a_depth": pl.Int64,
    "a_unretrieved": pl.Int64,
    "a_R": pl.Int64,
    "a_value": pl.Float64,
    "b_measure": pl.String,
    "b_ranking": pl.String,
    "b_depth": pl.Int64,
    "b_unretrieved": pl.Int64,
    "b_R": pl.Int64,
    "b_value": pl.Float64,
    "margin": pl.Float64,
}


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


def _at(m: Measure, depth: int, label: str | None = None) -> Measure:
    """``m`` with its cutoff set to ``depth``."""
    values: dict[str, Any] = {**m.params, "k": depth}
    if m.judged_only:
        values[JUDGED_ONLY] = True
    return m.defn.bind(values, label=label)


# --------------------------------------------------------------------------- the universe


@dataclass(frozen=True)
class _Universe:
    """The rankings of length n = k + 1 and their collections, as synthetic queries."""

    k: int
    codes: np.ndarray  # (rankings, n): state index per position
    keys: np.ndarray  # (rankings,): the code as a base-S number, sorted
    states: tuple[int | None, ...]  # grade per state, None for unjudged
    unretrieved: int

    @property
    def n(self) -> int:
        return self.k + 1

    @property
    def copies(self) -> int:
        return self.unretrieved + 1

    @property
    def queries(self) -> int:
        return len(self.codes) * self.copies

    @property
    def base(self) -> int:
        return len(self.states)

    def grade_values(self) -> np.ndarray:
        """Grade per state, -1 for unjudged."""
        return np.array([-1 if g is None else g for g in self.states], dtype=np.int64)

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Index of each ranking key, -1 when it is not in the universe."""
        pos = np.searchsorted(self.keys, keys)
        pos = np.minimum(pos, len(self.keys) - 1)
        return np.where(self.keys[pos] == keys, pos, -1)

    def strings(self) -> pl.Series:
        """The ranking strings, one per ranking."""
        chars = [UNJUDGED if g is None else str(g) for g in self.states]
        cols = [pl.Series(np.array(chars)[self.codes[:, i]]).alias(str(i)) for i in range(self.n)]
        return pl.DataFrame(cols).select(pl.concat_str(pl.all()).alias("ranking"))["ranking"]


def _universe(
    k: int,
    grades: Sequence[int],
    unjudged: bool,
    unretrieved: int,
    budget: int,
    relevant: Sequence[int] = (1,),
) -> _Universe:
    """Every ranking of length k + 1 over the states, or, past ``budget`` queries, every
    binary ranking (grades 0 and r, for each relevance threshold r of ``relevant``) and,
    when they fit, those with one position changed to another state."""
    states: tuple[int | None, ...] = (*grades, *((None,) if unjudged else ()))
    base, n, copies = len(states), k + 1, unretrieved + 1
    if base**n * copies <= budget:
        codes = _all_codes(base, n)
    else:
        thresholds = sorted({r for r in relevant if r in grades and r != 0})
        count = len(thresholds) * 2**n
        if count * copies > budget:
            # as a power past 2**60: Python refuses to print integers of 4,300+ digits
            many = f"{count * copies}" if n <= 60 else f"{len(thresholds) * copies} x 2**{n}"
            raise ParameterError(
                f"depth k={k}: the {many} binary rankings of length {n} and their "
                f"collections exceed max_queries={budget}; audit at a smaller depth (the "
                "properties rarely change with k) or raise max_queries"
            )
        zero = grades.index(0)
        binaries = [np.where(_all_codes(2, n) == 0, zero, grades.index(r)) for r in thresholds]
        binary = np.unique(np.concatenate(binaries), axis=0)
        variants = [binary]
        if len(binary) * (1 + n * (base - 2)) * copies <= budget:
            for pos in range(n):
                for s in range(base):
                    v = binary.copy()
                    v[:, pos] = s
                    variants.append(v)
        codes = np.unique(np.concatenate(variants), axis=0)
    weights = base ** np.arange(n - 1, -1, -1, dtype=np.int64)
    keys = codes.astype(np.int64) @ weights
    order = np.argsort(keys)
    return _Universe(k, codes[order], keys[order], states, unretrieved)


def _all_codes(base: int, n: int) -> np.ndarray:
    idx = np.arange(base**n, dtype=np.int64)
    powers = base ** np.arange(n - 1, -1, -1, dtype=np.int64)
    return ((idx[:, None] // powers) % base).astype(np.int64)


def _inputs(u: _Universe, probes: Sequence[int]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run and qrels of every query: the universe's, then one ideal ranking per probe
    depth D (D documents of grade 1, R = D)."""
    n, copies = u.n, u.copies
    q = np.arange(u.queries, dtype=np.int64)
    rank_of = q // copies
    extra = q % copies
    qid = np.repeat(q, n)
    pos = np.tile(np.arange(1, n + 1, dtype=np.int64), u.queries)
    grade = u.grade_values()[u.codes[rank_of].ravel()]
    run = pl.DataFrame({"q": qid, "pos": pos})
    judged = grade >= 0
    qrels = [pl.DataFrame({"q": qid[judged], "doc": pos[judged], "relevance": grade[judged]})]
    # unretrieved relevant documents (grade 1), and one unretrieved non-relevant document
    uq = np.repeat(q, extra)
    udoc = n + 1 + (np.arange(len(uq)) - np.repeat(np.cumsum(extra) - extra, extra))
    qrels.append(pl.DataFrame({"q": uq, "doc": udoc, "relevance": np.ones(len(uq), np.int64)}))
    qrels.append(pl.DataFrame({"q": q, "doc": np.full(len(q), 10**6), "relevance": 0}))
    start = u.queries
    for i, depth in enumerate(probes):
        pq = np.full(depth, start + i, dtype=np.int64)
        pp = np.arange(1, depth + 1, dtype=np.int64)
        run = pl.concat([run, pl.DataFrame({"q": pq, "pos": pp})])
        qrels.append(pl.DataFrame({"q": pq, "doc": pp, "relevance": np.ones(depth, np.int64)}))
    run_f = run.select(
        pl.col("q").cast(pl.String).alias("query_id"),
        ("d" + pl.col("pos").cast(pl.String)).alias("doc_id"),
        (-pl.col("pos")).cast(pl.Float64).alias("score"),
    )
    qrels_f = pl.concat([f.with_columns(pl.col("relevance").cast(pl.Int64)) for f in qrels]).select(
        pl.col("q").cast(pl.String).alias("query_id"),
        ("d" + pl.col("doc").cast(pl.String)).alias("doc_id"),
        pl.col("relevance"),
    )
    return run_f, qrels_f


def _probe_depths(k: int) -> list[int]:
    return sorted({min(d, 1000) for d in (2 * k, 10 * k, 100 * k)} - {k, k + 1})


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
        (pl.concat(found) if found else pl.DataFrame(schema=_VIOLATION_SCHEMA))
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
    u = _universe(
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
    probes = _probe_depths(k) if "bounded" in wanted else []
    asked: list[Measure] = []
    probed: list[Measure] = []
    for i, m in enumerate(group):
        asked += [_at(m, k, f"m{i}@{k}"), _at(m, k + 1, f"m{i}@{k + 1}")]
        probed += [_at(m, d, f"m{i}@{d}") for d in probes]
    run, qrels = _inputs(u, probes)
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

        audit = _Audit(u, m, values(k), values(k + 1), strings, options)
        row: dict[str, Any] = {"measure": m.label, **dict.fromkeys(PROPERTIES)}
        for prop in wanted:
            if prop == "bounded":
                got = audit.bounded({d: values(d)[u.queries + j] for j, d in enumerate(probes)})
            else:
                got = getattr(audit, prop)()
            row[prop] = got is None
            if got is not None:
                found.append(got.with_columns(pl.lit(prop).alias("property")))
        verdicts.append(row)
    return verdicts, [f.select(list(_VIOLATION_SCHEMA)) for f in found]


class _Audit:
    """The seven properties of one measure, from its scores on one universe.

    Each method returns None when the property holds, else the frame of its violations.
    """

    def __init__(
        self,
        u: _Universe,
        m: Measure,
        vk: np.ndarray,
        vk1: np.ndarray,
        strings: pl.Series,
        options: dict[str, Any],
    ) -> None:
        self.u, self.m, self.strings, self.options = u, m, strings, options
        self.vk, self.vk1 = vk[: u.queries], vk1[: u.queries]
        self.k = u.k
        self.gv = u.grade_values()
        self.grades = self.gv[u.codes]  # (rankings, n)
        rel = m.params.get("rel")
        self.rel = rel if isinstance(rel, int) and not isinstance(rel, bool) else 1
        if self.rel not in u.states or self.rel < 1:
            raise ParameterError(
                f"{m.label}: its relevance threshold rel={self.rel} is not among the audit's "
                f"relevant grades {[g for g in u.states if g]}; pass grades= with it, e.g. "
                f"grades=(0, 1, {max(self.rel, 2)})"
            )
        self.level = self._levels()

    # ---- helpers

    def _q(self, ranking: np.ndarray, extra: np.ndarray | int) -> np.ndarray:
        return ranking * self.u.copies + extra

    def _expand(self, ra: np.ndarray, rb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Ranking pairs, in every collection: query pairs."""
        c = self.u.copies
        extra = np.tile(np.arange(c), len(ra))
        return self._q(np.repeat(ra, c), extra), self._q(np.repeat(rb, c), extra)

    def _raised(self, pos: int, s_from: int, s_to: int) -> tuple[np.ndarray, np.ndarray]:
        """Rankings whose position ``pos`` holds state ``s_from``, and the same rankings with
        ``s_to`` there."""
        u = self.u
        ra = np.nonzero(u.codes[:, pos] == s_from)[0]
        w = u.base ** (u.n - 1 - pos)
        rb = u.find(u.keys[ra] + (s_to - s_from) * w)
        keep = rb >= 0
        return ra[keep], rb[keep]

    def _swapped(self, i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Rankings whose position j holds a document the measure finds more relevant than
        the one at position i (both judged), and the rankings with the two swapped."""
        u = self.u
        si, sj = u.codes[:, i], u.codes[:, j]
        li, lj = self.level[si], self.level[sj]
        ra = np.nonzero((li >= 0) & (lj > li))[0]
        wi, wj = u.base ** (u.n - 1 - i), u.base ** (u.n - 1 - j)
        delta = (sj[ra] - si[ra]) * wi + (si[ra] - sj[ra]) * wj
        rb = u.find(u.keys[ra] + delta)
        keep = rb >= 0
        return ra[keep], rb[keep]

    def _levels(self) -> np.ndarray:
        """The measure's relevance level of each state (-1 for unjudged): consecutive grades
        share a level when raising one to the other never changes a score."""
        u = self.u
        grades = sorted(g for g in u.states if g is not None)
        state_of = {g: u.states.index(g) for g in grades}
        level, current = {grades[0]: 0}, 0
        for lo, hi in itertools.pairwise(grades):
            pairs = [self._raised(p, state_of[lo], state_of[hi]) for p in range(u.n)]
            ra = np.concatenate([p[0] for p in pairs])
            rb = np.concatenate([p[1] for p in pairs])
            qa, qb = self._expand(ra, rb)
            same = all(_same(v[qa], v[qb]) for v in (self.vk, self.vk1))
            # the seed's binary relevance (grade >= rel) is always a step
            current += 0 if same and not lo < self.rel <= hi else 1
            level[hi] = current
        return np.array([-1 if g is None else level[g] for g in u.states], dtype=np.int64)

    def _binary(self) -> np.ndarray:
        """True for the rankings of the seed's binary relevance: every document judged,
        non-relevant (0) or relevant (the measure's ``rel``, 1 by default)."""
        return np.all((self.grades == 0) | (self.grades == self.rel), axis=1)

    def _relevant(self) -> np.ndarray:
        """R of every query: documents judged with a grade >= rel, retrieved or not."""
        per_ranking = (self.grades >= self.rel).sum(axis=1)
        extra = np.arange(self.u.copies) if self.rel <= 1 else np.zeros(self.u.copies, np.int64)
        return (per_ranking[:, None] + extra[None, :]).ravel()

    def _frame(
        self,
        qa: np.ndarray,
        da: int | np.ndarray,
        va: np.ndarray,
        qb: np.ndarray | None,
        db: int | np.ndarray | None,
        vb: np.ndarray | None,
        margin: np.ndarray,
        sort: Sequence[str] = ("margin",),
    ) -> pl.DataFrame:
        """The violations as a frame, worst first, at most ``max_violations`` rows."""
        copies, rr = self.u.copies, self._relevant()
        size = len(qa)

        def side(q: np.ndarray | None, d: Any, v: np.ndarray | None, p: str) -> dict[str, Any]:
            if q is None:
                nulls = pl.Series([None] * size)
                return {
                    f"{p}_ranking": nulls.cast(pl.String),
                    f"{p}_depth": nulls.cast(pl.Int64),
                    f"{p}_unretrieved": nulls.cast(pl.Int64),
                    f"{p}_R": nulls.cast(pl.Int64),
                    f"{p}_value": nulls.cast(pl.Float64),
                    f"{p}_measure": nulls.cast(pl.String),
                }
            depth = np.broadcast_to(np.asarray(d, dtype=np.int64), (size,))
            return {
                f"{p}_ranking": self.strings.gather(q // copies),
                f"{p}_depth": depth,
                f"{p}_unretrieved": q % copies,
                f"{p}_R": rr[q],
                f"{p}_value": v,
                f"{p}_depth_measure": depth,
            }

        out = pl.DataFrame(
            {
                **side(qa, da, va, "a"),
                **side(qb, db, vb, "b"),
                "margin": margin,
                "_unj": np.char.count(
                    self.strings.gather(qa // copies).to_numpy().astype(str), UNJUDGED
                ),
            }
        )
        out = out.sort(
            [*sort, "_unj", "a_R", "a_ranking", "b_ranking"],
            descending=[True] * len(sort) + [False] * 4,
            nulls_last=True,
        ).head(self.options["max_violations"])
        names = {}
        for p in ("a", "b"):
            col = f"{p}_depth_measure"
            if col in out.columns:
                depths = out[col].unique().to_list()
                names[p] = {d: _at(self.m, d).canonical for d in depths}
                out = out.with_columns(
                    pl.col(col)
                    .replace_strict(names[p], return_dtype=pl.String)
                    .alias(f"{p}_measure")
                ).drop(col)
        return out.with_columns(pl.lit(self.m.label).alias("measure")).drop("_unj")

    # ---- the properties

    def bounded(self, probes: Mapping[int, float]) -> pl.DataFrame | None:
        lo, hi = self.options["bounds"]
        binary = self._binary()
        q = np.nonzero(np.repeat(binary, self.u.copies))[0]
        parts = []
        for depth, v in ((self.k, self.vk), (self.k + 1, self.vk1)):
            out = np.maximum(v[q] - hi, lo - v[q])
            bad = _above(v[q], hi) | _above(lo, v[q])
            if bad.any():
                parts.append(self._frame(q[bad], depth, v[q][bad], None, None, None, out[bad]))
        if parts:
            return (
                pl.concat(parts)
                .sort("a_depth", "margin", descending=[False, True])
                .head(self.options["max_violations"])
            )
        for depth, value in sorted(probes.items()):
            excess = max(value - hi, lo - value)
            if _above(value, hi) or _above(lo, value):
                return pl.DataFrame(
                    {
                        "measure": [self.m.label],
                        "a_measure": [_at(self.m, depth).canonical],
                        "a_ranking": ["1" * depth],
                        "a_depth": [depth],
                        "a_unretrieved": [0],
                        "a_R": [depth],
                        "a_value": [value],
                        "margin": [excess],
                    }
                ).with_columns(
                    *(
                        pl.lit(None, dtype=_VIOLATION_SCHEMA[c]).alias(c)
                        for c in _VIOLATION_SCHEMA
                        if c.startswith("b_")
                    )
                )
        return None

    def monotonic(self) -> pl.DataFrame | None:
        drop = self.vk - self.vk1
        q = np.nonzero(_above(self.vk, self.vk1))[0]
        if not len(q):
            return None
        return self._frame(q, self.k, self.vk[q], q, self.k + 1, self.vk1[q], drop[q])

    def _strict_rise(self, pairs: list[tuple[np.ndarray, np.ndarray]]) -> pl.DataFrame | None:
        ra = np.concatenate([p[0] for p in pairs]) if pairs else np.zeros(0, np.int64)
        rb = np.concatenate([p[1] for p in pairs]) if pairs else np.zeros(0, np.int64)
        qa, qb = self._expand(ra, rb)
        va, vb = self.vk[qa], self.vk[qb]
        bad = ~_above(vb, va) & ~(np.isnan(va) & np.isnan(vb))
        if not bad.any():
            return None
        qa, qb = qa[bad], qb[bad]
        return self._frame(qa, self.k, va[bad], qb, self.k, vb[bad], (va - vb)[bad])

    def convergent(self) -> pl.DataFrame | None:
        return self._strict_rise([self._swapped(i, self.k) for i in range(self.k)])

    def top_weighted(self) -> pl.DataFrame | None:
        pairs = [self._swapped(i, j) for j in range(self.k) for i in range(j)]
        return self._strict_rise(pairs)

    def localized(self) -> pl.DataFrame | None:
        copies = self.u.copies
        top = np.repeat(self.u.keys // self.u.base, copies)
        frame = pl.DataFrame({"top": top, "q": np.arange(self.u.queries), "v": self.vk})
        spread = (
            frame.filter(pl.col("v").is_not_nan())
            .group_by("top")
            .agg(
                pl.col("q").sort_by("v").first().alias("qa"),
                pl.col("q").sort_by("v").last().alias("qb"),
                (pl.col("v").max() - pl.col("v").min()).alias("margin"),
                pl.col("v").max().alias("v_max"),
                pl.col("v").min().alias("v_min"),
            )
            .filter(
                pl.col("margin")
                > TOLERANCE * pl.max_horizontal(pl.col("v_max").abs(), pl.col("v_min").abs())
            )
        )
        if not spread.height:
            return None
        qa, qb = spread["qa"].to_numpy(), spread["qb"].to_numpy()
        return self._frame(qa, self.k, self.vk[qa], qb, self.k, self.vk[qb],
                           spread["margin"].to_numpy())  # fmt: skip

    def complete(self) -> pl.DataFrame | None:
        copies = self.u.copies
        lowest = self.level[self.level >= 0].min()
        none_relevant = np.all(self.level[self.u.codes] <= lowest, axis=1)
        extra_relevant = self.level[self.u.states.index(1)] > lowest
        nothing = np.repeat(none_relevant, copies) & (
            np.tile(np.arange(copies) == 0, len(none_relevant)) | (not extra_relevant)
        )
        q = np.nonzero(nothing & ~np.isfinite(self.vk))[0]
        if len(q):
            return self._frame(q, self.k, self.vk[q], None, None, None, np.ones(len(q)))
        if self.options["no_relevant"] == "scored":
            return None
        u = self.u
        ra_list, rb_list = [], []
        judged = [s for s in range(u.base) if self.level[s] >= 0]
        for pos in range(u.n):
            for s_from in judged:
                for s_to in judged:
                    if self.level[s_to] > self.level[s_from]:
                        ra, rb = self._raised(pos, s_from, s_to)
                        ra_list.append(ra)
                        rb_list.append(rb)
        empty = [np.zeros(0, np.int64)]
        qa, qb = self._expand(np.concatenate(ra_list + empty), np.concatenate(rb_list + empty))
        if extra_relevant:  # one more relevant document unretrieved
            r = np.repeat(np.arange(len(u.codes)), copies - 1)
            e = np.tile(np.arange(copies - 1), len(u.codes))
            qa = np.concatenate([qa, self._q(r, e)])
            qb = np.concatenate([qb, self._q(r, e + 1)])
        drop = self.vk[qa] - self.vk[qb]
        bad = _above(self.vk[qa], self.vk[qb])
        if not bad.any():
            return None
        qa, qb = qa[bad], qb[bad]
        return self._frame(qa, self.k, self.vk[qa], qb, self.k, self.vk[qb], drop[bad])

    def realizable(self) -> pl.DataFrame | None:
        binary = self._binary()
        q = np.nonzero(np.repeat(binary, self.u.copies))[0]
        frame = pl.DataFrame({"q": q, "R": self._relevant()[q], "v": self.vk[q]}).filter(
            pl.col("v").is_not_nan()
        )
        if not frame.height:
            return None
        best = frame.sort("v", "q", descending=[True, False]).row(0, named=True)
        short = (
            frame.filter(pl.col("R") >= 1)
            .group_by("R")
            .agg(pl.col("q").sort_by("v", descending=True).first(), pl.col("v").max())
            .filter(
                pl.col("v")
                < best["v"] - TOLERANCE * pl.max_horizontal(pl.col("v").abs(), abs(best["v"]))
            )
        )
        if not short.height:
            return None
        qa = short["q"].to_numpy()
        qb = np.full(len(qa), best["q"])
        return self._frame(qa, self.k, self.vk[qa], qb, self.k, self.vk[qb],
                           best["v"] - self.vk[qa])  # fmt: skip


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    both_nan = np.isnan(a) & np.isnan(b)
    close = np.abs(a - b) <= TOLERANCE * np.maximum(np.abs(a), np.abs(b))
    return bool(np.all(both_nan | close))


def _above(x: Any, y: Any) -> Any:
    """``x > y`` by more than rounding error (:data:`TOLERANCE`, relative); False with NaN."""
    return x > y + TOLERANCE * np.maximum(np.abs(x), np.abs(y))


__all__ = ["PROPERTIES", "TOLERANCE", "UNJUDGED", "Properties", "explain_row", "properties", "show"]
