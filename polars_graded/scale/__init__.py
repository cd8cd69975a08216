"""Evaluation larger than memory: a Parquet source evaluated in partitions of whole queries.

- :mod:`.parquet`: :func:`evaluate_parquet` and :func:`summary_parquet`, the loop over the
  partitions (each evaluated in memory with the normal plan).
- :mod:`.partitions`: the planning, which Spark shares (:mod:`polars_graded.spark`): how many
  partitions, capped by the rankings; by which keys; which rows go to which.
- :mod:`.memory`: the memory budget (``"4GiB"``, the default of half the machine) and the
  estimate of evaluating in one go.
- :mod:`.spill`: the split of the source on disk, one folder per partition, read back in turn.
- :mod:`.progress`: the progress bar of ``progress=True`` (``tqdm.auto`` when installed, else
  one line), which the report's steps draw too.
- :mod:`.trec`: :func:`evaluate_trec`, TREC runs larger than memory (converted to Parquet in
  bounded memory, then evaluated as above).
- :mod:`.store`: :func:`~polars_graded.scale.store.evaluate_store`, a log of hive partitions
  evaluated into a result store, only new or changed partitions each run;
  :mod:`.fingerprint` finds the partitions and names their entries.

The Parquet sources themselves (globs, hive folders, files that cannot be read) are
:mod:`polars_graded.io.parquet_tables`'.
"""

from polars_graded.scale.parquet import evaluate_parquet, summary_parquet
from polars_graded.scale.trec import evaluate_trec

__all__ = ["evaluate_parquet", "evaluate_trec", "summary_parquet"]
