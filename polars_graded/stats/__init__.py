"""The analysis of per-query values: are the differences between systems real, and stable?

Every function here takes per-query values (the output of :func:`polars_graded.evaluate`
with a system column) or the long table itself, and returns a Polars frame. The public
names are re-exported by :mod:`polars_graded` (``pg.compare``, ``pg.gate``, ...).

Where things live: :mod:`.options` (the :class:`~polars_graded.stats.options.Statistics`
options and their defaults), :mod:`.compare` (``pg.compare``: against a baseline, every
pair, or per segment), :mod:`.pairs` (all pairs, compact letters), :mod:`.segments` (per
segment of the queries), :mod:`.stability` (rank correlations, discriminative power),
:mod:`.judgment_bounds` (what unjudged rows could change), :mod:`.gate` (the regression
gate), :mod:`.latex` (booktabs tables).
"""
