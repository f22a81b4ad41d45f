"""What the live courts' parsers share: the marks that replace each site's own highlighting in a
snippet, and the key a caller's spelling of a name (`Sez. Un.`, `sentenza`) is looked up by."""

from __future__ import annotations

import re
import unicodedata

HL_OPEN = "\u27e6"  # ⟦  highlight markers replacing Solr's <em>…</em>
HL_CLOSE = "\u27e7"  # ⟧


def lookup_key(value: str) -> str:
    """Lower case, accents folded, dots, apostrophes, dashes and spaces dropped: `Sez. Un.` -> `sezun`."""
    text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[\s.'’`\-_,;:()]+", "", text)
