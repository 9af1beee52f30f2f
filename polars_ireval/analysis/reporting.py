"""``report``: the runs x measures table of a comparison, rendered apart from computing it.

:func:`report` reads the per-query frame (for the means) and the frame
:func:`polars_ireval.compare` returned (for the significance marks and the legend) and gives
a :class:`Report`: a long frame of cells (run, measure, mean, mark, best, interval) plus the
legend. Its methods render it: :meth:`Report.to_text` (a terminal), :meth:`Report.to_markdown`,
and, through great_tables, :meth:`Report.to_latex` (booktabs) and :meth:`Report.to_html`;
:meth:`Report.to_gt` hands over the great_tables object for further styling.

Marks: against a baseline, ``▲``/``▼`` for a run significantly above/below it; for all
pairs, ranx-style letters: each run gets a letter and a cell carries the letters of the runs
it is significantly better than.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_ireval._base.numeric import snap
from polars_ireval._base.options import Missing, check_missing, renamed
from polars_ireval.analysis import latex
from polars_ireval.analysis.report_legend import DOWN, UP, legend_lines
from polars_ireval.analysis.significance import RESULT_COLUMNS
from polars_ireval.analysis.significance.inputs import (
    check_values,
    chosen_runs,
    collect,
    matrices,
)
from polars_ireval.errors import DuplicateError, ParameterError, SchemaError
from polars_ireval.parse import lower_is_better

__all__ = ["Report", "check_comparison_rows", "report"]

Format = Literal["text", "markdown", "latex", "html"]
_UP, _DOWN = UP, DOWN
#: Placeholders that survive great_tables' LaTeX escaping of source notes.
_TOKENS = {"@@UP@@": r"$\blacktriangle$", "@@DOWN@@": r"$\blacktriangledown$"}


@dataclass(frozen=True)
class Report:
    """A runs x measures table of means with significance marks, and its legend.

    Attributes
    ----------
    frame : polars.DataFrame
        One row per run and measure: ``run_id, label`` (the run's letter in all-pairs
        mode, else null), ``measure, mean, mark`` (``"▲"``, ``"▼"``, or the letters of the
        runs it beats; ``""`` when none), ``best`` (the mean, as printed, is the column's
        highest, or lowest where lower is better: printed ties are all best),
        ``ci_low, ci_high`` (null unless asked for), ``p`` (the adjusted p-value of the
        run against the baseline; null for the baseline and in letters mode).
    runs, measures : tuple of str
        Row and column order.
    legend : tuple of str
        The lines under the table: test, correction and its family, alpha, topics, marks.
    mode : str
        ``"baseline"``, ``"fixed"`` (runs against a fixed score) or ``"letters"``.
    decimals : int
        Digits printed.
    p_floor : float or None
        p-values shown in the cells, those below it as ``p < p_floor`` (None: none shown).
    """

    frame: pl.DataFrame
    runs: tuple[str, ...]
    measures: tuple[str, ...]
    legend: tuple[str, ...]
    mode: str
    decimals: int = 4
    #: Show each run's (adjusted) p-value against the baseline in its cell, p-values below
    #: this as "p < floor" (None: no p-values).
    p_floor: float | None = None

    # ------------------------------------------------------------------ cells

    def _cells(self, fmt: Format, *, ansi: bool = False) -> pl.DataFrame:
        """The table as strings in ``fmt``: columns ``[#,] run, <measures>``."""
        rows: dict[str, dict[str, str]] = {r: {} for r in self.runs}
        for rec in self.frame.iter_rows(named=True):
            rows[rec["run_id"]][rec["measure"]] = self._cell(rec, fmt, ansi=ansi)
        labels = dict(zip(self.frame["run_id"], self.frame["label"], strict=True))
        data: dict[str, list[str]] = {}
        if self.mode == "letters":
            data["#"] = [labels.get(r) or "" for r in self.runs]
        data["run"] = [_visible(r) for r in self.runs]
        for m in self.measures:
            data[m] = [rows[r].get(m, "") for r in self.runs]
        return pl.DataFrame(data, schema=dict.fromkeys(data, pl.String))

    def _cell(self, rec: dict[str, Any], fmt: Format, *, ansi: bool) -> str:
        if rec["mean"] is None:
            return ""
        number = f"{rec['mean']:.{self.decimals}f}"
        if rec["best"]:
            number = {
                "text": f"\x1b[1m{number}\x1b[0m" if ansi else number,
                "markdown": f"**{number}**",
                "latex": f"\\textbf{{{number}}}",
                "html": f"<strong>{number}</strong>",
            }[fmt]
        mark = rec["mark"] or ""
        if mark:
            if self.mode == "letters":
                mark = {
                    "text": f"^{mark}",
                    "markdown": f"<sup>{mark}</sup>",
                    "latex": f"\\textsuperscript{{{mark}}}",
                    "html": f"<sup>{mark}</sup>",
                }[fmt]
            elif fmt == "latex":
                mark = (
                    "\\textsuperscript{"
                    + (_TOKENS["@@UP@@"] if mark == _UP else _TOKENS["@@DOWN@@"])
                    + "}"
                )
        ci = ""
        if rec["ci_low"] is not None or rec["ci_high"] is not None:
            ci = f" [{_num(rec['ci_low'], self.decimals)}, {_num(rec['ci_high'], self.decimals)}]"
        shown_p = ""
        if self.p_floor is not None and rec.get("p") is not None:
            shown_p = f" ({format_p(rec['p'], self.p_floor)})"
        return number + mark + ci + shown_p

    def _legend(self, fmt: Format, *, ansi: bool = False) -> list[str]:
        lines = []
        for line in map(_visible, self.legend):  # it names runs and measures
            if line.startswith("Bold") and fmt == "text" and not ansi:
                continue
            if fmt == "latex":
                line = line.replace(_UP, "@@UP@@").replace(_DOWN, "@@DOWN@@")
            elif fmt == "markdown":  # it names runs and measures
                line = _md_escape(line)
            lines.append(line)
        return lines

    # ------------------------------------------------------------------ renderers

    def to_text(self, *, ansi: bool = False) -> str:
        """An aligned plain-text table and its legend (``ansi=True`` bolds the best
        means with terminal escapes).

        Returns
        -------
        str
        """
        cells = self._cells("text", ansi=ansi)
        cols = [[_visible(name), *cells[name].to_list()] for name in cells.columns]
        width = [max(_visible_len(v) for v in col) for col in cols]
        out = []
        for i in range(cells.height + 1):  # left-aligned: the numbers (0.xxxx) line up
            parts = [
                col[i] + " " * (w - _visible_len(col[i]))
                for col, w in zip(cols, width, strict=True)
            ]
            out.append("  ".join(parts).rstrip())
        return "\n".join([*out, "", *self._legend("text", ansi=ansi)]) + "\n"

    def to_markdown(self) -> str:
        """A GitHub-flavoured Markdown table (bold best, ``<sup>`` letters) and legend.

        Returns
        -------
        str
        """
        cells = self._cells("markdown")
        head = "| " + " | ".join(_md_escape(_visible(c)) for c in cells.columns) + " |"
        align = "|" + "|".join("---:" if c in self.measures else "---" for c in cells.columns) + "|"
        body = [
            "| "
            + " | ".join(
                _md_escape(v) if c in ("run", "#") else v
                for c, v in zip(cells.columns, row, strict=True)
            )
            + " |"
            for row in cells.iter_rows()
        ]
        return "\n".join([head, align, *body, "", *self._legend("markdown")]) + "\n"

    def to_gt(self, fmt: Literal["html", "latex"] = "html") -> Any:
        """The table as a ``great_tables.GT`` whose cells are already rendered for
        ``fmt`` (marks and bold are part of the cell text), with the legend as source
        notes. Style it further, or save it, with great_tables.

        Returns
        -------
        great_tables.GT
        """
        try:
            from great_tables import GT
        except ImportError as e:  # an optional dependency, as for Polars' DataFrame.style
            raise ImportError(
                "LaTeX and HTML reports are rendered by great_tables: pip install "
                "'polars-ireval[report]' (or great_tables); to_text() and to_markdown() "
                "need nothing more"
            ) from e
        cells = self._cells(fmt)
        gt = GT(cells, rowname_col="run").fmt(lambda x: x, columns=list(self.measures))
        gt = gt.tab_stubhead(label="Run")  # a header over the run column too
        gt = gt.cols_align("right", columns=list(self.measures))
        labels: dict[str, Any] = {m: _visible(m) for m in self.measures if _visible(m) != m}
        if labels:
            gt = gt.cols_label(cases=labels)
        for line in self._legend(fmt):
            gt = gt.tab_source_note(line)
        return gt

    def to_latex(
        self,
        *,
        caption: str | None = None,
        label: str | None = None,
        placement: str = "tbp",
        size: str | None = "small",
        fit: latex.Fit = "width",
        long: latex.Long = "auto",
        rows_per_table: int = latex.ROWS_PER_TABLE,
        legend: latex.LegendPlace = "note",
        wide: bool = False,
        siunitx: bool = False,
    ) -> str:
        """A LaTeX table a journal prints (:mod:`polars_ireval.analysis.latex`): booktabs
        rules, no vertical ones, a header over every column, math minus signs, each
        measure a column of right-aligned numbers (their decimals line up) beside a column
        of marks, best means in bold; needs ``booktabs``, ``amssymb`` for the ▲/▼ marks,
        and ``graphicx`` (``fit="width"``) or ``longtable`` as its first line says.

        Parameters
        ----------
        caption
            The caption (LaTeX text, not escaped); None: none, unless ``legend="caption"``.
        label
            ``\\label`` of the table (on the first part of a split table).
        placement
            Float placement (``"tbp"``; ``""`` for none).
        size
            Font size command of the table: ``"small"`` (default), ``"footnotesize"``,
            ``"scriptsize"``, ``"tiny"``, ``"normalsize"``, or None for the document's.
        fit
            ``"width"``: a table wider than the line is scaled down to it (never up);
            ``"none"``: as it comes.
        long
            ``"auto"``: one float, or several when there are more than
            ``rows_per_table`` runs (each with the header; the later ones keep the first's
            number and say "(continued)"); ``"split"``: so, always; ``"longtable"``: one
            table broken across pages (one-column documents only; it cannot be scaled:
            choose ``size`` so that it fits the line); ``"none"``: one float whatever its
            height.
        rows_per_table
            Runs per float when split (35: a column of an A4 or letter page).
        legend
            ``"note"``: under the table, in footnote size (on the last part); ``"caption"``:
            appended to the caption; ``"none"``: left out (``Report.legend`` has it).
        wide
            ``table*``: across both columns of a two-column document.
        siunitx
            Number columns as siunitx ``S`` columns, aligned on the decimal point (bold
            means with ``\\bfseries``; needs ``\\usepackage{siunitx}``, version 3).

        Returns
        -------
        str
        """
        options = latex.Options(
            caption=caption, label=label, placement=placement, size=size, fit=fit,
            long=long, rows_per_table=rows_per_table, legend=legend, wide=wide,
        )  # fmt: skip
        if not isinstance(siunitx, bool):
            raise ParameterError(f"siunitx={siunitx!r}: True or False")
        return latex.render(self._latex_table(siunitx=siunitx), options)

    def _latex_table(self, *, siunitx: bool = False) -> latex.Table:
        by_run: dict[str, dict[str, dict[str, Any]]] = {r: {} for r in self.runs}
        for rec in self.frame.iter_rows(named=True):
            by_run[rec["run_id"]][rec["measure"]] = rec
        labels = dict(zip(self.frame["run_id"], self.frame["label"], strict=True))
        letters = self.mode == "letters"
        rows = []
        for run in self.runs:
            row = [labels.get(run) or ""] if letters else []
            row.append(latex.escape(_visible(run)))
            for m in self.measures:
                cell = by_run[run].get(m)
                row += self._latex_cell(cell, siunitx) if cell is not None else ["", ""]
            rows.append(row)
        legend = []
        for line in self._legend("latex"):
            line = latex.escape(line)
            for token, text in _TOKENS.items():
                line = line.replace(token, text)
            legend.append(line)
        packages = ("booktabs",) if letters else ("booktabs", "amssymb")
        means = [m for m in self.frame["mean"].to_list() if m is not None]
        width = max((len(str(int(abs(m)))) for m in means), default=1)
        sign = "-" if any(m < 0 for m in means) else ""
        return latex.Table(
            columns=[r"\#", "Run"] if letters else ["Run"],
            measures=[latex.escape(_visible(m)) for m in self.measures],
            rows=rows,
            legend=legend,
            packages=packages,
            number_format=f"{sign}{width}.{self.decimals}" if siunitx else None,
        )

    def _latex_cell(self, rec: dict[str, Any], siunitx: bool = False) -> list[str]:
        """The number and the mark column of one cell (a bare number for siunitx, which
        sets its own minus sign and reads ``\\bfseries``)."""
        if rec["mean"] is None:
            return ["", ""]
        value = f"{rec['mean']:.{self.decimals}f}"
        if siunitx:
            value = f"\\bfseries {value}" if rec["best"] else value
        else:
            value = latex.number(value)
            value = f"\\textbf{{{value}}}" if rec["best"] else value
        mark = rec["mark"] or ""
        if mark and self.mode != "letters":
            mark = _TOKENS["@@UP@@"] if mark == _UP else _TOKENS["@@DOWN@@"]
        mark = f"\\textsuperscript{{{mark}}}" if mark else ""
        if rec["ci_low"] is not None or rec["ci_high"] is not None:
            low, high = _num(rec["ci_low"], self.decimals), _num(rec["ci_high"], self.decimals)
            mark += f"~[{latex.number(low)}, {latex.number(high)}]"
        if self.p_floor is not None and rec.get("p") is not None:
            mark += f"~{{\\scriptsize ${format_p(rec['p'], self.p_floor)}$}}"
        return [value, mark]

    def to_html(self) -> str:
        """An HTML table (great_tables), best means in ``<strong>``, marks in ``<sup>``.

        Returns
        -------
        str
        """
        return str(self.to_gt("html").as_raw_html())

    def render(self, fmt: str) -> str:
        """The report as ``"text"``, ``"markdown"``, ``"latex"`` or ``"html"``."""
        renderers = {
            "text": self.to_text,
            "table": self.to_text,
            "markdown": self.to_markdown,
            "latex": self.to_latex,
            "html": self.to_html,
        }
        if fmt not in renderers:
            raise ParameterError(f"format {fmt!r} is unknown; use one of {sorted(renderers)}")
        return renderers[fmt]()

    def __str__(self) -> str:
        return self.to_text()


def format_p(p: float, floor: float = 0.001) -> str:
    """A p-value as a paper prints it: ``p = 0.012`` (as many decimals as the floor has,
    at least 3), ``p < 0.001`` below the floor: a p-value is never printed as 0.

    >>> format_p(0.0123), format_p(0.0004), format_p(0.0), format_p(0.00004, floor=1e-4)
    ('p = 0.012', 'p < 0.001', 'p < 0.001', 'p < 0.0001')
    """
    digits = max(3, -math.floor(math.log10(floor)))
    if p < floor:
        return f"p < {floor:.{digits}f}".rstrip("0") if floor < 1 else f"p < {floor:g}"
    return f"p = {p:.{digits}f}"


def _num(x: float | None, decimals: int) -> str:
    if x is None:
        return ""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{decimals}f}"


#: What would break a table's row or its alignment: the C0 and C1 control characters (a
#: newline, a carriage return, a tab...) and Unicode's line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _visible(s: str) -> str:
    r"""``s`` on one line, its control characters written as Python escapes (a newline as
    a backslash and an ``n``, a tab as ``\t``): run ids, measures and the legend, in every
    format, so that an id stays readable and the table keeps one row per run.

    >>> print(_visible("run\n2\tb"), _visible("bm25"))
    run\n2\tb bm25
    """
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], s)


def _visible_len(s: str) -> int:
    return len(s.replace("\x1b[1m", "").replace("\x1b[0m", ""))


#: What Markdown would read as markup in a table cell: the characters of code, emphasis,
#: strikethrough, links, HTML and entities, and the cell separator; ``_`` except between two
#: letters or digits (where it starts no emphasis, as in ``bm25_baseline``).
_MD_ACTIVE = re.compile(r"([\\`*~\[\]<>&|]|(?<![^\W_])_|_(?![^\W_]))")


def _md_escape(s: str) -> str:
    r"""``s`` as literal text in Markdown: ``my_run_v2*`` -> ``my_run_v2\*``."""
    return _MD_ACTIVE.sub(r"\\\1", s)


def _letters(k: int) -> list[str]:
    """a, b, ..., z, aa, ab, ...: one label per run."""
    out = []
    for i in range(k):
        label = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            label = chr(ord("a") + r) + label
        out.append(label)
    return out


def check_comparison_rows(cmp: pl.DataFrame, what: str) -> None:
    """Refuse a comparison (``measure, run_a, run_b``) that is in ``cmp`` twice: its two
    rows could disagree (``significant`` True in one, False in the other).

    >>> import polars as pl
    >>> cmp = pl.DataFrame({"measure": "AP", "run_a": ["b", "b"], "run_b": "a",
    ...                     "significant": [True, False]})
    >>> check_comparison_rows(cmp, "report")
    Traceback (most recent call last):
    ...
    polars_ireval.errors.DuplicateError: report: 2 rows compare the same pair: measure 'AP', \
run_a 'b', run_b 'a' (significant: [True, False]); keep one row per (measure, run_a, run_b): \
pass the frame of one compare() call
    """
    keys = [c for c in ("measure", "run_a", "run_b") if c in cmp.columns]
    dup = cmp.filter(pl.struct(keys).is_duplicated())
    if dup.height:
        row = dup.row(0, named=True)
        same = dup.filter(pl.struct(keys) == pl.struct(pl.lit(row[k]).alias(k) for k in keys))
        where = ", ".join(f"{k} {row[k]!r}" for k in keys)
        sig = (
            f" (significant: {same['significant'].to_list()})"
            if "significant" in same.columns
            else ""
        )
        raise DuplicateError(
            f"{what}: {same.height} rows compare the same pair: {where}{sig}; keep one row "
            "per (measure, run_a, run_b): pass the frame of one compare() call"
        )


@renamed(per_query="results", runs="run_ids")
def report(
    results: pl.DataFrame | pl.LazyFrame,
    comparison: pl.DataFrame | pl.LazyFrame,
    *,
    run_ids: str | Sequence[str] | None = None,
    measures: str | Sequence[str] | None = None,
    ci: Literal["mean", "delta"] | None = None,
    sort_by: str | None = None,
    decimals: int = 4,
    missing: Missing = "error",
    mode: Literal["baseline", "letters"] | None = None,
    p_values: bool = False,
    p_floor: float = 0.001,
    run_col: str = "run_id",
    query_col: str = "query_id",
    measure_col: str = "measure",
) -> Report:
    """The runs x measures table of a comparison: means, significance marks, legend.

    Parameters
    ----------
    results
        The per-query scores given to :func:`polars_ireval.compare` (the means come from
        them, over the same topics: they are checked against the comparison's).
    comparison
        What :func:`polars_ireval.compare` returned (one test and correction; any
        measures; each comparison once; a LazyFrame is collected). Against a baseline (or
        a fixed score), a run's cell is marked ``▲`` or ``▼`` when it is significantly
        above or below; otherwise each run gets a letter and its cell the letters of the
        runs it is significantly better than.
    run_ids
        Rows to show, in this order (default: the runs of the comparison, in the order of
        ``results``, the baseline first); run ids, or one, as for :func:`compare`. The
        marks and the legend still describe the whole family that was compared.
    measures
        Columns to show (default: the comparison's measures); one measure string is one
        measure, as for :func:`compare`.
    ci
        ``"mean"``: each mean with its t confidence interval; ``"delta"``: against a
        baseline, the comparison's interval of the difference from it (compare with
        ``ci=`` other than None).
    sort_by
        A measure: rows by decreasing mean of it (the baseline stays first).
    decimals
        Digits printed.
    missing
        The ``missing=`` given to :func:`compare` (the means must cover the same topics):
        ``"error"``, ``"skip"`` (formerly ``"intersect"``, still accepted) or ``"zero"``.
    mode
        The marks: ``"baseline"`` (``▲``/``▼``) or ``"letters"``. By default (``None``),
        ``▲``/``▼`` when every row compares a run with one same run (or with a fixed
        score), letters otherwise. The frame does not say how it was asked for: two runs
        compared with ``pairs="all"`` look like a comparison with the lower run as
        baseline, and get its layout unless ``mode="letters"`` (``ireval compare`` passes
        it whenever ``--baseline`` is not given). ``"letters"`` also suits a comparison
        with a baseline.
    p_values
        Against a baseline: each run's p-value (adjusted, when the comparison was
        corrected) in its cell, ``(p = 0.012)``, never 0: below ``p_floor`` it reads
        ``(p < 0.001)``.
    p_floor
        The smallest p-value printed as a number (default 0.001).
    run_col, query_col, measure_col
        As for :func:`compare`.

    Returns
    -------
    Report
        Render it with ``to_text()``, ``to_markdown()``, ``to_latex()``, ``to_html()``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> results = pl.DataFrame({
    ...     "run_id": ["bm25"] * 6 + ["dense"] * 6 + ["rand"] * 6,
    ...     "query_id": ["q1", "q2", "q3", "q4", "q5", "q6"] * 3,
    ...     "measure": "nDCG@10",
    ...     "value": [0.2, 0.5, 0.4, 0.1, 0.6, 0.3,
    ...               0.4, 0.6, 0.4, 0.3, 0.8, 0.6,
    ...               0.1, 0.2, 0.1, 0.0, 0.3, 0.1]})
    >>> cmp = ir.compare(results, baseline="bm25", test="t", correction="holm")
    >>> print(ir.report(results, cmp).to_text())
    run    nDCG@10
    bm25   0.3500
    dense  0.5167▲
    rand   0.1333▼
    <BLANKLINE>
    paired t-test, two-sided, alpha = 0.05; 6 topics.
    Holm correction over the 2 comparisons per measure.
    ▲ / ▼: significantly higher / lower than bm25.
    <BLANKLINE>
    >>> print(ir.report(results, ir.compare(results, test="t")).to_markdown())
    | # | run | nDCG@10 |
    |---|---|---:|
    | a | bm25 | 0.3500<sup>c</sup> |
    | b | dense | **0.5167**<sup>ac</sup> |
    | c | rand | 0.1333 |
    <BLANKLINE>
    paired t-test, two-sided, alpha = 0.05; 6 topics.
    No correction for multiple comparisons (3 per measure).
    Superscript letters: the row's run is significantly better than the runs with those letters.
    Bold: the best mean per column.
    <BLANKLINE>
    """
    comparison = _checked_comparison(comparison)
    missing = check_missing(missing)  # as compare reads it
    if not isinstance(decimals, int) or isinstance(decimals, bool) or not 0 <= decimals <= 12:
        raise ParameterError(f"decimals={decimals!r}: give an integer from 0 to 12")
    meta = _meta(comparison)
    check_comparison_rows(comparison, "report")
    col_a = meta["column_a"]
    shown_measures = _shown_measures(comparison, measures)
    layout, base = _layout(comparison, meta, mode)
    _check_ci(ci, layout, comparison, meta, shown_measures)
    _check_p(p_values, p_floor, layout)
    df = collect(
        results, a=col_a, b=col_a, run_col=run_col, query_col=query_col, measure_col=measure_col
    )
    check_values(df, col_a, col_a)
    order = _run_order(df, comparison)
    shown = order if run_ids is None else chosen_runs(order, run_ids)  # a str is one run id
    if not shown:
        raise ParameterError("run_ids=[]: name at least one run to show (or None for all)")
    cells = _mean_cells(
        df, comparison, meta, order, shown_measures, missing=missing, ci=ci, decimals=decimals
    )
    cells = cells.filter(pl.col("run_id").is_in(shown))
    if ci == "delta":
        cells = _with_delta_intervals(cells, comparison)
    shown = _row_order(cells, shown, sort_by, shown_measures, base)
    labels = dict(zip(shown, _letters(len(shown)), strict=True)) if layout == "letters" else {}
    cells = _marked(cells, comparison, layout, labels, shown, shown_measures)
    legend = legend_lines(comparison, meta, layout, base, ci, shown_measures)
    if p_values:
        what = "p-value" if meta["correction"] == "none" else "adjusted p-value"
        legend.append(
            f"(p): the {what} against {base if layout == 'baseline' else 'the fixed score'}."
        )
    return Report(
        cells, tuple(shown), tuple(shown_measures), tuple(legend), layout, decimals,
        p_floor=p_floor if p_values else None,
    )  # fmt: skip


def _check_p(p_values: Any, p_floor: Any, layout: str) -> None:
    if not isinstance(p_values, bool):
        raise ParameterError(f"p_values={p_values!r}: True or False")
    if isinstance(p_floor, bool) or not isinstance(p_floor, (int, float)) or not 0 < p_floor < 1:
        raise ParameterError(f"p_floor={p_floor!r}: a number between 0 and 1, e.g. 0.001")
    if p_values and layout == "letters":
        raise ParameterError(
            "p_values=True shows each run's p-value against the baseline; with letters a cell "
            "stands for many pairs: compare against a baseline, or read compare()'s frame"
        )


def _checked_comparison(comparison: Any) -> pl.DataFrame:
    """What ``compare`` returned, collected (a report is a boundary: collected once) and
    checked: a frame with its columns and rows."""
    if isinstance(comparison, pl.LazyFrame):
        comparison = comparison.collect()
    if not isinstance(comparison, pl.DataFrame):
        raise SchemaError(
            f"comparison must be the DataFrame ir.compare returned, not {type(comparison).__name__}"
        )
    missing_cols = [c for c in RESULT_COLUMNS if c not in comparison.columns]
    if missing_cols:
        raise SchemaError(
            f"comparison must be the frame ir.compare returned; it lacks {missing_cols}"
        )
    if comparison.height == 0:
        raise ParameterError("the comparison is empty: nothing to report")
    return comparison


#: The columns of a comparison that one ``compare()`` call sets alike on every row.
_META = (
    "test",
    "alternative",
    "correction",
    "alpha",
    "column_a",
    "column_b",
    "ci_method",
    "confidence",
)


def _meta(comparison: pl.DataFrame) -> dict[str, Any]:
    """How the comparison was made (:data:`_META`): one value each, or an error."""
    meta = {}
    for key in _META:
        values = comparison[key].unique(maintain_order=True).to_list()
        if len(values) > 1:
            raise ParameterError(
                f"the comparison mixes {key}s ({values}); report one compare() call at a time"
            )
        meta[key] = values[0]
    return meta


def _shown_measures(comparison: pl.DataFrame, measures: str | Sequence[str] | None) -> list[str]:
    """``measures=``: the columns shown, each a measure of the comparison."""
    cmp_measures = comparison["measure"].unique(maintain_order=True).to_list()
    if isinstance(measures, str):
        measures = [measures]
    shown_measures = list(cmp_measures) if measures is None else list(measures)
    if not shown_measures:
        raise ParameterError("measures=[]: name at least one measure to show (or None for all)")
    for m in shown_measures:
        if m not in cmp_measures:
            raise ParameterError(f"measure {m!r} is not in the comparison; it holds {cmp_measures}")
    return shown_measures


def _layout(
    comparison: pl.DataFrame, meta: dict[str, Any], mode: str | None
) -> tuple[str, str | None]:
    """The marks (``"fixed"``, ``"baseline"`` or ``"letters"``) and the baseline run, from
    the comparison's rows and ``mode=``."""
    if mode not in (None, "baseline", "letters"):
        raise ParameterError(f"mode={mode!r} is unknown; use None, 'baseline' or 'letters'")
    run_b = comparison["run_b"]
    base: str | None = None
    if run_b.null_count() == comparison.height:
        layout = "fixed"
        if mode is not None:
            raise ParameterError(
                f"mode={mode!r}: the comparison is against a fixed score (mode='fixed'); "
                "leave mode=None"
            )
    else:
        base_runs = run_b.unique().to_list()
        a_runs = comparison["run_a"].to_list()
        if (
            len(base_runs) == 1
            and base_runs[0] not in a_runs
            and meta["column_b"] == meta["column_a"]
        ):
            layout, base = "baseline", base_runs[0]
        else:
            layout = "letters"
        if mode == "baseline" and layout != "baseline":
            raise ParameterError(
                "mode='baseline' needs a comparison of every run with one run "
                "(compare(..., baseline=RUN)); this one compares pairs: use mode='letters'"
            )
        if mode == "letters":
            layout, base = "letters", None
    return layout, base


def _check_ci(
    ci: str | None,
    layout: str,
    comparison: pl.DataFrame,
    meta: dict[str, Any],
    shown_measures: list[str],
) -> None:
    """``ci=``: known, and ``"delta"`` only against a baseline, with the intervals there."""
    if ci == "delta" and layout == "letters":
        raise ParameterError("ci='delta' needs a comparison against a baseline; use ci='mean'")
    if ci not in (None, "mean", "delta"):
        raise ParameterError(f"ci={ci!r} is unknown; use None, 'mean' or 'delta'")
    if ci == "delta":
        shown_rows = comparison.filter(pl.col("measure").is_in(shown_measures))
        none = shown_rows.filter(pl.col("ci_low").is_null() | pl.col("ci_high").is_null())
        if none.height or meta["ci_method"] is None:
            raise ParameterError(
                f"ci='delta': the comparison has no interval of the difference (ci_low, "
                f"ci_high null in {none.height} of {shown_rows.height} rows): it was "
                "computed with ci=None; compare with ci='t' (or 'percentile', 'bca'), or "
                "use ci='mean'"
            )


def _run_order(df: pl.DataFrame, comparison: pl.DataFrame) -> list[str]:
    """The runs of the comparison in the order of the per-query frame, which must hold
    them all."""
    run_b = comparison["run_b"]
    compared = [r for r in comparison["run_a"].unique(maintain_order=True).to_list()]
    compared += [
        r for r in run_b.drop_nulls().unique(maintain_order=True).to_list() if r not in compared
    ]
    order = [r for r in df["run"].unique(maintain_order=True).to_list() if r in compared]
    missing_runs = [r for r in compared if r not in order]
    if missing_runs:
        raise ParameterError(f"runs {missing_runs} of the comparison are not in results")
    return order


def _mean_cells(
    df: pl.DataFrame,
    comparison: pl.DataFrame,
    meta: dict[str, Any],
    order: list[str],
    shown_measures: list[str],
    *,
    missing: str,
    ci: str | None,
    decimals: int,
) -> pl.DataFrame:
    """``run_id, measure, mean, printed, ci_low, ci_high`` for every run of ``order`` and
    shown measure, over the topics the comparison used (checked against its means)."""
    from scipy import stats

    col_a = meta["column_a"]
    rows = []
    for m in shown_measures:
        mats = matrices(df, m, order, a=col_a, b=col_a, missing=missing)
        means = mats.xa.mean(axis=1)
        _check_means(
            comparison.filter(pl.col("measure") == m),
            dict(zip(order, means, strict=True)),
            len(mats.queries),
            m,
        )
        # means equal up to rounding (the same scores in another order) print alike
        means = snap(means, np.abs(means))
        low = high = np.full(len(order), np.nan)
        if ci == "mean":
            conf = meta["confidence"] if meta["confidence"] is not None else 1 - meta["alpha"]
            interval = stats.ttest_1samp(mats.xa, 0.0, axis=-1).confidence_interval(conf)
            low, high = np.asarray(interval.low), np.asarray(interval.high)
        for i, r in enumerate(order):
            rows.append(
                {
                    "run_id": r,
                    "measure": m,
                    "mean": float(means[i]),
                    "printed": float(f"{means[i]:.{decimals}f}"),  # bold ties as printed
                    "ci_low": float(low[i]),
                    "ci_high": float(high[i]),
                }
            )
    return pl.DataFrame(rows).with_columns(pl.col("ci_low", "ci_high").fill_nan(None))


def _with_delta_intervals(cells: pl.DataFrame, comparison: pl.DataFrame) -> pl.DataFrame:
    """The cells with the comparison's interval of each run's difference from the
    baseline in place of the interval of its mean."""
    deltas = comparison.select(
        pl.col("run_a").alias("run_id"),
        "measure",
        pl.col("ci_low").alias("d_low"),
        pl.col("ci_high").alias("d_high"),
    )
    return (
        cells.drop("ci_low", "ci_high")
        .join(deltas, on=["run_id", "measure"], how="left")
        .rename({"d_low": "ci_low", "d_high": "ci_high"})
    )


def _row_order(
    cells: pl.DataFrame,
    shown: list[str],
    sort_by: str | None,
    shown_measures: list[str],
    base: str | None,
) -> list[str]:
    """The rows: by decreasing mean of ``sort_by`` if given, the baseline first."""
    if sort_by is not None:
        if sort_by not in shown_measures:
            raise ParameterError(f"sort_by={sort_by!r} is not among the measures {shown_measures}")
        by = dict(cells.filter(pl.col("measure") == sort_by).select("run_id", "mean").iter_rows())
        shown = sorted(shown, key=lambda r: -by[r])
    if base is not None and base in shown:
        shown = [base] + [r for r in shown if r != base]
    return shown


def _marked(
    cells: pl.DataFrame,
    comparison: pl.DataFrame,
    layout: str,
    labels: dict[str, str],
    shown: list[str],
    shown_measures: list[str],
) -> pl.DataFrame:
    """The report's frame: the cells with their marks, best means and labels, in the
    order of the rows and columns."""
    lower = [m for m in shown_measures if lower_is_better(m)]  # bold the lowest mean
    return (
        cells.join(_marks(comparison, layout, labels), on=["run_id", "measure"], how="left")
        .join(_p_values(comparison, layout), on=["run_id", "measure"], how="left")
        .with_columns(
            pl.col("mark").fill_null(""),
            pl.when(pl.col("measure").is_in(lower))
            .then(pl.col("printed") == pl.col("printed").min().over("measure"))
            .otherwise(pl.col("printed") == pl.col("printed").max().over("measure"))
            .alias("best"),
            pl.col("run_id")
            .replace_strict(labels, default=None, return_dtype=pl.String)
            .alias("label"),
        )
        .sort(
            pl.col("run_id").replace_strict({r: i for i, r in enumerate(shown)}),
            pl.col("measure").replace_strict({m: i for i, m in enumerate(shown_measures)}),
        )
        .select("run_id", "label", "measure", "mean", "mark", "best", "ci_low", "ci_high", "p")
    )


def _p_values(cmp: pl.DataFrame, layout: str) -> pl.DataFrame:
    """``run_id, measure, p``: each run's adjusted p-value against the baseline (or the
    fixed score); none in letters mode, where a cell stands for many pairs."""
    rows = cmp if layout in ("baseline", "fixed") else cmp.clear()
    return rows.select(
        pl.col("run_a").alias("run_id"), "measure", pl.col("p_adjusted").cast(pl.Float64).alias("p")
    )


def _check_means(cmp: pl.DataFrame, means: dict[str, float], n: int, measure: str) -> None:
    ns = cmp["n"].unique().to_list()
    expected = dict(zip(cmp["run_a"], cmp["mean_a"], strict=True))
    bad = [r for r, v in expected.items() if r in means and abs(means[r] - v) > 1e-9]
    if ns != [n] or bad:
        raise ParameterError(
            f"measure {measure!r}: results give {n} topics but the comparison used {ns}"
            + (f", and different means for {bad[:3]}" if bad else "")
            + "; pass report() the results and missing= given to compare()"
        )


def _marks(cmp: pl.DataFrame, mode: str, labels: dict[str, str]) -> pl.DataFrame:
    """``run_id, measure, mark``: ▲/▼ against a baseline or a fixed score; otherwise the
    letters (``labels``) of the shown runs the run is significantly better than."""
    # the direction the test found, not the sign of delta: a signed-rank or sign test can
    # find a significant rise where the mean falls (many small wins, a few large losses)
    way = pl.col("direction")
    sig = cmp.filter(pl.col("significant") & (way != 0))
    if mode in ("baseline", "fixed"):
        return sig.select(
            pl.col("run_a").alias("run_id"),
            "measure",
            pl.when(way > 0).then(pl.lit(_UP)).otherwise(pl.lit(_DOWN)).alias("mark"),
        )
    # letters say "better": for a measure whose lower values are better, the lower run
    lower = [m for m in sig["measure"].unique().to_list() if lower_is_better(m)]
    way = pl.when(pl.col("measure").is_in(lower)).then(-way).otherwise(way)
    beats = [
        sig.filter(way > 0).select(
            pl.col("run_a").alias("run_id"), "measure", pl.col("run_b").alias("beaten")
        )
    ]
    # on two columns (base vs top) only "a above b" is a claim about the runs
    if cmp["column_a"][0] == cmp["column_b"][0]:
        beats.append(
            sig.filter(way < 0).select(
                pl.col("run_b").alias("run_id"), "measure", pl.col("run_a").alias("beaten")
            )
        )
    order = {r: i for i, r in enumerate(labels)}
    joiner = "," if any(len(v) > 1 for v in labels.values()) else ""
    return (
        pl.concat(beats)
        .filter(pl.col("beaten").is_in(list(labels)))
        .with_columns(pl.col("beaten").replace_strict(order, return_dtype=pl.Int64).alias("pos"))
        .sort("pos")
        .group_by("run_id", "measure", maintain_order=True)
        .agg(
            pl.col("beaten")
            .replace_strict(labels, return_dtype=pl.String)
            .str.join(joiner)
            .alias("mark")
        )
    )
