"""Issue 16: where a Constitutional Court search and build spend their time, and what MCP adds.

Used by `python -m benchmarks cortecost` (benchmarks/bench_cortecost.py); each function measures
one thing on an index already built there:
- `search_stages`: one search cut into its stages (parse, Tantivy top hits, count, facets,
  snippets, encode), in-process, on the same private steps `DecisionIndex.search` runs;
- `mcp_latency`: sequential `tools/call` round trips over MCP stdio against a server process
  (it_eli's, the reference package's, or a no-op server on the same SDK: the transport's floor);
- `update_seconds`: `update_index` adding a small archive to the built index, in a child.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

# A server on the same MCP SDK with one tool that does nothing: the floor of a stdio round trip.
NOOP_SERVER = textwrap.dedent("""
    import anyio
    import mcp_types as types
    from mcp.server import Server
    from mcp.server.stdio import stdio_server

    async def on_list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(name="noop", description="nothing",
                                                       input_schema={"type": "object"})])

    async def on_call_tool(ctx, params):
        return types.CallToolResult(content=[types.TextContent(text="{}")], is_error=False)

    async def main():
        server = Server("noop", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
        async with stdio_server() as (r, w):
            await server.run(r, w, server.create_initialization_options())

    anyio.run(main)
""")


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    k = (len(s) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(ms: list[float]) -> dict:
    return {"p50_ms": percentile(ms, 0.5), "p95_ms": percentile(ms, 0.95), "mean_ms": statistics.fmean(ms) if ms else 0.0,
            "n": len(ms)}


# ---------------------------------------------------------------- search, stage by stage

def search_stages(home: Path, queries: list[tuple[str, int | None]], rounds: int) -> dict:
    """Per-stage ms (p50/p95/mean) of it_eli's search path, the stages run as `search` runs them."""
    import msgspec

    from it_eli.runtime.config import load_settings
    from it_eli.search.decisions.reader import DecisionIndex
    from it_eli.search.decisions.snippets import SNIPPET_FIELD, phrase_probe, snippet_parts, snippet_probe
    from it_eli.search.decisions.model import FIELD_ALIASES, CaseSearchResult, shared_analyzer
    from it_eli.runtime.errors import QueryError
    from it_eli.search.query import HitWindow, QueryCompiler, ranked_search
    from it_eli.law.query import parse_query

    index = DecisionIndex(load_settings({"IT_ELI_HOME": str(home), "IT_ELI_AUTO_BUILD": "0",
                                         "IT_ELI_LOG_LEVEL": "WARNING"}))
    stages: dict[str, list[float]] = {k: [] for k in ("parse", "tantivy", "count", "facets", "snippets", "encode", "total")}

    def one(q: str, year: int | None, record: bool) -> None:
        t0 = time.perf_counter()
        try:
            parsed = parse_query(q)
        except QueryError:
            return
        t1 = time.perf_counter()
        idx, searcher, _ = index.searcher()
        filters = index._filters(idx, year, None, None, None, None)
        ranked = ranked_search(
            searcher, idx.schema, parsed, index.defn.ranking_boosts, FIELD_ALIASES, index._field_analyzers,
            window=HitWindow(size=10), filters=filters, tie_breaker=index.defn.tie_breaker,
            proximity_fields=index.defn.proximity_boosts, exact_fields=index.defn.exact_boosts,
        )
        t2 = time.perf_counter()
        # what the count costs: the final query once more with and without counting
        final = index._with_filters(ranked.query, filters)
        c0 = time.perf_counter()
        searcher.search(final, limit=10, count=False)
        c1 = time.perf_counter()
        searcher.search(final, limit=10, count=True)
        c2 = time.perf_counter()
        count_ms = max(0.0, (c2 - c1) - (c1 - c0))
        t3 = time.perf_counter()
        facets = index._facets(searcher, final)
        t4 = time.perf_counter()
        snippet_q = QueryCompiler(idx.schema, {SNIPPET_FIELD: 1.0}, index._snippet_aliases, index._analyzers,
                                  conjunction=False).compile(parsed.root) or ranked.query
        hits = index._hits(idx, searcher, snippet_q, ranked.hits, probe=snippet_probe(parsed.root, shared_analyzer()),
                           phrases=phrase_probe(parsed.root, shared_analyzer()), parts=snippet_parts(parsed.root))
        t5 = time.perf_counter()
        res = CaseSearchResult(query=q, total=ranked.count, offset=0, limit=10, hits=hits, facets=facets,
                               relaxed_to_or=ranked.relaxed, notes=list(parsed.notes))
        msgspec.json.encode(res)
        t6 = time.perf_counter()
        if record:
            parts = (("parse", t1 - t0), ("tantivy", t2 - t1 - count_ms), ("count", count_ms),
                     ("facets", t4 - t3), ("snippets", t5 - t4), ("encode", t6 - t5))
            for name, sec in parts:
                stages[name].append(sec * 1000)
            stages["total"].append(sum(sec for _, sec in parts) * 1000)

    for q, year in queries:  # warm-up
        one(q, year, False)
    for _ in range(rounds):
        for q, year in queries:
            one(q, year, True)
    return {k: summary(v) for k, v in stages.items()}


# ---------------------------------------------------------------- MCP stdio round trips

async def _drive(command: list[str], env: dict, tool: str, calls: list[dict], rounds: int) -> dict:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    times: list[float] = []
    errors = 0
    first_error = ""
    if True:
        async with Client(params, read_timeout_seconds=120) as client:
            for args in calls[: min(20, len(calls))]:  # warm-up
                await client.call_tool(tool, args)
            for _ in range(rounds):
                for args in calls:
                    t = time.perf_counter()
                    res = await client.call_tool(tool, args)
                    times.append((time.perf_counter() - t) * 1000)
                    if getattr(res, "is_error", False):
                        errors += 1
                        first_error = first_error or str(res.content[0].text if res.content else res)[:200]
    return {**summary(times), "errors": errors, "first_error": first_error}


def mcp_latency(command: list[str], env: dict, tool: str, calls: list[dict], rounds: int) -> dict:
    return asyncio.run(_drive(command, env, tool, calls, rounds))


def iteli_server(home: Path) -> tuple[list[str], dict]:
    env = {**os.environ, "IT_ELI_HOME": str(home), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING"}
    return [sys.executable, "-m", "it_eli", "serve"], env


def noop_server() -> tuple[list[str], dict]:
    return [sys.executable, "-c", NOOP_SERVER], dict(os.environ)


def reference_server(python: str, db: Path, home: Path) -> tuple[list[str], dict]:
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "IT_ELI_CASELAW_DB": str(db), "HOME": str(home)}
    return [python, "-m", "it_eli_mcp.server"], env


def reference_build(python: str, archive: Path, db: Path, home: Path) -> dict:
    """The reference package's own ingest, in a child: wall seconds and peak RSS (MB)."""
    home.mkdir(parents=True, exist_ok=True)
    for p in (db, db.with_suffix(db.suffix + ".tmp")):
        p.unlink(missing_ok=True)
    env = {**os.environ, "IT_ELI_CASELAW_DB": str(db), "HOME": str(home)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([python, "-m", "it_eli_mcp.caselaw.ingest", "--db", str(db), "--source", str(archive),
                             "--quiet"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    err = proc.stderr.read().decode("utf-8", "replace")[-500:]
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"reference ingest failed: {err}")
    return {"seconds": seconds, "peak_mb": usage.ru_maxrss / 1024, "index_mb": db.stat().st_size / 1e6,
            "cpu_seconds": usage.ru_utime + usage.ru_stime}


# ---------------------------------------------------------------- incremental update

UPDATE_CHILD = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from it_eli.runtime.config import load_settings
    from it_eli.search.decisions.build import update_index
    settings = load_settings({"IT_ELI_HOME": sys.argv[1], "IT_ELI_LOG_LEVEL": "WARNING"})
    t = time.perf_counter()
    r = update_index(settings, [Path(p) for p in sys.argv[2:]])
    print(json.dumps({"seconds": time.perf_counter() - t, "added": r.added, "replaced": r.replaced,
                      "unchanged": r.unchanged, "total": r.total, "incremental": r.incremental,
                      "published": r.published}))
""")


def update_seconds(home: Path, archives: list[Path]) -> dict:
    """`update_index` of the built index with `archives`, in a child (as `it-eli index update`)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", UPDATE_CHILD, str(home), *map(str, archives)],
                            stdout=subprocess.PIPE, cwd=Path(__file__).resolve().parent.parent)
    out = proc.stdout.read()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("update child failed")
    return {**json.loads(out), "process_seconds": time.perf_counter() - t0, "peak_mb": usage.ru_maxrss / 1024}
