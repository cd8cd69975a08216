"""Evaluate a Parquet dataset on Spark: per-query values and the summary, written as Parquet.

Run it with spark-submit on a cluster (the executors need polars-graded installed)::

    spark-submit --master yarn examples/spark_evaluate.py \\
        s3://bucket/runs/ s3://bucket/eval/ --by system -m mu_ap -m ndcg@10

or locally, where it starts its own ``local[*]`` session::

    python examples/spark_evaluate.py runs.parquet eval/ --by system

It writes ``per_query/`` (one row per ``by + [query]``, a column per measure) and
``summary/`` (``num_q`` and the means per ``by`` group) under the output folder, and prints
the summary.
"""

from __future__ import annotations

import argparse
import os
import sys

from pyspark.sql import SparkSession

from polars_graded import spark as pgs

DEFAULT_MEASURES = ["mu_ap", "ndcg@10", "ndcng@10", "ap", "p@10", "rr"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a Parquet file or folder (local path, s3://, hdfs://)")
    parser.add_argument("out", help="the output folder")
    parser.add_argument("-m", "--measure", action="append", help="a measure (repeatable)")
    parser.add_argument("--by", action="append", default=[], help="a system column")
    parser.add_argument("--ties", default="trec_eval", help="the tie policy")
    parser.add_argument("--partitions", type=int, help="shuffle partitions (default: Spark's)")
    args = parser.parse_args(argv)

    # Local runs: the workers use this interpreter. spark-submit sets its own.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.appName("polars_graded evaluation").getOrCreate()
    runs = spark.read.parquet(args.source)
    measures = args.measure or DEFAULT_MEASURES
    options = {"by": args.by or None, "ties": args.ties, "partitions": args.partitions}

    pgs.evaluate(runs, measures, **options).write.mode("overwrite").parquet(f"{args.out}/per_query")
    # The summary from the per-query table just written, so nothing is evaluated twice.
    per_query = spark.read.parquet(f"{args.out}/per_query")
    names = [c for c in per_query.columns if c not in {*args.by, "query"}]
    summary = pgs.summarize(per_query, names, by=args.by)
    summary.write.mode("overwrite").parquet(f"{args.out}/summary")
    summary.show(truncate=False)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
