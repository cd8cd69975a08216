"""``pg.topic_set_size`` and ``pg.minimum_detectable_difference``
(polars_graded/stats/power.py) against statsmodels' ``TTestPower`` (its exact power of the
one-sample t-test, solved by its own root finder), the weighted spread against statsmodels'
WLS with HC1 standard errors, and the edge cases (sd 0, one query, bad options).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from statsmodels.regression.linear_model import WLS
from statsmodels.stats.power import TTestPower, ttest_power
from support.gate import ap, ranked_table

import polars_graded as pg
from polars_graded.errors import InvalidValueError
from polars_graded.report import compute_report
from polars_graded.report.markdown import to_markdown
from polars_graded.report.sizing import sizing_lines
from polars_graded.stats.power import (
    DETECTABLE_COLUMNS,
    SIZE_COLUMNS,
    detectable_effect,
    required_queries,
    spread,
    t_power,
)

SOLVER = TTestPower()


@pytest.mark.parametrize("alpha", [0.01, 0.05])
@pytest.mark.parametrize("power", [0.8, 0.9])
def test_required_queries_is_statsmodels_solution_rounded_up(alpha: float, power: float) -> None:
    for effect in (0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0):
        n = required_queries(effect, alpha, power)
        assert n is not None
        solved = SOLVER.solve_power(effect_size=effect, alpha=alpha, power=power)
        assert n == math.ceil(solved - 1e-7), (effect, alpha, power)
        # The smallest such integer, by statsmodels' own power function.
        assert ttest_power(effect, n, alpha) >= power > ttest_power(effect, n - 1, alpha)


def test_power_function_is_statsmodels() -> None:
    for effect, n, alpha in [(0.3, 40, 0.05), (1.0, 5, 0.01), (0.05, 3000, 0.05), (6.0, 3, 0.05)]:
        expected = ttest_power(effect, n, alpha, alternative="two-sided")
        assert t_power(effect, n, alpha) == pytest.approx(expected, rel=1e-9, abs=1e-12)
        one_sided = ttest_power(effect, n, alpha, alternative="larger")
        assert t_power(effect, n, alpha, "larger") == pytest.approx(one_sided, rel=1e-9)


def test_a_huge_effect_needs_two_queries() -> None:
    assert required_queries(50.0, 0.05, 0.8) == 2


@pytest.mark.parametrize("n", [3, 10, 50, 247.5, 5000])
def test_detectable_effect_is_statsmodels(n: float) -> None:
    for alpha, power in [(0.05, 0.8), (0.01, 0.9)]:
        effect = detectable_effect(n, alpha, power)
        # statsmodels' power function at our solution is the target, when it is finite
        # (scipy's noncentral t cdf is NaN far in the tail for n=3, alpha 0.01) ...
        at = ttest_power(effect, n, alpha)
        assert math.isnan(at) or at == pytest.approx(power, rel=1e-9)
        # ... and its own root finder lands next to it where it converges (its tolerance
        # leaves about 1e-4 of power; for n=3, alpha 0.01 it stops at power 0.41).
        solved = SOLVER.solve_power(nobs=n, effect_size=None, alpha=alpha, power=power)
        if ttest_power(solved, n, alpha) == pytest.approx(power, abs=1e-3):
            assert effect == pytest.approx(solved, rel=1e-4)


def per_query_table(seed: int = 1, n: int = 40) -> tuple[pl.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.6, n)
    values = np.stack([base, base + rng.normal(0.02, 0.05, n), base + rng.normal(0, 0.1, n)])
    frame = pl.DataFrame(
        {
            "run": np.repeat(["bm25", "dense", "hybrid"], n),
            "query": np.tile(np.arange(n), 3),
            "ndcg": values.ravel(),
            "ap": (values**2).ravel(),
        }
    )
    return frame, values


def test_topic_set_size_per_measure_and_system() -> None:
    frame, values = per_query_table()
    out = pg.topic_set_size(frame, by="run", baseline="bm25", delta=0.01, alpha=0.05, power=0.9)
    assert out.columns == ["measure", "run", "baseline", *SIZE_COLUMNS]
    assert out.select("measure", "run").rows() == [
        ("ndcg", "dense"),
        ("ndcg", "hybrid"),
        ("ap", "dense"),
        ("ap", "hybrid"),
    ]
    for row, d in zip(
        out.iter_rows(named=True),
        [values[1] - values[0], values[2] - values[0], values[1] ** 2 - values[0] ** 2,
         values[2] ** 2 - values[0] ** 2],
        strict=True,
    ):  # fmt: skip
        sd = d.std(ddof=1)
        solved = SOLVER.solve_power(effect_size=0.01 / sd, alpha=0.05, power=0.9)
        assert row["sd"] == pytest.approx(sd, rel=1e-12)
        assert row["n_required"] == math.ceil(solved - 1e-7)
        assert (row["n_queries"], row["n_effective"], row["delta"]) == (40, 40.0, 0.01)
        assert row["baseline"] == "bm25" and row["note"] is None


def test_minimum_detectable_difference_is_statsmodels() -> None:
    frame, values = per_query_table(seed=2, n=25)
    out = pg.minimum_detectable_difference(
        frame, ["ap"], by="run", baseline="bm25", candidate="hybrid", alpha=0.01
    )
    assert out.columns == ["measure", "run", "baseline", *DETECTABLE_COLUMNS]
    d = values[2] ** 2 - values[0] ** 2
    effect = SOLVER.solve_power(nobs=25, effect_size=None, alpha=0.01, power=0.8)
    assert out.height == 1
    assert out.item(0, "detectable") == pytest.approx(d.std(ddof=1) * effect, rel=1e-6)


def test_the_detectable_difference_needs_about_the_current_queries() -> None:
    # The two functions agree: sizing for the detectable difference asks for n queries.
    frame, _ = per_query_table(seed=3, n=30)
    mdd = pg.minimum_detectable_difference(frame, ["ndcg"], by="run", baseline="bm25")
    delta = mdd.item(0, "detectable") * (1 + 1e-9)
    size = pg.topic_set_size(frame, ["ndcg"], by="run", baseline="bm25", delta=delta)
    assert size.item(0, "n_required") == 30


def test_weighted_spread_is_wls_with_hc1_errors() -> None:
    rng = np.random.default_rng(4)
    d = rng.normal(0.01, 0.1, 30)
    w = rng.integers(1, 50, 30).astype(float)
    n, n_effective, sd = spread(d, w)
    fit = WLS(d, np.ones_like(d), weights=w).fit(cov_type="HC1")
    assert n == 30
    assert n_effective == pytest.approx(w.sum() ** 2 / (w**2).sum())
    assert sd / math.sqrt(n_effective) == pytest.approx(fit.bse[0], rel=1e-10)
    # Equal weights are no weights.
    assert spread(d, np.full(30, 7.0)) == pytest.approx(spread(d))


def test_weight_column_gives_effective_queries() -> None:
    frame, values = per_query_table(seed=5, n=20)
    weights = np.arange(1, 21, dtype=float)
    frame = frame.with_columns(clicks=pl.Series(np.tile(weights, 3)))
    out = pg.minimum_detectable_difference(
        frame, by="run", baseline="bm25", candidate="dense", weight="clicks"
    )
    assert out.get_column("measure").to_list() == ["ndcg", "ap"]  # not the weight
    d = values[1] - values[0]
    n_effective = weights.sum() ** 2 / (weights**2).sum()
    se = WLS(d, np.ones_like(d), weights=weights).fit(cov_type="HC1").bse[0]
    sd = se * math.sqrt(n_effective)
    effect = SOLVER.solve_power(nobs=n_effective, effect_size=None, alpha=0.05, power=0.8)
    row = out.row(0, named=True)
    assert (row["n_queries"], row["n_effective"]) == (20, pytest.approx(n_effective))
    assert row["detectable"] == pytest.approx(sd * effect, rel=1e-6)


def test_a_weight_that_varies_within_a_query_is_refused() -> None:
    frame, _ = per_query_table(n=5)
    frame = frame.with_columns(clicks=pl.int_range(pl.len()).cast(pl.Float64))
    with pytest.raises(InvalidValueError, match="clicks"):
        pg.topic_set_size(frame, by="run", delta=0.01, weight="clicks")


def test_no_spread_or_too_few_queries_give_a_null_and_a_note() -> None:
    frame = pl.DataFrame(
        {"system": ["a", "a", "b", "b"], "query": [1, 2, 1, 2], "ap": [0.25, 0.5, 0.5, 0.75]}
    )
    out = pg.topic_set_size(frame, delta=0.01)
    assert out.item(0, "n_required") is None
    assert "do not vary (sd 0)" in out.item(0, "note")
    one = pg.minimum_detectable_difference(frame.filter(pl.col("query") == 1))
    assert one.item(0, "detectable") is None
    assert one.item(0, "note").startswith("fewer than 2")


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"delta": 0}, "delta must be a finite number > 0"),
        ({"delta": -0.01}, "delta must be a finite number > 0"),
        ({"delta": float("nan")}, "delta must be a finite number > 0"),
        ({"delta": 0.01, "alpha": 1.5}, "alpha must be a number strictly between 0 and 1"),
        ({"delta": 0.01, "power": 1}, "power must be a number strictly between 0 and 1"),
        ({"delta": 0.01, "power": 0.04}, "power must exceed alpha"),
        ({"delta": 0.01, "candidate": "zzz"}, "candidate 'zzz' is not a system of column 'run'"),
        ({"delta": 0.01, "candidate": "bm25"}, "candidate 'bm25' is the baseline"),
        ({"delta": 0.01, "baseline": "zzz"}, "baseline 'zzz' is not a system"),
    ],
)
def test_bad_options(options: dict[str, object], fragment: str) -> None:
    frame, _ = per_query_table(n=5)
    with pytest.raises(InvalidValueError, match=fragment):
        pg.topic_set_size(frame, by="run", **options)  # type: ignore[arg-type]


def test_the_report_says_what_the_queries_detect() -> None:
    base, new = [1, 2, 1, 3, 1, 2, 1, 1], [2, 1, 1, 1, 1, 3, 1, 2]
    report = compute_report(
        ranked_table({"prod": base, "new": new}), ["ap"], baseline="prod", trials=50,
        bootstrap=50,
    )  # fmt: skip
    d = ap(new) - ap(base)
    sd = d.std(ddof=1)
    detectable = sd * SOLVER.solve_power(nobs=8, effect_size=None, alpha=0.05, power=0.8)
    needed = math.ceil(SOLVER.solve_power(effect_size=0.01 / sd, alpha=0.05, power=0.8))
    assert report.sizing is not None
    assert report.sizing.item(0, "n_required") == needed
    sentence = (
        f"Power of ap, new against prod: with 8 queries the paired t-test detects differences "
        f"of at least {detectable:#.2g} (80% power, α = 0.05); detecting 0.01 would need "
        f"{needed:,} queries."
    )
    assert sizing_lines(report) == [sentence]
    assert sentence in to_markdown(report)
