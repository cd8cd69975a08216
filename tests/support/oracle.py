"""The oracle: a plain-Python reference implementation of every measure (not a test).

Plain loops over plain lists, written from each measure's definition
(docs/conventions.md, trec_eval's
``m_*.c`` files, the papers), nothing imported from polars_graded, so the library can be
checked against it. Each method of :class:`RefQuery` gives its formula, its source and the
other references the suite has for the measure; the tie policies are in
:mod:`support.oracle_ties`.

Where the oracle is the ONLY reference (nothing else in the suite computes the measure on
random tables):

- µAP with ``levels="table"``, with given levels, and with a cutoff;
- DCG, NDCG and mean NDCG with exponential gain, NDCNG and mean NDCNG (the paper's Tables
  1 and 2 check one hand-sized ranking, test_paper_tables);
- RBP, its residual, and Judged@k;
- ERR (TREC's gdeval.pl also checks it, in test_measures_err, only where perl and
  ir_measures are installed);
- with :mod:`support.oracle_ties`, every measure under the tie policies other than ``"trec_eval"``
  (trec_eval knows one order of tied rows).

AP, P, recall, R-precision, RR, success, bpref and NDCG with linear or mapped gains are also
checked against trec_eval itself (test_trec_eval_differential, test_trec_eval_files).

Usage::

    queries = load(df, by=["system"])          # {(system, query): RefQuery}
    {key: q.mu_ap(levels="table") for key, q in queries.items()}
    REFERENCE["ndcg@3"](queries[key])          # a measure by its canonical name
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl

Label = float | int | None
"""A relevance label; None is an unjudged row."""
Gain = str | Mapping[float, float]
"""``"exp"``, ``"linear"`` or a mapping label -> gain."""
Key = tuple[Any, ...]
"""The key of a ranking, ``(by..., query)``, or of a ``by`` group, ``(by...)``."""


Compat = Literal["trec_eval_10", "trec_eval_9"]
COMPATS: tuple[Compat, ...] = ("trec_eval_10", "trec_eval_9")
"""The trec_eval releases whose score comparison the oracle follows (conventions §2), written here
from their definitions (not read from the library)."""


def f32(x: float) -> float:
    """A score as trec_eval 9.x (and pytrec_eval) stores it: a 32-bit float (conventions §2)."""
    return float(np.float32(x))


def compared(x: float, *, float32: bool = False) -> float:
    """A score as a ranking compares it (conventions §2): a 64-bit float, as trec_eval 10.0 does
    (the default), or with ``float32`` a 32-bit float, as 9.x and pytrec_eval do."""
    return f32(x) if float32 else float(x)


def uses_float32(compat: str) -> bool:
    """Whether the release ``compat`` compares scores as 32-bit floats: only 9.x."""
    if compat not in COMPATS:
        msg = f"not a trec_eval release: {compat!r}"
        raise ValueError(msg)
    return compat == "trec_eval_9"


def is_rel(label: Label, t: float) -> bool:
    """Relevant at threshold t; an unjudged (null) row is never relevant (conventions §1)."""
    return label is not None and label >= t


# --- gains (conventions §4 DCG) -----------------------------------------------------------------


def gain_exp(label: Label) -> float:
    """``2^rel - 1`` (the paper's Eq. 3, after Burges et al. 2005); <= 0 and null give 0."""
    if label is None or label <= 0:
        return 0.0
    return 2.0**label - 1.0


def gain_linear(label: Label) -> float:
    """``rel`` (Järvelin and Kekäläinen 2002; trec_eval's ndcg); <= 0 and null give 0."""
    if label is None or label <= 0:
        return 0.0
    return float(label)


def gain_mapping(mapping: Mapping[float, float]) -> Callable[[Label], float]:
    """trec_eval's rule (m_ndcg.c): a listed label gets the listed gain, an unlisted positive
    label keeps gain = label, an unlisted null, negative or zero label gets 0."""

    def gain(label: Label) -> float:
        if label is None:
            return 0.0
        for key, value in mapping.items():
            if float(key) == float(label):
                return float(value)
        return float(label) if label > 0 else 0.0

    return gain


def gain_function(gain: Gain) -> Callable[[Label], float]:
    """The gain function of a DCG ``gain=`` parameter."""
    if gain == "exp":
        return gain_exp
    if gain == "linear":
        return gain_linear
    if not isinstance(gain, Mapping):
        msg = f"not a gain: {gain!r}"
        raise ValueError(msg)
    return gain_mapping(gain)


def dcg_of(gains: Sequence[float], k: int | None, base: float = 2.0) -> float:
    """``sum_{p <= k} gain_p / log_base(p + 1)`` (conventions §4)."""
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
    table_levels: the positive labels of the query's whole table (or ``by`` group).

    The paper's ranking (conventions §5): µAP 0.448, AP^2 0.483, NDCG@8 0.55.

    >>> q = RefQuery([1, 0, 3, 3, 2, 0, 1, 4], [1, 0, 3, 3, 2, 0, 1, 4])
    >>> round(q.mu_ap(), 3), round(q.ap(rel=2), 3), round(q.ndcg(8), 2)
    (0.448, 0.483, 0.55)
    """

    ranked: Sequence[Label]
    judged: Sequence[float]
    table_levels: Sequence[float] = field(default_factory=list)

    def _shown(self, k: int | None) -> Sequence[Label]:
        """The ranked rows a measure with cutoff k reads: the top ``min(k, N)``."""
        return self.ranked if k is None else self.ranked[:k]

    # --- AP and µAP ---------------------------------------------------------------------

    def n_rel(self, t: float) -> int:
        """``R^t``: judged rows with ``rel >= t``, retrieved or not (conventions §4)."""
        return sum(1 for label in self.judged if label >= t)

    def ap(self, rel: float = 1, k: int | None = None) -> float:
        """AP at threshold t: ``(1/R^t) sum_{p <= k, rel(p) >= t} C^t(p) / p``, 0 when
        ``R^t = 0`` (conventions §4; trec_eval m_map.c, m_map_cut.c: a cutoff keeps R^t).

        Also checked against trec_eval (map, map_cut) and the paper's Table 1.
        """
        big_r = self.n_rel(rel)
        if big_r == 0:
            return 0.0
        hits = 0
        total = 0.0
        for p, label in enumerate(self._shown(k), start=1):
            if is_rel(label, rel):
                hits += 1
                total += hits / p
        return total / big_r

    def query_levels(self) -> list[float]:
        """``L_q``: the distinct positive labels of the query's judged rows (conventions §3)."""
        return sorted({label for label in self.judged if label > 0})

    def mu_ap(self, levels: str | Sequence[float] = "query", k: int | None = None) -> float:
        """µAP: ``sum_i d_i AP^(l_i) / sum_i d_i`` over the levels ``l_1 < ... < l_m``,
        ``d_i = l_i - l_(i-1)``, ``l_0 = 0``; 0 without a level (conventions §3-4; Scheel et al.
        2011). ``levels``: ``"query"`` (L_q), ``"table"`` (:attr:`table_levels`) or a list.

        The ONLY reference for ``levels="table"``, given levels and cutoffs; the query's
        own levels are also checked by the paper's Table 1 and examples/ohsumed.
        """
        if levels == "query":
            chosen = self.query_levels()
        elif levels == "table":
            chosen = list(self.table_levels)
        else:
            assert not isinstance(levels, str), levels
            chosen = sorted(set(levels))
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

    # --- DCG, NDCG, NDCNG -----------------------------------------------------------------

    def dcg(self, k: int | None = None, gain: Gain = "exp", base: float = 2) -> float:
        """``DCG@k = sum_{p <= k} gain(rel(p)) / log_b(p + 1)`` (conventions §4).

        The ONLY reference on random tables (the paper gives one DCG@8, base 10).
        """
        g = gain_function(gain)
        return dcg_of([g(label) for label in self.ranked], k, base)

    def ideal_dcg(self, k: int | None = None, gain: Gain = "exp", base: float = 2) -> float:
        """DCG@k of the ideal ranking: every judged row by gain descending (conventions §4)."""
        g = gain_function(gain)
        ideal = sorted((g(label) for label in self.judged), reverse=True)
        return dcg_of([x for x in ideal if x > 0], k, base)

    def ndcg(self, k: int | None = None, gain: Gain = "exp") -> float:
        """``NDCG@k = DCG@k / ideal DCG@k``, 0 when the ideal DCG is 0 (conventions §4; trec_eval
        m_ndcg.c, m_ndcg_cut.c for linear and mapped gains).

        Linear and mapped gains are also checked against trec_eval; exponential gain (the
        default) only here and in the paper's Table 2.
        """
        ideal = self.ideal_dcg(k, gain)
        if ideal <= 0:
            return 0.0
        return self.dcg(k, gain) / ideal

    def ndcng(self, k: int | None = None) -> float:
        """NDCNG@k: NDCG@k with exponential gain on ``rel / m_q``, ``m_q`` the query's top
        judged label; 0 when ``m_q <= 0`` (conventions §4; Scheel et al. 2011).

        The ONLY reference on random tables (the paper's Table 2 checks one ranking).
        """
        top = max(self.judged) if self.judged else None
        if top is None or top <= 0:
            return 0.0
        ranked = [None if x is None else x / top for x in self.ranked]
        judged = [x / top for x in self.judged]
        return RefQuery(ranked, judged).ndcg(k, "exp")

    def mean_ndcg(self, gain: Gain = "exp") -> float:
        """The mean of NDCG@1..NDCG@N over the N retrieved rows, 0 when N = 0 (conventions §4
        "Mean over cutoffs", the paper's Table 2). The ONLY reference on random tables."""
        n = len(self.ranked)
        if n == 0:
            return 0.0
        return sum(self.ndcg(k, gain) for k in range(1, n + 1)) / n

    def mean_ndcng(self) -> float:
        """The mean of NDCNG@1..NDCNG@N, 0 when N = 0 (as :meth:`mean_ndcg`)."""
        n = len(self.ranked)
        if n == 0:
            return 0.0
        return sum(self.ndcng(k) for k in range(1, n + 1)) / n

    # --- set measures and ranks -------------------------------------------------------------

    def _hits(self, rel: float, k: int | None) -> int:
        return sum(1 for label in self._shown(k) if is_rel(label, rel))

    def precision(self, k: int | None = None, rel: float = 1) -> float:
        """``P@k = |{p <= k : rel(p) >= t}| / k``; without k, hits / N and 0 when N = 0
        (conventions §4; trec_eval m_P.c, m_set_P.c). Also checked against trec_eval."""
        if k is None:
            n = len(self.ranked)
            return self._hits(rel, None) / n if n else 0.0
        return self._hits(rel, k) / k

    def recall(self, k: int | None = None, rel: float = 1) -> float:
        """``R@k = |{p <= k : rel(p) >= t}| / R^t``, 0 when ``R^t = 0`` (conventions §4; trec_eval
        m_recall.c, m_set_recall.c). Also checked against trec_eval."""
        big_r = self.n_rel(rel)
        return self._hits(rel, k) / big_r if big_r else 0.0

    def r_precision(self, rel: float = 1) -> float:
        """``P@R^t``, 0 when ``R^t = 0`` (conventions §4; trec_eval m_Rprec.c). Also checked
        against trec_eval."""
        big_r = self.n_rel(rel)
        return self._hits(rel, big_r) / big_r if big_r else 0.0

    def rr(self, rel: float = 1, k: int | None = None) -> float:
        """``1/p`` of the first ``rel(p) >= t`` within k, else 0 (conventions §4; trec_eval
        m_recip_rank.c). Also checked against trec_eval."""
        for p, label in enumerate(self._shown(k), start=1):
            if is_rel(label, rel):
                return 1.0 / p
        return 0.0

    def success(self, rel: float = 1, k: int | None = None) -> float:
        """1 when a row with ``rel >= t`` is among the top k, else 0 (trec_eval
        m_success.c). Also checked against trec_eval."""
        return float(any(is_rel(label, rel) for label in self._shown(k)))

    # --- user models ----------------------------------------------------------------------

    def err(self, k: int | None = None, max_rel: float = 4) -> float:
        """``ERR@k = sum_{p <= k} (1/p) R_p prod_{i < p} (1 - R_i)`` with
        ``R = (2^min(rel, m) - 1) / 2^m`` and ``R = 0`` for a label <= 0 or null (Chapelle
        et al., CIKM 2009; TREC's gdeval.pl).

        The ONLY reference on random tables (gdeval.pl runs in test_measures_err only with
        perl and ir_measures installed).
        """
        total, reached = 0.0, 1.0
        for p, label in enumerate(self._shown(k), start=1):
            grade = 0.0 if label is None or label <= 0 else min(label, max_rel)
            stop = (2.0**grade - 1) / 2**max_rel
            total += reached * stop / p
            reached *= 1.0 - stop
        return total

    def rbp(self, persistence: float = 0.8, rel: float = 1, k: int | None = None) -> float:
        """``RBP = (1 - P) sum_{p <= k, rel(p) >= t} P^(p-1)`` (Moffat and Zobel, TOIS 2008).

        The ONLY reference of RBP.
        """
        hits = [p for p, label in enumerate(self._shown(k)) if is_rel(label, rel)]
        return (1 - persistence) * sum(persistence**p for p in hits)

    def rbp_residual(self, persistence: float = 0.8, k: int | None = None) -> float:
        """``(1 - P) sum_{p <= d, unjudged} P^(p-1) + P^d``, d = ``min(k, N)`` the rows
        evaluated: the weight RBP could still gain (Moffat and Zobel, TOIS 2008).

        The ONLY reference of the RBP residual.
        """
        shown = self._shown(k)
        unjudged = [p for p, label in enumerate(shown) if label is None]
        beyond = persistence ** len(shown)
        return (1 - persistence) * sum(persistence**p for p in unjudged) + beyond

    def bpref(self, rel: float = 1) -> float:
        """``bpref = (1/R) sum_{relevant r retrieved} (1 - min(|n ranked above r|, R) /
        min(R, N))``, N the judged non-relevant rows (``0 <= label < t``); negative labels
        and unjudged rows are skipped, and a term is 1 when ``min(R, N) = 0`` (trec_eval
        m_bpref.c; Buckley and Voorhees, SIGIR 2004). Also checked against trec_eval.
        """
        big_r = self.n_rel(rel)
        if big_r == 0:
            return 0.0
        big_n = sum(1 for label in self.judged if 0 <= label < rel)
        scale = min(big_r, big_n)
        total, above = 0.0, 0
        for label in self.ranked:
            if label is None:
                continue
            if label >= rel:
                total += 1.0 if scale == 0 else 1.0 - min(above, big_r) / scale
            elif label >= 0:
                above += 1
        return total / big_r

    def judged_share(self, k: int | None = None) -> float:
        """``Judged@k``: the share of the top ``min(k, N)`` retrieved rows that are judged;
        0 when N = 0 (ir_measures' Judged). The ONLY reference of Judged@k."""
        shown = self._shown(k)
        return sum(label is not None for label in shown) / len(shown) if shown else 0.0


REFERENCE: dict[str, Callable[[RefQuery], float]] = {
    "ap": lambda q: q.ap(),
    "ap(rel=2)": lambda q: q.ap(2),
    "ap@3": lambda q: q.ap(1, 3),
    "mu_ap": lambda q: q.mu_ap("query"),
    "mu_ap(levels=table)": lambda q: q.mu_ap("table"),
    "mu_ap(levels=[1,2,3])": lambda q: q.mu_ap([1, 2, 3]),
    "mu_ap@3": lambda q: q.mu_ap("query", 3),
    "mu_ap(levels=table)@3": lambda q: q.mu_ap("table", 3),
    "ndcg": lambda q: q.ndcg(None, "exp"),
    "ndcg@3": lambda q: q.ndcg(3, "exp"),
    "ndcg(gain=linear)@2": lambda q: q.ndcg(2, "linear"),
    "ndcg(gain={1:3,2:1})": lambda q: q.ndcg(None, {1: 3, 2: 1}),
    "ndcng": lambda q: q.ndcng(),
    "ndcng@3": lambda q: q.ndcng(3),
    "dcg@3": lambda q: q.dcg(3, "exp", 2),
    "dcg(base=10)": lambda q: q.dcg(None, "exp", 10),
    "mean_ndcg": lambda q: q.mean_ndcg(),
    "mean_ndcg(gain=linear)": lambda q: q.mean_ndcg("linear"),
    "mean_ndcng": lambda q: q.mean_ndcng(),
    "p": lambda q: q.precision(None),
    "p@2": lambda q: q.precision(2),
    "p(rel=2)@3": lambda q: q.precision(3, 2),
    "recall@3": lambda q: q.recall(3),
    "recall": lambda q: q.recall(None),
    "r_precision": lambda q: q.r_precision(),
    "r_precision(rel=2)": lambda q: q.r_precision(2),
    "rr": lambda q: q.rr(),
    "rr@2": lambda q: q.rr(1, 2),
    "rr(rel=2)": lambda q: q.rr(2),
    "err": lambda q: q.err(),
    "err@3": lambda q: q.err(3),
    "err(max_rel=2)": lambda q: q.err(None, 2),
    "rbp": lambda q: q.rbp(),
    "rbp(p=0.5)@3": lambda q: q.rbp(0.5, 1, 3),
    "rbp(rel=2)": lambda q: q.rbp(0.8, 2),
    "rbp_residual": lambda q: q.rbp_residual(),
    "rbp_residual(p=0.5)@3": lambda q: q.rbp_residual(0.5, 3),
    "bpref": lambda q: q.bpref(),
    "bpref(rel=2)": lambda q: q.bpref(2),
    "judged": lambda q: q.judged_share(),
    "judged@3": lambda q: q.judged_share(3),
    "success": lambda q: q.success(),
    "success@2": lambda q: q.success(1, 2),
    "success(rel=2)@3": lambda q: q.success(2, 3),
}
"""Canonical measure name -> its oracle value on one query: a measure of every family, with
and without parameters and cutoffs."""

MEASURES = list(REFERENCE)
MONOTONE = [m for m in MEASURES if m != "ndcg(gain={1:3,2:1})" and "residual" not in m]
"""Measures that never fall when a higher label moves up (not the non-monotone gain mapping;
the RBP residual shrinks as judged rows move up)."""
ANTITONE = [m for m in MEASURES if "residual" in m]
"""Measures that never rise when a judged row moves up."""


# --- a whole table ------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One row of a query: its position in the table, item, score and label."""

    index: int
    item: Any  # str or int: the ids of one column compare with each other
    score: float | None
    label: Label

    @property
    def retrieved_score(self) -> float:
        """The score of a retrieved row (one with a score)."""
        assert self.score is not None, self
        return self.score


def read_queries(
    df: pl.DataFrame,
    by: Sequence[str] = (),
    *,
    query: str = "query",
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
) -> tuple[dict[Key, list[Row]], dict[Key, list[float]]]:
    """The rows of every ``(by..., query)`` key, and the distinct positive labels of every
    ``by`` group: conventions §3's "levels of the whole table", and conventions §6's "a table with
    by=system equals each system's slice alone"."""
    rows: dict[Key, list[Row]] = {}
    levels: dict[Key, set[float]] = {}
    for index, rec in enumerate(df.iter_rows(named=True)):
        group = tuple(rec[c] for c in by)
        key = (*group, rec[query])
        rows.setdefault(key, []).append(Row(index, rec[item], rec[score], rec[relevance]))
        label = rec[relevance]
        found = levels.setdefault(group, set())
        if label is not None and label > 0:
            found.add(label)
    return rows, {group: sorted(found) for group, found in levels.items()}


def trec_eval_order(rows: Sequence[Row], *, float32: bool = False) -> list[Row]:
    """conventions §2: the retrieved rows by score descending, ties by item descending; scores
    compared as float64 (trec_eval 10.0) or, with ``float32``, as float32 (9.x)."""
    retrieved = [r for r in rows if r.score is not None]
    retrieved.sort(key=lambda r: r.item, reverse=True)
    retrieved.sort(key=lambda r: compared(r.retrieved_score, float32=float32), reverse=True)
    return retrieved


def load(
    df: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    query: str = "query",
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    compat: str = "trec_eval_10",
) -> dict[Key, RefQuery]:
    """Every ``(by..., query)`` of the table as a :class:`RefQuery` in trec_eval's order,
    with its ``by`` group's levels as :attr:`RefQuery.table_levels`.

    ``compat``: the release whose score comparison ranks the rows (conventions §2):
    ``"trec_eval_10"`` (float64, the default) or ``"trec_eval_9"`` (float32).

    Scores 1000 and 1000 + 1e-9 differ as float64 but tie as float32, where item "b"
    (descending) comes first:

    >>> df = pl.DataFrame({"query": 1, "item": ["a", "b"], "score": [1000 + 1e-9, 1000.0],
    ...                    "relevance": [1, 0]})
    >>> load(df)[(1,)].ranked, load(df, compat="trec_eval_9")[(1,)].ranked
    ([1, 0], [0, 1])
    """
    float32 = uses_float32(compat)
    by_cols = [] if by is None else [by] if isinstance(by, str) else list(by)
    names = {"query": query, "item": item, "score": score, "relevance": relevance}
    rows, levels = read_queries(df, by_cols, **names)
    return {
        key: RefQuery(
            [r.label for r in trec_eval_order(query_rows, float32=float32)],
            [r.label for r in query_rows if r.label is not None],
            levels[key[: len(by_cols)]],
        )
        for key, query_rows in rows.items()
    }


# --- GAP and Q-measure (issue 16; polars_graded/measures/gap.py, q_measure.py) ------------


def gap_reference(
    q: RefQuery, g: Mapping[float, float] | None = None, k: int | None = None
) -> float:
    """GAP@k (Robertson, Kanoulas and Yilmaz, SIGIR 2010, with every relevant row counted):

    ``sum_{n <= k} (1/n) sum_{m <= n} G(min(l_m, l_n)) / sum_d G(l_d)``, ``G(x)`` the sum of
    ``g_t`` over the thresholds ``t <= x`` (0 for a null or a label below every threshold),
    ``d`` over every judged row; 0 when the denominator is 0. ``g``: threshold ->
    probability, or None for the query's levels, each ``1/m``. The ONLY reference of GAP
    (cross-checked by hand against the MATTERS toolkit's gradedAveragePrecision.m).
    """
    levels = q.query_levels()
    chosen = {t: 1.0 / len(levels) for t in levels} if g is None else dict(g)

    def mass(label: Label) -> float:
        if label is None:
            return 0.0
        return sum(p for t, p in chosen.items() if label >= t)

    denominator = sum(mass(label) for label in q.judged)
    if denominator <= 0:
        return 0.0
    shown = q._shown(k)
    numerator = 0.0
    for n, later in enumerate(shown, start=1):
        if mass(later) == 0:
            continue
        # G rises with the label: G(min(l_m, l_n)) = min(G(l_m), G(l_n)), 0 for a null
        numerator += sum(min(mass(earlier), mass(later)) for earlier in shown[:n]) / n
    return numerator / denominator


def q_measure_reference(
    q: RefQuery, beta: float = 1.0, gain: Gain = "linear", k: int | None = None
) -> float:
    """Q@k (Sakai 2004): ``(1/R) sum_{p <= k, rel(p) > 0} (C(p) + beta cg(p)) / (p + beta
    cg*(p))``, ``C(p)`` the rows with a label > 0 up to p, ``cg`` and ``cg*`` the cumulative
    gains of the ranking and of the ideal ranking (every judged row by gain descending),
    ``R`` the judged rows with a label > 0; gains only for labels > 0, never negative.
    The ONLY reference of Q-measure.
    """
    base = gain_function(gain)

    def gain_of(label: Label) -> float:
        return 0.0 if label is None or label <= 0 else max(base(label), 0.0)

    big_r = sum(1 for label in q.judged if label > 0)
    if big_r == 0:
        return 0.0
    ideal = sorted((gain_of(label) for label in q.judged), reverse=True)
    total, hits, cg, ideal_cg = 0.0, 0, 0.0, 0.0
    for p, label in enumerate(q._shown(k), start=1):
        cg += gain_of(label)
        ideal_cg += ideal[p - 1] if p <= len(ideal) else 0.0
        if label is not None and label > 0:
            hits += 1
            total += (hits + beta * cg) / (p + beta * ideal_cg)
    return total / big_r


GRADED_AP_REFERENCE: dict[str, Callable[[RefQuery], float]] = {
    "gap": gap_reference,
    "gap@3": lambda q: gap_reference(q, None, 3),
    "gap(g={1:0.25,2:0.75})@3": lambda q: gap_reference(q, {1: 0.25, 2: 0.75}, 3),
    "gap(g={0.5:1,2:3})": lambda q: gap_reference(q, {0.5: 1, 2: 3}),
    "q_measure": q_measure_reference,
    "q_measure(beta=0.5)@3": lambda q: q_measure_reference(q, 0.5, "linear", 3),
    "q_measure(gain={1:3,2:1})": lambda q: q_measure_reference(q, 1.0, {1: 3, 2: 1}),
}
"""GAP and Q-measure by canonical name; joined to :data:`REFERENCE` and its lists below."""
REFERENCE.update(GRADED_AP_REFERENCE)
MEASURES.extend(GRADED_AP_REFERENCE)
MONOTONE.extend(m for m in GRADED_AP_REFERENCE if "gain=" not in m)
