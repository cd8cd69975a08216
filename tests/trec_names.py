"""trec_eval's measure names and the polars_graded names that compute the same values.

``{r}`` stands for the relevance-level suffix (``""`` or ``"(rel=2)"``), ``{k}`` for the cutoff.
Read from the measure registry, where each measure declares its trec_eval names.
"""

from polars_graded.measures.registry import trec_eval_templates

TEMPLATES = trec_eval_templates()
