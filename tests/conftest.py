"""Shared fixtures: the reference data in ../shared/data (skipped with a message when absent)
and the suite's one Spark session.

The paths live in ``tests/paths.py`` (re-exported here for the modules that import them from
conftest)."""

from __future__ import annotations

import gc
import os
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.paths import CAST, DATA, ROOT, TREC_TEST, need_data

__all__ = ["CAST", "DATA", "ROOT", "TREC_TEST", "need_data"]


def pytest_configure(config: pytest.Config) -> None:
    """With xdist, one Polars thread per worker: the workers already fill the cores, and two
    pools of two threads on two cores cost about 10% more CPU (test_stability and
    test_condensed: 175 s against 195 s of user time). Runs before the workers start, so
    they inherit it; an explicit POLARS_MAX_THREADS wins."""
    if getattr(config.option, "numprocesses", None):
        os.environ.setdefault("POLARS_MAX_THREADS", "1")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once the tests are collected, move every object alive (modules, the collected items,
    hypothesis' strategies) out of the garbage collector's reach and collect less often:
    the suite allocates many short-lived frames, and each full collection walked all of
    them (test_stability, test_ties and test_gain_family: 4.2 -> 2.0 s in the collector,
    counted with ``gc.callbacks``). Reference counting still frees what tests drop."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)


@pytest.fixture
def data() -> Path:
    return need_data()


@pytest.fixture(scope="session")
def trec_covid() -> tuple[Any, Any]:
    """TREC-COVID round 1: all 143 runs (run ids: the file names) and the qrels, read once
    per test process for the modules that evaluate the campaign (Polars frames are
    immutable; a read of the 143 gzipped runs costs about 3.5 CPU s)."""
    import polars_ireval as ir

    data = need_data() / "trec-covid-r1"
    return ir.read_run(data / "runs", run_id="file"), ir.read_qrels(data / "qrels-rnd1.txt")


def _java() -> bool:
    home = os.environ.get("JAVA_HOME")
    return shutil.which("java") is not None or bool(home and os.path.exists(home))


def _connect_jar() -> bool:
    """Whether pyspark bundles the Spark Connect server (pyspark 4 does)."""
    import pyspark

    return any(Path(pyspark.__file__).parent.glob("jars/spark-connect_*.jar"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


#: The test JVM: C1 only, one compiler thread, the serial collector (see ``spark``).
_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-XX:+UseSerialGC")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The suite's one Spark session (local[1], one shuffle partition, no UI, no generated
    code), started once in the worker that runs the ``spark`` xdist group; skips without
    pyspark or Java. Its JVM also serves Spark Connect (the plugin, on a free port: see
    ``spark_connect``)."""
    pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install '.[test]'")
    if not _java():
        pytest.skip("Java is not installed: the Spark tests need a JRE (.ci/run installs one)")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    if _connect_jar():
        builder = (
            builder.config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
            .config("spark.connect.grpc.binding.address", "localhost")
            .config("spark.connect.grpc.binding.port", str(_free_port()))
        )
    session = (
        builder.master("local[1]")
        .appName("polars_ireval tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.driver.memory", "2g")
        # small inputs: Spark's interpreted expressions and the JVM's quick compiler alone
        # cost less CPU than compiling code for every query (the suite's Spark tests: 179 ->
        # 113 CPU s, which the other xdist worker gets); the benchmarks keep Spark's defaults
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .config("spark.driver.extraJavaOptions", " ".join(_JVM_OPTIONS))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def spark_connect(spark: Any) -> Iterator[Any]:
    """A Spark Connect session on the suite's Spark (its JVM runs the Connect server, so
    no second JVM starts); skips without the Connect client's packages (grpcio ...)."""
    for module in ("grpc", "grpc_status", "google.protobuf", "zstandard"):
        pytest.importorskip(module, reason="Spark Connect needs pip install 'pyspark[connect]'")
    if not _connect_jar():
        pytest.skip("this pyspark has no Spark Connect server (pyspark 4 bundles one)")
    # the Connect client's own builder: pyspark.sql.SparkSession's refuses a remote session
    # beside a classic one in the same process
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    port = spark.conf.get("spark.connect.grpc.binding.port")
    session = ConnectSession.builder.remote(f"sc://localhost:{port}").getOrCreate()
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _spark_cache_cleared() -> Iterator[None]:
    """After each test, drop what Spark cached (a test's own ``cache()``; the engine
    checkpoints instead): one JVM serves every Spark test, and each query is matched
    against every cached plan."""
    yield
    if "pyspark.sql" in sys.modules:
        active = sys.modules["pyspark.sql"].SparkSession.getActiveSession()
        if active is not None:
            active.catalog.clearCache()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests on Spark share one worker under pytest-xdist (``--dist loadgroup``): one JVM
    for the suite, while the other worker runs the rest.

    ``tryfirst``: xdist's worker reads the ``xdist_group`` marks in its own hook, which runs
    before this one otherwise (this conftest is loaded early, as an initial conftest of
    ``testpaths``); without it the marks came too late and the Spark tests were spread over
    both workers, each starting a JVM."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        on_spark = "spark" in fixtures or "spark" in item.name.split("[")[-1]
        module = getattr(item, "module", None)
        if on_spark or (module is not None and module.__name__.endswith("test_spark")):
            item.add_marker(pytest.mark.xdist_group("spark"))
