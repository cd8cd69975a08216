"""The report's HTML page (:mod:`polars_graded.report.html`): its tables hold compare()'s
and per_threshold()'s numbers exactly, its figures are embedded PNGs, nothing links out."""

from __future__ import annotations

import base64
import html
import os
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from support.environment import in_ci
from support.report import (
    MEASURES,
    PNG_SIGNATURE,
    TRIALS,
    body_rows,
    built_fixture,
    expected_comparison,
    folder_fixture,
    page_of,
    sign_of,
    synthetic_table,
    table_fixture,
)

import polars_graded as pg
from polars_graded import report
from polars_graded.api import per_threshold
from polars_graded.report.html import TEST_COLUMNS, to_html
from polars_graded.report.text import threshold_notes

# The report's shared fixtures (table, built, folder): pytest finds them here by name.
SHARED_FIXTURES = (built_fixture, folder_fixture, table_fixture)


def test_the_written_page_is_to_html(folder: Path, built: report.Report) -> None:
    assert (folder / "report.html").read_text(encoding="utf-8") == to_html(built)


def test_summary_table_has_compares_means_and_marks_exactly_the_significant(
    folder: Path, table: pl.DataFrame
) -> None:
    expected = {(r["system"], r["measure"]): r for r in expected_comparison(table).to_dicts()}
    rows = body_rows(page_of(folder), "summary-table")
    assert [a["data-system"] for a, _ in rows] == ["a", "b", "c"]  # baseline a first, then b
    marks = []
    for attrs, cells in rows:
        values = [(c, text) for c, text in cells if c.get("data-col") in MEASURES]
        assert [c["data-col"] for c, _ in values] == MEASURES
        for cell, text in values:
            row = expected[attrs["data-system"], cell["data-col"]]
            assert float(cell["data-value"]) == row["mean"]
            assert text == f"{row['mean']:.4f}{sign_of(row)}"
            marks.append(sign_of(row))
    assert "▲" in marks  # b beats a on every measure here
    assert marks.count("") >= len(MEASURES) * 2  # a (baseline) and c (a copy) are unmarked


def test_tests_table_has_every_column_of_compare(folder: Path, table: pl.DataFrame) -> None:
    expected = expected_comparison(table)
    rows = body_rows(page_of(folder), "tests-table")
    assert len(rows) == expected.height
    for (attrs, cells), row in zip(rows, expected.iter_rows(named=True), strict=True):
        assert (attrs["data-system"], attrs["data-measure"]) == (row["system"], row["measure"])
        numbers = {c["data-col"]: c.get("data-value") for c, _ in cells if "data-col" in c}
        assert set(numbers) == set(TEST_COLUMNS)
        for column, text in numbers.items():
            value = row[column]
            assert (None if text is None else float(text)) == value, column
        shown = {c["data-col"]: text for c, text in cells if "data-col" in c}
        assert shown["mean"] == f"{row['mean']:.4f}"
        assert shown["diff"] == f"{row['diff']:.4f}"
        assert shown["n_queries"] == "14"
        assert cells[-1][1] == sign_of(row)


def test_threshold_table_equals_per_threshold(
    folder: Path, table: pl.DataFrame, built: report.Report
) -> None:
    expected = per_threshold(table, by="system")
    page = page_of(folder)
    rows = body_rows(page, "threshold-table")
    means = {r["system"]: r["mean"] for r in expected_comparison(table).to_dicts()
             if r["measure"] == "mu_ap"}  # fmt: skip
    for attrs, cells in rows:
        mine = expected.filter(pl.col("system") == attrs["data-system"]).sort("threshold")
        values = [float(c["data-value"]) for c, _ in cells if "data-value" in c]
        # MAP at thresholds 1 and 2: the report reads µMAP from its own evaluation, and the
        # same sums may then be added in another order (the last bit may differ).
        assert values[:-2] == pytest.approx(mine["map"].to_list(), rel=1e-12, abs=0.0)
        # the summary's µMAP (each query's own levels), then the table-levels one
        assert values[-2] == pytest.approx(mine["mu_map"][0], rel=1e-12, abs=0.0)
        assert values[-2] == pytest.approx(means[attrs["data-system"]])
        assert values[-1] == pytest.approx(mine["mu_map_table_levels"][0], rel=1e-12, abs=0.0)
    assert len(rows) == 3
    head = [text for _, text in page.tables["threshold-table"][0][1]]
    assert head[-2:] == ["µMAP, query levels", "µMAP, table levels"]
    # one sentence names both where they appear, in HTML and Markdown
    notes = threshold_notes(built)
    assert "summary's µMAP" in notes[0] and "mu_ap(levels=table)" in notes[0]
    text = (folder / "report.html").read_text(encoding="utf-8")
    assert html.escape(notes[0], quote=True) in text
    assert notes[0] in (folder / "report.md").read_text(encoding="utf-8")


def test_figures_are_embedded_pngs_and_nothing_links_out(
    folder: Path, built: report.Report
) -> None:
    page = page_of(folder)
    text = (folder / "report.html").read_text(encoding="utf-8")
    assert len(page.images) == 2 * len(MEASURES) + 2  # bars, thresholds, differences, tau
    for image in page.images:
        prefix, _, payload = image["src"].partition(",")
        assert prefix == "data:image/png;base64"
        png = base64.b64decode(payload, validate=True)
        assert png[:8] == PNG_SIGNATURE
        width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
        assert width > 300
        assert height > 100
        assert image["alt"]
    assert all(url.startswith(("data:image/png;base64,", "#")) for url in page.urls)
    assert "http://" not in text
    assert "https://" not in text
    assert not page.tags & {"script", "link", "iframe", "object"}


def test_html_states_data_conventions_and_version(folder: Path, built: report.Report) -> None:
    text = (folder / "report.html").read_text(encoding="utf-8")
    assert f"polars_graded {pg.__version__}" in text
    assert "Queries: 14; rows: 327, of which 285 retrieved" in text
    assert "Queries without a relevant item: 1 (0)" in text
    assert "Unjudged share of the retrieved rows: 14.7% (42 rows)" in text
    assert "ties by item id descending (trec_eval&#x27;s order; ties=trec_eval)" in text
    assert f"randomization test ({TRIALS:,} trials, seed 3)" in text
    assert "Holm" in text
    assert "α = 0.05" in text
    assert "missing = zero" in text
    labels = dict(built.description.levels.iter_rows())
    judged = synthetic_table().filter(pl.col("system") == "a", pl.col("relevance").is_not_null())
    assert labels == dict(judged.group_by("relevance").len().iter_rows())


# --------------------------------------------------------------------------- rendering


def _chromium() -> str | None:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def test_headless_chromium_renders_the_report(folder: Path, tmp_path: Path) -> None:
    from matplotlib import image

    if _chromium() is None:  # .ci/run installs Debian's chromium when it is missing
        msg = "no chromium on PATH for the screenshot test"
        if in_ci():
            pytest.fail(f"{msg} (CI=true: it must run)")
        pytest.skip(msg)

    shot = tmp_path / "shot.png"
    argv = [
        str(_chromium()), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
        "--window-size=1280,2400", (folder / "report.html").resolve().as_uri(),
    ]  # fmt: skip
    subprocess.run(
        argv, check=True, capture_output=True, timeout=120, env=os.environ | {"HOME": str(tmp_path)}
    )
    assert shot.read_bytes()[:8] == PNG_SIGNATURE
    pixels = image.imread(shot)
    assert pixels.shape[:2] == (2400, 1280)
    colours = np.unique((pixels[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 200  # text, tables and charts, not a blank or error page
    blue = np.array([0, 114, 178]) / 255  # the bars of significantly better systems
    assert (np.abs(pixels[..., :3] - blue).max(axis=2) < 0.02).sum() > 500
