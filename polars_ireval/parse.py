"""Measure strings: ir_measures' grammar and trec_eval's names, parsed (never evaluated).

ir_measures grammar: ``Name``, ``Name@cutoff``, ``Name(param=value, ...)@cutoff`` where the
values are Python literals (numbers, strings, booleans, None, dicts, tuples), read with
:func:`ast.literal_eval` on the parsed syntax tree, so nothing is executed.

trec_eval grammar: ``name`` (its default parameters: ``P`` is ``P_5 ... P_1000``),
``name.params`` (``P.5,10``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``, ``set_F.0.5``) and
``name_value`` (``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``).

Every measure keeps the string the user wrote as its label, which names the output. A
parameter is given once, with a value of the type its declaration states (``rel=1.5`` or
``k=None`` is refused unless the parameter takes a float or None).
"""

from __future__ import annotations

import ast
import collections.abc
import difflib
import functools
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from polars_ireval import measures as _measures  # noqa: F401  (registers every measure)
from polars_ireval.errors import (
    IrevalError,
    MeasureSyntaxError,
    ParameterError,
    UnknownMeasureError,
)
from polars_ireval.registry import (
    ALIASES,
    REGISTRY,
    TREC,
    Measure,
    MeasureDef,
    TrecName,
    use_parser,
)

MeasureLike = str | Measure


def parse_measures(spec: MeasureLike | Iterable[MeasureLike]) -> list[Measure]:
    """Parse measure strings into :class:`Measure` objects, in order, without duplicates.

    Parameters
    ----------
    spec
        A string holding one or more measures separated by whitespace, a
        :class:`Measure`, or a sequence of those.

    Examples
    --------
    >>> from polars_ireval import parse_measures
    >>> [m.label for m in parse_measures("nDCG@10 P(rel=2)@5 P.5,10 map")]
    ['nDCG@10', 'P(rel=2)@5', 'P_5', 'P_10', 'map']
    >>> [m.label for m in parse_measures("success recip_rank")]
    ['success_1', 'success_5', 'success_10', 'recip_rank']
    >>> [m.canonical for m in parse_measures(["ndcg_cut_10", "recip_rank"])]
    ['nDCG@10', 'RR']
    """
    items: Sequence[MeasureLike] = [spec] if isinstance(spec, (str, Measure)) else list(spec)
    out: dict[str, Measure] = {}
    for item in items:
        parsed = [item] if isinstance(item, Measure) else _parse_text(item)
        for m in parsed:
            out.setdefault(m.label, m)
    if not out:
        raise MeasureSyntaxError("no measure given; name at least one, e.g. 'nDCG@10' or 'map'")
    return list(out.values())


def parse_measure(text: str) -> Measure:
    """Parse exactly one measure (a trec_eval name with default parameters may expand to many).

    >>> from polars_ireval import parse_measure
    >>> parse_measure("nDCG(dcg='exp-log2')@10").canonical
    "nDCG(dcg='exp-log2')@10"
    """
    found = parse_measures(text)
    if len(found) != 1:
        raise MeasureSyntaxError(
            f"{text!r} names {len(found)} measures ({', '.join(m.label for m in found)}); "
            "give one, e.g. with a single cutoff"
        )
    return found[0]


def known_names() -> list[str]:
    """Every name accepted in a measure string: canonical, aliases and trec_eval names.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> [n for n in ir.known_names() if n.lower().startswith("ndcg")]
    ['NDCG', 'nDCG', 'ndcg', 'ndcg_cut', 'ndcg_rel']
    """
    return sorted({*REGISTRY, *ALIASES, *TREC})


# --------------------------------------------------------------------------- tokenising


def _split(text: str) -> list[str]:
    """Split on whitespace outside brackets and quotes."""
    tokens, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            cur.append(ch)
        elif ch in "([{":
            depth += 1
            cur.append(ch)
        elif ch in ")]}":
            depth -= 1
            cur.append(ch)
        elif ch.isspace() and depth == 0:
            if cur:
                tokens.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if quote or depth:
        raise MeasureSyntaxError(f"{text!r}: unbalanced brackets or quotes")
    if cur:
        tokens.append("".join(cur))
    return tokens


def _parse_text(text: str) -> list[Measure]:
    if not isinstance(text, str):
        raise MeasureSyntaxError(f"{text!r}: a measure must be a string such as 'nDCG@10'")
    out: list[Measure] = []
    for token in _split(text):
        out.extend(_parse_token(token))
    return out


def _parse_token(token: str) -> list[Measure]:
    name, args, cutoff = _split_ir_measures(token)
    key = ALIASES.get(name, name)
    if key in REGISTRY and (args is not None or cutoff is not None or name not in TREC):
        return [_bind_ir_measures(REGISTRY[key], token, args, cutoff)]
    trec = _parse_trec(token)
    if trec is not None:
        return trec
    if key in REGISTRY:
        return [_bind_ir_measures(REGISTRY[key], token, args, cutoff)]
    raise UnknownMeasureError(_unknown_message(token, name))


def _split_ir_measures(token: str) -> tuple[str, str | None, str | None]:
    """``Name(args)@cutoff`` → (Name, args or None, cutoff or None)."""
    name_end = 0
    while name_end < len(token) and (token[name_end].isalnum() or token[name_end] in "_-"):
        name_end += 1
    name, rest = token[:name_end], token[name_end:]
    args = None
    if rest.startswith("("):
        close = _matching_paren(token, name_end)
        args, rest = token[name_end + 1 : close], token[close + 1 :]
    cutoff = None
    if rest.startswith("@"):
        cutoff, rest = rest[1:], ""
    if rest and (args is not None or cutoff is not None):
        raise MeasureSyntaxError(f"{token!r}: unexpected {rest!r} after the measure")
    if rest:  # not ir_measures syntax at all (e.g. a trec_eval 'P.5,10')
        return token, None, None
    return name, args, cutoff


def _matching_paren(token: str, start: int) -> int:
    depth, quote = 0, ""
    for i in range(start, len(token)):
        ch = token[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
    raise MeasureSyntaxError(f"{token!r}: '(' is never closed")


def _bind_ir_measures(
    defn: MeasureDef, token: str, args: str | None, cutoff: str | None
) -> Measure:
    values = _literal_kwargs(token, args) if args else {}
    if cutoff is not None:
        if defn.cutoff is None:
            raise ParameterError(f"{token!r}: {defn.name} takes no @cutoff")
        if defn.cutoff in values:
            raise ParameterError(f"{token!r}: the cutoff is given twice")
        values[defn.cutoff] = _number(token, cutoff)
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    _check_types(defn, token, values)
    return defn.bind(values, label=token)


@functools.cache
def _hints(build: Callable[..., Any]) -> dict[str, Any]:
    """The declared parameter types of a measure's function (its annotations resolved)."""
    return typing.get_type_hints(inspect.unwrap(build))


def _check_types(defn: MeasureDef, token: str, values: dict[str, Any]) -> None:
    """Raise :class:`ParameterError` for a value whose type the declaration of ``defn``
    does not take (``None`` only where it says ``| None``), unless the measure's own check
    of the parameter takes it (``utility``'s ``num_docs`` takes any non-negative number).
    Unknown parameters are left to :meth:`MeasureDef.bind`, values of the right type to the
    measure's own checks."""
    hints = _hints(defn.build)
    for name, value in values.items():
        # a nested measure is written as a string (bound, it becomes a Measure)
        hint = str if name in defn.nested else hints.get(name)
        check = defn.checks.get(name)
        if value is not None and check is not None and check(value):
            continue
        if hint is not None and not _conforms(value, hint):
            raise ParameterError(
                f"{token!r}: {defn.name}: {name}={value!r} is invalid; it must be {_expected(hint)}"
            )


def _conforms(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if origin is typing.Literal:  # the value itself is the measure's own check
        return any(type(value) is type(a) for a in typing.get_args(hint))
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin is collections.abc.Mapping:
        return isinstance(value, dict)
    if origin in (collections.abc.Sequence, tuple):
        return isinstance(value, tuple)
    return True  # a type the parser has no literal for: the measure's checks decide


def _expected(hint: Any) -> str:
    """The type ``hint`` in words: ``an integer or None``."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_expected(h) for h in typing.get_args(hint))
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(hint))
    if origin is collections.abc.Mapping:
        return "a dict, e.g. {1: 0.5, 2: 1.0}"
    if origin in (collections.abc.Sequence, tuple):
        return "a tuple, e.g. (1.0, 0.5)"
    words = {bool: "True or False", int: "an integer", float: "a number", str: "a string"}
    return words.get(hint, "None" if hint is type(None) else str(hint))


def _literal_kwargs(token: str, args: str) -> dict[str, Any]:
    try:
        call = ast.parse(f"f({args})", mode="eval").body
    except SyntaxError as e:
        raise MeasureSyntaxError(f"{token!r}: cannot parse the parameters ({e.msg})") from None
    assert isinstance(call, ast.Call)
    if call.args:
        raise MeasureSyntaxError(f"{token!r}: parameters must be named, e.g. P(rel=2)@5")
    out: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise MeasureSyntaxError(f"{token!r}: '**' is not allowed in a measure string")
        if kw.arg in out:
            raise ParameterError(f"{token!r}: parameter {kw.arg!r} is given twice")
        try:
            out[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            raise MeasureSyntaxError(
                f"{token!r}: the value of {kw.arg!r} must be a literal (number, string, "
                "dict, tuple, True/False/None)"
            ) from None
    return out


def _number(token: str, text: str) -> int | float:
    if text.strip().lstrip("+-").isdigit():  # an integer, read exactly (not through a float)
        return int(text)
    try:
        value = float(text)
    except ValueError:
        raise MeasureSyntaxError(f"{token!r}: cutoff {text!r} is not a number") from None
    return int(value) if value.is_integer() and "." not in text else value


# --------------------------------------------------------------------------- trec_eval names


def _parse_trec(token: str) -> list[Measure] | None:
    if token in TREC:
        defn, spec = TREC[token]  # a bare name: its default parameters, each labelled apart
        return _expand_trec(defn, spec, None, None)
    for i in range(len(token) - 1, 0, -1):
        if token[i] not in "._":
            continue
        base = token[:i]
        if base not in TREC:
            continue
        defn, spec = TREC[base]
        if spec.kind == "none":
            continue
        params = token[i + 1 :]
        label = token if token[i] == "_" else None
        try:
            return _expand_trec(defn, spec, params, label)
        except ParameterError as exc:  # name the measure string the bad value came from
            raise ParameterError(f"{token!r}: {exc}") from None
    return None


def _expand_trec(
    defn: MeasureDef, spec: TrecName, params: str | None, label: str | None
) -> list[Measure]:
    if spec.kind == "none" or spec.param is None:
        if params:
            raise ParameterError(f"{spec.name}: trec_eval's {spec.name} takes no parameters")
        return [defn.bind(dict(spec.fixed), label=label or spec.name)]
    if spec.kind == "whole":
        if params is None:
            if not spec.defaults:
                return [defn.bind(dict(spec.fixed), label=label or spec.name)]
            value = spec.defaults[0]
            return [defn.bind({**spec.fixed, spec.param: value}, label=label or spec.name)]
        value = spec.convert(params)
        name = label if label is not None else f"{spec.name}_{params}"
        return [defn.bind({**spec.fixed, spec.param: value}, label=name)]
    if params is None:
        values = list(spec.defaults)
    else:
        values = [spec.convert(v) for v in params.split(",") if v != ""]
        if not values:
            raise MeasureSyntaxError(f"{spec.name}.{params}: no parameter value given")
    values = sorted(set(values))  # trec_eval prints parameter lists in ascending order
    out = []
    for v in values:
        name = label if label is not None else f"{spec.name}_{spec.fmt(v)}"
        out.append(defn.bind({**spec.fixed, spec.param: v}, label=name))
    return out


def _unknown_message(token: str, name: str) -> str:
    names = known_names()
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    lowered = {n.lower(): n for n in names}
    if name.lower() in lowered and lowered[name.lower()] not in close:
        close.insert(0, lowered[name.lower()])
    hint = f"did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return (
        f"unknown measure {token!r}; {hint} "
        "(polars_ireval.known_names() lists every name; docs/measures.md describes them)"
    ).replace(";  (", "; (")


use_parser(parse_measure)  # nested measure parameters (ED's ``measure``) are parsed when bound


def lower_is_better(label: str) -> bool:
    """Whether ``label`` (a measure string, as in a results frame's ``measure`` column)
    names a measure declared ``lower_is_better`` (Fallout); False for anything that does
    not parse as a measure (a column of the user's own).

    Examples
    --------
    >>> [lower_is_better(m) for m in ("Fallout(num_docs=100)@10", "AP", "my score")]
    [True, False, False]
    """
    try:
        return parse_measure(label).defn.lower_is_better
    except IrevalError:
        return False
