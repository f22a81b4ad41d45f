"""The MCP contract as served: `tools/list` is kept in tests/tools_list.json and compared on every
run, so a change of any tool's name, description, input or output schema, or annotations is a
visible diff that a reviewer sees.

To change the contract deliberately: `UPDATE_TOOLS_SNAPSHOT=1 .venv/bin/python -m pytest
tests/mcp/test_tools_contract.py`, then review and commit the diff of tests/tools_list.json.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

from mcp import Client

from it_eli.services.app import App
from it_eli.mcp.server import build_server

SNAPSHOT = Path(__file__).resolve().parent / "tools_list.json"


async def _served(make_settings) -> str:
    app = App(make_settings(auto_build="0"))
    try:
        async with Client(build_server(app)) as client:
            tools = (await client.list_tools()).tools
    finally:
        await app.close()
    listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    return json.dumps(sorted(listed, key=lambda t: t["name"]), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


async def test_tools_list_matches_the_snapshot(make_settings):
    served = await _served(make_settings)
    if os.environ.get("UPDATE_TOOLS_SNAPSHOT") == "1":
        SNAPSHOT.write_text(served, encoding="utf-8")
    kept = SNAPSHOT.read_text(encoding="utf-8")
    if served != kept:
        diff = "".join(difflib.unified_diff(kept.splitlines(True), served.splitlines(True), "tests/tools_list.json",
                                            "served", n=2))
        raise AssertionError("tools/list changed; if meant, update with UPDATE_TOOLS_SNAPSHOT=1 (see this "
                             "file's docstring) and commit the diff:\n" + diff[:20000])


def test_the_snapshot_is_the_whole_registry():
    from it_eli.mcp.tools import load_all
    from it_eli.mcp.tools.registry import TOOLS

    load_all()
    kept = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert [t["name"] for t in kept] == sorted(TOOLS)
    assert all(t["inputSchema"]["type"] == "object" and t["description"] for t in kept)
