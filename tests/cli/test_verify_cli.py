"""`it-eli verify FILE|-`: output formats and the documented exit codes (0 / 1 / 2 / 3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.offline_home import offline_env, prepare_home
from it_eli.runtime.config import load_settings


@pytest.fixture(scope="module")
def cli_home(tmp_path_factory, testdata):
    home = tmp_path_factory.mktemp("cli_home")
    prepare_home(load_settings(offline_env(home)), testdata)
    return home


def _run(home, *args, stdin: str | None = None):
    env = dict(os.environ)
    env.update(offline_env(home))
    env["IT_ELI_LOG_LEVEL"] = "WARNING"
    return subprocess.run([sys.executable, "-m", "it_eli", "verify", *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=120)


def test_verified_exit_0_text(cli_home, tmp_path):
    f = tmp_path / "ok.txt"
    f.write_text("Il provvedimento viola l'art. 3 della legge 7 agosto 1990, n. 241 e l'art. 97 Cost.", encoding="utf-8")
    p = _run(cli_home, str(f), "--offline")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("VERIFIED:") and "OK" in p.stdout


def test_gaps_exit_0_and_listed(cli_home, tmp_path):
    f = tmp_path / "gaps.txt"
    f.write_text("Si applicano l'art. 575 c.p. e l'art. 2043 c.c.", encoding="utf-8")
    p = _run(cli_home, str(f), "--offline")
    assert p.returncode == 0 and p.stdout.startswith("VERIFIED_WITH_GAPS") and "[act_not_in_corpus]" in p.stdout


def test_hallucination_exit_1_json(cli_home, tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text("Si applica l'art. 35 della legge n. 241/1990.", encoding="utf-8")
    p = _run(cli_home, str(f), "--format", "json", "--offline")
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert out["status"] == "HALLUCINATION_DETECTED" and out["citations"][0]["status"] == "not_found"


def test_stdin_and_closed_upstream(cli_home):
    p = _run(cli_home, "-", stdin="Vedi l'art. 140 Cost. e Cass. civ., n. 12345/2020.")
    assert p.returncode == 1 and "upstream_unavailable" in p.stdout


def test_offline_says_live_courts_were_not_checked(cli_home):
    """With --offline nothing is asked of SentenzeWeb or the GA portal: the report says so, and
    does not send the reader to retry an outage that never happened."""
    p = _run(cli_home, "-", "--offline", stdin="Si richiama l'art. 3 della legge 7 agosto 1990, n. 241; "
             "v. Cass. civ., sez. III, 12 febbraio 2021, n. 404 e Cons. Stato, sez. V, n. 1/2020.")
    assert p.returncode == 0 and p.stdout.startswith("VERIFIED_WITH_GAPS"), p.stdout
    assert p.stdout.count("[not_checked_offline]") == 2 and "upstream_unavailable" not in p.stdout
    assert "retry" not in p.stdout and "run without offline" in p.stdout


def test_nothing_checked_exit_3(cli_home, tmp_path):
    p = _run(cli_home, "-", "--offline", stdin="Nessuna citazione in questo testo.")
    assert p.returncode == 3 and p.stdout.startswith("NO_CITATIONS_FOUND")
    p = _run(cli_home, "-", "--offline", stdin="Si richiama l'art. 2043 c.c.")
    assert p.returncode == 3 and p.stdout.startswith("NOTHING_VERIFIED")  # a gate must not pass when it could not look


def test_usage_errors_exit_2(cli_home, tmp_path):
    assert _run(cli_home, str(tmp_path / "missing.txt")).returncode == 2
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("art. 3 Cost. è".encode("latin-1"))
    assert _run(cli_home, str(latin1)).returncode == 2
    big = tmp_path / "big.txt"
    big.write_text("a" * 1_000_001, encoding="utf-8")
    p = _run(cli_home, str(big), "--offline")
    assert p.returncode == 2 and "input_too_large" in p.stderr
    f = tmp_path / "ok.txt"
    f.write_text("art. 3 Cost.", encoding="utf-8")
    p = _run(cli_home, str(f), "--at-date", "31/02/2020")
    assert p.returncode == 2 and "invalid_arg" in p.stderr
    assert _run(cli_home, "--format", "xml", str(f)).returncode == 2  # argparse
