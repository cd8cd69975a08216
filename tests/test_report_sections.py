"""The report's block sections (report.blocks, report.sections): a Section drawn alike in the
page and the Markdown, after the tests and before the tied scores."""

from __future__ import annotations

import polars as pl
import pytest
from support.report import PNG_SIGNATURE, synthetic_table

from polars_graded.report import Report, compute_report, sections, to_html, to_markdown
from polars_graded.report.blocks import Figure, Section, Table
from polars_graded.report.charts import measure_bars

FRAME = pl.DataFrame({"system": ["a", "b"], "queries": [1200, 3], "p_value": [0.5, 0.00001]})


@pytest.fixture(scope="module")
def plain() -> Report:
    return compute_report(synthetic_table(), ["ap"], trials=100, bootstrap=100)


def _with(monkeypatch: pytest.MonkeyPatch, section: Section | None) -> None:
    monkeypatch.setattr(sections, "BLOCK_SECTIONS", (lambda _report: section,))


def _section(png: bytes) -> Section:
    return Section(
        "extra",
        "An extra section",
        ("A paragraph <with> markup.", Table("extra-table", FRAME, "A caption."),
         Figure(png, "a figure", "The figure's caption.")),
    )  # fmt: skip


def test_a_section_renders_in_both_and_in_page_order(
    plain: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    png = measure_bars(plain.comparison, "ap", plain.order, 0.95)
    assert png[:8] == PNG_SIGNATURE
    _with(monkeypatch, _section(png))
    page, markdown = to_html(plain), to_markdown(plain)

    assert '<a href="#extra">An extra section</a>' in page
    assert page.index('id="details"') < page.index('id="extra"') < page.index('id="ties"')
    assert "A paragraph &lt;with&gt; markup." in page
    assert 'id="extra-table"' in page and ">1,200<" in page and ">1.0e-05<" in page
    assert 'alt="a figure"' in page and "The figure&#x27;s caption." in page

    lines = markdown.splitlines()
    assert lines.index("## An extra section") < lines.index("## Tied scores")
    assert "A paragraph &lt;with> markup." in lines  # shown as written, not parsed as HTML
    assert "| a | 1,200 | 0.5000 |" in lines and "| b | 3 | 1.0e-05 |" in lines
    assert "*Figure (report.html): The figure's caption.*" in lines


def test_a_section_that_does_not_apply_is_left_out(
    plain: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    _with(monkeypatch, None)
    assert sections.block_sections(plain) == []
    assert 'href="#extra"' not in to_html(plain)
