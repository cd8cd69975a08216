"""The statistics options (polars_graded.stats.options): one source of each default and check."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from polars_graded.cli import gate as cli_gate
from polars_graded.cli import report as cli_report
from polars_graded.errors import InvalidValueError
from polars_graded.namespace import GradedNamespace
from polars_graded.report import compute_report
from polars_graded.report.content import Settings
from polars_graded.report.ties import tie_effects
from polars_graded.stats.compare import compare
from polars_graded.stats.gate import gate
from polars_graded.stats.grid import compared_queries, query_grid
from polars_graded.stats.judgment_bounds import judgment_bounds
from polars_graded.stats.latex import means_latex
from polars_graded.stats.options import (
    BOOTSTRAP_METHODS,
    CORRECTION_NAMES,
    CORRECTIONS,
    DEFAULTS,
    GATE_CORRECTION,
    GATE_TEST,
    MAX_RESAMPLES,
    MISSING_POLICIES,
    Statistics,
    check_bootstrap_method,
    check_correction,
    check_count,
    check_fraction,
    check_missing,
    check_options,
    check_seed,
    check_test,
)
from polars_graded.stats.pairs import compact_letters, compare_pairs, significance_matrix
from polars_graded.stats.segments import compare_segments
from polars_graded.stats.stability import discriminative_power

OPTIONS = tuple(field.name for field in dataclasses.fields(Statistics))

PUBLIC: tuple[Callable[..., Any], ...] = (
    compare,
    compare_pairs,
    compare_segments,
    gate,
    compute_report,
    GradedNamespace.compare,
    judgment_bounds,
    compared_queries,
    query_grid,
    tie_effects,
    significance_matrix,
    compact_letters,
    discriminative_power,
    means_latex,
)


OWN_DEFAULTS: dict[tuple[str, str], object] = {
    ("gate", "correction"): GATE_CORRECTION,
    ("gate", "test"): GATE_TEST,
}
"""The defaults that differ from DEFAULTS on purpose: the gate corrects nothing across its
measures (it passes only when every measure passes), as before correction= existed, and
decides by its t-test, as before test= existed."""


def _default(owner: str, name: str) -> object:
    return OWN_DEFAULTS.get((owner, name), getattr(DEFAULTS, name))


def test_defaults() -> None:
    names = ("missing", "trials", "bootstrap", "confidence", "alpha", "seed", "correction")
    assert names == OPTIONS[: len(names)]
    assert {"test", "bootstrap_method"} <= set(OPTIONS)
    assert Statistics() == DEFAULTS
    assert (DEFAULTS.missing, DEFAULTS.trials, DEFAULTS.bootstrap) == ("zero", 10_000, 10_000)
    assert (DEFAULTS.confidence, DEFAULTS.alpha, DEFAULTS.seed) == (0.95, 0.05, 0)
    assert DEFAULTS.correction == "holm"
    assert MISSING_POLICIES == ("zero", "common")
    assert CORRECTIONS == ("bonferroni", "holm", "holm-sidak", "bh", "none")
    assert set(CORRECTION_NAMES) == set(CORRECTIONS)
    assert DEFAULTS.bootstrap_method == "percentile"
    assert BOOTSTRAP_METHODS == ("percentile", "bca")
    assert GATE_CORRECTION == "none"


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__qualname__)
def test_signature_defaults_are_the_defaults(function: Callable[..., Any]) -> None:
    """Every public function's default of an option is DEFAULTS' (the single source)."""
    parameters = inspect.signature(function).parameters
    shared = [name for name in OPTIONS if name in parameters]
    assert shared
    for name in shared:
        expected = _default(function.__name__, name)
        assert parameters[name].default == expected, (function, name)


@pytest.mark.parametrize("module", [cli_report, cli_gate], ids=["report", "gate"])
def test_command_defaults_are_the_defaults(module: Any) -> None:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    actions = {a.dest: a for a in parser._actions}
    shared = [name for name in OPTIONS if name in actions]
    assert shared
    for name in shared:
        action, expected = actions[name], _default(module.__name__.rsplit(".", 1)[1], name)
        assert action.default == expected, name
        assert f"{expected}" in (action.help or ""), name


def test_settings_hold_the_statistics() -> None:
    settings = Settings(measures=("ap",), baseline="a")
    assert settings.statistics is DEFAULTS
    assert not {f.name for f in dataclasses.fields(Settings)} & set(OPTIONS)


def test_keywords() -> None:
    statistics = Statistics("common", 5, 6, 0.9, 0.1, 7, "bh", bootstrap_method="bca")
    keywords = statistics.keywords()
    assert keywords == {
        "missing": "common",
        "trials": 5,
        "bootstrap": 6,
        "confidence": 0.9,
        "alpha": 0.1,
        "seed": 7,
        "correction": "bh",
        "test": DEFAULTS.test,
        "bootstrap_method": "bca",
        "large_sample": DEFAULTS.large_sample,
    }
    assert Statistics(**keywords) == statistics


def test_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULTS.trials = 5  # type: ignore[misc]
    assert dataclasses.replace(DEFAULTS, trials=5).trials == 5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"missing": "every"}, "missing must be 'zero' or 'common', got 'every'"),
        ({"trials": 0}, "trials must be an integer >= 1, got 0"),
        ({"trials": True}, "trials must be an integer >= 1, got True"),
        ({"trials": 2.0}, "trials must be an integer >= 1, got 2.0"),
        ({"bootstrap": -1}, "bootstrap must be an integer >= 1, got -1"),
        ({"confidence": 1.0}, "confidence must be a number strictly between 0 and 1, got 1.0"),
        ({"confidence": "0.9"}, "confidence must be a number strictly between 0 and 1, got '0.9'"),
        ({"alpha": 0}, "alpha must be a number strictly between 0 and 1, got 0"),
        (
            {"correction": "fdr"},
            "correction must be 'bonferroni', 'holm', 'holm-sidak', 'bh' or 'none', got 'fdr'",
        ),
        (
            {"correction": "fdr_bh"},
            "correction must be 'bonferroni', 'holm', 'holm-sidak', "
            "'bh' or 'none', got 'fdr_bh'; did you mean 'bh'?",
        ),
        (
            {"bootstrap_method": "BCa"},
            "bootstrap_method must be 'percentile' or 'bca', got 'BCa'; did you mean 'bca'?",
        ),
        ({"bootstrap_method": None}, "bootstrap_method must be 'percentile' or 'bca', got None"),
        (
            {"large_sample": "clt"},
            "large_sample must be 'auto', 'resample' or 'normal', got 'clt'",
        ),
        # In the order of the fields: the first bad option is named.
        ({"alpha": 2, "trials": 0, "correction": "x"}, "trials must be an integer >= 1"),
        ({"alpha": 2, "correction": "x"}, "alpha must be a number strictly between 0 and 1"),
    ],
)
def test_checks(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidValueError) as error:
        Statistics(**options)
    assert str(error.value).startswith(message)


def test_checks_are_the_functions() -> None:
    """The dataclass says what the check functions say, in the same order."""
    bad_values = (
        {"missing": "x"},
        {"bootstrap": 0},
        {"confidence": 2},
        {"correction": 1},
        {"bootstrap_method": "x", "correction": "y"},
    )
    for bad in (*bad_values, {"seed": -1}, {"trials": MAX_RESAMPLES + 1}):
        values: dict[str, Any] = {**DEFAULTS.keywords(), **bad}
        with pytest.raises(InvalidValueError) as expected:
            check_options(*(values[n] for n in OPTIONS[:5]))
            check_seed(values["seed"])
            check_correction(values["correction"])
            check_test(values["test"])
            check_bootstrap_method(values["bootstrap_method"])
        with pytest.raises(InvalidValueError) as got:
            Statistics(**values)
        assert str(got.value) == str(expected.value)
    check_missing("zero")
    check_count("trials", 1)
    check_fraction("alpha", 0.5)
    check_seed(0)
