"""Column names shared by the readers, the evaluation table and the measures."""

from __future__ import annotations

import polars as pl

RUN_ID = "run_id"
QUERY_ID = "query_id"
DOC_ID = "doc_id"
SCORE = "score"
RELEVANCE = "relevance"
RANK = "rank"
LINE_TEXT = "line"

#: Evaluation-table columns, usable in hand-written measures.
rank = pl.col(RANK)
relevance = pl.col(RELEVANCE)
