"""The progress bar of an evaluation in partitions (polars_graded/scale/progress.py); when the
command line draws it is test_scale_parquet's."""

from __future__ import annotations

import io

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
