"""Reading and writing tables: TREC run and qrels files (:mod:`.trec`), and Parquet sources
larger than memory, evaluated in partitions (:mod:`.parquet`)."""

from polars_graded.io.parquet import evaluate_parquet, summary_parquet
from polars_graded.io.trec import join_run_qrels, read_trec_qrels, read_trec_run, write_trec_run

__all__ = [
    "evaluate_parquet",
    "join_run_qrels",
    "read_trec_qrels",
    "read_trec_run",
    "summary_parquet",
    "write_trec_run",
]
