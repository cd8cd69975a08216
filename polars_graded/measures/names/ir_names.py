"""ir_measures' measure strings (``"ir_measures:nDCG@10"``): its syntax, and its names' measures.

ir_measures writes a measure in Python syntax, ``Name(param=value, ...)@at``: values are
numbers, quoted strings, ``True``/``False``/``None`` or ``{label: gain}`` mappings; ``@``
sets the cutoff (IPrec's recall level, :data:`AT_PARAMETERS`); names are case-sensitive.
Some names mean something else here (ir_measures' ``nDCG`` is trec_eval's, linear gain; our
``ndcg`` the paper's, exponential gain), so a string is read in ir_measures' sense only after
the prefix ``ir_measures:`` (:data:`IR_MEASURES_PREFIX`, :func:`ir_measures_text`), never by
letter case. Reading one is linear in its length and bounded as the grammar's own
strings; nothing is evaluated as code.

Each measure class declares the ir_measures names that are its measure, in
``Declaration.ir_measures`` (ir_measures pattern -> measure string here):

* the pattern is an ir_measures name (an alias of :data:`IR_ALIASES` stands for its target
  with the parameters it sets), with the parameter values that select it when the name has
  several meanings: ``"nDCG(dcg='exp-log2')"``; ``{param}`` as a value means "given, with
  any value": ``"NumRet(rel={rel})"``. The most specific pattern that matches is used;
* in the measure string, ``{k}`` stands for the value after ``@`` (the cutoff; IPrec's
  recall level, :data:`AT_PARAMETERS`), required: ``"p@{k}"``, ``"iprec(recall={k})"``; a
  string ending in ``[@{k}]`` takes a cutoff but needs none (``"ap[@{k}]"``); without either,
  a cutoff is refused. ``{param}`` stands for the value of the ir_measures parameter
  ``param`` (``"ndcg(gain={gains})"``);
* every other parameter given passes to the measure under its own name (``rel``, ``p``,
  ``beta``); ir_measures' defaults :data:`NEUTRAL` change nothing; anything else is refused
  with the names that are read. ``judged_only=True`` (trec_eval's ``-J``) is refused: it is
  not a measure here.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NoReturn

from polars_graded.errors import MeasureParameterError, UnknownMeasureError
from polars_graded.measures import registry
from polars_graded.measures.base import Measure, format_number, param_info
from polars_graded.measures.names.grammar import MAX_ENTRIES, excerpt, parse_grammar

IR_MEASURES_PREFIX = "ir_measures:"
"""A measure string starting with this is read in ir_measures' syntax and sense."""
Number = int | float
IrValue = bool | int | float | str | dict[Number, Number] | None
"""A parameter value as ir_measures reads it (a mapping holds numbers only here)."""

IR_ALIASES = {
    "MAP": "AP",
    "NDCG": "nDCG",
    "BPref": "Bpref",
    "RPrec": "Rprec",
    "MRR": "RR",
    "Precision": "P",
    "Recall": "R",
    "NumRelRet": "NumRet(rel=1)",
    "SetRelP": "SetP(relative=True)",
}
"""ir_measures' other names of its measures, with the parameters they set (ir_measures 0.4)."""
AT_PARAMETERS = {"IPrec": "recall"}
"""ir_measures' measures whose ``@`` sets another parameter than ``cutoff``."""
NEUTRAL: dict[str, IrValue] = {"judged_only": False, "dcg": "log2", "relative": False}
"""ir_measures' defaults of the parameters that select a meaning: written out, they change
nothing (``nDCG(dcg='log2')@10`` is ``nDCG@10``)."""
_ABSENT = object()

_NAME_START = frozenset(string.ascii_letters + "_")
_NAME_PART = _NAME_START | frozenset(string.digits)
# Python's unsigned decimal literals; no two quantifiers can match the same text.
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_CONSTANTS: dict[str, IrValue] = {"True": True, "False": False, "None": None}
_SYNTAX = "Name(param=value, ...)@at"
OPTIONAL_CUTOFF = "[@{k}]"
"""How a declared measure string ends when the ir_measures measure takes a cutoff but needs
none."""


def ir_measures_text(text: str) -> str | None:
    """The ir_measures string after the prefix ``ir_measures:``, stripped; ``None`` without it.

    Examples
    --------
    >>> ir_measures_text(" ir_measures: nDCG@10 "), ir_measures_text("ndcg@10")
    ('nDCG@10', None)
    """
    head = text.lstrip()
    if head.startswith(IR_MEASURES_PREFIX):
        return head[len(IR_MEASURES_PREFIX) :].strip()
    return None


@dataclass(frozen=True)
class Placeholder:
    """``{param}`` in a declared pattern: the parameter is given, with any value.

    Examples
    --------
    >>> read("NumRet(rel={rel})", pattern=True).params
    {'rel': Placeholder(name='rel')}
    """

    name: str


@dataclass(frozen=True)
class IrMeasure:
    """An ir_measures measure string, read: its name and parameters (``@`` under its name).

    Examples
    --------
    >>> read("P(rel=2)@10")
    IrMeasure(name='P', params={'rel': 2, 'cutoff': 10})
    """

    name: str
    params: Mapping[str, IrValue | Placeholder]


@dataclass(frozen=True)
class Entry:
    """One declared pattern: the parameters that select it, and the measure string here.

    Examples
    --------
    >>> entries()["nDCG"][1]
    Entry(selects={'dcg': 'exp-log2'}, template='ndcg[@{k}]')
    """

    selects: Mapping[str, IrValue | Placeholder]
    template: str


def read(text: str, *, pattern: bool = False) -> IrMeasure:
    """Read ``Name(param=value, ...)@at`` in one left-to-right pass.

    ``pattern`` also reads ``{param}`` as a value (:class:`Placeholder`), as the declarations
    write it.

    Raises
    ------
    UnknownMeasureError
        The text is not of that form (the message says where).
    MeasureParameterError
        A value cannot be read, or a parameter is given twice.

    Examples
    --------
    >>> read("nDCG(dcg='exp-log2', gains={0: 0, 2: 3})@10").params
    {'dcg': 'exp-log2', 'gains': {0: 0, 2: 3}, 'cutoff': 10}
    """
    scanner = _Scanner(text, pattern)
    name = scanner.name()
    params: dict[str, IrValue | Placeholder] = {}
    at_param = AT_PARAMETERS.get(name, "cutoff")
    if scanner.take("("):
        while not scanner.take(")"):
            param = scanner.name()
            scanner.expect("=")
            scanner.put(params, param, name)
            if not scanner.take(","):
                scanner.expect(")")
                break
    if scanner.take("@"):
        scanner.put(params, at_param, name)
    scanner.end()
    return IrMeasure(name, params)


class _Scanner:
    """The position in an ir_measures string, and the reading of its pieces."""

    def __init__(self, text: str, pattern: bool) -> None:
        self.text, self.pattern, self.at = text, pattern, 0

    def _space(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def _peek(self) -> str:
        self._space()
        return self.text[self.at] if self.at < len(self.text) else ""

    def fail(self, reason: str) -> UnknownMeasureError:
        msg = (
            f"cannot read {excerpt(self.text)} as an ir_measures measure ({reason}): expected "
            f"{_SYNTAX}; ir_measures names read here: {ir_names()}"
        )
        return UnknownMeasureError(msg)

    def _where(self) -> str:
        if self.at >= len(self.text):
            return "the end"
        return f"{self.text[self.at]!r} at character {self.at + 1}"

    def take(self, char: str) -> bool:
        if self._peek() == char:
            self.at += 1
            return True
        return False

    def expect(self, char: str) -> None:
        if not self.take(char):
            raise self.fail(f"expected {char!r}, found {self._where()}")

    def end(self) -> None:
        if self._peek():
            raise self.fail(f"unexpected {self._where()}")

    def name(self) -> str:
        if self._peek() not in _NAME_START:
            raise self.fail(f"expected a name, found {self._where()}")
        start = self.at
        while self.at < len(self.text) and self.text[self.at] in _NAME_PART:
            self.at += 1
        return self.text[start : self.at]

    def put(self, params: dict[str, IrValue | Placeholder], name: str, of: str) -> None:
        """Read a value into ``params[name]``; ``of`` names the measure for messages."""
        value = self.value()
        if name in params:
            msg = f"ir_measures' {of}: parameter {name!r} is given twice in {excerpt(self.text)}"
            raise MeasureParameterError(msg)
        params[name] = value

    def value(self) -> IrValue | Placeholder:
        """A number, a quoted string, True/False/None or a flat mapping of numbers."""
        char = self._peek()
        if char in ("'", '"'):
            return self._string(char)
        if char == "{":
            return self._mapping()
        if char in _NAME_START:
            word = self.name()
            if word in _CONSTANTS:
                return _CONSTANTS[word]
            self._bad_value(word)
        return self._number()

    def _string(self, quote: str) -> str:
        close = self.text.find(quote, self.at + 1)
        if close < 0:
            raise self.fail(f"the {quote} at character {self.at + 1} is never closed")
        value = self.text[self.at + 1 : close]
        if "\\" in value:
            self._bad_value(self.text[self.at : close + 1], "backslash escapes are not read")
        self.at = close + 1
        return value

    def _number(self) -> Number:
        match = _NUMBER.match(self.text, self.at)
        if match is None:
            self._bad_value(self.text[self.at : self.at + 20])
        self.at = match.end()
        digits = match.group()
        return int(digits) if digits.isdigit() else float(digits)

    def _mapping(self) -> dict[Number, Number] | Placeholder:
        """``{label: gain, ...}`` (at most :data:`MAX_ENTRIES`), or ``{param}`` in a pattern."""
        close = self.text.find("}", self.at)
        if close < 0:
            raise self.fail(f"the '{{' at character {self.at + 1} is never closed")
        body, shown = self.text[self.at + 1 : close], self.text[self.at : close + 1]
        self.at = close + 1
        if self.pattern and body.strip().isidentifier():
            return Placeholder(body.strip())
        entries = body.split(",")
        if entries[-1].strip() == "":  # Python's trailing comma, or {}
            entries.pop()
        if len(entries) > MAX_ENTRIES:
            msg = (
                f"ir_measures: a mapping holds at most {MAX_ENTRIES} entries, got "
                f"{len(entries)} in {excerpt(shown)}"
            )
            raise MeasureParameterError(msg)
        return dict(self._pair(entry, shown) for entry in entries)

    def _pair(self, entry: str, shown: str) -> tuple[Number, Number]:
        label, sep, gain = (part.strip() for part in entry.partition(":"))
        if not (sep and _NUMBER.fullmatch(label) and _NUMBER.fullmatch(gain)):
            self._bad_value(shown, "a mapping holds label: gain, both numbers")
        return _as_number(label), _as_number(gain)

    def _bad_value(self, shown: str, why: str = "") -> NoReturn:
        reason = why or "values are numbers, 'strings', True, False, None or {label: gain}"
        msg = f"ir_measures: cannot read value {excerpt(shown)} in {excerpt(self.text)} ({reason})"
        raise MeasureParameterError(msg)


def _as_number(text: str) -> Number:
    return int(text) if text.isdigit() else float(text)


@functools.cache
def entries() -> dict[str, tuple[Entry, ...]]:
    """ir_measures name -> its declared patterns, from every measure class, in order.

    Examples
    --------
    >>> [e.template for e in entries()["nDCG"]][:2]
    ['ndcg(gain=linear)[@{k}]', 'ndcg[@{k}]']
    """
    found: dict[str, list[Entry]] = {}
    for cls in registry.CLASSES:
        for pattern, template in cls.declaration.ir_measures.items():
            parsed = unaliased(read(pattern, pattern=True))
            found.setdefault(parsed.name, []).append(Entry(parsed.params, template))
    return {name: tuple(each) for name, each in found.items()}


def unaliased(measure: IrMeasure) -> IrMeasure:
    """An alias of :data:`IR_ALIASES` as its target, with the parameters it sets.

    Examples
    --------
    >>> unaliased(read("NumRelRet(rel=2)"))
    IrMeasure(name='NumRet', params={'rel': 2})
    """
    if measure.name not in IR_ALIASES:
        return measure
    target = read(IR_ALIASES[measure.name])
    return IrMeasure(target.name, {**target.params, **measure.params})


def ir_names() -> str:
    """The ir_measures names read here, then their aliases, for error messages.

    Examples
    --------
    >>> ir_names().split(", ")[:2]
    ['AP', 'nDCG']
    """
    aliases = [alias for alias, target in IR_ALIASES.items() if read(target).name in entries()]
    return ", ".join([*entries(), *aliases])


def ir_measure(text: str) -> Measure:
    """The measure here that gives ir_measures' number for ``text`` (without the prefix).

    Raises
    ------
    UnknownMeasureError
        The text is not ir_measures' syntax, or no measure here has its name.
    MeasureParameterError
        A value is unreadable or invalid, or a parameter has no counterpart here.

    Examples
    --------
    The measure computes as pytrec_eval does (``compat="trec_eval_9"``, dropped here):

    >>> def shown(text: str) -> str:
    ...     return str(dataclasses.replace(ir_measure(text), compat=None))
    >>> shown("nDCG@10"), shown("nDCG(dcg='exp-log2')@10")
    ('ndcg(gain=linear)@10', 'ndcg@10')
    >>> shown("RBP(rel=2, p=0.9)"), shown("P(rel=2)@10"), ir_measure("AP").compat
    ('rbp(p=0.9,rel=2)', 'p(rel=2)@10', 'trec_eval_9')
    """
    given = unaliased(read(text))
    candidates = entries().get(given.name)
    if candidates is None:
        msg = (
            f"unknown ir_measures measure {given.name!r}; ir_measures names read here: {ir_names()}"
        )
        raise UnknownMeasureError(msg)
    params = {p: v for p, v in given.params.items() if not _same(v, NEUTRAL.get(p, _ABSENT))}
    if params.get("judged_only") is True:
        msg = (
            f"ir_measures' {given.name}(judged_only=True), trec_eval's -J, is not a measure here: "
            "evaluate a table without its unjudged rows instead"
        )
        raise MeasureParameterError(msg)
    entry = _most_specific(given.name, candidates, params)
    # ir_measures computes with pytrec_eval (trec_eval 9.x): its score precision and rounding.
    return _build(given.name, entry, params)(compat="trec_eval_9")


def _same(a: object, b: object) -> bool:
    """Equal and of the same type (``True`` is not ``1`` here)."""
    return type(a) is type(b) and a == b


def _most_specific(name: str, candidates: tuple[Entry, ...], params: Mapping[str, object]) -> Entry:
    def matches(entry: Entry) -> bool:
        return all(
            p in params and (isinstance(v, Placeholder) or _same(params[p], v))
            for p, v in entry.selects.items()
        )

    matching = [entry for entry in candidates if matches(entry)]
    if not matching:
        msg = f"ir_measures' {name}: no measure here for {_shown(params)}; read: {_variants(name)}"
        raise MeasureParameterError(msg)
    return max(matching, key=lambda entry: len(entry.selects))


def _build(name: str, entry: Entry, params: Mapping[str, IrValue | Placeholder]) -> Measure:
    """The entry's measure string filled in, then the other parameters and the cutoff."""
    template = entry.template.removesuffix(OPTIONAL_CUTOFF)
    wanted = [field for _, field, _, _ in string.Formatter().parse(template) if field]
    filled = {field: _filled(name, field, params) for field in wanted}
    measure = parse_grammar(template.format(**filled))
    literal = {p for p, v in entry.selects.items() if not isinstance(v, Placeholder)}
    used = {_param(name, field) for field in wanted} | literal
    rest = {p: v for p, v in params.items() if p not in used}
    cutoff = rest.pop("cutoff", None)
    own = {f.name for f in dataclasses.fields(measure) if param_info(f).listed} - {"k"}
    for param in rest:
        if param not in own:
            msg = (
                f"ir_measures' {name}: parameter {param!r} has no counterpart in "
                f"{measure.name} here (read: {_variants(name)}; {measure.name} takes "
                f"{', '.join(sorted(own)) or 'no parameter'})"
            )
            raise MeasureParameterError(msg)
    measure = measure(**rest) if rest else measure
    if cutoff is None:
        return measure
    if template == entry.template:
        msg = f"ir_measures' {name} takes no cutoff here ({measure.name} reads every row)"
        raise MeasureParameterError(msg)
    return measure(k=cutoff)


def _param(name: str, field: str) -> str:
    """The ir_measures parameter of ``{field}``: ``{k}`` is the one ``@`` sets."""
    return AT_PARAMETERS.get(name, "cutoff") if field == "k" else field


def _filled(name: str, field: str, params: Mapping[str, IrValue | Placeholder]) -> str:
    """The text of ``{field}`` in a declared measure string."""
    param = _param(name, field)
    if param not in params:
        example = f"{name}@10" if param == "cutoff" else f"{name}({param}=...)"
        msg = f"ir_measures' {name} needs its {param}, e.g. {example}"
        raise MeasureParameterError(msg)
    value = params[param]
    if param == "cutoff" and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        msg = f"ir_measures' {name}: the cutoff must be a positive whole number, got {value!r}"
        raise MeasureParameterError(msg)
    return _text(name, param, value)


def _text(name: str, param: str, value: object) -> str:
    """A number or a mapping of numbers as written in a measure string here; nothing else
    enters one (a string could change its meaning)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return format_number(value)
    if isinstance(value, dict):
        pairs = (f"{_text(name, param, a)}:{_text(name, param, b)}" for a, b in value.items())
        return "{" + ",".join(pairs) + "}"
    msg = f"ir_measures' {name}: cannot use {param}={excerpt(value)} here (a finite number"
    msg += " or a mapping of them is expected)"
    raise MeasureParameterError(msg)


def _shown(params: Mapping[str, object]) -> str:
    return "(" + ", ".join(f"{p}={v!r}" for p, v in params.items() if p != "cutoff") + ")"


def _variants(name: str) -> str:
    """The declared patterns of ``name``, as written."""
    out = []
    for entry in entries()[name]:
        shown = ", ".join(
            f"{p}={'...' if isinstance(v, Placeholder) else repr(v)}"
            for p, v in entry.selects.items()
        )
        out.append(name + (f"({shown})" if shown else ""))
    return ", ".join(out)
