"""The measure registry: every measure class of this package, found at import, in one catalogue.

A family module registers its classes with :func:`register`; this module imports every other
module of :mod:`polars_graded.measures` (no list to keep), then builds the catalogue in the
declared order: :data:`MEASURES` (canonical name -> instance with default parameters),
:data:`ALIASES`, :data:`INSTANCES`, and the parameters of each expression function and
namespace shortcut (:func:`parameters`, :func:`signature`, :func:`bind`). The texts made from
it (docstrings, the site's measure pages, the typing stubs) are in
:mod:`polars_graded.measures.generated.generate`.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from polars_graded.errors import InvalidValueError
from polars_graded.measures.base import Declaration, Measure, format_value, param_info

MeasureClass = TypeVar("MeasureClass", bound=type[Measure])

MEASURES: dict[str, Measure] = {}
"""Every measure by canonical name, with default parameters, in the declared order."""
ALIASES: dict[str, str] = {}
"""Other names the grammar reads -> canonical name (``"map"`` -> ``"ap"``)."""


def register(declaration: Declaration) -> Callable[[MeasureClass], MeasureClass]:
    """Class decorator: ``cls`` joins the catalogue under ``declaration``.

    Examples
    --------
    >>> from polars_graded.measures.ap import AveragePrecision
    >>> AveragePrecision.name, CLASSES[1] is AveragePrecision
    ('ap', True)
    """

    def add(cls: MeasureClass) -> MeasureClass:
        _check_unique(declaration, cls.__name__)
        cls.declaration = declaration
        cls.name = declaration.name
        MEASURES[cls.name] = cls()
        ALIASES.update(dict.fromkeys(declaration.aliases, cls.name))
        return cls

    return add


def _check_unique(declaration: Declaration, owner: str) -> None:
    """Each name of a declaration (and its place in the order) is its own, else an error."""
    for word in (declaration.name, *declaration.aliases):
        taken = word if word in MEASURES else ALIASES.get(word)
        if taken is not None:
            msg = f"measure name {word!r} of {owner} is taken by {taken!r}"
            raise InvalidValueError(msg)
    for kind in ("function", "instance", "order"):
        mine = getattr(declaration, kind)
        for other in MEASURES.values():
            if getattr(other.declaration, kind) == mine:
                msg = f"the {kind} {mine!r} of {owner} is taken by {other.name!r}"
                raise InvalidValueError(msg)


def _import_every_module() -> None:
    """Import each module of this package (but ``__main__`` and the subpackages): the family
    modules register their measures."""
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        # Subpackages hold the names and kernels, which declare no measure.
        if not module.ispkg and module.name not in (Path(__file__).stem, "__main__"):
            importlib.import_module(f"{__package__}.{module.name}")


def _in_declared_order() -> None:
    """Put :data:`MEASURES` and :data:`ALIASES` in the declared order (the same objects:
    the grammar holds them)."""
    measures = sorted(MEASURES.values(), key=lambda m: m.declaration.order)
    MEASURES.clear()
    MEASURES.update((m.name, m) for m in measures)
    aliases = {alias: m.name for m in measures for alias in m.declaration.aliases}
    ALIASES.clear()
    ALIASES.update(aliases)


_import_every_module()
_in_declared_order()

CLASSES: tuple[type[Measure], ...] = tuple(type(m) for m in MEASURES.values())
"""Every measure class, in the declared order."""
INSTANCES: dict[str, Measure] = {m.declaration.instance: m for m in MEASURES.values()}
"""The ready-made instances by their public name (``"AP"``): the same objects as in MEASURES."""
FUNCTIONS: dict[str, type[Measure]] = {cls.declaration.function: cls for cls in CLASSES}
"""Expression function / namespace shortcut name -> its measure class."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of a generated function or shortcut.

    Examples
    --------
    >>> p = parameters(FUNCTIONS["rbp"])[1]
    >>> p.name, p.default, p.accepts, p.required
    ('p', 0.8, 'float', False)
    """

    name: str
    default: Any
    accepts: str
    """The annotation, as written in a signature."""
    doc: str
    required: bool = False


def parameters(cls: type[Measure], *, expression: bool = False) -> list[Parameter]:
    """The keyword parameters of ``cls``'s shortcut (or, with ``expression``, its expression
    function): its own parameters in declaration order, then the cutoff ``k`` if it takes one.

    Examples
    --------
    >>> [p.name for p in parameters(FUNCTIONS["rbp"])]
    ['rel', 'p', 'k']
    >>> [(p.name, p.required) for p in parameters(FUNCTIONS["mu_ap"], expression=True)]
    [('levels', True), ('k', False)]
    """
    fields = [f for f in dataclasses.fields(cls) if f.name != "k" and param_info(f).listed]
    if cls.declaration.takes_cutoff:
        fields += [f for f in dataclasses.fields(cls) if f.name == "k"]
    out = []
    for f in fields:
        info = param_info(f)
        accepts = info.accepts or str(f.type)
        if expression and info.in_expression is not None:
            out.append(Parameter(f.name, None, info.in_expression, info.doc, required=True))
        else:
            out.append(Parameter(f.name, f.default, accepts, info.doc))
    return out


def signature(cls: type[Measure], *, expression: bool = False) -> list[inspect.Parameter]:
    """:func:`parameters` as keyword-only :class:`inspect.Parameter` objects.

    Examples
    --------
    >>> [str(p) for p in signature(FUNCTIONS["precision"])]
    ["rel: 'float' = 1", "k: 'int | None' = None"]
    """
    return [
        inspect.Parameter(
            p.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if p.required else p.default,
            annotation=p.accepts,
        )
        for p in parameters(cls, expression=expression)
    ]


def bind(
    cls: type[Measure], options: Mapping[str, Any], *, expression: bool = False
) -> tuple[Measure, dict[str, Any]]:
    """Split a call's keywords into ``cls``'s measure and the other (table) keywords.

    Examples
    --------
    >>> measure, rest = bind(FUNCTIONS["ap"], {"rel": 2, "by": "system"})
    >>> str(measure), rest
    ('ap(rel=2)', {'by': 'system'})
    """
    own = parameters(cls, expression=expression)
    for p in own:
        if p.required and p.name not in options:
            msg = (
                f"{cls.declaration.function}() missing 1 required keyword-only argument: {p.name!r}"
            )
            raise TypeError(msg)
    names = {p.name for p in own}
    params = {name: value for name, value in options.items() if name in names}
    rest = {name: value for name, value in options.items() if name not in names}
    # Through the ready-made instance, as every entry point: the same checks and objects.
    return MEASURES[cls.name](**params), rest


def synopsis(cls: type[Measure]) -> str:
    """The measure string with every parameter at its default, ``@k`` if it takes one.

    Examples
    --------
    >>> synopsis(FUNCTIONS["rbp"])
    'rbp(p=0.8,rel=1)@k'
    """
    shown = sorted(f"{p.name}={_default_text(cls, p)}" for p in parameters(cls) if p.name != "k")
    text = cls.name + (f"({','.join(shown)})" if shown else "")
    return text + ("@k" if cls.declaration.takes_cutoff else "")


def _default_text(cls: type[Measure], p: Parameter) -> str:
    field = next(f for f in dataclasses.fields(cls) if f.name == p.name)
    show = param_info(field).show
    return show(p.default) if show is not None else format_value(p.default)


def measure_help() -> str:
    """Every measure, one line each (its string with defaults, its summary, its aliases),
    for the CLI's ``--help``.

    Examples
    --------
    >>> rr = next(line for line in measure_help().splitlines() if line.startswith("rr("))
    >>> " ".join(rr.split())
    'rr(rel=1)@k reciprocal rank of the first relevant row (also: recip_rank, mrr)'
    """
    rows = [(synopsis(cls), _with_aliases(cls)) for cls in CLASSES]
    width = max(len(text) for text, _ in rows)
    return "\n".join(f"{text.ljust(width)}  {summary}" for text, summary in rows)


def _with_aliases(cls: type[Measure]) -> str:
    aliases = cls.declaration.aliases
    return cls.declaration.summary + (f" (also: {', '.join(aliases)})" if aliases else "")


def trec_eval_templates() -> dict[str, str]:
    """trec_eval measure name -> the measure string here, ``{r}`` and ``{k}`` to fill in.

    Examples
    --------
    >>> trec_eval_templates()["map_cut"].format(r="(rel=2)", k=10)
    'ap(rel=2)@10'
    """
    return {name: text for cls in CLASSES for name, text in cls.declaration.trec_eval.items()}
