"""benchmarks/bit_identical.py runs end to end: this repository against itself, generated data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "bit_identical.py"


def test_the_repository_equals_itself_on_a_generated_log(tmp_path: Path) -> None:
    """Every comparison is OK, each worker imports the given root's package, exit status 0."""
    command = [
        sys.executable, str(SCRIPT), "--before", str(REPO), "--after", str(REPO), "--quick",
        "--datasets", "gen-graded", "--out", str(tmp_path / "out"), "--cache", str(tmp_path),
    ]  # fmt: skip
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert f"  before: polars_graded from {REPO / 'polars_graded' / '__init__.py'}" in lines
    verdicts = [line for line in lines if line.startswith(("OK ", "DIFFERENT "))]
    assert len(verdicts) == 1 + 5 * 3 + 1  # the catalogue, 5 tie policies x 3 kinds, gm_
    assert all(line.startswith("OK ") for line in verdicts)
    assert "17 equal, 0 different" in done.stdout


def test_readme_measure_strings() -> None:
    """The measure table's ``@k`` becomes ``@10``; ``-m NAME=MEASURE`` keeps the measure."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from bit_identical import readme_measure_strings
    finally:
        sys.path.remove(str(SCRIPT.parent))
    text = (
        "## Measures\n\n| name | what |\n|---|---|\n| `ap`, `ap(rel=2)`, `ap@k` | AP |\n\n"
        '```bash\npolars-graded evaluate -m "rbp80=rbp(p=0.8)@5" -m ndcg(gain=linear)@10\n```\n'
    )
    found = readme_measure_strings(text)
    assert found[:3] == ["ap", "ap(rel=2)", "ap@10"]
    assert {"rbp(p=0.8)@5", "ndcg(gain=linear)@10"} <= set(found)
