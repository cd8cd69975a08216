"""The same evaluation on a Spark cluster: the library's Polars core once per Spark partition.

:func:`evaluate` shuffles a Spark DataFrame so that every ranking (one per ``by + [query]``)
lies whole in one partition (``repartition(n, *by, query)``), then runs
:func:`polars_graded.plan.per_query` once per partition inside ``mapInArrow``: Arrow record
batches in, Arrow record batches out, no pandas and no Python loop over queries. Each
query's value depends only on its own rows, ranked by the plan whatever order the shuffle
delivered them in, so the per-query values equal the in-process path's bit for bit.
:func:`summary` averages them per ``by`` group with Spark's own aggregation.

A partition is evaluated in memory on its executor: it needs about 400 bytes per input row
(see :data:`polars_graded.scale.memory.BYTES_PER_ROW`), so choose ``partitions`` to keep
``rows / partitions * 400`` bytes well inside an executor's Python memory
(``spark.executor.pyspark.memory``). A single giant ranking cannot be split: its partition
holds all of it. µAP with ``levels="table"`` needs whole ``by`` groups, so with it the
partitions split the systems (one system per partition at most), and without ``by`` the
table goes to one partition.

Executors need polars_graded (and polars, pyarrow, numpy) installed, e.g. with
``pip install polars-graded`` in the cluster's Python environment, or shipped with
``spark-submit --archives`` / ``SparkContext.addPyFile``. The driver needs pyspark
(``pip install 'polars-graded[spark]'``).

The module holds the driver's side (:func:`evaluate`, :func:`summary`, :func:`summarize`, the
checks of the Spark schema, :func:`output_schema`) and the executors' side
(:func:`partition_evaluator`, :func:`evaluate_arrow`). The partition keys and the
``partitions=`` check are the Parquet path's planning
(:func:`polars_graded.scale.partitions.partition_keys`,
:func:`polars_graded.scale.partitions.check_partitions`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

import polars as pl
import pyarrow as pa

from polars_graded import plan
from polars_graded.defaults import ENGINE, MEAN
from polars_graded.errors import (
    ColumnTypeError,
    InvalidValueError,
    InvalidWeightError,
    MissingColumnError,
)
from polars_graded.measures import Measure, MeasureSpec, as_named_measures
from polars_graded.options import ColumnOptions, TableSpec, as_by
from polars_graded.scale.partitions import check_partitions, partition_keys
from polars_graded.weights import attach_weights, check_weights, zero_total_error

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql.types import StructType

SPARK_HINT = "pip install 'polars-graded[spark]'"
_NUMERIC = ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType", "DoubleType")


def evaluate(
    df: SparkDataFrame,
    measures: MeasureSpec,
    *,
    partitions: int | None = None,
    weight: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> SparkDataFrame:
    """Per-query values of a Spark DataFrame in the long format, computed on the executors.

    Parameters
    ----------
    df
        A Spark DataFrame with the columns of the long table (docs/conventions.md §1): one row per
        ``(by..., query, item)``, a numeric score (null: not retrieved) and a numeric
        relevance (null: unjudged). Classic and Spark Connect sessions both work.
    measures
        Measure objects or names, as for ``df.graded.evaluate``.
    partitions
        The number of partitions to shuffle into. Default: the session's
        ``spark.sql.shuffle.partitions``.
    weight
        A column of traffic weights, one per query, as for ``df.graded.evaluate``: checked
        at once on the driver (one Spark job over the query and weight columns), then carried
        into the result after the keys (DoubleType).
    **columns
        ``query=``, ``item=``, ``score=``, ``relevance=``, ``by=`` and ``ties=`` as for
        ``df.graded.evaluate``. ``ties="input"`` and ``ranked=True`` are refused: a shuffle
        does not keep the order of rows.

    Returns
    -------
    pyspark.sql.DataFrame
        Lazy, like every Spark DataFrame: one row per ``by + [query]`` with the key columns
        in their Spark types and one DoubleType column per measure, named by the measure's
        canonical string (``ndcg@10``). Rows come in no particular order; ``orderBy`` the
        keys when it matters.

    Examples
    --------
    >>> from polars_graded import spark as pgs  # doctest: +SKIP
    >>> runs = spark_session.read.parquet("s3://bucket/runs/")  # doctest: +SKIP
    >>> per_query = pgs.evaluate(runs, ["mu_ap", "ndcg@10"], by="system")  # doctest: +SKIP
    >>> per_query.write.parquet("s3://bucket/per_query/")  # doctest: +SKIP
    """
    _check_spark_frame(df)
    cols = _spark_columns(columns)
    wanted = as_named_measures(measures)
    _check_schema(df.schema, cols, weight)
    plan.check_output_names(wanted, cols)
    if weight is not None:
        check_spark_weights(df, weight, cols.keys)
    keys = partition_keys(list(wanted.values()), cols)
    count = _partition_count(df, partitions)
    shuffled = df.repartition(count, *keys) if keys else df.repartition(1)
    out_schema = output_schema(df.schema, cols, wanted, weight=weight)
    run = partition_evaluator(wanted, cols, weight=weight)
    return shuffled.mapInArrow(run, out_schema)


def summary(
    df: SparkDataFrame,
    measures: MeasureSpec,
    *,
    partitions: int | None = None,
    mean: plan.MeanKind = MEAN,
    weight: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> SparkDataFrame:
    """``num_q`` and the mean of each measure per ``by`` group, as a Spark DataFrame.

    Takes the arguments of :func:`evaluate` and ``mean=`` (``"geometric"``: trec_eval's
    geometric mean in columns ``gm_<measure>``, see ``df.graded.summary``); ``weight=``
    weights the means per query as ``df.graded.summary`` does. The means are
    Spark's own aggregation: equal to the in-process summary up to the last bits (Spark
    adds the partial sums in whatever order its tasks finish).

    Examples
    --------
    >>> from polars_graded import spark as pgs  # doctest: +SKIP
    >>> runs = spark_session.read.parquet("s3://bucket/runs/")  # doctest: +SKIP
    >>> pgs.summary(runs, ["mu_ap", "ndcg@10"], by="system").show()  # doctest: +SKIP
    """
    plan.check_mean(mean)
    per_query = evaluate(df, measures, partitions=partitions, weight=weight, **columns)
    names = list(as_named_measures(measures))
    return summarize(per_query, names, by=TableSpec.of(columns).by, mean=mean, weight=weight)


def summarize(
    per_query: SparkDataFrame,
    measures: Sequence[str],
    *,
    by: str | Sequence[str] | None = None,
    mean: plan.MeanKind = MEAN,
    weight: str | None = None,
) -> SparkDataFrame:
    """The summary of per-query values already computed (e.g. read back from Parquet).

    ``per_query`` has a column per name in ``measures`` and the ``by`` columns; the result
    is :func:`summary`'s, one row per ``by`` group sorted by it. ``weight``: a column of
    per-query weights, checked already (as :func:`evaluate` does): the means are
    ``sum(w v) / sum(w)`` (null for a group whose weights sum to 0) and the sum of the
    weights follows ``num_q`` under the weight's name.

    Examples
    --------
    >>> from polars_graded import spark as pgs  # doctest: +SKIP
    >>> per_query = spark_session.read.parquet("s3://bucket/per_query/")  # doctest: +SKIP
    >>> pgs.summarize(per_query, ["mu_ap"], by="system").show()  # doctest: +SKIP
    """
    from pyspark.sql import functions as F

    plan.check_mean(mean)
    groups = as_by(by)

    w = None if weight is None else F.col(f"`{weight}`")

    def avg(value: Any) -> Any:
        if w is None:
            return F.avg(value)
        total = F.sum(w)
        return F.when(total > 0, F.sum(w * value) / total)

    def average(name: str) -> Any:
        value = F.col(f"`{name}`")
        if mean == "geometric":
            floored = F.greatest(value, F.lit(plan.GEOMETRIC_FLOOR))
            return F.exp(avg(F.log(floored))).alias(f"gm_{name}")
        return avg(value).alias(name)

    means = [F.count(F.lit(1)).alias(plan.SUMMARY_COUNT)]
    if w is not None and weight is not None:
        means.append(F.sum(w).cast("double").alias(weight))
    means += [average(n) for n in measures]
    if not groups:
        return per_query.agg(*means)
    return per_query.groupBy(*groups).agg(*means).orderBy(*groups)


# --------------------------------------------------------------------------- the executors


def partition_evaluator(
    measures: dict[str, Measure], cols: TableSpec, *, weight: str | None = None
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function ``mapInArrow`` runs on each partition: its rankings, evaluated at once.

    ``measures``: output name -> measure; ``weight``: a checked weight column to carry.

    Examples
    --------
    >>> import pyarrow as pa
    >>> import polars_graded as pg
    >>> from polars_graded.options import TableSpec
    >>> batch = pa.record_batch({
    ...     "query": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0], "relevance": [0, 1],
    ... })
    >>> run = partition_evaluator({"ap": pg.AP}, TableSpec())
    >>> [out.to_pylist() for out in run(iter([batch]))]
    [[{'query': 1, 'ap': 0.5}]]
    """

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        table = _whole_partition(batches)
        if table is None:
            return
        values = evaluate_arrow(table, measures, cols, weight=weight)
        yield from values.to_batches()

    return run


def evaluate_arrow(
    table: pa.Table, measures: dict[str, Measure], cols: TableSpec, *, weight: str | None = None
) -> pa.Table:
    """Per-query values of one Arrow table, keys in the table's own Arrow types.

    ``measures``: output name -> measure; ``weight``: a checked weight column, carried after
    the keys as a double (a partition holds whole rankings, each with its weight). No
    threshold warning: an executor's warnings reach no user, and one partition's labels are
    not the table's.

    Examples
    --------
    >>> import pyarrow as pa
    >>> import polars_graded as pg
    >>> from polars_graded.options import TableSpec
    >>> table = pa.table({
    ...     "query": pa.array([7, 7], pa.int32()), "item": ["a", "b"],
    ...     "score": [2.0, 1.0], "relevance": [0, 1],
    ... })
    >>> evaluate_arrow(table, {"ap": pg.AP}, TableSpec()).schema.types
    [DataType(int32), DataType(double)]
    """
    frame = pl.from_arrow(table)
    if not isinstance(frame, pl.DataFrame):  # pragma: no cover - a Table gives a DataFrame
        frame = frame.to_frame()
    # The core's plan, not api.evaluate: warn=False keeps the executors silent.
    values = plan.per_query(frame.lazy(), measures, cols, warn=False)
    if weight is not None:
        values = attach_weights(values, frame, weight, query=cols.query, keys=cols.keys)
    carried = [] if weight is None else [pa.field(weight, pa.float64())]
    target = pa.schema(
        [table.schema.field(k) for k in cols.keys]
        + carried
        + [
            pa.field(name, pa.int64() if m.declaration.counts else pa.float64())
            for name, m in measures.items()
        ]
    )
    return values.collect(engine=ENGINE).to_arrow().cast(target)


def _whole_partition(batches: Iterator[pa.RecordBatch]) -> pa.Table | None:
    """The partition as one table: a ranking may span several record batches."""
    collected = [b for b in batches if b.num_rows]
    return pa.Table.from_batches(collected) if collected else None


# --------------------------------------------------------------------------- the driver


def output_schema(
    schema: StructType,
    cols: TableSpec,
    measures: Sequence[str] | Mapping[str, Measure],
    *,
    weight: str | None = None,
) -> StructType:
    """The Spark schema of :func:`evaluate`'s result; ``measures``: the output names mapped to
    their measures (or measure strings, each its own output name); ``weight``: a carried
    weight column (double, after the keys).

    Counts (``num_ret``, ...) are ``bigint``, every other measure ``double``.

    Examples
    --------
    >>> import pytest
    >>> types = pytest.importorskip("pyspark.sql.types")
    >>> from polars_graded.options import TableSpec
    >>> schema = types.StructType([
    ...     types.StructField(name, kind())
    ...     for name, kind in [("query", types.LongType), ("item", types.StringType),
    ...                        ("score", types.DoubleType), ("relevance", types.IntegerType)]
    ... ])
    >>> output_schema(schema, TableSpec(), ["ap", "num_ret"]).simpleString()
    'struct<query:bigint,ap:double,num_ret:bigint>'
    """
    from pyspark.sql.types import DoubleType, LongType, StructField, StructType

    named = measures if isinstance(measures, Mapping) else as_named_measures(list(measures))
    fields = [schema[k] for k in cols.keys]
    if weight is not None:
        fields.append(StructField(weight, DoubleType(), nullable=True))
    fields += [
        StructField(name, LongType() if m.declaration.counts else DoubleType(), nullable=True)
        for name, m in named.items()
    ]
    return StructType(fields)


def _check_spark_frame(df: object) -> None:
    if importlib.util.find_spec("pyspark") is None:
        msg = f"polars_graded.spark needs pyspark: {SPARK_HINT}"
        raise ModuleNotFoundError(msg)
    if not hasattr(df, "sparkSession") or not hasattr(df, "mapInArrow"):
        msg = (
            f"expected a Spark DataFrame, got {type(df).__name__}; for a Polars frame use "
            "df.graded.evaluate(...)"
        )
        raise TypeError(msg)


def _spark_columns(columns: ColumnOptions) -> TableSpec:
    cols = TableSpec.of(columns)
    if cols.ranked:
        msg = "ranked=True cannot hold on Spark: the shuffle does not keep the order of rows"
        raise InvalidValueError(msg)
    if cols.ties.in_input_order:
        msg = (
            "ties='input' uses the order of the rows, which Spark's shuffle does not keep; "
            "choose 'trec_eval', 'optimistic', 'pessimistic' or 'average'"
        )
        raise InvalidValueError(msg)
    return cols


def _check_schema(schema: StructType, cols: TableSpec, weight: str | None = None) -> None:
    """Missing or non-numeric columns, found on the driver before any job runs."""
    names = set(schema.fieldNames())
    weights = () if weight is None else (("weight", weight),)
    for role, name in (
        ("query", cols.query),
        ("item", cols.item),
        ("score", cols.score),
        ("relevance", cols.relevance),
        *(("by", b) for b in cols.by),
        *weights,
    ):
        if name not in names:
            msg = (
                f"the Spark DataFrame has no {role} column {name!r} (columns: "
                f"{sorted(names)}); name it with {role}="
            )
            raise MissingColumnError(msg)
    for role, name in (("score", cols.score), ("relevance", cols.relevance), *weights):
        kind = type(schema[name].dataType).__name__
        if kind not in _NUMERIC and not kind.startswith("Decimal"):
            msg = f"column {name!r} ({role}) must be numeric, got Spark type {kind}"
            raise ColumnTypeError(msg)


def check_spark_weights(df: SparkDataFrame, weight: str, keys: Sequence[str]) -> None:
    """:func:`polars_graded.weights.check_weights` for a Spark DataFrame, with its messages.

    One Spark job aggregates the rules per ranked list (``keys``: ``by + [query]``), then
    over the lists; only when one breaks are the rows of an offending list (or one offending
    row) brought to the driver, where :func:`~polars_graded.weights.check_weights` words the
    error.
    """
    from pyspark.sql import functions as F

    w = F.col(f"`{weight}`").cast("double")
    key_columns = [F.col(f"`{key}`") for key in keys]
    infinite = F.abs(w) == F.lit(float("inf"))
    rules = {"null": w.isNull(), "nan": F.isnan(w), "inf": infinite, "negative": w < 0}
    per_query = df.groupBy(*key_columns).agg(
        *(F.max(F.coalesce(rule, F.lit(False))).alias(name) for name, rule in rules.items()),
        (F.min(w) != F.max(w)).alias("varying"),
        F.max(w).alias("weight"),
    )
    flags = per_query.agg(
        *(F.max(F.col(name)).alias(name) for name in [*rules, "varying"]),
        F.sum("weight").alias("total"),
        F.count(F.lit(1)).alias("queries"),
    ).collect()[0]
    if not flags["queries"]:
        return
    example = None
    for name, rule in rules.items():
        if flags[name]:
            example = df.filter(rule).select(*key_columns, F.col(f"`{weight}`")).limit(1)
            break
    else:
        if flags["varying"]:
            first = per_query.filter(F.col("varying")).orderBy(*key_columns)
            first = first.select(*key_columns).limit(1)
            example = df.join(first, on=list(keys), how="left_semi")
            example = example.select(*key_columns, F.col(f"`{weight}`"))
        elif not flags["total"] > 0:
            raise zero_total_error(weight, flags["queries"])
    if example is not None:
        check_weights(pl.from_arrow(example.toArrow()), weight, list(keys))  # type: ignore[arg-type]
        msg = f"weight column {weight!r} breaks a rule of polars_graded.weights.check_weights"
        raise InvalidWeightError(msg)  # pragma: no cover - the example above raises first


def _partition_count(df: SparkDataFrame, partitions: int | None) -> int:
    if partitions is None:
        return int(df.sparkSession.conf.get("spark.sql.shuffle.partitions") or 200)
    return check_partitions(partitions)
