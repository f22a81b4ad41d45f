"""MCP adapter: exposes the registered tools over stdio or streamable HTTP.

Nothing but the protocol goes to stdout; logs go to stderr. Tool logic lives in it_eli.mcp.tools
(plain async functions); this module only translates between MCP and the registry.
"""

from __future__ import annotations

import json
import logging
import re
import sys

import anyio
import msgspec
import mcp_types as types
from mcp.server import Server
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from it_eli import __version__
from it_eli.services.app import App
from it_eli.runtime.progress import McpProgress, reporting
from .tools import load_all
from .tools.registry import TOOLS, ToolError, call_encoded, input_schema, output_schema

log = logging.getLogger(__name__)
_ERROR_FIELDS = {f.encode_name for f in msgspec.structs.fields(ToolError)}  # a typed error body

INSTRUCTIONS = (
    "it_eli: Italian law. Statutes from Normattiva (URN:NIR/ELI, text in force on a date), "
    "Constitutional Court decisions (local index), Cassazione and administrative courts (live), "
    "and citation verification. Every answer carries a citation and a source_url; errors are typed "
    "(invalid_arg, query_error, not_found, index_missing, upstream_unavailable ...) and say what is valid."
)


def session_key(ctx, transport: str) -> object:
    """Whose calls the per-session caps count (it_eli/runtime/workers.py ClientGate).

    Over streamable HTTP the SDK builds a new session object for every request, so the key is
    the MCP session id the transport has checked (the mcp-session-id header of a live session).
    Over stdio the process serves one client. An HTTP request without a session (the stateless
    protocol) is counted on its own, under the server-wide connection caps."""
    headers = getattr(ctx.request, "headers", None)
    session_id = headers.get(MCP_SESSION_ID_HEADER) if headers is not None else None
    if session_id:
        return ("mcp-session", session_id)
    return "stdio" if transport == "stdio" else ("request", id(ctx.session))


def build_server(app: App, *, transport: str = "stdio") -> Server:
    load_all()
    tool_list = [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=input_schema(spec),
            output_schema=output_schema(spec),
            annotations=types.ToolAnnotations(
                read_only_hint=spec.read_only, open_world_hint=spec.open_world, idempotent_hint=True
            ),
        )
        for spec in TOOLS.values()
    ]
    # The SDK checks a call's Mcp-Param-* headers against the tool's input schema; without this
    # lookup it runs and serializes the whole tools/list on every call (a tenth of the server's
    # CPU under load).
    input_schemas = {t.name: t.input_schema for t in tool_list}

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> dict:
        # long work (first-use build, downloads, large verifications) reports progress; the SDK
        # sends it as notifications/progress when the client gave a progress token, else drops it
        progress = McpProgress(ctx.session.report_progress)
        with reporting(progress):
            is_error, payload, body = await call_encoded(app, params.name, params.arguments,
                                                         client=session_key(ctx, transport))
        await progress.flush()
        if params.name not in TOOLS:
            # a protocol error, as the MCP spec lists unknown tools (the call is audited above)
            raise MCPError(types.INVALID_PARAMS, payload["message"], data={"valid": payload.get("valid")})
        text = body.decode()  # the answer encoded once (by the registry), at C speed
        # A typed error body {code, message, valid, details} is not the tool's result type, so it
        # goes as text only: clients validate structuredContent against the outputSchema even when
        # isError is set. A result that is an error in substance (a hallucination found by
        # it_verify_citations) keeps its structured body, which conforms.
        typed_error = is_error and set(payload) <= _ERROR_FIELDS
        # The CallToolResult in its wire form: the SDK validates and dumps a result once more
        # anyway, and a model built here would walk the whole answer a third time.
        result = {"content": [{"type": "text", "text": text}], "isError": is_error, "resultType": "complete"}
        if not typed_error:
            result["structuredContent"] = payload
        return result

    return Server(
        "it_eli",
        version=__version__,
        instructions=INSTRUCTIONS,
        get_tool_input_schema=input_schemas.get,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def unreadable_message_error(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC answer to a line the transport could not read as a message.

    The SDK's stdio transport hands such lines to the server as exceptions, which it drops: the
    client then waits for an answer that never comes. JSON-RPC wants a Parse error (-32700) or an
    Invalid Request (-32600), with the request's id when it can still be read (a lone surrogate
    makes a line invalid JSON for the SDK, not for Python's json module; a line nested deeper than
    the SDK reads is never decoded whole, so its id is found without building it)."""
    req_id, invalid_json, too_deep = None, False, False
    errors = exc.errors() if hasattr(exc, "errors") else []
    for err in errors:
        raw = err.get("input")
        invalid_json = invalid_json or err.get("type") == "json_invalid"
        too_deep = too_deep or "recursion limit" in str(err.get("msg", ""))
        if isinstance(raw, str):
            raw = {"id": top_level_id(raw)}
        if isinstance(raw, dict) and isinstance(raw.get("id"), (int, str)) and not isinstance(raw.get("id"), bool):
            req_id = raw["id"]
            break
    code = types.PARSE_ERROR if invalid_json else types.INVALID_REQUEST
    what = ("arrays and objects nest too deeply (keep a message under 150 levels of nesting)"
            if too_deep else
            "the line is not valid JSON (UTF-8, no lone surrogates)" if invalid_json else "not a JSON-RPC 2.0 message")
    return types.JSONRPCError(jsonrpc="2.0", id=req_id, error=types.ErrorData(code=code, message=f"Invalid message: {what}"))


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')
_DECODER = json.JSONDecoder()


def top_level_id(line: str) -> int | str | None:
    """The `id` member of the JSON object on `line`, read without decoding the rest.

    Strings and brackets are walked flat (no recursion), so any nesting depth costs one pass;
    None when the line has no readable top-level id."""
    depth = 0
    for m in _JSON_TOKEN.finditer(line):
        tok = m.group()
        if tok in "{[":
            depth += 1
        elif tok in "}]":
            depth -= 1
        elif depth == 1 and tok == '"id"':
            rest = line[m.end():].lstrip()
            if not rest.startswith(":"):
                continue
            try:
                value, _ = _DECODER.raw_decode(rest[1:].lstrip())
            except (ValueError, RecursionError):
                return None
            return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    return None


async def _answer_unreadable(read_stream, write_stream, forward) -> None:
    """Pass readable messages on to the server; answer the unreadable ones with a JSON-RPC error."""
    async with forward:
        async for item in read_stream:
            if isinstance(item, Exception):
                log.warning("unreadable message on stdin: %s", str(item).splitlines()[0][:200])
                try:
                    reply = unreadable_message_error(item)
                except Exception:  # never let one hostile line end the session
                    log.exception("could not read the unreadable message's id")
                    reply = types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
                        code=types.INVALID_REQUEST, message="Invalid message: not a JSON-RPC 2.0 message"))
                await write_stream.send(SessionMessage(reply))
                continue
            await forward.send(item)


async def _run_stdio(app: App) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(app)
    try:
        async with stdio_server() as (read_stream, write_stream):
            forward, server_reads = anyio.create_memory_object_stream(0)
            async with anyio.create_task_group() as tg:
                tg.start_soon(_answer_unreadable, read_stream, write_stream, forward)
                await server.run(server_reads, write_stream, server.create_initialization_options())
                tg.cancel_scope.cancel()
    finally:
        await app.close()


async def _run_http(app: App, host: str, port: int) -> None:
    import uvicorn

    from .netserve import streamable_app, uvicorn_config

    server = build_server(app, transport="http")
    config = uvicorn_config(streamable_app(server, app.settings, host, port), app.settings, host, port)
    try:
        # bound before anything is announced: a busy port is an error, not "server on ..."
        sock = _bind(host, port)
        print(f"it_eli MCP server on http://{host}:{port}/mcp", file=sys.stderr, flush=True)
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        await app.close()


def _bind(host: str, port: int):
    import socket

    from it_eli.runtime.errors import InvalidArg

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, _, _, _, addr = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
    except OSError as exc:
        raise InvalidArg(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                         valid="a free port (--port) on an address of this machine (--host)") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve(transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765, app: App | None = None) -> None:
    from it_eli.search.housekeeping import clean_at_start

    app = app or App()
    log.info("it_eli %s serving MCP over %s (home %s)", __version__, transport, app.settings.home)
    clean_at_start(app.settings)
    # the loop thread waits at most this long for the GIL held by a worker thread (default 5 ms):
    # light calls need it many times per answer
    sys.setswitchinterval(0.001)
    if transport == "stdio":
        anyio.run(_run_stdio, app)
    else:
        from .netserve import check_exposure

        check_exposure(app.settings, host)
        anyio.run(_run_http, app, host, port)
