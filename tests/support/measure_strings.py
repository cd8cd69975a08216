"""Measure strings drawn by hypothesis: valid and invalid ones in the grammar, with the
rule each breaks, and garbage a config file or a form could hand over.

:data:`MEASURES` lists valid measures of every family (the hostile table tests draw from
them) and :data:`BOUNDED` the families whose values lie in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import assume
from hypothesis import strategies as st

from polars_graded.measures import MEASURES as REGISTERED
from polars_graded.measures.registry import ALIASES

MEASURE_NAMES = (
    *("mu_ap", "ap", "ndcg", "ndcng", "dcg", "p", "recall", "r_precision", "rr"),
    *("mean_ndcg", "mean_ndcng", "err", "rbp", "rbp_residual", "bpref", "judged", "success"),
)
THRESHOLD_MEASURES = frozenset(
    {"ap", "p", "recall", "r_precision", "rr", "rbp", "bpref", "success"}
)
_PARAMS: dict[str, tuple[str, ...]] = {
    "mu_ap": ("levels",),
    "ndcg": ("gain",),
    "dcg": ("gain", "base"),
    "mean_ndcg": ("gain",),
    "err": ("max_rel",),
    "rbp": ("p", "rel"),
    "rbp_residual": ("p",),
}
_VALUES: dict[str, tuple[str, ...]] = {
    "rel": ("1", "2", "0.5", "3", "1e-9", "0", "-1", "-0.0", "2.0", "nan", "inf", "1e400"),
    "gain": ("exp", "linear", "{1:3,2:9}", "{0:1}", "{}", "{1:-1}", "{-1:5}", "{2:1e308}", "x"),
    "base": ("2", "10", "1.5", "1", "0", "-2", "1e-300"),
    "p": ("0.5", "0.8", "0.99", "1", "0", "1e-300"),
    "max_rel": ("1", "4", "10", "1023", "1024", "2000", "0", "1e308"),
    "levels": ("query", "table", "[1,2,3]", "[0.5]", "[1,1]", "[0]", "[]", "[1e308]", "other"),
    "k": ("1", "3", "10", "0", "99999999999999999999"),
}
MEASURES = (
    *("mu_ap", "mu_ap(levels=table)", "mu_ap(levels=[1,2.5])", "ap", "ap(rel=2)@5"),
    *("ndcg@10", "ndcg(gain=linear)", "ndcg(gain={1:3,2:9})", "ndcng@5", "dcg(base=10)@3"),
    *("mean_ndcg", "mean_ndcng", "p@3", "recall@5", "r_precision", "rr", "success@2", "bpref"),
    *("err@5", "err(max_rel=10)", "rbp(p=0.5)", "rbp_residual@5", "judged@3"),
)
"""Valid measures of every family; the hostile table tests draw from these."""
BOUNDED = ("mu_ap", "ap", "ndcg", "ndcng", "mean_", "p", "recall", "r_precision", "rr", "success")
"""Families whose values lie in [0, 1] on any input (dcg and the user models need not)."""


@dataclass(frozen=True)
class MeasureSpec:
    """A drawn measure string and the rule it breaks, if any (then it must raise)."""

    text: str
    must_raise: str | None = None


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@st.composite
def measure_specs(draw: st.DrawFn) -> MeasureSpec:
    """A measure string in the grammar ``name[(param=value, ...)][@k]``, in any case and
    spacing, with valid and invalid parameter values.

    ``must_raise`` is set for what the contract rejects: an unknown name, an unknown
    parameter, a cutoff below 1 or given twice (``k=3`` and ``@4``), a relevance threshold
    <= 0 (issue 14, item 8).
    """
    known = draw(st.booleans()) or draw(st.booleans())
    name = (
        draw(st.sampled_from((*MEASURE_NAMES, *sorted(ALIASES))))
        if known
        else draw(st.from_regex(r"[a-z_]{1,8}", fullmatch=True))
    )
    base = ALIASES.get(name, name)
    # A drawn name may be a measure this strategy does not describe (its rules below cover
    # MEASURE_NAMES only): draw again.
    assume(base in MEASURE_NAMES or base not in REGISTERED)
    allowed = ("k", *(("rel",) if base in THRESHOLD_MEASURES else ()), *_PARAMS.get(base, ()))
    chosen = draw(st.lists(st.sampled_from([*allowed, "bogus"]), max_size=2, unique=True))
    params = {p: draw(st.sampled_from(_VALUES.get(p, ("1",)))) for p in chosen}
    at_k = draw(st.none() | st.sampled_from(_VALUES["k"]))
    must_raise = None
    if base not in MEASURE_NAMES:
        must_raise = "unknown measure"
    elif "bogus" in params:
        must_raise = "unknown parameter"
    elif any(v is not None and int(v) < 1 for v in (params.get("k"), at_k)):
        must_raise = "cutoff k < 1"
    elif "k" in params and at_k is not None:
        must_raise = "cutoff given twice"
    elif "rel" in params and (_number(params["rel"]) or 0.0) <= 0 and params["rel"] != "nan":
        must_raise = "relevance threshold <= 0"
    space = st.sampled_from(["", "", " ", "  ", "\t"])
    upper = draw(st.booleans())
    text = name.upper() if upper else name
    if params:
        inner = f",{draw(space)}".join(
            f"{p}{draw(space)}={draw(space)}{v}" for p, v in params.items()
        )
        text += f"{draw(space)}({inner})"
    if at_k is not None:
        text += f"{draw(space)}@{draw(space)}{at_k}"
    return MeasureSpec(draw(space) + text + draw(space), must_raise)


GRAMMAR_CHARS = "ap_ndcgmurel=()[]{},:@.0123456789-+eE \t\n#'\"\\/xé😀\u00a0\u200b"
measure_garbage = st.one_of(
    st.text(alphabet=GRAMMAR_CHARS, max_size=40),
    st.text(max_size=30),
    st.binary(max_size=40).map(lambda b: b.decode("utf-8", errors="replace")),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
)
"""Strings a config file, a form or a corrupt file could hand over as a measure name."""
