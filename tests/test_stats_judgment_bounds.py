"""Incomplete judgments (polars_graded/judgment_bounds.py): each system's mean with unjudged
retrieved rows not relevant, relevant and removed, against pytrec_eval (trec_eval 9.x with
its qrels filled in by hand, and with ``judged_docs_only_flag``, trec_eval's ``-J``; ours
with ``compat="trec_eval_9"``, its float32 scores) on random tables and on TREC DL 2019;
Judged@k and the counts against plain loops; the bracket ``low <= value <= high`` as a
property; order_flips against a loop over every pair; the errors.

The report's section is tested in test_report_judgments.py.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
import pytrec_eval
from hypothesis import given
from hypothesis import strategies as st
from support.tables import make_random_table
from support.trec_eval import trec_dicts

import polars_graded as pg
from polars_graded.errors import GradedError, InvalidValueError
from polars_graded.options import TiePolicy
from polars_graded.stats.judgment_bounds import (
    BOUND_COLUMNS,
    SCENARIOS,
    bounded_measures,
    judgment_bounds,
    order_flips,
)

TREC = {
    "map": "ap",
    "P_10": "p@10",
    "ndcg": "ndcg(gain=linear)",
    "ndcg_cut_10": "ndcg(gain=linear)@10",
    "recip_rank": "rr",
    "bpref": "bpref",
}
"""trec_eval name -> ours, for the pytrec_eval references."""
TREC_SPECS = {"map", "P.10", "ndcg", "ndcg_cut.10", "recip_rank", "bpref"}
TOL = 1e-9
DL = "trec-dl-2019-2020-passage"


def random_table(seed: int, systems: int = 3, queries: int = 60) -> pl.DataFrame:
    """Systems sharing judgments: integer labels -2..4, ties (float32-only ones too),
    unjudged and unretrieved rows, queries without judgments or without retrieved rows (as
    test_trec_eval_differential). A negative label is not relevant, and under -J
    (``judged_only``) not judged either, as trec_eval judges labels >= 0 only."""
    table = make_random_table(
        seed,
        systems=systems,
        queries=queries,
        max_items=40,
        int_labels=True,
        label_kinds=("few",),
        trec_eval_safe=True,
    )
    assert (table.get_column("relevance") < 0).any()
    return table


# --------------------------------------------------------------------------- references


def pytrec_means(table: pl.DataFrame, label: int) -> dict[tuple[str, str, str], float]:
    """{(system, our measure, scenario): mean over every query of the table} from
    pytrec_eval; a query it does not evaluate (nothing retrieved, nothing judged) is 0."""
    queries = table.get_column("query").unique().to_list()
    out = {}
    for system in table.get_column("system").unique().to_list():
        qrels, run = trec_dicts(table, system)
        qrels = {q: {d: int(v) for d, v in docs.items()} for q, docs in qrels.items()}
        filled = {q: dict(docs) for q, docs in qrels.items()}
        for q, docs in run.items():
            for item in docs:
                filled.setdefault(q, {}).setdefault(item, label)
        scenarios = {
            "value": (qrels, False),
            "unjudged_relevant": (filled, False),
            "judged_only": (qrels, True),
        }
        for scenario, (judgments, flag) in scenarios.items():
            evaluator = pytrec_eval.RelevanceEvaluator(
                judgments, TREC_SPECS, judged_docs_only_flag=flag
            )
            values = evaluator.evaluate(run)
            for trec, ours in TREC.items():
                total = sum(values.get(q, {}).get(trec, 0.0) for q in queries)
                out[system, ours, scenario] = total / len(queries)
    return out


def assert_matches_pytrec(table: pl.DataFrame, label: int, **options: Any) -> pl.DataFrame:
    """judgment_bounds on ``table`` under ``compat="trec_eval_9"`` equals
    :func:`pytrec_means` in each scenario."""
    options = {"compat": "trec_eval_9", **options}
    bounds = judgment_bounds(table, list(TREC.values()), **options)
    expected = pytrec_means(table, label)
    bad = [
        (row["system"], row["measure"], scenario, row[scenario], expected[key])
        for row in bounds.iter_rows(named=True)
        for scenario in SCENARIOS
        if abs(row[scenario] - expected[key := (row["system"], row["measure"], scenario)]) > TOL
    ]
    assert not bad, bad[:5]
    return bounds


def judged_at(ranking: list[tuple[float, str, float | None]], k: int) -> float:
    """Judged@k of one ranking of (score, item, label) by a loop: score descending (as
    float64, the default's comparison), item descending, the share of the top min(k, N)
    with a label."""
    ranked = sorted(ranking, key=lambda r: (r[0], r[1]), reverse=True)[:k]
    return sum(r[2] is not None for r in ranked) / len(ranked) if ranked else 0.0


def loop_flips(bounds: pl.DataFrame) -> set[tuple[str, str, str]]:
    """Every (measure, a, b) with a's value above b's and a's low below b's high, by a loop
    (numbers within 1e-12 relative of each other are equal)."""

    def above(x: float, y: float) -> bool:
        return x > y and not math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12)

    rows = bounds.iter_rows(named=True)
    flips = set()
    for a, b in itertools.permutations(rows, 2):
        same = a["measure"] == b["measure"]
        if same and above(a["value"], b["value"]) and above(b["high"], a["low"]):
            flips.add((a["measure"], a["system"], b["system"]))
    return flips


# --------------------------------------------------------------------------- pytrec_eval


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scenarios_agree_with_pytrec_eval(seed: int) -> None:
    table = random_table(seed)
    top = table.get_column("relevance").max()
    assert isinstance(top, int)
    bounds = assert_matches_pytrec(table, top)
    assert bounds.get_column("unjudged").sum() > 0


def test_a_chosen_label_agrees_with_pytrec_eval() -> None:
    table = random_table(4)
    assert_matches_pytrec(table, 1, unjudged_label=1)


def test_dl19_agrees_with_pytrec_eval(shared_data: Callable[[str], Path]) -> None:
    """TREC DL 2019 passage, three runs 1,000 deep over 43 shallowly judged queries: most
    retrieved rows are unjudged, and the scenarios differ widely."""
    folder = shared_data(DL)
    qrels = pg.read_trec_qrels(folder / "qrels.dl19-passage.txt")
    runs = ("BM25", "D_BERT_KD_TASB", "SPLADE_P_P_ENSEMBLE_DISTIL")
    run = pl.concat(
        pg.read_trec_run(folder / "runs" / name / "trec_results_dl19.txt.gz").with_columns(
            tag=pl.lit(name)
        )
        for name in runs
    )
    table = pg.join_run_qrels(run.drop("rank", strict=False), qrels, by="tag").rename(
        {"tag": "system"}
    )
    bounds = assert_matches_pytrec(table, 3)
    retrieved, unjudged = bounds.unique("system").select("retrieved", "unjudged").sum().row(0)
    assert unjudged > 0.4 * retrieved  # 6,297 of 12,900
    ap = bounds.filter(pl.col("measure") == "ap")
    assert (ap["unjudged_relevant"] > ap["value"]).all()


# --------------------------------------------------------------------------- plain loops


def test_judged_and_counts_by_loop() -> None:
    table = random_table(5)
    bounds = judgment_bounds(table, ["ap"], judged_at=5)
    queries = table.get_column("query").n_unique()
    for (system,), rows in table.group_by("system"):
        retrieved = rows.filter(pl.col("score").is_not_null())
        judged = sum(
            judged_at(list(zip(g["score"], g["item"], g["relevance"], strict=True)), 5)
            for _, g in retrieved.group_by("query")
        )
        row = bounds.filter(pl.col("system") == system).row(0, named=True)
        assert row["judged"] == pytest.approx(judged / queries, abs=TOL)
        assert row["retrieved"] == retrieved.height
        assert row["unjudged"] == retrieved.get_column("relevance").null_count()


def test_depth_equals_a_run_cut_by_hand() -> None:
    """``depth=5``: rows below the fifth of each ranking are not retrieved; the same as
    the table with their scores removed (ranked by a loop)."""
    table = random_table(6).with_row_index("row")
    keep: set[int] = set()
    for _, rows in table.filter(pl.col("score").is_not_null()).group_by("system", "query"):
        ranked = sorted(
            rows.iter_rows(named=True),
            key=lambda r: (r["score"], r["item"]),  # float64, as the default compares
            reverse=True,
        )
        keep.update(r["row"] for r in ranked[:5])
    cut = table.with_columns(
        score=pl.when(pl.col("row").is_in(sorted(keep))).then(pl.col("score"))
    ).drop("row")
    measures = list(TREC.values())
    got = judgment_bounds(table.drop("row"), measures, depth=5)
    want = judgment_bounds(cut, measures)
    assert got.drop("judged").equals(want.drop("judged"))


def test_missing_common_takes_the_shared_queries() -> None:
    table = random_table(7)
    dropped = table.filter(~((pl.col("system") == "s1") & pl.col("query").is_in(["q0"])))
    first = dropped.get_column("query").sort()[0]
    dropped = dropped.filter(~((pl.col("system") == "s1") & (pl.col("query") == first)))
    common = judgment_bounds(dropped, ["ap"], missing="common")
    shared = dropped.filter(pl.col("query") != first)
    assert common.equals(
        judgment_bounds(shared, ["ap"]).with_columns(
            retrieved=common["retrieved"], unjudged=common["unjudged"]
        )
    )


# --------------------------------------------------------------------------- properties


@given(
    seed=st.integers(0, 2**32 - 1),
    ties=st.sampled_from(["trec_eval", "input", "optimistic", "pessimistic", "average"]),
    depth=st.none() | st.integers(1, 8),
)
def test_bounds_bracket_the_value(seed: int, ties: TiePolicy, depth: int | None) -> None:
    """low <= value <= high on every row; with every retrieved row judged (a label >= 0:
    trec_eval's -J, ``judged_only``, drops negative labels too), the scenarios agree."""
    if ties == "average":
        depth = None
    table = make_random_table(seed, systems=2, queries=5, max_items=12)
    measures = ["mu_ap", "ap", "ndcg@5", "p@3", "rr", "r_precision", "bpref", "err@5"]
    options: dict[str, Any] = {"ties": ties, "depth": depth}
    bounds = judgment_bounds(table, measures, **options)
    assert bounds.columns == ["system", *BOUND_COLUMNS]
    assert bounds.filter(
        (pl.col("low") > pl.col("value") + TOL) | (pl.col("value") > pl.col("high") + TOL)
    ).is_empty()
    per_query = pg.evaluate(table, measures, by="system", **options)
    queries = table.get_column("query").n_unique()  # missing="zero": a lacking query is 0
    means = per_query.group_by("system").agg(pl.col(measures).sum() / queries)
    for row in bounds.iter_rows(named=True):
        want = means.filter(pl.col("system") == row["system"])[row["measure"]].item()
        assert row["value"] == pytest.approx(want, abs=TOL)
    judged = table.with_columns(
        relevance=pl.when(pl.col("score").is_not_null())
        .then(pl.col("relevance").fill_null(0).clip(0))
        .otherwise(pl.col("relevance"))
    )  # fmt: skip
    complete = judgment_bounds(judged, measures, **options)
    assert (complete["unjudged"] == 0).all()
    for scenario in ("judged_only", "unjudged_relevant", "low", "high"):
        assert complete[scenario].to_list() == pytest.approx(complete["value"].to_list())


@given(seed=st.integers(0, 2**32 - 1))
def test_order_flips_against_every_pair(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    # Ties happen, also ties up to rounding (0.1 + 0.2 against 0.3).
    value = rng.choice([0.1, 0.2, 0.1 + 0.2, 0.3, 0.4], size=2 * n)
    low, high = value - rng.choice([0, 0.05, 0.15], 2 * n), value + rng.choice([0, 0.1], 2 * n)
    bounds = pl.DataFrame(
        {
            "system": [f"s{i}" for i in range(n)] * 2,
            "measure": ["ap"] * n + ["p@10"] * n,
            "value": value,
            "low": low,
            "high": high,
        }
    )
    flips = order_flips(bounds)
    got = {(r[0], r[1], r[2]) for r in flips.select("measure", "system_a", "system_b").rows()}
    assert got == loop_flips(bounds)
    assert flips.height == len(got)
    assert (flips["low_a"] < flips["high_b"]).all()


def test_means_equal_up_to_rounding_do_not_flip() -> None:
    """Two sums of the same values in another order may differ in the last bit."""
    low = 0.1 + 0.2  # 0.30000000000000004
    bounds = pl.DataFrame(
        {"system": ["a", "b"], "measure": ["p@10"] * 2, "value": [low, 0.3], "low": [low, 0.3],
         "high": [0.5, 0.3]}
    )  # fmt: skip
    assert order_flips(bounds).is_empty()


def test_order_flips_names_columns_by_the_system_column() -> None:
    bounds = judgment_bounds(random_table(8).rename({"system": "run"}), ["ap"], by="run")
    assert order_flips(bounds).columns[:3] == ["measure", "run_a", "run_b"]


# --------------------------------------------------------------------------- choices


def test_counts_and_judged_shares_are_left_out() -> None:
    assert list(bounded_measures(["num_ret", "ap", "judged@5", "unjudged@10", "num_rel"])) == ["ap"]
    bounds = judgment_bounds(random_table(9), ["num_ret", "ndcg@10", "judged@10"])
    assert bounds["measure"].unique().to_list() == ["ndcg@10"]
    assert list(bounded_measures()) == list(pg.defaults.DEFAULT_MEASURES)


def test_a_measure_named_judged_keeps_its_name() -> None:
    bounds = judgment_bounds(random_table(10), {"judged": "ap"})
    assert bounds["measure"].unique().to_list() == ["judged"]
    assert bounds.filter(pl.col("system") == "s0")["value"].item() == pytest.approx(
        pg.evaluate(random_table(10), ["ap"], by="system")
        .filter(pl.col("system") == "s0")["ap"]
        .mean()
    )


def test_unjudged_label_fits_the_column() -> None:
    """A UInt8 column takes 3, a Float32 column 0.5 (below AP's threshold 1: the rows stay
    not relevant); the default is the top label."""
    table = random_table(11).with_columns(pl.col("relevance").clip(0).cast(pl.UInt8))
    assert judgment_bounds(table, ["ap"], unjudged_label=3)["value"].is_not_null().all()
    floats = table.with_columns(pl.col("relevance").cast(pl.Float32) / 4)
    half = judgment_bounds(floats, ["ap"], unjudged_label=0.5)
    assert half["unjudged_relevant"].to_list() == half["value"].to_list()
    top = floats["relevance"].max()
    assert isinstance(top, float)
    assert judgment_bounds(floats, ["ap"]).equals(
        judgment_bounds(floats, ["ap"], unjudged_label=top)
    )


@pytest.mark.parametrize(
    ("label", "message"),
    [
        ("high", "unjudged_label= must be a number (the relevance label unjudged rows get), "
         "got 'high' of type str"),
        (True, "must be a number"),
        (None, None),
        (0, "must be a positive finite label (a label > 0 is relevant), got 0"),
        (-1.0, "must be a positive finite label"),
        (math.nan, "must be a positive finite label"),
        (1.5, "unjudged_label=1.5 is not a label the Int64 column 'relevance' can hold"),
    ],
)  # fmt: skip
def test_bad_labels_are_refused(label: object, message: str | None) -> None:
    table = random_table(12)
    if message is None:
        judgment_bounds(table, ["ap"], unjudged_label=label)  # type: ignore[arg-type]
        return
    with pytest.raises(InvalidValueError, match=re.escape(message)):
        judgment_bounds(table, ["ap"], unjudged_label=label)  # type: ignore[arg-type]


def test_a_label_too_large_for_the_column_is_refused() -> None:
    table = random_table(12).with_columns(pl.col("relevance").clip(0).cast(pl.UInt8))
    with pytest.raises(InvalidValueError, match="not a label the UInt8 column"):
        judgment_bounds(table, ["ap"], unjudged_label=300)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"measures": ["num_ret"]}, InvalidValueError, "no measure to bound among"),
        ({"judged_at": 0}, InvalidValueError, "judged_at"),
        ({"missing": "every"}, InvalidValueError, "missing must be"),
        ({"by": ["system", "query"]}, InvalidValueError, "exactly one system column"),
        ({"by": "run"}, GradedError, "column 'run' not found"),
        ({"bogus": 1}, TypeError, "unknown keyword"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        judgment_bounds(random_table(13), **{"measures": ["ap"], **options})


def test_order_flips_needs_the_bounds_columns() -> None:
    with pytest.raises(InvalidValueError, match=r"needs the columns .* \['low', 'high'\] not"):
        order_flips(pl.DataFrame({"system": ["a"], "measure": ["ap"], "value": [0.1]}))


def test_without_unjudged_rows_every_scenario_is_the_evaluated_mean() -> None:
    # Every retrieved row judged, no negative label: the scenarios rank the same rows, so
    # judgment_bounds takes them from one evaluation; each equals pg.summary's mean, and
    # judged_only (trec_eval -J) evaluated on its own gives the same.
    rng = np.random.default_rng(11)
    n = 40
    table = pl.DataFrame(
        {
            "system": ["a"] * n + ["b"] * n,
            "query": [q // 5 for q in range(n)] * 2,
            "item": [q % 5 for q in range(n)] * 2,
            "score": rng.normal(size=2 * n),
            "relevance": rng.integers(0, 3, 2 * n),
        }
    )
    out = judgment_bounds(table, ["ap", "ndcg@3"])
    summary = pg.summary(table, ["ap", "ndcg@3"], by="system").sort("system")
    condensed = pg.summary(table, ["ap", "ndcg@3"], by="system", judged_only=True)
    for measure in ("ap", "ndcg@3"):
        mine = out.filter(pl.col("measure") == measure).sort("system")
        for column in ("value", "unjudged_relevant", "judged_only", "low", "high"):
            assert mine[column].to_list() == summary[measure].to_list(), column
        assert mine["judged_only"].to_list() == condensed.sort("system")[measure].to_list()
    assert out["unjudged"].to_list() == [0] * 4
