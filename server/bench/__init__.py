"""Benchmarks and measurement scripts: ``python -m server.bench NAME [options]``.

Each NAME is a module of this package with a ``main(argv)`` function (``rules``, ``tournament``,
``load``, ...). They print figures; they are not tests. OpenSpiel and RLCard, used as baselines,
are test-only dependencies (``pip install -e ".[test]"``).
"""
