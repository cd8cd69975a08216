"""The multiple-testing corrections (polars_graded.stats.corrections) against statsmodels'
``multipletests``, and each comparison passing ``correction=`` through."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, cast

import numpy as np
import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests

import polars_graded as pg
from polars_graded.cli import build_parser
from polars_graded.cli import gate as cli_gate
from polars_graded.errors import InvalidValueError
from polars_graded.report import compute_report
from polars_graded.stats.corrections import (
    ADJUSTMENTS,
    adjust,
    adjusted_column,
    correction_of,
)
from polars_graded.stats.gate import GateResult
from polars_graded.stats.latex import means_latex
from polars_graded.stats.options import CORRECTIONS, Correction

STATSMODELS = {
    "bonferroni": "bonferroni",
    "holm": "holm",
    "holm-sidak": "holm-sidak",
    "bh": "fdr_bh",
}
"""Our name of each correction and statsmodels' (``none`` is the identity)."""


def statsmodels(p: np.ndarray, correction: str) -> np.ndarray:
    """statsmodels' adjusted p-values of one family (``none``: ``p`` itself)."""
    if correction == "none":
        return p
    with np.errstate(divide="ignore"):  # its holm-sidak takes log1p(-1) at p = 1
        return np.asarray(multipletests(p, method=STATSMODELS[correction])[1])


def random_p(rng: np.random.Generator, m: int) -> np.ndarray:
    """p-values in [0, 1] with ties (rounded to 2 decimals, some repeated) and the ends."""
    p = np.round(rng.random(m), 2)
    p[rng.random(m) < 0.3] = p[0]
    p[rng.integers(m)] = rng.choice([0.0, 1.0])
    return p


@pytest.mark.parametrize("correction", CORRECTIONS)
@pytest.mark.parametrize("seed", range(8))
def test_equals_statsmodels(correction: Correction, seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = random_p(rng, int(rng.integers(1, 40)))
    np.testing.assert_allclose(adjust(p, correction), statsmodels(p, correction), rtol=1e-12)


@pytest.mark.parametrize("correction", CORRECTIONS)
def test_rows_are_families(correction: Correction) -> None:
    """Along the last axis: each row is adjusted alone, as statsmodels adjusts it."""
    rng = np.random.default_rng(1)
    p = np.stack([random_p(rng, 12) for _ in range(6)]).reshape(2, 3, 12)
    expected = np.stack([statsmodels(row, correction) for row in p.reshape(6, 12)])
    np.testing.assert_allclose(adjust(p, correction), expected.reshape(p.shape), rtol=1e-12)


@pytest.mark.parametrize("correction", CORRECTIONS)
def test_nan_stays_nan_and_leaves_the_family(correction: Correction) -> None:
    """A NaN (an undefined test) is not counted in m: the others are adjusted as
    statsmodels adjusts them without it (R's p.adjust rule)."""
    rng = np.random.default_rng(2)
    p = np.stack([random_p(rng, 10) for _ in range(3)])
    p[0, [1, 4]] = np.nan
    p[2] = np.nan
    out = adjust(p, correction)
    assert np.array_equal(np.isnan(out), np.isnan(p))
    kept = ~np.isnan(p[0])
    np.testing.assert_allclose(out[0, kept], statsmodels(p[0, kept], correction), rtol=1e-12)
    np.testing.assert_allclose(out[1], statsmodels(p[1], correction), rtol=1e-12)


def test_every_correction_has_an_adjustment_and_a_column() -> None:
    assert set(ADJUSTMENTS) == set(CORRECTIONS)
    columns = {adjusted_column("p_ttest", cast(Correction, c)) for c in CORRECTIONS}
    assert len(columns) == len(CORRECTIONS)
    for correction in CORRECTIONS:
        column = adjusted_column("p_randomization", cast(Correction, correction))
        assert correction_of(["x", column], "p_randomization") == correction
    assert correction_of(["p_randomization"], "p_randomization") is None


def test_unknown_correction() -> None:
    with pytest.raises(InvalidValueError, match=r"'holm-sidak', 'bh' or 'none', got 'BY'"):
        adjust(np.array([0.1]), "BY")  # type: ignore[arg-type]


# ------------------------------------------------------------------ each comparison


def per_query_values(n_queries: int = 24) -> pl.DataFrame:
    """Four systems, two measures, two segments; b and c better than a, d close to a."""
    rng = np.random.default_rng(5)
    shift = {"a": 0.0, "b": 0.15, "c": 0.08, "d": 0.02}
    return pl.DataFrame(
        {
            "system": [s for s in shift for _ in range(n_queries)],
            "query": list(range(n_queries)) * len(shift),
            "lang": ["en", "de"] * (n_queries // 2) * len(shift),
            "ap": np.concatenate([rng.random(n_queries) * 0.6 + v for v in shift.values()]),
            "rr": np.concatenate(
                [(rng.random(n_queries) < 0.4 + v).astype(float) for v in shift.values()]
            ),
        }
    )


OPTIONS: dict[str, Any] = {"trials": 199, "bootstrap": 50, "seed": 3}


def test_baseline_comparison_takes_every_correction() -> None:
    """Against the baseline (refused anything but Holm before): per measure and test, the
    non-baseline systems' p-values adjusted as statsmodels says, in a column named after
    the correction; ``significant`` follows the corrected randomization p-value."""
    values = per_query_values().drop("lang")
    corrections: tuple[Correction, ...] = ("bonferroni", "holm-sidak", "bh", "none")
    for correction in corrections:
        out = pg.compare(values, **OPTIONS, correction=correction)
        assert "p_randomization_holm" not in out.columns
        for test in ("p_ttest", "p_randomization"):
            column = adjusted_column(test, correction)
            for measure in ("ap", "rr"):
                rows = out.filter(pl.col("measure") == measure, pl.col("system") != "a")
                expected = statsmodels(rows[test].to_numpy(), correction)
                np.testing.assert_allclose(rows[column].to_numpy(), expected, rtol=1e-12)
                assert out.filter(pl.col("measure") == measure)[column][0] is None
        random = adjusted_column("p_randomization", correction)
        assert out["significant"].to_list() == (out[random] < 0.05).fill_null(False).to_list()
    holm = pg.compare(values, **OPTIONS)
    bonferroni = pg.compare(values, **OPTIONS, correction="bonferroni")
    # Holm's default is unchanged, and the correction moves no other number.
    assert "p_randomization_holm" in holm.columns
    same = ["mean", "ci_low", "ci_high", "diff", "p_ttest", "p_randomization"]
    assert holm.select(same).equals(bonferroni.select(same))


def test_pairs_take_the_correction() -> None:
    values = per_query_values().drop("lang")
    out = pg.compare(values, pairs="all", correction="bonferroni", **OPTIONS)
    assert out.equals(pg.compare_pairs(values, correction="bonferroni", **OPTIONS))
    for measure in ("ap", "rr"):
        rows = out.filter(pl.col("measure") == measure)
        expected = statsmodels(rows["p_randomization"].to_numpy(), "bonferroni")
        np.testing.assert_allclose(rows["p_randomization_adjusted"].to_numpy(), expected)
    holm = pg.compare(values, pairs="all", **OPTIONS)
    assert not holm["p_randomization_adjusted"].equals(out["p_randomization_adjusted"])


def test_segments_take_the_correction() -> None:
    """The family: the tested segments x the non-baseline systems of each measure."""
    values = per_query_values().drop("rr")
    out = pg.compare(values, segment="lang", min_queries=2, correction="bonferroni", **OPTIONS)
    for measure in ("ap",):
        rows = out.filter(pl.col("measure") == measure, pl.col("system") != "a")
        assert rows.height == 6
        expected = statsmodels(rows["p_randomization"].to_numpy(), "bonferroni")
        np.testing.assert_allclose(rows["p_randomization_adjusted"].to_numpy(), expected)


def long_table() -> pl.DataFrame:
    rng = np.random.default_rng(8)
    rows = [
        (system, q, f"d{i}", float(rng.random()), int(rng.random() < p))
        for system, p in (("base", 0.35), ("new", 0.5), ("alt", 0.4))
        for q in range(30)
        for i in range(4)
    ]
    return pl.DataFrame(
        rows, schema=["system", "query", "item", "score", "relevance"], orient="row"
    )


def test_gate_takes_the_correction() -> None:
    """Across the gate's measures; the default (none) leaves p_value as it is."""
    table, measures = long_table(), ["ap", "rr", "p@1"]
    keywords: dict[str, Any] = {
        "baseline": "base",
        "candidate": "new",
        "max_drop": 0.0,
        "bootstrap": 50,
    }
    plain = pg.gate(table, measures, **keywords).table
    assert plain["p_adjusted"].equals(plain["p_value"], check_names=False)
    out = pg.gate(table, measures, correction="bonferroni", **keywords)
    expected = statsmodels(out.table["p_value"].to_numpy(), "bonferroni")
    np.testing.assert_allclose(out.table["p_adjusted"].to_numpy(), expected)
    assert out.table["not_worse"].to_list() == (out.table["p_adjusted"] < 0.05).to_list()
    assert out.passed == all(out.table["not_worse"])


def test_gate_command_takes_the_correction(tmp_path: Path) -> None:
    long_table().write_parquet(tmp_path / "t.parquet")
    args = build_parser().parse_args(
        [
            "gate", str(tmp_path / "t.parquet"), "--baseline", "base", "--candidate", "new",
            "-m", "ap,rr", "--max-drop", "0", "--bootstrap", "50", "--correction", "holm",
            "--json", str(tmp_path / "v.json"),
        ]
    )  # fmt: skip
    cli_gate.run(args)
    verdict = json.loads((tmp_path / "v.json").read_text())
    p = np.array([row["p_value"] for row in verdict["measures"]])
    got = [row["p_adjusted"] for row in verdict["measures"]]
    np.testing.assert_allclose(got, statsmodels(p, "holm"))
    assert verdict["settings"]["correction"] == "holm"
    assert "p_adjusted (holm across measures)" in verdict["decision"]


def test_gate_lines_show_the_adjusted_p() -> None:
    table = pl.DataFrame(
        {"measure": ["ap"], "n_queries": [5], "baseline_mean": [0.3], "candidate_mean": [0.31],
         "diff": [0.01], "lower": [-0.002], "p_value": [0.004], "p_adjusted": [0.008],
         "not_worse": [True]}
    )  # fmt: skip
    args = argparse.Namespace(
        baseline="a", candidate="b", max_drop=0.01, alpha=0.05, correction="bonferroni"
    )
    line = cli_gate.verdict_lines(GateResult(table, True), args)[0]
    assert "p 0.004, bonferroni 0.008 (a 0.3000" in line


def test_report_takes_the_correction(tmp_path: Path) -> None:
    """compute_report passes it to the baseline comparison (and names it in its text);
    the command line's --correction lists every choice."""
    report = compute_report(long_table(), ["ap", "rr"], trials=99, bootstrap=20, correction="bh")
    comparison = report.comparison
    rows = comparison.filter(pl.col("measure") == "ap", pl.col("system") != "alt")
    expected = statsmodels(rows["p_randomization"].to_numpy(), "bh")
    np.testing.assert_allclose(rows["p_randomization_bh"].to_numpy(), expected)
    markdown = pg.report.to_markdown(report)
    assert "p rand. BH" in markdown and "Benjamini-Hochberg-corrected over the 2" in markdown
    help_text = build_parser().parse_args(["report", "t.csv"])
    assert help_text.correction == "holm"
    latex = means_latex(comparison)
    assert "Benjamini-Hochberg-corrected over the 2 systems" in latex


def test_command_line_choices_come_from_the_literal(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("report", "gate"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "{" + ",".join(CORRECTIONS) + "}" in text
        assert "--bootstrap-method {percentile,bca}" in text
