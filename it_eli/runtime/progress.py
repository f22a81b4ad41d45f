"""Progress of long work (downloads, index builds, large verifications) for whoever watches.

The work calls `report(phase, done, total)` wherever it is (in the event loop or in a worker
thread); the adapter that started it decides where that goes: an MCP client that sent a
progress token gets `notifications/progress` (server.py), a terminal gets a tqdm bar with
percentage, rate and time left (cli.py), anyone else nothing. A context variable carries the
reporter, so the services know nothing of MCP or terminals, and `asyncio.to_thread` passes it on.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Protocol


class Reporter(Protocol):
    def __call__(self, phase: str, done: float, total: float | None, unit: str) -> None: ...


_current: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar("it_eli_progress", default=None)


def report(phase: str, done: float, total: float | None = None, unit: str = "") -> None:
    """Say how far `phase` is (`done` of `total`, in `unit`: "B" for bytes); cheap when nobody
    watches. Callable from any thread."""
    reporter = _current.get()
    if reporter is not None:
        reporter(phase, done, total, unit)


def watching() -> bool:
    return _current.get() is not None


@contextlib.contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    token = _current.set(reporter)
    try:
        yield
    finally:
        _current.reset(token)


class McpProgress:
    """Turns reports into MCP progress notifications for one tool call.

    MCP wants `progress` to increase with every notification: each new phase starts where the
    last one ended (the total, when known, is moved by the same offset). Notifications are at
    most one per `interval` seconds (a phase's start and end always go), sent on the server's
    loop whichever thread reported.
    """

    def __init__(self, send: Callable[[float, float | None, str | None], Awaitable[None]],
                 interval: float = 0.25) -> None:
        self._send = send
        self._loop = asyncio.get_running_loop()
        self._interval = interval
        self._lock = threading.Lock()
        self._phase: str | None = None
        self._offset = 0.0
        self._last_value = -1.0
        self._last_time = 0.0
        self._pending: list[asyncio.Future] = []

    def __call__(self, phase: str, done: float, total: float | None, unit: str) -> None:
        with self._lock:
            now = time.monotonic()
            new_phase = phase != self._phase
            if new_phase:
                self._offset = max(self._last_value, 0.0) + (1.0 if self._phase is not None else 0.0)
                self._phase = phase
            value = self._offset + float(done)
            finished = total is not None and done >= total
            if value <= self._last_value or not (new_phase or finished or now - self._last_time >= self._interval):
                return
            self._last_value, self._last_time = value, now
            total_out = self._offset + float(total) if total is not None else None
            message = _message(phase, done, total, unit)
            coro = self._send(value, total_out, message)
        try:
            if _running_loop() is self._loop:
                self._pending.append(asyncio.ensure_future(coro))
            else:
                self._pending.append(asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop),
                                                         loop=self._loop))
        except RuntimeError:  # the loop is closing: nobody to tell
            coro.close()

    async def flush(self) -> None:
        """Wait for the notifications already sent off, so they precede the tool's result."""
        pending, self._pending = self._pending, []
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a worker thread
        return None


def _message(phase: str, done: float, total: float | None, unit: str) -> str:
    def fmt(n: float) -> str:
        if unit == "B":
            return f"{n / 1e6:.1f} MB"
        return f"{n:,.0f}".replace(",", " ") + (f" {unit}" if unit else "")

    if total:
        return f"{phase}: {fmt(done)} of {fmt(total)} ({100 * done / total:.0f}%)"
    return f"{phase}: {fmt(done)}"


class TerminalProgress:
    """One tqdm bar per phase on stderr (percentage, rate and time left when the total is
    known); nothing when stderr is not a terminal."""

    def __init__(self, enabled: bool | None = None, *, file=None, mininterval: float = 0.1) -> None:
        self.file = file or sys.stderr
        self.enabled = self.file.isatty() if enabled is None else enabled
        self.mininterval = mininterval
        self._bar = None
        self._phase: str | None = None
        self._lock = threading.Lock()

    def __call__(self, phase: str, done: float, total: float | None, unit: str) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        with self._lock:
            if phase != self._phase:
                self._close()
                self._phase = phase
                self._bar = tqdm(desc=phase, total=total, unit=unit or "it", unit_scale=unit == "B",
                                 unit_divisor=1024 if unit == "B" else 1000, file=self.file, leave=False,
                                 dynamic_ncols=True, mininterval=self.mininterval)
            bar = self._bar
            if total is not None and bar.total != total:
                bar.total = total
            bar.update(done - bar.n)

    def _close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def close(self) -> None:
        with self._lock:
            self._close()
            self._phase = None
