"""Fusion: several runs into one (:func:`fuse`), and the normalisations of a run's scores
(:func:`normalize`), as lazy Polars queries; below ``evaluate`` (a run in, a run out)."""

from polars_ireval.fusion.fuse import METHODS, fuse, normalize
from polars_ireval.fusion.normalize import NORMS

__all__ = ["METHODS", "NORMS", "fuse", "normalize"]
