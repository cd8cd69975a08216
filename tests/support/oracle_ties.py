"""The oracle of the tie policies (``ties=``): expected values by enumeration (not a test).

Plain Python on top of :mod:`support.oracle`, nothing imported from polars_graded. Each
``(by..., query)`` of a table is read into its rows; the retrieved rows (score not null) are
sorted by score descending and cut into tie groups (maximal runs of equal scores, conventions §2):
scores compared as float64, as trec_eval 10.0 does (the default), or as float32 with
``compat="trec_eval_9"`` (9.x and pytrec_eval), where scores equal in their first ~7
significant digits tie. Then:

- ``"trec_eval"``: within a group, item descending (:func:`support.oracle.trec_eval_order`);
- ``"input"``: within a group, the order of the rows in the table;
- ``"optimistic"``: higher label first, null (unjudged) last, then item descending;
- ``"pessimistic"``: lower label first, null (unjudged) first, then item descending;
- ``"average"``: the mean of the measure over ALL orderings of every tie group
  (``itertools.permutations`` per group, ``itertools.product`` over the groups), each
  ordering scored by :class:`support.oracle.RefQuery` exactly as an ordinary ranked list (the
  expected value of McSherry and Najork, ECIR 2008).

Unretrieved rows (null score) are in no tie group: they only count in the judgments, so the
ideal ranking and R do not depend on the policy.

This is the ONLY reference of every measure under ``"input"``, ``"optimistic"``,
``"pessimistic"`` and ``"average"`` (trec_eval knows one order of tied rows); test_ties
reaches the three deterministic orders a second way, by rewriting item ids, and checks a
few ``"average"`` values by hand.

Usage::

    expected = policy_values(df, ["ap", "ndcg@3"], "average", by=["system"])
    expected[(0, 17)]["ap"]   # system 0, query 17
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Literal

import polars as pl

from support.oracle import (
    REFERENCE,
    Key,
    Label,
    RefQuery,
    Row,
    compared,
    read_queries,
    uses_float32,
)

Policy = Literal["trec_eval", "input", "optimistic", "pessimistic", "average"]
POLICIES: tuple[Policy, ...] = ("trec_eval", "input", "optimistic", "pessimistic", "average")
"""The tie policies, written here from their definitions (not read from the library)."""


def tie_groups(rows: Sequence[Row], *, float32: bool = False) -> list[list[Row]]:
    """The retrieved rows by score descending, cut into runs of equal scores: compared as
    float64 (trec_eval 10.0), or with ``float32`` as float32 (9.x).

    Within a group the rows are in table order (the policies reorder them).

    >>> rows = [Row(0, "a", 1000 + 1e-9, 1), Row(1, "b", 1000.0, 0)]
    >>> [[r.item for r in g] for g in tie_groups(rows)]
    [['a'], ['b']]
    >>> [[r.item for r in g] for g in tie_groups(rows, float32=True)]
    [['a', 'b']]
    """
    scored = [(compared(r.score, float32=float32), r) for r in rows if r.score is not None]
    scored.sort(key=lambda pair: -pair[0])  # stable: table order within a score
    return [
        sorted((r for _, r in run), key=lambda r: r.index)
        for _, run in itertools.groupby(scored, key=lambda pair: pair[0])
    ]


def _label_key(label: Label) -> float:
    """A label to sort by; an unjudged row below every label."""
    return -float("inf") if label is None else float(label)


def within_tie(group: Sequence[Row], ties: str) -> list[Row]:
    """One tie group in the order the (deterministic) policy ``ties`` gives it."""
    by_item = sorted(group, key=lambda r: r.item, reverse=True)
    if ties == "trec_eval":
        return by_item
    if ties == "input":
        return sorted(group, key=lambda r: r.index)
    if ties == "optimistic":  # stable sort: item descending stays the secondary key
        return sorted(by_item, key=lambda r: -_label_key(r.label))
    if ties == "pessimistic":
        return sorted(by_item, key=lambda r: _label_key(r.label))
    msg = f"not a deterministic tie policy: {ties!r}"
    raise ValueError(msg)


def policy_order(rows: Sequence[Row], ties: str, *, float32: bool = False) -> list[Row]:
    """The retrieved rows of one query in ranked order under a deterministic policy (tie
    groups as :func:`tie_groups` cuts them)."""
    return [r for group in tie_groups(rows, float32=float32) for r in within_tie(group, ties)]


def all_orderings(rows: Sequence[Row], *, float32: bool = False) -> Counter[tuple[Label, ...]]:
    """Every ordering of every tie group (product over the groups), as ranked label lists.

    Orderings that give the same label list are counted, not dropped, so the mean over the
    counter (weighted by the counts) is the mean over all ``prod(len(group)!)`` orderings.
    """
    groups = tie_groups(rows, float32=float32)
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


def policy_values(
    df: pl.DataFrame,
    measures: Sequence[str],
    ties: str,
    by: Sequence[str] = (),
    *,
    compat: str = "trec_eval_10",
) -> dict[Key, dict[str, float]]:
    """``{(by..., query): {measure: value}}`` under tie policy ``ties`` (a name in POLICIES).

    ``measures`` are canonical names, keys of :data:`oracle.REFERENCE`; ``compat`` the
    release whose score comparison makes the tie groups (:func:`oracle.uses_float32`).

    Three tied rows, the relevant one at position 1, 2 or 3 in two of the six orders each:
    the expected AP is (1 + 1/2 + 1/3) / 3 = 11/18.

    >>> df = pl.DataFrame(
    ...     {"query": 1, "item": ["a", "b", "c"], "score": 1.0, "relevance": [1, 0, 0]}
    ... )
    >>> round(policy_values(df, ["ap"], "average")[(1,)]["ap"], 6), round(11 / 18, 6)
    (0.611111, 0.611111)
    >>> policy_values(df, ["ap"], "trec_eval")[(1,)]["ap"]  # c, b, a: a last
    0.3333333333333333
    """
    float32 = uses_float32(compat)
    rows, levels = read_queries(df, by)
    out: dict[Key, dict[str, float]] = {}
    for key, query_rows in rows.items():
        judged = [r.label for r in query_rows if r.label is not None]
        table_levels = levels[key[: len(by)]]

        def score(ranked: Sequence[Label], name: str) -> float:
            return REFERENCE[name](RefQuery(list(ranked), judged, table_levels))  # noqa: B023

        if ties == "average":
            orderings = all_orderings(query_rows, float32=float32)
            total = sum(orderings.values())
            out[key] = {
                name: sum(n * score(ranked, name) for ranked, n in orderings.items()) / total
                for name in measures
            }
        else:
            ranked = [r.label for r in policy_order(query_rows, ties, float32=float32)]
            out[key] = {name: score(ranked, name) for name in measures}
    return out
