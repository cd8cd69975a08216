"""Precision, recall and R-precision (polars_graded/measures/precision.py) by hand, as
trec_eval's ``P``, ``set_P``, ``recall`` and ``Rprec`` define them: P@k divides by k even
beyond the ranking, recall and R-precision count every judged relevant row. ``hits@k`` as
ranx defines it (ranx/metrics/hits.py) and as pytrec_eval's ``P_k`` times k.

Also checked against trec_eval on random tables (test_trec_eval_differential), the oracle
(test_bruteforce) and under every tie policy (test_ties).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from support.oracle import Label
from support.trec_eval import (
    PRINTED,
    mismatches,
    ours_on_files,
    pytrec_values,
    random_table,
    small_tied_table,
    tie_averaged,
    trec_eval_10,
)

import polars_graded as pg
from polars_graded.options import TiePolicy


def test_precision_recall_and_r_precision_by_hand() -> None:
    """Ranked labels 1, 0, 2, unjudged, 1; judged rows nobody retrieved: 2 and 0.

    R^1 = 4 (1, 2, 1, 2), R^2 = 2. P@2 = 1/2, P@5 = 3/5, P@10 = 3/10, P (all N = 5) = 3/5,
    P(rel=2)@3 = 1/3. Recall@3 = 2/4, recall = 3/4, recall(rel=2) = 1/2.
    R-precision = P@4 = 2/4; at rel=2, P@2 = 0 (labels 1 and 0 on top).
    """
    df = pl.DataFrame(
        {"query": [1] * 7, "item": list("abcdefg"),
         "score": [5.0, 4.0, 3.0, 2.0, 1.0, None, None],
         "relevance": [1, 0, 2, None, 1, 2, 0]}
    )  # fmt: skip
    expected = {
        "p@2": 1 / 2,
        "p@5": 3 / 5,
        "p@10": 3 / 10,
        "p": 3 / 5,
        "p(rel=2)@3": 1 / 3,
        "recall@3": 2 / 4,
        "recall": 3 / 4,
        "recall(rel=2)": 1 / 2,
        "r_precision": 2 / 4,
        "r_precision(rel=2)": 0.0,
    }
    got = df.graded.evaluate(list(expected)).row(0, named=True)
    assert {m: got[m] for m in expected} == pytest.approx(expected, abs=1e-15)


# Relative P@k (capped recall) and R-precision at multiples of R (issue 16).


def test_relative_precision_and_r_precision_mult_by_hand() -> None:
    """The table above: ranked 1, 0, 2, unjudged, 1 (N = 5), R = 4, R^2 = 2.

    relative P@2 = 1 / min(4, 2), @10 = 3 / min(4, 10), without k = 3 / min(4, 5);
    rel=2 @3: 1 / min(2, 3). R-precision at 0.5 R: cutoff floor(2 + 0.9) = 2 -> 1/2;
    at 0.3 R: floor(1.2 + 0.9) = 2 -> 1/2; at 2 R: cutoff 8 beyond N -> 3/8.
    """
    df = pl.DataFrame(
        {"query": [1] * 7, "item": list("abcdefg"),
         "score": [5.0, 4.0, 3.0, 2.0, 1.0, None, None],
         "relevance": [1, 0, 2, None, 1, 2, 0]}
    )  # fmt: skip
    expected = {
        "relative_p@2": 1 / 2,
        "relative_p@10": 3 / 4,
        "relative_p": 3 / 4,
        "relative_p(rel=2)@3": 1 / 2,
        "r_precision(mult=0.5)": 1 / 2,
        "r_precision(mult=0.3)": 1 / 2,
        "r_precision(mult=2)": 3 / 8,
    }
    got = df.graded.evaluate(list(expected)).row(0, named=True)
    assert {m: got[m] for m in expected} == pytest.approx(expected, abs=1e-15)
    assert str(pg.parse_measure("recall_capped@10")) == "relative_p@10"
    assert str(pg.parse_measure("r_precision(mult=1)")) == "r_precision"


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return random_table(2016)


@pytest.mark.parametrize("rel", [1, 2])
def test_relative_p_and_rprec_mult_equal_pytrec_eval(table: pl.DataFrame, rel: int) -> None:
    """trec_eval 9.0.x and 10.0 compute Rprec_mult alike (10.0's outputs show it)."""
    expected = pytrec_values(
        table, {"relative_P.1,5,10,20,100", "set_relative_P", "Rprec_mult"}, rel
    )
    assert not mismatches(table, expected)


def test_relative_p_and_rprec_mult_equal_trec_eval_10(shared_data: Callable[[str], Path]) -> None:
    for out, qrels, rel in [
        ("out.test.aq", "qrels.test", 1),
        ("out.test.aql", "qrels.rel_level", 2),
        ("out.test.meas_params", "qrels.test", 1),
    ]:
        expected = trec_eval_10(
            shared_data,
            out,
            qrels,
            "results.test",
            wanted=lambda n: n.startswith(("relative_P_", "Rprec_mult_")),
            rel=rel,
        )
        assert len(expected) >= 3 * 3
        ours = ours_on_files(shared_data, qrels, "results.test", {m for _, m in expected})
        assert {k: ours[k] for k in expected} == pytest.approx(expected, abs=PRINTED)


@pytest.mark.parametrize("ties", ["average", "optimistic", "input"])
def test_relative_p_and_rprec_mult_under_tie_policies(table: pl.DataFrame, ties: TiePolicy) -> None:
    """Both add a value per position: under ties="average" the mean over each tie group;
    with no ties left (distinct scores) every policy gives trec_eval's numbers."""
    names = ["relative_p@5", "relative_p", "r_precision(mult=0.4)", "r_precision(mult=2)"]
    out = table.graded.evaluate(names, by="system", ties=ties)
    assert out.select(pl.all_horizontal(pl.col(names).is_finite())).to_series().all()
    distinct = table.with_columns(score=pl.int_range(pl.len()).cast(pl.Float64))
    same = distinct.graded.evaluate(names, by="system", ties=ties)
    assert same.equals(distinct.graded.evaluate(names, by="system"))


def _relative_p(k: int, rel: float) -> Callable[[list[Label], list[float]], float]:
    def value(ranked: list[Label], judged: list[float]) -> float:
        n_relevant = sum(1 for x in judged if x >= rel)
        found = sum(1 for x in ranked[:k] if x is not None and x >= rel)
        return found / min(n_relevant, k) if n_relevant else 0.0

    return value


def _r_precision_mult(mult: float) -> Callable[[list[Label], list[float]], float]:
    def value(ranked: list[Label], judged: list[float]) -> float:
        cutoff = int(mult * sum(1 for x in judged if x >= 1) + 0.9)
        found = sum(1 for x in ranked[:cutoff] if x is not None and x >= 1)
        return found / cutoff if cutoff else 0.0

    return value


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("relative_p@3", _relative_p(3, 1)),
        ("relative_p(rel=2)@2", _relative_p(2, 2)),
        ("r_precision(mult=0.6)", _r_precision_mult(0.6)),
        ("r_precision(mult=1.8)", _r_precision_mult(1.8)),
    ],
)
def test_tie_average_equals_the_mean_over_orders(
    name: str, reference: Callable[[list[Label], list[float]], float]
) -> None:
    df = small_tied_table(31)
    expected = tie_averaged(df, reference)
    got = dict(df.graded.evaluate([name], ties="average").iter_rows())
    assert got == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------- hits


def ranx_hits(run: list[str], qrels: dict[str, int], k: int, rel_lvl: int) -> float:
    """ranx's ``_hits`` (ranx/metrics/hits.py): the qrels keep labels >= rel_lvl; 0 without
    one; else the first k run documents found among them (k = 0 or past the run: all)."""
    relevant = {doc for doc, label in qrels.items() if label >= rel_lvl}
    if not relevant:
        return 0.0
    return float(sum(doc in relevant for doc in run[: k or len(run)]))


@pytest.mark.parametrize("rel", [1, 2])
def test_hits_equals_ranx_definition_and_k_times_pytrec_evals_p(
    table: pl.DataFrame, rel: int
) -> None:
    """On the random table (ties, unjudged and unretrieved rows, empty queries) under
    ``compat="trec_eval_9"``: ranx's count over the run in trec_eval 9.x's order (scores as
    float32, descending; ties by document id descending), and pytrec_eval's ``P_k`` (which
    divides by k even past the ranking) times k."""
    cutoffs = (1, 5, 10, 100)
    suffix = "" if rel == 1 else f"(rel={rel})"
    names = {k: f"hits{suffix}@{k}" for k in (*cutoffs, 0)}
    names[0] = f"hits{suffix}"  # no cutoff: ranx's k = 0
    got = table.graded.evaluate(list(names.values()), by="system", compat="trec_eval_9")
    rows = {(row["system"], row["query"]): row for row in got.iter_rows(named=True)}

    order = table.filter(pl.col("score").is_not_null()).sort(
        pl.col("score").cast(pl.Float32), "item", descending=True
    )
    runs: dict[tuple[str, str], list[str]] = {key: [] for key in rows}
    for system, query, item in order.select("system", "query", "item").iter_rows():
        runs[system, query].append(item)
    qrels: dict[tuple[str, str], dict[str, int]] = {key: {} for key in rows}
    judged = table.filter(pl.col("relevance").is_not_null())
    for system, query, item, label in judged.select(
        "system", "query", "item", "relevance"
    ).iter_rows():
        qrels[system, query][item] = label
    for key, row in rows.items():
        for k, name in names.items():
            assert row[name] == ranx_hits(runs[key], qrels[key], k, rel), (key, name)

    expected = pytrec_values(table, {"P.1,5,10,100"}, rel)
    for key, values in expected.items():
        for k in cutoffs:
            want = k * values[f"p{suffix}@{k}"]
            assert rows[key][names[k]] == pytest.approx(want, abs=1e-9)
    assert sum(row[names[10]] for row in rows.values()) > 100


def test_hits_under_average_ties_is_k_times_p() -> None:
    """Under ``ties="average"`` both are the mean over each tie group, so still k * P@k."""
    df = small_tied_table(5)
    got = df.graded.evaluate(["hits@3", "p@3"], ties="average")
    assert got["hits@3"].to_list() == pytest.approx((3 * got["p@3"]).to_list(), abs=1e-12)
