"""Smoke test of an installed wheel (run by .ci/run with the fresh venv's python, from a folder
outside the checkout, so the source tree cannot be imported by accident).

What a new user does from `pip install it-eli`: build the Court index from the real sample, search
it, import a real Normattiva export, verify citations (a pass and a hallucination), and start
`it-eli serve` and ask it `tools/list` over stdio. Every upstream URL points at a closed port:
nothing leaves the machine. Exits non-zero on the first failure.

Usage: python smoke_installed.py (IT_ELI_TESTDATA: the captured data, default ../shared/data next
to the checkout this script sits in).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SCRIPT = BIN / ("it-eli.exe" if os.name == "nt" else "it-eli")
EXPECTED_TOOLS = {"it_case_search", "it_get_text", "it_verify_citations", "it_resolve", "it_search_statutes"}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def step(name: str, argv: list[str], env: dict, *, stdin: str | None = None, expect_rc: int = 0) -> str:
    started = time.monotonic()
    p = subprocess.run([str(SCRIPT), *argv], env=env, input=stdin, capture_output=True, text=True, timeout=600)
    if p.returncode != expect_rc or "Traceback" in p.stderr:
        sys.exit(f"smoke FAILED at {name}: exit {p.returncode} (expected {expect_rc})\n"
                 f"stdout: {p.stdout[-3000:]}\nstderr: {p.stderr[-3000:]}")
    print(f"smoke ok: {name} ({time.monotonic() - started:.1f}s)", flush=True)
    return p.stdout


async def tools_list_over_stdio(env: dict) -> set[str]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=str(SCRIPT), args=["serve"], env=env, cwd=env["IT_ELI_HOME"])
    async with Client(params) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        res = await client.call_tool("it_get_text", {"reference": "l. 241/1990", "article": 3})
        if res.is_error or res.structured_content["article"] != "3":
            sys.exit(f"smoke FAILED: it_get_text over stdio: {res.content[0].text[:2000]}")
    return tools


def main() -> None:
    import it_eli

    where = Path(it_eli.__file__).resolve()
    if CHECKOUT in where.parents or Path.cwd().resolve() == CHECKOUT:
        sys.exit(f"smoke FAILED: it_eli imported from the checkout ({where}), not from the installed wheel")
    print(f"smoke: it_eli {it_eli.__version__} from {where.parent}", flush=True)
    testdata = Path(os.environ.get("IT_ELI_TESTDATA") or CHECKOUT.parent / "shared" / "data")
    if not testdata.is_dir():
        sys.exit(f"smoke FAILED: no captured data at {testdata} (set IT_ELI_TESTDATA)")

    home = Path(tempfile.mkdtemp(prefix="it_eli_smoke_home_"))
    dead = f"http://127.0.0.1:{closed_port()}"
    env = {**os.environ, "IT_ELI_HOME": str(home), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING",
           "IT_ELI_HTTP_RETRIES": "0", "IT_ELI_HTTP_TIMEOUT": "2", "IT_ELI_CORTECOST_OPENDATA_URL": dead + "/",
           "IT_ELI_NORMATTIVA_URL": dead, "IT_ELI_NORMATTIVA_API_URL": dead, "IT_ELI_SENTENZEWEB_URL": dead,
           "IT_ELI_GA_URL": dead, "IT_ELI_GA_DOCUMENT_URL": dead}
    env.pop("PYTHONPATH", None)

    out = step("index build", ["index", "build", "--source", str(testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip")], env)
    if "indexed 12 decisions" not in out or "published" not in out:
        sys.exit(f"smoke FAILED: index build said: {out}")
    if json.loads(step("index status", ["index", "status"], env))["total"] != 12:
        sys.exit("smoke FAILED: index status does not report the 12 decisions")
    if "it_verify_citations:" not in step("tool list", ["tool", "list"], env):
        sys.exit("smoke FAILED: tool list lacks it_verify_citations")
    hits = json.loads(step("case search", ["tool", "it_case_search", json.dumps({"query": "questione di legittimita"})], env))
    if not hits.get("total") or not hits["hits"][0]["ecli"].startswith("ECLI:IT:COST:2001:"):
        sys.exit(f"smoke FAILED: case search found nothing: {json.dumps(hits)[:2000]}")
    out = step("statute import", ["statutes", "import", str(testdata / "normattiva-akn" / "mcp-legal-it__legge_241_1990.xml")], env)
    if "from 1 acts" not in out:
        sys.exit(f"smoke FAILED: statute import said: {out}")
    out = step("verify (a pass)", ["verify", "-", "--offline"], env,
               stdin="Il provvedimento viola l'art. 3 della legge 7 agosto 1990, n. 241.")
    if not out.startswith("VERIFIED"):
        sys.exit(f"smoke FAILED: verify said: {out[:2000]}")
    out = step("verify (a hallucination)", ["verify", "-", "--offline"], env,
               stdin="Si applica l'art. 35 della legge n. 241/1990.", expect_rc=1)
    if not out.startswith("HALLUCINATION_DETECTED"):
        sys.exit(f"smoke FAILED: verify said: {out[:2000]}")
    started = time.monotonic()
    tools = asyncio.run(tools_list_over_stdio(env))
    if not EXPECTED_TOOLS <= tools:
        sys.exit(f"smoke FAILED: tools/list over stdio lacks {sorted(EXPECTED_TOOLS - tools)}")
    print(f"smoke ok: serve answers tools/list over stdio, {len(tools)} tools ({time.monotonic() - started:.1f}s)")
    print("smoke: the installed wheel works")


if __name__ == "__main__":
    main()
