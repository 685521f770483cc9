"""Layers: importing the primitives, the schema, the client or the data layers never
loads the engine (issue 9 item 1), each checked in a fresh interpreter."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

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


def loaded_after(statement: str) -> list[str]:
    """Every module name loaded by running `statement` in a fresh interpreter."""
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
