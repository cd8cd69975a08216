"""polars_graded.spark: the per-query values equal the in-process path, in Spark local mode.

Spark runs as ``local[2]`` on 127.0.0.1 with its UI off and few shuffle partitions, the
workers on this interpreter, on the suite's random table (support.tables). The module skips
when pyspark is missing (and fails under ``CI=true``, which installs the ``[spark]`` extra)
or when Java 17+ is not on PATH (a system tool, not a Python dependency).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.environment import import_extra
from support.tables import make_random_table

import polars_graded as pg
from polars_graded.errors import ColumnTypeError, InvalidValueError, MissingColumnError
from polars_graded.options import TiePolicy


def _java_major() -> int | None:
    java = shutil.which("java")
    if java is None:
        return None
    out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    found = re.search(r'version "(\d+)', out.stderr + out.stdout)
    return int(found[1]) if found else None


import_extra("pyspark", "pyspark is not installed: pip install -e '.[spark]'")
if (_java_major() or 0) < 17:
    pytest.skip("Spark needs Java 17 or newer on PATH", allow_module_level=True)

from pyspark.sql import DataFrame as SparkDataFrame  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

from polars_graded import spark as pgs  # noqa: E402

MEASURES = [
    "mu_ap",
    "mu_ap(levels=table)",
    "ndcg@10",
    "ndcg(gain=linear)",
    "ndcng@5",
    "ap",
    "ap(rel=2)@20",
    "p@5",
    "recall@10",
    "r_precision",
    "rr",
    "err@10",
    "rbp",
    "bpref",
    "judged@5",
    "success@3",
    "mean_ndcg",
]
SESSION_CONFIG = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "3",
    "spark.default.parallelism": "2",
}


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    builder = SparkSession.builder.master("local[2]").appName("polars_graded tests")
    for key, value in SESSION_CONFIG.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def random_table(seed: int, queries: int = 60) -> pl.DataFrame:
    """The suite's random table (support.tables) with two systems (s0, s1) sharing judgments
    and integer labels -2..4: ties (also float32-only ones, ties under
    ``compat="trec_eval_9"`` only), unretrieved judged rows, unjudged retrieved rows, queries
    without a relevant row, without judgments or without retrieved rows."""
    return make_random_table(
        seed, systems=2, queries=queries, int_labels=True, label_kinds=("few",)
    )


def to_spark(spark: SparkSession, df: pl.DataFrame) -> SparkDataFrame:
    return spark.createDataFrame(df.to_arrow())


def collected(sdf: SparkDataFrame, keys: list[str]) -> pl.DataFrame:
    frame = pl.from_arrow(sdf.toArrow())
    assert isinstance(frame, pl.DataFrame)
    return frame.sort(keys)


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize(("seed", "partitions"), [(0, 3), (1, 1), (2, 7)])
def test_per_query_values_equal_the_in_process_path(
    spark: SparkSession, seed: int, partitions: int
) -> None:
    table = random_table(seed)
    shuffled = table.sample(fraction=1.0, shuffle=True, seed=seed)
    sdf = to_spark(spark, shuffled).repartition(4)  # rows of a query on several partitions
    got = pgs.evaluate(sdf, MEASURES, by="system", partitions=partitions)
    expected = table.graded.evaluate(MEASURES, by="system")
    assert_frame_equal(collected(got, ["system", "query"]), expected, check_exact=True)


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic"])
def test_tie_policies(spark: SparkSession, ties: TiePolicy) -> None:
    table = random_table(3, queries=25)
    measures = ["mu_ap", "ap", "ndcg@10", "rr", "err@5", "bpref"]
    got = pgs.evaluate(to_spark(spark, table), measures, by="system", ties=ties)
    expected = table.graded.evaluate(measures, by="system", ties=ties)
    assert_frame_equal(collected(got, ["system", "query"]), expected, check_exact=True)


def test_compat_and_ir_measures_names(spark: SparkSession) -> None:
    """``compat="trec_eval_9"`` (float32 ties) and an ``ir_measures:`` name beside one of
    ours (each its own release) give the in-process values; the table holds float32-only
    ties, so the releases differ on it."""
    table = random_table(6, queries=30)
    sdf = to_spark(spark, table)
    measures = ["rr", "ir_measures:RR", "ap", "ir_measures:nDCG@10"]
    releases: tuple[dict[str, Any], ...] = ({"compat": "trec_eval_9"}, {})
    for options in releases:
        got = pgs.evaluate(sdf, measures, by="system", **options)
        expected = table.graded.evaluate(measures, by="system", **options)
        assert_frame_equal(collected(got, ["system", "query"]), expected, check_exact=True)
    default = table.graded.evaluate(["ap"], by="system")
    nine = table.graded.evaluate(["ap"], by="system", compat="trec_eval_9")
    assert not default.equals(nine)


def test_table_levels_without_by_run_in_one_partition(spark: SparkSession) -> None:
    table = random_table(4, queries=20).filter(pl.col("system") == "s0").drop("system")
    measures = ["mu_ap(levels=table)", "ap"]
    got = pgs.evaluate(to_spark(spark, table), measures, partitions=5)
    assert_frame_equal(collected(got, ["query"]), table.graded.evaluate(measures), check_exact=True)


def test_a_real_trec_run(spark: SparkSession, shared_data: Callable[[str], Path]) -> None:
    from polars_graded.report import trec_table

    robust = shared_data("trec2003-robust")
    runs = [robust / "runs" / f"input.{tag}.gz" for tag in ("InexpC2", "rutcor03100")]
    table = trec_table(runs, robust / "robust03_qrels.txt.gz")
    measures = ["mu_ap", "ap", "ndcg(gain=linear)@10", "p@10", "rr", "bpref"]
    got = pgs.evaluate(to_spark(spark, table), measures, by="system", partitions=4)
    expected = table.graded.evaluate(measures, by="system")
    assert expected.height == 200
    assert_frame_equal(collected(got, ["system", "query"]), expected, check_exact=True)


def test_summary(spark: SparkSession) -> None:
    table = random_table(5, queries=30)
    sdf = to_spark(spark, table)
    for mean in ("arithmetic", "geometric"):
        got = pl.from_arrow(pgs.summary(sdf, ["ap", "ndcg@10"], by="system", mean=mean).toArrow())
        expected = table.graded.summary(["ap", "ndcg@10"], by="system", mean=mean)
        assert isinstance(got, pl.DataFrame)
        assert_frame_equal(got, expected, check_dtypes=False, rel_tol=1e-12, abs_tol=1e-15)
    no_by = pl.from_arrow(pgs.summary(sdf.drop("system").limit(0), ["ap"]).toArrow())
    assert isinstance(no_by, pl.DataFrame)
    assert no_by.columns == ["num_q", "ap"]


def test_output_schema_keeps_the_key_types(spark: SparkSession) -> None:
    table = pl.DataFrame(
        {"run": [7, 7], "query": [3, 3], "item": ["a", "b"], "score": [1.0, 2.0],
         "relevance": [1, 0]}
    )  # fmt: skip
    got = pgs.evaluate(to_spark(spark, table), ["ap", "ndcg@2"], by="run")
    assert [(f.name, f.dataType.simpleString()) for f in got.schema.fields] == [
        ("run", "bigint"),
        ("query", "bigint"),
        ("ap", "double"),
        ("ndcg@2", "double"),
    ]
    assert got.collect()[0]["ap"] == 0.5


@pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0:FutureWarning")  # inside RankingMetrics
def test_min_rk_and_binary_gain_equal_spark_mllibs_ranking_metrics(spark: SparkSession) -> None:
    """Spark MLlib's own ``RankingMetrics`` on the same rankings (distinct scores: it takes a
    ranked list) and ground truth sets (labels >= 1): ``meanAveragePrecisionAt(k)`` is the
    mean of ap(norm=min_rk)@k and ``ndcgAt(k)`` (binary relevance) of ndcg(gain=binary)@k,
    every query counted (empty ground truth: 0 in both)."""
    from pyspark.mllib.evaluation import RankingMetrics

    table = random_table(9, queries=60)
    distinct = pl.int_range(pl.len()).cast(pl.Float64)
    table = table.with_columns(score=pl.when(pl.col("score").is_not_null()).then(distinct))
    keys = ["system", "query"]
    ranked = (
        table.sort("score", descending=True, nulls_last=True)
        .group_by(keys, maintain_order=True)
        .agg(
            pred=pl.col("item").filter(pl.col("score").is_not_null()),
            lab=pl.col("item").filter(pl.col("relevance") >= 1),
        )
    )
    pairs = [(row["pred"], row["lab"]) for row in ranked.iter_rows(named=True)]
    metrics = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    names = ["ap(norm=min_rk)@5", "ndcg(gain=binary)@5", "ap@5"]
    per_query = table.graded.evaluate(names, by="system")
    assert per_query.height == len(pairs)
    ap_mean, ndcg_mean, trec_eval_mean = per_query.select(pl.col(names).mean()).row(0)
    assert metrics.meanAveragePrecisionAt(5) == pytest.approx(ap_mean, abs=1e-12)
    assert metrics.ndcgAt(5) == pytest.approx(ndcg_mean, abs=1e-12)
    assert ap_mean > trec_eval_mean + 0.02  # many queries have R > 5: the divisors differ

    # The new names follow the registry to pgs.evaluate; a measure under two output names
    # (hit_rate@5 is success@5) gets both columns there too.
    measures = {"min_rk": names[0], "binary": names[1], "hr": "hit_rate@5", "s": "success@5"}
    measures["hits"] = "hits@5"
    got = pgs.evaluate(to_spark(spark, table), measures, by="system")
    expected = table.graded.evaluate(measures, by="system")
    assert_frame_equal(collected(got, keys), expected, check_exact=True)


# --------------------------------------------------------------------------- errors


def test_errors_on_the_driver(spark: SparkSession) -> None:
    sdf = to_spark(spark, random_table(6, queries=3))
    with pytest.raises(MissingColumnError, match="'qid'"):
        pgs.evaluate(sdf, ["ap"], query="qid")
    with pytest.raises(ColumnTypeError, match="numeric"):
        pgs.evaluate(sdf, ["ap"], score="item")
    with pytest.raises(InvalidValueError, match="ties='input'"):
        pgs.evaluate(sdf, ["ap"], ties="input")
    with pytest.raises(InvalidValueError, match="ranked=True"):
        pgs.evaluate(sdf, ["ap"], ranked=True)
    with pytest.raises(InvalidValueError, match="partitions"):
        pgs.evaluate(sdf, ["ap"], partitions=0)
    with pytest.raises(pg.UnknownMeasureError):
        pgs.evaluate(sdf, ["nope"])
    with pytest.raises(InvalidValueError, match="mean"):
        pgs.summary(sdf, ["ap"], mean="median")  # type: ignore[arg-type]


def test_bad_rows_fail_the_job_with_the_library_message(spark: SparkSession) -> None:
    table = pl.DataFrame(
        {"query": ["q1", "q1"], "item": ["a", "a"], "score": [1.0, 2.0], "relevance": [1, 0]}
    )
    with pytest.raises(Exception, match="DuplicateKeyError") as info:
        pgs.evaluate(to_spark(spark, table), ["ap"]).collect()
    assert "q1" in str(info.value)


# --------------------------------------------------------------------------- Spark Connect

CONNECT_SCRIPT = textwrap.dedent(
    """
    import os, sys
    os.environ["PYSPARK_PYTHON"] = sys.executable
    import polars as pl
    from polars.testing import assert_frame_equal
    from pyspark.sql import SparkSession
    from polars_graded import spark as pgs

    builder = SparkSession.builder.remote("local[2]")
    for key, value in {config}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    table = pl.read_parquet(sys.argv[1])
    got = pgs.evaluate(session.createDataFrame(table.to_pandas()), {measures}, by="system")
    got = pl.from_pandas(got.toPandas()).sort("system", "query")
    expected = table.graded.evaluate({measures}, by="system")
    assert_frame_equal(got, expected, check_exact=True)
    session.stop()
    print("connect ok")
    """
)


def test_spark_connect(tmp_path: Path) -> None:
    """A Spark Connect session (a local server), in its own process: one JVM per process."""
    import_extra("grpc", "Spark Connect needs pyspark[connect] (the [spark] extra)")
    path = tmp_path / "table.parquet"
    random_table(7, queries=15).write_parquet(path)
    script = CONNECT_SCRIPT.format(config=SESSION_CONFIG, measures=["mu_ap", "ndcg@10", "rr"])
    out = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "connect ok" in out.stdout


def test_the_readme_example_gives_the_notebook_numbers(tmp_path: Path) -> None:
    """examples/spark_evaluate.py (docs/guide/spark.md's cluster example), run as a user would."""
    source = tmp_path / "runs.parquet"
    table = random_table(8, queries=20)
    table.write_parquet(source)
    script = Path(__file__).resolve().parents[1] / "examples" / "spark_evaluate.py"
    argv = [sys.executable, str(script), str(source), str(tmp_path / "eval"), "--by", "system"]
    argv += ["-m", "mu_ap", "-m", "ap(rel=2)", "-m", "ndcg@10", "--partitions", "3"]
    env = os.environ | {"PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    measures = ["mu_ap", "ap(rel=2)", "ndcg@10"]
    per_query = pl.read_parquet(tmp_path / "eval" / "per_query" / "*.parquet")
    assert_frame_equal(
        per_query.sort("system", "query"),
        table.graded.evaluate(measures, by="system"),
        check_exact=True,
    )
    summary = pl.read_parquet(tmp_path / "eval" / "summary" / "*.parquet").sort("system")
    assert_frame_equal(
        summary, table.graded.summary(measures, by="system"), check_dtypes=False, rel_tol=1e-12
    )


def test_a_polars_frame_is_pointed_to_the_namespace() -> None:
    table = pl.DataFrame({"query": [1], "item": ["a"], "score": [1.0], "relevance": [1]})
    with pytest.raises(TypeError, match=r"df\.graded\.evaluate"):
        pgs.evaluate(table, ["ap"])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- traffic weights


def weighted(table: pl.DataFrame) -> pl.DataFrame:
    """``table`` with a weight per query: its length (0 for the first query)."""
    first = table["query"].min()
    length = pl.col("query").str.len_chars().cast(pl.Int64)
    traffic = pl.when(pl.col("query") == first).then(0).otherwise(length)
    return table.with_columns(traffic=traffic)


def test_weighted_values_and_summary_equal_polars(spark: SparkSession) -> None:
    table = weighted(random_table(9, queries=25))
    sdf = to_spark(spark, table)
    got = pgs.evaluate(sdf, ["ap", "ndcg@10"], by="system", weight="traffic", partitions=3)
    got = got.cache()  # evaluated once for both checks
    expected = table.graded.evaluate(["ap", "ndcg@10"], by="system", weight="traffic")
    assert_frame_equal(collected(got, ["system", "query"]), expected, check_exact=True)
    # The geometric mean: the weighted form of the arithmetic one, on the logs.
    summary = pgs.summarize(got, ["ap"], by="system", weight="traffic", mean="geometric")
    frame = pl.from_arrow(summary.toArrow())
    want = table.graded.summary(["ap"], by="system", weight="traffic", mean="geometric")
    assert isinstance(frame, pl.DataFrame)
    assert_frame_equal(frame, want, check_dtypes=False, rel_tol=1e-12, abs_tol=1e-15)


def test_a_bad_weight_is_refused_on_the_driver(spark: SparkSession) -> None:
    table = weighted(random_table(10, queries=4))
    # Varying within one ranked list (a system's rows of a query); across systems it may.
    varying = table.with_columns(traffic=pl.col("traffic") + pl.int_range(pl.len()))
    with pytest.raises(pg.InvalidWeightError, match=r"\{(?:'system': '.*?', )?'query'"):
        pgs.evaluate(to_spark(spark, varying), ["ap"], by="system", weight="traffic")
    negative = table.with_columns(traffic=pl.lit(-1.0))
    with pytest.raises(pg.InvalidWeightError, match="must be >= 0"):
        pgs.summary(to_spark(spark, negative), ["ap"], by="system", weight="traffic")
    with pytest.raises(MissingColumnError, match="no weight column 'clicks'"):
        pgs.evaluate(to_spark(spark, table), ["ap"], by="system", weight="clicks")
    with pytest.raises(ColumnTypeError, match="'traffic' \\(weight\\) must be numeric"):
        text = table.with_columns(pl.col("traffic").cast(pl.String))
        pgs.evaluate(to_spark(spark, text), ["ap"], by="system", weight="traffic")
