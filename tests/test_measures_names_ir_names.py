"""ir_measures' names (polars_graded/measures/names/ir_names.py): every alias, as ir_measures' own
``parse_measure`` reads it and as we do, gives ir_measures' per-query values on the TREC DL
2019/2020 passage runs (six systems, two years); its syntax, its refusals, its column names.

ir_measures picks a tool per measure. pytrec_eval and TREC's gdeval.pl order tied scores as
trec_eval does (our default ``ties``); MS MARCO's script (``RR@k``), ir_measures' own Judged
and cwl_eval (``RBP``) do not. So every alias is compared on the runs with their ties broken
beforehand, and on the raw runs wherever ir_measures' tool orders ties as trec_eval; elsewhere
the raw values may differ only on queries with tied scores. gdeval prints 5 decimals.

ir_measures computes most measures with pytrec_eval, trec_eval 9.x: so the ``ir_measures:``
names carry ``compat="trec_eval_9"`` (float32 scores, 9.x's recall points for IPrec) and
agree with it exactly, where our own names follow trec_eval 10.0 (conventions §2).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

import ir_measures
import polars as pl
import pytest

import polars_graded as pg
from polars_graded import cli
from polars_graded.measures.names import ir_names
from polars_graded.measures.names.ir_names import IrMeasure, read, unaliased

DL = "trec-dl-2019-2020-passage"
PREFIX = "ir_measures:"

ALIASES = [
    # the list
    "nDCG@10", "AP(rel=2)", "P(rel=2)@10", "R@100", "RR", "RR@10", "Bpref", "Rprec",
    "Success@10", "Judged@10", "ERR@20", "infAP", "IPrec@0.5", "NumRet", "NumRel",
    "NumRelRet", "SetP", "SetR", "SetF", "nDCG(dcg='exp-log2')@10",
    "nDCG(gains={0:0,1:1,2:3})@10",
    # every declared pattern, ir_measures' other names, parameters passed through
    "nDCG", "NDCG@5", "nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7})",
    "nDCG(dcg='log2', judged_only=False)@10",
    "AP", "AP@10", "MAP(rel=2)@100", "P@5", "Precision(rel=3)@20", "R(rel=2)@1000",
    "Recall@10", "RR(rel=2)", "MRR@10", "Bpref(rel=2)", "BPref", "Rprec(rel=2)", "RPrec",
    "Success(rel=2)@1", "Judged", "ERR@10", "RBP(rel=1)", "RBP(rel=2, p=0.9)",
    "SetP(rel=2)", "SetR(rel=2)", "SetF(rel=2, beta=0.5)", "SetAP", "SetAP(rel=2)",
    "SetRelP", "SetP(relative=True)", "infAP(rel=2)", "IPrec@0.2", "IPrec(rel=2)@0.8",
    "NumRet(rel=2)", "NumRelRet(rel=2)",
]  # fmt: skip
PENDING: set[str] = set()
"""Aliases that do not resolve yet: their measures or declarations are still to come. The
test below fails when one resolves, so that it leaves this list."""
DIFFERING: dict[str, str] = {}
"""Aliases whose measure here still differs from ir_measures' on the DL runs (reported),
with the reason. The test fails when one agrees, so that it leaves this list. (IPrec left it
when the ``ir_measures:`` names took trec_eval 9.x's recall points, ``(long)(x R + 0.9)``.)"""
REFUSED = {
    "RBP(p=0.8)": "no measure here for",  # graded RBP: none of ir_measures' tools has it
    "RBP": "no measure here for",
    "nDCG(judged_only=True)@10": "judged_only=True",
    "P(judged_only=True)@10": "judged_only=True",
}
"""ir_measures strings refused here, and words of the message."""
TRECEVAL_ORDER = {"pytrec_eval", "gdeval"}
"""ir_measures' tools that order tied scores as trec_eval does."""
RESOLVED = [alias for alias in ALIASES if alias not in PENDING]


def provider(alias: str) -> str:
    """The tool ir_measures computes ``alias`` with (its default pipeline's choice)."""
    measure = ir_measures.parse_measure(alias)
    pipeline = ir_measures.DefaultPipeline.providers
    name: str = next(p.NAME for p in pipeline if p.supports(measure) and p.is_available())
    return name


def tolerance(alias: str) -> float:
    return 0.5e-5 + 1e-12 if provider(alias) == "gdeval" else 1e-9


# --------------------------------------------------------------------------- the data


def untied(run: pl.DataFrame) -> pl.DataFrame:
    """The run with distinct scores in trec_eval's order (score down, item id down)."""
    ordered = run.sort(["query", "score", "item"], descending=[False, True, True])
    return ordered.with_columns(score=-pl.int_range(pl.len()).over("query").cast(pl.Float64))


def tied_queries(run: pl.DataFrame) -> set[str]:
    """Queries with two scores equal as float32: the tie rule of the ``ir_measures:`` names
    (``compat="trec_eval_9"``, as pytrec_eval); a float64 tie is one too."""
    counts = run.group_by("query").agg(tied=pl.col("score").cast(pl.Float32).n_unique() < pl.len())
    return {str(q) for q in counts.filter("tied")["query"]}


def as_dicts(frame: pl.DataFrame, value: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for query, item, x in frame.select("query", "item", value).iter_rows():
        out.setdefault(str(query), {})[str(item)] = x
    return out


class Runs:
    """The DL runs and their qrels, read once, with ir_measures' values cached per alias."""

    def __init__(self, folder: Path) -> None:
        self.years: dict[str, pl.DataFrame] = {}
        self.runs: dict[tuple[str, str], pl.DataFrame] = {}
        for year in ("19", "20"):
            qrels_path = folder / f"qrels.dl{year}-passage.txt"
            self.years[year] = pg.read_trec_qrels(qrels_path).select("query", "item", "relevance")
            for path in sorted(folder.glob(f"runs/*/trec_results_dl{year}.txt.gz")):
                run = pg.read_trec_run(path).select("query", "item", "score")
                self.runs[(year, path.parent.name)] = run
        self._theirs: dict[tuple[str, str, str, bool], dict[str, float]] = {}

    def each(self) -> Iterator[tuple[str, str, pl.DataFrame]]:
        for (year, system), run in self.runs.items():
            yield year, system, run

    def ours(self, year: str, run: pl.DataFrame, aliases: list[str]) -> dict[str, dict[str, float]]:
        """Our values, alias -> query -> value (each measure evaluated once)."""
        measures = {alias: pg.parse_measure(PREFIX + alias) for alias in aliases}
        table = pg.join_run_qrels(run, self.years[year])
        out = pg.evaluate(table, list(dict.fromkeys(measures.values())))
        return {
            alias: {str(q): float(v) for q, v in out.select("query", str(m)).iter_rows()}
            for alias, m in measures.items()
        }

    def theirs(self, alias: str, year: str, system: str, *, tie_free: bool) -> dict[str, float]:
        """ir_measures' values of one alias (computed alone: its tools group measures)."""
        key = (alias, year, system, tie_free)
        if key not in self._theirs:
            run = self.runs[(year, system)]
            run = untied(run) if tie_free else run
            qrels = {q: {d: int(r) for d, r in ds.items()} for q, ds in
                     as_dicts(self.years[year], "relevance").items()}  # fmt: skip
            metrics = ir_measures.iter_calc(
                [ir_measures.parse_measure(alias)], qrels, as_dicts(run, "score")
            )
            self._theirs[key] = {m.query_id: float(m.value) for m in metrics}
        return self._theirs[key]


@pytest.fixture(scope="module")
def runs(shared_data: Callable[[str], Path]) -> Runs:
    return Runs(shared_data(DL))


# --------------------------------------------------------------------------- the aliases


@pytest.mark.parametrize("alias", ALIASES)
def test_ir_measures_reads_the_alias_as_we_do(alias: str) -> None:
    """Our reading of the syntax equals ir_measures' own (name, parameters, ``@``)."""
    theirs = ir_measures.parse_measure(alias)
    assert theirs.NAME is not None
    assert unaliased(read(alias)) == IrMeasure(theirs.NAME, theirs.params)


def test_pending_is_exactly_what_does_not_resolve() -> None:
    unresolved = set()
    for alias in ALIASES:
        try:
            pg.parse_measure(PREFIX + alias)
        except pg.GradedError:
            unresolved.add(alias)
    assert unresolved == PENDING


def test_every_declared_pattern_is_tested() -> None:
    declared = {
        unaliased(read(pattern, pattern=True)).name
        for cls in pg.measures.registry.CLASSES
        for pattern in cls.declaration.ir_measures
    }
    assert declared <= {unaliased(read(alias)).name for alias in ALIASES}


@pytest.mark.parametrize(("alias", "words"), list(REFUSED.items()))
def test_refused(alias: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(PREFIX + alias)


def test_graded_rbp_has_no_number_in_ir_measures() -> None:
    with pytest.raises(ValueError, match="Unsupported"):
        ir_measures.calc_aggregate([ir_measures.parse_measure("RBP(p=0.8)")], {}, {})


def differing(ours: dict[str, float], theirs: dict[str, float], alias: str) -> set[str]:
    """The queries where the values differ by more than the tolerance."""
    return {q for q, value in theirs.items() if abs(ours[q] - value) > tolerance(alias)}


def test_every_alias_gives_ir_measures_values_on_runs_without_ties(runs: Runs) -> None:
    compared, differ = 0, dict.fromkeys(RESOLVED, 0)
    for year, system, run in runs.each():
        ours = runs.ours(year, untied(run), RESOLVED)
        for alias in RESOLVED:
            theirs = runs.theirs(alias, year, system, tie_free=True)
            assert theirs, alias
            assert set(theirs) <= set(ours[alias])
            differ[alias] += len(differing(ours[alias], theirs, alias))
            compared += len(theirs)
    assert {alias for alias, n in differ.items() if n} == set(DIFFERING)
    assert compared >= len(RESOLVED) * 500  # 97 queries, 6 systems


def test_raw_runs_differ_only_where_ir_measures_orders_ties_otherwise(runs: Runs) -> None:
    """With ties as trec_eval (pytrec_eval, gdeval): equal. MS MARCO's script, Judged and
    cwl_eval order ties otherwise: they may differ, on queries with tied scores only."""
    for year, system, run in runs.each():
        ours = runs.ours(year, run, RESOLVED)
        tied = tied_queries(run)
        for alias in set(RESOLVED) - set(DIFFERING):
            theirs = runs.theirs(alias, year, system, tie_free=False)
            differ = differing(ours[alias], theirs, alias)
            if provider(alias) in TRECEVAL_ORDER:
                assert differ == set(), (year, system, alias)
            else:
                assert differ <= tied, (year, system, alias)


def test_columns_are_named_by_the_ir_measures_strings(runs: Runs) -> None:
    year, system, run = next(runs.each())
    aliases = ["nDCG@10", "P(rel=2)@10", "nDCG(dcg='exp-log2')@10", "RBP(rel=2, p=0.9)"]
    table = pg.join_run_qrels(run, runs.years[year])
    out = pg.evaluate(table, [PREFIX + alias for alias in aliases])
    assert out.columns == ["query", *aliases]
    theirs = runs.theirs("nDCG@10", year, system, tie_free=False)
    for query, value in out.select("query", "nDCG@10").iter_rows():
        assert value == pytest.approx(theirs[str(query)], abs=1e-9)


def test_ir_measures_names_rank_as_trec_eval_9_whatever_the_evaluation_says() -> None:
    """The relevant ``a`` scores 1000 + 1e-9, ``b`` 1000: a tie as float32 (pytrec_eval's
    scores), which trec_eval's order gives to b. The ``ir_measures:`` name follows it (RR
    1/2) under either ``compat=``; our ``rr`` follows the evaluation's (1 by default)."""
    df = pl.DataFrame(
        {"query": [1, 1], "item": ["a", "b"], "score": [1000.0 + 1e-9, 1000.0], "relevance": [1, 0]}
    )
    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": 1000.0 + 1e-9, "b": 1000.0}}
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure("RR")], qrels, run)
    assert list(theirs.values()) == [0.5]
    for compat in ("trec_eval_10", "trec_eval_9"):
        out = pg.evaluate(df, [PREFIX + "RR", "rr"], compat=compat)
        assert out.columns == ["query", "RR", "rr"]
        assert out.row(0) == (1, 0.5, 1.0 if compat == "trec_eval_10" else 0.5)


# --------------------------------------------------------------------------- syntax, messages


@pytest.mark.parametrize(
    ("text", "ours"),
    [
        ("nDCG@10", "ndcg(gain=linear)@10"),
        ("  nDCG ( dcg = 'exp-log2' ) @ 10  ", "ndcg@10"),
        ('nDCG(dcg="exp-log2")@10', "ndcg@10"),
        ("nDCG(gains={0:0,1:1,2:3,},)@10", "ndcg(gain={0:0,1:1,2:3})@10"),
        ("nDCG(cutoff=10)", "ndcg(gain=linear)@10"),
        ("AP(rel=2.0)", "ap(rel=2)"),
        ("P(cutoff=5, rel=2)", "p(rel=2)@5"),
        ("IPrec(recall=0.5)", "iprec(recall=0.5)"),
        ("RBP(rel=1, p=0.5)@20", "rbp(p=0.5)@20"),
        ("MRR@10", "rr@10"),
    ],
)
def test_spellings(text: str, ours: str) -> None:
    """The measure an ir_measures spelling reads as, and the release it follows: 9.x."""
    measure = pg.parse_measure(PREFIX + text)
    assert measure.compat == "trec_eval_9"
    assert str(dataclasses.replace(measure, compat=None)) == ours
    assert str(measure) == str(pg.parse_measure(ours)(compat="trec_eval_9"))


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("ndcg@10", pg.UnknownMeasureError, "unknown ir_measures measure 'ndcg'.*nDCG"),
        ("nDCG@", pg.MeasureParameterError, "cannot read value"),
        ("nDCG(dcg='exp-log2'", pg.UnknownMeasureError, r"expected '\)', found the end"),
        ("nDCG(dcg='exp-log2)", pg.UnknownMeasureError, "never closed"),
        ("nDCG(gains={0:0", pg.UnknownMeasureError, "never closed"),
        ("nDCG(2)", pg.UnknownMeasureError, "expected a name"),
        ("nDCG(dcg)", pg.UnknownMeasureError, "expected '='"),
        ("nDCG@10 x", pg.UnknownMeasureError, "unexpected 'x' at character 9"),
        ("AP(rel=-1)", pg.MeasureParameterError, "cannot read value"),
        ("AP(rel=os)", pg.MeasureParameterError, "cannot read value 'os'"),
        ("AP(rel=1, rel=2)", pg.MeasureParameterError, "'rel' is given twice"),
        ("AP(cutoff=5)@5", pg.MeasureParameterError, "'cutoff' is given twice"),
        ("AP(rel=0)", pg.MeasureParameterError, "must be > 0"),
        ("AP(foo=1)", pg.MeasureParameterError, "'foo' has no counterpart in ap"),
        ("nDCG(dcg='bogus')", pg.MeasureParameterError, r"read: nDCG, nDCG\(dcg='exp-log2'\)"),
        ("nDCG(gains={'a': 1})", pg.MeasureParameterError, "label: gain, both numbers"),
        ("nDCG(dcg='exp\\\\-log2')", pg.MeasureParameterError, "backslash"),
        ("P", pg.MeasureParameterError, r"needs its cutoff, e\.g\. P@10"),
        ("P@0", pg.MeasureParameterError, "positive whole number"),
        ("P@10.5", pg.MeasureParameterError, "positive whole number"),
        ("P@True", pg.MeasureParameterError, "positive whole number"),
        ("Rprec@10", pg.MeasureParameterError, "Rprec takes no cutoff"),
        ("SetP@10", pg.MeasureParameterError, "SetP takes no cutoff"),
        ("AP@0", pg.MeasureParameterError, "cutoff k must be a positive integer"),
        ("P@1" + "0" * 400, pg.MeasureParameterError, "cutoff k must be a positive integer"),
        ("nDCG(gains='linear')", pg.MeasureParameterError, "cannot use gains='linear'"),
        ("nDCG(gains={1: 1e999})", pg.MeasureParameterError, "cannot use gains=inf"),
        ("nDCG(gains=None)", pg.MeasureParameterError, "cannot use gains=None"),
        ("RBP(rel=1, p=1.5)", pg.MeasureParameterError, "rbp: persistence p must be"),
    ],
)
def test_errors(text: str, error: type[pg.GradedError], words: str) -> None:
    with pytest.raises(error, match=words):
        pg.parse_measure(PREFIX + text)


def test_our_names_are_not_read_as_ir_measures_names() -> None:
    """Without the prefix, our names and meanings, whatever the letter case."""
    assert str(pg.parse_measure("nDCG@10")) == "ndcg@10"
    assert pg.parse_measure("nDCG@10").compat is None
    assert str(pg.parse_measure(PREFIX + "nDCG@10")) == "ndcg(compat=trec_eval_9,gain=linear)@10"


def test_names_of_columns() -> None:
    assert pg.measure_name(PREFIX + " nDCG @10 ") == "nDCG @10"
    # every spelling asked for keeps its column, named as written (the plan computes the
    # measure once); our ndcg(gain=linear)@10 is another measure (trec_eval 10.0's
    # ranking), with compat=trec_eval_9 it is the same one
    named = pg.measures.as_named_measures(
        [PREFIX + "nDCG@10", "ndcg(gain=linear)@10", PREFIX + "NDCG@10", "ap",
         "ndcg(compat=trec_eval_9,gain=linear)@10", PREFIX + "nDCG@10"]
    )  # fmt: skip
    assert list(named) == [
        "nDCG@10", "ndcg(gain=linear)@10", "NDCG@10", "ap",
        "ndcg(compat=trec_eval_9,gain=linear)@10",
    ]  # fmt: skip
    assert named["nDCG@10"] == named["NDCG@10"] != named["ndcg(gain=linear)@10"]
    assert named["nDCG@10"] == named["ndcg(compat=trec_eval_9,gain=linear)@10"]
    mapped = pg.measures.as_named_measures({"mine": PREFIX + "nDCG@10"})
    assert str(mapped["mine"]) == "ndcg(compat=trec_eval_9,gain=linear)@10"


def test_the_command_line_takes_ir_measures_strings(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    qrels = tmp_path / "qrels.txt"
    run.write_text("1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n1 Q0 c 3 1.0 r\n")
    qrels.write_text("1 0 a 0\n1 0 b 2\n1 0 c 1\n")
    out = tmp_path / "out.csv"
    argv = ["evaluate", "--run", str(run), "--qrels", str(qrels), "--output", str(out),
            "-m", "ir_measures:nDCG@2,ir_measures:P(rel=2)@2", "-m", "ndcg@2"]  # fmt: skip
    assert cli.main(argv) == 0
    got = pl.read_csv(out)
    assert got.columns[-3:] == ["nDCG@2", "P(rel=2)@2", "ndcg@2"]
    assert got.row(0)[-3:] == pytest.approx((0.4796249, 0.5, 0.5212960), abs=1e-6)


def test_the_declarations_are_read() -> None:
    for name, entries in ir_names.entries().items():
        assert name not in ir_names.IR_ALIASES
        for entry in entries:
            assert entry.template
