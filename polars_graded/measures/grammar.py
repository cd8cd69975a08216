"""The measure-name grammar: ``name[(param=value, ...)][@k]``, as ir_measures users know it.

Examples: ``"mu_ap"``, ``"ap(rel=2)@10"``, ``"ndcg(gain=linear)@10"``,
``"ndcg(gain={1:3,2:9})"``, ``"mu_ap(levels=[1,2,3])"``, ``"p@5"``. Names are
case-insensitive. Values are read as numbers, words or bracketed lists; nothing is ever
evaluated as code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from polars_graded.errors import MeasureParameterError, UnknownMeasureError
from polars_graded.measures import MEASURES
from polars_graded.measures.base import Measure

ALIASES: dict[str, str] = {
    "map": "ap",
    "mu_map": "mu_ap",
    "precision": "p",
    "rprec": "r_precision",
    "recip_rank": "rr",
    "mrr": "rr",
}

_MEASURE = re.compile(
    r"""^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*
        (?:\((?P<params>[^()]*)\))?\s*
        (?:@\s*(?P<k>[0-9]+))?\s*$""",
    re.VERBOSE,
)
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")


def valid_names() -> str:
    """The measure names the grammar accepts, for error messages."""
    return ", ".join(MEASURES)


def parse_measure(text: str) -> Measure:
    """Read a measure from its name, e.g. ``"ap(rel=2)@10"``.

    Parameters
    ----------
    text
        ``name[(param=value, ...)][@k]``; the name is case-insensitive.

    Returns
    -------
    Measure
        The measure object; ``str()`` of it is the canonical name.

    Raises
    ------
    UnknownMeasureError
        The name is not a measure (the message lists the valid ones).
    MeasureParameterError
        A parameter is unknown or its value is invalid.

    Examples
    --------
    >>> from polars_graded import parse_measure
    >>> str(parse_measure("AP(rel=2.0)@10"))
    'ap(rel=2)@10'
    """
    match = _MEASURE.match(text) if isinstance(text, str) else None
    if match is None:
        msg = (
            f"cannot read {text!r} as a measure: expected name[(param=value, ...)][@k]; "
            f"valid names: {valid_names()}"
        )
        raise UnknownMeasureError(msg)
    name = match["name"].lower()
    base = MEASURES.get(ALIASES.get(name, name))
    if base is None:
        msg = f"unknown measure {match['name']!r}; valid names: {valid_names()}"
        raise UnknownMeasureError(msg)
    params = dict(_parse_params(match["params"] or "", base.name))
    if match["k"] is not None:
        params["k"] = int(match["k"])
    return base(**params)


def split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside parentheses, brackets or braces.

    Examples
    --------
    >>> split_top_level("mu_ap, ndcg(gain={1:3,2:9})@5")
    ['mu_ap', 'ndcg(gain={1:3,2:9})@5']
    """
    parts, depth, current = [], 0, []
    for char in text:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _parse_params(text: str, measure: str) -> Iterable[tuple[str, object]]:
    for part in split_top_level(text):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            msg = f"{measure}: cannot read parameter {part!r}; expected name=value"
            raise MeasureParameterError(msg)
        yield name.strip().lower(), _parse_value(value.strip(), measure)


def _parse_value(text: str, measure: str) -> object:
    """A number, a bare word, ``[a,b,...]`` or ``{label:gain,...}``; never code."""
    if _NUMBER.match(text):
        return int(text) if text.lstrip("+-").isdigit() else float(text)
    if text.startswith("[") and text.endswith("]"):
        return [_number(v, measure) for v in split_top_level(text[1:-1])]
    if text.startswith("{") and text.endswith("}"):
        return dict(_pair(v, measure) for v in split_top_level(text[1:-1]))
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        return text.lower()
    msg = f"{measure}: cannot read value {text!r}"
    raise MeasureParameterError(msg)


def _number(text: str, measure: str) -> float:
    if not _NUMBER.match(text):
        msg = f"{measure}: expected a number, got {text!r}"
        raise MeasureParameterError(msg)
    return float(text)


def _pair(text: str, measure: str) -> tuple[float, float]:
    label, sep, gain = text.partition(":")
    if not sep:
        msg = f"{measure}: expected label:gain in a gain mapping, got {text!r}"
        raise MeasureParameterError(msg)
    return _number(label.strip(), measure), _number(gain.strip(), measure)


def as_measures(measures: Measure | str | Sequence[Measure | str]) -> list[Measure]:
    """Normalise a measure, a name or a list of them to a list of measures, without repeats."""
    items = [measures] if isinstance(measures, Measure | str) else list(measures)
    if not items:
        msg = f"no measures given; valid names: {valid_names()}"
        raise UnknownMeasureError(msg)
    out: list[Measure] = []
    for item in items:
        if isinstance(item, str):
            measure = parse_measure(item)
        elif isinstance(item, Measure):
            measure = item
        else:
            msg = f"expected a measure or its name, got {item!r}; valid names: {valid_names()}"
            raise UnknownMeasureError(msg)
        if measure not in out:
            out.append(measure)
    return out
