"""compare_pairs(): every pair of systems, against independent computations.

The references are computed here from scratch: scipy's ``false_discovery_control`` and a
textbook step-up loop for Benjamini–Hochberg, a loop for Holm, an exact enumeration of all
sign flips for the randomization test and of all per-query permutations for the randomized
Tukey HSD, and hand counts of wins, ties and losses.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
import scipy.stats
from polars.testing import assert_frame_equal

import polars_graded as pg
from polars_graded.compare import TIE_TOLERANCE, compare
from polars_graded.compare_pairs import (
    adjust,
    benjamini_hochberg,
    compare_pairs,
    significance_matrix,
)
from polars_graded.errors import InvalidValueError

FAST = {"trials": 2000, "bootstrap": 2000}


def frame_of(systems: dict[str, np.ndarray], *, by: str = "system") -> pl.DataFrame:
    n = len(next(iter(systems.values())))
    return pl.DataFrame(
        {
            by: [s for s in systems for _ in range(n)],
            "query": list(range(n)) * len(systems),
            "v": np.concatenate(list(systems.values())),
        }
    )


def random_systems(n_systems: int, n_queries: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.random(n_queries)
    return {
        f"s{i}": np.clip(base + 0.08 * i + rng.normal(0, 0.2, n_queries), 0, 1)
        for i in range(n_systems)
    }


def pair_row(out: pl.DataFrame, a: str, b: str, measure: str = "v") -> dict[str, object]:
    rows = out.filter(
        (pl.col("system_a") == a) & (pl.col("system_b") == b) & (pl.col("measure") == measure)
    )
    assert rows.height == 1
    return rows.row(0, named=True)


# --- corrections -----------------------------------------------------------------------------


def bh_step_up(p: list[float]) -> list[float]:
    """Textbook Benjamini–Hochberg: from the largest rank down, running min of m p / rank."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, m * p[i] / rank)
        adjusted[i] = running
    return adjusted


def holm_loop(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


@pytest.mark.parametrize("seed", range(6))
def test_bh_matches_scipy_and_the_step_up_loop(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = rng.random(12) ** 3
    p[3] = p[5]  # a tie
    ours = benjamini_hochberg(p)
    np.testing.assert_allclose(ours, scipy.stats.false_discovery_control(p), rtol=1e-12)
    np.testing.assert_allclose(ours, bh_step_up(p.tolist()), rtol=1e-12)


def test_bh_by_hand_and_along_the_last_axis() -> None:
    # m = 4: 0.01*4/1 = 0.04, 0.02*4/2 = 0.04, 0.03*4/3 = 0.04, 0.5*4/4 = 0.5
    p = np.array([0.5, 0.02, 0.01, 0.03])
    assert benjamini_hochberg(p).round(12).tolist() == [0.5, 0.04, 0.04, 0.04]
    rows = np.stack([p, p[::-1]])
    np.testing.assert_allclose(benjamini_hochberg(rows)[1], benjamini_hochberg(p[::-1]))
    assert benjamini_hochberg(np.array([])).size == 0


def test_corrections_of_the_pairs_per_measure() -> None:
    systems = random_systems(5, 15, seed=2)
    frame = frame_of(systems).with_columns(w=1 - pl.col("v"))
    results = {c: compare_pairs(frame, correction=c, **FAST) for c in ("holm", "bh", "none")}
    for measure in ("v", "w"):
        rows = {c: out.filter(pl.col("measure") == measure) for c, out in results.items()}
        raw = rows["none"]["p_randomization"].to_list()
        assert len(raw) == 10
        assert rows["none"]["p_randomization_adjusted"].to_list() == raw
        for c in ("holm", "bh"):
            assert rows[c]["p_randomization"].to_list() == raw  # same seed, same raw p
        np.testing.assert_allclose(rows["holm"]["p_randomization_adjusted"], holm_loop(raw))
        np.testing.assert_allclose(rows["bh"]["p_randomization_adjusted"], bh_step_up(raw))
    for out in results.values():
        assert (out["significant"] == (out["p_randomization_adjusted"] < 0.05)).all()


def test_adjust_refuses_an_unknown_correction() -> None:
    with pytest.raises(InvalidValueError, match="correction must be 'holm', 'bh' or 'none'"):
        adjust(np.array([0.1]), "bonferroni")  # type: ignore[arg-type]


# --- randomization test ----------------------------------------------------------------------


def exact_sign_flip_p(d: np.ndarray) -> float:
    observed = abs(d.sum())
    hits = sum(
        abs(float(np.dot(signs, d))) >= observed - 1e-12
        for signs in itertools.product((1.0, -1.0), repeat=d.size)
    )
    return hits / 2**d.size


def test_randomization_p_is_close_to_the_exact_enumeration() -> None:
    systems = random_systems(4, 10, seed=7)
    trials = 200_000
    out = compare_pairs(frame_of(systems), trials=trials, bootstrap=100)
    exact_values = []
    for a, b in itertools.combinations(sorted(systems), 2):
        exact = exact_sign_flip_p(systems[b] - systems[a])
        exact_values.append(exact)
        se = math.sqrt(exact * (1 - exact) / trials)
        assert abs(pair_row(out, a, b)["p_randomization"] - exact) <= 4 * se + 2 / trials
    assert min(exact_values) < 0.1 < max(exact_values)


# --- randomized Tukey HSD --------------------------------------------------------------------


def exact_tukey_p(values: np.ndarray) -> np.ndarray:
    """Share of all per-query permutations across systems whose range of system means
    reaches each pair's observed |difference of means| (slow, exact)."""
    n_systems, n_queries = values.shape
    means = values.mean(axis=1)
    observed = np.abs(means[None, :] - means[:, None])
    per_query = list(itertools.permutations(range(n_systems)))
    hits = np.zeros((n_systems, n_systems))
    total = 0
    for choice in itertools.product(per_query, repeat=n_queries):
        permuted = np.array([values[list(p), q] for q, p in enumerate(choice)]).T
        arranged = permuted.mean(axis=1)
        hits += arranged.max() - arranged.min() >= observed - 1e-12
        total += 1
    return hits / total


def test_tukey_p_is_close_to_the_exact_enumeration() -> None:
    systems = {
        "a": np.array([0.1, 0.4, 0.3, 0.2, 0.5, 0.3]),
        "b": np.array([0.3, 0.5, 0.2, 0.4, 0.6, 0.5]),
        "c": np.array([0.6, 0.7, 0.8, 0.5, 0.9, 0.4]),
    }
    exact = exact_tukey_p(np.stack(list(systems.values())))
    trials = 100_000
    out = compare_pairs(frame_of(systems), trials=trials, bootstrap=100)
    names = list(systems)
    for i, j in itertools.combinations(range(3), 2):
        p = exact[i, j]
        se = math.sqrt(p * (1 - p) / trials)
        assert abs(pair_row(out, names[i], names[j])["p_tukey"] - p) <= 4 * se + 2 / trials
    # the cases span small and large p-values
    assert exact[0, 2] < 0.05 < exact[0, 1]


def test_tukey_p_is_never_below_the_pairwise_range_and_one_for_identical_systems() -> None:
    base = np.array([0.2, 0.4, 0.6, 0.8])
    out = compare_pairs(frame_of({"a": base, "b": base, "c": base + 0.1}), **FAST)
    assert pair_row(out, "a", "b")["p_tukey"] == 1.0
    p = out["p_tukey"].to_numpy()
    assert ((p >= 1 / (FAST["trials"] + 1)) & (p <= 1)).all()


# --- means, intervals, wins / ties / losses --------------------------------------------------


def test_wins_ties_losses_means_and_diff_by_hand() -> None:
    systems = {
        "a": np.array([0.5, 0.2, 0.7, 0.1, 0.3]),
        "b": np.array([0.6, 0.2 + TIE_TOLERANCE / 2, 0.4, 0.1, 0.9]),
    }
    out = compare_pairs(frame_of(systems), **FAST)
    row = pair_row(out, "a", "b")
    # b - a: +0.1, ~0 (tie), -0.3, 0 (tie), +0.6
    assert (row["wins"], row["ties"], row["losses"]) == (2, 2, 1)
    assert row["mean_a"] == pytest.approx(0.36)
    assert row["mean_b"] == pytest.approx(0.44, abs=1e-9)
    assert row["diff"] == pytest.approx(0.08, abs=1e-9)
    assert row["n_queries"] == 5


def test_constant_difference_has_a_point_interval() -> None:
    base = np.array([0.1, 0.5, 0.3, 0.7])
    out = compare_pairs(frame_of({"a": base, "b": base + 0.25}), **FAST)
    row = pair_row(out, "a", "b")
    assert row["diff_ci_low"] == pytest.approx(0.25)
    assert row["diff_ci_high"] == pytest.approx(0.25)


def test_interval_brackets_the_difference() -> None:
    out = compare_pairs(frame_of(random_systems(4, 40, seed=1)), **FAST)
    assert (out["diff_ci_low"] <= out["diff"]).all()
    assert (out["diff"] <= out["diff_ci_high"]).all()


def test_shape_order_and_dtypes() -> None:
    frame = frame_of(random_systems(4, 8, seed=3), by="run").with_columns(w=pl.col("v") / 2)
    out = compare_pairs(frame.reverse(), ["w", "v"], by="run", **FAST)
    pairs = list(itertools.combinations(["s0", "s1", "s2", "s3"], 2))
    assert out.select("run_a", "run_b", "measure").rows() == [
        (a, b, m) for m in ("w", "v") for a, b in pairs
    ]
    assert out.columns == [
        "run_a",
        "run_b",
        "measure",
        "n_queries",
        "mean_a",
        "mean_b",
        "diff",
        "diff_ci_low",
        "diff_ci_high",
        "wins",
        "ties",
        "losses",
        "p_randomization",
        "p_randomization_adjusted",
        "p_tukey",
        "significant",
    ]
    assert out.schema["wins"] == pl.Int64
    assert out.schema["p_tukey"] == pl.Float64
    assert out.schema["significant"] == pl.Boolean


def test_missing_policies() -> None:
    frame = frame_of(random_systems(3, 6, seed=4)).filter(
        ~((pl.col("system") == "s1") & (pl.col("query") == 0))
    )
    zero = compare_pairs(frame, **FAST)
    common = compare_pairs(frame, missing="common", **FAST)
    assert zero["n_queries"].unique().to_list() == [6]
    assert common["n_queries"].unique().to_list() == [5]
    means = frame.filter(pl.col("query") != 0).group_by("system").agg(pl.col("v").mean())
    expected = dict(means.iter_rows())
    row = pair_row(common, "s0", "s1")
    assert row["mean_a"] == pytest.approx(expected["s0"])
    assert row["mean_b"] == pytest.approx(expected["s1"])


# --- determinism, compare(pairs="all"), errors -----------------------------------------------


def test_same_seed_same_numbers_other_seed_other_numbers() -> None:
    frame = frame_of(random_systems(4, 12, seed=5))
    assert_frame_equal(compare_pairs(frame, seed=3, **FAST), compare_pairs(frame, seed=3, **FAST))
    other = compare_pairs(frame, seed=4, **FAST)
    assert other["p_tukey"].to_list() != compare_pairs(frame, seed=3, **FAST)["p_tukey"].to_list()


def test_compare_pairs_all_forwards() -> None:
    frame = frame_of(random_systems(3, 12, seed=6))
    options = {"correction": "bh", "seed": 9, "alpha": 0.1, **FAST}
    assert_frame_equal(
        compare(frame, pairs="all", **options),  # type: ignore[arg-type]
        pg.compare_pairs(frame, **options),  # type: ignore[arg-type]
    )


def test_compare_default_is_the_baseline_comparison() -> None:
    frame = frame_of(random_systems(3, 12, seed=6))
    assert_frame_equal(compare(frame, **FAST), compare(frame, pairs="baseline", **FAST))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pairs": "some"}, "pairs must be 'baseline' or 'all', got 'some'"),
        ({"pairs": "all", "baseline": "s0"}, "drop baseline='s0'"),
        ({"correction": "bh"}, "correction='bh' needs pairs='all'"),
        ({"pairs": "all", "correction": "fdr"}, "correction must be 'holm', 'bh' or 'none'"),
    ],
)
def test_bad_options(kwargs: dict[str, object], message: str) -> None:
    frame = frame_of(random_systems(3, 5, seed=0))
    with pytest.raises(InvalidValueError, match=message):
        compare(frame, **kwargs, **FAST)  # type: ignore[arg-type]


def test_inputs_are_checked_as_compare_checks_them() -> None:
    frame = frame_of({"a": np.array([0.1, 0.2])})
    with pytest.raises(InvalidValueError, match="at least 2 systems"):
        compare_pairs(frame, **FAST)
    with pytest.raises(InvalidValueError, match="trials must be an integer"):
        compare_pairs(frame_of(random_systems(2, 3, seed=0)), trials=0)


# --- significance matrix ---------------------------------------------------------------------


def test_significance_matrix_by_hand() -> None:
    systems = random_systems(4, 30, seed=8)
    frame = frame_of(systems, by="run").with_columns(
        pl.col("run").str.slice(1).cast(pl.Int64)  # integer system names
    )
    pairs = compare_pairs(frame, by="run", correction="bh", **FAST)
    matrix = significance_matrix(pairs, "v", by="run", p_value="p_tukey", alpha=0.2)
    names = [0, 1, 2, 3]
    assert matrix.columns == ["run", "0", "1", "2", "3"]
    assert matrix["run"].to_list() == names
    marks: dict[int, dict[int, str]] = {n: {} for n in names}
    for row in pairs.iter_rows(named=True):
        a, b = row["run_a"], row["run_b"]
        if row["p_tukey"] >= 0.2:
            marks[a][b] = marks[b][a] = "="
        else:
            b_better = row["mean_b"] > row["mean_a"]
            marks[a][b], marks[b][a] = ("<", ">") if b_better else (">", "<")
    expected = [(r, *(None if r == c else marks[r][c] for c in names)) for r in names]
    assert matrix.rows() == expected
    assert {">", "="} <= {m for row in expected for m in row[1:] if m}
    with pytest.raises(InvalidValueError, match="measure 'w' is not in the comparison"):
        significance_matrix(pairs, "w", by="run")
