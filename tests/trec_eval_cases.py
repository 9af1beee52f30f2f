"""Generated trec_eval inputs for the differential test against the real binaries.

:func:`case` turns a seed into one case: a qrels text, a run text and a list of trec_eval
flags, drawn with :class:`random.Random` (no hypothesis: the same seed gives the same bytes
on every machine, so a failing case is named by its seed alone). The draws reach what the
versions disagree on and what trec_eval does at its edges:

- scores: distinct, tied, **equal as 32-bit floats but not as doubles** (9.0.4 and 9.0.8
  store ``float sim``, 10.0 ``double``), in exponent notation, negative, large;
- grades: binary, graded, negative (judged, never relevant), 10 and more (``relstring``
  prints ``>``), rankings with no relevant document;
- queries the run lacks, queries the qrels lack, unjudged retrieved documents, relevant
  documents never retrieved;
- flags: ``-q``, ``-c``, ``-M``, ``-J``, ``-l``, ``-n``, cut-off and parameter lists,
  ``all_trec``, ``official``, ``set``, ``relstring``, ``utility``, ``ndcg`` gains, and in
  10.0 ``rbp``/``rbp_resid``/``unj``.

``python -m tests.trec_eval_cases SEED DIR`` writes one case's files into ``DIR`` and prints
its flags, to replay it by hand against a binary.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

#: Query ids, in an order that is not string order (trec_eval prints queries as strcmp sorts).
QIDS = ("1", "2", "3", "10", "21", "301", "q7", "Q7")
#: Document ids: byte order differs from natural order and case matters (ties by docno).
DOCS = tuple(
    [f"d{i}" for i in range(1, 13)] + ["D3", "doc-02", "a", "Z9", "d01", "d1a", "x_y", "WSJ-1.2"]
)
#: Grade sets, one per case.
GRADES = (
    (0, 1),
    (0, 1, 2, 3),
    (-1, 0, 1, 2),
    (0, 1, 2, 10, 12),
    (-2, 0, 3, 9, 10, 27),
    (0,),
)
#: Values whose neighbours ``v * (1 + 1e-8)`` round to the same 32-bit float.
F32_BASES = (1.0, 0.3, 12.5, 7.25, 1000.0, 0.001)

#: Measure selections (``-m`` tokens); the first is drawn most often.
MEASURES: tuple[tuple[str, ...], ...] = (
    ("all_trec",),
    ("official",),
    ("set",),
    ("P.1,3,7", "ndcg_cut.2,5", "relstring.6"),
    ("map_cut.2,20", "success.1,3", "recall.4", "iprec_at_recall.0,.5,1"),
    ("ndcg.0=1,1=2,2=8", "Rprec_mult.0.5,2", "utility.2,-1,0,0", "11pt_avg..25,.5"),
    ("relstring.15", "num_nonrel_judged_ret", "gm_bpref", "infAP", "gm_map"),
    ("P", "recall", "Rndcg", "ndcg_rel", "binG", "G", "set_F.0.5"),
)
#: trec_eval 10.0's own additions.
MEASURES_10 = (("rbp", "rbp_resid", "unj"), ("all_trec", "rbp"))


@dataclass(frozen=True)
class Case:
    """One generated input: the two files' text and the flags (measures included)."""

    seed: int
    qrels: str
    run: str
    flags: tuple[str, ...]

    def write(self, folder: Path) -> tuple[Path, Path]:
        """Write the two files into ``folder``; return (qrels, run) paths."""
        folder.mkdir(parents=True, exist_ok=True)
        q, r = folder / f"qrels.{self.seed}", folder / f"run.{self.seed}"
        q.write_text(self.qrels)
        r.write_text(self.run)
        return q, r


def _score(rng: random.Random, mode: str) -> str:
    if mode == "distinct":
        return f"{rng.uniform(-5, 30):.6f}"
    if mode == "tied":
        return str(rng.choice((1, 2, 3)))
    if mode == "float32":
        base = rng.choice(F32_BASES)
        return repr(base * (1 + rng.choice((0, 1e-8, -1e-8, 3e-9))))
    if mode == "exponent":
        return rng.choice(
            ("1e-3", "2.5E+2", "-3e1", "1.0e-3", "250", "0.001", "-30.0", "1e-46", "0", "-0")
        )  # 1e-46 is 0 as a 32-bit float
    return f"{rng.choice((-1, 1)) * rng.uniform(0, 1e6):.2f}"  # large


def case(seed: int, version: str = "9.0.8") -> Case:
    """The case of ``seed``; ``version`` only widens the measures drawn (10.0's ``rbp``)."""
    rng = random.Random(seed)
    grades = rng.choice(GRADES)
    mode = rng.choice(("distinct", "tied", "float32", "float32", "exponent", "large"))
    tag = rng.choice(("runA", "bm25.v2", "r"))
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    qids = rng.sample(QIDS, rng.randint(1, 4))
    disjoint = rng.random() < 0.03  # no query on both sides
    for i, qid in enumerate(qids):
        side = "both" if i == 0 else rng.choice(("both", "both", "both", "run", "qrels"))
        if disjoint:
            side = ("run", "qrels")[i % 2] if len(qids) > 1 else side
        pool = rng.sample(DOCS, rng.randint(1, 12))
        if side != "run":
            judged = [d for d in pool if rng.random() < 0.7] or pool[:1]
            qrels_lines += [f"{qid} 0 {d} {rng.choice(grades)}" for d in judged]
        if side != "qrels":
            extra = rng.sample([d for d in DOCS if d not in pool], rng.randint(0, 3))
            retrieved = [d for d in pool + extra if rng.random() < 0.8] or pool[:1]
            run_lines += [
                f"{qid} Q0 {d} {rng.randint(0, 50)} {_score(rng, mode)} {tag}" for d in retrieved
            ]
    rng.shuffle(qrels_lines)
    choices = MEASURES + (MEASURES_10 if version == "10.0" else ())
    picked = MEASURES[0] if rng.random() < 0.35 else rng.choice(choices)
    flags: list[str] = []
    for token in picked:
        flags += ["-m", token]
    if rng.random() < 0.75:
        flags.append("-q")
        if rng.random() < 0.1:
            flags.append("-n")
    if rng.random() < 0.3:
        flags.append("-c")
    if rng.random() < 0.2:
        flags.append(f"-M{rng.randint(1, 8)}")
    if rng.random() < 0.2:
        flags.append("-J")
    if rng.random() < 0.25:
        flags += ["-l", str(rng.choice((0, 2, 3)))]
    utility = any(t.startswith("utility") or t in ("all_trec", "set") for t in picked)
    if utility and rng.random() < 0.3:
        flags += ["-N", str(rng.choice((0, 20, 1000)))]
    return Case(
        seed,
        "".join(f"{x}\n" for x in qrels_lines),
        "".join(f"{x}\n" for x in run_lines),
        tuple(flags),
    )


if __name__ == "__main__":
    seed, folder = int(sys.argv[1]), Path(sys.argv[2])
    version = sys.argv[3] if len(sys.argv) > 3 else "9.0.8"
    c = case(seed, version)
    q, r = c.write(folder)
    print(" ".join([*c.flags, str(q), str(r)]))
