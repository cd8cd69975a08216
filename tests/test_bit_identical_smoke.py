"""benchmarks/bit_identical.py runs end to end: this repository against itself, generated data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "bit_identical.py"


def _script() -> ModuleType:
    """The benchmark script as a module."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import bit_identical
    finally:
        sys.path.remove(str(SCRIPT.parent))
    module: ModuleType = bit_identical
    return module


def test_the_repository_equals_itself_on_generated_data(tmp_path: Path) -> None:
    """Every comparison is OK, the analysis included; each worker imports the given root's
    package; the report's text is kept with its time and version normalised."""
    out = tmp_path / "out"
    command = [
        sys.executable, str(SCRIPT), "--before", str(REPO), "--after", str(REPO), "--quick",
        "--datasets", "gen-graded,systems", "--out", str(out), "--cache", str(tmp_path),
    ]  # fmt: skip
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert f"  before: polars_graded from {REPO / 'polars_graded' / '__init__.py'}" in lines
    verdicts = [line.split() for line in done.stdout.splitlines() if line.startswith("OK ")]
    analyses = _script().ANALYSES
    # the catalogue; per dataset 5 tie policies x 3 kinds and gm_; the analysis of systems
    assert len(verdicts) == 1 + 2 * (5 * 3 + 1) + len(analyses)
    assert [v[3] for v in verdicts if v[1:3] == ["systems", "-"]] == list(analyses)
    assert f"{len(verdicts)} equal, 0 different" in done.stdout
    report = (out / "after" / "systems" / "analysis" / "report.md").read_text(encoding="utf-8")
    assert "<created>" in report
    assert "polars_graded <version>" in report
    assert " UTC" not in report


def test_normalised_and_text_difference() -> None:
    """Only the creation time and the version are normalised; a text difference is placed."""
    script = _script()
    text = "Created 2025-01-31 12:05 UTC with polars_graded 1.2.3, Polars 1.2.3.\nmean 1.2.3\n"
    assert script.normalised(text, "1.2.3") == (
        "Created <created> with polars_graded <version>, Polars 1.2.3.\nmean 1.2.3\n"
    )
    assert script._text_difference("a\nb\n", "a\nb\n") is None
    assert script._text_difference("a\nbc\n", "a\nbd\n") == "line 2: before 'bc\\n', after 'bd\\n'"
    assert script._text_difference("a\n", "a") == "line 1: before 'a\\n', after 'a'"


def test_readme_measure_strings() -> None:
    """The measure table's ``@k`` becomes ``@10``; ``-m NAME=MEASURE`` keeps the measure."""
    readme_measure_strings = _script().readme_measure_strings
    text = (
        "## Measures\n\n| name | what |\n|---|---|\n| `ap`, `ap(rel=2)`, `ap@k` | AP |\n\n"
        '```bash\npolars-graded evaluate -m "rbp80=rbp(p=0.8)@5" -m ndcg(gain=linear)@10\n```\n'
    )
    found = readme_measure_strings(text)
    assert found[:3] == ["ap", "ap(rel=2)", "ap@10"]
    assert {"rbp(p=0.8)@5", "ndcg(gain=linear)@10"} <= set(found)


def test_the_measure_strings_of_the_site() -> None:
    """The README and the site's pages are read, docs/measures.md's table among them."""
    script = _script()
    pages = script.measure_pages(REPO)
    assert pages[0] == REPO / "README.md"
    assert REPO / "docs" / "measures.md" in pages
    assert not [p for p in pages if "generated" in p.relative_to(REPO).parts]
    found = script.readme_measure_strings((REPO / "docs" / "measures.md").read_text("utf-8"))
    assert {"mu_ap@10", "mu_ap(levels=[1,2,3])", "q_measure(gain={1:1,2:3})"} <= set(found)
