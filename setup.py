"""The build step that puts the server's data files into the wheel (everything else is in
pyproject.toml). The repository keeps them outside the package; a wheel ships copies in
``server/_data/``, where :mod:`server.resources` finds them. An editable install copies nothing:
it reads the checkout's own folders."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

# Kept in step with server.resources.LAYOUT (tests/test_wheel.py checks the wheel holds them).
DATA = {
    "rules": "seeds/rules",
    "ratings.json": "seeds/ratings.json",
    "migrations": "migrations",
    "alembic.ini": "alembic.ini",
    "web": "clients/web",
}


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


setup(cmdclass={"build_py": BuildPyWithData})
