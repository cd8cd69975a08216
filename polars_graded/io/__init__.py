"""Reading and writing tables.

- :mod:`.trec`: TREC run and qrels files, read, joined and written; converted to Parquet in
  bounded memory (:func:`~polars_graded.io.trec.trec_to_parquet`), read in batches of whole
  lines by :mod:`.trec_text`.
- :mod:`.dicts`: pytrec_eval's ``{query: {item: score}}`` dicts as the long table
  (:func:`~polars_graded.io.dicts.from_dicts`).
- :mod:`.csv_tables`: CSV/TSV tables checked as the long table's rules say (every row whole,
  numbers where numbers belong), an error naming the line.
- :mod:`.parquet_tables`: Parquet sources as ``pl.scan_parquet`` reads them (a file, a glob,
  a directory with hive folders, a list), an error naming the file; their rows and bytes.

Evaluating Parquet larger than memory is :mod:`polars_graded.scale`'s.
"""

from polars_graded.io.dicts import from_dicts
from polars_graded.io.trec import (
    join_run_qrels,
    read_trec_qrels,
    read_trec_run,
    trec_to_parquet,
    write_trec_run,
)

__all__ = [
    "from_dicts",
    "join_run_qrels",
    "read_trec_qrels",
    "read_trec_run",
    "trec_to_parquet",
    "write_trec_run",
]
