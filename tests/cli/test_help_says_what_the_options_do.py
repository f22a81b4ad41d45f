"""`--help` tells a newcomer what each option does and what a file will be: the export is a
Zstandard tar, `verify --format` has two documented formats, `tool` reads `-` from stdin."""

from __future__ import annotations

import pytest

from it_eli.cli.main import main


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines: compare words


def test_index_export_names_the_zstandard_archive(capsys):
    text = _help(capsys, "index", "export")
    assert ".tar.zst" in text and "Zstandard" in text
    assert ".tar.gz" not in text and "gzip" not in text


def test_verify_describes_each_output_format(capsys):
    text = _help(capsys, "verify")
    described = text.split("--format", 1)[1]
    assert "text (default): a report for people" in described
    assert "json: the full result" in described and "it_verify_citations" in described
    assert "- reads standard input" in text


def test_tool_says_dash_reads_the_arguments_from_stdin(capsys):
    assert "- reads it from standard input" in _help(capsys, "tool")
