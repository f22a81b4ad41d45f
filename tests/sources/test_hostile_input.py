"""Hostile input: anything a user, a document or an upstream can hand us.

Property-based (hypothesis) where the input space is open: the query parser compiled against a
real index, the citation extractor, the Akoma Ntoso parser on mutated real exports. Targeted
cases for XML entity attacks (no expansion, no request leaves), archives with path tricks and
bombs (the reader never writes a member anywhere), and URL tricks against the upstream
allow-list. The contract everywhere: a result or a typed `ItEliError`, never a crash or a hang.
"""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
import time
import zipfile

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from hypothesis import HealthCheck, given, settings, strategies as st

from it_eli.sources import ga
from it_eli.law.scanner.scan import extract_citations
from it_eli.runtime.config import load_settings
from it_eli.sources.cortecost import SourceReport, iter_source
from it_eli.runtime.errors import InvalidArg, ItEliError, QueryError
from it_eli.sources.http import check_url_allowed
from it_eli.sources.normattiva.akn.parser import parse_act
from it_eli.search.query import HitWindow
from it_eli.law.query import And, Not, Or, Term, parse_query
from tests.adversarial_text import ADVERSARIAL
from tests.conftest import REPO_ROOT

AKN_SMALL = ["scabopdf__legge_56_2007.xml", "vintra73__15G00200_VIGENZA_20160123.xml", "mcp-legal-it__legge_241_1990.xml"]
HYP = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


# ---------------------------------------------------------------- query parser


@pytest.fixture(scope="module")
def decisions(tmp_path_factory, testdata):
    from it_eli.search.decisions.reader import DecisionIndex
    from it_eli.search.decisions.build import build_index

    home = tmp_path_factory.mktemp("home")
    s = load_settings({"IT_ELI_HOME": str(home)})
    assert build_index(s, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"]).published
    return DecisionIndex(s)


QUERY_CHARS = st.sampled_from(list('abcèàù AND OR NOT -+"“”«»():*?~^[]{}/\\!&|\'.,;\t\n0123') + ["epigrafe:", "testo:", "xyz:"])


@HYP
@given(st.lists(QUERY_CHARS, max_size=60).map("".join) | st.text(max_size=120))
def test_any_query_gives_hits_or_a_typed_error(decisions, text):
    try:
        res = decisions.search(text, window=HitWindow(size=5))
    except (QueryError, InvalidArg) as exc:
        assert exc.to_dict()["code"] in ("query_error", "invalid_arg") and exc.valid
        return
    assert res.total >= 0 and len(res.hits) <= 5


def _terms(node):
    if isinstance(node, Term):
        yield node
    elif isinstance(node, Not):
        yield from _terms(node.child)
    elif isinstance(node, (And, Or)):
        for c in node.children:
            yield from _terms(c)


@HYP
@given(st.text(max_size=200))
def test_fields_come_only_from_field_prefixes_in_the_text(text):
    try:
        parsed = parse_query(text)
    except (QueryError, InvalidArg):
        return
    for t in _terms(parsed.root):
        if t.field is not None:
            assert f"{t.field}:" in text.lower()
        assert t.text in text  # a term is always a piece of what the user wrote, verbatim


# Characters that carry syntax in Tantivy's (and Lucene's) own query language. Here they must be
# plain characters: appended to a word they change nothing (no wildcard, fuzzy, boost, range, regex).
# (Digits are excluded: "word~2" is the two words "word" and "2", a legitimate phrase.)
TANTIVY_SYNTAX = list("*?~^[]{}/\\!") + ["*:*", "[*]", "/.*/", "~^*", "{*}"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["ordinanza", "giudizio", "legittimita", "tribunale", "questione", "zzzz"]), st.sampled_from(TANTIVY_SYNTAX))
def test_tantivy_syntax_in_user_text_is_inert(decisions, word, syntax):
    plain = decisions.search(word, window=HitWindow(size=50))
    for text in (word + syntax, syntax + word, f"{word} {syntax}"):
        try:
            res = decisions.search(text, window=HitWindow(size=50))
        except QueryError:
            continue  # e.g. "*:*" alone is no word: refused, never "match everything"
        if text in (word + "*", word + "~"):
            # our own prefix / spelling-distance syntax: it widens the word, never changes structure
            assert {h.ecli for h in plain.hits} <= {h.ecli for h in res.hits}, text
            continue
        assert [h.ecli for h in res.hits] == [h.ecli for h in plain.hits], text
    with pytest.raises(QueryError):
        decisions.search("*:*")


def test_a_quoted_phrase_stays_one_term_whatever_it_holds():
    inside = "a OR b AND NOT (c) -d field:e * ~ ^ [x TO y]"
    parsed = parse_query(f'"{inside}"')
    assert parsed.root == Term(inside, phrase=True)


# ---------------------------------------------------------------- citation extractor

FRAGMENTS = [
    "art. 2043 c.c.", "artt. 1, 2 e 3 della l. 241/1990", "d.lgs. 8 giugno 2001, n. 231", "Cass., sez. III, n. 1/2020",
    "ECLI:IT:COST:2014:238", "comma 2 dell'art. 5", "del medesimo decreto", "T.A.R. Lazio, Roma", "((", "art. ",
    " ", "\n", "n. ", "l. ", "cit.", "ss.", "(vedi sopra)", "2024", "bis", "à", "\u00a0",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=80).map("".join))
def test_extractor_on_composed_legal_fragments(text):
    for c in extract_citations(text):
        assert text[c.start : c.end] == c.raw and 0 <= c.start < c.end <= len(text)


# One child runs the extractor over every adversarial shape and names each before starting it, so
# a hang is reported with its shape. How the time grows with the length (n vs 8n) is measured by
# `python -m benchmarks citations`; here a linear scan of all shapes takes seconds, a quadratic one
# over GUARDED_SIZE characters (~10^10 steps per shape) minutes, a catastrophic one never ends.
GUARDED_SIZE = 250_000
HANG_GUARD_S = 300
_EXTRACT_ALL = """
import sys
from it_eli.law.scanner import extract_citations
from tests.adversarial_text import ADVERSARIAL, adversarial_text
for name in ADVERSARIAL:
    print(name, flush=True)
    text = adversarial_text(name, int(sys.argv[1]))
    for c in extract_citations(text):
        assert text[c.start : c.end] == c.raw, (name, c)
print("done", flush=True)
"""


def test_extractor_finishes_on_long_adversarial_input():
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    try:
        out = subprocess.run([sys.executable, "-c", _EXTRACT_ALL, str(GUARDED_SIZE)], cwd=REPO_ROOT, env=env,
                             capture_output=True, text=True, timeout=HANG_GUARD_S)
    except subprocess.TimeoutExpired as exc:
        started = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        pytest.fail(f"the extractor hung on {started.splitlines()[-1:]} ({GUARDED_SIZE:,} chars)")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == [*ADVERSARIAL, "done"]


# ---------------------------------------------------------------- Akoma Ntoso parser


def _parse_ok_or_typed(doc: bytes) -> None:
    for user in (False, True):
        try:
            parse_act(doc, user_supplied=user)
        except ItEliError:
            pass


@pytest.fixture(scope="module")
def exports(testdata):
    return [(testdata / "normattiva-akn" / n).read_bytes() for n in AKN_SMALL]


@HYP
@given(st.data())
def test_mutated_real_exports_parse_or_fail_typed(exports, data):
    doc = bytearray(data.draw(st.sampled_from(exports)))
    kind = data.draw(st.sampled_from(["flip", "truncate", "inject", "splice"]))
    pos = data.draw(st.integers(0, len(doc) - 1))
    if kind == "flip":
        for _ in range(data.draw(st.integers(1, 8))):
            i = data.draw(st.integers(0, len(doc) - 1))
            doc[i] = data.draw(st.integers(0, 255))
    elif kind == "truncate":
        del doc[pos:]
    elif kind == "inject":
        doc[pos:pos] = data.draw(st.sampled_from([
            b'<!DOCTYPE a [<!ENTITY x "y">]>', b"<!ENTITY x SYSTEM 'file:///etc/passwd'>", b"&x;", b"<![CDATA[",
            b"<?xml version='1.0'?>", b"\x00\x00", b"</act>", b"<article>", b"\xff\xfe", b"<!--",
        ]))
    else:
        j = data.draw(st.integers(0, len(doc) - 1))
        doc[pos:pos] = doc[j : j + 500]
    started = time.monotonic()
    _parse_ok_or_typed(bytes(doc))
    assert time.monotonic() - started < 30  # a hang guard; parsing takes well under a second


AKN_HEAD = b'<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0"><act name="monovigente"><body><article eId="art_1"><num>Art. 1.</num><paragraph><content>'
AKN_TAIL = b"</content></paragraph></article></body></act></akomaNtoso>"


@pytest.mark.parametrize("depth", [200, 5000, 200_000])
def test_deep_nesting_is_a_parse_or_typed_error(depth):
    _parse_ok_or_typed(AKN_HEAD + b"<p>" * depth + b"x" + b"</p>" * depth + AKN_TAIL)


@pytest.mark.parametrize("depth", [1200, 2000])
def test_nesting_just_under_the_parser_limit_is_typed(depth):
    _parse_ok_or_typed(AKN_HEAD + b"<p>" * depth + b"x" + b"</p>" * depth + AKN_TAIL)


@pytest.fixture
async def canary():
    """A local server that must receive nothing: external entities point at it."""
    hits: list[str] = []

    async def any_(request):
        hits.append(request.path)
        return web.Response(text="SECRET-FROM-CANARY")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", any_)
    srv = TestServer(app, host="127.0.0.1")
    await srv.start_server()
    yield str(srv.make_url("")).rstrip("/"), hits
    await srv.close()


def _entity_docs(url: str) -> list[bytes]:
    akn = b'<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0"><act><body><article eId="art_1"><num>Art. 1.</num><paragraph><content><p>&x;</p></content></paragraph></article></body></act></akomaNtoso>'
    ga_ = b"<GA><Provvedimento><epigrafe><div>&x;</div></epigrafe></Provvedimento></GA>"
    decls = [
        f'<!DOCTYPE a [<!ENTITY x SYSTEM "{url}/xxe">]>'.encode(),
        b'<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
        f'<!DOCTYPE a [<!ENTITY % p SYSTEM "{url}/param"> %p; <!ENTITY x "y">]>'.encode(),
        f'<!DOCTYPE a SYSTEM "{url}/dtd">'.encode(),
        b'<!DOCTYPE a [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">'
        b'<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY x "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">]>',
    ]
    out = []
    for d in decls:
        out += [b'<?xml version="1.0"?>\n' + d + b"\n" + akn, b'<?xml version="1.0"?>\n' + d + b"\n" + ga_]
    return out


async def test_xml_entities_never_expand_nor_fetch(canary):
    url, hits = canary
    for doc in _entity_docs(url):
        if b"<GA>" in doc:
            try:
                _, text, _ = ga.parse_decision_xml(doc)
            except ItEliError:
                continue
            assert "root:" not in text and "SECRET" not in text and len(text) < 1000
        else:
            with pytest.raises(ItEliError) as exc:
                parse_act(doc)
            assert "DOCTYPE" in exc.value.message
    assert hits == []


# ---------------------------------------------------------------- archives


def _zip(members: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in members:
            z.writestr(info, data)
    return buf.getvalue()


RECORD = b'{"elenco_pronunce": [{"anno_pronuncia": "2001", "numero_pronuncia": "7", "tipologia_pronuncia": "O", "testo": "x"}]}'


def _symlink(name: str, target: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _snapshot(root) -> set[str]:
    return {os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs}


def test_archive_path_tricks_are_harmless_and_nothing_is_written(tmp_path, monkeypatch):
    """Member names are labels only: the reader never extracts, so no name can write anywhere."""
    work = tmp_path / "work" / "deep"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    inner = _zip([("../../../escaped.json", RECORD)])
    archive = tmp_path / "tricks.zip"
    archive.write_bytes(_zip([
        ("../../etc/it_eli_x.json", RECORD),
        ("/tmp/it_eli_abs.json", RECORD),
        ("..\\..\\win.json", RECORD),
        (_symlink("link.json", "/etc/passwd"), b"/etc/passwd"),
        (_symlink("link2.zip", "../../../../"), b"../../../../"),
        ("nested/../../inner.zip", inner),
    ]))
    before = _snapshot(tmp_path)
    report = SourceReport(source=str(archive))
    decisions = list(iter_source(archive, report))
    assert _snapshot(tmp_path) == before
    assert not os.path.exists("/etc/it_eli_x.json") and not os.path.exists("/tmp/it_eli_abs.json")
    # the symlink "members" were read as their stored bytes (a path string), never followed
    assert all("root:" not in d.testo for d in decisions)
    assert len(decisions) == 4 and report.errors  # four JSON records; the bogus link2.zip reported


def test_nested_archive_depth_bomb_is_refused(tmp_path):
    data = RECORD
    name = "Cc.json"
    for i in range(12):
        data, name = _zip([(name, data)]), f"level{i}.zip"
    archive = tmp_path / "deep.zip"
    archive.write_bytes(data)
    report = SourceReport(source=str(archive))
    assert list(iter_source(archive, report)) == []
    assert any("nested deeper" in e for e in report.errors)


def test_member_lying_about_its_size_is_refused(tmp_path):
    """A header that declares a small size for a big member (classic bomb trick)."""
    archive = tmp_path / "liar.zip"
    archive.write_bytes(_zip([("Cc.json", b" " * (20 * 1024 * 1024))]))
    raw = bytearray(archive.read_bytes())
    # patch the declared uncompressed size (local header at 22, central directory at +24) to 1000
    lh = raw.find(b"PK\x03\x04")
    raw[lh + 22 : lh + 26] = (1000).to_bytes(4, "little")
    cd = raw.find(b"PK\x01\x02")
    raw[cd + 24 : cd + 28] = (1000).to_bytes(4, "little")
    archive.write_bytes(bytes(raw))
    report = SourceReport(source=str(archive))
    started = time.monotonic()
    assert list(iter_source(archive, report)) == []
    assert report.errors and time.monotonic() - started < 30  # a hang guard, not a speed check


# ---------------------------------------------------------------- URL allow-list

SETTINGS = load_settings({"IT_ELI_HOME": "/nonexistent-it-eli-home"})
ALLOWED = SETTINGS.allowed_hosts


@pytest.mark.parametrize(
    "url",
    [
        "https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:legge:1990-08-07;241",
        "https://WWW.NORMATTIVA.IT/x",
        "https://www.normattiva.it:443/x",
        "https://mdp.giustizia-amministrativa.it/visualizza/?x=1",
        "https://dati.cortecostituzionale.it/opendata/distribuzione/pronunce/P_json2001_oggi.zip",
    ],
)
def test_allow_list_accepts_the_configured_upstreams(url):
    assert check_url_allowed(url, ALLOWED) == url


@pytest.mark.parametrize(
    "url",
    [
        "ftp://www.normattiva.it/x", "file:///etc/passwd", "javascript:alert(1)", "gopher://www.normattiva.it/",
        "data:text/html,hi", "//www.normattiva.it/x", "www.normattiva.it/x",
        "http://www.normattiva.it/x",  # http is another port (80) than the configured https
        "https://www.normattiva.it:8443/x", "https://www.normattiva.it:0/x", "https://www.normattiva.it:99999/x",
        "https://user@www.normattiva.it/", "https://user:pw@www.normattiva.it/", "https://www.normattiva.it@evil.com/",
        "https://evil.com#@www.normattiva.it/", "https://evil.com?@www.normattiva.it/",
        "https://www.normattiva.it\\@evil.com/", "https://evil.com\\.www.normattiva.it/",
        "https://www.normattiva.it.evil.com/", "https://evilwww.normattiva.it/", "https://normattiva.it/",
        "https://www.normattiva.it./x",
        "https://www.normattivа.it/",  # Cyrillic a: an IDN look-alike
        "https://xn--www.normattiv-uwe.it/",  # punycode of a look-alike
        "https://www。normattiva。it/",  # ideographic full stops (IDNA maps them to dots)
        "https://ｗｗｗ.normattiva.it/",  # full-width letters (NFKC maps them to ASCII)
        "https://www.normattiva.it\t.evil.com/", "https://www.normattiva.it\n/", " https://www.normattiva.it/",
        "https://www.normattiva.it /x", "https://www.normattiva.it\x00.evil.com/",
        "https://127.0.0.1/", "https://[::1]/", "https://2130706433/", "https://0x7f000001/",
        "https://[www.normattiva.it]/", "https://www.normattiva.it:443:80/", "", "https://", "http:///x",
    ],
)
def test_allow_list_refuses_tricks(url):
    with pytest.raises(InvalidArg) as exc:
        check_url_allowed(url, ALLOWED)
    assert exc.value.valid


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_allow_list_never_lets_an_unconfigured_host_through(tail):
    """Whatever follows the scheme, an accepted URL's host:port is one of the configured ones."""
    url = "https://" + tail
    try:
        check_url_allowed(url, ALLOWED)
    except InvalidArg:
        return
    from urllib.parse import urlsplit

    import yarl

    parts = urlsplit(url)
    assert f"{parts.hostname}:{parts.port or 443}" in ALLOWED
    y = yarl.URL(url)  # what aiohttp will connect to agrees with what was checked
    assert f"{y.host}:{y.port}" in ALLOWED


@pytest.fixture
async def evil():
    hits: list[str] = []

    async def any_(request):
        hits.append(request.path_qs)
        return web.Response(text="<GA><Provvedimento><epigrafe><div>pwned</div></epigrafe></Provvedimento></GA>")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", any_)
    srv = TestServer(app, host="127.0.0.1")
    await srv.start_server()
    yield srv, hits
    await srv.close()


async def test_ga_get_decision_refuses_every_foreign_url_without_a_request(evil, make_settings):
    """Through the registered tool, as a client calls it: all refused, the other host untouched."""
    from it_eli.services.app import App
    from it_eli.mcp.tools.registry import call

    srv, hits = evil
    port = srv.port
    q = "?nodeRef=&schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html&subDir=Provvedimenti"
    app = App(make_settings())
    try:
        for url in [
            f"http://127.0.0.1:{port}/visualizza/{q}",
            f"https://mdp.giustizia-amministrativa.it@127.0.0.1:{port}/visualizza/{q}",
            f"https://mdp.giustizia-amministrativa.it\\@127.0.0.1:{port}/visualizza/{q}",
            f"https://127.0.0.1:{port}#@mdp.giustizia-amministrativa.it/visualizza/{q}",
            f"https://mdp.giustizia-amministrativa.it:{port}/visualizza/{q}",
            f"https://mdp.giustizia-amministrativa.it.127.0.0.1.nip.io/visualizza/{q}",
            f"https://mdp.giustizia-amministrativа.it/visualizza/{q}",
            f"https://mdp.giustizia-amministrativa.it/visualizza/{q}&next=http://127.0.0.1:{port}/",
            f"https://mdp.giustizia-amministrativa.it/visualizza/?nodeRef=http://127.0.0.1:{port}/&schema=tar_rm&nrg=1&nomeFile=1_01.html",
            f"HTTPS://MDP.GIUSTIZIA-AMMINISTRATIVA.IT/visualizza/../../{port}{q}",
        ]:
            is_error, out = await call(app, "it_ga_get_decision", {"document_url": url})
            assert is_error and out["code"] == "invalid_arg", (url, out)
    finally:
        await app.close()
    assert hits == []
