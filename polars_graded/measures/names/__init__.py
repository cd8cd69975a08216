"""Measure names: our grammar (``"ap(rel=2)@10"``, :mod:`.grammar`) and ir_measures' names
(``"ir_measures:nDCG@10"``, :mod:`.ir_names`)."""
