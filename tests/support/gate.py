"""Tables of the gate's tests (``test_stats_gate``, ``test_cli_gate``,
``test_hostile_analysis``): one relevant item per query at a chosen rank, so that a query's
AP is ``1 / rank`` by hand and the per-query differences are known without the library.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

BASE = [1, 2, 1, 3, 1, 2, 1, 1]
"""The rank of the relevant item per query for the baseline: AP 1 / rank."""


def ranked_table(ranks: Mapping[str, Sequence[int | None]]) -> pl.DataFrame:
    """Per system, query q's relevant item at rank ``ranks[system][q]`` (None: no rows)."""
    rows = []
    for system, system_ranks in ranks.items():
        for query, rank in enumerate(system_ranks):
            if rank is None:
                continue
            for position in range(1, max(rank, 3) + 1):
                relevance = int(position == rank)
                rows.append((system, str(query), f"d{position}", 10.0 - position, relevance))
    schema = ["system", "query", "item", "score", "relevance"]
    return pl.DataFrame(rows, schema=schema, orient="row")


def ap(ranks: list[int]) -> np.ndarray:
    """AP per query of :func:`ranked_table`: ``1 / rank``."""
    return 1.0 / np.array(ranks, dtype=np.float64)
