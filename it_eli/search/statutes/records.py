"""What the statute index keeps: a stored article and a cached act version, their labels, how
an article's texts are indexed and how a stored article is cited. Apart from the index machinery,
which none of these needs: services and tools read them, the benchmark indexes with them."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import msgspec
import tantivy

from it_eli.law.provision_status import ProvisionEvent
from it_eli.runtime.config import Settings

from ..analysis import Analyzer

DEFN_NAME = "statute_articles"
DATASET_NOTE = (
    "Testi da Normattiva (Istituto Poligrafico e Zecca dello Stato), licence CC BY 4.0 - attribution "
    "required; official texts are outside copyright (art. 5 l. 633/1941). Only the Gazzetta Ufficiale "
    "text is authentic. Single acts relayed with their source URL; not a bulk copy of Normattiva."
)
ORIGINAL = "originale"


class StoredComma(msgspec.Struct, frozen=True):
    num: str
    text: str


class StoredArticle(msgspec.Struct, kw_only=True):
    urn: str
    eli: str | None
    article: str
    num: str
    heading: str | None
    text: str
    commi: list[StoredComma]
    repealed: bool
    amended: bool
    order: int
    in_force_date: str | None  # ISO; None for the original (as published) text
    version: str  # ISO date or 'originale'
    fetched_at: str
    source_url: str
    act_title: str | None
    act_type: str | None
    act_number: str | None
    act_date: str | None
    act_year: int | None
    kind: str = "act"  # 'act' (from a whole-act export) or 'article' (OpenData API)
    valid_to: str | None = None
    original: bool = False  # the original text (URN @originale / ELI ORIGINAL), not a consolidated version
    # what the export records happened to the article (normattiva/lifecycle.py); [] for API answers
    lifecycle: list[ProvisionEvent] = msgspec.field(default_factory=list)
    text_gaps: list[str] = msgspec.field(default_factory=list)  # what the export's text lacks (akn.Article)


class ActVersion(msgspec.Struct, kw_only=True):
    urn: str
    eli: str | None
    title: str | None
    act_type: str | None
    number: str | None
    date: str | None
    year: int | None
    version: str
    in_force_date: str | None
    fetched_at: str
    source_url: str
    article_count: int
    first_article: str | None
    last_article: str | None
    keys: list[str]
    # When this version was last known to be the text in force today (a fetch without a date, or
    # an import), None when it was only ever fetched for a past date: only such a version, while
    # fresh, answers for "today".
    current_at: str | None = None
    # The latest date this version is known to be in force (the dates it was fetched for).
    known_to: str | None = None
    # A decree-law's preface note, as the export prints it: the law that converted it ("L. 17 luglio
    # 2020, n. 77"), or that it lapsed; None in documents written before it was kept (not known)
    converted_by: str | None = None
    lapsed: bool | None = None

    @property
    def original(self) -> bool:
        return self.version == ORIGINAL


def index_root(settings: Settings) -> Path:
    return settings.home / "indexes" / DEFN_NAME


def version_label(in_force_date: str | None) -> str:
    return in_force_date or ORIGINAL


def with_effect_by(events: list[ProvisionEvent], version_start: str | None) -> list[ProvisionEvent]:
    """The events as read from a text in force from `version_start`: one whose date of effect
    the export does not give had effect by that day at the latest (provision_status.in_effect)."""
    if not version_start:
        return events
    return [msgspec.structs.replace(e, effect_by=version_start)
            if e.since is None and e.effect_by is None and e.kind in ("repealed", "unconstitutional") else e
            for e in events]


def is_placeholder(text: str) -> bool:
    """Normattiva's text for an article asked before it existed ("NON ANCORA ESISTENTE O VIGENTE",
    OpenData API `urn_non_ancora_vigente.json`): not a text of the article."""
    return "NON ANCORA ESISTENTE O VIGENTE" in (text or "")[:200].upper()


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def statute_citation(src: dict, article: str | None = None) -> str:
    from it_eli.law import codes
    from it_eli.law import urn as urnmod

    act_type, number, date, year = src.get("act_type"), src.get("act_number"), src.get("act_date"), src.get("act_year")
    code = codes.lookup_act(act_type, year, number) if (act_type and year and number) else None
    decree = bool(article and article.startswith("dec-"))  # an article of the decree approving a code
    if act_type == "costituzione":
        act = "Cost."
    elif code is not None and not decree:
        act = code.abbreviation
    else:
        try:
            act = urnmod.act_citation(act_type or "", date=date, year=year, number=number)
        except Exception:
            act = src.get("act_title") or src.get("urn") or "atto"
    return f"{_article_citation(article)} {act}" if article else act


def _article_citation(key: str) -> str:
    """How a key is cited: 'art. 2043', 'disp. trans. XVIII', 'art. 12 allegato II.12', 'art. 1' (dec-1)."""
    from it_eli.law.grammar import int_to_roman as _int_to_roman

    m = re.fullmatch(r"disp-trans-(\d+)", key)
    if m:
        return f"disp. trans. {_int_to_roman(int(m.group(1)))}"
    m = re.fullmatch(r"dec-(.+)", key)
    if m:
        return f"art. {m.group(1)}"
    m = re.fullmatch(r"(?P<group>[a-z][a-z0-9.]*(?:-[a-z0-9.]+)*?)-art-(?P<n>.+)", key)
    if m:
        word, _, rest = m.group("group").partition("-")
        return f"art. {m.group('n')} {word}" + (f" {rest.upper()}" if rest else "")
    return f"art. {key}"


def add_searchable(doc: tantivy.Document, defn, parts: dict[str, str | None], an: Analyzer) -> None:
    """Index an article's texts as the statute index definition says: each part (char-filtered)
    in its field and again in the catch-all; the parts other than the act title also in the
    exact-form field (the benchmark builds its documents with this too)."""
    for field, value in parts.items():
        if not value or defn.field(field) is None:
            continue
        prepared = an.prepare(value)
        doc.add_text(field, prepared)
        if defn.catch_all:
            doc.add_text(defn.catch_all, prepared)
        if field != "act_title":
            for exact in defn.exact_fields or ():
                doc.add_text(exact, prepared)
