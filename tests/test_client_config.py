"""The README's MCP client set-up can be pasted as it is: each JSON snippet is valid JSON in the
shape its client reads, each command runs the console script this package declares with
arguments `it-eli` accepts, and each URL is where `it-eli serve --transport http` listens.
Until a release is on a package index, what the README leads with installs from the checkout;
what fetches the package by name waits under "After the first release"."""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from it_eli.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README.split("## MCP clients\n", 1)[1].split("\n## ", 1)[0]
RELEASE_MARK = "### After the first release\n"
NOW, _, LATER = SECTION.partition(RELEASE_MARK)
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SCRIPT = "it-eli"
DIST = PYPROJECT["project"]["name"].replace("_", "-")
# the file name `pip wheel .` gives this project (PEP 427: name normalised with underscores)
WHEEL = f"{re.sub(r'[-_.]+', '_', PYPROJECT['project']['name']).lower()}-{PYPROJECT['project']['version']}-py3-none-any.whl"


def _json_snippets(text: str) -> list[str]:
    return re.findall(r"```json\n(.*?)```", text, re.DOTALL)


def _shell_lines(text: str) -> list[str]:
    return [line for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL) for line in block.splitlines() if line]


JSON_SNIPPETS = _json_snippets(SECTION)
SHELL_LINES = _shell_lines(SECTION)


def _serve_defaults():
    args = build_parser().parse_args(["serve", "--transport", "http"])
    return args.host, args.port


def _fetches_by_name(argv: list[str]) -> bool:
    """True for a command that asks a package index for DIST (fails until a release exists)."""
    return argv[0] == "uvx" or argv[:2] == ["pipx", "run"] or argv[:3] == ["pipx", "install", DIST]


def _commands(text: str) -> list[list[str]]:
    argvs = [shlex.split(c) for line in _shell_lines(text) for c in line.split(" && ")]
    for snippet in _json_snippets(text):
        for entry in json.loads(snippet)[next(iter(json.loads(snippet)))].values():
            if "command" in entry:
                argvs.append([entry["command"], *entry["args"]])
    for argv in list(argvs):
        if argv[:3] == ["claude", "mcp", "add"] and "--" in argv:
            argvs.append(argv[argv.index("--") + 1:])
    return argvs


def _check_invocation(argv: list[str]) -> None:
    """`uvx --from DIST it-eli ...`, `pipx run --spec DIST it-eli ...` or `it-eli ...`: the
    script is ours and the CLI accepts the arguments."""
    if argv[0] == "uvx":
        assert argv[1:3] == ["--from", DIST], argv
        argv = argv[3:]
    elif argv[:2] == ["pipx", "run"]:
        assert argv[2:4] == ["--spec", DIST], argv
        argv = argv[4:]
    assert argv[0] == SCRIPT, argv
    build_parser().parse_args(argv[1:])  # exits (SystemExit) on arguments the CLI refuses


def _check_url(url: str) -> None:
    host, port = _serve_defaults()
    parts = urlsplit(url)
    assert (parts.scheme, parts.hostname, parts.port, parts.path) == ("http", host, port, "/mcp"), url


def test_the_console_script_is_declared():
    assert PYPROJECT["project"]["scripts"][SCRIPT] == "it_eli.cli.main:main"


def test_there_is_a_snippet_for_every_client_and_transport():
    assert len(JSON_SNIPPETS) >= 7
    for client in ("Claude Desktop", "Claude Code", "VS Code", "Cursor"):
        assert f"**{client}**" in SECTION
    assert sum('"url"' in s for s in JSON_SNIPPETS) >= 3 and sum('"command"' in s for s in JSON_SNIPPETS) >= 4


@pytest.mark.parametrize("snippet", JSON_SNIPPETS)
def test_each_json_snippet_is_a_valid_server_entry(snippet):
    config = json.loads(snippet)
    (key,) = config  # VS Code reads "servers", the others "mcpServers"
    assert key in ("mcpServers", "servers")
    for entry in config[key].values():
        if "command" in entry:
            assert entry.get("type", "stdio") == "stdio"
            _check_invocation([entry["command"], *entry["args"]])
        else:
            assert entry.get("type", "http") == "http" and set(entry) <= {"type", "url"}
            _check_url(entry["url"])


@pytest.mark.parametrize("line", SHELL_LINES)
def test_each_one_liner_runs_the_server(line):
    for command in line.split(" && "):
        argv = shlex.split(command)
        if argv[:2] == ["pipx", "install"]:
            assert argv[2:] == [DIST] or fnmatch.fnmatch(WHEEL, Path(argv[2]).name), argv
            assert argv[2:] == [DIST] or argv[2].startswith("dist/"), argv
        elif argv[1:3] == ["wheel", "."] and argv[0].endswith("pip"):
            assert argv[3:] == ["--no-deps", "-w", "dist"], argv
        elif argv[:3] == ["python3", "-m", "venv"]:
            assert len(argv) == 4, argv
        elif argv[:3] == ["claude", "mcp", "add"]:
            if "--" in argv:
                _check_invocation(argv[argv.index("--") + 1:])
            else:
                assert argv[3:6] == ["--transport", "http", SCRIPT]
                _check_url(argv[6])
        else:
            _check_invocation(argv)


def test_the_commands_it_leads_with_work_without_a_release():
    """Every command and stdio entry before "After the first release" installs or runs from the
    checkout; none asks a package index for a package that is not published yet."""
    assert NOW.strip() and LATER.strip(), "the MCP clients section needs its 'After the first release' part"
    now = _commands(NOW)
    assert any(argv[:2] == ["pipx", "install"] for argv in now)
    fetching = [argv for argv in now if _fetches_by_name(argv)]
    assert not fetching, fetching
    assert any(_fetches_by_name(argv) for argv in _commands(LATER))
