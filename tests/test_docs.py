"""The README stays true: its commands are the ones CI runs, and every env var is documented."""

from __future__ import annotations

import re
from pathlib import Path

from it_eli.runtime.config import ENV_VARS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _code_blocks() -> list[str]:
    return [b.strip() for b in re.findall(r"```\n(.*?)```", README, re.S)]


def test_readme_opens_with_the_serve_and_test_commands():
    first, second = _code_blocks()[:2]
    assert first.endswith("it-eli serve") and "pip install" in first
    assert second.endswith("python -m pytest") and "pip install" in second


def test_ci_runs_exactly_the_readme_test_command():
    test_command = _code_blocks()[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()


def test_every_env_var_is_documented_with_its_default():
    rows = dict(re.findall(r"^\| `(IT_ELI_[A-Z0-9_]+)` \| `([^`]*)` \|", README, re.M))
    assert set(rows) == set(ENV_VARS)
    for name, (default, _) in ENV_VARS.items():
        assert rows[name] == default, name


def test_config_reads_no_env_var_that_is_not_documented():
    code = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "it_eli").rglob("*.py"))
    used = set(re.findall(r"IT_ELI_[A-Z0-9_]+", code))
    assert used <= set(ENV_VARS), used - set(ENV_VARS)


def test_each_env_var_row_and_section_appears_once():
    rows = re.findall(r"^\| `(IT_ELI_[A-Z0-9_]+)` \|", README, re.MULTILINE)
    assert len(rows) == len(set(rows)), sorted({r for r in rows if rows.count(r) > 1})
    headings = re.findall(r"^#{2,3} (.+)$", README, re.MULTILINE)
    assert len(headings) == len(set(headings)), sorted({h for h in headings if headings.count(h) > 1})
