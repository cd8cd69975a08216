"""Computations shared by several measure families: gains and DCG (:mod:`.gains`,
trec_eval's in :mod:`.trec_gains`), closed forms over the orders of tied rows
(:mod:`.tie_average`, and :mod:`.unaveraged` for the measures without one), µAP's numerator
and AP at every level (:mod:`.mu_ap_numerators`, the Polars plans, over the numpy pair sweeps
of :mod:`.mu_ap_sweep`) and µMAP by threshold (:mod:`.mu_ap_thresholds`)."""
