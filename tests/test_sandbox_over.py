"""`Sandbox.over(engine)`: the sandbox's actions on an engine that server mode built."""

from __future__ import annotations

import pytest

from pixops.engine.clock import WallClock
from pixops.engine.core import Engine
from pixops.sandbox import Sandbox


def test_actions_land_in_the_given_engine() -> None:
    engine = Engine(clock=WallClock(), seed=None)
    sandbox = Sandbox.over(engine)
    merchant = sandbox.create_merchant("Loja", balance_centavos=500)
    assert sandbox.engine is engine
    assert Sandbox.over(engine).balance(merchant.id).ledger_base == 500 * 100


def test_a_wall_clock_cannot_be_advanced() -> None:
    with pytest.raises(TypeError, match="manual clock"):
        Sandbox.over(Engine(clock=WallClock(), seed=None)).advance(seconds=1)


def test_only_an_engine_will_do() -> None:
    with pytest.raises(TypeError, match="takes an Engine"):
        Sandbox.over("engine")  # type: ignore[arg-type]
