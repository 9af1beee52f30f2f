"""The legend under a report's table (:func:`polars_ireval.report`): the test, the
correction and its family, alpha, the topics, what the marks and bold mean, the intervals."""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_ireval.analysis.significance import CORRECTIONS, TESTS
from polars_ireval.parse import lower_is_better

UP, DOWN = "▲", "▼"


def legend_lines(
    cmp: pl.DataFrame,
    meta: dict[str, Any],
    mode: str,
    base: str | None,
    ci: str | None,
    measures: list[str],
) -> list[str]:
    spec = TESTS[meta["test"]]
    per = cmp.group_by("measure", maintain_order=True).agg(
        pl.len(), pl.col("n").first(), pl.col("resamples").max(), pl.col("mc_error").max()
    )
    per = per.filter(pl.col("measure").is_in(measures))
    family = sorted(set(per["len"].to_list()))
    family_s = str(family[0]) if len(family) == 1 else f"{family[0]}-{family[-1]}"
    topics = sorted(set(per["n"].to_list()))
    topics_s = (
        f"{topics[0]} topics"
        if len(topics) == 1
        else "topics per measure: "
        + ", ".join(f"{m} {k}" for m, k in per.select("measure", "n").iter_rows())
    )
    # against a fixed score the t, randomization and bootstrap tests are one-sample tests
    label = spec.label.replace("paired ", "one-sample ") if mode == "fixed" else spec.label
    lines = [f"{label}, {meta['alternative']}, alpha = {meta['alpha']:g}; {topics_s}."]
    if spec.family_wise:
        lines.append("Family-wise over all pairs of runs (by the test itself).")
    elif meta["correction"] == "none":
        lines.append(f"No correction for multiple comparisons ({family_s} per measure).")
    else:
        lines.append(
            f"{CORRECTIONS[meta['correction']]} over the {family_s} comparisons per measure."
        )
    resamples = [r for r in per["resamples"].to_list() if r is not None]
    if spec.resampling and resamples:
        err = max(e for e in per["mc_error"].to_list() if e is not None)
        if err == 0:
            lines.append(f"Exact: all {max(resamples):,} sign flips enumerated.")
        else:
            lines.append(
                f"{max(resamples):,} random resamples; Monte Carlo standard error of p "
                f"at most {err:.4f}."
            )
    # the marks follow the test's direction, which for these can differ from the means'
    by = {"wilcoxon": " (by the signed ranks of the differences)", "sign": " (by wins and losses)"}
    way = by.get(meta["test"], "")
    if mode == "baseline":
        lines.append(f"{UP} / {DOWN}: significantly higher / lower than {base}{way}.")
    elif mode == "fixed":
        mu = cmp["mean_b"][0]
        lines.append(
            f"{UP} / {DOWN}: significantly higher / lower than the fixed score {mu:g}{way}."
        )
    else:
        if meta["column_a"] == meta["column_b"]:
            lines.append(
                "Superscript letters: the row's run is significantly better than the runs "
                "with those letters."
            )
        else:
            lines.append(
                f"Superscript letters: the row's run's {meta['column_a']!r} is significantly "
                f"above the {meta['column_b']!r} of the runs with those letters."
            )
    lower = [m for m in measures if lower_is_better(m)]
    if lower:
        lines.append(f"Bold: the best mean per column (the lowest for {', '.join(lower)}).")
    else:
        lines.append("Bold: the best mean per column.")
    if ci == "mean":
        conf = meta["confidence"] if meta["confidence"] is not None else 1 - meta["alpha"]
        lines.append(f"[low, high]: {conf:.0%} t confidence interval of the mean.")
    elif ci == "delta":
        lines.append(
            f"[low, high]: {meta['confidence']:.0%} confidence interval ({meta['ci_method']}) "
            "of the difference from the baseline."
        )
    if meta["column_a"] != "value":  # the means of another column than the scores
        lines.append(f"Means of column {meta['column_a']!r}.")
    return lines
