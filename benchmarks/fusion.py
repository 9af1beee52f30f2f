"""Time run fusion: ``ir.fuse`` against ``ranx.fuse`` on the campaign workload.

Three parts, every measurement in a fresh worker process (this script with ``--worker``)
that reports its wall time and its peak resident memory (``VmHWM``), the cases of all
parts taking turns, ``--repeat`` rounds:

``fuse``
    The 100 campaign runs (5M rows) fused into one, from the Parquet file to the fused run
    in memory, with RRF (k=60) and with CombMNZ over min-max normalisation:
    ``ir.fuse(pl.scan_parquet(path), method, ...).collect()`` against
    ``ranx.fuse([ranx.Run.from_df(...) per run], ...)`` (ranx's reading and fusing timed as
    stages); polars_ireval also with the runs read before the clock starts (the fusion
    alone, against ranx's fuse stage). ranx is timed warm: each worker first fuses a tiny
    input with the same method, so that numba's compilation is not timed. The first round
    checks that the two fused runs agree: every (query, document) in the top 100 of
    either, scores to 1e-9 (for RRF, where an input ranking ties, within the bounds that
    any order of the tie allows).
``variants``
    Ten fusions (RRF with k 10 and 60, CombMNZ, CombSUM and CombMAX over min-max and zmuv,
    ISR, RBC) fused and evaluated (nDCG@10, AP, P@10) against the campaign's qrels:
    polars_ireval in one lazy query (ten ``ir.fuse`` of one ``scan_parquet``,
    concatenated, ``ir.evaluate`` against ``scan_parquet`` of the qrels, one collect),
    ranx in a loop (``fuse`` then ``evaluate``, each variant).
``stages``
    One worker takes turns between the steps of polars_ireval's fusion query, each alone
    on data prepared before (decode, check, rank, normalise, combine, rank the fused run),
    and the end-to-end calls: where the time goes.

Writes ``fusion.json`` and ``../docs/benchmarks-fusion.md``.

Usage::

    python fusion.py [--parts fuse variants stages] [--repeat 3] [--scale 1.0]
    python fusion.py --report-only
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.fusion_results import (
    CASES,
    CHECK_HEADER,
    FUSIONS,
    MEASURES,
    PARTS,
    PEER,
    RESULT_HEADER,
    STAGE_HEADER,
    SUBJECT,
    TARGET,
    TARGET_HEADER,
    TOLERANCE,
    TOP,
    VARIANT_HEADER,
    VARIANTS,
    Fusion,
    FusionRow,
    case_label,
    check_cells,
    find,
    ratio,
    result_cells,
    stage_cells,
    target_cells,
    variant_cells,
)
from bench.layout import BENCH_DIR, DEFAULT_DATA_DIR, DEFAULT_SEED, REPO_DIR, workload
from bench.measuring import (
    BUSY_LOAD,
    check_load,
    command_line,
    machine,
    peak_rss_mb,
    short_paths,
    spawn,
    take_turns,
    warm_cache,
)
from bench.tables import markdown_table, text_table
from bench.tools import ranx_frame, ranx_runs

DEFAULT_OUT = REPO_DIR / "docs" / "benchmarks-fusion.md"
DEFAULT_JSON = BENCH_DIR / "fusion.json"
LIBRARIES = ("polars", "ranx", "numba", "numpy", "pandas", "pyarrow")
RUN_COLUMNS = {"q_id_col": "query_id", "doc_id_col": "doc_id", "score_col": "score"}
#: The steps of ``stages`` (their labels are the page's).
DECODE = "decode the runs' Parquet file (`pl.read_parquet`)"
NAMES = "list the run ids (`ir.fuse` collects them when called)"
CHECK_ROWS = "check the rows (`ir.validate_run`)"
RANK = "rank every input ranking: ordinal rank of (score, doc_id) over (run, query)"
GATE = "every query in every run: n_unique(run_id) by query"
MIN_MAX = "min-max: window min and max over (run, query)"
RRF_SUM = "RRF: sum of 1/(k + rank) by (query, doc)"
RRF_ORDERED = "RRF: the same sum, the terms added in increasing order (`.sort().cum_sum().last()`)"
MNZ_SUM = "CombMNZ: sum x count by (query, doc)"
RANK_FUSED = "rank the fused run and sort it"
RRF_PARQUET = "`ir.fuse(pl.scan_parquet(...), 'rrf', k=60).collect()`"
RRF_FRAME = "`ir.fuse(frame, 'rrf', k=60)` (frame read before)"
MNZ_PARQUET = "`ir.fuse(pl.scan_parquet(...), 'mnz', norm='min-max').collect()`"
TEN_FUSED = "the ten variants fused, concatenated, collected (no evaluation)"
TEN_EVALUATED = "`ir.evaluate` of the ten fused runs (in memory)"
#: The steps of RRF's query, in order (with the plain sum of the terms).
RRF_PATH = (DECODE, NAMES, CHECK_ROWS, RANK, GATE, RRF_SUM, RANK_FUSED)


# --------------------------------------------------------------------------- worker


def tiny_rows() -> list[tuple[str, str, str, float]]:
    """Two runs of two queries, four documents each (the untimed warm-up's input)."""
    return [
        (f"r{r}", f"q{q}", f"d{d}", float(10 * r + 5 * q + d + 1))
        for r in range(2)
        for q in range(2)
        for d in range(4)
    ]


def tiny_qrels() -> list[tuple[str, str, int]]:
    """Judgments of the warm-up's two queries."""
    return [(f"q{q}", f"d{d}", d % 2) for q in range(2) for d in range(4)]


def polars_fuse(spec: Any, fusion: Fusion, fmt: str, dump: str | None) -> dict[str, Any]:
    """polars_ireval: warm up on a tiny frame, then time ``ir.fuse`` from the Parquet file
    (``parquet``) or from the runs read before (``memory``) to the fused run in memory."""
    import polars as pl

    import polars_ireval as ir

    call = {"norm": fusion.norm, **fusion.params}
    tiny = pl.DataFrame(tiny_rows(), schema=["run_id", "query_id", "doc_id", "score"], orient="row")
    ir.fuse(tiny, fusion.method, **call)
    frame = pl.read_parquet(spec.parquet_run) if fmt == "memory" else None
    start = time.perf_counter()
    source = frame if frame is not None else pl.scan_parquet(spec.parquet_run)
    fused = ir.fuse(source, fusion.method, **call)
    if isinstance(fused, pl.LazyFrame):
        fused = fused.collect()
    seconds = time.perf_counter() - start
    peak = peak_rss_mb()
    if dump:
        fused.select("query_id", "doc_id", "score").write_parquet(dump)
    return {"seconds": seconds, "peak_mb": peak, "rows": fused.height}


def ranx_warm_up(fusions: list[Fusion], evaluate: bool) -> None:
    """Compile (or load from numba's cache) what the timed call runs: ``Run.from_df``, each
    normalisation and fusion, and ``evaluate`` if asked, on a tiny input."""
    import pandas as pd
    from ranx import Qrels, Run, fuse
    from ranx import evaluate as ranx_evaluate

    frame = pd.DataFrame(tiny_rows(), columns=["run_id", "query_id", "doc_id", "score"])
    frame = frame.astype({"query_id": object, "doc_id": object})
    runs = [Run.from_df(part, **RUN_COLUMNS) for _, part in frame.groupby("run_id")]
    qrels = pd.DataFrame(tiny_qrels(), columns=["query_id", "doc_id", "relevance"])
    qrels = qrels.astype({"query_id": object, "doc_id": object})
    judged = Qrels.from_df(qrels, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
    for fusion in fusions:
        fused = fuse(runs, norm=fusion.ranx_norm, method=fusion.method, params=dict(fusion.params))
        if evaluate:
            ranx_evaluate(judged, fused, list(MEASURES.values()))


def ranx_fuse(spec: Any, fusion: Fusion, fmt: str, dump: str | None) -> dict[str, Any]:
    """ranx, warm: the Runs from the Parquet file (``ranx_runs``: pandas, ``Run.from_df``
    per run), then ``ranx.fuse``; both stages timed."""
    import pandas as pd
    from ranx import fuse

    ranx_warm_up([fusion], evaluate=False)
    start = time.perf_counter()
    runs = [run for _, run in ranx_runs(spec, "parquet")]
    read = time.perf_counter()
    fused = fuse(runs, norm=fusion.ranx_norm, method=fusion.method, params=dict(fusion.params))
    done = time.perf_counter()
    peak = peak_rss_mb()
    rows = [(q, d, s) for q, docs in fused.to_dict().items() for d, s in docs.items()]
    if dump:
        pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]).to_parquet(dump)
    return {
        "seconds": done - start,
        "stages": {"read": read - start, "fuse": done - read},
        "peak_mb": peak,
        "rows": len(rows),
    }


def polars_variants(spec: Any) -> dict[str, Any]:
    """polars_ireval: the ten fusions of one ``scan_parquet``, concatenated and evaluated
    against ``scan_parquet`` of the qrels, in one lazy query and one collect."""
    import polars as pl

    import polars_ireval as ir

    tiny = pl.DataFrame(tiny_rows(), schema=["run_id", "query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame(tiny_qrels(), schema=["query_id", "doc_id", "relevance"], orient="row")
    ir.evaluate(ir.fuse(tiny, "rrf"), qrels, list(MEASURES))
    start = time.perf_counter()
    runs = pl.scan_parquet(spec.parquet_run)
    fused = pl.concat(
        [ir.fuse(runs, v.method, norm=v.norm, name=v.label, **v.params) for v in VARIANTS]
    )
    result = ir.evaluate(fused, pl.scan_parquet(spec.parquet_qrels), list(MEASURES)).collect()
    seconds = time.perf_counter() - start
    means: dict[str, dict[str, float]] = {}
    for row in result.iter_rows(named=True):
        means.setdefault(row["run_id"], {})[row["measure"]] = row["value"]
    return {"seconds": seconds, "peak_mb": peak_rss_mb(), "means": means}


def ranx_variants(spec: Any) -> dict[str, Any]:
    """ranx, warm: the Runs and Qrels from the Parquet files, then for each variant
    ``ranx.fuse`` and ``ranx.evaluate``; the stages (read, fuse, evaluate) summed."""
    from ranx import Qrels, fuse
    from ranx import evaluate as ranx_evaluate

    ranx_warm_up(list(VARIANTS), evaluate=True)
    start = time.perf_counter()
    runs = [run for _, run in ranx_runs(spec, "parquet")]
    qrels = Qrels.from_df(
        ranx_frame(spec.parquet_qrels),
        q_id_col="query_id",
        doc_id_col="doc_id",
        score_col="relevance",
    )
    stages = {"read": time.perf_counter() - start, "fuse": 0.0, "evaluate": 0.0}
    means = {}
    for v in VARIANTS:
        begin = time.perf_counter()
        fused = fuse(runs, norm=v.ranx_norm, method=v.method, params=dict(v.params))
        fused_at = time.perf_counter()
        scores = ranx_evaluate(qrels, fused, list(MEASURES.values()))
        stages["fuse"] += fused_at - begin
        stages["evaluate"] += time.perf_counter() - fused_at
        means[v.label] = {ours: float(scores[theirs]) for ours, theirs in MEASURES.items()}
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "stages": stages, "peak_mb": peak_rss_mb(), "means": means}


def polars_stages(spec: Any, repeat: int) -> dict[str, Any]:
    """polars_ireval's fusion query in steps, each alone on data prepared before, and the
    end-to-end calls; ``take_turns`` over ``repeat`` rounds after an untimed one."""
    import polars as pl

    import polars_ireval as ir

    path = spec.parquet_run
    keys, ranking = ["query_id", "doc_id"], ["run_id", "query_id"]
    frame = pl.read_parquet(path)
    score = pl.col("score")
    rank = pl.struct(score, "doc_id").rank("ordinal", descending=True).over(ranking)
    ranked = frame.lazy().with_columns(rank.cast(pl.UInt32).alias("rank")).collect()
    low, high = score.min().over(ranking), score.max().over(ranking)
    rrf = (1.0 / (60.0 + pl.col("rank").cast(pl.Float64))).sum().alias("score")
    ordered_rrf = (1.0 / (60.0 + pl.col("rank").cast(pl.Float64))).sort().cum_sum().last()
    fused = ranked.lazy().group_by(keys).agg(rrf).collect()
    runs = pl.scan_parquet(path)

    def ten_fused() -> Any:
        source = pl.scan_parquet(path)
        return pl.concat(
            [ir.fuse(source, v.method, norm=v.norm, name=v.label, **v.params) for v in VARIANTS]
        )

    fused_all = ten_fused().collect()
    qrels = ir.read_qrels(str(spec.parquet_qrels))
    fused_rank = pl.struct(score, "doc_id").rank("ordinal", descending=True).over("query_id")
    steps = {
        DECODE: lambda: pl.read_parquet(path),
        NAMES: lambda: runs.select(pl.col("run_id").unique(maintain_order=True)).collect(),
        CHECK_ROWS: lambda: ir.validate_run(frame),
        RANK: lambda: frame.lazy().with_columns(rank.alias("rank")).collect(),
        GATE: lambda: ranked.lazy().group_by("query_id").agg(pl.col("run_id").n_unique()).collect(),
        MIN_MAX: lambda: ranked.lazy().with_columns((score - low) / (high - low)).collect(),
        RRF_SUM: lambda: ranked.lazy().group_by(keys).agg(rrf).collect(),
        RRF_ORDERED: (lambda: ranked.lazy().group_by(keys).agg(ordered_rrf).collect()),
        MNZ_SUM: lambda: ranked.lazy().group_by(keys).agg(score.sum() * pl.len()).collect(),
        RANK_FUSED: lambda: (
            fused.lazy().with_columns(fused_rank.alias("rank")).sort("query_id", "rank").collect()
        ),
        RRF_PARQUET: lambda: ir.fuse(pl.scan_parquet(path), "rrf", k=60).collect(),
        RRF_FRAME: lambda: ir.fuse(frame, "rrf", k=60),
        MNZ_PARQUET: lambda: ir.fuse(pl.scan_parquet(path), "mnz", norm="min-max").collect(),
        TEN_FUSED: lambda: ten_fused().collect(),
        TEN_EVALUATED: lambda: ir.evaluate(fused_all, qrels, list(MEASURES)),
    }
    return {"stages": take_turns(steps, repeat), "peak_mb": peak_rss_mb()}


def measure_once(args: argparse.Namespace) -> dict[str, Any]:
    """Import the tool (timed apart), then measure one case in this process."""
    tool, case, fmt = args.worker
    spec = workload("campaign", args.data_dir, args.scale, args.seed)
    start = time.perf_counter()
    try:
        module = importlib.import_module(tool)
        if tool == PEER:
            importlib.import_module("pandas")
        version = importlib.metadata.version("polars-ireval" if tool == SUBJECT else tool)
    except Exception as exc:
        return {"status": "unavailable", "error": f"{type(exc).__name__}: {exc}"}
    version = version or getattr(module, "__version__", "")
    imported = time.perf_counter() - start
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if case == "stages":
                record = polars_stages(spec, args.repeat)
            elif case == "variants":
                record = (polars_variants if tool == SUBJECT else ranx_variants)(spec)
            else:
                fuse = polars_fuse if tool == SUBJECT else ranx_fuse
                record = fuse(spec, FUSIONS[case], fmt, args.dump)
    except Exception as exc:
        return {"status": "error", "error": f"{type(exc).__name__}: {exc}", "version": version}
    return {"status": "ok", "version": version, "import_s": imported, **record}


def worker(args: argparse.Namespace) -> None:
    """Worker mode: measure once and write the record as JSON to ``--result-file``."""
    Path(args.result_file).write_text(json.dumps(measure_once(args)))


# --------------------------------------------------------------------------- parent


def run_worker(
    tool: str, case: str, fmt: str, args: argparse.Namespace, dump: Path | None = None
) -> dict[str, Any]:
    """One measurement in a fresh Python process (the working tree first on the path)."""
    return spawn(
        __file__,
        [
            *("--worker", tool, case, fmt),
            *("--data-dir", str(args.data_dir), "--scale", repr(args.scale)),
            *("--seed", str(args.seed), "--repeat", str(args.repeat)),
            *(("--dump", str(dump)) if dump else ()),
        ],
        args.timeout,
    )


def check_fused(case: str, ours: Path, theirs: Path, runs: Path) -> dict[str, Any]:
    """Compare the two tools' fused runs: every (query, document) in the top ``TOP`` of
    either, scores to ``TOLERANCE``. For a rank-based fusion (RRF), a document whose score
    ties another in some input ranking has a fused score that depends on the order the
    tool gives the tie (ranx: its sort's; polars_ireval: doc id descending): there, both
    scores must lie within the bounds that any order of the ties allows."""
    import polars as pl

    fusion = FUSIONS[case]
    keys = ["query_id", "doc_id"]
    a, b = pl.read_parquet(ours), pl.read_parquet(theirs)
    top = pl.col("score").rank("ordinal", descending=True).over("query_id") <= TOP
    compared = pl.concat([a.filter(top).select(keys), b.filter(top).select(keys)]).unique()
    joined = compared.join(a, on=keys, how="left").join(
        b.rename({"score": "ranx"}), on=keys, how="left"
    )
    diff = (pl.col("score") - pl.col("ranx")).abs()
    joined = joined.with_columns(diff.alias("diff"))
    missing = joined.filter(pl.col("diff").is_null()).height
    out: dict[str, Any] = {
        "case": case,
        "rows_ours": a.height,
        "rows_ranx": b.height,
        "compared": joined.height,
        "missing": missing,
        "max_abs_diff": joined["diff"].max() or 0.0,
        "tied": None,
    }
    if fusion.method != "rrf":
        out["max_abs_diff_untied"] = out["max_abs_diff"]
        out["agree"] = not missing and a.height == b.height and out["max_abs_diff"] <= TOLERANCE
        return out
    k, score = float(fusion.params["k"]), pl.col("score")
    ranking = ["run_id", "query_id"]
    first = score.rank("min", descending=True).over(ranking).cast(pl.Float64)
    last = score.rank("max", descending=True).over(ranking).cast(pl.Float64)
    bounds = (
        pl.scan_parquet(runs)
        .with_columns(first.alias("first"), last.alias("last"))
        .group_by(keys)
        .agg(
            (1.0 / (k + pl.col("last"))).sum().alias("low"),
            (1.0 / (k + pl.col("first"))).sum().alias("high"),
            (pl.col("first") != pl.col("last")).any().alias("tied"),
        )
        .collect()
    )
    joined = joined.join(bounds, on=keys, how="left")
    tied, untied = joined.filter(pl.col("tied")), joined.filter(~pl.col("tied"))
    slack = TOLERANCE
    outside = tied.filter(
        (pl.col("ranx") < pl.col("low") - slack)
        | (pl.col("ranx") > pl.col("high") + slack)
        | (pl.col("score") < pl.col("low") - slack)
        | (pl.col("score") > pl.col("high") + slack)
    ).height
    out |= {
        "max_abs_diff_untied": untied["diff"].max() or 0.0,
        "tied": tied.height,
        "tied_differing": tied.filter(pl.col("diff") > TOLERANCE).height,
        "outside_bounds": outside,
    }
    out["agree"] = (
        not missing
        and a.height == b.height
        and out["max_abs_diff_untied"] <= TOLERANCE
        and outside == 0
    )
    return out


def source_files() -> dict[str, str]:
    """A digest of every file of ``polars_ireval/`` (what the workers import), by path."""
    root = REPO_DIR / "polars_ireval"
    return {
        str(path.relative_to(REPO_DIR)): hashlib.sha1(path.read_bytes()).hexdigest()[:12]
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def source_state(before: dict[str, str] | None = None) -> dict[str, Any]:
    """The commit of the working tree, the files of ``polars_ireval/`` that differ from it
    and, given the files' digests at the start of the run (:func:`source_files`), those
    that changed during the run (another process editing the tree)."""

    def git(*command: str) -> str:
        try:
            done = subprocess.run(
                ["git", "-C", str(REPO_DIR), *command], capture_output=True, text=True, check=True
            )
        except (OSError, subprocess.CalledProcessError):
            return ""
        return done.stdout

    changed = git("status", "--porcelain", "--untracked-files=all", "--", "polars_ireval")
    now = source_files()
    during = sorted(p for p in {*now, *(before or {})} if (before or now).get(p) != now.get(p))
    return {
        "commit": git("rev-parse", "--short", "HEAD").strip(),
        "changed": [line[3:] for line in changed.splitlines() if line.strip()],
        "changed_during_run": during,
    }


def selected_rows(args: argparse.Namespace) -> list[FusionRow]:
    """A row per selected case of part ``fuse`` and ``variants``, in table order."""
    return [FusionRow(*case) for case in CASES if case[0] in args.parts]


def benchmark(args: argparse.Namespace) -> dict[str, Any]:
    """Measure every selected case, ``--repeat`` rounds in turn, check the fused runs and
    time the steps; return the results (rows, checks, steps)."""
    from bench import workloads  # numpy and Polars: not loaded by the workers

    spec = workloads.ensure("campaign", args.data_dir, args.scale, args.seed)
    warm_cache([spec.parquet_run, spec.parquet_qrels])
    source = source_files()
    rows = selected_rows(args)
    checks: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        dumps: dict[tuple[str, str], Path] = {}
        for i in range(args.repeat):
            for row in rows:
                if row.status != "ok":
                    continue
                label = f"{row.case}, {row.tool}, {row.input}, {i + 1}/{args.repeat}"
                print(f"measuring {label} ...", file=sys.stderr, flush=True)
                dump = None
                if i == 0 and row.part == "fuse" and row.input == "parquet":
                    dump = dumps[(row.case, row.tool)] = Path(tmp) / f"{row.case}-{row.tool}.pq"
                record = run_worker(row.tool, row.case, row.input, args, dump)
                if record["status"] != "ok":
                    row.status = record["status"]
                    row.error = short_paths(record["error"], args.data_dir)
                    continue
                row.add(record)
                print(f"  {record['seconds']:.2f} s, {record['peak_mb']:.0f} MB", file=sys.stderr)
        for case in FUSIONS:
            pair = dumps.get((case, SUBJECT)), dumps.get((case, PEER))
            if all(p is not None and p.exists() for p in pair):
                print(f"checking {case} ...", file=sys.stderr, flush=True)
                checks.append(check_fused(case, pair[0], pair[1], spec.parquet_run))
    steps: dict[str, Any] = {}
    if "stages" in args.parts:
        print("timing polars_ireval's steps ...", file=sys.stderr, flush=True)
        steps = run_worker(SUBJECT, "stages", "memory", args)
        steps["error"] = short_paths(steps.get("error", ""), args.data_dir)
    return {
        "manifest": json.loads(spec.manifest.read_text()),
        "rows": rows,
        "checks": checks,
        "steps": steps,
        "source_before": source,
    }


# --------------------------------------------------------------------------- report


def library_versions(rows: list[FusionRow], steps: dict[str, Any]) -> dict[str, str]:
    """Installed version of every library involved (polars_ireval as its workers saw it)."""
    versions = {}
    for dist in LIBRARIES:
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    seen = [r.version for r in rows if r.tool == SUBJECT and r.version]
    versions["polars-ireval"] = (seen or [steps.get("version", "")])[0] or "unknown"
    return versions


METHOD = """\
Every measurement is a fresh Python process (`python fusion.py --worker ...`), {repeat}
time(s), the cases of both parts taking turns (every case's first measurement, then every
case's second, ...), so that a drift in the machine's load weighs on both tools alike. A
worker imports its tool (timed apart: `import s`), then times one call; `peak MB` is the
worker's peak resident memory (`VmHWM`: interpreter, imports, warm-up and the data
included), the largest over the repetitions. The Parquet files are in the OS cache (read
once before). Both tools use their defaults: Polars and numba (ranx) use all cores.

- **ranx is timed warm**: before the clock starts, each ranx worker builds `Run`s with
  `Run.from_df` from a tiny frame (two runs of two queries), fuses them with the same
  normalisation, method and parameters, and evaluates the result (variants), so that
  numba's compilation (or the loading of its on-disk cache) is not timed. polars_ireval
  fuses a tiny frame too, untimed.
- **ranx** reads the runs as `run.py` does: `pandas.read_parquet`, ids cast to `object`,
  one `Run.from_df` per `run_id` (`Run.from_parquet` is the same call, but its dtype
  assertion fails under pandas 3 and it cannot split a file of several runs); the qrels
  with `Qrels.from_df`. Then `ranx.fuse(runs, norm=..., method=..., params=...)` (RRF:
  `norm=None`, as polars_ireval's `norm="none"`: RRF reads ranks, which a normalisation
  does not change, so ranx's default min-max would only add work to ranx). Its
  `read` and `fuse` (and `evaluate`) stages are timed apart.
- **polars_ireval**, `Parquet file`: `ir.fuse(pl.scan_parquet(runs), method, ...).collect()`
  (all 100 runs in one frame, told apart by `run_id`); `frame in memory`: the same call on
  `pl.read_parquet(runs)` read before the clock starts: the fusion alone, to set against
  ranx's `fuse` stage.
- **Variants**: polars_ireval builds the ten fused runs from one `pl.scan_parquet` (each
  `ir.fuse(..., name=label)`, its own `run_id`), concatenates them and evaluates them with
  `ir.evaluate(fused, pl.scan_parquet(qrels), ["nDCG@10", "AP", "P@10"])`: one lazy query,
  one collect. ranx loops: `ranx.fuse` then `ranx.evaluate(qrels, fused, ["ndcg@10",
  "map", "precision@10"])` for each variant, on the Runs and Qrels read once. The Borda
  count is left out: ranx's `bordafuse` tests, for each of a query's candidates and each
  run, membership in a typed list of the run's documents (quadratic in the candidates),
  and had not finished one fusion of this campaign after 10 minutes (on this machine,
  when this page was first made)."""

CHECK = """\
The first round's workers write their fused runs, and the script compares them (on every
(query, document) in the top {top} of either tool's fused run, by score): CombMNZ's scores
must agree to {tol:g}. RRF sums 1/(k + rank), and a rank depends on how a tool orders
tied scores: ranx by its sort, polars_ireval by document id descending (trec_eval's
order; `ties=` in `ir.fuse`); one campaign run in ten rounds its scores to three
decimals, so ties are common there. A document with no tie in any input ranking must have
the same score to {tol:g}; one with a tie somewhere must have, in both tools, a score
between the least and the most that any order of the ties gives (the sum of 1/(k + last
rank of its tie) and of 1/(k + first rank)): `outside the tie bounds` counts those that
do not. `agree` requires both, and the same fused rows in both."""


def machine_lines(context: dict[str, Any]) -> str:
    """The machine section's bullets."""
    info = context["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in context["versions"].items())
    busy = max(info["load_before"], context["load_after"]) > BUSY_LOAD
    source = context["source"]
    changed = (
        "with uncommitted changes to " + ", ".join(f"`{p}`" for p in source["changed"])
        if source["changed"]
        else "with no uncommitted change under `polars_ireval/`"
    )
    during = source.get("changed_during_run", [])
    changed += (
        "; **changed during the run** (another process editing the tree: rows may measure "
        "different code): " + ", ".join(f"`{p}`" for p in during)
        if during
        else "; no file of `polars_ireval/` changed during the run"
    )
    return (
        f"- CPU: {info['cpu']}, {info['cores']} cores\n- RAM: {info['ram_gb']} GB\n"
        f"- OS: {info['os']}\n- Python: {info['python']}\n- Libraries: {versions}\n"
        f"- polars_ireval: the working tree at commit {source['commit'] or 'unknown'}, "
        f"{changed}\n"
        f"- Load average (1 min) before the run: {info['load_before']}, after: "
        f"{context['load_after']}"
        + (
            " (busy machine: other processes shared the 2 cores, so absolute times are "
            "inflated; the turns spread that over both tools, so the ratios hold better)"
            if busy
            else ""
        )
    )


def target_sentence(rows: list[FusionRow]) -> str:
    """What the target table says, in words."""
    parts = []
    for case in FUSIONS:
        ours, theirs = find(rows, case, SUBJECT, "parquet"), find(rows, case, PEER, "parquet")
        memory = find(rows, case, SUBJECT, "memory")
        end = ratio(theirs.median if theirs else None, ours.median if ours else None)
        alone = ratio(theirs.stage("fuse") if theirs else None, memory.median if memory else None)
        if end is None:
            continue
        verdict = "meets" if end >= TARGET else "misses"
        text = f"{case_label(case)}: {end:.1f}× end to end ({verdict} the {TARGET:g}× target)"
        if alone is not None:
            text += f", {alone:.1f}× on the fusion alone (runs already in memory)"
        parts.append(text)
    return "; ".join(parts) + "." if parts else "No complete pair."


def variants_sentence(rows: list[FusionRow]) -> str:
    """The variants' ratio and memory in words."""
    ours, theirs = (
        find(rows, "variants", SUBJECT, "parquet"),
        find(rows, "variants", PEER, "parquet"),
    )
    if ours is None or theirs is None or not ours.median or not theirs.median:
        return "No complete pair."
    return (
        f"The ten variants fused and evaluated: polars_ireval {ours.median:.1f} s "
        f"(one lazy query, peak {ours.peak_mb:.0f} MB), ranx {theirs.median:.1f} s "
        f"({theirs.stage('read'):.1f} s reading, {theirs.stage('fuse'):.1f} s fusing, "
        f"{theirs.stage('evaluate'):.1f} s evaluating; peak {theirs.peak_mb:.0f} MB): "
        f"ranx / polars_ireval = {theirs.median / ours.median:.1f}×."
    )


VARIANTS_TEXT = """\
The means differ where the fused run ties, since the two tools order ties differently:
in the input rankings (the rank-based fusions, as above) and in the fused ranking when
it is evaluated (polars_ireval as trec_eval, by document id descending; ranx by its
sort). CombMAX over min-max ties most: every run's first document scores 1, so many
documents share the top fused score. `Δ` is ranx's mean less polars_ireval's."""


def steps_section(steps: dict[str, Any]) -> list[str]:
    """The table of polars_ireval's steps, if measured."""
    if not steps:
        return []
    if steps.get("status") != "ok":
        return ["## Where polars_ireval's time goes", f"Not measured: {steps.get('error')}"]
    return [
        "## Where polars_ireval's time goes",
        "One worker takes turns, after an untimed round, between the steps that "
        "`ir.fuse`'s query performs (`polars_ireval/fusion/fuse.py`), each written in "
        "plain Polars and run alone on data prepared before (the runs decoded, ranked, "
        "or fused), and the end-to-end calls. The steps overlap in Polars' plan "
        "(projections pushed down, steps run in parallel), so their sum is a guide, not "
        f"a bound. Peak memory of this worker: {steps['peak_mb']:.0f} MB.",
        markdown_table(STAGE_HEADER, stage_cells(steps["stages"])),
        path_sentence(steps["stages"]),
        variants_split(steps["stages"]),
    ]


def variants_split(stages: dict[str, list[float]]) -> str:
    """The ten variants' query split into fusing and evaluating."""
    med = {label: statistics.median(ts) for label, ts in stages.items()}
    if TEN_FUSED not in med or TEN_EVALUATED not in med:
        return ""
    return (
        f"The ten variants' query: fusing them takes {med[TEN_FUSED]:.2f} s (each `ir.fuse` "
        "call reads and checks the Parquet file and lists its run ids on its own), "
        f"evaluating the ten fused runs {med[TEN_EVALUATED]:.2f} s."
    )


def path_sentence(stages: dict[str, list[float]]) -> str:
    """The steps of RRF's query added up, against ``ir.fuse`` end to end."""
    med = {label: statistics.median(ts) for label, ts in stages.items()}
    if not all(label in med for label in (*RRF_PATH, RRF_ORDERED, RRF_PARQUET)):
        return ""
    plain = sum(med[label] for label in RRF_PATH)
    ordered = plain - med[RRF_SUM] + med[RRF_ORDERED]
    return (
        f"RRF's steps added up (decode, list the run ids, check, rank, every query in every "
        f"run, sum, rank the fused run): {plain:.2f} s with the plain sum, {ordered:.2f} s "
        f"with the sum in increasing order; `ir.fuse` from the Parquet file: "
        f"{med[RRF_PARQUET]:.2f} s."
    )


def failures(rows: list[FusionRow]) -> list[str]:
    """A section with the full message of each failed row, if any."""
    lines = [f"- {r.case}, {r.tool}, {r.input}: {r.status}: {r.error}" for r in rows if not r.ok]
    return ["## Failures", "\n".join(lines)] if lines else []


def markdown(rows: list[FusionRow], context: dict[str, Any]) -> str:
    """Render the Markdown page."""
    m = context["manifest"]
    parts = [
        "# Fusion benchmarks",
        f"Generated by `benchmarks/fusion.py` on {context['date']}: `ir.fuse` against "
        "`ranx.fuse` on the campaign workload, and ten fusions fused and evaluated in one "
        "lazy query against ranx's loop.",
        "## Machine",
        machine_lines(context),
        "## Command",
        f"```\n{context['command']}\n```",
        "## Workload",
        f"**campaign** (`benchmarks/generate.py`, scale {context['scale']:g}, seed "
        f"{context['seed']}): {m['runs']} runs × {m['queries']} queries × 1,000 documents "
        f"({m['run_lines']:,} rows in one Parquet file with a `run_id` column), "
        f"{m['qrels_lines']:,} qrels ({m['relevant']:,} relevant). Each query's runs rank "
        "a shared pool of about 4,000 documents, so the fused run holds about 4,000 "
        "documents a query.",
        "## Method",
        METHOD.format(repeat=context["repeat"]),
        "## Results",
        markdown_table(RESULT_HEADER, result_cells(rows)),
        *failures(rows),
        "## Target",
        f"The issue asks `ir.fuse` to be at least {TARGET:g}× faster than `ranx.fuse` on "
        "RRF and CombMNZ(min-max), from the Parquet file to the fused run in memory. "
        + target_sentence(rows),
        markdown_table(TARGET_HEADER, target_cells(rows)),
        "## Agreement",
        CHECK.format(top=TOP, tol=TOLERANCE),
        markdown_table(CHECK_HEADER, check_cells(context["checks"]))
        if context["checks"]
        else "Not checked in this run.",
        "## Ten variants, fused and evaluated",
        variants_sentence(rows),
        VARIANTS_TEXT,
        markdown_table(VARIANT_HEADER, variant_cells(rows)),
        *steps_section(context["steps"]),
        "## See also",
        "- [Fusing runs](fusion.md): the methods, their parameters and where the tools "
        "differ.\n- [Benchmarks](benchmarks.md): evaluation against pytrec_eval, "
        "ir_measures and ranx.",
    ]
    return "\n\n".join(parts) + "\n"


def write(rows: list[FusionRow], context: dict[str, Any], args: argparse.Namespace) -> None:
    """Write the page (and print its tables)."""
    print(text_table(RESULT_HEADER, result_cells(rows)))
    print(f"\ntarget ({TARGET:g}x):")
    print(text_table(TARGET_HEADER, target_cells(rows)))
    if context["checks"]:
        print("\nagreement:")
        print(text_table(CHECK_HEADER, check_cells(context["checks"])))
    steps = context["steps"]
    if steps.get("status") == "ok":
        print("\nsteps:")
        print(text_table(STAGE_HEADER, stage_cells(steps["stages"])))
    elif steps:
        print(f"\nsteps: {steps.get('status')}: {steps.get('error')}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(rows, context))
    print(f"\nwrote {args.out}")


def report(results: dict[str, Any], load: float, args: argparse.Namespace) -> None:
    """Write the JSON results and the page."""
    rows = results["rows"]
    context = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(load),
        "load_after": round(os.getloadavg()[0], 2),
        "versions": library_versions(rows, results["steps"]),
        "source": source_state(results["source_before"]),
        "command": command_line(),
        "manifest": results["manifest"],
        "scale": args.scale,
        "seed": args.seed,
        "repeat": args.repeat,
        "parts": args.parts,
        "checks": results["checks"],
        "steps": results["steps"],
    }
    args.json.write_text(
        json.dumps({**context, "rows": [asdict(r) for r in rows]}, indent=1) + "\n"
    )
    write(rows, context, args)
    print(f"wrote {args.json}")


def report_only(args: argparse.Namespace) -> None:
    """Write the page again from ``--json``, measuring nothing."""
    found = json.loads(args.json.read_text())
    rows = [FusionRow(**r) for r in found["rows"]]
    context = {k: v for k, v in found.items() if k != "rows"}
    write(rows, context, args)


# --------------------------------------------------------------------------- CLI


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--repeat", type=int, default=3, help="measurements per case")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplier of the queries")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per measurement")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="Markdown page")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="raw results")
    parser.add_argument(
        "--report-only", action="store_true", help="write the page from --json, measuring nothing"
    )
    parser.add_argument(
        "--worker", nargs=3, metavar=("TOOL", "CASE", "INPUT"), help=argparse.SUPPRESS
    )
    parser.add_argument("--result-file", help=argparse.SUPPRESS)
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, or one measurement in worker mode."""
    args = parse_args(argv)
    if args.worker:
        worker(args)
        return
    if args.report_only:
        report_only(args)
        return
    load = check_load()
    results = benchmark(args)
    report(results, load, args)


if __name__ == "__main__":
    main()
