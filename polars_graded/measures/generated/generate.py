"""Texts made from the registry: docstring parts, the site's measure pages, typing stubs.

The expression functions (:mod:`polars_graded.expressions`) and the namespace shortcuts
(:mod:`polars_graded.namespace`) are made at import from the registry; their docstrings come
from the pieces here. The files written from it are kept in the repository, so that readers
and type checkers see them:

* ``docs/measures.md``, between :data:`PAGE_START` and :data:`PAGE_END`: the table of every
  measure, ir_measures' names, and one section per measure (:func:`measures_block`);
* ``docs/api/measures.md``, between :data:`API_START` and :data:`API_END`: the API
  reference's listings of the measure classes, instances and expression functions
  (:func:`api_block`);
* the stubs typing the generated names (:data:`STUBS`).

After adding or changing a measure, rewrite them with::

    python -m polars_graded.measures --write

``--check`` instead exits 1 when one is stale (as tests/test_measures_registry.py does);
``--docs DIR`` reads and writes the pages of another docs folder than the repository's.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import string
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from polars_graded.measures import registry
from polars_graded.measures.base import Measure, format_number, param_info
from polars_graded.measures.names import ir_names
from polars_graded.measures.names.parse import parse_measure

EXAMPLE_TABLE = """>>> import polars as pl
>>> import polars_graded as pg
>>> df = pl.DataFrame({
...     "query": [1, 1, 1], "item": ["a", "b", "c"],
...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
... })"""
"""The three-row table of every generated example (one query; labels 0, 2, 1 by score)."""
PAGE_START = "<!-- measures:start -->"
PAGE_END = "<!-- measures:end -->"
API_START = "<!-- api-measures:start -->"
API_END = "<!-- api-measures:end -->"
DOCS = Path(__file__).resolve().parents[3] / "docs"
"""The repository's docs folder, where ``measures.md`` and ``api/measures.md`` are."""
HERE = Path(__file__).parent
STUBS = {
    "measures": HERE / "measures.pyi",
    "functions": HERE / "functions.pyi",
}
"""The generated typing stubs: the ready-made instances, and the expression functions."""
FIRST_PARTY = [("polars_graded.expressions", "ExprOptions")]
"""What the functions stub imports from the package."""
HEADER = (
    "# Generated from the measure registry by `python -m polars_graded.measures --write`:\n"
    "# do not edit (tests/test_measures_registry.py fails when this file is stale).\n"
)
GENERATED = (
    "<!-- Generated from the measure registry by `python -m polars_graded.measures --write`: "
    "edit the measures' declarations and docstrings, not this block. -->"
)
PAPER = {
    "mu_ap": """**From the paper** (Scheel, Lommatzsch and Albayrak 2011, §3.1, Eq. 4). AP needs
relevance to be yes or no, so on graded labels it depends on the threshold that splits them:
on the paper's Table 1 ranking (labels 1, 0, 3, 3, 2, 0, 1, 4) AP is 0.780 at threshold 1
and 0.125 at threshold 4. µAP takes every threshold instead of choosing one. With the
query's levels `l_1 < ... < l_m` (its distinct positive labels) and their distances
`d_i = l_i - l_(i-1)` (`l_0 = 0`):

```text
µAP_q = Σ_i d_i · AP_q^(l_i) / Σ_i d_i        (Σ_i d_i = l_m)
```

A row counts as relevant at as many thresholds as its label reaches, and each level weighs
by the span of thresholds it covers, so unused levels and uneven spacing do not distort it:
since `AP^t` is a step function of `t`, µAP is the mean of `AP^t` over every real threshold
`t` in `(0, l_m]`. On binary labels it is AP (labels in {0, x}: `AP^x`), and multiplying
every label by a constant leaves it unchanged. **µMAP** is its mean over the queries,
`summary`'s mean of `mu_ap`. On Table 1's ranking µAP is 0.448 (0.447817 here; the
{ref}`paper's reference values <conventions-reference>`). The paper's levels are "all
relevance levels used in the reference ranking": `levels="query"` reads each query's own,
`levels="table"` those of the whole table (the paper's OHSUMED µMAP, the mean of MAP at
thresholds 1 and 2, is the latter).""",
    "ap": """**From the paper** (Eq. 2). `AP_q^t`, AP with the threshold `t` applied, is
`ap(rel=t)`; the paper's Table 1 lists it for `t = 0, ..., 5` on one ranking, and µAP
([`mu_ap`](#mu_ap)) averages it over the thresholds.""",
    "ndcg": """**From the paper** (Eq. 3). The default gain, `exp` (`2^rel - 1`), is the
paper's; on graded labels NDCG then depends on the scale of the labels (doubling every label
takes NDCG@8 of the paper's Table 2 ranking from 0.55 to 0.44), which NDCNG
([`ndcng`](#ndcng)) removes.""",
    "ndcng": """**From the paper** (Scheel, Lommatzsch and Albayrak 2011, §3.2, Eq. 5). NDCG
with exponential gain grows with the rating scale: on the paper's Table 2 ranking, doubling
every label, which makes no item more or less relevant than another, takes NDCG@8 from 0.55
to 0.44 (0.550690 and 0.444497 here), so NDCG on a 0–4 scale and on a 0–50 scale cannot be
compared. NDCNG divides each label by the query's top label `m_q` before the gain:

```text
ngain(rel) = 2^(rel / m_q) - 1     for rel > 0 and m_q > 0, else 0
NDCNG@k    = Σ_{p ≤ k} ngain(rel(p)) / log2(p + 1)  /  Σ_{p ≤ k} ngain(rel*(p)) / log2(p + 1)
```

(`rel*` the ideal ranking), so every query's best row gains 1 whatever its scale, and the
value does not change when every label is multiplied by a constant: NDCNG@8 is 0.65 on the
labels and on the labels doubled (0.651905 here). A query without a positive label
(`m_q ≤ 0`) scores 0. The paper's `m_q` is the query's highest reachable gain: here the top
label among its judged rows, retrieved or not.""",
    "mean_ndcg": """**From the paper.** The "mean" column of Table 2 (0.28 on its ranking,
0.279636 here) and the mean NDCG of Fig. 6 to 8: NDCG averaged over the cutoffs 1 to N of
one ranking; over queries, the mean of those means ({ref}`conventions-paper`).""",
    "mean_ndcng": """**From the paper.** Mean NDCNG, the "mean" of Table 2's third example
(0.39 on its ranking, 0.394189 here, the same on the labels doubled) and of Fig. 6 to 8:
NDCNG averaged over the cutoffs 1 to N of one ranking; over queries, the mean of those
means ({ref}`conventions-paper`).""",
}
"""What the paper (docs/conventions.md) defines and fixes, in the sections of its measures."""
DEFINED_BY_THE_PAPER = frozenset({"mu_ap", "ndcng"})
"""Measures whose :data:`PAPER` note is their definition, shown instead of their module's."""
CUTOFFS = {
    "top_k": "`@k` keeps the first k ranked rows (and the ideal ranking's first k)",
    "all_rows": (
        "`@k` keeps the first k ranked rows; the divisor still reads the whole query "
        "(its relevant rows, retrieved or not)"
    ),
    "none": "none (`@k` is refused; `depth=`, trec_eval's `-M`, cuts every ranking first)",
}
"""What ``@k`` does, by ``Declaration.cutoff``."""
_LITERAL = re.compile(r"``(.+?)``", re.DOTALL)
_ROLE = re.compile(r":(class|func|mod|data|meth|attr|exc):`(~?)([^`]+)`")
_CONVENTIONS = re.compile(r"docs/conventions\.md (§\d+(?:(?:-|, )§?\d+)*)")
_MODULE_DOCSTRING = re.compile(r"\(module\s+docstring")
_SECTION_RULE = re.compile(r"^-{3,}$")


def sentence(summary: str) -> str:
    """A declaration's summary as a sentence: capitalised (ASCII only: µ stays µ), a full stop.

    Examples
    --------
    >>> sentence("µAP: AP averaged"), sentence("reciprocal rank")
    ('µAP: AP averaged.', 'Reciprocal rank.')
    """
    first = summary[0].upper() if summary[0].isascii() else summary[0]
    return f"{first}{summary[1:]}."


def formula(cls: type[Measure]) -> str:
    """The first paragraph of a measure class's docstring: its formula, for generated docs.

    Examples
    --------
    >>> formula(registry.FUNCTIONS["rr"])
    'RR@k: ``1 / p`` of the first relevant row within the top k, else 0.'
    """
    first = inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0]
    return " ".join(first.split()).replace(" (module docstring)", f" (:mod:`{cls.__module__}`)")


def python_value(value: Any) -> str:
    """A parameter value as Python source (``[1, 2]``, ``'linear'``, ``{1: 3}``).

    Examples
    --------
    >>> python_value((1.0, 2.0)), python_value("linear"), python_value(((1.0, 3.0),))
    ('[1, 2]', "'linear'", '{1: 3}')
    """
    if isinstance(value, tuple) and all(isinstance(v, tuple) for v in value):
        return "{" + ", ".join(f"{python_value(a)}: {python_value(b)}" for a, b in value) + "}"
    if isinstance(value, tuple):
        return "[" + ", ".join(python_value(v) for v in value) + "]"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return repr(value)
    return format_number(value)


def example_call(cls: type[Measure], *, expression: bool = False) -> tuple[str, str]:
    """The keywords of the declared example (``"k=2"``) and its column name (``"ndcg@2"``).

    Examples
    --------
    >>> example_call(registry.FUNCTIONS["dcg"])
    ('base=10, k=2', 'dcg(base=10)@2')
    """
    measure = parse_measure(cls.declaration.example)
    keywords = [
        f"{p.name}={python_value(getattr(measure, p.name))}"
        for p in registry.parameters(cls, expression=expression)
        if p.required or getattr(measure, p.name) != p.default
    ]
    return ", ".join(keywords), str(measure)


def example(cls: type[Measure], call: str, *, expression: bool = False) -> str:
    """The generated doctest: ``call`` (with ``{}`` for the keywords) on the example table.

    Examples
    --------
    >>> print(example(registry.FUNCTIONS["rr"], "df.graded.{}").splitlines()[-2][4:])
    round(df.graded.rr().item(0, 'rr'), 6)
    """
    keywords, column = example_call(cls, expression=expression)
    value = round(cls.declaration.example_value, 6)
    made = call.format(f"{cls.declaration.function}({keywords})")
    return f"{EXAMPLE_TABLE}\n>>> round({made}.item(0, {column!r}), 6)\n{value!r}"


def parameters_section(cls: type[Measure], columns: str, *, expression: bool = False) -> str:
    """The numpydoc ``Parameters`` section: each declared parameter, then ``**columns``.

    Examples
    --------
    >>> print(parameters_section(registry.FUNCTIONS["judged"], "Table options."))
    Parameters
    ----------
    k
        Cutoff: only the first ``k`` retrieved rows count; ``None`` for all. Default: ``None``.
    **columns
        Table options.
    """
    lines = ["Parameters", "----------"]
    for p in registry.parameters(cls, expression=expression):
        default = "" if p.required else f" Default: ``{python_value(p.default)}``."
        lines += [p.name, f"    {p.doc}{default}"]
    return "\n".join([*lines, "**columns", f"    {columns}"])


def equivalents(names: Mapping[str, str], suffix: str) -> str:
    """A cell of the measures table: each other tool's name with the same measure here, or
    a dash.

    Examples
    --------
    >>> equivalents({"map": "ap{r}", "map_cut": "ap{r}@{k}"}, ".k")
    '`map` = `ap`, `map_cut.k` = `ap@k`'
    """
    cells = []
    for theirs, ours in names.items():
        cut = suffix if "{k}" in ours else ""
        cells.append(f"`{theirs}{cut}` = `{ours.format(r='', k='k')}`")
    return ", ".join(cells) or "—"


def ir_equivalent(pattern: str, template: str) -> tuple[str, str]:
    """An ir_measures pattern and its measure here, as the measures page shows them (``{x}`` as
    ``x``; ``@k`` where the cutoff is required, ``[@k]`` where it is optional).

    Examples
    --------
    >>> ir_equivalent("nDCG(gains={gains})", "ndcg(gain={gains})[@{k}]")
    ('nDCG(gains=gains)[@k]', 'ndcg(gain=gains)[@k]')
    >>> ir_equivalent("P", "p@{k}")
    ('P@k', 'p@k')
    """
    optional = template.endswith(ir_names.OPTIONAL_CUTOFF)
    ours = template.removesuffix(ir_names.OPTIONAL_CUTOFF)
    fields = {field for _, field, _, _ in string.Formatter().parse(ours) if field}
    theirs = pattern.replace("{", "").replace("}", "")
    theirs += "[@k]" if optional else "@k" if "k" in fields else ""
    ours = ours.format(**{field: field for field in fields})
    return theirs, ours + ("[@k]" if optional else "")


def ir_equivalents(names: Mapping[str, str]) -> str:
    """The measures page's cell of a measure's ir_measures names, or a dash.

    Examples
    --------
    >>> ir_equivalents({"P": "p@{k}", "SetP": "p"})
    '`P@k` = `p@k`, `SetP` = `p`'
    """
    pairs = (ir_equivalent(pattern, template) for pattern, template in names.items())
    return ", ".join(f"`{theirs}` = `{ours}`" for theirs, ours in pairs) or "—"


def measure_strings(cls: type[Measure]) -> list[str]:
    """The measure strings the table lists: the name, ``@k``, each parameter's examples.

    Examples
    --------
    >>> measure_strings(registry.FUNCTIONS["ap"])
    ['ap', 'ap@k', 'ap(rel=2)', 'ap(norm=min_rk)']
    """
    names = [cls.name]
    if cls.declaration.takes_cutoff:
        names.append(f"{cls.name}@k")
    for f in dataclasses.fields(cls):
        info = f.metadata["param"]
        names += [f"{cls.name}({f.name}={value})" for value in info.examples]
    return names


def myst(text: str) -> str:
    """reStructuredText of a docstring as MyST Markdown: literals, cross-references, and
    ``docs/conventions.md §N`` as a link (the page is ``docs/measures.md``).

    A cross-reference to a measure class, instance or function of a family module points to
    its public name, whose API page exists.

    Examples
    --------
    >>> myst("``k`` of :class:`~polars_graded.measures.precision.HitsAtK`")
    '`k` of {py:class}`~polars_graded.HitsAtK`'
    >>> myst("(docs/conventions.md §3-4)")
    '({doc}`docs/conventions.md §3-4 <conventions>`)'
    """

    public = {c.__name__ for c in registry.CLASSES} | set(registry.INSTANCES)
    public |= set(registry.FUNCTIONS)

    def role(match: re.Match[str]) -> str:
        kind, tilde, target = match.groups()
        last = target.rsplit(".", 1)[-1]
        if target.startswith("polars_graded.measures.") and last in public:
            target = f"polars_graded.{last}"
        return f"{{py:{kind}}}`{tilde}{target}`"

    text = _LITERAL.sub(lambda m: f"`{m[1]}`", text)
    text = _ROLE.sub(role, text)
    return _CONVENTIONS.sub(lambda m: f"{{doc}}`docs/conventions.md {m[1]} <conventions>`", text)


def paragraphs(doc: str | None) -> list[str]:
    """A docstring's paragraphs before its first numpydoc section, each dedented.

    Examples
    --------
    >>> paragraphs("Title.\\n\\n    ``x = 1``\\n\\nExamples\\n--------\\n>>> 1\\n1\\n")
    ['Title.', '``x = 1``']
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    for i in range(len(lines) - 1):
        if lines[i].strip() and _SECTION_RULE.match(lines[i + 1].strip()):
            lines = lines[:i]
            break
    found = (textwrap.dedent(p).strip() for p in "\n".join(lines).split("\n\n"))
    return [p for p in found if p]


def cell(text: str) -> str:
    """Text for a Markdown table cell: pipes escaped, one line.

    Examples
    --------
    >>> cell("`str | None`")
    '`str \\\\| None`'
    """
    return " ".join(text.replace("|", "\\|").split())


def measure_table() -> str:
    """The table of every registered measure: its strings, what it is, trec_eval's and
    ir_measures' names for it.

    Examples
    --------
    >>> "| [`ap`](#ap), `ap@k`" in measure_table()
    True
    """
    rows = [
        "| name | what | trec_eval | ir_measures |",
        "|---|---|---|---|",
    ]
    for cls in registry.CLASSES:
        declared = cls.declaration
        first, *others = measure_strings(cls)
        names = ", ".join([f"[`{first}`](#{cls.name})", *(f"`{name}`" for name in others)])
        what = declared.summary + (
            f"; also {', '.join(f'`{a}`' for a in declared.aliases)}" if declared.aliases else ""
        )
        trec = equivalents(declared.trec_eval, ".k")
        ir = ir_equivalents(declared.ir_measures)
        rows.append("| " + " | ".join(cell(c) for c in (names, what, trec, ir)) + " |")
    return "\n".join(rows)


def ir_measures_table() -> str:
    """The table of ir_measures' names: one row per declared ir_measures pattern, then
    ir_measures' aliases.

    Examples
    --------
    >>> "| `nDCG[@k]` | `ndcg(gain=linear)[@k]` |" in ir_measures_table()
    True
    """
    rows = [
        f"| `{ir_names.IR_MEASURES_PREFIX}...` | measure here |",
        "|---|---|",
    ]
    for cls in registry.CLASSES:
        for pattern, template in cls.declaration.ir_measures.items():
            theirs, ours = ir_equivalent(pattern, template)
            rows.append(f"| {cell(f'`{theirs}`')} | {cell(f'`{ours}`')} |")
    aliases = ", ".join(f"`{alias}` = `{target}`" for alias, target in ir_names.IR_ALIASES.items())
    rows += ["", f"ir_measures' other names: {aliases}."]
    return "\n".join(rows)


def definition(cls: type[Measure]) -> list[str]:
    """The paragraphs defining a measure: its class docstring, then its module's docstring
    when the class cites it.

    Examples
    --------
    >>> definition(registry.FUNCTIONS["rr"])
    ['**Formula.** RR@k: `1 / p` of the first relevant row within the top k, else 0.']
    """
    paper = cls.name in DEFINED_BY_THE_PAPER
    where = "(the paper's, below" if paper else "(definition below"
    own = [_MODULE_DOCSTRING.sub(where, myst(p)) for p in paragraphs(cls.__doc__)]
    own[0] = "**Formula.** " + " ".join(own[0].split())
    if paper or not _MODULE_DOCSTRING.search(cls.__doc__ or ""):
        return own
    module = [myst(p) for p in paragraphs(sys.modules[cls.__module__].__doc__)]
    return [*own, "**Definition.** " + module[0], *module[1:]]


def python_forms(cls: type[Measure]) -> str:
    """The paragraph naming a measure's four Python forms, linked to their API pages.

    Examples
    --------
    >>> print(python_forms(registry.FUNCTIONS["rr"]))  # doctest: +NORMALIZE_WHITESPACE
    **In Python.** The instance {py:data}`pg.RR <polars_graded.RR>` (every parameter at its
    default; `pg.RR(rel=2) @ 10` for others) of the class
    {py:class}`~polars_graded.ReciprocalRank`; the expression
    {py:func}`pg.rr(...) <polars_graded.rr>`, for a `group_by(...).agg(...)` of your own;
    the shortcut {py:meth}`df.graded.rr(...) <polars_graded.GradedNamespace.rr>`, which
    checks the table and gives one row per query.
    """
    declared = cls.declaration
    call = f"pg.{declared.instance}"
    varied = next((name for name in _examples(cls) if name != "k"), None)
    if varied is not None:
        call += f"({varied}={python_value(_other_value(cls, varied))})"
    if declared.takes_cutoff:
        call += " @ 10"
    others = f"; `{call}` for others" if call != f"pg.{declared.instance}" else ""
    required = [p.name for p in registry.parameters(cls, expression=True) if p.required]
    needs = (
        f" (which needs {' and '.join(f'`{n}`' for n in required)} given: the default has "
        "no single-expression form)"
        if required
        else ""
    )
    name = declared.function
    return "\n".join(
        [
            f"**In Python.** The instance {{py:data}}`pg.{declared.instance} "
            f"<polars_graded.{declared.instance}>` (every parameter at its default{others}) of "
            f"the class {{py:class}}`~polars_graded.{cls.__qualname__}`; the expression",
            f"{{py:func}}`pg.{name}(...) <polars_graded.{name}>`{needs}, for a "
            "`group_by(...).agg(...)` of your own;",
            f"the shortcut {{py:meth}}`df.graded.{name}(...) <polars_graded.GradedNamespace."
            f"{name}>`, which checks the table and gives one row per query.",
        ]
    )


def _examples(cls: type[Measure]) -> dict[str, tuple[str, ...]]:
    """The listed parameters of ``cls`` that declare example values, and those values."""
    fields = {f.name: param_info(f) for f in dataclasses.fields(cls)}
    listed = (p.name for p in registry.parameters(cls))
    return {name: fields[name].examples for name in listed if fields[name].examples}


def _other_value(cls: type[Measure], name: str) -> Any:
    """A value of parameter ``name`` other than its default: its first example, read."""
    measure = parse_measure(f"{cls.name}({name}={_examples(cls)[name][0]})")
    return getattr(measure, name)


def parameters_table(cls: type[Measure]) -> str:
    """A measure's parameters as a Markdown table: name, type, default, meaning.

    Examples
    --------
    >>> head, rule, k = parameters_table(registry.FUNCTIONS["judged"]).splitlines()
    >>> print(head, k[: k.index("Cutoff")].rstrip(), sep="\\n")
    | parameter | type | default | meaning |
    | `k` | `int \\| None` | `None` |
    """
    params = registry.parameters(cls)
    if not params:
        return "It takes no parameter."
    rows = ["| parameter | type | default | meaning |", "|---|---|---|---|"]
    for p in params:
        cells = (f"`{p.name}`", f"`{p.accepts}`", f"`{python_value(p.default)}`", myst(p.doc))
        rows.append("| " + " | ".join(cell(c) for c in cells) + " |")
    return "\n".join(rows)


def example_block(cls: type[Measure]) -> str:
    """The Python example of a measure's section, on the page's example table.

    Examples
    --------
    >>> print(example_block(registry.FUNCTIONS["ndcg"]))
    ```python
    # the column ndcg@2 holds 0.521296
    df.graded.ndcg(k=2)
    df.group_by("query").agg(pg.ndcg(k=2))
    pg.evaluate(df, [pg.NDCG @ 2])
    ```
    """
    declared = cls.declaration
    keywords, column = example_call(cls)
    expression, _ = example_call(cls, expression=True)
    measure = parse_measure(declared.example)
    own = [
        f"{p.name}={python_value(getattr(measure, p.name))}"
        for p in registry.parameters(cls)
        if p.name != "k" and getattr(measure, p.name) != p.default
    ]
    instance = f"pg.{declared.instance}" + (f"({', '.join(own)})" if own else "")
    if measure.k is not None:
        instance += f" @ {measure.k}"
    value = round(declared.example_value, 6)
    lines = [
        f"# the column {column} holds {value!r}",
        f"df.graded.{declared.function}({keywords})",
        f'df.group_by("query").agg(pg.{declared.function}({expression}))',
        f"pg.evaluate(df, [{instance}])",
    ]
    return "\n".join(["```python", *lines, "```"])


def measure_section(cls: type[Measure]) -> str:
    """The section of one measure: heading ``## `name` ``, what it is, its names, its
    definition, its parameters, its Python forms and an example.

    Examples
    --------
    >>> section = measure_section(registry.FUNCTIONS["ap"])
    >>> section.splitlines()[:3]
    ['(measure-ap)=', '## `ap`', '']
    >>> "- trec_eval: `map` = `ap`, `map_cut.k` = `ap@k`" in section
    True
    """
    declared = cls.declaration
    strings = ", ".join(f"`{s}`" for s in measure_strings(cls))
    aliases = ", ".join(f"`{a}`" for a in declared.aliases) or "none"
    ties = (
        'every policy; under `ties="average"` its exact expectation over the orders of tied rows'
        if declared.averages_ties
        else 'every policy but `ties="average"` (no closed form), which is refused'
    )
    facts = [
        f"- Measure strings: {strings}; with every default: `{registry.synopsis(cls)}`",
        f"- Aliases: {aliases}",
        f"- Cutoff: {CUTOFFS[declared.cutoff]}",
        f"- trec_eval: {equivalents(declared.trec_eval, '.k')}",
        f"- ir_measures: {ir_equivalents(declared.ir_measures)}",
        f"- Tied scores ({{doc}}`guide/ties`): {ties}",
        f"- Column: {'Int64 (a count)' if declared.counts else 'Float64'}",
    ]
    parts = [
        f"(measure-{cls.name})=\n## `{cls.name}`",
        myst(sentence(declared.summary)),
        "\n".join(facts),
        *definition(cls),
        *([PAPER[cls.name]] if cls.name in PAPER else []),
        parameters_table(cls),
        python_forms(cls),
        "On the example table the shortcut, the expression and the instance agree:",
        example_block(cls),
    ]
    return "\n\n".join(parts)


def measures_block() -> str:
    """The generated block of ``docs/measures.md``, markers included.

    Examples
    --------
    >>> block = measures_block()
    >>> block.startswith(PAGE_START), block.endswith(PAGE_END)
    (True, True)
    >>> block.count("\\n## `") == len(registry.CLASSES)
    True
    """
    example = "\n".join(line[4:] for line in EXAMPLE_TABLE.splitlines())  # no ">>> " prompts
    parts = [
        PAGE_START,
        GENERATED,
        "## Every measure",
        "Names are case-insensitive; `@k` sets a cutoff; `rel=t` a relevance threshold "
        "(default 1; trec_eval's `-l t`). Each name links its section; the other columns give "
        "the same measure's name in trec_eval (`-m name.k` for a cutoff) and in ir_measures "
        "(strings after the prefix `ir_measures:`, see [ir_measures' names](#ir_measures-names)).",
        measure_table(),
        "## ir_measures' names",
        "A string after the prefix `ir_measures:` is read in ir_measures' syntax and sense "
        "({doc}`guide/measure-strings`); each name below is that measure here.",
        ir_measures_table(),
        "## The example table",
        "Each section ends with the measure on one query of three rows, ranked by score "
        "(labels 0, 2, 1); the examples run in this order, as the cells of one notebook.",
        f"```python\n{example}\n```",
        *(measure_section(cls) for cls in registry.CLASSES),
        PAGE_END,
    ]
    return "\n\n".join(parts)


def api_block() -> str:
    """The generated block of ``docs/api/measures.md``, markers included: autosummary
    listings of every measure class, ready-made instance and expression function.

    Examples
    --------
    >>> block = api_block()
    >>> "   MuAveragePrecision\\n" in block, "   MuAP\\n" in block, "   mu_ap\\n" in block
    (True, True, True)
    """

    def listing(title: str, text: str, names: Sequence[str]) -> str:
        entries = "".join(f"   {name}\n" for name in names)
        return (
            f"## {title}\n\n{text}\n\n```{{eval-rst}}\n.. currentmodule:: polars_graded\n\n"
            f".. autosummary::\n   :toctree: generated\n\n{entries}```"
        )

    parts = [
        API_START,
        GENERATED,
        listing(
            "Measure classes",
            "One frozen dataclass per measure, its parameters as fields; {doc}`../measures` "
            "gives each one's definition and names.",
            [cls.__qualname__ for cls in registry.CLASSES],
        ),
        listing(
            "Ready-made instances",
            "Each class with every parameter at its default: call one for other parameters "
            "(`pg.AP(rel=2)`), `@` for a cutoff (`pg.AP(rel=2) @ 10`).",
            list(registry.INSTANCES),
        ),
        listing(
            "Expression functions",
            "One `pl.Expr` per measure, for a `group_by(...).agg(...)` of your own; the "
            "namespace has the same names ({doc}`namespace`).",
            list(registry.FUNCTIONS),
        ),
        API_END,
    ]
    return "\n\n".join(parts)


def with_block(text: str, start_marker: str, end_marker: str, block: str, where: str) -> str:
    """``text`` with its section from ``start_marker`` to ``end_marker`` replaced by
    ``block`` (which holds the markers).

    Examples
    --------
    >>> with_block("a <!-- s -->old<!-- e --> b", "<!-- s -->", "<!-- e -->", "NEW", "x.md")
    'a NEW b'
    """
    start, end = text.find(start_marker), text.find(end_marker)
    if start < 0 or end < start:
        msg = f"{where} has no {start_marker} ... {end_marker} section to generate"
        raise ValueError(msg)
    return text[:start] + block + text[end + len(end_marker) :]


def pages(docs: Path = DOCS) -> dict[Path, tuple[str, str, Callable[[], str]]]:
    """The generated pages of the docs folder ``docs``: each one's markers and its block.

    Examples
    --------
    >>> sorted(str(path.relative_to(DOCS)) for path in pages())
    ['api/measures.md', 'measures.md']
    """
    return {
        docs / "measures.md": (PAGE_START, PAGE_END, measures_block),
        docs / "api" / "measures.md": (API_START, API_END, api_block),
    }


def _imports(names: Sequence[tuple[str, str]]) -> list[str]:
    """``from module import A, B`` lines, as ruff's isort writes them."""
    modules: dict[str, list[str]] = {}
    for module, name in names:
        modules.setdefault(module, []).append(name)
    lines = []
    for module, imported in sorted(modules.items()):
        imported.sort(key=str.lower)
        line = f"from {module} import {', '.join(imported)}"
        if len(line) > 100:
            line = f"from {module} import (\n" + "".join(f"    {n},\n" for n in imported)
            line += ")"
        lines.append(line)
    return lines


def measures_stub() -> str:
    """The stub typing the ready-made instances (``AP: AveragePrecision``).

    Examples
    --------
    >>> "AP: AveragePrecision" in measures_stub()
    True
    """
    classes = [(cls.__module__, cls.__qualname__) for cls in registry.CLASSES]
    body = [f"{m.declaration.instance}: {type(m).__qualname__}" for m in registry.MEASURES.values()]
    # Listed in __all__, the classes are re-exported by polars_graded.measures too.
    names = [*registry.INSTANCES, *(cls.__qualname__ for cls in registry.CLASSES)]
    names.sort(key=lambda name: (not (name.isupper() and len(name) > 1), name))  # as ruff sorts
    exported = ["__all__ = [", *(f'    "{name}",' for name in names), "]"]
    doc = '"""The ready-made measure instances and their classes, made public at import."""'
    lines = [HEADER + doc, "", *_imports(classes), "", *exported, "", *body]
    return "\n".join(lines) + "\n"


def functions_stub() -> str:
    """The stub typing the expression functions (``def ap(*, rel: float = 1, ...)``).

    Examples
    --------
    >>> "def ap(" in functions_stub()
    True
    """
    functions = []
    for cls in registry.CLASSES:
        params = "".join(
            f"    {p.name}: {p.accepts},\n"
            if p.required
            else f"    {p.name}: {p.accepts} = {_stub_value(p.default)},\n"
            for p in registry.parameters(cls, expression=True)
        )
        star = "    *,\n" if params else ""
        summary = sentence(cls.declaration.summary).replace('"', "'")
        functions.append(
            f"def {cls.declaration.function}(\n{star}{params}"
            f"    **columns: Unpack[ExprOptions],\n) -> pl.Expr:\n"
            f'    """{summary}"""'
        )
    text = "\n\n".join(functions)
    typing = [("typing", "Unpack")]
    typing += [("collections.abc", n) for n in ("Mapping", "Sequence") if f"{n}[" in text]
    doc = '"""The expression functions, made by :mod:`polars_graded.expressions` at import."""'
    imports = [*_imports(typing), "", "import polars as pl", "", *_imports(FIRST_PARTY)]
    return "\n".join([HEADER + doc, "", *imports, "", text]) + "\n"


def _stub_value(value: Any) -> str:
    """A default as ruff formats it in a stub (double quotes)."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def stubs() -> dict[Path, str]:
    """Every generated stub file and its text.

    Examples
    --------
    >>> sorted(path.name for path in stubs())
    ['functions.pyi', 'measures.pyi']
    """
    return {STUBS["measures"]: measures_stub(), STUBS["functions"]: functions_stub()}


def wanted(docs: Path = DOCS) -> dict[Path, str]:
    """Every generated file and the text it should hold: the stubs, and the pages of
    ``docs`` with their blocks made anew.

    Raises
    ------
    ValueError
        A page is missing, or lacks its markers.

    Examples
    --------
    >>> sorted(path.name for path in wanted())
    ['functions.pyi', 'measures.md', 'measures.md', 'measures.pyi']
    """
    texts = stubs()
    for path, (start, end, make) in pages(docs).items():
        if not path.is_file():
            msg = f"{path} is missing: the generated pages live in a docs folder (--docs DIR)"
            raise ValueError(msg)
        texts[path] = with_block(path.read_text(encoding="utf-8"), start, end, make(), str(path))
    return texts


def stale(docs: Path = DOCS) -> list[Path]:
    """The generated files whose text differs from what the registry gives now.

    Examples
    --------
    >>> docs = getfixture("tmp_path")
    >>> (docs / "api").mkdir()
    >>> page, api = docs / "measures.md", docs / "api" / "measures.md"
    >>> _ = page.write_text(f"# Measures\\n\\n{PAGE_START}\\n{PAGE_END}\\n", encoding="utf-8")
    >>> _ = api.write_text(f"# Measures\\n\\n{API_START}\\n{API_END}\\n", encoding="utf-8")
    >>> page in stale(docs), api in stale(docs)
    (True, True)
    >>> for path, text in wanted(docs).items():
    ...     if path.parent in (docs, docs / "api"):
    ...         _ = path.write_text(text, encoding="utf-8")
    >>> [path for path in stale(docs) if docs in path.parents]
    []
    """
    return outdated(wanted(docs))


def outdated(texts: Mapping[Path, str]) -> list[Path]:
    """The files of ``texts`` (path -> the text it should hold) that hold something else."""
    return [path for path, text in texts.items() if _read(path) != text]


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite (``--write``) or check (``--check``) the stubs and the docs' generated blocks.

    Examples
    --------
    A measures page whose generated block is empty is stale: ``--check`` names it and
    returns 1; a page without its markers is an error, status 2.

    >>> docs = getfixture("tmp_path")
    >>> (docs / "api").mkdir()
    >>> _ = (docs / "measures.md").write_text(f"{PAGE_START}{PAGE_END}\\n", encoding="utf-8")
    >>> _ = (docs / "api" / "measures.md").write_text(api_block() + "\\n", encoding="utf-8")
    >>> main(["--check", "--docs", str(docs)])  # doctest: +ELLIPSIS
    stale: ...measures.md
    1
    >>> _ = (docs / "measures.md").write_text("# Measures\\n", encoding="utf-8")
    >>> main(["--check", "--docs", str(docs)])  # doctest: +ELLIPSIS
    python -m polars_graded.measures: error: ...measures.md has no <!-- measures:start --> ...
    2
    """
    parser = argparse.ArgumentParser(prog="python -m polars_graded.measures")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="rewrite the stale files")
    action.add_argument("--check", action="store_true", help="exit 1 when a file is stale")
    parser.add_argument(
        "--docs",
        type=Path,
        default=DOCS,
        help="the docs folder holding measures.md and api/measures.md (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    try:
        texts = wanted(args.docs)
    except ValueError as error:
        print(f"{parser.prog}: error: {error}")
        return 2
    changed = outdated(texts)
    for path in changed:
        if args.write:
            path.write_text(texts[path], encoding="utf-8")
        print(f"{'rewrote' if args.write else 'stale'}: {path}")
    return 1 if changed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
