"""it_verify_citations and it_coverage within the answer budget (README "Reliability"), and long
article numbers that a made-up citation uses.

The contract (tests/mcp/test_bounded_answers.py): `len(json.dumps(answer, ensure_ascii=False))` is at
most IT_ELI_MAX_ANSWER_CHARS + ENVELOPE_CHARS, at any budget. Here with thousands of citations:
the verdict and the counts always cover the whole text, identical citations come once with their
occurrences, not_found comes first, and following next_offset returns every distinct citation
exactly once. Offline, on the real exports (imported once for the module).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.offline_home import offline_env, prepare_home
from it_eli.services.app import App
from it_eli.mcp.budget import ENVELOPE_CHARS
from it_eli.runtime.config import load_settings
from it_eli.mcp.tools.registry import call
from it_eli.services.verification.verifier import Verifier
from it_eli.services.verification.report import GAP_KINDS, REPORT_ORDER

BUDGETS = [2000, 5000, 60_000]


@pytest.fixture(scope="module")
def home(tmp_path_factory, testdata) -> Path:
    home = tmp_path_factory.mktemp("verify_budget_home")
    prepare_home(load_settings(offline_env(home)), testdata)
    return home


def _app(home: Path, budget: int | None = None) -> App:
    env = offline_env(home)
    if budget is not None:
        env["IT_ELI_MAX_ANSWER_CHARS"] = str(budget)
    return App(load_settings(env))


@pytest.fixture(scope="module")
def keys(home) -> dict[str, list[str]]:
    """Existing article keys of the newest c.p., c.p.p. and Costituzione (plain 'N' / 'N-bis')."""
    from it_eli.search.statutes.store import StatuteStore

    store = StatuteStore(load_settings(offline_env(home)))
    out = {}
    for name, urn in [("c.p.", "urn:nir:stato:regio.decreto:1930-10-19;1398"),
                      ("c.p.p.", "urn:nir:stato:decreto.del.presidente.della.repubblica:1988-09-22;447"),
                      ("Cost.", "urn:nir:stato:costituzione")]:
        v = store.versions(urn, with_keys=True)[0]
        out[name] = [k for k in v.keys if re.fullmatch(r"[1-9]\d*(?:-[a-z]+)?", k)]
    return out


def _size(out: dict) -> int:
    return len(json.dumps(out, ensure_ascii=False))


def _many_citations(keys, n_distinct: int) -> str:
    """n_distinct distinct citations (articles of three codes, then Cassazione decisions: gaps
    offline), each cited twice, separated by prose."""
    cites = [f"art. {k} {code}" for code in ("c.p.", "c.p.p.", "Cost.") for k in keys[code]]
    cites += [f"Cass. civ., sez. III, n. {i}/2020" for i in range(1, max(0, n_distinct - len(cites)) + 1)]
    cites = cites[:n_distinct]
    return " ".join(f"Si veda {c}; " for c in cites * 2)


async def _all_pages(app, args: dict, budget: int) -> list[dict]:
    pages, offset = [], 0
    while offset is not None:
        is_error, out = await call(app, "it_verify_citations", {**args, "offset": offset})
        assert "code" not in out, out
        assert _size(out) <= budget + ENVELOPE_CHARS, (offset, _size(out))
        pages.append(out)
        assert out["offset"] == offset and out["truncated"] == (out["next_offset"] is not None)
        assert out["next_offset"] is None or out["next_offset"] > offset  # paging always advances
        offset = out["next_offset"]
    return pages


# ---------------------------------------------------------------- budget and paging


@pytest.mark.parametrize("budget", BUDGETS)
async def test_verify_answer_fits_and_pages_return_every_citation_once(home, keys, budget):
    text = _many_citations(keys, 3000)
    app = _app(home, budget)
    try:
        pages = await _all_pages(app, {"text": text, "offline": True}, budget)
    finally:
        await app.close()
    first = pages[0]
    summary = first["summary"]
    assert summary["citations"] == 6000 and first["distinct_citations"] == 3000
    assert all(p["summary"] == summary and p["status"] == first["status"] for p in pages)  # whole-text figures
    entries = [c for p in pages for c in p["citations"]]
    assert len(entries) == 3000  # every distinct citation, none twice
    assert len({(c["kind"], c["urn"], c["article"], c["decision_number"], c["start"]) for c in entries}) == 3000
    assert all(c["occurrences"] == 2 and len(c["positions"]) == 2 and c["positions"][0] == c["start"] for c in entries)
    assert sum(c["occurrences"] for c in entries) == summary["citations"]
    ranks = [REPORT_ORDER.index(c["status"]) for c in entries]
    assert ranks == sorted(ranks)  # worst first across the pages
    gaps = first["gaps"]
    assert sum(g["citations"] for g in gaps) == summary["gaps"] and all(g["fallback"] for g in gaps)
    assert sum(1 for c in entries if c["status"] in GAP_KINDS) == sum(g["distinct"] for g in gaps)
    if budget < 60_000:
        assert len(pages) > 1 and first["notes"][-1].startswith("distinct citations 1-")


@pytest.mark.parametrize("budget", BUDGETS)
async def test_a_hallucination_among_3000_valid_citations_comes_first(home, keys, budget):
    valid = [f"art. {k} c.p.p." for k in keys["c.p.p."]] + [f"art. {k} c.p." for k in keys["c.p."]]
    valid = (valid * 3)[:3000]
    text = "; ".join(valid[:1500]) + "; art. 99999 c.p.; " + "; ".join(valid[1500:]) + "."
    app = _app(home, budget)
    try:
        is_error, out = await call(app, "it_verify_citations", {"text": text, "offline": True})
    finally:
        await app.close()
    assert _size(out) <= budget + ENVELOPE_CHARS
    assert is_error and out["is_error"] and out["status"] == "HALLUCINATION_DETECTED"
    assert out["summary"]["citations"] == 3001 and out["summary"]["not_found"] == 1
    bad = out["citations"][0]
    assert (bad["status"], bad["article"], bad["raw"]) == ("not_found", "99999", "art. 99999 c.p.")
    assert text[bad["start"] : bad["end"]] == "art. 99999 c.p." and bad["range_hint"]


async def test_repeated_citations_are_reported_once_and_checked_once(home, monkeypatch):
    calls = []
    original = Verifier.check_statute

    async def counting(self, c):
        calls.append(c.article)
        return await original(self, c)

    monkeypatch.setattr(Verifier, "check_statute", counting)
    text = "art. 52 c.p. " * 2000  # 26 KB in: once a 1.2 MB answer
    app = _app(home, 5000)
    try:
        is_error, out = await call(app, "it_verify_citations", {"text": text, "offline": True})
    finally:
        await app.close()
    assert calls == ["52"]
    assert not is_error and out["status"] == "VERIFIED" and out["summary"]["citations"] == 2000
    (c,) = out["citations"]
    assert c["occurrences"] == 2000 and c["positions"] == [13 * i for i in range(10)]
    assert _size(out) < 2500 and out["next_offset"] is None and not out["truncated"]


async def test_a_megabyte_of_citations_is_answered_bounded(home):
    """(How long it takes while other calls run: `python -m benchmarks heavy`.)"""
    unit = "Si applicano l'art. 52 c.p., l'art. 3 l. 241/1990, l'art. 99999 c.p. e l'art. 2043 c.c.; Corte cost., ord. n. 1 del 2001. "
    text = (unit * (1_000_000 // len(unit)))
    app = _app(home)
    try:
        is_error, out = await call(app, "it_verify_citations", {"text": text, "offline": True})
    finally:
        await app.close()
    n = 1_000_000 // len(unit)
    assert is_error and out["status"] == "HALLUCINATION_DETECTED" and out["summary"]["not_found"] == n
    assert out["summary"]["citations"] == 5 * n and out["distinct_citations"] == 5
    assert out["citations"][0]["article"] == "99999" and out["citations"][0]["occurrences"] == n
    assert _size(out) < 10_000


async def test_offsets_out_of_range_are_typed_errors(home):
    app = _app(home, 2000)
    try:
        text = "art. 52 c.p. e art. 53 c.p."
        is_error, out = await call(app, "it_verify_citations", {"text": text, "offline": True, "offset": 3})
        assert is_error and out["code"] == "invalid_arg" and "0 to 2" in out["valid"]
        is_error, out = await call(app, "it_verify_citations", {"text": text, "offline": True, "offset": -1})
        assert is_error and out["code"] == "invalid_arg" and out["valid"]
        is_error, out = await call(app, "it_verify_citations", {"text": text, "offline": True, "offset": 2})
        assert not is_error and out["citations"] == [] and out["next_offset"] is None  # the end: an empty page
        is_error, out = await call(app, "it_coverage", {"offset": 10**9})
        assert is_error and out["code"] == "invalid_arg" and out["valid"]
    finally:
        await app.close()


async def test_next_pages_are_served_without_checking_again(home, keys, monkeypatch):
    text = _many_citations(keys, 200)
    app = _app(home, 5000)
    try:
        is_error, first = await call(app, "it_verify_citations", {"text": text, "offline": True})
        assert first["truncated"]
        runs = []
        original = Verifier.run

        async def counting(self, t):
            runs.append(1)
            return await original(self, t)

        monkeypatch.setattr(Verifier, "run", counting)
        _, second = await call(app, "it_verify_citations", {"text": text, "offline": True, "offset": first["next_offset"]})
        assert not runs and second["checked_at"] == first["checked_at"] and second["offset"] == first["next_offset"]
        await call(app, "it_verify_citations", {"text": text, "offline": True})  # offset 0: a fresh check
        assert runs == [1]
    finally:
        await app.close()


@pytest.mark.parametrize("budget", BUDGETS)
async def test_coverage_fits_and_pages_its_acts(home, budget):
    app = _app(home, budget)
    try:
        acts, offset, pages = [], 0, 0
        while offset is not None:
            is_error, out = await call(app, "it_coverage", {"offset": offset})
            assert not is_error, out
            assert _size(out) <= budget + ENVELOPE_CHARS, _size(out)
            assert out["not_covered"] and out["live_sources"] and out["constitutional_court"]["built"]
            acts += [a["urn"] for a in out["statutes"]["acts_list"]]
            assert out["truncated"] == (out["statutes"]["next_offset"] is not None)
            offset = out["statutes"]["next_offset"]
            pages += 1
        assert len(acts) == len(set(acts)) == out["statutes"]["acts"] == 28
        assert (pages > 1) == (budget < 60_000)
    finally:
        await app.close()


# ---------------------------------------------------------------- long article numbers


@pytest.mark.parametrize("text,article,status", [
    ("art. 52 c.p. e art. 99999 c.p.", "99999", "not_found"),
    ("art. 10000 c.p.", "10000", "not_found"),
    ("Si contestano gli artt. 52 e 99999 c.p.", "99999", "not_found"),
    ("art. 12345 c.c.", "12345", "act_not_in_corpus"),  # the c.c. is not among the exports: a gap, not a pass
])
async def test_five_digit_articles_are_extracted_and_not_found(home, text, article, status):
    app = _app(home, 5000)
    try:
        is_error, out = await call(app, "it_verify_citations", {"text": text, "offline": True})
    finally:
        await app.close()
    assert out["citations"][0]["article"] == article and out["citations"][0]["status"] == status
    assert out["status"] != "VERIFIED"
    if status == "not_found":
        assert is_error and out["status"] == "HALLUCINATION_DETECTED"


def _cli(home, *args, stdin: str):
    env = dict(os.environ)
    env.update(offline_env(home))
    env["IT_ELI_LOG_LEVEL"] = "WARNING"
    env["IT_ELI_MAX_ANSWER_CHARS"] = "2000"  # the CLI report is not bound by the MCP budget
    return subprocess.run([sys.executable, "-m", "it_eli", "verify", *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=120)


def test_cli_prints_the_full_report_and_exits_1(home):
    text = "art. 52 c.p. " * 300 + "e art. 99999 c.p."
    p = _cli(home, "-", "--offline", stdin=text)
    assert p.returncode == 1 and p.stdout.startswith("HALLUCINATION_DETECTED")
    assert p.stdout.count("\nOK   verified") == 300 and p.stdout.count("\nFAIL not_found") == 1
    p = _cli(home, "-", "--offline", "--format", "json", stdin=text)
    out = json.loads(p.stdout)
    assert p.returncode == 1 and len(out["citations"]) == 301 and out["citations"][-1]["article"] == "99999"
