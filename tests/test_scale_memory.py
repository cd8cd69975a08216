"""The memory budget (polars_graded/scale/memory.py): sizes read as bytes, the default budget.
A bad budget given to evaluate_parquet is test_scale_parquet's."""

from __future__ import annotations

import pytest

from polars_graded.scale import memory


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("512MiB", 512 * 2**20),
        ("4GiB", 4 * 2**30),
        ("4 gib", 4 * 2**30),
        ("1.5GiB", 3 * 2**29),
        ("2GB", 2 * 10**9),
        ("300k", 300_000),
        ("1024", 1024),
        (4096, 4096),
    ],
)
def test_memory_sizes(text: str | int, size: int) -> None:
    assert memory.parse_memory(text) == size


def test_default_budget_is_half_the_memory() -> None:
    budget = memory.default_memory_budget()
    assert 0 < budget < 2**50
