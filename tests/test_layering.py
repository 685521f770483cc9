"""Layers: importing the primitives, the schema, the client or the data layers never
loads the engine (issue 9 item 1), each checked in a fresh interpreter; and the import
contracts of docs/layers.md, checked by import-linter on every import (issue 28)."""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

PRIMITIVES = [
    "pixops.money",
    "pixops.ids",
    "pixops.wire",
    "pixops.brcode",
    "pixops.pixkeys",
    "pixops.documents",
    "pixops.participants",
    "pixops.errors",
    "pixops._version",
]
UPPER_LAYERS = ["pixops.webhooks", "pixops.schema", "pixops.client"]
#: Packages other issues add; checked as soon as they exist.
LATER_LAYERS = ["pixops.frames", "pixops.recon", "pixops.widgets"]


@functools.cache
def loaded_after(statement: str) -> list[str]:
    """Every module name loaded by running `statement` in a fresh interpreter (asked once
    per statement: several tests read what `import pixops.frames` loads, ~1 s each)."""
    script = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    names: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return names


def engine_modules(names: list[str]) -> list[str]:
    return [
        n
        for n in names
        if n == "pixops.engine" or n.startswith(("pixops.engine.", "pixops.sandbox"))
    ]


@pytest.mark.parametrize("module", PRIMITIVES)
def test_a_primitive_loads_neither_the_engine_nor_httpx_nor_pydantic(module: str) -> None:
    names = loaded_after(f"import {module}")
    assert engine_modules(names) == []
    assert "httpx" not in names
    assert "pydantic" not in names
    assert "sqlite3" not in names


def existing(modules: list[str]) -> list[str]:
    return [m for m in modules if importlib.util.find_spec(m) is not None]


@pytest.mark.parametrize("module", UPPER_LAYERS + existing(LATER_LAYERS))
def test_an_upper_layer_never_loads_the_engine(module: str) -> None:
    assert engine_modules(loaded_after(f"import {module}")) == []


def test_the_frames_take_a_client_without_loading_the_http_stack() -> None:
    """Duck-typed on the client: parsing pages or reading a local store needs no httpx or
    pydantic (their ~20 MiB counted in the million-row peak of `bench_frames.py`)."""
    names = loaded_after("import pixops.frames")
    assert [n for n in names if n.startswith(("pixops.client", "pixops.schema"))] == []
    assert "httpx" not in names
    assert "pydantic" not in names
    # Parquet and CSV readers (~6 MiB) load when a saved frame is read, not before.
    assert "pyarrow.parquet" not in names
    assert "pyarrow.csv" not in names


def test_the_public_client_names_load_no_engine() -> None:
    names = loaded_after("import pixops\npixops.Client, pixops.AsyncClient, pixops.PixopsError")
    assert engine_modules(names) == []


def test_sandbox_is_loaded_lazily_from_the_package() -> None:
    assert engine_modules(loaded_after("import pixops")) == []
    names = loaded_after("import pixops\npixops.Sandbox")
    assert "pixops.engine.core" in names


def test_the_version_has_its_own_module() -> None:
    import pixops
    from pixops._version import __version__

    assert pixops.__version__ == __version__
    with pytest.raises(AttributeError):
        _ = pixops.NoSuchThing  # type: ignore[attr-defined]


def test_pixops_error_is_the_root_of_the_client_errors() -> None:
    import pixops
    from pixops import client

    for name in client.__all__:
        value = getattr(client, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, pixops.PixopsError), name


# -- the import contracts (pyproject.toml [tool.importlinter], docs/layers.md) ---------

ROOT = Path(__file__).resolve().parent.parent


def contracts() -> list[dict[str, Any]]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        found: list[dict[str, Any]] = tomllib.load(file)["tool"]["importlinter"]["contracts"]
    return found


def test_the_import_contracts_hold(capsys: pytest.CaptureFixture[str]) -> None:
    """import-linter reads every import, inside functions too (type-only imports under
    `if TYPE_CHECKING:` left out), and checks the layers' contracts."""
    from importlinter.cli import lint_imports

    # import-linter configures logging with dictConfig, which disables every logger that
    # exists already (pixops.client, pixops.engine): a later test on this worker would then
    # capture none of their records. Their state is put back after the run.
    loggers = [
        logger
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger) and not logger.disabled
    ]
    try:
        code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    finally:
        for logger in loggers:
            logger.disabled = False
    report = capsys.readouterr().out
    assert code == 0, report
    assert "0 broken" in report


def test_every_module_of_pixops_has_a_layer() -> None:
    """A new top-level module must be named in the primitives' contract, as a primitive or
    as one of the layers above them, so that no module escapes the contracts."""
    import pixops

    primitives = next(c for c in contracts() if c["id"] == "primitives")
    named = set(primitives["source_modules"]) | set(primitives["forbidden_modules"])
    modules = {f"pixops.{info.name}" for info in pkgutil.iter_modules(pixops.__path__)}
    assert modules - named == set(), "name the new module in pyproject's primitives contract"
    assert named - modules == set(), "a module named in the contracts no longer exists"


HEAVY = ("plotly", "duckdb", "pandas", "pyarrow", "ipywidgets", "httpx", "pydantic")


def test_importing_the_widgets_loads_no_heavy_library() -> None:
    """`import pixops.widgets` is cheap (issue 28 item 6): each panel, chart and table
    loads what it needs when first used, so a notebook's imports cell costs nothing."""
    names = loaded_after("import pixops.widgets")
    assert [n for n in names if n.split(".")[0] in HEAVY] == []
    assert not [n for n in names if n.startswith("pixops.") and n.count(".") > 1]
    loaded = loaded_after("from pixops.widgets import brl\nbrl(100)")
    assert "plotly" not in loaded
    assert "duckdb" not in loaded
