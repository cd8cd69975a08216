"""The progress bars (polars_graded/scale/progress.py): tqdm.auto's when tqdm is installed,
the one-line fallback without it, and evaluate_parquet(progress=); when the command line
draws it is test_scale_parquet's, the report's steps test_report_compute's."""

from __future__ import annotations

import io
import sys
import types
from pathlib import Path
from typing import ClassVar

import pytest
from support.tables import make_random_table

import polars_graded as pg
from polars_graded.scale import progress


def test_progress_bar_draws_one_line() -> None:
    stream = io.StringIO()
    bar = progress.ProgressBar(3, stream=stream, width=6)
    for done in (1, 2, 3):
        bar.update(done)
    text = stream.getvalue()
    assert text.count("\r") == 4
    assert text.endswith("\n")
    assert text.count("\n") == 1
    assert "[######] 3/3 partitions" in text


class FakeTqdm:
    """A stand-in for ``tqdm.auto.tqdm``: records what the bar is told."""

    made: ClassVar[list[FakeTqdm]] = []

    def __init__(self, *, total: int, unit: str, desc: str, **options: object) -> None:
        self.total, self.unit, self.n = total, unit, 0
        self.descriptions = [desc]
        self.closed = 0
        FakeTqdm.made.append(self)

    def set_description_str(self, text: str, refresh: bool = True) -> None:
        self.descriptions.append(text)

    def update(self, steps: int) -> None:
        self.n += steps

    def close(self) -> None:
        self.closed += 1


def test_progress_bar_is_tqdm_auto_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm.auto", types.SimpleNamespace(tqdm=FakeTqdm))
    FakeTqdm.made.clear()
    bar = progress.progress_bar(3, unit="steps", what="report")
    bar.update(1, "comparing")
    bar.update(3)
    (made,) = FakeTqdm.made
    assert (made.total, made.unit, made.n, made.closed) == (3, "steps", 3, 1)
    assert made.descriptions == ["report", "report: comparing", "report"]


def test_real_tqdm_draws_the_count_and_the_step() -> None:
    stream = io.StringIO()
    bar = progress.progress_bar(2, stream=stream, unit="steps", what="report")
    assert isinstance(bar, progress.TqdmBar)  # tqdm is in the test extra
    bar.update(1, "all pairs")
    bar.update(2)
    text = stream.getvalue()
    assert "report: all pairs" in text
    assert text.endswith("2/2 steps [00:00]\n")


def test_without_tqdm_the_line_is_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("tqdm", "tqdm.auto"):
        monkeypatch.setitem(sys.modules, name, None)  # import tqdm.auto raises ImportError
    stream = io.StringIO()
    bar = progress.progress_bar(3, stream=stream, unit="steps", what="report")
    assert isinstance(bar, progress.ProgressBar)
    bar.update(1, "a long step name")
    bar.update(2, "short")
    bar.close()  # the work raised: the line ends, once
    bar.close()
    lines = stream.getvalue().split("\r")
    assert lines[2] == "report: [" + "#" * 10 + "." * 20 + "] 1/3 steps, 0 s: a long step name"
    # Spaces cover the longer line before; the line ends once.
    assert (
        lines[3] == "report: [" + "#" * 20 + "." * 10 + "] 2/3 steps, 0 s: short" + " " * 11 + "\n"
    )


@pytest.mark.parametrize("shown", [True, False])
def test_evaluate_parquet_draws_progress_only_when_asked(
    shown: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.parquet"
    make_random_table(0, systems=2, queries=4).write_parquet(path)
    pg.evaluate_parquet(path, ["ap"], partitions=2, progress=shown, by="system")
    assert ("2/2 partitions" in capsys.readouterr().err) is shown
