"""Reading QRELS and RUN, evaluating the lines and printing them as trec_eval does.

The output is trec_eval 10.0's lines, ``measure<TAB>query-or-all<TAB>value``: the same names,
order, spacing and digits (:func:`output`), its summary rules (counts summed, ``gm_*``
geometric: :func:`summarize`) and the text-only ``runid`` (:func:`run_tag`) and
``relstring`` (:func:`relstring`). No printed field (a query id, the run's tag, a parameter
text) can hold a tab, a line break or another separator (:func:`one_field`), so no input can
add or split a line of the output.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from polars_graded.api import evaluate_spec
from polars_graded.cli.inputs import is_parquet, read_table
from polars_graded.cli.trec_eval.lines import Line, Resolver, resolve
from polars_graded.cli.trec_eval.measures import Request, relstring_length
from polars_graded.errors import InvalidValueError
from polars_graded.io.trec import join_run_qrels, read_trec_qrels, read_trec_run
from polars_graded.options import TableSpec
from polars_graded.plan import GEOMETRIC_FLOOR
from polars_graded.ranking import sort_ranked

_WIDTH = 22
"""trec_eval prints the measure name left-justified to this width."""


@dataclass(frozen=True)
class Inputs:
    """The long table of a qrels file and a run, with the run's id and the table spec."""

    table: pl.DataFrame
    runid: str
    spec: TableSpec


def read_run(path: Path) -> pl.DataFrame:
    """A TREC run file, or a Parquet table with its columns (``query``, ``item``, ``score``
    and, optionally, ``tag``); query and item as text, as in a qrels file.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "run.parquet"
    >>> pl.DataFrame({"query": [1], "item": [7], "score": [0.5]}).write_parquet(path)
    >>> read_run(path).rows()
    [('1', '7', 0.5)]
    """
    if not is_parquet(path):
        return read_trec_run(path)
    run = read_table(path).collect()
    return run.with_columns(pl.col("query", "item").cast(pl.String))


def one_field(text: str, what: str) -> str:
    """``text``, if it prints as one field of a trec_eval line: not empty, and without a
    space, a tab, a line break, a control character or a Unicode separator (Python's
    ``splitlines`` splits at some of those), which would let a name forge or split lines.

    Examples
    --------
    >>> one_field("bm25", "the run's tag")
    'bm25'
    >>> one_field("a\\nmap", "the run's tag")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: the run's tag 'a\\nmap' cannot be printed ...
    """
    if text and text.isprintable() and " " not in text:
        return text
    msg = (
        f"{what} {text!r} cannot be printed as one field of trec_eval's output: it is "
        "empty or holds whitespace, a line break, a control character or a separator"
    )
    raise InvalidValueError(msg)


def run_tag(run: pl.DataFrame, path: Path) -> str:
    """trec_eval's ``runid``: the tag of the run's last row, as trec_eval keeps the last
    line's; ``""`` for a Parquet run without a ``tag`` column. A null or unprintable tag
    there is an error naming the row (trec_eval refuses a line without a tag).

    Examples
    --------
    >>> run_tag(pl.DataFrame({"tag": ["first", "last"]}), Path("run.parquet"))
    'last'
    """
    if "tag" not in run.columns or run.height == 0:
        return ""
    tag = run.get_column("tag")[-1]
    where = f"row {run.height}, the run's last," if is_parquet(path) else "the run's last line"
    if tag is None:
        msg = (
            f"{path}: {where} has a null tag; trec_eval prints the last line's tag as "
            "runid: give that row a tag, or drop the tag column"
        )
        raise InvalidValueError(msg)
    return one_field(str(tag), f"{path}: the tag of {where} printed as runid,")


def read_inputs(args: argparse.Namespace, *, runid: bool = True) -> Inputs:
    """Read QRELS and RUN and join them as trec_eval pairs them (``-c``: every judged query);
    ``runid``: the run's tag is printed, so check it."""
    path = Path(args.run)
    run = read_run(path)
    qrels = read_trec_qrels(Path(args.qrels))
    tag = run_tag(run, path) if runid else ""
    table = join_run_qrels(run, qrels, queries="qrels" if args.c else "both")
    spec = TableSpec(judged_only=args.J, depth=args.M, compat=args.compat)
    return Inputs(table, tag, spec)


def relstring(inputs: Inputs, length: int) -> dict[str, str]:
    """trec_eval's ``relstring``: the labels of each query's first ``length`` ranked rows,
    one character each (``-`` not in the qrels, ``.`` any negative label, which trec_eval
    reads as "in the pool but unjudged", ``>`` above 9; trec_eval's ``<`` cannot occur).

    Examples
    --------
    >>> table = pl.DataFrame({"query": ["1"] * 4, "item": ["a", "b", "c", "d"],
    ...                       "score": [4.0, 3.0, 2.0, 1.0], "relevance": [None, 12, -1, -3]})
    >>> relstring(Inputs(table, "", TableSpec()), 10)
    {'1': '->..'}
    """
    spec = inputs.spec
    ranked = sort_ranked(inputs.table.lazy().filter(pl.col("score").is_not_null()), spec)
    rows = (
        ranked.collect()
        .group_by("query", maintain_order=True)
        .agg(pl.col("relevance").head(spec.depth) if spec.depth else pl.col("relevance"))
    )
    strings = dict.fromkeys(inputs.table.get_column("query").unique().to_list(), "")
    for query, labels in rows.iter_rows():
        # -J: trec_eval keeps the labels >= 0, after the cut of -M
        kept = [x for x in labels if x is not None and x >= 0] if spec.judged_only else labels
        strings[query] = "".join(_label_char(label) for label in kept[:length])
    return strings


def _label_char(label: int | None) -> str:
    if label is None:
        return "-"
    if label < 0:
        return "."
    return ">" if label > 9 else str(label)


def summarize(values: pl.Series, summary: str) -> float:
    """The ``all`` value of a column of per-query values, summed in query order as
    trec_eval does (its geometric mean counts values below 1e-5 as 1e-5).

    Examples
    --------
    >>> summarize(pl.Series([0.5, 1.0]), "mean"), summarize(pl.Series([2, 3]), "sum")
    (0.75, 5)
    """
    if summary == "sum":
        return int(values.sum())
    n = values.len()
    if n == 0:
        return 0.0
    if summary == "geometric":
        logs = (math.log(max(v, GEOMETRIC_FLOOR)) for v in values.to_list())
        return math.exp(_in_order(logs) / n)
    return _in_order(values.to_list()) / n


def _in_order(values: Iterator[float] | list[float]) -> float:
    """Left to right, as trec_eval adds (``sum`` of floats compensates from Python 3.12)."""
    total = 0.0
    for v in values:
        total += v
    return total


def output(printed: str, query: str, value: object) -> str:
    """One line as trec_eval prints it: floats with 4 decimals, counts and text as they are.

    Examples
    --------
    >>> output("P_10", "all", 0.3)
    'P_10                  \\tall\\t0.3000'
    """
    text = f"{value:6.4f}" if isinstance(value, float) else str(value)
    return f"{printed:<{_WIDTH}}\t{query}\t{text}"


def report(args: argparse.Namespace, write: Callable[[str], object]) -> None:
    """Evaluate and write every line, as trec_eval orders them: per query (``-q``) each
    query's lines, then the ``all`` lines, each in trec_eval's table order."""
    request = Request.of(args.m)
    lines = resolve(request, Resolver(args.l))
    inputs = read_inputs(args, runid="runid" in request.params)
    # each line with its column, named once (str(measure) is not free, and lines are many)
    named = {name: [(line, line.column) for line in group] for name, group in lines.items()}
    measures = {column: line.measure for group in named.values() for line, column in group}
    if measures:
        per_query = evaluate_spec(inputs.table, list(measures.values()), inputs.spec)
    else:  # runid, num_q or relstring only
        per_query = inputs.table.select("query").unique().sort("query")
    if args.q:
        _write_per_query(request, inputs, per_query, named, write)
    special = {"runid": inputs.runid, "num_q": per_query.height}
    for name in request.params:
        if name in special:
            write(output(name, "all", special[name]))
        for line, column in named.get(name, []):
            value = summarize(per_query.get_column(column), line.summary)
            write(output(line.printed, "all", value))


def _write_per_query(
    request: Request,
    inputs: Inputs,
    per_query: pl.DataFrame,
    named: dict[str, list[tuple[Line, str]]],
    write: Callable[[str], object],
) -> None:
    """Each query's lines (``-q``), in trec_eval's table order; a query id that cannot be
    printed as one field is an error, before any line is written."""
    queries = [one_field(query, "query id") for query in per_query.get_column("query")]
    shown = {
        name: [
            (line.printed, per_query.get_column(column).to_list())
            for line, column in group
            if line.per_query
        ]
        for name, group in named.items()
    }
    printed_relstring, strings = _relstrings(inputs, request.params)
    for i, query in enumerate(queries):
        for name in request.params:
            if name == "relstring":
                write(output(printed_relstring, query, f"'{strings.get(query, '')}'"))
            for printed, values in shown.get(name, []):
                write(output(printed, query, values[i]))


def _relstrings(inputs: Inputs, params: dict[str, str | None]) -> tuple[str, dict[str, str]]:
    """The printed name of ``relstring`` and its text per query (none if not asked for)."""
    if "relstring" not in params:
        return "", {}
    given = params["relstring"]
    printed = "relstring" if given is None else f"relstring_{given}"
    return printed, relstring(inputs, relstring_length(given, f"relstring.{given}"))
