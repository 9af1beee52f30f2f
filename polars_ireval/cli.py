"""``ireval``: evaluate TREC runs from the command line.

    ireval QRELS RUN [RUN ...] [-m MEASURES] [-q] [-l LEVEL] [-c] [-M DEPTH] [-J]
           [--format table|tsv|csv|json]
    ireval --example                      # the bundled example campaign
    ireval trec_eval [-q] [-n] [-c] [-l L] [-M N] [-J] [-m MEASURE[.PARAMS]]... [-R FORMAT]
           QRELS RUN                      # trec_eval 9.0.8 compatible text output

Runs may be files, globs or directories (TREC text, .gz or Parquet); several runs give one
row each. Errors are one line on stderr with exit code 2.

trec_eval mode is selected by the first argument ``trec_eval`` (a subcommand; nothing else
switches modes): the flags then mean what they mean to trec_eval 9.0.8 and stdout is what
trec_eval prints, byte for byte (see :mod:`polars_ireval.trec_format`). ``-m`` takes trec_eval
names with parameters (``P.5,10``, ``ndcg_cut.10``) or the nicknames ``official`` (the
default), ``all_trec``, ``set``, ``all_prefs``, ``prefs`` and ``qrels_jg``; ``-R`` reads the
qrels file as ``qrels_prefs``, ``prefs`` or ``qrels_jg``. The run may be ``-`` (stdin).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_ireval import schema as S
from polars_ireval.errors import IrevalError
from polars_ireval.evaluate import CoverageWarning, evaluate
from polars_ireval.example import example_path
from polars_ireval.io import read_qrels, read_run
from polars_ireval.registry import Measure
from polars_ireval.trec_format import NUM_Q, RUNID

DEFAULT_MEASURES = "nDCG@10 AP P@10 R@1000 RR NumQ"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ireval", description="Evaluate TREC runs against qrels.")
    p.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel)")
    p.add_argument("runs", nargs="*", help="run files, globs or directories")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        default=None,
        help=f"measures, ir_measures or trec_eval names (default: {DEFAULT_MEASURES!r})",
    )
    p.add_argument("-q", "--per-query", action="store_true", help="one row per query")
    p.add_argument("-l", "--relevance-level", type=int, default=1, help="minimum relevant grade")
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged queries missing from a run as 0 (trec_eval -c)",
    )
    p.add_argument("-M", "--max-depth", type=int, default=None, help="evaluate the top M only")
    p.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents")
    p.add_argument("--format", choices=["table", "tsv", "csv", "json"], default="table")
    p.add_argument("--example", action="store_true", help="evaluate the bundled example campaign")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "trec_eval":
        return trec_eval_main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (IrevalError, FileNotFoundError) as e:
        print(f"ireval: error: {e}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.example:
        qrels_path, run_paths = example_path("qrels.txt"), [example_path("runs")]
    elif args.qrels and args.runs:
        qrels_path, run_paths = args.qrels, args.runs
    else:
        raise IrevalError("give a qrels file and at least one run (or --example); see ireval -h")
    measures = " ".join(args.measure) if args.measure else DEFAULT_MEASURES
    run = read_run(run_paths, run_id="file")
    qrels = read_qrels(qrels_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CoverageWarning)
        result = evaluate(
            run,
            qrels,
            measures,
            per_query=args.per_query,
            relevance_level=args.relevance_level,
            missing="zero" if args.complete else "skip",
            max_depth=args.max_depth,
            judged_only=args.judged_only,
        )
    for w in caught:
        print(f"ireval: note: {w.message}", file=sys.stderr)
    _write(result, args.format)
    return 0


def _write(result: pl.DataFrame, fmt: str) -> None:
    index = [c for c in (S.RUN_ID, S.QUERY_ID) if c in result.columns]
    if fmt == "json":
        sys.stdout.write(result.write_ndjson())
        return
    wide = (
        result.pivot(on="measure", index=index, values="value", maintain_order=True)
        if index
        else result
    )
    if fmt in ("tsv", "csv"):
        sys.stdout.write(wide.write_csv(separator="\t" if fmt == "tsv" else ","))
        return
    with pl.Config(
        tbl_rows=-1,
        tbl_cols=-1,
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        float_precision=4,
        tbl_width_chars=200,
    ):
        print(wide)


# --------------------------------------------------------------------------- trec_eval mode

#: trec_eval 9.0.8's measure table order (the order of its output lines).
TREC_ORDER = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
]
NICKNAMES = {
    "official": [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ],
    "all_trec": TREC_ORDER,
    "set": [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ],
}
PREFS_NICKNAMES = ("all_prefs", "prefs")
JG_NICKNAMES = ("qrels_jg",)


def _trec_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ireval trec_eval",
        description="trec_eval 9.0.8 compatible evaluation (same flags, same output).",
    )
    p.add_argument("qrels")
    p.add_argument("run", help="run file, or - for stdin")
    p.add_argument("-q", action="store_true", help="also print per-query values")
    p.add_argument("-n", action="store_true", help="no summary (the 'all' lines)")
    p.add_argument("-c", action="store_true", help="average over every judged query")
    p.add_argument("-l", type=int, default=1, help="minimum relevant grade")
    p.add_argument("-M", type=int, default=None, help="evaluate the top M documents only")
    p.add_argument("-J", action="store_true", help="evaluate judged documents only")
    p.add_argument("-m", action="append", default=None, help="measure[.params] or nickname")
    p.add_argument("-R", choices=["trec_results", "qrels_prefs", "prefs", "qrels_jg"])
    return p


def trec_eval_main(argv: Sequence[str]) -> int:
    """``ireval trec_eval ...``: print what trec_eval 9.0.8 prints."""
    args = _trec_parser().parse_args(argv)
    tmp: str | None = None
    try:
        run_path = args.run
        if run_path == "-":
            import tempfile

            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                f.write(sys.stdin.read())
                tmp = run_path = f.name
        sys.stdout.write(_trec_eval(args, args.qrels, run_path))
        return 0
    except (IrevalError, FileNotFoundError, OSError) as e:
        print(f"ireval: error: {e}", file=sys.stderr)
        return 2
    finally:
        if tmp is not None:
            import os

            os.unlink(tmp)


def _family(token: str) -> str:
    """The trec_eval measure a ``-m`` token names (``P.5,10`` and ``P_5`` are ``P``)."""
    from polars_ireval.registry import TREC

    if token in TREC or token.startswith("relstring"):
        return "relstring" if token.startswith("relstring") else token
    base = token.split(".", 1)[0]
    if base in TREC:
        return base
    for i in range(len(token) - 1, 0, -1):
        if token[i] == "_" and token[:i] in TREC:
            return token[:i]
    return token


def _expand(token: str) -> list[Measure]:
    """Measures of one ``-m`` token, parameters ascending as trec_eval sorts them."""
    from polars_ireval.parse import parse_measures
    from polars_ireval.registry import TREC

    if token in TREC:
        _defn, spec = TREC[token]
        if spec.kind == "list" and spec.defaults:
            return parse_measures([f"{token}_{spec.fmt(v)}" for v in spec.defaults])
    found = parse_measures(token)

    def key(m: Measure) -> tuple[int, float]:
        spec = TREC.get(_family(token))
        v = m.params.get(spec[1].param) if spec and spec[1].param else None
        return (0, float(v)) if isinstance(v, (int, float)) else (1, 0.0)

    return sorted(found, key=key)


def _relstring_len(token: str) -> int:
    rest = token[len("relstring") :].lstrip("._")
    if not rest:
        return 10
    try:
        return int(float(rest))
    except ValueError:
        raise IrevalError(f"relstring: {rest!r} is not a number of documents") from None


def _trec_items(specs: list[str]) -> tuple[list[Any], dict[str, int]]:
    """Output items in trec_eval's table order, and the relstring labels with their length."""
    families: dict[str, list[str]] = {}
    for spec in specs:
        for token in spec.split():
            for name in NICKNAMES.get(token, [token]):
                families.setdefault(_family(name), []).append(name)
    order = [f for f in TREC_ORDER if f in families] + [f for f in families if f not in TREC_ORDER]
    items: list[Any] = []
    rel: dict[str, int] = {}
    for fam in order:
        tokens = families[fam]
        if any(t != fam for t in tokens):  # explicit parameters replace trec_eval's defaults
            tokens = [t for t in tokens if t != fam]
        for token in tokens:
            if fam in (RUNID, NUM_Q):
                if fam not in items:
                    items.append(fam)
            elif fam == "relstring":
                label = (
                    "relstring" if token == "relstring" else f"relstring_{_relstring_len(token)}"
                )
                rel[label] = _relstring_len(token)
                if label not in items:
                    items.append(label)
            else:
                for m in _expand(token):
                    if all(not isinstance(i, Measure) or i.label != m.label for i in items):
                        items.append(m)
    return items, rel


def _relstrings(table: pl.DataFrame, lengths: dict[str, int]) -> dict[str, dict[str, str]]:
    if not lengths:
        return {}
    ranked = table.filter(pl.col(S.RANK).is_not_null()).sort(S.QUERY_ID, S.RANK)
    rel = pl.col(S.RELEVANCE)
    char = (
        pl.when(rel.is_null())
        .then(pl.lit("-"))
        .when(rel < 0)
        .then(pl.lit("."))
        .when(rel > 9)
        .then(pl.lit("+"))
        .otherwise(rel.cast(pl.Int64).cast(pl.String))
    )
    out: dict[str, dict[str, str]] = {}
    for label, n in lengths.items():
        strings = (
            ranked.filter(pl.col(S.RANK) <= n)
            .group_by(S.QUERY_ID, maintain_order=True)
            .agg(char.str.join(""))
        )
        out[label] = dict(strings.iter_rows())
    return out


def _trec_eval(args: argparse.Namespace, qrels_path: str, run_path: str) -> str:
    from polars_ireval.io import run_tag
    from polars_ireval.judge import judge
    from polars_ireval.trec_format import format_trec_eval

    specs = args.m or ["official"]
    tokens = [t for s in specs for t in s.split()]
    run_id = run_tag(run_path) or ""
    if args.R in ("prefs", "qrels_prefs") or args.R == "qrels_jg":
        return _trec_eval_special(args, qrels_path, run_path, tokens, run_id)
    items, lengths = _trec_items(specs)
    measures = [i for i in items if isinstance(i, Measure)]
    run = read_run([run_path], run_id="file")
    if S.RUN_ID in run.columns:
        run = run.drop(S.RUN_ID)
    qrels = read_qrels(qrels_path)
    options: dict[str, Any] = {
        "missing": "zero" if args.c else "skip",
        "max_depth": args.M,
        "judged_only": args.J,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        per_query = (
            evaluate(run, qrels, measures, per_query=True, relevance_level=args.l, **options)
            if measures
            else pl.DataFrame(
                {S.QUERY_ID: [], "measure": [], "value": []},
                schema={S.QUERY_ID: pl.String, "measure": pl.String, "value": pl.Float64},
            )
        )
        summary = (
            evaluate(run, qrels, measures, relevance_level=args.l, **options)
            if measures
            else pl.DataFrame(
                {"measure": [], "value": []}, schema={"measure": pl.String, "value": pl.Float64}
            )
        )
        table = judge(run, qrels, **options)
    in_run = set(run[S.QUERY_ID].unique().to_list())
    evaluated = sorted(set(table[S.QUERY_ID].unique().to_list()))
    shown = [q for q in evaluated if q in in_run]
    return format_trec_eval(
        items,
        summary,
        per_query if args.q else None,
        run_id=run_id,
        num_q=len(evaluated),
        relstrings=_relstrings(table, lengths),
        queries=shown,
        show_summary=not args.n,
    )


def _trec_eval_special(
    args: argparse.Namespace, qrels_path: str, run_path: str, tokens: list[str], run_id: str
) -> str:
    """``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg``."""
    from polars_ireval.trec_format import format_trec_eval

    names = [t for t in tokens if t not in (RUNID, NUM_Q, "official")]
    run = read_run([run_path], run_id="file")
    if S.RUN_ID in run.columns:
        run = run.drop(S.RUN_ID)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if args.R == "qrels_jg":
            from polars_ireval.judgment_groups import evaluate_jg, read_qrels_jg

            judged = read_qrels_jg(qrels_path)
            per_query = evaluate_jg(
                run, judged, names or None, per_query=True, relevance_level=args.l
            )
            summary = evaluate_jg(run, judged, names or None, relevance_level=args.l)
        else:
            from polars_ireval.prefs import evaluate_prefs, read_prefs, read_qrels_prefs

            judged = read_prefs(qrels_path) if args.R == "prefs" else read_qrels_prefs(qrels_path)
            per_query = evaluate_prefs(run, judged, names or None, per_query=True)
            summary = evaluate_prefs(run, judged, names or None)
    labels = [RUNID, NUM_Q, *summary["measure"].to_list()]
    integers = {m: m.startswith("prefs_num_prefs") for m in labels[2:]}
    queries = per_query[S.QUERY_ID].unique(maintain_order=True).to_list()
    return format_trec_eval(
        labels,
        summary,
        per_query if args.q else None,
        run_id=run_id,
        num_q=len(queries),
        queries=queries,
        show_summary=not args.n,
        integers=integers,
    )


if __name__ == "__main__":
    sys.exit(main())
