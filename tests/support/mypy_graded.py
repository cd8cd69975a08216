"""A mypy plugin that lets mypy see ``df.graded`` and ``lf.graded`` as users write them.

Polars registers a namespace at run time (``pl.api.register_dataframe_namespace``), so a
type checker finds no ``graded`` attribute on ``pl.DataFrame``; and the namespace's measure
shortcuts (``df.graded.ap(rel=2)``) are set on the class at import, from the registry. This
plugin declares both, and nothing else:

- ``DataFrame.graded`` and ``LazyFrame.graded`` are
  :class:`polars_graded.namespace.GradedNamespace` of that frame, so every call of
  ``evaluate``, ``summary``, ``per_threshold`` and ``compare`` is checked against the
  namespace's own signatures;
- a shortcut is one of the registry's functions (the ``def``s of the generated stub
  ``polars_graded/measures/generated/functions.pyi``, which hold the same names), typed
  ``(...) -> the frame``: its name and its result are checked, its keywords are not (they
  are the measure's parameters, checked at run time by the registry).

Any other attribute of a frame or of the namespace stays an error. Enabled by ``plugins``
in ``[tool.mypy]`` of ``pyproject.toml``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import partial
from pathlib import Path

from mypy.nodes import ArgKind, TypeInfo
from mypy.options import Options
from mypy.plugin import AttributeContext, ClassDefContext, Plugin, ReportConfigContext
from mypy.plugins.common import add_attribute_to_class
from mypy.types import AnyType, CallableType, Instance, Type, TypeOfAny, get_proper_type

FRAMES = ("polars.dataframe.frame.DataFrame", "polars.lazyframe.frame.LazyFrame")
NAMESPACE_MODULE = "polars_graded.namespace"
NAMESPACE = f"{NAMESPACE_MODULE}.GradedNamespace"
FUNCTIONS_STUB = (
    Path(__file__).resolve().parents[2] / "polars_graded/measures/generated/functions.pyi"
)
"""The generated stub of the expression functions, in the repository this plugin checks."""


def shortcut_names() -> tuple[str, ...]:
    """The functions of the generated stub, read without importing polars_graded."""
    tree = ast.parse(FUNCTIONS_STUB.read_text(encoding="utf-8"))
    return tuple(node.name for node in tree.body if isinstance(node, ast.FunctionDef))


def declare(names: tuple[str, ...], ctx: ClassDefContext) -> None:
    """Declare ``names`` on the class being analysed (typed Any here: the attribute hooks
    type them where a module uses them, once the namespace module is known)."""
    for name in names:
        if name not in ctx.cls.info.names:
            add_attribute_to_class(ctx.api, ctx.cls, name, AnyType(TypeOfAny.special_form))


def shortcut_type(ctx: AttributeContext) -> Type:
    """``df.graded.ap``: a callable taking anything, returning the namespace's frame."""
    namespace = get_proper_type(ctx.type)
    if not isinstance(namespace, Instance) or not namespace.args:
        return ctx.default_attr_type
    anything = AnyType(TypeOfAny.explicit)
    return CallableType(
        [anything, anything],
        [ArgKind.ARG_STAR, ArgKind.ARG_STAR2],
        [None, None],
        namespace.args[0],
        ctx.api.named_generic_type("builtins.function", []),
    )


class GradedPlugin(Plugin):
    """Declares the ``graded`` namespace and its shortcuts (see the module docstring)."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.shortcuts = shortcut_names()

    def report_config_data(self, ctx: ReportConfigContext) -> list[str] | None:
        """The shortcut names, so that a change of the registry rechecks the namespace."""
        return list(self.shortcuts) if ctx.id == NAMESPACE_MODULE else None

    def get_customize_class_mro_hook(
        self, fullname: str
    ) -> Callable[[ClassDefContext], None] | None:
        if fullname in FRAMES:
            return partial(declare, ("graded",))
        if fullname == NAMESPACE:
            return partial(declare, self.shortcuts)
        return None

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        owner, _, name = fullname.rpartition(".")
        if owner in FRAMES and name == "graded":
            return self.graded_type
        if owner == NAMESPACE and name in self.shortcuts:
            return shortcut_type
        return None

    def graded_type(self, ctx: AttributeContext) -> Type:
        """``df.graded``: ``GradedNamespace[DataFrame]``; ``lf.graded``:
        ``GradedNamespace[LazyFrame]`` (Any where the namespace is not part of the run)."""
        symbol = self.lookup_fully_qualified(NAMESPACE)
        frame = get_proper_type(ctx.type)
        if symbol is None or not isinstance(symbol.node, TypeInfo):
            if self.lookup_fully_qualified(NAMESPACE_MODULE) is not None:  # renamed: say so
                msg = f"{NAMESPACE} not found: update tests/support/mypy_graded.py"
                ctx.api.fail(msg, ctx.context)
            return ctx.default_attr_type
        if not isinstance(frame, Instance):
            return ctx.default_attr_type
        return Instance(symbol.node, [frame])


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point."""
    return GradedPlugin
