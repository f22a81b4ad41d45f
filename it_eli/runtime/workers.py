"""Where heavy work runs: never on the event loop, and fairly shared between clients.

Why: one event loop serves every client; CPU-heavy work on it (extracting the citations of a
1 MB text takes ~1.7 s) froze every other client. So:
- work that is pure and big (citation extraction of a long text) runs in a process pool, one
  worker per core: two cores serve two heavy calls, and the server process keeps its GIL for the
  loop;
- other CPU work that needs the process's objects (assembling a verification report, Tantivy
  searches) runs in threads, at most CPU_THREADS at once, so the loop thread competes for the GIL
  with few threads and light calls keep answering;
- each client (an MCP session) has at most PER_CLIENT_CALLS calls in flight and PER_CLIENT_QUEUE
  waiting; beyond that a call is refused at once (`busy`), so one client flooding the server
  (or one upstream's throttle) cannot make the others wait behind its queue.
"""

from __future__ import annotations

import asyncio
import atexit
import multiprocessing
import os
import threading
from collections.abc import AsyncIterator, Callable
import logging
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from .errors import ItEliError

T = TypeVar("T")
log = logging.getLogger(__name__)

CORES = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
CPU_THREADS = 1  # GIL-bound work gains nothing from more; fewer threads leave the loop its share
PER_CLIENT_CALLS = 4
PER_CLIENT_QUEUE = 16
PROCESS_MIN_CHARS = 100_000  # below this, a process round trip costs more than it saves


class Busy(ItEliError):
    """This client already has as many calls running and waiting as it may."""

    code = "busy"


_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()
_cpu_slots: dict[int, asyncio.Semaphore] = {}  # per event loop


def _process_pool() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            # spawn: safe with the server's threads, and the same on every platform
            _pool = ProcessPoolExecutor(max_workers=CORES, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_lower_priority)
            atexit.register(_pool.shutdown, wait=False, cancel_futures=True)
        return _pool


def _lower_priority() -> None:
    """Workers yield the CPU to the server process, whose loop answers the light calls."""
    if hasattr(os, "nice"):
        try:
            os.nice(10)
        except OSError:
            pass


def _slots() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    sem = _cpu_slots.get(id(loop))
    if sem is None:
        sem = _cpu_slots[id(loop)] = asyncio.Semaphore(CPU_THREADS)
    return sem


async def in_thread(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run GIL-bound work off the loop, within the CPU thread slots."""
    async with _slots():
        return await asyncio.to_thread(fn, *args, **kwargs)


async def in_process(fn: Callable[..., T], *args: Any) -> T:
    """Run pure, picklable work in the process pool (one worker per core); in a thread where
    worker processes cannot start (a host script without a `__main__` guard, a sandbox)."""
    global _pool
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(_process_pool(), fn, *args)
    except (BrokenProcessPool, OSError, RuntimeError) as exc:
        log.warning("worker processes unavailable (%s): running in a thread", type(exc).__name__)
        with _pool_lock:
            _pool = None
        return await in_thread(fn, *args)


class _Client:
    __slots__ = ("sem", "waiting", "users")

    def __init__(self, calls: int) -> None:
        self.sem = asyncio.Semaphore(calls)
        self.waiting = 0
        self.users = 0


class ClientGate:
    """Per-client caps: calls in flight and calls waiting (one gate per event loop)."""

    def __init__(self, calls: int = PER_CLIENT_CALLS, queue: int = PER_CLIENT_QUEUE) -> None:
        self.calls, self.queue = calls, queue
        self._clients: dict[Any, _Client] = {}

    @asynccontextmanager
    async def admit(self, client: Any) -> AsyncIterator[None]:
        if client is None:  # the CLI: one caller
            yield
            return
        st = self._clients.get(client)
        if st is None:
            st = self._clients[client] = _Client(self.calls)
        if st.sem.locked() and st.waiting >= self.queue:
            raise Busy(
                f"this session already has {self.calls} calls running and {st.waiting} waiting",
                valid=f"wait for answers before sending more (at most {self.calls} at once, {self.queue} queued)",
            )
        st.users += 1
        st.waiting += 1
        try:
            await st.sem.acquire()
        except BaseException:
            self._leave(client, st)
            raise
        finally:
            st.waiting -= 1
        try:
            yield
        finally:
            st.sem.release()
            self._leave(client, st)

    def _leave(self, client: Any, st: _Client) -> None:
        st.users -= 1
        if st.users == 0:
            self._clients.pop(client, None)
