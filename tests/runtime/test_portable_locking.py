"""Locks and audit rotation work without POSIX-only modules, and hold across processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from it_eli.runtime.errors import InvalidArg
from it_eli.search.indexdir import IndexDir

REPO = Path(__file__).resolve().parents[2]


def test_the_package_imports_where_fcntl_does_not_exist():
    """As on Windows: the platform-aware users of fcntl outside the package (subprocess, asyncio,
    the SDK's stdio transport, each of which picks msvcrt on Windows) are loaded first, then fcntl is made unimportable; the server, the stores and the audit log must still
    import, and a lock and an audit line must still work (filelock and portalocker pick the
    platform's own mechanism)."""
    code = textwrap.dedent("""
        import asyncio, subprocess, ssl, sys, tempfile, pathlib
        import mcp.server.stdio
        sys.modules.pop("fcntl", None)
        sys.modules["fcntl"] = None   # `import fcntl` now raises ImportError
        import it_eli.mcp.server, it_eli.search.statutes, it_eli.search.decisions, it_eli.runtime.audit, it_eli.search.indexdir
        mods = sorted(m for m, v in sys.modules.items() if v is not None and m.startswith("it_eli"))
        from it_eli.search.indexdir import IndexDir
        from it_eli.runtime.audit import AuditLog
        d = pathlib.Path(tempfile.mkdtemp())
        with IndexDir(d / "idx").build_lock():
            pass
        AuditLog(d / "logs").close()  # its writer (portalocker) loads the platform's lock on first write
        print(len(mods))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.strip()) > 10
    src = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "it_eli").rglob("*.py"))
    assert "import fcntl" not in src


def test_a_second_build_on_the_same_home_is_refused_while_the_first_holds_the_lock(tmp_path):
    idir = IndexDir(tmp_path / "idx")
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from pathlib import Path
            from it_eli.search.indexdir import IndexDir
            with IndexDir(Path({str(tmp_path / 'idx')!r})).build_lock():
                print("held", flush=True)
                sys.stdin.readline()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(InvalidArg, match="another index build is running"):
            with idir.build_lock():
                pass
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    with idir.build_lock():  # released with its holder
        pass


def test_processes_sharing_a_home_rotate_the_audit_log_without_losing_a_line(tmp_path):
    logs = tmp_path / "logs"
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from it_eli.runtime.audit import AuditLog
        a = AuditLog(Path({str(logs)!r}), max_bytes=4096, keep=200)
        for i in range(150):
            assert a.record("it_resolve", {{"q": sys.argv[1] + str(i)}}, {{}}, 0.0, "ok")
        a.close()
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, f"p{n}-"], cwd=REPO) for n in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    files = sorted(logs.glob("audit.jsonl*"))
    lines = [json.loads(x) for f in files for x in f.read_text(encoding="utf-8").splitlines()]
    assert len(files) > 5 and len(lines) == 450
    assert len({x["pid"] for x in lines}) == 3
