"""`it-eli tool NAME -` reads the JSON arguments from standard input, so an argument larger than
the command line allows (a 1 MB brief to verify) can be passed; stdin is bounded like every input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from it_eli.cli.main import TOOL_STDIN_MAX_BYTES
from it_eli.runtime import exitcodes

ROOT = Path(__file__).resolve().parents[2]
BRIEF = "Si applica l'art. 2043 c.c. e l'art. 3 della legge 7 agosto 1990, n. 241. "


@pytest.fixture()
def tool(tmp_path):
    env = {**os.environ, "IT_ELI_HOME": str(tmp_path / "home"), "IT_ELI_LOG_LEVEL": "WARNING", "IT_ELI_AUTO_BUILD": "0"}

    def _tool(*args: str, stdin: bytes):
        return subprocess.run([sys.executable, "-m", "it_eli", "tool", *args], input=stdin, env=env, cwd=ROOT,
                              capture_output=True, timeout=300, check=False)

    return _tool


def test_a_one_megabyte_argument_is_read_from_stdin(tool):
    text = BRIEF + "Il ricorso è fondato. " * 45_000  # about 1 MB: too long for one argv string (128 KiB)
    assert len(text.encode()) > 990_000
    p = tool("it_verify_citations", "-", stdin=json.dumps({"text": text, "offline": True}).encode())
    out = json.loads(p.stdout)
    assert out["summary"]["citations"] == 2, p.stderr
    assert [c["raw"] for c in out["citations"]] == ["art. 2043 c.c.", "art. 3 della legge 7 agosto 1990, n. 241"]


def test_stdin_arguments_are_checked_like_argv_ones(tool):
    p = tool("it_get_text", "-", stdin=json.dumps({"reference": "c.p.", "articel": "1"}).encode())
    assert p.returncode == exitcodes.BAD_INPUT and json.loads(p.stdout)["code"] == "invalid_arg"
    p = tool("it_get_text", "-", stdin=b"{not json")
    assert p.returncode == exitcodes.BAD_INPUT and b"not JSON" in p.stderr


def test_stdin_beyond_the_bound_is_refused_with_a_typed_error(tool):
    p = tool("it_resolve", "-", stdin=b" " * (TOOL_STDIN_MAX_BYTES + 1))
    assert p.returncode == exitcodes.BAD_INPUT
    assert p.stderr.decode().startswith("error (input_too_large): more than 8,388,608 bytes")
    p = tool("it_resolve", "-", stdin='{"reference": "c.p."}'.encode("utf-16"))
    assert p.returncode == exitcodes.BAD_INPUT and b"not UTF-8" in p.stderr
