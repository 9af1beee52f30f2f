"""The benchmarks' library: what their scripts share.

The scripts of ``benchmarks/`` are entry points, run from that folder (``python run.py``)
and imported by no other module; what two of them use lives here, a module a room:

``layout``
    Paths of the repository and of the committed results, the file layout of the
    generated workloads.
``workloads``
    The seeded generator of the msmarco, campaign and deep workloads (``generate.py``).
``synthetic``
    DuckDB's generator of one large synthetic run and its qrels (``engines.py``,
    ``outofcore.py``).
``tools``
    The tools measured and how each is called: the five measures' names in each tool,
    the plain-Python readers of pytrec_eval's input, one evaluation function a tool.
``measuring``
    The worker processes' side (peak memory, environment), the parent's (warm file
    cache, machine, load, command line) and timing within one process.
``tables``
    Plain-text and Markdown tables.
``results``, ``engine_results``, ``outofcore_results``, ``fusion_results``
    The rows of ``run.py``, ``engines.py``, ``outofcore.py`` and ``fusion.py``, how they
    compare, and the tables their pages show.
``charts``
    The benchmark pages' charts, drawn from the results files (``charts.py``).

Every module but ``workloads`` (numpy, Polars) imports only the standard library when
loaded (a tool, DuckDB or matplotlib inside the function that needs it), so that the
measuring workers of ``run.py`` and ``engines.py`` load only what they measure.
``tests/test_imports.py`` checks that no module of ``benchmarks/`` imports an entry point,
that there is no import circle, and that no private name is imported across modules.
"""
