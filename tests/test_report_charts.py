"""The report's figures (polars_graded/report/charts.py): PNG data URIs that decode back to
the bytes (the standard library's base64), and bars coloured by the comparison's verdict in
the Okabe-Ito colours (blue 0, 114, 178 better; vermillion 213, 94, 0 worse), read back
from the drawn pixels."""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
import polars as pl
import pytest
from matplotlib import image

from polars_graded.report import charts
from polars_graded.report.charts import PNG_SIGNATURE, data_uri, measure_bars

BLUE = np.array([0, 114, 178]) / 255
VERMILLION = np.array([213, 94, 0]) / 255


@pytest.mark.parametrize(
    "png", [b"", PNG_SIGNATURE, bytes(range(256)) * 3], ids=["empty", "signature", "every byte"]
)
def test_a_data_uri_decodes_to_the_bytes(png: bytes) -> None:
    prefix, _, payload = data_uri(png).partition(",")
    assert prefix == "data:image/png;base64"
    assert base64.b64decode(payload, validate=True) == png


def pixels_of(png: bytes, colour: np.ndarray) -> int:
    """How many pixels of the image have ``colour`` (within 2%)."""
    assert png[:8] == PNG_SIGNATURE
    rgb = image.imread(io.BytesIO(png), format="png")[..., :3]
    return int((np.abs(rgb - colour).max(axis=2) < 0.02).sum())


def comparison(significant: list[bool]) -> pl.DataFrame:
    """A baseline and three systems (better, worse, same) of one measure."""
    return pl.DataFrame(
        {
            "measure": ["ap"] * 4,
            "system": ["base", "up", "down", "same"],
            "mean": [0.5, 0.7, 0.3, 0.5],
            "ci_low": [0.4, 0.6, 0.2, 0.4],
            "ci_high": [0.6, 0.8, 0.4, 0.6],
            "diff": [0.0, 0.2, -0.2, 0.0],
            "significant": significant,
        }
    )


def test_bars_are_coloured_by_the_verdict() -> None:
    order = ["base", "up", "down", "same"]
    marked = measure_bars(comparison([False, True, True, False]), "ap", order, 0.95)
    assert pixels_of(marked, BLUE) > 500
    assert pixels_of(marked, VERMILLION) > 500
    plain = measure_bars(comparison([False] * 4), "ap", order, 0.95)
    assert pixels_of(plain, BLUE) == 0
    assert pixels_of(plain, VERMILLION) == 0


# --------------------------------------------------------------------------- at log scale


def differences_figure(monkeypatch: pytest.MonkeyPatch, queries: int) -> Any:
    """The figure :func:`differences` draws for two systems over ``queries`` queries (its
    PNG step replaced by one that hands the figure back)."""
    rng = np.random.default_rng(3)
    paired = pl.DataFrame(
        {
            "system": ["b"] * queries + ["c"] * queries,
            "query": list(range(queries)) * 2,
            "diff": rng.normal(0.02, 0.2, 2 * queries).round(2),
        }
    )
    verdict = pl.DataFrame(
        {"system": ["a", "b", "c"], "measure": "ap", "significant": False, "diff": 0.0}
    )
    monkeypatch.setattr(charts, "_png", lambda figure: figure)
    return charts.differences(paired, "ap", ["a", "b", "c"], verdict), paired


def test_up_to_the_threshold_the_chart_draws_a_bar_per_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    figure, paired = differences_figure(monkeypatch, charts.MAX_QUERY_MARKS)
    panels = [axes for axes in figure.axes if axes.get_visible()]
    assert [len(axes.patches) for axes in panels] == [charts.MAX_QUERY_MARKS] * 2
    heights = sorted((p.get_height() for p in panels[0].patches), reverse=True)
    assert heights == sorted(paired.filter(pl.col("system") == "b")["diff"], reverse=True)
    assert not charts.distribution_note(paired)


def test_above_the_threshold_the_chart_draws_a_curve_and_its_quantiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    queries = 20 * charts.MAX_QUERY_MARKS
    figure, paired = differences_figure(monkeypatch, queries)
    diffs = paired.filter(pl.col("system") == "b")["diff"].to_numpy()
    axes = figure.axes[0]
    assert not axes.patches  # no bar per query: the marks do not grow with the queries
    curve, dots = axes.lines[0], axes.lines[1]
    x, y = curve.get_xdata(), curve.get_ydata()
    assert len(x) == charts.CURVE_POINTS
    assert (y[0], y[-1]) == (diffs.max(), diffs.min())
    assert np.all(np.diff(y) <= 0)
    # Each point is the sorted value at its rank (numpy's sort as the reference).
    ranks = np.rint(np.asarray(x) * (queries - 1)).astype(int)
    np.testing.assert_array_equal(y, np.sort(diffs)[::-1][ranks])
    # The dots: numpy's percentiles (linear interpolation) at the marked quantiles.
    expected = np.percentile(diffs, [100 * q for q in charts.MARKED_QUANTILES])
    np.testing.assert_allclose(dots.get_ydata(), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dots.get_xdata(), [1 - q for q in charts.MARKED_QUANTILES])
    better, worse = int((diffs > 0).sum()), int((diffs < 0).sum())
    assert f"{better:,} better, {worse:,} worse" in axes.get_title()
    assert f"{queries:,} queries" in charts.distribution_note(paired)


def test_a_log_scale_chart_renders_as_a_png() -> None:
    queries = 50_000
    rng = np.random.default_rng(5)
    paired = pl.DataFrame(
        {"system": "b", "query": range(queries), "diff": rng.normal(0, 0.1, queries)}
    )
    verdict = pl.DataFrame({"system": ["a", "b"], "measure": "ap", "significant": False})
    png = charts.differences(paired, "ap", ["a", "b"], verdict.with_columns(diff=0.0))
    assert png[:8] == PNG_SIGNATURE
    assert pixels_of(png, BLUE) > 1000 and pixels_of(png, VERMILLION) > 1000
