"""The options several commands share, declared once, and their reading into the library's
option objects.

``evaluate``, ``report`` and ``gate`` read the same input (a TABLE, or TREC ``--run`` files
with ``--qrels``) through the same options (:func:`add_input_options`), each with its own help
text (:class:`InputHelp`); they share ``--ties`` and ``--compat`` (:func:`add_ties_option`,
which ``trec-eval`` shares for ``--compat``: :func:`add_compat_option`) and the options of the
statistics (:func:`add_statistics_option`). Every default is the library's own
(:data:`DEFAULT_QUERIES`, :data:`DEFAULT_TIES`,
:data:`~polars_graded.options.DEFAULT_COMPAT`, :data:`~polars_graded.stats.options.DEFAULTS`).
The options given become a :class:`~polars_graded.options.TableSpec` (:func:`table_spec`)
and the keywords of :class:`~polars_graded.stats.options.Statistics`
(:func:`statistics_arguments`).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, get_args

from polars_graded.defaults import SYSTEM
from polars_graded.io import join_run_qrels
from polars_graded.io.trec import QueriesMode
from polars_graded.measures.registry import measure_help
from polars_graded.options import COMPATS, DEFAULT_COMPAT, TIE_POLICIES, TableSpec, Ties
from polars_graded.stats.options import (
    BOOTSTRAP_METHODS,
    CORRECTIONS,
    DEFAULTS,
    LARGE_SAMPLES,
    RESAMPLING_BUDGET,
    TESTS,
    Correction,
    Statistics,
    Test,
)

COLUMNS: Final = ("query", "item", "score", "relevance")
"""The column options (``--query`` ...) every command that reads a TABLE has."""
COLUMN_FLAGS: Final = "/".join(f"--{column}" for column in COLUMNS)
DEFAULT_QUERIES: Final[QueriesMode] = (
    inspect.signature(join_run_qrels).parameters["queries"].default
)
"""``--queries`` when not given: :func:`~polars_graded.io.join_run_qrels`' default."""
DEFAULT_TIES: Final = Ties().policy
"""``--ties`` when not given: the library's default tie policy."""


@dataclass(frozen=True)
class InputHelp:
    """One command's help for the input options, and which ``--by`` it has.

    Examples
    --------
    >>> helps = InputHelp("table", "run", "qrels", "measure", "by", one_system=True)
    >>> parser = argparse.ArgumentParser()
    >>> add_input_options(parser, helps)
    >>> parser.parse_args(["t.csv"]).by, parser.parse_args(["t.csv", "--system", "team"]).by
    ('system', 'team')
    """

    table: str
    run: str
    qrels: str
    measure: str
    by: str
    one_system: bool = False
    """``--by`` is the one system column (``report``, alias ``--system``), not repeatable."""
    measure_required: bool = False
    """``-m`` must be given (``gate``): the usage line shows it without brackets."""


def add_input_options(parser: argparse.ArgumentParser, helps: InputHelp) -> None:
    """TABLE, ``--run``, ``--qrels``, ``--queries``, ``-m``, the column options and ``--by``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_input_options(parser, InputHelp("table", "run", "qrels", "measure", "by"))
    >>> args = parser.parse_args(["--run", "a.txt", "b.txt", "--qrels", "q.txt", "-m", "ap,p@5"])
    >>> args.table, args.run, args.qrels, args.measure, args.by
    (None, ['a.txt', 'b.txt'], 'q.txt', ['ap,p@5'], None)
    """
    parser.add_argument("table", nargs="?", metavar="TABLE", help=helps.table)
    parser.add_argument("--run", nargs="+", action="extend", metavar="RUN", help=helps.run)
    parser.add_argument("--qrels", metavar="QRELS", help=helps.qrels)
    parser.add_argument(
        "--queries",
        choices=get_args(QueriesMode),
        help=(
            f"with --run: which queries count (default: {DEFAULT_QUERIES}, like trec_eval "
            "-c); not for a TABLE, which is evaluated as it is"
        ),
    )
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        required=helps.measure_required,
        metavar="MEASURE",
        help=helps.measure,
    )
    for column in COLUMNS:
        parser.add_argument(f"--{column}", metavar="COLUMN", help=f"the {column} column of TABLE")
    if helps.one_system:
        parser.add_argument("--by", "--system", default=SYSTEM, metavar="COLUMN", help=helps.by)
    else:
        parser.add_argument("--by", action="append", metavar="COLUMN", help=helps.by)


def add_ties_option(parser: argparse.ArgumentParser) -> None:
    """``--ties``: how rows with equal scores are ordered, or averaged over; ``--compat``:
    which scores are equal (trec_eval 10.0's doubles or 9.x's 32-bit floats).

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_ties_option(parser)
    >>> parser.parse_args([]).ties, parser.parse_args(["--ties", "average"]).ties
    ('trec_eval', 'average')
    >>> parser.parse_args([]).compat, parser.parse_args(["--compat", "trec_eval_9"]).compat
    ('trec_eval_10', 'trec_eval_9')
    """
    parser.add_argument(
        "--ties",
        choices=TIE_POLICIES,
        default=DEFAULT_TIES,
        # The help says which policy is the default: the example above fails if it moves.
        help=(
            "rows with equal scores: by item descending (trec_eval, the default), in the "
            "table's order (input), the higher / lower label first (optimistic / "
            "pessimistic), or the expected value over every order of the tied rows (average)"
        ),
    )
    add_compat_option(parser)


def add_weight_option(parser: argparse.ArgumentParser, weighted: str) -> None:
    """``--weight COLUMN``: a traffic weight per query (:mod:`polars_graded.weights`);
    ``weighted`` says what it weights in this command.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_weight_option(parser, "the means")
    >>> parser.parse_args([]).weight, parser.parse_args(["--weight", "traffic"]).weight
    (None, 'traffic')
    """
    parser.add_argument(
        "--weight",
        metavar="COLUMN",
        help=(
            "a column of TABLE with each query's traffic (impressions, sessions): "
            f"numeric, >= 0, the same on every row of a query; weights {weighted} by "
            "it, sum(w*v)/sum(w) (queries stay the sampled units; weight 0 counts in num_q "
            "only)"
        ),
    )


def add_compat_option(parser: argparse.ArgumentParser) -> None:
    """``--compat``: the trec_eval release whose numbers to reproduce (``trec-eval`` too).

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_compat_option(parser)
    >>> parser.parse_args([]).compat
    'trec_eval_10'
    """
    parser.add_argument(
        "--compat",
        choices=COMPATS,
        default=DEFAULT_COMPAT,
        help=(
            "the trec_eval release to reproduce: trec_eval_10 (the default: scores compared "
            "as doubles) or trec_eval_9 (trec_eval 9.x and pytrec_eval: scores compared as "
            "32-bit floats, 9.x's recall points in iprec); ir_measures: names always use "
            "trec_eval_9"
        ),
    )


def add_statistics_option(
    parser: argparse.ArgumentParser,
    name: str,
    kind: Callable[[str], Any],
    text: str,
    *aliases: str,
    metavar: str = "N",
) -> None:
    """``--name`` (then ``aliases``), an option of
    :class:`~polars_graded.stats.options.Statistics`: its default is the one of
    :data:`~polars_graded.stats.options.DEFAULTS`, and its help ``text`` says which.

    Examples
    --------
    >>> from polars_graded.cli.values import positive
    >>> parser = argparse.ArgumentParser()
    >>> add_statistics_option(parser, "trials", positive, "randomization-test trials")
    >>> parser.parse_args([]).trials, "trials (default: 10000)" in parser.format_help()
    (10000, True)
    """
    default = getattr(DEFAULTS, name)
    parser.add_argument(
        f"--{name}",
        *aliases,
        metavar=metavar,
        type=kind,
        default=default,
        help=f"{text} (default: {default})",
    )


def add_correction_option(
    parser: argparse.ArgumentParser, family: str, default: Correction = DEFAULTS.correction
) -> None:
    """``--correction``: the multiple-testing correction (the choices of
    :data:`~polars_graded.stats.options.CORRECTIONS`) across ``family``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_correction_option(parser, "the systems")
    >>> parser.parse_args([]).correction, parser.parse_args(["--correction", "bh"]).correction
    ('holm', 'bh')
    """
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default=default,
        help=(
            f"multiple-testing correction across {family}: {', '.join(CORRECTIONS)} "
            f"(default: {default}; holm-sidak: Holm-Sidak, bh: Benjamini-Hochberg)"
        ),
    )


def add_test_option(
    parser: argparse.ArgumentParser, decides: str, default: Test = DEFAULTS.test
) -> None:
    """``--test``: the paired test (the choices of :data:`~polars_graded.stats.options.TESTS`)
    that decides ``decides``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_test_option(parser, "the marks")
    >>> parser.parse_args([]).test, parser.parse_args(["--test", "wilcoxon"]).test
    ('randomization', 'wilcoxon')
    """
    parser.add_argument(
        "--test",
        choices=TESTS,
        default=default,
        help=(
            f"the paired test that decides {decides}: randomization (sign flips), t (t-test) "
            f"or wilcoxon (signed-rank test, scipy's defaults) (default: {default})"
        ),
    )


def add_bootstrap_method_option(parser: argparse.ArgumentParser, intervals: str) -> None:
    """``--bootstrap-method``: how ``intervals`` are read from the bootstrap resamples (the
    choices of :data:`~polars_graded.stats.options.BOOTSTRAP_METHODS`).

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_bootstrap_method_option(parser, "the intervals")
    >>> parser.parse_args([]).bootstrap_method
    'percentile'
    >>> parser.parse_args(["--bootstrap-method", "bca"]).bootstrap_method
    'bca'
    """
    default = DEFAULTS.bootstrap_method
    parser.add_argument(
        "--bootstrap-method",
        choices=BOOTSTRAP_METHODS,
        default=default,
        help=(
            f"the bootstrap method of {intervals}: percentile (the resamples' quantiles) or "
            f"bca (bias-corrected and accelerated, as scipy's; better for skewed measures "
            f"such as RR and P@1) (default: {default})"
        ),
    )


def add_large_sample_option(parser: argparse.ArgumentParser) -> None:
    """``--large-sample``: resample, or take the normal limits of the resampling
    distributions (the choices of :data:`~polars_graded.stats.options.LARGE_SAMPLES`).

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_large_sample_option(parser)
    >>> parser.parse_args([]).large_sample, parser.parse_args(["--large-sample", "normal"])
    ('auto', Namespace(large_sample='normal'))
    """
    default = DEFAULTS.large_sample
    parser.add_argument(
        "--large-sample",
        choices=LARGE_SAMPLES,
        default=default,
        help=(
            "how the bootstrap, the randomization test and the randomized Tukey HSD are "
            "computed: resample (Monte Carlo draws), normal (their normal limits, exact as the "
            f"queries grow, in O(queries)) or auto (resample up to {RESAMPLING_BUDGET:.0e} "
            f"draws, queries x draws, else normal) (default: {default})"
        ),
    )


def statistics_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The options of :class:`~polars_graded.stats.options.Statistics` that ``args`` has, as
    keyword arguments.

    Examples
    --------
    >>> statistics_arguments(argparse.Namespace(alpha=0.1, title="x", seed=2))
    {'alpha': 0.1, 'seed': 2}
    """
    given = vars(args)
    return {f.name: given[f.name] for f in dataclasses.fields(Statistics) if f.name in given}


def measure_list() -> str:
    """The measures for ``-m``, one per line, as ``--help`` lists them after the options.

    Examples
    --------
    >>> print(measure_list())  # doctest: +ELLIPSIS
    measures (-m):
      ...mu_ap...
    """
    lines = measure_help().splitlines()
    return "\n".join(["measures (-m):", *(f"  {line}" for line in lines)])


def column_options(args: argparse.Namespace) -> dict[str, str]:
    """The column options given (``--query`` ...), as ``{option: column}``.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> column_options(build_parser().parse_args(["evaluate", "t.csv", "--item", "doc"]))
    {'item': 'doc'}
    """
    given = {name: getattr(args, name) for name in COLUMNS}
    return {name: column for name, column in given.items() if column is not None}


def table_spec(args: argparse.Namespace, by: Sequence[str], *, ranked: bool = False) -> TableSpec:
    """The table options of the command line (columns, ``by``, ``ranked``, ``--ties``,
    ``--compat``).

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> args = build_parser().parse_args(["report", "t.csv", "--ties", "average"])
    >>> spec = table_spec(args, [args.by])
    >>> spec.keys, spec.ties.averaged
    (['system', 'query'], True)
    """
    return TableSpec.of(
        {
            **column_options(args),
            "by": tuple(by),
            "ranked": ranked,
            "ties": args.ties,
            "compat": args.compat,
        }
    )
