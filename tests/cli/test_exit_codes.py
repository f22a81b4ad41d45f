"""Every `it-eli` command exits with a code that means one thing (it_eli/runtime/exitcodes.py, README
"Exit codes"): a pipeline tells a hallucination from bad input, from "not a pass", from an
unavailable upstream or index, and from a bug."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from it_eli.runtime import exitcodes

ROOT = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def run(tmp_path):
    dead = f"http://127.0.0.1:{_closed_port()}"
    env = {**os.environ, "IT_ELI_HOME": str(tmp_path / "home"), "IT_ELI_LOG_LEVEL": "WARNING", "IT_ELI_AUTO_BUILD": "0",
           "IT_ELI_NORMATTIVA_URL": dead, "IT_ELI_NORMATTIVA_API_URL": dead, "IT_ELI_SENTENZEWEB_URL": dead,
           "IT_ELI_GA_URL": dead, "IT_ELI_GA_DOCUMENT_URL": dead, "IT_ELI_CORTECOST_OPENDATA_URL": dead + "/",
           "IT_ELI_HTTP_RETRIES": "0", "IT_ELI_HTTP_TIMEOUT": "2"}

    def _run(*args, stdin: str | None = None, **extra):
        return subprocess.run([sys.executable, "-m", "it_eli", *args], env={**env, **extra}, input=stdin,
                              capture_output=True, text=True, timeout=300, cwd=ROOT)

    return _run


def test_the_codes_are_distinct_and_documented():
    codes = [exitcodes.OK, exitcodes.HALLUCINATION, exitcodes.BAD_INPUT, exitcodes.NOT_A_PASS, exitcodes.UNAVAILABLE,
             exitcodes.INTERNAL_ERROR]
    assert len(set(codes)) == len(codes)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    documented = {int(n) for n in re.findall(r"^\| `(\d+)` \|", section, re.M)}
    assert set(codes) | {exitcodes.INTERRUPTED} == documented


def test_bad_input_is_2_for_every_command(run, tmp_path):
    assert run("verify", str(tmp_path / "missing.txt")).returncode == exitcodes.BAD_INPUT
    assert run("tool", "it_get_text", "{not json").returncode == exitcodes.BAD_INPUT
    r = run("tool", "it_get_text", json.dumps({"reference": "c.p.", "articel": "1"}))
    assert r.returncode == exitcodes.BAD_INPUT and json.loads(r.stdout)["code"] == "invalid_arg"
    r = run("tool", "it_resolve", json.dumps({"reference": "l. 241/1990", "article": "-1"}))
    assert r.returncode == exitcodes.BAD_INPUT, r.stdout
    junk = tmp_path / "junk.xml"
    junk.write_text("<not-akoma-ntoso/>", encoding="utf-8")
    assert run("statutes", "import", str(junk)).returncode == exitcodes.BAD_INPUT
    assert run("index", "build", "--source", str(tmp_path / "nowhere.zip")).returncode == exitcodes.BAD_INPUT
    assert run("serve", "--port", "99999").returncode == exitcodes.BAD_INPUT


def test_an_index_source_that_cannot_be_used_is_bad_input(run, tmp_path):
    """A source URL outside the upstream allow-list, or a file that is not an archive, is the
    caller's mistake (exit 2, saying what is valid), never "unavailable, retry later"."""
    r = run("index", "build", "--source", "https://evil.example.com/P_json2001_oggi.zip")
    assert r.returncode == exitcodes.BAD_INPUT, r.stderr
    assert "invalid_arg" in r.stderr and "not an allowed upstream" in r.stderr
    notes = tmp_path / "notes.txt"
    notes.write_text("not an archive", encoding="utf-8")
    for command in ("build", "update"):
        r = run("index", command, "--source", str(notes))
        assert r.returncode == exitcodes.BAD_INPUT, r.stderr
        assert "invalid_arg" in r.stderr and "zip" in r.stderr


def test_unavailable_is_4(run):
    # nothing indexed and no first-use build: the index is missing, not a bad question
    r = run("tool", "it_case_search", json.dumps({"query": "responsabilita"}))
    assert r.returncode == exitcodes.UNAVAILABLE and json.loads(r.stdout)["code"] == "index_missing"
    r = run("tool", "it_get_text", json.dumps({"reference": "c.c.", "article": "2043"}))
    assert r.returncode == exitcodes.UNAVAILABLE and json.loads(r.stdout)["code"] == "upstream_unavailable"
    # the Court's open data cannot be downloaded: nothing published
    assert run("index", "build").returncode == exitcodes.UNAVAILABLE


def test_a_verdict_through_the_tool_command_keeps_its_code(run):
    r = run("tool", "it_verify_citations", json.dumps({"text": "Nessuna citazione qui.", "offline": True}))
    assert r.returncode == exitcodes.NOT_A_PASS and json.loads(r.stdout)["status"] == "NO_CITATIONS_FOUND"
    r = run("verify", "-", "--offline", stdin="Nessuna citazione qui.")
    assert r.returncode == exitcodes.NOT_A_PASS


def test_a_crash_is_5_never_a_verdict(run, tmp_path):
    # a file where the home's index folder belongs (a home that is a file is refused at start, as
    # bad input): whatever breaks, it must not read as "hallucination found" (1)
    home = tmp_path / "home"
    home.mkdir()
    (home / "indexes").write_text("x", encoding="utf-8")
    r = run("index", "status", IT_ELI_HOME=str(home))
    assert r.returncode == exitcodes.INTERNAL_ERROR and "internal error" in r.stderr
    r = run("verify", "-", "--offline", stdin="Si richiama l'art. 3 Cost.", IT_ELI_HOME=str(home))
    assert r.returncode not in (exitcodes.OK, exitcodes.HALLUCINATION, exitcodes.NOT_A_PASS), (r.returncode, r.stderr)


def test_serve_help_shows_the_defaults(run):
    out = " ".join(run("serve", "--help").stdout.split())  # the help wraps lines
    assert "(default: stdio)" in out and "(default: 127.0.0.1)" in out and "(default: 8765)" in out


def test_a_port_out_of_range_is_a_clear_error(run):
    r = run("serve", "--transport", "http", "--port", "99999")
    assert r.returncode == exitcodes.BAD_INPUT
    assert "1-65535" in r.stderr and "Traceback" not in r.stderr


def test_a_busy_port_announces_no_server(run):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        r = run("serve", "--transport", "http", "--port", str(port))
    assert r.returncode == exitcodes.BAD_INPUT, r.stderr
    assert "server on http://" not in r.stderr and "Traceback" not in r.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in r.stderr


def test_tool_list_cuts_descriptions_at_a_word(run):
    from it_eli.mcp.tools import load_all
    from it_eli.mcp.tools.registry import TOOLS

    load_all()
    lines = run("tool", "list").stdout.splitlines()
    assert len(lines) == len(TOOLS)
    for line in lines:
        name, shown = line.split(": ", 1)
        full = TOOLS[name].description
        if shown != full:
            assert shown.endswith(" …") and len(shown) <= 100
            kept = shown[:-2]
            assert full.startswith(kept) and full[len(kept)] == " ", (name, shown)
