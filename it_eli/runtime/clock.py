"""Today's date for every decision about "the text in force today", from one place.

Why one place: "today" decides which version is current (a version starting in the future is not
today's text — the OpenData API answers the latest version without `!vig`, even one that starts
on 2027-01-01: `reale-abrogato-tuir-51.json`), whether an `at_date` is in the future, and when a
cached act is fresh. Tests pin it with `frozen_today(...)` instead of patching `datetime`.
"""

from __future__ import annotations

import datetime as _dt
from contextlib import contextmanager

_override: _dt.date | None = None


def _rome():
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo("Europe/Rome")
    except Exception:  # noqa: BLE001 - no tz database: UTC is at most a day off around midnight
        return _dt.timezone.utc


_TZ = _rome()


def today() -> _dt.date:
    """The current date in Italy (in-force dates are Italian calendar days), unless pinned."""
    if _override is not None:
        return _override
    return _dt.datetime.now(_TZ).date()


def today_iso() -> str:
    return today().isoformat()


@contextmanager
def frozen_today(day: str | _dt.date):
    """Pin today's date (tests): `with frozen_today("2027-06-01"): ...`."""
    global _override
    previous = _override
    _override = _dt.date.fromisoformat(day) if isinstance(day, str) else day
    try:
        yield
    finally:
        _override = previous
