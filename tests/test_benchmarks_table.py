"""The Performance page's table (docs/performance.md) is what benchmarks/readme_table.py
writes from the committed results: never edited by hand, never stale."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "readme_table.py"
RESULTS = REPO / "benchmarks" / "results"


def _script() -> ModuleType:
    """The benchmark script as a module (benchmarks/ is no package)."""
    spec = importlib.util.spec_from_file_location("readme_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _block(text: str, script: ModuleType) -> str:
    """The text between the page's two benchmark markers."""
    pattern = re.escape(script.START) + r"\n(.*?)\n" + re.escape(script.END)
    found = re.findall(pattern, text, re.S)
    assert len(found) == 1, "one benchmark block"
    block: str = found[0]
    return block


def test_the_page_holds_the_table_of_the_committed_results() -> None:
    script = _script()
    assert script.PAGE == REPO / "docs" / "performance.md"
    written = _block(script.PAGE.read_text(encoding="utf-8"), script)
    assert written == script.table(script.newest_results(RESULTS))
    assert "| **the ranking floor** |" in written


def test_the_readme_has_no_copy_of_the_table() -> None:
    assert _script().START not in (REPO / "README.md").read_text(encoding="utf-8")


def test_update_page_replaces_the_block_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    page = tmp_path / "performance.md"
    page.write_text(f"# Performance\n\n{script.START}\nold\n{script.END}\n\nAfter.\n")
    script.update_page(page, RESULTS)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Performance\n\n") and text.endswith("\n\nAfter.\n")
    assert _block(text, script) == script.table(script.newest_results(RESULTS))
    script.update_page(page, RESULTS)
    assert page.read_text(encoding="utf-8") == text  # a second run changes nothing
    assert "wrote the Performance table" in capsys.readouterr().err


def test_a_page_without_markers_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    page.write_text("# Performance\n")
    with pytest.raises(SystemExit, match="has no"):
        _script().update_page(page, RESULTS)
    assert page.read_text() == "# Performance\n"
