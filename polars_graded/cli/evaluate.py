"""``polars-graded evaluate``: a table or TREC runs in, the summary out (per-query with ``-o``).

The per-query values come from :func:`polars_graded.api.evaluate`, or, for a Parquet TABLE
larger than ``--memory-budget`` (or with ``--partitions``), from
:func:`polars_graded.scale.parquet.evaluate_parquet`: the same bits either way. The printed
summary is :func:`polars_graded.plan.summary` of those values.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import polars as pl

from polars_graded import api, plan
from polars_graded.cli.inputs import (
    TrecFiles,
    is_parquet,
    read_table,
    reading,
    reads_table,
    trec_files,
)
from polars_graded.cli.options import (
    COLUMN_FLAGS,
    InputHelp,
    add_input_options,
    add_ties_option,
    column_options,
    table_spec,
)
from polars_graded.cli.parser import Command, CommandError
from polars_graded.cli.table import format_table
from polars_graded.cli.values import check_folder, positive, split_measures
from polars_graded.defaults import DEFAULT_MEASURES, ENGINE, SYSTEM
from polars_graded.errors import GradedError
from polars_graded.io import join_run_qrels, read_trec_qrels, read_trec_run
from polars_graded.measures.names.parse import measure_name
from polars_graded.options import TableSpec
from polars_graded.report import trec_table
from polars_graded.scale import memory, parquet, partitions

_OUTPUT_SUFFIXES = (".parquet", ".pq", ".csv")
_DEFAULT_MEAN: Final[plan.MeanKind] = inspect.signature(plan.summary).parameters["mean"].default
"""``--mean`` when not given: the summary's own default."""
_INPUT: Final = InputHelp(
    table=(
        "a .parquet or .csv/.tsv table, a glob of them ('logs/**/*.parquet' is "
        "recursive) or a directory of Parquet files; hive folders such as "
        "system=bm25/day=2026-11-01/ give columns usable in --by"
    ),
    run=(
        "TREC run file(s), plain or gzipped. Several runs (repeat --run or list them) "
        f"are evaluated side by side in a column '{SYSTEM}', one row per run in the "
        "summary; each is named by its run tag, else file name, else folder; "
        "NAME=PATH names one"
    ),
    qrels="a TREC qrels file (plain or gzipped)",
    measure=(
        "a measure such as mu_ap, ndcg@10, 'ap(rel=2)@10'; repeat or separate with "
        "commas; NAME=MEASURE names its column, e.g. 'rbp80=rbp(p=0.8)@5' (default: "
        f"{','.join(DEFAULT_MEASURES)})"
    ),
    by=(
        "an extra key column such as system (repeatable); with one --run e.g. tag, "
        f"with several runs only {SYSTEM} (added by itself)"
    ),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``evaluate``: the shared input options, then its own.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> args = parser.parse_args(["runs.csv", "-m", "ap,ndcg@10", "--by", "system"])
    >>> args.table, args.measure, args.by, args.ties, args.mean, args.output
    ('runs.csv', ['ap,ndcg@10'], ['system'], 'trec_eval', 'arithmetic', None)
    """
    add_input_options(parser, _INPUT)
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help=(
            "write the per-query values (.parquet or .csv) into an existing folder; "
            "checked before the evaluation starts"
        ),
    )
    _add_partition_options(parser)
    parser.add_argument(
        "--ranked",
        action="store_true",
        help=(
            "the rows are already in ranked order (each query's rows together, score "
            "descending, ties by item descending): skip the sort; rows out of order are an error"
        ),
    )
    add_ties_option(parser)
    parser.add_argument(
        "--mean",
        choices=plan.MEANS,
        default=_DEFAULT_MEAN,
        help=(
            "how the printed summary averages over queries: arithmetic (default) or "
            "trec_eval's geometric mean (gm_map for ap; values below 1e-5 count as 1e-5)"
        ),
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bar on partitioned evaluations"
    )


def _add_partition_options(parser: argparse.ArgumentParser) -> None:
    """``--memory-budget``, ``--partitions`` and ``--spill-dir``: a Parquet TABLE larger than
    memory."""
    parser.add_argument(
        "--memory-budget",
        metavar="SIZE",
        type=_memory_size,
        help=(
            "memory the evaluation may take, e.g. 4GiB or 512MiB; a Parquet TABLE whose "
            "evaluation would need more is evaluated in partitions of whole queries "
            "(default: half of this machine's memory)"
        ),
    )
    parser.add_argument(
        "--partitions",
        metavar="N",
        type=positive,
        help=(
            "evaluate a Parquet TABLE in N partitions of whole queries (overrides the "
            "budget); never more than the rankings nor more than "
            f"{partitions.MAX_PARTITIONS} (a warning says when capped)"
        ),
    )
    parser.add_argument(
        "--spill-dir",
        metavar="DIR",
        help=(
            "where the partitions are written while evaluating in partitions (about 1.25 "
            "times the TABLE's bytes; removed at the end; default: the system's temporary "
            "folder, TMPDIR if set)"
        ),
    )


def run(args: argparse.Namespace) -> int:
    """``polars-graded evaluate``: print the summary, write per-query values with ``-o``.

    Examples
    --------
    Query 1's relevant row is second (RR 1/2, P@1 0), query 2's first (RR 1, P@1 1):

    >>> from polars_graded.cli import build_parser
    >>> path = getfixture("tmp_path") / "table.csv"
    >>> pl.DataFrame({"query": [1, 1, 2], "item": ["a", "b", "a"], "score": [2.0, 1.0, 1.0],
    ...               "relevance": [0, 1, 1]}).write_csv(path)
    >>> run(build_parser().parse_args(["evaluate", str(path), "-m", "rr,p@1"]))
    num_q      rr     p@1
    -----  ------  ------
        2  0.7500  0.5000
    0
    """
    measures = named_measures(split_measures(args.measure or list(DEFAULT_MEASURES)))
    output = output_path(args.output)  # a bad path fails before any work
    frame, spec = _input(args)
    per_query = _per_query(args, frame, measures, spec)
    if output is not None:
        write_table(per_query, output)
    names = [column for column in per_query.columns if column not in spec.keys]
    print(format_table(plan.summary(per_query.lazy(), names, spec.by, args.mean).collect()))
    return 0


def _per_query(
    args: argparse.Namespace,
    frame: pl.LazyFrame,
    measures: list[str] | dict[str, str],
    spec: TableSpec,
) -> pl.DataFrame:
    """The per-query values: in memory, or in partitions of a Parquet TABLE."""
    count = partition_count(args)
    with reading(args.table):
        if count is None:
            # The partitions' engine: splitting the table never changes a bit of the output.
            return api.evaluate_spec(frame, measures, spec).collect(engine=ENGINE)
        return parquet.evaluate_parquet(
            args.table,
            measures,
            partitions=count,
            progress=not args.quiet and count > 1 and sys.stderr.isatty(),
            spill_dir=args.spill_dir,
            **spec.options(),
        )


def named_measures(texts: Sequence[str]) -> list[str] | dict[str, str]:
    """The measures of ``-m``, as a mapping output name -> measure when any is given as
    ``NAME=MEASURE`` (an ``=`` before any parenthesis); the others keep their canonical name.

    Examples
    --------
    >>> named_measures(["ap(rel=2)", "ndcg@10"])
    ['ap(rel=2)', 'ndcg@10']
    >>> named_measures(["rbp80=rbp(p=0.8)@5", "ndcg@10"])
    {'rbp80': 'rbp(p=0.8)@5', 'ndcg@10': 'ndcg@10'}
    """
    pairs = [_name_and_measure(text) for text in texts]
    if all(name is None for name, _ in pairs):
        return list(texts)
    named: dict[str, str] = {}
    for given, measure in pairs:
        name = measure_name(measure) if given is None else given
        if name in named:
            msg = f"-m: two measures are named {name!r}"
            raise CommandError(msg)
        named[name] = measure
    return named


def _name_and_measure(text: str) -> tuple[str | None, str]:
    """``("rbp80", "rbp(p=0.8)@5")`` from ``"rbp80=rbp(p=0.8)@5"``; no name without one."""
    name, sep, measure = text.partition("=")
    if sep and "(" not in name:
        return name.strip(), measure.strip()
    return None, text


def _input(args: argparse.Namespace) -> tuple[pl.LazyFrame, TableSpec]:
    """The long table to evaluate and its spec (``by`` is ``system`` for several runs)."""
    by = list(args.by or [])
    if reads_table(args):
        spec = table_spec(args, by, ranked=args.ranked)
        keys, numbers = [*spec.keys, spec.item], [spec.score, spec.relevance]
        return read_table(Path(args.table), keys, numbers=numbers), spec
    if column_options(args):
        msg = f"{COLUMN_FLAGS} name the columns of a TABLE, not of TREC files"
        raise CommandError(msg)
    files = trec_files(args)
    if isinstance(files.runs, list) and len(files.runs) == 1:  # one unnamed run: no system
        return _one_run(files.runs[0], files, by), table_spec(args, by, ranked=args.ranked)
    others = [column for column in by if column != SYSTEM]
    if others:
        msg = (
            f"with several --run (or NAME=PATH) each run is a system in column '{SYSTEM}'; "
            f"--by {others[0]} is not available then"
        )
        raise CommandError(msg)
    table = trec_table(files.runs, files.qrels, queries=files.queries)
    return table.lazy(), table_spec(args, [SYSTEM], ranked=args.ranked)


def _one_run(path: Path, files: TrecFiles, by: Sequence[str]) -> pl.LazyFrame:
    """One TREC run joined with its qrels; ``by`` may name the run's own columns (``tag``)."""
    run_ = read_trec_run(path).lazy()
    qrels = read_trec_qrels(files.qrels).lazy()
    return join_run_qrels(run_, qrels, by=by or None, queries=files.queries)


def partition_count(args: argparse.Namespace) -> int | None:
    """Partitions for a Parquet TABLE: ``--partitions``, or more than one when its estimated
    evaluation exceeds ``--memory-budget``; ``None`` to evaluate in memory.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> parse = build_parser().parse_args
    >>> partition_count(parse(["evaluate", "t.csv"])) is None  # not Parquet: in memory
    True
    >>> partition_count(parse(["evaluate", "logs/*.parquet", "--partitions", "4"]))
    4
    """
    in_parquet = args.table is not None and is_parquet(Path(args.table))
    if args.partitions is not None:
        if not in_parquet:
            msg = "--partitions needs a Parquet TABLE (.parquet, a glob or a directory)"
            raise CommandError(msg)
        return int(args.partitions)
    if not in_parquet:
        return None
    count = partitions.choose_partitions(args.table, args.memory_budget)
    return count if count > 1 else None


def _memory_size(text: str) -> int:
    try:
        return memory.parse_memory(text)
    except GradedError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def output_path(text: str | None) -> Path | None:
    """``-o``: a ``.parquet``/``.csv`` file that can be written, checked before any work.

    Examples
    --------
    >>> output_path(str(getfixture("tmp_path") / "per_query.csv")).name
    'per_query.csv'
    >>> output_path("out.txt")
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: cannot write 'out.txt': -o must end in .parquet or .csv
    """
    if text is None:
        return None
    path = Path(text)
    if path.suffix.lower() not in _OUTPUT_SUFFIXES:
        msg = f"cannot write {text!r}: -o must end in .parquet or .csv"
        raise CommandError(msg)
    if path.is_dir():
        msg = f"cannot write {text!r}: it is a directory"
        raise CommandError(msg)
    check_folder(path.parent, f"cannot write {text!r}")
    if path.exists() and not os.access(path, os.W_OK):
        msg = f"cannot write {text!r}: permission denied"
        raise CommandError(msg)
    return path


def write_table(frame: pl.DataFrame, path: Path) -> None:
    """Write ``frame`` as Parquet or CSV, chosen by the extension of ``path``.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "values.csv"
    >>> write_table(pl.DataFrame({"query": [1, 2], "ap": [0.5, 1.0]}), path)
    >>> path.read_text()
    'query,ap\\n1,0.5\\n2,1.0\\n'
    """
    if path.suffix.lower() == ".csv":
        frame.write_csv(path)
    else:
        frame.write_parquet(path)


COMMAND: Final = Command(
    name="evaluate",
    help="evaluate a long table or a TREC run against qrels",
    description=(
        "Evaluate a long table (one row per query and item: query, item, score, "
        "relevance) read from Parquet or CSV, or TREC runs against TREC qrels. "
        "Prints the number of queries and the mean of each measure per --by group. "
        "In a CSV/TSV table the query, item and --by columns are read as text "
        "(01 and 1 are two queries); only score and relevance are numbers."
    ),
    add_arguments=add_arguments,
    run=run,
    takes_measures=True,
)
