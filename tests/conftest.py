"""Shared fixtures: the captured upstream data (read in place) and settings for a test home."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from it_eli.runtime.config import load_settings

REPO_ROOT = Path(__file__).resolve().parent.parent


def testdata_dir() -> Path:
    return Path(os.environ.get("IT_ELI_TESTDATA") or (REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def testdata() -> Path:
    path = testdata_dir()
    if not path.is_dir():
        pytest.skip(f"captured upstream data not found at {path} (set IT_ELI_TESTDATA to ../shared/data)")
    return path


@pytest.fixture
def make_settings(tmp_path):
    """Settings for a throwaway IT_ELI_HOME; keyword args override env vars (name without prefix)."""

    def _make(**overrides: str):
        env = {"IT_ELI_HOME": str(tmp_path / "home"), "IT_ELI_THROTTLE_SECONDS": "0", "IT_ELI_HTTP_RETRIES": "1"}
        env["IT_ELI_TESTDATA"] = str(testdata_dir())
        for key, value in overrides.items():
            env["IT_ELI_" + key.upper()] = str(value)
        return load_settings(env)

    return _make
