"""The citation contract: an identified act always carries its URN (ELI for EU acts), offline and
out of the corpus; which act an article belongs to; one registry of codes for every tool."""

from __future__ import annotations

import pytest

from it_eli.services.app import App
from it_eli.law import codes
from it_eli.law.scanner.scan import extract_citations
from it_eli.mcp.tools.registry import call
from it_eli.services.verification.verifier import verify_text

PARAGRAPH = (
    "Il dipendente ha violato l'art. 7 del d.P.R. 62/2013 e l'art. 53, comma 16-ter, del d.lgs. 30 marzo 2001, "
    "n. 165. Rileva altresì la l.r. Lombardia 11 marzo 2005, n. 12, il D.M. 10 marzo 2014, n. 55, il regio "
    "decreto-legge 20 luglio 1934, n. 1404, il D.Lgs.Lgt. 10 maggio 1945, n. 234, l'art. 6, par. 1, lett. f), "
    "GDPR, l'art. 2043 c.c., l'art. 12 disp. prel. c.c. e l'art. 3 Cost."
)


@pytest.fixture
async def app(make_settings):
    a = App(make_settings())
    yield a
    await a.close()


async def test_offline_verification_gives_a_urn_for_every_identified_act(app):
    res = await verify_text(app, PARAGRAPH, offline=True)
    statutes = [c for c in res.citations if c.kind == "statute"]
    assert len(statutes) >= 10
    for c in statutes:
        assert c.urn or c.eli, (c.raw, c.status)
    by_raw = {c.raw.split(" ")[0] + c.raw[-12:]: c for c in statutes}
    urns = {c.urn for c in statutes}
    assert "urn:nir:stato:decreto.del.presidente.della.repubblica:2013;62" in urns  # out of corpus, year only
    assert "urn:nir:stato:decreto.legislativo:2001-03-30;165" in urns  # full date when the text gives it
    assert "urn:nir:regione.lombardia:legge:2005-03-11;12" in urns
    assert "urn:nir:stato:regio.decreto.legge:1934-07-20;1404" in urns
    assert any(c.eli == "http://data.europa.eu/eli/reg/2016/679/oj" for c in statutes)
    # the preleggi are the c.c.'s annex 1: never art. 12 of the codice civile
    pre = next(c for c in statutes if "prel" in c.raw)
    assert pre.urn.endswith(";262:1") and pre.status != "verified"
    assert by_raw


async def test_offline_verification_keeps_what_each_citation_names(app):
    """The contract carries a decision's section, chamber, type and date and an EU act's CELEX and
    partitions, also offline: the calling model can fetch or cite them without reading them again."""
    text = ("Cass. civ., sez. III, ord. 10 marzo 2021, n. 6597; art. 6, par. 1, lett. f), GDPR; "
            "considerando 47 GDPR; art. 1, comma 2, terzo periodo, d.lgs. 231/2001.")
    res = await verify_text(app, text, offline=True)
    cass, art6, cons, period = res.citations
    assert (cass.court, cass.court_section, cass.court_branch, cass.decision_type, cass.decision_date, cass.ecli) == (
        "CASS", "3", "civ", "ordinanza", "2021-03-10", "ECLI:IT:CASS:2021:6597CIV")
    assert art6.celex == "32016R0679" and (art6.partitions.paragrafo, art6.partitions.lettera) == ("1", "f")
    assert cons.partitions.considerando == "47" and cons.article is None
    assert (period.comma, period.partitions.periodo) == ("2", "3")


def test_an_article_after_two_acts_is_not_tied_to_the_last_one():
    text = "La legge n. 241 del 1990 ha modificato la disciplina del codice penale con l'art. 3"
    (art,) = [c for c in extract_citations(text) if c.article]
    assert art.act is None and art.act_unresolved


def test_an_article_joined_to_a_citation_shares_its_act_unless_another_act_follows():
    (_, joined) = [c for c in extract_citations("ai sensi dell'art. 2043 c.c. e dell'art. 2059") if c.article]
    assert joined.article == "2059" and joined.urn == "urn:nir:stato:regio.decreto:1942-03-16;262:2~art2059"
    text = "l'art. 2043 c.c. e l'art. 24, come modificato dalla legge n. 689/1981"
    art24 = next(c for c in extract_citations(text) if c.article == "24")
    assert art24.act is None and art24.act_unresolved  # c.c. or l. 689/1981: never a guess


async def test_an_ambiguous_article_is_never_verified(app):
    text = "La legge n. 241 del 1990 ha modificato la disciplina del codice penale con l'art. 3."
    res = await verify_text(app, text, offline=True)
    art = next(c for c in res.citations if c.article == "3")
    assert art.status == "act_unresolvable"


def test_an_eu_act_named_by_its_kind_once_cited_is_that_act():
    """A brief defines 'il Regolamento' once it has cited it; 'della direttiva' after a directive."""
    text = ("Il Regolamento (UE) 2016/679 si applica ai dati dei dipendenti. Ai sensi del considerando 155 del "
            "Regolamento e dell'art. 88 del Regolamento, gli Stati membri possono prevedere norme più specifiche. "
            "La direttiva 2000/78/CE vieta le discriminazioni; l'art. 2, par. 2, della direttiva le definisce.")
    got = {(c.act.eli, c.article, c.considerando, c.paragrafo) for c in extract_citations(text) if c.act}
    gdpr, dire = "http://data.europa.eu/eli/reg/2016/679/oj", "http://data.europa.eu/eli/dir/2000/78/oj"
    assert {(gdpr, None, "155", None), (gdpr, "88", None, None), (dire, "2", None, "2")} <= got
    # a municipal regolamento is not the GDPR, and no EU act means no guess
    assert all(c.act is None for c in extract_citations("art. 5 del regolamento condominiale") if c.article)
    assert all(c.act is None for c in extract_citations("art. 4 del Regolamento") if c.article)


def test_a_back_reference_names_the_act_of_the_articles_before_it():
    text = ("Il decreto disciplina le sanzioni interdittive dall'art. 9 e la loro durata dall'art. 13 dello stesso "
            "decreto legislativo 8 giugno 2001, n. 231.")
    text = "Si applica il d.lgs. 231/2001. " + text.replace(" legislativo 8 giugno 2001, n. 231", "")
    arts = {c.article: c for c in extract_citations(text) if c.article}
    assert arts["9"].act is not None and arts["9"].act.number == "231"
    assert arts["13"].act is not None and arts["13"].act.number == "231"


@pytest.mark.parametrize("text, article, urn", [
    ("urn:nir:stato:legge:1990-08-07;241~art5-bis", "5-bis", "urn:nir:stato:legge:1990-08-07;241~art5bis"),
    ("urn:nir:stato:legge:1988-08-23;400~art17-com3", "17", "urn:nir:stato:legge:1988-08-23;400~art17-com3"),
])
def test_a_urn_is_read_whole(text, article, urn):
    from it_eli.law.urn import parse_urn

    u = parse_urn(text)
    assert u.article == article and str(u) == urn


def test_a_urn_tail_it_cannot_read_is_an_error():
    from it_eli.runtime.errors import InvalidArg
    from it_eli.law.urn import parse_urn

    with pytest.raises(InvalidArg, match="unread tail"):
        parse_urn("urn:nir:stato:legge:1990-08-07;241~art5-xyz")


async def test_list_codes_resolve_and_extractor_agree_on_every_code(app):
    err, listed = await call(app, "it_list_codes", {})
    assert not err
    assert {c["id"] for c in listed["codes"]} == {c.id for c in codes.CODES}
    for c in listed["codes"]:
        code = codes.CODES_BY_ID[c["id"]]
        # the code by its abbreviation, or by the act's own citation when that is how it is cited
        cite = f"art. 1 {code.abbreviation if not any(ch.isdigit() for ch in code.abbreviation) else code.act_citation}"
        found = [x for x in extract_citations(cite) if x.article == "1"]
        assert found and found[0].act is not None, (c["id"], cite)
        act = found[0].act
        if code.family in ("ue", "internazionale"):
            assert act.eli == c["eli"] and act.code in (c["id"], None), (c["id"], cite)
            err, res = await call(app, "it_resolve", {"reference": cite})
            assert not err, (cite, res)
            assert res["kind"] == ("international" if code.family == "internazionale" else "eu_act"), (cite, res)
            assert (res["eli"], res["celex"], res["article"]) == (c["eli"], c["celex"], "1"), (cite, res)
            continue
        own = code.api_urn if (code.annex_of or act.code) and code.family == "codice" else code.urn
        assert act.urn == own, (c["id"], cite, act.urn)
        err, res = await call(app, "it_resolve", {"reference": cite})
        assert not err, (cite, res)
        assert res["act_urn"] == (code.api_urn if code.annex_of else c["urn"]), (cite, res)
        if act.code:
            assert res["code_id"] == c["id"], (cite, res)


async def test_resolve_reads_historical_regional_and_ministerial_acts(app):
    for ref, urn in [
        ("D.Lgs.Lgt. 10 maggio 1945, n. 234", "urn:nir:stato:decreto.legislativo.luogotenenziale:1945-05-10;234"),
        ("r.d.l. 2033/25", "urn:nir:stato:regio.decreto.legge:1925;2033"),
        ("l.r. Lombardia 11 marzo 2005, n. 12", "urn:nir:regione.lombardia:legge:2005-03-11;12"),
        ("art. 3 D.P.C.M. 5 dicembre 2013, n. 159", "urn:nir:presidente.consiglio.ministri:decreto:2013-12-05;159"),
    ]:
        err, res = await call(app, "it_resolve", {"reference": ref})
        assert not err, (ref, res)
        assert res["act_urn"] == urn, (ref, res)


async def test_resolve_says_what_it_could_not_read(app):
    err, res = await call(app, "it_resolve", {"reference": "art. 5 d.lgs. 231/2001 zzz qqq"})
    assert err and "zzz" in str(res)


async def test_resolve_names_every_decision_and_eu_act_of_the_forms_table(app):
    """it_resolve resolves what the extractor identifies: a decision is told by court, seat,
    section, number, year and ECLI; an EU act by its ELI and partitions (never "cannot read")."""
    from tests.citation_forms import FORMS

    wrong = []
    for row in FORMS:
        if row["kind"] == "statute":
            continue
        if len(extract_citations(row["text"])) > 1:
            continue  # a list (of decisions, of directives) is several references; it_resolve names one
        err, res = await call(app, "it_resolve", {"reference": row["text"]})
        if row["kind"] == "case":
            d = (res or {}).get("decision") or {}
            want = {"court": row["court"], "number": row["number"], "year": row["year"]}
            want |= {k: v for k, v in row["fields"].items() if k in ("seat", "section", "ecli")}
            if err or res["kind"] != "decision" or any(d.get(k) != v for k, v in want.items()):
                wrong.append((row["text"], res))
        else:
            parts = row["parts"]
            got_parts = {"article": res.get("article")} | res.get("partitions", {}) if not err else {}
            if err or res["kind"] != "eu_act" or res["eli"] != row["eli"] or any(
                    got_parts.get(k) != v for k, v in parts.items()):
                wrong.append((row["text"], res))
    assert not wrong, f"{len(wrong)} misread:\n" + "\n".join(f"{t!r}: {r}" for t, r in wrong[:20])


async def test_resolve_gives_the_partitions_and_an_honest_word_on_what_is_missing(app):
    err, res = await call(app, "it_resolve", {"reference": "art. 2, comma 1, lett. a), l. 241/1990"})
    assert not err and res["urn"].endswith("241~art2") and res["partitions"] == {"comma": "1", "lettera": "a"}
    # a D.P.C.M. cited by its date alone: identified, with its URN, and the missing number said
    err, res = await call(app, "it_resolve", {"reference": "DPCM 11 marzo 2020"})
    assert not err and res["urn"] == "urn:nir:presidente.consiglio.ministri:decreto:2020-03-11"
    assert any("without a number" in w for w in res["warnings"])
    # a Cassazione decision without its chamber: no ECLI is made up, and the answer says why
    err, res = await call(app, "it_resolve", {"reference": "Cass., SS.UU., 22 luglio 1999, n. 500"})
    assert not err and res["decision"]["ecli"] is None and res["decision"]["section"] == "U"
    assert any("ECLI" in w for w in res["warnings"])
    assert res["human_readable_citation"] == "Cass., Sez. Un., 22 luglio 1999, n. 500"
    err, res = await call(app, "it_resolve", {"reference": "Cass. n. 4567/2018 zzz qqq"})
    assert err and "zzz" in str(res)
    err, res = await call(app, "it_resolve", {"reference": "Cass. n. 4567/2018", "article": "2"})
    assert err and res["code"] == "invalid_arg"
