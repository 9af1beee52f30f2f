"""Exceptions raised by polars_ireval.

Every error names what is wrong (file, line, column, value) and says how to fix it.
All of them derive from :class:`IrevalError`, itself a :class:`ValueError`, so callers
can catch one class.
"""

from __future__ import annotations


class IrevalError(ValueError):
    """Base class of every error raised by polars_ireval."""


class FormatError(IrevalError):
    """A line of a TREC run or qrels file cannot be parsed.

    Attributes
    ----------
    path : str
        The file (or ``"<input>"`` for in-memory data).
    line : int or None
        1-based line number, when known.
    """

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


class LineLengthError(FormatError):
    """A line of a text file is longer than the readers take
    (:func:`polars_ireval.io.readers.max_line_bytes`: 1 MiB unless ``IREVAL_MAX_LINE_BYTES`` says
    otherwise); raised before the line is read."""


class EmptyInputError(IrevalError):
    """A run or qrels holds no data lines."""


class DuplicateError(IrevalError):
    """The same (query, document) appears twice in one run or in the qrels."""


class ScoreError(IrevalError):
    """A score is NaN, infinite or missing."""


class RelevanceError(IrevalError):
    """A relevance grade is missing or not an integer."""


class SchemaError(IrevalError):
    """An input frame lacks a required column or has a column of the wrong type."""


class UnknownMeasureError(IrevalError):
    """A measure string names no known measure."""


class MeasureSyntaxError(IrevalError):
    """A measure string cannot be parsed."""


class ParameterError(IrevalError):
    """A measure or option parameter has an invalid value."""


class MissingQueryError(IrevalError):
    """A query judged in the qrels has no ranking in the run (with ``missing="error"``)."""


class PreferenceError(IrevalError):
    """Preference sessions that do not fit together (:func:`polars_ireval.analysis.pir`): a session
    with other than two lists, a preference naming a list the session lacks, a session
    without a preference or without judgments."""


class NoRelevantError(IrevalError):
    """An evaluated query has no relevant document, so a measure normalised by R is
    undefined for it (with ``no_relevant="error"``)."""


class TieOrdersError(ParameterError):
    """``ties="average"`` for a measure averaged by enumerating the orders of tied
    documents, on a ranking with more distinct orders than the limit
    (:data:`polars_ireval.engines.average.MAX_ARRANGEMENTS`)."""


class ResourceError(IrevalError):
    """An operation whose size the user controls (a depth, a number of resamples, a range
    of cut-offs, a line's length...) would need more memory than the budget
    (:func:`polars_ireval._base.resources.memory_budget`: ``IREVAL_MEMORY_LIMIT``, else half the
    memory available); raised before anything is allocated.

    Attributes
    ----------
    what : str
        The input that asked for the size, e.g. ``"INST@1000000 on 25 rankings"``.
    estimate : int
        The bytes the operation would need, about.
    budget : int
        The budget it exceeds, in bytes.
    """

    def __init__(self, message: str, *, what: str = "", estimate: int = 0, budget: int = 0):
        self.what = what
        self.estimate = estimate
        self.budget = budget
        super().__init__(message)


class FetchError(IrevalError):
    """A dataset file (:func:`polars_ireval.fetch`) could not be downloaded, or what came
    is not the file: its size or SHA-256 differs from the package's manifest."""
