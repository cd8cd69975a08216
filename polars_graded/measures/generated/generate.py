"""Texts made from the registry: docstring parts, the README's measure table, typing stubs.

The expression functions (:mod:`polars_graded.expressions`) and the namespace shortcuts
(:mod:`polars_graded.namespace`) are made at import from the registry; their docstrings come
from the pieces here. Two files are written from it and kept in the repository, so that
readers and type checkers see them: the README's measure table (between
:data:`README_START` and :data:`README_END`) and its table of ir_measures' names (between
:data:`IR_START` and :data:`IR_END`), and the stubs typing the generated names
(:data:`STUBS`). After adding or changing a measure, rewrite them with::

    python -m polars_graded.measures --write README.md

``--check`` instead exits 1 when one is stale (as tests/test_measures_registry.py does).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import string
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from polars_graded.measures import registry
from polars_graded.measures.base import Measure, format_number
from polars_graded.measures.names import ir_names
from polars_graded.measures.names.parse import parse_measure

EXAMPLE_TABLE = """>>> import polars as pl
>>> import polars_graded as pg
>>> df = pl.DataFrame({
...     "query": [1, 1, 1], "item": ["a", "b", "c"],
...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
... })"""
"""The three-row table of every generated example (one query; labels 0, 2, 1 by score)."""
README_START = "<!-- measures:start -->"
README_END = "<!-- measures:end -->"
IR_START = "<!-- ir_measures:start -->"
IR_END = "<!-- ir_measures:end -->"
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
    """A README cell: each other tool's name with the same measure here, or a dash.

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
    """An ir_measures pattern and its measure here, as the README shows them (``{x}`` as
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
    """The README cell of a measure's ir_measures names, or a dash.

    Examples
    --------
    >>> ir_equivalents({"P": "p@{k}", "SetP": "p"})
    '`P@k` = `p@k`, `SetP` = `p`'
    """
    pairs = (ir_equivalent(pattern, template) for pattern, template in names.items())
    return ", ".join(f"`{theirs}` = `{ours}`" for theirs, ours in pairs) or "—"


def readme_names(cls: type[Measure]) -> list[str]:
    """The measure strings of a README row: the name, ``@k``, each parameter's examples.

    Examples
    --------
    >>> readme_names(registry.FUNCTIONS["ap"])
    ['ap', 'ap@k', 'ap(rel=2)', 'ap(norm=min_rk)']
    """
    names = [cls.name]
    if cls.declaration.takes_cutoff:
        names.append(f"{cls.name}@k")
    for f in dataclasses.fields(cls):
        info = f.metadata["param"]
        names += [f"{cls.name}({f.name}={value})" for value in info.examples]
    return names


def readme_table() -> str:
    """The README's measure section, markers included: one row per registered measure.

    Examples
    --------
    >>> readme_table().splitlines()[0] == README_START
    True
    """
    rows = [
        README_START,
        "<!-- Generated by `python -m polars_graded.measures --write README.md`. -->",
        "",
        "Names are case-insensitive; `@k` sets a cutoff; `rel=t` a relevance threshold "
        "(default 1; trec_eval's `-l t`). Each name links the same measure in trec_eval "
        "(`-m name.k` for a cutoff) and ir_measures (strings after the prefix `ir_measures:`, "
        "see [ir_measures' names](#ir_measures-names)).",
        "",
        "| name | what | trec_eval | ir_measures |",
        "|---|---|---|---|",
    ]
    for cls in registry.CLASSES:
        declared = cls.declaration
        names = ", ".join(f"`{name}`" for name in readme_names(cls))
        what = declared.summary + (
            f"; also {', '.join(f'`{a}`' for a in declared.aliases)}" if declared.aliases else ""
        )
        trec = equivalents(declared.trec_eval, ".k")
        ir = ir_equivalents(declared.ir_measures)
        rows.append(f"| {names} | {what} | {trec} | {ir} |")
    return "\n".join([*rows, README_END])


def ir_measures_table() -> str:
    """The README's section of ir_measures' names, markers included: one row per declared
    ir_measures pattern, then ir_measures' aliases.

    Examples
    --------
    >>> "| `nDCG[@k]` | `ndcg(gain=linear)[@k]` |" in ir_measures_table()
    True
    """
    rows = [
        IR_START,
        "<!-- Generated by `python -m polars_graded.measures --write README.md`. -->",
        "",
        f"| `{ir_names.IR_MEASURES_PREFIX}...` | measure here |",
        "|---|---|",
    ]
    for cls in registry.CLASSES:
        for pattern, template in cls.declaration.ir_measures.items():
            theirs, ours = ir_equivalent(pattern, template)
            rows.append(f"| `{theirs}` | `{ours}` |")
    aliases = ", ".join(f"`{alias}` = `{target}`" for alias, target in ir_names.IR_ALIASES.items())
    rows += ["", f"ir_measures' other names: {aliases}."]
    return "\n".join([*rows, IR_END])


SECTIONS = {(README_START, README_END): readme_table, (IR_START, IR_END): ir_measures_table}
"""The README's generated sections: their markers, and what fills them."""


def with_readme_table(text: str) -> str:
    """``text`` (a README) with each generated section (:data:`SECTIONS`) made anew.

    Examples
    --------
    >>> text = with_readme_table(f"{README_START}old{README_END} {IR_START}old{IR_END}")
    >>> text.count("| `ap`"), text.count("| `AP[@k]` | `ap[@k]` |")
    (1, 1)
    """
    for (start_marker, end_marker), make in SECTIONS.items():
        start, end = text.find(start_marker), text.find(end_marker)
        if start < 0 or end < start:
            msg = f"the README has no {start_marker} ... {end_marker} section"
            raise ValueError(msg)
        text = text[:start] + make() + text[end + len(end_marker) :]
    return text


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


def stale(readme: Path | None) -> list[Path]:
    """The generated files whose text differs from what the registry gives now.

    Examples
    --------
    >>> readme = getfixture("tmp_path") / "README.md"
    >>> empty = f"# Measures\\n{README_START}{README_END}\\n{IR_START}{IR_END}\\n"
    >>> _ = readme.write_text(empty, encoding="utf-8")
    >>> readme in stale(readme)
    True
    >>> _ = readme.write_text(with_readme_table(readme.read_text()), encoding="utf-8")
    >>> readme in stale(readme)
    False
    """
    wanted = stubs()
    if readme is not None:
        wanted[readme] = with_readme_table(readme.read_text(encoding="utf-8"))
    return [path for path, text in wanted.items() if _read(path) != text]


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite (``--write``) or check (``--check``) the stubs and the README's table.

    Examples
    --------
    A README whose measure section is empty is stale: ``--check`` names it and returns 1.

    >>> readme = getfixture("tmp_path") / "README.md"
    >>> empty = f"# Measures\\n{README_START}{README_END}\\n{IR_START}{IR_END}\\n"
    >>> _ = readme.write_text(empty, encoding="utf-8")
    >>> main(["--check", str(readme)])  # doctest: +ELLIPSIS
    stale: ...README.md
    1
    """
    parser = argparse.ArgumentParser(prog="python -m polars_graded.measures")
    parser.add_argument("readme", nargs="?", type=Path, help="README.md whose table to update")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="rewrite the stale files")
    action.add_argument("--check", action="store_true", help="exit 1 when a file is stale")
    args = parser.parse_args(argv)
    outdated = stale(args.readme)
    for path in outdated:
        if args.write:
            text = stubs().get(path)
            if text is None:
                text = with_readme_table(path.read_text(encoding="utf-8"))
            path.write_text(text, encoding="utf-8")
        print(f"{'rewrote' if args.write else 'stale'}: {path}")
    return 1 if outdated and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
