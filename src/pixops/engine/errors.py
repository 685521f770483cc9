"""Every error the engine raises on purpose, in one place.

All derive from `EngineError`, itself a `pixops.PixopsError`; the ones that mean "you
passed a bad value" are also `ValueError`. Domain code (`pix/`, `med`, `webhooks`, the
simulated world) raises these and never an HTTP shape: the routes translate them into
the spec's error bodies (`http.ApiError`), and the sandbox lets them reach its caller.
"""

from __future__ import annotations

from typing import Any

from pixops.errors import PixopsError

__all__ = [
    "AdminError",
    "DefenseRefusedError",
    "DictError",
    "DurabilityError",
    "EngineError",
    "LedgerError",
    "MalformedCredentialsError",
    "MedError",
    "MissingCredentialsError",
    "NotFoundError",
    "PayerError",
    "PaymentRefusedError",
    "RuleError",
    "SimulationError",
    "SubscriptionError",
    "SubscriptionLimitError",
]


class EngineError(PixopsError):
    """Base class of the engine's own errors."""


# -- administration and simulation (the sandbox's callers) ----------------------------


class AdminError(EngineError, ValueError):
    """A portal or administration action with bad arguments (unknown merchant, bad key)."""


class SimulationError(AdminError):
    """A misuse of the simulator: paying an expired QR, a return of a failed payment."""


class DictError(AdminError):
    """A directory (DICT) registration the simulated directory refuses."""


class MedError(SimulationError):
    """A MED case action that the case's state or arguments do not allow."""


class PayerError(EngineError, ValueError):
    """Simulated payer attributes (name, document, institution) that are not valid."""


class LedgerError(EngineError):
    """A ledger operation that would break the books (unknown hold, overflow)."""


# -- credentials ------------------------------------------------------------------------


class MissingCredentialsError(EngineError):
    """No Authorization header, or not one of the two accepted schemes."""


class MalformedCredentialsError(EngineError):
    """An accepted scheme whose value cannot be read as `client_id:client_secret`."""


# -- business refusals, translated by the routes -----------------------------------------


class NotFoundError(EngineError, LookupError):
    """The record named does not exist, or is not the caller's (the same answer: ids
    never leak). Routes answer 404."""


class RuleError(EngineError):
    """A business rule refuses the request (over the refundable total, not settled,
    insufficient balance, a late defense). Routes answer 422."""


class PaymentRefusedError(EngineError):
    """A cash-out refused synchronously, with the spec's Format A fields: the HTTP status
    (400 or 422), a lowercase code, an English message and its params."""

    def __init__(
        self, status: int, code: str, message: str, params: dict[str, Any] | list[Any]
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.params = params


class DefenseRefusedError(RuleError):
    """A MED defense that arrives late, twice, or for a case no longer open."""


class SubscriptionError(EngineError, ValueError):
    """A subscription request with bad fields: field name -> messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()))
        self.errors = errors


class SubscriptionLimitError(RuleError, ValueError):
    """The account already has the most subscriptions allowed."""


# -- storage ------------------------------------------------------------------------------


class DurabilityError(EngineError):
    """The group commit's fsync of the log failed: recent commits may not be on disk."""
