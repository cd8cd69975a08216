"""polars_graded: graded-relevance ranking evaluation, natively in Polars.

Importing the package registers the ``graded`` namespace on ``pl.DataFrame`` and
``pl.LazyFrame``::

    import polars_graded as pg
    df.graded.evaluate(["mu_ap", "ndcg@10", "ndcng@10"])

Measures are value objects (``pg.AP(rel=2) @ 10``) or names in a small grammar
(``"ap(rel=2)@10"``); :mod:`polars_graded.expressions` has them as expressions. The
ready-made measures (``pg.AP``, ``pg.NDCG``, ...) and the expression functions (``pg.ap``,
``pg.ndcg``, ...) come from the measure registry (:mod:`polars_graded.measures`), one per
registered measure.

The typed API: :func:`evaluate`, :func:`summary`, :func:`per_threshold` (on DataFrames and
LazyFrames, or pandas and Arrow tables: every function that takes a table converts these,
:mod:`polars_graded.frames`; :func:`from_dicts` builds one from pytrec_eval's dicts),
:func:`compare`, :func:`compare_pairs` and :func:`compare_segments`
(statistics over per-query values: against a baseline, every pair of systems, per segment of
the queries; :func:`compact_letters`, :func:`segment_reversals`), :func:`judgment_bounds`
and :func:`order_flips` (what unjudged rows could change), :func:`rank_correlations`,
:func:`kendall_tau`, :func:`tau_ap` and :func:`discriminative_power` (how stable the order of
systems is), :func:`topic_set_size` and :func:`minimum_detectable_difference` (how many
queries a paired t-test needs, what the current ones detect), :func:`trend` (every system
against the baseline per period, and where the verdict changes), :func:`to_latex` and
:func:`means_latex` (booktabs tables), :func:`gate` (a non-inferiority and equivalence
regression gate), :func:`diff` (why a mean moved: the queries, items and segments behind a
change) and :func:`build_report` (the HTML and Markdown report; the
package :mod:`polars_graded.report` has the rest).

The contract every number follows (the input table, ranking and ties, relevance levels, each
measure's definition and edge cases, errors) is ``docs/conventions.md``; docstrings cite its
sections as "docs/conventions.md §N".
"""

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from polars_graded import expressions as _functions
from polars_graded import namespace as _namespace  # registers df.graded / lf.graded
from polars_graded.api import evaluate, per_threshold, summary
from polars_graded.errors import (
    ColumnTypeError,
    DuplicateKeyError,
    GradedError,
    GradedWarning,
    InputFileError,
    InvalidValueError,
    InvalidWeightError,
    MeasureParameterError,
    MissingColumnError,
    SpillError,
    StoreError,
    UnknownMeasureError,
)
from polars_graded.expressions import measure_expr
from polars_graded.io import (
    from_dicts,
    join_run_qrels,
    read_trec_qrels,
    read_trec_run,
    trec_to_parquet,
    write_trec_run,
)
from polars_graded.measures import Measure, measure_name, parse_measure, registry
from polars_graded.report import build_report
from polars_graded.scale import evaluate_parquet, evaluate_trec, summary_parquet
from polars_graded.scale.store import evaluate_store
from polars_graded.stats.compare import compare as compare
from polars_graded.stats.diff import Diff as Diff
from polars_graded.stats.diff import diff as diff
from polars_graded.stats.gate import gate as gate
from polars_graded.stats.judgment_bounds import judgment_bounds as judgment_bounds
from polars_graded.stats.judgment_bounds import order_flips as order_flips
from polars_graded.stats.latex import means_latex, to_latex
from polars_graded.stats.limits import ResamplingPlan, resampling_plan
from polars_graded.stats.options import Statistics
from polars_graded.stats.pairs import compact_letters as compact_letters
from polars_graded.stats.pairs import compare_pairs as compare_pairs
from polars_graded.stats.power import minimum_detectable_difference, topic_set_size
from polars_graded.stats.segments import compare_segments, segment_reversals
from polars_graded.stats.stability import (
    discriminative_power,
    kendall_tau,
    rank_correlations,
    tau_ap,
)
from polars_graded.stats.trends import trend as trend
from polars_graded.weights import traffic_segments

if TYPE_CHECKING:  # the generated names, typed
    from polars_graded.measures.generated.functions import *  # noqa: F403
    from polars_graded.measures.generated.measures import *  # noqa: F403
else:
    globals().update(registry.INSTANCES)
    globals().update({cls.__name__: cls for cls in registry.CLASSES})
    globals().update({name: getattr(_functions, name) for name in registry.FUNCTIONS})

GradedNamespace = _namespace.GradedNamespace

try:
    __version__ = version("polars-graded")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "ColumnTypeError",
    "Diff",
    "DuplicateKeyError",
    "GradedError",
    "GradedNamespace",
    "GradedWarning",
    "InputFileError",
    "InvalidValueError",
    "InvalidWeightError",
    "Measure",
    "MeasureParameterError",
    "MissingColumnError",
    "ResamplingPlan",
    "SpillError",
    "Statistics",
    "StoreError",
    "UnknownMeasureError",
    "__version__",
    "build_report",
    "compact_letters",
    "compare",
    "compare_pairs",
    "compare_segments",
    "diff",
    "discriminative_power",
    "evaluate",
    "evaluate_parquet",
    "evaluate_store",
    "evaluate_trec",
    "from_dicts",
    "gate",
    "join_run_qrels",
    "judgment_bounds",
    "kendall_tau",
    "means_latex",
    "measure_expr",
    "measure_name",
    "minimum_detectable_difference",
    "order_flips",
    "parse_measure",
    "per_threshold",
    "rank_correlations",
    "read_trec_qrels",
    "read_trec_run",
    "resampling_plan",
    "segment_reversals",
    "summary",
    "summary_parquet",
    "tau_ap",
    "to_latex",
    "topic_set_size",
    "traffic_segments",
    "trec_to_parquet",
    "trend",
    "write_trec_run",
]
__all__.extend([*registry.INSTANCES, *registry.FUNCTIONS])
__all__.extend(cls.__name__ for cls in registry.CLASSES)
