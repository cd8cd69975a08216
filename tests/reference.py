"""A brute-force reference for the measures, written straight from SPEC.md (not a test).

Plain Python loops over plain Python lists: no Polars expressions and nothing imported from
polars_graded, so the library can be checked against it. Each function names the SPEC
section it follows.

Usage::

    queries = load(df, by=["system"])          # {(system, query): RefQuery}
    {key: q.mu_ap(levels="table") for key, q in queries.items()}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

Label = float | int | None


def f32(x: float) -> float:
    """SPEC §2: scores are compared as 32-bit floats (as trec_eval stores them)."""
    return float(np.float32(x))


def is_rel(label: Label, t: float) -> bool:
    """Relevant at threshold t; an unjudged (null) row is never relevant."""
    return label is not None and label >= t


# --- gains (SPEC §4 DCG, CONTRACT update on mappings) -------------------------------------


def gain_exp(label: Label) -> float:
    """``2^rel - 1``; relevance <= 0 and null give 0 (SPEC §1)."""
    if label is None or label <= 0:
        return 0.0
    return 2.0**label - 1.0


def gain_linear(label: Label) -> float:
    """``rel``; relevance <= 0 and null give 0."""
    if label is None or label <= 0:
        return 0.0
    return float(label)


def gain_mapping(mapping: Mapping[float, float]) -> Callable[[Label], float]:
    """trec_eval's rule: listed labels get the listed gain, unlisted positive labels keep
    gain = label, unlisted null/negative/zero labels get 0."""

    def gain(label: Label) -> float:
        if label is None:
            return 0.0
        for key, value in mapping.items():
            if float(key) == float(label):
                return float(value)
        return float(label) if label > 0 else 0.0

    return gain


def gain_function(gain: str | Mapping[float, float]) -> Callable[[Label], float]:
    if gain == "exp":
        return gain_exp
    if gain == "linear":
        return gain_linear
    assert isinstance(gain, Mapping)
    return gain_mapping(gain)


def dcg_of(gains: Sequence[float], k: int | None, base: float = 2.0) -> float:
    """``sum_{p <= k} gain_p / log_base(p + 1)`` (SPEC §4)."""
    total = 0.0
    for p, g in enumerate(gains, start=1):
        if k is not None and p > k:
            break
        total += g / (math.log(p + 1) / math.log(base))
    return total


# --- one query ------------------------------------------------------------------------------


@dataclass
class RefQuery:
    """One query's ranked list and judgments.

    ranked: relevance labels of the retrieved rows in ranked order (None = unjudged).
    judged: relevance labels of every judged row (retrieved or not), in no order.
    table_levels: the positive labels of the query's whole table (or by group).
    """

    ranked: list[Label]
    judged: list[float]
    table_levels: list[float] = field(default_factory=list)

    # SPEC §4: AP at threshold t ---------------------------------------------------------
    def n_rel(self, t: float) -> int:
        """R^t: judged rows with rel >= t, retrieved or not."""
        return sum(1 for label in self.judged if label >= t)

    def ap(self, rel: float = 1, k: int | None = None) -> float:
        big_r = self.n_rel(rel)
        if big_r == 0:
            return 0.0
        hits = 0
        total = 0.0
        for p, label in enumerate(self.ranked, start=1):
            if k is not None and p > k:
                break
            if is_rel(label, rel):
                hits += 1
                total += hits / p
        return total / big_r

    # SPEC §3: levels and distances ------------------------------------------------------
    def query_levels(self) -> list[float]:
        return sorted({label for label in self.judged if label > 0})

    def mu_ap(self, levels: str | Sequence[float] = "query", k: int | None = None) -> float:
        if levels == "query":
            chosen = self.query_levels()
        elif levels == "table":
            chosen = list(self.table_levels)
        else:
            chosen = sorted(set(levels))  # type: ignore[arg-type]
        if not chosen:
            return 0.0
        num = 0.0
        den = 0.0
        previous = 0.0
        for level in chosen:
            distance = level - previous
            previous = level
            num += distance * self.ap(rel=level, k=k)
            den += distance
        return num / den if den > 0 else 0.0

    # SPEC §4: DCG / NDCG / NDCNG --------------------------------------------------------
    def dcg(self, k: int | None = None, gain: str | Mapping = "exp", base: float = 2) -> float:
        g = gain_function(gain)
        return dcg_of([g(label) for label in self.ranked], k, base)

    def ideal_dcg(self, k: int | None = None, gain: str | Mapping = "exp", base: float = 2):
        g = gain_function(gain)
        ideal = sorted((g(label) for label in self.judged), reverse=True)
        return dcg_of([x for x in ideal if x > 0], k, base)

    def ndcg(self, k: int | None = None, gain: str | Mapping = "exp") -> float:
        ideal = self.ideal_dcg(k, gain)
        if ideal <= 0:
            return 0.0
        return self.dcg(k, gain) / ideal

    def _top(self) -> float | None:
        return max(self.judged) if self.judged else None

    def ndcng(self, k: int | None = None) -> float:
        top = self._top()
        if top is None or top <= 0:
            return 0.0
        ranked = [None if x is None else x / top for x in self.ranked]
        judged = [x / top for x in self.judged]
        return RefQuery(ranked, judged).ndcg(k, "exp")

    def mean_ndcg(self, gain: str | Mapping = "exp") -> float:
        n = len(self.ranked)
        if n == 0:
            return 0.0
        return sum(self.ndcg(k, gain) for k in range(1, n + 1)) / n

    def mean_ndcng(self) -> float:
        n = len(self.ranked)
        if n == 0:
            return 0.0
        return sum(self.ndcng(k) for k in range(1, n + 1)) / n

    # SPEC §4: set measures -----------------------------------------------------------
    def _hits(self, rel: float, k: int | None) -> int:
        top = self.ranked if k is None else self.ranked[:k]
        return sum(1 for label in top if is_rel(label, rel))

    def precision(self, k: int | None = None, rel: float = 1) -> float:
        if k is None:
            n = len(self.ranked)
            return self._hits(rel, None) / n if n else 0.0
        return self._hits(rel, k) / k

    def recall(self, k: int | None = None, rel: float = 1) -> float:
        big_r = self.n_rel(rel)
        return self._hits(rel, k) / big_r if big_r else 0.0

    def r_precision(self, rel: float = 1) -> float:
        big_r = self.n_rel(rel)
        return self._hits(rel, big_r) / big_r if big_r else 0.0

    def rr(self, rel: float = 1, k: int | None = None) -> float:
        for p, label in enumerate(self.ranked, start=1):
            if k is not None and p > k:
                break
            if is_rel(label, rel):
                return 1.0 / p
        return 0.0


# --- a whole table ------------------------------------------------------------------------


def rank_rows(rows: list[tuple]) -> list[Label]:
    """SPEC §2: retrieved rows by float32 score descending, ties by item descending.

    rows: (item, score, relevance) tuples of one query.
    """
    retrieved = [r for r in rows if r[1] is not None]
    retrieved.sort(key=lambda r: r[0], reverse=True)  # secondary key first (stable sort)
    retrieved.sort(key=lambda r: f32(r[1]), reverse=True)
    return [r[2] for r in retrieved]


def load(
    df: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    query: str = "query",
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
) -> dict[tuple, RefQuery]:
    """Every (by..., query) of the table as a :class:`RefQuery`.

    ``table_levels`` are the distinct positive labels of the query's by group (the whole
    table when by is None): SPEC §3's "levels of the whole table", and SPEC §6's "a table
    with by=system equals each system's slice alone".
    """
    by_cols = [] if by is None else [by] if isinstance(by, str) else list(by)
    rows: dict[tuple, list[tuple]] = {}
    group_levels: dict[tuple, set] = {}
    for rec in df.iter_rows(named=True):
        group = tuple(rec[c] for c in by_cols)
        key = (*group, rec[query])
        rows.setdefault(key, []).append((rec[item], rec[score], rec[relevance]))
        label = rec[relevance]
        levels = group_levels.setdefault(group, set())
        if label is not None and label > 0:
            levels.add(label)
    out = {}
    for key, query_rows in rows.items():
        judged = [r[2] for r in query_rows if r[2] is not None]
        table_levels = sorted(group_levels[key[: len(by_cols)]])
        out[key] = RefQuery(rank_rows(query_rows), judged, table_levels)
    return out
