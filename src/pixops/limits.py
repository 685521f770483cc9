"""Every size and length limit of the API, in one place.

The engine enforces these, the wire schema validates against them and the OpenAPI
document publishes them, so a limit changes in exactly one line. Lengths count
characters (Unicode code points, what Python's ``len`` of a ``str`` gives) unless the
name says bytes. This module imports nothing from the package: it is a primitive.

Where a value comes from the spec it says so; the others are recorded, with their
reasons, in ``docs/decisions.md``.
"""

from typing import Final

__all__ = [
    "BODY_MAX_BYTES",
    "BODY_MAX_DEPTH",
    "CASH_IN_AMOUNT_MAX_CENTAVOS",
    "CASH_IN_EXPIRES_IN_MAX_SECONDS",
    "CASH_IN_EXPIRES_IN_MIN_SECONDS",
    "CPF_INPUT_MAX_CHARS",
    "DEFENSE_MAX_CHARS",
    "DESCRIPTION_MAX_CHARS",
    "EXTERNAL_ID_ALPHABET",
    "EXTERNAL_ID_MAX_CHARS",
    "IDEMPOTENCY_KEY_MAX_CHARS",
    "PAGE_MAX",
    "PAYER_NAME_MAX_CHARS",
    "PER_PAGE_DEFAULT",
    "PER_PAGE_MAX",
    "PIX_KEY_MAX_CHARS",
    "PURPOSE_MAX_CHARS",
    "REFUND_REASON_MAX_CHARS",
    "TAG_MAX_CHARS",
    "TRANSACTION_ID_MAX_CHARS",
    "WEBHOOK_DESCRIPTION_MAX_CHARS",
    "WEBHOOK_SUBSCRIPTIONS_MAX",
    "WEBHOOK_URL_MAX_CHARS",
]

# -- the request as a whole ---------------------------------------------------------

BODY_MAX_BYTES: Final = 1_048_576
"""A request body larger than 1 MiB is a 413 before any other step."""
BODY_MAX_DEPTH: Final = 64
"""JSON bodies may nest at most this many levels (payment bodies are shallow)."""
IDEMPOTENCY_KEY_MAX_CHARS: Final = 256
"""Spec: the ``Idempotency-Key`` header holds at most 256 characters (printable ASCII)."""

# -- free text ---------------------------------------------------------------------

DESCRIPTION_MAX_CHARS: Final = 140
"""Spec: ``description`` of cash-out and refund; cash-in and received PIX use the same."""
PURPOSE_MAX_CHARS: Final = 140
"""Cash-out ``purpose``, free text like ``description``."""
DEFENSE_MAX_CHARS: Final = 2_000
"""The text of a MED defense, after trimming."""
PAYER_NAME_MAX_CHARS: Final = 140
"""A payer's (cob ``devedor``'s) name, after trimming."""
WEBHOOK_DESCRIPTION_MAX_CHARS: Final = 140
"""A webhook subscription's ``description``."""

# -- identifiers and codes -----------------------------------------------------------

EXTERNAL_ID_MAX_CHARS: Final = 128
"""Spec: ``external_id`` holds at most 128 characters of `EXTERNAL_ID_ALPHABET` after trim."""
EXTERNAL_ID_ALPHABET: Final = "a-z A-Z 0-9 . _ : -"
"""Spec: the characters of ``external_id`` (and of ``tag``), as the docs write them."""
TAG_MAX_CHARS: Final = 64
"""A charge's ``tag``: it travels in a URL path (``/transactions/tag/:tag``)."""
TRANSACTION_ID_MAX_CHARS: Final = 64
"""Any transaction id a request names (``original_transaction_id`` and its aliases);
every id the service issues is at most 45 characters."""
REFUND_REASON_MAX_CHARS: Final = 35
"""A refund ``reason``: forwarded unvalidated, but bounded like ISO 20022's Max35Text."""
PIX_KEY_MAX_CHARS: Final = 77
"""A PIX key: the directory's longest key (an e-mail address) is 77 characters."""
CPF_INPUT_MAX_CHARS: Final = 14
"""``POST /cpf/validate``: a CPF written with its punctuation (``000.000.000-00``)."""

# -- webhooks ------------------------------------------------------------------------

WEBHOOK_URL_MAX_CHARS: Final = 2_048
"""A webhook subscription's ``url``."""
WEBHOOK_SUBSCRIPTIONS_MAX: Final = 16
"""Subscriptions an account may hold at once."""

# -- cash-in -------------------------------------------------------------------------

CASH_IN_AMOUNT_MAX_CENTAVOS: Final = 999_999_999_999
"""The BR Code's amount field holds at most 13 characters: ``9999999999.99``."""
CASH_IN_EXPIRES_IN_MIN_SECONDS: Final = 60
CASH_IN_EXPIRES_IN_MAX_SECONDS: Final = 30 * 86_400

# -- pagination ----------------------------------------------------------------------

PER_PAGE_DEFAULT: Final = 20
"""Spec: the statement's default page size."""
PER_PAGE_MAX: Final = 100
"""Spec: the statement's largest page."""
PAGE_MAX: Final = 1_000_000_000
"""The largest page number a list accepts."""
