"""`it-eli` command line: serve, index build, statutes import, verify, and any tool by name.

The CLI calls the same tool functions as the MCP server (through the registry).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import textwrap
import time

from it_eli import __version__
from it_eli.cli.streams import read_stdin_bounded, stdout_to_devnull
from it_eli.runtime import exitcodes
from it_eli.runtime.errors import ItEliError

log = logging.getLogger("it_eli")

# `it-eli tool NAME -`: the largest JSON read from stdin; room for the largest text a tool takes
# (1,000,000 characters, each up to 6 bytes as a JSON \u escape) and the other arguments
TOOL_STDIN_MAX_BYTES = 8 * 1024 * 1024


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def _cmd_serve(args, settings) -> int:
    from it_eli.mcp.server import serve
    from it_eli.services.app import App

    serve(args.transport, args.host, args.port, app=App(settings))
    return 0


def _cmd_index_build(args, settings) -> int:
    from it_eli.runtime.progress import TerminalProgress, reporting
    from it_eli.services.app import App
    from it_eli.services.index_build import build_from_sources

    bar = TerminalProgress()  # downloads and indexing, on a terminal only

    async def run():
        app = App(settings)
        try:
            with reporting(bar):
                return await build_from_sources(app, args.source or None, full=getattr(args, "full", False))
        except asyncio.CancelledError:  # Ctrl-C: the build stops at the next decision
            print("interrupted: stopping the build; nothing is published (the previous index keeps serving)",
                  file=sys.stderr, flush=True)
            raise
        finally:
            await app.close()

    try:
        report = asyncio.run(run())
    finally:
        bar.close()
    rejected = sum(report.rejected.values())
    up_to_date = report.incremental and not report.published and not report.errors
    status = ("published" if report.published else
              "already up to date (index unchanged)" if up_to_date else "NOT published (previous index kept)")
    years = f"{report.year_range[0]}-{report.year_range[1]}" if report.year_range else "-"
    what = (f"added {report.added}, replaced {report.replaced}, {report.unchanged} unchanged"
            if report.incremental else f"indexed {report.indexed} decisions")
    print(
        f"{what} ({years}) in {report.seconds:.1f}s; "
        f"{report.duplicates} duplicates, {rejected} rejected, {len(report.errors)} source errors; {status}"
    )
    for reason, n in sorted(report.rejected.items()):
        print(f"  rejected {n}: {reason}", file=sys.stderr)
    for err in report.errors[:20]:
        print(f"  error: {err}", file=sys.stderr)
    return exitcodes.OK if report.published or up_to_date else exitcodes.UNAVAILABLE


def _cmd_index_status(args, settings) -> int:
    from it_eli.search.decisions.reader import DecisionIndex

    stats = DecisionIndex(settings).stats()
    import msgspec

    print(msgspec.json.format(msgspec.json.encode(stats)).decode())
    return 0


def _cmd_index_export(args, settings) -> int:
    from pathlib import Path

    from it_eli.search.index_archive import export_index

    r = export_index(settings, Path(args.file).expanduser(), with_statutes=args.with_statutes)
    parts = ", ".join(f"{ix.root} ({ix.count} docs)" for ix in r.indexes)
    print(f"exported {parts} to {r.path}: {r.bytes} bytes ({r.unpacked_bytes} unpacked, {r.files} files) in {r.seconds:.1f}s")
    print(f"sha256 {r.sha256}")
    return exitcodes.OK


def _cmd_index_import(args, settings) -> int:
    from it_eli.services.app import App
    from it_eli.services.index_build import import_from

    async def run():
        app = App(settings)
        try:
            return await import_from(app, args.archive, sha256=args.sha256)
        finally:
            await app.close()

    r = asyncio.run(run())
    parts = ", ".join(f"{ix.root} ({ix.count} docs)" for ix in r.indexes)
    print(f"imported {parts} from {r.archive} (sha256 {r.sha256}) in {r.seconds:.1f}s; published: {', '.join(r.published)}")
    return exitcodes.OK


def _cmd_tool(args, settings) -> int:
    from it_eli.mcp.tools import load_all
    from it_eli.mcp.tools.registry import TOOLS, call
    from it_eli.services.app import App

    load_all()
    if args.name == "list":
        for name, spec in sorted(TOOLS.items()):
            # the first sentence-ish, cut at a word boundary
            print(f"{name}: {textwrap.shorten(spec.description, width=100, placeholder=' …')}")
        return 0
    raw = read_stdin_bounded(TOOL_STDIN_MAX_BYTES, "the JSON arguments") if args.arguments == "-" else args.arguments
    try:
        arguments = json.loads(raw) if raw else {}
    except json.JSONDecodeError as exc:
        print(f"arguments are not JSON: {exc}", file=sys.stderr)
        return exitcodes.BAD_INPUT
    except RecursionError:
        print("arguments nest too deeply: give a JSON object of arguments with under 150 levels of nesting",
              file=sys.stderr)
        return exitcodes.BAD_INPUT

    async def run():
        app = App(settings)
        try:
            return await call(app, args.name, arguments)
        finally:
            await app.close()

    is_error, payload = asyncio.run(run())
    print(json.dumps(payload, ensure_ascii=False, indent=1))
    if "status" in payload and "summary" in payload:  # a verification: its verdict's code
        return exitcodes.for_status(payload["status"])
    return exitcodes.for_error(payload.get("code", "internal_error")) if is_error else exitcodes.OK


def _cmd_statutes_import(args, settings) -> int:
    from it_eli.runtime.progress import TerminalProgress, reporting
    from it_eli.search.statutes.loading import import_files

    bar = TerminalProgress()  # on a terminal only
    try:
        with reporting(bar):
            report = import_files(settings, args.files)
    finally:
        bar.close()
    print(
        f"imported {report.articles} articles from {report.acts} acts in {report.seconds:.1f}s; "
        f"{len(report.errors)} files refused"
    )
    for err in report.errors:
        print(f"  error: {err}", file=sys.stderr)
    return exitcodes.OK if not report.errors else exitcodes.BAD_INPUT


def _cmd_statutes_rebuild(args, settings) -> int:
    from it_eli.search.statutes.store import StatuteStore

    started = time.monotonic()
    n = StatuteStore(settings).rebuild()
    print(f"rebuilt the statute index: {n} articles from the kept exports in {time.monotonic() - started:.1f}s")
    return 0


def _cmd_verify(args, settings) -> int:
    from .verify import run_verify

    return run_verify(args, settings)


def _port(value: str) -> int:
    """A TCP port, refused by argparse with a clear message (exit 2), never a traceback."""
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number (1-65535)") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a TCP port: use 1-65535")
    return port


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="it-eli", description="Italian law search appliance and MCP server.")
    p.add_argument("--version", action="version", version=f"it_eli {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("serve", help="run the MCP server (stdio by default)",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    s.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                   help="stdio for a client that starts the server; http for streamable HTTP at /mcp")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (http only)")
    s.add_argument("--port", type=_port, default=8765, help="TCP port to listen on (http only), 1-65535")
    s.set_defaults(func=_cmd_serve)

    idx = sub.add_parser("index", help="the Constitutional Court index")
    isub = idx.add_subparsers(dest="index_command", required=True)
    b = isub.add_parser("build", help="build the index from the Court's open data (or --source files/URLs)")
    b.add_argument("--source", action="append", metavar="PATH_OR_URL", help="archive, JSON file, directory or URL (repeatable)")
    b.add_argument("--full", action="store_true",
                   help="rebuild everything (default: add only what the current index lacks, replace what changed)")
    b.set_defaults(func=_cmd_index_build)
    u = isub.add_parser("update", help="add the Court's newly published decisions to the index (for a scheduled job)")
    u.add_argument("--source", action="append", metavar="PATH_OR_URL", help="archive, JSON file, directory or URL (repeatable)")
    u.set_defaults(func=_cmd_index_build)
    st = isub.add_parser("status", help="what the index holds")
    st.set_defaults(func=_cmd_index_status)
    ex = isub.add_parser("export", help="write the current index to one verified archive (manifest + sha256 of every file)")
    ex.add_argument("file", metavar="FILE", help="the archive to write, a Zstandard-compressed tar (e.g. it_eli-decisions.tar.zst)")
    ex.add_argument("--with-statutes", action="store_true", help="include the statute index and its kept exports")
    ex.set_defaults(func=_cmd_index_export)
    im = isub.add_parser("import", help="check an exported archive and publish it in place of the current index")
    im.add_argument("archive", metavar="FILE_OR_URL")
    im.add_argument("--sha256", metavar="HEX", default=None, help="refuse the archive unless its sha256 is this")
    im.set_defaults(func=_cmd_index_import)

    stat = sub.add_parser("statutes", help="the local statute index")
    ssub = stat.add_subparsers(dest="statutes_command", required=True)
    imp = ssub.add_parser("import", help="load Akoma Ntoso exports (Normattiva 'Esporta in Akoma Ntoso')")
    imp.add_argument("files", nargs="+", metavar="FILE.xml")
    imp.set_defaults(func=_cmd_statutes_import)
    reb = ssub.add_parser("rebuild", help="re-create the statute index from the kept exports (after an upgrade)")
    reb.set_defaults(func=_cmd_statutes_rebuild)

    v = sub.add_parser("verify", help="verify the citations in a text (exit 1 on a hallucination)")
    v.add_argument("file", metavar="FILE|-", help="the UTF-8 text to check (- reads standard input)")
    v.add_argument("--format", choices=["json", "text"], default="text",
                   help="text (default): a report for people, one line per citation and the gaps; "
                        "json: the full result, as the it_verify_citations tool returns it")
    v.add_argument("--at-date", dest="at_date", default=None, help="check the law in force on YYYY-MM-DD")
    v.add_argument("--offline", action="store_true", help="local indexes only (no upstream requests)")
    v.set_defaults(func=_cmd_verify)

    t = sub.add_parser("tool", help="call any MCP tool by name with JSON arguments ('tool list' lists them)")
    t.add_argument("name")
    t.add_argument("arguments", nargs="?", default=None, metavar="JSON|-",
                   help="JSON object of arguments; - reads it from standard input (for large arguments)")
    t.set_defaults(func=_cmd_tool)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from it_eli.runtime.config import load_settings

    try:
        settings = load_settings()
        _setup_logging(settings.log_level)
        if args.command in ("index", "statutes"):  # the server cleans at its own start
            from it_eli.search.housekeeping import clean_at_start

            clean_at_start(settings)
        return args.func(args, settings)
    except ItEliError as exc:
        print(f"error ({exc.code}): {exc.message}" + (f" — valid: {exc.valid}" if exc.valid else ""), file=sys.stderr)
        return exitcodes.for_error(exc.code)
    except KeyboardInterrupt:
        return exitcodes.INTERRUPTED
    except BrokenPipeError:
        # the reader went away (`it-eli tool ... | head`): no traceback, and not a failure
        stdout_to_devnull()
        return exitcodes.OK
    except Exception:  # a bug: its own exit code, never one that reads as a verdict
        log.exception("internal error (a bug; please report it with the traceback below)")
        return exitcodes.INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
