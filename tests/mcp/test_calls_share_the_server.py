"""One server, many clients: heavy work off the loop, per-client caps, a deadline for every call,
and upstream answers that cannot take a whole call down.

Upstreams are real local HTTP servers: one that accepts and never answers, one that answers JSON
nested 1,000 deep.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from it_eli.services.app import App
from it_eli.runtime.errors import InvalidArg
from it_eli.search.statutes.loading import import_files
from it_eli.mcp.tools.registry import TOOLS, call, decode_args
from it_eli.mcp.tools.verify import verify_answer
from it_eli.runtime.workers import Busy, ClientGate

SELECT = "/sncass/isapi/hc.dll/sn.solr/sn-collection/select"
PARA = ("Ai sensi dell'art. 2043 c.c. e dell'art. 3 della legge 7 agosto 1990, n. 241, come chiarito da Cass. civ., "
        "sez. III, n. 12345/2019 e dalla sentenza n. 238 del 2014 della Corte costituzionale, nonché dall'art. 24 "
        "Cost., il danno va risarcito. ")



@pytest.fixture
async def deep_json():
    """SentenzeWeb's Solr path answering JSON nested 1,000 deep."""
    body = b'{"responseHeader":' * 1000 + b"1" + b"}" * 1000

    async def select(request):
        return web.Response(body=body, content_type="application/json")

    app = web.Application()
    app.router.add_route("*", SELECT, select)
    server = TestServer(app)
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


def _all_upstreams(base: str) -> dict[str, str]:
    return {
        "sentenzeweb_url": base + "/sncass", "normattiva_url": base, "normattiva_api_url": base + "/api/v1",
        "ga_url": base, "ga_document_url": base, "cortecost_opendata_url": base + "/opendata/",
    }


# ---------------------------------------------------------------- the loop stays free


async def test_a_megabyte_verification_leaves_the_event_loop_free(make_settings):
    """While a 1 MB text is verified, a heartbeat on the same loop keeps beating: its longest
    silence is a small part of what extracting the citations alone takes (measured here, so the
    comparison holds on a loaded machine)."""
    from it_eli.law.scanner.scan import extract_citations

    text = (PARA * (1_000_000 // len(PARA)))[:1_000_000]
    t = time.perf_counter()
    extract_citations(text)
    extraction = time.perf_counter() - t

    app = App(make_settings(auto_build="0"))
    gaps: list[float] = []

    async def heartbeat(stop: asyncio.Event):
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    try:
        stop = asyncio.Event()
        beat = asyncio.create_task(heartbeat(stop))
        answer = await verify_answer(app, text, offline=True)
        stop.set()
        await beat
    finally:
        await app.close()
    assert answer.summary.citations > 10_000
    assert len(gaps) > 20
    assert max(gaps) < extraction / 2, (max(gaps), extraction)


# ---------------------------------------------------------------- one client cannot starve the others


async def test_a_flooding_session_is_capped_and_another_session_goes_on():
    gate = ClientGate(calls=2, queue=3)
    release = asyncio.Event()
    entered: list[str] = []

    async def work(client: str, tag: str):
        async with gate.admit(client):
            entered.append(tag)
            await release.wait()

    flood = [asyncio.create_task(work("A", f"a{i}")) for i in range(5)]  # 2 running, 3 waiting
    await asyncio.sleep(0.05)
    with pytest.raises(Busy) as exc:
        async with gate.admit("A"):
            pass
    assert exc.value.code == "busy" and "at most 2 at once" in exc.value.valid
    other = asyncio.create_task(work("B", "b0"))
    await asyncio.sleep(0.05)
    assert entered == ["a0", "a1", "b0"]  # B does not queue behind A's five
    release.set()
    await asyncio.gather(*flood, other)
    assert sorted(entered) == ["a0", "a1", "a2", "a3", "a4", "b0"]
    async with gate.admit("A"):  # all done: A is welcome again
        pass


async def test_busy_is_a_typed_answer_through_the_registry(make_settings, hanging):
    app = App(make_settings(auto_build="0", call_deadline="3", **_all_upstreams(hanging)))
    try:
        args = {"query": "responsabilità medica", "limit": 3}
        calls = [asyncio.create_task(call(app, "it_cassazione_search", args, client="flood")) for _ in range(21)]
        await asyncio.sleep(0.2)
        is_error, payload = await call(app, "it_cassazione_search", args, client="flood")
        assert is_error and payload["code"] == "busy"
        done = await asyncio.gather(*calls)
        assert {p["code"] for _, p in done} <= {"upstream_unavailable", "busy"}
    finally:
        await app.close()


def test_hundreds_of_thousands_of_unknown_argument_names_are_refused_in_one_short_message():
    from it_eli.mcp.tools import load_all

    load_all()
    spec = TOOLS["it_resolve"]
    # a misspelling among the first names still gets its did-you-mean
    args = {"yeer": 1990, **{f"unknown_{i}": i for i in range(340_000)}}
    with pytest.raises(InvalidArg) as exc:
        decode_args(spec, args)
    assert "(and 339991 more)" in exc.value.message
    assert "did you mean 'year'" in exc.value.valid
    assert len(exc.value.message) + len(exc.value.valid) < 3000


# ---------------------------------------------------------------- a deadline for every call


async def test_with_an_upstream_that_never_answers_a_live_search_answers_by_its_deadline(make_settings, hanging):
    app = App(make_settings(auto_build="0", call_deadline="4", http_timeout="30", **_all_upstreams(hanging)))
    try:
        t = time.monotonic()
        is_error, payload = await call(app, "it_cassazione_search", {"query": "danno biologico"})
        elapsed = time.monotonic() - t
    finally:
        await app.close()
    assert is_error and payload["code"] == "upstream_unavailable"
    assert "deadline" in payload["message"]
    assert elapsed < 20  # by the 4 s deadline: the 30 s request timeout and retries would be minutes


async def test_verification_with_a_hanging_upstream_answers_partially_with_gaps(make_settings, hanging):
    app = App(make_settings(auto_build="0", call_deadline="4", http_timeout="30", **_all_upstreams(hanging)))
    text = ("Secondo Cass. civ., sez. III, n. 12345/2019 e Cass. pen., sez. VI, n. 4321/2018, "
            "ai sensi dell'art. 3 della legge 7 agosto 1990, n. 241 e dell'art. 2043 c.c.")
    try:
        t = time.monotonic()
        is_error, payload = await call(app, "it_verify_citations", {"text": text})
        elapsed = time.monotonic() - t
    finally:
        await app.close()
    assert elapsed < 20  # by the 4 s deadline, well before the 30 s request timeout
    assert payload["status"] not in ("VERIFIED", "NO_CITATIONS_FOUND") and "code" not in payload
    statuses = {c["raw"]: c["status"] for c in payload["citations"]}
    assert len(statuses) >= 3
    assert set(statuses.values()) == {"upstream_unavailable"}  # unchecked: gaps, never "does not exist"
    assert any(g["kind"] == "upstream_unavailable" for g in payload["gaps"])


async def test_a_stale_cached_statute_is_served_when_the_upstream_hangs(make_settings, hanging, testdata):
    settings = make_settings(auto_build="0", call_deadline="4", http_timeout="30", statute_ttl_days="0",
                             **_all_upstreams(hanging))
    report = import_files(settings, [str(testdata / "normattiva-akn" / "mcp-legal-it__legge_241_1990.xml")])
    assert report.acts == 1
    app = App(settings)
    try:
        t = time.monotonic()
        is_error, payload = await call(app, "it_get_text", {"reference": "legge 7 agosto 1990, n. 241", "article": "3"})
        elapsed = time.monotonic() - t
    finally:
        await app.close()
    assert elapsed < 20  # by the 4 s deadline, well before the 30 s request timeout
    assert not is_error, payload
    assert payload["stale"] is True and payload["served_from"] == "local_index"
    assert "motivazione" in payload["text"].lower()


# ---------------------------------------------------------------- hostile upstream JSON


async def test_json_nested_too_deep_marks_that_one_citation_not_the_whole_verification(make_settings, deep_json):
    upstreams = _all_upstreams(deep_json)
    app = App(make_settings(auto_build="0", **upstreams))
    try:
        is_error, payload = await call(app, "it_cassazione_search", {"query": "danno"})
        assert is_error and payload["code"] == "upstream_changed"
        text = "Come deciso da Cass. civ., sez. III, n. 12345/2019, e dalla sentenza n. 238 del 2014 della Corte costituzionale."
        is_error, payload = await call(app, "it_verify_citations", {"text": text})
    finally:
        await app.close()
    assert "code" not in payload, payload  # not internal_error: the verification answered
    cass = [c for c in payload["citations"] if "Cass" in c["raw"]]
    assert cass and cass[0]["status"] == "upstream_unavailable" and "upstream_changed" in cass[0]["detail"]
    assert len(payload["citations"]) >= 2  # the other citation was still checked
