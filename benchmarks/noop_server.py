"""The protocol's floor: an MCP server with one no-op tool, on the same SDK, transport and HTTP
settings as `it-eli serve --transport http` (a script: `python -m benchmarks.noop_server PORT`).

What it_eli adds on top of this is its own cost; what this costs, no tool can go below."""

from __future__ import annotations

import sys

import anyio
import mcp_types as types
from mcp.server import Server


def build() -> Server:
    tool = types.Tool(name="noop", description="Answers at once.", input_schema={"type": "object", "properties": {}})

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(text='{"ok": true}')], structured_content={"ok": True})

    return Server("noop", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def serve(port: int) -> None:
    import uvicorn

    from it_eli.runtime.config import load_settings
    from it_eli.mcp.netserve import streamable_app, uvicorn_config

    settings = load_settings()
    app = streamable_app(build(), settings, "127.0.0.1", port)
    await uvicorn.Server(uvicorn_config(app, settings, "127.0.0.1", port)).serve()


if __name__ == "__main__":
    anyio.run(serve, int(sys.argv[1]))
