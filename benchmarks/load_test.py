"""Issue 7: does `it-eli serve` keep working under load and lose nothing? (a script, not a test)

    python -m benchmarks load [--calls 5000] [--clients 50] [--synthetic 5000] [--stdio-rounds 10]

1. Prepares a fresh IT_ELI_HOME under benchmarks/.work/load/: the Court index from the real
   12-decision sample plus a SYNTHETIC corpus (tests/synthetic_corpus.py) so searches touch a realistic
   number of documents, and every real Normattiva export in the test data imported as statutes.
2. Starts `it-eli serve --transport http` as a subprocess with every upstream URL pointed at a
   closed local port (nothing can leave the machine; a call that tried would fail and be counted).
3. Drives it with N concurrent MCP clients (one session each) through a fixed, seeded mix of
   calls on the local indexes; a few call kinds are deliberately wrong and must come back as the
   typed error expected (those do not count as failures; any other isError, exception, timeout or
   protocol oddity does). Reports p50/p95/p99 per tool and overall, throughput, and the server's
   RSS (from /proc) after warm-up, in the middle and at the end, with a series every 500 calls.
4. Does the same over stdio: one client issuing 20 calls at once, for several rounds.
5. Cross-checks the audit trail: one line per call made, and no query text in it.

Bounded: a fixed number of calls, a per-call timeout and an overall deadline; exits 0 only when
there were no failures, memory did not grow after warm-up and the audit trail is complete.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import WORK_DIR

WARMUP = 500
EXPECTED_ERRORS = ("invalid_arg", "not_found", "query_error")


# ---------------------------------------------------------------- preparation

def _testdata() -> Path:
    from it_eli.runtime.config import load_settings

    return load_settings({}).testdata


def prepare_home(work: Path, synthetic: int, log) -> tuple[Path, dict]:
    """Fresh home: Court index (real sample + synthetic corpus), all real statute exports imported."""
    from it_eli.runtime.config import load_settings
    from it_eli.search.decisions.build import build_index
    from it_eli.search.statutes.loading import import_files

    from tests.synthetic_corpus import generate

    testdata = _testdata()
    home = work / "home"
    shutil.rmtree(home, ignore_errors=True)
    settings = load_settings({"IT_ELI_HOME": str(home)})
    sources = [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"]
    info = {}
    if synthetic:
        corpus = generate(work, testdata, count=synthetic, seed=42, log=log)
        sources.append(corpus.path)
        info["synthetic_corpus"] = corpus.path.name
    t = time.monotonic()
    report = build_index(settings, sources)
    info["decisions"] = report.indexed
    info["build_seconds"] = round(time.monotonic() - t, 1)
    exports = sorted(str(p) for p in (testdata / "normattiva-akn").glob("*.xml"))
    t = time.monotonic()
    imp = import_files(settings, exports)
    info.update(statute_acts=imp.acts, statute_articles=imp.articles, import_seconds=round(time.monotonic() - t, 1),
                import_errors=imp.errors)
    log(f"home ready: {info}")
    return home, info


@dataclass
class Pools:
    """What the call mix draws from, read from the prepared indexes (real identifiers only)."""

    case_queries: list[str]
    eclis: list[str]
    refs: list[tuple[int, int]]
    relatori: list[str]
    statute_queries: list[str]
    articles: list[tuple[str, str]]  # (reference, article key) of cached articles
    acts: list[str]


def load_pools(home: Path, rng: random.Random) -> Pools:
    from it_eli.runtime.config import load_settings
    from it_eli.search.decisions.reader import DecisionIndex
    from it_eli.search.query import HitWindow
    from it_eli.search.statutes.store import StatuteStore

    from tests.synthetic_corpus import make_queries

    settings = load_settings({"IT_ELI_HOME": str(home)})
    testdata = settings.testdata
    case_queries = make_queries(testdata, n=200, seed=7)
    idx = DecisionIndex(settings)
    eclis, refs, relatori = set(), set(), set()
    for q in case_queries[:60]:
        for h in idx.search(q, window=HitWindow(size=20)).hits:
            eclis.add(h.ecli)
            refs.add((h.anno, h.numero))
            if h.relatore:
                relatori.add(h.relatore.split()[-1])
    sq_path = Path(__file__).resolve().parent / "ranking" / "statute_queries.json"
    try:
        statute_queries = [q["query"] for q in json.loads(sq_path.read_text(encoding="utf-8"))["queries"]]
    except (OSError, ValueError, KeyError):
        statute_queries = ["legittima difesa", "omicidio colposo", "diffamazione", "procedimento amministrativo"]
    store = StatuteStore(settings)
    articles: list[tuple[str, str]] = []
    for urn in store.list_acts():
        versions = store.versions(urn, with_keys=True)
        if versions:
            keys = versions[0].keys
            articles.extend((urn, k) for k in rng.sample(keys, min(25, len(keys))))
    # people write references by name too: these go through the code-name resolver
    named = [("costituzione", "3"), ("costituzione", "21"), ("l. 241/1990", "1"), ("codice penale", "575"),
             ("codice penale", "52"), ("d.lgs. 231/2001", "25-bis.1"), ("codice della strada", "186")]
    articles.extend(named * 10)
    acts = ["codice penale", "costituzione", "l. 241/1990", "d.lgs. 231/2001", "codice della strada"]
    return Pools(sorted(case_queries), sorted(eclis), sorted(refs), sorted(relatori), statute_queries, articles, acts)


# Drafts whose citations all exist in the load home (real exports and the 12 real ordinanze 2001):
# the verifier must answer VERIFIED / VERIFIED_WITH_GAPS, never an error, under load.
VERIFY_TEXTS = [
    "La condotta integra il delitto previsto dall'art. 575 c.p.; restano fermi i principi dell'art. 3 Cost.",
    "Il provvedimento è nullo ai sensi dell'art. 21-septies della legge 7 agosto 1990, n. 241 "
    "(cfr. Corte cost., ord. n. 4/2001).",
    "L'ente risponde ai sensi dell'art. 25-bis.1 del d.lgs. 8 giugno 2001, n. 231, e degli artt. 1 e 2 "
    "della legge n. 241 del 1990.",
    "Si vedano gli artt. 13 e 24 Cost. e l'art. 52 c.p. sulla legittima difesa.",
]


def make_calls(pools: Pools, n: int, rng: random.Random) -> list[tuple[str, dict, str | None]]:
    """n calls (tool, arguments, expected error code or None), a fixed mix, seeded."""
    P = pools
    kinds = [
        ("search", 10), ("search_anno", 5), ("search_range", 7), ("search_tipo", 6), ("search_rel", 4),
        ("search_page", 3), ("get_ecli", 8), ("get_ref", 7), ("statutes", 10), ("statutes_act", 10),
        ("text", 20), ("recent", 2), ("stats", 2), ("resolve", 1), ("verify", 6),
        ("bad_year", 1), ("bad_ecli", 1), ("no_article", 1), ("stopwords", 1), ("no_decision", 1),
    ]
    names, weights = zip(*kinds)
    out = []
    for kind in rng.choices(names, weights, k=n):
        q = rng.choice(P.case_queries)
        if kind == "search":
            out.append(("it_case_search", {"query": q, "limit": rng.choice([5, 10, 20])}, None))
        elif kind == "search_anno":
            anno = rng.choice(P.refs)[0]
            out.append(("it_case_search", {"query": q, "anno": anno}, None))
        elif kind == "search_range":
            lo = rng.randint(1956, 2020)
            out.append(("it_case_search", {"query": q, "year_from": lo, "year_to": min(2025, lo + rng.randint(0, 15))}, None))
        elif kind == "search_tipo":
            out.append(("it_case_search", {"query": q, "tipologia": rng.choice(["sentenza", "ordinanza", "S", "ord."])}, None))
        elif kind == "search_rel":
            out.append(("it_case_search", {"query": q, "relatore": rng.choice(P.relatori)}, None))
        elif kind == "search_page":
            out.append(("it_case_search", {"query": q, "limit": 10, "offset": rng.choice([10, 20, 40])}, None))
        elif kind == "get_ecli":
            out.append(("it_case_get_decision", {"ecli": rng.choice(P.eclis), "max_chars": rng.choice([2000, 8000, 20000])}, None))
        elif kind == "get_ref":
            anno, numero = rng.choice(P.refs)
            out.append(("it_case_get_decision", {"anno": anno, "numero": str(numero), "max_chars": 4000}, None))
        elif kind == "statutes":
            out.append(("it_search_statutes", {"query": rng.choice(P.statute_queries), "limit": rng.choice([5, 10])}, None))
        elif kind == "statutes_act":
            out.append(("it_search_statutes", {"query": rng.choice(P.statute_queries), "act": rng.choice(P.acts)}, None))
        elif kind == "text":
            ref, art = rng.choice(P.articles)
            out.append(("it_get_text", {"reference": ref, "article": art}, None))
        elif kind == "verify":
            out.append(("it_verify_citations", {"text": rng.choice(VERIFY_TEXTS), "offline": True}, None))
        elif kind == "recent":
            out.append(("it_case_recent", {"limit": 5}, None))
        elif kind == "stats":
            out.append(("it_case_stats", {}, None))
        elif kind == "resolve":
            out.append(("it_resolve", {"act_type": "d.lgs", "year": 2001, "number": 231}, None))
        elif kind == "bad_year":
            out.append(("it_case_search", {"query": q, "anno": 1850}, "invalid_arg"))
        elif kind == "bad_ecli":
            out.append(("it_case_get_decision", {"ecli": "ECLI:IT:COST:xx"}, "invalid_arg"))
        elif kind == "no_article":
            out.append(("it_get_text", {"reference": "costituzione", "article": "999"}, "not_found"))
        elif kind == "stopwords":
            out.append(("it_case_search", {"query": "il la di che"}, "query_error"))
        elif kind == "no_decision":
            out.append(("it_case_get_decision", {"ecli": "ECLI:IT:COST:2001:9999"}, "not_found"))
    return out


# ---------------------------------------------------------------- measuring

def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again on exit: connections are refused


def server_env(home: Path) -> dict[str, str]:
    dead = f"http://127.0.0.1:{_closed_port()}"
    env = dict(os.environ)
    env.update({
        "IT_ELI_HOME": str(home), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING",
        "IT_ELI_HTTP_RETRIES": "0", "IT_ELI_HTTP_TIMEOUT": "2",
        "IT_ELI_CORTECOST_OPENDATA_URL": dead + "/pronunce/", "IT_ELI_NORMATTIVA_URL": dead,
        "IT_ELI_NORMATTIVA_API_URL": dead + "/api", "IT_ELI_SENTENZEWEB_URL": dead + "/sncass",
        "IT_ELI_GA_URL": dead, "IT_ELI_GA_DOCUMENT_URL": dead,
    })
    return env


def cpu_seconds(pid: int) -> float:
    """user + system CPU time of a process, from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process, in MB, from /proc."""
    vals = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS:", "VmHWM:")):
                k, v = line.split(":", 1)
                vals[k] = int(v.split()[0]) / 1024
    return round(vals.get("VmRSS", 0.0), 1), round(vals.get("VmHWM", 0.0), 1)


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    expected_errors: int = 0
    done: int = 0

    def add(self, tool: str, seconds: float) -> None:
        self.latencies.setdefault(tool, []).append(seconds * 1000)

    def fail(self, what: str) -> None:
        self.failures.append(what)


def check(result, tool: str, expected: str | None, tally: Tally) -> None:
    sc = result.structured_content
    if sc is None and result.is_error and result.content:
        try:  # a typed error travels as text only (it is not the tool's result type)
            sc = json.loads(result.content[0].text)
        except (ValueError, AttributeError):
            sc = None
    if tool == "noop":
        if result.is_error or sc != {"ok": True}:
            tally.fail("noop: unexpected answer")
        return
    if sc is None:
        tally.fail(f"{tool}: no structured content")
    elif result.is_error:
        code = sc.get("code")
        if expected is None:
            tally.fail(f"{tool}: unexpected isError {code}: {str(sc.get('message'))[:160]}")
        elif code != expected:
            tally.fail(f"{tool}: expected {expected}, got {code}")
        else:
            tally.expected_errors += 1
    elif expected is not None:
        tally.fail(f"{tool}: expected error {expected}, got a result")
    elif tool == "it_verify_citations" and sc.get("status") not in ("VERIFIED", "VERIFIED_WITH_GAPS"):
        tally.fail(f"{tool}: status {sc.get('status')} for a draft whose citations all exist")


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(p / 100 * len(s)))], 2) if s else 0.0


def summary(lat: dict[str, list[float]]) -> dict:
    every = [x for v in lat.values() for x in v]
    out = {"all": {"n": len(every), "p50": pct(every, 50), "p95": pct(every, 95), "p99": pct(every, 99),
                   "max": round(max(every), 1) if every else 0}}
    for tool, v in sorted(lat.items()):
        out[tool] = {"n": len(v), "p50": pct(v, 50), "p95": pct(v, 95), "p99": pct(v, 99)}
    return out


async def drive_http(url: str, calls, clients: int, pid: int, timeout: float, log) -> dict:
    from mcp import Client

    tally = Tally()
    warm = min(WARMUP, len(calls) // 5)
    measured = len(calls) - warm
    rss: dict[str, tuple[float, float]] = {}
    series: list[tuple[int, float]] = []
    cursor = iter(enumerate(calls))
    started = [0.0]

    def on_done() -> None:
        tally.done += 1
        k = tally.done - warm
        if k == 0:
            rss["start"] = rss_mb(pid)
            started[0] = time.perf_counter()
        elif k == measured // 2:
            rss["middle"] = rss_mb(pid)
        elif k == measured:
            rss["end"] = rss_mb(pid)
        if k >= 0 and k % 500 == 0:
            series.append((k, rss_mb(pid)[0]))

    async def worker(wid: int) -> None:
        try:
            async with Client(url, read_timeout_seconds=timeout) as client:
                for i, (tool, args, expected) in cursor:
                    t = time.perf_counter()
                    try:
                        res = await asyncio.wait_for(client.call_tool(tool, args), timeout)
                    except Exception as exc:  # transport / protocol / timeout: a failure
                        tally.fail(f"{tool}: {type(exc).__name__}: {str(exc)[:160]}")
                        on_done()
                        continue
                    if i >= warm:
                        tally.add(tool, time.perf_counter() - t)
                    check(res, tool, expected, tally)
                    on_done()
        except Exception as exc:
            tally.fail(f"client {wid} session: {type(exc).__name__}: {str(exc)[:200]}")

    t0 = time.perf_counter()
    cpu0, own0 = cpu_seconds(pid), time.process_time()
    await asyncio.gather(*(worker(w) for w in range(clients)))
    wall = time.perf_counter() - t0
    cpu = {"server": round(cpu_seconds(pid) - cpu0, 1), "clients": round(time.process_time() - own0, 1)}
    measured_wall = time.perf_counter() - started[0] if started[0] else wall
    log(f"http: {tally.done} calls in {wall:.1f}s, {len(tally.failures)} failures")
    return {
        "clients": clients, "calls": tally.done, "warmup_calls": warm, "measured_calls": measured,
        "seconds": round(wall, 1), "calls_per_second": round(measured / measured_wall, 1),
        "cpu_seconds": cpu,
        "server_cpu_ms_per_call": round(1000 * cpu["server"] / max(1, tally.done), 2),
        "failures": len(tally.failures), "failure_samples": tally.failures[:10],
        "expected_typed_errors": tally.expected_errors,
        "latency_ms": summary(tally.latencies),
        "rss_mb": {k: {"rss": v[0], "hwm": v[1]} for k, v in rss.items()}, "rss_series_mb": series,
    }


async def drive_stdio(env: dict, calls, at_once: int, timeout: float, log) -> dict:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    tally = Tally()
    params = StdioServerParameters(command=sys.executable, args=["-m", "it_eli", "serve"], env=env)
    t0 = time.perf_counter()
    rounds = 0
    try:
        async with Client(params, read_timeout_seconds=timeout) as client:
            async def one(tool, args, expected):
                t = time.perf_counter()
                try:
                    res = await asyncio.wait_for(client.call_tool(tool, args), timeout)
                except Exception as exc:
                    tally.fail(f"{tool}: {type(exc).__name__}: {str(exc)[:160]}")
                    return
                tally.add(tool, time.perf_counter() - t)
                check(res, tool, expected, tally)
                tally.done += 1

            for start in range(0, len(calls), at_once):
                await asyncio.gather(*(one(*c) for c in calls[start : start + at_once]))
                rounds += 1
    except Exception as exc:
        tally.fail(f"stdio session: {type(exc).__name__}: {str(exc)[:200]}")
    wall = time.perf_counter() - t0
    log(f"stdio: {tally.done} calls ({rounds} rounds of {at_once}) in {wall:.1f}s, {len(tally.failures)} failures")
    return {
        "at_once": at_once, "rounds": rounds, "calls": tally.done, "seconds": round(wall, 1),
        "failures": len(tally.failures), "failure_samples": tally.failures[:10],
        "expected_typed_errors": tally.expected_errors, "latency_ms": summary(tally.latencies)["all"],
    }


def audit_lines(home: Path) -> list[str]:
    lines = []
    for p in (home / "logs").glob("audit.jsonl*"):
        lines.extend(p.read_text(encoding="utf-8").splitlines())
    return lines


def stop_server(proc) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_port(port: int, proc, deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("server did not start listening")


async def run_floor(args, env: dict, work: Path, log) -> dict:
    """The same number of calls from the same clients against a no-op tool (benchmarks/noop_server.py)."""
    port = _closed_port()
    repo = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.noop_server", str(port)], cwd=repo,
        env=env, stdout=subprocess.DEVNULL, stderr=open(work / "noop.stderr", "wb"),
    )
    try:
        wait_port(port, proc, time.monotonic() + 60)
        calls = [("noop", {}, None)] * args.calls
        floor = await asyncio.wait_for(
            drive_http(f"http://127.0.0.1:{port}/mcp", calls, args.clients, proc.pid, args.call_timeout, log),
            args.max_seconds,
        )
    finally:
        stop_server(proc)
    log(f"floor (no-op tool): {floor['calls_per_second']} calls/s")
    return floor


async def run(args, log) -> dict:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    home, prep = prepare_home(work, args.synthetic, log)
    pools = load_pools(home, rng)
    calls = make_calls(pools, args.calls, rng)
    stdio_calls = make_calls(pools, args.stdio_rounds * 20, rng)
    env = server_env(home)
    port = _closed_port()
    before = len(audit_lines(home))
    proc = subprocess.Popen(
        [sys.executable, "-m", "it_eli", "serve", "--transport", "http", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=open(work / "server.stderr", "wb"),
    )
    try:
        wait_port(port, proc, time.monotonic() + 60)
        log(f"server pid {proc.pid} on port {port}; {len(calls)} calls from {args.clients} clients; "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus")
        http = await asyncio.wait_for(
            drive_http(f"http://127.0.0.1:{port}/mcp", calls, args.clients, proc.pid, args.call_timeout, log),
            args.max_seconds,
        )
        http["server_alive"] = proc.poll() is None
    finally:
        stop_server(proc)
    floor = await run_floor(args, env, work, log)
    stdio = await asyncio.wait_for(drive_stdio(env, stdio_calls, 20, args.call_timeout, log), args.max_seconds)
    lines = audit_lines(home)
    made = http["calls"] + stdio["calls"]  # exact when no call failed in transport
    text = "\n".join(lines)
    leaked = [q for q in pools.case_queries + pools.statute_queries if len(q) >= 8 and q in text]
    audit = {"lines": len(lines) - before, "tool_calls_answered": made, "query_texts_found": len(leaked)}
    rss = http["rss_mb"]
    growth = round(rss["end"]["rss"] - rss["start"]["rss"], 1) if {"start", "end"} <= set(rss) else None
    second_half = round(rss["end"]["rss"] - rss["middle"]["rss"], 1) if {"middle", "end"} <= set(rss) else None
    verdict = {
        "no_failures": http["failures"] == 0 and stdio["failures"] == 0 and http["server_alive"],
        "enough_calls": http["calls"] + stdio["calls"] >= 5000,
        # steady state: after warm-up the RSS may settle, but must not keep climbing
        "no_memory_growth": second_half is not None and second_half <= max(16.0, 0.05 * rss["middle"]["rss"]),
        "audit_complete": audit["lines"] == made and not leaked,
        # issue 15: at least half the calls per second of a no-op tool on the same SDK and transport
        "half_the_floor": http["calls_per_second"] >= 0.5 * floor["calls_per_second"],
    }
    return {
        "machine": {"cpus": os.cpu_count(), "loadavg_end": [round(x, 1) for x in os.getloadavg()]},
        "prepared": prep, "http": http, "floor": floor, "stdio": stdio, "audit": audit,
        "ratio_to_floor": round(http["calls_per_second"] / max(floor["calls_per_second"], 1e-9), 2),
        "rss_growth_mb": {"start_to_end": growth, "middle_to_end": second_half},
        "verdict": verdict, "ok": all(verdict.values()),
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks load", description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=5000, help="HTTP tool calls (after a warm-up share)")
    ap.add_argument("--clients", type=int, default=50, help="concurrent MCP clients over streamable HTTP")
    ap.add_argument("--stdio-rounds", type=int, default=10, help="rounds of 20 concurrent calls over stdio")
    ap.add_argument("--synthetic", type=int, default=5000, help="SYNTHETIC decisions added to the real sample (0: none)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--call-timeout", type=float, default=60.0)
    ap.add_argument("--max-seconds", type=float, default=900.0, help="deadline of each phase")
    ap.add_argument("--work", default=str(WORK_DIR / "load"))
    args = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(f"[load {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    result = asyncio.run(run(args, log))
    out = Path(args.work) / "result.json"
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(result, indent=1, ensure_ascii=False))
    h = result["http"]
    log(f"http p50/p95/p99 = {h['latency_ms']['all']['p50']}/{h['latency_ms']['all']['p95']}/"
        f"{h['latency_ms']['all']['p99']} ms; rss {h['rss_mb']}; verdict {result['verdict']}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
