"""The application context: settings plus the long-lived objects every tool shares.

One per process (server, CLI run or test). Holds the one HttpClient (one aiohttp session per
server lifetime) and the local indexes, opened lazily.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from it_eli.runtime.audit import AuditLog
from it_eli.runtime.config import Settings, load_settings
from it_eli.sources.http import HttpClient

log = logging.getLogger(__name__)


class App:
    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or load_settings()
        self._http: HttpClient | None = None
        self._decisions = None
        self._statutes = None
        self.build_lock = asyncio.Lock()
        self.extras: dict[str, Any] = {}
        # every tool call (server or CLI) leaves one audit line; see it_eli/runtime/audit.py
        self.audit = AuditLog.for_settings(self.settings)

    @property
    def http(self) -> HttpClient:
        if self._http is None:
            self._http = HttpClient(self.settings)
        return self._http

    @property
    def decisions(self):
        if self._decisions is None:
            from it_eli.search.decisions.reader import DecisionIndex

            self._decisions = DecisionIndex(self.settings)
        return self._decisions

    @property
    def statutes(self):
        if self._statutes is None:
            from it_eli.search.statutes.store import StatuteStore

            self._statutes = StatuteStore(self.settings)
        return self._statutes

    async def close(self) -> None:
        self.audit.close()
        if self._http is not None:
            await self._http.close()
