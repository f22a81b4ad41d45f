"""Akoma Ntoso parser for Normattiva exports ("Esporta in Akoma Ntoso" / `caricaAKN`).

Pure: bytes in, msgspec Structs out. Every upstream fact relied on here is recorded, with the
capture it was seen in, in DISCOVERY.md (Akoma Ntoso exports).

Shape of an export (AKN 3.0 namespace, one `<act name="monovigente">`, one date per file):
- identity in `act/meta/identification/FRBRWork` (`FRBRalias name="urn:nir"` / `name="eli"`,
  `FRBRdate`) and `act/meta/publication/@date` (Gazzetta Ufficiale date);
- ordinary acts keep their articles in `act/body//article` (`num`, `heading`, `paragraph`s);
- the codes (codice penale, ...) keep theirs in `attachments/attachment/doc name="Codice
  Penale-art. N"`, plain text starting `Art. N.` with the rubrica in parentheses, while the
  body holds only the approving decree's articles;
- the Costituzione keeps its XVIII transitional provisions as `doc name="Allegato-I"` …
  `"Allegato-XVIII"`.

Key decisions (see the notes for the why):
- code attachments win: their articles get the plain keys (`575`), the approving decree's body
  articles are prefixed `dec-` (`dec-1`);
- Costituzione transitional provisions are keyed `disp-trans-1` … `disp-trans-18` (their num
  keeps the printed roman numeral);
- articles of other attachments (`Allegato I.1-art. 1`, `Accordo-art. 3`) are keyed
  `<attachment slug>-art-<n>` so they never shadow the act's own articles;
- attachments that are not articles (tables, annexes) go to `Act.annexes`, not `articles`;
- Normattiva's editorial notes (`AGGIORNAMENTO (n)` blocks after a dashed line, authorial
  notes) go to `Article.notes`, not to `text`, so search matches the law, not the commentary.

The modules, bottom to top: `tree` (the bytes read safely), `text` (elements flattened to text),
`marks` (what Normattiva prints in the text: repeal notices, (( )) markers, rubriche), `model`
(the Structs), `identity`, `body`, `attachments`, and `parser` (`parse_act`, which joins them).
This face hands on the names the rest of it_eli imports.
"""

from __future__ import annotations

# Article keys, Roman numerals and Latin suffixes live in the legal-language core (it_eli.law.grammar).
from it_eli.law.grammar import normalize_article_key, roman_to_int
from it_eli.sources.normattiva.akn.model import Act, ActIdentity, Article, Comma
from it_eli.sources.normattiva.akn.parser import parse_act

__all__ = [
    "Comma",
    "Article",
    "ActIdentity",
    "Act",
    "parse_act",
    "normalize_article_key",
    "roman_to_int",
]
