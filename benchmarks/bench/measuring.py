"""How the benchmarks measure, shared by their scripts.

A worker process reports its own peak memory and imports the working tree of
polars_ireval; the parent warms the OS file cache first, describes the machine, warns of
a busy one and records the command line; the in-process benchmarks time with
:func:`timed` or :func:`take_turns`. Standard library only.
"""

from __future__ import annotations

import os
import platform
import resource
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench.layout import REPO_DIR

#: 1-minute load average above which the run is reported as made on a busy machine.
BUSY_LOAD = 0.5


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB.

    On Linux, ``VmHWM`` of ``/proc/self/status``: ``ru_maxrss`` survives ``exec`` and so
    would start at the parent's resident size at fork time. Elsewhere, ``ru_maxrss``.
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 2**10
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def spawn(script: str, worker_args: list[str], timeout: float) -> dict[str, Any]:
    """Run ``script`` with ``worker_args`` in a fresh Python process (the working tree first
    on its path, :func:`worker_env`), handing it ``--result-file``; return the record it
    wrote there, or ``status`` ``timeout``/``error`` when it wrote none."""
    import json
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        result_file = Path(tmp) / "result.json"
        command = [sys.executable, str(Path(script).resolve()), *worker_args]
        command += ["--result-file", str(result_file)]
        try:
            proc = subprocess.run(
                command, env=worker_env(), timeout=timeout, capture_output=True, text=True
            )
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "error": f"timed out after {timeout:g} s"}
        if not result_file.exists():
            tail = proc.stderr.strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
            return {"status": "error", "error": f"worker died: {tail[0]}"}
        return dict(json.loads(result_file.read_text()))


def worker_env() -> dict[str, str]:
    """Environment of a worker: the repository first on ``PYTHONPATH`` (working tree)."""
    paths = [str(REPO_DIR), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def warm_cache(paths: Iterable[Path]) -> None:
    """Read every file once so that all tools start from a warm OS file cache."""
    for path in paths:
        with open(path, "rb") as handle:
            while handle.read(1 << 24):
                pass


def short_paths(message: str, data_dir: Path) -> str:
    """Write the data directory as ``<data>`` in a message."""
    for form in sorted({str(data_dir.resolve()), str(data_dir)}, key=len, reverse=True):
        message = message.replace(form, "<data>")
    return message


def memory_gb() -> float:
    """Physical memory in GB."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30


def cpu_model() -> str:
    """CPU model name from ``/proc/cpuinfo``, or ``platform.processor()``."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def machine(load: float) -> dict[str, Any]:
    """Description of the machine and interpreter, with the load average before the run."""
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "ram_gb": round(memory_gb(), 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "load_before": round(load, 2),
    }


def check_load() -> float:
    """Return the 1-minute load average, warning if other processes keep the CPU busy."""
    load = os.getloadavg()[0]
    if load > BUSY_LOAD:
        print(
            f"warning: load average {load:.2f} before the run; other processes will skew "
            "the timings",
            file=sys.stderr,
        )
    return load


def command_line() -> str:
    """The command that ran this script, as typed from the repository root if possible."""
    script = Path(sys.argv[0]).resolve()
    try:
        shown = str(script.relative_to(Path.cwd().resolve()))
    except ValueError:
        shown = sys.argv[0]
    cwd = Path.cwd().resolve()
    where = "" if cwd == REPO_DIR else f"cd {shlex.quote(os.path.relpath(cwd, REPO_DIR))} && "
    return where + shlex.join(["python", shown, *sys.argv[1:]])


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The median wall time of ``repeat`` calls of ``fn`` in this process, and the last
    call's result (for the in-process benchmarks: compare, depth_curve, pooling)."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def take_turns(cases: dict[str, Callable[[], Any]], repeat: int) -> dict[str, list[float]]:
    """``repeat`` rounds of every case in turn, after an untimed one: the times by label
    (for the in-process benchmarks: floor, deep_floor)."""
    times: dict[str, list[float]] = {label: [] for label in cases}
    for f in cases.values():
        f()
    for _ in range(repeat):
        for label, f in cases.items():
            start = time.perf_counter()
            f()
            times[label].append(time.perf_counter() - start)
    return times
