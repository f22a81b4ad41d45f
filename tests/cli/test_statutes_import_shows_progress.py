"""`it-eli statutes import` on a terminal shows how many files are done (a bulk import takes
minutes); piped, it prints only its summary."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _exports(testdata: Path) -> list[str]:
    folder = testdata / "normattiva-akn"
    files = sorted(str(p) for p in folder.glob("*.xml"))[:3] if folder.exists() else []
    if len(files) < 3:
        pytest.skip(f"the Normattiva Akoma Ntoso exports are not in {folder}")
    return files


def _import(tmp_path, files, stderr):
    env = {**os.environ, "IT_ELI_HOME": str(tmp_path / "home"), "IT_ELI_LOG_LEVEL": "WARNING"}
    return subprocess.Popen([sys.executable, "-m", "it_eli", "statutes", "import", *files], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=stderr)


def test_a_terminal_sees_the_files_counted(tmp_path, testdata):
    files = _exports(testdata)
    main_end, child_end = pty.openpty()
    # a terminal has a size (a fresh pty has none, and tqdm draws nothing in 0 columns)
    fcntl.ioctl(child_end, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    proc = _import(tmp_path, files, child_end)
    os.close(child_end)
    seen = b""
    while True:
        try:
            chunk = os.read(main_end, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out, _ = proc.communicate(timeout=300)
    os.close(main_end)
    assert proc.returncode == 0
    shown = seen.decode(errors="replace")
    assert "importing statutes" in shown and f"{len(files)}/{len(files)}" in shown, shown[-500:]
    assert out.decode().startswith("imported ") and f"from {len(files)} acts" in out.decode()


def test_a_pipe_gets_only_the_summary(tmp_path, testdata):
    files = _exports(testdata)
    proc = _import(tmp_path, files, subprocess.PIPE)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and b"importing statutes" not in err
    assert out.decode().count("\n") == 1 and out.decode().startswith("imported ")
