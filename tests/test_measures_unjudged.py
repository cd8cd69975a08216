"""unjudged@k (polars_graded/measures/unjudged.py), trec_eval 10.0's unj_k, which
pytrec_eval (9.0.x) lacks: by hand, against trec_eval 10.0's outputs, against a reference
count on random tables, and under every tie policy."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from support.oracle import Label
from support.tables import FrameKind
from support.trec_eval import (
    PRINTED,
    SYSTEMS,
    TOL,
    ours_on_files,
    random_table,
    small_tied_table,
    tie_averaged,
    trec_dicts,
    trec_eval_10,
)

CUTOFFS = (1, 5, 10, 20, 100)


def by_hand() -> pl.DataFrame:
    """Ranked: unjudged, 1, -1, 0, -2; one unretrieved row."""
    return pl.DataFrame(
        {"query": [1] * 6, "item": list("abcdef"),
         "score": [5.0, 4.0, 3.0, 2.0, 1.0, None], "relevance": [None, 1, -1, 0, -2, 1]}
    )  # fmt: skip


def test_unjudged_by_hand(frame_kind: FrameKind) -> None:
    """Unjudged: the null, the -1 and the -2 (3 of N = 5); k beyond N still divides by k."""
    expected = {"unjudged@1": 1.0, "unjudged@3": 2 / 3, "unjudged@10": 3 / 10, "unjudged": 3 / 5}
    got = frame_kind.collect(frame_kind(by_hand()).graded.evaluate(list(expected)))
    assert {m: got.item(0, m) for m in expected} == pytest.approx(expected, abs=1e-15)


def test_unjudged_under_tie_averaging() -> None:
    """Rows tied two by two: the top 1 holds, on average, half of a tied pair's unjudged."""
    df = by_hand().with_columns(score=pl.Series([2.0, 2.0, 1.0, 1.0, 0.5, None]))
    got = df.graded.evaluate(["unjudged@1", "unjudged@3"], ties="average").row(0)
    assert got == pytest.approx((1, 0.5, (1 + 0.5) / 3), abs=1e-15)


def test_unjudged_equals_trec_eval_10(shared_data: Callable[[str], Path]) -> None:
    for out, qrels in [("out.test.aq", "qrels.test"), ("out.test.aql", "qrels.rel_level")]:
        expected = trec_eval_10(
            shared_data, out, qrels, "results.test", wanted=lambda n: n.startswith("unj_")
        )
        assert len(expected) == 3 * 3
        ours = ours_on_files(shared_data, qrels, "results.test", {m for _, m in expected})
        assert {k: ours[k] for k in expected} == pytest.approx(expected, abs=PRINTED)


def test_unjudged_equals_a_reference_count() -> None:
    """m_unj.c: among the first k of trec_eval's ranking, rows absent from the qrels or with a
    negative label, over k. unj is trec_eval 10.0's: scores compared as float64 (by score
    descending, ties by item descending)."""
    table = random_table(99)
    names = [f"unjudged@{k}" for k in CUTOFFS]
    per_query = table.graded.evaluate(names, by="system")
    ours = {(r["system"], r["query"]): r for r in per_query.iter_rows(named=True)}
    checked = 0
    for system in SYSTEMS:
        qrels, run = trec_dicts(table, system)
        for query, scores in run.items():
            items = sorted(scores, reverse=True)
            items.sort(key=lambda item: -scores[item])
            judged = qrels.get(query, {})
            unjudged = [judged.get(item, -1) < 0 for item in items]
            for k, name in zip(CUTOFFS, names, strict=True):
                assert ours[system, query][name] == pytest.approx(sum(unjudged[:k]) / k, abs=TOL)
            checked += 1
    assert checked >= 400


@pytest.mark.parametrize("k", [1, 3, 10])
def test_tie_average_equals_the_mean_over_orders(k: int) -> None:
    df = small_tied_table(32)

    def reference(ranked: list[Label], judged: list[float]) -> float:
        return sum(1 for x in ranked[:k] if x is None or x < 0) / k

    expected = tie_averaged(df, reference)
    got = dict(df.graded.evaluate([f"unjudged@{k}"], ties="average").iter_rows())
    assert got == pytest.approx(expected, abs=1e-12)
