"""The report's figures (polars_graded/report/charts.py): PNG data URIs that decode back to
the bytes (the standard library's base64), and bars coloured by the comparison's verdict in
the Okabe-Ito colours (blue 0, 114, 178 better; vermillion 213, 94, 0 worse), read back
from the drawn pixels."""

from __future__ import annotations

import base64
import io

import numpy as np
import polars as pl
import pytest
from matplotlib import image

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
