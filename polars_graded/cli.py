"""The ``polars-graded`` command: evaluate tables or TREC files, and run the paper's demo.

``polars-graded evaluate TABLE`` reads a long ``(query, item, score, relevance)`` table
(Parquet or CSV, lazily); ``polars-graded evaluate --run RUN --qrels QRELS`` joins TREC
files first. Both print the summary (``num_q`` and means per ``--by`` group) and can write
the per-query values with ``-o``. ``polars-graded demo`` runs the artificial experiment of
the paper's §2.1 (:mod:`polars_graded.artificial`). ``polars-graded report`` writes an HTML
report, a Markdown summary and the per-query values of several systems
(:mod:`polars_graded.report`).

Bad input is one line on stderr, ``polars-graded: error: ...``, and exit code 2: it is
found before the work starts where it can be (measure names, output paths, options that do
not fit the input), else while reading (files that are missing, truncated or corrupt, named
in the message). A :class:`~polars_graded.errors.GradedWarning` is one line,
``polars-graded: warning: ...``.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import inspect
import itertools
import os
import sys
import textwrap
import warnings
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Final, NoReturn

import polars as pl

import polars_graded
from polars_graded import artificial, partitioned, plan, report
from polars_graded.errors import GradedError, GradedWarning
from polars_graded.io import join_run_qrels, read_trec_qrels, read_trec_run
from polars_graded.measures.grammar import measure_name, split_top_level
from polars_graded.ranking import TIE_POLICIES, Columns

PROG = "polars-graded"
DEFAULT_MEASURES: tuple[str, ...] = ("mu_ap", "ndcg@10", "ndcng@10", "ap", "p@10", "rr")
DECIMALS = 4
COUNT = "num_q"
DEMO_MEASURES: dict[str, str] = {
    "mu_ap": "µMAP",
    "mean_ndcg": "mean NDCG (gain 2^rel - 1)",
    "mean_ndcng": "mean NDCNG",
}
_PARQUET_SUFFIXES = (".parquet", ".pq")
_CSV_SEPARATORS = {".csv": ",", ".tsv": "\t"}
_OUTPUT_SUFFIXES = (".parquet", ".pq", ".csv")
SYSTEM: Final = "system"
"""The column that names the run of each row when several TREC runs are evaluated."""
_DEFAULT_QUERIES: Final = inspect.signature(join_run_qrels).parameters["queries"].default
_INPUT_FAILURES = (EOFError, zlib.error)
"""Exceptions that only reading a damaged input (a truncated or corrupt compressed stream)
raises: one line, like a GradedError. Any other exception keeps its traceback (a bug)."""


class CommandError(Exception):
    """A problem with the command's input that is reported in one line, exit code 2."""


# --------------------------------------------------------------------------- entry point


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
    except (
        GradedError,
        CommandError,
        OSError,
        pl.exceptions.PolarsError,
        *_INPUT_FAILURES,
    ) as error:
        print(f"{PROG}: error: {_one_line(error)}", file=sys.stderr)
        return 2
    _show_warnings(caught)
    return code


def _show_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """Each GradedWarning once, as one line on stderr; any other warning as Python shows it."""
    shown: set[str] = set()
    for warning in caught:
        if not issubclass(warning.category, GradedWarning):
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
            continue
        line = f"{PROG}: warning: {_one_line(warning.message)}"
        if line not in shown:
            shown.add(line)
            print(line, file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, as every other error."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix(PROG).strip()
        hint = f"; see {self.prog} --help" if command else f"; see {PROG} --help"
        print(f"{PROG}: error: {message}{hint}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``polars-graded`` with its subcommands."""
    parser = _Parser(
        prog=PROG, description="Evaluate rankings against graded relevance (µMAP, NDCNG, ...)."
    )
    parser.add_argument(
        "--version", action="version", version=f"{PROG} {polars_graded.__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_evaluate(commands)
    _add_demo(commands)
    _add_report(commands)
    return parser


def _exit_code(exit_: SystemExit) -> int:
    code = exit_.code
    if code is None:
        return 0
    return code if isinstance(code, int) else 2


def _one_line(error: BaseException | str) -> str:
    text = str(error).strip() or type(error).__name__
    if isinstance(error, EOFError | zlib.error):  # Python's message does not say where
        text = f"truncated or corrupt compressed input: {text}"
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        text = f"{error.strerror}: {error.filename}"
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


# --------------------------------------------------------------------------- evaluate


def _add_evaluate(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "evaluate",
        help="evaluate a long table or a TREC run against qrels",
        description=(
            "Evaluate a long table (one row per query and item: query, item, score, "
            "relevance) read from Parquet or CSV, or TREC runs against TREC qrels. "
            "Prints the number of queries and the mean of each measure per --by group. "
            "In a CSV/TSV table the query, item and --by columns are read as text "
            "(01 and 1 are two queries); only score and relevance are numbers."
        ),
    )
    sub.add_argument(
        "table",
        nargs="?",
        metavar="TABLE",
        help=(
            "a .parquet or .csv/.tsv table, a glob of them ('logs/**/*.parquet' is "
            "recursive) or a directory of Parquet files; hive folders such as "
            "system=bm25/day=2026-11-01/ give columns usable in --by"
        ),
    )
    sub.add_argument(
        "--run",
        nargs="+",
        action="extend",
        metavar="RUN",
        help=(
            "TREC run file(s), plain or gzipped. Several runs (repeat --run or list them) "
            f"are evaluated side by side in a column '{SYSTEM}', one row per run in the "
            "summary; each is named by its run tag, else file name, else folder; "
            "NAME=PATH names one"
        ),
    )
    sub.add_argument("--qrels", metavar="QRELS", help="a TREC qrels file (plain or gzipped)")
    add_queries_option(sub)
    sub.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE",
        help=(
            "a measure such as mu_ap, ndcg@10, 'ap(rel=2)@10'; repeat or separate with "
            "commas; NAME=MEASURE names its column, e.g. 'rbp80=rbp(p=0.8)@5' (default: "
            f"{','.join(DEFAULT_MEASURES)})"
        ),
    )
    for column in ("query", "item", "score", "relevance"):
        sub.add_argument(f"--{column}", metavar="COLUMN", help=f"the {column} column of TABLE")
    sub.add_argument(
        "--by",
        action="append",
        metavar="COLUMN",
        help=(
            "an extra key column such as system (repeatable); with one --run e.g. tag, "
            f"with several runs only {SYSTEM} (added by itself)"
        ),
    )
    sub.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help=(
            "write the per-query values (.parquet or .csv) into an existing folder; "
            "checked before the evaluation starts"
        ),
    )
    sub.add_argument(
        "--memory-budget",
        metavar="SIZE",
        type=_memory_size,
        help=(
            "memory the evaluation may take, e.g. 4GiB or 512MiB; a Parquet TABLE whose "
            "evaluation would need more is evaluated in partitions of whole queries "
            "(default: half of this machine's memory)"
        ),
    )
    sub.add_argument(
        "--partitions",
        metavar="N",
        type=_positive,
        help=(
            "evaluate a Parquet TABLE in N partitions of whole queries (overrides the "
            "budget); never more than the rankings nor more than "
            f"{partitioned.MAX_PARTITIONS} (a warning says when capped)"
        ),
    )
    sub.add_argument(
        "--ranked",
        action="store_true",
        help=(
            "the rows are already in ranked order (each query's rows together, score "
            "descending, ties by item descending): skip the sort; rows out of order are an error"
        ),
    )
    add_ties_option(sub)
    sub.add_argument(
        "--mean",
        choices=plan.MEANS,
        default="arithmetic",
        help=(
            "how the printed summary averages over queries: arithmetic (default) or "
            "trec_eval's geometric mean (gm_map for ap; values below 1e-5 count as 1e-5)"
        ),
    )
    sub.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bar on partitioned evaluations"
    )
    sub.set_defaults(handler=run_evaluate)


def add_queries_option(sub: argparse.ArgumentParser) -> None:
    """``--queries``: which queries of TREC files count; refused with a TABLE."""
    sub.add_argument(
        "--queries",
        choices=("qrels", "both", "all"),
        help=(
            f"with --run: which queries count (default: {_DEFAULT_QUERIES}, like trec_eval "
            "-c); not for a TABLE, which is evaluated as it is"
        ),
    )


def add_ties_option(sub: argparse.ArgumentParser) -> None:
    """``--ties``: how rows with equal scores are ordered, or averaged over."""
    sub.add_argument(
        "--ties",
        choices=TIE_POLICIES,
        default="trec_eval",
        help=(
            "rows with equal scores: by item descending (trec_eval, the default), in the "
            "table's order (input), the higher / lower label first (optimistic / "
            "pessimistic), or the expected value over every order of the tied rows (average)"
        ),
    )


def run_evaluate(args: argparse.Namespace) -> int:
    """``polars-graded evaluate``: print the summary, write per-query values with ``-o``."""
    measures = named_measures(split_measures(args.measure or list(DEFAULT_MEASURES)))
    output = _output_path(args.output)  # a bad path fails before any work
    frame, columns, by = _input_frame(args, list(args.by or []))
    count = _partition_count(args)
    with _reading(args.table):
        if count is None:
            # The partitions' engine: splitting the table never changes a bit of the output.
            per_query = frame.graded.evaluate(
                measures, **columns, by=by or None, ranked=args.ranked, ties=args.ties
            ).collect(engine=partitioned.ENGINE)
        else:
            per_query = partitioned.evaluate_parquet(
                args.table,
                measures,
                partitions=count,
                progress=not args.quiet and count > 1 and sys.stderr.isatty(),
                **columns,
                by=by or None,
                ranked=args.ranked,
                ties=args.ties,
            )
    if output is not None:
        write_table(per_query, output)
    names = [c for c in per_query.columns if c not in {*by, columns.get("query", "query")}]
    print(format_table(plan.summary(per_query.lazy(), names, by, args.mean).collect()))
    return 0


def _partition_count(args: argparse.Namespace) -> int | None:
    """Partitions for a Parquet TABLE: ``--partitions``, or more than one when its estimated
    evaluation exceeds ``--memory-budget``; ``None`` to evaluate in memory."""
    parquet = args.table is not None and _is_parquet(Path(args.table))
    if args.partitions is not None:
        if not parquet:
            msg = "--partitions needs a Parquet TABLE (.parquet, a glob or a directory)"
            raise CommandError(msg)
        return int(args.partitions)
    if not parquet:
        return None
    count = partitioned.choose_partitions(args.table, args.memory_budget)
    return count if count > 1 else None


def _reading(table: str | None) -> contextlib.AbstractContextManager[None]:
    """Around reading a Parquet TABLE: a Polars error caused by one of its files names
    the file (:func:`polars_graded.partitioned.reading`)."""
    if table is not None and _is_parquet(Path(table)):
        return partitioned.reading(table)
    return contextlib.nullcontext()


def _memory_size(text: str) -> int:
    try:
        return partitioned.parse_memory(text)
    except GradedError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def split_measures(values: Sequence[str]) -> list[str]:
    """Measure names from repeated and comma-separated ``-m`` values.

    Commas inside brackets, braces or parentheses belong to the measure.

    Examples
    --------
    >>> split_measures(["mu_ap,ndcg@10", "ndcg(gain={1:3,2:9})@5"])
    ['mu_ap', 'ndcg@10', 'ndcg(gain={1:3,2:9})@5']
    """
    names = [name for value in values for name in split_top_level(value)]
    if not names:
        msg = "no measure given to -m"
        raise CommandError(msg)
    return names


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


def _input_frame(
    args: argparse.Namespace, by: list[str]
) -> tuple[pl.LazyFrame, dict[str, str], list[str]]:
    """The long table to evaluate, the column keyword arguments for it and its ``by``
    columns (with ``system`` first when several TREC runs are evaluated)."""
    columns = _column_options(args)
    if args.table is not None:
        if args.run is not None or args.qrels is not None:
            msg = "give either TABLE or --run and --qrels, not both"
            raise CommandError(msg)
        _refuse_queries(args)
        return read_table(Path(args.table), _key_columns(columns, by)), columns, by
    if args.run is None or args.qrels is None:
        msg = "give a TABLE (.parquet or .csv) or both --run RUN and --qrels QRELS"
        raise CommandError(msg)
    if columns:
        msg = "--query/--item/--score/--relevance name the columns of a TABLE, not of TREC files"
        raise CommandError(msg)
    runs = _run_paths(args.run)
    qrels = _existing(Path(args.qrels))
    queries = args.queries or _DEFAULT_QUERIES
    if isinstance(runs, list) and len(runs) == 1:  # one unnamed run: no system column
        run = read_trec_run(runs[0])
        joined = join_run_qrels(
            run.lazy(), read_trec_qrels(qrels).lazy(), by=by or None, queries=queries
        )
        return joined, columns, by
    others = [column for column in by if column != SYSTEM]
    if others:
        msg = (
            f"with several --run (or NAME=PATH) each run is a system in column '{SYSTEM}'; "
            f"--by {others[0]} is not available then"
        )
        raise CommandError(msg)
    table = report.trec_table(runs, qrels, queries=queries)
    return table.lazy(), columns, [SYSTEM]


def _key_columns(columns: dict[str, str], by: Sequence[str]) -> list[str]:
    """The key columns of a table as the user named them: ``by``, query and item."""
    default = Columns()
    return [*by, columns.get("query", default.query), columns.get("item", default.item)]


def _column_options(args: argparse.Namespace) -> dict[str, str]:
    return {
        name: getattr(args, name)
        for name in ("query", "item", "score", "relevance")
        if getattr(args, name) is not None
    }


def _refuse_queries(args: argparse.Namespace) -> None:
    """``--queries`` picks queries of TREC files; with a TABLE it would be ignored."""
    if args.queries is not None:
        msg = (
            f"--queries {args.queries} applies to --run and --qrels only; a TABLE is "
            "evaluated with every query it has (filter it first to keep fewer)"
        )
        raise CommandError(msg)


def read_table(path: Path, keys: Sequence[str] = ()) -> pl.LazyFrame:
    """Scan a Parquet or CSV/TSV table lazily, choosing the reader by the file's extension.

    A directory or a glob is read as ``pl.scan_parquet`` reads it, with hive partitioning
    (:func:`polars_graded.partitioned.scan_source`). In a CSV/TSV table the ``keys``
    (query, item and ``by`` columns, as named by the user) are read as text: inferring
    their type would make ``01`` and ``1`` one query. Other columns are inferred.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "runs.csv"
    >>> _ = path.write_text("query,item,score,relevance\\n01,007,1.5,1\\n1,7,0.5,0\\n")
    >>> read_table(path, ["query", "item"]).collect().rows()
    [('01', '007', 1.5, 1), ('1', '7', 0.5, 0)]
    """
    if _is_parquet(path):
        return partitioned.scan_source(str(path))
    suffix = path.suffix.lower()
    if suffix in _CSV_SEPARATORS:
        return pl.scan_csv(
            _existing(path),
            separator=_CSV_SEPARATORS[suffix],
            infer_schema_length=10_000,
            schema_overrides=dict.fromkeys(keys, pl.String),  # absent names are ignored
        )
    known = ", ".join([*_PARQUET_SUFFIXES, *_CSV_SEPARATORS])
    msg = f"cannot read {str(path)!r}: expected a table ending in {known}"
    raise CommandError(msg)


def _is_parquet(path: Path) -> bool:
    """True for a Parquet file or glob (by extension) and for a directory."""
    return path.suffix.lower() in _PARQUET_SUFFIXES or path.is_dir()


def _existing(path: Path) -> Path:
    """``path`` itself; a file that does not exist is a :class:`CommandError`.

    Glob patterns (``runs/*.csv``, ``runs/**/*.csv``) must match a file; Polars expands them.
    """
    if partitioned.is_glob(str(path)):
        if not glob.glob(str(path), recursive=True):
            msg = f"no file matches {path}"
            raise CommandError(msg)
    elif not path.is_file():
        msg = f"no such file: {path}"
        raise CommandError(msg)
    return path


def _output_path(text: str | None) -> Path | None:
    """``-o``: a ``.parquet``/``.csv`` file that can be written, checked before any work."""
    if text is None:
        return None
    path = Path(text)
    if path.suffix.lower() not in _OUTPUT_SUFFIXES:
        msg = f"cannot write {text!r}: -o must end in .parquet or .csv"
        raise CommandError(msg)
    if path.is_dir():
        msg = f"cannot write {text!r}: it is a directory"
        raise CommandError(msg)
    _check_folder(path.parent, f"cannot write {text!r}")
    if path.exists() and not os.access(path, os.W_OK):
        msg = f"cannot write {text!r}: permission denied"
        raise CommandError(msg)
    return path


def _check_folder(folder: Path, what: str) -> None:
    """Raise unless ``folder`` is an existing directory we may create files in."""
    if not folder.is_dir():
        reason = "is not a folder" if folder.exists() else "does not exist"
        msg = f"{what}: the folder {str(folder)!r} {reason}"
        raise CommandError(msg)
    if not os.access(folder, os.W_OK | os.X_OK):
        msg = f"{what}: permission denied in the folder {str(folder)!r}"
        raise CommandError(msg)


def _output_folder(text: str) -> Path:
    """``report --out``: a folder that exists or can be created, checked before any work."""
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        msg = f"cannot write the report into {text!r}: it is a file, not a folder"
        raise CommandError(msg)
    # The deepest folder that exists must take new entries (the report creates the rest).
    existing = next(f for f in (folder, *folder.parents) if f.exists())
    _check_folder(existing, f"cannot write the report into {text!r}")
    return folder


def write_table(frame: pl.DataFrame, path: Path) -> None:
    """Write ``frame`` as Parquet or CSV, chosen by the extension of ``path``."""
    if path.suffix.lower() == ".csv":
        frame.write_csv(path)
    else:
        frame.write_parquet(path)


def format_table(frame: pl.DataFrame, decimals: int = DECIMALS) -> str:
    """Every row and column of ``frame`` as aligned text, floats with fixed decimals.

    Numbers are right-aligned, other values left-aligned; nulls show as ``-``.

    Examples
    --------
    >>> print(format_table(pl.DataFrame({"system": ["a", "bb"], "ap": [0.5, 1 / 3]})))
    system      ap
    ------  ------
    a       0.5000
    bb      0.3333
    """
    header = list(frame.columns)
    cells = [[_cell(v, decimals) for v in frame.get_column(c).to_list()] for c in header]
    numeric = [frame.schema[c].is_numeric() for c in header]
    widths = [
        max([len(name), *map(len, column)]) for name, column in zip(header, cells, strict=True)
    ]

    def line(values: Sequence[str]) -> str:
        parts = (
            value.rjust(width) if right else value.ljust(width)
            for value, width, right in zip(values, widths, numeric, strict=True)
        )
        return "  ".join(parts).rstrip()

    rows = [line(header), line(["-" * width for width in widths])]
    rows += [line(row) for row in zip(*cells, strict=True)]
    return "\n".join(rows)


def _cell(value: object, decimals: int) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    return str(value)


# --------------------------------------------------------------------------- demo


def _add_demo(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "demo",
        help="run the paper's artificial experiment (no download)",
        description=(
            "The artificial experiment of Scheel, Lommatzsch and Albayrak (2011), §2.1: a "
            "reference ranking of 100 items with labels 0..L-1, test rankings made by k "
            "random swaps; µMAP, mean NDCG and mean NDCNG per L and k."
        ),
    )
    sub.add_argument(
        "--runs", type=_positive, default=50, help="test rankings per cell (default: 50)"
    )
    sub.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    sub.add_argument(
        "--distribution",
        choices=("uniform", "random"),
        default="uniform",
        help="labels in equal blocks per level, or a random probability per level",
    )
    sub.set_defaults(handler=run_demo)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        msg = f"must be at least 1, got {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


def run_demo(args: argparse.Namespace) -> int:
    """``polars-graded demo``: the §2.1 table and what it shows."""
    table = demo_table(runs=args.runs, seed=args.seed, distribution=args.distribution)
    print(_demo_title(args.runs, args.seed, args.distribution))
    for measure, label in DEMO_MEASURES.items():
        print(f"\n{label}")
        print(format_table(_by_levels(table, measure)))
    print()
    print(textwrap.fill(demo_explanation(table), width=88))
    return 0


def demo_table(
    runs: int = 50, seed: int = 0, distribution: artificial.Distribution = "uniform"
) -> pl.DataFrame:
    """Mean µAP, mean NDCG and mean NDCNG over the runs, per number of levels and swaps.

    All rankings are evaluated in one call with ``by=["levels", "swaps", "run"]``.

    Returns
    -------
    polars.DataFrame
        Columns ``levels``, ``swaps`` and one per measure of :data:`DEMO_MEASURES`.
    """
    rankings = artificial.artificial_rankings(runs=runs, seed=seed, distribution=distribution)
    per_query = rankings.graded.evaluate(list(DEMO_MEASURES), by=["levels", "swaps", "run"])
    return (
        per_query.group_by("levels", "swaps")
        .agg(pl.col(list(DEMO_MEASURES)).mean())
        .sort("levels", "swaps")
    )


def _by_levels(table: pl.DataFrame, measure: str) -> pl.DataFrame:
    """One measure as rows ``k`` (swaps) and columns ``L=levels``."""
    wide = table.pivot("levels", index="swaps", values=measure, sort_columns=True)
    return wide.rename({"swaps": "k", **{c: f"L={c}" for c in wide.columns if c != "swaps"}})


def _demo_title(runs: int, seed: int, distribution: str) -> str:
    labels = "in equal blocks" if distribution == "uniform" else "drawn with random level weights"
    return textwrap.fill(
        "The artificial experiment of Scheel, Lommatzsch & Albayrak (2011), §2.1: a reference "
        f"ranking of 100 items with labels 0..L-1 {labels}; each test ranking is the "
        f"reference after k random swaps of two items. Cells are means over {runs} test "
        f"rankings (seed {seed}); NDCG and NDCNG are averaged over the cutoffs 1..100 first.",
        width=88,
    )


def demo_explanation(table: pl.DataFrame) -> str:
    """A paragraph on what ``table`` (from :func:`demo_table`) shows, from its own numbers.

    Each sentence is checked against the table before it is said: that the measures are 1
    at ``k = 0`` and fall with ``k``, how far each moves across the numbers of levels at
    the largest ``k``, and that NDCG depends more on the number of levels than µMAP and
    NDCNG only when its spread is at least three times theirs.
    """
    measures = list(DEMO_MEASURES)
    first, last = int(table["swaps"].min()), int(table["swaps"].max())  # type: ignore[arg-type]
    at_first = table.filter(pl.col("swaps") == first)
    at_last = table.filter(pl.col("swaps") == last).sort("levels")
    sentences = [_start_sentence(table, at_first, at_last, first, last)]
    spread = {m: float(at_last[m].max() - at_last[m].min()) for m in measures}  # type: ignore[operator]
    levels = ", ".join(map(str, at_last["levels"].to_list()))
    sentences.append(
        f"At k = {last}, the same amount of disorder, the values across L = {levels} span "
        f"{spread['mu_ap']:.3f} for µMAP, {spread['mean_ndcg']:.3f} for mean NDCG and "
        f"{spread['mean_ndcng']:.3f} for mean NDCNG."
    )
    others = max(spread["mu_ap"], spread["mean_ndcng"])
    if spread["mean_ndcg"] > 0 and spread["mean_ndcg"] >= 3 * others:
        ndcg = at_last["mean_ndcg"].to_list()
        lower = all(a > b for a, b in itertools.pairwise(ndcg))
        trend = ", lower the more levels there are," if lower else ""
        sentences.append(
            f"So NDCG with exponential gain depends on the number of levels{trend} while "
            "µMAP and NDCNG depend on it much less."
        )
    else:
        sentences.append(
            "With these runs the measures are not clearly apart in how much they depend on "
            "the number of levels; try more --runs."
        )
    return " ".join(sentences)


def _start_sentence(
    table: pl.DataFrame, at_first: pl.DataFrame, at_last: pl.DataFrame, first: int, last: int
) -> str:
    """What the table says at the smallest ``k`` and how the measures move with ``k``."""
    measures = list(DEMO_MEASURES)
    perfect = first == 0 and bool(at_first.select(pl.col(measures).min() >= 1 - 1e-12).row(0)[0])
    falling = all(
        bool(group.sort("swaps").select((pl.col(m).diff().fill_null(0) <= 1e-12).all()).item())
        for _, group in table.group_by("levels")
        for m in measures
    )
    if perfect:
        start = f"At k = {first} (the reference itself) every measure is 1"
    elif first == 0:
        low = min(float(at_first[m].min()) for m in measures)  # type: ignore[arg-type]
        start = (
            f"At k = 0 (the reference itself) the means are between {low:.4f} and 1: the "
            "reference ranking scores 1 unless it has no relevant item, then 0"
        )
    else:
        start = f"At k = {first} the means are as shown"
    if falling:
        return f"{start}, and every measure falls as k grows."
    lower = all(
        float(at_last[m].max()) < float(at_first[m].min())  # type: ignore[arg-type]
        for m in measures
    )
    how = f"is lower at k = {last} than at k = {first}" if lower else "moves with k"
    return f"{start}; every measure {how}, though not at every step."


# --------------------------------------------------------------------------- report


def _add_report(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "report",
        help="compare systems: HTML report, Markdown summary and per-query Parquet",
        description=(
            "Evaluate several systems, compare each with a baseline (paired randomization "
            "test and t-test, Holm-corrected; bootstrap intervals) and write report.html "
            "(self-contained, charts embedded), report.md and per_query.parquet into --out. "
            "Input: a long table with a system column (Parquet or CSV), or TREC run files "
            "and a qrels file. Needs pip install 'polars-graded[report]'."
        ),
    )
    sub.add_argument(
        "table",
        nargs="?",
        metavar="TABLE",
        help=(
            "a .parquet or .csv/.tsv long table (a glob or a directory of Parquet files); "
            "in a CSV/TSV the system, query and item columns are read as text"
        ),
    )
    sub.add_argument(
        "--run",
        nargs="+",
        action="extend",
        metavar="RUN",
        help=(
            "TREC run files, one system each (repeatable); named by their run tag, else "
            "file name, else folder; NAME=PATH names one"
        ),
    )
    sub.add_argument("--qrels", metavar="QRELS", help="the TREC qrels file of the runs")
    add_queries_option(sub)
    sub.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE",
        help=(
            "a measure; repeat or separate with commas "
            f"(default: {','.join(report.DEFAULT_MEASURES)})"
        ),
    )
    sub.add_argument(
        "--system",
        default=SYSTEM,
        metavar="COLUMN",
        help="the system column of TABLE (default: system)",
    )
    for column in ("query", "item", "score", "relevance"):
        sub.add_argument(f"--{column}", metavar="COLUMN", help=f"the {column} column of TABLE")
    sub.add_argument(
        "--baseline",
        metavar="SYSTEM",
        help="the system to compare with (default: the first, sorted)",
    )
    sub.add_argument(
        "--out",
        default="report",
        metavar="DIR",
        help="output directory, created if needed; checked before any work (default: report)",
    )
    sub.add_argument(
        "--trials",
        metavar="N",
        type=_positive,
        default=10_000,
        help="randomization-test trials (default: 10000)",
    )
    sub.add_argument(
        "--bootstrap",
        metavar="N",
        type=_positive,
        default=10_000,
        help="bootstrap resamples (default: 10000)",
    )
    sub.add_argument("--seed", metavar="N", type=int, default=0, help="random seed (default: 0)")
    sub.add_argument(
        "--missing",
        choices=("zero", "common"),
        default="zero",
        help="a query a system lacks: scores 0 (zero, default) or only common queries compared",
    )
    sub.add_argument(
        "--alpha", metavar="P", type=float, default=0.05, help="significance level (default: 0.05)"
    )
    sub.add_argument(
        "--confidence",
        metavar="C",
        type=float,
        default=0.95,
        help="coverage of the bootstrap intervals (default: 0.95)",
    )
    sub.add_argument(
        "--title", metavar="TEXT", default="Evaluation report", help="the report's title"
    )
    sub.add_argument(
        "--differences",
        action="append",
        metavar="MEASURE",
        help="measures of the per-query difference plots, or 'all' (default: the first measure)",
    )
    add_ties_option(sub)
    sub.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    """``polars-graded report``: write the report's three files and print their paths."""
    try:
        report.require_extras()
    except ModuleNotFoundError as error:
        raise CommandError(str(error)) from error
    measures = split_measures(args.measure or list(report.DEFAULT_MEASURES))
    out = _output_folder(args.out)
    frame, columns, source = _report_input(args)
    differences = split_measures(args.differences) if args.differences else None
    with _reading(args.table):
        files = report.build_report(
            frame,
            out,
            measures,
            system=args.system if args.table is not None else SYSTEM,
            **columns,
            baseline=args.baseline,
            missing=args.missing,
            trials=args.trials,
            bootstrap=args.bootstrap,
            confidence=args.confidence,
            alpha=args.alpha,
            seed=args.seed,
            title=args.title,
            differences="all" if differences == ["all"] else differences,
            source=source,
            ties=args.ties,
        )
    print("\n".join(str(path) for path in files))
    return 0


def _report_input(
    args: argparse.Namespace,
) -> tuple[pl.LazyFrame | pl.DataFrame, dict[str, str], str]:
    """The long table, its column keyword arguments and a line saying where it came from."""
    columns = _column_options(args)
    if args.table is not None:
        if args.run or args.qrels:
            msg = "give either TABLE or --run and --qrels, not both"
            raise CommandError(msg)
        _refuse_queries(args)
        frame = read_table(Path(args.table), _key_columns(columns, [args.system]))
        return frame, columns, f"Input: {args.table}."
    if not args.run or args.qrels is None:
        msg = "give a TABLE (.parquet or .csv) or --run RUN [RUN ...] and --qrels QRELS"
        raise CommandError(msg)
    if columns or args.system != SYSTEM:
        msg = (
            "--system/--query/--item/--score/--relevance name columns of a TABLE, not of TREC files"
        )
        raise CommandError(msg)
    runs = _run_paths(args.run)
    qrels = _existing(Path(args.qrels))
    queries = args.queries or _DEFAULT_QUERIES
    table = report.trec_table(runs, qrels, queries=queries)
    source = f"Input: {len(args.run)} TREC run file(s), qrels {qrels} (queries: {queries})."
    return table, columns, source


def _run_paths(values: Sequence[str]) -> list[Path] | dict[str, Path]:
    """Run files, or ``{name: path}`` when any is given as ``NAME=PATH``."""
    named = [
        v.partition("=") if "=" in v and not Path(v).is_file() else ("", "", v) for v in values
    ]
    if not any(name for name, _, _ in named):
        return [_existing(Path(v)) for v in values]
    names = [name or report.run_names([path], [None])[0] for name, _, path in named]
    if len(set(names)) < len(names):
        msg = f"two runs have the same name: {sorted(n for n in names if names.count(n) > 1)[:5]}"
        raise CommandError(msg)
    return {name: _existing(Path(path)) for name, (_, _, path) in zip(names, named, strict=True)}
