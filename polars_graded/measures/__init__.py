"""Measures as value objects (``AP(rel=2) @ 10``): one module per family, and their registry.

The classes have descriptive names (``AveragePrecision`` in ``ap.py``); the ready-made
instances have the short names that ir_measures users know (``AP``, ``NDCG``, ``P``, ``R``,
...) and are re-exported here and by :mod:`polars_graded`.

Where things live
-----------------
This folder holds ``base.py`` (the :class:`Measure` base, its
:class:`~polars_graded.measures.base.Declaration`, the shared checks), ``registry.py`` (the
catalogue) and one module per family:

* from the literature: ``ap``, ``mu_ap`` (µAP, the paper's), ``ndcg`` (nDCG, DCG, mean nDCG),
  ``ndcng``, ``precision`` (P, recall, R-precision, relative P, hits), ``rr`` (RR, success),
  ``err``, ``rbp`` (also trec_eval's graded RBP), ``bpref``, ``judged``, ``graded_ap``
  (GAP), ``q_measure``;
* trec_eval's: ``counts`` (num_ret, num_rel, ...), ``sets`` (set_F, set_map),
  ``set_utility`` (utility), ``interpolated`` (iprec_at_recall, 11pt_avg), ``unjudged``,
  ``infap``, ``trec_g`` (G, binG), ``ndcg_rel`` (ndcg_rel, Rndcg).

Beside them, three subpackages that declare no measure:

* :mod:`~polars_graded.measures.names`: measure strings, with one front door,
  :mod:`~polars_graded.measures.names.parse` (``parse_measure``, ``as_measures``,
  ``measure_name``), over our grammar (``grammar.py``) and ir_measures' names
  (``ir_names.py``, ``"ir_measures:nDCG@10"``);
* :mod:`~polars_graded.measures.kernels`: computations several families share: ``gains``
  (gains and DCG) and ``trec_gains`` (trec_eval's), ``tie_average`` (closed forms under
  ``ties="average"``) and ``unaveraged`` (the one refusal of it), ``mu_ap_numerators`` (µAP's
  numerator and AP at every level, as Polars plans) with ``mu_ap_sweep`` (their numpy pair
  sweeps), and ``mu_ap_thresholds`` (µMAP by threshold);
* :mod:`~polars_graded.measures.generated`: ``generate.py`` (the site's measure pages and the
  typing stubs, run by ``python -m polars_graded.measures``) and the stubs it writes.

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

The registry imports every module of this folder (not the subpackages), so nothing else is
edited: the measure names, ``pg.<function>``, ``df.graded.<function>``, ``pg.<instance>``,
the CLI's list and the tests' trec_eval names follow. Then
``python -m polars_graded.measures --write`` rewrites the site's measure pages (docs/measures.md,
docs/api/measures.md) and the typing stubs (``tests/test_measures_registry.py`` fails until
it is run). Since the registry imports them while this package initialises, family modules
import ``base``, ``registry``, the kernels and each other only: never
:mod:`~polars_graded.measures.names` (which reads the registry),
:mod:`polars_graded.measures` itself, the plan or the API (import those where they are
used).
"""

from typing import TYPE_CHECKING

from polars_graded.measures import registry
from polars_graded.measures.base import Measure
from polars_graded.measures.names.parse import (
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
