"""``polars-graded trec-eval``: trec_eval's command line, printing exactly what trec_eval prints.

``polars-graded trec-eval [-q] [-c] [-J] [-M N] [-l N] [-m MEASURE[.params]]... QRELS RUN``
reads a TREC qrels file and a run (a TREC run file, or Parquet with the run's columns) and
prints trec_eval 10.0's lines, ``measure<TAB>query-or-all<TAB>value``: the same names, order,
spacing and digits, so that scripts parsing trec_eval's output keep working.

trec_eval's measure names map to the registry through each measure's declared trec_eval
template (:func:`polars_graded.measures.registry.trec_eval_templates`): ``{r}`` becomes
``""`` or ``"(rel=N)"`` (``-l N``), ``{k}`` a cutoff (``P_10``), a level (``Rprec_mult_0.20``
gets ``0.2``) or the parameter text given after the dot (``utility.2,-1,0,0``). A measure of
trec_eval's that no registered measure declares is skipped with one line on stderr, never
printed with another measure's number. This module holds what is trec_eval's own: its table
of measures (order, parameter kinds, defaults), its nicknames, its summary rules (counts
summed, ``gm_*`` geometric) and the text-only ``runid`` and ``relstring``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import polars as pl

from polars_graded.api import evaluate
from polars_graded.cli.common import PROG, Command, CommandError, is_parquet, read_table
from polars_graded.errors import GradedError
from polars_graded.io.trec import join_run_qrels, read_trec_qrels, read_trec_run
from polars_graded.measures import Measure, parse_measure
from polars_graded.measures.registry import trec_eval_templates
from polars_graded.options import TableSpec
from polars_graded.plan import GEOMETRIC_FLOOR
from polars_graded.ranking import sort_ranked

Kind = Literal[
    "runid", "num_q", "single", "geometric", "cutoffs", "levels", "params", "gains", "relstring"
]
"""How trec_eval reads a measure's parameters and names its lines: ``cutoffs`` (whole
numbers, one line each, ``P_10``), ``levels`` (numbers, one line each, ``Rprec_mult_0.20``),
``params`` (one line, ``utility_2,-1,0,0`` when given), ``gains`` (``label=gain`` pairs, one
line), ``single`` (no parameters), ``geometric`` (the geometric mean of another measure,
summary only), and the text-only ``runid``, ``num_q`` and ``relstring``."""

Summary = Literal["mean", "sum", "geometric"]
"""How a line's ``all`` value is made from its per-query values."""

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_TENTHS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class TrecMeasure:
    """One entry of trec_eval's measure table.

    Examples
    --------
    >>> TABLE["P"].kind, TABLE["P"].defaults[:2]
    ('cutoffs', (5, 10))
    """

    name: str
    kind: Kind
    defaults: tuple[float, ...] = ()
    of: str = ""
    """For ``geometric``: the trec_eval measure whose values it averages."""
    default_params: str | None = None
    """For ``params``: trec_eval's default parameters, for a template that needs them."""


TABLE: dict[str, TrecMeasure] = {
    m.name: m
    for m in (
        TrecMeasure("runid", "runid"),
        TrecMeasure("num_q", "num_q"),
        TrecMeasure("num_ret", "single"),
        TrecMeasure("num_rel", "single"),
        TrecMeasure("num_rel_ret", "single"),
        TrecMeasure("map", "single"),
        TrecMeasure("gm_map", "geometric", of="map"),
        TrecMeasure("Rprec", "single"),
        TrecMeasure("bpref", "single"),
        TrecMeasure("recip_rank", "single"),
        TrecMeasure("iprec_at_recall", "levels", _TENTHS),
        TrecMeasure("P", "cutoffs", _CUTOFFS),
        TrecMeasure("relstring", "relstring", (10,)),
        TrecMeasure("recall", "cutoffs", _CUTOFFS),
        TrecMeasure("infAP", "single"),
        TrecMeasure("gm_bpref", "geometric", of="bpref"),
        TrecMeasure("Rprec_mult", "levels", tuple(i / 5 for i in range(1, 11))),
        TrecMeasure("utility", "params", default_params="1,-1,0,0"),
        TrecMeasure("11pt_avg", "params", default_params=",".join(f"{k:g}" for k in _TENTHS)),
        TrecMeasure("binG", "single"),
        TrecMeasure("G", "gains"),
        TrecMeasure("ndcg", "gains"),
        TrecMeasure("ndcg_rel", "gains"),
        TrecMeasure("Rndcg", "gains"),
        TrecMeasure("ndcg_cut", "cutoffs", _CUTOFFS),
        TrecMeasure("map_cut", "cutoffs", _CUTOFFS),
        TrecMeasure("relative_P", "cutoffs", _CUTOFFS),
        TrecMeasure("success", "cutoffs", (1, 5, 10)),
        TrecMeasure("set_P", "single"),
        TrecMeasure("set_relative_P", "single"),
        TrecMeasure("set_recall", "single"),
        TrecMeasure("set_map", "single"),
        TrecMeasure("set_F", "params"),
        TrecMeasure("num_nonrel_judged_ret", "single"),
        TrecMeasure("rbp", "params"),
        TrecMeasure("rbp_resid", "params"),
        TrecMeasure("unj", "cutoffs", (5, 10, 20)),
    )
}
"""trec_eval 10.0's measures in its printing order (``measures.c``), with their defaults."""

_OFFICIAL: tuple[str, ...] = (
    *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec"),
    *("bpref", "recip_rank", "iprec_at_recall", "P"),
)
_SET: tuple[str, ...] = (
    *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P"),
    *("set_recall", "set_relative_P", "set_map", "set_F"),
)
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": _SET,
    "all_trec": tuple(TABLE),
}
"""trec_eval's names for sets of measures; without ``-m`` it prints ``official``."""

_WIDTH = 22
"""trec_eval prints the measure name left-justified to this width."""


# --------------------------------------------------------------------------- the request


@dataclass(frozen=True)
class Request:
    """The trec_eval measures asked for, each with its parameter text (``None``: defaults).

    Examples
    --------
    >>> Request.of(["P.5,10", "map"]).params
    {'map': None, 'P': '5,10'}
    """

    params: dict[str, str | None]

    @classmethod
    def of(cls, values: Sequence[str] | None) -> Request:
        """The measures of the ``-m`` values, in trec_eval's table order; a usage error for
        a name trec_eval does not know."""
        asked: dict[str, str | None] = {}
        for value in values or ["official"]:
            name, dot, params = value.partition(".")
            if name in NICKNAMES and not dot:
                for member in NICKNAMES[name]:
                    asked.setdefault(member, None)
                continue
            if name not in TABLE:
                known = ", ".join([*NICKNAMES, *TABLE])
                msg = f"unknown trec_eval measure {name!r} in -m {value}; known: {known}"
                raise CommandError(msg)
            if dot and TABLE[name].kind in ("runid", "num_q", "single", "geometric"):
                msg = f"trec_eval measure {name!r} takes no parameters (-m {value})"
                raise CommandError(msg)
            # the first parameters given win, as in trec_eval
            if asked.get(name) is None:
                asked[name] = params if dot else None
        return cls({name: asked[name] for name in TABLE if name in asked})


@dataclass(frozen=True)
class Line:
    """One line per query (and one ``all`` line) of the output: its printed name and the
    measure computing it; ``summary`` says how the ``all`` value is made.

    Examples
    --------
    >>> Line("P_10", parse_measure("p@10"), "mean").printed
    'P_10'
    """

    printed: str
    measure: Measure
    summary: Summary

    @property
    def column(self) -> str:
        """The column of the per-query values: the measure's canonical name."""
        return str(self.measure)

    @property
    def per_query(self) -> bool:
        """trec_eval prints no per-query line for a geometric mean."""
        return self.summary != "geometric"


def whole_number(text: str, value: str) -> int:
    """A cutoff as trec_eval reads it: the leading whole number (``23.4`` is 23).

    Examples
    --------
    >>> whole_number("23.4", "ndcg_cut.23.4")
    23
    """
    found = re.match(r"\s*[+-]?\d+", text)
    if found is None:
        msg = f"trec_eval cutoff {text!r} is not a number (-m {value})"
        raise CommandError(msg)
    return int(found[0])


def cutoffs(params: str, value: str) -> tuple[int, ...]:
    """Sorted whole-number cutoffs, each at least 1 and given once, as trec_eval checks them.

    Examples
    --------
    >>> cutoffs("5,7,3", "P.5,7,3")
    (3, 5, 7)
    """
    found = sorted(whole_number(text, value) for text in params.split(","))
    if found[0] <= 0 or len(set(found)) < len(found):
        msg = f"trec_eval cutoffs must be positive and distinct (-m {value})"
        raise CommandError(msg)
    return tuple(found)


def levels(params: str, value: str) -> tuple[float, ...]:
    """Sorted distinct numbers (``.10,.20``), as trec_eval reads float cutoffs.

    Examples
    --------
    >>> levels(".5,.25", "iprec_at_recall..5,.25")
    (0.25, 0.5)
    """
    try:
        found = sorted(float(text) for text in params.split(","))
    except ValueError:
        msg = f"trec_eval parameters {params!r} are not numbers (-m {value})"
        raise CommandError(msg) from None
    if len(set(found)) < len(found):
        msg = f"trec_eval cutoffs must be distinct (-m {value})"
        raise CommandError(msg)
    return tuple(found)


def gains(params: str, value: str) -> dict[int, float]:
    """``label=gain`` pairs (``1=3,2=9``), as trec_eval's ndcg reads them.

    Examples
    --------
    >>> gains("1=3,2=9,4=4.5", "ndcg.1=3,2=9,4=4.5")
    {1: 3.0, 2: 9.0, 4: 4.5}
    """
    try:
        pairs = (pair.split("=") for pair in params.split(","))
        return {int(label): float(gain) for label, gain in pairs}
    except ValueError:
        msg = f"trec_eval expects label=gain pairs, got {params!r} (-m {value})"
        raise CommandError(msg) from None


def _number_text(value: float) -> str:
    """A level as a measure string writes it (0.2, 1)."""
    return f"{value:g}"


class Resolver:
    """Turns trec_eval measures into output lines through the registry's templates.

    Examples
    --------
    >>> resolver = Resolver(level=2)
    >>> [line.printed for line in resolver.lines(TABLE["P"], "10")]
    ['P_10']
    >>> str(resolver.lines(TABLE["P"], "10")[0].measure)
    'p(rel=2)@10'
    """

    def __init__(self, level: int) -> None:
        self.level = level
        self.templates = trec_eval_templates()

    def measure(self, name: str, k: object = None) -> Measure | None:
        """The registered measure of trec_eval's ``name`` (``k`` its parameter), or None."""
        template = self.templates.get(name)
        if template is None or ("{k}" in template) != (k is not None):
            return None
        r = "" if self.level == 1 else f"(rel={self.level})"
        try:
            measure = parse_measure(template.format(r=r, k=k))
        except GradedError:
            return None
        if r and "{r}" not in template and _has(measure, "rel"):
            # A template with parameters of its own has no place for {r}: set the level here.
            return measure(rel=self.level)
        return measure

    def lines(self, tm: TrecMeasure, params: str | None) -> list[Line] | None:
        """The output lines of ``tm`` with its ``-m`` parameters; None if not available."""
        value = f"{tm.name}.{params}" if params is not None else tm.name
        if tm.kind in ("cutoffs", "levels"):
            if tm.kind == "cutoffs":
                points: Sequence[float] = tm.defaults if params is None else cutoffs(params, value)
                names = [f"{tm.name}_{int(k)}" for k in points]
                texts = [str(int(k)) for k in points]
            else:
                points = tm.defaults if params is None else levels(params, value)
                names = [f"{tm.name}_{k:3.2f}" for k in points]
                texts = [_number_text(k) for k in points]
            measures = [self.measure(tm.name, text) for text in texts]
            return _all_or_none(names, measures, "mean")
        if tm.kind == "geometric":
            return _all_or_none([tm.name], [self.measure(tm.of)], "geometric")
        printed = tm.name if params is None else f"{tm.name}_{params}"
        if tm.kind == "gains" and params is not None:
            base = self.measure(tm.name)
            given = gains(params, value)
            measure = base(gain=given) if base is not None and _has(base, "gain") else None
        else:
            measure = self.measure(tm.name, params)
            if measure is None and params is None and tm.default_params is not None:
                measure = self.measure(tm.name, tm.default_params)
        summary: Summary = "sum" if measure is not None and measure.declaration.counts else "mean"
        return _all_or_none([printed], [measure], summary)


def _has(measure: Measure, parameter: str) -> bool:
    return parameter in {f.name for f in dataclasses.fields(measure)}


def _all_or_none(
    names: Sequence[str], measures: Sequence[Measure | None], summary: Summary
) -> list[Line] | None:
    """A line per name, or None when any of the measures is not available."""
    found = [m for m in measures if m is not None]
    if len(found) < len(measures):
        return None
    return [Line(n, m, summary) for n, m in zip(names, found, strict=True)]


# --------------------------------------------------------------------------- the evaluation


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


def read_inputs(args: argparse.Namespace) -> Inputs:
    """Read QRELS and RUN and join them as trec_eval pairs them (``-c``: every judged query)."""
    run = read_run(Path(args.run))
    qrels = read_trec_qrels(Path(args.qrels))
    runid = str(run.get_column("tag")[0]) if "tag" in run.columns and run.height else ""
    table = join_run_qrels(run, qrels, queries="qrels" if args.c else "both")
    spec = TableSpec(judged_only=args.J, depth=args.M)
    return Inputs(table, runid, spec)


def relstring(inputs: Inputs, length: int) -> dict[str, str]:
    """trec_eval's ``relstring``: the labels of each query's first ``length`` ranked rows,
    one character each (``-`` unjudged, ``.`` labelled -1, ``>`` above 9, ``<`` below -1).

    Examples
    --------
    >>> table = pl.DataFrame({"query": ["1", "1"], "item": ["a", "b"], "score": [2.0, 1.0],
    ...                       "relevance": [None, 12]})
    >>> relstring(Inputs(table, "", TableSpec()), 10)
    {'1': '->'}
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
        kept = [label for label in labels if label is not None or not spec.judged_only]
        strings[query] = "".join(_label_char(label) for label in kept[:length])
    return strings


def _label_char(label: int | None) -> str:
    if label is None:
        return "-"
    if label > 9:
        return ">"
    if label >= 0:
        return str(label)
    return "." if label == -1 else "<"


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
    inputs = read_inputs(args)
    flat = [line for group in lines.values() for line in group]
    measures = list({line.column: line.measure for line in flat}.values())
    if measures:
        per_query = evaluate(inputs.table, measures, **inputs.spec.options())
    else:  # runid, num_q or relstring only
        per_query = inputs.table.select("query").unique().sort("query")
    queries = per_query.get_column("query").to_list()
    if args.q:
        printed, strings = _relstrings(inputs, request.params)
        for i, query in enumerate(queries):
            for name in request.params:
                if name == "relstring":
                    write(output(printed, query, f"'{strings.get(query, '')}'"))
                for line in lines.get(name, []):
                    if line.per_query:
                        write(output(line.printed, query, per_query.item(i, line.column)))
    special = {"runid": inputs.runid, "num_q": len(queries)}
    for name in request.params:
        if name in special:
            write(output(name, "all", special[name]))
        for line in lines.get(name, []):
            value = summarize(per_query.get_column(line.column), line.summary)
            write(output(line.printed, "all", value))


def resolve(request: Request, resolver: Resolver) -> dict[str, list[Line]]:
    """The lines of each requested measure that polars_graded computes; one line on stderr
    for each other one (but the text-only ``runid``, ``num_q`` and ``relstring``)."""
    lines: dict[str, list[Line]] = {}
    for name, params in request.params.items():
        if TABLE[name].kind in ("runid", "num_q", "relstring"):
            continue
        found = resolver.lines(TABLE[name], params)
        if found is not None:
            lines[name] = found
            continue
        shown = name if params is None else f"{name}.{params}"
        print(f"{PROG} trec-eval: {shown} is not available yet; skipped", file=sys.stderr)
    return lines


def _relstrings(inputs: Inputs, params: dict[str, str | None]) -> tuple[str, dict[str, str]]:
    """The printed name of ``relstring`` and its text per query (none if not asked for)."""
    if "relstring" not in params:
        return "", {}
    given = params["relstring"]
    if given is None:
        return "relstring", relstring(inputs, int(TABLE["relstring"].defaults[0]))
    return f"relstring_{given}", relstring(inputs, whole_number(given, f"relstring.{given}"))


# --------------------------------------------------------------------------- the command


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
