"""Build hook for the compiled engine: with ARBITER_COMPILE=1, mypyc compiles the modules of
``arbiter._build.COMPILED`` (one source for both builds; ``make`` decides when). Everything else
about the package is in pyproject.toml."""

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arbiter import _build  # noqa: E402  (plain Python; imports nothing of the engine)


class _BuildAndStamp(build_ext):
    """build_ext that records which sources the extensions were compiled from."""

    def run(self) -> None:
        super().run()
        if self.extensions:
            name = _build.STAMP.name
            _build.write_stamp(_build.STAMP if self.inplace else Path(self.build_lib, "arbiter", name))


def _extensions() -> list:
    if os.environ.get("ARBITER_COMPILE") != "1":
        return []
    from mypyc.build import mypycify

    sources = [str(_build.source_of(m).relative_to(_build.PACKAGE_ROOT)) for m in _build.COMPILED]
    return mypycify(sources, group_name=_build.GROUP, opt_level="3", debug_level="0")


setup(ext_modules=_extensions(), cmdclass={"build_ext": _BuildAndStamp})
