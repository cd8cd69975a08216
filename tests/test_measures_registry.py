"""The measure registry (polars_graded/measures/registry.py): one declaration per measure, and
everything generated from it (names, aliases, functions, shortcuts, the measures pages of the
docs, stubs)."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_graded as pg
from polars_graded import expressions
from polars_graded.measures import registry
from polars_graded.measures.base import Declaration, Measure, ThresholdMeasure
from polars_graded.measures.generated import generate
from polars_graded.measures.names.grammar import valid_names
from polars_graded.measures.registry import ALIASES
from polars_graded.namespace import GradedNamespace

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CLASSES = registry.CLASSES
IDS = [cls.name for cls in CLASSES]

# The catalogue before the registry (commit 6e28f06): the error messages list these names in
# this order, and the trec_eval differential tests read these templates.
NAMES_BEFORE = (
    "mu_ap, ap, ndcg, ndcng, dcg, p, recall, r_precision, rr, mean_ndcg, mean_ndcng, err, rbp, "
    "rbp_residual, bpref, judged, success"
)
ALIASES_BEFORE = {
    "map": "ap",
    "mu_map": "mu_ap",
    "precision": "p",
    "rprec": "r_precision",
    "recip_rank": "rr",
    "mrr": "rr",
}
TEMPLATES_BEFORE = {
    "map": "ap{r}",
    "map_cut": "ap{r}@{k}",
    "P": "p{r}@{k}",
    "recall": "recall{r}@{k}",
    "ndcg": "ndcg(gain=linear)",
    "ndcg_cut": "ndcg(gain=linear)@{k}",
    "Rprec": "r_precision{r}",
    "recip_rank": "rr{r}",
    "set_P": "p{r}",
    "set_recall": "recall{r}",
    "bpref": "bpref{r}",
    "success": "success{r}@{k}",
}
DEPTH_BEFORE = {  # what Measure.depth() gave with k=5 before the registry
    "mu_ap": None, "ap": None, "ndcg": 5, "ndcng": 5, "dcg": 5, "p": 5, "recall": None,
    "rr": 5, "err": 5, "rbp": 5, "rbp_residual": 5, "judged": 5, "success": 5,
}  # fmt: skip
TABLE = pl.DataFrame(
    {
        "query": [1, 1, 1],
        "item": ["a", "b", "c"],
        "score": [3.0, 2.0, 1.0],
        "relevance": [0, 2, 1],
    }
)


def test_the_catalogue_before_is_kept() -> None:
    """New measures join after the old ones; the old names, aliases and templates stay."""
    assert valid_names().startswith(NAMES_BEFORE + ", ")
    assert ALIASES_BEFORE.items() <= ALIASES.items()
    assert TEMPLATES_BEFORE.items() <= registry.trec_eval_templates().items()


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_each_declaration_makes_every_name(cls: type[Measure]) -> None:
    declared = cls.declaration
    instance = getattr(pg, declared.instance)
    assert type(instance) is cls
    assert instance is registry.MEASURES[declared.name] is getattr(pg.measures, declared.instance)
    assert getattr(pg, declared.function) is getattr(expressions, declared.function)
    assert callable(getattr(GradedNamespace, declared.function))
    for alias in declared.aliases:
        assert pg.parse_measure(alias) == instance
    assert declared.instance in pg.__all__
    assert declared.function in pg.__all__


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_the_declared_example_value(cls: type[Measure]) -> None:
    """The value the generated doctests print is the measure's value on the example table."""
    value = pg.evaluate(TABLE, cls.declaration.example).item(0, 1)
    assert round(value, 6) == cls.declaration.example_value


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_the_cutoff_declaration(cls: type[Measure]) -> None:
    instance = registry.MEASURES[cls.name]
    if cls.declaration.takes_cutoff:
        reads_top_k = cls.declaration.cutoff == "top_k"
        assert (instance @ 5).depth() == DEPTH_BEFORE.get(cls.name, 5 if reads_top_k else None)
        assert "k" in {p.name for p in registry.parameters(cls)}
    else:
        assert "k" not in {p.name for p in registry.parameters(cls)}
        with pytest.raises(pg.MeasureParameterError, match="takes no cutoff"):
            instance @ 5


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_every_measure_class_has_a_formula_docstring_and_an_example(cls: type[Measure]) -> None:
    doc = cls.__doc__ or ""
    assert ">>>" in doc
    assert (sys.modules[cls.__module__].__doc__ or "").strip()


def test_every_parameter_is_declared_once() -> None:
    """Each parameter of a measure has its doc, and ``rel`` is ThresholdMeasure's own field."""
    rel = {f.name: f for f in dataclasses.fields(ThresholdMeasure)}["rel"]
    for cls in CLASSES:
        for f in dataclasses.fields(cls):
            assert f.metadata["param"].doc
            if f.name == "rel":
                assert f.metadata is rel.metadata


def test_the_generated_files_are_fresh() -> None:
    """docs/measures.md, docs/api/measures.md's listings and the typing stubs are what the
    registry gives; if this fails, run ``python -m polars_graded.measures --write``."""
    assert generate.DOCS == DOCS
    assert generate.stale() == []


def test_the_measure_table_lists_every_measure() -> None:
    table = generate.measure_table()
    for cls in CLASSES:
        assert f"| [`{cls.name}`](#{cls.name})" in table
    for name in registry.trec_eval_templates():
        assert f"`{name}" in table


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_each_measure_section_says_everything(cls: type[Measure]) -> None:
    """A measure's section on docs/measures.md: its strings, names elsewhere, formula,
    parameters, the four Python forms linked to their API pages, and its example."""
    section = generate.measure_section(cls)
    declared = cls.declaration
    assert section.startswith(f"(measure-{cls.name})=\n## `{cls.name}`\n")
    for name in (*generate.measure_strings(cls), *declared.aliases):
        assert f"`{name}`" in section
    assert "**Formula.**" in section
    for p in registry.parameters(cls):
        assert f"| `{p.name}` |" in section
    for role, target in (
        ("py:class", cls.__qualname__),
        ("py:data", declared.instance),
        ("py:func", declared.function),
        ("py:meth", f"GradedNamespace.{declared.function}"),
    ):
        assert re.search(rf"{{{role}}}`[^`]*polars_graded\.{re.escape(target)}>?`", section)
    assert f"holds {round(declared.example_value, 6)!r}\n" in section


def test_the_papers_measures_carry_the_papers_definitions() -> None:
    for name in ("mu_ap", "ndcng", "mean_ndcg", "mean_ndcng"):
        assert "**From the paper" in generate.measure_section(registry.FUNCTIONS[name])
    assert "Eq. 4" in generate.measure_section(registry.FUNCTIONS["mu_ap"])
    assert "Eq. 5" in generate.measure_section(registry.FUNCTIONS["ndcng"])


def test_the_generated_markdown_is_one_page_of_valid_tables() -> None:
    """Every table row of the generated block has as many cells as its header (a pipe in
    a cell is escaped), and every measure has its one section."""
    block = generate.measures_block()
    for table in re.findall(r"(?:^\|.*\|\n)+", block + "\n", flags=re.MULTILINE):
        widths = {len(re.split(r"(?<!\\)\|", row)) for row in table.splitlines()}
        assert len(widths) == 1, table
    assert [line[4:-1] for line in block.splitlines() if line.startswith("## `")] == IDS


def test_a_page_without_its_markers_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "measures.md").write_text("# Measures\n", encoding="utf-8")
    (tmp_path / "api" / "measures.md").write_text(generate.api_block(), encoding="utf-8")
    with pytest.raises(ValueError, match="has no <!-- measures:start -->"):
        generate.stale(tmp_path)
    (tmp_path / "measures.md").unlink()
    with pytest.raises(ValueError, match=r"measures\.md is missing"):
        generate.stale(tmp_path)


def test_the_cli_help_lists_every_measure_with_its_defaults() -> None:
    lines = registry.measure_help().splitlines()
    assert [line.split("(")[0].split("@")[0].split()[0] for line in lines] == IDS
    assert any(line.startswith("rbp(p=0.8,rel=1)@k ") for line in lines)


def test_a_taken_name_is_refused() -> None:
    declaration = dataclasses.replace(
        registry.MEASURES["ap"].declaration, name="toy", function="toy", instance="Toy", order=99
    )
    with pytest.raises(pg.InvalidValueError, match=r"'map' .* is taken by 'ap'"):
        registry.register(declaration)(type("Toy", (Measure,), {}))
    for kind, value in (("function", "ap"), ("instance", "AP"), ("order", 2)):
        change: dict[str, Any] = {kind: value}
        taken = dataclasses.replace(declaration, aliases=(), **change)
        with pytest.raises(pg.InvalidValueError, match=f"the {kind} .* is taken by 'ap'"):
            registry.register(taken)(type("Toy", (Measure,), {}))
    assert "toy" not in registry.MEASURES


TOY = '''
"""A toy measure: the number of rows retrieved (for the registry's test)."""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, Measure, param
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


@register(
    Declaration(
        name="toy",
        summary="rows retrieved, times a factor",
        function="toy",
        instance="Toy",
        order=100_000,
        example="toy(factor=2)",
        example_value=6.0,
        aliases=("plaything",),
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class ToyMeasure(Measure):
    """Rows retrieved times ``factor``.

    >>> 1
    1
    """

    factor: float = param(1, "Each row counts this much.")

    def expr(self, r: Ranked) -> pl.Expr:
        return r.n_retrieved.first() * self.factor
'''


@pytest.mark.skipif(sys.platform == "win32", reason="copies the package")
def test_adding_a_measure_is_one_file(tmp_path: Path) -> None:
    """A new module in measures/ gives the grammar, ``pg.<function>``, the shortcut, the
    instance, the CLI's list and its table row and section of docs/measures.md, with nothing
    else edited."""
    shutil.copytree(ROOT / "polars_graded", tmp_path / "polars_graded")
    (tmp_path / "polars_graded" / "measures" / "toy.py").write_text(TOY, encoding="utf-8")
    script = textwrap.dedent(
        """
        import polars as pl
        import polars_graded as pg
        from polars_graded.measures import registry
        from polars_graded.measures.generated import generate
        df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
                           "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
        assert str(pg.parse_measure("PLAYTHING(factor=2)")) == "toy(factor=2)"
        assert df.graded.toy(factor=2).item(0, "toy(factor=2)") == 6.0
        assert df.group_by("query").agg(pg.toy()).item(0, "toy") == 3.0
        assert str(pg.Toy(factor=3)) == "toy(factor=3)"
        assert registry.measure_help().splitlines()[-1].startswith("toy(factor=1)")
        assert "| [`toy`](#toy)" in generate.measure_table()
        assert "\\n## `toy`\\n" in generate.measures_block()
        assert "   ToyMeasure\\n" in generate.api_block()
        assert "def toy(" in generate.functions_stub()
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_declaration_fields_are_documented() -> None:
    assert Declaration.__doc__
    for name in ("name", "function", "instance", "order", "cutoff", "trec_eval"):
        assert name in {f.name for f in dataclasses.fields(Declaration)}
