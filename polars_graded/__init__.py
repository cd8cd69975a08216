"""polars_graded: graded-relevance ranking evaluation, natively in Polars.

Importing the package registers the ``graded`` namespace on ``pl.DataFrame`` and
``pl.LazyFrame``::

    import polars_graded as pg
    df.graded.evaluate(["mu_ap", "ndcg@10", "ndcng@10"])

Measures are value objects (``pg.AP(rel=2) @ 10``) or names in a small grammar
(``"ap(rel=2)@10"``); :mod:`polars_graded.functions` has them as expressions.
"""

from importlib.metadata import PackageNotFoundError, version

from polars_graded import namespace as _namespace  # registers df.graded / lf.graded
from polars_graded.breakdown import per_threshold as per_threshold
from polars_graded.compare import compare as compare
from polars_graded.errors import (
    ColumnTypeError,
    DuplicateKeyError,
    GradedError,
    GradedWarning,
    InputFileError,
    InvalidValueError,
    MeasureParameterError,
    MissingColumnError,
    UnknownMeasureError,
)
from polars_graded.functions import (
    ap,
    bpref,
    dcg,
    err,
    judged,
    mean_ndcg,
    mean_ndcng,
    measure_expr,
    mu_ap,
    ndcg,
    ndcng,
    precision,
    r_precision,
    rbp,
    rbp_residual,
    recall,
    rr,
    success,
)
from polars_graded.io import join_run_qrels, read_trec_qrels, read_trec_run, write_trec_run
from polars_graded.measures import (
    AP,
    DCG,
    ERR,
    NDCG,
    NDCNG,
    RBP,
    RR,
    Bpref,
    Judged,
    MeanNDCG,
    MeanNDCNG,
    Measure,
    MuAP,
    P,
    R,
    RBPResidual,
    RPrec,
    Success,
    measure_name,
    parse_measure,
)
from polars_graded.partitioned import evaluate_parquet, summary_parquet

GradedNamespace = _namespace.GradedNamespace

try:
    __version__ = version("polars-graded")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "AP",
    "DCG",
    "ERR",
    "NDCG",
    "NDCNG",
    "RBP",
    "RR",
    "Bpref",
    "ColumnTypeError",
    "DuplicateKeyError",
    "GradedError",
    "GradedNamespace",
    "GradedWarning",
    "InputFileError",
    "InvalidValueError",
    "Judged",
    "MeanNDCG",
    "MeanNDCNG",
    "Measure",
    "MeasureParameterError",
    "MissingColumnError",
    "MuAP",
    "P",
    "R",
    "RBPResidual",
    "RPrec",
    "Success",
    "UnknownMeasureError",
    "__version__",
    "ap",
    "bpref",
    "dcg",
    "err",
    "evaluate_parquet",
    "join_run_qrels",
    "judged",
    "mean_ndcg",
    "mean_ndcng",
    "measure_expr",
    "measure_name",
    "mu_ap",
    "ndcg",
    "ndcng",
    "parse_measure",
    "precision",
    "r_precision",
    "rbp",
    "rbp_residual",
    "read_trec_qrels",
    "read_trec_run",
    "recall",
    "rr",
    "success",
    "summary_parquet",
    "write_trec_run",
]
