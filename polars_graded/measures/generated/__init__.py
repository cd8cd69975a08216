"""Texts made from the measure registry (:mod:`.generate`): docstring parts, the site's
measure pages, and the typing stubs kept beside it (``functions.pyi``, ``measures.pyi``)."""
