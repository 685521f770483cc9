"""The sandbox is the notebooks' main surface: every public method says what it does."""

from __future__ import annotations

import inspect

import pytest

from pixops.sandbox import Sandbox

PUBLIC = sorted(name for name in vars(Sandbox) if not name.startswith("_"))


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_sandbox_member_has_a_docstring(name: str) -> None:
    member = vars(Sandbox)[name]
    target = member.fget if isinstance(member, property) else member
    if isinstance(target, classmethod | staticmethod):
        target = target.__func__
    doc = inspect.getdoc(target)
    assert doc, f"Sandbox.{name} has no docstring"
    assert len(doc.split()) >= 4, f"Sandbox.{name}: {doc!r} says too little"
