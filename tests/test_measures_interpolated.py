"""iprec and iprec_mean (polars_graded/measures/interpolated.py), trec_eval's
iprec_at_recall and 11pt_avg: against trec_eval 10.0's expected outputs, against a reference
that follows m_iprec_at_recall.c line by line on random tables (checked itself against
pytrec_eval, which is trec_eval 9.0.x: float32 scores and recall points ``(long)(x R + 0.9)``),
against pytrec_eval itself under ``compat="trec_eval_9"``, by hand under both releases, and
the refusal of ties="average"."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from support.tables import FrameKind
from support.trec_eval import (
    PRINTED,
    SYSTEMS,
    TOL,
    ours_on_files,
    pytrec_values,
    random_table,
    trec_dicts,
    trec_eval_10,
)

import polars_graded as pg
from polars_graded.errors import MeasureParameterError
from polars_graded.measures.interpolated import ELEVEN_POINTS, recall_target
from polars_graded.options import Compat
from polars_graded.ranking import rank_in_group

Rounding = Callable[[float], int]


def lround(x: float) -> int:
    """trec_eval 10.0: C's lround (half away from zero; the values here are >= 0)."""
    return math.floor(x + 0.5)


def truncate(x: float) -> int:
    """trec_eval 9.0.x: ``(long) (x + 0.9)``."""
    return int(x + 0.9)


def reference_iprec(
    labels: Sequence[float], num_rel: int, rel: float, points: Sequence[float], rounding: Rounding
) -> list[float]:
    """m_iprec_at_recall.c: ``labels`` in ranked order (retrieved rows only)."""
    num_ret, num_rel_ret = len(labels), sum(1 for x in labels if x >= rel)
    cutoffs = [rounding(p * num_rel) for p in points]
    values = [0.0] * len(points)
    current = len(points) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    int_precis = num_rel_ret / num_ret
    rel_so_far = num_rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if labels[i - 1] >= rel:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        current -= 1
    return values


def reference_values(
    table: pl.DataFrame,
    points: Sequence[float],
    rel: float,
    rounding: Rounding,
    *,
    float32: bool = False,
) -> dict[tuple[str, str], list[float]]:
    """{(system, query): iprec at each point} for the queries trec_eval evaluates; scores
    compared as float64 (trec_eval 10.0) or, with ``float32``, as float32 (9.x)."""
    out = {}
    for system in SYSTEMS:
        qrels, run = trec_dicts(table, system)
        for query, scores in run.items():
            if query not in qrels:
                continue
            # score descending, ties by item descending (trec_eval's order)
            items = sorted(scores, reverse=True)
            if float32:
                items.sort(key=lambda item: -np.float32(scores[item]))
            else:
                items.sort(key=lambda item: -scores[item])
            judged = qrels[query]
            labels = [judged.get(item, -1) for item in items]
            num_rel = sum(1 for x in judged.values() if x >= rel)
            out[system, query] = reference_iprec(labels, num_rel, rel, points, rounding)
    return out


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return random_table(161616)


def test_the_reference_with_9s_rounding_equals_pytrec_eval(table: pl.DataFrame) -> None:
    expected = pytrec_values(table, {"iprec_at_recall", "11pt_avg"})
    reference = reference_values(table, ELEVEN_POINTS, 1, truncate, float32=True)
    assert reference.keys() == expected.keys()
    for key, values in reference.items():
        theirs = expected[key]
        for point, value in zip(ELEVEN_POINTS, values, strict=True):
            assert value == pytest.approx(theirs[str(pg.IPrec(recall=point))], abs=TOL)
        assert sum(values) / 11 == pytest.approx(theirs["iprec_mean"], abs=TOL)


def test_iprec_under_trec_eval_9_equals_pytrec_eval(table: pl.DataFrame) -> None:
    """``compat="trec_eval_9"``: every iprec_at_recall point and 11pt_avg of pytrec_eval,
    exactly, on every query it evaluates; the queries it skips score 0."""
    expected = pytrec_values(table, {"iprec_at_recall", "11pt_avg"})
    names = sorted({name for values in expected.values() for name in values})
    assert len(names) == 12
    per_query = table.graded.evaluate(names, by="system", compat="trec_eval_9")
    for row in per_query.iter_rows(named=True):
        theirs = expected.get((row["system"], row["query"]), dict.fromkeys(names, 0.0))
        assert {n: row[n] for n in names} == pytest.approx(theirs, abs=TOL), row
    # the default (10.0) rounds some recall points otherwise on this table
    default = table.graded.evaluate(names, by="system")
    assert not default.equals(per_query)


@pytest.mark.parametrize("rel", [1, 2])
def test_iprec_equals_trec_eval_10s_rule(table: pl.DataFrame, rel: int) -> None:
    points = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
    reference = reference_values(table, points, rel, lround)
    names = [str(pg.IPrec(recall=p, rel=rel)) for p in points]
    mean = str(pg.IPrecMean(recalls=points, rel=rel))
    per_query = table.graded.evaluate([*names, mean], by="system")
    checked = 0
    for row in per_query.iter_rows(named=True):
        values = reference.get((row["system"], row["query"]), [0.0] * len(points))
        assert [row[n] for n in names] == pytest.approx(values, abs=TOL)
        assert row[mean] == pytest.approx(sum(values) / len(points), abs=TOL)
        checked += (row["system"], row["query"]) in reference
    assert checked >= 400


def test_iprec_equals_trec_eval_10(shared_data: Callable[[str], Path]) -> None:
    cases = [
        ("out.test.aq", "qrels.test", 1),
        ("out.test.aql", "qrels.rel_level", 2),
        ("out.test.meas_params", "qrels.test", 1),
    ]
    for out, qrels, rel in cases:
        expected = trec_eval_10(
            shared_data,
            out,
            qrels,
            "results.test",
            wanted=lambda name: name.startswith(("iprec_at_recall", "11pt_avg")),
            rel=rel,
        )
        assert len(expected) >= 6 * 3
        ours = ours_on_files(shared_data, qrels, "results.test", {m for _, m in expected})
        assert {k: ours[k] for k in expected} == pytest.approx(expected, abs=PRINTED)


def test_iprec_by_hand() -> None:
    """Ranked labels 0, 1, 0, 1 and one unretrieved relevant row: R = 3, P@2 = 1/2,
    P@4 = 1/2. recall 0.5 -> the 2nd relevant row (round(1.5) = 2): max(P@4) = 1/2;
    recall 1 -> the 3rd, never retrieved: 0; recall 0 -> max over all = 1/2."""
    df = pl.DataFrame(
        {"query": [1] * 5, "item": list("abcde"), "score": [4.0, 3.0, 2.0, 1.0, None],
         "relevance": [0, 1, 0, 1, 1]}
    )  # fmt: skip
    got = df.graded.evaluate(["iprec(recall=0.5)", "iprec(recall=1)", "iprec", "iprec_mean"])
    # t = round(3 x): points 0 to 0.8 -> t <= 2 (1/2), 0.9 and 1 -> t = 3 (0)
    assert got.row(0)[1:] == pytest.approx((0.5, 0.0, 0.5, 9 * 0.5 / 11), abs=1e-15)


@pytest.mark.parametrize("n_relevant", range(13))
def test_recall_target_rounds_as_each_release(n_relevant: int) -> None:
    """The relevant row a recall point stands for: 10.0's ``lround(x R)``, 9.x's
    ``(long)(x R + 0.9)``, at every recall point of ELEVEN_POINTS and a few others."""
    points = [*ELEVEN_POINTS, 0.25, 0.35, 0.75, 0.05]
    df = pl.DataFrame({"relevance": [1] * n_relevant + [0]})
    roundings: list[tuple[Compat, Callable[[float], int]]] = [
        ("trec_eval_10", lround),
        ("trec_eval_9", truncate),
    ]
    for compat, rounding in roundings:
        ranked = rank_in_group(compat=compat)
        got = df.select(recall_target(ranked, 1, p).alias(str(p)) for p in points).row(0)
        assert list(got) == [rounding(p * n_relevant) for p in points], compat


def test_recall_target_differs_between_the_releases() -> None:
    """R = 4: recall 0.1 is the 0th relevant row under 10.0 (round(0.4)), the 1st under 9.x
    (0.4 + 0.9); recall 0.3 the 1st and the 2nd; recall 0.5 the 2nd under both."""
    df = pl.DataFrame({"relevance": [1, 1, 1, 1, 0, None]})
    got = {
        compat: df.select(
            recall_target(rank_in_group(compat=compat), 1, p).alias(str(p)) for p in (0.1, 0.3, 0.5)
        ).row(0)
        for compat in ("trec_eval_10", "trec_eval_9")
    }
    assert got == {"trec_eval_10": (0.0, 1.0, 2.0), "trec_eval_9": (1.0, 2.0, 2.0)}


def test_iprec_by_hand_under_both_releases(frame_kind: FrameKind) -> None:
    """Ranked labels 1, 0, 0, 1, two unretrieved relevant rows: R = 4. Recall 0.3 is the
    1st relevant row under 10.0 (round(1.2)): max P@i from P@1 = 1; the 2nd under 9.x
    (1.2 + 0.9 = 2.1): P@4 = 1/2. Plain scores: no tie, so only the rounding differs."""
    df = pl.DataFrame(
        {"query": [1] * 6, "item": list("abcdef"), "score": [4.0, 3.0, 2.0, 1.0, None, None],
         "relevance": [1, 0, 0, 1, 1, 1]}
    )  # fmt: skip
    names = ["iprec(recall=0.3)", "iprec(recall=0.5)"]
    default = frame_kind.collect(frame_kind(df).graded.evaluate(names))
    nine = frame_kind.collect(frame_kind(df).graded.evaluate(names, compat="trec_eval_9"))
    assert default.row(0)[1:] == (1.0, 0.5)
    assert nine.row(0)[1:] == (0.5, 0.5)
    ir = pg.evaluate(df, ["ir_measures:IPrec@0.3"])  # ir_measures names follow 9.x
    assert ir.row(0)[1:] == (0.5,)


def test_nothing_retrieved_or_relevant_scores_zero() -> None:
    df = pl.DataFrame({"query": [1, 1, 2], "item": ["a", "b", "c"], "score": [None, None, 1.0],
                       "relevance": [1, 0, 0]})  # fmt: skip
    got = df.graded.evaluate(["iprec", "iprec(recall=1)", "iprec_mean"])
    assert got.rows() == [(1, 0.0, 0.0, 0.0), (2, 0.0, 0.0, 0.0)]


def test_ties_average_is_refused_and_other_policies_work(frame_kind: FrameKind) -> None:
    df = pl.DataFrame({"query": [1, 1], "item": ["a", "b"], "score": [1.0, 1.0],
                       "relevance": [0, 1]})  # fmt: skip
    for name in ("iprec", "iprec_mean"):
        with pytest.raises(MeasureParameterError, match=f"{name}: ties='average' is not supported"):
            frame_kind.collect(frame_kind(df).graded.evaluate([name], ties="average"))
    for ties, best in (("optimistic", 1.0), ("pessimistic", 0.5), ("trec_eval", 1.0)):
        out = frame_kind.collect(frame_kind(df).graded.evaluate(["iprec"], ties=ties))
        assert out.item(0, "iprec") == best


def test_recall_points_are_checked() -> None:
    with pytest.raises(MeasureParameterError, match="'recall' must be from 0 to 1"):
        pg.IPrec(recall=1.5)
    with pytest.raises(MeasureParameterError, match="non-empty list"):
        pg.IPrecMean(recalls=[])
    assert str(pg.parse_measure("iprec_mean(recalls=[.25,.5,.75])")) == (
        "iprec_mean(recalls=[0.25,0.5,0.75])"
    )


def test_every_new_measure_reads_ranked_input_and_lazy_frames_alike(table: pl.DataFrame) -> None:
    """ranked=True on rows already in trec_eval's order (scores compared as the release
    compares them) gives the sorted path's values."""
    names = [
        "iprec(recall=0.3)", "iprec_mean", "num_rel_ret", "set_f", "utility", "unjudged@5",
        "relative_p@5", "r_precision(mult=0.6)",
    ]  # fmt: skip
    retrieved = table.filter(pl.col("score").is_not_null())
    releases: list[tuple[Compat, type[pl.DataType]]] = [
        ("trec_eval_10", pl.Float64),
        ("trec_eval_9", pl.Float32),
    ]
    for compat, dtype in releases:
        ranked = retrieved.sort(
            ["system", "query", pl.col("score").cast(dtype), "item"],
            descending=[False, False, True, True],
        )
        expected = retrieved.graded.evaluate(names, by="system", compat=compat)
        got = ranked.lazy().graded.evaluate(names, by="system", ranked=True, compat=compat)
        assert got.collect().equals(expected), compat
