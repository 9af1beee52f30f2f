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
    """Preference sessions that do not fit together (:func:`polars_ireval.pir`): a session
    with other than two lists, a preference naming a list the session lacks, a session
    without a preference or without judgments."""


class NoRelevantError(IrevalError):
    """An evaluated query has no relevant document, so a measure normalised by R is
    undefined for it (with ``no_relevant="error"``)."""


class TieOrdersError(ParameterError):
    """``ties="average"`` for a measure averaged by enumerating the orders of tied
    documents, on a ranking with more distinct orders than the limit
    (:data:`polars_ireval.engines.average.MAX_ARRANGEMENTS`)."""
