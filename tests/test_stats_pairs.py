"""compare_pairs(): every pair of systems, against independent computations.

The references are computed here from scratch: scipy's ``false_discovery_control`` and a
textbook step-up loop for Benjamini–Hochberg, a loop for Holm, an exact enumeration of all
sign flips for the randomization test and of all per-query permutations for the randomized
Tukey HSD, and hand counts of wins, ties and losses.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import polars as pl
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from statsmodels.stats.multitest import multipletests

import polars_graded as pg
from polars_graded.errors import InvalidValueError
from polars_graded.stats.compare import compare
from polars_graded.stats.corrections import adjust, benjamini_hochberg
from polars_graded.stats.options import Correction, Test
from polars_graded.stats.pairs import (
    compact_letters,
    compare_pairs,
    insert_absorb,
    significance_matrix,
)
from polars_graded.stats.resampling import TIE_TOLERANCE

FAST: dict[str, Any] = {"trials": 2000, "bootstrap": 2000}


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


def pair_row(out: pl.DataFrame, a: str, b: str, measure: str = "v") -> dict[str, Any]:
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
    with pytest.raises(InvalidValueError, match="'holm-sidak', 'bh' or 'none', got 'BY'"):
        adjust(np.array([0.1]), "BY")  # type: ignore[arg-type]


# --- randomization test ----------------------------------------------------------------------


def exact_sign_flip_p(d: np.ndarray) -> float:
    observed = abs(d.sum())
    hits = sum(
        abs(float(np.dot(signs, d))) >= observed - 1e-12
        for signs in itertools.product((1.0, -1.0), repeat=d.size)
    )
    return float(hits / 2**d.size)


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
        "d_z",
        "change_pct",
        "wins",
        "ties",
        "losses",
        "p_randomization",
        "p_randomization_adjusted",
        "p_ttest",
        "p_ttest_adjusted",
        "p_wilcoxon",
        "p_wilcoxon_adjusted",
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
        compare(frame, pairs="all", **options),
        pg.compare_pairs(frame, **options),
    )


def test_compare_default_is_the_baseline_comparison() -> None:
    frame = frame_of(random_systems(3, 12, seed=6))
    assert_frame_equal(compare(frame, **FAST), compare(frame, pairs="baseline", **FAST))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pairs": "some"}, "pairs must be 'baseline' or 'all', got 'some'"),
        ({"pairs": "all", "baseline": "s0"}, "drop baseline='s0'"),
        ({"correction": "fdr"}, "'holm-sidak', 'bh' or 'none', got 'fdr'"),
        ({"pairs": "all", "correction": "fdr"}, "'holm-sidak', 'bh' or 'none', got 'fdr'"),
    ],
)
def test_bad_options(kwargs: dict[str, Any], message: str) -> None:
    frame = frame_of(random_systems(3, 5, seed=0))
    with pytest.raises(InvalidValueError, match=message):
        compare(frame, **kwargs, **FAST)


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


# --- corrections against statsmodels ---------------------------------------------------------

p_values = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 1.0])), min_size=1, max_size=30
)


STATSMODELS: tuple[tuple[Correction, str], ...] = (("holm", "holm"), ("bh", "fdr_bh"))
"""Our corrections and statsmodels' names for them."""


@settings(max_examples=60, deadline=None)  # multipletests takes ~40 ms a call
@given(p=p_values)
def test_adjust_matches_statsmodels_multipletests(p: list[float]) -> None:
    """Holm and Benjamini–Hochberg as statsmodels computes them, ties and 0/1 included."""
    values = np.array(p)
    for ours, theirs in STATSMODELS:
        expected = multipletests(values, method=theirs)[1]
        np.testing.assert_allclose(adjust(values, ours), expected, rtol=1e-12, atol=1e-15)
    assert adjust(values, "none").tolist() == p


@settings(max_examples=15, deadline=None)
@given(rows=st.lists(st.lists(st.floats(0, 1), min_size=5, max_size=5), min_size=1, max_size=4))
def test_adjust_corrects_each_row_on_its_own(rows: list[list[float]]) -> None:
    matrix = np.array(rows)
    for ours, theirs in STATSMODELS:
        expected = np.stack([multipletests(row, method=theirs)[1] for row in matrix])
        np.testing.assert_allclose(adjust(matrix, ours), expected, rtol=1e-12, atol=1e-15)


# --- compact letters -------------------------------------------------------------------------


def pairs_of(means: list[float], significant: set[tuple[int, int]]) -> pl.DataFrame:
    """A compare_pairs-shaped frame of systems s0, s1, ... with these means, where exactly
    the pairs in ``significant`` have p 0.001 (the others 0.5)."""
    rows = [
        {
            "system_a": f"s{i}",
            "system_b": f"s{j}",
            "measure": "v",
            "mean_a": means[i],
            "mean_b": means[j],
            "p_randomization_adjusted": 0.001 if (i, j) in significant else 0.5,
        }
        for i, j in itertools.combinations(range(len(means)), 2)
    ]
    return pl.DataFrame(rows)


@st.composite
def significance_patterns(draw: st.DrawFn) -> tuple[int, set[tuple[int, int]]]:
    n = draw(st.integers(2, 9))
    pairs = list(itertools.combinations(range(n), 2))
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True))
    return n, set(chosen)


@settings(max_examples=300, deadline=None)
@given(pattern=significance_patterns())
def test_compact_letters_share_a_letter_iff_not_significant(
    pattern: tuple[int, set[tuple[int, int]]],
) -> None:
    """The definition, on any pattern (even one no test would give): two systems share a
    letter exactly when their pair is not significant; no letter holds a subset of
    another's systems (absorbed), every system has a letter, and none has a letter it
    could lose (swept)."""
    n, significant = pattern
    means = [1.0 - i / 10 for i in range(n)]  # s0 best
    out = compact_letters(pairs_of(means, significant), "v")
    assert out["system"].to_list() == [f"s{i}" for i in range(n)]
    letters = [set(cell) for cell in out["letters"]]
    assert all(letters)
    for i, j in itertools.combinations(range(n), 2):
        assert bool(letters[i] & letters[j]) == ((i, j) not in significant), (i, j)
    holders = {c: {i for i in range(n) if c in letters[i]} for c in set().union(*letters)}
    assert not any(a < b for a in holders.values() for b in holders.values())
    for c, systems in holders.items():  # swept: each letter a system has is needed
        for i in systems:
            if len(letters[i]) > 1:
                assert any(not (letters[i] & letters[j]) - {c} for j in systems - {i}), (c, i)
    assert "a" in letters[0]  # the best mean has a


def test_compact_letters_by_hand() -> None:
    """A staircase (neighbours by mean do not differ) and a 4-cycle (s0-s2 and s1-s3
    differ), traced through insert-and-absorb by hand: the cycle's letters are the four
    pairs {0,1}, {0,3}, {1,2}, {2,3}."""
    staircase = {(i, j) for i, j in itertools.combinations(range(5), 2) if j - i >= 2}
    out = compact_letters(pairs_of([0.5, 0.4, 0.3, 0.2, 0.1], staircase), "v")
    assert out["letters"].to_list() == ["a", "ab", "bc", "cd", "d"]
    cycle = compact_letters(pairs_of([0.4, 0.3, 0.2, 0.1], {(0, 2), (1, 3)}), "v")
    assert cycle["letters"].to_list() == ["ab", "ac", "cd", "bd"]
    assert [sorted(c) for c in insert_absorb(4, [(0, 2), (1, 3)])] == [
        [0, 1],
        [0, 3],
        [1, 2],
        [2, 3],
    ]
    none = compact_letters(pairs_of([0.1, 0.3], set()), "v")
    assert none.rows() == [("s1", 0.3, "a"), ("s0", 0.1, "a")]  # by mean, best first


def test_compact_letters_order_dtype_and_errors() -> None:
    systems = random_systems(4, 30, seed=8)
    frame = frame_of(systems, by="run").with_columns(pl.col("run").str.slice(1).cast(pl.Int64))
    pairs = compare_pairs(frame, by="run", **FAST)
    out = compact_letters(pairs, "v", [0, 1, 2, 3], by="run", p_value="p_tukey", alpha=0.2)
    assert out.schema == pl.Schema({"run": pl.Int64, "mean": pl.Float64, "letters": pl.String})
    assert out["run"].to_list() == [0, 1, 2, 3]
    means = {r["run_a"]: r["mean_a"] for r in pairs.iter_rows(named=True)}
    assert out["mean"].to_list()[:3] == [means[0], means[1], means[2]]
    matrix = significance_matrix(pairs, "v", by="run", p_value="p_tukey", alpha=0.2)
    letters = dict(zip(out["run"], out["letters"], strict=True))
    for row in matrix.iter_rows(named=True):
        for other in range(4):
            if other != row["run"]:
                shared = bool(set(letters[row["run"]]) & set(letters[other]))
                assert shared == (row[str(other)] == "=")
    with pytest.raises(InvalidValueError, match="order must list each system"):
        compact_letters(pairs, "v", [0, 1, 2], by="run")
    with pytest.raises(InvalidValueError, match="measure 'w' is not in the comparison"):
        compact_letters(pairs, "w", by="run")


def test_many_letters_are_spaced() -> None:
    """Systems 0-7 differ among themselves, as do 8-15, and no pair across does: each of
    the 64 pairs across needs its own letter (no three systems share one), named a..Z,
    a2.. and spaced."""
    within = {p for half in (range(8), range(8, 16)) for p in itertools.combinations(half, 2)}
    out = compact_letters(pairs_of([1.0 - i / 20 for i in range(16)], within), "v")
    letters = [cell.split(" ") for cell in out["letters"]]
    assert len(set().union(*letters)) == 64
    assert all(len(cell) == 8 for cell in letters)
    assert "a2" in set().union(*letters)


# --- test=, the t-test and Wilcoxon per pair, the effect sizes (issue 28, items 8 and 9) ----


def test_each_pair_has_scipys_tests_and_numpys_effect_sizes() -> None:
    systems = {k: np.round(v, 1) for k, v in random_systems(4, 30, seed=5).items()}
    out = compare_pairs(frame_of(systems), trials=200, bootstrap=100, correction="bonferroni")
    for a, b in itertools.combinations(systems, 2):
        row, x, y = pair_row(out, a, b), systems[a], systems[b]
        d = y - x
        assert row["p_ttest"] == pytest.approx(scipy.stats.ttest_rel(y, x).pvalue, rel=1e-12)
        assert row["p_wilcoxon"] == pytest.approx(scipy.stats.wilcoxon(y, x).pvalue, rel=1e-12)
        assert row["d_z"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert row["change_pct"] == pytest.approx(100 * (y.mean() - x.mean()) / x.mean())
    for name in ("p_ttest", "p_wilcoxon"):
        expected = multipletests(out[name].to_numpy(), method="bonferroni")[1]
        np.testing.assert_allclose(out[f"{name}_adjusted"].to_numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_the_chosen_test_decides_significant_and_the_letters(test: Test) -> None:
    # 20 sign flips: no randomization p below 1/21, none significant after Holm over 6 pairs.
    frame = frame_of(random_systems(4, 30, seed=2))
    out = compare_pairs(frame, trials=20, bootstrap=50, test=test)
    column = {"t": "p_ttest_adjusted", "wilcoxon": "p_wilcoxon_adjusted"}[test]
    assert out["significant"].to_list() == (out[column] < 0.05).to_list()
    assert out["significant"].any() and not (out["p_randomization_adjusted"] < 0.05).any()
    via_compare = compare(frame, pairs="all", test=test, trials=20, bootstrap=50)
    assert_frame_equal(via_compare, out)
    letters = compact_letters(out, "v", p_value=column)
    assert letters["letters"].n_unique() > 1


def test_one_query_has_no_t_test_and_no_d_z() -> None:
    out = compare_pairs(frame_of({"a": np.array([0.2]), "b": np.array([0.5])}), **FAST)
    row = pair_row(out, "a", "b")
    assert (row["p_ttest"], row["p_ttest_adjusted"], row["d_z"]) == (None, None, None)
    assert row["p_wilcoxon"] == 1.0  # scipy's exact p on one difference
