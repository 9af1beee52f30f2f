"""``depth_curve`` and ``ap_pooled``: how scores move with the evaluation depth.

Lu, Moffat and Culpepper (``../shared/seeds/000_*``) score every run of a campaign at
every evaluation depth k, below and beyond the pooling depth d, and watch the lines cross.
:func:`depth_curve` computes those curves: the value of a measure truncated to the top k
(``AP@k``, ``nDCG@k``...) for every k asked for, exactly what :func:`polars_ireval.evaluate`
gives for ``f"{measure}@{k}"``, bit for bit. With ``condensed=True`` the rankings are
condensed first (judged documents only, trec_eval ``-J``); with ``pool_depth=d`` the qrels
are cut to the depth-d pool of the contributing runs, so that depths beyond d are the seed's
extended evaluation (unjudged documents counted non-relevant).

The measures whose declaration gives their form at every depth (:data:`FAST`: AP, nDCG, Q,
RBP, ERR, P, R, RR; ``depth=`` of :func:`polars_ireval.registry.measure`) take one pass over
each ranking (:mod:`polars_ireval.analysis.depth_pass`): the cost grows with the rows of the
evaluation table plus the size of the output, not with rows x depths. Any other measure is
evaluated once per depth, all depths in one lazy query (:func:`_evaluated`).

:func:`ap_pooled` is the seed's AP'' (eq. 3): AP@k divided by R_k, the relevant documents
found by pooling all the runs given to depth k, a campaign-level quantity; ``"AP''"`` (or
``"APpp"``) names it in :func:`depth_curve`.

:func:`volatility`, which reads a curve (the runs' orderings at each depth against a
reference depth), is :mod:`polars_ireval.analysis.volatility` (imported here too).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.collect import collect
from polars_ireval._base.options import check_positive_int
from polars_ireval._base.resources import require, require_listable
from polars_ireval.analysis.campaign import contributor_list
from polars_ireval.analysis.depth_pass import CURVE_ORDER, Curve, one_pass
from polars_ireval.analysis.depth_pools import checked_contributors, depth_qrels
from polars_ireval.analysis.volatility import Volatility, volatility
from polars_ireval.engines.base import measures_estimate, ranking_count
from polars_ireval.errors import IrevalError, ParameterError
from polars_ireval.evaluate import evaluate
from polars_ireval.io.intake import Inputs, intake
from polars_ireval.judge import (
    Ties,
    check_flag,
    check_options,
    check_relevance_level,
)
from polars_ireval.measures.depth import DEPTH
from polars_ireval.measures.usermodel import model_positions
from polars_ireval.parse import parse_measures
from polars_ireval.registry import REGISTRY, Measure
from polars_ireval.results import MEASURE, RESIDUAL, VALUE

__all__ = [
    "AP_POOLED",
    "DEPTH",
    "FAST",
    "POOLED",
    "Volatility",
    "ap_pooled",
    "depth_curve",
    "volatility",
]

# DEPTH: the column of :func:`depth_curve` holding the evaluation depth k (imported)
#: The column marking the depth equal to ``pool_depth`` (the seed's red dashed line).
POOLED = "pooled"
#: The names :func:`depth_curve` reads as seed 000's AP'' (eq. 3); the first is canonical.
AP_POOLED: tuple[str, ...] = ("AP''", "APpp")
#: The measures whose declaration computes them at every depth in one pass over each
#: ranking (for some of their parameters: AP with ``norm='R'`` and rank discount, nDCG with
#: log2 discount, RBP with ``ties='rank'``; see ``depth=`` of
#: :func:`polars_ireval.registry.measure`); the others are evaluated once per depth.
FAST: tuple[str, ...] = tuple(name for name, d in REGISTRY.items() if d.depth is not None)

_DEPTHS_PER_QUERY = 100  # depths per evaluate() call of the per-depth fallback
#: Bytes per row of the grid of rankings x depths of the one-pass measures: 64 + 32 a
#: measure (AP at 10^6 depths on the bundled example's 75 rankings: 6.0 GB of peak RSS;
#: AP and nDCG at 10^5 on 25 rankings: 290 MB).
_GRID_BYTES, _GRID_MEASURE_BYTES = 64, 32
#: Bytes per position of a C/W/L measure evaluated at every depth (the per-depth
#: evaluations run together): INST at depths 1..999 on 25 rankings, 361 MB.
_CURVE_POSITION_BYTES = 30
_SPARSER = (
    "ask for fewer depths (a sparser grid, e.g. depths=[1, 2, 5, 10, 20, 50, 100, 200, "
    "500, 1000]) or fewer runs or queries at a time"
)


# --------------------------------------------------------------------------- input


def _depths(depths: Any) -> list[int]:
    """The evaluation depths, checked: positive integers, strictly increasing."""
    if isinstance(depths, (str, bytes)) or not isinstance(depths, Iterable):
        raise ParameterError(
            f"depths={depths!r}: give the evaluation depths as a sorted list of positive "
            "integers, e.g. depths=range(1, 101)"
        )
    require_listable("depths=", depths, fix=_SPARSER)  # a range, before it is listed
    values = list(depths)
    if not values:
        raise ParameterError("depths is empty: give at least one depth, e.g. depths=[10, 100]")
    out: list[int] = []
    for d in values:
        if isinstance(d, (float, np.floating)) and math.isnan(d):
            raise ParameterError("depths holds NaN: every depth is a positive integer; drop it")
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise ParameterError(
                f"depths holds {d!r} ({type(d).__name__}): every depth is a positive integer"
            )
        if d < 1:
            raise ParameterError(
                f"depths holds {int(d)}: a depth is a number of ranks, at least 1; drop it"
            )
        if d >= 1 << 31:
            raise ParameterError(f"depths holds {int(d)}: depths are below 2**31")
        out.append(int(d))
    for i in range(1, len(out)):
        if out[i] == out[i - 1]:
            raise ParameterError(
                f"depths holds {out[i]} twice (positions {i - 1} and {i}); pass each depth "
                "once: depths=sorted(set(depths))"
            )
        if out[i] < out[i - 1]:
            raise ParameterError(
                f"depths are not increasing: {out[i - 1]} comes before {out[i]} (position "
                f"{i}); pass them sorted: depths=sorted(set(depths))"
            )
    return out


def _pool_depth(pool_depth: Any) -> int | None:
    return check_positive_int(
        "pool_depth",
        pool_depth,
        what="the depth of the judgment pool (e.g. pool_depth=100; None: the qrels as they are)",
        optional=True,
    )


def _resolve(item: Any, order: int) -> Curve:
    """Read one measure of :func:`depth_curve`: a measure string with a cutoff parameter
    and no cutoff given (``"AP"``, ``"RBP(p=0.8)"``, trec_eval's ``"map"``), or AP''."""
    if isinstance(item, Measure):
        measure, text = item, item.label
    elif isinstance(item, str):
        text = item.strip()
        if text in AP_POOLED:
            return Curve(text, order, None)
        try:  # ir_measures' grammar: the string with a cutoff appended is one measure
            probe = parse_measures(f"{text}@1")
        except IrevalError:
            probe = []
        if len(probe) == 1 and probe[0].defn.cutoff is not None:
            return Curve(text, order, probe[0])
        found = parse_measures(text)  # unknown names and bad syntax raise here
        if len(found) != 1:
            names = ", ".join(m.label for m in found)
            raise ParameterError(
                f"{text!r} names {len(found)} measures ({names}), each with its own cutoff; "
                f"depth_curve truncates one measure at every depth: pass its name without "
                f"a cutoff (e.g. {found[0].canonical.split('@')[0]!r})"
            )
        measure = found[0]
    else:
        raise ParameterError(
            f"measures holds {item!r}: give measure strings such as 'AP' or 'RBP(p=0.8)'"
        )
    cutoff = measure.defn.cutoff
    if cutoff is None:
        raise ParameterError(
            f"{text!r}: {measure.name} has no cutoff parameter, so it cannot be truncated at "
            f"depth k; depth_curve takes measures with one ({', '.join(FAST)}, ...), or "
            "evaluate it with max_depth=k"
        )
    given = measure.params.get(cutoff)
    if given is not None:
        bare = measure.canonical.rsplit("@", 1)[0]
        raise ParameterError(
            f"{text!r} already has a cutoff ({cutoff}={given}); depth_curve sets it to every "
            f"depth: pass the measure without it, e.g. {bare!r}"
        )
    return Curve(text, order, measure)


def _measure_list(measures: Any) -> list[Any]:
    if isinstance(measures, (str, Measure)):
        return [measures]
    if not isinstance(measures, Iterable):
        raise ParameterError(
            f"measures={measures!r}: give a measure string or a list of them, e.g. ['AP', 'nDCG']"
        )
    items = list(measures)
    if not items:
        raise ParameterError("measures is empty: give at least one, e.g. ['AP', 'nDCG']")
    return items


# --------------------------------------------------------------------------- one pass


def _fast_kind(m: Measure, relevance_level: int, condensed: bool) -> str | None:
    """The measure's name when its declaration computes it at every depth in one pass for
    these arguments (:attr:`polars_ireval.registry.MeasureDef.depth`), or None to evaluate
    it once per depth."""
    if m.judged_only and not condensed:  # a condensed measure in an uncondensed curve
        return None
    hook = m.defn.depth
    if hook is None or hook(m.arguments(relevance_level)) is None:
        return None
    return m.name


# --------------------------------------------------------------------------- per depth


def _evaluated(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    curves: list[Curve],
    depths: list[int],
    *,
    per_query: bool,
    residuals: bool,
    relevance_level: int,
    condensed: bool,
    ties: Ties,
) -> dict[int, pl.LazyFrame]:
    """The curves of the other measures (by their order): :func:`polars_ireval.evaluate` of
    ``m@k`` for every depth k, up to :data:`_DEPTHS_PER_QUERY` depths per call, all calls in
    one lazy query."""
    names = pl.LazyFrame(
        {
            "\x00at": [f"{c.label}@{d}" for c in curves for d in depths],
            MEASURE: [c.label for c in curves for _ in depths],
            CURVE_ORDER: [c.order for c in curves for _ in depths],
            DEPTH: [d for _ in curves for d in depths],
        },
        schema={"\x00at": pl.String, MEASURE: pl.String, CURVE_ORDER: pl.Int64, DEPTH: pl.Int64},
    )
    keys: list[str] = []
    out: dict[int, pl.LazyFrame] = {}
    for curve in curves:
        at = [curve.at(d) for d in depths]
        batches = [at[i : i + _DEPTHS_PER_QUERY] for i in range(0, len(at), _DEPTHS_PER_QUERY)]
        frames = [
            evaluate(
                run, qrels, batch, per_query=per_query, relevance_level=relevance_level,
                judged_only=condensed, ties=ties, residuals=residuals, validate=False,
            )
            for batch in batches
        ]  # fmt: skip
        scores = pl.concat(frames).rename({MEASURE: "\x00at"})
        scores = scores.join(names, on="\x00at", how="left", maintain_order="left")
        keys = [c for c in (S.RUN_ID, S.QUERY_ID) if c in scores.collect_schema()]
        extra = [RESIDUAL] if residuals else []
        out[curve.order] = scores.select(*keys, MEASURE, CURVE_ORDER, DEPTH, VALUE, *extra).sort(
            *keys, DEPTH
        )
    return out


# --------------------------------------------------------------------------- depth_curve


def depth_curve(
    runs: Any,
    qrels: Any,
    measures: str | Measure | Sequence[str | Measure],
    *,
    depths: Iterable[int],
    condensed: bool = False,
    residuals: bool = False,
    per_query: bool = False,
    pool_depth: int | None = None,
    contributors: Sequence[str] | None = None,
    relevance_level: int = 1,
    ties: Ties = "trec_eval",
) -> Any:
    """Score every run at every evaluation depth: seed 000's curves of a measure against k.

    The value at depth k is the measure truncated to the top k, what
    ``ir.evaluate(runs, qrels, [f"{measure}@{k}"])`` gives (bit for bit).

    Parameters
    ----------
    runs
        The runs (a frame with ``run_id``, a path, a glob, a list of paths). A LazyFrame
        (runs or qrels) gives a LazyFrame: the whole curve is one lazy query.
    qrels
        The judgments (a frame or a path).
    measures
        Measure strings with a cutoff parameter and no cutoff given: ``"AP"``,
        ``"nDCG"``, ``"Q(beta=1)"``, ``"RBP(p=0.8)"``, ``"ERR"``, ``"P"``, ``"R"``,
        ``"RR"``, ``"P(rel=2)"``, trec_eval's ``"map"``...; ``"AP''"`` (or ``"APpp"``) is
        seed 000's AP'' (see :func:`ap_pooled`). A string with a cutoff (``"nDCG@10"``,
        ``"P_10"``) or a measure without one (``"infAP"``, ``"bpref"``) raises
        :class:`ParameterError`.
    depths
        The evaluation depths k, positive integers in increasing order (e.g.
        ``range(1, 1001)``).
    condensed
        Score the condensed rankings (judged documents only, the others moving up;
        ``ir.evaluate(..., judged_only=True)``, trec_eval ``-J``).
    residuals
        Add the column ``residual``: per query, at each depth, what
        :func:`polars_ireval.evaluate` reports for ``m@k`` with ``residuals=True`` (RBP, P
        and the other measures that have one; null for the rest). Over queries, the mean
        of the one-pass measures' residuals adds them in query order, as the values are
        added; evaluate takes Polars' ``mean`` of them, which can differ from it in the last
        bit (see docs/stability.md).
    per_query
        One row per query (with ``query_id``) instead of the mean over each run's queries.
    pool_depth
        Seed 000's extended evaluation: first restrict the qrels to the documents the
        contributing runs rank in their top ``pool_depth``
        (:func:`polars_ireval.depth_qrels`), as if the campaign had been pooled that deep;
        documents judged deeper count as unjudged, so non-relevant. Adds the boolean column
        ``pooled``, true at ``depth == pool_depth``.
    contributors
        The runs whose rankings make the pool (default: every run): of ``pool_depth``,
        and the R_k of AP'' (seed 000: the relevant documents in the contributing runs'
        pool to depth k), with or without ``pool_depth``.
    relevance_level
        Minimum grade counted as relevant by measures whose ``rel`` is not given.
    ties
        Order of documents with equal scores; see :func:`polars_ireval.judge`.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] [query_id,] measure, depth, value`` (+ ``residual``, + ``pooled``),
        one measure after the other (in the order given), each sorted by run, query and
        depth; ``measure`` holds the string asked for. ``run_id`` is there when the runs
        have one, as in :func:`polars_ireval.evaluate`.

    Raises
    ------
    ParameterError
        A depth that is not a positive integer, depths unsorted or repeated, a measure with
        a cutoff already or without a cutoff parameter, a bad ``pool_depth``.
    ResourceError
        When the grid of rankings x depths and the per-depth evaluations would exceed
        the memory budget (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``); a range of depths is weighed before it is listed.

    Notes
    -----
    AP, nDCG, Q, RBP, ERR, P, R and RR (in their default forms: AP's ``norm='R'`` and rank
    discount, nDCG's log2 discount, RBP's ``ties='rank'``) and AP'' are computed in one
    pass over each ranking: running sums over the ranks, read at every depth. Any other
    measure is evaluated once per depth (in one lazy query), which costs as many
    evaluations as depths.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": ["a"] * 3 + ["b"] * 3, "query_id": "q",
    ...                      "doc_id": ["x", "y", "z", "z", "y", "x"],
    ...                      "score": [3.0, 2.0, 1.0] * 2})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["x", "z", "w"],
    ...                       "relevance": [1, 2, 0]})
    >>> ir.depth_curve(runs, qrels, ["AP", "P"], depths=[1, 2, 3]).filter(run_id="b")
    shape: (6, 4)
    ┌────────┬─────────┬───────┬──────────┐
    │ run_id ┆ measure ┆ depth ┆ value    │
    │ ---    ┆ ---     ┆ ---   ┆ ---      │
    │ str    ┆ str     ┆ i64   ┆ f64      │
    ╞════════╪═════════╪═══════╪══════════╡
    │ b      ┆ AP      ┆ 1     ┆ 0.5      │
    │ b      ┆ AP      ┆ 2     ┆ 0.5      │
    │ b      ┆ AP      ┆ 3     ┆ 0.833333 │
    │ b      ┆ P       ┆ 1     ┆ 1.0      │
    │ b      ┆ P       ┆ 2     ┆ 0.5      │
    │ b      ┆ P       ┆ 3     ┆ 0.666667 │
    └────────┴─────────┴───────┴──────────┘

    Pooled to depth 1, the campaign never judged y or w; beyond the pool, AP'' and AP
    (normalised by R of the depth-1 qrels) coincide (seed 000, Fig. 5):

    >>> curve = ir.depth_curve(runs, qrels, ["AP", "AP''"], depths=[1, 2, 3], pool_depth=1)
    >>> curve.filter(run_id="a").pivot("measure", index=["depth", "pooled"], values="value")
    shape: (3, 4)
    ┌───────┬────────┬──────────┬──────────┐
    │ depth ┆ pooled ┆ AP       ┆ AP''     │
    │ ---   ┆ ---    ┆ ---      ┆ ---      │
    │ i64   ┆ bool   ┆ f64      ┆ f64      │
    ╞═══════╪════════╪══════════╪══════════╡
    │ 1     ┆ true   ┆ 0.5      ┆ 0.5      │
    │ 2     ┆ false  ┆ 0.5      ┆ 0.5      │
    │ 3     ┆ false  ┆ 0.833333 ┆ 0.833333 │
    └───────┴────────┴──────────┴──────────┘
    """
    values = _depths(depths)
    pool = _pool_depth(pool_depth)
    check_relevance_level(relevance_level)
    for name, flag in (
        ("condensed", condensed),
        ("residuals", residuals),
        ("per_query", per_query),
    ):
        check_flag(name, flag)
    check_options(max_depth=None, ties=ties, missing="skip", judged_only=condensed)
    names = contributor_list(contributors)
    curves: list[Curve] = []
    for item in _measure_list(measures):
        curve = _resolve(item, len(curves))
        if curve.label not in {c.label for c in curves}:
            curves.append(curve)
    if names is not None and pool is None and not any(c.pooled_ap for c in curves):
        raise ParameterError(
            "contributors= names the runs that make the pool of pool_depth= (and the R_k "
            "of AP''); pass pool_depth too"
        )
    inputs = intake(runs, qrels, ties=ties)  # the run checked first, as evaluate checks
    run, q = inputs.run, inputs.qrels
    lazy = isinstance(run, pl.LazyFrame) or isinstance(q, pl.LazyFrame)
    if pool is not None:
        q = depth_qrels(run, q, depth=pool, contributors=names)
    elif names is not None:  # only AP'' reads them: check them here
        if S.RUN_ID not in run.collect_schema():
            raise ParameterError("contributors= names runs: the runs need a run_id column")
        checked = checked_contributors(run.lazy(), names, lazy)
        run = checked if lazy else run
    fast: list[tuple[Curve, str]] = []
    slow: list[Curve] = []
    for curve in curves:
        kind = "AP''" if curve.base is None else _fast_kind(curve.base, relevance_level, condensed)
        if kind is None:
            slow.append(curve)
        else:
            fast.append((curve, kind))
    _check_size(run, fast, slow, values)
    options: dict[str, Any] = {
        "per_query": per_query, "residuals": residuals, "relevance_level": relevance_level,
        "condensed": condensed, "ties": ties,
    }  # fmt: skip
    frames: dict[int, pl.LazyFrame] = {}
    if fast:
        frames.update(one_pass(Inputs(run, q), fast, values, contributors=names, **options))
    if slow:
        frames.update(_evaluated(run.lazy(), q.lazy(), slow, values, **options))
    out = pl.concat([frames[c.order] for c in curves]).drop(CURVE_ORDER)
    if pool is not None:
        out = out.with_columns((pl.col(DEPTH) == pool).alias(POOLED))
    return out if lazy else collect(out, run, q)


def _check_size(
    run: pl.DataFrame | pl.LazyFrame,
    fast: list[tuple[Curve, str]],
    slow: list[Curve],
    depths: list[int],
) -> None:
    """Raise :class:`~polars_ireval.errors.ResourceError` before a curve whose grid
    (rankings x depths, :data:`_GRID_BYTES`), per-depth evaluations
    (:func:`polars_ireval.engines.base.measures_estimate`) and C/W/L vectors (the sum of
    the depths a ranking, :data:`_CURVE_POSITION_BYTES`) exceed the memory budget. A lazy
    run counts as one ranking (its rankings are not counted without collecting it)."""
    counted = ranking_count(run)
    n = 1 if counted is None else counted
    row = _GRID_BYTES + _GRID_MEASURE_BYTES * len(fast)
    estimate = n * len(depths) * row if fast else 0
    how = [f"{n:,} rankings x {len(depths):,} depths x {row} bytes"] if fast else []
    if slow:
        how.append(f"{len(depths) * len(slow):,} measures evaluated one depth at a time")
        estimate += measures_estimate(len(depths) * len(slow), n, batch=_DEPTHS_PER_QUERY)
        deep = sum(1 for c in slow if model_positions(c.at(depths[0])))
        estimate += deep * sum(depths) * n * _CURVE_POSITION_BYTES
    labels = ", ".join([*(c.label for c, _ in fast), *(c.label for c in slow)])
    rankings = "each ranking (lazy runs)" if counted is None else f"{n:,} rankings"
    require(
        f"depth_curve of {labels} at {len(depths):,} depths on {rankings}",
        estimate,
        how=", and ".join(how),
        fix=_SPARSER,
    )


def ap_pooled(
    runs: Any,
    qrels: Any,
    k: int,
    *,
    per_query: bool = False,
    condensed: bool = False,
    contributors: Sequence[str] | None = None,
    relevance_level: int = 1,
    ties: Ties = "trec_eval",
) -> Any:
    """Seed 000's AP'' at depth ``k`` (eq. 3): AP@k normalised by R_k.

    R_k is the number of relevant documents found by pooling the contributing runs (all
    the runs given, or ``contributors``) to depth ``k`` (judged relevant, at or above rank
    ``k`` in one of them): a campaign-level quantity,
    which grows with k towards R (the seed's R_0 = 0, R_{d+1} >= R_d). AP'' = (1/R_k)
    Σ_{i <= k} r_i P(i); 0 when R_k = 0. It equals ``AP@k`` evaluated on the qrels of the
    depth-k pool (:func:`polars_ireval.depth_qrels` of the same runs), since a run's top k
    is in that pool; except that a query none of whose judged documents is in that pool
    scores 0 here, where evaluate on those qrels skips it. Unlike ``AP(norm='self')``
    (SN-AP, divided by the relevant documents of the run's own top k), R_k is the same
    for every run. On a campaign pooled to depth
    d, AP'' and AP' (AP@k over R of the pooled qrels) coincide for k >= d (the seed's
    Fig. 5).

    Parameters
    ----------
    runs, qrels
        As :func:`depth_curve`.
    k
        The evaluation (and pooling) depth, a positive integer.
    contributors
        The runs whose rankings make the pool (default: every run given). A run that did
        not contribute is scored against the same R_k, and can score above 1 (its top k
        may hold more relevant documents than the contributors' top k do).
    per_query, condensed, relevance_level, ties
        As :func:`depth_curve` (with ``condensed``, R_k pools the condensed rankings).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] [query_id,] measure, value`` as :func:`polars_ireval.evaluate` returns
        them, ``measure`` being ``"AP''@k"``.

    Examples
    --------
    Two relevant documents, x (rank 1 of run a) and z (rank 1 of run b): R_1 = 2, so AP''@1
    = (1/2) · 1 for both; AP@1 over R = 3 would be 1/3.

    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": "q",
    ...                      "doc_id": ["x", "y", "z", "y"], "score": [2.0, 1.0] * 2})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["x", "z", "u"], "relevance": 1})
    >>> ir.ap_pooled(runs, qrels, 1)
    shape: (2, 3)
    ┌────────┬─────────┬───────┐
    │ run_id ┆ measure ┆ value │
    │ ---    ┆ ---     ┆ ---   │
    │ str    ┆ str     ┆ f64   │
    ╞════════╪═════════╪═══════╡
    │ a      ┆ AP''@1  ┆ 0.5   │
    │ b      ┆ AP''@1  ┆ 0.5   │
    └────────┴─────────┴───────┘
    """
    k = check_positive_int("k", k, what="the evaluation depth of AP''")
    curve = depth_curve(
        runs, qrels, [AP_POOLED[0]], depths=[int(k)], per_query=per_query,
        condensed=condensed, contributors=contributors, relevance_level=relevance_level,
        ties=ties,
    )  # fmt: skip
    return curve.with_columns(pl.lit(f"{AP_POOLED[0]}@{int(k)}").alias(MEASURE)).drop(DEPTH)
