"""Segments (polars_graded/segments.py, issue 17 item 2): per-segment means against plain
Polars group-bys, corrected p-values against statsmodels' multipletests, p-values against the
exact sign-flip enumeration, a constructed reversal, untested small segments, the errors, and
old vs new topics of TREC 2003 Robust."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
import scipy.stats
from polars.testing import assert_frame_equal
from statsmodels.stats.multitest import multipletests
from support.report import synthetic_table

import polars_graded as pg
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.report import trec_table
from polars_graded.stats.compare import compare
from polars_graded.stats.options import Correction
from polars_graded.stats.resampling import TIE_TOLERANCE
from polars_graded.stats.segments import (
    REVERSAL_COLUMNS,
    SEGMENT_COLUMNS,
    compare_segments,
    segment_reversals,
)

FAST: dict[str, Any] = {"trials": 500, "bootstrap": 200}


def segmented_table(seed: int = 0, sizes: dict[str, int] | None = None) -> pl.DataFrame:
    """Systems a, b, c, d on queries in segments (default en 30, de 24, fr 4); b is better
    than a in en, c worse in de, d is a with noise."""
    rng = np.random.default_rng(seed)
    sizes = sizes or {"en": 30, "de": 24, "fr": 4}
    rows = []
    query = 0
    for lang, size in sizes.items():
        for _ in range(size):
            base = rng.uniform(0.1, 0.7)
            shifts = {"a": 0.0, "b": 0.15 if lang == "en" else 0.0, "c": -0.1 * (lang == "de")}
            shifts["d"] = rng.normal(0, 0.05)
            for system, shift in shifts.items():
                noise = rng.normal(0, 0.05)
                rows.append((system, lang, query, base + shift + noise, base + noise / 2))
            query += 1
    schema = ["system", "lang", "query", "ap", "ndcg"]
    return pl.DataFrame(rows, schema=schema, orient="row")


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return segmented_table()


@pytest.fixture(scope="module")
def result(table: pl.DataFrame) -> pl.DataFrame:
    return compare_segments(table, segment="lang", **FAST)


# --------------------------------------------------------------------------- means and counts


def test_means_are_the_group_by_means(table: pl.DataFrame, result: pl.DataFrame) -> None:
    expected = (
        table.unpivot(["ap", "ndcg"], index=["system", "lang", "query"], variable_name="measure")
        .group_by("lang", "system", "measure")
        .agg(expected=pl.col("value").mean(), queries=pl.len())
    )
    joined = result.join(expected, on=["lang", "system", "measure"], validate="1:1")
    assert joined.height == result.height == 3 * 4 * 2
    assert (joined["n_queries"] == joined["queries"]).all()
    np.testing.assert_allclose(joined["mean"], joined["expected"], rtol=0, atol=1e-12)
    base = joined.filter(system="a").select("lang", "measure", base="expected")
    diffs = joined.join(base, on=["lang", "measure"])
    np.testing.assert_allclose(diffs["diff"], diffs["expected"] - diffs["base"], atol=1e-12)
    assert result["n_missing"].to_list() == [0] * result.height


def test_shape_order_and_dtypes(result: pl.DataFrame) -> None:
    assert result.columns == ["lang", "system", *SEGMENT_COLUMNS]
    assert result.select("lang", "measure", "system").rows()[:5] == [
        ("de", "ap", "a"), ("de", "ap", "b"), ("de", "ap", "c"), ("de", "ap", "d"),
        ("de", "ndcg", "a"),
    ]  # fmt: skip
    assert result["lang"].unique(maintain_order=True).to_list() == ["de", "en", "fr"]
    assert result.schema["n_queries"] == pl.Int64
    assert result.schema["tested"] == pl.Boolean
    assert result.schema["note"] == pl.String


def test_each_segment_is_compare_on_its_queries_alone(
    table: pl.DataFrame, result: pl.DataFrame
) -> None:
    for lang in ("de", "en", "fr"):
        alone = compare(table.filter(lang=lang).drop("lang"), ["ap", "ndcg"], **FAST)
        columns = ["system", "measure", "mean", "ci_low", "ci_high", "diff", "diff_ci_low"]
        got = result.filter(lang=lang)
        assert_frame_equal(got.select(columns), alone.select(columns))
        if lang != "fr":  # fr is not tested
            assert got["p_randomization"].to_list() == alone["p_randomization"].to_list()


def test_overall_diff_is_the_diff_of_compare_on_every_query(
    table: pl.DataFrame, result: pl.DataFrame
) -> None:
    overall = compare(table.drop("lang"), ["ap", "ndcg"], **FAST).select(
        "system", "measure", "diff"
    )
    joined = result.join(overall, on=["system", "measure"])
    assert (joined["overall_diff"] == joined["diff_right"]).all()


def test_missing_queries_follow_the_policy_of_compare() -> None:
    table = segmented_table(sizes={"en": 6, "de": 5})
    # d lacks every de query and one en query; c lacks one de query.
    gone = (pl.col("system") == "d") & ((pl.col("lang") == "de") | (pl.col("query") == 0))
    gone |= (pl.col("system") == "c") & (pl.col("query") == 7)
    sparse = table.filter(~gone)
    zero = compare_segments(sparse, ["ap"], segment="lang", min_queries=1, **FAST)
    missing = dict(zip(zero["lang"] + zero["system"], zero["n_missing"], strict=True))
    assert missing == {"dea": 0, "deb": 0, "dec": 1, "ded": 5, "ena": 0, "enb": 0, "enc": 0,
                       "end": 1}  # fmt: skip
    by_hand = sparse.group_by("lang", "system").agg(total=pl.col("ap").sum())
    sizes = {"de": 5, "en": 6}
    for lang, system, total in by_hand.iter_rows():
        row = zero.filter(lang=lang, system=system)
        assert row["mean"].item() == pytest.approx(total / sizes[lang], abs=1e-12)
    assert zero.filter(lang="de", system="d")["mean"].item() == 0.0
    common = compare_segments(sparse, ["ap"], segment="lang", min_queries=1, missing="common")
    # The common queries are en 1..5: de has none and is left out.
    assert common["lang"].unique().to_list() == ["en"]
    assert common["n_queries"].unique().to_list() == [5]
    kept = (
        sparse.filter(pl.col("query").is_between(1, 5)).group_by("system").agg(pl.col("ap").mean())
    )
    for system, mean in kept.iter_rows():
        assert common.filter(system=system)["mean"].item() == pytest.approx(mean, abs=1e-12)


def test_nulls_are_a_segment_and_several_columns_sort(table: pl.DataFrame) -> None:
    two = table.with_columns(
        lang=pl.when(pl.col("lang") == "fr").then(None).otherwise(pl.col("lang")),
        half=pl.col("query") % 2,
    )
    out = compare_segments(two.lazy(), ["ap"], segment=["lang", "half"], min_queries=1, **FAST)
    keys = out.select("lang", "half").unique(maintain_order=True).rows()
    assert keys == [("de", 0), ("de", 1), ("en", 0), ("en", 1), (None, 0), (None, 1)]
    sizes = two.filter(system="a").group_by("lang", "half").len()
    for lang, half, size in sizes.iter_rows():
        match = pl.col("lang").eq_missing(lang) & (pl.col("half") == half)
        assert out.filter(match)["n_queries"].unique().to_list() == [size]


# --------------------------------------------------------------------------- tests


def test_small_segments_are_shown_but_not_tested(result: pl.DataFrame) -> None:
    small = result.filter(lang="fr")
    assert small["n_queries"].unique().to_list() == [4]
    assert not small["tested"].any()
    assert small.select("p_randomization", "p_randomization_adjusted").null_count().row(0) == (
        8,
        8,
    )
    assert set(small["note"]) == {"fewer than 20 queries: not tested"}
    assert not small["significant"].any()
    assert small["mean"].null_count() == 0 and small["ci_low"].null_count() == 0
    large = result.filter(pl.col("lang") != "fr")
    assert large["tested"].all() and large["note"].null_count() == large.height


@pytest.mark.parametrize(("correction", "method"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_corrections_match_statsmodels(
    table: pl.DataFrame, correction: Correction, method: str
) -> None:
    out = compare_segments(table, segment="lang", correction=correction, **FAST)
    for measure in ("ap", "ndcg"):
        tests = out.filter(pl.col("p_randomization").is_not_null(), measure=measure)
        assert tests.height == 2 * 3  # tested segments x non-baseline systems
        _, expected, _, _ = multipletests(tests["p_randomization"].to_numpy(), method=method)
        np.testing.assert_allclose(tests["p_randomization_adjusted"], expected, atol=1e-12)
        assert (tests["significant"] == (tests["p_randomization_adjusted"] < 0.05)).all()
    none = compare_segments(table, segment="lang", correction="none", **FAST)
    assert none["p_randomization_adjusted"].to_list() == none["p_randomization"].to_list()
    assert none.filter(lang="en", system="b", measure="ap")["significant"].item()


def exact_p(differences: np.ndarray) -> float:
    """The two-sided sign-flip p-value over every sign pattern."""
    observed = abs(differences.sum())
    threshold = observed - TIE_TOLERANCE * np.abs(differences).sum()
    flips = np.array(list(itertools.product([1.0, -1.0], repeat=differences.size)))
    return float((np.abs(flips @ differences) >= threshold).mean())


def test_p_values_are_close_to_the_exact_enumeration() -> None:
    values = {
        "x": [0.5, 0.25, 0.75, 0.5, 0.0, 1.0, 0.5, 0.25, 0.5],
        "y": [0.75, 0.5, 0.75, 1.0, 0.25, 0.5, 0.75, 0.25, 1.0],
        "z": [0.5, 0.3, 0.8, 0.9, 0.1, 1.0, 0.2, 0.1, 0.3],
    }
    segments = ["s"] * 5 + ["t"] * 4
    frame = pl.DataFrame(
        [(system, segments[q], q, v) for system, vs in values.items() for q, v in enumerate(vs)],
        schema=["system", "seg", "query", "ap"],
        orient="row",
    )
    trials = 200_000
    out = compare_segments(frame, segment="seg", min_queries=1, trials=trials, bootstrap=10)
    for seg, rows in (("s", slice(0, 5)), ("t", slice(5, 9))):
        for system in ("y", "z"):
            d = np.array(values[system][rows]) - np.array(values["x"][rows])
            p = out.filter(seg=seg, system=system)["p_randomization"].item()
            assert p == pytest.approx(exact_p(d), abs=0.005), (seg, system)


# --------------------------------------------------------------------------- reversals


def simpson_table() -> pl.DataFrame:
    """b beats a over all queries (+0.1 on 40 en queries) but loses on 25 de queries (-0.1)
    and on 3 fr queries (-0.2, too few to test)."""
    rng = np.random.default_rng(5)
    rows = []
    for query, (lang, shift) in enumerate(
        [("en", 0.1)] * 40 + [("de", -0.1)] * 25 + [("fr", -0.2)] * 3
    ):
        base = rng.uniform(0.2, 0.6)
        rows += [("a", lang, query, base), ("b", lang, query, base + shift + rng.normal(0, 0.02))]
    return pl.DataFrame(rows, schema=["system", "lang", "query", "ap"], orient="row")


def test_a_winner_that_loses_in_a_segment_is_flagged() -> None:
    out = compare_segments(simpson_table(), segment="lang", **FAST)
    reversals = segment_reversals(out)
    assert reversals.columns == ["lang", "system", *REVERSAL_COLUMNS]
    assert reversals.select("lang", "system", "measure", "n_queries").rows() == [
        ("de", "b", "ap", 25)
    ]
    row = reversals.row(0, named=True)
    assert row["overall_diff"] > 0 > row["diff"]
    assert row["significant"]
    assert row["diff_ci_high"] < 0
    # fr reverses too, but has 3 queries: not tested, not flagged.
    fr = out.filter(lang="fr", system="b")
    assert fr["diff"].item() < 0 and not fr["tested"].item()
    # Filtering the rows first is fine: each row keeps its overall difference.
    assert_frame_equal(segment_reversals(out.filter(lang="de")), reversals)


def test_no_reversal_without_an_opposite_sign() -> None:
    table = simpson_table()
    better = table.with_columns(ap=pl.col("ap") + (pl.col("system") == "b") * 0.3)
    out = compare_segments(better, segment="lang", min_queries=1, **FAST)
    assert (out.filter(system="b")["diff"] > 0).all()
    reversals = segment_reversals(out)
    assert reversals.is_empty()
    assert reversals.columns == ["lang", "system", *REVERSAL_COLUMNS]
    # A difference of 0 (within the tolerance) is no order, so no reversal either.
    same = table.with_columns(ap=pl.col("ap").min().over("query"))
    assert segment_reversals(compare_segments(same, segment="lang", **FAST)).is_empty()


def test_reversals_need_the_result_of_compare_segments(result: pl.DataFrame) -> None:
    with pytest.raises(MissingColumnError, match=r"overall_diff"):
        segment_reversals(result.drop("overall_diff"))


# --------------------------------------------------------------------------- compare()


def test_compare_forwards_segment_and_min_queries(table: pl.DataFrame) -> None:
    direct = compare_segments(table, segment="lang", min_queries=3, correction="bh", **FAST)
    via = pg.compare(table, segment="lang", min_queries=3, correction="bh", **FAST)
    assert_frame_equal(via, direct)
    default = pg.compare(table, segment=["lang"], **FAST)
    assert_frame_equal(default, compare_segments(table, segment="lang", **FAST))


def test_the_namespace_evaluates_by_system_and_segment() -> None:
    long = synthetic_table(30).with_columns(lang=pl.col("query") % 3)
    via = long.lazy().graded.compare(["ap"], segment="lang", min_queries=5, **FAST)
    per_query = pg.evaluate(long, ["ap"], by=["system", "lang"])
    assert_frame_equal(via, compare_segments(per_query, segment="lang", min_queries=5, **FAST))
    assert via["lang"].unique().to_list() == [0, 1, 2]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_queries": 5}, r"min_queries=5 needs segment="),
        ({"segment": "lang", "pairs": "all"}, r"drop pairs='all'"),
    ],
)
def test_compare_refuses_bad_combinations(
    table: pl.DataFrame, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidValueError, match=message):
        pg.compare(table, **kwargs)


# --------------------------------------------------------------------------- errors


def test_a_query_in_two_segments_is_an_error_naming_column_rule_and_rows(
    table: pl.DataFrame,
) -> None:
    moved = table.with_columns(
        lang=pl.when((pl.col("system") == "c") & (pl.col("query") == 3))
        .then(pl.lit("de"))
        .otherwise(pl.col("lang"))
    )
    with pytest.raises(InvalidValueError) as error:
        compare_segments(moved, segment="lang")
    text = str(error.value)
    assert "query 3 is in two segments of column 'lang'" in text
    assert "(system='a', query=3, lang='en')" in text
    assert "(system='c', query=3, lang='de')" in text
    assert "a segment is a property of the query" in text
    # Evaluated by system and a segment that varies within a query: two rows per
    # (system, query), reported as the segment's fault rather than a duplicated key.
    split = pl.concat([table, table.filter(query=5).with_columns(lang=pl.lit("xx"))])
    with pytest.raises(InvalidValueError, match=r"query 5 is in two segments of column 'lang'"):
        compare_segments(split, segment="lang")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"segment": "market"}, MissingColumnError, r"segment column 'market' not found.*"
         r"by=\['system', 'market'\]"),
        ({"segment": []}, InvalidValueError, r"segment= needs at least one column"),
        ({"segment": ["lang", "lang"]}, InvalidValueError, r"must be distinct"),
        ({"segment": "query"}, InvalidValueError, r"'query' is a key column"),
        ({"segment": "lang", "measures": ["ap", "lang"]}, InvalidValueError,
         r"both as a segment and as a measure"),
        ({"segment": "lang", "min_queries": 0}, InvalidValueError,
         r"min_queries must be an integer >= 1, got 0"),
        ({"segment": "lang", "min_queries": 2.5}, InvalidValueError, r"min_queries must be"),
        ({"segment": "lang", "correction": "BY"}, InvalidValueError,
         r"correction must be 'bonferroni', 'holm', 'holm-sidak', 'bh' or 'none'"),
        ({"segment": "lang", "baseline": "zz"}, InvalidValueError, r"baseline 'zz' is not"),
        ({"segment": "lang", "trials": 0}, InvalidValueError, r"trials must be"),
    ],
)  # fmt: skip
def test_bad_inputs(
    table: pl.DataFrame, kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        compare_segments(table, **kwargs)


def test_a_segment_named_like_a_result_column_is_refused(table: pl.DataFrame) -> None:
    with pytest.raises(InvalidValueError, match=r"'mean' has the name of a result column"):
        compare_segments(table.rename({"lang": "mean"}), segment="mean")


def test_value_errors_are_those_of_compare(table: pl.DataFrame) -> None:
    bad = table.with_columns(ap=pl.when(pl.col("query") == 2).then(float("nan")).otherwise("ap"))
    with pytest.raises(InvalidValueError, match=r"measure column 'ap' must hold finite"):
        compare_segments(bad, segment="lang")


# --------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def robust(shared_data: Callable[[str], Path]) -> pl.DataFrame:
    folder = shared_data("trec2003-robust")
    runs = sorted((folder / "runs").glob("input.*.gz"))
    long = trec_table(runs, folder / "robust03_qrels.txt.gz")
    topics = (
        pl.when(pl.col("query").cast(pl.Int64) < 600).then(pl.lit("old")).otherwise(pl.lit("new"))
    )
    return pg.evaluate(long.with_columns(topics=topics), ["ap", "ndcg@10"], by=["system", "topics"])


def test_robust_2003_old_and_new_topics(robust: pl.DataFrame) -> None:
    out = compare_segments(robust, segment="topics", trials=2000, bootstrap=500)
    assert out.height == 2 * 17 * 2
    counts = out.group_by("topics").agg(pl.col("n_queries").unique())
    assert dict(counts.iter_rows()) == {"new": [50], "old": [50]}
    means = (
        robust.unpivot(["ap", "ndcg@10"], index=["system", "topics", "query"])
        .group_by("topics", "system", pl.col("variable").alias("measure"))
        .agg(expected=pl.col("value").mean())
    )
    joined = out.join(means, on=["topics", "system", "measure"], validate="1:1")
    np.testing.assert_allclose(joined["mean"], joined["expected"], atol=1e-12)
    # Old topics (TREC 6-8's hard ones) score far lower than the new for every run.
    ap = out.filter(measure="ap").pivot("topics", index="system", values="mean")
    assert (ap["old"] < ap["new"]).all()
    # uic0301 is better than the baseline InexpC2 on MAP over all topics, significantly
    # better on the old, but worse on the new: a reversal.
    reversals = segment_reversals(out)
    uic = reversals.filter(system="uic0301", measure="ap")
    assert uic.select("topics", "n_queries").rows() == [("new", 50)]
    assert uic["overall_diff"].item() > 0 > uic["diff"].item()
    old = out.filter(topics="old", system="uic0301", measure="ap")
    assert old["significant"].item() and old["diff"].item() > 0


# --- test=: every test corrected across segments x systems (issue 28, item 8) ---------------


def test_wilcoxon_per_segment_is_scipys_and_decides_when_chosen(table: pl.DataFrame) -> None:
    out = compare_segments(table, ["ap"], segment="lang", test="wilcoxon", **FAST)
    grid = table.pivot("system", index=["lang", "query"], values="ap")
    tested = out.filter(pl.col("tested") & (pl.col("system") != "a"))
    for row in tested.iter_rows(named=True):
        part = grid.filter(pl.col("lang") == row["lang"])
        expected = scipy.stats.wilcoxon(part[row["system"]], part["a"]).pvalue
        assert row["p_wilcoxon"] == pytest.approx(expected, rel=1e-12)
    p = tested["p_wilcoxon"].to_numpy()
    np.testing.assert_allclose(tested["p_wilcoxon_adjusted"], multipletests(p, method="holm")[1])
    assert (
        out["significant"].to_list()
        == (out["p_wilcoxon_adjusted"] < 0.05).fill_null(False).to_list()
    )
    assert (
        out.filter(~pl.col("tested"))["p_wilcoxon"].null_count()
        == out.filter(~pl.col("tested")).height
    )
    reversals = segment_reversals(out)
    assert {"p_ttest_adjusted", "p_wilcoxon_adjusted"} <= set(reversals.columns)
