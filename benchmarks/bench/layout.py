"""Where things are: the repository, the committed results and the generated workloads.

This module imports nothing but the standard library, so that the measuring worker
processes of ``run.py`` load only the tool they measure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: ``benchmarks/``: the scripts run from there, and their results are committed there.
BENCH_DIR = Path(__file__).resolve().parents[1]
REPO_DIR = BENCH_DIR.parent
#: The raw results of ``run.py``, ``engines.py`` and ``outofcore.py`` (their pages are
#: rendered from them).
RESULTS_JSON = BENCH_DIR / "results.json"
ENGINES_JSON = BENCH_DIR / "engines.json"
OUTOFCORE_JSON = BENCH_DIR / "outofcore.json"

WORKLOADS = ("msmarco", "campaign", "deep")
DEFAULT_DATA_DIR = BENCH_DIR / "data"
DEFAULT_SEED = 42
#: Scale of the tiny workload each case runs once, untimed, before the measurements.
WARMUP_SCALE = 0.001
MSMARCO_TAG = "msmarco-bm25"
DEEP_TAG = "deep-bm25"
CAMPAIGN_RUNS = 100


@dataclass(frozen=True)
class Workload:
    """File layout of one generated workload.

    Attributes
    ----------
    name
        Workload name (``"msmarco"``, ``"campaign"`` or ``"deep"``).
    directory
        Directory holding every file of the workload.
    run_ids
        Identifier of each run; also its TREC tag, its file stem and its Parquet ``run_id``.
    """

    name: str
    directory: Path
    run_ids: tuple[str, ...]

    @property
    def text_runs(self) -> list[Path]:
        """TREC run files, one per run, in ``run_ids`` order."""
        return [self.directory / "runs" / f"{run_id}.trec" for run_id in self.run_ids]

    @property
    def parquet_run(self) -> Path:
        """Parquet file holding every run (with a ``run_id`` column if there are several)."""
        return self.directory / "runs.parquet"

    @property
    def text_qrels(self) -> Path:
        """TREC qrels file."""
        return self.directory / "qrels.trec"

    @property
    def parquet_qrels(self) -> Path:
        """Parquet qrels file."""
        return self.directory / "qrels.parquet"

    @property
    def manifest(self) -> Path:
        """Completion marker with the generation parameters and row counts."""
        return self.directory / "manifest.json"

    @property
    def files(self) -> list[Path]:
        """Every data file of the workload."""
        return [*self.text_runs, self.parquet_run, self.text_qrels, self.parquet_qrels]

    def is_complete(self) -> bool:
        """Whether the manifest and every data file exist."""
        return self.manifest.exists() and all(path.exists() for path in self.files)


def workload(name: str, data_dir: Path, scale: float, seed: int = DEFAULT_SEED) -> Workload:
    """Describe where the files of a workload live.

    Parameters
    ----------
    name
        ``"msmarco"``, ``"campaign"`` or ``"deep"``.
    data_dir
        Cache directory of all workloads.
    scale
        Multiplier of the number of queries.
    seed
        Base seed of the generator.

    Returns
    -------
    Workload
        The file layout (the files may not exist yet).
    """
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; expected one of {WORKLOADS}")
    directory = Path(data_dir) / f"{name}-scale{scale:g}-seed{seed}"
    if name == "msmarco":
        run_ids: tuple[str, ...] = (MSMARCO_TAG,)
    elif name == "deep":
        run_ids = (DEEP_TAG,)
    else:
        run_ids = tuple(f"run{i:03d}" for i in range(CAMPAIGN_RUNS))
    return Workload(name, directory, run_ids)


def short_path(path: Path) -> str:
    """``path`` relative to the repository when inside it (the working tree, put first on
    ``PYTHONPATH``), else as is (an installed package)."""
    try:
        return str(path.resolve().relative_to(REPO_DIR))
    except ValueError:
        return str(path)
