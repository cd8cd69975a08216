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

:func:`~polars_graded.measures.names.parse.measure_name` gives the canonical name of any
measure string; to choose the column names yourself, pass a mapping ``{"name": measure}`` to
``evaluate`` or ``summary``.

This module reads our own grammar only: :func:`~polars_graded.measures.names.parse.parse_measure`
is the front door, which hands a string after the prefix ``ir_measures:`` to
:mod:`~polars_graded.measures.names.ir_names` instead.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from dataclasses import dataclass

from polars_graded.errors import GradedError, MeasureParameterError, UnknownMeasureError
from polars_graded.measures.base import Measure
from polars_graded.measures.registry import ALIASES, MEASURES

MAX_MEASURE_LENGTH = 1000
"""The longest measure string the grammar reads (characters); longer ones are refused."""
MAX_ENTRIES = 100
"""The most entries a list (``levels=[...]``) or gain mapping (``{1:3,...}``) may hold."""

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


def checked_text(text: object) -> str:
    """``text``, if it is a string of at most :data:`MAX_MEASURE_LENGTH` characters.

    Raises
    ------
    UnknownMeasureError
        It is longer, or not a string (the message lists the valid names).

    Examples
    --------
    >>> checked_text("ap@10")
    'ap@10'
    """
    if isinstance(text, str) and len(text) > MAX_MEASURE_LENGTH:
        msg = (
            f"cannot read {excerpt(text)} as a measure: it has {len(text)} characters, and a "
            f"measure string has at most {MAX_MEASURE_LENGTH}; valid names: {valid_names()}"
        )
        raise UnknownMeasureError(msg)
    if not isinstance(text, str):
        raise _unreadable(text, "not a string")
    return text


def parse_grammar(text: str) -> Measure:
    """Read a measure string of our grammar, e.g. ``"ap(rel=2)@10"``.

    Parameters
    ----------
    text
        ``name[(param=value, ...)][@k]``; the name is case-insensitive. At most
        :data:`MAX_MEASURE_LENGTH` (1000) characters; read in time linear in its length.

    Returns
    -------
    Measure
        The measure object; ``str()`` of it is the canonical name.

    Raises
    ------
    UnknownMeasureError
        The name is not a measure, or the text is not ``name[(...)][@k]`` or too long (the
        message says why and lists the valid names).
    MeasureParameterError
        A parameter is unknown or its value is invalid.

    Examples
    --------
    >>> str(parse_grammar("AP(rel=2.0)@10"))
    'ap(rel=2)@10'
    """
    parts = _scan(checked_text(text))
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
