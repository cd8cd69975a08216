"""The refusal of ``ties="average"`` by measures without a closed form under it.

Averaging over the orders of tied rows (:mod:`polars_graded.measures.kernels.tie_average`) needs
the expected value of the measure in closed form. Measures whose terms are ratios or
logarithms of what the rows above hold (infAP, G; ndcg_rel with a negative gain) have none
here; they refuse the policy by name rather than return a value that is not the
expectation.
"""

from __future__ import annotations

from polars_graded.errors import MeasureParameterError
from polars_graded.options import TIE_POLICIES
from polars_graded.ranking import Ranked

NO_CLOSED_FORM = "its value over the orders of tied rows has no closed form here"


def refuse_averaged_ties(r: Ranked, measure: str, why: str = NO_CLOSED_FORM) -> None:
    """Raise a :class:`MeasureParameterError` naming ``measure`` when ``r`` averages ties.

    Examples
    --------
    >>> from polars_graded.ranking import rank_in_group
    >>> refuse_averaged_ties(rank_in_group(), "infap")  # any other policy: nothing
    >>> refuse_averaged_ties(rank_in_group(ties="average"), "infap")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.MeasureParameterError: infap: ties='average' is not supported ...
    """
    if r.averages_ties:
        others = ", ".join(repr(p) for p in TIE_POLICIES if p != "average")
        msg = (
            f"{measure}: ties='average' is not supported ({why}); use another tie policy: {others}"
        )
        raise MeasureParameterError(msg)
