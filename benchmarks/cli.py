"""End-to-end timing of ``ireval trec_eval`` against trec_eval and pytrec_eval.

Each measurement is one fresh process doing what a user's shell does: start, read the
qrels and run files, evaluate, print trec_eval's summary lines. The tools:

``ireval``
    ``python -m polars_ireval.cli trec_eval -m ... qrels run`` on the working tree
    (the repository root first on ``PYTHONPATH``), i.e. the ``ireval`` command.
``trec_eval``
    A trec_eval binary, when one is given with ``--trec-eval PATH`` or found on ``PATH``;
    none is bundled here. pyserini's sdist carries one (9.0.4, which reproduces trec_eval
    9.0.8's test suite): ``pip download pyserini==1.6.0 --no-deps --no-binary :all:``
    (165 MB), then extract ``trec_eval/trec_eval-linux-amd64`` from the zip
    ``pyserini/resources/jars/anserini-1.7.1-fatjar.jar`` inside it.
``pytrec_eval``
    A tiny script with pytrec_eval (trec_eval 9.0.8 compiled in): ``parse_qrel`` /
    ``parse_run``, one ``RelevanceEvaluator``, means over queries, printed as trec_eval
    prints them.

The workload is ``msmarco`` from ``generate.py`` (7,000 queries x 1,000 documents at
scale 1; generated when missing). The outputs are compared: ireval's stdout with
trec_eval's byte for byte, its summary values with pytrec_eval's means at 4 decimals.
The median wall time of ``--repeat`` runs is reported with each peer's time over
ireval's.

Usage (from ``benchmarks/``)::

    python cli.py                          # scale 1, 3 repeats, report on stdout
    python cli.py --scale 0.1 --repeat 1   # smaller
    python cli.py --trec-eval ~/bin/trec_eval --out /tmp/cli-bench.md
    python cli.py --flags "-q -J -M100 -m all_trec"   # other flags (no pytrec_eval)
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from bench.layout import DEFAULT_DATA_DIR, DEFAULT_SEED, workload

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: trec_eval -m flags of the measured evaluation, and pytrec_eval's names for them.
MEASURES = ["ndcg_cut.10", "map", "P.10", "recall.1000", "recip_rank"]
PYTREC_MEASURES = {"ndcg_cut.10", "map", "P.10", "recall.1000", "recip_rank"}

PYTREC_SCRIPT = textwrap.dedent(
    """
    import sys
    import pytrec_eval

    qrels_path, run_path = sys.argv[1], sys.argv[2]
    measures = set(sys.argv[3].split(","))
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = next(iter(per_query.values())).keys()
    for name in sorted(names):
        values = [q[name] for q in per_query.values()]
        print(f"{name:<22}\\tall\\t{sum(values) / len(values):6.4f}")
    """
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def default_flags() -> list[str]:
    return [x for m in MEASURES for x in ("-m", m)]


def commands(
    qrels: Path, run: Path, trec_eval: str | None, flags: list[str] | None = None
) -> dict[str, list[str]]:
    """The command line of every available tool; pytrec_eval only for the default measures
    (``flags`` None)."""
    files = [str(qrels), str(run)]
    given = flags if flags is not None else default_flags()
    cmds = {"ireval": [sys.executable, "-m", "polars_ireval.cli", "trec_eval", *given, *files]}
    if flags is None:
        script = [sys.executable, "-c", PYTREC_SCRIPT]
        cmds["pytrec_eval"] = [*script, *files, ",".join(PYTREC_MEASURES)]
    flags = given
    if trec_eval:
        cmds["trec_eval"] = [trec_eval, *flags, str(qrels), str(run)]
    return cmds


def measure(cmd: list[str], repeat: int, timeout: float) -> tuple[list[float], str]:
    """Wall times of ``repeat`` runs of ``cmd`` and the stdout of the last one."""
    times, out = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=timeout)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
        out = done.stdout
    return times, out


def summary_values(text: str) -> dict[str, str]:
    """``measure -> printed value`` of trec_eval's ``all`` lines (``P_10``, ``map``...)."""
    out = {}
    for line in text.splitlines():
        name, qid, value = line.split("\t")
        if qid == "all" and name.strip() not in ("runid", "num_q"):
            out[name.strip()] = value.strip()
    return out


def ensure_data(scale: float, seed: int, data_dir: Path) -> tuple[Path, Path]:
    wl = workload("msmarco", data_dir, scale, seed)
    if not wl.is_complete():
        subprocess.run(
            [sys.executable, str(HERE / "generate.py"), "--scale", f"{scale:g}",
             "--workloads", "msmarco", "--data-dir", str(data_dir), "--seed", str(seed)],
            check=True, cwd=HERE,
        )  # fmt: skip
    return wl.text_qrels, wl.text_runs[0]


def report(
    results: dict[str, list[float]],
    scale: float,
    lines: int,
    checks: list[str],
    flags: list[str] | None = None,
) -> str:
    base = statistics.median(results["ireval"])
    rows = [
        "| tool | median s | min s | time / ireval's |",
        "|---|---:|---:|---:|",
    ]
    for tool, times in results.items():
        med = statistics.median(times)
        rows.append(f"| {tool} | {med:.2f} | {min(times):.2f} | {med / base:.2f} |")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    head = (
        f"`ireval trec_eval` end to end on msmarco (scale {scale:g}: {lines:,} run lines), "
        f"flags `{' '.join(flags if flags is not None else default_flags())}`; "
        f"{len(next(iter(results.values())))} run(s) each, "
        f"1-minute load average before: {load:.2f}."
    )
    return "\n".join([head, "", *rows, "", *checks, ""])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--trec-eval", default=shutil.which("trec_eval"), help="a trec_eval binary")
    p.add_argument("--out", type=Path, default=None, help="also write the report here")
    p.add_argument(
        "--flags",
        default=None,
        help="trec_eval flags instead of the five measures, e.g. '-q -J -m all_trec' "
        "(pytrec_eval is then not run)",
    )
    args = p.parse_args(argv)
    flags = shlex.split(args.flags) if args.flags is not None else None

    qrels, run = ensure_data(args.scale, args.seed, args.data_dir)
    with open(run, "rb") as f:  # warm the OS cache, count the lines
        lines = sum(1 for _ in f)
    results: dict[str, list[float]] = {}
    texts: dict[str, str] = {}
    for tool, cmd in commands(qrels, run, args.trec_eval, flags).items():
        print(f"measuring {tool} ...", file=sys.stderr)
        results[tool], texts[tool] = measure(cmd, args.repeat, args.timeout)
    checks = []
    ours = summary_values(texts["ireval"])
    for tool, text in texts.items():
        if tool == "trec_eval":
            pairs = list(zip(text.splitlines(), texts["ireval"].splitlines(), strict=False))
            differ = [(a, b) for a, b in pairs if a != b]
            if text == texts["ireval"]:
                checks.append("- trec_eval: ireval's stdout is byte-identical.")
            else:
                checks.append(
                    f"- trec_eval: ireval's stdout is DIFFERENT from trec_eval's: "
                    f"{len(differ)} of {len(pairs)} lines, first (trec_eval, ireval) "
                    f"{differ[:1]}. A trec_eval older than 9.0.8 (9.0.4 among them) stores "
                    "scores as 32-bit floats, which ties scores equal to 7 digits; 9.0.8 and "
                    "ireval compare them as doubles."
                )
        elif tool != "ireval":
            values = summary_values(text)
            unequal = sorted(k for k in ours if values.get(k) != ours[k])
            checks.append(
                f"- {tool}: the {len(ours)} summary values printed by ireval are "
                + ("identical." if not unequal else f"DIFFERENT for {unequal}.")
            )
    if "trec_eval" not in results:
        checks.append(
            "- trec_eval: no binary given (--trec-eval) or on PATH; not measured. pytrec_eval "
            "runs the same trec_eval 9.0.8 C code in-process."
        )
    text = report(results, args.scale, lines, checks, flags)
    print(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
