"""Fixtures the MCP tests share."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer


@pytest.fixture
async def hanging():
    """An upstream that takes every request and never answers: each admitted call holds its slot."""
    async def never(request):
        await asyncio.sleep(3600)
        return web.Response(text="late")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", never)
    server = TestServer(app)
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()
