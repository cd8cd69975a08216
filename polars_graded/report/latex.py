r"""A report's tables for a paper (``report.tex``): the means with the best in bold and the
marks of the baseline comparison (:func:`~polars_graded.stats.latex.means_latex`), and with
``all_pairs`` the compact letters of every measure. A document fragment to ``\input``; it
needs ``\usepackage{booktabs,amssymb}``. Every text the user chose (the title, the names
of the systems and measures) goes through :func:`~polars_graded.stats.latex.escape`, line
breaks included, in the comments too."""

from __future__ import annotations

from polars_graded.report.content import Report
from polars_graded.report.pairs import letters_table
from polars_graded.stats.latex import escape, means_latex, to_latex
from polars_graded.stats.options import CORRECTION_NAMES, TEST_NAMES

LATEX_FILE = "report.tex"
"""The file :func:`~polars_graded.report.write_report` writes with ``latex=True``."""


def to_latex_report(report: Report) -> str:
    r"""The report's tables as a LaTeX fragment: the means (systems in report order, the
    baseline first), then with ``Settings.all_pairs`` the compact letters.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> tex = to_latex_report(rep)
    >>> tex.splitlines()[0], r"\label{tab:means}" in tex, "letters" in tex
    ('% Evaluation report: polars_graded report.tex', True, False)
    """
    s = report.settings
    stats = s.statistics
    title = escape(s.title)
    parts = [
        # Escaped like every text here: a line break in the title would end the comment.
        f"% {title}: polars_graded {LATEX_FILE}",
        f"% {report.versions}; {report.created}",
        r"% needs \usepackage{booktabs,amssymb}",
        "",
        means_latex(
            report.comparison,
            measures=s.measures,
            order=report.order,
            alpha=stats.alpha,
            test=stats.test,
            caption=f"{title}: mean per system over {_queries(report):,} queries.",
            label="tab:means",
        ),
    ]
    if s.all_pairs and report.pairs is not None:
        letters = to_latex(
            letters_table(report, report.pairs),
            caption=f"{title}: compact letters per measure. Systems that share a letter are "
            f"not significantly different ({TEST_NAMES[stats.test]}, "
            f"{_correction(report)}, $\\alpha = {stats.alpha:g}$).",
            label="tab:letters",
        )
        parts += ["", letters]
    return "\n".join(parts)


def _queries(report: Report) -> int:
    """The queries the means are over (the same for every system: see ``missing``)."""
    return int(report.comparison["n_queries"].max())  # type: ignore[arg-type]


def _correction(report: Report) -> str:
    """The correction across pairs, in words."""
    n = len(report.order)
    pairs = n * (n - 1) // 2
    correction = CORRECTION_NAMES[report.settings.statistics.correction]
    return f"p-values {correction} over the {pairs} pairs"
