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

Parameter text is read strictly, as numbers of trec_eval's kind for each measure, and checked
by the measure it builds; anything else (``utility.abc``, ``iprec_at_recall.nan``,
``Rprec_mult.-1``, ``relstring.-2``, ``rbp.q=1``) is a usage error, never a skipped or
cut-down line. Only checked numbers reach a measure string, and no printed field (a query
id, the run's tag, a parameter text) can hold a tab, a line break or another separator, so
no input can add or split a line of the output.
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
from polars_graded.cli.common import (
    PROG,
    Command,
    CommandError,
    add_compat_option,
    is_parquet,
    read_table,
)
from polars_graded.errors import GradedError, InvalidValueError
from polars_graded.io.trec import join_run_qrels, read_trec_qrels, read_trec_run
from polars_graded.measures import Measure, parse_measure
from polars_graded.measures.base import format_number
from polars_graded.measures.registry import trec_eval_templates
from polars_graded.options import TableSpec
from polars_graded.plan import GEOMETRIC_FLOOR
from polars_graded.ranking import sort_ranked

Kind = Literal[
    "runid",
    "num_q",
    "single",
    "geometric",
    "cutoffs",
    "levels",
    "numbers",
    "number",
    "pairs",
    "gains",
    "relstring",
]
"""How trec_eval reads a measure's parameters and names its lines: ``cutoffs`` (whole
numbers, one line each, ``P_10``), ``levels`` (numbers, one line each, ``Rprec_mult_0.20``),
``numbers`` (a list of numbers, one line, ``utility_2,-1,0,0``), ``number`` (one number, one
line, ``set_F_2``), ``pairs`` (``name=number``, one line, ``rbp_p=0.8``), ``gains``
(``label=gain`` pairs, one line, ``ndcg_1=3,2=9``), ``single`` (no parameters),
``geometric`` (the geometric mean of another measure, summary only), and the text-only
``runid``, ``num_q`` and ``relstring`` (a length)."""

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
    """For ``numbers``: trec_eval's default parameters, for a template that needs them."""
    count: int | None = None
    """For ``numbers``: how many trec_eval requires (``utility``: 4); ``None``: one or more."""
    keyword: str = ""
    """For ``number``: our measure's parameter it sets; for ``pairs``: the one name trec_eval
    reads (``p``), which sets our parameter of the same name."""


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
        TrecMeasure("utility", "numbers", default_params="1,-1,0,0", count=4),
        TrecMeasure(
            "11pt_avg", "numbers", default_params=",".join(format_number(k) for k in _TENTHS)
        ),
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
        TrecMeasure("set_F", "number", keyword="beta"),
        TrecMeasure("num_nonrel_judged_ret", "single"),
        TrecMeasure("rbp", "pairs", keyword="p"),
        TrecMeasure("rbp_resid", "pairs", keyword="p"),
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

# Numbers as C's atof reads them, but strictly: decimal digits only (no nan, inf, hex,
# spaces or underscores, which Python's float() would take), so that only checked text
# ever reaches a measure string or a printed name.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
# A cutoff: trec_eval reads the leading whole number (its own test gives ndcg_cut.23.4).
_WHOLE = re.compile(r"([+-]?\d+)(?:\.\d*)?")
_LABEL = re.compile(r"\+?\d+")


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


# --------------------------------------------------------------------------- parameter text


def number(text: str, value: str) -> float:
    """A finite number written in decimal (``.25``, ``-1``, ``1e-3``), as trec_eval's atof
    reads one; ``nan``, ``inf``, ``abc`` or an empty text is a usage error.

    Examples
    --------
    >>> number(".25", "iprec_at_recall..25")
    0.25
    """
    found = float(text) if _NUMBER.fullmatch(text) else math.nan
    if not math.isfinite(found):  # also 1e999, which reads as inf
        msg = f"trec_eval parameter {text!r} is not a finite number (-m {value})"
        raise CommandError(msg)
    return found


def whole_number(text: str, value: str) -> int:
    """A cutoff as trec_eval reads it: the leading whole number (``23.4`` is 23).

    Examples
    --------
    >>> whole_number("23.4", "ndcg_cut.23.4")
    23
    """
    found = _WHOLE.fullmatch(text)
    if found is None:
        msg = f"trec_eval parameter {text!r} is not a whole number (-m {value})"
        raise CommandError(msg)
    return int(found[1])


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
    """Sorted distinct numbers (``.10,.20``), as trec_eval reads float cutoffs; their range
    is the measure's to check.

    Examples
    --------
    >>> levels(".5,.25", "iprec_at_recall..5,.25")
    (0.25, 0.5)
    """
    found = sorted(number(text, value) for text in params.split(","))
    if len(set(found)) < len(found):
        msg = f"trec_eval cutoffs must be distinct (-m {value})"
        raise CommandError(msg)
    return tuple(found)


def numbers(params: str, value: str, count: int | None = None) -> tuple[float, ...]:
    """The numbers of a parameter list, in order (``count``: exactly so many).

    Examples
    --------
    >>> numbers("2,-1,0,0", "utility.2,-1,0,0", 4)
    (2.0, -1.0, 0.0, 0.0)
    """
    found = tuple(number(text, value) for text in params.split(","))
    if count is not None and len(found) != count:
        msg = f"trec_eval expects {count} numbers, got {len(found)} (-m {value})"
        raise CommandError(msg)
    return found


def gains(params: str, value: str) -> dict[int, float]:
    """``label=gain`` pairs (``1=3,2=9``), as trec_eval's ndcg reads them; labels are whole
    numbers >= 0, each given once (trec_eval would give a negative label's gain to rows
    outside the qrels).

    Examples
    --------
    >>> gains("1=3,2=9,4=4.5", "ndcg.1=3,2=9,4=4.5")
    {1: 3.0, 2: 9.0, 4: 4.5}
    """
    found: dict[int, float] = {}
    for pair in params.split(","):
        label, equals, gain = pair.partition("=")
        if not equals or not _LABEL.fullmatch(label) or int(label) in found:
            msg = (
                "trec_eval expects label=gain pairs, each label a whole number >= 0 given "
                f"once, got {pair!r} (-m {value})"
            )
            raise CommandError(msg)
        found[int(label)] = number(gain, value)
    return found


def pairs(params: str, value: str, tm: TrecMeasure) -> dict[str, float]:
    """``name=number`` pairs of ``rbp`` and ``rbp_resid``: ``p=0.8``, the persistence, is
    the one name they read (``rbp``'s ``label=gain`` pairs are not supported: trec_eval
    10.0 scales them with uninitialised variables).

    Examples
    --------
    >>> pairs("p=0.8", "rbp.p=0.8", TABLE["rbp"])
    {'p': 0.8}
    """
    found: dict[str, float] = {}
    for pair in params.split(","):
        name, equals, text = pair.partition("=")
        if not equals or name != tm.keyword or name in found:
            msg = f"trec_eval measure {tm.name!r} takes one {tm.keyword}=number here (-m {value})"
            raise CommandError(msg)
        found[name] = number(text, value)
    return found


def relstring_length(params: str | None, value: str) -> int:
    """How many rows ``relstring`` shows: trec_eval's default 10, or a whole number >= 1.

    Examples
    --------
    >>> relstring_length("20", "relstring.20"), relstring_length(None, "relstring")
    (20, 10)
    """
    if params is None:
        return int(TABLE["relstring"].defaults[0])
    length = whole_number(params, value)
    if length < 1:
        msg = f"trec_eval relstring's length must be at least 1 (-m {value})"
        raise CommandError(msg)
    return length


# --------------------------------------------------------------------------- the measures


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

    def measure(self, name: str, k: str | None = None) -> Measure | None:
        """The registered measure of trec_eval's ``name`` (``k`` its checked parameter text),
        or None if no measure declares it."""
        template = self.templates.get(name)
        if template is None or ("{k}" in template) != (k is not None):
            return None
        r = "" if self.level == 1 else f"(rel={self.level})"
        measure = parse_measure(template.format(r=r, k=k))
        if r and "{r}" not in template and _has(measure, "rel"):
            # A template with parameters of its own has no place for {r}: set the level here.
            return measure(rel=self.level)
        return measure

    def lines(self, tm: TrecMeasure, params: str | None) -> list[Line] | None:
        """The output lines of ``tm`` with its ``-m`` parameters; None if not available; a
        usage error for parameters trec_eval or the measure would not take."""
        value = f"{tm.name}.{params}" if params is not None else tm.name
        try:
            return self._lines(tm, params, value)
        except GradedError as error:  # the measure's own check of a number
            msg = f"bad parameter in -m {value}: {error}"
            raise CommandError(msg) from None

    def _lines(self, tm: TrecMeasure, params: str | None, value: str) -> list[Line] | None:
        if tm.kind in ("cutoffs", "levels"):
            if tm.kind == "cutoffs":
                points: Sequence[float] = tm.defaults if params is None else cutoffs(params, value)
                names = [f"{tm.name}_{int(k)}" for k in points]
                texts = [str(int(k)) for k in points]
            else:
                points = tm.defaults if params is None else levels(params, value)
                names = [f"{tm.name}_{k:3.2f}" for k in points]
                texts = [format_number(k) for k in points]
            measures = [self.measure(tm.name, text) for text in texts]
            return _all_or_none(names, measures, "mean")
        if tm.kind == "geometric":
            return _all_or_none([tm.name], [self.measure(tm.of)], "geometric")
        # the parameter text is printed as given, as trec_eval does, once checked
        printed = tm.name if params is None else f"{tm.name}_{params}"
        measure = self._with_params(tm, params, value)
        summary: Summary = "sum" if measure is not None and measure.declaration.counts else "mean"
        return _all_or_none([printed], [measure], summary)

    def _with_params(self, tm: TrecMeasure, params: str | None, value: str) -> Measure | None:
        """The measure of a one-line trec_eval measure, with its checked parameters."""
        if params is None:
            measure = self.measure(tm.name)
            if measure is None and tm.default_params is not None:
                measure = self.measure(tm.name, tm.default_params)
            return measure
        if tm.kind == "numbers":
            found = numbers(params, value, tm.count)
            return self.measure(tm.name, ",".join(format_number(x) for x in found))
        given: dict[str, object]
        if tm.kind == "number":
            given = {tm.keyword: number(params, value)}
        elif tm.kind == "pairs":
            given = dict(pairs(params, value, tm))
        else:
            given = {"gain": gains(params, value)}
        base = self.measure(tm.name)
        if base is None or not all(_has(base, name) for name in given):
            return None
        return base(**given)


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
        per_query = evaluate(inputs.table, list(measures.values()), **inputs.spec.options())
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


def resolve(request: Request, resolver: Resolver) -> dict[str, list[Line]]:
    """The lines of each requested measure that polars_graded computes; one line on stderr
    for each other one (but the text-only ``runid``, ``num_q`` and ``relstring``, whose
    length is checked here). Every parameter is checked before any input is read."""
    lines: dict[str, list[Line]] = {}
    for name, params in request.params.items():
        if TABLE[name].kind == "relstring":
            relstring_length(params, f"{name}.{params}")
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
    printed = "relstring" if given is None else f"relstring_{given}"
    return printed, relstring(inputs, relstring_length(given, f"relstring.{given}"))


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
