"""A deadline for every tool call: the call answers with what it has when time is up.

Why: MCP clients give up on a call at about 60 s; an upstream that never answers used to hold a
call for minutes (retries x timeouts x citations). The tool call sets a deadline (IT_ELI_CALL_DEADLINE
seconds); every upstream request made inside it is cut at the *upstream cut-off*, a few seconds
earlier, and fails as `upstream_unavailable`, so the services' own handling of an unreachable
upstream takes over (a verification lists the unchecked citations as gaps, a statute lookup
serves its stale cached copy where there is one). Local work then has the remaining seconds to
finish the answer; the hard stop at the deadline itself is the registry's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar

from .errors import ItEliError, UpstreamUnavailable

_CUTOFF: ContextVar[float | None] = ContextVar("it_eli_upstream_cutoff", default=None)


def cutoff_margin(deadline: float) -> float:
    """Seconds kept after the upstream cut-off to assemble the answer."""
    return min(5.0, deadline * 0.2)


@contextmanager
def upstream_cutoff(seconds: float) -> Iterator[None]:
    """Upstream requests made in this context (and tasks it starts) end within `seconds`."""
    token = _CUTOFF.set(asyncio.get_running_loop().time() + max(0.0, seconds))
    try:
        yield
    finally:
        _CUTOFF.reset(token)


def remaining() -> float | None:
    at = _CUTOFF.get()
    return None if at is None else at - asyncio.get_running_loop().time()


@asynccontextmanager
async def upstream_window(label: str) -> AsyncIterator[None]:
    """Bound one upstream request by the call's cut-off; past it, `upstream_unavailable`."""
    at = _CUTOFF.get()
    if at is None:
        yield
        return
    if at <= asyncio.get_running_loop().time():
        raise UpstreamUnavailable(f"{label}: not asked, this call's time for upstream requests is used up",
                                  valid="call again for the parts left unchecked", deadline=True)
    try:
        async with asyncio.timeout_at(at):
            yield
    except TimeoutError:
        raise UpstreamUnavailable(f"{label}: no answer before this call's deadline",
                                  valid="call again later (the upstream is slow or not answering)", deadline=True) from None


class DeadlineExceeded(ItEliError):
    """The call could not answer within its deadline, not even partly."""

    code = "deadline_exceeded"


async def within_deadline(work: Awaitable, seconds: float | None, what: str):
    """Await `work` with upstream requests cut a few seconds before `seconds`, and a hard stop at
    `seconds` (None: no deadline)."""
    if not seconds:
        return await work
    with upstream_cutoff(seconds - cutoff_margin(seconds)):
        try:
            async with asyncio.timeout(seconds):
                return await work
        except TimeoutError:
            raise DeadlineExceeded(
                f"{what} did not finish within its deadline of {seconds:g} s",
                valid="call again (work begun in the background, such as a first index build, goes on), "
                "or narrow the request", deadline_seconds=seconds,
            ) from None
