"""The client of the PIX account API: typed, retrying, paginating; sync and async.

    import pixops
    sb = pixops.Sandbox()                          # or: client = pixops.Client.from_env()
    merchant = sb.create_merchant("Loja Exemplo", balance_centavos=1_000_000)
    client = sb.client(sb.issue_api_key(merchant.id))
    client.balance().available_balance.format()    # 'R$ 10.000,00'
    payout = client.pix.cash_out(pix_key="maria.silva@sandbox.pixops.dev", amount_centavos=1_000)
    payout.amount.base, payout.amount.centavos     # (100000, 1000): responses are base units
    client.wait_until_final(payout.transaction_id).status   # 'settled'
    for row in client.statement.iter(date_from="2026-01-01"):
        print(row.created_at, row.direction, row.amount.format(), row.status)

`pixops.Client.from_env()` reads `PIXOPS_BASE_URL`, `PIXOPS_CLIENT_ID` and
`PIXOPS_CLIENT_SECRET` (or a `.env` file); `pixops.connect()` does the same and falls
back to the demo month. Money goes in as `amount_centavos=` (int) or
`amount=Decimal("10.00")` (reais) and comes back as `Amount` (an int of base units).
Errors are `pixops.PixopsError` subclasses; API refusals are `ApiError` with `.status`,
`.code`, `.message`, `.params`, `.body` and `.retryable`. The client never imports the
engine.
"""

from pixops.client._async import AsyncClient
from pixops.client._config import DEFAULT_TIMEOUT, Credentials, KeyCase
from pixops.client._core import Call
from pixops.client._errors import (
    ApiError,
    ArgumentError,
    AuthenticationError,
    BadRequestError,
    ClientClosedError,
    ConfigurationError,
    ConflictError,
    DictError,
    InsufficientBalanceError,
    NotFoundError,
    PayloadTooLargeError,
    PaymentRejectedError,
    PermissionDeniedError,
    ProviderError,
    RateLimitError,
    ResponseValidationError,
    ServerError,
    SignatureError,
    TransportError,
    UnprocessableEntityError,
    UnsupportedMediaTypeError,
    WaitTimeoutError,
    error_from_response,
)
from pixops.client._keys import KeyResolution
from pixops.client._reasons import REASON_CODES, PaymentFailedError, ReasonCode, describe_reason
from pixops.client._retry import DEFAULT_RETRY, NO_RETRY, RetryPolicy
from pixops.client._sync import Client
from pixops.errors import name_errors_by_package

__all__ = [
    "DEFAULT_RETRY",
    "DEFAULT_TIMEOUT",
    "NO_RETRY",
    "REASON_CODES",
    "ApiError",
    "ArgumentError",
    "AsyncClient",
    "AuthenticationError",
    "BadRequestError",
    "Call",
    "Client",
    "ClientClosedError",
    "ConfigurationError",
    "ConflictError",
    "Credentials",
    "DictError",
    "InsufficientBalanceError",
    "KeyCase",
    "KeyResolution",
    "NotFoundError",
    "PayloadTooLargeError",
    "PaymentFailedError",
    "PaymentRejectedError",
    "PermissionDeniedError",
    "ProviderError",
    "RateLimitError",
    "ReasonCode",
    "ResponseValidationError",
    "RetryPolicy",
    "ServerError",
    "SignatureError",
    "TransportError",
    "UnprocessableEntityError",
    "UnsupportedMediaTypeError",
    "WaitTimeoutError",
    "describe_reason",
    "error_from_response",
]

name_errors_by_package(__name__, globals(), __all__)
