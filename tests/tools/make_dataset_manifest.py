"""Write the manifest of a dataset ``ir.fetch`` downloads, from the copy in ``../shared``.

``python -m tests.tools.make_dataset_manifest`` reads ``../shared/data/trec-covid-r1``
(its runs gzipped, otherwise the files of the source) and writes
``polars_ireval/data/datasets/trec-covid-r1.json``: for each file its path at the source,
the path it gets in the cache, and the size and SHA-256 of the bytes the source serves
(the runs' uncompressed bytes), which ``ir.fetch`` checks every download against.
"""

from __future__ import annotations

import gzip
import hashlib
import json

from tests.paths import DATA, ROOT

OUT = ROOT / "polars_ireval" / "data" / "datasets" / "trec-covid-r1.json"
#: The public mirror of the TREC-COVID archive (castorini/TREC-COVID), at the commit
#: ../shared/data/trec-covid-r1/README.md names (be3ed3f); the checksums, not the address,
#: say that a download is the data.
SOURCE = "https://raw.githubusercontent.com/castorini/TREC-COVID/be3ed3f/round1/"


def entry(source: str, local: str, data: bytes) -> dict[str, object]:
    return {
        "source": source,
        "path": local,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def main() -> None:
    folder = DATA / "trec-covid-r1"
    files = [
        entry("qrels/qrels-rnd1.txt", "qrels-rnd1.txt", (folder / "qrels-rnd1.txt").read_bytes()),
        entry("leaderboard.csv", "leaderboard.csv", (folder / "leaderboard.csv").read_bytes()),
    ]
    for run in sorted((folder / "runs").glob("*.gz")):
        name = run.name[: -len(".gz")]
        files.append(entry(f"runs/{name}", f"runs/{name}.gz", gzip.decompress(run.read_bytes())))
    manifest = {
        "name": "trec-covid-r1",
        "title": "TREC-COVID round 1: 143 runs, 30 topics, the official qrels and leaderboard",
        "source": SOURCE,
        "cite": "Voorhees et al., TREC-COVID: Constructing a Pandemic Information Retrieval "
        "Test Collection, SIGIR Forum 54(1), 2020",
        "license": "no license file accompanies the source (NIST's TREC-COVID archive, "
        "mirrored by castorini/TREC-COVID): for research, testing and examples",
        "files": files,
    }
    OUT.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(OUT, len(files), "files")


if __name__ == "__main__":
    main()
