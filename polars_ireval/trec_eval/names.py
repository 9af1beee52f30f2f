"""trec_eval's measure names: its table order, nicknames, the families and output items the
``-m`` tokens ask for, and the ``Measures:`` part of ``trec_eval -h -m``.

A ``-m`` token names a family (``P``), a family with parameters (``P.5,10``,
``iprec_at_recall..10,.50``), one measure (``P_5``) or a nickname (:func:`nicknames`:
``official``, ``all_trec``, ``set``; ``prefs``/``all_prefs`` and ``qrels_jg`` with their
``-R`` formats). :func:`trec_items` turns tokens into the output items in trec_eval's table
order (:data:`TREC_ORDER`), its default parameters sorted ascending; ``relstring`` prints
the grades of the top ranks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polars_ireval.errors import IrevalError, ParameterError
from polars_ireval.parse import parse_measures
from polars_ireval.registry import TREC, Measure

#: Pseudo measures printed by trec_eval that are not numbers of :func:`evaluate`.
RUNID = "runid"
NUM_Q = "num_q"

#: One output item: a measure, ``"runid"``, ``"num_q"`` or a relstring label.
Item = Measure | str

#: The trec_eval versions imitated: 9.0.8 (the default), 10.0, and 9.0.4 (whose output
#: equals 9.0.8's on every input this package has tried: both read scores as 32-bit floats).
VERSIONS = ("9.0.8", "10.0", "9.0.4")


#: trec_eval 9.0.8's measure table order (the order of its output lines).
TREC_ORDER = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
]
#: Measures trec_eval 10.0 added to ``all_trec``, after the 9.0.8 ones.
TREC10_ADDED = ["rbp", "rbp_resid", "unj"]
#: trec_eval 10.0's ``rbp`` / ``rbp_resid`` (see :func:`trec10_rbp`).
TREC10_MEASURES = ("rbp", "rbp_resid")
OFFICIAL = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
]
SET = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "utility",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
]
PREFS_NICKNAMES = ("all_prefs", "prefs")
JG_NICKNAMES = ("qrels_jg",)
REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")


def nicknames(version: str = "9.0.8") -> dict[str, list[str]]:
    """trec_eval's measure nicknames (``-m official`` ...) for ``version``."""
    order = TREC_ORDER + (TREC10_ADDED if version == "10.0" else [])
    return {"official": OFFICIAL, "all_trec": order, "set": SET}


def measure_help(specs: Sequence[str] | None) -> str:
    """The ``Measures:`` part of ``trec_eval -h -m ...``: each named family with its summary
    (empty without ``specs``)."""
    if not specs:
        return ""
    out = ["\nMeasures:\n"]
    for spec in specs:
        for token in spec.split():
            family = _family(token)
            if family in TREC:
                defn = TREC[family][0]
                out.append(f"  {family}: {defn.summary}\n")
            else:
                out.append(f"  {token}\n")
    return "".join(out)


def _family(token: str) -> str:
    """The trec_eval measure a ``-m`` token names (``P.5,10`` and ``P_5`` are ``P``)."""
    if token in TREC or token in TREC10_MEASURES or token.startswith("relstring"):
        return "relstring" if token.startswith("relstring") else token
    base = token.split(".", 1)[0]
    if base in TREC or base in TREC10_MEASURES:
        return base
    for i in range(len(token) - 1, 0, -1):
        if token[i] == "_" and token[:i] in TREC:
            return token[:i]
    return token


def _expand(token: str) -> list[Measure]:
    """Measures of one ``-m`` token, parameters ascending as trec_eval sorts them."""
    if token in TREC:
        _defn, spec = TREC[token]
        if spec.kind == "list" and spec.defaults:
            return parse_measures([f"{token}_{spec.fmt(v)}" for v in spec.defaults])
    found = parse_measures(token)

    def key(m: Measure) -> tuple[int, float]:
        spec = TREC.get(_family(token))
        v = m.params.get(spec[1].param) if spec and spec[1].param else None
        return (0, float(v)) if isinstance(v, (int, float)) else (1, 0.0)

    return sorted(found, key=key)


def _relstring_len(token: str) -> int:
    rest = token[len("relstring") :].lstrip("._")
    if not rest:
        return 10
    try:
        n = int(float(rest))
    except ValueError:
        raise ParameterError(f"-m {token}: {rest!r} is not a number of documents") from None
    if n < 1:
        raise ParameterError(f"-m {token}: the relstring length must be at least 1")
    return n


def trec_families(specs: Sequence[str], version: str = "9.0.8") -> dict[str, list[str]]:
    """The measure families the ``-m`` tokens ask for, in trec_eval's table order (the order
    it computes and prints them), each with its tokens."""
    names = nicknames(version)
    order_all = names["all_trec"]
    families: dict[str, list[str]] = {}
    for spec in specs:
        for token in spec.split():
            if token in PREFS_NICKNAMES or token.startswith("prefs_"):
                raise ParameterError(
                    f"-m {token}: preference measures need preference judgments: "
                    "add -R prefs (a prefs file) or -R qrels_prefs (prefs from the qrels)"
                )
            if token in JG_NICKNAMES or token.endswith("_avgjg"):
                raise ParameterError(f"-m {token}: judgment-group measures need -R qrels_jg")
            for name in names.get(token, [token]):
                families.setdefault(_family(name), []).append(name)
    order = [f for f in order_all if f in families] + [f for f in families if f not in order_all]
    return {f: families[f] for f in order}


def trec_items(specs: Sequence[str], version: str = "9.0.8") -> tuple[list[Any], dict[str, int]]:
    """Output items in trec_eval's table order, and the relstring labels with their length."""
    items: list[Any] = []
    rel: dict[str, int] = {}
    for fam, tokens in trec_families(specs, version).items():
        if any(t != fam for t in tokens):  # explicit parameters replace trec_eval's defaults
            # and, as in trec_eval, the first explicit parameters of a measure win: later
            # ones (-m P.5 -m P.10) are ignored
            tokens = [t for t in tokens if t != fam][:1]
        for token in tokens:
            if fam in (RUNID, NUM_Q) or fam in TREC10_MEASURES:
                if fam not in items:
                    items.append(fam)
            elif fam == "relstring":
                n = _relstring_len(token)
                label = "relstring" if token == "relstring" else f"relstring_{n}"
                rel[label] = n
                if label not in items:
                    items.append(label)
            else:
                try:
                    expanded = _expand(token)
                except IrevalError as e:
                    if token in str(e):
                        raise
                    raise type(e)(f"-m {token}: {e}") from None
                for m in expanded:
                    if all(not isinstance(i, Measure) or i.label != m.label for i in items):
                        items.append(m)
    return items, rel
