"""The report's section "Segments" (polars_graded/report/segments.py): the numbers are those of
compare_segments on the table evaluated by system and segment, the HTML and Markdown show
them with their markers, untested segments and reversals are said, and the command line's
``report --segment``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.cli import assert_one_line_error, run
from support.report import Page, body_rows, sign_of, synthetic_table

import polars_graded as pg
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.report import Report, compute_report, to_html, to_markdown
from polars_graded.report.blocks import Table
from polars_graded.report.segments import segments_section
from polars_graded.stats.segments import compare_segments

MEASURES = ["ap", "ndcg@3"]
OPTIONS: dict[str, Any] = {"trials": 200, "bootstrap": 200, "seed": 1}
LANGS = {"en": range(24), "de": range(24, 36), "fr": range(36, 40)}


def lang_of(query: pl.Expr) -> pl.Expr:
    """en for queries 0-23, de for 24-35, fr for 36-39."""
    return (
        pl.when(query < 24)
        .then(pl.lit("en"))
        .when(query < 36)
        .then(pl.lit("de"))
        .otherwise(pl.lit("fr"))
    )


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    """The synthetic table on 40 queries with a language; b (which ranks by relevance)
    ranks the German queries backwards: better than a overall, worse in de."""
    base = synthetic_table(40).with_columns(lang=lang_of(pl.col("query")))
    backwards = (pl.col("system") == "b") & (pl.col("lang") == "de") & pl.col("score").is_not_null()
    return base.with_columns(score=pl.when(backwards).then(-pl.col("score")).otherwise("score"))


@pytest.fixture(scope="module")
def built(table: pl.DataFrame) -> Report:
    return compute_report(table, MEASURES, segment="lang", min_queries=10, **OPTIONS)


def test_the_numbers_are_compare_segments_of_the_table(table: pl.DataFrame, built: Report) -> None:
    per_query = pg.evaluate(table, MEASURES, by=["system", "lang"])
    expected = compare_segments(per_query, segment="lang", min_queries=10, **OPTIONS)
    assert built.segments is not None
    assert_frame_equal(built.segments, expected)
    assert built.segments.schema["system"] == pl.String
    sizes = dict(built.segments.group_by("lang").agg(pl.col("n_queries").first()).iter_rows())
    assert sizes == {lang: len(queries) for lang, queries in LANGS.items()}


def test_the_system_column_is_named_system_in_the_report(table: pl.DataFrame) -> None:
    rep = compute_report(
        table.rename({"system": "run"}), ["ap"], by="run", segment=["lang"], **OPTIONS
    )
    assert rep.segments is not None
    assert rep.segments.columns[:2] == ["lang", "system"]


def test_html_shows_every_mean_with_its_marker(built: Report) -> None:
    assert built.segments is not None
    page = Page(to_html(built))
    rows = body_rows(page, "segments-table")
    assert len(rows) == 3 * 3  # segments x systems
    expected = {(r["lang"], r["system"], r["measure"]): r for r in built.segments.to_dicts()}
    seen = 0
    for attrs, cells in rows:
        lang = attrs["data-row"]
        by_col = {c.get("data-col"): text for c, text in cells[1:]}
        system = by_col["system"].removesuffix(" (baseline)")
        for measure in MEASURES:
            row = expected[lang, system, measure]
            assert by_col[measure] == f"{row['mean']:.4f} {sign_of(row)}".rstrip()
            seen += 1
        assert by_col["queries"] == str(len(LANGS[lang]))
        untested = "fewer than 10 queries: not tested"
        assert by_col["note"] == (untested if lang == "fr" else "")
    assert seen == 3 * 3 * len(MEASURES)
    # b is significantly better in en, worse in de: both markers appear.
    en_b = expected["en", "b", "ap"]
    de_b = expected["de", "b", "ap"]
    assert en_b["significant"] and en_b["diff"] > 0
    assert de_b["significant"] and de_b["diff"] < 0
    assert [r[1][0][1] for r in rows][:3] == ["de"] * 3  # segments in sorted order


def test_the_section_says_what_was_tested_and_the_reversals(built: Report) -> None:
    section = segments_section(built)
    assert section is not None
    assert (section.key, section.title) == ("segments", "Segments")
    intro = section.parts[0]
    assert isinstance(intro, str)
    assert "3 segments, 2 with at least 10 queries and tested; the others are shown" in intro
    assert "across the 4 tests of each measure" in intro  # 2 segments x 2 systems
    assert "Holm-corrected" in intro
    sentences = [p for p in section.parts[2:] if isinstance(p, str)]
    assert sentences[0].startswith("Reversals (the trap of Simpson's paradox)")
    flagged = [s for s in sentences[1:] if s.startswith("b is better than a on ap")]
    assert len(flagged) == 1
    assert "but worse in segment de" in flagged[0]
    assert "12 queries; significant after the correction" in flagged[0]


def test_markdown_mirrors_the_section(built: Report) -> None:
    assert built.segments is not None
    text = to_markdown(built)
    assert "## Segments" in text
    assert text.index("## Segments") < text.index("## Tied scores")
    assert "| lang | system | queries | ap | ndcg@3 | note |" in text
    row = built.segments.filter(lang="de", system="b", measure="ap").row(0, named=True)
    assert f"{row['mean']:.4f} ▼" in text
    assert "| fr | a (baseline) | 4 |" in text
    assert "fewer than 10 queries: not tested |" in text
    assert "b is better than a on ap over all queries" in text


def test_no_reversal_and_bh_are_said() -> None:
    plain = synthetic_table(40).with_columns(lang=lang_of(pl.col("query")))
    rep = compute_report(plain, ["ap"], segment="lang", min_queries=10, correction="bh", **OPTIONS)
    section = segments_section(rep)
    assert section is not None
    assert "Benjamini-Hochberg-corrected" in str(section.parts[0])
    assert section.parts[-1] == (
        "No system's order against the baseline reverses in any segment with 10 queries or more."
    )


def test_no_tested_segment_is_said(table: pl.DataFrame) -> None:
    rep = compute_report(table, ["ap"], segment="lang", min_queries=30, **OPTIONS)
    section = segments_section(rep)
    assert section is not None
    assert section.parts[-1] == "No segment has 30 queries or more, so none is tested."


def test_a_null_segment_is_its_own_and_a_split_query_is_an_error() -> None:
    table = synthetic_table(30).with_columns(
        lang=pl.when(pl.col("query") < 20).then(pl.lit("en")), market=pl.lit("us")
    )
    rep = compute_report(table, ["ap"], segment=["lang", "market"], min_queries=5, **OPTIONS)
    section = segments_section(rep)
    assert section is not None
    part = section.parts[1]
    assert isinstance(part, Table)
    frame = part.frame
    assert frame.columns[0] == "lang / market"
    assert frame.get_column("lang / market").unique(maintain_order=True).to_list() == [
        "en / us",
        "(null) / us",
    ]
    split = table.with_columns(lang=pl.when(pl.col("item") == "d0").then(pl.lit("de")))
    with pytest.raises(InvalidValueError, match=r"query 0 is in two segments of column 'lang'"):
        compute_report(split, ["ap"], segment="lang", **OPTIONS)


def test_no_section_without_segments(table: pl.DataFrame) -> None:
    rep = compute_report(table, ["ap"], **OPTIONS)
    assert rep.segments is None
    assert segments_section(rep) is None
    assert "Segments" not in to_markdown(rep)
    assert 'id="segments"' not in to_html(rep)


def test_a_missing_or_clashing_segment_column_is_an_error(table: pl.DataFrame) -> None:
    with pytest.raises(MissingColumnError, match=r"segment column\(s\) \['market'\] not found"):
        compute_report(table, ["ap"], segment=["lang", "market"], **OPTIONS)
    for name in ("query", "system", "ap"):
        with pytest.raises(InvalidValueError, match=rf"segment column\(s\) \['{name}'\] are"):
            compute_report(table.with_columns(ap=pl.lit(1)), ["ap"], segment=name, **OPTIONS)
    run = table.rename({"system": "run"}).with_columns(system=pl.col("lang"))
    with pytest.raises(InvalidValueError, match=r"its system key 'system'"):
        compute_report(run, ["ap"], by="run", segment="system", **OPTIONS)


def test_cli_report_with_segments(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "runs.parquet"
    table.write_parquet(source)
    out = tmp_path / "out"
    argv = ["report", str(source), "--segment", "lang", "--min-queries", "10", "-m", "ap"]
    argv += ["--out", str(out), "--trials", "200", "--bootstrap", "200", "--seed", "1"]
    code, _, err = run(argv, capsys)
    assert (code, err) == (0, "")
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "## Segments" in markdown
    assert "but worse in segment de" in markdown
    rows = body_rows(Page((out / "report.html").read_text(encoding="utf-8")), "segments-table")
    assert len(rows) == 9
    code, printed, err = run([*argv[:2], "--segment", "market", *argv[6:]], capsys)
    assert_one_line_error(code, printed, err, "segment column(s) ['market'] not found")
