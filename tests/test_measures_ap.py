"""AP (polars_graded/measures/ap.py) by hand, as trec_eval's ``map`` and ``map_cut`` define
it: R counts every judged relevant row, retrieved or not, and a cutoff keeps R; and
``ap(norm=min_rk)@k`` as Spark MLlib's ``RankingMetrics.meanAveragePrecisionAt`` defines it
(its Scala source, and pytrec_eval's ``map_cut`` times R / min(R, k); pyspark itself in
test_spark).

Also checked against trec_eval on random tables (test_trec_eval_differential), the oracle
(test_bruteforce), under every tie policy (test_ties) and the paper's Table 1
(test_paper_tables).
"""

from __future__ import annotations

from collections import defaultdict

import polars as pl
import pytest
from support.trec_eval import PYTREC_EVAL, SYSTEMS, pytrec_values, random_table

import polars_graded as pg


def one_query(ranked: list[int | None], unretrieved: list[int]) -> pl.DataFrame:
    """One query: ``ranked`` labels in ranked order (scores n..1), then judged rows nobody
    retrieved (null score)."""
    n = len(ranked)
    labels = [*ranked, *unretrieved]
    return pl.DataFrame(
        {
            "query": [1] * len(labels),
            "item": [f"d{i}" for i in range(len(labels))],
            "score": [float(n - i) for i in range(n)] + [None] * len(unretrieved),
            "relevance": labels,
        },
        schema_overrides={"relevance": pl.Int64},
    )


def test_ap_by_hand() -> None:
    """Ranked labels 1, 0, 2, 0, 1 and a relevant row not retrieved: R = 4, hits at 1, 3, 5.

    AP = (1/1 + 2/3 + 3/5) / 4 = 17/30; at rel=2 the 2 alone (R = 1) at 3: 1/3; AP@3 keeps
    R = 4: (1 + 2/3) / 4 = 5/12.
    """
    df = one_query([1, 0, 2, 0, 1], [1])
    got = df.graded.evaluate(["ap", "ap(rel=2)", "ap@3"]).row(0, named=True)
    assert got["ap"] == pytest.approx(17 / 30, abs=1e-15)
    assert got["ap(rel=2)"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["ap@3"] == pytest.approx(5 / 12, abs=1e-15)


def test_ap_without_a_relevant_row_is_zero() -> None:
    """R = 0: trec_eval's 0, not NaN (conventions §4)."""
    df = one_query([0, -1, None], [0])
    assert df.graded.evaluate(["ap", "ap@2"]).row(0) == (1, 0.0, 0.0)


# --------------------------------------------------------------------------- norm=min_rk


def test_min_rk_by_hand() -> None:
    """The table of test_ap_by_hand (R = 4, hits at 1, 3, 5): AP@3 over min(4, 3) is
    (1 + 2/3) / 3 = 5/9; AP@10 over min(4, 10) = 4 is plain AP, 17/30; without a cutoff, AP."""
    df = one_query([1, 0, 2, 0, 1], [1])
    names = ["ap(norm=min_rk)@3", "ap(norm=min_rk)@10", "ap(norm=min_rk)"]
    got = df.graded.evaluate([*names, "ap(norm=min_rk,rel=2)@1"]).row(0, named=True)
    assert got["ap(norm=min_rk)@3"] == pytest.approx(5 / 9, abs=1e-15)
    assert got["ap(norm=min_rk)@10"] == pytest.approx(17 / 30, abs=1e-15)
    assert got["ap(norm=min_rk)"] == pytest.approx(17 / 30, abs=1e-15)
    assert got["ap(norm=min_rk,rel=2)@1"] == 0.0  # the 2 is at 3


def spark_average_precision(pred: list[str], lab: set[str], k: int) -> float:
    """Spark MLlib's ``RankingMetrics.averagePrecision`` (mllib/evaluation/RankingMetrics.scala),
    line for line: the first min(k, |pred|) predictions, precision at each hit, over
    min(|lab|, k); 0 for an empty ground truth set."""
    if not lab:
        return 0.0
    count, total = 0, 0.0
    for i in range(min(k, len(pred))):
        if pred[i] in lab:
            count += 1
            total += count / (i + 1)
    return total / min(len(lab), k)


@pytest.mark.parametrize(("k", "rel"), [(1, 1), (5, 1), (10, 2), (100, 1)])
def test_min_rk_equals_sparks_definition(k: int, rel: int) -> None:
    """On the random table with distinct scores (Spark takes a ranked list, no ties): the
    ranking is ``pred``, the judged rows with a label >= rel are ``lab``."""
    table = random_table(7, queries=120)
    distinct = pl.int_range(pl.len()).cast(pl.Float64)
    table = table.with_columns(score=pl.when(pl.col("score").is_not_null()).then(distinct))
    pred: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
    lab: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    ranked = table.filter(pl.col("score").is_not_null()).sort("score", descending=True)
    for system, query, item in ranked.select("system", "query", "item").iter_rows():
        pred[system, query].append(item)
    relevant = table.filter(pl.col("relevance") >= rel)
    for system, query, item in relevant.select("system", "query", "item").iter_rows():
        lab[system, query].add(item)
    name = f"ap(norm=min_rk,rel={rel})@{k}" if rel != 1 else f"ap(norm=min_rk)@{k}"
    got = {(s, q): v for s, q, v in table.graded.evaluate([name], by="system").iter_rows()}
    expected = {key: spark_average_precision(pred[key], lab[key], k) for key in got}
    assert got == pytest.approx(expected, abs=1e-12)
    assert sum(v > 0 for v in got.values()) > 50  # not a table of zeros


@pytest.mark.parametrize("rel", [1, 2])
def test_min_rk_is_pytrec_evals_map_cut_times_r_over_min_r_k(rel: int) -> None:
    """trec_eval 9.x's ``map_cut_k`` (divides by R) times R / min(R, k), R its ``num_rel``;
    on the random table with ties, unjudged and unretrieved rows (trec_eval_9's ties)."""
    table = random_table(2025, queries=120)
    expected = pytrec_values(table, {"map_cut.5,10,100", "num_rel"}, rel)
    suffix = "" if rel == 1 else f",rel={rel}"
    names = {k: f"ap(norm=min_rk{suffix})@{k}" for k in (5, 10, 100)}
    got = table.graded.evaluate(list(names.values()), by="system", compat=PYTREC_EVAL)
    rows = {(row["system"], row["query"]): row for row in got.iter_rows(named=True)}
    checked = 0
    for key, values in expected.items():
        n_relevant = values[f"num_rel{'' if rel == 1 else f'(rel={rel})'}"]
        for k, name in names.items():
            ap_at_k = values[f"ap{'' if rel == 1 else f'(rel={rel})'}@{k}"]
            want = ap_at_k * n_relevant / min(n_relevant, k) if n_relevant else 0.0
            assert rows[key][name] == pytest.approx(want, abs=1e-12), (key, name)
            checked += want > 0
    assert checked > 100 and {s for s, _ in expected} == set(SYSTEMS)


def test_min_rk_under_average_ties_is_linear_in_the_sum() -> None:
    """The divisor min(R, k) does not depend on the order of tied rows, so under
    ``ties="average"`` AP(norm=min_rk)@k is AP@k times R / min(R, k), as for one order."""
    table = random_table(11, queries=60).with_columns(pl.col("score").round(0))
    names = ["ap@3", "ap(norm=min_rk)@3", "num_rel"]
    got = table.graded.evaluate(names, by="system", ties="average")
    r = got["num_rel"].cast(pl.Float64)
    want = (got["ap@3"] * r / r.clip(upper_bound=3)).fill_nan(0.0)
    assert got["ap(norm=min_rk)@3"].to_list() == pytest.approx(want.to_list(), abs=1e-12)


@pytest.mark.parametrize("text", ["ap(norm=k)@10", "ap(norm=2)@10", "ap(norm=min_r_k)"])
def test_a_bad_norm_names_both_choices(text: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=r"'norm' must be 'R' .* or 'min_rk'"):
        pg.parse_measure(text)


def test_norm_names() -> None:
    """``R`` is the default (dropped from the name); any case is read."""
    assert str(pg.parse_measure("AP(norm=R)@10")) == "ap@10"
    assert str(pg.parse_measure("map(NORM=Min_RK)@10")) == "ap(norm=min_rk)@10"
    assert str(pg.AP(norm="min_rk", rel=2) @ 5) == "ap(norm=min_rk,rel=2)@5"
