"""``pg.gate`` (polars_graded/stats/gate.py, its tests in stats/one_sided.py): the one-sided
non-inferiority test against scipy, the bootstrap lower bound against a plain loop and the
exact resampling distribution, the missing-query policies, and the verdicts of a worse and of
an identical candidate; the equivalence test (TOST) against statsmodels' ``ttost_paired``,
the detectable drop against statsmodels' ``TTestPower``, and the weighted gate against
statsmodels' WLS with HC1 errors.

Every table puts one relevant item at a chosen rank per query, so a query's AP is
``1 / rank`` by hand and the per-query differences are known without the library.
"""

from __future__ import annotations

import importlib
import itertools
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.regression.linear_model import WLS
from statsmodels.stats.power import TTestPower
from statsmodels.stats.weightstats import ttost_paired
from support.gate import BASE, ap, ranked_table

import polars_graded as pg
from polars_graded.errors import InvalidValueError
from polars_graded.stats.gate import (
    DETECTABLE_COLUMNS,
    EQUIVALENCE_COLUMNS,
    GATE_COLUMNS,
    bootstrap_lower,
)
from polars_graded.stats.options import Test


def test_p_value_and_means_match_scipy() -> None:
    new = [1, 1, 2, 2, 1, 1, 3, 1]
    result = pg.gate(
        ranked_table({"prod": BASE, "new": new}),
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.05,
        bootstrap=200,
    )
    d = ap(new) - ap(BASE)
    expected = stats.ttest_1samp(d + 0.05, 0.0, alternative="greater").pvalue
    row = result.table.row(0, named=True)
    assert result.table.columns == [*GATE_COLUMNS, "detectable"]
    assert row["p_value"] == pytest.approx(expected, rel=1e-12)
    assert row["diff"] == pytest.approx(d.mean())
    assert row["baseline_mean"] == pytest.approx(ap(BASE).mean())
    assert row["candidate_mean"] == pytest.approx(ap(new).mean())
    assert row["n_queries"] == len(BASE)
    assert row["not_worse"] == (expected < 0.05)
    assert result.passed == row["not_worse"]


def test_lower_bound_is_the_plain_loop_percentile() -> None:
    new = [2, 1, 1, 1, 1, 3, 1, 2]
    d = ap(new) - ap(BASE)
    result = pg.gate(
        ranked_table({"prod": BASE, "new": new}),
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.01,
        alpha=0.1,
        bootstrap=3000,
        seed=7,
    )
    rng = np.random.default_rng(7)
    means = [d[rng.integers(0, d.size, size=d.size)].mean() for _ in range(3000)]
    assert result.table.item(0, "lower") == pytest.approx(np.quantile(means, 0.1), abs=1e-12)


def test_lower_bound_brackets_the_exact_bootstrap_quantile() -> None:
    d = np.array([-0.3, 0.1, 0.5])
    # Every one of the 3^3 equally likely resamples: the exact bootstrap distribution.
    exact = np.sort([d[list(index)].mean() for index in itertools.product(range(3), repeat=3)])
    cdf = np.arange(1, exact.size + 1) / exact.size
    low, high = (exact[np.searchsorted(cdf, q)] for q in (0.05 - 0.02, 0.05 + 0.02))
    assert low <= bootstrap_lower(d, 0.05, 20_000, seed=1) <= high


def test_chunks_draw_the_same_resamples(monkeypatch: pytest.MonkeyPatch) -> None:
    d = np.array([0.2, -0.1, 0.4, 0.0, 0.3])
    whole = bootstrap_lower(d, 0.05, 1000, seed=3)
    # pg.gate, the function, hides the module's attribute path: patch the module itself.
    module = importlib.import_module("polars_graded.stats.one_sided")
    monkeypatch.setattr(module, "CHUNK_ELEMENTS", 7)
    assert bootstrap_lower(d, 0.05, 1000, seed=3) == whole


def test_a_clearly_worse_candidate_fails() -> None:
    result = pg.gate(
        ranked_table({"prod": BASE, "new": [3] * len(BASE)}),
        ["ap", "p@1"],
        baseline="prod",
        candidate="new",
        max_drop=0.01,
        bootstrap=500,
    )
    assert not result.passed
    assert result.table.get_column("not_worse").to_list() == [False, False]
    assert (result.table.get_column("lower") < -0.01).all()


def test_identical_candidate_passes_with_a_margin_and_fails_without() -> None:
    # d = 0 everywhere. With max_drop > 0, d + max_drop is a positive constant: t = +inf,
    # p = 0. With max_drop = 0 the test is one of superiority and d + 0 = 0 gives no
    # evidence that the candidate is better: p = 1, so it fails.
    table = ranked_table({"prod": BASE, "new": BASE})
    options: dict[str, Any] = {"baseline": "prod", "candidate": "new", "bootstrap": 100}
    passing = pg.gate(table, ["ap"], max_drop=0.001, **options)
    failing = pg.gate(table, ["ap"], max_drop=0.0, **options)
    assert passing.passed
    assert passing.table.item(0, "p_value") == 0.0
    assert not failing.passed
    assert failing.table.item(0, "p_value") == 1.0
    assert failing.table.item(0, "lower") == 0.0


def test_missing_queries_zero_and_common() -> None:
    new: list[int | None] = [1, 1, 2, None, 1, 1, 3, 1]
    table = ranked_table({"prod": BASE, "new": new})
    zero = pg.gate(table, ["ap"], baseline="prod", candidate="new", max_drop=0.1, bootstrap=50)
    common = pg.gate(
        table,
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.1,
        missing="common",
        bootstrap=50,
    )
    kept = [i for i, rank in enumerate(new) if rank is not None]
    cand_zero = np.array([0.0 if r is None else 1 / r for r in new])
    d_zero = cand_zero - ap(BASE)
    d_common = d_zero[kept]
    for result, d in ((zero, d_zero), (common, d_common)):
        expected = stats.ttest_1samp(d + 0.1, 0.0, alternative="greater").pvalue
        assert result.table.item(0, "n_queries") == d.size
        assert result.table.item(0, "diff") == pytest.approx(d.mean())
        assert result.table.item(0, "p_value") == pytest.approx(expected, rel=1e-12)


def test_deterministic_with_seed() -> None:
    table = ranked_table({"prod": BASE, "new": [2, 1, 1, 1, 1, 3, 1, 2]})

    def lower(seed: int) -> float:
        result = pg.gate(table, ["ap"], baseline="prod", candidate="new", max_drop=0.01, seed=seed)
        return float(result.table.item(0, "lower"))

    assert lower(5) == lower(5)
    assert lower(5) != lower(6)


def test_other_systems_and_columns() -> None:
    table = ranked_table({"prod": BASE, "new": BASE, "other": [9] * len(BASE)})
    table = table.rename({"system": "run", "query": "topic"})
    result = pg.gate(
        table,
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.01,
        by="run",
        query="topic",
        bootstrap=50,
    )
    assert result.passed
    assert result.table.item(0, "n_queries") == len(BASE)


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"candidate": "nope"}, "candidate 'nope' is not a system of column 'system'"),
        ({"baseline": "nope"}, "baseline 'nope' is not a system"),
        ({"candidate": "prod"}, "must differ"),
        ({"max_drop": -0.1}, "max_drop must be a finite number >= 0"),
        ({"missing": "every"}, "missing must be"),
        ({"alpha": 1.5}, "alpha must be"),
        ({"bootstrap": 0}, "bootstrap must be"),
    ],
)
def test_bad_input(options: dict[str, Any], fragment: str) -> None:
    arguments: dict[str, Any] = {"baseline": "prod", "candidate": "new", "max_drop": 0.01}
    table = ranked_table({"prod": BASE, "new": BASE})
    with pytest.raises(InvalidValueError, match=fragment):
        pg.gate(table, ["ap"], **{**arguments, **options})


def test_no_shared_or_too_few_queries() -> None:
    disjoint = ranked_table({"prod": [1, 1, None, None], "new": [None, None, 1, 1]})
    with pytest.raises(InvalidValueError, match="no value of column 'query' is shared"):
        pg.gate(disjoint, ["ap"], baseline="prod", candidate="new", max_drop=0.0, missing="common")
    single = ranked_table({"prod": [1], "new": [2]})
    with pytest.raises(InvalidValueError, match="at least 2 compared queries"):
        pg.gate(single, ["ap"], baseline="prod", candidate="new", max_drop=0.0)


def test_unknown_measure() -> None:
    table = ranked_table({"prod": BASE, "new": BASE})
    with pytest.raises(pg.UnknownMeasureError):
        pg.gate(table, ["nope@3"], baseline="prod", candidate="new", max_drop=0.0)


# --- test=: the same margin for every test (issue 28, item 8) --------------------------------


def test_wilcoxon_gate_is_scipys_one_sided_test_on_shifted_differences() -> None:
    new = [1, 1, 2, 2, 1, 1, 3, 1]
    result = pg.gate(
        ranked_table({"prod": BASE, "new": new}),
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.05,
        bootstrap=100,
        test="wilcoxon",
    )
    d = ap(new) - ap(BASE)
    expected = stats.wilcoxon(d + 0.05, alternative="greater").pvalue
    assert result.table["p_value"][0] == pytest.approx(expected, rel=1e-12)
    assert result.passed == (expected < 0.05)


def test_randomization_gate_is_close_to_the_exact_one_sided_enumeration() -> None:
    new = [1, 1, 2, 1, 1, 1, 2, 1]
    d = ap(new) - ap(BASE) + 0.02
    flips = [np.dot(signs, d) for signs in itertools.product((1.0, -1.0), repeat=d.size)]
    exact = np.mean(np.array(flips) >= d.sum() - 1e-12)
    result = pg.gate(
        ranked_table({"prod": BASE, "new": new}),
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.02,
        bootstrap=100,
        trials=20_000,
        test="randomization",
    )
    # Binomial sd of the estimate at 20,000 trials: below 0.004 for any p.
    assert result.table["p_value"][0] == pytest.approx(exact, abs=0.015)


@pytest.mark.parametrize("test", ["wilcoxon", "randomization"])
def test_an_identical_candidate_passes_any_positive_margin(test: Test) -> None:
    table = ranked_table({"prod": BASE, "new": BASE})
    options: dict[str, Any] = {"baseline": "prod", "candidate": "new", "bootstrap": 100}
    assert pg.gate(table, ["ap"], max_drop=0.01, test=test, **options).passed
    assert not pg.gate(table, ["ap"], max_drop=0.0, test=test, **options).passed


def test_a_bad_gate_test_is_refused() -> None:
    with pytest.raises(InvalidValueError, match="test must be 'randomization', 't' or 'wilcoxon'"):
        pg.gate(
            ranked_table({"prod": BASE, "new": BASE}),
            ["ap"],
            baseline="prod",
            candidate="new",
            max_drop=0.01,
            test="sign",  # type: ignore[arg-type]
        )


# --- equivalence, the detectable drop, weights (issue 29, items 6 and 7) ---------------------

NEAR = [1, 2, 1, 3, 1, 2, 2, 1]
"""A candidate close to BASE: one query's AP moves from 1 to 1/2."""


def test_equivalence_is_statsmodels_ttost_paired() -> None:
    table = ranked_table({"prod": BASE, "new": NEAR, "worse": [3] * len(BASE)})
    for candidate, ranks in (("new", NEAR), ("worse", [3] * len(BASE))):
        result = pg.gate(
            table, ["ap"], baseline="prod", candidate=candidate, equivalence=0.2, bootstrap=200
        )
        expected = ttost_paired(ap(ranks), ap(BASE), -0.2, 0.2)[0]
        assert result.table.columns == [*GATE_COLUMNS[:6], *EQUIVALENCE_COLUMNS,
                                         *DETECTABLE_COLUMNS]  # fmt: skip
        assert result.table.item(0, "p_equivalence") == pytest.approx(expected, rel=1e-10)
        assert result.table.item(0, "equivalent") == (expected < 0.05)
        assert result.passed == (expected < 0.05)
    assert pg.gate(table, ["ap"], baseline="prod", candidate="new", equivalence=0.2).passed


def test_equivalence_interval_is_the_two_sided_bootstrap_quantiles() -> None:
    d = ap(NEAR) - ap(BASE)
    result = pg.gate(
        ranked_table({"prod": BASE, "new": NEAR}),
        ["ap"],
        baseline="prod",
        candidate="new",
        equivalence=0.1,
        alpha=0.1,
        bootstrap=2000,
        seed=5,
    )
    rng = np.random.default_rng(5)
    means = [d[rng.integers(0, d.size, size=d.size)].mean() for _ in range(2000)]
    low, high = np.quantile(means, [0.1, 0.9])  # the 1 - 2 alpha = 80% interval
    assert result.table.item(0, "lower") == pytest.approx(low, abs=1e-12)
    assert result.table.item(0, "upper") == pytest.approx(high, abs=1e-12)


def test_both_margins_give_both_verdicts_and_need_both() -> None:
    # The candidate is better by a lot: not worse by 0.01, but not within +-0.01 either.
    better = [1] * len(BASE)
    result = pg.gate(
        ranked_table({"prod": BASE, "new": better}),
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.01,
        equivalence=0.01,
        bootstrap=100,
    )
    assert result.table.columns == [*GATE_COLUMNS, *EQUIVALENCE_COLUMNS, *DETECTABLE_COLUMNS]
    assert result.table.row(0, named=True)["not_worse"] is True
    assert result.table.row(0, named=True)["equivalent"] is False
    assert not result.passed


@pytest.mark.parametrize("test", ["wilcoxon", "randomization"])
def test_equivalence_with_other_tests_takes_the_larger_one_sided_p(test: Test) -> None:
    d = ap(NEAR) - ap(BASE)
    result = pg.gate(
        ranked_table({"prod": BASE, "new": NEAR}),
        ["ap"],
        baseline="prod",
        candidate="new",
        equivalence=0.3,
        test=test,
        trials=4000,
        bootstrap=50,
    )
    if test == "wilcoxon":
        sides = [stats.wilcoxon(x, alternative="greater").pvalue for x in (d + 0.3, 0.3 - d)]
        expected = max(sides)
        assert result.table.item(0, "p_equivalence") == pytest.approx(expected, rel=1e-12)
    else:  # the exact one-sided sign-flip p-values of both sides, by enumeration
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.size)))
        sides = [np.mean(signs @ x >= x.sum() - 1e-12) for x in (d + 0.3, 0.3 - d)]
        assert result.table.item(0, "p_equivalence") == pytest.approx(max(sides), abs=0.02)


def test_detectable_drop_is_statsmodels_one_sided_power() -> None:
    new = [2, 1, 1, 1, 1, 3, 1, 2]
    d = ap(new) - ap(BASE)
    result = pg.gate(
        ranked_table({"prod": BASE, "new": new}),
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.01,
        equivalence=0.01,
        alpha=0.1,
        bootstrap=50,
    )
    solver = TTestPower()
    one = solver.solve_power(nobs=8, alpha=0.1, power=0.8, alternative="larger")
    both = solver.solve_power(nobs=8, alpha=0.1, power=0.9, alternative="larger")
    sd = d.std(ddof=1)
    assert result.table.item(0, "detectable") == pytest.approx(sd * one, rel=1e-4)
    assert result.table.item(0, "detectable_equivalence") == pytest.approx(sd * both, rel=1e-4)


def test_a_gate_needs_a_margin_and_a_positive_equivalence() -> None:
    table = ranked_table({"prod": BASE, "new": BASE})
    with pytest.raises(InvalidValueError, match=r"give max_drop= .* equivalence= .* or both"):
        pg.gate(table, ["ap"], baseline="prod", candidate="new")
    for bad in (0.0, -0.1, float("inf")):
        with pytest.raises(InvalidValueError, match="equivalence must be a finite number > 0"):
            pg.gate(table, ["ap"], baseline="prod", candidate="new", equivalence=bad)


def weighted_table(weights: list[float]) -> pl.DataFrame:
    table = ranked_table({"prod": BASE, "new": NEAR})
    clicks = pl.DataFrame({"query": [str(q) for q in range(len(BASE))], "clicks": weights})
    return table.join(clicks, on="query")


def test_weighted_gate_is_wls_with_hc1_errors() -> None:
    weights = [5.0, 1.0, 1.0, 2.0, 8.0, 1.0, 3.0, 1.0]
    w, d = np.array(weights), ap(NEAR) - ap(BASE)
    result = pg.gate(
        weighted_table(weights),
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.05,
        equivalence=0.2,
        weight="clicks",
        bootstrap=100,
    )
    row = result.table.row(0, named=True)
    assert row["diff"] == pytest.approx(np.average(d, weights=w), rel=1e-12)
    assert row["baseline_mean"] == pytest.approx(np.average(ap(BASE), weights=w), rel=1e-12)

    def weighted_one_sided_p(x: np.ndarray) -> float:
        fit = WLS(x, np.ones_like(x), weights=w).fit(cov_type="HC1")
        return float(stats.t.sf(fit.tvalues[0], x.size - 1))  # robust df n - 1

    assert row["p_value"] == pytest.approx(weighted_one_sided_p(d + 0.05), rel=1e-9)
    tost = max(weighted_one_sided_p(d + 0.2), weighted_one_sided_p(0.2 - d))
    assert row["p_equivalence"] == pytest.approx(tost, rel=1e-9)
    # Equal weights are no weights.
    same = pg.gate(weighted_table([2.0] * 8), ["ap"], baseline="prod", candidate="new",
                   max_drop=0.05, weight="clicks", bootstrap=100)  # fmt: skip
    plain = pg.gate(weighted_table([2.0] * 8), ["ap"], baseline="prod", candidate="new",
                    max_drop=0.05, bootstrap=100)  # fmt: skip
    assert same.table.item(0, "p_value") == pytest.approx(plain.table.item(0, "p_value"))


def test_weighted_gate_refuses_a_varying_weight_and_wilcoxon() -> None:
    table = ranked_table({"prod": BASE, "new": NEAR}).with_columns(
        clicks=pl.int_range(pl.len()).cast(pl.Float64)
    )
    with pytest.raises(InvalidValueError, match="clicks"):
        pg.gate(table, ["ap"], baseline="prod", candidate="new", max_drop=0.01, weight="clicks")
    with pytest.raises(InvalidValueError, match=r"wilcoxon.*no weighted form"):
        pg.gate(weighted_table([1.0] * 8), ["ap"], baseline="prod", candidate="new",
                max_drop=0.01, weight="clicks", test="wilcoxon")  # fmt: skip


def test_large_samples_take_the_normal_limits() -> None:
    # large_sample="normal": the bound is mean + z_alpha * sqrt(sum (d - mean)^2) / n (the
    # bootstrap's exact sd), and the randomization test's p is 1 - Phi(sum e / sqrt(sum e^2)).
    d = ap(NEAR) - ap(BASE)
    result = pg.gate(
        ranked_table({"prod": BASE, "new": NEAR}),
        ["ap"],
        baseline="prod",
        candidate="new",
        max_drop=0.1,
        equivalence=0.2,
        test="randomization",
        large_sample="normal",
    )
    row = result.table.row(0, named=True)
    sd = np.sqrt(np.square(d - d.mean()).sum()) / d.size
    assert row["lower"] == pytest.approx(d.mean() + stats.norm.ppf(0.05) * sd, rel=1e-12)
    assert row["upper"] == pytest.approx(d.mean() + stats.norm.ppf(0.95) * sd, rel=1e-12)
    e = d + 0.1
    assert row["p_value"] == pytest.approx(stats.norm.sf(e.sum() / np.sqrt(e @ e)), rel=1e-12)
    sides = [stats.norm.sf(x.sum() / np.sqrt(x @ x)) for x in (d + 0.2, 0.2 - d)]
    assert row["p_equivalence"] == pytest.approx(max(sides), rel=1e-12)
    assert result.plan is not None and result.plan.normal("bootstrap")
