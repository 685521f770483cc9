"""The wire schema: one pydantic v2 model for every request and response of the API.

    from pixops.schema import BalanceResponse, Transaction, parse
    balance = BalanceResponse.model_validate_json(body).data
    balance.available_balance.format()          # 'R$ 1.234,56' (an int of base units)

Below both the client and the engine (it imports only primitives). Response models keep
unknown fields (a newer service never breaks an old notebook); the request bodies of the
endpoints that refuse unknown fields are closed. Money in responses is `Amount` (base
units, an `int`); money in requests is centavos. The OpenAPI document served at
`/api/external/openapi.json` is generated from these models (`component_schemas`).
"""

from pixops.schema._account import (
    Balance,
    BalanceResponse,
    CpfRequest,
    CpfValidation,
    CpfValidationResponse,
    KeyType,
    PixKey,
    PixKeysResponse,
)
from pixops.schema._base import Closed, Envelope, WireModel
from pixops.schema._conformance import ENDPOINTS, check_answer, success_model
from pixops.schema._errors import (
    BusinessError,
    DetailError,
    PaymentRejection,
    PermissionError,
    PipelineError,
    PipelineErrorDetail,
    RejectionItem,
)
from pixops.schema._jsonschema import component_schemas
from pixops.schema._med import (
    MAX_DEFENSE_LENGTH,
    DefenseRequest,
    MedCase,
    MedCasePage,
    MedCaseResponse,
    MedStatus,
)
from pixops.schema._money import Amount
from pixops.schema._payments import (
    MAX_CHARGE_CENTAVOS,
    MAX_DESCRIPTION_LENGTH,
    Charge,
    ChargePayer,
    ChargeRequest,
    ChargeResponse,
    Payout,
    PayoutAccepted,
    PayoutPendingApproval,
    PayoutQueued,
    PayoutRequest,
    Refund,
    RefundRequest,
)
from pixops.schema._transactions import (
    FINAL_STATUSES,
    FailedInbound,
    FailedRecipient,
    OutboundInFlight,
    QrCharge,
    QrFallback,
    Receipt,
    ReceiptParty,
    ReceiptResponse,
    SettledTransaction,
    StatementItem,
    StatementPage,
    StatusFilter,
    Transaction,
    TransactionPage,
    TransactionResponse,
    TransactionsPage,
    TypeFilter,
    transaction_shape,
)
from pixops.schema._webhooks import (
    EVENT_TYPES,
    EventType,
    Webhook,
    WebhookDeleted,
    WebhookDeletedResponse,
    WebhookListResponse,
    WebhookRequest,
    WebhookResponse,
)

__all__ = [
    "ENDPOINTS",
    "EVENT_TYPES",
    "FINAL_STATUSES",
    "MAX_CHARGE_CENTAVOS",
    "MAX_DEFENSE_LENGTH",
    "MAX_DESCRIPTION_LENGTH",
    "Amount",
    "Balance",
    "BalanceResponse",
    "BusinessError",
    "Charge",
    "ChargePayer",
    "ChargeRequest",
    "ChargeResponse",
    "Closed",
    "CpfRequest",
    "CpfValidation",
    "CpfValidationResponse",
    "DefenseRequest",
    "DetailError",
    "Envelope",
    "EventType",
    "FailedInbound",
    "FailedRecipient",
    "KeyType",
    "MedCase",
    "MedCasePage",
    "MedCaseResponse",
    "MedStatus",
    "OutboundInFlight",
    "PaymentRejection",
    "Payout",
    "PayoutAccepted",
    "PayoutPendingApproval",
    "PayoutQueued",
    "PayoutRequest",
    "PermissionError",
    "PipelineError",
    "PipelineErrorDetail",
    "PixKey",
    "PixKeysResponse",
    "QrCharge",
    "QrFallback",
    "Receipt",
    "ReceiptParty",
    "ReceiptResponse",
    "Refund",
    "RefundRequest",
    "RejectionItem",
    "SettledTransaction",
    "StatementItem",
    "StatementPage",
    "StatusFilter",
    "Transaction",
    "TransactionPage",
    "TransactionResponse",
    "TransactionsPage",
    "TypeFilter",
    "Webhook",
    "WebhookDeleted",
    "WebhookDeletedResponse",
    "WebhookListResponse",
    "WebhookRequest",
    "WebhookResponse",
    "WireModel",
    "check_answer",
    "component_schemas",
    "success_model",
    "transaction_shape",
]
