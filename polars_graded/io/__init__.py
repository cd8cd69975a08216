"""Reading and writing tables: TREC run and qrels files (:mod:`.trec`) and CSV/TSV tables
(:mod:`.csv_tables`). Parquet sources larger than memory are :mod:`polars_graded.scale`'s."""

from polars_graded.io.trec import join_run_qrels, read_trec_qrels, read_trec_run, write_trec_run

__all__ = [
    "join_run_qrels",
    "read_trec_qrels",
    "read_trec_run",
    "write_trec_run",
]
