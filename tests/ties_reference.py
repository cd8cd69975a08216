"""A brute-force reference for the tie policies (``ties=``), on top of tests/reference.py.

Plain Python, nothing imported from polars_graded. Each (by..., query) of a table is read
into its rows; the retrieved rows (score not null) are sorted by float32 score descending
and cut into tie groups (maximal runs of equal float32 scores, SPEC §2). Then:

- ``"trec_eval"``: within a group, item descending (what :func:`reference.load` does);
- ``"input"``: within a group, the order of the rows in the table;
- ``"optimistic"``: higher label first, null (unjudged) last, then item descending;
- ``"pessimistic"``: lower label first, null (unjudged) first, then item descending;
- ``"average"``: the mean of the measure over ALL orderings of every tie group
  (``itertools.permutations`` per group, ``itertools.product`` over the groups), each
  ordering scored by :class:`reference.RefQuery` exactly as an ordinary ranked list.

Unretrieved rows (null score) are in no tie group: they only count in the judgments, so the
ideal ranking and R do not depend on the policy.

Usage::

    expected = policy_values(df, ["ap", "ndcg@3"], "average", by=["system"])
    expected[(0, 17)]["ap"]   # system 0, query 17
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

try:  # tests/ as a package or as a rootdir on sys.path
    from tests.reference import Label, RefQuery, f32
except ImportError:
    from reference import Label, RefQuery, f32

POLICIES = ("trec_eval", "input", "optimistic", "pessimistic", "average")

# canonical measure name -> the reference's value of one ranked query
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
}


# --- measures that tests/reference.py does not have ------------------------------------------
# Written from their definitions (ERR: Chapelle et al. 2009, as TREC's gdeval; RBP: Moffat
# and Zobel 2008; bpref, success: trec_eval; Judged@k: ir_measures), on the same RefQuery.


def err(q: RefQuery, k: int | None = None, max_rel: float = 4) -> float:
    """``sum_{p <= k} (1/p) R_p prod_{i < p} (1 - R_i)``, ``R = (2^min(rel, m) - 1) / 2^m``."""
    total, reached = 0.0, 1.0
    for p, label in enumerate(q.ranked[:k], start=1):
        stop = 0.0 if label is None or label <= 0 else (2.0 ** min(label, max_rel) - 1) / 2**max_rel
        total += reached * stop / p
        reached *= 1.0 - stop
    return total


def rbp(q: RefQuery, persistence: float = 0.8, rel: float = 1, k: int | None = None) -> float:
    """``(1 - P) sum_{p <= k, rel(p) >= t} P^(p-1)``."""
    hits = [p for p, label in enumerate(q.ranked[:k]) if label is not None and label >= rel]
    return (1 - persistence) * sum(persistence**p for p in hits)


def rbp_residual(q: RefQuery, persistence: float = 0.8, k: int | None = None) -> float:
    """``(1 - P) sum_{p <= d, unjudged} P^(p-1) + P^d``, d the rows evaluated."""
    shown = q.ranked[:k]
    unjudged = [p for p, label in enumerate(shown) if label is None]
    return (1 - persistence) * sum(persistence**p for p in unjudged) + persistence ** len(shown)


def bpref(q: RefQuery, rel: float = 1) -> float:
    """trec_eval's bpref: judged non-relevant means ``0 <= label < rel``; negatives skipped."""
    big_r = q.n_rel(rel)
    if big_r == 0:
        return 0.0
    big_n = sum(1 for label in q.judged if 0 <= label < rel)
    scale = min(big_r, big_n)
    total, above = 0.0, 0
    for label in q.ranked:
        if label is None:
            continue
        if label >= rel:
            total += 1.0 if scale == 0 else 1.0 - min(above, big_r) / scale
        elif label >= 0:
            above += 1
    return total / big_r


def judged_share(q: RefQuery, k: int | None = None) -> float:
    """The share of the top ``min(k, N)`` retrieved rows that are judged; 0 when N = 0."""
    shown = q.ranked[:k]
    return sum(label is not None for label in shown) / len(shown) if shown else 0.0


def success(q: RefQuery, rel: float = 1, k: int | None = None) -> float:
    """1 when a row with label >= rel is among the top k, else 0."""
    return float(any(label is not None and label >= rel for label in q.ranked[:k]))


EXTRA_REFERENCE: dict[str, Callable[[RefQuery], float]] = {
    "err": err,
    "err@3": lambda q: err(q, 3),
    "err(max_rel=2)": lambda q: err(q, None, 2),
    "rbp": rbp,
    "rbp(p=0.5)@3": lambda q: rbp(q, 0.5, 1, 3),
    "rbp(rel=2)": lambda q: rbp(q, 0.8, 2),
    "rbp_residual": rbp_residual,
    "rbp_residual(p=0.5)@3": lambda q: rbp_residual(q, 0.5, 3),
    "bpref": bpref,
    "bpref(rel=2)": lambda q: bpref(q, 2),
    "judged": judged_share,
    "judged@3": lambda q: judged_share(q, 3),
    "success": success,
    "success@2": lambda q: success(q, 1, 2),
    "success(rel=2)@3": lambda q: success(q, 2, 3),
}
REFERENCE.update(EXTRA_REFERENCE)

MEASURES = list(REFERENCE)
# measures that do not fall when a higher label moves up: optimistic >= average >= pessimistic
# (not the non-monotone gain mapping; the RBP residual shrinks as judged rows move up)
MONOTONE = [m for m in MEASURES if m != "ndcg(gain={1:3,2:1})" and "residual" not in m]
# measures that do not rise when a judged row moves up: optimistic <= average <= pessimistic
ANTITONE = [m for m in MEASURES if "residual" in m]


@dataclass(frozen=True)
class Row:
    """One row of a query: its position in the table, item, score and label."""

    index: int
    item: object
    score: float | None
    label: Label


# --- tie groups and the orders within them --------------------------------------------------


def tie_groups(rows: Sequence[Row]) -> list[list[Row]]:
    """The retrieved rows by float32 score descending, cut into runs of equal float32 scores.

    Within a group the rows are in table order (the policies reorder them).
    """
    retrieved = sorted((r for r in rows if r.score is not None), key=lambda r: -f32(r.score))
    groups: list[list[Row]] = []
    for _, run in itertools.groupby(retrieved, key=lambda r: f32(r.score)):
        groups.append(sorted(run, key=lambda r: r.index))
    return groups


def _label_key(label: Label, *, null_value: float) -> float:
    return null_value if label is None else float(label)


def within_tie(group: Sequence[Row], ties: str) -> list[Row]:
    """One tie group in the order the (deterministic) policy ``ties`` gives it."""
    by_item = sorted(group, key=lambda r: r.item, reverse=True)  # type: ignore[arg-type, return-value]
    if ties == "trec_eval":
        return by_item
    if ties == "input":
        return sorted(group, key=lambda r: r.index)
    if ties == "optimistic":  # stable sort: item descending stays the secondary key
        return sorted(by_item, key=lambda r: -_label_key(r.label, null_value=-float("inf")))
    if ties == "pessimistic":
        return sorted(by_item, key=lambda r: _label_key(r.label, null_value=-float("inf")))
    msg = f"not a deterministic tie policy: {ties!r}"
    raise ValueError(msg)


def policy_order(rows: Sequence[Row], ties: str) -> list[Row]:
    """The retrieved rows of one query in ranked order under a deterministic policy."""
    return [r for group in tie_groups(rows) for r in within_tie(group, ties)]


def all_orderings(rows: Sequence[Row]) -> Counter[tuple[Label, ...]]:
    """Every ordering of every tie group (product over the groups), as ranked label lists.

    Orderings that give the same label list are counted, not dropped, so the mean over the
    counter (weighted by the counts) is the mean over all ``prod(len(group)!)`` orderings.
    """
    groups = tie_groups(rows)
    per_group = [list(itertools.permutations([r.label for r in g])) for g in groups]
    out: Counter[tuple[Label, ...]] = Counter()
    for choice in itertools.product(*per_group):
        out[tuple(label for perm in choice for label in perm)] += 1
    return out


def distinct_orderings(labels: Sequence[Label]) -> list[tuple[Label, ...]]:
    """The distinct arrangements of a multiset of labels, for tie groups too big for
    :func:`all_orderings`: each is the label list of the same number of permutations, so
    their plain mean is the mean over all orderings."""
    counts = Counter(labels)
    out: list[tuple[Label, ...]] = []

    def extend(prefix: tuple[Label, ...]) -> None:
        if len(prefix) == len(labels):
            out.append(prefix)
            return
        for label, left in counts.items():
            if left:
                counts[label] -= 1
                extend((*prefix, label))
                counts[label] += 1

    extend(())
    return out


# --- a whole table ------------------------------------------------------------------------


def read_queries(
    df: pl.DataFrame, by: Sequence[str] = ()
) -> tuple[dict[tuple, list[Row]], dict[tuple, list[float]]]:
    """The rows of every (by..., query) key, and the positive labels of every by group."""
    rows: dict[tuple, list[Row]] = {}
    levels: dict[tuple, set[float]] = {}
    for index, rec in enumerate(df.iter_rows(named=True)):
        group = tuple(rec[c] for c in by)
        key = (*group, rec["query"])
        rows.setdefault(key, []).append(Row(index, rec["item"], rec["score"], rec["relevance"]))
        label = rec["relevance"]
        found = levels.setdefault(group, set())
        if label is not None and label > 0:
            found.add(label)
    return rows, {group: sorted(found) for group, found in levels.items()}


def policy_values(
    df: pl.DataFrame, measures: Sequence[str], ties: str, by: Sequence[str] = ()
) -> dict[tuple, dict[str, float]]:
    """``{(by..., query): {measure: value}}`` under tie policy ``ties`` (a name in POLICIES).

    ``measures`` are canonical names, keys of :data:`REFERENCE`.
    """
    rows, levels = read_queries(df, by)
    out: dict[tuple, dict[str, float]] = {}
    for key, query_rows in rows.items():
        judged = [r.label for r in query_rows if r.label is not None]
        table_levels = levels[key[: len(by)]]

        def score(ranked: Sequence[Label], name: str) -> float:
            return REFERENCE[name](RefQuery(list(ranked), judged, table_levels))  # noqa: B023

        if ties == "average":
            orderings = all_orderings(query_rows)
            total = sum(orderings.values())
            out[key] = {
                name: sum(n * score(ranked, name) for ranked, n in orderings.items()) / total
                for name in measures
            }
        else:
            ranked = [r.label for r in policy_order(query_rows, ties)]
            out[key] = {name: score(ranked, name) for name in measures}
    return out
