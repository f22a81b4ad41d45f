"""IT_ELI_HOME naming a file (or a path under a file) is refused at start by every command with a
typed error and exit 2, instead of a traceback or a server that answers `internal_error` to
every call."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from it_eli.cli.main import main
from it_eli.runtime import exitcodes

ROOT = Path(__file__).resolve().parents[2]

COMMANDS = [
    ["index", "status"],
    ["index", "build", "--source", "nowhere.zip"],
    ["index", "export", "out.tar.zst"],
    ["statutes", "import", "act.xml"],
    ["statutes", "rebuild"],
    ["verify", "-", "--offline"],
    ["tool", "list"],
    ["tool", "it_resolve", '{"reference": "c.p."}'],
]


@pytest.fixture(params=["file", "under_a_file"])
def home_on_a_file(request, tmp_path, monkeypatch):
    blocker = tmp_path / "home.txt"
    blocker.write_text("not a folder\n", encoding="utf-8")
    home = blocker if request.param == "file" else blocker / "it_eli"
    monkeypatch.setenv("IT_ELI_HOME", str(home))
    return blocker


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_every_command_refuses_a_home_that_is_a_file(argv, home_on_a_file, capsys):
    assert main(argv) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("error (invalid_arg): IT_ELI_HOME=") and "not a folder" in err
    assert str(home_on_a_file) in err and "valid: a folder" in err
    assert "Traceback" not in err and "internal error" not in err


def test_serve_does_not_start_on_a_home_that_is_a_file(home_on_a_file):
    """It exits at once with the typed error, instead of serving `internal_error` to every call."""
    with subprocess.Popen([sys.executable, "-m", "it_eli", "serve"], env=dict(os.environ), cwd=ROOT,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            proc.wait(timeout=120)  # stdin stays open: a server that started would still be waiting
        finally:
            proc.kill()
        out, err = proc.communicate()
    assert proc.returncode == exitcodes.BAD_INPUT
    assert out == ""  # nothing on the protocol stream
    assert "IT_ELI_HOME=" in err and "not a folder" in err and "Traceback" not in err


def test_a_home_that_does_not_exist_yet_is_fine(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("IT_ELI_HOME", str(tmp_path / "new" / "home"))
    assert main(["tool", "list"]) == exitcodes.OK
    assert "it_resolve" in capsys.readouterr().out
