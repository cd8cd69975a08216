"""ERR, RBP and its residual, bpref, Judged@k, success@k and the geometric mean.

bpref, success@k and gm_map are also checked against trec_eval (test_trec_eval_differential
and test_trec_eval_files); ERR against TREC's own gdeval.pl when it is installed (it ships
with ir_measures). Here: a plain-Python reference written from the papers' formulas, every
tie policy (``"average"`` against the enumeration of every order of the tied rows), the
geometric mean and the parameter errors.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import shutil
import subprocess
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from strategies import long_tables

import polars_graded as pg

Label = float | int | None
TOL = 1e-12


# --------------------------------------------------------------------------- reference


def ref_err(ranked: Sequence[Label], k: int | None, top: float = 4) -> float:
    """Chapelle et al. 2009: sum_p (1/p) R_p prod_{i<p} (1 - R_i), R = (2^g - 1) / 2^top."""
    total, reach = 0.0, 1.0
    for p, label in enumerate(ranked[:k] if k else ranked, start=1):
        grade = min(label, top) if label is not None and label > 0 else 0
        stop = (2.0**grade - 1) / 2.0**top
        total += reach * stop / p
        reach *= 1 - stop
    return total


def ref_rbp(ranked: Sequence[Label], k: int | None, p: float = 0.8, rel: float = 1) -> float:
    """Moffat and Zobel 2008: (1 - p) sum_i [rel_i >= rel] p^(i-1)."""
    top = ranked[:k] if k else ranked
    return (1 - p) * sum(p**i for i, lab in enumerate(top) if lab is not None and lab >= rel)


def ref_residual(ranked: Sequence[Label], k: int | None, p: float = 0.8) -> float:
    """The weight of the unjudged rows evaluated plus p^depth for the rows beyond."""
    top = ranked[:k] if k else ranked
    return (1 - p) * sum(p**i for i, lab in enumerate(top) if lab is None) + p ** len(top)


def ref_judged(ranked: Sequence[Label], k: int | None) -> float:
    top = ranked[:k] if k else ranked
    return sum(lab is not None for lab in top) / len(top) if top else 0.0


def ref_success(ranked: Sequence[Label], k: int | None, rel: float = 1) -> float:
    top = ranked[:k] if k else ranked
    return float(any(lab is not None and lab >= rel for lab in top))


def ref_bpref(ranked: Sequence[Label], judged: Sequence[Label], rel: float = 1) -> float:
    """trec_eval m_bpref.c; negative labels are skipped like unjudged rows."""
    n_rel = sum(lab >= rel for lab in judged if lab is not None)
    n_non = sum(0 <= lab < rel for lab in judged if lab is not None)
    total, above = 0.0, 0
    for lab in ranked:
        if lab is None or lab < 0:
            continue
        if lab < rel:
            above += 1
        elif above == 0:
            total += 1.0
        else:
            total += 1.0 - min(above, n_rel) / min(n_non, n_rel)
    return total / n_rel if n_rel else 0.0


Reference = Callable[[Sequence[Label], Sequence[Label]], float]
MEASURES: dict[str, Reference] = {
    "err": lambda r, j: ref_err(r, None),
    "err@3": lambda r, j: ref_err(r, 3),
    "err(max_rel=6)@2": lambda r, j: ref_err(r, 2, top=6),
    "rbp": lambda r, j: ref_rbp(r, None),
    "rbp(p=0.5,rel=2)@3": lambda r, j: ref_rbp(r, 3, p=0.5, rel=2),
    "rbp_residual": lambda r, j: ref_residual(r, None),
    "rbp_residual(p=0.9)@2": lambda r, j: ref_residual(r, 2, p=0.9),
    "judged": lambda r, j: ref_judged(r, None),
    "judged@3": lambda r, j: ref_judged(r, 3),
    "success@1": lambda r, j: ref_success(r, 1),
    "success(rel=2)@3": lambda r, j: ref_success(r, 3, rel=2),
    "success": lambda r, j: ref_success(r, None),
    "bpref": ref_bpref,
    "bpref(rel=2)": lambda r, j: ref_bpref(r, j, rel=2),
}
# A rise in a label never lowers these (judged and the residual are about judgments).
MONOTONE = [m for m in MEASURES if not m.startswith(("judged", "rbp_residual"))]


def f32(x: float) -> float:
    return float(np.float32(x))


def tie_groups(rows: list[tuple]) -> list[list[tuple]]:
    """Retrieved (item, score, label) rows in trec_eval order, grouped by float32 score."""
    retrieved = sorted((r for r in rows if r[1] is not None), key=lambda r: r[0], reverse=True)
    retrieved.sort(key=lambda r: f32(r[1]), reverse=True)
    return [list(g) for _, g in itertools.groupby(retrieved, key=lambda r: f32(r[1]))]


def reference_values(df: pl.DataFrame, ties: str) -> dict[object, dict[str, float]]:
    """Per query, each measure under ``"trec_eval"`` or (by enumeration) ``"average"``."""
    out = {}
    for (query,), part in df.group_by("query"):
        rows = list(part.select("item", "score", "relevance").iter_rows())
        judged = [r[2] for r in rows if r[2] is not None]
        groups = tie_groups(rows)
        orders = (
            itertools.product(*(itertools.permutations(g) for g in groups))
            if ties == "average"
            else [groups]
        )
        rankings = [[r[2] for g in order for r in g] for order in orders]
        out[query] = {
            name: float(np.mean([ref(ranked, judged) for ranked in rankings]))
            for name, ref in MEASURES.items()
        }
    return out


def assert_matches_reference(df: pl.DataFrame, ties: str) -> None:
    got = df.graded.evaluate(list(MEASURES), ties=ties)  # type: ignore[arg-type]
    expected = reference_values(df, ties)
    for row in got.iter_rows(named=True):
        for name in MEASURES:
            want = expected[row["query"]][name]
            assert row[name] == pytest.approx(want, abs=TOL), (name, row["query"])


# --------------------------------------------------------------------------- the values


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_tables(labels="int", max_queries=4, max_items=12))
def test_values_equal_the_reference(df: pl.DataFrame) -> None:
    assert_matches_reference(df, "trec_eval")


# Small scores tie often; at most 7 retrieved rows keep the enumeration small.
HEAVY_TIES = st.integers(0, 2).map(float)


@st.composite
def tied_tables(draw: st.DrawFn) -> pl.DataFrame:
    rows = []
    for query in range(draw(st.integers(1, 3))):
        for item in range(draw(st.integers(1, 7))):
            label = draw(st.one_of(st.none(), st.integers(-2, 5)))
            score = draw(HEAVY_TIES) if label is None or draw(st.integers(0, 4)) else None
            rows.append((query, f"d{item}", score, label))
    schema = {"query": pl.Int64, "item": pl.String, "score": pl.Float64, "relevance": pl.Int64}
    return pl.DataFrame(rows, schema=schema, orient="row")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_tables())
def test_average_equals_the_mean_over_every_order_of_the_ties(df: pl.DataFrame) -> None:
    assert_matches_reference(df, "average")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_tables())
def test_optimistic_average_pessimistic_are_ordered(df: pl.DataFrame) -> None:
    values = {
        ties: df.graded.evaluate(MONOTONE, ties=ties)  # type: ignore[arg-type]
        for ties in ("optimistic", "average", "pessimistic")
    }
    for name in MONOTONE:
        high, mid, low = (values[t][name].to_numpy() for t in values)
        assert (high >= mid - TOL).all(), name
        assert (mid >= low - TOL).all(), name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_tables(labels="int", max_queries=3, max_items=10))
def test_without_ties_every_policy_gives_the_same_bits(df: pl.DataFrame) -> None:
    df = df.with_columns(score=pl.int_range(pl.len()).cast(pl.Float64))  # all distinct
    expected = df.graded.evaluate(list(MEASURES))
    for ties in ("input", "optimistic", "pessimistic", "average"):
        got = df.graded.evaluate(list(MEASURES), ties=ties)  # type: ignore[arg-type]
        assert_frame_equal(got, expected, check_exact=True)


def test_hand_computed_values() -> None:
    """One query: a (score 3, label 0), b and c tied at 2 (labels 2, unjudged), d unretrieved
    (label 1). trec_eval order a, c, b; ERR's R(2) = 3/16."""
    df = pl.DataFrame(
        {
            "query": [1, 1, 1, 1],
            "item": ["a", "b", "c", "d"],
            "score": [3.0, 2.0, 2.0, None],
            "relevance": [0, 2, None, 1],
        }
    )
    measures = ["err", "rbp", "rbp_residual", "judged@3", "success@2", "bpref"]
    got = df.graded.evaluate(measures).row(0, named=True)
    assert got["err"] == pytest.approx((3 / 16) / 3)
    assert got["rbp"] == pytest.approx(0.2 * 0.8**2)  # b at position 3
    assert got["rbp_residual"] == pytest.approx(0.2 * 0.8 + 0.8**3)  # c unjudged at 2
    assert got["judged@3"] == pytest.approx(2 / 3)
    assert got["success@2"] == 0.0
    assert got["bpref"] == 0.0  # a (non-relevant) precedes b, min(1, R=2) / min(R, N=1) = 1
    average = df.graded.evaluate(measures, ties="average").row(0, named=True)
    assert average["err"] == pytest.approx((3 / 16) * (1 / 2 + 1 / 3) / 2)
    assert average["success@2"] == pytest.approx(0.5)


# --------------------------------------------------------------------------- gdeval


def _gdeval() -> Path | None:
    spec = importlib.util.find_spec("ir_measures")
    if spec is None or spec.origin is None or shutil.which("perl") is None:
        return None
    script = Path(spec.origin).parent / "bin" / "gdeval.pl"
    return script if script.is_file() else None


@pytest.mark.skipif(_gdeval() is None, reason="gdeval.pl (from ir_measures) or perl missing")
def test_err_equals_trec_gdeval(tmp_path: Path) -> None:
    """TREC Web track's gdeval.pl (labels 0..4, numeric topics, 5 printed decimals)."""
    rng = np.random.default_rng(3)
    rows = []
    for query in range(1, 41):
        n = int(rng.integers(3, 40))
        for item in rng.choice(500, n, replace=False):
            score = round(float(rng.normal()), 1) if rng.random() < 0.9 else None
            label = int(rng.choice([0, 0, 0, 1, 2, 3, 4])) if rng.random() < 0.7 else None
            rows.append((query, f"d{item}", score, label))
    schema = {"query": pl.Int64, "item": pl.String, "score": pl.Float64, "relevance": pl.Int64}
    df = pl.DataFrame(rows, schema=schema, orient="row")
    qrels = df.filter(pl.col("relevance").is_not_null())
    run = df.filter(pl.col("score").is_not_null())
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, _, r in qrels.iter_rows()))
    (tmp_path / "run").write_text(
        "".join(f"{q} Q0 {d} 1 {s} r\n" for q, d, s, _ in run.iter_rows())
    )
    argv = ["perl", str(_gdeval()), str(tmp_path / "qrels"), str(tmp_path / "run"), "10"]
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    theirs = {
        int(line.split(",")[1]): float(line.split(",")[3])
        for line in out.splitlines()[1:]
        if line.split(",")[1] != "amean"
    }
    ours = dict(df.graded.evaluate(["err@10"]).iter_rows())
    # gdeval only reports topics with a relevant judgment
    assert len(theirs) >= 30
    for query, value in theirs.items():
        assert ours[query] == pytest.approx(value, abs=0.5e-5 + 1e-12), query


# --------------------------------------------------------------------------- options


def test_geometric_mean_is_trec_evals() -> None:
    df = pl.DataFrame(
        {
            "system": ["a"] * 6,
            "query": [1, 1, 2, 2, 3, 3],
            "item": ["x", "y"] * 3,
            "score": [2.0, 1.0] * 3,
            "relevance": [0, 1, 1, 0, 0, 0],
        }
    )
    per_query = df.graded.evaluate(["ap", "bpref"], by="system")
    got = df.graded.summary(["ap", "bpref"], by="system", mean="geometric")
    for name in ("ap", "bpref"):
        values = np.maximum(per_query[name].to_numpy(), 1e-5)
        assert got[f"gm_{name}"].item() == pytest.approx(math.exp(np.log(values).mean()))
    assert got["num_q"].item() == 3
    lazy = df.lazy().graded.summary(["ap"], mean="geometric").collect()
    assert lazy.columns == ["num_q", "gm_ap"]


def test_geometric_mean_of_a_parquet_source(tmp_path: Path) -> None:
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2], "item": ["x", "y"] * 2, "score": [2.0, 1.0] * 2,
         "relevance": [0, 1, 1, 0]}
    )  # fmt: skip
    df.write_parquet(tmp_path / "t.parquet")
    got = pg.summary_parquet(tmp_path / "t.parquet", ["ap"], partitions=2, mean="geometric")
    assert_frame_equal(got, df.graded.summary(["ap"], mean="geometric"))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("rbp(p=1.5)", "between 0 and 1"),
        ("rbp_residual(p=0)", "between 0 and 1"),
        ("err(max_rel=0)", "max_rel"),
        ("bpref@10", "no cutoff"),
    ],
)
def test_bad_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)


def test_bad_mean() -> None:
    df = pl.DataFrame({"query": [1], "item": ["a"], "score": [1.0], "relevance": [1]})
    with pytest.raises(pg.InvalidValueError, match="mean"):
        df.graded.summary(["ap"], mean="harmonic")  # type: ignore[arg-type]


def test_namespace_methods_and_expressions_equal_evaluate() -> None:
    df = pl.DataFrame(
        {"query": [1, 1, 1, 2, 2], "item": ["a", "b", "c", "a", "b"],
         "score": [1.0, 1.0, 0.5, 2.0, None], "relevance": [2, 0, None, 1, 3]}
    )  # fmt: skip
    calls = {
        "err@2": (df.graded.err(k=2), pg.err(k=2, ties="average")),
        "rbp(p=0.5)": (df.graded.rbp(p=0.5), pg.rbp(p=0.5, ties="average")),
        "rbp_residual": (df.graded.rbp_residual(), pg.rbp_residual(ties="average")),
        "bpref": (df.graded.bpref(), pg.bpref(ties="average")),
        "judged@1": (df.graded.judged(k=1), pg.judged(k=1, ties="average")),
        "success@1": (df.graded.success(k=1), pg.success(k=1, ties="average")),
    }
    expected = df.graded.evaluate(list(calls))
    averaged = df.graded.evaluate(list(calls), ties="average")
    for name, (method, expression) in calls.items():
        assert_frame_equal(method, expected.select("query", name))
        mine = df.group_by("query").agg(expression).sort("query")
        assert_frame_equal(mine, averaged.select("query", name), check_exact=False)


# --------------------------------------------------------------------------- thresholds > 0

# Each thresholded measure as (object, namespace method, expression function) at a threshold.
THRESHOLDED: dict[str, tuple[Callable, Callable, Callable]] = {
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
    # SPEC: a label <= 0 is never relevant; rel=0 used to count label-0 rows as relevant.
    df = pl.DataFrame(
        {"query": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0], "relevance": [0, 1]}
    )
    make, method, expression = THRESHOLDED[name]
    calls = {
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


# --------------------------------------------------------------------------- huge labels


def exact_ndcg(ranked: Sequence[float], k: int | None = None) -> float:
    """NDCG with gain 2^rel - 1 in exact integer arithmetic; only the discounts are floats."""
    gains = [2 ** int(label) - 1 if label > 0 else 0 for label in ranked]
    top = max(gains)
    if top == 0:
        return 0.0
    # Gains relative to the top gain are exact fractions; as floats they lose no range.
    relative = [float(Fraction(g, top)) for g in gains]
    depth = len(ranked) if k is None else min(k, len(ranked))
    dcg = sum(relative[p] / math.log2(p + 2) for p in range(depth))
    ideal_order = sorted(relative, reverse=True)
    ideal = sum(ideal_order[p] / math.log2(p + 2) for p in range(depth))
    return dcg / ideal


HUGE_LABELS = [
    [1, 2000, 1999, 0],
    [1023, 1024, 1030, 3],
    [5000, 0, 4990, 1, 5000],
    [2, 1, 0, 1100],
]


@pytest.mark.parametrize("labels", HUGE_LABELS)
def test_ndcg_on_labels_of_1024_and_more(labels: list[int]) -> None:
    # 2^1024 overflows float64: NDCG used to be NaN; the ratio is representable.
    n = len(labels)
    df = pl.DataFrame(
        {"query": [1] * n, "item": [f"d{i}" for i in range(n)],
         "score": [float(n - i) for i in range(n)], "relevance": labels}
    )  # fmt: skip
    got = df.graded.evaluate(["ndcg", "ndcg@2", "mean_ndcg"]).row(0, named=True)
    assert got["ndcg"] == pytest.approx(exact_ndcg(labels), rel=1e-12)
    assert got["ndcg@2"] == pytest.approx(exact_ndcg(labels, 2), rel=1e-12)
    mean = sum(exact_ndcg(labels, k) for k in range(1, n + 1)) / n
    assert got["mean_ndcg"] == pytest.approx(mean, rel=1e-12)
    # the standalone expressions scale their gains the same way
    expr = df.group_by("query").agg(pg.ndcg(), pg.ndcg(k=2), pg.mean_ndcg()).row(0, named=True)
    assert expr["ndcg"] == got["ndcg"]
    assert expr["ndcg@2"] == got["ndcg@2"]
    assert expr["mean_ndcg"] == got["mean_ndcg"]


def test_ndcg_is_invariant_to_adding_1000_to_every_positive_label() -> None:
    # With labels l and l + c, 2^(l+c) - 1 is about 2^c (2^l): for large c the ratios tend
    # to those of 2^l; exact reference on both tables.
    labels = [3, 0, 1, 2, 0, 3]
    shifted = [label + 3000 if label > 0 else 0 for label in labels]
    for values in (labels, shifted):
        df = pl.DataFrame(
            {"query": [7] * 6, "item": list("abcdef"), "score": [6.0, 5, 4, 3, 2, 1],
             "relevance": values}
        )  # fmt: skip
        assert df.graded.ndcg()["ndcg"][0] == pytest.approx(exact_ndcg(values), rel=1e-12)


def exact_err(ranked: Sequence[float], top: int, k: int | None = None) -> float:
    """ERR with R = (2^min(g, top) - 1) / 2^top as exact fractions."""
    total, reach = Fraction(0), Fraction(1)
    for p, label in enumerate(ranked[:k] if k else ranked, start=1):
        grade = min(int(label), top) if label > 0 else 0
        stop = Fraction(2**grade - 1, 2**top)
        total += reach * stop / p
        reach *= 1 - stop
    return float(total)


@pytest.mark.parametrize("top", [1024, 2000, 5000])
def test_err_with_a_top_grade_beyond_float64(top: int) -> None:
    # 2.0 ** top_grade raised OverflowError at top grades >= 1024.
    labels = [1, top, top - 1, 0, top - 3]
    df = pl.DataFrame(
        {"query": [1] * 5, "item": list("abcde"), "score": [5.0, 4, 3, 2, 1], "relevance": labels}
    )  # fmt: skip
    got = df.graded.err(max_rel=top)[f"err(max_rel={top})"][0]
    assert got == pytest.approx(exact_err(labels, top), rel=1e-12)
    averaged = df.graded.err(max_rel=top, ties="average")[f"err(max_rel={top})"][0]
    assert averaged == pytest.approx(exact_err(labels, top), rel=1e-12)


def test_err_keeps_its_bits_below_the_exact_top_grade() -> None:
    # Top grades up to 1000 keep the formula as written: (2^g - 1) / 2^m in float64.
    labels = [3.5, 0, 1000, 2, 999.25]
    df = pl.DataFrame(
        {"query": [1] * 5, "item": list("abcde"), "score": [5.0, 4, 3, 2, 1], "relevance": labels}
    )  # fmt: skip
    total, reach = 0.0, 1.0
    for p, label in enumerate(labels, start=1):
        stop = (2.0 ** min(label, 1000) - 1.0) / 2.0**1000 if label > 0 else 0.0
        total += reach * stop / p
        reach *= 1.0 - stop
    assert df.graded.err(max_rel=1000)["err(max_rel=1000)"][0] == pytest.approx(total, rel=1e-14)


@pytest.mark.parametrize("label", [1024, 1100, 5000])
def test_dcg_with_exponential_gain_beyond_float64_is_an_error(label: int) -> None:
    # DCG is not a ratio: 2^1024 cannot be represented. It used to print inf.
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2], "item": ["a", "b", "a", "b"], "score": [2.0, 1.0, 2.0, 1.0],
         "relevance": [1, 2, 0, label]}
    )  # fmt: skip
    for frame in (df, df.lazy()):
        with pytest.raises(pg.InvalidValueError) as info:
            result = frame.graded.dcg()
            result.collect() if isinstance(result, pl.LazyFrame) else None
        message = str(info.value)
        assert "'dcg'" in message
        assert "query=2" in message
        assert "1024" in message
        assert "gain=linear" in message
    # the expression function cannot name the row, but raises all the same
    with pytest.raises(pg.InvalidValueError, match="'dcg' is inf for 1 group"):
        df.group_by("query").agg(pg.dcg())
    # the linear gain and NDCG stay finite
    linear = df.graded.dcg(gain="linear")["dcg(gain=linear)"].to_list()
    assert linear[1] == pytest.approx(label / math.log2(3))
    assert df.graded.ndcg()["ndcg"].to_list()[1] == pytest.approx(1 / math.log2(3))


@pytest.mark.parametrize("label", [math.inf, -math.inf])
def test_an_infinite_label_is_a_data_error(label: float) -> None:
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2], "item": ["a", "b", "c", "d"], "score": [2.0, 1.0, 2.0, 1.0],
         "relevance": [1.0, 2.0, 0.0, label]}
    )  # fmt: skip
    for measures in (["ndcg"], ["dcg"], ["mu_ap", "ap", "ndcng", "err"]):
        with pytest.raises(pg.InvalidValueError) as info:
            df.graded.evaluate(measures)
        message = str(info.value)
        assert "'relevance'" in message
        assert "finite" in message
        assert "query=2" in message
        assert "item='d'" in message
        assert "1 query affected" in message
        with pytest.raises(pg.InvalidValueError, match="finite"):
            df.lazy().graded.summary(measures).collect()
    # the expression functions do not validate, but let no NaN out (-inf is a label <= 0
    # to them, with no gain)
    for expression in (pg.ndcg(), pg.dcg(), pg.ndcng(), pg.mean_ndcg()):
        if label < 0:
            assert df.group_by("query").agg(expression).to_series(1).is_finite().all()
            continue
        with pytest.raises(pg.InvalidValueError, match=r"is (nan|inf) for 1 group"):
            df.lazy().group_by("query").agg(expression).collect()
