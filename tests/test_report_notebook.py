"""The report in a notebook (polars_graded/report/notebook.py): ``build_report(table)`` without
a folder returns a :class:`NotebookReport` that shows its page in a sandboxed ``<iframe
srcdoc>`` (read back here by the standard library's HTML parser), writes the same bytes as
``build_report(table, folder)``, and says what it holds in its ``repr``. The namespace's
``df.graded.report`` is tests/test_namespace.py's."""

from __future__ import annotations

import dataclasses
import datetime
import html
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.cli import refuse_work

import polars_graded as pg
from polars_graded import report
from polars_graded.report import ReportOptions, content, notebook
from polars_graded.report.compute import COMPUTING, RENDERING
from polars_graded.report.inputs import example_table
from polars_graded.report.notebook import FRAME_HEIGHT, NotebookReport
from polars_graded.report.text import SECTIONS

MEASURES = ["ap", "ndcg@3"]
TITLE = "Runs </iframe><script>alert(\"x\")</script> & 'quotes'\nsecond line"
"""A title that would end the frame, run a script and break the attribute if not escaped."""
OPTIONS: ReportOptions = {"trials": 20, "bootstrap": 20, "seed": 3, "title": TITLE}


class Tags(HTMLParser):
    """Each start tag with its attributes (values unescaped, as a browser reads them)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def named(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]


class _Clock:
    """``datetime`` for content.py at a fixed minute: two reports made a minute apart
    would differ in their "Created" line, and only there."""

    UTC = datetime.UTC

    class datetime:  # stands in for the module's class
        @staticmethod
        def now(tz: datetime.tzinfo) -> datetime.datetime:
            return datetime.datetime(2026, 1, 2, 3, 4, tzinfo=tz)


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return example_table()


@pytest.fixture(scope="module")
def rep(table: pl.DataFrame) -> NotebookReport:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(content, "dt", _Clock)
        return pg.build_report(table, measures=MEASURES, **OPTIONS)


def test_without_a_folder_the_report_is_returned(rep: NotebookReport, table: pl.DataFrame) -> None:
    assert isinstance(rep, NotebookReport) and isinstance(rep, report.Report)
    assert rep.written is None and not rep.latex
    want = pg.evaluate(table, MEASURES, by="system")
    assert_frame_equal(rep.per_query, want, check_exact=True)
    for frame in (rep.comparison, rep.thresholds, rep.ties):
        assert isinstance(frame, pl.DataFrame)  # a notebook shows them as Polars frames
    pairs = sorted(rep.comparison.select("system", "measure").rows())
    assert pairs == [(s, m) for s in ("a", "b") for m in sorted(MEASURES)]


def test_the_notebook_shows_the_page_in_a_sandboxed_frame(rep: NotebookReport) -> None:
    shown = rep._repr_html_()
    outer = Tags(shown)
    assert [name for name, _ in outer.tags] == ["iframe"]  # the title ended nothing
    (frame,) = outer.named("iframe")
    assert frame["sandbox"] in ("", None)  # no script, form or navigation of the notebook
    assert f"height:{FRAME_HEIGHT}px" in str(frame["style"])
    assert frame["title"] == "Runs </iframe><script>alert(\"x\")</script> & 'quotes'↵second line"
    page = str(frame["srcdoc"])
    # The page of report.html, with a base that keeps its #section links inside the frame.
    assert page == rep.html.replace("<head>", '<head><base href="about:srcdoc">', 1)
    inner = Tags(page)
    assert inner.named("script") == [] and len(inner.named("base")) == 1
    assert inner.named("base")[0]["href"] == "about:srcdoc"
    ids = {attrs.get("id") for _, attrs in inner.tags}
    assert set(SECTIONS) <= ids
    links = [str(a["href"]) for a in inner.named("a")]
    assert links and all(link.startswith("#") and link[1:] in ids for link in links)
    assert html.escape(TITLE.splitlines()[0]) in page  # the title, as text in the page
    assert all(str(img["src"]).startswith("data:image/png;base64,") for img in inner.named("img"))


def test_the_frame_height(rep: NotebookReport) -> None:
    (frame,) = Tags(rep.iframe(height=300)).named("iframe")
    assert "height:300px" in str(frame["style"])
    for bad in (0, -5, 2.5, True, "800px"):
        with pytest.raises(pg.InvalidValueError, match=r"height=.*an integer >= 1 \(default 760\)"):
            rep.iframe(height=bad)  # type: ignore[arg-type]


def test_write_equals_build_report_with_a_folder(
    rep: NotebookReport, table: pl.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(content, "dt", _Clock)
    for latex in (False, True):
        direct = pg.build_report(
            table, tmp_path / f"direct{latex}", MEASURES, latex=latex, **OPTIONS
        )
        # The report built without report.tex, written with it (or not): the same files.
        written = rep.write(tmp_path / f"notebook{latex}", latex=latex)
        assert [p.name for p in written] == [p.name for p in direct]
        assert (written.latex is None) is not latex
        for mine, theirs in zip(written, direct, strict=True):
            assert mine.read_bytes() == theirs.read_bytes(), mine.name
        assert rep.written == tmp_path / f"notebook{latex}"
    assert repr(rep).splitlines()[-1] == (
        f"  written:  {tmp_path / 'notebookTrue'} "
        "(report.html, report.md, per_query.parquet, report.tex)"
    )
    assert "Created 2026-01-02 03:04 UTC" in written.markdown.read_text(encoding="utf-8")
    assert not rep.latex  # the report itself is unchanged
    with_latex = pg.build_report(table, measures=MEASURES, latex=True, **OPTIONS)
    assert with_latex.latex and "report.tex" not in rep.markdown
    assert "report.tex" in with_latex.markdown  # its files, written by default


def test_the_page_renders_on_a_bar_when_progress_was_asked(
    rep: NotebookReport,
    table: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """build_report(progress=True) without a folder: compute_report's bar, then the charts'
    step on a bar of its own when the page renders (once) and when it is written."""
    page = "<html><head></head><body>page</body></html>"
    monkeypatch.setattr(notebook, "to_html", lambda _: page)  # the real charts: other tests
    quiet = dataclasses.replace(rep)  # not rendered yet
    assert not quiet.progress and not NotebookReport.of(rep).progress
    assert quiet.html == page and capsys.readouterr().err == ""
    built = pg.build_report(table, measures=["ap"], trials=20, bootstrap=20, progress=True)
    done = len(COMPUTING)
    assert built.progress and f"{done}/{done} steps" in capsys.readouterr().err
    assert built.html == page
    err = capsys.readouterr().err
    assert f"report: {RENDERING}" in err and "1/1 steps" in err
    assert built.html == page and capsys.readouterr().err == ""  # rendered once
    built.write(tmp_path / "out")
    assert f"report: {RENDERING}" in capsys.readouterr().err
    assert (tmp_path / "out" / "report.html").read_text(encoding="utf-8") == page


def test_repr_says_what_the_report_holds(rep: NotebookReport, table: pl.DataFrame) -> None:
    fresh = NotebookReport.of(rep)  # not written (another test writes ``rep``)
    assert repr(fresh).splitlines() == [
        f"NotebookReport {TITLE.replace(chr(10), '↵')!r}",  # one line, as the page shows it
        "  systems:  a (baseline), b",
        "  measures: ap, ndcg@3",
        f"  queries:  {table['query'].n_unique()} ({table.height} rows)",
        "  written:  not yet: .write(folder) writes report.html, report.md, per_query.parquet",
    ]


def test_repr_of_many_systems(table: pl.DataFrame) -> None:
    base = table.filter(pl.col("system") == "a")
    many = pl.concat([base.with_columns(system=pl.lit(f"run{i:02d}")) for i in range(11)])
    rep = NotebookReport.of(report.compute_report(many, ["ap"], trials=10, bootstrap=10))
    assert repr(rep).splitlines()[1] == (
        "  systems:  run00 (baseline), run01, run02, run03, run04, run05, run06, run07, "
        "... (3 more)"
    )


def test_a_wrong_folder_fails_before_the_work(
    table: pl.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = refuse_work(monkeypatch, report, "compute_report")
    (tmp_path / "file").write_text("")
    with pytest.raises(pg.InvalidValueError, match=r"'.*file' is a file; give a folder"):
        pg.build_report(table, tmp_path / "file")
    with pytest.raises(
        pg.InvalidValueError,
        match=r"build_report\(\): out_dir is the folder .* got list \['ap'\]; for the report "
        r"in Python \(a notebook\) give none: build_report\(table, measures=\[...\]\)",
    ):
        pg.build_report(table, ["ap"])  # type: ignore[call-overload]
    assert started == []
    assert list(tmp_path.iterdir()) == [tmp_path / "file"]
