"""The sandbox's documented test keys: PIX keys that force each outcome of a cash-out,
like a card network's test numbers (docs/sandbox-test-keys.md lists them, and a test
keeps the two in step). They and the `@sandbox.pixops.dev` domain cannot be registered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from pixops.engine.world.central_bank import REASON_CODES
from pixops.engine.world.keys import Behavior, Entry

SANDBOX_DOMAIN: Final = "sandbox.pixops.dev"


#: `reject.<code>@sandbox.pixops.dev`: accepted, then rejected by the central bank with <code>.
REJECT_KEY_PATTERN: Final = re.compile(r"reject\.([a-z0-9]{4})@" + re.escape(SANDBOX_DOMAIN))


@dataclass(frozen=True)
class TestKey:
    entry: Entry
    outcome: str
    """One line for docs/sandbox-test-keys.md."""


def _test_key(
    key: str,
    key_type: str,
    owner_name: str,
    owner_document: str,
    ispb: str,
    behavior: str,
    outcome: str,
) -> TestKey:
    entry = Entry(key, key_type, owner_name, owner_document, ispb, Behavior.parse(behavior))
    return TestKey(entry, outcome)


def _sandbox(local: str) -> str:
    return f"{local}@{SANDBOX_DOMAIN}"


#: The documented test keys. Owners have valid documents; banks are real Pix participants.
TEST_KEYS: Final[tuple[TestKey, ...]] = (
    # Settle normally: 202 accepted, pix.payout.confirmed after the settlement latency.
    _test_key(_sandbox("maria.silva"), "email", "Maria Silva", "52998224725", "60701190",
              "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    _test_key("11144477735", "cpf", "João Pereira", "11144477735", "00000000",
              "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    _test_key("11222333000181", "cnpj", "Padaria Pão Quente Ltda", "11222333000181", "60746948",
              "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    _test_key("12ABC34501DE35", "cnpj", "Nova Era Tecnologia Ltda", "12ABC34501DE35", "00416968",
              "settle", "202 accepted, then settled (alphanumeric CNPJ key)"),
    _test_key("+5511987654321", "phone", "Ana Costa", "10433218100", "18236120",
              "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    _test_key("123e4567-e89b-42d3-a456-426614174000", "evp", "Carlos Souza", "96001338914",
              "00360305", "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    # Settled in the request.
    _test_key(_sandbox("instant"), "email", "Beatriz Lima", "08386379499", "90400888",
              "settle_instant", "200 settled at once (final true; pix.payout.confirmed)"),
    _test_key("03560714000142", "cnpj", "Mercado Instantâneo Ltda", "03560714000142", "31872495",
              "settle_instant", "200 settled at once (final true; pix.payout.confirmed)"),
    # Accepted, then rejected by the central bank (pacs.002 RJCT).
    _test_key("12345678909", "cpf", "Rafael Gomes", "12345678909", "00000000",
              "reject:AC03", "202 accepted, then rejected AC03 (pix.payout.rejected)"),
    _test_key("+5521998765432", "phone", "Juliana Rocha", "02654235114", "22896431",
              "reject:AM02", "202 accepted, then rejected AM02 (pix.payout.rejected)"),
    _test_key("0c6f4ab2-3d5e-4f71-9a8b-2c3d4e5f6a7b", "evp", "Lucas Martins", "16155940789",
              "10573521", "reject:AC06", "202 accepted, then rejected AC06 (pix.payout.rejected)"),
    # Synchronous directory refusals (HTTP 400, Format A).
    _test_key(_sandbox("notfound"), "email", "Chave Inexistente", "81618495950", "60701190",
              "not_found", "400 dict_key_not_found (as is every unregistered key)"),
    _test_key(_sandbox("blocked"), "email", "Fernanda Alves", "31034131656", "60701190",
              "blocked", "400 dict_key_blocked"),
    _test_key("24681357928", "cpf", "Pedro Barbosa", "24681357928", "00360305",
              "blocked", "400 dict_key_blocked"),
    _test_key(_sandbox("lookup.failed"), "email", "Gabriel Nunes", "47525534144", "60746948",
              "lookup_failed", "400 dict_lookup_failed"),
    _test_key(_sandbox("rate.limited"), "email", "Larissa Dias", "92832764851", "18236120",
              "rate_limited", "400 dict_rate_limited"),
    _test_key(_sandbox("bucket.exhausted"), "email", "Thiago Mendes", "35030564160", "90400888",
              "bucket_exhausted", "400 dict_bucket_exhausted"),
    # The automatic retry queue (HTTP 202 queued, pix.payout.queued).
    _test_key(_sandbox("queue.client"), "email", "Camila Freitas", "39537672409", "60701190",
              "queue_client:3",
              "202 queued DICT_CLIENT_RATE_LIMITED; clears on the 3rd retry (~9 s), then settles"),
    _test_key(_sandbox("queue.bucket"), "email", "Rodrigo Teixeira", "23884969692", "00000000",
              "queue_bucket:5",
              "202 queued DICT_BUCKET_EXHAUSTED; clears on the 5th retry (~15 s), then settles"),
    _test_key(_sandbox("queue.timeout"), "email", "Vanessa Cardoso", "53287101269", "00360305",
              "queue_forever",
              "202 queued DICT_BUCKET_EXHAUSTED; never clears: failed DICT_QUEUE_TIMEOUT (7200 s)"),
    # Sent, never answered.
    _test_key(_sandbox("orphan"), "email", "Eduardo Marques", "26916697857", "60746948",
              "orphan", "202 accepted, no pacs.002: failed orphan_force_voided after 30 min"),
    # The provider refuses (HTTP 400, Format A).
    _test_key(_sandbox("provider.rejected"), "email", "Bruna Vieira", "48018451427", "18236120",
              "provider_rejected", "400 provider_rejected"),
    _test_key(_sandbox("provider.schema"), "email", "Felipe Andrade", "62704828105", "60701190",
              "provider_schema_error", "400 provider_schema_error"),
    _test_key(_sandbox("provider.unknown"), "email", "Aline Moreira", "48932528870", "00000000",
              "provider_unknown_error", "400 provider_unknown_error"),
)  # fmt: skip


TEST_KEYS_BY_KEY: Final[dict[str, Entry]] = {test.entry.key: test.entry for test in TEST_KEYS}


def reject_pattern_entry(key: str) -> Entry | None:
    match = REJECT_KEY_PATTERN.fullmatch(key)
    if match is None or match.group(1).upper() not in REASON_CODES:
        return None
    code = match.group(1).upper()
    return Entry(
        key,
        "email",
        f"Teste Rejeição {code}",
        "09570154373",
        "60701190",
        Behavior("reject", code=code),
    )
