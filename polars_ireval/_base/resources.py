"""Resource guards: an operation whose size the user controls estimates its memory first.

Cut-offs and depths, resamples, cut-off ranges, budgets, line lengths: each operation
that allocates in proportion to a number the user gives computes, from sizes known before
allocating (rows, rankings, runs, the number itself), about how many bytes it will need,
and calls :func:`require`. Beyond the memory budget (:func:`memory_budget`) it raises
:class:`~polars_ireval.errors.ResourceError`, naming the input, the estimate, the budget
and the way to proceed, instead of letting the allocation end the process (a Rust
allocation failure aborts Python without an exception) or the machine swap.

The budget is ``IREVAL_MEMORY_LIMIT`` when set (``8G``, ``512M``, ``1.5G``, plain bytes),
otherwise :data:`FRACTION` of the least of the physical memory, the cgroup's limit
(``memory.max``) and the address space the process has left under its ``RLIMIT_AS`` soft
limit (the limit less the process's current virtual size: Polars and DuckDB reserve
address space well beyond what they touch). ``docs/resources.md`` lists each guard, its
estimate and how it was calibrated.

Examples
--------
>>> import os
>>> from polars_ireval._base.resources import memory_budget, parse_size, require
>>> parse_size("1.5G"), parse_size("512M"), parse_size("4096")
(1610612736, 536870912, 4096)
>>> os.environ["IREVAL_MEMORY_LIMIT"] = "1G"
>>> memory_budget()
1073741824
>>> require("INST@10000000", 2 * 2**30, fix="lower the depth")
Traceback (most recent call last):
...
polars_ireval.errors.ResourceError: INST@10000000 needs about 2.0 GiB, more than the memory
budget of 1.0 GiB (IREVAL_MEMORY_LIMIT=1G); lower the depth, or raise the budget: ...=3G
>>> del os.environ["IREVAL_MEMORY_LIMIT"]
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Sized

from polars_ireval.errors import ParameterError, ResourceError

#: The environment variable that sets the memory budget (bytes, or ``8G``, ``512M``...).
MEMORY_LIMIT_VAR = "IREVAL_MEMORY_LIMIT"
#: The share of the available memory an operation may plan to use without the variable.
FRACTION = 0.5

_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50}
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([KMGTP]?)(?:I?B)?\s*", re.IGNORECASE)


def parse_size(text: str, variable: str = MEMORY_LIMIT_VAR) -> int:
    """Bytes from ``8G``, ``512M``, ``1.5G``, ``64KiB`` or plain ``4096`` (binary units);
    a :class:`~polars_ireval.errors.ParameterError` naming ``variable`` otherwise."""
    found = _SIZE.fullmatch(text)
    value = float(found.group(1)) * _UNITS[found.group(2).upper()] if found else math.nan
    if not math.isfinite(value) or value < 1:
        raise ParameterError(
            f"{variable}={text!r}: give a size in bytes, e.g. {variable}=8G, 512M or 1073741824"
        )
    return int(value)


def human(n: float) -> str:
    """``n`` bytes in binary units, e.g. ``'6.1 GiB'``.

    >>> human(6.1 * 2**30), human(1536), human(3 * 2**50)
    ('6.1 GiB', '1.5 KiB', '3.0 PiB')
    """
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024:
            return f"{n:.0f} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB" if n < 10**6 else f"{n:.1e} PiB"


def _suggested(estimate: int) -> str:
    """A value of the variable that admits ``estimate`` bytes, rounded up (``'12G'``)."""
    for unit in ("M", "G", "T"):
        amount = math.ceil(estimate * 1.25 / _UNITS[unit])
        if amount < 1024 or unit == "T":
            return f"{amount}{unit}"
    raise AssertionError("unreachable")


@functools.cache
def _physical() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


@functools.cache
def _cgroup() -> int | None:
    """The cgroup's memory limit (v2 ``memory.max``, v1 ``memory.limit_in_bytes``)."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:  # v1 writes a huge number for none
            return int(text)
    return None


def _address_space() -> int | None:
    """The address space left under the ``RLIMIT_AS`` soft limit, or None without one."""
    try:
        import resource
    except ImportError:  # not on Windows
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        used = 0
    return max(soft - used, 0)


def budget_and_source() -> tuple[int, str]:
    """The memory budget in bytes and where it comes from, for messages."""
    text = os.environ.get(MEMORY_LIMIT_VAR)
    if text is not None and text.strip():
        return parse_size(text), f"{MEMORY_LIMIT_VAR}={text.strip()}"
    limits = {
        "the physical memory": _physical(),
        "the cgroup's memory.max": _cgroup(),
        "the address space left under RLIMIT_AS": _address_space(),
    }
    known = {name: value for name, value in limits.items() if value is not None}
    if not known:
        return 2**62, "no limit found"
    name = min(known, key=lambda k: known[k])
    return int(known[name] * FRACTION), f"{FRACTION:.0%} of {name}, {human(known[name])}"


def memory_budget() -> int:
    """The bytes an operation may plan to allocate: ``IREVAL_MEMORY_LIMIT`` when set
    (``8G``, ``512M``, plain bytes), else :data:`FRACTION` of the least of the physical
    memory, the cgroup's limit and the address space left under ``RLIMIT_AS``."""
    return budget_and_source()[0]


def require(what: str, estimate: float, *, fix: str, how: str | None = None) -> None:
    """Raise :class:`~polars_ireval.errors.ResourceError` when ``estimate`` bytes exceed
    the memory budget.

    ``what`` names the input (``"INST@1000000 on 25 rankings"``), ``how`` the estimate's
    terms (shown in parentheses), ``fix`` the ways to proceed other than raising the
    budget, which the message adds.
    """
    budget, source = budget_and_source()
    if estimate <= budget:
        return
    terms = f" ({how})" if how else ""
    raise ResourceError(
        f"{what} needs about {human(estimate)}{terms}, more than the memory budget of "
        f"{human(budget)} ({source}); {fix}, or raise the budget: "
        f"{MEMORY_LIMIT_VAR}={_suggested(int(estimate))}",
        what=what,
        estimate=int(estimate),
        budget=budget,
    )


#: Bytes per item of a list of Python integers read from a range and checked one by one.
ITEM_BYTES = 80


def require_listable(what: str, values: object, *, fix: str) -> None:
    """For ``values`` whose length is known before they are listed (a ``range``), raise
    :class:`~polars_ireval.errors.ResourceError` when listing and checking them
    (:data:`ITEM_BYTES` each) exceeds the budget; nothing for other iterables."""
    if isinstance(values, Sized) and not isinstance(values, (str, bytes)):
        n = len(values)
        require(
            f"{what} of {n:,} values",
            n * ITEM_BYTES,
            how=f"{ITEM_BYTES} bytes a value to list and check it",
            fix=fix,
        )


__all__ = [
    "FRACTION",
    "ITEM_BYTES",
    "MEMORY_LIMIT_VAR",
    "budget_and_source",
    "human",
    "memory_budget",
    "parse_size",
    "require",
    "require_listable",
]
