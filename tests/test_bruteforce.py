"""The library against the oracle of tests/support/oracle.py, query by query.

Random tables (the seeded :func:`support.tables.make_random_table`) cover what
docs/conventions.md allows: several queries, up to 60 levels, continuous labels, score ties
(also ties that exist only in float32: ties under ``compat="trec_eval_9"``, distinct scores
by default), null scores, null relevance, negative labels, queries without relevant rows,
without judgments or without retrieved rows, custom column names and ``by=`` with 2-3
systems (sharing the judgments, or with their own).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from support.oracle import Key, RefQuery, load
from support.tables import LABEL_KINDS, make_random_table

import polars_graded as pg

SEEDS = range(40)
TOL = 1e-9
CUSTOM_NAMES = {"query": "qid", "item": "docno", "score": "sim", "relevance": "rel"}


# --- random tables -------------------------------------------------------------------------


def random_table(seed: int) -> tuple[pl.DataFrame, dict[str, Any]]:
    """A random long table of a random shape, and how to read it (column names, ``by``)."""
    rng = np.random.default_rng(seed)
    n_systems = int(rng.choice([1, 1, 2, 3]))
    keep_system = n_systems > 1 or rng.random() < 0.3
    df = make_random_table(
        rng,
        systems=n_systems if keep_system else 0,
        queries=int(rng.integers(1, 9)),
        max_items=44,
        string_items=bool(rng.random() < 0.5),
        string_queries=bool(rng.random() < 0.3),
        int_labels=bool(rng.random() < 0.3),
        label_kinds=LABEL_KINDS,
        shared_judgments=bool(rng.random() < 0.7),
    )
    by = "system" if keep_system else None
    names = {}
    if rng.random() < 0.3:  # custom column names
        names = CUSTOM_NAMES
        df = df.rename(names)
        if by is not None:
            df = df.rename({"system": "run"})
            by = "run"
    return df, {"by": by, **names}


def keys_of(opts: dict[str, Any]) -> list[str]:
    by = [] if opts["by"] is None else [opts["by"]]
    return [*by, opts.get("query", "query")]


def reference(
    df: pl.DataFrame, opts: dict[str, Any], compat: str = "trec_eval_10"
) -> dict[Key, RefQuery]:
    return load(df, compat=compat, **opts)


def given_levels(df: pl.DataFrame, opts: dict[str, Any], seed: int) -> list[float]:
    rng = np.random.default_rng(seed + 1000)
    labels = df[opts.get("relevance", "relevance")].drop_nulls().cast(pl.Float64).unique()
    positive = [x for x in labels.to_list() if x > 0]
    extra = [float(x) for x in np.round(rng.uniform(0.05, 5.0, size=int(rng.integers(1, 4))), 2)]
    chosen: list[float] | np.ndarray = (
        rng.choice(positive, size=min(len(positive), 5), replace=False) if positive else []
    )
    return sorted({*map(float, chosen), *extra})


def gain_mapping(df: pl.DataFrame, opts: dict[str, Any], seed: int) -> dict[float, float]:
    rng = np.random.default_rng(seed + 2000)
    labels = df[opts.get("relevance", "relevance")].drop_nulls().cast(pl.Float64).unique()
    listed = [x for x in labels.to_list() if x > 0][:3] or [1.0]
    return {float(x): float(rng.choice([0.5, 3.0, 9.0, 4.5])) for x in listed}


def measures_and_reference(
    df: pl.DataFrame, opts: dict[str, Any], seed: int
) -> list[tuple[pg.Measure, Callable[[RefQuery], float]]]:
    """(measure, reference function of a RefQuery) pairs for one table."""
    rng = np.random.default_rng(seed + 3000)
    k = int(rng.integers(1, 12))
    levels = given_levels(df, opts, seed)
    mapping = gain_mapping(df, opts, seed)
    t = float(rng.choice([0.5, 1.0, 2.0, 3.0]))
    return [
        (pg.MuAP, lambda q: q.mu_ap("query")),
        (pg.MuAP(levels="table"), lambda q: q.mu_ap("table")),
        (pg.MuAP(levels=levels), lambda q: q.mu_ap(levels)),
        (pg.MuAP @ k, lambda q: q.mu_ap("query", k)),
        (pg.MuAP(levels="table") @ k, lambda q: q.mu_ap("table", k)),
        (pg.MuAP(levels=levels) @ k, lambda q: q.mu_ap(levels, k)),
        (pg.AP(rel=t), lambda q: q.ap(t)),
        (pg.AP(rel=t) @ k, lambda q: q.ap(t, k)),
        (pg.NDCNG @ k, lambda q: q.ndcng(k)),
        (pg.NDCNG, lambda q: q.ndcng()),
        (pg.NDCG @ k, lambda q: q.ndcg(k, "exp")),
        (pg.NDCG, lambda q: q.ndcg(None, "exp")),
        (pg.NDCG(gain="linear") @ k, lambda q: q.ndcg(k, "linear")),
        (pg.NDCG(gain=mapping) @ k, lambda q: q.ndcg(k, mapping)),
        (pg.MeanNDCG, lambda q: q.mean_ndcg()),
        (pg.MeanNDCNG, lambda q: q.mean_ndcng()),
        (pg.DCG(base=10) @ k, lambda q: q.dcg(k, "exp", 10)),
        (pg.DCG @ k, lambda q: q.dcg(k, "exp", 2)),
        (pg.DCG(base=10), lambda q: q.dcg(None, "exp", 10)),
        (pg.DCG(gain="linear") @ k, lambda q: q.dcg(k, "linear", 2)),
        (pg.NDCG(gain=mapping), lambda q: q.ndcg(None, mapping)),
        (pg.MeanNDCG(gain="linear"), lambda q: q.mean_ndcg("linear")),
        (pg.P @ k, lambda q: q.precision(k)),
        (pg.P, lambda q: q.precision(None)),
        (pg.R @ k, lambda q: q.recall(k)),
        (pg.R(rel=t), lambda q: q.recall(None, t)),
        (pg.P(rel=t) @ k, lambda q: q.precision(k, t)),
        (pg.RPrec(rel=t), lambda q: q.r_precision(t)),
        (pg.RPrec, lambda q: q.r_precision()),
        (pg.RR, lambda q: q.rr()),
        (pg.RR(rel=t) @ k, lambda q: q.rr(t, k)),
    ]


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


def compare(result: pl.DataFrame, keys: list[str], column: str, expected: dict[Key, float]) -> None:
    got = {tuple(r[k] for k in keys): r[column] for r in result.iter_rows(named=True)}
    assert got.keys() == expected.keys(), column
    bad = {key: (got[key], expected[key]) for key in got if not close(got[key], expected[key])}
    assert not bad, f"{column}: (library, reference) differ on {len(bad)} queries: " + str(
        dict(list(bad.items())[:5])
    )


# --- tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_matches_reference(seed: int) -> None:
    df, opts = random_table(seed)
    ref = reference(df, opts)
    pairs = measures_and_reference(df, opts, seed)
    measures = [m for m, _ in pairs]
    result = df.graded.evaluate(measures, **opts)
    keys = keys_of(opts)
    names = list(dict.fromkeys(str(m) for m in measures))
    assert result.columns == [*keys, *names]
    assert result.select(keys).rows() == sorted(result.select(keys).rows())
    for measure, fn in pairs:
        compare(result, keys, str(measure), {key: fn(q) for key, q in ref.items()})


@pytest.mark.parametrize("seed", SEEDS[::4])
def test_evaluate_under_trec_eval_9_matches_the_float32_reference(seed: int) -> None:
    """``compat="trec_eval_9"``: the oracle ranking by float32 scores (9.x, pytrec_eval)."""
    df, opts = random_table(seed)
    ref = reference(df, opts, "trec_eval_9")
    pairs = measures_and_reference(df, opts, seed)
    result = df.graded.evaluate([m for m, _ in pairs], compat="trec_eval_9", **opts)
    keys = keys_of(opts)
    for measure, fn in pairs:
        compare(result, keys, str(measure), {key: fn(q) for key, q in ref.items()})


@pytest.mark.parametrize("seed", SEEDS[::4])
def test_namespace_methods_match_reference(seed: int) -> None:
    df, opts = random_table(seed)
    ref = reference(df, opts)
    keys = keys_of(opts)
    levels = given_levels(df, opts, seed)
    mapping = gain_mapping(df, opts, seed)
    ns = df.graded
    checks: list[tuple[pl.DataFrame, str, Callable[[RefQuery], float]]] = [
        (ns.mu_ap(**opts), "mu_ap", lambda q: q.mu_ap("query")),
        (ns.mu_ap(levels="table", **opts), "mu_ap(levels=table)", lambda q: q.mu_ap("table")),
        (
            ns.mu_ap(levels="table", k=5, **opts),
            "mu_ap(levels=table)@5",
            lambda q: q.mu_ap("table", 5),
        ),
        (
            ns.mu_ap(levels=levels, k=3, **opts),
            str(pg.MuAP(levels=levels) @ 3),
            lambda q: q.mu_ap(levels, 3),
        ),
        (ns.ndcng(k=4, **opts), "ndcng@4", lambda q: q.ndcng(4)),
        (ns.ndcg(k=4, **opts), "ndcg@4", lambda q: q.ndcg(4)),
        (
            ns.ndcg(k=6, gain=mapping, **opts),
            str(pg.NDCG(gain=mapping) @ 6),
            lambda q: q.ndcg(6, mapping),
        ),
        (ns.ndcg(gain="linear", **opts), "ndcg(gain=linear)", lambda q: q.ndcg(None, "linear")),
        (ns.mean_ndcg(**opts), "mean_ndcg", lambda q: q.mean_ndcg()),
        (ns.mean_ndcng(**opts), "mean_ndcng", lambda q: q.mean_ndcng()),
        (ns.dcg(k=7, base=10, **opts), "dcg(base=10)@7", lambda q: q.dcg(7, "exp", 10)),
        (ns.ap(rel=2, k=10, **opts), "ap(rel=2)@10", lambda q: q.ap(2, 10)),
        (ns.precision(k=5, **opts), "p@5", lambda q: q.precision(5)),
        (ns.recall(k=5, **opts), "recall@5", lambda q: q.recall(5)),
        (ns.r_precision(**opts), "r_precision", lambda q: q.r_precision()),
        (ns.rr(**opts), "rr", lambda q: q.rr()),
    ]
    for result, name, fn in checks:
        assert result.columns == [*keys, name]
        assert result.schema[name] == pl.Float64
        compare(result, keys, name, {key: fn(q) for key, q in ref.items()})


@pytest.mark.parametrize("seed", SEEDS[::2])
def test_summary_matches_reference_means(seed: int) -> None:
    df, opts = random_table(seed)
    ref = reference(df, opts)
    by = opts["by"]
    summary = df.graded.summary(["mu_ap", "ndcng@5", "mean_ndcg"], **opts)
    groups: dict[Key, list[RefQuery]] = {}
    for key, q in ref.items():
        groups.setdefault(key[:-1], []).append(q)
    assert summary.height == len(groups)
    for row in summary.iter_rows(named=True):
        queries = groups[() if by is None else (row[by],)]
        assert row["num_q"] == len(queries)
        assert close(row["mu_ap"], sum(q.mu_ap() for q in queries) / len(queries))
        assert close(row["ndcng@5"], sum(q.ndcng(5) for q in queries) / len(queries))
        assert close(row["mean_ndcg"], sum(q.mean_ndcg() for q in queries) / len(queries))


@pytest.mark.parametrize("seed", SEEDS[::2])
def test_expressions_in_own_group_by(seed: int) -> None:
    df, opts = random_table(seed)
    keys = keys_of(opts)
    cols = {c: opts[c] for c in ("relevance", "score", "item") if c in opts}
    levels = given_levels(df, opts, seed)
    exprs = [
        pg.ap(rel=2, **cols),
        pg.ap(k=5, **cols),
        pg.mu_ap(levels=levels, **cols),
        pg.mu_ap(levels=levels, k=4, **cols),
        pg.ndcg(k=5, **cols),
        pg.ndcg(gain="linear", **cols),
        pg.ndcng(k=5, **cols),
        pg.ndcng(**cols),
        pg.dcg(k=5, base=10, **cols),
        pg.precision(k=5, **cols),
        pg.recall(k=5, **cols),
        pg.r_precision(**cols),
        pg.rr(**cols),
        pg.mean_ndcg(**cols),
        pg.mean_ndcng(**cols),
    ]
    names = [e.meta.output_name() for e in exprs]
    mine = df.group_by(keys).agg(exprs).sort(keys)
    namespace = df.graded.evaluate(names, **opts)
    assert mine.columns == namespace.columns == [*keys, *names]
    ref = reference(df, opts)
    for name in names:
        expected = {tuple(r[k] for k in keys): r[name] for r in namespace.iter_rows(named=True)}
        compare(mine, keys, name, expected)
    # and both equal the reference (one measure with explicit levels is enough here)
    name = str(pg.MuAP(levels=levels))
    compare(mine, keys, name, {key: q.mu_ap(levels) for key, q in ref.items()})


def test_expressions_with_lazy_group_by() -> None:
    df, opts = random_table(3)
    keys = keys_of(opts)
    cols = {c: opts[c] for c in ("relevance", "score", "item") if c in opts}
    exprs = [pg.ndcng(k=3, **cols), pg.mu_ap(levels=[1, 2, 3], **cols)]
    eager = df.group_by(keys).agg(exprs).sort(keys)
    lazy = df.lazy().group_by(keys).agg(exprs).sort(keys).collect()
    assert eager.equals(lazy)


def test_float32_ranking_differs_from_float64() -> None:
    """Scores 1000 + 1e-9 and 1000 differ as float64: by default (trec_eval 10.0) the
    relevant "a" comes first. As float32 they tie, so under ``compat="trec_eval_9"`` (9.x,
    pytrec_eval) the larger item "b" comes first and "a" is second."""
    df = pl.DataFrame(
        {"query": [1, 1], "item": ["a", "b"], "score": [1000.0 + 1e-9, 1000.0], "relevance": [1, 0]}
    )
    assert load(df)[(1,)].ap() == 1.0  # the oracle's default: float64
    assert load(df, compat="trec_eval_9")[(1,)].ap() == 0.5  # relevant "a" at position 2
    assert df.graded.ap()["ap"][0] == 1.0
    assert df.graded.rr()["rr"][0] == 1.0
    assert df.graded.ap(compat="trec_eval_9")["ap"][0] == pytest.approx(0.5)
    assert df.graded.rr(compat="trec_eval_9")["rr"][0] == pytest.approx(0.5)
    exprs = df.group_by("query").agg(pg.ap(), pg.rr(compat="trec_eval_9"))
    assert exprs.row(0) == (1, 1.0, 0.5)


def test_random_tables_cover_the_cases() -> None:
    # the generator really produces what the module docstring promises
    seen = dict.fromkeys(
        [
            "by",
            "own_judgments",
            "custom_names",
            "ties",
            "float32_only_ties",
            "null_score",
            "null_rel",
            "negative",
            "continuous",
            "many_levels",
            "no_relevant_query",
            "nothing_judged_query",
            "nothing_retrieved_query",
        ],
        0,
    )
    for seed in SEEDS:
        df, opts = random_table(seed)
        rel = opts.get("relevance", "relevance")
        score = opts.get("score", "score")
        keys = keys_of(opts)
        seen["by"] += opts["by"] is not None
        seen["custom_names"] += rel != "relevance"
        seen["null_score"] += df[score].null_count() > 0
        seen["null_rel"] += df[rel].null_count() > 0
        seen["negative"] += (df[rel] < 0).any()
        seen["continuous"] += (df[rel].drop_nulls() % 1 != 0).any()
        seen["many_levels"] += df.filter(pl.col(rel) > 0)[rel].n_unique() > 30
        per_q = df.group_by(keys).agg(
            top=pl.col(rel).max(),
            n_judged=pl.col(rel).count(),
            n_ret=pl.col(score).count(),
            ties=pl.col(score).drop_nulls().is_duplicated().any(),  # ties under both releases
            f32_ties=pl.col(score).drop_nulls().n_unique()
            > pl.col(score).cast(pl.Float32).drop_nulls().n_unique(),
        )
        seen["ties"] += per_q["ties"].any()
        seen["float32_only_ties"] += per_q["f32_ties"].any()
        seen["no_relevant_query"] += (per_q["top"].fill_null(0) <= 0).any()
        seen["nothing_judged_query"] += (per_q["n_judged"] == 0).any()
        seen["nothing_retrieved_query"] += (per_q["n_ret"] == 0).any()
        if opts["by"] is not None:  # a query the systems judged differently
            judgments = (
                df.filter(pl.col(rel).is_not_null())
                .group_by(keys[-1], opts["by"])
                .agg(pl.struct(opts.get("item", "item"), rel).sort_by(opts.get("item", "item")))
            )
            per_query = judgments.group_by(keys[-1]).agg(pl.col(judgments.columns[-1]).n_unique())
            seen["own_judgments"] += (per_query[judgments.columns[-1]] > 1).any()
    assert all(v > 0 for v in seen.values()), seen
