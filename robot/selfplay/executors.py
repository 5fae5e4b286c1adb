"""Where chunks run: a local process pool (the default: one engine per core) or a Dask cluster.

Both give the run loop the same four operations: ``submit(fn, *args)`` a future, ``wait(futures, timeout)`` the
finished ones, ``result(future)`` its value (``ChunkLost`` when its worker died or the cluster gave up on it), and
``close()``. A lost chunk is submitted again by the run loop; results are keyed by (board, room) in the store, so a
chunk that ran twice cannot count twice.

- ``LocalPool``: ``concurrent.futures.ProcessPoolExecutor`` with spawned workers (not forked: the parent has
  threads, and a forked copy of a locked lock hangs). A worker that dies breaks the whole pool, failing every chunk
  in flight; the pool is rebuilt and those chunks are re-run.
- ``DaskPool``: ``distributed.Client`` on a scheduler (``dask://HOST:PORT``) or on a ``LocalCluster`` of worker
  processes (``dask-local``); the scheduler itself re-runs the tasks of a lost worker elsewhere, and gives up on a
  task that killed several workers (``KilledWorker``: lost, for the run loop). ``distributed`` is the optional
  extra ``dask``; without it, a clear error.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Collection, Optional

__all__ = ["ChunkLost", "ExecutorError", "LocalPool", "DaskPool", "open_executor"]


class ExecutorError(RuntimeError):
    """An executor that cannot be used: Dask missing, a scheduler that cannot be reached."""


class ChunkLost(RuntimeError):
    """A chunk's worker died (or the cluster gave up on the chunk): its boards must be played again."""


def _exit_with_parent(parent: int, period: float = 1.0) -> None:  # pragma: no cover - runs in the pool's worker
    """A pool worker's initializer: a thread that ends the worker when its parent is gone. A parent stopped by a
    signal it does not handle (SIGKILL, SIGTERM to a program that does not catch it) cannot shut its pool down, and
    a worker in the middle of a chunk would play it out for nobody (seen: one kept 1.3 GB for minutes after its run
    was killed).
    The worker's own children (the seats' decision workers) end when their pipes close."""

    def watch() -> None:
        while True:
            time.sleep(period)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


class LocalPool:
    """A pool of ``workers`` spawned processes (see the module doc); a worker ends when the process that started
    the pool does, however that one ended."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: Optional[cf.ProcessPoolExecutor] = None
        self._generation = 0  # bumped at each rebuild: only a future of the current pool may trigger one
        self._born: dict[cf.Future, int] = {}

    def _ensure(self) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = cf.ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=_exit_with_parent, initargs=(os.getpid(),))
        return self._pool

    def _rebuild(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None
        self._generation += 1

    def submit(self, fn: Callable, *args: Any) -> cf.Future:
        try:
            future = self._ensure().submit(fn, *args)
        except BrokenProcessPool:  # broken since the last result was read: a new pool
            self._rebuild()
            future = self._ensure().submit(fn, *args)
        self._born[future] = self._generation
        return future

    def wait(self, futures: Collection[cf.Future], timeout: float) -> set[cf.Future]:
        return cf.wait(futures, timeout=timeout, return_when=cf.FIRST_COMPLETED).done

    def result(self, future: cf.Future) -> Any:
        generation = self._born.pop(future, None)
        try:
            return future.result()
        except (BrokenProcessPool, cf.CancelledError) as exc:
            if generation == self._generation:
                self._rebuild()
            raise ChunkLost(f"a worker process died ({type(exc).__name__})") from None

    def worker_pids(self) -> list[int]:
        """The worker processes' ids (started lazily by the pool: those running so far)."""
        pool = self._pool
        return [] if pool is None else [p.pid for p in list((pool._processes or {}).values())]

    def close(self, *, cancel: bool = False) -> None:
        """Shut the pool down; ``cancel``: drop queued chunks and end the running ones now (a stopped run)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list((pool._processes or {}).values())
        pool.shutdown(wait=not cancel, cancel_futures=cancel)
        if cancel:
            for p in processes:  # chunks in flight are of no use any more: their boards are not in the store
                if p.is_alive():
                    p.terminate()
            for p in processes:
                p.join(5)


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ExecutorError("the Dask executor needs the 'dask' extra: pip install 'squeeze-bridge[dask]'") from None
    return distributed


class DaskPool:
    """A Dask client on the scheduler at ``address`` (``tcp://HOST:PORT``), or on a new ``LocalCluster`` of
    ``workers`` single-threaded worker processes when ``address`` is ``None``."""

    def __init__(self, address: Optional[str], workers: Optional[int]) -> None:
        distributed = _distributed()
        self._distributed = distributed
        self._cluster = None
        try:
            if address is None:
                self._cluster = distributed.LocalCluster(
                    n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.WARNING)
                self._client = distributed.Client(self._cluster)
            else:
                self._client = distributed.Client(address, timeout=30)
        except (OSError, TimeoutError) as exc:
            if self._cluster is not None:
                self._cluster.close()
            raise ExecutorError(f"cannot reach the Dask scheduler at {address or 'the local cluster'}: {exc}") from None
        threads = sum(self._client.nthreads().values())
        self.workers = workers or max(1, threads)

    def submit(self, fn: Callable, *args: Any) -> Any:
        # pure=False: two chunks with equal arguments (a re-submitted one) are separate tasks, never merged
        return self._client.submit(fn, *args, pure=False)

    def wait(self, futures: Collection[Any], timeout: float) -> set:
        try:
            return set(self._distributed.wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED").done)
        except TimeoutError:  # (distributed raises rather than return an empty set)
            return set()

    def result(self, future: Any) -> Any:
        try:
            return future.result()
        except self._distributed.KilledWorker as exc:
            raise ChunkLost(f"the Dask cluster gave up on the chunk: {exc}") from None
        except cf.CancelledError:
            raise ChunkLost("the Dask cluster cancelled the chunk") from None

    def worker_pids(self) -> list[int]:
        try:
            return sorted(self._client.run(os.getpid, on_error="ignore").values())
        except Exception:  # (a worker going away mid-call: the ids are for display and tests, not worth failing)
            return []

    def close(self, *, cancel: bool = False) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def open_executor(spec: str, workers: Optional[int]) -> LocalPool | DaskPool:
    """The executor a ``[selfplay] executor`` value names: ``process``, ``dask-local`` or ``dask://HOST:PORT``."""
    if spec == "process":
        return LocalPool(workers or os.cpu_count() or 1)
    if spec == "dask-local":
        return DaskPool(None, workers)
    if spec.startswith("dask://"):
        return DaskPool("tcp://" + spec.removeprefix("dask://"), workers)
    raise ExecutorError(f"unknown executor {spec!r}: process, dask-local or dask://HOST:PORT")
