"""Build hook for the compiled engine: with ARBITER_COMPILE=1, mypyc compiles the modules of
``arbiter._build.COMPILED`` (one source for both builds; ``make`` decides when). Everything else
about the package is in pyproject.toml."""

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_ext import build_ext


def _load_build_module() -> ModuleType:
    """arbiter/_build.py, loaded from its file: importing the package would run its __init__."""
    path = Path(__file__).resolve().parent / "arbiter" / "_build.py"
    spec = importlib.util.spec_from_file_location("arbiter_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and typing look modules up by name
    spec.loader.exec_module(module)
    return module


_build = _load_build_module()


class _BuildAndStamp(build_ext):
    """build_ext that records which sources the extensions were compiled from."""

    def run(self) -> None:
        super().run()
        if self.extensions:
            name = _build.STAMP.name
            _build.write_stamp(
                _build.STAMP if self.inplace else Path(self.build_lib, "arbiter", name)
            )


def _extensions() -> list:
    if os.environ.get("ARBITER_COMPILE") != "1":
        return []
    from mypyc.build import mypycify

    sources = [str(_build.source_of(m).relative_to(_build.PACKAGE_ROOT)) for m in _build.COMPILED]
    return mypycify(sources, group_name=_build.GROUP, opt_level="3", debug_level="0")


setup(ext_modules=_extensions(), cmdclass={"build_ext": _BuildAndStamp})
