"""Progress bars on stderr (tqdm) for long work: many files, resampling, simulations.

Every function that takes ``progress=`` reads it here: False (the API's default) shows
nothing, True shows a bar on stderr (asked for, so shown whatever stderr is), ``"auto"``
(the CLI's default) shows one only when stderr is a terminal. A bar never changes a result.
"""

from __future__ import annotations

import sys
from typing import IO, Any, Literal

from polars_ireval.errors import ParameterError

ProgressOption = bool | Literal["auto"]


def check_progress(progress: Any) -> None:
    """Refuse anything but True, False and ``"auto"``."""
    if not (isinstance(progress, bool) or progress == "auto"):
        raise ParameterError(
            f"progress={progress!r}: must be True (a bar on stderr), False or 'auto' "
            "(a bar when stderr is a terminal)"
        )


def bar(
    progress: ProgressOption,
    *,
    total: int | None = None,
    desc: str = "",
    unit: str = "it",
    stream: IO[str] | None = None,
    leave: bool = True,
    delay: float = 0.0,
) -> Any:
    """A tqdm bar for ``progress`` (disabled when it is False, or ``"auto"`` off a terminal).

    ``leave=False`` clears the bar when it closes (the CLI's status line); ``delay``: seconds
    before it first shows (work done sooner shows nothing).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with bar(True, total=3, desc="pairs", stream=out) as b:
    ...     b.update(3)
    >>> "pairs: 100%|" in out.getvalue() and "3/3" in out.getvalue()
    True
    >>> with bar(False, total=3) as b:
    ...     b.update(3)
    """
    from tqdm import tqdm

    check_progress(progress)
    disable = None if progress == "auto" else not progress
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        file=stream if stream is not None else sys.stderr,
        disable=disable,
        leave=leave,
        delay=delay,
        dynamic_ncols=True,
    )
