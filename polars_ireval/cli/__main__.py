"""``python -m polars_ireval.cli``: the ``ireval`` command."""

import sys

from polars_ireval.cli import main

if __name__ == "__main__":
    sys.exit(main())
