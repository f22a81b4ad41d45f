"""`it-eli tool` with arguments nested deeper than a JSON reader recurses: a typed bad-input error
(exit 2) that says what is valid, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from it_eli.runtime import exitcodes


@pytest.mark.parametrize("arguments", [
    '{"query": %s}' % ("[" * 1500 + "]" * 1500),
    '{"query": %s}' % ('{"a":' * 5000 + "1" + "}" * 5000),
    "[" * 60_000 + "]" * 60_000,  # near the longest argument a command line takes
])
def test_deep_tool_arguments_are_bad_input(tmp_path, arguments):
    env = {**os.environ, "IT_ELI_HOME": str(tmp_path / "home"), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING"}
    r = subprocess.run([sys.executable, "-m", "it_eli", "tool", "it_case_search", arguments], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == exitcodes.BAD_INPUT
    assert "Traceback" not in r.stderr and "nest too deeply" in r.stderr and "levels of nesting" in r.stderr
