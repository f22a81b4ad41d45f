"""The audit trail: one line per tool call, no query text, rotation, and failures that show."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading

from it_eli.services.app import App
from it_eli.runtime.audit import AuditLog, input_hash, install_key
from it_eli.mcp.tools.registry import call

SECRET = "zxqsegretissimo perquisizione"


def _lines(home) -> list[dict]:
    logs = home / "logs"
    out = []
    for p in sorted(logs.glob("audit.jsonl*")):
        out.extend(json.loads(x) for x in p.read_text(encoding="utf-8").splitlines())
    return out


async def test_one_line_per_call_with_the_fields_and_no_query_text(make_settings):
    settings = make_settings(auto_build="0")
    app = App(settings)
    try:
        args = {"query": SECRET, "limit": 3}
        is_error, payload = await call(app, "it_case_search", args)  # no index: a typed error
        assert is_error and payload["code"] == "index_missing"
        is_error, _ = await call(app, "it_resolve", {"act_type": "legge", "year": 1990, "number": 241})
        assert not is_error
        await call(app, "no_such_tool_" + SECRET, {"query": SECRET})
    finally:
        await app.close()
    raw = (settings.home / "logs" / "audit.jsonl").read_text(encoding="utf-8")
    assert "segretissimo" not in raw and "perquisizione" not in raw
    lines = _lines(settings.home)
    # a name outside the registry is client text: recorded as `unknown`, never verbatim
    assert [x["tool"] for x in lines] == ["it_case_search", "it_resolve", "unknown"]
    first, second, _ = lines
    assert set(first) == {"ts", "tool", "input_hmac", "output_bytes", "ms", "status", "pid"}
    canonical = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # keyed: a guessed query's plain SHA-256 does not confirm it; only the install's key does
    assert first["input_hmac"] != hashlib.sha256(canonical.encode()).hexdigest()
    key = install_key(settings.home / "logs")
    assert first["input_hmac"] == hmac.new(key, canonical.encode(), hashlib.sha256).hexdigest()
    assert first["status"] == "index_missing" and second["status"] == "ok"
    assert first["output_bytes"] > 50 and first["ms"] >= 0 and first["ts"].endswith("+00:00")
    # key order and spacing do not change the hash; the value does
    assert input_hash({"limit": 3, "query": SECRET}, key) == first["input_hmac"]
    assert input_hash({"query": SECRET + "x", "limit": 3}, key) != first["input_hmac"]
    assert app.audit.status()["lines"] >= 2 and app.audit.status()["failures"] == 0


def test_each_install_keys_its_hashes_with_its_own_secret(tmp_path):
    one, two = AuditLog(tmp_path / "a"), AuditLog(tmp_path / "b")
    for audit in (one, two):
        audit.record("it_resolve", {"query": SECRET}, {}, 0.0, "ok")
        audit.close()
    h1, h2 = (json.loads((tmp_path / d / "audit.jsonl").read_text())["input_hmac"] for d in ("a", "b"))
    assert h1 != h2  # the same query cannot be matched across installs
    again = AuditLog(tmp_path / "a")  # the key persists: repeats on one install still match
    again.record("it_resolve", {"query": SECRET}, {}, 0.0, "ok")
    again.close()
    assert [json.loads(x)["input_hmac"] for x in (tmp_path / "a" / "audit.jsonl").read_text().splitlines()] == [h1, h1]


def test_rotation_by_size_keeps_n_files_and_loses_no_line_across_threads(tmp_path):
    audit = AuditLog(tmp_path / "logs", max_bytes=4096, keep=50)
    per_thread, threads = 150, 4

    def work(t):
        for i in range(per_thread):
            assert audit.record("it_case_search", {"query": f"q{t}-{i}"}, {"hits": []}, 0.001, "ok")

    ts = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    audit.close()
    files = sorted((tmp_path / "logs").glob("audit.jsonl*"))
    assert len(files) > 5
    # the handler rolls over once a file has reached the size: at most one line past it
    assert all(f.stat().st_size <= 4096 + 300 for f in files)
    assert len(_lines(tmp_path)) == per_thread * threads  # every line parses, none lost

    small = AuditLog(tmp_path / "small", max_bytes=1024, keep=2)
    for i in range(100):
        small.record("it_resolve", {"n": i}, {}, 0.0, "ok")
    small.close()
    names = sorted(p.name for p in (tmp_path / "small").glob("audit.jsonl*"))
    assert names == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    newest = json.loads((tmp_path / "small" / "audit.jsonl").read_text().splitlines()[-1])
    assert newest["input_hmac"] == input_hash({"n": 99}, install_key(tmp_path / "small"))


async def test_rotation_settings_come_from_the_environment(make_settings):
    app = App(make_settings(audit_max_bytes="2048", audit_keep="3"))
    assert (app.audit.max_bytes, app.audit.keep) == (2048, 3)
    assert app.audit.path == app.settings.home / "logs" / "audit.jsonl"
    await app.close()


async def test_an_unwritable_log_dir_is_reported_and_calls_still_succeed(make_settings, caplog):
    settings = make_settings()
    settings.home.mkdir(parents=True)
    (settings.home / "logs").write_text("not a directory")  # unwritable even for root
    app = App(settings)
    try:
        with caplog.at_level(logging.WARNING, logger="it_eli.runtime.audit"):
            for _ in range(3):
                is_error, payload = await call(app, "it_resolve", {"act_type": "legge", "year": 1990, "number": 241})
                assert not is_error and payload
    finally:
        await app.close()
    st = app.audit.status()
    assert st["failures"] == 3 and st["lines"] == 0 and not st["ok"] and st["last_error"]
    errors = [r for r in caplog.records if r.name == "it_eli.runtime.audit" and r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "UNAUDITED" in errors[0].getMessage()  # once, not per call

    # the directory comes back: writing resumes, and the recovery is said
    (settings.home / "logs").unlink()
    app2 = App(settings)
    app2.audit = app.audit
    with caplog.at_level(logging.WARNING, logger="it_eli.runtime.audit"):
        await call(app2, "it_resolve", {"act_type": "legge", "year": 1990, "number": 241})
    assert app.audit.status()["ok"] and app.audit.status()["lines"] == 1
    assert any("writable again" in r.getMessage() for r in caplog.records)
    app.audit.close()
