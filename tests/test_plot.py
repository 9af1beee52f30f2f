"""polars_ireval.plot: every figure renders on the bundled example and on the TREC-COVID
runs, and draws as many lines, bars, points and cells as its frame holds; two figures
equal reference images (tests/tools/make_plot_references.py); bad input is refused."""

from __future__ import annotations

import itertools
import subprocess
import sys
import warnings

import polars as pl
import pytest

import polars_ireval as ir
from tests.conftest import ROOT, need_data
from tests.docblocks import normalise, run_blocks

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from matplotlib.testing.compare import compare_images  # noqa: E402

from polars_ireval import plot  # noqa: E402
from polars_ireval.plot.drawing import figure_class, style  # noqa: E402
from tests.tools import make_plot_references as references  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
MEASURES = ["nDCG@10", "AP", "RBP(p=0.8)"]


def data_lines(ax) -> list:
    """The lines that draw data (reference lines are labelled '_...')."""
    return [line for line in ax.lines if not line.get_label().startswith("_")]


def distinct_without_colour(lines) -> bool:
    """No two lines share both line style and marker: the figure reads in grey-scale."""
    looks = [(line.get_linestyle(), line.get_marker()) for line in lines]
    return len(set(looks)) == len(looks)


def legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


class Campaign:
    """A campaign's inputs and the frames the analyses return."""

    def __init__(self, runs: pl.DataFrame, qrels: pl.DataFrame, baseline: str, n_docs: int):
        self.runs, self.qrels, self.baseline, self.n_docs = runs, qrels, baseline, n_docs
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ir.CoverageWarning)
            self.per_q = ir.evaluate(runs, qrels, MEASURES, per_query=True, residuals=True)
            self.means = ir.evaluate(runs, qrels, MEASURES, residuals=True)
        self.n_runs = runs["run_id"].n_unique()
        self.n_queries = self.per_q["query_id"].n_unique()


@pytest.fixture(scope="module")
def example() -> Campaign:
    runs = ir.read_run(ir.example_path("runs"), run_id="file")
    return Campaign(runs, ir.read_qrels(ir.example_path("qrels.txt")), "bm25", 25 * 200)


@pytest.fixture(scope="module")
def covid(trec_covid: tuple[pl.DataFrame, pl.DataFrame]) -> Campaign:
    runs, qrels = trec_covid
    n_docs = pl.concat([runs["doc_id"], qrels["doc_id"]]).n_unique()  # a lower bound of N
    return Campaign(runs, qrels, "bm25_baseline", n_docs)


CAMPAIGNS = ["example", "covid"]


@pytest.fixture(params=CAMPAIGNS)
def campaign(request) -> Campaign:
    return request.getfixturevalue(request.param)


# --------------------------------------------------------------------------- every figure


def test_pr_curve_draws_a_line_per_run_in_the_stated_order(campaign: Campaign) -> None:
    shown = sorted(campaign.runs["run_id"].unique())[:6]
    runs = campaign.runs.filter(pl.col("run_id").is_in(shown))
    curve = ir.pr_curve(runs, campaign.qrels)
    fig = plot.pr_curve(curve)
    (ax,) = fig.axes
    lines = data_lines(ax)
    assert len(lines) == len(shown) and distinct_without_colour(lines)
    assert all(len(line.get_xdata()) == 11 for line in lines)
    # the stated order: decreasing mean precision over the points, i.e. 11pt_avg
    avg = ir.evaluate(runs, campaign.qrels, "11pt_avg").sort(
        ["value", "run_id"], descending=[True, False]
    )
    assert legend_texts(ax) == avg["run_id"].to_list() == [line.get_label() for line in lines]
    first = curve.filter(run_id=avg["run_id"][0])
    assert list(lines[0].get_ydata()) == first["precision"].to_list()
    assert ax.get_xlabel() == "recall" and "IPrec" in ax.get_ylabel()
    # per query, every recall level: one point per relevant document retrieved, plus recall 0
    query = campaign.per_q["query_id"].min()
    levels = ir.pr_curve(runs, campaign.qrels, recall_points="all", per_query=True)
    fig = plot.pr_curve(levels.filter(query_id=query), order=shown[::-1])
    lines = data_lines(fig.axes[0])
    counts = ir.evaluate(runs, campaign.qrels, "NumRelRet", per_query=True).filter(query_id=query)
    want = dict(counts.select("run_id", "value").iter_rows())
    assert [line.get_label() for line in lines] == [f"{r} {query}" for r in shown[::-1]]
    assert [len(line.get_xdata()) for line in lines] == [want[r] + 1 for r in shown[::-1]]


def test_roc_curve_draws_a_line_per_ranking(campaign: Campaign) -> None:
    shown = sorted(campaign.runs["run_id"].unique())[:3]
    runs = campaign.runs.filter(pl.col("run_id").is_in(shown))
    query = campaign.per_q["query_id"].min()
    roc = ir.roc_curve(runs, campaign.qrels, n_docs=campaign.n_docs).filter(query_id=query)
    for zoom in (False, True):
        (ax,) = plot.roc_curve(roc, zoom=zoom).axes
        lines = data_lines(ax)
        assert [line.get_label() for line in lines] == [f"{r} {query}" for r in shown]
        assert distinct_without_colour(lines)
        sizes = runs.filter(query_id=query).group_by("run_id").len().sort("run_id")
        assert [len(line.get_xdata()) for line in lines] == [n + 1 for n in sizes["len"]]
        assert len(ax.lines) == len(lines) + 1  # and the diagonal of a random order
        assert ax.get_xlim()[1] == (1.05 * roc["fpr"].max() if zoom else 1.0)
    assert "FP / (FP + TN)" in ax.get_xlabel() and "TP / (TP + FN)" in ax.get_ylabel()


def test_per_query_delta_draws_a_sorted_bar_per_topic(campaign: Campaign) -> None:
    others = sorted(set(campaign.runs["run_id"]) - {campaign.baseline})
    runs = None if len(others) <= 12 else others[:4]  # a panel per run: a few of 142
    others = others if runs is None else runs
    options = {"baseline": campaign.baseline, "measure": "nDCG@10", "run_ids": runs}
    fig = plot.per_query_delta(campaign.per_q, **options)
    deltas = plot.per_query_delta_frame(campaign.per_q, **options)
    assert len(fig.axes) == len(others) == deltas["run_id"].n_unique()
    for ax, run in zip(fig.axes, others, strict=True):
        heights = [p.get_height() for p in ax.patches]
        want = deltas.filter(run_id=run)["delta"].to_list()
        assert len(heights) == campaign.n_queries and heights == pytest.approx(want)
        assert heights == sorted(heights, reverse=True)
        hatched = [p for p in ax.patches if p.get_hatch()]
        assert len(hatched) == sum(1 for d in want if d <= 0)
        assert ax.get_ylabel() == "Δ nDCG@10" and ax.get_title().startswith(f"{run} vs ")
    # by hand for the first run: value(run) - value(baseline), topic by topic
    nd = campaign.per_q.filter(measure="nDCG@10")
    run = others[0]
    diff = (
        nd.filter(run_id=run)
        .join(nd.filter(run_id=campaign.baseline), on="query_id")
        .select((pl.col("value") - pl.col("value_right")).sort(descending=True))
    )
    assert deltas.filter(run_id=run)["delta"].to_list() == pytest.approx(diff.to_series())


def test_score_ranges_draws_each_runs_range_and_projection(campaign: Campaign) -> None:
    fig = plot.score_ranges(campaign.per_q, measure="RBP(p=0.8)", order_by="AP")
    (ax,) = fig.axes
    bars = ax.patches
    assert len(bars) == campaign.n_runs
    # the aggregated frame of ir.evaluate: base = mean value, residual = mean residual
    rbp = campaign.means.filter(measure="RBP(p=0.8)")
    ap = campaign.means.filter(measure="AP").sort(["value", "run_id"], descending=[True, False])
    ordered = ap.select("run_id").join(rbp, on="run_id", how="left", maintain_order="left")
    assert [b.get_y() for b in bars] == pytest.approx(ordered["value"].to_list())
    assert [b.get_height() for b in bars] == pytest.approx(ordered["residual"].to_list())
    (marks,) = data_lines(ax)
    assert list(marks.get_ydata()) == pytest.approx(ordered["projected"].to_list())
    assert ax.get_xlabel() == "runs, by decreasing AP"
    assert ax.get_ylabel().startswith("RBP(p=0.8)")
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ordered["run_id"].to_list()  # every run named, 143 of them too
    assert min(t.get_fontsize() for t in ax.get_xticklabels()) >= 4
    # the aggregated frame draws the same; a list of runs orders them as listed
    same = plot.score_ranges_frame(campaign.means, measure="RBP(p=0.8)", order_by="AP")
    drawn = plot.score_ranges_frame(campaign.per_q, measure="RBP(p=0.8)", order_by="AP")
    assert same["run_id"].equals(drawn["run_id"])
    assert (same["projected"] - drawn["projected"]).abs().max() < 1e-12
    listed = sorted(campaign.runs["run_id"].unique())
    frame = plot.score_ranges_frame(campaign.per_q, measure="RBP(p=0.8)", order_by=listed)
    assert frame["run_id"].to_list() == listed


def test_intervals_draws_a_point_and_interval_per_comparison(campaign: Campaign) -> None:
    cmp = ir.compare(campaign.per_q, baseline=campaign.baseline, correction="holm")
    fig = plot.intervals(cmp, measure="AP")
    (ax,) = fig.axes
    rows = cmp.filter(measure="AP").sort(["delta", "run_a"], descending=[True, False])
    assert rows.height == campaign.n_runs - 1
    xs, faces = [], []
    for container in ax.containers:  # one errorbar per kind: significant, not significant
        points, _caps, (bars,) = container.lines
        xs += list(points.get_xdata())
        faces += [points.get_markerfacecolor()] * len(points.get_xdata())
        assert len(bars.get_segments()) == len(points.get_xdata())
    assert sorted(xs) == pytest.approx(sorted(rows["delta"]))
    assert faces.count("black") == rows["significant"].sum()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == rows["run_a"].to_list()[::-1]  # the first (largest delta) on top
    assert ax.get_xlabel().startswith(f"Δ AP against {campaign.baseline}, 95% t interval")
    # one-sided intervals against a fixed score: an arrow head at the open end
    one_sided = ir.compare(campaign.per_q, baseline=0.3, alternative="greater", measures="AP")
    ax = plot.intervals(one_sided).axes[0]
    assert len([line for line in ax.lines if line.get_label() == "_open"]) == one_sided.height


def test_significance_draws_the_matrix_of_significant_differences(campaign: Campaign) -> None:
    cmp = ir.compare(campaign.per_q, pairs="all", measures="nDCG@10")
    fig = plot.significance(cmp)
    ax = fig.axes[0]
    (image,) = ax.images
    grid = image.get_array()
    n = campaign.n_runs
    assert grid.shape == (n, n)
    significant = int(cmp["significant"].sum())
    assert int((grid == 1).sum()) == int((grid == -1).sum()) == significant
    assert int((grid == 0).sum()) == 2 * (cmp.height - significant)
    assert int(grid.mask.sum()) == n * n - 2 * cmp.height  # the diagonal: never compared
    texts = [t for t in ax.texts if t.get_text() in ("+", "−")]
    assert len(texts) == (2 * significant if n <= 30 else 0)
    # rows and columns by decreasing mean: the best run's row holds no -1
    means = campaign.means.filter(measure="nDCG@10").sort(
        ["value", "run_id"], descending=[True, False]
    )
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == means["run_id"].to_list()  # every run named, 143 of them too
    assert min(t.get_fontsize() for t in ax.get_yticklabels()) >= 4
    frame = plot.significance_frame(cmp)
    assert frame.height == n * (n - 1)
    best = frame.filter(row_run=means["run_id"][0])
    assert (best["cell"].fill_null(0) >= 0).all()


def per_query(measure: str, runs: dict[str, list[float]]) -> pl.DataFrame:
    """A per-query frame of one measure: each run's values on topics q00, q01, ..."""
    rows = [(r, f"q{j:02d}", measure, x) for r, v in runs.items() for j, x in enumerate(v)]
    return pl.DataFrame(rows, schema=["run_id", "query_id", "measure", "value"], orient="row")


def test_significance_follows_the_tests_direction_and_lower_is_better() -> None:
    """A Wilcoxon win against a lower mean (18 small wins, 2 large losses) is drawn as a
    win, as compare's direction and the report say (it was drawn as a loss); for Fallout,
    whose lower values are better, the lower run is the better one and comes first."""
    base = [0.5] * 20
    wins = [0.55] * 18 + [0.2, 0.2]
    cmp = ir.compare(per_query("AP", {"base": base, "a": wins}), pairs="all", test="wilcoxon")
    assert cmp["significant"].item() and cmp["delta"].item() > 0  # run_a is base
    cells = dict(((r, c), v) for r, c, _, _, v in plot.significance_frame(cmp).rows())
    assert cells[("a", "base")] == 1 and cells[("base", "a")] == -1
    fallout = per_query("Fallout(num_docs=100)", {"clean": [0.0] * 8, "noisy": [0.04] * 8})
    cmp = ir.compare(fallout, pairs="all")
    frame = plot.significance_frame(cmp)
    assert frame.filter(row_run="clean")["cell"].to_list() == [1]
    assert frame.filter(row=0)["row_run"].unique().to_list() == ["clean"]


def test_scatter_draws_a_point_per_run_with_kendalls_tau(campaign: Campaign) -> None:
    fig = plot.scatter(campaign.means, measure=("nDCG@10", "AP"))
    (ax,) = fig.axes
    (points,) = data_lines(ax)
    assert len(points.get_xdata()) == campaign.n_runs
    tau = ir.agreement(campaign.means, campaign.means, measure=("nDCG@10", "AP"))
    assert ax.get_title().startswith(f"Kendall's τ = {tau:.3f} ({campaign.n_runs} runs")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("nDCG@10", "AP")
    assert len(ax.texts) == (campaign.n_runs if campaign.n_runs <= 20 else 0)
    nd = campaign.means.filter(measure="nDCG@10").sort("run_id")["value"].to_list()
    assert list(points.get_xdata()) == pytest.approx(nd)
    # two frames, or mappings, give the same points
    a = campaign.means.filter(measure="nDCG@10")
    b = dict(campaign.means.filter(measure="AP").select("run_id", "value").iter_rows())
    again = data_lines(plot.scatter(a, b, measure=("nDCG@10", "AP")).axes[0])[0]
    assert list(again.get_ydata()) == list(points.get_ydata())


def test_every_figure_draws_on_a_given_axes(example: Campaign) -> None:
    Figure = figure_class()
    fig = Figure()
    axes = fig.subplots(2, 4).ravel()
    cmp = ir.compare(example.per_q, pairs="all", measures="AP")
    drawn = [
        plot.pr_curve(ir.pr_curve(example.runs, example.qrels), ax=axes[0]),
        plot.roc_curve(
            ir.roc_curve(example.runs, example.qrels, n_docs=5000).filter(query_id="101"),
            ax=axes[1],
        ),
        plot.per_query_delta(
            example.per_q, baseline="bm25", measure="AP", run_ids=["dense"], ax=axes[2]
        ),
        plot.score_ranges(example.per_q, measure="RBP(p=0.8)", ax=axes[3]),
        plot.intervals(cmp, ax=axes[4]),
        plot.significance(cmp, ax=axes[5]),
        plot.scatter(example.means, measure=("AP", "nDCG@10"), ax=axes[6]),
    ]
    assert all(f is fig for f in drawn)
    assert all(ax.has_data() for ax in axes[:7]) and not axes[7].has_data()
    two = fig.subplots(1, 2)
    assert plot.per_query_delta(example.per_q, baseline="bm25", measure="AP", ax=list(two)) is fig


def test_depth_curves_draw_a_line_per_run_and_the_pool_depth(campaign: Campaign) -> None:
    depths = [1, 2, 5, 10, 20, 50, 100]
    shown = sorted(campaign.runs["run_id"].unique())[:3]
    runs = campaign.runs.filter(pl.col("run_id").is_in(shown))
    curve = ir.depth_curve(runs, campaign.qrels, ["AP", "RBP(p=0.8)"], depths=depths,
                           residuals=True, pool_depth=5)  # fmt: skip
    fig = plot.depth_curves(curve)
    assert [ax.get_ylabel() for ax in fig.axes] == ["AP", "RBP(p=0.8)"]
    # the oracle: ir.evaluate at each depth, on the qrels cut to the depth-5 pool
    pool = ir.depth_qrels(runs, campaign.qrels, depth=5)
    at = {k: ir.evaluate(runs, pool, [f"AP@{k}", f"RBP(p=0.8)@{k}"], residuals=True)
          for k in depths}  # fmt: skip
    deepest = at[100].filter(measure="AP@100").sort(["value", "run_id"], descending=[True, False])
    order = deepest["run_id"].to_list()
    for ax, name in zip(fig.axes, ["AP", "RBP(p=0.8)"], strict=True):
        lines = data_lines(ax)
        assert [line.get_label() for line in lines] == order == legend_texts(ax)
        assert distinct_without_colour(lines)
        for line in lines:
            want = [at[k].filter(run_id=line.get_label(), measure=f"{name}@{k}")["value"].item()
                    for k in depths]  # fmt: skip
            assert list(line.get_xdata()) == depths
            assert list(line.get_ydata()) == pytest.approx(want, abs=1e-12)
        (pool_line,) = [line for line in ax.lines if line.get_label().startswith("_pool")]
        assert list(pool_line.get_xdata()) == [5, 5] and ax.get_xscale() == "log"
        # a residual band per run for RBP; AP has no residual
        assert len(ax.collections) == (3 if name == "RBP(p=0.8)" else 0)
    # one measure, chosen runs in the order given, a linear axis, another pool depth marked
    fig = plot.depth_curves(curve, measure="AP", run_ids=shown[::-1], log_depth=False,
                            pool_depth=20, band=False)  # fmt: skip
    (ax,) = fig.axes
    assert [line.get_label() for line in data_lines(ax)] == shown[::-1]
    assert ax.get_xscale() == "linear" and not ax.collections
    assert [line.get_xdata()[0] for line in ax.lines if line.get_label() == "_pool depth 20"]


def test_depth_curves_draw_the_top_runs_of_a_large_campaign(covid: Campaign) -> None:
    measures = ["AP", "nDCG", "Q(beta=1)", "RBP(p=0.8)", "ERR"]
    curve = ir.depth_curve(covid.runs, covid.qrels, measures, depths=[1, 7, 100, 1000])
    Figure = figure_class()
    fig = Figure()
    grid = fig.subplots(5, 2)
    assert plot.depth_curves(curve, ax=grid[:, 0], pool_depth=7) is fig
    top = (
        ir.evaluate(covid.runs, covid.qrels, "AP@1000")
        .sort(["value", "run_id"], descending=[True, False])["run_id"]
        .head(10)
        .to_list()
    )
    for ax, name in zip(grid[:, 0], measures, strict=True):
        lines = data_lines(ax)
        assert len(lines) == 10 and distinct_without_colour(lines)
        assert [line.get_label() for line in lines] == top and ax.get_ylabel() == name
        assert [line.get_xdata()[0] for line in ax.lines if line.get_label() == "_pool depth 7"]
        assert not ax.collections
    assert not any(ax.has_data() for ax in grid[:, 1])
    fig = plot.depth_curves(curve, measure=["ERR", "AP"], top=25)
    assert [ax.get_ylabel() for ax in fig.axes] == ["ERR", "AP"]
    errs = (
        ir.evaluate(covid.runs, covid.qrels, "ERR@1000")
        .sort(["value", "run_id"], descending=[True, False])["run_id"]
        .head(25)
        .to_list()
    )
    assert all([ln.get_label() for ln in data_lines(ax)] == errs for ax in fig.axes)
    with pytest.raises(ir.ParameterError, match=r"143 curves .*max_lines=32"):
        plot.depth_curves(curve, measure="AP", top=200)


def test_depth_curves_refuse_bad_input(example: Campaign) -> None:
    curve = ir.depth_curve(example.runs, example.qrels, ["AP", "ERR"], depths=[1, 10, 100])
    per_q = ir.depth_curve(example.runs, example.qrels, ["AP"], depths=[1, 10], per_query=True)
    Figure = figure_class()
    cases = [
        (lambda: plot.depth_curves(curve.drop("depth")), ir.SchemaError, r"\['depth'\]"),
        (lambda: plot.depth_curves(per_q), ir.ParameterError, r"per query .* 25 queries"),
        (lambda: plot.depth_curves(curve, measure="nDCG"), ir.ParameterError,
         r"\['nDCG'\] not in the curve"),
        (lambda: plot.depth_curves(curve, run_ids=["bm25", "bm26"]), ir.ParameterError,
         r"unknown \['bm26'\]"),
        (lambda: plot.depth_curves(curve, run_ids=["bm25", "bm25"]), ir.ParameterError, "once"),
        (lambda: plot.depth_curves(curve, top=0), ir.ParameterError, r"top=0"),
        (lambda: plot.depth_curves(curve, pool_depth=0), ir.ParameterError, r"pool_depth=0"),
        (lambda: plot.depth_curves(curve, ax=Figure().subplots()), ir.ParameterError,
         r"2 measures to draw .* 1 Axes given"),
    ]  # fmt: skip
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    # one run id is one run, as compare(run_ids="bm25") reads it (it was refused)
    one = plot.depth_curves(curve, run_ids="bm25")
    assert [[ln.get_label() for ln in data_lines(ax)] for ax in one.axes] == [["bm25"]] * 2
    # a per-query curve cut to one query draws
    fig = plot.depth_curves(per_q.filter(query_id="101"))
    assert len(data_lines(fig.axes[0])) == 3


def test_the_stability_page_figure_script_draws_ten_runs_per_panel(covid: Campaign) -> None:
    from tests.tools import make_stability_figures as page

    def curve(condensed: bool) -> pl.DataFrame:
        return ir.depth_curve(covid.runs, covid.qrels, page.MEASURES, depths=[1, 7, 1000],
                              condensed=condensed)  # fmt: skip

    fig = page.figure(curve(False), curve(True))
    assert len(fig.axes) == 10
    assert [ax.get_ylabel() for ax in fig.axes] == [m for m in page.MEASURES for _ in "lr"]
    labels = {tuple(line.get_label() for line in data_lines(ax)) for ax in fig.axes}
    (shown,) = labels
    assert len(shown) == 10
    for ax in fig.axes:
        (pool,) = [line for line in ax.lines if line.get_label().startswith("_pool")]
        assert list(pool.get_xdata()) == [7, 7]
    assert sum(ax.get_legend() is not None for ax in fig.axes) == 1


def test_every_line_differs_from_the_previous_by_style_and_marker(example: Campaign) -> None:
    """Line style and marker both change from one line to the next (the first eight lines
    were all solid), and the first 32 lines are all distinct without colour."""
    looks = [(style(i)["linestyle"], style(i)["marker"]) for i in range(33)]
    assert len(set(looks[:32])) == 32
    for (ls, mk), (ls2, mk2) in itertools.pairwise(looks):
        assert ls != ls2 and mk != mk2
    fig = plot.pr_curve(ir.pr_curve(example.runs, example.qrels))
    lines = data_lines(fig.axes[0])
    assert [line.get_linestyle() for line in lines] == ["-", "--", "-."]
    assert len({line.get_marker() for line in lines}) == 3


# --------------------------------------------------------------------------- images


@pytest.mark.parametrize("name", list(references.figures()))
def test_figure_equals_its_reference_image(name: str, tmp_path) -> None:
    expected = ROOT / "tests" / "images" / name
    assert expected.exists(), "run python tests/tools/make_plot_references.py"
    with references.drawing():
        references.figures()[name]().savefig(tmp_path / name)
    # tolerance: RMS of the pixel difference (0-255); text rendered by another FreeType
    # moves a few pixels, a changed figure (a line, a bar, a label) far more
    assert compare_images(str(expected), str(tmp_path / name), tol=6) is None


def test_the_reference_images_catch_a_change(tmp_path) -> None:
    """The comparison is sensitive: the PR figure with one run less fails it."""
    with references.drawing():
        runs = ir.read_run(ir.example_path("runs"), run_id="file").filter(
            pl.col("run_id") != "random"
        )
        curve = ir.pr_curve(runs, ir.read_qrels(ir.example_path("qrels.txt")))
        plot.pr_curve(curve).savefig(tmp_path / "changed.png")
    expected = ROOT / "tests" / "images" / "pr_curve_example.png"
    assert compare_images(str(expected), str(tmp_path / "changed.png"), tol=6) is not None


# --------------------------------------------------------------------------- errors


def test_without_matplotlib_the_module_imports_and_a_figure_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import polars as pl\n"
        "from polars_ireval import plot\n"
        "try:\n"
        "    plot.pr_curve(pl.DataFrame({'recall': [0.0], 'precision': [1.0]}))\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'polars-ireval[plot]'" in done.stdout


def test_bad_input_is_refused_with_the_fix(example: Campaign) -> None:
    per_q, means = example.per_q, example.means
    cmp = ir.compare(per_q, pairs="all")
    curve = ir.pr_curve(example.runs, example.qrels)
    cases = [
        (lambda: plot.pr_curve(per_q), ir.SchemaError, r"lacks the column\(s\) \['recall'"),
        (lambda: plot.pr_curve(curve, order=["bm25"]), ir.ParameterError, r"missing \['dense'"),
        (lambda: plot.pr_curve(curve, max_lines=2), ir.ParameterError, r"3 curves.*filter it"),
        (lambda: plot.pr_curve(curve, ax="left"), ir.ParameterError, r"must be a matplotlib Axes"),
        (lambda: plot.pr_curve(curve.to_pandas()), ir.SchemaError, r"not DataFrame"),
        (
            lambda: plot.roc_curve(ir.roc_curve(example.runs, example.qrels, n_docs=5000)),
            ir.ParameterError,
            r"75 curves .*max_lines=20",
        ),
        (
            lambda: plot.per_query_delta(per_q, baseline="bm25"),
            ir.ParameterError,
            r"3 measures .* measure=",
        ),
        (
            lambda: plot.per_query_delta(per_q, baseline="bm26", measure="AP"),
            ir.ParameterError,
            r"baseline='bm26' is not a run",
        ),
        (
            lambda: plot.per_query_delta(per_q, baseline="bm25", measure="MAP@5"),
            ir.ParameterError,
            r"measure='MAP@5' is not in the frame",
        ),
        (
            lambda: plot.per_query_delta(per_q, baseline="bm25", measure="AP", ax=object()),
            ir.ParameterError,
            r"2 runs to draw .* 1 Axes given",
        ),
        (
            lambda: plot.per_query_delta(per_q, baseline="bm25", measure="AP", per_page=1, page=3),
            ir.ParameterError,
            r"page=3, but 2 runs make 2 page\(s\) of 1; use page=1\.\.2",
        ),
        (
            lambda: plot.score_ranges(per_q, measure="AP"),
            ir.ParameterError,
            r"AP has no residual",
        ),
        (
            lambda: plot.score_ranges(per_q.drop("residual"), measure="AP"),
            ir.SchemaError,
            r"residuals=True",
        ),
        (
            lambda: plot.score_ranges(per_q, measure="RBP(p=0.8)", order_by="MAP"),
            ir.ParameterError,
            r"order_by='MAP' is not a measure",
        ),
        (lambda: plot.intervals(cmp), ir.ParameterError, r"3 measures"),
        (lambda: plot.intervals(per_q), ir.SchemaError, r"ir.compare"),
        (
            lambda: plot.significance(
                ir.compare(per_q, baseline=0.5, measures="AP"), measure="AP"
            ),
            ir.ParameterError,
            r"against a fixed score",
        ),
        (lambda: plot.scatter(means), ir.ParameterError, r"measure=\(x, y\)"),
        (lambda: plot.scatter(per_q, measure=("AP", "nDCG@10")), ir.ParameterError, "per query"),
        (
            lambda: plot.scatter({"a": 1.0, "b": 2.0}, {"a": 1.0, "c": 2.0}),
            ir.MissingQueryError,
            r"only in a \(missing from b\): \['b'\]",
        ),
        (
            lambda: plot.roc_curve(ir.roc_curve(example.runs, example.qrels, n_docs=5000),
                                   zoom="yes"),
            ir.ParameterError,
            r"zoom='yes'",
        ),
    ]  # fmt: skip
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


def ranges_input(**columns) -> pl.DataFrame:
    """RBP per query for runs a (0.2, 0.4, 0.6) and b (0.5, 0.5, 0.5) on topics 1-3."""
    frame = pl.DataFrame(
        {
            "run_id": ["a"] * 3 + ["b"] * 3,
            "query_id": ["1", "2", "3"] * 2,
            "measure": "RBP(p=0.8)",
            "value": [0.2, 0.4, 0.6, 0.5, 0.5, 0.5],
            "residual": [0.5, 0.3, 0.1, 0.0, 0.2, 0.4],
        }
    )
    return frame.with_columns(**columns)


def test_score_ranges_refuse_duplicates_nan_and_negative_residuals() -> None:
    """A row twice was averaged in (an upper bound above 1), NaN gave a NaN base, a
    negative residual an upper bound below the base, a string residual a raw
    InvalidOperationError."""
    frame = ranges_input()
    twice = pl.concat([frame, frame.head(1).with_columns(value=pl.lit(1.0))])
    with pytest.raises(ir.DuplicateError, match=r"2 rows share their \(run_id, query_id\), "
                       r"e.g. run_id 'a', query_id '1'"):  # fmt: skip
        plot.score_ranges_frame(twice)
    nan = frame.with_columns(value=pl.when(pl.col("query_id") == "2").then(float("nan"))
                             .otherwise("value"))  # fmt: skip
    with pytest.raises(ir.ScoreError, match=r"column 'value' holds 2 NaN or infinite value\(s\), "
                       r"e.g. run_id 'a', query_id '2': nan"):  # fmt: skip
        plot.score_ranges_frame(nan)
    inf = frame.with_columns(residual=pl.lit(float("inf")))
    with pytest.raises(ir.ScoreError, match=r"column 'residual' holds 6 NaN or infinite"):
        plot.score_ranges_frame(inf)
    negative = frame.with_columns(residual=pl.col("residual") - 0.2)
    with pytest.raises(ir.ScoreError, match=r"2 negative residual\(s\), e.g. run_id 'a', "
                       r"query_id '3': -0.1"):  # fmt: skip
        plot.score_ranges_frame(negative)
    text = frame.with_columns(pl.col("residual").cast(pl.String))
    with pytest.raises(ir.SchemaError, match=r"column 'residual' holds String, not numbers"):
        plot.score_ranges_frame(text)
    # an aggregated frame is checked too: a run twice
    means = frame.group_by("run_id", "measure").agg(pl.col("value", "residual").mean())
    with pytest.raises(ir.DuplicateError, match=r"run_id 'a'"):
        plot.score_ranges_frame(pl.concat([means, means.filter(run_id="a")]))


def test_score_ranges_missing_topics_follow_compares_missing_policy() -> None:
    """Runs scored on different topics were averaged over different topics."""
    holed = ranges_input().filter(~((pl.col("run_id") == "b") & (pl.col("query_id") == "1")))
    with pytest.raises(ir.MissingQueryError, match=r"1 \(run, query\) score\(s\) missing: "
                       r"'b' lacks query '1'; pass missing='skip'"):  # fmt: skip
        plot.score_ranges_frame(holed)
    got = plot.score_ranges_frame(holed, missing="skip").sort("run_id")
    assert got["base"].to_list() == pytest.approx([0.5, 0.5])  # a on topics 2 and 3 only
    assert got["residual"].to_list() == pytest.approx([0.2, 0.3])
    with pytest.raises(ir.ParameterError, match=r"missing='zero' cannot score 'residual'"):
        plot.score_ranges_frame(holed, missing="zero")
    with pytest.raises(ir.ParameterError, match=r"missing='drop' is unknown"):
        plot.score_ranges_frame(holed, missing="drop")  # type: ignore[arg-type]
    # a null score is a missing one, as for compare
    null = ranges_input(value=pl.when(pl.col("query_id") == "1").then(None).otherwise("value"))
    with pytest.raises(ir.MissingQueryError, match=r"2 \(run, query\) score\(s\) missing"):
        plot.score_ranges_frame(null)
    # the order_by measure is held to the same policy
    ap = ranges_input(measure=pl.lit("AP")).filter(~((pl.col("run_id") == "a")
                                                     & (pl.col("query_id") == "3")))  # fmt: skip
    both = pl.concat([ranges_input(), ap])
    with pytest.raises(ir.MissingQueryError, match=r"'a' lacks query '3'"):
        plot.score_ranges_frame(both, measure="RBP(p=0.8)", order_by="AP")


def test_score_ranges_residual_one_projects_nothing() -> None:
    """A mean residual of 1 (nothing judged) has no projection: null, as documented."""
    got = plot.score_ranges_frame(ranges_input(residual=pl.lit(1.0), value=pl.lit(0.0)))
    assert got["projected"].to_list() == [None, None]
    assert got["upper"].to_list() == [1.0, 1.0]


def test_per_query_delta_refuses_duplicates_nan_and_text_scores() -> None:
    """A row twice multiplied the deltas (50 rows became 52), NaN and null became NaN and
    null deltas, a string value column a raw InvalidOperationError, an empty frame 'holds
    0 measures'."""
    per_q = per_query("AP", {"base": [0.2, 0.4, 0.6], "a": [0.3, 0.3, 0.9]})
    twice = pl.concat([per_q, per_q.head(1)])
    with pytest.raises(ir.DuplicateError, match=r"run_id 'base', query_id 'q00'"):
        plot.per_query_delta_frame(twice, baseline="base")
    nan = per_q.with_columns(value=pl.when(pl.col("run_id") == "a").then(float("nan"))
                             .otherwise("value"))  # fmt: skip
    with pytest.raises(ir.ScoreError, match=r"3 NaN or infinite value\(s\), e.g. run_id 'a'"):
        plot.per_query_delta_frame(nan, baseline="base")
    null = per_q.with_columns(value=pl.when(pl.col("query_id") == "q01").then(None)
                              .otherwise("value"))  # fmt: skip
    with pytest.raises(ir.MissingQueryError, match=r"'a' lacks query 'q01', 'base' lacks"):
        plot.per_query_delta_frame(null, baseline="base")
    assert plot.per_query_delta_frame(null, baseline="base", missing="skip")[
        "query_id"
    ].to_list() == ["q02", "q00"]
    zero = plot.per_query_delta_frame(
        per_q.filter(~((pl.col("run_id") == "a") & (pl.col("query_id") == "q02"))),
        baseline="base",
        missing="zero",
    )
    assert zero["query_id"].to_list() == ["q00", "q01", "q02"]  # q02 scored 0 for a
    assert zero["delta"].to_list() == pytest.approx([0.1, -0.1, -0.6])
    text = per_q.with_columns(pl.col("value").cast(pl.String))
    with pytest.raises(ir.SchemaError, match=r"column 'value' holds String, not numbers"):
        plot.per_query_delta_frame(text, baseline="base")
    with pytest.raises(ir.EmptyInputError, match=r"the frame is empty"):
        plot.per_query_delta_frame(per_q.clear(), baseline="base")


def test_per_query_delta_compares_run_ids_as_strings_as_compare_does() -> None:
    per_q = per_query("AP", {"1": [0.2, 0.4, 0.6], "2": [0.3, 0.3, 0.9]})
    ints = per_q.with_columns(pl.col("run_id").cast(pl.Int64))
    assert ir.compare(ints, baseline="1")["run_a"].to_list() == ["2"]
    deltas = plot.per_query_delta_frame(ints, baseline="1")
    assert deltas.rows() == plot.per_query_delta_frame(per_q, baseline="1").rows()
    assert deltas["run_id"].dtype == pl.String
    # an integer names the run whose id is its decimal text, as in compare(run_ids=[1, 2])
    assert plot.per_query_delta_frame(ints, baseline=1, run_ids=2).rows() == deltas.rows()
    with pytest.raises(ir.ParameterError, match=r"baseline=1.0 is no run id"):
        plot.per_query_delta_frame(ints, baseline=1.0)  # type: ignore[arg-type]


def test_comparison_plots_refuse_a_pair_twice() -> None:
    """A pair twice with opposite `significant` gave two cells for one matrix position."""
    per_q = per_query("AP", {"a": [0.2, 0.4, 0.6, 0.1], "b": [0.3, 0.5, 0.9, 0.2],
                             "c": [0.1, 0.1, 0.2, 0.0]})  # fmt: skip
    cmp = ir.compare(per_q, pairs="all")
    twice = pl.concat([cmp, cmp.head(1).with_columns(significant=~pl.col("significant"))])
    row = cmp.row(0, named=True)
    pair = f"run_a {row['run_a']!r}, run_b {row['run_b']!r}"
    for call in (plot.significance_frame, plot.intervals):
        with pytest.raises(ir.DuplicateError, match=rf"2 rows compare the same pair: measure "
                           rf"'AP', {pair}"):  # fmt: skip
            call(twice)
    swapped = cmp.head(1).with_columns(run_a=pl.col("run_b"), run_b=pl.col("run_a"))
    with pytest.raises(ir.DuplicateError, match=r"compares .* both ways"):
        plot.significance_frame(pl.concat([cmp, swapped]))


def test_intervals_of_a_comparison_without_intervals_say_how_to_get_them() -> None:
    per_q = per_query("AP", {"a": [0.2, 0.4, 0.6, 0.1], "b": [0.3, 0.5, 0.9, 0.2]})
    with pytest.raises(ir.ParameterError, match=r"no confidence interval.*ci=None.*ci='t'"):
        plot.intervals(ir.compare(per_q, baseline="a", ci=None))


# --------------------------------------------------------------------------- docs


def test_docs_plots_blocks_run_and_print_what_they_show() -> None:
    need_data()
    results = run_blocks(ROOT / "docs" / "plots.md")
    assert len(results) >= 8
    checked = 0
    for code, printed, expected in results:
        if expected is None:
            continue
        checked += 1
        assert normalise(printed) == normalise(expected), f"block:\n{code}"
    assert checked >= 6


def test_per_query_delta_ties_scores_equal_up_to_rounding() -> None:
    """bpref 4180/10201 computed two ways (as trec_eval does for two runs) differs by
    5.6e-17: a tie, as compare counts it, not a loss in the title's count."""
    x = 4180 / 10201
    y = x - 2**-54  # the same score, one unit in the last place lower
    per_q = pl.DataFrame(
        {"run_id": ["a", "a", "b", "b"], "query_id": ["1", "2"] * 2, "measure": "bpref",
         "value": [x, 0.5, y, 0.3]}
    )  # fmt: skip
    deltas = ir.plot.per_query_delta_frame(per_q, baseline="a")
    assert deltas["delta"].to_list() == pytest.approx([0.0, -0.2]) and deltas["delta"][0] == 0.0
    cmp = ir.compare(per_q, baseline="a", test="sign").row(0, named=True)
    assert (cmp["wins"], cmp["ties"], cmp["losses"]) == (0, 1, 1)
