"""trec_eval's own measures and how ``-m`` names them: its table of measures (printing order,
parameter kinds, defaults), its nicknames (``official``, ``set``, ``all_trec``), the request
of the ``-m`` values (:class:`Request`) and the reading of their parameter text.

Parameter text is read strictly, as numbers of trec_eval's kind for each measure (:func:`number`,
:func:`cutoffs`, :func:`levels`, :func:`numbers`, :func:`gains`, :func:`pairs`,
:func:`relstring_length`); anything else (``utility.abc``, ``iprec_at_recall.nan``,
``Rprec_mult.-1``, ``relstring.-2``, ``rbp.q=1``) is a usage error, never a skipped or cut-down
line. Only checked numbers reach a measure string.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from polars_graded.cli.parser import CommandError
from polars_graded.measures.base import format_number

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
