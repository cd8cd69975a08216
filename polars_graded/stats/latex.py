r"""LaTeX tables for papers: any frame as a ``booktabs`` tabular (:func:`to_latex`), and the
means of a baseline comparison with the best in bold and significance marks
(:func:`means_latex`).

The output needs ``\usepackage{booktabs}`` and, for the default triangles of
:func:`means_latex`, ``\usepackage{amssymb}``. Text cells and headers are escaped
(:func:`escape`); numbers are right-aligned with a fixed number of decimals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, cast, get_args

import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.frames import Table, as_dataframe
from polars_graded.stats.corrections import adjusted_column, correction_of
from polars_graded.stats.grid import P_VALUES
from polars_graded.stats.options import (
    CORRECTION_NAMES,
    DEFAULTS,
    TEST_NAMES,
    Correction,
    Test,
    check_fraction,
    check_test,
)

Marks = Literal["triangles", "daggers"]
"""How :func:`means_latex` marks a significant difference from the baseline."""
MARKS: dict[str, tuple[str, str]] = {
    "triangles": (r"$^\blacktriangle$", r"$^\blacktriangledown$"),
    "daggers": (r"$^\dagger$", r"$^\ddagger$"),
}
"""Per :data:`Marks`: the mark of significantly better, then of significantly worse."""

_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # Not special, but the default OT1 encoding prints them as ¡, ¿ and an em dash.
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_ESCAPES = str.maketrans(_SPECIALS)
_MISSING = "--"


def escape(text: str) -> str:
    r"""``text`` with LaTeX's special characters escaped (``& % $ # _ { } ~ ^ \``, and
    ``< > |``, which the default font encoding misprints) and its line breaks made spaces
    (a blank line would end a table row's paragraph, a line break a ``%`` comment).

    Examples
    --------
    >>> print(escape("ndcg@10 & p_10: 50% {x}"))
    ndcg@10 \& p\_10: 50\% \{x\}
    """
    return " ".join(text.splitlines()).translate(_ESCAPES)


def to_latex(
    frame: Table,
    *,
    caption: str | None = None,
    label: str | None = None,
    decimals: int = 4,
    note: str | None = None,
) -> str:
    r"""``frame`` as a ``booktabs`` tabular: ``\toprule``, the escaped column names,
    ``\midrule``, a row per row, ``\bottomrule``.

    Numeric columns are right-aligned, the others left-aligned; floats have ``decimals``
    decimals, a negative number a math minus (``$-$``), a null ``--``; other values are
    their text, escaped.

    Parameters
    ----------
    frame
        Any table, e.g. the output of :func:`polars_graded.compare` or
        :func:`polars_graded.stats.pairs`: a Polars DataFrame or LazyFrame (collected), a
        pandas DataFrame or an Arrow table (converted by
        :func:`~polars_graded.frames.as_polars`).
    caption, label
        Given either, the tabular is wrapped in a centred ``table`` environment with
        ``\caption`` and ``\label`` (both LaTeX, as given).
    decimals
        Decimals of every float.
    note
        A line (LaTeX, as given) set in small type under the tabular.

    Returns
    -------
    str
        The LaTeX source, ending with a newline.

    Raises
    ------
    InvalidValueError
        ``decimals`` is negative.
    ColumnTypeError
        ``frame`` is not a table (a list, a dict: :data:`~polars_graded.frames.ACCEPTED`
        says what is).

    Examples
    --------
    >>> df = pl.DataFrame({"system": ["bm_25"], "ap": [0.31234], "diff": [-0.05], "n": [50]})
    >>> print(to_latex(df, decimals=3))
    \begin{tabular}{lrrr}
    \toprule
    system & ap & diff & n \\
    \midrule
    bm\_25 & 0.312 & $-$0.050 & 50 \\
    \bottomrule
    \end{tabular}
    <BLANKLINE>
    """
    table = as_dataframe(frame, "to_latex")
    if decimals < 0:
        msg = f"decimals must be 0 or more, got {decimals}"
        raise InvalidValueError(msg)
    align = "".join("r" if dtype.is_numeric() else "l" for dtype in table.dtypes)
    rows = [[_cell(value, decimals) for value in row] for row in table.iter_rows()]
    header = [escape(c) for c in table.columns]
    return _tabular(header, rows, align, caption=caption, label=label, note=note)


def means_latex(
    comparison: Table,
    *,
    by: str = SYSTEM,
    measures: Sequence[str] | None = None,
    order: Sequence[object] | None = None,
    alpha: float = DEFAULTS.alpha,
    marks: Marks = "triangles",
    decimals: int = 4,
    caption: str | None = None,
    label: str | None = None,
    test: Test = DEFAULTS.test,
) -> str:
    r"""The means of :func:`polars_graded.compare` (systems x measures) as a ``booktabs``
    table: the best mean of each measure in bold, a mark on each mean significantly
    different from the baseline, and a note saying the test, the correction and alpha.

    A mean is marked where the corrected p-value of ``test`` (``p_randomization_holm`` by
    default, ``p_wilcoxon_holm`` for ``test="wilcoxon"``, or the column of another
    ``correction``) is below ``alpha`` (``compare``'s ``significant`` at that level, given
    the ``test`` compare was given): with ``marks="triangles"`` ``$^\blacktriangle$`` for better and
    ``$^\blacktriangledown$`` for worse (``\usepackage{amssymb}``), with ``"daggers"``
    ``$^\dagger$`` and ``$^\ddagger$``. The bold goes to every mean that shows (to
    ``decimals``) as the highest.

    Parameters
    ----------
    comparison
        The output of ``compare`` against a baseline (its baseline is the system whose
        tests are null), as a Polars DataFrame or LazyFrame, a pandas DataFrame or an
        Arrow table.
    by
        Its system column.
    measures
        The measures to show, in order (default: all, in the comparison's order).
    order
        The systems, in the order of the rows (default: the comparison's order, the
        baseline first).
    alpha
        The significance level of the marks.
    test
        The test whose corrected p-values mark the means: ``"randomization"`` (default),
        ``"t"`` or ``"wilcoxon"``, as ``compare``'s ``test``.
    marks, decimals, caption, label
        As above, and as in :func:`to_latex`.

    Returns
    -------
    str

    Raises
    ------
    MissingColumnError
        ``comparison`` lacks a column of ``compare``'s output.
    InvalidValueError
        No single baseline, an unknown measure, or an ``order`` that is not a permutation
        of the systems.
    ColumnTypeError
        ``comparison`` is not a table (a list, a dict:
        :data:`~polars_graded.frames.ACCEPTED` says what is).

    Examples
    --------
    >>> from polars_graded.stats.compare import compare
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 6 + ["b"] * 6,
    ...     "query": list(range(6)) * 2,
    ...     "ap": [0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.9, 0.8, 0.9, 0.8, 0.9, 0.8],
    ... })
    >>> table = means_latex(compare(per_query, trials=1000, bootstrap=10))
    >>> print(table)  # doctest: +ELLIPSIS
    \begin{tabular}{lr}
    \toprule
    system & ap \\
    \midrule
    a & 0.1500 \\
    b & \textbf{0.8500}$^\blacktriangle$ \\
    \bottomrule
    \end{tabular}
    <BLANKLINE>
    \smallskip{\footnotesize $^\blacktriangle$\,/\,$^\blacktriangledown$: ... of each measure.\par}
    <BLANKLINE>
    """
    table = as_dataframe(comparison, "means_latex")
    correction = _check_comparison(table, by, marks, alpha)
    check_test(test)
    adjusted = adjusted_column(P_VALUES[test], correction)
    if adjusted not in table.columns:
        msg = f"means_latex(test={test!r}) needs column {adjusted!r} of compare()'s output"
        raise MissingColumnError(msg)
    baseline = _baseline(table, by)
    names = _measures(table, measures)
    systems = _systems(table, by, order)
    better, worse = MARKS[marks]
    header = [escape(by), *(escape(m) for m in names)]
    cells: dict[tuple[str, str], str] = {}
    for m in names:
        rows = table.filter(pl.col("measure") == m).to_dicts()
        shown = {str(r[by]): _cell(r["mean"], decimals) for r in rows}
        best = max((r["mean"] for r in rows), default=None)
        for r in rows:
            text = shown[str(r[by])]
            if best is not None and text == _cell(best, decimals):
                text = rf"\textbf{{{text}}}"
            p = r[adjusted]
            if p is not None and p < alpha:
                text += better if r["diff"] > 0 else worse
            cells[str(r[by]), m] = text
    body = [[escape(s), *(cells.get((s, m), _MISSING) for m in names)] for s in systems]
    others = len(systems) - 1
    note = (
        f"{better}\\,/\\,{worse}: significantly better\\,/\\,worse than the baseline "
        f"{escape(baseline)} ({TEST_NAMES[test]}, p-values "
        f"{CORRECTION_NAMES[correction]} over the {others} system{'s' * (others != 1)} "
        "compared with it, "
        f"$\\alpha = {alpha:g}$). Bold: the best mean of each measure."
    )
    return _tabular(header, body, "l" + "r" * len(names), caption=caption, label=label, note=note)


def _cell(value: object, decimals: int) -> str:
    """A value as a LaTeX cell: fixed decimals for floats, a math minus, ``--`` for null."""
    if value is None:
        return _MISSING
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        text = f"{value:.{decimals}f}"
    elif isinstance(value, int):
        text = str(value)
    else:
        return escape(str(value))
    return f"$-${text[1:]}" if text.startswith("-") else text


def _tabular(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    align: str,
    *,
    caption: str | None,
    label: str | None,
    note: str | None,
) -> str:
    """The ``booktabs`` tabular of LaTeX cells, wrapped in ``table`` given a caption or label."""
    lines = [
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
        *(" & ".join(row) + r" \\" for row in rows),
        r"\bottomrule",
        r"\end{tabular}",
    ]
    if note is not None:
        lines += ["", rf"\smallskip{{\footnotesize {note}\par}}"]
    if caption is None and label is None:
        return "\n".join(lines) + "\n"
    head = [r"\begin{table}", r"\centering"]
    head += [rf"\caption{{{caption}}}"] if caption is not None else []
    head += [rf"\label{{{label}}}"] if label is not None else []
    return "\n".join([*head, *lines, r"\end{table}"]) + "\n"


def _check_comparison(comparison: pl.DataFrame, by: str, marks: object, alpha: float) -> Correction:
    """``comparison`` has ``compare``'s columns; ``marks`` and ``alpha`` are valid. Returns
    the correction its adjusted p-values are named after."""
    correction = correction_of(comparison.columns, "p_randomization")
    needed = [by, "measure", "mean", "diff", "p_randomization"]
    needed += ["p_randomization_holm"] if correction is None else []
    absent = [c for c in needed if c not in comparison.columns]
    if absent:
        msg = (
            f"means_latex takes the output of compare() against a baseline; it lacks {absent} "
            f"(columns: {comparison.columns})"
        )
        raise MissingColumnError(msg)
    if marks not in MARKS:
        msg = f"marks must be {' or '.join(map(repr, get_args(Marks)))}, got {marks!r}"
        raise InvalidValueError(msg)
    check_fraction("alpha", alpha)
    return cast(Correction, correction)


def _baseline(comparison: pl.DataFrame, by: str) -> str:
    """The one system whose tests are null (compare's baseline)."""
    found = comparison.filter(pl.col("p_randomization").is_null())[by].unique().to_list()
    if len(found) != 1:
        msg = f"means_latex needs one baseline (the system with null tests); found {found}"
        raise InvalidValueError(msg)
    return str(found[0])


def _measures(comparison: pl.DataFrame, measures: Sequence[str] | None) -> list[str]:
    present = comparison["measure"].unique(maintain_order=True).to_list()
    if measures is None:
        return present
    unknown = [m for m in measures if m not in present]
    if unknown:
        msg = f"measures {unknown} are not in the comparison; it has {present}"
        raise InvalidValueError(msg)
    return [str(m) for m in measures]


def _systems(comparison: pl.DataFrame, by: str, order: Sequence[object] | None) -> list[str]:
    present = [str(s) for s in comparison[by].unique(maintain_order=True)]
    if order is None:
        return present
    wanted = [str(s) for s in order]
    if sorted(wanted) != sorted(present):
        msg = f"order must list each system of the comparison once: {present}, got {wanted}"
        raise InvalidValueError(msg)
    return wanted
