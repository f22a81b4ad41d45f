"""Akoma Ntoso parser against the 43 real Normattiva exports in ../shared/data/normattiva-akn.

Every expected count below was checked independently of the parser, with grep on the raw XML:
  body    = `grep -o '<article ' FILE | wc -l`   (no export nests <article>: checked with xpath
            `ancestor::article`, always empty)
  att_art = `grep -o '<doc name="[^"]*-art[^"]*"' FILE | wc -l`  (attachment docs that are articles)
  docs    = `grep -o '<doc name="' FILE | wc -l`  (all attachment docs)
expected articles = body + att_art (+ the 18 `Allegato-I…XVIII` docs of the Costituzione, which
are its transitional provisions); expected annexes = docs - the docs counted as articles.
Exceptions, counted by hand: D.Lgs. 36/2023 (23G00044) has 3 docs spelled `Allegato I.8 - art. 1`
(spaces around the hyphen) that the grep above misses: 258 + 3 = 261 attachment articles.
"""

from __future__ import annotations


import msgspec
import pytest
from hypothesis import given, strategies as st

from it_eli.runtime.errors import InvalidArg, ItEliError, NotAvailable, UpstreamChanged
from it_eli.sources.normattiva.akn import normalize_article_key, roman_to_int
from it_eli.sources.normattiva.akn.parser import parse_act
from it_eli.sources.normattiva.akn.model import Act

# file -> (articles, annexes). Reasoning per row in the module docstring; notable rows:
# - codice penale: body 3 (the approving R.D.'s articles, keyed dec-1..dec-3) + 995 / 987 docs
#   `Codice Penale-art. N` (the 20260507 export lacks 452-bis.1, 452-quinquiesdecies,
#   452-sexiesdecies, 517-sexies/septies/octies, 518.1, 518.2, added later);
# - Costituzione: 139 body articles + 18 transitional provisions;
# - c.p.p.: 906 body articles = the approving D.P.R.'s "Art. 01." + the code's 905.
EXPECTED = {
    "alessionar__19410716_041U0633_VIGENZA_20220922.xml": (306, 0),
    "alessionar__20190612_19G00059_VIGENZA_20200719.xml": (10, 0),
    "alessionar__20230331_23G00044_VIGENZA_20230530.xml": (229 + 261, 283 - 261),
    "mcp-legal-it__codice_penale.xml": (3 + 995, 0),
    "mcp-legal-it__costituzione.xml": (139 + 18, 0),
    "mcp-legal-it__dlgs_231_2001.xml": (109, 0),
    "mcp-legal-it__legge_241_1990.xml": (51, 0),
    "ondata__25G00049.xml": (4, 0),
    "ondata__CAD_dlgs82-2005__005G0104_VIGENZA_20250130.xml": (121, 0),
    "scabopdf__codice_penale.xml": (3 + 987, 0),
    "scabopdf__codice_procedura_penale.xml": (906, 0),
    "scabopdf__codice_strada.xml": (266, 1),
    "scabopdf__dl_rilancio.xml": (345, 9),
    "scabopdf__dlgs_231_2001.xml": (109, 0),
    "scabopdf__dlgs_cartabia.xml": (52, 0),
    "scabopdf__dlgs_correttivo_appalti.xml": (97, 0),
    "scabopdf__legge_56_2007.xml": (2, 0),
    "scabopdf__legge_bilancio_2023.xml": (21, 6),
    "scabopdf__legge_capitali.xml": (28, 0),
    "scabopdf__legge_finanziaria_2007.xml": (1, 6),
    "scabopdf__legge_gelli_bianco.xml": (18, 0),
    "vintra73__010G0043_VIGENZA_20140821.xml": (15, 4),
    "vintra73__011G0245_ORIGINALE.xml": (4 + 19, 1),  # 19 `Accordo-art. N` + English `Agreement`
    "vintra73__012G0081_ORIGINALE.xml": (5, 2),
    "vintra73__012G0081_VIGENZA_20120714.xml": (5, 2),
    "vintra73__012G0081_VIGENZA_20140209.xml": (5, 2),
    "vintra73__012G0081_VIGENZA_20180206.xml": (5, 2),
    "vintra73__012G0171_ORIGINALE.xml": (26, 4),
    "vintra73__012G0171_VIGENZA_20160129.xml": (26, 3),
    "vintra73__012G0234_ORIGINALE.xml": (7, 0),
    "vintra73__012G0234_VIGENZA_20130103.xml": (5, 0),
    "vintra73__012G0234_VIGENZA_20130804.xml": (7, 0),
    "vintra73__012G0234_VIGENZA_20131031.xml": (7, 0),
    "vintra73__012G0234_VIGENZA_20160203.xml": (7, 0),
    "vintra73__012G0234_VIGENZA_20160806.xml": (7, 0),
    "vintra73__15G00200_ORIGINALE.xml": (4, 0),
    "vintra73__15G00200_VIGENZA_20160101.xml": (4, 0),
    "vintra73__15G00200_VIGENZA_20160123.xml": (4, 0),
    "vintra73__16G00218_ORIGINALE.xml": (12, 0),
    "vintra73__16G00218_VIGENZA_20161218.xml": (12, 0),
    "vintra73__16G00218_VIGENZA_20171111.xml": (12, 0),
    "vintra73__Act_with_subsections.xml": (8, 0),
    "vintra73__Act_without_subsections.xml": (4, 7),
}

_CACHE: dict[str, Act] = {}


def _act(testdata, name: str) -> Act:
    if name not in _CACHE:
        _CACHE[name] = parse_act((testdata / "normattiva-akn" / name).read_bytes())
    return _CACHE[name]


def test_expected_table_covers_every_capture(testdata):
    files = sorted(p.name for p in (testdata / "normattiva-akn").glob("*.xml"))
    assert files == sorted(EXPECTED)
    assert len(files) == 43


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_export_parses_with_expected_counts(testdata, name):
    act = _act(testdata, name)
    n_articles, n_annexes = EXPECTED[name]
    assert len(act.articles) == n_articles
    assert len(act.annexes) == n_annexes
    keys = [a.key for a in act.articles]
    assert len(set(keys)) == len(keys), "keys must be unique"
    assert all(keys), "no empty key"
    orders = [a.order for a in act.articles]
    assert orders == sorted(orders), "document order kept"
    ident = act.identity
    assert ident.urn and ident.urn.startswith("urn:nir:stato:")
    assert ident.eli and ident.eli.startswith("eli/id/")
    assert ident.monovigente is True
    assert ident.codice_redazionale and ident.codice_redazionale in ident.eli
    # Round-trips through msgspec (the index and the MCP layer serialise these).
    assert msgspec.json.decode(msgspec.json.encode(act), type=Act) == act


def test_identity_legge_241(testdata):
    ident = _act(testdata, "mcp-legal-it__legge_241_1990.xml").identity
    assert ident.urn == "urn:nir:stato:legge:1990-08-07;241"
    assert ident.eli == "eli/id/1990/08/18/090G0294/CONSOLIDATED/20260421"
    assert ident.act_type == "legge"
    assert ident.number == "241"
    assert ident.date == "1990-08-07"
    assert ident.year == 1990
    assert ident.version_date == "2026-04-21"
    assert ident.version == "CONSOLIDATED"
    assert ident.codice_redazionale == "090G0294"
    assert ident.gu_date == "1990-08-18"
    assert ident.title.startswith("Nuove norme in materia di procedimento amministrativo")


def test_identity_types_and_dates(testdata):
    cp = _act(testdata, "mcp-legal-it__codice_penale.xml").identity
    assert (cp.act_type, cp.number, cp.date) == ("regio.decreto", "1398", "1930-10-19")
    # FRBRExpression says 1931-07-01 for the codice penale: the version date comes from the ELI.
    assert cp.version_date == "2026-06-02" and cp.expression_date == "1931-07-01"
    assert _act(testdata, "scabopdf__codice_penale.xml").identity.version_date == "2026-05-07"
    cpp = _act(testdata, "scabopdf__codice_procedura_penale.xml").identity
    assert cpp.act_type == "decreto.del.presidente.della.repubblica"
    dl = _act(testdata, "ondata__25G00049.xml").identity
    assert dl.act_type == "decreto.legge"
    dlgs = _act(testdata, "mcp-legal-it__dlgs_231_2001.xml").identity
    assert dlgs.act_type == "decreto.legislativo"
    # The Costituzione has no act date in the export (FRBRdate 0000-00-00): date None, year
    # from the Gazzetta Ufficiale date.
    cost = _act(testdata, "mcp-legal-it__costituzione.xml").identity
    assert cost.act_type == "costituzione" and cost.date is None and cost.number is None
    assert cost.year == 1947 and cost.gu_date == "1947-12-27"
    # ORIGINAL exports carry no version date in the ELI.
    orig = _act(testdata, "vintra73__15G00200_ORIGINALE.xml").identity
    assert orig.version == "ORIGINAL" and orig.version_date is None


def test_codice_penale_articles_come_from_attachments(testdata):
    for name in ("mcp-legal-it__codice_penale.xml", "scabopdf__codice_penale.xml"):
        act = _act(testdata, name)
        art = act.article("575")
        assert art is not None and art.in_attachment
        assert art.heading == "Omicidio"
        assert art.num == "Art. 575."
        assert art.text.startswith("Chiunque cagiona la morte di un uomo")
        assert "AGGIORNAMENTO" not in art.text and "AGGIORNAMENTO (96)" in art.notes
        assert act.article("Art. 575") is art
        # The approving decree's own articles stay reachable, prefixed.
        dec = act.article("dec-1")
        assert dec is not None and not dec.in_attachment
        assert "codice penale" in dec.text and "approvato" in dec.text
        assert act.article("1").heading == "Reati e pene: disposizione espressa di legge"
        assert act.article("3-bis").heading == "Principio della riserva di codice"
        assert act.article("416 bis").heading == "Associazioni di tipo mafioso anche straniere"
    newer = _act(testdata, "mcp-legal-it__codice_penale.xml")
    older = _act(testdata, "scabopdf__codice_penale.xml")
    assert newer.article("518.1").heading == "Ulteriori pene accessorie"
    assert older.article("518.1") is None
    assert newer.article("452-bis.1").heading == "Commercio di prodotti inquinanti"


def test_costituzione(testdata):
    act = _act(testdata, "mcp-legal-it__costituzione.xml")
    assert act.article("2").text.startswith("La Repubblica riconosce")
    assert act.article("139").text.startswith("La forma repubblicana non puo' essere oggetto di revisione")
    body = [a for a in act.articles if not a.in_attachment]
    assert [a.key for a in body] == [str(i) for i in range(1, 140)]
    trans = [a for a in act.articles if a.in_attachment]
    assert [a.key for a in trans] == [f"disp-trans-{i}" for i in range(1, 19)]
    assert trans[-1].num == "XVIII"
    assert trans[0].text.startswith("Con l'entrata in vigore della Costituzione")
    assert "DISPOSIZIONI TRANSITORIE" not in trans[0].text
    assert act.article("XVIII") is trans[-1]
    assert act.article("disp. trans. XVIII") is trans[-1]
    assert act.article("disposizione transitoria 1") is trans[0]
    art115 = act.article("115")
    assert art115.repealed and art115.amended


def test_legge_241(testdata):
    act = _act(testdata, "mcp-legal-it__legge_241_1990.xml")
    art = act.article("21-septies")
    assert art is not None and art.heading == "Nullita' del provvedimento"
    assert act.article("Art. 21 septies") is art and act.article("21septies") is art
    art1 = act.article("1")
    assert art1.heading == "Principi generali dell'attivita' amministrativa"
    assert [c.num for c in art1.commi] == ["1", "1-bis", "1-ter", "2", "2-bis"]
    assert art1.commi[0].text.startswith("L'attivita' amministrativa persegue")
    # amendment markers out of the served text; the article stays flagged as amended
    assert art1.amended and "\n2-bis. I rapporti tra il cittadino" in art1.text and "((" not in art1.text
    assert act.article("31").repealed
    assert sum(a.repealed for a in act.articles) == 1
    # Accents stay as Normattiva writes them: no folding, no "correction".
    assert "facolta'" in act.article("7").text
    # A rubrica wrapped in amendment markers: cleaned heading, article flagged.
    art3 = act.article("3")
    assert art3.heading == "Motivazione del provvedimento" and art3.amended


def test_dlgs_231_article_25_bis_1_differs_between_dates(testdata):
    older = _act(testdata, "scabopdf__dlgs_231_2001.xml")
    newer = _act(testdata, "mcp-legal-it__dlgs_231_2001.xml")
    assert older.identity.version_date == "2026-01-24"
    assert newer.identity.version_date == "2026-06-02"
    a_old, a_new = older.article("25-bis.1"), newer.article("25 bis.1")
    assert a_old.heading == a_new.heading == "Delitti contro l'industria e il commercio"
    assert a_old.text != a_new.text
    assert "517-ter e 517-quater la sanzione" in a_old.text
    assert ", 517-quater e 517-octies, quarto comma," in a_new.text and "((" not in a_new.text
    assert [c.num for c in a_old.commi] == [c.num for c in a_new.commi] == ["1", "2"]
    assert older.article("25-undecies").text != newer.article("25-undecies").text


def test_codice_procedura_penale_keys(testdata):
    act = _act(testdata, "scabopdf__codice_procedura_penale.xml")
    # The approving D.P.R. prints its article as "Art. 01.": kept as key "01".
    assert act.article("01").text.startswith("1. E' approvato il testo del codice di procedura penale")
    assert act.article("1").heading == "Giurisdizione penale"
    # "Art. 33-novies." is printed "Art. 33-nonies." inside the text: same key.
    assert act.article("33-nonies") is act.article("33-novies")
    assert act.article("33-novies").heading == "Validita' delle prove acquisite"
    # Whole inserted article inside <heading>: split into rubrica and text.
    art = act.article("334-bis")
    assert art.heading.startswith("Esclusione dell'obbligo di denuncia") and "Il difensore" in art.text


def test_attachment_articles_of_annexes_do_not_shadow_the_act(testdata):
    act = _act(testdata, "alessionar__20230331_23G00044_VIGENZA_20230530.xml")
    assert not act.article("1").in_attachment
    ann = act.article("allegato-i.1-art-1")
    assert ann is not None and ann.in_attachment and ann.attachment == "Allegato I.1-art. 1"
    assert act.article("allegato-i.8-art-1").attachment == "Allegato I.8 - art. 1"
    ratif = _act(testdata, "vintra73__011G0245_ORIGINALE.xml")
    assert not ratif.article("1").in_attachment
    assert ratif.article("accordo-art-19").in_attachment


def test_repealed_and_amended_flags(testdata):
    cp = _act(testdata, "mcp-legal-it__codice_penale.xml")
    assert cp.article("141").repealed and cp.article("141").text.startswith("ARTICOLO ABROGATO")
    assert cp.article("21").repealed  # "ARTICOLO DA RITENERSI SOPPRESSO …"
    assert cp.article("519").repealed  # header printed as the doc name "Codice Penale-art. 519"
    assert not cp.article("575").repealed
    assert cp.article("2").amended and not cp.article("1").amended
    for act in (_act(testdata, n) for n in EXPECTED):
        for art in act.articles:
            if art.repealed:
                assert len(art.text) < 400, (art.key, art.text[:80])
                assert art.amended or "ABROGAT" in art.text.upper() or "SOPPRESS" in art.text.upper()


def test_whitespace_normalised_only(testdata):
    for name in ("mcp-legal-it__costituzione.xml", "mcp-legal-it__codice_penale.xml"):
        for art in _act(testdata, name).articles:
            assert "  " not in art.text and "\t" not in art.text
            assert art.text == art.text.strip()
    # Costituzione art. 1: its two commi are lines, not run together.
    assert _act(testdata, "mcp-legal-it__costituzione.xml").article("1").text == (
        "L'Italia e' una Repubblica democratica, fondata sul lavoro.\n"
        "La sovranita' appartiene al popolo, che la esercita nelle forme e nei limiti della Costituzione."
    )


def test_huge_single_article_act(testdata):
    act = _act(testdata, "scabopdf__legge_finanziaria_2007.xml")
    (art,) = act.articles
    assert art.key == "1" and len(art.text) > 500_000
    assert len(art.commi) > 1000


# ---------------------------------------------------------------------------- hostile input

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol9 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
]>
<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0"><act><body>
<article eId="art_1"><num>Art. 1.</num><paragraph><content><p>&lol9;</p></content></paragraph></article>
</body></act></akomaNtoso>"""

XXE = b"""<?xml version="1.0"?>
<!DOCTYPE akomaNtoso [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0"><act><body>
<article eId="art_1"><num>Art. 1.</num><paragraph><content><p>&xxe;</p></content></paragraph></article>
</body></act></akomaNtoso>"""

MINIMAL = b"""<?xml version="1.0" encoding="UTF-8"?>
<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0"><act name="monovigente"><body>
<article eId="art_1"><num>Art. 1.</num><heading>(Prova)</heading>
<paragraph eId="art_1__para_1"><num>1.</num><content><p>Testo   con
 spazi e la facolta' di ((modifica)).</p></content></paragraph></article>
</body></act></akomaNtoso>"""


@pytest.mark.parametrize("doc", [BILLION_LAUGHS, XXE], ids=["billion-laughs", "xxe"])
def test_entity_declarations_are_refused_not_expanded(doc):
    with pytest.raises(UpstreamChanged) as exc:
        parse_act(doc)
    assert "DOCTYPE" in exc.value.message
    with pytest.raises(InvalidArg):
        parse_act(doc, user_supplied=True)


@pytest.mark.parametrize(
    "doc",
    [b"", b"   ", b"not xml at all", b'{"json": true}', b"<root/>", b"<akomaNtoso/>",
     b'<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0"/>', b"<a><b></a>"],
)
def test_non_akn_input_gives_a_typed_error(doc):
    with pytest.raises(UpstreamChanged) as exc:
        parse_act(doc)
    assert exc.value.valid and "Akoma Ntoso" in exc.value.valid
    with pytest.raises(InvalidArg) as exc2:
        parse_act(doc, user_supplied=True)
    assert exc2.value.to_dict()["code"] == "invalid_arg"


def test_normattiva_error_page_is_not_available(testdata):
    page = (testdata / "normattiva-html" / "ondata__normattiva_error_page__legge_2022_53.html").read_bytes()
    with pytest.raises(NotAvailable):
        parse_act(page)


def test_minimal_document():
    act = parse_act(MINIMAL)
    (art,) = act.articles
    assert (art.key, art.num, art.heading) == ("1", "Art. 1.", "Prova")
    assert art.text == "1. Testo con\nspazi e la facolta' di modifica."
    assert art.commi[0].num == "1" and art.amended and not art.repealed
    assert act.identity.urn is None and act.identity.monovigente


# ---------------------------------------------------------------------------- article keys


@pytest.mark.parametrize(
    "raw, key",
    [
        ("2043", "2043"),
        ("Art. 2043", "2043"),
        ("art. 2043 c.c.", "2043"),
        ("Articolo 1, comma 2", "1"),
        ("Art. 21 septies", "21-septies"),
        ("21septies", "21-septies"),
        ("21-Septies", "21-septies"),
        ("ART. 416 BIS", "416-bis"),
        ("25 bis.1", "25-bis.1"),
        ("25-bis.1", "25-bis.1"),
        ("art_25bis1", "25-bis.1"),
        ("art_25-bis.1", "25-bis.1"),
        ("1-bis", "1-bis"),
        ("Art. 102-ter decies.", "102-terdecies"),
        ("518-duodevicies", "518-duodevicies"),
        ("10 undecies", "10-undecies"),
        ("33-nonies", "33-novies"),
        ("518.1", "518.1"),
        ("Art. 01.", "01"),
        ("disp. trans. XVIII", "disp-trans-18"),
        ("XVIII disp. trans.", "disp-trans-18"),
        ("disposizione transitoria I", "disp-trans-1"),
        ("disp-trans-18", "disp-trans-18"),
        ("dec-1", "dec-1"),
        ("allegato-i.1-art-1", "allegato-i.1-art-1"),
    ],
)
def test_normalize_article_key(raw, key):
    assert normalize_article_key(raw) == key


@pytest.mark.parametrize("raw", ["", "   ", "..."])
def test_normalize_article_key_rejects_empty(raw):
    with pytest.raises(InvalidArg) as exc:
        normalize_article_key(raw)
    assert isinstance(exc.value, ItEliError) and exc.value.valid


@given(st.text(max_size=30))
def test_normalize_article_key_is_idempotent(raw):
    try:
        once = normalize_article_key(raw)
    except InvalidArg:
        return
    assert normalize_article_key(once) == once


@given(
    st.integers(min_value=1, max_value=2999),
    st.sampled_from(["", "bis", "ter", "quater", "septies", "terdecies", "undevicies"]),
    st.sampled_from(["", "1", "2"]),
    st.sampled_from(["{n}{s}{d}", "Art. {n} {s}{d}", "art_{n}{s}{d}", "Articolo {n}-{s}{d}"]),
)
def test_normalize_article_key_spellings_meet(n, suffix, sub, pattern):
    canonical = str(n) + (f"-{suffix}" if suffix else "") + (f".{sub}" if sub else "")
    raw = pattern.format(n=n, s=suffix, d=("." + sub) if sub else "")
    assert normalize_article_key(raw) == canonical


def test_roman_numerals():
    assert roman_to_int("XVIII") == 18 and roman_to_int("iv") == 4
    assert roman_to_int("IIII") is None and roman_to_int("bis") is None
