"""LaTeX tables a journal prints: what :meth:`polars_ireval.Report.to_latex` writes.

booktabs rules and no vertical ones; a header over every column; math minus signs; each
measure set as two columns, the numbers right-aligned (their decimals line up; or
siunitx ``S`` columns aligned on the decimal point) and the marks or the interval beside
them; the legend as a note under the table or in the
caption. A table wider than the text is scaled down to it (graphicx's ``\\resizebox``,
never up); one longer than a page is split into several floats, each with its header, the
later ones numbered as the first and captioned "(continued)", or set as one ``longtable``
(one-column documents only: ``longtable`` refuses two columns).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from polars_ireval.errors import ParameterError

Fit = Literal["width", "none"]
Long = Literal["auto", "split", "longtable", "none"]
LegendPlace = Literal["note", "caption", "none"]
SIZES = ("tiny", "scriptsize", "footnotesize", "small", "normalsize")
#: Rows of one float when ``long="auto"`` or ``"split"``: with the header, caption and
#: note, 35 rows of ``\\small`` text fill about 480 pt, under a column of an A4 or letter
#: page in the ten-point classes (one- or two-column), which hold about 550 to 650 pt.
ROWS_PER_TABLE = 35

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\textasciicircum{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
    "[": "{[}",  # not read as the optional argument of a \\ before it
}
_SPECIAL_RE = re.compile(r"[\\{}$&#^_%~[]")


def escape(text: str) -> str:
    """``text`` as LaTeX prints it verbatim (its special characters escaped)."""
    return _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group()], text)


def number(text: str) -> str:
    """A formatted number with a math minus sign (``$-$``), not a hyphen."""
    return f"$-${text[1:]}" if text.startswith("-") else text


@dataclass(frozen=True)
class Table:
    """A table's LaTeX pieces: ``columns`` the header cells of the text columns (left
    aligned), ``measures`` the headers of the number columns (each a number and a mark
    column), ``rows`` each row's text cells then (number, mark) per measure, and the
    ``legend`` lines (LaTeX text)."""

    columns: Sequence[str]
    measures: Sequence[str]
    rows: Sequence[Sequence[str]]
    legend: Sequence[str]
    packages: tuple[str, ...] = field(default=("booktabs",))
    #: siunitx's ``table-format`` of the number columns (``"1.4"``, ``"-1.4"``), which are
    #: then ``S`` columns aligned on the decimal point; None: right-aligned ``r`` columns.
    number_format: str | None = None


@dataclass(frozen=True)
class Options:
    """The choices of :meth:`polars_ireval.Report.to_latex` (checked)."""

    caption: str | None = None
    label: str | None = None
    placement: str = "tbp"
    size: str | None = "small"
    fit: Fit = "width"
    long: Long = "auto"
    rows_per_table: int = ROWS_PER_TABLE
    legend: LegendPlace = "note"
    wide: bool = False

    def __post_init__(self) -> None:
        if self.placement and not re.fullmatch(r"[htbpH!]+", self.placement):
            raise ParameterError(
                f"placement={self.placement!r}: LaTeX float placement letters h, t, b, p, H "
                "and ! (e.g. 'tbp', 'htbp', '!t')"
            )
        if self.size is not None and self.size not in SIZES:
            raise ParameterError(f"size={self.size!r}: one of {list(SIZES)} or None")
        if self.fit not in ("width", "none"):
            raise ParameterError(f"fit={self.fit!r}: 'width' (scale down to fit) or 'none'")
        if self.long not in ("auto", "split", "longtable", "none"):
            raise ParameterError(
                f"long={self.long!r}: 'auto' (split past rows_per_table rows), 'split', "
                "'longtable' (one-column documents) or 'none'"
            )
        if self.legend not in ("note", "caption", "none"):
            raise ParameterError(
                f"legend={self.legend!r}: 'note' (under the table), 'caption' or 'none'"
            )
        if isinstance(self.rows_per_table, bool) or not (
            isinstance(self.rows_per_table, int) and self.rows_per_table >= 1
        ):
            raise ParameterError(f"rows_per_table={self.rows_per_table!r}: a positive integer")
        if self.long == "longtable" and self.wide:
            raise ParameterError("long='longtable' cannot span two columns (wide=True)")
        for name in ("caption", "label"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ParameterError(f"{name}={value!r}: a string or None")


def render(table: Table, options: Options) -> str:
    """The LaTeX text of ``table`` (see the module docstring), after a comment line that
    names the packages it needs."""
    o = options
    packages = list(table.packages)
    if table.number_format is not None:
        packages.append("siunitx")
    if o.fit == "width" and o.long != "longtable":
        packages.append("graphicx")
    mode = o.long
    if mode == "auto":
        mode = "split" if len(table.rows) > o.rows_per_table else "none"
    if mode == "longtable":
        packages.append("longtable")
    head = f"% needs \\usepackage{{{','.join(dict.fromkeys(packages))}}}\n"
    if mode == "longtable":
        return head + _longtable(table, o)
    chunks = [table.rows] if mode == "none" else _chunks(table.rows, o.rows_per_table)
    floats = [_float(table, rows, o, part=i, parts=len(chunks)) for i, rows in enumerate(chunks)]
    return head + "\n".join(floats)


def _chunks(rows: Sequence[Sequence[str]], size: int) -> list[Sequence[Sequence[str]]]:
    """``rows`` in parts of at most ``size``, as even as they can be (59 rows by 35: 30
    and 29, not 35 and 24)."""
    parts = -(-len(rows) // size) or 1
    base, extra = divmod(len(rows), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + base + (1 if i < extra else 0)
        out.append(rows[start:end])
        start = end
    return out


def _spec(table: Table) -> str:
    number = "r" if table.number_format is None else f"S[table-format={table.number_format}]"
    return "@{}" + "l" * len(table.columns) + f"{number}@{{}}l" * len(table.measures) + "@{}"


def _sisetup(table: Table) -> list[str]:
    """siunitx's setting for bold numbers (``\\bfseries``), local to the table."""
    return [] if table.number_format is None else [r"\sisetup{detect-weight=true}"]


def _header(table: Table) -> list[str]:
    cells = [*table.columns, *(rf"\multicolumn{{2}}{{c}}{{{m}}}" for m in table.measures)]
    return [r"\toprule", " & ".join(cells) + r" \\", r"\midrule"]


def _body(rows: Sequence[Sequence[str]]) -> list[str]:
    return [" & ".join(row) + r" \\" for row in rows]


def _caption(table: Table, o: Options, *, continued: bool) -> str | None:
    text = o.caption or ""
    if o.legend == "caption" and not continued:
        text = " ".join([text, *table.legend]).strip()
    if continued:
        text = (text + " " if text else "") + "(continued)"
    return text or None


def _float(
    table: Table, rows: Sequence[Sequence[str]], o: Options, *, part: int, parts: int
) -> str:
    env = "table*" if o.wide else "table"
    lines = [rf"\begin{{{env}}}" + (f"[{o.placement}]" if o.placement else ""), r"\centering"]
    if o.size:
        lines.append(f"\\{o.size}")
    lines += _sisetup(table)
    if part > 0:
        lines.append(r"\addtocounter{table}{-1}")  # the same number as the first part
    caption = _caption(table, o, continued=part > 0)
    if caption is not None:
        lines.append(rf"\caption{{{caption}}}")
    if o.label and part == 0:
        lines.append(rf"\label{{{o.label}}}")
    tabular = [rf"\begin{{tabular}}{{{_spec(table)}}}", *_header(table), *_body(rows)]
    tabular += [r"\bottomrule", r"\end{tabular}"]
    if o.fit == "width":  # scaled down to the text width, never up
        lines.append(r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%")
        lines += tabular
        lines.append("}")
    else:
        lines += tabular
    if o.legend == "note" and part == parts - 1 and table.legend:
        lines.append(r"\par\smallskip")
        lines.append(
            r"\parbox{\linewidth}{\footnotesize\raggedright " + r"\par ".join(table.legend) + "}"
        )
    lines.append(rf"\end{{{env}}}")
    return "\n".join(lines) + "\n"


def _longtable(table: Table, o: Options) -> str:
    lines = []
    if o.size:
        lines.append(f"\\begingroup\\{o.size}")
    if table.number_format is not None:
        lines.append(r"\begingroup" + _sisetup(table)[0])
    lines.append(rf"\begin{{longtable}}{{{_spec(table)}}}")
    caption = _caption(table, o, continued=False)
    if caption is not None:
        label = rf"\label{{{o.label}}}" if o.label else ""
        lines.append(rf"\caption{{{caption}}}{label} \\")
    lines += [*_header(table), r"\endfirsthead"]
    more = _caption(table, o, continued=True)
    if more is not None:
        lines.append(rf"\caption[]{{{more}}} \\")
    lines += [*_header(table), r"\endhead", r"\bottomrule", r"\endfoot", r"\bottomrule"]
    lines.append(r"\endlastfoot")
    lines += _body(table.rows)
    lines.append(r"\end{longtable}")
    if table.number_format is not None:
        lines.append(r"\endgroup")
    if o.legend == "note" and table.legend:  # under the last page's part
        lines.append(r"{\footnotesize\raggedright " + r"\par ".join(table.legend) + r"\par}")
    if o.size:
        lines.append(r"\endgroup")
    return "\n".join(lines) + "\n"
