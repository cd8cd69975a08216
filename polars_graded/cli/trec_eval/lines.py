"""trec_eval's measures as polars_graded computes them: each requested measure becomes output
lines (:class:`Line`: the printed name and the registered measure computing it).

trec_eval's measure names map to the registry through each measure's declared trec_eval
template (:func:`polars_graded.measures.registry.trec_eval_templates`): ``{r}`` becomes
``""`` or ``"(rel=N)"`` (``-l N``), ``{k}`` a cutoff (``P_10``), a level (``Rprec_mult_0.20``
gets ``0.2``) or the parameter text given after the dot (``utility.2,-1,0,0``). A measure of
trec_eval's that no registered measure declares is skipped with one line on stderr
(:func:`resolve`), never printed with another measure's number.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from polars_graded.cli.parser import PROG, CommandError
from polars_graded.cli.trec_eval.measures import (
    TABLE,
    Request,
    TrecMeasure,
    cutoffs,
    gains,
    levels,
    number,
    numbers,
    pairs,
    relstring_length,
)
from polars_graded.errors import GradedError
from polars_graded.measures import Measure, parse_measure
from polars_graded.measures.base import format_number
from polars_graded.measures.registry import trec_eval_templates

Summary = Literal["mean", "sum", "geometric"]
"""How a line's ``all`` value is made from its per-query values."""


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
