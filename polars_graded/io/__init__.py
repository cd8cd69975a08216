"""Reading and writing tables.

- :mod:`.trec`: TREC run and qrels files, read, joined and written.
- :mod:`.csv_tables`: CSV/TSV tables checked as the long table's rules say (every row whole,
  numbers where numbers belong), an error naming the line.
- :mod:`.parquet_tables`: Parquet sources as ``pl.scan_parquet`` reads them (a file, a glob,
  a directory with hive folders, a list), an error naming the file; their rows and bytes.

Evaluating Parquet larger than memory is :mod:`polars_graded.scale`'s.
"""

from polars_graded.io.trec import join_run_qrels, read_trec_qrels, read_trec_run, write_trec_run

__all__ = [
    "join_run_qrels",
    "read_trec_qrels",
    "read_trec_run",
    "write_trec_run",
]
