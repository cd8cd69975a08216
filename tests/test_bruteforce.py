"""The library against the brute-force reference of tests/reference.py, query by query.

Random tables (seeded numpy) cover what SPEC.md allows: several queries, up to 60 levels,
continuous labels, score ties (also ties that exist only in float32), null scores, null
relevance, negative labels, queries without relevant rows or without retrieved rows, custom
column names and ``by=`` with 2-3 systems (sharing the judgments, or with their own).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import polars_graded as pg

try:  # tests/ as a package or as a rootdir on sys.path
    from tests.reference import RefQuery, load
except ImportError:
    from reference import RefQuery, load

SEEDS = range(40)
TOL = 1e-9


# --- random tables -------------------------------------------------------------------------


def random_labels(rng: np.random.Generator, n: int) -> tuple[list, str]:
    kind = rng.choice(["few", "many", "continuous", "pool"])
    if kind == "few":
        values = rng.integers(-2, 5, size=n).astype(float)
    elif kind == "many":  # up to 60 levels
        values = rng.integers(-2, 60, size=n).astype(float)
    elif kind == "continuous":
        values = np.round(rng.uniform(-0.5, 4.0, size=n), int(rng.integers(1, 6)))
    else:  # a pool of up to 60 arbitrary floats, drawn with repeats
        pool = np.concatenate([[0.0, -1.0], rng.uniform(0.001, 7.0, size=int(rng.integers(1, 60)))])
        values = rng.choice(pool, size=n)
    return [float(v) for v in values], str(kind)


def random_scores(rng: np.random.Generator, n: int) -> list[float]:
    kind = rng.choice(["ties", "float", "float32_ties", "mixed"])
    if kind == "ties":
        values = rng.integers(0, 4, size=n).astype(float)
    elif kind == "float":
        values = rng.normal(0, 10, size=n)
    elif kind == "float32_ties":  # distinct as float64, equal as float32 (SPEC §2)
        values = 1000.0 + rng.integers(0, 3, size=n) * 1e-9 + rng.integers(0, 2, size=n)
    else:
        values = np.where(rng.random(n) < 0.5, rng.integers(0, 3, size=n), rng.normal(size=n))
    return [float(v) for v in values]


def random_table(seed: int) -> tuple[pl.DataFrame, dict]:
    """A random long table and how to read it (column names, by)."""
    rng = np.random.default_rng(seed)
    n_systems = int(rng.choice([1, 1, 2, 3]))
    shared = bool(rng.random() < 0.7)
    string_items = bool(rng.random() < 0.5)
    string_queries = bool(rng.random() < 0.3)
    int_labels = bool(rng.random() < 0.3)
    n_queries = int(rng.integers(1, 9))
    rows: dict[str, list] = {"system": [], "query": [], "item": [], "score": [], "relevance": []}
    for q in rng.choice(500, size=n_queries, replace=False):
        n_items = int(rng.integers(1, 45))
        items = rng.choice(2000, size=n_items, replace=False)
        p_judged = rng.choice([0.0, 0.5, 0.9, 1.0])
        p_retrieved = rng.choice([0.0, 0.3, 0.8, 1.0])
        no_relevant = rng.random() < 0.15

        def judgments(items=items, p_judged=p_judged, no_relevant=no_relevant):
            labels, _ = random_labels(rng, len(items))
            if int_labels:
                labels = [float(round(x)) for x in labels]
            if no_relevant:
                labels = [min(x, 0.0) for x in labels]
            judged = rng.random(len(items)) < p_judged
            return [lab if j else None for lab, j in zip(labels, judged, strict=True)]

        common = judgments()
        for s in range(n_systems):
            labels = common if shared else judgments()
            scores = random_scores(rng, n_items)
            retrieved = rng.random(n_items) < p_retrieved
            for it, lab, sc, ret in zip(items, labels, scores, retrieved, strict=True):
                if lab is None and not ret:
                    continue  # neither judged nor retrieved: no row
                rows["system"].append(f"sys{s}")
                rows["query"].append(f"q{q}" if string_queries else int(q))
                rows["item"].append(f"d{it}" if string_items else int(it))
                rows["score"].append(float(sc) if ret else None)
                rows["relevance"].append(lab)
    df = pl.DataFrame(
        rows,
        schema={
            "system": pl.String,
            "query": pl.String if string_queries else pl.Int64,
            "item": pl.String if string_items else pl.Int64,
            "score": pl.Float64,
            "relevance": pl.Float64,
        },
    )
    if int_labels:
        df = df.with_columns(pl.col("relevance").cast(pl.Int64))
    if n_systems == 1 and rng.random() < 0.7:
        df = df.drop("system")
        by = None
    else:
        by = "system"
    names = {}
    if rng.random() < 0.3:  # custom column names
        names = {"query": "qid", "item": "docno", "score": "sim", "relevance": "rel"}
        df = df.rename(names)
        if by is not None:
            df = df.rename({"system": "run"})
            by = "run"
    return df, {"by": by, **names}


def keys_of(opts: dict) -> list[str]:
    by = [] if opts["by"] is None else [opts["by"]]
    return [*by, opts.get("query", "query")]


def reference(df: pl.DataFrame, opts: dict) -> dict[tuple, RefQuery]:
    return load(df, **opts)


def given_levels(df: pl.DataFrame, opts: dict, seed: int) -> list[float]:
    rng = np.random.default_rng(seed + 1000)
    labels = df[opts.get("relevance", "relevance")].drop_nulls().cast(pl.Float64).unique()
    positive = [x for x in labels.to_list() if x > 0]
    extra = [float(x) for x in np.round(rng.uniform(0.05, 5.0, size=int(rng.integers(1, 4))), 2)]
    chosen = rng.choice(positive, size=min(len(positive), 5), replace=False) if positive else []
    return sorted({*map(float, chosen), *extra})


def gain_mapping(df: pl.DataFrame, opts: dict, seed: int) -> dict[float, float]:
    rng = np.random.default_rng(seed + 2000)
    labels = df[opts.get("relevance", "relevance")].drop_nulls().cast(pl.Float64).unique()
    listed = [x for x in labels.to_list() if x > 0][:3] or [1.0]
    return {float(x): float(rng.choice([0.5, 3.0, 9.0, 4.5])) for x in listed}


def measures_and_reference(df: pl.DataFrame, opts: dict, seed: int):
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


def compare(result: pl.DataFrame, keys: list[str], column: str, expected: dict) -> None:
    got = {tuple(r[k] for k in keys): r[column] for r in result.iter_rows(named=True)}
    assert got.keys() == expected.keys(), column
    bad = {key: (got[key], expected[key]) for key in got if not close(got[key], expected[key])}
    assert not bad, f"{column}: (library, reference) differ on {len(bad)} queries: " + str(
        dict(list(bad.items())[:5])
    )


# --- tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_matches_reference(seed):
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
def test_namespace_methods_match_reference(seed):
    df, opts = random_table(seed)
    ref = reference(df, opts)
    keys = keys_of(opts)
    levels = given_levels(df, opts, seed)
    mapping = gain_mapping(df, opts, seed)
    ns = df.graded
    checks = [
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
def test_summary_matches_reference_means(seed):
    df, opts = random_table(seed)
    ref = reference(df, opts)
    by = opts["by"]
    summary = df.graded.summary(["mu_ap", "ndcng@5", "mean_ndcg"], **opts)
    groups: dict[tuple, list[RefQuery]] = {}
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
def test_expressions_in_own_group_by(seed):
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


def test_expressions_with_lazy_group_by():
    df, opts = random_table(3)
    keys = keys_of(opts)
    cols = {c: opts[c] for c in ("relevance", "score", "item") if c in opts}
    exprs = [pg.ndcng(k=3, **cols), pg.mu_ap(levels=[1, 2, 3], **cols)]
    eager = df.group_by(keys).agg(exprs).sort(keys)
    lazy = df.lazy().group_by(keys).agg(exprs).sort(keys).collect()
    assert eager.equals(lazy)


def test_float32_ranking_differs_from_float64():
    # scores 1000 + 1e-9 and 1000 tie in float32, so the larger item ("b") comes first
    df = pl.DataFrame(
        {"query": [1, 1], "item": ["a", "b"], "score": [1000.0 + 1e-9, 1000.0], "relevance": [1, 0]}
    )
    ref = load(df)[(1,)]
    assert ref.ap() == 0.5  # relevant "a" at position 2
    assert df.graded.ap()["ap"][0] == pytest.approx(0.5)
    assert df.graded.rr()["rr"][0] == pytest.approx(0.5)


def test_random_tables_cover_the_cases():
    # the generator really produces what the module docstring promises
    seen = {
        "by": 0,
        "ties": 0,
        "null_score": 0,
        "null_rel": 0,
        "negative": 0,
        "many_levels": 0,
        "no_relevant_query": 0,
        "nothing_retrieved_query": 0,
    }
    for seed in SEEDS:
        df, opts = random_table(seed)
        rel = opts.get("relevance", "relevance")
        score = opts.get("score", "score")
        query = opts.get("query", "query")
        seen["by"] += opts["by"] is not None
        seen["null_score"] += df[score].null_count() > 0
        seen["null_rel"] += df[rel].null_count() > 0
        seen["negative"] += (df[rel] < 0).any()
        seen["many_levels"] += df.filter(pl.col(rel) > 0)[rel].n_unique() > 30
        per_q = df.group_by([*keys_of(opts)[:-1], query]).agg(
            top=pl.col(rel).max(),
            n_ret=pl.col(score).count(),
            ties=pl.col(score).cast(pl.Float32).drop_nulls().is_duplicated().any(),
        )
        seen["ties"] += per_q["ties"].any()
        seen["no_relevant_query"] += (per_q["top"].fill_null(0) <= 0).any()
        seen["nothing_retrieved_query"] += (per_q["n_ret"] == 0).any()
    assert all(v > 0 for v in seen.values()), seen
