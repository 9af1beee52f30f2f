"""``python -m polars_ireval.sql``: regenerate ``sql/ireval.sql`` from the family files."""

from polars_ireval.sql import write_entry

if __name__ == "__main__":
    print(write_entry())
