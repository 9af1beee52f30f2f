"""Draw the reference images of ``tests/test_plot.py`` into ``tests/images/``.

Two figures of the bundled example campaign (``ir.example_path``: 3 runs, 25 queries), so
that the comparison needs nothing beyond the package:

* ``pr_curve_example.png``: ``plot.pr_curve`` of the runs' mean curves at trec_eval's
  eleven recall levels;
* ``score_ranges_example.png``: ``plot.score_ranges`` of RBP(p=0.8), base .. base +
  residual with the projected score, runs by decreasing AP (seed 002's Figure 2).

Both are drawn with matplotlib's test font settings (DejaVu Sans, shipped with matplotlib;
no hinting) at a fixed size and resolution, so that the same matplotlib draws the same
pixels. The test draws them again with :func:`figures` and compares with
``matplotlib.testing.compare.compare_images`` within a tolerance. Run it again, and commit
the images, after a deliberate change of a figure:

    python tests/tools/make_plot_references.py           # writes tests/images/*.png
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "tests" / "images"
DPI = 80


@contextmanager
def drawing() -> Iterator[None]:
    """Agg, matplotlib's test font settings and a fixed resolution, restored after."""
    import matplotlib
    from matplotlib.testing import set_font_settings_for_testing

    matplotlib.use("Agg")
    with matplotlib.rc_context({"savefig.dpi": DPI, "figure.dpi": DPI}):
        set_font_settings_for_testing()  # DejaVu Sans, no hinting (inside the context)
        yield


def figures() -> dict[str, Callable[[], object]]:
    """The reference figures by file name, each a function that draws it."""
    import polars_ireval as ir
    from polars_ireval import plot

    def example() -> tuple[object, object]:
        runs = ir.read_run(ir.example_path("runs"), run_id="file")
        return runs, ir.read_qrels(ir.example_path("qrels.txt"))

    def pr() -> object:
        runs, qrels = example()
        return plot.pr_curve(ir.pr_curve(runs, qrels))

    def ranges() -> object:
        runs, qrels = example()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ir.CoverageWarning)
            per_q = ir.evaluate(runs, qrels, ["RBP(p=0.8)", "AP"], per_query=True, residuals=True)
        return plot.score_ranges(per_q, measure="RBP(p=0.8)", order_by="AP")

    return {"pr_curve_example.png": pr, "score_ranges_example.png": ranges}


def write(folder: Path) -> list[Path]:
    """Draw every reference figure into ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with drawing():
        for name, draw in figures().items():
            fig = draw()
            fig.savefig(folder / name)  # type: ignore[attr-defined]
            written.append(folder / name)
    return written


def main() -> int:
    sys.path.insert(0, str(ROOT))
    for path in write(IMAGES):
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
