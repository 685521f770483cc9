"""One source for both clients (issue 28 item 3): `pixops.Client` is generated from
`pixops.AsyncClient` by scripts/unasync.py; the generated files are current, and every
sync method has an async twin with the same signature."""

from __future__ import annotations

import functools
import importlib.util
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pixops.client import _async_resources, _resources
from pixops.client._async import AsyncClient
from pixops.client._sync import Client

ROOT = Path(__file__).resolve().parents[2]
#: Sync names whose async twin is not the same name.
TWIN_NAMES = {"close": "aclose", "__enter__": "__aenter__", "__exit__": "__aexit__"}
#: What only the async client has (a bulk fetch with bounded concurrency).
ASYNC_ONLY = {"fetch_range"}
NAMESPACES = ["Cpf", "Pix", "Statement", "Transactions", "Webhooks", "Med"]


@functools.cache
def unasync_script() -> ModuleType:
    """scripts/unasync.py, loaded from its path (it is a script, not a module of pixops)."""
    spec = importlib.util.spec_from_file_location("unasync", ROOT / "scripts" / "unasync.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("pair", [0, 1], ids=["_sync.py", "_resources.py"])
def test_the_sync_client_is_the_generated_one(pair: int) -> None:
    """Regenerate and compare: an edit of the sync files alone, or an async edit not
    carried over, fails here (`python scripts/unasync.py` mends it)."""
    script = unasync_script()
    source, target = script.PAIRS[pair]
    assert target.read_text(encoding="utf-8") == script.generated(source, target), (
        f"{target.name} is out of date: run python scripts/unasync.py"
    )


def test_the_generator_leaves_out_what_only_the_async_client_has() -> None:
    script = unasync_script()
    source = (
        "async def a() -> None:\n"
        "    await b()  # unasync: async only\n"
        "    # unasync: async only\n"
        "    await c()\n"
        "    # unasync: end\n"
        "    async for x in AsyncThing():\n"
        "        await x.aclose()\n"
    )
    assert script.unasync_text(source) == (
        "def a() -> None:\n    for x in Thing():\n        x.close()\n"
    )
    with pytest.raises(ValueError, match="never closed"):
        script.unasync_text("# unasync: async only\nx = 1\n")


def public_members(cls: type) -> dict[str, Any]:
    """The methods, properties and class methods a user calls (`__init__` and the
    context-manager methods included)."""
    special = {"__init__", *TWIN_NAMES, *TWIN_NAMES.values()}
    return {
        name: member
        for name, member in vars(cls).items()
        if (not name.startswith("_") or name in special)
        and (inspect.isfunction(member) or isinstance(member, property | classmethod))
    }


def synced(annotation: Any) -> Any:
    """An async annotation as the sync twin writes it (`AsyncIterator[X]` -> `Iterator[X]`)."""
    if not isinstance(annotation, str):
        return annotation
    return unasync_script().unasync_line(annotation)


def check_twin(sync_cls: type, async_cls: type) -> None:
    sync_members, async_members = public_members(sync_cls), public_members(async_cls)
    expected_async = {TWIN_NAMES.get(name, name) for name in sync_members}
    assert set(async_members) - expected_async == ASYNC_ONLY & set(async_members)
    for name, member in list(sync_members.items()):
        twin_name = TWIN_NAMES.get(name, name)
        assert twin_name in async_members, f"{async_cls.__name__}.{twin_name} is missing"
        twin = async_members[twin_name]
        label = f"{sync_cls.__name__}.{name}"
        if isinstance(member, property):
            assert isinstance(twin, property), label
            member, twin = member.fget, twin.fget
        elif isinstance(member, classmethod):
            assert isinstance(twin, classmethod), label
            member, twin = member.__func__, twin.__func__
        sync_sig, async_sig = inspect.signature(member), inspect.signature(twin)
        assert [
            (p.name, p.kind, p.default, p.annotation) for p in sync_sig.parameters.values()
        ] == [
            (p.name, p.kind, p.default, synced(p.annotation)) for p in async_sig.parameters.values()
        ], label
        assert sync_sig.return_annotation == synced(async_sig.return_annotation), label
        assert (member.__doc__ or "") == synced(twin.__doc__ or ""), label
        if inspect.isfunction(sync_members[name]) and name not in {"__init__", "with_options"}:
            returns = str(async_sig.return_annotation)
            awaited = inspect.iscoroutinefunction(twin) or returns.startswith("AsyncIterator")
            assert awaited, f"{async_cls.__name__}.{twin_name} is neither awaited nor async-for"


def test_every_sync_method_of_the_client_has_an_async_twin_with_its_signature() -> None:
    check_twin(Client, AsyncClient)


@pytest.mark.parametrize("name", NAMESPACES)
def test_every_sync_method_of_a_namespace_has_an_async_twin_with_its_signature(
    name: str,
) -> None:
    sync_cls, async_cls = getattr(_resources, name), getattr(_async_resources, name)
    check_twin(sync_cls, async_cls)
    for base in ("_Listing",):
        if issubclass(sync_cls, getattr(_resources, base)):
            check_twin(getattr(_resources, base), getattr(_async_resources, base))


def test_the_twin_check_fails_on_a_signature_that_differs() -> None:
    class Sync:
        def get(self, ident: str, *, fresh: bool = False) -> int:
            return 0

    class Async:
        async def get(self, ident: str, *, fresh: bool = True) -> int:
            return 0

    with pytest.raises(AssertionError, match=r"Sync\.get"):
        check_twin(Sync, Async)
