"""``python -m server.bench NAME [options]``: run the benchmark module ``server.bench.NAME``."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import server.bench


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    names = sorted(m.name for m in pkgutil.iter_modules(server.bench.__path__) if not m.name.startswith("_"))
    if not argv or argv[0] not in names:
        print(f"usage: python -m server.bench {{{','.join(names)}}} [options]", file=sys.stderr)
        return 2
    module = importlib.import_module(f"server.bench.{argv[0]}")
    return module.main(argv[1:]) or 0


if __name__ == "__main__":
    raise SystemExit(main())
