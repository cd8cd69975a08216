"""What the subcommands share: the parser, one-line errors, the input options and the input.

``evaluate`` and ``report`` read the same input (a TABLE, or TREC ``--run`` files with
``--qrels``) through the same options, declared once here (:func:`add_input_options`,
:func:`add_ties_option`); each command gives them its own help text (:class:`InputHelp`).
The input is checked here before any work (:func:`reads_table`, :func:`trec_files`) and a
TABLE is read lazily (:func:`read_table`). Bad input is a :class:`CommandError` or a
:class:`~polars_graded.errors.GradedError`, printed as one line (:func:`one_line`).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import glob
import inspect
import os
import re
import shutil
import sys
import textwrap
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, NamedTuple, NoReturn, get_args

import polars as pl

from polars_graded.errors import GradedWarning
from polars_graded.io import join_run_qrels
from polars_graded.io.csv_tables import check_csv_fields, check_csv_numbers
from polars_graded.io.trec import QueriesMode
from polars_graded.measures.names.grammar import split_top_level
from polars_graded.measures.registry import measure_help
from polars_graded.options import COMPATS, DEFAULT_COMPAT, TIE_POLICIES, TableSpec
from polars_graded.report import run_names, trec_table
from polars_graded.scale import parquet
from polars_graded.stats.options import DEFAULTS, Statistics

PROG: Final = "polars-graded"
SYSTEM: Final = "system"
"""The column that names the run of each row when several TREC runs are evaluated."""
COLUMNS: Final = ("query", "item", "score", "relevance")
"""The column options (``--query`` ...) every command that reads a TABLE has."""
COLUMN_FLAGS: Final = "/".join(f"--{column}" for column in COLUMNS)
DEFAULT_QUERIES: Final[QueriesMode] = (
    inspect.signature(join_run_qrels).parameters["queries"].default
)
INPUT_FAILURES: Final = (EOFError, zlib.error)
"""Exceptions that only reading a damaged input (a truncated or corrupt compressed stream)
raises: one line, like a GradedError. Any other exception keeps its traceback (a bug)."""
_PARQUET_SUFFIXES = (".parquet", ".pq")
_CSV_SEPARATORS = {".csv": ",", ".tsv": "\t"}


class CommandError(Exception):
    """A problem with the command's input that is reported in one line, exit code 2.

    Examples
    --------
    >>> try:
    ...     split_measures([""])
    ... except CommandError as error:
    ...     print(f"{PROG}: error: {error}")
    polars-graded: error: no measure given to -m
    """


# --------------------------------------------------------------------------- parser, errors


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, its ``--help`` texts, its options and what runs it.

    Examples
    --------
    >>> from polars_graded.cli import evaluate
    >>> evaluate.COMMAND.name, evaluate.COMMAND.run is evaluate.run, evaluate.COMMAND.takes_measures
    ('evaluate', True, True)
    """

    name: str
    help: str
    description: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    takes_measures: bool = False
    """Its ``--help`` ends with the measures ``-m`` takes (:func:`measure_list`)."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, as every other error.

    ``appendix``: a list of ``name  description`` lines that ``--help`` prints after the
    options, each wrapped to the terminal as argparse wraps the options (:func:`hang`).

    Examples
    --------
    >>> import contextlib
    >>> parser = Parser(prog=PROG, appendix="  ap  average precision")
    >>> parser.format_help().splitlines()[-1]
    '  ap  average precision'
    >>> with contextlib.redirect_stderr(sys.stdout), contextlib.suppress(SystemExit):
    ...     parser.parse_args(["--bad"])
    polars-graded: error: unrecognized arguments: --bad; see polars-graded --help
    """

    def __init__(self, *args: Any, appendix: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.appendix = appendix

    def format_help(self) -> str:
        text = super().format_help()
        if self.appendix is None:
            return text
        width = shutil.get_terminal_size().columns - 2  # argparse's own width
        return f"{text}\n{hang(self.appendix, width)}\n"

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        given = sys.argv[1:] if args is None else list(args)
        return super().parse_known_args(self._values_joined(given), namespace)

    def _values_joined(self, args: list[str]) -> list[str]:
        """``--option -4GiB`` as ``--option=-4GiB`` for an option that takes one value.

        argparse takes a value that starts with ``-`` for an option unless it is a plain
        negative number, and says "expected one argument"; joined, the value reaches the
        option's own check, which says what is wrong with it. A known option is not joined.
        """
        joined: list[str] = []
        rest = iter(args)
        for arg in rest:
            if arg == "--":  # every argument after it is a positional, as argparse reads it
                joined += [arg, *rest]
                break
            action = self._option_string_actions.get(arg)
            value = next(rest, None) if action is not None and action.nargs is None else None
            if value is None:
                joined.append(arg)
            elif value.startswith("-") and value != "--" and not self._is_option(value):
                joined.append(f"{arg}={value}")
            else:
                joined += [arg, value]
        return joined

    def _is_option(self, text: str) -> bool:
        return text.partition("=")[0] in self._option_string_actions

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix(PROG).strip()
        hint = f"; see {self.prog} --help" if command else f"; see {PROG} --help"
        print(f"{PROG}: error: {message}{hint}", file=sys.stderr)
        raise SystemExit(2)


HELP_POSITION = 24
"""The column of an appendix line's description at most, as argparse's options have it."""


def hang(text: str, width: int) -> str:
    """Each line of ``text`` wrapped to ``width``, its continuations under its description
    (the text after the line's first run of two spaces or more); a description that
    would start right of :data:`HELP_POSITION` starts on the next line there instead.

    Examples
    --------
    >>> print(hang("  ap   average precision at a threshold", 24))
      ap   average precision
           at a threshold
    >>> lines = "  ndcg(gain=exponential)@k  normalised DCG\\n  p@k" + " " * 23 + "precision"
    >>> print(hang(lines, 40))
      ndcg(gain=exponential)@k
                            normalised DCG
      p@k                   precision
    """
    return "\n".join(_hang_line(line, width) for line in text.splitlines())


def _hang_line(line: str, width: int) -> str:
    found = re.search(r"\S\s{2,}(?=\S)", line)
    if found and found.end() > HELP_POSITION:
        name, description = line[: found.start() + 1], line[found.end() :]
        indent = " " * HELP_POSITION
        wrapped = textwrap.fill(
            description, width, initial_indent=indent, subsequent_indent=indent,
            break_on_hyphens=False,
        )  # fmt: skip
        if len(name) + 2 <= HELP_POSITION:  # the name fits before the description
            return name + wrapped[len(name) :]
        return f"{name}\n{wrapped}"
    indent = " " * (found.end() if found else len(line) - len(line.lstrip()))
    return textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False)


def one_line(error: BaseException | str) -> str:
    """The message of an error or a warning as one line, saying where when Python does not.

    Examples
    --------
    >>> one_line(ValueError("bad value\\n  in row 3"))
    'bad value in row 3'
    >>> one_line(FileNotFoundError(2, "No such file or directory", "runs.txt"))
    'No such file or directory: runs.txt'
    """
    text = str(error).strip() or type(error).__name__
    if isinstance(error, INPUT_FAILURES):  # Python's message does not say where
        text = f"truncated or corrupt compressed input: {text}"
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        text = f"{error.strerror}: {error.filename}"
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def show_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """Each GradedWarning once, as one line on stderr; any other warning as Python shows it.

    Examples
    --------
    >>> import contextlib
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     for _ in range(2):
    ...         warnings.warn("threshold above\\nevery label", GradedWarning)
    >>> with contextlib.redirect_stderr(sys.stdout):
    ...     show_warnings(caught)
    polars-graded: warning: threshold above every label
    """
    shown: set[str] = set()
    for warning in caught:
        if not issubclass(warning.category, GradedWarning):
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
            continue
        line = f"{PROG}: warning: {one_line(warning.message)}"
        if line not in shown:
            shown.add(line)
            print(line, file=sys.stderr)


# --------------------------------------------------------------------------- shared options


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
        default="trec_eval",
        help=(
            "rows with equal scores: by item descending (trec_eval, the default), in the "
            "table's order (input), the higher / lower label first (optimistic / "
            "pessimistic), or the expected value over every order of the tied rows (average)"
        ),
    )
    add_compat_option(parser)


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


def positive(text: str) -> int:
    """An option's value that must be a whole number of at least 1.

    Examples
    --------
    >>> positive("3")
    3
    >>> positive("-1e3")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a whole number of at least 1, got '-1e3'
    """
    try:
        value = int(text)
    except ValueError:
        msg = f"must be a whole number of at least 1, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if value < 1:
        msg = f"must be at least 1, got {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


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


# --------------------------------------------------------------------------- input


class TrecFiles(NamedTuple):
    """TREC input as given: the runs (``{name: path}`` when any is named), qrels, queries.

    Examples
    --------
    >>> files = TrecFiles({"bm25": Path("bm25.txt")}, Path("qrels.txt"), "qrels")
    >>> files.runs["bm25"].name, files.queries
    ('bm25.txt', 'qrels')
    """

    runs: list[Path] | dict[str, Path]
    qrels: Path
    queries: QueriesMode


def reads_table(args: argparse.Namespace) -> bool:
    """True for a TABLE, False for ``--run`` with ``--qrels``; any other mix is refused.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> parse = build_parser().parse_args
    >>> reads_table(parse(["evaluate", "t.csv"]))
    True
    >>> reads_table(parse(["evaluate", "--run", "r.txt", "--qrels", "q.txt"]))
    False
    >>> reads_table(parse(["evaluate", "t.csv", "--qrels", "q.txt"]))
    Traceback (most recent call last):
    ...
    polars_graded.cli.common.CommandError: give either TABLE or --run and --qrels, not both
    """
    if args.table is not None:
        if args.run is not None or args.qrels is not None:
            msg = "give either TABLE or --run and --qrels, not both"
            raise CommandError(msg)
        if args.queries is not None:  # it picks queries of TREC files; ignored it would mislead
            msg = (
                f"--queries {args.queries} applies to --run and --qrels only; a TABLE is "
                "evaluated with every query it has (filter it first to keep fewer)"
            )
            raise CommandError(msg)
        return True
    if args.run is None or args.qrels is None:
        msg = "give a TABLE (.parquet or .csv) or --run RUN [RUN ...] and --qrels QRELS"
        raise CommandError(msg)
    return False


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


def trec_files(args: argparse.Namespace) -> TrecFiles:
    """``--run``, ``--qrels`` and ``--queries``, the files checked to exist.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> run, qrels = (getfixture("tmp_path") / name for name in ("run.txt", "qrels.txt"))
    >>> _ = run.write_text(""), qrels.write_text("")
    >>> args = build_parser().parse_args(["evaluate", "--run", str(run), "--qrels", str(qrels)])
    >>> files = trec_files(args)
    >>> [path.name for path in files.runs], files.qrels.name, files.queries
    (['run.txt'], 'qrels.txt', 'qrels')
    """
    runs = run_paths(args.run)
    return TrecFiles(runs, existing(Path(args.qrels)), args.queries or DEFAULT_QUERIES)


def run_paths(values: Sequence[str]) -> list[Path] | dict[str, Path]:
    """Run files, or ``{name: path}`` when any is given as ``NAME=PATH``.

    Examples
    --------
    >>> folder = getfixture("tmp_path")
    >>> for name in ("bm25.txt", "splade.txt"):
    ...     _ = (folder / name).write_text("1 Q0 d1 1 2.0 x\\n")
    >>> run_paths([f"base={folder / 'bm25.txt'}", str(folder / "splade.txt")]).keys()
    dict_keys(['base', 'splade'])
    """
    named = [
        v.partition("=") if "=" in v and not Path(v).is_file() else ("", "", v) for v in values
    ]
    if not any(name for name, _, _ in named):
        return [existing(Path(v)) for v in values]
    names = [name or run_names([path], [None])[0] for name, _, path in named]
    if len(set(names)) < len(names):
        msg = f"two runs have the same name: {sorted(n for n in names if names.count(n) > 1)[:5]}"
        raise CommandError(msg)
    return {name: existing(Path(path)) for name, (_, _, path) in zip(names, named, strict=True)}


def read_table(
    path: Path, keys: Sequence[str] = (), *, numbers: Sequence[str] = ()
) -> pl.LazyFrame:
    """Scan a Parquet or CSV/TSV table lazily, choosing the reader by the file's extension.

    A directory or a glob is read as ``pl.scan_parquet`` reads it, with hive partitioning
    (:func:`polars_graded.scale.parquet.scan_source`). In a CSV/TSV table the ``keys``
    (query, item and ``by`` columns, as named by the user) are read as text: inferring
    their type would make ``01`` and ``1`` one query. Other columns are inferred, but the
    ``numbers`` (score, relevance) are numbers: a CSV/TSV file is checked first
    (:func:`~polars_graded.io.csv_tables.check_csv_fields` and
    :func:`~polars_graded.io.csv_tables.check_csv_numbers`), and where every value of one is
    empty (a header-only file) it is a Float64 column of nulls, so that an empty table gives
    an empty result.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "runs.csv"
    >>> _ = path.write_text("query,item,score,relevance\\n01,007,1.5,1\\n1,7,0.5,0\\n")
    >>> read_table(path, ["query", "item"]).collect().rows()
    [('01', '007', 1.5, 1), ('1', '7', 0.5, 0)]
    >>> _ = path.write_text("query,item,score,relevance\\n")
    >>> read_table(path, ["query", "item"], numbers=["score", "relevance"]).collect_schema()
    Schema([('query', String), ('item', String), ('score', Float64), ('relevance', Float64)])
    """
    if is_parquet(path):
        return parquet.scan_source(str(path))
    suffix = path.suffix.lower()
    if suffix not in _CSV_SEPARATORS:
        known = ", ".join([*_PARQUET_SUFFIXES, *_CSV_SEPARATORS])
        msg = f"cannot read {str(path)!r}: expected a table ending in {known}"
        raise CommandError(msg)
    separator = _CSV_SEPARATORS[suffix]

    def scan(source: Path) -> pl.LazyFrame:
        return pl.scan_csv(
            source,
            separator=separator,
            infer_schema_length=10_000,
            schema_overrides=dict.fromkeys(keys, pl.String),  # absent names are ignored
        )

    for file in _csv_files(existing(path)):
        check_csv_fields(file, separator)
        check_csv_numbers(scan(file), numbers, file, separator)
    frame = scan(path)
    schema = frame.collect_schema()
    text = [name for name in numbers if schema.get(name) == pl.String]
    # Only empty values are left in a text column here (the checks refused the rest).
    return frame.with_columns(pl.col(text).cast(pl.Float64)) if text else frame


def _csv_files(path: Path) -> list[Path]:
    """The files a CSV/TSV TABLE names: itself, or what its glob matches."""
    if parquet.is_glob(str(path)):
        return [Path(name) for name in sorted(glob.glob(str(path), recursive=True))]
    return [path]


def is_parquet(path: Path) -> bool:
    """True for a Parquet file or glob (by extension) and for a directory.

    Examples
    --------
    >>> is_parquet(Path("logs/*.parquet")), is_parquet(Path("runs.csv"))
    (True, False)
    """
    return path.suffix.lower() in _PARQUET_SUFFIXES or path.is_dir()


def reading(table: str | None) -> contextlib.AbstractContextManager[None]:
    """Around reading a Parquet TABLE: a Polars error caused by one of its files names
    the file (:func:`polars_graded.scale.parquet.reading`).

    Examples
    --------
    >>> path = getfixture("tmp_path") / "broken.parquet"
    >>> _ = path.write_bytes(b"not Parquet")
    >>> with reading(str(path)):
    ...     pl.scan_parquet(path).collect()
    Traceback (most recent call last):
    ...
    polars_graded.errors.InputFileError: ...broken.parquet is not a readable Parquet file (...)
    """
    if table is not None and is_parquet(Path(table)):
        return parquet.reading(table)
    return contextlib.nullcontext()


def existing(path: Path) -> Path:
    """``path`` itself; a file that does not exist is a :class:`CommandError`.

    Glob patterns (``runs/*.csv``, ``runs/**/*.csv``) must match a file; Polars expands them.

    Examples
    --------
    >>> existing(Path("nowhere.txt"))
    Traceback (most recent call last):
    ...
    polars_graded.cli.common.CommandError: no such file: nowhere.txt
    """
    if parquet.is_glob(str(path)):
        if not glob.glob(str(path), recursive=True):
            msg = f"no file matches {path}"
            raise CommandError(msg)
    elif not path.is_file():
        msg = f"no such file: {path}"
        raise CommandError(msg)
    return path


def check_folder(folder: Path, what: str) -> None:
    """Raise unless ``folder`` is an existing directory we may create files in.

    Examples
    --------
    >>> check_folder(getfixture("tmp_path"), "-o")  # a folder we may write in: no error
    >>> check_folder(Path("no/such"), "-o")
    Traceback (most recent call last):
    ...
    polars_graded.cli.common.CommandError: -o: the folder 'no/such' does not exist
    """
    if not folder.is_dir():
        reason = "is not a folder" if folder.exists() else "does not exist"
        msg = f"{what}: the folder {str(folder)!r} {reason}"
        raise CommandError(msg)
    if not os.access(folder, os.W_OK | os.X_OK):
        msg = f"{what}: permission denied in the folder {str(folder)!r}"
        raise CommandError(msg)


def systems_table(
    args: argparse.Namespace, spec: TableSpec
) -> tuple[pl.LazyFrame | pl.DataFrame, str]:
    """The long table with its system column (TABLE, or the TREC files joined, one system per
    run), and a line saying where it came from: the input of ``report`` and ``gate``.

    Examples
    --------
    >>> folder = getfixture("tmp_path")
    >>> pl.DataFrame({"system": ["a"], "query": ["1"], "item": ["d"], "score": [1.0],
    ...               "relevance": [1]}).write_parquet(folder / "t.parquet")
    >>> args = argparse.Namespace(table=str(folder / "t.parquet"), run=None, qrels=None,
    ...                           queries=None)
    >>> frame, source = systems_table(args, TableSpec(by=("system",)))
    >>> frame.collect().height, source.endswith("t.parquet.")
    (1, True)
    """
    if reads_table(args):
        keys, numbers = [*spec.keys, spec.item], [spec.score, spec.relevance]
        frame = read_table(Path(args.table), keys, numbers=numbers)
        return frame, f"Input: {args.table}."
    if column_options(args) or args.by != SYSTEM:
        msg = f"--by/--system/{COLUMN_FLAGS} name columns of a TABLE, not of TREC files"
        raise CommandError(msg)
    files = trec_files(args)
    table = trec_table(files.runs, files.qrels, queries=files.queries)
    source = (
        f"Input: {len(args.run)} TREC run file(s), qrels {files.qrels} (queries: {files.queries})."
    )
    return table, source
