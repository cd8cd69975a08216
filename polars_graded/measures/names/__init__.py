"""Measure names, with one front door, :mod:`.parse` (``parse_measure``, ``as_measures``,
``measure_name``, ...): it reads our grammar (``"ap(rel=2)@10"``, :mod:`.grammar`) and, after
the prefix ``ir_measures:``, ir_measures' names (``"ir_measures:nDCG@10"``, :mod:`.ir_names`,
which builds on the grammar)."""
