"""``python -m polars_graded.cli`` (polars_graded/cli/__main__.py): the same command as
``polars-graded``, with its exit codes."""

from __future__ import annotations

import subprocess
import sys

import polars_graded


def test_python_dash_m_runs_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "polars_graded.cli", "--version"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    assert polars_graded.__version__ in done.stdout


def test_python_dash_m_exits_2_on_bad_usage() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "polars_graded.cli", "evaluate", "--no-such-option"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("polars-graded: error:")
