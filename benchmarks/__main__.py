"""Dispatcher: `python -m benchmarks list` | `python -m benchmarks <name> [options]`."""

from __future__ import annotations

import importlib
import sys

from . import REGISTRY


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("list", "-h", "--help", "help"):
        width = max(len(n) for n in REGISTRY)
        print("usage: python -m benchmarks <name> [options]   (python -m benchmarks <name> --help)\n")
        for name, (_, desc) in sorted(REGISTRY.items()):
            print(f"  {name:<{width}}  {desc}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in REGISTRY:
        print(f"unknown benchmark {name!r}; known: {', '.join(sorted(REGISTRY))}", file=sys.stderr)
        return 2
    module = importlib.import_module(REGISTRY[name][0])
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
