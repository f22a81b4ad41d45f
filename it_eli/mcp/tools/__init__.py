"""Tool logic: plain async functions, registered in .registry, adapted by it_eli.mcp.server."""

import importlib
import logging

log = logging.getLogger(__name__)

# Every module that registers tools. A module that is missing (not yet built) is skipped.
TOOL_MODULES = ("caselaw", "legislation", "live", "verify")


_loaded = False


def load_all() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in TOOL_MODULES:
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.endswith(f"tools.{name}"):
                continue
            raise
