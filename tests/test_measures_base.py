"""What every measure shares (polars_graded/measures/base.py): the one relevance-threshold
check, reached from a measure object, the namespace (eager and lazy) and the expression
functions alike. conventions §1: a label <= 0 is never relevant, so a threshold must be > 0."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import polars_graded as pg

# Each thresholded measure as (object, namespace method, expression function) at a threshold.
THRESHOLDED: dict[str, tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]] = {
    "ap": (lambda t: pg.AP(rel=t), lambda ns, t: ns.ap(rel=t), lambda t: pg.ap(rel=t)),
    "p": (lambda t: pg.P(rel=t) @ 5, lambda ns, t: ns.precision(rel=t),
          lambda t: pg.precision(rel=t)),
    "recall": (lambda t: pg.R(rel=t), lambda ns, t: ns.recall(rel=t), lambda t: pg.recall(rel=t)),
    "r_precision": (lambda t: pg.RPrec(rel=t), lambda ns, t: ns.r_precision(rel=t),
                    lambda t: pg.r_precision(rel=t)),
    "rr": (lambda t: pg.RR(rel=t), lambda ns, t: ns.rr(rel=t), lambda t: pg.rr(rel=t)),
    "success": (lambda t: pg.Success(rel=t) @ 1, lambda ns, t: ns.success(rel=t),
                lambda t: pg.success(rel=t)),
    "bpref": (lambda t: pg.Bpref(rel=t), lambda ns, t: ns.bpref(rel=t), lambda t: pg.bpref(rel=t)),
    "rbp": (lambda t: pg.RBP(rel=t), lambda ns, t: ns.rbp(rel=t), lambda t: pg.rbp(rel=t)),
    "mu_ap": (lambda t: pg.MuAP(levels=[t, 2]), lambda ns, t: ns.mu_ap(levels=[t, 2]),
              lambda t: pg.mu_ap(levels=[t, 2])),
}  # fmt: skip


@pytest.mark.parametrize("threshold", [0, 0.0, -1, -0.5])
@pytest.mark.parametrize("name", list(THRESHOLDED))
def test_a_threshold_must_be_above_zero_everywhere(name: str, threshold: float) -> None:
    # conventions §3: a label <= 0 is never relevant; rel=0 used to count label-0 rows as relevant.
    df = pl.DataFrame(
        {"query": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0], "relevance": [0, 1]}
    )
    make, method, expression = THRESHOLDED[name]
    calls: dict[str, Callable[[], object]] = {
        "object": lambda: make(threshold),
        "namespace": lambda: method(df.graded, threshold),
        "lazy namespace": lambda: method(df.lazy().graded, threshold).collect(),
        "expression": lambda: df.group_by("query").agg(expression(threshold)),
    }
    for how, call in calls.items():
        with pytest.raises(pg.MeasureParameterError, match="must be > 0") as info:
            call()
        assert isinstance(info.value, ValueError), how
        assert name in str(info.value), how
