"""`it-eli` command line: serve, index build, statutes import, verify, and any tool by name.

The CLI calls the same tool functions as the MCP server (through the registry).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time

from . import __version__
from .errors import ItEliError

log = logging.getLogger("it_eli")


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


class _Progress:
    """A one-line progress display on a terminal (stderr); silent when not a terminal."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.started = time.monotonic()

    def __call__(self, count: int, where: str) -> None:
        if not self.tty:
            return
        rate = count / max(time.monotonic() - self.started, 1e-6)
        sys.stderr.write(f"\r  indexing: {count:>7} decisions  {rate:7.0f}/s  {where[-40:]:<40}")
        sys.stderr.flush()

    def done(self) -> None:
        if self.tty:
            sys.stderr.write("\r" + " " * 90 + "\r")
            sys.stderr.flush()


def _cmd_serve(args, settings) -> int:
    from .app import App
    from .server import serve

    serve(args.transport, args.host, args.port, app=App(settings))
    return 0


def _cmd_index_build(args, settings) -> int:
    from .app import App
    from .build import build_from_sources

    progress = _Progress()

    async def run():
        app = App(settings)
        try:
            return await build_from_sources(app, args.source or None, progress)
        finally:
            await app.close()

    report = asyncio.run(run())
    progress.done()
    rejected = sum(report.rejected.values())
    status = "published" if report.published else "NOT published (previous index kept)"
    years = f"{report.year_range[0]}-{report.year_range[1]}" if report.year_range else "-"
    print(
        f"indexed {report.indexed} decisions ({years}) in {report.seconds:.1f}s; "
        f"{report.duplicates} duplicates, {rejected} rejected, {len(report.errors)} source errors; {status}"
    )
    for reason, n in sorted(report.rejected.items()):
        print(f"  rejected {n}: {reason}", file=sys.stderr)
    for err in report.errors[:20]:
        print(f"  error: {err}", file=sys.stderr)
    return 0 if report.published else 1


def _cmd_index_status(args, settings) -> int:
    from .decisions import DecisionIndex

    stats = DecisionIndex(settings).stats()
    import msgspec

    print(msgspec.json.format(msgspec.json.encode(stats)).decode())
    return 0


def _cmd_tool(args, settings) -> int:
    from .app import App
    from .tools import load_all
    from .tools.registry import TOOLS, call

    load_all()
    if args.name == "list":
        for name, spec in sorted(TOOLS.items()):
            print(f"{name}: {spec.description[:100]}")
        return 0
    try:
        arguments = json.loads(args.arguments) if args.arguments else {}
    except json.JSONDecodeError as exc:
        print(f"arguments are not JSON: {exc}", file=sys.stderr)
        return 2

    async def run():
        app = App(settings)
        try:
            return await call(app, args.name, arguments)
        finally:
            await app.close()

    is_error, payload = asyncio.run(run())
    print(json.dumps(payload, ensure_ascii=False, indent=1))
    return 1 if is_error else 0


def _cmd_statutes_import(args, settings) -> int:
    from .statutes import import_files

    report = import_files(settings, args.files)
    print(
        f"imported {report.articles} articles from {report.acts} acts in {report.seconds:.1f}s; "
        f"{len(report.errors)} files refused"
    )
    for err in report.errors:
        print(f"  error: {err}", file=sys.stderr)
    return 0 if not report.errors else 1


def _cmd_statutes_rebuild(args, settings) -> int:
    from .statutes import StatuteStore

    started = time.monotonic()
    n = StatuteStore(settings).rebuild()
    print(f"rebuilt the statute index: {n} articles from the kept exports in {time.monotonic() - started:.1f}s")
    return 0


def _cmd_verify(args, settings) -> int:
    from .verify_cli import run_verify

    return run_verify(args, settings)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="it-eli", description="Italian law search appliance and MCP server.")
    p.add_argument("--version", action="version", version=f"it_eli {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("serve", help="run the MCP server (stdio by default)")
    s.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8765)
    s.set_defaults(func=_cmd_serve)

    idx = sub.add_parser("index", help="the Constitutional Court index")
    isub = idx.add_subparsers(dest="index_command", required=True)
    b = isub.add_parser("build", help="build the index from the Court's open data (or --source files/URLs)")
    b.add_argument("--source", action="append", metavar="PATH_OR_URL", help="archive, JSON file, directory or URL (repeatable)")
    b.set_defaults(func=_cmd_index_build)
    st = isub.add_parser("status", help="what the index holds")
    st.set_defaults(func=_cmd_index_status)

    stat = sub.add_parser("statutes", help="the local statute index")
    ssub = stat.add_subparsers(dest="statutes_command", required=True)
    imp = ssub.add_parser("import", help="load Akoma Ntoso exports (Normattiva 'Esporta in Akoma Ntoso')")
    imp.add_argument("files", nargs="+", metavar="FILE.xml")
    imp.set_defaults(func=_cmd_statutes_import)
    reb = ssub.add_parser("rebuild", help="re-create the statute index from the kept exports (after an upgrade)")
    reb.set_defaults(func=_cmd_statutes_rebuild)

    v = sub.add_parser("verify", help="verify the citations in a text (exit 1 on a hallucination)")
    v.add_argument("file", metavar="FILE|-")
    v.add_argument("--format", choices=["json", "text"], default="text")
    v.add_argument("--at-date", dest="at_date", default=None, help="check the law in force on YYYY-MM-DD")
    v.add_argument("--offline", action="store_true", help="local indexes only (no upstream requests)")
    v.set_defaults(func=_cmd_verify)

    t = sub.add_parser("tool", help="call any MCP tool by name with JSON arguments ('tool list' lists them)")
    t.add_argument("name")
    t.add_argument("arguments", nargs="?", default=None, help="JSON object of arguments")
    t.set_defaults(func=_cmd_tool)
    return p


def stdout_to_devnull() -> None:
    """After a BrokenPipeError on stdout: Python flushes stdout again at exit, so point it at
    /dev/null, or that flush fails with a second traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from .config import load_settings

    try:
        settings = load_settings()
        _setup_logging(settings.log_level)
        if args.command in ("index", "statutes"):  # the server cleans at its own start
            from .housekeeping import clean_at_start

            clean_at_start(settings)
        return args.func(args, settings)
    except ItEliError as exc:
        print(f"error ({exc.code}): {exc.message}" + (f" — valid: {exc.valid}" if exc.valid else ""), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`it-eli tool ... | head`): no traceback
        stdout_to_devnull()
        return 1


if __name__ == "__main__":
    sys.exit(main())
