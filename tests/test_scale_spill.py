"""The split of a table on disk (polars_graded/io/spill.py): pieces by a number per row, in
the source's order, in a temporary folder that is removed; clear errors when the disk is
short. Its use for Parquet larger than memory is tested in test_scale_parquet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_graded.errors import GradedError, SpillError
from polars_graded.scale import spill


def rows(n: int = 1000) -> pl.LazyFrame:
    return pl.LazyFrame({"query": [i * 7919 % 97 for i in range(n)], "row": range(n)})


def split_only(lf: pl.LazyFrame, piece: pl.Expr, count: int, **options: Any) -> None:
    """Split and remove at once: for the errors of the split itself."""
    with spill.split(lf, piece, count, **options):
        pass


def test_each_piece_is_the_source_filtered_in_order(tmp_path: Path) -> None:
    piece = pl.col("query").hash(seed=0) % 5
    with spill.split(rows(), piece, 5, spill_dir=tmp_path) as files:
        assert len(files) == 5
        for index, frame in spill.pieces(files):
            expected = rows().filter(piece == index).collect()
            assert_frame_equal(frame.collect(), expected, check_exact=True)
        total = sum(frame.collect().height for _, frame in spill.pieces(files))
    assert total == 1000
    assert list(tmp_path.iterdir()) == []


def test_empty_pieces_are_skipped() -> None:
    with spill.split(rows(10), pl.lit(2, dtype=pl.Int64), 4) as files:
        assert [bool(paths) for paths in files] == [False, False, True, False]
        assert [index for index, _ in spill.pieces(files)] == [2]


def test_the_folder_is_removed_on_error(tmp_path: Path) -> None:
    with (
        pytest.raises(RuntimeError, match="boom"),
        spill.split(rows(), pl.col("query") % 3, 3, spill_dir=tmp_path),
    ):
        assert len(list(tmp_path.iterdir())) == 1
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_too_little_free_disk_names_the_folder(tmp_path: Path) -> None:
    with pytest.raises(SpillError, match=f"{tmp_path} has .* GiB") as caught:
        split_only(rows(), pl.lit(0), 1, spill_dir=tmp_path, needed_bytes=2**62)
    assert isinstance(caught.value, GradedError)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_a_spill_error(tmp_path: Path) -> None:
    with pytest.raises(SpillError, match="missing"):
        split_only(rows(), pl.lit(0), 1, spill_dir=tmp_path / "missing")


def test_a_full_disk_while_writing_is_a_spill_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: object, **kwargs: object) -> None:
        msg = "failed to write: No space left on device (os error 28)"
        raise pl.exceptions.ComputeError(msg)

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", full)
    with pytest.raises(SpillError, match="no space left"):
        split_only(rows(), pl.lit(0), 1, spill_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_other_write_errors_pass_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise pl.exceptions.ComputeError("something else")

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", broken)
    with pytest.raises(pl.exceptions.ComputeError, match="something else"):
        split_only(rows(), pl.lit(0), 1, spill_dir=tmp_path)
