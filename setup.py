"""The build steps pyproject.toml cannot say:

- Data files: a wheel ships copies of the server's data folders in ``server/_data/``, where
  :mod:`server.resources` finds them. The repository keeps them outside the package; an editable
  install copies nothing (it reads the checkout's own folders).
- Compiled hot paths: a wheel (``pip install .``, ``python -m build``, the Docker image) compiles
  the modules in ``COMPILED`` with mypyc (the rules' meld search and the bots' simulations: the
  same Python source, about three times faster). An editable install stays pure Python, so an
  edit shows at once. ``GINRUMMY_COMPILE``: ``auto`` (the default: wheels compiled, falling back
  to pure Python with a warning when no C compiler is found), ``1`` (always, editable installs
  too, in place; a failure stops the build), ``0`` (never).
"""

import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

# Kept in step with server.resources.LAYOUT (tests/test_wheel.py checks the wheel holds them).
DATA = {
    "rules": "seeds/rules",
    "ratings.json": "seeds/ratings.json",
    "migrations": "migrations",
    "alembic.ini": "alembic.ini",
    "web": "clients/web",
}

# Pure work on the engine's own values, never on a client's input. Compiled code checks its
# annotations (TypeError), so these stay Python: a module parsing the wire (cards.py: a card code
# that is not a string must be an InvalidCardError), one defining an enum whose docstring the
# documents print (mypyc replaces it: views.py's Phase, settle.py's ResultKind). A class defined
# here whose constructor takes arguments must pickle and copy by its constructor (``__reduce__``:
# melds.py's Meld and Arrangement go to the bot workers, match.py's HandLog to the analysis
# workers); a shared tuple kept in a typed list is held as Any (compiled, a typed tuple is
# unpacked and packed anew: match.py's _LOGGED). mypyc type-checks every module a listed one
# imports. ``MYPY_FLAGS`` have it look at no installed package (``--no-site-packages``: aiohttp,
# SQLAlchemy, msgspec... are untyped to it), so a wheel's isolated build environment (setuptools
# and mypy: pyproject.toml's ``[build-system]``) and a checkout's virtual environment (the
# benchmarks' compiled copies) see the same code and build the same C, and the build does not
# type-check SQLAlchemy (a third of an in-place build's time); it reports no error in a module it
# only follows nor an untyped return; the listed modules are checked as ever (and the whole
# package strictly by ``mypy`` in CI, with every package installed). A class subclassed by an
# interpreted one (ws_out's Outgoing) cannot be compiled. The writer and the commands compile and
# pass the suite (stop 46), but run 0.998x / 0.995x the instructions of a move between two people
# / against Normal: not listed. (In a compiled coroutine, a bare ``raise`` in an ``except`` block
# that awaited a failure it caught re-raised that caught failure, already freed: a segmentation
# fault; writer.py's commit names its failure.) tests/test_wheel.py checks each
# is an extension module in the wheel, that compiled and Python choose alike, and that the service
# sends the same state messages either way.
COMPILED = (
    "server/rules/melds.py",
    "server/rules/hand.py",
    "server/rules/match.py",
    "server/wire/convert.py",
    "server/transport/present.py",
    "server/storage/batch_sql.py",
    "server/bots/sim.py",
    "server/bots/handstrength.py",
    "server/bots/knowledge.py",
    "server/bots/rollout.py",
)
MYPY_FLAGS = (
    "--no-site-packages",
    "--ignore-missing-imports",
    "--follow-imports=silent",
    "--no-warn-unused-ignores",
    "--no-warn-return-any",
)
MODE = os.environ.get("GINRUMMY_COMPILE", "auto")


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib, "server", "_data")
        shutil.rmtree(target, ignore_errors=True)  # no stale copies from an earlier build
        target.mkdir(parents=True)
        for name, source in DATA.items():
            if Path(source).is_dir():
                ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")
                shutil.copytree(source, target / name, ignore=ignore)
            else:
                shutil.copy2(source, target / name)


class BuildCompiled(build_ext):
    """Builds the mypyc extensions in place of the placeholder, or nothing (pure Python)."""

    def finalize_options(self) -> None:
        self.distribution.ext_modules = self.compiled()
        super().finalize_options()

    def compiled(self) -> list[Extension]:
        if MODE == "0" or (MODE != "1" and self.editable_mode):
            return []
        try:
            from mypyc.build import mypycify

            return list(mypycify([*MYPY_FLAGS, *COMPILED], group_name="server_compiled"))
        except Exception as error:  # mypy missing or the sources not compilable
            return self.pure(error)

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no C compiler, no Python headers: pure Python still works
            self.pure(error)

    def pure(self, error: Exception) -> list[Extension]:
        if MODE == "1":
            raise error
        print(f"warning: mypyc compilation skipped, pure Python installed ({error})", file=sys.stderr)
        self.extensions = []
        return []


setup(
    cmdclass={"build_py": BuildPyWithData, "build_ext": BuildCompiled},
    # A placeholder: it makes the wheel platform-specific and runs BuildCompiled, which replaces it.
    ext_modules=[] if MODE == "0" else [Extension("server_compiled", sources=[])],
)
