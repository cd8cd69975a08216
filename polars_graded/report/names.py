"""How a report shows a name it did not choose (a run's name, a segment's value): on one
line everywhere, and in tables and charts at most :data:`MAX_SHOWN` characters, its start
and end kept around an ellipsis (:func:`short_names`); the page shows the full name on
hover and the section "Data" lists it (:func:`shortened`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import polars as pl

MAX_SHOWN = 40
"""The most characters of a name a table or chart shows."""
ELLIPSIS = "…"
LINE_BREAK = "↵"
"""How a line break inside a name is shown: it would end a Markdown table row or line."""

# What str.splitlines splits on, and the other control characters (a tab is a space).
_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")


def one_line(text: str) -> str:
    """``text`` on one line: each line break shown as ``↵``, a tab as a space, other
    control characters as ``�``.

    Examples
    --------
    >>> one_line("bm25\\nk1=0.9\\r\\n"), one_line("a\\tb")
    ('bm25↵k1=0.9↵', 'a b')
    """
    text = _BREAKS.sub(LINE_BREAK, text).replace("\t", " ")
    return _CONTROLS.sub("\N{REPLACEMENT CHARACTER}", text)


def shorten(text: str, width: int = MAX_SHOWN) -> str:
    """``text`` on one line, and when longer than ``width`` its start and its end around
    ``…``, ``width`` characters in all.

    Examples
    --------
    >>> shorten("run_" + "x" * 50 + "_k1=0.9", 20)
    'run_xxxxxx…xx_k1=0.9'
    >>> shorten("bm25")
    'bm25'
    """
    text = one_line(text)
    if len(text) <= width:
        return text
    tail = (width - 1) // 2
    return text[: width - 1 - tail] + ELLIPSIS + text[len(text) - tail :]


def short_names(names: Sequence[str], width: int = MAX_SHOWN) -> Mapping[str, str]:
    """Each name as tables and charts show it (:func:`shorten`), two names never alike: a
    shown text already taken gets `` (2)``, `` (3)``, ... (within ``width``).

    Names shown as they are keep their text; the others are numbered in ``names``' order.

    Examples
    --------
    >>> names = ["bm25", *(f"run_{'x' * 30}_{v}_{'y' * 30}" for v in "ab")]
    >>> list(short_names(names, 20).values())
    ['bm25', 'run_xxxxxx…yyyyyyyyy', 'run_xxxx…yyyyyyy (2)']
    """
    return _short_names(tuple(dict.fromkeys(names)), width)


@functools.lru_cache(maxsize=64)
def _short_names(names: tuple[str, ...], width: int) -> Mapping[str, str]:
    # Names that need no change first: a shortened name never takes the text of a full one.
    shown = {name: name for name in names if shorten(name, width) == name}
    taken = set(shown.values())
    for name in names:
        if name in shown:
            continue
        text, count = shorten(name, width), 1
        while text in taken:
            count += 1
            suffix = f" ({count})"
            text = shorten(name, width - len(suffix)) + suffix
        shown[name] = text
        taken.add(text)
    return MappingProxyType({name: shown[name] for name in names})


def shortened(names: Sequence[str], width: int = MAX_SHOWN) -> dict[str, str]:
    """The names :func:`short_names` shortens (or numbers), each with the text shown for
    it; a name only put on one line reads the same.

    Examples
    --------
    >>> shortened(["bm25", "a\\nb", "x" * 50], 20)
    {'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx': 'xxxxxxxxxx…xxxxxxxxx'}
    """
    shown = short_names(names, width).items()
    return {name: text for name, text in shown if text != one_line(name)}


def full_text(text: str, names: Mapping[str, str]) -> str | None:
    """``text`` with every shortened name of ``names`` (full name: shown text) written in
    full, or ``None`` when it holds none (the page's hover text of a table cell).

    Examples
    --------
    >>> names = short_names(["a" * 50, "b"], 20)
    >>> full_text(names["a" * 50] + " > b", names) == "a" * 50 + " > b"
    True
    >>> full_text("b > c", names) is None
    True
    """
    out = text
    for name, shown in names.items():
        if shown != name and shown in out:
            out = out.replace(shown, name)
    return None if out == text else out


def with_short_names(frame: pl.DataFrame, names: Sequence[str], *columns: str) -> pl.DataFrame:
    """``frame`` with the names of ``names`` in its ``columns`` as tables show them
    (:func:`short_names` of ``names``); other values stay.

    Examples
    --------
    >>> frame = pl.DataFrame({"system": ["b", "a\\nb"], "ap": [0.5, 0.25]})
    >>> with_short_names(frame, ["a\\nb", "b"], "system")["system"].to_list()
    ['b', 'a↵b']
    """
    shown = dict(short_names(names))
    return frame.with_columns(pl.col(c).replace(shown) for c in columns)
