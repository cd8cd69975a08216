"""Defaults shared by every entry point, in one place."""

from __future__ import annotations

from typing import Final

DEFAULT_MEASURES: Final[tuple[str, ...]] = ("mu_ap", "ndcg@10", "ndcng@10", "ap", "p@10", "rr")
"""What ``polars-graded evaluate`` computes when no ``-m`` is given."""

REPORT_MEASURES: Final[tuple[str, ...]] = ("mu_ap", "ap", "ndcg@10", "ndcng@10", "p@10", "rr")
"""What a report compares when no measure is given."""

SYSTEM: Final = "system"
"""The column that names the systems when no ``by=`` is given: the comparisons, the gate, the
report and ``--by``."""

MEAN: Final = "arithmetic"
"""The mean of a summary when no ``mean=`` is given (``"geometric"``: trec_eval's ``gm_``)."""

PAIRS: Final = "baseline"
"""Which pairs of systems a comparison tests when no ``pairs=`` is given: each against the
baseline."""

ENGINE: Final = "in-memory"
"""The Polars engine every collect of a measure uses: its results are the same bits whether a
table is evaluated whole, in partitions or on Spark executors."""
