"""The fixtures of the test suite and its hypothesis profiles; the helpers they call live in
the package ``support`` (tests import them from there, never from here).

- Hypothesis profiles: ``ci`` (the default: derandomized, so every run of the suite draws
  the same examples, no deadline, no example database) and ``explore`` (random seeds, for
  hunting locally: ``HYPOTHESIS_PROFILE=explore pytest tests/test_hostile.py``).
- Fixtures: ``frame_kind`` (every test that takes it runs on a DataFrame and a LazyFrame,
  as narwhals' ``constructor``), ``random_table`` (the suite's one seeded random long
  table, :func:`support.tables.make_random_table`), ``write_trec`` (a TREC file with a
  BOM, CRLF, gzip or a truncated gzip) and ``shared_data`` (a path under
  ``../shared/data``: skips when it is missing, fails under ``CI=true``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from hypothesis import settings
from support.environment import require_shared_data
from support.tables import FrameKind, make_random_table
from support.trec_files import write_trec_file

settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def shared_data() -> Callable[[str | os.PathLike[str]], Path]:
    """``shared_data("trec2003-robust")``: the path, or skip (locally) / fail (CI=true).

    Session-scoped, so that module fixtures that load the data can take it too.
    """
    return require_shared_data


@pytest.fixture(params=["eager", "lazy"])
def frame_kind(request: pytest.FixtureRequest) -> FrameKind:
    """Runs the test on a DataFrame and on a LazyFrame: ``frame_kind(df).graded...``."""
    return FrameKind(request.param)


@pytest.fixture
def random_table() -> Callable[..., pl.DataFrame]:
    """The factory :func:`support.tables.make_random_table`: ``random_table(seed, systems=2)``."""
    return make_random_table


@pytest.fixture
def write_trec() -> Callable[..., Path]:
    """The writer :func:`support.trec_files.write_trec_file`:
    ``write_trec(tmp_path / "run.txt", text, bom=True)``."""
    return write_trec_file
