"""URN:NIR / ELI / URL parsing and building, act-type abbreviations, citations, offline resolve, codes."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from it_eli.runtime.errors import InvalidArg
from it_eli.law import acts, codes, urn
from it_eli.law.urn import Eli, Urn, parse_eli, parse_reference, parse_urn, resolve


@pytest.mark.parametrize(
    "text, fields",
    [
        ("urn:nir:stato:legge:1990-08-07;241", dict(act_type="legge", date="1990-08-07", year=1990, number="241")),
        ("urn:nir:stato:legge:1990;241", dict(act_type="legge", date=None, year=1990, number="241")),
        ("urn:nir:stato:regio.decreto:1942-03-16;262:2~art2043",
         dict(act_type="regio.decreto", annex="2", article="2043", number="262")),
        ("urn:nir:stato:legge:1990-08-07;241~art21septies", dict(article="21-septies")),
        ("urn:nir:stato:legge:1990-08-07;241~art1@originale", dict(article="1", version="originale")),
        ("urn:nir:stato:legge:1990-08-07;241~art2!vig=2020-01-01", dict(article="2", vigenza="2020-01-01")),
        ("urn:nir:stato:costituzione", dict(act_type="costituzione", date=None, number=None)),
        ("urn:nir:stato:costituzione:1947-12-27~art3", dict(act_type="costituzione", date="1947-12-27", article="3")),
        ("urn:nir:stato:decreto.legge:2025-03-28;36", dict(act_type="decreto.legge")),
        ("urn:nir:stato:decreto.del.presidente.della.repubblica:1988-09-22;447",
         dict(act_type="decreto.del.presidente.della.repubblica", number="447")),
        # spellings seen inside Normattiva's own links (articoloHtml of the API answers)
        ("urn:nir:presidente.repubblica:decreto:1986-12-22;917",
         dict(act_type="decreto.del.presidente.della.repubblica", number="917")),
        ("urn:nir:stato:codice.civile:1942-03-16;262~art433", dict(act_type="regio.decreto", number="262", article="433")),
        ("urn:nir:stato:legge:1988-08-23;400~art17-com3", dict(article="17")),
    ],
)
def test_parse_urn(text, fields):
    u = parse_urn(text)
    for k, v in fields.items():
        assert getattr(u, k) == v, k


@pytest.mark.parametrize(
    "text",
    [
        "urn:nir:stato:legge:1990-08-07;241",
        "urn:nir:stato:legge:1990;241",
        "urn:nir:stato:regio.decreto:1942-03-16;262:2~art2043",
        "urn:nir:stato:legge:1990-08-07;241~art21septies!vig=2020-01-01",
        "urn:nir:stato:legge:1990-08-07;241~art1@originale",
        "urn:nir:stato:costituzione",
        "urn:nir:stato:costituzione:1947-12-27~art3",
    ],
)
def test_urn_round_trip(text):
    assert str(parse_urn(text)) == text


@pytest.mark.parametrize(
    "bad",
    ["", "urn:nir:stato:legge", "urn:nir:stato:legge:1990-13-07;241", "urn:nir:stato:pippo:1990-08-07;1",
     "urn:nir:stato:legge:1990-08-07;241~all1", "urn:nir:stato:legge:1990-08-07;241!vig=2005-13-45",
     "urn:nir:stato:legge:1990-08-07;241!vig="],
)
def test_parse_urn_rejects(bad):
    with pytest.raises(InvalidArg):
        parse_urn(bad)


def test_eli_parse_and_build():
    e = parse_eli("eli/id/1990/08/18/090G0294/CONSOLIDATED/20260421")
    assert e == Eli(gu_date="1990-08-18", codice_redazionale="090G0294", kind="CONSOLIDATED", version_date="2026-04-21")
    assert e.path() == "eli/id/1990/08/18/090G0294/CONSOLIDATED/20260421"
    assert e.path(with_version=False) == "eli/id/1990/08/18/090G0294/CONSOLIDATED"
    assert parse_eli("https://www.normattiva.it/eli/id/2024/12/31/24G00231/ORIGINAL").kind == "ORIGINAL"
    with pytest.raises(InvalidArg):
        parse_eli("eli/id/1990/02/31/090G0294/CONSOLIDATED")


def test_parse_reference_urls():
    r = parse_reference("https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:decreto.legislativo:2001-06-08;231~art5")
    assert isinstance(r, Urn) and r.number == "231" and r.article == "5"
    r = parse_reference("https://www.normattiva.it/uri-res/N2Ls?urn%3Anir%3Astato%3Alegge%3A1990-08-07%3B241")
    assert isinstance(r, Urn) and str(r) == "urn:nir:stato:legge:1990-08-07;241"
    assert isinstance(parse_reference("https://www.normattiva.it/eli/id/1990/08/18/090G0294/CONSOLIDATED"), Eli)
    with pytest.raises(InvalidArg):
        parse_reference("legge 241/1990")


def test_portal_url():
    assert urn.portal_url("urn:nir:stato:legge:1990-08-07;241") == (
        "https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:legge:1990-08-07;241"
    )
    assert urn.portal_url(parse_eli("eli/id/1990/08/18/090G0294/CONSOLIDATED"), "http://x:1/") == (
        "http://x:1/eli/id/1990/08/18/090G0294/CONSOLIDATED"
    )


@pytest.mark.parametrize(
    "raw, canon",
    [
        ("l.", "legge"), ("L.", "legge"), ("legge", "legge"), ("d.lgs", "decreto.legislativo"),
        ("dlgs", "decreto.legislativo"), ("D.Lgs.", "decreto.legislativo"), ("d. lgs.", "decreto.legislativo"),
        ("decreto legislativo", "decreto.legislativo"), ("d.l.", "decreto.legge"), ("dl", "decreto.legge"),
        ("decreto-legge", "decreto.legge"), ("dpr", "decreto.del.presidente.della.repubblica"),
        ("D.P.R.", "decreto.del.presidente.della.repubblica"), ("r.d.", "regio.decreto"),
        ("regio decreto", "regio.decreto"), ("d.m.", "decreto.ministeriale"), ("l. cost.", "legge.costituzionale"),
        ("cost.", "costituzione"), ("dpcm", "decreto.del.presidente.del.consiglio.dei.ministri"),
        ("r.d.l.", "regio.decreto.legge"), ("decreto.legislativo", "decreto.legislativo"),
    ],
)
def test_act_type_abbreviations(raw, canon):
    assert urn.canonical_act_type(raw) == canon


def test_unknown_act_type_lists_accepted():
    with pytest.raises(InvalidArg) as ei:
        urn.canonical_act_type("sentenza")
    assert "d.lgs" in ei.value.valid and "decreto.legge" in ei.value.valid


@pytest.mark.parametrize(
    "args, kwargs, citation, urn_s",
    [
        (("L.", 1990, 241), {}, "L. 7 agosto 1990, n. 241", "urn:nir:stato:legge:1990-08-07;241"),
        (("d.lgs.", 2001, 231), {}, "D.Lgs. 8 giugno 2001, n. 231", "urn:nir:stato:decreto.legislativo:2001-06-08;231"),
        (("dpr", 1988, 447), {}, "D.P.R. 22 settembre 1988, n. 447",
         "urn:nir:stato:decreto.del.presidente.della.repubblica:1988-09-22;447"),
        (("r.d.", 1930, 1398), {}, "R.D. 19 ottobre 1930, n. 1398", "urn:nir:stato:regio.decreto:1930-10-19;1398"),
        (("cost.",), {}, "Cost.", "urn:nir:stato:costituzione"),
        (("legge", 1990, "241"), {"article": "21 septies"}, "art. 21-septies L. 7 agosto 1990, n. 241",
         "urn:nir:stato:legge:1990-08-07;241~art21septies"),
        (("c.p.",), {"article": 575}, "art. 575 c.p.", "urn:nir:stato:regio.decreto:1930-10-19;1398~art575"),
        (("legge", 2012, 190, "2012-11-06"), {}, "L. 6 novembre 2012, n. 190", "urn:nir:stato:legge:2012-11-06;190"),
        (("dl", 2000, 8), {}, "D.L. n. 8/2000", "urn:nir:stato:decreto.legge:2000;8"),
    ],
)
def test_resolve(args, kwargs, citation, urn_s):
    r = resolve(*args, **kwargs)
    assert r.human_readable_citation == citation
    assert r.urn == urn_s
    assert r.source_url == "https://www.normattiva.it/uri-res/N2Ls?" + urn_s


def test_resolve_code_gives_api_annex_form():
    r = resolve("codice civile", article="2043")
    assert r.code_id == "cc"
    assert r.urn == "urn:nir:stato:regio.decreto:1942-03-16;262~art2043"
    assert r.api_urn == "urn:nir:stato:regio.decreto:1942-03-16;262:2~art2043"
    assert r.human_readable_citation == "art. 2043 c.c."
    # same act reached through its type/year/number
    assert resolve("r.d.", 1942, 262).code_id == "cc"
    assert resolve("cost", article=3).api_urn == "urn:nir:stato:costituzione:1947-12-27~art3"


def test_resolve_partial_has_no_api_urn_and_warns():
    r = resolve("legge", 1990, 7)
    assert r.partial and r.api_urn is None and r.warnings


@pytest.mark.parametrize(
    "args",
    [("pippo", 1990, 1), ("legge", 1860, 1), ("legge", dt.date.today().year + 1, 1), ("legge", "19x0", 1),
     ("legge", 1990, "abc"), ("legge", 1990, "12a"), ("legge", 1990, 0), ("legge", 1990, 241, "1990-02-30"),
     ("legge", 1990, 241, "07/08/90x"), ("legge", 1990, 241, "1991-08-07")],
)
def test_resolve_rejects(args):
    with pytest.raises(InvalidArg) as ei:
        resolve(*args)
    assert ei.value.valid


def test_resolve_unknown_type_names_abbreviations():
    with pytest.raises(InvalidArg) as ei:
        resolve("sentenza", 2020, 1)
    assert "d.p.r." in ei.value.valid


@given(
    t=st.sampled_from([t.urn_type for t in acts.ACT_TYPES if t.urn_type != "costituzione" and t.authority == "stato"]),
    d=st.dates(min_value=dt.date(1861, 1, 1), max_value=dt.date.today()),
    n=st.integers(min_value=1, max_value=99999),
    art=st.one_of(st.none(), st.integers(1, 3000).map(str), st.sampled_from(["2-bis", "21-septies", "615-ter"])),
)
def test_build_parse_round_trip_property(t, d, n, art):
    u = Urn(act_type=t, date=d.isoformat(), year=d.year, number=str(n), article=art)
    assert parse_urn(str(u)) == u


@pytest.mark.parametrize("raw, key", [("21 septies", "21-septies"), ("21septies", "21-septies"), ("art. 2043", "2043"),
                                      ("25-bis.1", "25-bis.1"), ("33 nonies", "33-novies"), ("Art. 416-bis.", "416-bis")])
def test_article_key(raw, key):
    assert urn.article_key(raw) == key


def test_article_key_agrees_with_akn_parser():
    akn = pytest.importorskip("it_eli.sources.normattiva.akn")
    for raw in ["21 septies", "25-bis.1", "2043", "416 bis", "33 nonies"]:
        assert urn.article_key(raw) == akn.normalize_article_key(raw)


# ---------------------------------------------------------------- codes

REQUIRED = ["cost", "cc", "cp", "cpc", "cpp", "privacy", "cad", "dlgs231", "l241", "strada", "contratti",
            "consumo", "tuir", "tuel", "navigazione"]


def test_required_codes_present():
    assert set(REQUIRED) <= set(codes.CODES_BY_ID)


@pytest.mark.parametrize(
    "alias, cid",
    [("c.c.", "cc"), ("Cod. civ.", "cc"), ("codice civile", "cc"), ("c.p.", "cp"), ("c.p.c.", "cpc"),
     ("c.p.p.", "cpp"), ("Cost.", "cost"), ("codice privacy", "privacy"), ("CAD", "cad"), ("TUIR", "tuir"),
     ("t.u.e.l.", "tuel"), ("codice della strada", "strada"), ("codice dei contratti pubblici", "contratti"),
     ("codice del consumo", "consumo"), ("cod. nav.", "navigazione"), ("d.lgs. 231/2001", "dlgs231"),
     ("L. 241/1990", "l241")],
)
def test_lookup_code(alias, cid):
    assert codes.lookup_code(alias).id == cid


def test_lookup_code_unknown():
    assert codes.lookup_code("codice della pesca sportiva") is None


def test_code_urns_parse_and_api_annexes():
    for c in codes.CODES:
        if c.family in ("ue", "internazionale"):
            assert not c.urn and (c.celex or c.family == "internazionale"), c.id  # no Normattiva URN: EUR-Lex ids
            continue
        assert str(parse_urn(c.urn)) == c.urn
        parse_urn(c.api_urn)
    ann = {c.id: c.api_urn.removeprefix(c.urn) for c in codes.CODES}
    assert ann["cc"] == ":2" and ann["cp"] == ":1" and ann["cpc"] == ":1" and ann["navigazione"] == ":1"
    assert ann["cpp"] == ""  # the c.p.p. takes no annex (API_FACTS §5)


def test_code_identities_match_the_captured_exports(testdata):
    """Every code whose source names an AKN export: that export's urn:nir alias is the code's URN."""
    checked = 0
    for c in codes.CODES:
        for fname in re.findall(r"AKN (?:normattiva-akn/)?([\w.\-]+\.xml)", c.source):
            head = (testdata / "normattiva-akn" / fname).read_bytes()[:100_000]
            m = re.search(rb'FRBRalias name="urn:nir" value="([^"]+)"', head)
            assert m and m.group(1).decode() == c.urn, (c.id, fname)
            checked += 1
    assert checked >= 7


# Latin ordinals the legislator uses for inserted articles, 2 to 50 (each spelling printed in Italian law)
LATIN_ORDINALS = [
    "bis", "ter", "quater", "quinquies", "sexies", "septies", "octies", "novies", "decies",
    "undecies", "duodecies", "terdecies", "quaterdecies", "quinquiesdecies", "sexiesdecies", "septiesdecies",
    "duodevicies", "undevicies", "vicies", "semel vicies", "bis vicies", "ter vicies", "quater vicies",
    "quinquies vicies", "sexies vicies", "septies vicies", "duodetricies", "undetricies", "tricies",
    "quadragies", "quinquagies", "tredecies", "quindecies", "sedecies", "octiesdecies", "noviesdecies",
    "vicies semel", "vicies bis", "nonies",
]


@pytest.mark.parametrize("suffix", LATIN_ORDINALS)
def test_latin_ordinals_up_to_fifty(suffix):
    from it_eli.sources.normattiva.akn import normalize_article_key

    joined = suffix.replace(" ", "").replace("nonies", "novies")
    for raw in (f"25-{suffix}", f"25 {suffix}", f"art. 25{suffix.replace(' ', '')}", f"25-{suffix}.1"):
        key = urn.article_key(raw)
        assert key.startswith(f"25-{joined}"), (raw, key)
        assert normalize_article_key(raw) == key  # the export parser reads it the same way
    u = parse_urn(f"urn:nir:stato:decreto.legislativo:2001-06-08;231~art25{joined}")
    assert u.article == f"25-{joined}" and str(u).endswith(f"~art25{joined}")


@pytest.mark.parametrize("bad", ["-1", "x", "25-foo", "2 1990", "25 bisx"])
def test_article_key_refuses_what_is_not_a_number(bad):
    with pytest.raises(InvalidArg):
        urn.article_key(bad)
