"""The options every entry point shares, checked once: the table spec and the tie policy.

A user passes ``query=``, ``item=``, ``score=``, ``relevance=``, ``by=``, ``ranked=``,
``ties=``, ``compat=``, ``judged_only=`` and ``depth=`` as keywords (:class:`ColumnOptions`);
:meth:`TableSpec.of` checks them and gives the one frozen object the rest of the code reads.
The tie policy travels as a :class:`Ties` object with the predicates the ranking and the
measures ask of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Literal, TypedDict, get_args

from polars_graded.errors import InvalidValueError

TiePolicy = Literal["trec_eval", "input", "optimistic", "pessimistic", "average"]
"""How rows with equal scores are ordered, or averaged over (see :class:`Ties`)."""
TIE_POLICIES: tuple[str, ...] = get_args(TiePolicy)

Compat = Literal["trec_eval_10", "trec_eval_9"]
"""Which trec_eval release's numbers to reproduce where they differ (:func:`check_compat`)."""
COMPATS: tuple[str, ...] = get_args(Compat)
DEFAULT_COMPAT: Compat = "trec_eval_10"


SCORE_PRECISION: dict[str, str] = {
    "trec_eval_10": "as doubles, as trec_eval 10.0 does",
    "trec_eval_9": "as 32-bit floats, as trec_eval 9.x and pytrec_eval do",
}
"""How each release compares scores, in words (the report's conventions)."""


def check_compat(compat: object) -> Compat:
    """A ``compat=`` value, checked.

    ``"trec_eval_10"`` (the default) follows trec_eval 10.0: scores are compared as 64-bit
    floats, and interpolated precision's recall point ``x`` is the ``round(x R)``-th relevant
    row. ``"trec_eval_9"`` reproduces trec_eval 9.x and pytrec_eval (which ir_measures runs)
    exactly: scores are compared as 32-bit floats, so scores equal in their first ~7
    significant digits tie, and the recall point is the ``(long)(x R + 0.9)``-th relevant
    row. The ``ir_measures:`` names always use ``"trec_eval_9"``.

    Examples
    --------
    >>> check_compat("trec_eval_9")
    'trec_eval_9'
    >>> check_compat("9")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: compat= must be one of 'trec_eval_10', ...
    """
    if compat not in COMPATS:
        choices = ", ".join(map(repr, COMPATS))
        msg = f"compat= must be one of {choices}; got {compat!r}"
        raise InvalidValueError(msg)
    return compat  # type: ignore[return-value]


@dataclass(frozen=True)
class Ties:
    """A checked tie policy, with the questions the code asks of it.

    ``"trec_eval"`` (item descending among equal scores, as trec_eval), ``"input"`` (the
    rows' own order), ``"optimistic"`` / ``"pessimistic"`` (the higher / lower label first)
    or ``"average"`` (the expected value over every order of each tied group, McSherry and
    Najork, ECIR 2008).

    Examples
    --------
    >>> Ties.of("average").averaged
    True
    >>> str(Ties.of("optimistic"))
    'optimistic'
    """

    policy: TiePolicy = "trec_eval"

    def __post_init__(self) -> None:
        if self.policy not in TIE_POLICIES:
            choices = ", ".join(map(repr, TIE_POLICIES))
            msg = f"ties= must be one of {choices}; got {self.policy!r}"
            raise InvalidValueError(msg)

    @classmethod
    def of(cls, ties: object) -> Ties:
        """The policy of a ``ties=`` argument (a name or a :class:`Ties`), checked."""
        return ties if isinstance(ties, Ties) else cls(ties)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return self.policy

    @property
    def averaged(self) -> bool:
        """Values are averaged over the orders of each tied group."""
        return self.policy == "average"

    @property
    def by_item(self) -> bool:
        """Ties must come item descending (trec_eval's order, which ``average`` sorts by too)."""
        return self.policy == "trec_eval"

    @property
    def in_input_order(self) -> bool:
        """Tied rows keep the table's own row order."""
        return self.policy == "input"

    @property
    def by_label(self) -> bool:
        """Tied rows are ordered by their label (optimistic or pessimistic)."""
        return self.policy in ("optimistic", "pessimistic")

    @property
    def best_first(self) -> bool:
        """Among tied rows, the higher label comes first."""
        return self.policy == "optimistic"


def as_by(by: str | Sequence[str] | None) -> tuple[str, ...]:
    """Normalise a ``by=`` argument to a tuple of column names.

    Examples
    --------
    >>> as_by("system")
    ('system',)
    """
    if by is None:
        return ()
    if isinstance(by, str):
        return (by,)
    return tuple(by)


class RankingOptions(TypedDict, total=False):
    """The keywords of :class:`ColumnOptions` but the key columns ``query`` and ``by``: how
    each ranking is read.

    ``df.graded.compare`` takes these as ``**columns`` beside the ``by=`` and ``query=`` it
    shares with :func:`polars_graded.compare`. Each is described in :class:`ColumnOptions`.
    """

    item: str
    score: str
    relevance: str
    ranked: bool
    ties: TiePolicy
    compat: Compat
    judged_only: bool
    depth: int | None


class ColumnOptions(RankingOptions, total=False):
    """Keyword arguments describing the table, shared by every entry point.

    query, item, score, relevance
        Column names (defaults: ``"query"``, ``"item"``, ``"score"``, ``"relevance"``).
    by
        Extra key column(s), e.g. ``"system"``: every result is keyed by ``by + [query]``.
    ranked
        ``True`` when the rows are already in ranked order, as in TREC run files and most
        ranking logs: sorted by ``by + [query]``'s groups (each query's rows contiguous),
        then score descending, ties by item descending, rows with a null score last. The
        per-query sort is skipped; rows out of that order raise an error naming a query
        and an item. Default ``False``: the rows may come in any order.
    ties
        How rows with equal scores are ordered: ``"trec_eval"``
        (default: item descending, as trec_eval), ``"input"`` (the rows' order in the
        table), ``"optimistic"`` / ``"pessimistic"`` (the higher / lower label first), or
        ``"average"``: the exact expected value of each measure over every order of each
        group of tied rows (McSherry and Najork, ECIR 2008), in closed form. With
        ``ranked=True``, ``"trec_eval"`` requires ties by item descending and the others
        take tied rows in any order.
    compat
        Which trec_eval release to reproduce where releases differ: ``"trec_eval_10"``
        (default: scores compared as 64-bit floats, as trec_eval 10.0) or ``"trec_eval_9"``
        (trec_eval 9.x and pytrec_eval: scores compared as 32-bit floats, so scores that
        agree in their first ~7 digits tie; interpolated precision's 9.x recall points).
        See :func:`check_compat`.
    judged_only
        ``True``: rank the judged rows only (trec_eval ``-J``, the condensed list): rows
        that are unjudged (null relevance) or carry a negative label leave the ranking, the
        others move up; as trec_eval, only labels >= 0 count as judged. Default ``False``.
    depth
        ``N``: only the first N ranked rows of each ranking count as retrieved (trec_eval
        ``-M N``); the rows below stay in the judgments (R counts them) as unretrieved.
        Applied before ``judged_only``, as trec_eval does. Default ``None``: every row.
        Neither option combines with ``ties="average"``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({"q": [1, 1], "doc": ["a", "b"], "score": [2.0, 1.0],
    ...                    "relevance": [0, 1]})
    >>> columns: ColumnOptions = {"query": "q", "item": "doc"}
    >>> pg.evaluate(df, ["rr"], **columns).rows()  # the relevant row is second
    [(1, 0.5)]
    """

    query: str
    by: str | Sequence[str] | None


@dataclass(frozen=True)
class TableSpec:
    """The long table's columns and how to read them, as the user gave them.

    Examples
    --------
    >>> spec = TableSpec.of({"by": "system", "ties": "average"})
    >>> spec.keys, spec.ties.averaged
    (['system', 'query'], True)
    """

    query: str = "query"
    item: str = "item"
    score: str = "score"
    relevance: str = "relevance"
    by: tuple[str, ...] = ()
    ranked: bool = False
    """The rows are already in ranked order: no sort (see :func:`ranking.mark_ranked_order`)."""
    ties: Ties = field(default_factory=Ties)
    compat: Compat = DEFAULT_COMPAT
    """Which trec_eval release's ranking and rounding to reproduce (:func:`check_compat`)."""
    judged_only: bool = False
    """Rank the judged rows only (trec_eval ``-J``)."""
    depth: int | None = None
    """Only the first ``depth`` ranked rows are retrieved (trec_eval ``-M``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "by", as_by(self.by))
        object.__setattr__(self, "ties", Ties.of(self.ties))
        check_compat(self.compat)
        for name in ("ranked", "judged_only"):
            flag: object = getattr(self, name)  # typed bool, but it comes from the user
            if not isinstance(flag, bool):
                msg = f"{name}= must be True or False, got {flag!r}"
                raise TypeError(msg)
        _check_depth(self.depth)
        if self.cuts_rankings and self.ties.averaged:
            msg = (
                "judged_only= and depth= do not combine with ties='average' (which rows a "
                "cut or a removal leaves depends on the order inside each tie group); "
                "choose another tie policy"
            )
            raise InvalidValueError(msg)

    @classmethod
    def of(cls, options: Mapping[str, object] | TableSpec) -> TableSpec:
        """The spec of a :class:`ColumnOptions` mapping; unknown keywords are a ``TypeError``."""
        if isinstance(options, TableSpec):
            return options
        unknown = sorted(set(options) - set(_TABLE_OPTIONS))
        if unknown:
            known = ", ".join(f"{name}=" for name in _TABLE_OPTIONS)
            msg = f"unknown keyword argument(s) {unknown}; the table arguments are {known}"
            raise TypeError(msg)
        return cls(**options)  # type: ignore[arg-type]

    @property
    def cuts_rankings(self) -> bool:
        """Whether ``judged_only`` or ``depth`` changes the rankings.

        Examples
        --------
        >>> TableSpec().cuts_rankings, TableSpec(depth=100).cuts_rankings
        (False, True)
        """
        return self.judged_only or self.depth is not None

    @property
    def scores_as_float32(self) -> bool:
        """Whether scores are compared as 32-bit floats (trec_eval 9.x), not as doubles.

        Examples
        --------
        >>> TableSpec().scores_as_float32, TableSpec(compat="trec_eval_9").scores_as_float32
        (False, True)
        """
        return self.compat == "trec_eval_9"

    @property
    def keys(self) -> list[str]:
        """The columns that identify one ranked list: ``by + [query]``."""
        return [*self.by, self.query]

    @property
    def columns(self) -> list[str]:
        """Every column the evaluation reads: ``by``, query, item, score, relevance."""
        return [*self.keys, self.item, self.score, self.relevance]

    def options(self) -> ColumnOptions:
        """The keywords that give this spec back, for a public function's ``**columns``.

        The typed API takes the spec itself (:func:`polars_graded.api.evaluate_spec`).
        """
        return ColumnOptions(
            query=self.query,
            item=self.item,
            score=self.score,
            relevance=self.relevance,
            by=self.by,
            ranked=self.ranked,
            ties=self.ties.policy,
            compat=self.compat,
            judged_only=self.judged_only,
            depth=self.depth,
        )


_TABLE_OPTIONS = tuple(f.name for f in fields(TableSpec))
"""The keywords of :class:`ColumnOptions`, in the order of the spec's fields."""


def _check_depth(depth: object) -> None:
    """``depth=`` is ``None`` or a positive integer (not a bool)."""
    if depth is None:
        return
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        msg = f"depth= must be a positive integer or None, got {depth!r}"
        raise InvalidValueError(msg)
