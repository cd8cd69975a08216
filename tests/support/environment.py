"""What the machine provides: CI or not, the shared data beside the repository, the
optional extras.

Locally a test that needs something missing skips; under ``CI=true``, where everything is
installed and the data is present, it fails instead.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

import pytest

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
"""Real data beside the repository (read only; see its SOURCE.md)."""


def in_ci() -> bool:
    """True under CI (the environment variable ``CI`` is ``"true"``)."""
    return os.environ.get("CI", "").lower() == "true"


def require_shared_data(relative: str | os.PathLike[str]) -> Path:
    """``../shared/data/<relative>``; skips the test when it is missing, fails under CI."""
    path = SHARED_DATA / relative
    if not path.exists():
        msg = f"shared data not found: {path}"
        if in_ci():
            pytest.fail(f"{msg} (CI=true: tests on shared data must run, not skip)")
        pytest.skip(msg)
    return path


def import_extra(module: str, reason: str) -> ModuleType:
    """``pytest.importorskip`` for an optional extra (``pyspark``, ...), with a reason; under
    ``CI=true``, where every extra is installed, a missing module fails the test instead.

    Test dependencies (the ``[test]`` extra: hypothesis, pytrec_eval, scipy, matplotlib)
    are imported directly, never through this.
    """
    if in_ci():
        try:
            return importlib.import_module(module)
        except ImportError as error:
            pytest.fail(f"{module} is missing under CI=true ({reason}): {error}")
    imported: ModuleType = pytest.importorskip(module, reason=reason)
    return imported
