"""The measure-name grammar: ``name[(param=value, ...)][@k]``, as ir_measures users know it.

Examples: ``"mu_ap"``, ``"ap(rel=2)@10"``, ``"ndcg(gain=linear)@10"``,
``"ndcg(gain={1:3,2:9})"``, ``"mu_ap(levels=[1,2,3])"``, ``"p@5"``. Names are
case-insensitive. Values are read as numbers, words or bracketed lists; nothing is ever
evaluated as code.

Measure strings come from config files, notebooks and web forms, so reading one is linear
in its length (a one-pass scanner, no backtracking pattern) and bounded: at most
:data:`MAX_MEASURE_LENGTH` characters, and at most :data:`MAX_ENTRIES` entries in a list or
gain mapping.

Canonical names
---------------
``str(measure)`` is the measure's canonical name, and the name of its result column:

* the short name in lower case (``"map"`` and ``"MAP"`` become ``"ap"``);
* parameters at their default value are dropped (``"rbp(p=0.8,rel=1)@5"`` is ``"rbp@5"``),
  the others are sorted by name (``"rbp(p=0.9,rel=2)"``);
* numbers in their shortest form (``2.0`` is ``2``, ``0.50`` is ``0.5``); lists of levels
  sorted (``levels=[3,1,2]`` is ``levels=[1,2,3]``), gain mappings sorted by label;
* no spaces; the cutoff last (``@10``).

:func:`measure_name` gives the canonical name of any measure string; to choose the column
names yourself, pass a mapping ``{"name": measure}`` to ``evaluate`` or ``summary``.

ir_measures' names
------------------
After the prefix ``ir_measures:`` (:data:`IR_MEASURES_PREFIX`), a string is read in
ir_measures' syntax and sense (:mod:`polars_graded.measures.names.ir_names`):
``"ir_measures:nDCG@10"`` is trec_eval's linear-gain nDCG, ``ndcg(gain=linear)@10``, where
``"nDCG@10"`` is our exponential-gain ``ndcg@10``. Its column is named by the string after the
prefix, as written (``nDCG@10``), to line up with ir_measures' output.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from polars_graded.errors import (
    GradedError,
    InvalidValueError,
    MeasureParameterError,
    UnknownMeasureError,
)
from polars_graded.measures.base import Measure
from polars_graded.measures.registry import ALIASES, MEASURES

MAX_MEASURE_LENGTH = 1000
"""The longest measure string the grammar reads (characters); longer ones are refused."""
MAX_ENTRIES = 100
"""The most entries a list (``levels=[...]``) or gain mapping (``{1:3,...}``) may hold."""
IR_MEASURES_PREFIX = "ir_measures:"
"""A measure string starting with this is read in ir_measures' syntax and sense."""
MeasureSpec = Measure | str | Sequence[Measure | str] | Mapping[str, Measure | str]
"""What every entry point takes as measures: one, a list, or a mapping output name -> measure."""

# No two quantifiers here can match the same text, so a match never backtracks.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_START = frozenset(string.ascii_letters + "_")
_NAME_PART = _NAME_START | frozenset(string.digits)
_DIGITS = frozenset(string.digits)
_CLOSING = {")": "(", "]": "[", "}": "{"}


def valid_names() -> str:
    """The measure names the grammar accepts, for error messages.

    Examples
    --------
    >>> valid_names().split(", ")[:3]
    ['mu_ap', 'ap', 'ndcg']
    """
    return ", ".join(MEASURES)


def parse_measure(text: str) -> Measure:
    """Read a measure from its name, e.g. ``"ap(rel=2)@10"``.

    Parameters
    ----------
    text
        ``name[(param=value, ...)][@k]``; the name is case-insensitive. Or, after the
        prefix ``ir_measures:``, an ir_measures measure string (``"ir_measures:nDCG@10"``,
        see the module docstring). At most :data:`MAX_MEASURE_LENGTH` (1000) characters; read
        in time linear in its length.

    Returns
    -------
    Measure
        The measure object; ``str()`` of it is the canonical name (see :func:`measure_name`).

    Raises
    ------
    UnknownMeasureError
        The name is not a measure, or the text is not ``name[(...)][@k]`` or too long (the
        message says why and lists the valid names).
    MeasureParameterError
        A parameter is unknown or its value is invalid.

    Examples
    --------
    >>> from polars_graded import parse_measure
    >>> str(parse_measure("AP(rel=2.0)@10"))
    'ap(rel=2)@10'
    >>> str(parse_measure("ir_measures:nDCG@10"))  # trec_eval 9.x's, as pytrec_eval computes
    'ndcg(compat=trec_eval_9,gain=linear)@10'
    """
    if isinstance(text, str) and len(text) > MAX_MEASURE_LENGTH:
        msg = (
            f"cannot read {excerpt(text)} as a measure: it has {len(text)} characters, and a "
            f"measure string has at most {MAX_MEASURE_LENGTH}; valid names: {valid_names()}"
        )
        raise UnknownMeasureError(msg)
    if not isinstance(text, str):
        raise _unreadable(text, "not a string")
    ir_text = ir_measures_text(text)
    if ir_text is not None:
        # Deferred: ir_names reads measure strings through this module.
        from polars_graded.measures.names.ir_names import ir_measure

        return ir_measure(ir_text)
    parts = _scan(text)
    name = parts.name.lower()
    base = MEASURES.get(ALIASES.get(name, name))
    if base is None:
        msg = f"unknown measure {parts.name!r}; valid names: {valid_names()}"
        raise UnknownMeasureError(msg)
    params: dict[str, object] = {}
    for param, value in _parse_params(parts.params, base.name):
        if param in params:
            msg = f"{base.name}: parameter {param!r} is given twice"
            raise MeasureParameterError(msg)
        params[param] = value
    if parts.k is not None:
        if "k" in params:
            msg = (
                f"{base.name}: the cutoff is given twice, as k={params['k']!r} and @{parts.k}; "
                f"give one, e.g. {base.name}@{parts.k}"
            )
            raise MeasureParameterError(msg)
        params["k"] = int(parts.k)
    return base(**params)


def measure_name(measure: Measure | str) -> str:
    """The canonical name of a measure: the name of its result column.

    Parameters defaulted are dropped, the others sorted, numbers written in their shortest
    form (see the module docstring, "Canonical names"); pass a mapping
    ``{"my name": measure}`` to ``evaluate`` or ``summary`` to name a column yourself.

    Parameters
    ----------
    measure
        A measure object or string, e.g. ``"RBP(p=0.8, rel=1)@5"``.

    Returns
    -------
    str
        The name its result column gets.

    Raises
    ------
    UnknownMeasureError, MeasureParameterError
        As :func:`parse_measure`.

    Examples
    --------
    >>> import polars_graded as pg
    >>> pg.measure_name("rbp(p=0.8,rel=1)@5")
    'rbp@5'
    >>> pg.measure_name("MAP(rel=2.0)")
    'ap(rel=2)'
    >>> pg.measure_name("ir_measures:nDCG@10")
    'nDCG@10'
    """
    if isinstance(measure, str):  # an ir_measures string is named as written
        return next(iter(as_named_measures(measure)))
    return str(as_measures(measure)[0])


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


def split_top_level(text: str, *, error: type[GradedError] = UnknownMeasureError) -> list[str]:
    """Split on commas that are not inside parentheses, brackets or braces.

    One pass; brackets must balance and nest properly, else ``error`` says where.

    Examples
    --------
    >>> split_top_level("mu_ap, ndcg(gain={1:3,2:9})@5")
    ['mu_ap', 'ndcg(gain={1:3,2:9})@5']
    """
    parts, open_at, start = [], [], 0
    for at, char in enumerate(text):
        if char in "([{":
            open_at.append(at)
        elif char in _CLOSING:
            if not open_at or text[open_at[-1]] != _CLOSING[char]:
                msg = f"unbalanced brackets in {excerpt(text)}: {char!r} at character {at + 1}"
                raise error(msg)
            open_at.pop()
        elif char == "," and not open_at:
            parts.append(text[start:at])
            start = at + 1
    if open_at:
        at = open_at[-1]
        reason = f"{text[at]!r} at character {at + 1} is never closed"
        msg = f"unbalanced brackets in {excerpt(text)}: {reason}"
        raise error(msg)
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


@dataclass(frozen=True)
class _Parts:
    """The pieces of ``name[(params)][@k]``, as written."""

    name: str
    params: str
    k: str | None


def _scan(text: str) -> _Parts:
    """Split a measure string in one left-to-right pass, or say why it cannot be read."""
    end = len(text)
    at = start = _skip_space(text, 0)
    if at == end:
        raise _unreadable(text, "no name")
    if text[at] not in _NAME_START:
        raise _unreadable(text, f"a name cannot start with {text[at]!r}")
    while at < end and text[at] in _NAME_PART:
        at += 1
    name, at = text[start:at], _skip_space(text, at)
    params = ""
    if at < end and text[at] == "(":
        close = at + 1
        while close < end and text[close] not in "()":
            close += 1
        if close == end:
            raise _unreadable(text, f"the '(' at character {at + 1} is never closed")
        if text[close] == "(":
            reason = f"parameter values hold no parentheses: '(' at character {close + 1}"
            raise _unreadable(text, reason)
        params, at = text[at + 1 : close], _skip_space(text, close + 1)
    k = None
    if at < end and text[at] == "@":
        at = first = _skip_space(text, at + 1)
        while at < end and text[at] in _DIGITS:
            at += 1
        if at == first:
            raise _unreadable(text, "'@' must be followed by a whole number, the cutoff")
        k, at = text[first:at], _skip_space(text, at)
    if at < end:
        raise _unreadable(text, f"unexpected {text[at]!r} at character {at + 1}")
    return _Parts(name, params, k)


def _unreadable(text: object, reason: str) -> UnknownMeasureError:
    msg = (
        f"cannot read {excerpt(text)} as a measure ({reason}): expected "
        f"name[(param=value, ...)][@k]; valid names: {valid_names()}"
    )
    return UnknownMeasureError(msg)


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def excerpt(text: object, most: int = 60) -> str:
    """``repr(text)``, shortened: the text may be very long.

    Examples
    --------
    >>> excerpt("ap" * 40, most=6)
    "'apapap'..."
    """
    shown = repr(text[:most] if isinstance(text, str) else text)
    if isinstance(text, str) and len(text) > most:
        return f"{shown}..."
    return shown if len(shown) <= most else shown[: most - 3] + "..."


def _parse_params(text: str, measure: str) -> Iterable[tuple[str, object]]:
    for part in split_top_level(text, error=MeasureParameterError):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            msg = f"{measure}: cannot read parameter {excerpt(part)}; expected name=value"
            raise MeasureParameterError(msg)
        yield name.strip().lower(), _parse_value(value.strip(), measure)


def _parse_value(text: str, measure: str) -> object:
    """A number, a bare word, ``[a,b,...]`` or ``{label:gain,...}``; never code."""
    if _NUMBER.fullmatch(text):
        return int(text) if text.lstrip("+-").isdigit() else float(text)
    if text.startswith("[") and text.endswith("]"):
        return [_number(v, measure) for v in _entries(text, measure)]
    if text.startswith("{") and text.endswith("}"):
        return dict(_pair(v, measure) for v in _entries(text, measure))
    if _WORD.fullmatch(text):
        return text.lower()
    msg = f"{measure}: cannot read value {excerpt(text)}"
    raise MeasureParameterError(msg)


def _entries(text: str, measure: str) -> list[str]:
    """The entries of a bracketed list or mapping, at most :data:`MAX_ENTRIES`."""
    entries = split_top_level(text[1:-1], error=MeasureParameterError)
    if len(entries) > MAX_ENTRIES:
        msg = (
            f"{measure}: a list or mapping holds at most {MAX_ENTRIES} entries, "
            f"got {len(entries)} in {excerpt(text)}"
        )
        raise MeasureParameterError(msg)
    return entries


def _number(text: str, measure: str) -> float:
    if not _NUMBER.fullmatch(text):
        msg = f"{measure}: expected a number, got {excerpt(text)}"
        raise MeasureParameterError(msg)
    return float(text)


def _pair(text: str, measure: str) -> tuple[float, float]:
    label, sep, gain = text.partition(":")
    if not sep:
        msg = f"{measure}: expected label:gain in a gain mapping, got {excerpt(text)}"
        raise MeasureParameterError(msg)
    return _number(label.strip(), measure), _number(gain.strip(), measure)


def as_measure(item: object) -> Measure:
    """One measure from a measure object or its name.

    Examples
    --------
    >>> str(as_measure("MAP@10"))
    'ap@10'
    """
    if isinstance(item, str):
        return parse_measure(item)
    if isinstance(item, Measure):
        return item
    msg = f"expected a measure or its name, got {excerpt(item)}; valid names: {valid_names()}"
    raise UnknownMeasureError(msg)


def as_measures(measures: MeasureSpec) -> list[Measure]:
    """Normalise a measure, a name or a list of them to a list of measures, without repeats.

    A mapping output name -> measure is refused rather than stripped of its names: where
    output names are taken, :func:`as_named_measures` reads them.

    Examples
    --------
    >>> [str(m) for m in as_measures(["ap", "AP(rel=1)", "p@5"])]
    ['ap', 'p@5']
    """
    if isinstance(measures, Mapping):
        msg = (
            "output names (a mapping name -> measure) are not taken here; pass a list of "
            f"measures, e.g. {[str(m) for m in as_named_measures(measures).values()]}"
        )
        raise InvalidValueError(msg)
    return list(as_named_measures(measures).values())


def as_named_measures(measures: MeasureSpec) -> dict[str, Measure]:
    """Output column name -> measure, in order.

    A mapping keeps its names (non-empty strings, one per measure); a measure, a name or a
    list gives each measure under its canonical name (an ``ir_measures:`` string under the
    string after the prefix), without repeats (the first name of a measure is kept).

    Examples
    --------
    >>> named = as_named_measures({"rbp80": "rbp(p=0.8)@5", "top": "ndcg@10"})
    >>> {name: str(m) for name, m in named.items()}
    {'rbp80': 'rbp@5', 'top': 'ndcg@10'}
    >>> list(as_named_measures(["ap", "AP(rel=1)", "p@5"]))
    ['ap', 'p@5']
    >>> list(as_named_measures(["ir_measures:nDCG@10", "ir_measures:NDCG@10", "ndcg@10"]))
    ['nDCG@10', 'ndcg@10']
    >>> list(as_named_measures(["ir_measures:nDCG@10", "ndcg(gain=linear)@10"]))  # 9.x, 10.0
    ['nDCG@10', 'ndcg(gain=linear)@10']
    """
    named: dict[str, Measure] = {}
    if isinstance(measures, Mapping):
        names_of: dict[Measure, str] = {}
        for name, item in measures.items():
            check_output_name(name)
            measure = as_measure(item)
            if measure in names_of:
                msg = (
                    f"the measure {str(measure)!r} is named twice, {names_of[measure]!r} and "
                    f"{name!r}: give each measure one name"
                )
                raise InvalidValueError(msg)
            names_of[measure] = name
            named[name] = measure
    else:
        items: object = [measures] if isinstance(measures, Measure | str) else measures
        if not isinstance(items, Iterable):
            msg = (
                f"expected a measure, its name, a list of them or a mapping name -> measure, "
                f"got {excerpt(measures)}; valid names: {valid_names()}"
            )
            raise UnknownMeasureError(msg)
        seen: set[Measure] = set()
        for item in items:
            measure = as_measure(item)
            name = _default_name(item, measure)
            if measure in seen:
                continue
            if name in named:
                msg = f"two measures are named {name!r}: {named[name]!r} and {measure!r}"
                raise InvalidValueError(msg)
            seen.add(measure)
            named[name] = measure
    if not named:
        msg = f"no measures given; valid names: {valid_names()}"
        raise UnknownMeasureError(msg)
    return named


def _default_name(item: object, measure: Measure) -> str:
    """The column name of a measure given without one: its canonical name, or the
    ir_measures string as written."""
    ir_text = ir_measures_text(item) if isinstance(item, str) else None
    return str(measure) if ir_text is None else ir_text


RESERVED_PREFIX = "__pg_"
"""Column names the evaluation uses internally start with this; output names may not."""


def check_output_name(name: object) -> str:
    """A name for an output column: a non-empty string not starting with ``__pg_``.

    Examples
    --------
    >>> check_output_name("rbp80")
    'rbp80'
    """
    if not isinstance(name, str) or not name.strip():
        msg = f"an output name must be a non-empty string, got {excerpt(name)}"
        raise InvalidValueError(msg)
    if name.startswith(RESERVED_PREFIX):
        msg = f"output name {name!r}: names starting with {RESERVED_PREFIX!r} are reserved"
        raise InvalidValueError(msg)
    return name
