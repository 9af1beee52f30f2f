"""The options many functions share, each defined and checked once.

* ``missing=``: what to do with a query (or, for :func:`polars_ireval.agreement`, a run)
  present on one side only: :data:`Missing`, checked by :func:`check_missing`;
* a flag (``per_query=``, ``validate=`` ...): :func:`check_flag`;
* ``relevance_level=``: :func:`check_relevance_level`;
* a count (``max_depth=``, ``budget=``, ``resamples=``, ``max_lines=`` ...):
  :func:`check_positive_int`;
* ``p=``, a persistence (RBP's, RBO's, a simulated user's): :func:`check_persistence`;
* a parameter renamed in 0.x: :func:`renamed` keeps the old keyword working, with a
  :class:`DeprecationWarning` naming the new one.

What each name means across the package is listed in ``docs/architecture.md`` ("One
vocabulary"); the renames in ``CHANGELOG.md``.
"""

from __future__ import annotations

import difflib
import functools
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal, ParamSpec, TypeVar, cast, overload

import numpy as np

from polars_ireval._base.numeric import is_number
from polars_ireval.errors import ParameterError

P = ParamSpec("P")
R = TypeVar("R")

#: What to do with a query (or an item) present on one side only: ``"skip"`` leave it
#: out (evaluate: a query the run did not rank; compare: a query some runs lack),
#: ``"zero"`` score it 0, ``"error"`` raise, naming it.
Missing = Literal["skip", "zero", "error"]
#: The values of :data:`Missing`, in the order error messages list them.
MISSING: tuple[str, ...] = ("skip", "zero", "error")
#: The old spellings of ``missing=`` values, still accepted with a DeprecationWarning.
MISSING_ALIASES: dict[str, str] = {"intersect": "skip"}

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_deprecated(message: str) -> None:
    """A :class:`DeprecationWarning` with ``message``, attributed to the first caller
    outside the package (so that Python shows it where the user's code calls)."""
    frame = sys._getframe(1)
    level = 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, DeprecationWarning, stacklevel=level)


def check_missing(
    value: Any, *, allowed: Sequence[str] = MISSING, name: str = "missing"
) -> Missing:
    """``value`` as one of ``allowed`` (values of :data:`Missing`), case and surrounding
    spaces aside; the old word ``"intersect"`` is ``"skip"``, accepted with a
    :class:`DeprecationWarning`. Anything else is a :class:`ParameterError` naming
    ``name``, the closest value and the values allowed.

    >>> check_missing(" Error ")
    'error'
    >>> check_missing("drop", allowed=("skip", "error"))
    Traceback (most recent call last):
    ...
    polars_ireval.errors.ParameterError: missing='drop' is unknown; use one of ['skip', 'error']
    """
    key = value.strip().lower() if isinstance(value, str) else value
    if isinstance(key, str) and key in MISSING_ALIASES and MISSING_ALIASES[key] in allowed:
        new = MISSING_ALIASES[key]
        warn_deprecated(
            f"{name}={value!r} is renamed {name}={new!r} (the same policy: leave out what "
            f"one side lacks); the old word will be removed"
        )
        key = new
    if isinstance(key, str) and key in allowed:
        return cast(Missing, key)
    close = difflib.get_close_matches(str(key), list(allowed), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ParameterError(f"{name}={value!r} is unknown{hint}; use one of {list(allowed)}")


def check_flag(name: str, value: Any) -> None:
    """Raise :class:`ParameterError` unless ``value`` is True or False (``"no"``, ``0``
    and ``None`` are not taken for False)."""
    if not isinstance(value, bool):
        raise ParameterError(f"{name}={value!r}: must be True or False")


def check_relevance_level(relevance_level: Any) -> None:
    """Raise :class:`ParameterError` unless ``relevance_level`` is a non-negative integer
    grade (trec_eval ``-l``: a judgment is relevant when its grade is at least this).
    Negative grades are never relevant (they mark documents pooled but not judged, or
    spam): a negative level would count them (trec_eval 9.0.4 then prints AP above 1)."""
    if not isinstance(relevance_level, int) or isinstance(relevance_level, bool):
        raise ParameterError(f"relevance_level={relevance_level!r}: must be an integer grade")
    if relevance_level < 0:
        raise ParameterError(
            f"relevance_level={relevance_level}: negative grades are never relevant; give 0 "
            "(every judged grade from 0 up) or more"
        )


@overload
def check_positive_int(
    name: str, value: Any, *, what: str = ..., optional: Literal[False] = ...
) -> int: ...


@overload
def check_positive_int(name: str, value: Any, *, what: str = ..., optional: bool) -> int | None: ...


def check_positive_int(
    name: str, value: Any, *, what: str = "", optional: bool = False
) -> int | None:
    """``value`` as an int if it is a positive integer (Python's or numpy's; a bool is
    none), None if it is None and ``optional``; else a :class:`ParameterError`:
    ``"{name}={value!r}: {what} must be a positive integer"`` (``" (or None)"`` when
    optional).

    >>> check_positive_int("budget", 0, what="the budget")
    Traceback (most recent call last):
    ...
    polars_ireval.errors.ParameterError: budget=0: the budget must be a positive integer
    >>> check_positive_int("max_depth", None, optional=True) is None
    True
    """
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        subject = f"{what} " if what else ""
        tail = " (or None)" if optional else ""
        raise ParameterError(f"{name}={value!r}: {subject}must be a positive integer{tail}")
    return int(value)


def check_persistence(value: Any, *, name: str = "p", what: str = "the persistence") -> float:
    """``value`` as a float if it is a number strictly between 0 and 1 (Python's or
    numpy's; a bool is none), else a :class:`ParameterError`: ``"{name}={value!r}: {what}
    must be a number strictly between 0 and 1"``.

    >>> check_persistence(1.0)
    Traceback (most recent call last):
    ...
    polars_ireval.errors.ParameterError: p=1.0: the persistence must be a number strictly ...
    """
    if not is_number(value) or not 0.0 < float(value) < 1.0:
        raise ParameterError(f"{name}={value!r}: {what} must be a number strictly between 0 and 1")
    return float(value)


def renamed(**names: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Accept each old keyword argument (a key of ``names``) as its new name (the value),
    with a :class:`DeprecationWarning` naming the new one; both at once are a
    :class:`ParameterError`. The function's signature, docstring and name are kept
    (``functools.wraps``); ``__renamed__`` lists the renames.

    >>> @renamed(per_q="results")
    ... def mean(results): return sum(results) / len(results)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     mean(per_q=[1, 2])
    1.5
    >>> str(seen[0].message)
    'mean(per_q=...) is renamed mean(results=...); the old name will be removed'
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            for old, new in names.items():
                if old in kwargs:
                    where = func.__name__
                    if new in kwargs:
                        raise ParameterError(
                            f"{where}: {old}= is the old name of {new}=; pass {new}= only"
                        )
                    warn_deprecated(
                        f"{where}({old}=...) is renamed {where}({new}=...); the old name "
                        "will be removed"
                    )
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        wrapper.__renamed__ = {**getattr(func, "__renamed__", {}), **names}  # type: ignore[attr-defined]
        return wrapper

    return decorate
