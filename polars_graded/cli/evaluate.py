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
    add_weight_option,
    column_options,
    table_spec,
)
from polars_graded.cli.parser import Command, CommandError
from polars_graded.cli.store import add_store_options, check_store_options, stored_values
from polars_graded.cli.table import format_table
from polars_graded.cli.values import check_folder, positive, split_measures
from polars_graded.defaults import DEFAULT_MEASURES, ENGINE, SYSTEM
from polars_graded.errors import GradedError
from polars_graded.io import join_run_qrels, read_trec_qrels, read_trec_run
from polars_graded.measures.names.parse import as_measure, measure_name
from polars_graded.options import TableSpec
from polars_graded.report import trec_table
from polars_graded.scale import memory, parquet, partitions
from polars_graded.scale import trec as scale_trec

_FORMATS: Final = {
    ".parquet": "Parquet",
    ".pq": "Parquet",
    ".csv": "CSV",
    ".json": "JSON",
    ".jsonl": "JSON Lines",
    ".ndjson": "JSON Lines",
}
"""``-o``: the file's extension chooses its format."""
STDOUT: Final = "-"
"""``-o -``: the per-query values as JSON Lines on stdout (the summary goes to stderr)."""
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
            "write the per-query values into an existing folder, in the format the "
            "extension names: .parquet, .csv, .json (an array of records) or .jsonl (a "
            "record per line; also .ndjson); '-o -' writes JSON Lines to stdout and the "
            "summary to stderr (for jq); checked before the evaluation starts"
        ),
    )
    _add_partition_options(parser)
    add_store_options(parser)
    parser.add_argument(
        "--ranked",
        action="store_true",
        help=(
            "the rows are already in ranked order (each query's rows together, score "
            "descending, ties by item descending): skip the sort; rows out of order are an error"
        ),
    )
    add_ties_option(parser)
    add_weight_option(parser, "the printed summary's means (-o writes it beside the values)")
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
    """``--memory-budget``, ``--partitions`` and ``--spill-dir``: a Parquet TABLE or TREC
    files larger than memory."""
    parser.add_argument(
        "--memory-budget",
        metavar="SIZE",
        type=_memory_size,
        help=(
            "memory the evaluation may take, e.g. 4GiB or 512MiB; a Parquet TABLE whose "
            "evaluation would need more is evaluated in partitions of whole queries, and "
            "TREC files (--run, --qrels) that would need more are first converted to "
            "Parquet in bounded memory (under --spill-dir) and evaluated so (default: half "
            "of this machine's memory)"
        ),
    )
    parser.add_argument(
        "--partitions",
        metavar="N",
        type=positive,
        help=(
            "evaluate a Parquet TABLE or TREC files in N partitions of whole queries "
            "(overrides the budget); never more than the rankings nor more than "
            f"{partitions.MAX_PARTITIONS} (a warning says when capped)"
        ),
    )
    parser.add_argument(
        "--spill-dir",
        metavar="DIR",
        help=(
            "where the partitions are written while evaluating in partitions (about 1.25 "
            "times the TABLE's bytes, or about the TREC runs' bytes of text; removed at the "
            "end; default: the system's temporary folder, TMPDIR if set)"
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
    piped = args.output == STDOUT
    output = None if piped else output_path(args.output)  # a bad path fails before any work
    check_store_options(args)
    if args.store is not None and args.weight is not None:
        msg = "--weight is not available with --store: the store keeps no weights"
        raise CommandError(msg)
    if args.store is not None:  # a folder of hive partitions through a result store
        per_query, spec = stored_values(args, measures)
    else:
        frame, spec = _input(args)
        per_query = _per_query(args, frame, measures, spec)
    if piped:
        sys.stdout.write(json_ready(per_query).write_ndjson())
    elif output is not None:
        write_table(per_query, output)
    names = [c for c in per_query.columns if c not in spec.keys and c != args.weight]
    means = plan.summary(per_query.lazy(), names, spec.by, args.mean, weight=args.weight)
    summary = format_table(means.collect())
    # With -o - stdout holds only the records, for jq and the like.
    print(summary, file=sys.stderr if piped else sys.stdout)
    return 0


def _per_query(
    args: argparse.Namespace,
    frame: pl.LazyFrame | TrecFiles,
    measures: list[str] | dict[str, str],
    spec: TableSpec,
) -> pl.DataFrame:
    """The per-query values: in memory, in partitions of a Parquet TABLE, or, for TREC
    files too large for the budget (``frame`` holds their names), streamed to Parquet and
    evaluated in partitions."""
    if isinstance(frame, TrecFiles):
        runs = frame.runs
        return scale_trec.evaluate_trec(
            runs[0] if isinstance(runs, list) and len(runs) == 1 else runs,  # one: no system
            frame.qrels,
            measures,
            queries=frame.queries,
            memory_budget=args.memory_budget,
            partitions=args.partitions,
            progress=not args.quiet and sys.stderr.isatty(),
            spill_dir=args.spill_dir,
            **spec.options(),
        )
    count = partition_count(args)
    with reading(args.table):
        if count is None:
            # The partitions' engine: splitting the table never changes a bit of the output.
            values = api.evaluate_spec(frame, measures, spec, weight=args.weight)
            return values.collect(engine=ENGINE)
        return parquet.evaluate_parquet(
            args.table,
            measures,
            partitions=count,
            progress=not args.quiet and count > 1 and sys.stderr.isatty(),
            spill_dir=args.spill_dir,
            weight=args.weight,
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
        if name in named and as_measure(named[name]) != as_measure(measure):
            msg = f"-m: two measures are named {name!r}"
            raise CommandError(msg)
        named.setdefault(name, measure)  # "-m ap -m map": the same column, given once
    return named


def _name_and_measure(text: str) -> tuple[str | None, str]:
    """``("rbp80", "rbp(p=0.8)@5")`` from ``"rbp80=rbp(p=0.8)@5"``; no name without one."""
    name, sep, measure = text.partition("=")
    if sep and "(" not in name:
        return name.strip(), measure.strip()
    return None, text


def _input(args: argparse.Namespace) -> tuple[pl.LazyFrame | TrecFiles, TableSpec]:
    """The long table to evaluate and its spec (``by`` is ``system`` for several runs); for
    TREC files estimated too large for ``--memory-budget`` (or with ``--partitions``), the
    files themselves, read later in bounded memory."""
    by = list(args.by or [])
    if reads_table(args):
        spec = table_spec(args, by, ranked=args.ranked)
        keys, numbers = [*spec.keys, spec.item], [spec.score, spec.relevance]
        weights = [] if args.weight is None else [args.weight]
        return read_table(Path(args.table), keys, numbers=[*numbers, *weights]), spec
    if column_options(args) or args.weight is not None:
        msg = f"{COLUMN_FLAGS}/--weight name the columns of a TABLE, not of TREC files"
        raise CommandError(msg)
    files = trec_files(args)
    paths = list(files.runs.values()) if isinstance(files.runs, dict) else files.runs
    streamed = args.partitions is not None or not scale_trec.fits_in_memory(
        [*paths, files.qrels], args.memory_budget
    )
    if isinstance(files.runs, list) and len(files.runs) == 1:  # one unnamed run: no system
        spec = table_spec(args, by, ranked=args.ranked)
        return (files if streamed else _one_run(files.runs[0], files, by)), spec
    others = [column for column in by if column != SYSTEM]
    if others:
        msg = (
            f"with several --run (or NAME=PATH) each run is a system in column '{SYSTEM}'; "
            f"--by {others[0]} is not available then"
        )
        raise CommandError(msg)
    spec = table_spec(args, [SYSTEM], ranked=args.ranked)
    if streamed:
        return files, spec
    return trec_table(files.runs, files.qrels, queries=files.queries).lazy(), spec


def _one_run(path: Path, files: TrecFiles, by: Sequence[str]) -> pl.LazyFrame:
    """One TREC run joined with its qrels; ``by`` may name the run's own columns (``tag``)."""
    run_ = read_trec_run(path).lazy()
    qrels = read_trec_qrels(files.qrels).lazy()
    return join_run_qrels(run_, qrels, by=by or None, queries=files.queries)


def partition_count(args: argparse.Namespace) -> int | None:
    """Partitions for a Parquet TABLE: ``--partitions``, or more than one when its estimated
    evaluation exceeds ``--memory-budget``; ``None`` to evaluate in memory. (TREC files with
    ``--partitions`` never come here: :func:`_input` streams them.)

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
            msg = (
                "--partitions needs a Parquet TABLE (.parquet, a glob or a directory) or "
                "TREC files (--run, --qrels)"
            )
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
    """``-o``: a file that can be written, in a format its extension names
    (:data:`_FORMATS`), checked before any work.

    Examples
    --------
    >>> output_path(str(getfixture("tmp_path") / "per_query.jsonl")).name
    'per_query.jsonl'
    >>> output_path("out.txt")
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: cannot write 'out.txt': -o must end in .parquet, \
.pq, .csv, .json, .jsonl or .ndjson (or be - for JSON Lines on stdout), e.g. per_query.jsonl
    """
    if text is None:
        return None
    path = Path(text)
    if path.suffix.lower() not in _FORMATS:
        *others, last = _FORMATS
        msg = (
            f"cannot write {text!r}: -o must end in {', '.join(others)} or {last} (or be "
            f"{STDOUT} for JSON Lines on stdout), e.g. per_query.jsonl"
        )
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
    """Write ``frame`` as Parquet, CSV, JSON (one array of records) or JSON Lines (a record
    per line), chosen by the extension of ``path`` (:data:`_FORMATS`).

    In JSON every float keeps all its digits (Python's ``json`` reads back the same
    double), a null is ``null``, and a key keeps its type (query ``1`` is a number,
    ``"01"`` a string).

    Examples
    --------
    >>> folder = getfixture("tmp_path")
    >>> frame = pl.DataFrame({"query": [1, 2], "ap": [1 / 3, None]})
    >>> write_table(frame, folder / "values.csv")
    >>> (folder / "values.csv").read_text()
    'query,ap\\n1,0.3333333333333333\\n2,\\n'
    >>> write_table(frame, folder / "values.jsonl")
    >>> print((folder / "values.jsonl").read_text(), end="")
    {"query":1,"ap":0.3333333333333333}
    {"query":2,"ap":null}
    >>> write_table(frame, folder / "values.json")
    >>> (folder / "values.json").read_text()
    '[{"query":1,"ap":0.3333333333333333},{"query":2,"ap":null}]'
    """
    kind = _FORMATS[path.suffix.lower()]
    if kind == "CSV":
        frame.write_csv(path)
    elif kind == "JSON":
        json_ready(frame).write_json(path)
    elif kind == "JSON Lines":
        json_ready(frame).write_ndjson(path)
    else:
        frame.write_parquet(path)


def json_ready(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with Float32 columns as Float64: JSON readers parse a number as a double,
    and the shortest text of a float32 is not the double it stands for.

    Examples
    --------
    >>> json_ready(pl.DataFrame({"x": [0.1]}, schema={"x": pl.Float32})).write_ndjson()
    '{"x":0.10000000149011612}\\n'
    """
    return frame.with_columns(pl.selectors.by_dtype(pl.Float32).cast(pl.Float64))


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
