"""``pg.gate`` (polars_graded/gate.py): the one-sided non-inferiority test against scipy,
the bootstrap lower bound against a plain loop and the exact resampling distribution, the
missing-query policies, and the verdicts of a worse and of an identical candidate.

Every table puts one relevant item at a chosen rank per query, so a query's AP is
``1 / rank`` by hand and the per-query differences are known without the library.
"""

from __future__ import annotations

import importlib
import itertools
from typing import Any

import numpy as np
import pytest
from scipy import stats
from support.gate import BASE, ap, ranked_table

import polars_graded as pg
from polars_graded.errors import InvalidValueError
from polars_graded.stats.gate import GATE_COLUMNS, bootstrap_lower
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
    assert result.table.columns == list(GATE_COLUMNS)
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
    monkeypatch.setattr(importlib.import_module("polars_graded.stats.gate"), "CHUNK_ELEMENTS", 7)
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
