"""Typed errors. Every failure a user can meet is one of these, never a traceback.

`code` is the machine-readable kind that MCP clients branch on; `valid` says what would
have been accepted, so a model can correct its call without guessing.
"""

from __future__ import annotations

from typing import Any


class ItEliError(Exception):
    code = "internal_error"

    def __init__(self, message: str, *, valid: str | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.valid = valid
        self.details = {k: v for k, v in details.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.valid:
            out["valid"] = self.valid
        if self.details:
            out["details"] = self.details
        return out


class InvalidArg(ItEliError):
    """The caller's arguments cannot be used as given."""

    code = "invalid_arg"


class QueryError(ItEliError):
    """The query text cannot be turned into a search (e.g. only stopwords)."""

    code = "query_error"


class NotFound(ItEliError):
    """The upstream or the index answered, and the thing asked for does not exist."""

    code = "not_found"


class IndexMissing(ItEliError):
    """No local index has been built yet."""

    code = "index_missing"


class IndexSchemaMismatch(ItEliError):
    """The index on disk was built under another schema version."""

    code = "index_schema_mismatch"


class ArchiveInvalid(ItEliError):
    """An index archive was refused: wrong sha256, truncated or corrupt, a member that is not a
    plain file inside the index, over the size bounds, or not matching its manifest."""

    code = "archive_invalid"

class IndexCorrupt(ItEliError):
    """The index on disk cannot be read, and no earlier complete build can stand in for it."""

    code = "index_corrupt"


class UpstreamUnavailable(ItEliError):
    """The upstream could not be reached or failed: says nothing about existence."""

    code = "upstream_unavailable"


class UpstreamChanged(ItEliError):
    """The upstream answered with a shape we do not recognise any more."""

    code = "upstream_changed"


class NotAvailable(ItEliError):
    """The upstream says it cannot serve this (e.g. Normattiva's 'Errore' page)."""

    code = "not_available"


class IdentityMismatch(ItEliError):
    """The upstream returned a different act/decision from the one asked for."""

    code = "identity_mismatch"


class IngestError(ItEliError):
    """A source archive could not be read at all."""

    code = "ingest_error"


def checked_int(name: str, value: object, lo: int, hi: int) -> int:
    """`value` when it is an integer from `lo` to `hi` (a bool is not), else InvalidArg saying so."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidArg(f"{name}={value!r} is out of range", valid=f"an integer from {lo} to {hi}")
    return value
