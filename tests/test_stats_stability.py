"""polars_graded/stability.py: Kendall's tau against scipy.stats.kendalltau, tau_AP against a
loop from Yilmaz, Aslam & Robertson's definition (and, with ties, against every way of
breaking them), rank correlations of a small table by hand, discriminative power by counting
compare_pairs' rows, and tau between the ap and ndcg@10 orders of the Robust 2003 runs."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

import polars_graded as pg
from polars_graded.errors import (
    ColumnTypeError,
    DuplicateKeyError,
    InvalidValueError,
    MissingColumnError,
)
from polars_graded.report import trec_table
from polars_graded.stats.pairs import compare_pairs
from polars_graded.stats.stability import (
    CORRELATION_COLUMNS,
    POWER_COLUMNS,
    discriminative_power,
    kendall_tau,
    rank_correlations,
    tau_ap,
)

# Few distinct values: ties are common; many: rare.
tied_scores = st.lists(st.integers(0, 3).map(float), min_size=2, max_size=9)
distinct_scores = st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=9, unique=True)


# --------------------------------------------------------------------------- references


def paper_tau_ap(truth: Sequence[float], other: Sequence[float]) -> float:
    """tau_AP as Yilmaz, Aslam & Robertson (2008) define it, for orders without ties:
    rank by ``other``, C(i) = the items above rank i that ``truth`` also puts above it."""
    ranked = sorted(range(len(other)), key=lambda k: -other[k])
    total = 0.0
    for i in range(1, len(ranked)):
        item = ranked[i]
        correct = sum(1 for j in ranked[:i] if truth[j] > truth[item])
        total += correct / i
    return 2 / (len(ranked) - 1) * total - 1


def broken_ties(scores: Sequence[float]) -> list[list[float]]:
    """Every way to break the ties of ``scores``: strict scores, one list per order."""
    groups: dict[float, list[int]] = {}
    for k, v in enumerate(scores):
        groups.setdefault(v, []).append(k)
    orders = itertools.product(*(itertools.permutations(g) for g in groups.values()))
    out = []
    for choice in orders:
        strict = [0.0] * len(scores)
        for value, members in zip(groups, choice, strict=True):
            for place, k in enumerate(members):
                strict[k] = value - place * 1e-3  # within a gap of 1 between distinct values
        out.append(strict)
    return out


def enumerated_tau_ap(truth: Sequence[float], other: Sequence[float]) -> float:
    """The mean of :func:`paper_tau_ap` over every way of breaking both vectors' ties."""
    values = [
        paper_tau_ap(t, o) for t, o in itertools.product(broken_ties(truth), broken_ties(other))
    ]
    return sum(values) / len(values)


# --------------------------------------------------------------------------- kendall_tau


@given(st.data())
def test_kendall_tau_is_scipys_tau_b_with_ties(data: st.DataObject) -> None:
    x = data.draw(tied_scores)
    y = data.draw(st.lists(st.integers(0, 3).map(float), min_size=len(x), max_size=len(x)))
    expected = scipy.stats.kendalltau(x, y).statistic
    got = kendall_tau(x, y)
    assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected, abs=1e-12)


@given(st.data())
def test_kendall_tau_is_scipys_without_ties(data: st.DataObject) -> None:
    x = data.draw(distinct_scores)
    y = data.draw(st.lists(st.floats(-1e6, 1e6), min_size=len(x), max_size=len(x), unique=True))
    assert kendall_tau(x, y) == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)


def test_kendall_tau_hand_values_and_undefined_cases() -> None:
    assert kendall_tau([4, 3, 2, 1], [3, 4, 2, 1]) == pytest.approx(4 / 6)  # 5 agree, 1 swaps
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))  # every x ties
    assert math.isnan(kendall_tau([1], [2]))
    assert math.isnan(kendall_tau([], []))


@pytest.mark.parametrize("function", [kendall_tau, tau_ap])
def test_bad_vectors_are_refused(function: Callable[..., float]) -> None:
    with pytest.raises(InvalidValueError, match="same length"):
        function([1.0, 2.0], [1.0])
    with pytest.raises(InvalidValueError, match="same length"):
        function([[1.0, 2.0]], [[1.0, 2.0]])
    with pytest.raises(InvalidValueError, match="finite"):
        function([1.0, float("nan")], [1.0, 2.0])


# --------------------------------------------------------------------------- tau_ap


def test_tau_ap_hand_worked() -> None:
    # truth a > b > c > d. other b, a, c, d: C = 0/1 at a, 2/2 at c, 3/3 at d: 2/3 * 2 - 1.
    assert tau_ap([4, 3, 2, 1], [3, 4, 2, 1]) == pytest.approx(1 / 3)
    # other a, b, d, c: 1/1, 2/2, then c has a, b right and d wrong above it: 2/3 * 8/3 - 1.
    assert tau_ap([4, 3, 2, 1], [4, 3, 1, 2]) == pytest.approx(7 / 9)
    assert tau_ap([1, 2, 3], [1, 2, 3]) == 1.0
    assert tau_ap([1, 2, 3], [3, 2, 1]) == -1.0
    assert math.isnan(tau_ap([1.0], [1.0]))


@given(st.permutations(range(8)), st.permutations(range(8)))
def test_tau_ap_is_the_papers_loop(truth: list[int], other: list[int]) -> None:
    got = tau_ap([float(v) for v in truth], [float(v) for v in other])
    assert got == pytest.approx(paper_tau_ap(truth, other), abs=1e-12)


@given(st.data())
def test_tau_ap_with_ties_is_its_mean_over_every_tie_breaking(data: st.DataObject) -> None:
    # At most 5 systems: at most 120 x 120 ways to break the ties of both.
    truth = data.draw(st.lists(st.integers(0, 2).map(float), min_size=2, max_size=5))
    other = data.draw(
        st.lists(st.integers(0, 2).map(float), min_size=len(truth), max_size=len(truth))
    )
    assert tau_ap(truth, other) == pytest.approx(enumerated_tau_ap(truth, other), abs=1e-12)


@given(st.data())
def test_tau_ap_symmetric_is_the_mean_of_both_directions(data: st.DataObject) -> None:
    x = data.draw(tied_scores)
    y = data.draw(st.lists(st.integers(0, 3).map(float), min_size=len(x), max_size=len(x)))
    both = (tau_ap(x, y) + tau_ap(y, x)) / 2
    assert tau_ap(x, y, symmetric=True) == pytest.approx(both, abs=1e-15)
    assert -1 - 1e-12 <= tau_ap(x, y) <= 1 + 1e-12


def test_tau_ap_is_asymmetric() -> None:
    # The swap is at the top of other in one direction, lower in the other.
    truth, other = [4.0, 3.0, 2.0, 1.0], [2.0, 4.0, 3.0, 1.0]
    assert tau_ap(truth, other) != pytest.approx(tau_ap(other, truth))


# --------------------------------------------------------------------------- rank_correlations


def test_rank_correlations_by_hand() -> None:
    means = pl.DataFrame(
        {
            "measure": ["ap"] * 4 + ["p@10"] * 4 + ["rr"] * 3,
            "run": ["a", "b", "c", "d", "a", "b", "c", "d", "a", "b", "c"],
            "mean": [0.4, 0.3, 0.2, 0.1, 0.3, 0.4, 0.2, 0.1, 0.1, 0.2, 0.3],
        }
    )
    out = rank_correlations(means, variant="measure", system="run", value="mean")
    assert out.columns == list(CORRELATION_COLUMNS)
    rows = {(a, b): (n, tau, tap) for a, b, n, tau, tap in out.rows()}
    assert list(rows) == [
        ("ap", "p@10"), ("ap", "rr"), ("p@10", "ap"), ("p@10", "rr"), ("rr", "ap"), ("rr", "p@10"),
    ]  # fmt: skip
    # ap vs p@10: a and b swap at the top (tau 4/6; tau_ap 1/3 both ways, by the hand example).
    assert rows["ap", "p@10"] == (4, pytest.approx(2 / 3), pytest.approx(1 / 3))
    assert rows["p@10", "ap"] == (4, pytest.approx(2 / 3), pytest.approx(1 / 3))
    # rr has no d: on a, b, c it reverses ap's order, and p@10's is b, a, c.
    assert rows["ap", "rr"] == (3, pytest.approx(-1.0), pytest.approx(-1.0))
    n, tau, tap = rows["p@10", "rr"]
    assert (n, tau) == (3, pytest.approx(-1 / 3))
    # rr's order c, b, a against p@10's b > a > c: at rank 2 (b), c is above it and p@10
    # puts c below b: 0/1; at rank 3 (a), c is wrong and b right: 1/2; 2/2 * 1/2 - 1.
    assert tap == pytest.approx(-0.5)


def test_rank_correlations_undefined_and_missing_values() -> None:
    means = pl.DataFrame(
        {
            "variant": ["x", "x", "y", "y"],
            "system": ["a", "b", "a", "b"],
            "value": [1.0, 1.0, None, 2.0],
        }
    )
    out = rank_correlations(means)
    assert out["n_systems"].to_list() == [1, 1]
    assert all(math.isnan(v) for v in out["tau"].to_list() + out["tau_ap"].to_list())
    assert rank_correlations(means.filter(pl.col("variant") == "x")).height == 0


def test_rank_correlations_refuses_bad_tables() -> None:
    good = pl.DataFrame({"variant": ["x", "y"], "system": ["a", "a"], "value": [1.0, 2.0]})
    with pytest.raises(MissingColumnError, match="'value' not found"):
        rank_correlations(good.drop("value"))
    with pytest.raises(ColumnTypeError, match="numeric"):
        rank_correlations(good.with_columns(pl.col("value").cast(pl.String)))
    with pytest.raises(DuplicateKeyError, match="occurs"):
        rank_correlations(pl.concat([good, good]))
    with pytest.raises(InvalidValueError, match="finite"):
        rank_correlations(good.with_columns(value=pl.lit(float("nan"))))
    with pytest.raises(InvalidValueError, match="null"):
        rank_correlations(good.with_columns(system=pl.lit(None, pl.String)))
    with pytest.raises(InvalidValueError, match="three different"):
        rank_correlations(good, system="variant")


# --------------------------------------------------------------------------- discriminative power


def test_discriminative_power_counts_compare_pairs_rows() -> None:
    rng = np.random.default_rng(5)
    base = rng.random(12)
    values = {"a": base, "b": base + 0.3, "c": base + 0.02 * rng.standard_normal(12), "d": base}
    per_query = pl.DataFrame(
        {
            "system": [s for s in values for _ in range(12)],
            "query": list(range(12)) * 4,
            "ap": np.concatenate(list(values.values())),
            "rr": np.concatenate([v[::-1] for v in values.values()]),
        }
    )
    pairs = compare_pairs(per_query, trials=500, bootstrap=10, correction="none")
    for alpha, column in [(0.05, "p_randomization_adjusted"), (0.2, "p_tukey")]:
        out = discriminative_power(pairs, alpha=alpha, p=column)
        assert out.columns == list(POWER_COLUMNS)
        for measure, n_pairs, n_significant, share in out.rows():
            rows = [r for r in pairs.iter_rows(named=True) if r["measure"] == measure]
            hits = sum(1 for r in rows if r[column] < alpha)
            assert (n_pairs, n_significant) == (len(rows), hits) == (6, hits)
            assert share == hits / 6
    assert discriminative_power(pairs)["measure"].to_list() == ["ap", "rr"]


def test_discriminative_power_null_p_and_bad_input() -> None:
    pairs = pl.DataFrame({"measure": ["ap", "ap"], "p_randomization_adjusted": [0.01, None]})
    assert discriminative_power(pairs).rows() == [("ap", 2, 1, 0.5)]
    with pytest.raises(InvalidValueError, match="alpha"):
        discriminative_power(pairs, alpha=1.5)
    with pytest.raises(MissingColumnError, match="p_tukey"):
        discriminative_power(pairs, p="p_tukey")
    with pytest.raises(ColumnTypeError, match="p-values"):
        discriminative_power(pairs, p="measure")


# --------------------------------------------------------------------------- Robust 2003


def test_tau_between_ap_and_ndcg_on_robust_2003_is_scipys(
    shared_data: Callable[[str], Path],
) -> None:
    folder = shared_data("trec2003-robust")
    runs = sorted((folder / "runs").glob("input.*.gz"))
    table = trec_table(runs, folder / "robust03_qrels.txt.gz")
    per_query = pg.evaluate(table, ["ap", "ndcg@10"], by="system")
    means = per_query.group_by("system").agg(pl.col("ap", "ndcg@10").mean())
    assert means.height == 17
    long = means.unpivot(["ap", "ndcg@10"], index="system", variable_name="variant")
    out = rank_correlations(long).filter(pl.col("variant_a") == "ap")
    ordered = means.sort("system")
    expected = scipy.stats.kendalltau(ordered["ap"], ordered["ndcg@10"]).statistic
    assert out["tau"].item() == pytest.approx(expected, abs=1e-12)
    assert out["tau_ap"].item() == pytest.approx(
        paper_tau_ap(ordered["ap"].to_list(), ordered["ndcg@10"].to_list()), abs=1e-12
    )
