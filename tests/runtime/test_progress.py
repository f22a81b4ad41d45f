"""Long work is visible: an MCP client that sends a progress token gets notifications/progress
during a first-use index build (download, then indexing); a terminal gets a real bar."""

from __future__ import annotations

import io
import os
import sys

from aiohttp import web
from aiohttp.test_utils import TestServer
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from it_eli.runtime.progress import TerminalProgress, reporting, report

from tests.conftest import REPO_ROOT

SAMPLE = "cortecost/P_json2001_oggi.RECONSTRUCTED.zip"


async def test_first_use_build_sends_progress_notifications(testdata, tmp_path):
    archive = (testdata / SAMPLE).read_bytes()

    async def serve_archive(request: web.Request) -> web.StreamResponse:
        if request.match_info["name"] != "P_json2001_oggi.zip":
            raise web.HTTPNotFound()  # the sample holds the newest archive only
        return web.Response(body=archive, content_type="application/zip")

    court = web.Application()
    court.router.add_get("/opendata/{name}", serve_archive)
    async with TestServer(court, host="127.0.0.1") as srv:
        env = {**os.environ, "IT_ELI_HOME": str(tmp_path / "home"), "IT_ELI_AUTO_BUILD": "1",
               "IT_ELI_CORTECOST_OPENDATA_URL": str(srv.make_url("/opendata/")), "IT_ELI_THROTTLE_SECONDS": "0",
               "IT_ELI_HTTP_RETRIES": "0", "IT_ELI_LOG_LEVEL": "WARNING"}
        params = StdioServerParameters(command=sys.executable, args=["-m", "it_eli", "serve"], env=env,
                                       cwd=str(REPO_ROOT))
        seen: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        async with Client(params) as client:
            res = await client.call_tool("it_case_search", {"query": "questione"}, progress_callback=on_progress)
            assert not res.is_error, res.content[0].text
            assert res.structured_content["total"] > 0
            # the index now exists: a call without a token works and carries no progress
            res = await client.call_tool("it_case_stats", {})
            assert not res.is_error
    messages = [m or "" for _, _, m in seen]
    assert any(m.startswith("building the Constitutional Court index") for m in messages), messages
    assert any(m.startswith("downloading Court open data P_json2001_oggi.zip") and "(100%)" in m for m in messages), messages
    assert any(m.startswith("indexing P_json2001_oggi.zip") for m in messages), messages
    values = [p for p, _, _ in seen]
    assert values == sorted(values) and len(set(values)) == len(values), values  # MCP: always increasing
    assert all(t is None or p <= t for p, t, _ in seen)


def test_terminal_bar_shows_percentage_rate_and_time_left():
    err = io.StringIO()
    bar = TerminalProgress(enabled=True, file=err, mininterval=0)
    with reporting(bar):
        for done in range(0, 10_000_001, 1_000_000):
            report("downloading archive.zip", done, 10_000_000, "B")
    bar.close()
    out = err.getvalue()
    assert "downloading archive.zip" in out and "100%" in out
    assert "B/s" in out and "<" in out  # rate and time left (elapsed<remaining)


def test_nobody_watching_costs_nothing():
    report("anything", 1, 2)  # no reporter: a no-op, no output, no error


async def test_a_big_answer_reports_its_download(make_settings):
    """A whole act's export (megabytes) is reported as it arrives; a small answer is not."""
    from it_eli.sources.http import HttpClient

    big = b"<akomaNtoso/>" + b" " * (3 << 20)

    async def handler(request: web.Request) -> web.Response:
        return web.Response(body=big if request.path == "/big" else b"small", content_type="application/xml")

    upstream = web.Application()
    upstream.router.add_get("/{name}", handler)
    async with TestServer(upstream, host="127.0.0.1") as srv:
        seen: list[tuple[str, float, float | None]] = []
        client = HttpClient(make_settings(normattiva_url=str(srv.make_url("")).rstrip("/")))
        try:
            with reporting(lambda phase, done, total, unit: seen.append((phase, done, total))):
                await client.request("GET", str(srv.make_url("/small")))
                assert seen == []
                resp = await client.request("GET", str(srv.make_url("/big")))
        finally:
            await client.close()
    assert len(resp.body) == len(big)
    assert seen and all(t == len(big) for _, _, t in seen) and seen[-1][1] == len(big)
    assert [d for _, d, _ in seen] == sorted(d for _, d, _ in seen)
