"""The one build step pyproject.toml cannot say: ship the notebooks and sample data.

`notebooks/` and `data/` stay where they are in the checkout (nbval, `pixops lab`, the
README's commands use them there); building a wheel copies the files
`pixops._bundled.BUNDLED` names into the package as `pixops/_bundle/`, so an installed
pixops carries them. An editable install copies nothing: it reads the checkout.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _bundled_module() -> ModuleType:
    """`src/pixops/_bundled.py` (standard library only), without importing pixops."""
    spec = importlib.util.spec_from_file_location(
        "_pixops_bundled", ROOT / "src/pixops/_bundled.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithNotebooks(build_py):
    """`build_py`, then the notebooks and sample data into `pixops/_bundle/`."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        bundled = _bundled_module()
        files = list(bundled.bundled_files(ROOT))
        if not any(name.endswith(".ipynb") for name in files):
            raise SystemExit(f"no notebooks under {ROOT / 'notebooks'}: cannot build pixops")
        target = Path(self.build_lib) / "pixops" / bundled.BUNDLE_FOLDER
        shutil.rmtree(target, ignore_errors=True)
        for name in files:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, target / name)


setup(cmdclass={"build_py": BuildWithNotebooks})
