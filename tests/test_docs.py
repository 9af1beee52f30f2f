"""The generated docs stay in step with the registry, and the measure catalogue shows each
measure's seven properties (``docs/properties.json``, checked fresh by
``tests/test_properties.py``): the seed's Table 2 where the seed has the measure, and every
counterexample re-scored by ``evaluate``."""

from __future__ import annotations

import json

import pytest

from polars_ireval import _docs
from polars_ireval.registry import definitions
from tests.paths import ROOT
from tests.test_properties import PROPS, TABLE2, check_violations


def test_measures_page_is_generated_from_the_registry() -> None:
    page = (ROOT / "docs" / "measures.md").read_text()
    assert page == _docs.render(), (
        "docs/measures.md is stale: run `python -m polars_ireval._docs > docs/measures.md`"
    )
    for defn in definitions():
        assert f"## {defn.name}\n" in page


# --------------------------------------------------------------------------- properties


def _data() -> dict:
    return json.loads(_docs.PROPERTIES_DATA.read_text())


def _section(page: str, name: str) -> str:
    return page.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]


def test_each_measure_shows_its_properties_or_why_not() -> None:
    page = (ROOT / "docs" / "measures.md").read_text()
    data = _data()
    verdicts = {r["measure"]: r for r in data["measures"]}
    skipped = {s["name"]: s["why"] for s in data["not_audited"]}
    header = "| " + " | ".join(PROPS) + " |"
    for defn in definitions():
        section = _section(page, defn.name)
        label = f"{defn.name}@{data['depth']}"
        if defn.name in skipped:
            assert label not in verdicts
            assert f"Properties: not audited ({skipped[defn.name]}:" in section
            assert header not in section
            continue
        cells = [verdicts[label][p] for p in PROPS]
        row = "| " + " | ".join("yes" if c else "no" for c in cells) + " |"
        assert f"`{label}`" in section and f"{header}\n|" in section and f"\n{row}\n" in section
        # one counterexample a "no", each a sentence about this measure and that property
        bullets = [x for x in section.splitlines() if x.startswith(f"- {label} is not ")]
        wanted = [p.replace("_", "-") for p, c in zip(PROPS, cells, strict=True) if not c]
        assert [b.split(" is not ")[1].split(":")[0] for b in bullets] == wanted
    assert set(skipped) | {r[: -len(f"@{data['depth']}")] for r in verdicts} == {
        d.name for d in definitions()
    }


def test_catalogue_agrees_with_seed_table2() -> None:
    # the seed's Table 2, typed in from the paper (tests/test_properties.py), at depth 5
    page = (ROOT / "docs" / "measures.md").read_text()
    seed = {"DCG": "DCG@{k}", "SP": "SP@{k}", "Rprec": "RPrec@{k}", "P": "P@{k}",
            "nDCG": "nDCG@{k}", "SDCG": "SDCG@{k}", "HIT": "HIT@{k}", "RR": "RR@{k}",
            "R": "R@{k}", "AP": "AP@{k}", "RBP": "RBP(p=0.8)@{k}"}  # fmt: skip
    for name, key in seed.items():
        row = "| " + " | ".join("yes" if c else "no" for c in TABLE2[key]) + " |"
        assert f"\n{row}\n" in _section(page, name), name


def test_catalogue_counterexamples_hold() -> None:
    # every counterexample of the committed data, re-scored by evaluate on a run and qrels
    # built from its ranking strings: the property fails on it
    found = _data()["counterexamples"]
    assert len(found) == sum(not r[p] for r in _data()["measures"] for p in PROPS)
    check_violations(found)


def test_stale_properties_data_is_refused() -> None:
    data = _data()
    data["measures"] = [r for r in data["measures"] if r["measure"] != "nDCG@5"]
    with pytest.raises(RuntimeError, match=r"no verdicts for 'nDCG@5'.*make_properties_page"):
        _docs.render(data)
