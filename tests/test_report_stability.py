"""The report's section "Stability of the verdict" (polars_graded/report/stability.py): the
means behind it against the library's own entry points, the correlations against scipy, the
discriminative power by counting report.pairs, the section in HTML and Markdown, the heat
map, and ``polars-graded report`` writing it."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
import scipy.stats
from support.cli import run
from support.report import PNG_SIGNATURE, Page, synthetic_table, tied_synthetic_table

import polars_graded as pg
from polars_graded.report import Report, compute_report, to_html, to_markdown
from polars_graded.report.blocks import Figure, Table
from polars_graded.report.charts import tau_heatmap
from polars_graded.report.inputs import report_spec
from polars_graded.report.stability import (
    stability_means,
    stability_section,
    variant_kinds,
)

MEASURES = ["mu_ap", "ndcg@3", "p@2"]


@pytest.fixture(scope="module")
def tied() -> Report:
    return compute_report(tied_synthetic_table(), MEASURES, trials=200, bootstrap=200)


@pytest.fixture(scope="module")
def plain() -> Report:
    return compute_report(synthetic_table(), MEASURES, trials=200, bootstrap=200)


def _values(means: pl.DataFrame, variant: str) -> dict[str, float]:
    return dict(means.filter(pl.col("variant") == variant).select("system", "value").rows())


# --------------------------------------------------------------------------- numbers


def test_the_variants_of_a_report_with_ties(tied: Report) -> None:
    assert variant_kinds(tied) == {
        "mu_ap": "measure",
        "ndcg@3": "measure",
        "p@2": "measure",
        "MAP rel≥1": "threshold",
        "MAP rel≥2": "threshold",
        "ndcg(gain=linear)@3": "gain",
        "mu_ap [ties=average]": "ties",
        "ndcg@3 [ties=average]": "ties",
        "p@2 [ties=average]": "ties",
    }


def test_without_ties_there_is_no_tie_variant(plain: Report) -> None:
    assert "ties" not in variant_kinds(plain).values()


def test_each_mean_comes_from_its_source(tied: Report) -> None:
    table = tied_synthetic_table()
    means = stability_means(table.lazy(), report_spec({}), tied)
    assert means.select("variant", "system").is_duplicated().sum() == 0
    comparison = tied.comparison.filter(pl.col("measure") == "ndcg@3")
    assert _values(means, "ndcg@3") == dict(comparison.select("system", "mean").rows())
    thresholds = pg.per_threshold(table, by="system").filter(pl.col("threshold") == 2)
    # The report's MAP may add the same sums in another order (the last bit may differ).
    expected_map = dict(thresholds.select("system", "map").rows())
    assert _values(means, "MAP rel≥2") == pytest.approx(expected_map, rel=1e-12, abs=0.0)
    # Every system has every query here, so a plain mean is the comparison's.
    linear = pg.evaluate(table, ["ndcg(gain=linear)@3"], by="system")
    expected = dict(linear.group_by("system").agg(pl.col("ndcg(gain=linear)@3").mean()).rows())
    assert _values(means, "ndcg(gain=linear)@3") == pytest.approx(expected, abs=1e-15)
    averaged = pg.evaluate(table, ["p@2"], by="system", ties="average")
    expected = dict(averaged.group_by("system").agg(pl.col("p@2").mean()).rows())
    assert _values(means, "p@2 [ties=average]") == pytest.approx(expected, abs=1e-15)


def test_the_correlations_are_scipys(tied: Report) -> None:
    assert tied.stability is not None
    means = stability_means(tied_synthetic_table().lazy(), report_spec({}), tied)
    a, b = _values(means, "mu_ap"), _values(means, "ndcg@3 [ties=average]")
    systems = sorted(a)
    expected = scipy.stats.kendalltau([a[s] for s in systems], [b[s] for s in systems]).statistic
    row = tied.stability.filter(
        (pl.col("variant_a") == "mu_ap") & (pl.col("variant_b") == "ndcg@3 [ties=average]")
    )
    assert row["tau"].item() == pytest.approx(expected, abs=1e-12)
    assert tied.stability.height == 9 * 8


def test_power_counts_the_pairs(tied: Report) -> None:
    assert tied.pairs is not None and tied.power is not None
    for measure, n_pairs, n_significant, share in tied.power.rows():
        rows = tied.pairs.filter(pl.col("measure") == measure)
        hits = int((rows["p_randomization_adjusted"] < tied.settings.statistics.alpha).sum())
        assert (n_pairs, n_significant, share) == (rows.height, hits, hits / rows.height)
    assert tied.power["measure"].to_list() == MEASURES


# --------------------------------------------------------------------------- words


def test_the_section_in_html_and_markdown(tied: Report) -> None:
    section = stability_section(tied)
    assert section is not None and section.title == "Stability of the verdict"
    text, figure, first, power_text, power = section.parts
    assert isinstance(text, str) and "each of 9 variants" in text
    assert "disagree most: mu_ap and ndcg@3 [ties=average]" in text
    assert isinstance(figure, Figure) and figure.png[:8] == PNG_SIGNATURE
    assert isinstance(first, Table) and first.frame["variant"].to_list()[0] == "ndcg@3"
    assert isinstance(power_text, str) and "separate" in power_text
    assert isinstance(power, Table) and power.frame.columns[-1] == "significant_share"

    page = Page(to_html(tied))
    assert {"stability-first", "stability-power"} <= set(page.tables)
    html = to_html(tied)
    assert '<a href="#stability">Stability of the verdict</a>' in html
    assert html.index('id="stability"') < html.index('id="ties"')
    markdown = to_markdown(tied).splitlines()
    assert markdown.index("## Stability of the verdict") < markdown.index("## Tied scores")
    assert "| variant | systems | τ | τ_AP |" in markdown
    assert any(line.startswith("*Figure (report.html): Kendall's τ") for line in markdown)


def test_two_systems_are_too_few_to_compare() -> None:
    table = synthetic_table().filter(pl.col("system") != "c")
    rep = compute_report(table, ["ap"], trials=200, bootstrap=200)
    section = stability_section(rep)
    assert section is not None
    first = section.parts[0]
    assert isinstance(first, str)
    assert first.startswith("With 2 systems, the orders are too short to compare")
    assert not any(isinstance(part, Figure) for part in section.parts)
    assert "too short to compare" in to_markdown(rep)


def test_the_heat_map_renders_with_many_variants_and_a_gap() -> None:
    names = [f"measure number {i}" for i in range(20)]
    rows = [(a, b, 0.5 if (a, b) != (names[0], names[1]) else float("nan")) for a in names
            for b in names if a != b]  # fmt: skip
    frame = pl.DataFrame(rows, schema=["variant_a", "variant_b", "tau"], orient="row")
    assert tau_heatmap(frame, names)[:8] == PNG_SIGNATURE


# --------------------------------------------------------------------------- command line


def test_the_command_line_report_has_the_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "runs.parquet"
    tied_synthetic_table().write_parquet(source)
    out = tmp_path / "out"
    argv = ["report", str(source), "--out", str(out), "-m", "mu_ap,ndcg@3"]
    code, _, err = run([*argv, "--trials", "200", "--bootstrap", "200"], capsys)
    assert (code, err) == (0, "")
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="stability"' in html and 'id="stability-power"' in html
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "## Stability of the verdict" in markdown
    assert "ndcg(gain=linear)@3" in markdown
