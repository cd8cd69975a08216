"""The front door to measure names: what every entry point takes as measures, read once.

:func:`parse_measure` reads a measure string: in our grammar
(:mod:`~polars_graded.measures.names.grammar`, ``"ap(rel=2)@10"``), or, after the prefix
``ir_measures:``, in ir_measures' syntax and sense
(:mod:`~polars_graded.measures.names.ir_names`).
:func:`as_measures` and :func:`as_named_measures` read a :data:`MeasureSpec` (one measure or
name, a list, or a mapping output name -> measure); :func:`measure_name` and
:func:`check_output_name` give the names of the result columns.

ir_measures' names
------------------
After the prefix ``ir_measures:``
(:data:`~polars_graded.measures.names.ir_names.IR_MEASURES_PREFIX`), a string is read in
ir_measures' syntax and sense: ``"ir_measures:nDCG@10"`` is trec_eval's linear-gain nDCG,
``ndcg(gain=linear)@10``, where ``"nDCG@10"`` is our exponential-gain ``ndcg@10``. Its column
is named by the string after the prefix, as written (``nDCG@10``), to line up with
ir_measures' output.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from polars_graded.errors import InvalidValueError, UnknownMeasureError
from polars_graded.measures.base import Measure
from polars_graded.measures.names.grammar import checked_text, excerpt, parse_grammar, valid_names
from polars_graded.measures.names.ir_names import ir_measure, ir_measures_text
from polars_graded.validate import RESERVED_PREFIX

MeasureSpec = Measure | str | Sequence[Measure | str] | Mapping[str, Measure | str]
"""What every entry point takes as measures: one, a list, or a mapping output name -> measure."""


def parse_measure(text: str) -> Measure:
    """Read a measure from its name, e.g. ``"ap(rel=2)@10"``.

    Parameters
    ----------
    text
        ``name[(param=value, ...)][@k]``; the name is case-insensitive. Or, after the
        prefix ``ir_measures:``, an ir_measures measure string (``"ir_measures:nDCG@10"``,
        see the module docstring). At most
        :data:`~polars_graded.measures.names.grammar.MAX_MEASURE_LENGTH` (1000) characters;
        read in time linear in its length.

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
    # The length cap counts the prefix: both grammars read a checked string.
    ir_text = ir_measures_text(checked_text(text))
    return parse_grammar(text) if ir_text is None else ir_measure(ir_text)


def measure_name(measure: Measure | str) -> str:
    """The canonical name of a measure: the name of its result column.

    Parameters defaulted are dropped, the others sorted, numbers written in their shortest
    form (see :mod:`~polars_graded.measures.names.grammar`, "Canonical names"); pass a mapping
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
    >>> [str(m) for m in as_measures(["ir_measures:nDCG@10", "ir_measures:NDCG@10"])]
    ['ndcg(compat=trec_eval_9,gain=linear)@10']
    """
    if isinstance(measures, Mapping):
        msg = (
            "output names (a mapping name -> measure) are not taken here; pass a list of "
            f"measures, e.g. {[str(m) for m in as_named_measures(measures).values()]}"
        )
        raise InvalidValueError(msg)
    return list(dict.fromkeys(as_named_measures(measures).values()))


def as_named_measures(measures: MeasureSpec) -> dict[str, Measure]:
    """Output column name -> measure, in order: every name asked for has its column.

    A mapping keeps its names (non-empty strings); a measure, a name or a list gives each
    string its column under the measure's canonical name (an ``ir_measures:`` string under
    the string after the prefix, as written). Strings that give the same name and the same
    measure (``"map"`` and ``"ap"``, a name repeated) share that one column; two names of
    one measure (``"ir_measures:nDCG@10"`` and ``"ir_measures:NDCG@10"``, or a mapping
    ``{"a": "ap", "b": "map"}``) give two columns, which the plan computes once. One name
    for two different measures is an :class:`~polars_graded.errors.InvalidValueError`.

    Examples
    --------
    >>> named = as_named_measures({"rbp80": "rbp(p=0.8)@5", "top": "ndcg@10"})
    >>> {name: str(m) for name, m in named.items()}
    {'rbp80': 'rbp@5', 'top': 'ndcg@10'}
    >>> list(as_named_measures(["ap", "AP(rel=1)", "map", "p@5"]))
    ['ap', 'p@5']
    >>> list(as_named_measures(["ir_measures:nDCG@10", "ir_measures:NDCG@10", "ndcg@10"]))
    ['nDCG@10', 'NDCG@10', 'ndcg@10']
    >>> list(as_named_measures(["ir_measures:nDCG@10", "ndcg(gain=linear)@10"]))  # 9.x, 10.0
    ['nDCG@10', 'ndcg(gain=linear)@10']
    """
    if isinstance(measures, Mapping):
        pairs = [(check_output_name(name), as_measure(item)) for name, item in measures.items()]
    else:
        items: object = [measures] if isinstance(measures, Measure | str) else measures
        if not isinstance(items, Iterable):
            msg = (
                f"expected a measure, its name, a list of them or a mapping name -> measure, "
                f"got {excerpt(measures)}; valid names: {valid_names()}"
            )
            raise UnknownMeasureError(msg)
        measures_of = [(item, as_measure(item)) for item in items]
        pairs = [(_default_name(item, measure), measure) for item, measure in measures_of]
    named: dict[str, Measure] = {}
    for name, measure in pairs:
        if named.setdefault(name, measure) != measure:
            msg = (
                f"two measures are named {name!r}: {str(named[name])!r} and {str(measure)!r}; "
                f"name them apart with a mapping, e.g. {{{name!r}: {str(named[name])!r}, "
                f"{name + '_2'!r}: {str(measure)!r}}}"
            )
            raise InvalidValueError(msg)
    if not named:
        msg = f"no measures given; valid names: {valid_names()}"
        raise UnknownMeasureError(msg)
    return named


def _default_name(item: object, measure: Measure) -> str:
    """The column name of a measure given without one: its canonical name, or the
    ir_measures string as written."""
    ir_text = ir_measures_text(item) if isinstance(item, str) else None
    return str(measure) if ir_text is None else ir_text


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
