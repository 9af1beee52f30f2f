"""What the ``ireval`` modes share: one-line errors (:func:`guarded`, :class:`UsageError`,
:class:`Parser`), reading run files (:func:`expand_runs`, :func:`read_runs`),
:class:`Progress` and :func:`format_table`."""

from __future__ import annotations

import argparse
import difflib
import glob
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.progress import ProgressOption, bar
from polars_ireval.errors import IrevalError
from polars_ireval.io.readers import (
    file_run_id,
    is_text_run,
    narrowed,
    paths_label,
    read_run,
    validate_run,
)
from polars_ireval.io.validation import INPUT_RANK
from polars_ireval.results import NO_RELEVANT

DEFAULT_MEASURES = "nDCG@10 AP P@10 R@1000 RR"

#: The modes ``ireval``'s first word chooses: name -> (module, function taking the rest of
#: the arguments, one-line summary). The dispatch (:func:`polars_ireval.cli.main`), the list
#: in ``ireval --help`` and the near-miss check of an unknown first word read this table.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "trec_eval": (
        "polars_ireval.cli.trec_eval",
        "trec_eval_main",
        "trec_eval's flags and output, byte for byte (9.0.8; 9.0.4, 10.0)",
    ),
    "compare": (
        "polars_ireval.cli.compare",
        "main",
        "significance tests between runs, and the tables a paper prints",
    ),
    "fuse": ("polars_ireval.cli.fuse", "main", "several runs fused into one (RRF, CombMNZ...)"),
    "pool": ("polars_ireval.cli.pool", "pool_main", "the documents to judge next"),
    "simulate": (
        "polars_ireval.cli.pool",
        "simulate_main",
        "what a judgment budget buys: pooling methods replayed on qrels",
    ),
    "properties": (
        "polars_ireval.cli.properties",
        "properties_main",
        "seed 004's seven numeric properties of measures",
    ),
    "pir": (
        "polars_ireval.cli.pir",
        "pir_main",
        "preference identification ratio of measures against user preferences",
    ),
    "plot": ("polars_ireval.cli.plot", "plot_main", "a figure into a PNG, SVG or PDF file"),
}


def commands_help() -> str:
    """The list of modes ``ireval --help`` prints, the evaluation form first.

    >>> print(commands_help().splitlines()[1])
      QRELS RUN [RUN ...]  evaluate runs against qrels: one row per run (the options below)
    """
    rows = [
        ("QRELS RUN [RUN ...]", "evaluate runs against qrels: one row per run (the options below)")
    ]
    rows += [(name, summary) for name, (_, _, summary) in COMMANDS.items()]
    width = max(len(name) for name, _ in rows)
    lines = [f"  {name:<{width}}  {summary}" for name, summary in rows]
    return "\n".join(["commands (the first word; 'ireval COMMAND -h' for each):", *lines])


def unknown_command(word: str) -> str | None:
    """The command ``word`` looks like a misspelling of, when it is no file (a file of
    that name is qrels, read as such) and reads as a command word (letters, ``_``, ``-``:
    not a path).

    >>> unknown_command("comapre"), unknown_command("compare.txt"), unknown_command("qrels")
    ('compare', None, None)
    """
    if not re.fullmatch(r"[A-Za-z][A-Za-z_-]*", word) or os.path.exists(word):
        return None
    close = difflib.get_close_matches(word.lower().replace("-", "_"), COMMANDS, n=1)
    return close[0] if close else None


class UsageError(IrevalError):
    """The command line itself is wrong (unknown flag, missing file argument...)."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors raised as :class:`UsageError` (not printed + exit)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} -h')")


def guarded(command: Callable[[list[str]], int], argv: Sequence[str]) -> int:
    """Run a command's body on ``argv``: an error is one line on stderr (``ireval: error:
    ...``) and exit code 2, a closed pipe exit code 0. Every subcommand runs through it."""
    try:
        return command(list(argv))
    except (
        IrevalError, OSError, ImportError, NotImplementedError, pl.exceptions.PolarsError
    ) as e:  # fmt: skip
        if isinstance(e, BrokenPipeError):
            return 0
        print(f"ireval: error: {_one_line(e)}", file=sys.stderr)
        return 2


def _one_line(e: BaseException) -> str:
    if isinstance(e, FileNotFoundError):
        head, _, tail = str(e).rpartition(": ")
        # "[Errno 2] No such file or directory: 'x'", or the readers' "x: no such file"
        name = e.filename if e.filename is not None else (head if tail == "no such file" else tail)
        return f"{name}: no such file; check the path"
    if isinstance(e, IsADirectoryError) and e.filename is not None:
        return f"{e.filename}: is a directory, expected a file"
    if isinstance(e, OSError) and e.filename is not None:
        return f"{e.filename}: {e.strerror or e}"
    text = str(e) or type(e).__name__
    if isinstance(e, pl.exceptions.PolarsError):
        text = f"cannot read the input ({type(e).__name__}: {text})"
    return "; ".join(part.strip() for part in text.splitlines() if part.strip())


# --------------------------------------------------------------------------- run files


_GLOB_CHARS = set("*?[")


def expand_runs(args: Sequence[str]) -> list[str]:
    """Run files named by ``args``: files as given, globs expanded, directories listed.

    Globs and directories are sorted; hidden files (``.name``) in directories are left
    out. A glob that matches nothing or an empty directory is an error, not a silent skip.
    """
    paths: list[str] = []
    for arg in args:
        if os.path.isdir(arg):
            found = sorted(
                str(p) for p in Path(arg).iterdir() if p.is_file() and not p.name.startswith(".")
            )
            if not found:
                raise UsageError(f"{arg}: the directory holds no run file")
            paths += found
        elif _GLOB_CHARS & set(arg) and not os.path.exists(arg):
            found = sorted(p for p in glob.glob(arg) if os.path.isfile(p))
            if not found:
                raise UsageError(f"{arg}: the pattern matches no file")
            paths += found
        else:
            if not os.path.exists(arg):
                raise FileNotFoundError(2, "no such file", arg)
            paths.append(arg)
    return paths


def run_name(path: str) -> str:
    """The run name of a file: its name without extensions (``runs/bm25.run.gz`` → bm25)."""
    name = Path(path).name
    for _ in range(2):
        stem, ext = os.path.splitext(name)
        if ext.lower() in (".gz", ".run", ".txt", ".trec", ".parquet", ".arrow", ".ipc", ".tsv"):
            name = stem
    return name or Path(path).name


def read_runs(
    paths: Sequence[str],
    progress: Progress | None = None,
    *,
    seen: dict[str, str] | None = None,
    ranks: bool = False,
) -> pl.DataFrame:
    """Read every run file into one frame with a ``run_id`` column (one run per file).

    A Parquet or Arrow file that has its own ``run_id`` column keeps it (it may hold many
    runs). Two files giving the same run name are an error, also across calls that share
    ``seen`` (run name -> file, filled in here: the batches of one command). Several TREC
    text files are read together (one parallel scan, one validation).

    The frame returned is known as checked (:func:`polars_ireval.validate_run`) with the
    file it comes from (or ``"N run files"``): an error found later, such as a score
    beyond the 32-bit range of ``--scores float32``, names it, not ``<input>``.
    ``ranks``: keep each line's rank field as ``input_rank`` (for ``--ties rank``).
    """
    origin: dict[str, str] = {} if seen is None else seen
    names = [run_name(p) for p in paths]
    # io names a run by file_run_id, which mostly agrees with run_name
    same = names == [file_run_id(p) for p in paths] and len(set(names)) == len(names)
    if len(paths) > 1 and same and all(is_text_run(p) for p in paths):
        for name, path in zip(names, paths, strict=True):
            claim_run_name(name, path, origin)
        if progress is not None:
            progress.update(f"reading {len(paths)} runs", paths[0], total=len(paths))
        return read_run(paths, run_id="file", ranks=ranks)
    frames: list[pl.DataFrame] = []
    for i, path in enumerate(paths, 1):
        if progress is not None:
            progress.update("reading runs", path, done=i - 1, total=len(paths))
        frame = read_run(path, run_id="auto", ranks=ranks)  # errors name the file
        if S.RUN_ID not in frame.columns:  # checked again (as evaluate would), naming the file
            frame = validate_run(frame.with_columns(pl.lit(run_name(path)).alias(S.RUN_ID)), path)
        keep = [S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE, *([INPUT_RANK] if ranks else [])]
        frame = narrowed(frame, [c for c in keep if c in frame.columns])
        for rid in frame[S.RUN_ID].unique(maintain_order=True).to_list():
            claim_run_name(rid, path, origin)
        frames.append(frame)
    if len(frames) == 1:
        return frames[0]
    # concatenated, the frames are no longer known as checked: checked here (evaluate would
    # check them anyway, as '<input>'), the runs named apart above
    return validate_run(pl.concat(frames, how="vertical"), paths_label(paths, "run files"))


#: The options of the Python functions a command runs that have no flag of their own:
#: (command, parameter) -> why. ``docs/cli.md`` prints them; ``tests/test_cli_options.py``
#: fails on any other option without a flag of the same name.
WITHOUT_A_FLAG: dict[tuple[str, str], str] = {
    ("ireval", "run"): "the run files are the positional arguments",
    ("ireval", "validate"): "files are always read and checked by the readers",
    ("ireval", "con"): "a DuckDB connection or Spark session object; --engine chooses",
    ("ireval compare", "run"): "the run files are the positional arguments",
    ("ireval compare", "missing"): "-c sets evaluate's; --missing is compare's own",
    ("ireval compare", "residuals"): "implied by -a/-b upper, residual or projected",
    ("ireval compare", "validate"): "files are always read and checked by the readers",
    ("ireval compare", "con"): "the command evaluates with the Polars engine",
    ("ireval compare", "engine"): "the command evaluates with the Polars engine",
    ("ireval compare", "per_query"): "a comparison needs the per-query scores",
    ("ireval compare", "results"): "the per-query scores of the runs it evaluates",
    ("ireval compare", "comparison"): "the comparison it computes",
    ("ireval compare", "run_col"): "a frame's column name; the command names the columns",
    ("ireval compare", "query_col"): "a frame's column name; the command names the columns",
    ("ireval compare", "measure_col"): "a frame's column name; the command names the columns",
    ("ireval compare", "ci"): "report's ci= is --show-ci (--ci is compare's interval method)",
    ("ireval compare", "self"): "the report",
    ("ireval pool", "runs"): "the run files are the positional arguments",
    ("ireval simulate", "runs"): "the run files are the positional arguments",
    ("ireval properties", "grades"): "Python only: a sequence of grades",
    ("ireval properties", "bounds"): "Python only: a (low, high) pair",
    ("ireval pir", "cutoffs"): "--cutoffs takes ranges and lists (1-10, 1,3,5)",
    ("ireval fuse", "runs"): "the run files are the positional arguments",
    ("ireval fuse", "params"): "the method's parameters: --k, --gamma, --sigma, --phi, "
    "--n-segments, --w, --rel",
    ("ireval fuse", "con"): "a DuckDB connection or Spark session object; --engine chooses",
}

#: ``evaluate``'s ``ties=`` values, as ``--ties`` takes them.
TIES = ("trec_eval", "doc_id_asc", "input_order", "rank", "average")
MISSING = ("skip", "zero", "error")


def add_evaluation_options(p: argparse.ArgumentParser, *, missing: bool = True) -> None:
    """The options of :func:`polars_ireval.evaluate` that change a number, with the same
    names and values on every command that evaluates runs (``ireval``, ``ireval compare``).
    ``missing``: add ``--missing`` (``ireval compare`` has its own, about the comparison;
    there ``-c`` alone sets evaluate's)."""
    p.add_argument(
        "-l", "--relevance-level", type=int, default=1,
        help="minimum relevant grade (evaluate's relevance_level; trec_eval -l)",
    )  # fmt: skip
    p.add_argument(
        "-c", "--complete", action="store_true",
        help="score judged queries a run lacks as 0 (trec_eval -c; evaluate's missing='zero')",
    )  # fmt: skip
    if missing:
        p.add_argument(
            "--missing", choices=MISSING, default=None,
            help="judged queries a run lacks: skip (default: left out), zero (as -c) or error",
        )  # fmt: skip
    p.add_argument(
        "--no-relevant", choices=NO_RELEVANT, default="zero",
        help="queries without relevant documents, for measures normalised by R (AP, "
        "nDCG...): zero (default, trec_eval), nan, skip (left out of those measures) or error",
    )  # fmt: skip
    p.add_argument(
        "-M", "--max-depth", type=int, default=None,
        help="evaluate the top M only (trec_eval -M)",
    )  # fmt: skip
    p.add_argument(
        "-J", "--judged-only", action="store_true",
        help="drop unjudged documents (trec_eval -J)",
    )  # fmt: skip
    p.add_argument(
        "--ties", choices=TIES, default="trec_eval",
        help="order of documents with equal scores: trec_eval (doc id descending, default), "
        "doc_id_asc (NIST's DL 2020 RR@10, ir_measures' RR), input_order (the file's line "
        "order), rank (the rank field, then doc id descending) or average (the expected "
        "value over every order of each tie)",
    )  # fmt: skip
    p.add_argument(
        "--scores", choices=("float64", "float32"), default="float64",
        help="float32: round scores to 32-bit floats before ranking, as trec_eval 9.x (and "
        "pytrec_eval) do, to reproduce results computed with them",
    )  # fmt: skip


def evaluation_options(args: argparse.Namespace, *, missing: bool = True) -> dict[str, Any]:
    """``evaluate``'s keywords from :func:`add_evaluation_options`' arguments (``missing``
    as given there); also checks ``-M``."""
    if args.max_depth is not None and args.max_depth < 1:
        raise UsageError(f"-M {args.max_depth}: the number of documents must be at least 1")
    chosen = args.missing if missing else None
    if args.complete and chosen not in (None, "zero"):
        raise UsageError(f"-c scores the queries a run lacks as 0; drop it or --missing {chosen}")
    return {
        "relevance_level": args.relevance_level,
        "missing": "zero" if args.complete else (chosen or "skip"),
        "no_relevant": args.no_relevant,
        "max_depth": args.max_depth,
        "judged_only": args.judged_only,
        "ties": args.ties,
        "scores": args.scores,
    }


def claim_run_name(name: str, path: str, origin: dict[str, str]) -> None:
    """Record that run ``name`` comes from ``path``; a name met before is an error."""
    if name in origin:
        raise UsageError(
            f"two runs are named {name!r} ({origin[name]} and {path}); rename one of the files"
        )
    origin[name] = path


class Progress:
    """One status bar on stderr (tqdm), cleared at the end.

    ``mode``: ``"auto"`` (shown when the stream is a terminal and the work takes more than
    half a second), ``"always"`` or ``"never"``.
    :meth:`update` says what is being done; with ``done`` and ``total`` it also shows how
    far (``reading run 3/12``).
    """

    def __init__(self, mode: str = "auto", stream: IO[str] | None = None) -> None:
        option: ProgressOption = {"always": True, "never": False}.get(mode, "auto")
        delay = 0.5 if option == "auto" else 0.0  # quick work shows nothing on a terminal
        self.bar = bar(option, stream=stream, desc="ireval", unit="step", leave=False, delay=delay)
        self.enabled = not self.bar.disable

    def update(
        self, what: str, detail: str = "", *, done: int = 0, total: int | None = None
    ) -> None:
        if not self.enabled:
            return
        self.bar.total = total
        self.bar.n = done
        self.bar.set_description_str(f"ireval: {what}", refresh=False)
        self.bar.set_postfix_str(detail, refresh=False)
        self.bar.refresh()

    def done(self) -> None:
        self.bar.close()


def format_table(wide: pl.DataFrame, decimals: int = 4, integers: Sequence[str] = ()) -> str:
    """An aligned text table: text columns left-aligned, numbers right-aligned with
    ``decimals`` digits (the ``integers`` columns, counts, without).

    >>> import polars as pl
    >>> print(format_table(pl.DataFrame({"run_id": ["a", "bb"], "P@5": [0.4, 0.25]})), end="")
    run_id     P@5
    a       0.4000
    bb      0.2500
    """
    columns: list[list[str]] = []
    right: list[bool] = []
    for name in wide.columns:
        col = wide[name]
        if col.dtype.is_numeric():
            fmt = "{:.0f}" if name in integers else f"{{:.{decimals}f}}"
            text = ["" if v is None else fmt.format(v) for v in col.to_list()]
            right.append(True)
        else:
            text = col.cast(pl.String).fill_null("").to_list()
            right.append(False)
        columns.append([name, *text])
    widths = [max(len(v) for v in col) for col in columns]
    lines = []
    for i in range(wide.height + 1):
        cells = [
            (col[i].rjust(w) if r else col[i].ljust(w))
            for col, w, r in zip(columns, widths, right, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"
