"""`pixops.limits`: one source for every limit, imported wherever one is enforced."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from pixops import limits
from pixops.engine import med, notifications, pipeline, queries
from pixops.engine.config import EngineConfig
from pixops.engine.pix import inbound, records
from pixops.engine.routes import charges
from pixops.engine.world import payers


def test_the_spec_values() -> None:
    assert limits.DESCRIPTION_MAX_CHARS == 140
    assert limits.IDEMPOTENCY_KEY_MAX_CHARS == 256
    assert limits.EXTERNAL_ID_MAX_CHARS == 128
    assert limits.PER_PAGE_MAX == 100
    assert limits.PER_PAGE_DEFAULT == 20
    assert limits.DEFENSE_MAX_CHARS == 2_000


def test_every_name_is_a_positive_integer_or_the_alphabet() -> None:
    for name in limits.__all__:
        value = getattr(limits, name)
        if name == "EXTERNAL_ID_ALPHABET":
            assert isinstance(value, str)
        else:
            assert isinstance(value, int), name
            assert value > 0, name


@pytest.mark.parametrize(
    ("used", "source"),
    [
        (pipeline.MAX_IDEMPOTENCY_KEY, limits.IDEMPOTENCY_KEY_MAX_CHARS),
        (pipeline.MAX_BODY_DEPTH, limits.BODY_MAX_DEPTH),
        (EngineConfig().max_body_bytes, limits.BODY_MAX_BYTES),
        (queries.MAX_PER_PAGE, limits.PER_PAGE_MAX),
        (queries.DEFAULT_PER_PAGE, limits.PER_PAGE_DEFAULT),
        (queries.MAX_PAGE, limits.PAGE_MAX),
        (med.MAX_TEXT_LENGTH, limits.DEFENSE_MAX_CHARS),
        (notifications.MAX_URL_LENGTH, limits.WEBHOOK_URL_MAX_CHARS),
        (notifications.MAX_DESCRIPTION_LENGTH, limits.WEBHOOK_DESCRIPTION_MAX_CHARS),
        (notifications.MAX_SUBSCRIPTIONS, limits.WEBHOOK_SUBSCRIPTIONS_MAX),
        (inbound.MAX_DESCRIPTION_LENGTH, limits.DESCRIPTION_MAX_CHARS),
        (inbound.MAX_KEY_LENGTH, limits.PIX_KEY_MAX_CHARS),
        (payers.MAX_NAME_LENGTH, limits.PAYER_NAME_MAX_CHARS),
        (charges.MAX_AMOUNT_CENTAVOS, limits.CASH_IN_AMOUNT_MAX_CENTAVOS),
    ],
)
def test_the_engine_enforces_the_same_numbers(used: int, source: int) -> None:
    assert used == source


def test_patterns_follow_the_limits() -> None:
    assert records.TAG_PATTERN.fullmatch("t" * limits.TAG_MAX_CHARS)
    assert not records.TAG_PATTERN.fullmatch("t" * (limits.TAG_MAX_CHARS + 1))
    assert records.EXTERNAL_ID_PATTERN.fullmatch("e" * limits.EXTERNAL_ID_MAX_CHARS)
    assert not records.EXTERNAL_ID_PATTERN.fullmatch("e" * (limits.EXTERNAL_ID_MAX_CHARS + 1))


def test_limits_imports_nothing_from_the_package() -> None:
    tree = ast.parse(Path(limits.__file__).read_text(encoding="utf-8"))
    imported = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert imported == ["typing"]
    code = (
        "import sys, pixops.limits; "
        "print(sorted(m for m in sys.modules if m.startswith('pixops.engine')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
