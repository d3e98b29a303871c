"""The thread pool that runs a kernel's parallel loops.

A parallel loop is outlined into a function over an iteration range (``lo``, ``hi``)
(``targets.cpu.codegen``); ``run_parallel`` splits the loop's extent into one contiguous chunk
per thread and calls the function on each chunk from a pool of Python threads. The function
is a ctypes foreign function, and ctypes releases the GIL for the duration of a foreign call,
so the chunks really run at the same time. The calling thread runs the first chunk itself.

Pools are created on first use, one per size, and live for the process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

_pools: dict[int, ThreadPoolExecutor] = {}
_lock = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    with _lock:
        pool = _pools.get(workers)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="relay-cpu")
            _pools[workers] = pool
        return pool


def chunks(extent: int, threads: int) -> list[tuple[int, int]]:
    """``[0, extent)`` split into at most ``threads`` contiguous, non-empty, near-equal ranges
    (the first ones one iteration longer when ``extent`` does not divide evenly)."""
    count = max(1, min(threads, extent))
    base, extra = divmod(extent, count)
    ranges: list[tuple[int, int]] = []
    lo = 0
    for k in range(count):
        hi = lo + base + (1 if k < extra else 0)
        ranges.append((lo, hi))
        lo = hi
    return ranges


def run_parallel(body: Callable[[int, int], None], extent: int, threads: int) -> None:
    """Run ``body(lo, hi)`` over ``[0, extent)`` split into ``threads`` chunks, and wait for
    all of them (re-raising the first exception, if any)."""
    if extent <= 0:
        return
    ranges = chunks(extent, threads)
    if len(ranges) == 1:
        body(0, extent)
        return
    pool = _pool(threads - 1)
    futures: list[Future[None]] = [pool.submit(body, lo, hi) for lo, hi in ranges[1:]]
    try:
        body(*ranges[0])
    finally:
        for future in futures:
            future.result()


__all__ = ["chunks", "run_parallel"]
