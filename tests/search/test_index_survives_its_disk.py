"""The Court index survives its disk: read-only homes, full disks, corruption, killed builds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from it_eli.services.app import App
from it_eli.search.decisions.reader import DecisionIndex
from it_eli.search.decisions.build import build_index
from it_eli.search.decisions.model import index_root
from it_eli.search.housekeeping import clean_at_start
from it_eli.search.indexdir import IndexDir
from it_eli.mcp.tools.registry import call

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def sample(testdata) -> Path:
    return testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"


def _builds(settings) -> list[str]:
    return sorted(p.name for p in (index_root(settings) / "builds").iterdir())


def _two_builds(settings, sample) -> tuple[Path, Path]:
    first = Path(build_index(settings, [sample]).index_path)
    time.sleep(1.1)  # build names carry the second they were made
    second = Path(build_index(settings, [sample]).index_path)
    assert IndexDir(index_root(settings)).current() == second and first.is_dir()
    return first, second


def _unshare_works() -> bool:
    if not shutil.which("unshare") or sys.platform != "linux":
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="needs Linux user namespaces (unshare -rm) to mount a read-only home")
def test_a_read_only_home_serves_searches(make_settings, sample):
    settings = make_settings(auto_build="0")
    build_index(settings, [sample])
    home = settings.home
    inner = (f"mount --bind -o ro {home} {home} && "
             f"{sys.executable} -m it_eli tool it_case_search '{{\"query\": \"legge\", \"limit\": 2}}'")
    env = {**os.environ, "IT_ELI_HOME": str(home), "IT_ELI_AUTO_BUILD": "0"}
    run = subprocess.run(["unshare", "-rm", "sh", "-c", inner], capture_output=True, text=True, env=env, cwd=REPO,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-1500:]
    answer = json.loads(run.stdout)
    assert answer["total"] > 0 and answer["hits"], answer
    assert "Read-only file system" in run.stderr  # it was read-only: the audit log says it could not write


def test_a_build_that_fills_the_disk_is_removed_and_the_previous_build_serves(make_settings, sample):
    settings = make_settings(auto_build="0")
    build_index(settings, [sample])
    before = _builds(settings)
    code = textwrap.dedent(f"""
        import resource, signal
        from pathlib import Path
        from it_eli.runtime.config import load_settings
        from it_eli.search.decisions.build import build_index
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8000, resource.RLIM_INFINITY))  # the disk is full at 8 KB
        try:
            build_index(load_settings(), [Path({str(sample)!r})])
        except Exception as exc:
            print("failed:", exc)
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "IT_ELI_HOME": str(settings.home)}, timeout=120)
    assert "failed:" in run.stdout and "too large" in run.stdout.lower(), run.stdout + run.stderr[-1000:]
    assert _builds(settings) == before  # the disk as it was
    assert DecisionIndex(settings).search("legge").total > 0


async def test_a_corrupt_current_build_falls_back_to_the_previous_one_with_a_warning(make_settings, sample):
    settings = make_settings(auto_build="0")
    first, second = _two_builds(settings, sample)
    (second / "meta.json").write_text("{ not json")
    app = App(settings)
    try:
        is_error, payload = await call(app, "it_case_search", {"query": "legge"})
        assert not is_error and payload["total"] > 0
        warning = payload["notes"][0]
        assert warning.startswith("index_corrupt:") and "`it-eli index build`" in warning and first.name in warning
        is_error, stats = await call(app, "it_case_stats", {})
        assert not is_error and stats["warnings"] and stats["warnings"][0].startswith("index_corrupt:")
    finally:
        await app.close()


async def test_a_garbled_current_pointer_falls_back_too(make_settings, sample):
    settings = make_settings(auto_build="0")
    first, _ = _two_builds(settings, sample)
    (index_root(settings) / "CURRENT").write_bytes(b"\x00\xff garbage")
    app = App(settings)
    try:
        is_error, payload = await call(app, "it_case_search", {"query": "legge"})
    finally:
        await app.close()
    assert not is_error and payload["total"] > 0 and payload["notes"][0].startswith("index_corrupt:")


async def test_with_no_complete_build_to_fall_back_on_the_error_is_typed(make_settings, sample):
    settings = make_settings(auto_build="0")
    build = Path(build_index(settings, [sample]).index_path)
    for seg in build.glob("*.idx"):
        seg.write_bytes(b"\x00" * 16)
    (build / "meta.json").write_text("[]")
    app = App(settings)
    try:
        is_error, payload = await call(app, "it_case_search", {"query": "legge"})
    finally:
        await app.close()
    assert is_error and payload["code"] == "index_corrupt" and "it-eli index build" in payload["valid"]


def test_leftovers_of_killed_builds_and_imports_are_cleaned_at_the_next_start(make_settings, sample):
    settings = make_settings(auto_build="0")
    build_index(settings, [sample])
    root = index_root(settings)
    kept = _builds(settings)
    killed = root / "builds" / "20990101T000000-deadbeef"  # what kill -9 during a build leaves
    killed.mkdir()
    (killed / "0123.idx").write_bytes(b"x" * 50_000)
    (root / "CURRENT.0badf00d.tmp").write_text("x")
    acts = settings.home / "statutes" / "acts"
    acts.mkdir(parents=True)
    old_tmp, fresh_tmp = acts / "abc.123.456.tmp", acts / "def.789.1.tmp"  # an old import's, a running one's
    for p in (old_tmp, fresh_tmp):
        p.write_bytes(b"partial")
    os.utime(old_tmp, (time.time() - 7200, time.time() - 7200))

    removed = clean_at_start(settings)
    assert not killed.exists() and not (root / "CURRENT.0badf00d.tmp").exists() and not old_tmp.exists()
    assert fresh_tmp.exists()  # may belong to an import running now
    assert _builds(settings) == kept and set(removed) >= {killed.name, old_tmp.name}
    assert DecisionIndex(settings).search("legge").total > 0


def test_serve_cleans_at_start(make_settings, sample):
    settings = make_settings(auto_build="0")
    build_index(settings, [sample])
    killed = index_root(settings) / "builds" / "20990101T000000-cafebabe"
    killed.mkdir()
    env = {**os.environ, "IT_ELI_HOME": str(settings.home), "IT_ELI_AUTO_BUILD": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "it_eli", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while killed.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not killed.exists()
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
