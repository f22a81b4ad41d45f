"""The citation-forms table (tests/citation_forms.py): every form carries its identifier and its
partitions, read by the one scanner of it_eli.law."""

from __future__ import annotations

import pytest

from it_eli.law.scanner.model import Citation
from it_eli.law.scanner.scan import extract_citations
from tests.citation_forms import FORMS

_PARTS = ("article", "comma", "lettera", "numero", "periodo", "paragrafo", "punto", "considerando", "allegato",
          "tabella", "titolo", "capo")


def _fits(c: Citation, row: dict) -> bool:
    if row["kind"] == "case":
        f = row["fields"]
        return (c.kind in ("case", "ecli") and c.court == row["court"] and c.decision_number == row["number"]
                and c.decision_year == row["year"]
                and all(getattr(c, {"section": "court_section", "seat": "court_seat"}.get(k, k)) == v
                        for k, v in f.items()))
    if c.kind != "statute" or c.act is None:
        return False
    if row["kind"] == "eu":
        if c.act.eli != row["eli"]:
            return False
    elif c.urn != row["urn"]:
        return False
    parts = row["parts"]
    if c.article != parts.get("article"):
        return False
    return all(getattr(c, k) == v for k, v in parts.items() if k != "article")


def _misses() -> list[tuple[str, list]]:
    out = []
    for row in FORMS:
        got = extract_citations(row["text"])
        if not any(_fits(c, row) for c in got):
            out.append((row["text"], [(c.kind, c.urn, c.act and c.act.eli, c.article, c.comma, c.lettera, c.numero,
                                       c.court, c.decision_number, c.decision_year, c.court_section, c.court_seat)
                                      for c in got]))
    return out


def test_table_covers_every_family():
    assert len(FORMS) >= 300
    urns = " ".join(r.get("urn") or r.get("eli") or r.get("court", "") for r in FORMS)
    for family in ("stato:legge:", "decreto.legislativo:", "decreto.legge:", "decreto.del.presidente.della.repubblica",
                   "legge.costituzionale", "regio.decreto:", "regio.decreto.legge", "regio.decreto.legislativo",
                   "luogotenenziale", "capo.provvisorio.stato", "regione.", "provincia.autonoma.",
                   "presidente.consiglio.ministri", "decreto.ministeriale", "ministero.", "circolare", "delibera",
                   "costituzione", "eli/reg/", "eli/dir/", "COST", "CASS", "CDS", "TAR", "TRIB", "APP"):
        assert family in urns, family


def test_every_form_is_read_with_its_identifier_and_partitions():
    misses = _misses()
    assert not misses, f"{len(misses)} of {len(FORMS)} forms misread:\n" + "\n".join(f"{t!r}: {g}" for t, g in misses)


@pytest.mark.parametrize("text", [
    "urn:nir:stato:legge:1990-08-07;241~art5-bis",
])
def test_urn_tail_is_never_dropped(text):
    from it_eli.law.urn import parse_urn

    assert parse_urn(text).article == "5-bis"
