"""How a transaction reads in words wherever a panel or notebook lists it."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("record", "words"),
    [
        (
            {"type": "pix_qrcode", "direction": "inbound", "counterparty_name": "Ana Costa"},
            "QR code charge paid by Ana Costa",
        ),
        ({"type": "pix_qrcode", "direction": "inbound"}, "QR code charge"),
        ({"type": "pix", "direction": "inbound", "counterparty_name": "João"}, "PIX from João"),
        ({"type": "pix", "direction": "outbound", "counterparty_name": "Bia"}, "PIX to Bia"),
        (
            {
                "type": "pix",
                "direction": "outbound",
                "transaction_id": "PIXRETD99999999202602032047abcdefghijk",
                "counterparty_name": "José Freitas Marques",
            },
            "Refund to José Freitas Marques",
        ),
        ({"type": "ted", "direction": "outbound"}, "TED bank transfer"),
    ],
)
def test_a_movement_in_a_few_words(record: dict[str, str], words: str) -> None:
    from pixops.widgets import movement_text

    assert movement_text(record) == words
