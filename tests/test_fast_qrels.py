"""The fast qrels reader (single spaces or single tabs, integer grades) reads what the
general reader reads, and leaves every other shape to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

import polars_ireval as ir
from polars_ireval.errors import DuplicateError, FormatError
from polars_ireval.io import trec_text


def general(path: Path) -> object:
    """The general (regex) reader, the fast one switched off."""
    saved = trec_text._read_simple_qrels
    trec_text._read_simple_qrels = lambda p: None  # type: ignore[assignment]
    try:
        return ir.read_qrels(str(path))
    finally:
        trec_text._read_simple_qrels = saved


@pytest.mark.parametrize(
    "text, fast",
    [
        ("1 0 d1 1\n1 0 d2 0\n2 Q0 d-3 -1\n10 0 d1 3\n", True),
        ("1 0 d1 1\n1 0 d2 2.0\n", False),  # a grade written as a float
        ("1 0 d1 1\n\n1 0 d2 2\n", False),  # a blank line
        ("1\t0\td1\t1\n2\t0\td2\t0\n", True),  # single tabs, no space: fast too
        ("1\t0\td1 1\n", False),  # tabs beside spaces
        ("1\t0\t\td1\t1\n", False),  # two tabs
        ("# judged\n1 0 d1 1\n", False),  # a comment
    ],
)
def test_same_frame(tmp_path: Path, text: str, fast: bool) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    assert (trec_text._read_simple_qrels(str(path)) is not None) == fast
    assert_frame_equal(ir.read_qrels(str(path)), general(path))
    want = [tuple(line.split()) for line in text.splitlines() if line and line[0] != "#"]
    got = ir.read_qrels(str(path)).rows()
    assert got == [(q, d, int(float(r))) for q, _, d, r in want]


@pytest.mark.parametrize(
    "text, error, where",
    [
        ("1 0 d1 1\n1 0 d2\n", FormatError, ":2:"),  # three fields: the line is named
        ("1 0 d1 1\n1 0 d2 x\n", Exception, ":2:"),  # not a grade
        # a duplicate names both lines (the fast reader keeps none: read again to find them)
        ("1 0 d1 1\n1 0 d2 1\n1 0 d1 2\n", DuplicateError, r"qrels\.txt:1, .*qrels\.txt:3"),
        ("1 0 d1 1\n1 0 d2 \u0663\n", Exception, r":2: relevance '\u0663' .* is not an integer"),
    ],
)
def test_errors_name_the_line(tmp_path: Path, text: str, error: type, where: str) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    with pytest.raises(error, match=where):
        ir.read_qrels(str(path))


def test_a_duplicate_across_files_names_both(tmp_path: Path) -> None:
    """It named "2 qrels files" twice, no file nor line."""
    for name, text in (("a.txt", "1 0 d1 1\n"), ("b.txt", "1 0 d0 0\n1 0 d1 2\n")):
        (tmp_path / name).write_text(text)
    with pytest.raises(DuplicateError, match=r"a\.txt:1, .*b\.txt:2"):
        ir.read_qrels([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")])


@pytest.mark.parametrize("text", ["", "# only a comment\n"])
def test_an_empty_file_among_several_is_named(tmp_path: Path, text: str) -> None:
    """Accepted silently before (the judgments of the others alone), as read_run refuses."""
    (tmp_path / "a.txt").write_text("1 0 d1 1\n")
    (tmp_path / "empty.txt").write_text(text)
    with pytest.raises(ir.EmptyInputError, match=r"empty\.txt: the qrels hold no judgment"):
        ir.read_qrels([str(tmp_path / "a.txt"), str(tmp_path / "empty.txt")])
