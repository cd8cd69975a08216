"""The options every entry point shares (polars_graded/options.py): the table spec, the
tie policy and the trec_eval release (``compat=``), checked once, with the errors a user
sees for a bad one."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import polars as pl
import pytest
from support.oracle_ties import POLICIES

import polars_graded as pg
from polars_graded.options import (
    COMPATS,
    DEFAULT_COMPAT,
    TIE_POLICIES,
    ColumnOptions,
    RankingOptions,
    TableSpec,
    Ties,
    as_by,
    check_compat,
)

# --------------------------------------------------------------------------- Ties

# What each policy means (ColumnOptions' documentation), one row per policy:
# (averaged, by_item, in_input_order, by_label, best_first)
PREDICATES = {
    "trec_eval": (False, True, False, False, False),
    "input": (False, False, True, False, False),
    "optimistic": (False, False, False, True, True),
    "pessimistic": (False, False, False, True, False),
    "average": (True, False, False, False, False),
}


def test_the_policies_are_the_documented_ones() -> None:
    assert set(TIE_POLICIES) == set(POLICIES) == set(PREDICATES)
    assert Ties().policy == "trec_eval"  # the default, as trec_eval


@pytest.mark.parametrize("policy", list(PREDICATES))
def test_each_policy_answers_the_questions_of_the_code(policy: str) -> None:
    ties = Ties.of(policy)
    got = (ties.averaged, ties.by_item, ties.in_input_order, ties.by_label, ties.best_first)
    assert got == PREDICATES[policy]
    assert str(ties) == policy


def test_ties_of_a_policy_object_is_that_object() -> None:
    ties = Ties("average")
    assert Ties.of(ties) is ties
    assert Ties.of("average") == ties


@pytest.mark.parametrize("bad", ["random", "Average", "", None, 1, "trec eval"])
def test_a_bad_policy_names_ties_and_lists_the_choices(bad: object) -> None:
    with pytest.raises(pg.InvalidValueError) as info:
        Ties.of(bad)
    assert_names_and_lists(info.value, "ties", bad, POLICIES)


def assert_names_and_lists(
    error: Exception, option: str, bad: object, choices: Iterable[object]
) -> None:
    """A ValueError saying ``option= must be one of`` the choices, and what it got."""
    assert isinstance(error, ValueError)
    message = str(error)
    assert message.startswith(f"{option}= must be one of ")
    assert repr(bad) in message
    for choice in choices:
        assert repr(choice) in message


def three_tied() -> pl.DataFrame:
    return pl.DataFrame(
        {"query": [1, 1, 1], "item": ["a", "b", "c"], "score": [1.0] * 3, "relevance": [1, 0, 0]}
    )


BAD_OPTION: dict[str, Callable[..., object]] = {
    "evaluate": lambda df, **bad: df.graded.evaluate(["ap"], **bad),
    "lazy summary": lambda df, **bad: df.lazy().graded.summary(["ap"], **bad).collect(),
    "namespace shortcut": lambda df, **bad: df.graded.mu_ap(**bad),
    "pg.evaluate": lambda df, **bad: pg.evaluate(df, ["ap"], **bad),
    "pg.summary": lambda df, **bad: pg.summary(df, ["ap"], **bad),
    "pg.per_threshold": pg.per_threshold,
    "expression": lambda df, **bad: pg.ap(**bad),
    "measure_expr": lambda df, **bad: pg.measure_expr(pg.NDCG, **bad),
}


@pytest.mark.parametrize("entry", list(BAD_OPTION))
def test_every_entry_point_refuses_a_bad_policy_the_same_way(entry: str) -> None:
    """``ties="random"`` is an InvalidValueError that names ``ties`` and lists the choices."""
    with pytest.raises(pg.InvalidValueError) as info:
        BAD_OPTION[entry](three_tied(), ties="random")
    message = str(info.value)
    assert "ties" in message
    for choice in POLICIES:
        assert choice in message


# --------------------------------------------------------------------------- TableSpec


@pytest.mark.parametrize(
    ("by", "expected"),
    [
        (None, ()),
        ("system", ("system",)),
        (["run", "system"], ("run", "system")),
        (("run",), ("run",)),
        ([], ()),
    ],
)
def test_by_is_normalised_to_a_tuple(
    by: str | Sequence[str] | None, expected: tuple[str, ...]
) -> None:
    assert as_by(by) == expected
    spec = TableSpec.of({"by": by})
    assert spec.by == expected
    assert spec.keys == [*expected, "query"]


def test_the_defaults_name_the_documented_columns() -> None:
    spec = TableSpec.of({})
    assert (spec.query, spec.item, spec.score, spec.relevance) == (
        "query",
        "item",
        "score",
        "relevance",
    )
    assert spec.by == ()
    assert spec.ranked is False
    assert spec.ties == Ties("trec_eval")
    assert spec.keys == ["query"]


def test_of_checks_the_tie_policy_into_an_object() -> None:
    spec = TableSpec.of({"ties": "optimistic", "by": "system", "query": "qid"})
    assert isinstance(spec.ties, Ties)
    assert spec.ties.best_first
    assert spec.keys == ["system", "qid"]


def test_options_give_the_spec_back() -> None:
    spec = TableSpec.of(
        {
            "query": "qid",
            "item": "docno",
            "score": "sim",
            "relevance": "rel",
            "by": ["run", "day"],
            "ranked": True,
            "ties": "average",
        }
    )
    assert TableSpec.of(spec.options()) == spec
    assert spec.options()["ties"] == "average"  # a plain name, as a user passes it
    assert TableSpec.of(spec) is spec


def test_the_keywords_are_the_fields_of_the_spec() -> None:
    keys = set(ColumnOptions.__annotations__)
    assert keys == {f.name for f in dataclasses.fields(TableSpec)}
    assert keys - set(RankingOptions.__annotations__) == {"query", "by"}


@pytest.mark.parametrize("unknown", [{"colums": "x"}, {"system": "s", "k": 10}])
def test_unknown_keywords_are_a_type_error_naming_them_and_the_table_arguments(
    unknown: dict[str, object],
) -> None:
    with pytest.raises(TypeError) as info:
        TableSpec.of({"by": "system", **unknown})
    message = str(info.value)
    assert str(sorted(unknown)) in message
    for name in ("query=", "item=", "score=", "relevance=", "by=", "ranked=", "ties="):
        assert name in message


def test_an_unknown_keyword_is_refused_by_the_typed_api() -> None:
    with pytest.raises(TypeError, match="colums"):
        pg.evaluate(three_tied(), ["ap"], colums="x")  # type: ignore[call-overload]


@pytest.mark.parametrize("ranked", ["yes", 1, 0, None, "False"])
def test_ranked_must_be_a_bool(ranked: object) -> None:
    with pytest.raises(TypeError, match=r"ranked= must be True or False, got ") as info:
        TableSpec.of({"ranked": ranked})
    assert repr(ranked) in str(info.value)


def test_the_spec_is_frozen() -> None:
    spec = TableSpec()
    with pytest.raises(AttributeError):
        spec.query = "qid"  # type: ignore[misc]


# --------------------------------------------------------------------------- judged_only, depth


def test_judged_only_and_depth_default_to_the_whole_ranking() -> None:
    spec = TableSpec()
    assert (spec.judged_only, spec.depth, spec.cuts_rankings) == (False, None, False)


def test_judged_only_and_depth_travel_with_the_options() -> None:
    spec = TableSpec.of({"judged_only": True, "depth": 100})
    assert spec.cuts_rankings
    assert TableSpec.of(spec.options()) == spec


def test_the_unknown_keyword_message_lists_the_new_options() -> None:
    with pytest.raises(TypeError, match=r"judged_only=, depth="):
        TableSpec.of({"dept": 10})


@pytest.mark.parametrize("depth", [0, -1, 1.5, "10", True])
def test_depth_must_be_a_positive_integer(depth: object) -> None:
    with pytest.raises(pg.InvalidValueError, match=r"depth= must be a positive integer or None"):
        TableSpec.of({"depth": depth})


@pytest.mark.parametrize("judged_only", ["yes", 1, None])
def test_judged_only_must_be_a_bool(judged_only: object) -> None:
    with pytest.raises(TypeError, match=r"judged_only= must be True or False, got "):
        TableSpec.of({"judged_only": judged_only})


@pytest.mark.parametrize("option", [{"depth": 5}, {"judged_only": True}])
def test_cutting_rankings_refuses_averaged_ties(option: dict[str, Any]) -> None:
    with pytest.raises(pg.InvalidValueError, match=r"ties='average'"):
        TableSpec.of({"ties": "average", **option})
    with pytest.raises(pg.InvalidValueError, match=r"ties='average'"):
        pg.evaluate(three_tied(), ["ap"], ties="average", **option)


# --------------------------------------------------------------------------- compat

# conventions §2, written here: the default follows trec_eval 10.0; "trec_eval_9" reproduces 9.x
# and pytrec_eval.
RELEASES = ("trec_eval_10", "trec_eval_9")


def float32_tie() -> pl.DataFrame:
    """The relevant ``a`` scores 1000 + 1e-9, ``b`` 1000: a above b as float64 (RR 1), a
    tie as float32 that item descending breaks for b (RR 1/2)."""
    return pl.DataFrame(
        {"query": [1, 1], "item": ["a", "b"], "score": [1000.0 + 1e-9, 1000.0], "relevance": [1, 0]}
    )


def test_the_releases_are_the_documented_ones_and_the_default_is_10() -> None:
    assert COMPATS == RELEASES
    assert DEFAULT_COMPAT == "trec_eval_10"
    assert TableSpec().compat == TableSpec.of({}).compat == "trec_eval_10"
    assert not TableSpec().scores_as_float32


@pytest.mark.parametrize("compat", RELEASES)
def test_check_compat_gives_a_release_back(compat: str) -> None:
    assert check_compat(compat) == compat
    spec = TableSpec.of({"compat": compat})
    assert spec.compat == compat
    assert spec.scores_as_float32 is (compat == "trec_eval_9")
    assert spec.options()["compat"] == compat
    assert TableSpec.of(spec.options()) == spec


@pytest.mark.parametrize(
    "bad", ["9", "trec_eval_9.0", "TREC_EVAL_9", "trec_eval", "", None, 9, 10.0, "pytrec_eval"]
)
def test_a_bad_compat_names_compat_and_lists_the_releases(bad: object) -> None:
    for check in (
        check_compat,
        lambda c: TableSpec(compat=c),
        lambda c: TableSpec.of({"compat": c}),
    ):
        with pytest.raises(pg.InvalidValueError) as info:
            check(bad)
        assert_names_and_lists(info.value, "compat", bad, RELEASES)


@pytest.mark.parametrize("entry", list(BAD_OPTION))
def test_every_entry_point_refuses_a_bad_compat_the_same_way(entry: str) -> None:
    with pytest.raises(pg.InvalidValueError, match=r"^compat= must be one of ") as info:
        BAD_OPTION[entry](float32_tie(), compat="9")
    assert "'9'" in str(info.value)


RR_OF: dict[str, Callable[..., float]] = {
    "evaluate": lambda df, **o: df.graded.evaluate(["rr"], **o)["rr"].item(),
    "lazy evaluate": lambda df, **o: df.lazy().graded.evaluate(["rr"], **o).collect()["rr"].item(),
    "summary": lambda df, **o: df.graded.summary(["rr"], **o)["rr"].item(),
    "namespace shortcut": lambda df, **o: df.graded.rr(**o)["rr"].item(),
    "pg.evaluate": lambda df, **o: pg.evaluate(df, ["rr"], **o)["rr"].item(),
    "pg.summary": lambda df, **o: pg.summary(df, ["rr"], **o)["rr"].item(),
    "expression": lambda df, **o: df.group_by("query").agg(pg.rr(**o))["rr"].item(),
    "measure_expr": lambda df, **o: (
        df.group_by("query").agg(pg.measure_expr(pg.parse_measure("rr"), **o))["rr"].item()
    ),
}


@pytest.mark.parametrize("entry", list(RR_OF))
def test_every_entry_point_takes_compat(entry: str) -> None:
    """Without ``compat=`` (and with ``"trec_eval_10"``) the float64 ranking: RR 1; with
    ``"trec_eval_9"`` the float32 tie goes to b: RR 1/2."""
    df = float32_tie()
    assert RR_OF[entry](df) == 1.0
    assert RR_OF[entry](df, compat="trec_eval_10") == 1.0
    assert RR_OF[entry](df, compat="trec_eval_9") == 0.5
