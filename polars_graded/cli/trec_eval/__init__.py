"""``polars-graded trec-eval``: trec_eval's command line, printing exactly what trec_eval prints.

``polars-graded trec-eval [-q] [-c] [-J] [-M N] [-l N] [-m MEASURE[.params]]... QRELS RUN``
reads a TREC qrels file and a run (a TREC run file, or Parquet with the run's columns) and
prints trec_eval 10.0's lines, ``measure<TAB>query-or-all<TAB>value``: the same names, order,
spacing and digits, so that scripts parsing trec_eval's output keep working.

This module holds the command (trec_eval's options, :func:`run`); what is trec_eval's own
lives beside it: its table of measures, its nicknames and the reading of ``-m`` and its
parameter text (:mod:`.measures`), the measures polars_graded computes for them (:mod:`.lines`),
and the reading of QRELS and RUN, the evaluation and the printed lines (:mod:`.output`).
"""

from __future__ import annotations

import argparse

from polars_graded.cli.options import add_compat_option
from polars_graded.cli.parser import Command, CommandError
from polars_graded.cli.trec_eval.output import report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """trec_eval's options (``-M100`` and ``-mP.5`` may be written without a space)."""
    parser.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    parser.add_argument(
        "run", metavar="RUN", help="TREC run file, or Parquet with query, item, score[, tag]"
    )
    parser.add_argument("-q", action="store_true", help="print each query's values too")
    parser.add_argument(
        "-c", action="store_true", help="average over every query of QRELS (missing ones: 0)"
    )
    parser.add_argument("-J", action="store_true", help="rank the judged rows only")
    parser.add_argument(
        "-M", type=int, metavar="N", help="only the first N rows of each ranking are retrieved"
    )
    parser.add_argument(
        "-l", type=int, default=1, metavar="N", help="relevance threshold of binary measures"
    )
    parser.add_argument(
        "-m",
        action="append",
        metavar="MEASURE[.params]",
        help="trec_eval measure or set (official, set, all_trec); repeatable",
    )
    add_compat_option(parser)


def run(args: argparse.Namespace) -> int:
    """Print trec_eval's lines for ``args``; return the exit code."""
    for option, value in (("-M", args.M), ("-l", args.l)):
        if value is not None and value < 1:
            msg = f"{option} must be at least 1, got {value}"
            raise CommandError(msg)
    report(args, print)
    return 0


COMMAND = Command(
    name="trec-eval",
    help="trec_eval's interface: print exactly what trec_eval 10.0 prints",
    description=(
        "Evaluate RUN against QRELS with trec_eval's options and print trec_eval's lines "
        "(measure, query or 'all', value). RUN may be Parquet. Measures polars_graded does "
        "not have yet are skipped with a line on stderr."
    ),
    add_arguments=add_arguments,
    run=run,
)
