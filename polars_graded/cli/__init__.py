"""The ``polars-graded`` command: evaluate tables or TREC files, compare systems, run the demo.

One module per command:

- :mod:`.evaluate`: ``polars-graded evaluate TABLE`` reads a long ``(query, item, score,
  relevance)`` table (Parquet or CSV, lazily); ``polars-graded evaluate --run RUN --qrels
  QRELS`` joins TREC files first. Both print the summary (``num_q`` and means per ``--by``
  group) and can write the per-query values with ``-o``.
- :mod:`.report`: ``polars-graded report`` writes an HTML report, a Markdown summary and the
  per-query values of several systems.
- :mod:`.gate`: ``polars-graded gate`` tests a candidate against a baseline with a margin and
  exits 1 when it fails.
- :mod:`.diff`: ``polars-graded diff`` says why a mean moved from a baseline to a candidate:
  the queries, the relevant items and the segments behind the change.
- :mod:`.trec_eval`: ``polars-graded trec-eval`` takes trec_eval's options and prints its
  lines (a package: the command, trec_eval's measures, their lines, the output).
- :mod:`.demo`: ``polars-graded demo`` runs the artificial experiment of the paper's §2.1.

What the commands share:

- :mod:`.parser`: the argument parser, a command's declaration, errors and warnings as one line.
- :mod:`.options`: the options several commands share (input, columns, ``--ties``,
  ``--compat``, the statistics), their defaults read from the library, and their reading
  into the library's option objects.
- :mod:`.inputs`: reading a command's input (a TABLE, or TREC runs and qrels), checked first.
- :mod:`.values`: option values read and checked before any work (counts, seeds, measures,
  systems, files and folders to write).
- The progress bar of a partitioned evaluation is the library's
  (:mod:`polars_graded.scale.progress`, also ``evaluate_parquet(progress=True)``).
- :mod:`.table`: the text tables the commands print.

Bad input is one line on stderr, ``polars-graded: error: ...``, and exit code 2: it is
found before the work starts where it can be (measure names, output paths, options that do
not fit the input), else while reading (files that are missing, truncated or corrupt, named
in the message). A :class:`~polars_graded.errors.GradedWarning` is one line,
``polars-graded: warning: ...``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

import polars as pl

import polars_graded
from polars_graded.cli import demo, diff, evaluate, gate, report, trec_eval
from polars_graded.cli.options import measure_list
from polars_graded.cli.parser import (
    INPUT_FAILURES,
    PROG,
    CommandError,
    Parser,
    one_line,
    show_warnings,
)
from polars_graded.errors import GradedError

__all__ = ["build_parser", "main"]

_COMMANDS = (
    evaluate.COMMAND,
    demo.COMMAND,
    report.COMMAND,
    gate.COMMAND,
    diff.COMMAND,
    trec_eval.COMMAND,
)
_FAILURES = (GradedError, CommandError, OSError, pl.exceptions.PolarsError, *INPUT_FAILURES)
"""What is bad input, reported in one line; anything else keeps its traceback (a bug)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 2 bad input or usage).

    Parameters
    ----------
    argv
        Arguments without the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit code.

    Examples
    --------
    >>> main(["--version"])  # doctest: +SKIP
    polars-graded 0.1.0
    0
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version and usage errors
        return _exit_code(exit_)
    try:
        # Warnings wait for the outcome: a failure prints its one error line alone.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            code = int(args.handler(args))
    except _FAILURES as error:
        print(f"{PROG}: error: {one_line(error)}", file=sys.stderr)
        return 2
    show_warnings(caught)
    return code


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``polars-graded`` with its subcommands.

    Examples
    --------
    >>> build_parser().parse_args(["demo", "--runs", "3"]).runs
    3
    """
    parser = Parser(
        prog=PROG, description="Evaluate rankings against graded relevance (µMAP, NDCNG, ...)."
    )
    parser.add_argument(
        "--version", action="version", version=f"{PROG} {polars_graded.__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in _COMMANDS:
        sub = commands.add_parser(
            command.name,
            help=command.help,
            description=command.description,
            appendix=measure_list() if command.takes_measures else None,
        )
        command.add_arguments(sub)
        sub.set_defaults(handler=command.run)
    return parser


def _exit_code(exit_: SystemExit) -> int:
    code = exit_.code
    if code is None:
        return 0
    return code if isinstance(code, int) else 2
