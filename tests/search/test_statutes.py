"""The local statute index (StatuteStore) on the real Akoma Ntoso exports: import, versions,
lookups, cross-process writes, schema-version mismatch and rebuild, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from it_eli.services.app import App
from it_eli.runtime.config import load_settings
from it_eli.runtime.errors import IndexSchemaMismatch
from it_eli.law.urn import parse_urn
from it_eli.search.query import HitWindow
from it_eli.search.schema import META_FILE
from it_eli.search.statutes.store import StatuteStore
from it_eli.search.statutes.loading import import_files
from it_eli.mcp.tools.registry import call

from tests.conftest import REPO_ROOT

AKN = "normattiva-akn/"
L241 = "urn:nir:stato:legge:1990-08-07;241"
D231 = "urn:nir:stato:decreto.legislativo:2001-06-08;231"
CP = "urn:nir:stato:regio.decreto:1930-10-19;1398"
COST = "urn:nir:stato:costituzione"
SET_A = ["mcp-legal-it__codice_penale.xml", "mcp-legal-it__costituzione.xml", "scabopdf__dlgs_231_2001.xml"]
SET_B = ["mcp-legal-it__legge_241_1990.xml", "mcp-legal-it__dlgs_231_2001.xml", "scabopdf__codice_penale.xml",
         "ondata__CAD_dlgs82-2005__005G0104_VIGENZA_20250130.xml"]


def files(testdata, names):
    return [str(testdata / AKN / n) for n in names]


@pytest.fixture
def store(testdata, make_settings):
    settings = make_settings()
    rep = import_files(settings, files(testdata, SET_A + SET_B))
    assert rep.errors == [] and rep.acts == 7
    return StatuteStore(settings)


def test_import_and_versions(store):
    assert set(store.list_acts()) >= {L241, D231, CP, COST}
    vs = store.versions(D231)
    assert [v.version for v in vs] == ["2026-06-02", "2026-01-24"]  # newest first
    assert vs[0].eli == "eli/id/2001/06/19/001G0293/CONSOLIDATED/20260602"
    assert store.choose_version(D231, "2026-03-01").version == "2026-01-24"
    assert store.choose_version(D231, "2025-01-01") is None
    cp = store.versions(CP, with_keys=True)[0]
    assert cp.version == "2026-06-02" and "575" in cp.keys and cp.article_count == len(cp.keys)
    assert store.versions("urn:nir:stato:legge:2099-01-01;1") == []


def test_article_lookups(store, testdata):
    a = store.get_article(COST, "3", store.versions(COST)[0].version)
    assert a.text.startswith("Tutti i cittadini hanno pari dignita' sociale")
    assert a.source_url.startswith("https://www.normattiva.it/uri-res/N2Ls?" + COST)
    cands = store.article_candidates(D231, "25-bis.1")
    assert [c.version for c in cands] == ["2026-06-02", "2026-01-24"] and cands[0].text != cands[1].text
    assert store.article_candidates(CP, "art. 575")[0].heading == "Omicidio"
    assert store.find_full_urn(parse_urn("urn:nir:stato:legge:1990;241")) == L241
    assert store.find_urn_by_eli("eli/id/1990/08/18/090G0294/CONSOLIDATED") == L241
    raw = store.raw_xml(L241, "2026-04-21")
    assert raw == (testdata / AKN / "mcp-legal-it__legge_241_1990.xml").read_bytes()


def test_single_article_kept_beside_exports(store):
    store.add_single_article(
        urn=L241, key="2", heading="Conclusione del procedimento", text="testo dall'API", in_force_from="2026-05-01",
        in_force_to=None, repealed=False, act_title="t", act_type="legge", act_number="241", act_date="1990-08-07",
        act_year=1990, eli=None, source_url="https://www.normattiva.it/x",
    )
    cands = store.article_candidates(L241, "2")
    assert [(c.kind, c.version) for c in cands] == [("article", "2026-05-01"), ("act", "2026-04-21")]
    assert store.versions(L241)[0].article_count == 51  # single articles are not act versions


def test_search(store):
    res = store.search("omicidio", urn=CP)
    assert res.hits[0].article == "575" and res.hits[0].human_readable_citation == "art. 575 c.p."
    assert len({(h.urn, h.article) for h in res.hits}) == len(res.hits)  # one hit per article, not per version
    res = store.search("conclusione del procedimento")
    assert (L241, "2") in [(h.urn, h.article) for h in res.hits[:3]]


def test_search_sees_one_text_per_article_in_force_on_the_day(store):
    """Two cached versions of D.Lgs. 231/2001 (2026-01-24, 2026-06-02) and a single article from
    the API: a search finds each article once, in its text in force that day; total counts articles."""
    res = store.search("reati ambientali", urn=D231, window=HitWindow(size=50))
    assert res.hits[0].article == "25-undecies" and {h.in_force_date for h in res.hits} == {"2026-06-02"}
    assert len({h.article for h in res.hits}) == len(res.hits)
    old = store.search("reati ambientali", urn=D231, window=HitWindow(size=50), at_date="2026-02-01")
    assert {h.in_force_date for h in old.hits} == {"2026-01-24"} and old.total == res.total
    assert store.search("reati ambientali", urn=D231, at_date="2025-01-01").total == 0  # nothing cached in force then
    # an API article newer than the export replaces the export's copy; a future one replaces nothing
    for start, text in (("2026-07-01", "nuovo testo sugli illeciti ambientali"), ("2099-01-01", "testo futuro ambientali")):
        store.add_single_article(
            urn=D231, key="25-undecies", heading="Reati ambientali", text=text, in_force_from=start, in_force_to=None,
            repealed=False, act_title="t", act_type="decreto.legislativo", act_number="231", act_date="2001-06-08",
            act_year=2001, eli=None, source_url="https://www.normattiva.it/x",
        )
    now = store.search("ambientali", urn=D231, window=HitWindow(size=50))
    hit = next(h for h in now.hits if h.article == "25-undecies")
    assert hit.in_force_date == "2026-07-01" and [h.article for h in now.hits].count("25-undecies") == 1


def test_version_coverage(store, testdata):
    """A cached version settles only the days it covers (StatuteStore.covers)."""
    from it_eli.sources.normattiva.akn.parser import parse_act

    today = "2026-11-29"
    vs = store.versions(D231)
    new, old = vs
    assert store.covers(vs, old, "2026-01-24", today)  # its first day
    assert not store.covers(vs, old, "2026-02-01", today)  # a later day: a version in between may exist
    assert store.covers(vs, new, "2026-07-01", today)  # the newest, imported (current) and fresh
    assert store.covers(vs, new, today, today, now=True) and not store.covers(vs, old, today, today, now=True)
    # an export fetched for a past day (not current) covers up to that day only, and keeps that knowledge
    act = parse_act((testdata / AKN / "scabopdf__dlgs_231_2001.xml").read_bytes())
    store.add_act(act, source_url="https://www.normattiva.it/x", current=False, as_of="2026-03-01")
    vs = store.versions(D231)
    old = next(v for v in vs if v.version == "2026-01-24")
    assert old.known_to == "2026-03-01" and store.covers(vs, old, "2026-02-01", today)
    assert not store.covers(vs, old, "2026-03-02", today)


def test_search_snippet_of_a_huge_article_is_bounded(testdata, make_settings):
    """L. 296/2006 art. 1 is ~1 M characters: the hit shows a short passage, not the article.
    (How long the search takes: `python -m benchmarks statutes`.)"""
    settings = make_settings()
    import_files(settings, files(testdata, ["scabopdf__legge_finanziaria_2007.xml"]))
    res = StatuteStore(settings).search("assenso")
    assert res.hits and res.hits[0].article == "1"
    assert 0 < len(res.hits[0].snippet) < 1000


def test_import_refuses_bad_files(make_settings, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<html>no</html>")
    rep = import_files(make_settings(), [str(bad), str(tmp_path / "missing.xml")])
    assert rep.acts == 0 and len(rep.errors) == 2


def test_reader_sees_commits_of_another_store(testdata, make_settings):
    """A long-lived reader (the server) sees another writer's commit without reopening."""
    settings = make_settings()
    reader, writer = StatuteStore(settings), StatuteStore(settings)
    assert reader.versions(L241) == [] and reader.list_acts() == []
    import_files(settings, files(testdata, ["mcp-legal-it__legge_241_1990.xml"]))
    assert writer is not reader
    assert [v.version for v in reader.versions(L241)] == ["2026-04-21"] and reader.list_acts() == [L241]


_WORKER = textwrap.dedent("""
    import sys
    from it_eli.runtime.config import load_settings
    from it_eli.search.statutes.loading import import_files
    from it_eli.search.statutes.store import StatuteStore
    settings = load_settings()
    rep = import_files(settings, sys.argv[2:])
    assert not rep.errors, rep.errors
    store = StatuteStore(settings)
    tag = sys.argv[1]
    for i in range(15):
        store.add_single_article(urn="urn:nir:stato:legge:2000-01-01;" + tag, key=str(i + 1), heading=None,
            text="testo " + tag, in_force_from="2020-01-01", in_force_to=None, repealed=False, act_title=None,
            act_type="legge", act_number=tag, act_date="2000-01-01", act_year=2000, eli=None, source_url="x")
    print(rep.articles)
""")


def test_two_processes_writing_one_home_lose_nothing(testdata, tmp_path):
    home = tmp_path / "shared_home"
    env = {**os.environ, "IT_ELI_HOME": str(home), "IT_ELI_LOG_LEVEL": "WARNING"}
    procs = [
        subprocess.Popen([sys.executable, "-c", _WORKER, tag, *files(testdata, names)], env=env, cwd=REPO_ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for tag, names in (("1", SET_A), ("2", SET_B))
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    store = StatuteStore(load_settings({"IT_ELI_HOME": str(home)}))
    assert sum(int(o) for o, _ in outs) == sum(v.article_count for u in store.list_acts() for v in store.versions(u))
    assert [v.version for v in store.versions(D231)] == ["2026-06-02", "2026-01-24"]  # one from each process
    assert [v.version for v in store.versions(CP)] == ["2026-06-02", "2026-05-07"]
    for tag in ("1", "2"):
        for i in range(1, 16):
            assert store.article_candidates(f"urn:nir:stato:legge:2000-01-01;{tag}", str(i))


def _tamper_schema_version(settings) -> None:
    store = StatuteStore(settings)
    meta_path = store.idir.current() / META_FILE
    meta = json.loads(meta_path.read_text())
    meta["schema_version"] = 0
    meta_path.write_text(json.dumps(meta))


async def test_schema_mismatch_then_rebuild(testdata, make_settings):
    settings = make_settings(normattiva_url="http://127.0.0.1:9", normattiva_api_url="http://127.0.0.1:9/api")
    import_files(settings, files(testdata, ["mcp-legal-it__legge_241_1990.xml", "scabopdf__dlgs_231_2001.xml"]))
    _tamper_schema_version(settings)
    app = App(settings)
    try:
        err, p = await call(app, "it_get_text", {"reference": "l. 241/1990", "article": "2"})
        assert err and p["code"] == "index_schema_mismatch" and "it-eli statutes rebuild" in p["valid"]
        with pytest.raises(IndexSchemaMismatch):
            StatuteStore(settings).list_acts()
        assert StatuteStore(settings).rebuild() == 51 + 109
        err, p = await call(app, "it_get_text", {"reference": "l. 241/1990", "article": "2"})
        assert not err and p["served_from"] == "local_index" and p["heading"] == "Conclusione del procedimento"
        err, p = await call(app, "it_get_text", {"reference": D231, "article": "25-bis.1", "at_date": "2026-01-24"})
        assert not err and p["in_force_date"] == "2026-01-24"
    finally:
        await app.close()


def test_cli_import_and_rebuild(testdata, tmp_path):
    env = {**os.environ, "IT_ELI_HOME": str(tmp_path / "h"), "IT_ELI_LOG_LEVEL": "WARNING"}
    run = lambda *a: subprocess.run([sys.executable, "-m", "it_eli", *a], env=env, cwd=REPO_ROOT,  # noqa: E731
                                    capture_output=True, text=True, timeout=300)
    r = run("statutes", "import", *files(testdata, ["mcp-legal-it__legge_241_1990.xml"]))
    assert r.returncode == 0 and "imported 51 articles from 1 acts" in r.stdout, r.stderr
    _tamper_schema_version(load_settings({"IT_ELI_HOME": env["IT_ELI_HOME"]}))
    r = run("tool", "it_get_text", json.dumps({"reference": "l. 241/1990", "article": "2"}))
    assert r.returncode == 4 and json.loads(r.stdout)["code"] == "index_schema_mismatch"  # unavailable
    r = run("statutes", "rebuild")
    assert r.returncode == 0 and "51 articles" in r.stdout, r.stderr
    r = run("tool", "it_get_text", json.dumps({"reference": "l. 241/1990", "article": "2"}))
    assert r.returncode == 0 and json.loads(r.stdout)["served_from"] == "local_index"


async def test_search_pages_through_every_article_once(store):
    """`total` articles are all reachable: pages of 3 via next_offset, none twice, none missing."""
    app = App(store.settings)
    try:
        err, first = await call(app, "it_search_statutes", {"query": "procedimento", "limit": 3})
        assert not err and first["total"] > 3 and first["next_offset"] == 3
        seen, offset = [], 0
        while offset is not None:
            err, page = await call(app, "it_search_statutes", {"query": "procedimento", "limit": 3, "offset": offset})
            assert not err and page["total"] == first["total"]
            seen += [(h["urn"], h["article"]) for h in page["hits"]]
            offset = page["next_offset"]
    finally:
        await app.close()
    assert len(seen) == len(set(seen)) == first["total"]


def test_a_window_of_statute_hits_is_the_same_slice_of_the_ranking(store):
    """The index loads the window it is given: hits 3-5 are the 4th to 6th of the whole list."""
    whole = [(h.urn, h.article) for h in store.search("procedimento", window=HitWindow(size=20)).hits]
    window = store.search("procedimento", window=HitWindow(start=3, size=3))
    assert [(h.urn, h.article) for h in window.hits] == whole[3:6]
    assert (window.offset, window.limit, window.next_offset) == (3, 3, None)  # next_offset: the tool's


def test_index_built_before_clean_text_is_refused_then_rebuilt_clean(testdata, make_settings):
    """An index written before the text lost its (( )) markers and note numbers (schema v4)
    holds the old text: it is refused with the rebuild command, and the rebuild re-reads the
    kept exports into the clean text."""
    import msgspec

    from it_eli.sources.normattiva.akn.parser import parse_act

    settings = make_settings()
    raw = (testdata / AKN / "scabopdf__codice_penale.xml").read_bytes()
    act = parse_act(raw)
    old = act.article("575")
    dirty = msgspec.structs.replace(old, text=old.text + " (96) (125) ((233))")
    act = msgspec.structs.replace(act, articles=[dirty if a.key == "575" else a for a in act.articles])
    store = StatuteStore(settings)
    store.add_act(act, source_url="https://www.normattiva.it/x", raw_xml=raw)
    meta_path = store.idir.current() / META_FILE
    meta = json.loads(meta_path.read_text())
    meta["schema_version"] = 4  # as written before the text hygiene
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(IndexSchemaMismatch) as exc:
        StatuteStore(settings).search("omicidio")
    assert "it-eli statutes rebuild" in exc.value.valid and "version 4" in exc.value.message
    fresh = StatuteStore(settings)
    assert fresh.rebuild() == len(act.articles)
    text = fresh.article_candidates(CP, "575")[0].text
    assert text.endswith("reclusione non inferiore ad anni ventuno.") and "((" not in text
