"""The site under docs/ and the README: every page's examples run as written (each page one
notebook, in a folder of the files the examples name: :mod:`support.markdown_examples`; a
frame shown under an example is what it prints), the numbers the site
quotes from a report are the report's, and the API reference and the measures page leave
nothing public out. The build itself (``sphinx-build -W``) runs in .ci/run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.markdown_examples import (
    DOCS,
    README,
    ROOT,
    Block,
    cli_commands,
    doc_pages,
    markdown_tables,
    page_blocks,
    run_blocks,
    run_command,
    section,
    words,
    write_fixtures,
)

import polars_graded as pg
from polars_graded import cli
from polars_graded.measures import registry

PAGES = doc_pages()
EXAMPLE_PAGES = [README, *PAGES]
COMMANDS = [
    pytest.param(block, command, id=f"{block.where}:{command[:40]}")
    for page in EXAMPLE_PAGES
    for block, command in cli_commands(page_blocks(page))
]
API_PAGES = sorted((DOCS / "api").glob("*.md"))
AUTOSUMMARY = re.compile(r"^\.\. autosummary::\n(?:   :.*\n)*\n((?:   \S+\n)+)", re.MULTILINE)


@pytest.fixture(scope="module")
def example_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of the files the pages' examples read."""
    root = tmp_path_factory.mktemp("examples")
    write_fixtures(root)
    return root


def test_the_site_has_pages_with_examples() -> None:
    """The finder sees the pages and their examples (a test of the test)."""
    assert len(PAGES) >= 10
    assert sum(b.lang == "python" for p in PAGES for b in page_blocks(p)) >= 10
    assert len(COMMANDS) >= 5


@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_python_blocks(
    page: Path, example_files: Path, monkeypatch: pytest.MonkeyPatch, subtests: pytest.Subtests
) -> None:
    """Each page's ```python blocks, in order, in one namespace of their own."""
    monkeypatch.chdir(example_files)
    run_blocks([b for b in page_blocks(page) if b.lang == "python"], subtests)


@pytest.mark.parametrize(("block", "command"), COMMANDS)
def test_page_commands(
    block: Block,
    command: str,
    example_files: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(example_files)
    run_command(block, command, capsys)


def test_quoted_report_rows_are_the_reports(
    example_files: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every row a page quotes from the Robust 2003 report (the ```text tables of the section
    "Trusting the verdict") is a row of the report its command writes, cell for cell."""
    title = re.compile(r"^#+ Trusting the verdict$", re.MULTILINE)
    found = [(p, m[0]) for p in EXAMPLE_PAGES if (m := title.search(p.read_text("utf-8")))]
    assert len(found) == 1, "one page has the section 'Trusting the verdict'"
    ((page, heading),) = found
    blocks = page_blocks(page)
    reports = (c for _, c in cli_commands(blocks) if c.startswith("polars-graded report"))
    command = next(c for c in reports if "--segment-table" in c)
    monkeypatch.chdir(example_files)
    argv = words(command)
    out = tmp_path / "report"
    code = cli.main([*argv[1 : argv.index("--out")], "--out", str(out)])
    assert code == 0, capsys.readouterr()
    written = [row for table in markdown_tables((out / "report.md").read_text()) for row in table]
    quoted_section = section(page.read_text(encoding="utf-8"), heading)
    quoted = [b for b in blocks if b.lang == "text" and b.code in quoted_section]
    rows = [row for b in quoted for table in markdown_tables(b.code) for row in table]
    assert len(rows) >= 10
    for row in rows:
        assert any(all(w.get(k) == v for k, v in row.items()) for w in written), row


def _documented() -> set[str]:
    """The names the API pages' autosummary tables list."""
    names = set()
    for page in API_PAGES:
        for listing in AUTOSUMMARY.findall(page.read_text(encoding="utf-8")):
            names |= {line.strip().rsplit(".", 1)[-1] for line in listing.splitlines()}
    return names


def test_every_public_name_has_its_api_page() -> None:
    """pg.* in the API reference: each measure class with its ready-made instance and
    expression function on the measures pages, everything else on the others."""
    missing = sorted(set(pg.__all__) - {"__version__"} - _documented())
    assert not missing, f"not in docs/api/*.md: {missing}"


def test_every_registered_measure_has_its_section() -> None:
    text = (DOCS / "measures.md").read_text(encoding="utf-8")
    for cls in registry.CLASSES:
        assert f"\n## `{cls.name}`" in text, cls.name
