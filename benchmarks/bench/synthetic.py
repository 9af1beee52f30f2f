"""One synthetic run of ``queries`` x 1,000 documents and its MS MARCO-like qrels, written
by DuckDB straight to Parquet (``engines.py``'s parts B and C, ``outofcore.py``).

DuckDB is imported by :func:`ensure_synthetic` only.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

#: Documents a query.
DEPTH = 1000

#: One run of ``queries`` x 1,000 documents in TREC order (query, then rank). Document ids
#: are ``(q * 7919 + r * 104729) mod 10000019``, distinct within a query (10000019 is
#: prime); scores fall by 0.02 a rank from a per-query top, and one rank in 32 takes the
#: previous rank's score (a tie).
RUN_SQL = """\
COPY (
    SELECT CAST(100000 + q AS VARCHAR) AS query_id,
        'D' || lpad(CAST((q * 7919 + r * 104729) % 10000019 AS VARCHAR), 8, '0') AS doc_id,
        30.0 + (hash(q, {seed}) % 10000) / 1000.0
            - 0.02 * CASE WHEN hash(q, r, {seed}) % 32 = 0 THEN r - 1 ELSE r END AS score
    FROM (SELECT i // {depth} AS q, i % {depth} + 1 AS r FROM range({rows}) AS t(i))
) TO {path} (FORMAT parquet)"""

#: MS MARCO-like qrels: 1-4 judgments per query (60/25/10/5%), grades 0-3 (10/75/10/5%,
#: the first at least 1); 65% name a retrieved document at a rank skewed to the top
#: (geometric, p = 0.05), the others a document no query retrieves.
QRELS_SQL = """\
COPY (
    WITH judgments AS (
        SELECT q, j, hash(q, j, {seed}, 'judgment') AS h
        FROM range({queries}) AS qs(q) CROSS JOIN range(1, 5) AS js(j)
        WHERE j <= CASE WHEN hash(q, {seed}, 'count') % 20 < 12 THEN 1
                        WHEN hash(q, {seed}, 'count') % 20 < 17 THEN 2
                        WHEN hash(q, {seed}, 'count') % 20 < 19 THEN 3 ELSE 4 END
    ),
    drawn AS (
        SELECT q, j,
            CASE WHEN h % 100 < 65
                THEN (q * 7919 + CAST(least({depth}, 1 + floor(
                    -ln(((h // 100) % 1000000 + 1) / 1000001.0) / 0.05)) AS BIGINT) * 104729)
                    % 10000019
                ELSE 10000019 + (h // 100) % 1000000 END AS doc,
            CASE WHEN (h // 100000000) % 20 < 2 THEN 0
                 WHEN (h // 100000000) % 20 < 17 THEN 1
                 WHEN (h // 100000000) % 20 < 19 THEN 2 ELSE 3 END AS grade
        FROM judgments
    )
    SELECT CAST(100000 + q AS VARCHAR) AS query_id,
        'D' || lpad(CAST(doc AS VARCHAR), 8, '0') AS doc_id,
        CASE WHEN j = 1 THEN greatest(grade, 1) ELSE grade END AS relevance
    FROM drawn
    QUALIFY row_number() OVER (PARTITION BY q, doc ORDER BY j) = 1
) TO {path} (FORMAT parquet)"""


@dataclass(frozen=True)
class Synthetic:
    """File layout of a synthetic run of ``queries`` x 1,000 documents and its qrels."""

    queries: int
    directory: Path

    @property
    def name(self) -> str:
        """Workload name used in the tables, e.g. ``synthetic-50000q``."""
        return f"synthetic-{self.queries}q"

    @property
    def run(self) -> Path:
        """Parquet run: ``query_id, doc_id, score``."""
        return self.directory / "run.parquet"

    @property
    def qrels(self) -> Path:
        """Parquet qrels: ``query_id, doc_id, relevance``."""
        return self.directory / "qrels.parquet"

    @property
    def manifest(self) -> Path:
        """Completion marker with the row counts."""
        return self.directory / "manifest.json"


def sql_string(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def ensure_synthetic(data_dir: Path, queries: int, seed: int) -> Synthetic:
    """Generate the synthetic run and qrels with DuckDB unless they exist.

    The rows go from DuckDB's ``range`` to Parquet without passing through Python; the
    values derive from DuckDB's ``hash`` of (query, rank, seed).

    Parameters
    ----------
    data_dir
        Cache directory of all workloads.
    queries
        Number of queries (the run has ``queries * 1000`` rows).
    seed
        Mixed into every hash.

    Returns
    -------
    Synthetic
        The layout of the (now existing) files.
    """
    import duckdb

    spec = Synthetic(queries, Path(data_dir) / f"synthetic-q{queries}-seed{seed}")
    if spec.manifest.exists():
        return spec
    print(f"generating {spec.name} with DuckDB ...", file=sys.stderr, flush=True)
    spec.directory.mkdir(parents=True, exist_ok=True)
    with duckdb.connect() as con:
        rows = queries * DEPTH
        con.execute(
            RUN_SQL.format(seed=seed, depth=DEPTH, rows=rows, path=sql_string(str(spec.run)))
        )
        con.execute(
            QRELS_SQL.format(
                seed=seed, depth=DEPTH, queries=queries, path=sql_string(str(spec.qrels))
            )
        )
        counts = con.execute(
            f"SELECT count(*), count(*) FILTER (WHERE relevance > 0) "
            f"FROM read_parquet({sql_string(str(spec.qrels))})"
        ).fetchone()
    if counts is None:
        raise RuntimeError(f"DuckDB wrote no qrels to {spec.qrels}")
    manifest = {
        "workload": spec.name,
        "runs": 1,
        "queries": queries,
        "run_lines": rows,
        "qrels_lines": counts[0],
        "relevant": counts[1],
    }
    spec.manifest.write_text(json.dumps(manifest, indent=2) + "\n")
    return spec
