"""Judged@k: the share of the top ``min(k, N)`` retrieved rows that are judged.

N is the number of rows retrieved; 0 when nothing is retrieved. A row is judged when its
label is not null, whatever its value.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, Measure, safe_ratio
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def judged_share(r: Ranked, k: int | None) -> pl.Expr:
    """Judged@k: share of the top ``min(k, N)`` retrieved rows that are judged.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(judged_share(r, 2)).item(0, 1)
    1.0
    """
    judged = r.tie_mean(r.rel.is_not_null().cast(pl.Float64))
    return safe_ratio(pl.when(r.in_list(k)).then(judged).sum(), r.evaluated(k))


@register(
    Declaration(
        name="judged",
        summary="share of the top min(k, N) retrieved rows that are judged",
        function="judged",
        instance="Judged",
        order=16,
        example="judged@2",
        example_value=1.0,
        ir_measures={"Judged": "judged[@{k}]"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class JudgedShare(Measure):
    """Judged@k: ``|judged in the top min(k, N)| / min(k, N)`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.Judged @ 10)
    'judged@10'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return judged_share(r, self.k)
