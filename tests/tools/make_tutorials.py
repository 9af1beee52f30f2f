"""Run the tutorials of docs/tutorials/ and write what they produce: the figures each page
shows (``docs/images/NAME.png``, drawn by the page's own blocks) and, with ``--outputs``,
the text block after each Python block (what the block prints).

Run from the repository root, with ../shared/data beside the checkout::

    python -m tests.tools.make_tutorials                  # figures of every tutorial
    python -m tests.tools.make_tutorials compare          # one page
    python -m tests.tools.make_tutorials --outputs judging

A figure belongs to the Python block it follows: the block binds a matplotlib Figure
(``fig = plot.intervals(...)``) and the page shows ``![...](../images/NAME.png)`` before
the next Python block (``tests.docblocks.run_page``). ``tests/test_tutorials.py`` runs the
pages again, compares every printed output with the page and every figure with the
committed file. ``--outputs`` is for writing a page: read every output it writes before
committing it, and write the prose from them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tests.docblocks import FENCE, run_page, save_figure
from tests.paths import ROOT

TUTORIALS = ROOT / "docs" / "tutorials"
IMAGES = ROOT / "docs" / "images"
#: The tutorials whose blocks and figures tests/test_tutorials.py checks.
PAGES = ["compare", "judging", "choosing"]


def fill_outputs(page: Path, printed: list[str]) -> str:
    """The page with the text block after each Python block replaced by its output."""
    text = page.read_text()
    found = list(FENCE.finditer(text))
    out, pos, k = [], 0, 0
    for i, m in enumerate(found):
        if m.group(1) != "python":
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        if nxt is not None and nxt.group(1) == "text" and not text[m.end() : nxt.start()].strip():
            body = printed[k].rstrip("\n")
            out.append(text[pos : nxt.start()] + "```text\n" + body + "\n```\n")
            pos = nxt.end()
        k += 1
    out.append(text[pos:])
    return "".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", default=PAGES, choices=PAGES)
    parser.add_argument("--outputs", action="store_true", help="rewrite the output blocks")
    args = parser.parse_args(argv)
    for name in args.pages:
        page = TUTORIALS / f"{name}.md"
        results, figures = run_page(page)
        if args.outputs:
            page.write_text(fill_outputs(page, [printed for _, printed, _ in results]))
            print(page)
        for image, fig in figures.items():
            save_figure(fig, IMAGES / image)
            print(IMAGES / image)


if __name__ == "__main__":
    main()
