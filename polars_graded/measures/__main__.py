"""``python -m polars_graded.measures --write``: rewrite the generated files (``--check``:
exit 1 when one is stale).

See :mod:`polars_graded.measures.generated.generate`.
"""

import sys

from polars_graded.measures.generated.generate import main

sys.exit(main())
