"""What the live courts' parsers share: the marks that replace each site's own highlighting in a
snippet, the key a caller's spelling of a name (`Sez. Un.`, `sentenza`) is looked up by, and the
clip that caps a field copied from an upstream answer."""

from __future__ import annotations

import re
import unicodedata

HL_OPEN = "\u27e6"  # ⟦  highlight markers replacing Solr's <em>…</em>
HL_CLOSE = "\u27e7"  # ⟧
MAX_FIELD_CHARS = 160  # a field copied from an upstream answer, so no answer outgrows the budget


def lookup_key(value: str) -> str:
    """Lower case, accents folded, dots, apostrophes, dashes and spaces dropped: `Sez. Un.` -> `sezun`."""
    text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[\s.'’`\-_,;:()]+", "", text)


def clip(value: str | None, limit: int = MAX_FIELD_CHARS) -> str | None:
    if value is None or len(value) <= limit:
        return value
    return value[: limit - 1] + "…"
