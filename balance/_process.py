"""A command's process, set up before numpy is first imported (``balance.cli`` imports this
module first, and ``import balance`` imports no numpy).

OpenBLAS, which numpy's wheels use for matrix products, starts a thread per core when numpy
loads and keeps them spinning after each product it splits among them.  balance's products
are small (the race model's stacked 12 x 12 blocks, the exact solvers' systems): the threads
spend CPU time and save no wall time (``benchmarks/batch_bench.py`` and ``balance bench``
measure both).  So a command runs OpenBLAS on one thread unless ``OPENBLAS_NUM_THREADS`` is
set; its worker processes inherit the setting.  Nothing else in the package sets it: a
notebook's numpy keeps its threads.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
