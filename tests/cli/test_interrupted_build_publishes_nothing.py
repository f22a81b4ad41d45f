"""Ctrl-C during `it-eli index build` stops the build: exit 130, its directory removed, nothing
published (the build used to run on in its thread and publish after the interrupt)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from it_eli.runtime import exitcodes

ROOT = Path(__file__).resolve().parents[2]


def _writer_once_read(pipe: Path, proc: subprocess.Popen):
    """The pipe's write end, once the build has opened it for reading (never hangs on a build
    that failed before)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            return os.fdopen(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK), "wb")
        except OSError:  # ENXIO: no reader yet
            time.sleep(0.05)
    raise AssertionError(f"the build never read its first source (exit {proc.poll()}): {proc.stderr.read()[:500]}")


def test_ctrl_c_stops_the_build_and_publishes_nothing(tmp_path, testdata):
    sample = testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"
    record = testdata / "cortecost" / "records" / "record_0000.json"
    if not (sample.exists() and record.exists()):
        pytest.skip(f"the Court's open-data sample is not in {testdata / 'cortecost'}")
    # the first source is a pipe: the build waits on it until the interrupt has been taken
    pipe = tmp_path / "first.json"
    os.mkfifo(pipe)
    home = tmp_path / "home"
    env = {**os.environ, "IT_ELI_HOME": str(home), "IT_ELI_LOG_LEVEL": "WARNING", "IT_ELI_AUTO_BUILD": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "it_eli", "index", "build", "--source", str(pipe),
                             "--source", str(sample)], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        with _writer_once_read(pipe, proc) as writer:  # the build is running, reading the pipe
            proc.send_signal(signal.SIGINT)
            said = proc.stderr.readline()
            assert said.startswith("interrupted: stopping the build; nothing is published"), said
            writer.write(record.read_bytes())  # the build goes on reading: it must stop, not publish
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == exitcodes.INTERRUPTED, (proc.returncode, err)
    assert "published" not in out and "Traceback" not in err
    decisions = home / "indexes" / "decisions"
    assert not (decisions / "CURRENT").exists()
    left = [p.name for p in (decisions / "builds").iterdir()] if (decisions / "builds").exists() else []
    assert left == []  # the stopped build's directory is removed
