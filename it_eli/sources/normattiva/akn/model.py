"""What the parser gives: an Act, its identity, its articles and their commi (msgspec Structs).
Apart so the stores and services can name these types without the parser's machinery."""

from __future__ import annotations

import msgspec

from it_eli.law.grammar import normalize_article_key, roman_to_int
from it_eli.law.provision_status import ActLifecycle, ProvisionEvent
from it_eli.runtime.errors import InvalidArg


class Comma(msgspec.Struct):
    num: str  # as marked, without the trailing dot: "1", "1-bis", "4-bis.1"
    text: str


class Article(msgspec.Struct):
    key: str
    num: str
    heading: str | None
    text: str
    commi: list[Comma]
    repealed: bool
    amended: bool
    eid: str | None
    order: int
    in_attachment: bool
    notes: str = ""  # Normattiva's editorial notes (AGGIORNAMENTO blocks, avvertenze)
    attachment: str | None = None  # the attachment doc's @name, when in_attachment
    # The headings of the partitions above the article (libro, parte, titolo, capo, sezione),
    # outermost first, as the export writes them: "Capo I - Principi". Empty where the export
    # gives none (the codes kept as attachment docs carry no partitions).
    context: list[str] = msgspec.field(default_factory=list)
    # what the export records happened to it (repeals, Court declarations, conversion insertions)
    lifecycle: list[ProvisionEvent] = []
    # what the export's own text lacks, said with the text: it opens at a later item of a list
    text_gaps: list[str] = []


class ActIdentity(msgspec.Struct):
    urn: str | None
    eli: str | None
    title: str | None
    act_type: str | None
    number: str | None
    date: str | None
    year: int | None
    version_date: str | None
    codice_redazionale: str | None
    gu_date: str | None
    monovigente: bool = True
    version: str | None = None  # ELI tipoVersione: "CONSOLIDATED" or "ORIGINAL"
    expression_date: str | None = None  # FRBRExpression/FRBRdate as exported (unreliable)
    gu_number: str | None = None
    lifecycle: ActLifecycle | None = None  # entry into force, conversion law, lapse (preface note)


class Act(msgspec.Struct, dict=True):
    identity: ActIdentity
    articles: list[Article]
    annexes: list[Article] = []

    def article(self, key: str) -> Article | None:
        """Look up an article by key; accepts unnormalised keys ("Art. 21 septies", "XVIII")."""
        index = self._index()
        raw = (key or "").strip().lower()
        if raw in index:
            return index[raw]
        try:
            norm = normalize_article_key(key)
        except InvalidArg:
            return None
        if norm in index:
            return index[norm]
        # A bare roman numeral only means something in an act with transitional provisions.
        roman = roman_to_int(raw.rstrip("."))
        if roman is not None and f"disp-trans-{roman}" in index:
            return index[f"disp-trans-{roman}"]
        return None

    def _index(self) -> dict[str, Article]:
        # Cached per instance (dict=True gives the Struct a __dict__; it is not encoded).
        cache = self.__dict__.get("_key_index")
        if cache is None or len(cache) != len(self.articles):
            cache = {a.key: a for a in self.articles}
            self.__dict__["_key_index"] = cache
        return cache
