"""Issue 15: do light calls keep answering while heavy ones run? (a script, not a test)

    python -m benchmarks heavy [--heavy 6] [--chars 1000000] [--probes 40]

Starts `it-eli serve --transport http` on a home holding the real 12-decision Court sample, with
every upstream pointed at a closed local port. Six clients (one MCP session each) send
it_verify_citations with a 1 MB draft (offline) at the same moment; a seventh client calls
it_case_stats every 100 ms while they run. Prints the stats latency (p50/p95/max) during the
heavy window, the heavy calls' own durations, and the same stats latency with nothing else
running, for comparison. Target: stats under 250 ms while the six run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from . import WORK_DIR
from .load_test import _closed_port, pct, server_env, stop_server, wait_port

PARA = ("Ai sensi dell'art. 2043 c.c. e dell'art. 3 della legge 7 agosto 1990, n. 241, come chiarito da Cass. civ., "
        "sez. III, n. 12345/2019 e dalla sentenza n. 238 del 2014 della Corte costituzionale, nonché dall'art. 24 "
        "Cost., il danno va risarcito. ")


def prepare(work: Path) -> Path:
    import shutil

    from it_eli.runtime.config import load_settings
    from it_eli.search.decisions.build import build_index

    home = work / "home"
    shutil.rmtree(home, ignore_errors=True)
    settings = load_settings({"IT_ELI_HOME": str(home)})
    build_index(settings, [settings.testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"])
    return home


async def probe_stats(url: str, stop: asyncio.Event, out: list[float], ready: asyncio.Event,
                      every: float = 0.1, n: int | None = None) -> None:
    from mcp import Client

    async with Client(url, read_timeout_seconds=120) as client:
        await client.call_tool("it_case_stats", {})  # session and index warm
        ready.set()
        while not stop.is_set() and (n is None or len(out) < n):
            t = time.perf_counter()
            res = await client.call_tool("it_case_stats", {})
            assert not res.is_error, res
            out.append((time.perf_counter() - t) * 1000)
            await asyncio.sleep(every)


async def heavy(url: str, text: str, out: list[float]) -> None:
    from mcp import Client

    async with Client(url, read_timeout_seconds=300) as client:
        t = time.perf_counter()
        res = await client.call_tool("it_verify_citations", {"text": text, "offline": True})
        out.append(time.perf_counter() - t)
        body = json.loads(res.content[0].text)
        assert body.get("summary", {}).get("citations", 0) > 1000, str(body)[:300]


async def run(args) -> dict:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    home = prepare(work)
    env = server_env(home)
    port = _closed_port()
    proc = subprocess.Popen([sys.executable, "-m", "it_eli", "serve", "--transport", "http", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=open(work / "server.stderr", "wb"))
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_port(port, proc, time.monotonic() + 60)
        idle: list[float] = []
        await probe_stats(url, asyncio.Event(), idle, asyncio.Event(), n=args.probes)
        busy: list[float] = []
        stop, ready = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(probe_stats(url, stop, busy, ready))
        await ready.wait()
        # the heavy clients run in another process: encoding six 1 MB requests must not delay
        # the probe's own event loop (it would be counted as server latency)
        sender = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.bench_heavy_calls", "--send", url, str(args.heavy), str(args.chars),
            stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).resolve().parent.parent,
        )
        out, _ = await sender.communicate()
        durations = json.loads(out)
        stop.set()
        await task
    finally:
        stop_server(proc)
    return {
        "machine": {"cpus": os.cpu_count(), "loadavg": [round(x, 1) for x in os.getloadavg()]},
        "heavy_calls": args.heavy, "chars_each": args.chars,
        "heavy_seconds": {"min": round(min(durations), 2), "max": round(max(durations), 2)},
        "stats_ms_idle": {"n": len(idle), "p50": pct(idle, 50), "p95": pct(idle, 95), "max": round(max(idle), 1)},
        "stats_ms_during_heavy": {"n": len(busy), "p50": pct(busy, 50), "p95": pct(busy, 95), "max": round(max(busy), 1)},
        "target_met": max(busy) < 250,
    }


async def send(url: str, n: int, chars: int) -> list[float]:
    text = (PARA * (chars // len(PARA) + 1))[:chars]
    durations: list[float] = []
    await asyncio.gather(*(heavy(url, text, durations) for _ in range(n)))
    return durations


def main(argv: list[str]) -> int:
    if argv[:1] == ["--send"]:
        print(json.dumps(asyncio.run(send(argv[1], int(argv[2]), int(argv[3])))))
        return 0
    ap = argparse.ArgumentParser(prog="python -m benchmarks heavy", description=__doc__.split("\n\n")[0])
    ap.add_argument("--heavy", type=int, default=6, help="concurrent heavy verifications")
    ap.add_argument("--chars", type=int, default=1_000_000, help="characters of each draft")
    ap.add_argument("--probes", type=int, default=30, help="idle stats calls before the heavy window")
    ap.add_argument("--work", default=str(WORK_DIR / "heavy"))
    args = ap.parse_args(argv)
    result = asyncio.run(run(args))
    print(json.dumps(result, indent=1))
    return 0 if result["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
