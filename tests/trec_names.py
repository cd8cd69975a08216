"""trec_eval's measure names and the polars_graded names that compute the same values.

``{r}`` stands for the relevance-level suffix (``""`` or ``"(rel=2)"``), ``{k}`` for the cutoff.
"""

TEMPLATES = {
    "map": "ap{r}",
    "map_cut": "ap{r}@{k}",
    "P": "p{r}@{k}",
    "recall": "recall{r}@{k}",
    "ndcg": "ndcg(gain=linear)",
    "ndcg_cut": "ndcg(gain=linear)@{k}",
    "Rprec": "r_precision{r}",
    "recip_rank": "rr{r}",
    "set_P": "p{r}",
    "set_recall": "recall{r}",
    "bpref": "bpref{r}",
    "success": "success{r}@{k}",
}
