"""The measure grammar (polars_graded/measures/names/grammar.py), read through
``pg.parse_measure``: names, parameters, canonical names, and hostile strings (long,
unbalanced, code) that must fail at once. Output names are test_measures_names_parse's."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.tables import RENAMED_COLUMNS, renamed_table

import polars_graded as pg
from polars_graded.measures.names import grammar
from polars_graded.measures.names.grammar import split_top_level

# Read from the module when used, so that this file also runs against older code.
MAX_MEASURE_LENGTH = 1000
MAX_ENTRIES = 100

# --- measure names --------------------------------------------------------------------------

VALID_NAMES = [
    "mu_ap",
    "ap",
    "ndcg",
    "ndcng",
    "dcg",
    "p",
    "recall",
    "r_precision",
    "rr",
    "mean_ndcg",
    "mean_ndcng",
]


@pytest.mark.parametrize("name", ["nope", "ndcgg@10", "map_cut_10", "µap", "ap@", "@10", ""])
def test_unknown_measure_lists_valid_names(name: str) -> None:
    with pytest.raises(pg.UnknownMeasureError) as info:
        pg.parse_measure(name)
    message = str(info.value)
    for valid in VALID_NAMES:
        assert valid in message


def test_unknown_measure_in_namespace() -> None:
    with pytest.raises(pg.UnknownMeasureError) as info:
        renamed_table().graded.evaluate(["mu_ap", "nope"], **RENAMED_COLUMNS)
    assert "nope" in str(info.value)
    assert "ndcng" in str(info.value)
    with pytest.raises(pg.UnknownMeasureError):
        renamed_table().lazy().graded.summary("nope", **RENAMED_COLUMNS).collect()


@pytest.mark.parametrize(
    "text",
    [
        "ap(foo=1)",
        "ndcg@0",
        "ndcg(gain=cubic)",
        "mu_ap(levels=[0,1])",
        "mu_ap(levels=cats)",
        "mu_ap(levels=[])",
        "ap(rel=nan)",
        "ap(rel=inf)",
        "ndcg(gain={1:})",
        "dcg(base=x)",
    ],
)
def test_bad_parameters(text: str) -> None:
    with pytest.raises((pg.MeasureParameterError, pg.UnknownMeasureError)) as info:
        pg.parse_measure(text)
    assert isinstance(info.value, ValueError)


def test_bad_parameters_on_objects() -> None:
    with pytest.raises(pg.MeasureParameterError):
        pg.AP(foo=1)
    with pytest.raises(pg.MeasureParameterError):
        pg.NDCG @ 0
    with pytest.raises(pg.MeasureParameterError):
        pg.NDCG(gain="cubic")
    with pytest.raises(pg.MeasureParameterError):
        renamed_table().graded.ndcg(k=-1, **RENAMED_COLUMNS)


CANONICAL = [
    "mu_ap",
    "mu_ap(levels=table)",
    "mu_ap(levels=[1,2,3])",
    "mu_ap@10",
    "mu_ap(levels=[0.3,1])",
    "mu_ap(levels=table)@5",
    "ap",
    "ap(rel=2)",
    "ap(rel=2)@10",
    "ap@100",
    "ap(rel=0.5)",
    "ndcg",
    "ndcg@10",
    "ndcg(gain=linear)@10",
    "ndcg(gain={1:3,2:9,4:4.5})",
    "ndcng",
    "ndcng@10",
    "dcg@8",
    "dcg(base=10)@8",
    "p@5",
    "p(rel=2)@10",
    "p",
    "recall@100",
    "recall",
    "r_precision",
    "r_precision(rel=2)",
    "rr",
    "rr(rel=2)",
    "rr@10",
    "mean_ndcg",
    "mean_ndcng",
    "mean_ndcg(gain=linear)",
    # a measure's own trec_eval release (the ir_measures: names set trec_eval_9)
    "ap(compat=trec_eval_9)",
    "ndcg(compat=trec_eval_9,gain=linear)@10",
    "rr(compat=trec_eval_10,rel=2)",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_round_trip(text: str) -> None:
    measure = pg.parse_measure(text)
    assert str(measure) == text
    assert pg.parse_measure(str(measure)) == measure
    assert hash(pg.parse_measure(text)) == hash(measure)
    # and the result column carries that name
    assert renamed_table().graded.evaluate(text, **RENAMED_COLUMNS).columns == ["qid", text]


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("AP(rel=2.0)@10", "ap(rel=2)@10"),
        ("NDCG@10", "ndcg@10"),
        ("ap(rel=1)", "ap"),
        ("Mu_AP", "mu_ap"),
        (" ndcng @ 5 ", "ndcng@5"),
        ("ndcg(gain=exp)", "ndcg"),
        ("dcg(base=2)@3", "dcg@3"),
        ("mu_ap(levels=[3,1,2])", "mu_ap(levels=[1,2,3])"),
    ],
)
def test_non_canonical_spellings(text: str, canonical: str) -> None:
    assert str(pg.parse_measure(text)) == canonical


def test_objects_match_names() -> None:
    assert str(pg.AP(rel=2) @ 10) == "ap(rel=2)@10"
    assert pg.parse_measure("ap(rel=2)@10") == pg.AP(rel=2) @ 10
    assert str(pg.MuAP(levels="table")) == "mu_ap(levels=table)"
    assert str(pg.MuAP(levels=[1, 2, 3])) == "mu_ap(levels=[1,2,3])"
    assert str(pg.NDCG(gain="linear") @ 10) == "ndcg(gain=linear)@10"
    assert str(pg.NDCG(gain={1: 3, 2: 9, 4: 4.5})) == "ndcg(gain={1:3,2:9,4:4.5})"
    assert str(pg.DCG(base=10) @ 8) == "dcg(base=10)@8"
    assert str(pg.R @ 100) == "recall@100"
    assert str(pg.P(rel=2) @ 10) == "p(rel=2)@10"
    assert str(pg.RPrec) == "r_precision"
    assert str(pg.MeanNDCNG) == "mean_ndcng"
    # frozen and hashable
    measure = pg.AP(rel=2) @ 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        measure.k = 5  # type: ignore[misc]
    assert len({measure, pg.parse_measure("ap(rel=2)@10"), pg.AP @ 10}) == 2
    # @ and calling return copies
    assert str(pg.AP) == "ap"


levels_st = st.lists(st.integers(1, 40).map(lambda x: x / 4), min_size=1, max_size=5, unique=True)
measures_st = st.one_of(
    st.builds(
        lambda lv, k: pg.MuAP(levels=lv, k=k),
        st.one_of(st.sampled_from(["query", "table"]), levels_st),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(
        lambda r, k: pg.AP(rel=r, k=k),
        st.integers(1, 40).map(lambda x: x / 4),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(
        lambda g, k: pg.NDCG(gain=g, k=k),
        st.one_of(
            st.sampled_from(["exp", "linear"]),
            st.dictionaries(
                st.integers(0, 8), st.integers(0, 40).map(lambda x: x / 2), min_size=1, max_size=4
            ),
        ),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(lambda k: pg.NDCNG(k=k), st.one_of(st.none(), st.integers(1, 1000))),
    st.builds(
        lambda b, k: pg.DCG(base=b, k=k),
        st.sampled_from([2, 10, 2.5, 3]),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(
        lambda r, k: pg.P(rel=r, k=k), st.integers(1, 5), st.one_of(st.none(), st.integers(1, 1000))
    ),
    st.builds(
        lambda r, k: pg.R(rel=r, k=k), st.integers(1, 5), st.one_of(st.none(), st.integers(1, 1000))
    ),
    st.builds(
        lambda r, k: pg.RR(rel=r, k=k),
        st.integers(1, 5),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(lambda r: pg.RPrec(rel=r), st.integers(1, 5)),
    st.just(pg.MeanNDCG),
    st.just(pg.MeanNDCNG),
    st.just(pg.MeanNDCG(gain="linear")),
)


@settings(max_examples=200, deadline=None)
@given(measure=measures_st)
def test_round_trip_objects(measure: pg.Measure) -> None:
    text = str(measure)
    assert pg.parse_measure(text) == measure
    assert str(pg.parse_measure(text)) == text
    assert str(pg.parse_measure(text.upper())) == text or "(" in text


# --- the grammar never evaluates code ---------------------------------------------------------

_AUDIT: dict[str, Any] = {"on": False, "events": []}


def _audit(event: str, args: object) -> None:
    if _AUDIT["on"] and event in (
        "exec",
        "compile",
        "os.system",
        "subprocess.Popen",
        "os.exec",
        "os.posix_spawn",
        "open",
    ):
        _AUDIT["events"].append(event)


def _watch_audit_events() -> None:
    """Register the (permanent, so only once) audit hook on first use."""
    if not _AUDIT.get("registered"):
        sys.addaudithook(_audit)
        _AUDIT["registered"] = True


HOSTILE = [
    "__import__('os')",
    "__import__('os').system('touch {sentinel}')",
    "ap(rel=__import__('os').system('touch {sentinel}'))",
    "ap(rel=1+1)",
    "ndcg(gain={{1:__import__('os').getpid()}})",
    "mu_ap(levels=[__import__('os').system('touch {sentinel}')])",
    "mu_ap(levels=[1,2]+[3])",
    "eval('1')",
    "ap; import os",
    "ap(rel=(lambda: 2)())",
    "ndcg(gain=open('{sentinel}','w'))",
    "ap@10; __import__('os')",
]


IR = "ir_measures:"
HOSTILE += [
    IR + "__import__('os')",
    IR + "AP(rel=__import__('os').system('touch {sentinel}'))",
    IR + "nDCG(gains={{1:__import__('os').getpid()}})",
    IR + "AP(rel=(lambda: 2)())",
    IR + "AP(rel=eval('1'))",
    IR + "AP(rel=1+1)",
    IR + "nDCG(dcg=open('{sentinel}','w'))",
    IR + "nDCG@10; __import__('os')",
    IR + "nDCG(gains={{1:2}}.update(x=1))",
    IR + "P(rel=2)@len('{sentinel}')",
]


@pytest.mark.parametrize("template", HOSTILE)
def test_grammar_never_evaluates_code(
    template: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentinel = tmp_path / "pwned"
    text = template.format(sentinel=sentinel)

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the grammar ran code")

    monkeypatch.setattr(os, "system", forbidden)
    _watch_audit_events()
    _AUDIT["events"].clear()
    _AUDIT["on"] = True
    try:
        with pytest.raises(pg.GradedError) as info:
            pg.parse_measure(text)
    finally:
        _AUDIT["on"] = False
    assert isinstance(info.value, ValueError)
    assert not sentinel.exists()
    assert _AUDIT["events"] == []
    with pytest.raises(pg.GradedError):
        renamed_table().graded.evaluate(text, **RENAMED_COLUMNS)
    assert not sentinel.exists()


# --- hostile strings: every shape fails at once, in time linear in its length ---------------

LONG = 100_000
HOSTILE_SHAPES = {
    "spaces then junk": "ap" + " " * LONG + "x",
    "spaces only": " " * LONG,
    "spaces in the parameters": "ap(" + " " * LONG + ")x",
    "spaces after @": "ap@" + " " * LONG,
    "opening parentheses": "ap" + "(" * LONG,
    "closing parentheses": "ap" + ")" * LONG,
    "nested parentheses": "(" * LONG + ")" * LONG,
    "nested brackets": "mu_ap(levels=" + "[" * LONG + "]" * LONG + ")",
    "nested braces": "ndcg(gain=" + "{" * LONG + "}" * LONG + ")",
    "commas": "ap(" + "," * LONG + ")",
    "commas in a list": "mu_ap(levels=[" + "," * LONG + "])",
    "at signs": "ap" + "@" * LONG,
    "digits as cutoff": "ap@" + "9" * LONG,
    "digits as a value": "ap(rel=" + "1" * LONG + ")",
    "digits then junk": "ap(rel=" + "1" * LONG + "x)",
    "a long name": "a" * LONG,
    "a long list": "mu_ap(levels=[" + "1," * (LONG // 2) + "])",
    "a long mapping": "ndcg(gain={" + "1:2," * (LONG // 4) + "})",
    "equals signs": "ap(rel" + "=" * LONG + ")",
    "a mix": "ap( @,1 [{=:" * (LONG // 12),
    "a mix with spaces": "ap (rel = 1 , " * (LONG // 14),
}


IR_SHAPES = {
    "ir: spaces then junk": IR + "AP" + " " * LONG + "x",
    "ir: quotes": IR + "nDCG(dcg=" + "'" * LONG + ")",
    "ir: an open quote": IR + "nDCG(dcg='" + "a" * LONG,
    "ir: nested braces": IR + "nDCG(gains=" + "{" * LONG + "}" * LONG + ")",
    "ir: a long mapping": IR + "nDCG(gains={" + "1:2," * (LONG // 4) + "})",
    "ir: commas": IR + "AP(" + "," * LONG + ")",
    "ir: parameters": IR + "AP(" + "rel=1," * (LONG // 6) + ")",
    "ir: at signs": IR + "AP" + "@" * LONG,
    "ir: digits": IR + "AP(rel=" + "1" * LONG + "x)",
    "ir: a mix": IR + "AP( @,1 [{=:'" * (LONG // 13),
}
HOSTILE_SHAPES.update(IR_SHAPES)


@pytest.mark.parametrize("shape", list(HOSTILE_SHAPES))
def test_hostile_long_strings_fail_at_once(shape: str) -> None:
    # No time is asserted: a superlinear parser makes this test hang (the old one took 49 s
    # for 4,000 spaces, and far longer here), which the suite's time limit catches.
    text = HOSTILE_SHAPES[shape]
    with pytest.raises(pg.UnknownMeasureError) as info:
        pg.parse_measure(text)
    message = str(info.value)
    assert str(MAX_MEASURE_LENGTH) in message
    assert f"{len(text)} characters" in message
    assert len(message) < 1000  # the text is shown shortened, not echoed whole
    with pytest.raises(pg.GradedError):
        renamed_table().graded.evaluate([text], **RENAMED_COLUMNS)
    with pytest.raises(pg.GradedError):
        renamed_table().graded.evaluate({"name": text}, **RENAMED_COLUMNS)


@pytest.mark.parametrize("shape", list(HOSTILE_SHAPES))
def test_hostile_shapes_within_the_length_cap_fail_at_once(shape: str) -> None:
    # The same shapes cut to the longest string the grammar reads, ending in a character no
    # measure has: the scanner, the value parser and the bracket splitter run on them.
    text = HOSTILE_SHAPES[shape][: MAX_MEASURE_LENGTH - 1] + "!"
    with pytest.raises(pg.GradedError) as info:
        pg.parse_measure(text)
    assert isinstance(info.value, ValueError)


def test_backtracking_shapes_under_the_cap() -> None:
    # The shapes that backtracked in the old patterns (adjacent optional spaces; digits
    # matched by two quantifiers), as long as the cap allows.
    n = MAX_MEASURE_LENGTH - 10
    for text in [
        "ap" + " " * n + "x",
        "ap" + " " * (n // 2) + "@" + " " * (n // 2),
        "ap(rel=" + "1" * n + "x)",
        "ap(rel=" + "1" * n + ".1.)",
    ]:
        with pytest.raises(pg.GradedError):
            pg.parse_measure(text)


@pytest.mark.parametrize(
    "text",
    [
        "(" * LONG,
        ")" * LONG,
        "[" * LONG + "}" * LONG,
        "ap, ndcg(gain={1:3" * (LONG // 18),
    ],
)
def test_split_top_level_refuses_unbalanced_brackets_at_once(text: str) -> None:
    with pytest.raises(pg.UnknownMeasureError) as info:
        split_top_level(text)
    assert "unbalanced brackets" in str(info.value)
    assert len(str(info.value)) < 1000


def test_split_top_level_on_long_balanced_text() -> None:
    assert split_top_level("," * LONG) == []
    assert split_top_level("[" * LONG + "]" * LONG) == ["[" * LONG + "]" * LONG]
    assert split_top_level("ap, " * LONG) == ["ap"] * LONG
    assert split_top_level(" mu_ap ,ndcg(gain={1:3,2:9})@5,, p@5 ") == [
        "mu_ap",
        "ndcg(gain={1:3,2:9})@5",
        "p@5",
    ]


def test_the_length_cap_is_exact() -> None:
    padded = "ap@10".ljust(MAX_MEASURE_LENGTH)
    assert str(pg.parse_measure(padded)) == "ap@10"
    with pytest.raises(pg.UnknownMeasureError, match=f"at most {MAX_MEASURE_LENGTH}"):
        pg.parse_measure(padded + " ")


@pytest.mark.parametrize(
    ("template", "count"),
    [
        ("mu_ap(levels=[{}])", MAX_ENTRIES),
        ("ndcg(gain={{{}}})", MAX_ENTRIES),
    ],
)
def test_lists_and_mappings_hold_at_most_max_entries(template: str, count: int) -> None:
    def text(n: int) -> str:
        if "levels" in template:
            return template.format(",".join(str(i) for i in range(1, n + 1)))
        return template.format(",".join(f"{i}:{i}" for i in range(1, n + 1)))

    assert len(text(count + 1)) <= MAX_MEASURE_LENGTH  # the entry cap, not the length cap
    assert pg.parse_measure(text(count)) is not None
    with pytest.raises(pg.MeasureParameterError, match=f"at most {MAX_ENTRIES} entries"):
        pg.parse_measure(text(count + 1))


def test_ir_measures_mappings_hold_at_most_max_entries() -> None:
    def text(n: int) -> str:
        return IR + "nDCG(gains={" + ",".join(f"{i}:{i}" for i in range(n)) + "})@10"

    assert len(text(MAX_ENTRIES + 1)) <= MAX_MEASURE_LENGTH  # the entry cap, not the length cap
    assert pg.parse_measure(text(MAX_ENTRIES)) is not None
    with pytest.raises(pg.MeasureParameterError, match=f"at most {MAX_ENTRIES} entries"):
        pg.parse_measure(text(MAX_ENTRIES + 1))


def test_the_length_cap_counts_the_prefix() -> None:
    padded = (IR + "nDCG@10").ljust(MAX_MEASURE_LENGTH)
    assert str(pg.parse_measure(padded)) == "ndcg(compat=trec_eval_9,gain=linear)@10"
    with pytest.raises(pg.UnknownMeasureError, match=f"at most {MAX_MEASURE_LENGTH}"):
        pg.parse_measure(padded + " ")


def test_a_measures_compat_is_a_release_or_none() -> None:
    assert pg.parse_measure("ap").compat is None  # the evaluation's compat= decides
    assert pg.parse_measure("ap(compat=trec_eval_9)") == pg.AP(compat="trec_eval_9")
    assert pg.parse_measure("ir_measures:AP") == pg.AP(compat="trec_eval_9")
    for bad in ("ap(compat=9)", "ap(compat=trec_eval_11)", "ap(compat=pytrec_eval)"):
        with pytest.raises(pg.MeasureParameterError, match="'compat' must be trec_eval_10 or"):
            pg.parse_measure(bad)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("ap(rel=2", "never closed"),
        ("ap(rel=(2))", "no parentheses"),
        ("ap)", "unexpected ')'"),
        ("mu_ap(levels=[1,2)", "never closed"),
        ("mu_ap(levels=[1,2}])", "unbalanced brackets"),
        ("ndcg(gain={1:2)", "never closed"),
        ("ndcg(gain={1:[2}])", "unbalanced brackets"),
        ("ap@", "'@' must be followed"),
        ("ap@x", "'@' must be followed"),
        ("ap@10 5", "unexpected '5'"),
        ("", "no name"),
        ("   ", "no name"),
        ("@10", "cannot start with '@'"),
    ],
)
def test_malformed_strings_say_where(text: str, where: str) -> None:
    with pytest.raises((pg.UnknownMeasureError, pg.MeasureParameterError)) as info:
        pg.parse_measure(text)
    assert where in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "ap@" + "9" * 500,  # a cutoff beyond Int64
        "ap@9223372036854775808",
        "ap(rel=1" + "0" * 400 + ")",  # an int beyond float64: was a raw OverflowError
        "ap(rel=1e999)",
        "ap(rel=1,rel=2)",
    ],
)
def test_out_of_range_values_are_parameter_errors(text: str) -> None:
    with pytest.raises(pg.MeasureParameterError):
        pg.parse_measure(text)


@pytest.mark.parametrize("text", ["ap(k=3)@4", "mu_ap(k=0)@1", "ndcg(k=10)@10"])
def test_a_cutoff_given_twice_is_refused(text: str) -> None:
    # Was silently resolved: ap(k=3)@4 evaluated as ap@4.
    with pytest.raises(pg.MeasureParameterError, match="cutoff is given twice"):
        pg.parse_measure(text)


def test_the_largest_cutoff_is_accepted() -> None:
    assert pg.parse_measure("ap@9223372036854775807").k == 2**63 - 1


def test_huge_numbers_have_short_canonical_names() -> None:
    measure = pg.parse_measure("err(max_rel=1e300)")
    assert str(measure) == "err(max_rel=1e+300)"
    assert pg.parse_measure(str(measure)) == measure


# --- thresholds must be > 0, also through the grammar -----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "ap(rel=0)",
        "ap(rel=-1)@10",
        "p(rel=0)@5",
        "recall(rel=0)",
        "r_precision(rel=-0.5)",
        "rr(rel=0)",
        "success(rel=0)@1",
        "bpref(rel=0)",
        "rbp(rel=0)",
        "mu_ap(levels=[0,1])",
    ],
)
def test_thresholds_of_zero_or_less_are_refused(text: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match="must be > 0"):
        pg.parse_measure(text)


def test_documented_limits() -> None:
    assert grammar.MAX_MEASURE_LENGTH == MAX_MEASURE_LENGTH
    assert grammar.MAX_ENTRIES == MAX_ENTRIES
