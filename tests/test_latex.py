"""``Report.to_latex``: tables a journal prints, compiled by pdflatex.

Comparisons of 10, 59 and 143 runs (generated per-query scores, and TREC-COVID round 1's
143 real runs) are set in a one-column and a two-column ``article`` and compiled with
pdflatex (Debian's ``texlive-latex-recommended``, which ``.ci/run`` installs); the log
must show no error, no overfull box and no float too large for its page. Then the
pieces: escaping, minus signs, the header, the legend, the options and their checks.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.analysis import latex
from tests.paths import need_data

MEASURES = ["nDCG@10", "AP", "P@10", "R@1000", "RR"]
CLASSES = {
    "one-column": r"\documentclass{article}",
    "two-column": r"\documentclass[twocolumn]{article}",
}


def campaign(runs: int, topics: int = 50, seed: int = 0) -> pl.DataFrame:
    """Per-query scores of ``runs`` runs whose means spread from 0.2 to 0.6, with run ids
    as long and as awkward as real ones (underscores, dots)."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(runs):
        level = 0.2 + 0.4 * r / max(runs - 1, 1)
        for m in MEASURES:
            values = np.clip(rng.normal(level, 0.2, topics), 0, 1)
            rows += [
                (f"team{r % 7}_run.{r:03d}_bm25+rm3", f"q{q}", m, v) for q, v in enumerate(values)
            ]
    return pl.DataFrame(rows, schema=["run_id", "query_id", "measure", "value"], orient="row")


def compiled(tmp_path: Path, body: str, documentclass: str) -> str:
    """pdflatex's log of ``body`` in a document of ``documentclass`` (fails on an error)."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-recommended)")
    packages = re.findall(r"% needs \\usepackage\{([^}]*)\}", body)
    uses = "".join(rf"\usepackage{{{p}}}" + "\n" for p in packages)
    text = f"{documentclass}\n{uses}\\begin{{document}}\nSome text.\n{body}\n\\end{{document}}\n"
    (tmp_path / "t.tex").write_text(text, encoding="utf-8")
    for _ in range(3):  # a longtable settles its column widths over runs, as a document does
        done = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        log = (tmp_path / "t.log").read_text(encoding="latin-1")
        assert done.returncode == 0, log[-3000:]
        if "Rerun" not in log:
            break
    return log


def clean(log: str) -> None:
    """No overfull box, no float too large, no LaTeX warning (but the first run's "Label(s)
    may have changed", which a second run settles)."""
    lines = [line for line in log.splitlines() if "Label(s) may have changed" not in line]
    for bad in ("Overfull \\hbox", "Overfull \\vbox", "Float too large", "LaTeX Warning"):
        found = [line for line in lines if bad in line]
        assert not found, "\n".join(found)


@pytest.mark.parametrize("layout", list(CLASSES))
@pytest.mark.parametrize("runs", [10, 59, 143])
def test_a_campaign_compiles_without_overflow(runs: int, layout: str, tmp_path: Path) -> None:
    results = campaign(runs)
    baseline = results["run_id"][0]
    cmp = ir.compare(results, baseline=baseline, test="t", correction="holm")
    text = ir.report(results, cmp, ci="mean").to_latex(caption="Effectiveness.", label="tab:x")
    log = compiled(tmp_path, text, CLASSES[layout])
    clean(log)
    parts = text.count(r"\begin{table}")
    assert parts == -(-runs // latex.ROWS_PER_TABLE)
    assert text.count(r"\label{tab:x}") == 1 and text.count("(continued)") == parts - 1
    pages = re.search(r"Output written on t\.pdf \((\d+) page", log)
    assert pages is not None


@pytest.mark.parametrize("layout", list(CLASSES))
def test_letters_for_ten_runs(layout: str, tmp_path: Path) -> None:
    results = campaign(10)
    text = ir.report(results, ir.compare(results, test="t")).to_latex(caption="All pairs.")
    clean(compiled(tmp_path, text, CLASSES[layout]))
    assert r"\# & Run &" in text and r"\textsuperscript{" in text


def test_longtable_in_one_column(tmp_path: Path) -> None:
    """A longtable breaks across pages but is not scaled: here the size that fits."""
    results = campaign(59)
    cmp = ir.compare(results, baseline=results["run_id"][0])
    text = ir.report(results, cmp).to_latex(
        caption="Long.", label="tab:l", long="longtable", size="footnotesize"
    )
    assert r"\begin{longtable}" in text and r"\endhead" in text
    clean(compiled(tmp_path, text, CLASSES["one-column"]))


def test_trec_covid_round_one(tmp_path: Path) -> None:
    """The 143 runs of TREC-COVID round 1, against the official leaderboard's first."""
    data = need_data() / "trec-covid-r1"
    runs = ir.read_run(data / "runs", run_id="file")
    qrels = ir.read_qrels(data / "qrels-rnd1.txt")
    results = ir.evaluate(runs, qrels, ["nDCG@10", "P@5", "bpref"], per_query=True)
    base = results["run_id"].unique().sort()[0]
    cmp = ir.compare(results, baseline=base, correction="holm")
    text = ir.report(results, cmp, sort_by="nDCG@10").to_latex(caption="TREC-COVID round 1.")
    for layout in CLASSES.values():
        clean(compiled(tmp_path, text, layout))


def test_the_pieces() -> None:
    results = pl.DataFrame(
        {
            "run_id": ["a_b"] * 4 + ["c&d"] * 4,
            "query_id": ["1", "2", "3", "4"] * 2,
            "measure": "AP",
            "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.9],
        }
    )
    cmp = ir.compare(results, baseline="a_b")
    text = ir.report(results, cmp, ci="delta").to_latex(legend="caption", caption="Cap.")
    assert r"a\_b" in text and r"c\&d" in text  # escaped run ids
    assert "$-$" not in text.split("Cap.")[0]
    assert "Means of column" not in text  # said only for another column than value
    assert "|" not in text.split(r"\begin{tabular}")[1].split("}")[0]  # no vertical rule
    assert r"\caption{Cap. paired t-test" in text and r"\parbox" not in text
    assert "Run & " in text and r"\toprule" in text and r"\bottomrule" in text
    deltas = ir.report(results, cmp, ci="delta").to_latex()
    assert "[$-$" in deltas or "$-$" in deltas or "[0." in deltas
    assert latex.number("-0.1234") == "$-$0.1234" and latex.number("0.5") == "0.5"
    assert latex.escape(r"50% of a_b & {x} #1 ~ ^ \ $") == (
        r"50\% of a\_b \& \{x\} \#1 \textasciitilde{} \textasciicircum{} \textbackslash{} \$"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"placement": "x"}, "placement='x'"),
        ({"size": "huge"}, "size='huge'"),
        ({"fit": "page"}, "fit='page'"),
        ({"long": "yes"}, "long='yes'"),
        ({"legend": "top"}, "legend='top'"),
        ({"rows_per_table": 0}, "rows_per_table=0"),
        ({"long": "longtable", "wide": True}, "cannot span two columns"),
    ],
)
def test_bad_options(options: dict, message: str) -> None:
    results = campaign(3)
    report = ir.report(results, ir.compare(results, baseline=results["run_id"][0]))
    with pytest.raises(ir.ParameterError, match=re.escape(message)):
        report.to_latex(**options)


def test_p_values_never_print_zero(tmp_path: Path) -> None:
    """A p-value that underflowed to 0 (a run a world apart) prints as ``p < 0.001``, in
    every format, and the LaTeX compiles; the floor is the caller's."""
    rng = np.random.default_rng(1)
    rows = [("base", f"q{i}", "AP", 0.2 + rng.normal(0, 0.01)) for i in range(50)]
    rows += [("far", f"q{i}", "AP", 0.9 + rng.normal(0, 0.01)) for i in range(50)]
    rows += [("near", f"q{i}", "AP", 0.2 + rng.normal(0, 0.05)) for i in range(50)]
    results = pl.DataFrame(rows, schema=["run_id", "query_id", "measure", "value"], orient="row")
    cmp = ir.compare(results, baseline="base")
    assert cmp.filter(run_a="far")["p_value"][0] < 1e-40
    rep = ir.report(results, cmp, p_values=True)
    for text in (rep.to_text(), rep.to_markdown(), rep.to_latex()):
        assert "p < 0.001" in text and "p = 0.000" not in text and "p = 0 " not in text
    near = cmp.filter(run_a="near")["p_adjusted"][0]
    assert f"(p = {near:.3f})" in rep.to_text()
    assert "p < 0.0001" in ir.report(results, cmp, p_values=True, p_floor=1e-4).to_text()
    clean(compiled(tmp_path, rep.to_latex(caption="With p."), CLASSES["two-column"]))
    with pytest.raises(ir.ParameterError, match="p_floor=0"):
        ir.report(results, cmp, p_values=True, p_floor=0)
    with pytest.raises(ir.ParameterError, match="letters"):
        ir.report(results, ir.compare(results, pairs="all"), p_values=True)


@pytest.mark.parametrize("layout", list(CLASSES))
def test_siunitx_columns_align_on_the_decimal_point(layout: str, tmp_path: Path) -> None:
    """``siunitx=True``: S columns whose table-format fits the means (a negative mean
    widens it), bold by ``\\bfseries``; compiles without overflow at 59 runs."""
    if subprocess.run(["kpsewhich", "siunitx.sty"], capture_output=True).returncode != 0:
        pytest.skip("siunitx is not installed (apt-get install texlive-science)")
    results = campaign(59)
    cmp = ir.compare(results, baseline=results["run_id"][0])
    text = ir.report(results, cmp).to_latex(siunitx=True, caption="Aligned.")
    assert "S[table-format=1.4]" in text and r"\bfseries 0." in text and "siunitx" in text
    clean(compiled(tmp_path, text, CLASSES[layout]))
    shifted = results.with_columns(pl.col("value") - 0.5)
    negative = ir.report(shifted, ir.compare(shifted, baseline=results["run_id"][0]))
    assert "S[table-format=-1.4]" in negative.to_latex(siunitx=True)
