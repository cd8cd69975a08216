"""Measures as value objects (``AP(rel=2) @ 10``): one module per family, and their registry.

The classes have descriptive names (``AveragePrecision`` in ``ap.py``); the ready-made
instances have the short names that ir_measures users know (``AP``, ``NDCG``, ``P``, ``R``,
...) and are re-exported here and by :mod:`polars_graded`. Where things live: ``base.py``
(the :class:`Measure` base, its :class:`~polars_graded.measures.base.Declaration`, the shared
checks), ``registry.py`` (the catalogue), ``grammar.py`` (measure strings), ``generate.py``
(the README table and typing stubs), ``tie_average.py`` (closed forms under
``ties="average"``), and a module per family: ``ap``, ``mu_ap`` (with ``mu_ap_sweep``, its
pair sweep, and ``mu_ap_thresholds``, µMAP by threshold), ``ndcg`` and ``ndcng`` (sharing
``gains``), ``precision`` (P, recall, R-precision, relative P), ``rank`` (RR, success),
``err``, ``rbp`` (also trec_eval's graded RBP), ``bpref``, ``judged``, ``gap``, ``q_measure``,
and trec_eval's: ``counts`` (num_ret, ...), ``sets`` (set_F, set_map), ``interpolated``
(iprec_at_recall, 11pt_avg), ``utility``, ``unjudged``, ``infap``, ``g`` (G, binG),
``ndcg_rel`` (ndcg_rel, Rndcg), with ``trec_gains`` (trec_eval's gains) and ``unaveraged``
(the one refusal of ``ties="average"``). ``ir_names.py`` reads ir_measures' strings
(``"ir_measures:nDCG@10"``).

Adding a measure
----------------
One module (or one class in its family's module) plus its test:

1. a frozen, keyword-only dataclass deriving from :class:`Measure` (from
   :class:`~polars_graded.measures.base.ThresholdMeasure` for a ``rel=`` threshold), with
   its parameters as fields made by :func:`~polars_graded.measures.base.param` (default,
   check, one-line doc), a docstring giving the formula and a doctest, and ``expr`` over
   :class:`~polars_graded.ranking.Ranked` (or ``needs_frame`` and ``frame``);
2. decorated with ``@register(Declaration(...))``: canonical name, summary, expression
   function and instance names, ``order`` (the next number), an example with its value,
   aliases, cutoff, trec_eval and ir_measures names.

The registry imports every module of this package, so nothing else is edited: the grammar,
``pg.<function>``, ``df.graded.<function>``, ``pg.<instance>``, the CLI's list and the tests'
trec_eval names follow. Then ``python -m polars_graded.measures --write README.md``
rewrites the README's table and the typing stubs (``tests/test_measures_registry.py`` fails until it
is run). Since the registry imports them while this package initialises, modules here import
``base``, ``registry`` and their helpers only, never :mod:`polars_graded.measures` itself,
the plan or the API (import those where they are used).
"""

from typing import TYPE_CHECKING

from polars_graded.measures import registry
from polars_graded.measures.base import Measure
from polars_graded.measures.names.grammar import (
    MeasureSpec,
    as_measures,
    as_named_measures,
    measure_name,
    parse_measure,
)
from polars_graded.measures.registry import MEASURES

if TYPE_CHECKING:  # the ready-made instances and their classes, typed
    from polars_graded.measures.generated.measures import *  # noqa: F403
else:
    globals().update(registry.INSTANCES)
    globals().update({cls.__name__: cls for cls in registry.CLASSES})

__all__ = [
    "MEASURES",
    "Measure",
    "MeasureSpec",
    "as_measures",
    "as_named_measures",
    "measure_name",
    "parse_measure",
]
__all__.extend(registry.INSTANCES)
__all__.extend(cls.__name__ for cls in registry.CLASSES)
