"""Texts made from the measure registry (:mod:`.generate`): docstring parts, the README's
measure table, and the typing stubs kept beside it (``functions.pyi``, ``measures.pyi``)."""
