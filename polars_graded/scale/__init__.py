"""Evaluation larger than memory: Parquet sources read in partitions of queries under a
memory budget (:mod:`.parquet`), spilled when a partition outgrows it (:mod:`.spill`)."""

from polars_graded.scale.parquet import evaluate_parquet, summary_parquet

__all__ = ["evaluate_parquet", "summary_parquet"]
