"""ir.report (the table and its renderings) and `ireval compare` (the command)."""

from __future__ import annotations

import io
import json
import re
import warnings
from contextlib import redirect_stderr, redirect_stdout
from html import escape as html_escape
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.cli.compare import main
from tests.paths import DATA, need_data

COVID = DATA / "trec-covid-r1"


def campaign() -> pl.DataFrame:
    """Four runs on 20 topics with clear differences: big > mid > base, noise ~ base."""
    rng = np.random.default_rng(1)
    base = rng.uniform(0.2, 0.5, 20)
    runs = {
        "base": base,
        "mid": base + rng.uniform(0.0, 0.2, 20),
        "big": base + rng.uniform(0.15, 0.35, 20),
        "noise": np.clip(base + rng.normal(0, 0.02, 20), 0, 1),
    }
    rows = [
        {"run_id": r, "query_id": f"t{q:02d}", "measure": m, "value": float(v[q] * f)}
        for m, f in (("nDCG@10", 1.0), ("AP", 0.6))
        for r, v in runs.items()
        for q in range(20)
    ]
    return pl.DataFrame(rows)


def test_baseline_report_marks_bold_and_legend() -> None:
    per_q = campaign()
    cmp = ir.compare(per_q, baseline="base", test="t", correction="holm")
    rep = ir.report(per_q, cmp)
    assert rep.mode == "baseline" and rep.runs[0] == "base"
    cells = {(r["run_id"], r["measure"]): r for r in rep.frame.iter_rows(named=True)}
    assert cells[("big", "nDCG@10")]["mark"] == "▲" and cells[("big", "nDCG@10")]["best"]
    assert cells[("noise", "AP")]["mark"] == ""
    means = per_q.group_by("run_id", "measure").agg(pl.col("value").mean())
    for r in means.iter_rows(named=True):
        assert cells[(r["run_id"], r["measure"])]["mean"] == pytest.approx(r["value"], abs=1e-15)
    legend = " ".join(rep.legend)
    assert "paired t-test, two-sided" in legend
    assert "Holm correction over the 3 comparisons per measure" in legend
    assert "alpha = 0.05" in legend and "20 topics" in legend and "than base" in legend
    text = rep.to_text()
    assert re.search(r"big\s+0\.\d{4}▲", text)
    md = rep.to_markdown()
    assert "| run | nDCG@10 | AP |" in md and "**" in md
    latex = rep.to_latex()
    for needle in (
        r"\toprule",
        r"\midrule",
        r"\bottomrule",
        r"\textbf{",
        r"\textsuperscript{$\blacktriangle$}",
    ):
        assert needle in latex
    assert "Holm correction" in latex and "@@" not in latex
    html = rep.to_html()
    assert "<strong>" in html and "▲" in html and "Holm correction" in html


def test_letters_report_for_all_pairs() -> None:
    per_q = campaign()
    cmp = ir.compare(per_q, pairs="all", test="randomized_tukey_hsd", resamples=2000, seed=1)
    rep = ir.report(per_q, cmp, sort_by="nDCG@10")
    assert rep.mode == "letters"
    assert rep.runs[0] == "big"  # sorted by nDCG@10
    labels = dict(zip(rep.frame["run_id"], rep.frame["label"], strict=True))
    assert labels["big"] == "a"
    ndcg = {
        r["run_id"]: r["mark"]
        for r in rep.frame.filter(pl.col("measure") == "nDCG@10").iter_rows(named=True)
    }
    sig = cmp.filter(pl.col("significant") & (pl.col("measure") == "nDCG@10"))
    for row in sig.iter_rows(named=True):  # run_a has the higher mean with pairs="all"
        assert labels[row["run_b"]] in ndcg[row["run_a"]]
    assert ndcg["base"] == "" or all(labels[x] not in ndcg["base"] for x in ("a",))
    assert "randomised Tukey HSD" in rep.legend[0] and "Family-wise over all pairs" in rep.legend[1]
    assert "2,000 random resamples" in rep.legend[2]
    assert "<sup>" in rep.to_markdown() and r"\textsuperscript{" in rep.to_latex()
    sub = ir.report(per_q, cmp, run_ids=["mid", "base"], measures=["AP"])
    assert sub.runs == ("mid", "base") and sub.measures == ("AP",)


def test_report_intervals_and_fixed_score() -> None:
    per_q = campaign()
    cmp = ir.compare(per_q, baseline="base", ci="bca", resamples=300, seed=2)
    rep = ir.report(per_q, cmp, ci="delta")
    row = rep.frame.filter((pl.col("run_id") == "mid") & (pl.col("measure") == "AP")).row(
        0, named=True
    )
    want = cmp.filter((pl.col("run_a") == "mid") & (pl.col("measure") == "AP"))
    assert (row["ci_low"], row["ci_high"]) == (want["ci_low"][0], want["ci_high"][0])
    assert "difference from the baseline" in rep.legend[-1]
    means = ir.report(per_q, cmp, ci="mean")
    assert means.frame["ci_low"].null_count() == 0 and "[" in means.to_text()
    fixed = ir.compare(per_q, baseline=0.3, alternative="greater")
    frep = ir.report(per_q, fixed)
    assert frep.mode == "fixed" and "fixed score 0.3" in " ".join(frep.legend)
    assert frep.legend[0].startswith("one-sample t-test, greater")  # not "paired"


@pytest.mark.parametrize("test", ["wilcoxon", "sign"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_marks_follow_the_tests_direction_not_the_means(test: str, alternative: str) -> None:
    """A run that wins 20 of 23 topics by 0.05 and loses 3 by 0.45 has a lower mean, yet the
    signed-rank and sign tests find it significantly *higher* (scipy's one-sided p 0.0086
    and 0.00024): the report marked it lower."""
    base = np.full(23, 0.5)
    new = base + np.where(np.arange(23) < 20, 0.05, -0.45)
    rows = [(r, f"q{j:02d}", "AP", float(x)) for r, v in (("base", base), ("new", new))
            for j, x in enumerate(v)]  # fmt: skip
    per_q = pl.DataFrame(rows, schema=["run_id", "query_id", "measure", "value"], orient="row")
    cmp = ir.compare(per_q, baseline="base", test=test, alternative=alternative)
    row = cmp.row(0, named=True)
    assert row["delta"] < 0 and row["significant"] and row["direction"] == 1
    rep = ir.report(per_q, cmp)
    assert rep.frame.filter(run_id="new")["mark"].item() == "▲"
    assert "by the signed ranks" in rep.legend[2] or "by wins and losses" in rep.legend[2]
    # pairs="all" puts the higher mean first (base): the test finds it lower than new
    both = ir.compare(per_q, pairs="all", test=test, alternative=alternative)
    assert both["run_a"].item() == "base" and both["direction"].item() == -1
    if alternative == "two-sided":
        assert ir.report(per_q, both).frame.filter(run_id="base")["mark"].item() == "▼"


def test_lower_is_better_for_fallout() -> None:
    """Fallout's lower values are better: its lowest mean is bold, and with letters the
    lower run is the one significantly better (the higher one was)."""
    rows = [(r, f"q{j}", m, v) for r, x in (("clean", 0.0), ("noisy", 0.04), ("mid", 0.02))
            for j in range(8) for m, v in (("Fallout(num_docs=100)", x + j * 1e-3),
                                           ("P@5", 0.2 + j * 0.01))]  # fmt: skip
    per_q = pl.DataFrame(rows, schema=["run_id", "query_id", "measure", "value"], orient="row")
    rep = ir.report(per_q, ir.compare(per_q, pairs="all"))
    fallout = rep.frame.filter(measure="Fallout(num_docs=100)")
    assert fallout.filter("best")["run_id"].to_list() == ["clean"]
    labels = dict(zip(rep.frame["run_id"], rep.frame["label"], strict=True))
    marks = dict(zip(fallout["run_id"], fallout["mark"], strict=True))
    assert {r: set(m) for r, m in marks.items()} == {
        "clean": {labels["mid"], labels["noisy"]}, "mid": {labels["noisy"]}, "noisy": set()
    }  # fmt: skip
    assert "(the lowest for Fallout(num_docs=100))" in " ".join(rep.legend)
    assert rep.frame.filter(measure="P@5", best=True)["run_id"].len() == 3  # all equal


def test_report_refuses_what_does_not_match() -> None:
    per_q = campaign()
    holed = per_q.filter(~((pl.col("run_id") == "mid") & (pl.col("query_id") == "t03")))
    cmp = ir.compare(holed, baseline="base", missing="skip")
    with pytest.raises(ir.MissingQueryError):
        ir.report(holed, cmp)
    assert ir.report(holed, cmp, missing="skip").frame.height == 8
    with pytest.raises(ir.ParameterError, match=r"20 topics but the comparison used \[19\]"):
        ir.report(per_q, cmp)  # the means would be over 20 topics, the tests over 19
    with pytest.raises(ir.ParameterError, match="mixes tests"):
        ir.report(
            per_q,
            pl.concat(
                [
                    ir.compare(per_q, baseline="base"),
                    ir.compare(per_q, baseline="base", test="sign"),
                ]
            ),
        )
    with pytest.raises(ir.SchemaError, match="lacks"):
        ir.report(per_q, cmp.drop("p_adjusted"))
    with pytest.raises(ir.ParameterError, match="ci='delta'"):
        ir.report(per_q, ir.compare(per_q), ci="delta")


def test_report_refuses_bad_arguments_with_the_fix() -> None:
    """Each of these was a raw TypeError, AttributeError or ColumnNotFoundError, a silent
    acceptance, or a message about the letter 'b' (runs='bm25' iterated as characters)."""
    per_q = campaign()
    cmp = ir.compare(per_q, baseline="base")
    no_ci = ir.compare(per_q, baseline="base", ci=None)
    with pytest.raises(ir.ParameterError, match=r"no interval of the difference.*ci='t'"):
        ir.report(per_q, no_ci, ci="delta")
    assert ir.report(per_q, no_ci).frame.height == 8  # without ci= it needs none
    with pytest.raises(ir.ParameterError, match=r"measures=\[\]: name at least one"):
        ir.report(per_q, cmp, measures=[])
    with pytest.raises(ir.ParameterError, match=r"run_ids=\[\]: name at least one"):
        ir.report(per_q, cmp, run_ids=[])
    with pytest.raises(ir.SchemaError, match=r"DataFrame ir.compare returned, not dict"):
        ir.report(per_q, {"a": 1})  # type: ignore[arg-type]
    with pytest.raises(ir.ParameterError, match=r"missing='drop' is unknown.*'skip'"):
        ir.report(per_q, cmp, missing="drop")  # type: ignore[arg-type]
    # one run id and one measure string are one run and one measure, as compare reads them
    # (runs="mid" was iterated: "'m' is not among the compared runs")
    one = ir.report(per_q, cmp, run_ids="mid", measures="AP")
    assert one.runs == ("mid",) and one.measures == ("AP",)
    assert one.frame.equals(ir.report(per_q, cmp, run_ids=["mid"], measures=["AP"]).frame)
    with pytest.raises(ir.ParameterError, match=r"run_ids='mdi' is not among the runs.*'mid'"):
        ir.report(per_q, cmp, run_ids="mdi")


def test_report_collects_a_lazy_comparison_once_without_warnings() -> None:
    per_q = campaign()
    cmp = ir.compare(per_q, baseline="base")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PerformanceWarning x 30 before
        lazy = ir.report(per_q, cmp.lazy())
    assert lazy.frame.equals(ir.report(per_q, cmp).frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ir.SchemaError, match=r"lacks \['p_adjusted'\]"):
            ir.report(per_q, cmp.lazy().drop("p_adjusted"))


def test_report_refuses_a_comparison_row_twice() -> None:
    """A pair twice with opposite `significant` was reported from whichever row came
    first (and the family size in the legend became '3-4')."""
    per_q = campaign()
    cmp = ir.compare(per_q, baseline="base")
    row = cmp.filter(measure="AP", run_a="big")
    twice = pl.concat([cmp, row.with_columns(significant=~pl.col("significant"))])
    with pytest.raises(
        ir.DuplicateError,
        match=r"2 rows compare the same pair: measure 'AP', run_a 'big', run_b 'base' "
        r"\(significant: \[True, False\]\)",
    ):
        ir.report(per_q, twice)


# --------------------------------------------------------------------------- CLI


def run_cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_cli_compare_prints_and_writes(tmp_path: Path) -> None:
    need_data()
    runs = [
        str(COVID / "runs" / f"{r}.gz") for r in ("run1", "BBGhelani1", "bm25_baseline", "run3")
    ]
    tex, parquet = tmp_path / "t.tex", tmp_path / "c.parquet"
    code, out, err = run_cli(
        [
            str(COVID / "qrels-rnd1.txt"),
            *runs,
            "-m",
            "nDCG@10 AP",
            "--baseline",
            "bm25_baseline",
            "--test",
            "t",
            "--correction",
            "holm",
            "--format",
            "markdown",
            "-o",
            str(tex),
            "-o",
            str(parquet),
        ]
    )
    assert code == 0, err
    assert "| run | nDCG@10 | AP |" in out and "▲" in out and "Holm correction" in out
    assert r"\toprule" in tex.read_text()
    frame = pl.read_parquet(parquet)
    assert frame["run_b"].unique().to_list() == ["bm25_baseline"] and frame.height == 6
    code, out, _ = run_cli(
        [str(COVID / "qrels-rnd1.txt"), *runs[:2], "-m", "P@5", "--format", "tsv"]
    )
    assert code == 0 and out.splitlines()[0].startswith("measure\trun_a\trun_b\tn\t")


def test_cli_compare_errors_are_one_line(tmp_path: Path) -> None:
    need_data()
    qrels, run = str(COVID / "qrels-rnd1.txt"), str(COVID / "runs" / "run1.gz")
    for args, needle in (
        ([qrels, run, "-m", "P@5"], "at least two runs"),
        ([qrels, run, run.replace("run1", "run3"), "-m", "P@5", "--test", "welch"], "test='welch'"),
        ([qrels, run, run.replace("run1", "run3"), "--baseline", "bm25"], "baseline='bm25'"),
        ([qrels, run, run.replace("run1", "run3"), "-o", str(tmp_path / "x.docx")], "cannot tell"),
        ([qrels, run, "--bogus"], "unrecognized arguments"),
    ):
        code, out, err = run_cli(args)
        assert code == 2 and out == ""
        assert err.startswith("ireval: error: ") and err.count("\n") == 1 and needle in err, err


def test_bold_follows_the_means_as_printed() -> None:
    """0.32500 and 0.32502 both print as 0.3250: both are bold (only the second was); for
    Fallout the lowest printed mean is best, so 0.01000 and 0.01002 both are."""
    runs = {
        "a": ([0.3, 0.35, 0.325], [0.01, 0.012, 0.008]),
        "b": ([0.30006, 0.34998, 0.32502], [0.01002, 0.012, 0.008]),
        "c": ([0.1, 0.2, 0.15], [0.05, 0.04, 0.06]),
    }
    rows = [(r, f"q{j}", m, v[j]) for r, vals in runs.items()
            for m, v in zip(("nDCG@10", "Fallout(num_docs=100)"), vals, strict=True)
            for j in range(3)]  # fmt: skip
    per_q = pl.DataFrame(rows, schema=["run_id", "query_id", "measure", "value"], orient="row")
    cmp = ir.compare(per_q, baseline="c")
    rep = ir.report(per_q, cmp)
    best = rep.frame.filter("best").group_by("measure").agg(pl.col("run_id").sort())
    assert dict(best.iter_rows()) == {"nDCG@10": ["a", "b"], "Fallout(num_docs=100)": ["a", "b"]}
    md = rep.to_markdown()
    assert md.count("**0.3250**") == 2 and md.count("**0.0100**") == 2
    five = ir.report(per_q, cmp, decimals=5)  # at five decimals they differ
    best5 = five.frame.filter("best").select("measure", "run_id").rows()
    assert sorted(best5) == [("Fallout(num_docs=100)", "a"), ("nDCG@10", "b")]


def test_markdown_escapes_names_and_html_escapes_them() -> None:
    """Run ids and measure names are text in Markdown and HTML, whatever they hold."""
    names = ["my_run_v2*", "a<b&c", "`x`[y]", "*b*_c_", "<em>r</em>", "p|q~~s~~\\"]
    values = [0.35, 0.5167, 0.1333, 0.3, 0.2, 0.25]
    rows = [(n, f"q{j}", "m_x*", v + (j % 2) * 0.02 - 0.01)
            for n, v in zip(names, values, strict=True) for j in range(6)]  # fmt: skip
    per_q = pl.DataFrame(rows, schema=["run_id", "query_id", "measure", "value"], orient="row")
    rep = ir.report(per_q, ir.compare(per_q, baseline="my_run_v2*", test="t"))
    md = rep.to_markdown()
    assert md.startswith("| run | m_x\\* |\n")
    for escaped in ("my_run_v2\\*", "a\\<b\\&c", "\\`x\\`\\[y\\]", "\\*b\\*\\_c\\_"):
        assert f"\n| {escaped} | " in md
    assert "than my_run_v2\\*." in md
    page = rep.to_html()  # great_tables escapes the text it is given
    for needle in ("a&lt;b&amp;c", "&lt;em&gt;r&lt;/em&gt;", ">m_x*<"):
        assert needle in page
    assert "<em>r</em>" not in page
    markdown_it = pytest.importorskip("markdown_it", reason="renders the Markdown to check it")
    html = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)
    assert re.findall(r"<td>(.*?)</td>", html) == [html_escape(n, quote=False) for n in names]
    assert re.findall(r"<th[^>]*>(.*?)</th>", html) == ["run", "m_x*"]
    assert "than my_run_v2*." in html


def test_control_characters_in_names_keep_one_row_per_run() -> None:
    """A run id (or measure) holding a newline split the table's row in every format, a tab
    broke the text table's alignment: they are written as escapes (a backslash and an ``n``),
    ``|`` as Markdown escapes it; the report's frame keeps the ids as they are."""
    names = ["new\nline", "ta\tb", "pi|pe", "cr\rx", "ls\u2028x", "base\n"]
    shown = ["new\\nline", "ta\\tb", "pi|pe", "cr\\rx", "ls\\u2028x", "base\\n"]
    rows = [(n, f"q{j}", "m\ty", 0.1 * i + (j % 3) * 0.05)
            for i, n in enumerate(names) for j in range(6)]  # fmt: skip
    per_q = pl.DataFrame(rows, schema=["run_id", "query_id", "measure", "value"], orient="row")
    rep = ir.report(per_q, ir.compare(per_q, baseline="base\n", test="t"))
    assert set(rep.frame["run_id"]) == set(names)
    order = [shown[names.index(r)] for r in rep.runs]

    text = rep.to_text().split("\n\n")[0].splitlines()
    assert text[0].split() == ["run", "m\\ty"]
    assert [line.split()[0] for line in text[1:]] == order
    assert len({line.index("0.") for line in text[1:]}) == 1  # the means line up
    assert "than base\\n." in rep.to_text()

    md = rep.to_markdown()
    table = md.split("\n\n")[0].splitlines()
    assert len(table) == 2 + len(names)
    assert all(len(re.findall(r"(?<!\\)\|", line)) == 3 for line in table)
    assert table[0] == "| run | m\\\\ty |"
    assert "than base\\\\n." in md
    markdown_it = pytest.importorskip("markdown_it", reason="renders the Markdown to check it")
    html = markdown_it.MarkdownIt("commonmark").enable(["table"]).render(md)
    assert re.findall(r"<td>(.*?)</td>", html) == order  # the means align right
    assert re.findall(r"<th[^>]*>(.*?)</th>", html) == ["run", "m\\ty"]

    latex = rep.to_latex()  # the package's own LaTeX (rows after \midrule, one a line)
    body = latex.split("\\midrule")[1].split("\\bottomrule")[0].strip().splitlines()
    assert [line.split(" & ")[0] for line in body] == [
        v.replace("\\", "\\textbackslash{}") for v in order
    ]
    assert "m\\textbackslash{}ty" in latex and "\t" not in latex
    pytest.importorskip("great_tables", reason="renders HTML")
    page = rep.to_html()
    stubs = re.findall(r'<th scope="row"[^>]*gt_stub">(.*?)</th>', page, re.S)
    assert stubs == [html_escape(v, quote=False) for v in order]
    assert "\n".join(stubs).count("\n") == len(names) - 1


def test_two_runs_of_all_pairs_can_take_the_letters() -> None:
    """Two runs compared by pairs="all" give the same frame as a comparison with the lower
    run as baseline: report() shows the baseline layout unless mode="letters" is asked for
    (the command line asks for it whenever --baseline is not given)."""
    per_q = campaign().filter(pl.col("run_id").is_in(["base", "big"]))
    cmp = ir.compare(per_q, pairs="all", test="t")
    assert ir.report(per_q, cmp).mode == "baseline"  # the frame alone cannot tell
    rep = ir.report(per_q, cmp, mode="letters")
    assert rep.mode == "letters" and rep.runs == ("base", "big")
    marks = dict(zip(rep.frame["run_id"], rep.frame["mark"], strict=True))
    assert marks == {"base": "", "big": "a"}
    assert rep.to_text().splitlines()[0].split() == ["#", "run", "nDCG@10", "AP"]
    three = campaign()
    assert ir.report(three, ir.compare(three, baseline="base"), mode="letters").mode == "letters"
    with pytest.raises(ir.ParameterError, match="mode='baseline'"):
        ir.report(three, ir.compare(three, pairs="all"), mode="baseline")
    with pytest.raises(ir.ParameterError, match="mode='fixed'"):
        ir.report(three, ir.compare(three, baseline=0.3), mode="letters")


def test_cli_compare_letters_for_two_runs_without_baseline(tmp_path: Path) -> None:
    runs = ir.example_path("runs")
    qrels = ir.example_path("qrels.txt")
    two = [str(Path(runs) / f"{r}.run") for r in ("bm25", "dense")]
    code, out, err = run_cli([qrels, *two, "-m", "nDCG@10", "--format", "markdown"])
    assert code == 0, err
    assert out.startswith("| # | run | nDCG@10 |") and "Superscript letters" in out
    code, out, err = run_cli(
        [qrels, *two, "-m", "nDCG@10", "--baseline", "bm25", "--format", "markdown"]
    )
    assert code == 0, err
    assert out.startswith("| run | nDCG@10 |") and "than bm25" in out


@pytest.mark.parametrize(("alternative", "infinite"), [("greater", "ci_high"), ("less", "ci_low")])
def test_cli_compare_jsonl_writes_infinite_bounds(
    alternative: str, infinite: str, tmp_path: Path
) -> None:
    """A one-sided interval's open end is "inf"/"-inf" in JSON (which has no infinity),
    not null, and reads back as the comparison's float."""
    runs, qrels = ir.example_path("runs"), ir.example_path("qrels.txt")
    args = [qrels, runs, "-m", "nDCG@10 P@5", "--baseline", "bm25", "--alternative", alternative]
    code, out, err = run_cli([*args, "--format", "jsonl", "-o", str(tmp_path / "c.ndjson")])
    assert code == 0, err
    assert (tmp_path / "c.ndjson").read_text() == out
    records = [json.loads(line) for line in out.splitlines()]
    sign = "" if infinite == "ci_high" else "-"
    assert len(records) == 4 and all(r[infinite] == f"{sign}inf" for r in records)
    finite = "ci_low" if infinite == "ci_high" else "ci_high"
    assert all(isinstance(r[finite], float) for r in records)
    assert all(r["resamples"] is None for r in records)  # missing stays null
    got = pl.read_ndjson(out.encode()).with_columns(pl.col("ci_low", "ci_high").cast(pl.Float64))
    per_q = ir.evaluate(
        ir.read_run(runs, run_id="file"), ir.read_qrels(qrels), ["nDCG@10", "P@5"], per_query=True
    )
    want = ir.compare(per_q, baseline="bm25", alternative=alternative)
    assert got[infinite].to_list() == want[infinite].to_list() == [float(f"{sign}inf")] * 4
    assert got[finite].to_list() == want[finite].to_list()


def test_cli_compare_tolerance(tmp_path: Path) -> None:
    """``--tolerance`` reaches compare: P@5's differences tie as in exact arithmetic by
    default, and are ranked as floats with ``--tolerance 0``."""
    runs, qrels = ir.example_path("runs"), ir.example_path("qrels.txt")
    per_q = ir.evaluate(
        ir.read_run(runs, run_id="file"), ir.read_qrels(qrels), ["P@5"], per_query=True
    )
    p_values = []
    for extra, tol in (([], 1e-12), (["--tolerance", "0"], 0.0)):
        args = [qrels, runs, "-m", "P@5", "--baseline", "bm25", "--test", "wilcoxon", *extra]
        code, out, err = run_cli([*args, "--format", "tsv"])
        assert code == 0, err
        got = pl.read_csv(out.encode(), separator="\t")
        want = ir.compare(per_q, baseline="bm25", test="wilcoxon", tolerance=tol)
        assert got["p_value"].to_list() == want["p_value"].to_list()
        assert got["ties"].to_list() == want["ties"].to_list()
        p_values.append(got["p_value"][0])
    assert p_values[0] == pytest.approx(0.36098, abs=1e-5)  # dense vs bm25
    assert p_values[1] == pytest.approx(0.41658, abs=1e-5)  # the floats' own ranks
    code, out, err = run_cli([qrels, runs, "--tolerance", "-1"])
    assert code == 2 and "tolerance=-1.0: must be a number in [0, 1)" in err


def test_means_equal_up_to_rounding_print_alike() -> None:
    """P@20 of A and B is 0.7125 on average in exact arithmetic; summed in another order the
    floats are 0.7125 and 0.7124999999999999, which printed 0.713 and 0.712 at 3 decimals
    (only A bold). Snapped to one value, they print alike and both are bold."""
    a, b = [20, 14, 14, 9], [14, 20, 9, 14]
    per_q = pl.DataFrame(
        {"run_id": ["A"] * 4 + ["B"] * 4, "query_id": [f"q{i}" for i in range(4)] * 2,
         "measure": "P@20", "value": [v / 20 for v in a + b]}
    )  # fmt: skip
    assert f"{np.mean([v / 20 for v in a]):.3f}" != f"{np.mean([v / 20 for v in b]):.3f}"
    rep = ir.report(per_q, ir.compare(per_q, pairs="all"), decimals=3)
    assert rep.frame["best"].to_list() == [True, True]
    assert rep.to_markdown().count("**0.712**") == 2


def test_report_reads_missing_as_compare_does() -> None:
    """``missing="Skip"`` is compare's "skip" in both (report refused it)."""
    per_q = pl.DataFrame(
        {"run_id": ["a"] * 3 + ["b"] * 2, "query_id": ["1", "2", "3", "1", "2"],
         "measure": "AP", "value": [0.1, 0.2, 0.3, 0.2, 0.1]}
    )  # fmt: skip
    cmp = ir.compare(per_q, missing="Skip")  # type: ignore[arg-type]
    rep = ir.report(per_q, cmp, missing="Skip")  # type: ignore[arg-type]
    assert rep.frame.sort("run_id")["mean"].to_list() == pytest.approx([0.15, 0.15])
