"""Hostile input through the report's outputs (issue 26, items 5, 6, 7, 13a and 14): a title,
run names and segment values that hold LaTeX, HTML, Markdown, mathtext, line breaks and 228
characters reach ``report.tex``, ``report.md``, ``report.html`` and the charts as text, never
as markup; the report replaces all of its own outputs; and the page fits its width.

One small report (:func:`hostile_table`, few trials) is built once and read by most tests;
the names are chosen so that each output has something to get wrong.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.environment import in_ci
from support.report import Page, body_rows

from polars_graded import report
from polars_graded.report import charts

LONG = "run_" + "x" * 100 + "_middle_" + "y" * 100 + "_end" + "z" * 12
"""228 characters, as in the issue; :data:`TWIN` differs from it in one middle character."""
TWIN = LONG[:120] + "Q" + LONG[121:]
SCRIPT = "<script>alert(1)</script>"
MATH = "bm25 $k1=0.9$"
UNDEFINED = "$\\undefinedcmd$"
BROKEN = "a|b\nc"
IMG = "<img src=x onerror=alert(2)>"
NAMES = ["base", SCRIPT, MATH, BROKEN, LONG, TWIN, IMG]
"""The systems of most reports here; the charts' tests add :data:`UNDEFINED`, which made
every report fail before (so that the other tests show their own failure)."""
TITLE = "ok\n\\input{/etc/passwd} <script>alert(0)</script> | # [x](javascript:y)"
SEGMENTS = ("<b>en</b>", "<img src=y onerror=alert(3)>|x")
QUERIES = 24  # 12 per segment
OPTIONS: dict[str, Any] = {"trials": 1000, "bootstrap": 100, "seed": 1}
LATEX_FILE = "report.tex"


def _rank_of_relevant(name: str, query: int) -> int:
    """Where ``name`` ranks the one relevant item of ``query`` (its AP is 1 / rank).

    The baseline ranks it 2nd everywhere. SCRIPT is better over all queries but worse in
    every query of the second segment (a significant reversal); MATH is better over all
    queries and worse in two queries of the second segment (a reversal, not significant);
    the others are near the baseline.
    """
    second = query >= QUERIES // 2
    if name == SCRIPT:
        return 3 if second else 1
    if name == MATH:
        return (3 if query >= QUERIES - 2 else 2) if second else (1 if query % 2 else 2)
    return 1 if name in (LONG, UNDEFINED) and query == 0 else 2


def hostile_table(names: list[str] = NAMES) -> pl.DataFrame:
    """Systems named ``names`` over the same judgments: per query one relevant item, three
    judged non-relevant and one unjudged, and a segment ``lang`` of hostile values."""
    rows = []
    for query in range(QUERIES):
        lang = SEGMENTS[query >= QUERIES // 2]
        for name in names:
            top = _rank_of_relevant(name, query)
            others = iter(["n1", "n2", "n3", "u"])
            for rank in range(1, 6):
                item = "rel" if rank == top else next(others)
                label = 1 if item == "rel" else None if item == "u" else 0
                rows.append((name, query, item, float(10 - rank), label, lang))
    schema = ["system", "query", "item", "score", "relevance", "lang"]
    return pl.DataFrame(rows, schema=schema, orient="row")


def build(out: Path, **options: Any) -> report.ReportFiles:
    return report.build_report(
        hostile_table(),
        out,
        ["ap", "ndcg@3"],
        baseline="base",
        title=TITLE,
        segment="lang",
        min_queries=5,
        all_pairs=True,
        differences="all",
        **{**OPTIONS, **options},
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile report with report.tex (building it draws every chart)."""
    out = tmp_path_factory.mktemp("hostile") / "report"
    build(out, latex=True)
    return out


@pytest.fixture(scope="module")
def plain() -> report.Report:
    """The hostile table's report of one measure, without sections beyond the defaults."""
    return report.compute_report(hostile_table(), ["ap"], baseline="base", **OPTIONS)


@pytest.fixture(scope="module")
def markdown(folder: Path) -> str:
    return (folder / "report.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page(folder: Path) -> str:
    return (folder / "report.html").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- LaTeX (item 5)


def test_latex_title_cannot_end_its_comment(folder: Path) -> None:
    tex = (folder / LATEX_FILE).read_text(encoding="utf-8")
    first = tex.splitlines()[0]
    assert first.startswith("% ok ") and "passwd" in first  # the whole title, on one line
    assert first.endswith(": polars_graded report.tex")
    assert "\\input{" not in tex  # pdflatex would read the file
    assert "\\textbackslash{}input\\{/etc/passwd\\}" in first


def test_latex_escapes_every_user_string(folder: Path) -> None:
    tex = (folder / LATEX_FILE).read_text(encoding="utf-8")
    for block in re.findall(r"\\midrule\n(.*?)\n\\bottomrule", tex, flags=re.S):
        for line in block.splitlines():  # a row per line: no name broke one
            assert line.endswith(r" \\"), line
    # <, > and | print as ¡, ¿ and an em dash in LaTeX's default encoding; $ starts math.
    body = "\n".join(line for line in tex.splitlines() if not line.startswith(r"\begin{tabular}"))
    assert not re.search(r"[<>|]", body)
    assert "\\textless{}script\\textgreater{}" in tex and "a\\textbar{}b c" in tex
    assert "bm25 \\$k1=0.9\\$" in tex


# --------------------------------------------------------------------------- Markdown (item 6)


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells: split on ``|`` not escaped by a backslash."""
    inner = line.strip()
    assert inner.startswith("|") and inner.endswith("|"), line
    return re.split(r"(?<!\\)\|", inner[1:-1])


def _tables(text: str) -> Iterator[list[list[str]]]:
    """Each table of ``text`` (consecutive lines starting with ``|``) as rows of cells."""
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            yield [_cells(row) for row in block]
            block = []


def test_markdown_has_no_markup_from_the_user(markdown: str) -> None:
    assert not re.search(r"<[A-Za-z/!?]", markdown)  # no tag, comment or autolink
    assert not re.search(r"(?<!\\)\$", markdown)  # no math
    assert not re.search(r"(?<!\\)\]\(", markdown)  # no link
    assert markdown.splitlines()[0].startswith("# ok↵")  # the title is one heading line
    assert "&lt;script>alert(1)&lt;/script>" in markdown  # and reads as written
    assert "bm25 \\$k1=0.9\\$" in markdown


def test_markdown_tables_keep_their_columns(markdown: str) -> None:
    tables = list(_tables(markdown))
    assert len(tables) > 10
    for table in tables:
        widths = {len(row) for row in table}
        assert widths == {len(table[0])}, table[0]
    # a|b↵c is one cell, in the summary as everywhere
    summary = tables[0]
    assert [row[0].strip() for row in summary[2:]].count("a\\|b↵c") == 1
    segments = next(t for t in tables if "lang" in t[0][0])
    assert any(row[0].strip() == "&lt;img src=y onerror=alert(3)>\\|x" for row in segments)


def test_markdown_escape_neutralises_every_markup() -> None:
    from polars_graded.report.markdown import escape

    assert escape("<b>x</b> & &amp; |") == "&lt;b>x&lt;/b> & &amp;amp; \\|"
    assert escape("*a* _b_ `c` ~d~ [e](f) $g$ \\") == (
        "\\*a\\* \\_b\\_ \\`c\\` \\~d\\~ [e\\](f) \\$g\\$ \\\\"
    )
    assert escape("# h", line_start=True) == "\\# h"
    assert escape("1. item", line_start=True) == "1\\. item"
    assert escape("    code", line_start=True) == "\u00a0" * 4 + "code"
    ours = "mu_ap 12.5% [0.4, 0.6] p < 0.05 b > a"  # the report's own text stays readable
    assert escape(ours) == ours


# --------------------------------------------------------------------------- charts (item 7)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the charts draw, kept as they are saved."""
    figures: list[Any] = []
    save = charts._png

    def keep(figure: Any) -> bytes:
        figures.append(figure)
        return save(figure)

    monkeypatch.setattr(charts, "_png", keep)
    return figures


def test_charts_draw_names_as_written(drawn: list[Any]) -> None:
    from matplotlib.text import Text

    rep = report.compute_report(
        hostile_table([*NAMES, UNDEFINED]), ["ap"], baseline="base", **OPTIONS
    )
    comparison, order = rep.comparison, rep.order
    charts.measure_bars(comparison, "ap", order, 0.95)  # raised on $\undefinedcmd$
    frame = pl.DataFrame({"system": list(order), "MAP rel≥1": [0.5] * len(order)})
    charts.threshold_lines(frame, order)
    curves = rep.thresholds.rename({rep.system: "system"})
    charts.threshold_curves(curves, order)
    from polars_graded.report.compute import paired_differences

    charts.differences(paired_differences(rep, "ap"), "ap", order, comparison)
    assert len(drawn) == 4
    for figure in drawn:
        texts = [t for t in figure.findobj(Text) if "k1=0.9" in t.get_text()]
        assert texts, "the name is drawn"
        for text in texts:  # literal: no mathtext, no TeX
            assert "bm25 $k1=0.9$" in text.get_text()
            assert not text.get_parse_math() and not text.get_usetex()


def test_a_report_with_a_mathtext_name_is_written(tmp_path: Path) -> None:
    table = hostile_table(["base", UNDEFINED, MATH])
    files = report.build_report(table, tmp_path / "out", ["ap"], baseline="base", **OPTIONS)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == list(sorted(report.FILES))
    assert "$\\undefinedcmd$" in files.html.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- outputs (item 13a)


def test_a_report_replaces_its_earlier_latex(plain: report.Report, tmp_path: Path) -> None:
    out = tmp_path / "report"
    report.write_report(plain, out, latex=True)
    (out / "notes.txt").write_text("mine")
    files = report.write_report(plain, out)
    assert files.latex is None
    assert sorted(p.name for p in out.iterdir()) == sorted([*report.FILES, "notes.txt"])


def test_a_latex_file_the_report_did_not_write_stays(plain: report.Report, tmp_path: Path) -> None:
    out = tmp_path / "paper"
    out.mkdir()
    mine = "\\documentclass{article}\n% polars_graded tables below\n"
    (out / LATEX_FILE).write_text(mine)
    report.write_report(plain, out)
    assert (out / LATEX_FILE).read_text() == mine


def test_the_footer_and_markdown_name_report_tex_when_written(
    plain: report.Report, page: str, markdown: str, tmp_path: Path
) -> None:
    footer = re.search(r"<footer>(.*?)</footer>", page, flags=re.S)
    assert footer is not None and "report.tex" in footer.group(1)
    assert "report.tex" in markdown.splitlines()[-1]
    files = report.write_report(plain, tmp_path / "plain")
    assert "report.tex" not in files.html.read_text(encoding="utf-8")
    assert "report.tex" not in files.markdown.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the page (item 14)


def test_the_tests_table_heads_every_column_differently(page: str) -> None:
    heads = [text for _, text in Page(page).tables["tests-table"][0][1] if text]
    assert len(heads) == len(set(heads)), heads
    assert "p t-test Holm" in heads and "p rand. Holm" in heads


def test_segment_marks_sit_after_a_space(page: str, markdown: str) -> None:
    cells = [
        text
        for _, row in body_rows(Page(page), "segments-table")
        for _, text in row
        if text.endswith(("▲", "▼"))
    ]
    assert cells, "SCRIPT is significantly better in the first segment"
    assert all(re.fullmatch(r"\d\.\d{4} [▲▼]", text) for text in cells), cells
    assert not re.search(r"\d[▲▼]", markdown)


def test_long_names_are_shortened_with_the_full_name_on_hover(page: str) -> None:
    parsed = Page(page)
    shown = {}
    for attrs, cells in body_rows(parsed, "summary-table"):
        head, text = cells[0]
        name = attrs["data-system"]
        shown[name] = text.removesuffix("baseline")
        assert len(shown[name]) <= 40
        if name in (LONG, TWIN):
            assert head["title"] == name
    assert shown[LONG] != shown[TWIN]  # two long names never look alike
    full = {cells[0][1].removesuffix("baseline") for _, cells in body_rows(parsed, "systems-table")}
    assert {LONG, TWIN} <= full  # the section "Data" names them in full


def test_long_names_are_shortened_in_markdown_tables(markdown: str) -> None:
    data = markdown.index("## Data")
    assert LONG not in markdown[:data]
    assert markdown.count(LONG) >= 2  # the systems line, and how the tables show it


def test_reversals_significant_first_the_rest_in_a_table(page: str, markdown: str) -> None:
    segments = page[page.index('<section id="segments">') :]
    segments = segments[: segments.index("</section>")]
    sentences = re.findall(r"<p>([^<]*?is (?:better|worse) than base[^<]*)</p>", segments)
    assert len(sentences) == 2  # SCRIPT's reversals on ap and ndcg@3, significant
    for sentence, measure in zip(sentences, ["ap", "ndcg@3"], strict=True):
        assert sentence.startswith(
            f"&lt;script&gt;alert(1)&lt;/script&gt; is better than base on {measure} "
        )
        assert "12 queries; significant after the correction" in sentence
    rows = body_rows(Page(page), "segments-reversals")
    assert [cells[0][1] for _, cells in rows] == [MATH, MATH]  # ap and ndcg@3
    assert "| bm25 \\$k1=0.9\\$ | ap |" in markdown


# --------------------------------------------------------------------------- names


@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=8, unique=True))
def test_short_names_are_distinct_one_line_and_short(names: list[str]) -> None:
    from polars_graded.report.names import MAX_SHOWN, short_names

    shown = short_names(names)
    assert list(shown) == names
    assert len(set(shown.values())) == len(names)
    for name, text in shown.items():
        assert len(text) <= max(MAX_SHOWN, len(name))
        assert len(text.splitlines()) <= 1 and "\n" not in text


# --------------------------------------------------------------------------- layout


def _chromium() -> str:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    msg = "no chromium on PATH for the layout test"
    if in_ci():
        pytest.fail(f"{msg} (CI=true: it must run)")
    pytest.skip(msg)


MEASURE_WIDTHS = """<script>
const out = [];
for (const box of document.querySelectorAll('div.wide')) {
  const table = box.querySelector('table');
  out.push([table.id, table.scrollWidth, box.clientWidth]);
}
const main = document.querySelector('main');
out.push(['main', main.scrollWidth, main.clientWidth]);
const pre = document.createElement('pre');
pre.id = 'widths';
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"""
"""Added to a copy of the page (the report itself has no script): each table's width and
its box's, as JSON in a ``<pre>`` that ``--dump-dom`` prints."""


def test_every_table_fits_the_page(tmp_path: Path) -> None:
    chromium = _chromium()
    files = report.build_report(
        hostile_table(), tmp_path / "report", None, baseline="base", **OPTIONS
    )  # the six default measures: the widest tables of judgments and tests
    copy = tmp_path / "measured.html"
    text = files.html.read_text(encoding="utf-8")
    copy.write_text(text.replace("</body>", MEASURE_WIDTHS + "</body>"), encoding="utf-8")
    argv = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2000",
        "--dump-dom", copy.resolve().as_uri(),
    ]  # fmt: skip
    dom = subprocess.run(
        argv,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"HOME": str(tmp_path)},
    ).stdout
    found = re.search(r'<pre id="widths">(.*?)</pre>', dom, flags=re.S)
    assert found is not None
    widths = json.loads(found.group(1).replace("&quot;", '"'))
    assert {"summary-table", "tests-table", "judgment-bounds", "main"} <= {w[0] for w in widths}
    wider = [(name, width, box) for name, width, box in widths if width > box]
    assert wider == []
