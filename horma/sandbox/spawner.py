"""Start sandbox processes from one thread that lives as long as the process.

bwrap's ``--die-with-parent`` (PR_SET_PDEATHSIG) fires when the *thread* that
forked it ends, not the process. A server runs its calls in a worker pool that
retires idle threads, so a sandbox started by a worker died with it and the
next call restarted it. Forking from one long-lived thread keeps
die-with-parent meaning what it says: the sandbox ends with the process.
"""

from __future__ import annotations

import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _spawner() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            # One worker, never retired: ThreadPoolExecutor keeps its threads until shutdown.
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="horma-sandbox-spawner")
        return _pool


def popen(argv: list[str], **kwargs: Any) -> subprocess.Popen[Any]:  # bytes or str, as kwargs say
    """``subprocess.Popen(argv, **kwargs)``, forked by the long-lived spawner thread."""
    def spawn() -> subprocess.Popen[Any]:  # one call: Popen's bytes/str overloads are picked by kwargs
        return subprocess.Popen(argv, **kwargs)

    return _spawner().submit(spawn).result()
